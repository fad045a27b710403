//! `baton sync` against a real PostgreSQL (Debian's, started by `tests/pg/with-postgres.sh`,
//! which `./run test` wraps these in): ledgers standing for three machines sync at once,
//! round after round, with syncs SIGKILLed mid-way; the server ends with every event exactly
//! once. A server that is down stops no local command, and the next sync catches up.
//!
//! Ignored in a plain `cargo test` (no server); `./run test` runs them with `--ignored`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One test at a time on the server: one of them stops and starts it.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn server_url() -> String {
    std::env::var("BATON_TEST_PG_URL")
        .expect("BATON_TEST_PG_URL: run through tests/pg/with-postgres.sh")
}

/// One query through `psql`, its rows as lines.
fn psql(sql: &str) -> Vec<String> {
    let out = Command::new("psql")
        .args([&server_url(), "-v", "ON_ERROR_STOP=1", "-Atc", sql])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn run(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = baton_tests::baton(dir)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    baton_tests::json_of(&out)
}

fn sync_command(dir: &Path, url: &str) -> Command {
    let mut command = baton_tests::baton(dir);
    command.args(["--json", "sync", "--to", url]);
    command
}

/// The event ids a ledger holds, as the fold reads them.
fn event_ids(dir: &Path) -> std::collections::BTreeSet<String> {
    let mut ids = std::collections::BTreeSet::new();
    for name in ["events.ndjson"] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        for line in text.lines() {
            if let Ok(value) = serde_json::from_str::<serde_json::Value>(line)
                && let Some(id) = value["id"].as_str()
            {
                ids.insert(id.to_owned());
            }
        }
    }
    ids
}

fn machine_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("machine-id"))
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn three_machines_sync_at_once_with_kills_and_every_event_lands_once() {
    let _server = SERVER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let url = server_url();
    let tmp = tempfile::tempdir().unwrap();
    let machines: Vec<std::path::PathBuf> = (0..3)
        .map(|m| tmp.path().join(format!("machine-{m}")).join(".baton"))
        .collect();
    for round in 0..4 {
        // Each machine's agents write; then all three sync at once, some killed mid-way.
        for (m, dir) in machines.iter().enumerate() {
            for s in 0..5_u32 {
                let started = run(
                    dir,
                    &[
                        "start",
                        "--project",
                        "shop",
                        "--agent",
                        &format!("agent{m}"),
                        "--goal",
                        &format!("round {round} task {s}"),
                    ],
                );
                if s.is_multiple_of(2) {
                    run(
                        dir,
                        &[
                            "end",
                            started["session_id"].as_str().unwrap(),
                            "--summary",
                            "done",
                        ],
                    );
                }
            }
        }
        let mut children: Vec<std::process::Child> = machines
            .iter()
            .flat_map(|dir| {
                // Two syncs of one machine at once, too.
                (0..2).map(|_| {
                    sync_command(dir, &url)
                        .stdout(Stdio::null())
                        .stderr(Stdio::null())
                        .spawn()
                        .unwrap()
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(15 * (round + 1)));
        for (i, child) in children.iter_mut().enumerate() {
            if (i + round as usize).is_multiple_of(3) {
                // SIGKILL: whatever it was doing, its transaction is rolled back.
                let _ = child.kill();
            }
        }
        for mut child in children {
            let _ = child.wait();
        }
    }
    // A last clean sync of each machine, then each event is on the server exactly once.
    for dir in &machines {
        let report = sync_command(dir, &url).output().unwrap();
        assert!(
            report.status.success(),
            "{}",
            String::from_utf8_lossy(&report.stderr)
        );
    }
    let mut expected = 0;
    for dir in &machines {
        let ids = event_ids(dir);
        expected += ids.len();
        let machine = machine_of(dir);
        let on_server: std::collections::BTreeSet<String> = psql(&format!(
            "SELECT event_id FROM baton_events WHERE machine = '{machine}'"
        ))
        .into_iter()
        .collect();
        assert_eq!(
            on_server, ids,
            "machine {machine}: the server holds exactly its events"
        );
    }
    let ours = machines
        .iter()
        .map(|dir| format!("'{}'", machine_of(dir)))
        .collect::<Vec<_>>()
        .join(",");
    assert_eq!(
        psql(&format!(
            "SELECT count(*) FROM baton_events WHERE machine IN ({ours})"
        )),
        vec![expected.to_string()],
        "no row twice"
    );
    assert_eq!(
        psql(&format!(
            "SELECT count(*) FROM baton_machines WHERE machine IN ({ours})"
        )),
        vec!["3".to_owned()]
    );
    assert_eq!(
        psql("SELECT max(version) FROM baton_schema"),
        vec!["1".to_owned()]
    );
    // Nothing new: a sync reads nothing.
    let again = run(&machines[0], &["sync", "--to", &url]);
    assert_eq!(
        (again["read"].as_u64(), again["inserted"].as_u64()),
        (Some(0), Some(0))
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn a_server_that_is_down_stops_no_local_command_and_the_next_sync_catches_up() {
    let _server = SERVER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let url = server_url();
    let ctl = std::env::var("BATON_TEST_PG_CTL").unwrap();
    let data = std::env::var("BATON_TEST_PG_DATA").unwrap();
    let port = std::env::var("BATON_TEST_PG_PORT").unwrap();
    let sockets = std::env::var("BATON_TEST_PG_SOCKETS").unwrap();
    let pg_ctl = |action: &str| {
        let mut words = ctl.split(' ');
        let mut command = Command::new(words.next().unwrap());
        command.args(words).args(["-D", &data, "-w", "-m", "fast"]);
        if action == "start" {
            command.args([
                "-l",
                &format!("{sockets}/server.log"),
                "-o",
                &format!("-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"),
            ]);
        }
        let status = command.arg(action).stdout(Stdio::null()).status().unwrap();
        assert!(status.success(), "pg_ctl {action}");
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    run(&dir, &["start", "--project", "site", "--agent", "claude"]);
    run(&dir, &["sync", "--to", &url]);
    pg_ctl("stop");
    // Down: local work goes on, and sync says so (with a code) instead of hanging.
    let started = run(&dir, &["start", "--project", "site", "--agent", "codex"]);
    run(&dir, &["end", started["session_id"].as_str().unwrap()]);
    let failed = sync_command(&dir, &url).output().unwrap();
    pg_ctl("start");
    assert!(!failed.status.success());
    let error: serde_json::Value = serde_json::from_slice(&failed.stdout)
        .unwrap_or_else(|_| serde_json::from_slice(&failed.stderr).unwrap());
    assert_eq!(error["error"]["code"], "STORE_IO", "{error}");
    assert!(!error.to_string().contains("password"), "{error}");
    // Up again: the next sync sends what was written meanwhile, and only that.
    let caught_up = run(&dir, &["sync", "--to", &url]);
    assert!(caught_up["inserted"].as_u64().unwrap() >= 2, "{caught_up}");
    let machine = machine_of(&dir);
    let on_server = psql(&format!(
        "SELECT count(*) FROM baton_events WHERE machine = '{machine}'"
    ));
    assert_eq!(on_server, vec![event_ids(&dir).len().to_string()]);
}
