//! `baton sync` and `baton team` against a real PostgreSQL (Debian's, started by
//! `tests/pg/with-postgres.sh`, which `./run test` wraps these in): ledgers standing for three
//! machines sync at once, round after round, with syncs SIGKILLed mid-way; the server ends
//! with every event exactly once, and the team views equal a local fold of the three ledgers
//! merged. A server that is down stops no local command, and the next sync catches up (once,
//! or following). A change on one machine to a file another depends on opens a collision in
//! the team view. A machine's role cannot write another machine's rows; the read role cannot
//! write at all.
//!
//! Ignored in a plain `cargo test` (no server); `./run test` runs them with `--ignored`.

use baton_tests::assert_success;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One test at a time on the server: one of them stops and starts it.
static SERVER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn server_url() -> String {
    std::env::var("BATON_TEST_PG_URL")
        .expect("BATON_TEST_PG_URL: run through tests/pg/with-postgres.sh")
}

/// One query through `psql` on the default database, its rows as lines.
fn psql(sql: &str) -> Vec<String> {
    psql_at(&server_url(), sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The server, one test at a time.
pub(crate) fn take_server() -> std::sync::MutexGuard<'static, ()> {
    SERVER
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A database of its own on the test server (team views read a whole database); its URL.
pub(crate) fn fresh_database(name: &str) -> String {
    let name = format!("{name}_{}", std::process::id());
    psql(&format!("DROP DATABASE IF EXISTS {name}"));
    psql(&format!("CREATE DATABASE {name}"));
    let url = server_url();
    let base = url.rsplit_once('/').unwrap().0;
    format!("{base}/{name}")
}

/// `url` with another user.
pub(crate) fn as_user(url: &str, user: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let host = rest.split_once('@').map_or(rest, |(_, host)| host);
    format!("{scheme}://{user}@{host}")
}

/// One statement through `psql` at `url`: its rows, or the server's complaint.
pub(crate) fn psql_at(url: &str, sql: &str) -> Result<Vec<String>, String> {
    let out = Command::new("psql")
        .args([url, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
        .output()
        .expect("psql runs");
    if out.status.success() {
        Ok(String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A JSON answer with the team view's additions taken out, to compare with a local one.
fn without_team_fields(mut value: serde_json::Value) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object.remove("machines");
        object.remove("unseen_collisions");
        object.remove("events_read");
    }
    for list in ["sessions", "items"] {
        if let Some(rows) = value.get_mut(list).and_then(|v| v.as_array_mut()) {
            for row in rows {
                row.as_object_mut().unwrap().remove("machines");
            }
        }
    }
    value
}

/// Where two JSON values first differ, and how.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for key in x.keys().chain(y.keys()) {
                let here = format!("{at}/{key}");
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => {
                        if let Some(d) = first_difference(p, q, &here) {
                            return Some(d);
                        }
                    }
                    (p, q) => return Some(format!("{here}: {p:?} vs {q:?}")),
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_difference(p, q, &format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some(format!("{at}: {} vs {}", shorten(a), shorten(b))),
    }
}

fn shorten(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match value {
        serde_json::Value::Array(items) => format!("{} items: {:.300}", items.len(), text),
        _ => format!("{text:.300}"),
    }
}

fn run(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = baton_tests::baton(dir)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert_success(&out, format_args!("{args:?}"));
    baton_tests::json_of(&out)
}

fn sync_command(dir: &Path, url: &str) -> Command {
    let mut command = baton_tests::baton(dir);
    if let Some(m) = dir
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("machine-"))
    {
        command.env("BATON_MACHINE_NAME", format!("host-{m}"));
    }
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
    let _server = take_server();
    let url = fresh_database("three_machines");
    let psql = |sql: &str| psql_at(&url, sql).unwrap();
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
        assert_success(&report, format_args!(""));
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
        vec!["4".to_owned()]
    );
    // Nothing new: a sync reads nothing.
    let again = sync_command(&machines[0], &url).output().unwrap();
    let again = baton_tests::json_of(&again);
    assert_eq!(
        (again["read"].as_u64(), again["inserted"].as_u64()),
        (Some(0), Some(0))
    );
    // The team views equal a local fold of the three ledgers merged into one.
    let merged = tmp.path().join("merged").join(".baton");
    std::fs::create_dir_all(&merged).unwrap();
    let mut all = Vec::new();
    for dir in &machines {
        all.extend(std::fs::read(dir.join("events.ndjson")).unwrap());
    }
    std::fs::write(merged.join("events.ndjson"), all).unwrap();
    for view in [
        vec!["list"],
        vec!["list", "--all"],
        vec!["list", "--all", "--agent", "agent1"],
        vec!["attention"],
    ] {
        let local = run(&merged, &view);
        let mut team_args = vec!["team"];
        team_args.extend(&view);
        team_args.extend(["--from", &url]);
        let team = run(&machines[0], &team_args);
        assert_eq!(team["unseen_collisions"], serde_json::json!([]), "{view:?}");
        if let Some(difference) = first_difference(&without_team_fields(team), &local, "") {
            panic!("team {view:?} differs from local {view:?}: {difference}");
        }
    }
    let listed = run(&machines[2], &["team", "list", "--all", "--from", &url]);
    assert_eq!(listed["total"], 60, "3 machines x 4 rounds x 5 sessions");
    for session in listed["sessions"].as_array().unwrap() {
        let machine = &session["machines"][0];
        let agent = session["agent"].as_str().unwrap();
        let m: usize = agent.trim_start_matches("agent").parse().unwrap();
        assert_eq!(machine["machine"], machine_of(&machines[m]).as_str());
        assert_eq!(machine["name"], format!("host-{m}"));
    }
    let one = listed["sessions"][7]["session_id"].as_str().unwrap();
    let local = run(&merged, &["show", one]);
    let team = run(
        &machines[1],
        &["team", "show", &one[one.len() - 8..], "--from", &url],
    );
    assert_eq!(team["machines"].as_array().unwrap().len(), 1);
    assert_eq!(team["session"], local["session"]);
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn a_server_that_is_down_stops_no_local_command_and_the_next_sync_catches_up() {
    let _server = take_server();
    let url = server_url();
    let pg_ctl = server_control();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    run(&dir, &["start", "--project", "site", "--agent", "claude"]);
    run(&dir, &["sync", "--to", &url]);
    pg_ctl("stop");
    // Down: local work goes on, and sync says so (with a code) instead of hanging.
    let started = run(&dir, &["start", "--project", "site", "--agent", "codex"]);
    run(&dir, &["end", started["session_id"].as_str().unwrap()]);
    // A password in the URL (the trust setup ignores it) never shows in what is said.
    let with_password = url.replacen("://baton@", "://baton:s3cret@", 1);
    assert_ne!(with_password, url);
    let failed = sync_command(&dir, &with_password).output().unwrap();
    let failed_keyed = sync_command(&dir, &format!("{url}?password=s3cret"))
        .output()
        .unwrap();
    pg_ctl("start");
    for failed in [&failed, &failed_keyed] {
        assert!(!failed.status.success());
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&failed.stdout),
            String::from_utf8_lossy(&failed.stderr)
        );
        assert!(!said.contains("s3cret"), "{said}");
        let error: serde_json::Value = serde_json::from_str(said.trim()).unwrap();
        assert_eq!(error["error"]["code"], "STORE_IO", "{error}");
    }
    // Up again: the next sync sends what was written meanwhile, and only that.
    let caught_up = run(&dir, &["sync", "--to", &url]);
    assert!(caught_up["inserted"].as_u64().unwrap() >= 2, "{caught_up}");
    let machine = machine_of(&dir);
    let on_server = psql(&format!(
        "SELECT count(*) FROM baton_events WHERE machine = '{machine}'"
    ));
    assert_eq!(on_server, vec![event_ids(&dir).len().to_string()]);
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn a_change_on_one_machine_to_a_file_another_depends_on_opens_a_collision_in_the_team_view() {
    let _server = take_server();
    let url = fresh_database("collisions");
    let tmp = tempfile::tempdir().unwrap();
    let laptop = tmp.path().join("machine-0").join(".baton");
    let runner = tmp.path().join("machine-1").join(".baton");
    let depends = run(
        &laptop,
        &["start", "--project", "shop", "--agent", "claude"],
    );
    let depends = depends["session_id"].as_str().unwrap().to_owned();
    run(&laptop, &["depend", &depends, "--on", "src/api.rs"]);
    let changes = run(&runner, &["start", "--project", "shop", "--agent", "codex"]);
    let changes = changes["session_id"].as_str().unwrap().to_owned();
    let reported = run(&runner, &["report", &changes, "--changed", "src/api.rs"]);
    assert!(
        reported["collisions_opened"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "alone, the runner cannot see it: {reported}"
    );
    for dir in [&laptop, &runner] {
        assert!(sync_command(dir, &url).output().unwrap().status.success());
    }
    let listed = run(&laptop, &["team", "list", "--from", &url]);
    let unseen = listed["unseen_collisions"].as_array().unwrap();
    assert_eq!(unseen.len(), 1, "{listed}");
    assert_eq!(unseen[0]["session_id"], depends.as_str());
    assert_eq!(unseen[0]["by_session"], changes.as_str());
    assert_eq!(unseen[0]["file"], "src/api.rs");
    assert_eq!(unseen[0]["severity"], "high");
    // The same events in one ledger: the report opens the same collision there.
    let shared = tmp.path().join("one-ledger").join(".baton");
    let a = run(
        &shared,
        &["start", "--project", "shop", "--agent", "claude"],
    );
    let a = a["session_id"].as_str().unwrap().to_owned();
    run(&shared, &["depend", &a, "--on", "src/api.rs"]);
    let b = run(&shared, &["start", "--project", "shop", "--agent", "codex"]);
    let b = b["session_id"].as_str().unwrap().to_owned();
    let local = run(&shared, &["report", &b, "--changed", "src/api.rs"]);
    assert_eq!(local["collisions_opened"][0]["severity"], "high");
    let shown = run(&laptop, &["team", "show", &depends, "--from", &url]);
    let open = &shown["session"]["open_collisions"];
    assert_eq!(open.as_array().unwrap().len(), 1, "{shown}");
    assert_eq!(open[0]["by_session"], changes.as_str());
    assert_eq!(open[0]["file"], "src/api.rs");
    assert_eq!(open[0]["severity"], "high");
    // Its health counts the collision, as the shared ledger's does.
    let dependencies = |session: &serde_json::Value| {
        session["health"]["dimensions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == "dependencies_current")
            .unwrap()
            .clone()
    };
    let local_show = run(&shared, &["show", &a]);
    assert_eq!(dependencies(&shown["session"])["score"], 55, "{shown}");
    assert_eq!(
        dependencies(&shown["session"]),
        dependencies(&local_show["session"])
    );
    // The human view says it, with machine names.
    let human = baton_tests::baton(&laptop)
        .args(["team", "list", "--from", &url])
        .output()
        .unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.contains("MACHINE") && text.contains("HEALTH"),
        "{text}"
    );
    assert!(text.contains("host-0") && text.contains("host-1"), "{text}");
    assert!(
        text.contains("high src/api.rs changed by") && text.contains("across machines"),
        "{text}"
    );
    // Once one ends, the collision no longer stands.
    run(&runner, &["end", &changes]);
    assert!(
        sync_command(&runner, &url)
            .output()
            .unwrap()
            .status
            .success()
    );
    let after = run(&laptop, &["team", "list", "--from", &url]);
    assert_eq!(after["unseen_collisions"], serde_json::json!([]));
    assert_eq!(after["total"], 1);
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn a_machine_role_writes_only_its_own_rows_and_the_read_role_writes_nothing() {
    let _server = take_server();
    let owner = fresh_database("roles");
    let tmp = tempfile::tempdir().unwrap();
    // The README's least-privilege setup, with names of this run.
    let suffix = std::process::id();
    let (group, laptop_a, laptop_b, reader) = (
        format!("baton_writer_{suffix}"),
        format!("laptop_a_{suffix}"),
        format!("laptop_b_{suffix}"),
        format!("baton_reader_{suffix}"),
    );
    let setup = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("pg/least-privilege.sql"),
    )
    .unwrap()
    .replace("baton_writer", &group)
    .replace("laptop_ana", &laptop_a)
    .replace("ci_runner_7", &laptop_b)
    .replace("baton_reader", &reader)
    .replace("PASSWORD 'change me'", "");
    let init = baton_tests::baton(tmp.path())
        .args(["--json", "team", "init", "--from", &owner])
        .output()
        .unwrap();
    assert_success(&init, format_args!(""));
    let setup: String = setup
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    for statement in setup.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        psql_at(&owner, statement).unwrap();
    }
    let a = tmp.path().join("machine-0").join(".baton");
    let b = tmp.path().join("machine-1").join(".baton");
    run(&a, &["start", "--project", "shop", "--agent", "claude"]);
    run(&b, &["start", "--project", "shop", "--agent", "codex"]);
    // Each machine syncs as its own role: no right to create tables is needed.
    for (dir, role) in [(&a, &laptop_a), (&b, &laptop_b)] {
        let out = sync_command(dir, &as_user(&owner, role)).output().unwrap();
        assert_success(&out, format_args!(""));
    }
    let machine_a = machine_of(&a);
    let as_b = as_user(&owner, &laptop_b);
    let refused = psql_at(
        &as_b,
        &format!(
            "INSERT INTO baton_events (machine, event_id, session, kind, at, line)
             VALUES ('{machine_a}', gen_random_uuid(), gen_random_uuid(), 'started', now(), '{{}}')"
        ),
    );
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("row-level security")),
        "{refused:?}"
    );
    for statement in [
        format!("UPDATE baton_events SET line = '{{}}' WHERE machine = '{machine_a}'"),
        format!("DELETE FROM baton_events WHERE machine = '{machine_a}'"),
    ] {
        let refused = psql_at(&as_b, &statement);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.contains("permission denied")),
            "{statement}: {refused:?}"
        );
    }
    for statement in [
        format!("UPDATE baton_machine_sessions SET ended = true WHERE machine = '{machine_a}'"),
        format!("UPDATE baton_sync_cursors SET bytes = 0 WHERE machine = '{machine_a}'"),
        format!("UPDATE baton_machines SET name = 'mine' WHERE machine = '{machine_a}'"),
        format!("DELETE FROM baton_sync_cursors WHERE machine = '{machine_a}'"),
    ] {
        // Row security hides the other machine's rows from a change: none is touched.
        let _ = psql_at(&as_b, &statement);
    }
    assert_eq!(
        psql_at(
            &owner,
            &format!(
                "SELECT count(*) FILTER (WHERE ended), (SELECT name FROM baton_machines WHERE machine = '{machine_a}'),
                        (SELECT count(*) FROM baton_sync_cursors WHERE machine = '{machine_a}' AND bytes > 0)
                 FROM baton_machine_sessions WHERE machine = '{machine_a}'"
            )
        )
        .unwrap(),
        vec!["0|host-0|1".to_owned()]
    );
    // Usage rows: a machine corrects and removes its own (to match its mirror), never
    // another's.
    let machine_b = machine_of(&b);
    let usage_row = |machine: &str, key: &str| {
        format!(
            "INSERT INTO baton_usage (machine, key, provider, provider_session, at, input_tokens,
                 output_tokens, cache_creation_tokens, cache_read_tokens, reasoning_tokens,
                 cache_creation_1h_tokens)
             VALUES ('{machine}', '{key}', 'codex', 's', now(), 1, 2, 0, 0, 0, 0)"
        )
    };
    psql_at(&owner, &usage_row(&machine_a, "a1")).unwrap();
    psql_at(&owner, &usage_row(&machine_b, "b1")).unwrap();
    psql_at(&owner, &usage_row(&machine_b, "b2")).unwrap();
    for statement in [
        "UPDATE baton_usage SET input_tokens = 100",
        "DELETE FROM baton_usage WHERE key IN ('a1', 'b2')",
    ] {
        psql_at(&as_b, statement).unwrap();
    }
    assert_eq!(
        psql_at(
            &owner,
            "SELECT string_agg(key || '=' || input_tokens, ',' ORDER BY key) FROM baton_usage"
        )
        .unwrap(),
        vec!["a1=1,b1=100".to_owned()]
    );
    // No table of its own making stands in for the machines in the policies.
    let forged = psql_at(
        &as_b,
        &format!(
            "CREATE TEMP TABLE baton_machines (machine uuid, owner name);
             INSERT INTO baton_machines VALUES ('{machine_a}', current_user);
             INSERT INTO baton_events (machine, event_id, session, kind, at, line)
             VALUES ('{machine_a}', gen_random_uuid(), gen_random_uuid(), 'started', now(), '{{}}')"
        ),
    );
    assert!(
        forged
            .as_ref()
            .is_err_and(|e| e.contains("row-level security")),
        "{forged:?}"
    );
    // Nor can a second version of another machine's event be added under its own machine.
    let (event_a, line_a) = {
        let rows = psql_at(
            &owner,
            &format!(
                "SELECT event_id || ' ' || session FROM baton_events WHERE machine = '{machine_a}' LIMIT 1"
            ),
        )
        .unwrap();
        let (event, session) = rows[0].split_once(' ').unwrap();
        (event.to_owned(), session.to_owned())
    };
    let twin = psql_at(
        &as_b,
        &format!(
            "INSERT INTO baton_events (machine, event_id, session, kind, at, line)
             VALUES ('{machine_b}', '{event_a}', '{line_a}', 'started', now(), '{{\"forged\":true}}')"
        ),
    );
    assert!(
        twin.as_ref().is_err_and(|e| e.contains("duplicate key")),
        "{twin:?}"
    );
    // Syncing under another machine's id as this role is refused, with a code.
    let impostor = tmp.path().join("impostor").join(".baton");
    std::fs::create_dir_all(&impostor).unwrap();
    std::fs::copy(a.join("machine-id"), impostor.join("machine-id")).unwrap();
    run(
        &impostor,
        &["start", "--project", "shop", "--agent", "mallory"],
    );
    let out = sync_command(&impostor, &as_b).output().unwrap();
    assert!(!out.status.success());
    let error: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| serde_json::from_slice(&out.stderr).unwrap());
    assert_eq!(error["error"]["code"], "PERMISSION_DENIED", "{error}");
    // The team budget: the owner sets it; a machine's role reads it and cannot raise it.
    run(
        &a,
        &["team", "budget", "set", "day_usd=10", "--from", &owner],
    );
    let read = run(&b, &["team", "budget", "--from", &as_b]);
    assert_eq!(read["budget"]["policy"]["day_usd"], 10.0, "{read}");
    let raised = baton_tests::baton(&b)
        .args([
            "--json",
            "team",
            "budget",
            "set",
            "day_usd=1000",
            "--from",
            &as_b,
        ])
        .output()
        .unwrap();
    assert!(!raised.status.success());
    let error: serde_json::Value = serde_json::from_slice(&raised.stdout)
        .unwrap_or_else(|_| serde_json::from_slice(&raised.stderr).unwrap());
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("may not set the team budget"),
        "{error}"
    );
    assert_eq!(
        psql_at(&owner, "SELECT policy::json->>'day_usd' FROM baton_budget").unwrap(),
        vec!["10.0".to_owned()]
    );
    // The read role reads the team views and writes nothing.
    let as_reader = as_user(&owner, &reader);
    let listed = run(&a, &["team", "list", "--from", &as_reader]);
    assert_eq!(listed["total"], 2);
    for statement in [
        "INSERT INTO baton_machines (machine) VALUES (gen_random_uuid())",
        "UPDATE baton_events SET line = '{}'",
        "DELETE FROM baton_events",
        "UPDATE baton_usage SET input_tokens = 0",
        "DELETE FROM baton_usage",
        "DELETE FROM baton_budget",
    ] {
        let refused = psql_at(&as_reader, statement);
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.contains("permission denied")),
            "{statement}: {refused:?}"
        );
    }
    assert_eq!(
        psql_at(&owner, "SELECT count(*) FROM baton_events").unwrap(),
        vec![(event_ids(&a).len() + event_ids(&b).len()).to_string()]
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn sync_follow_sends_new_events_as_they_are_written_and_outlives_an_outage() {
    let _server = take_server();
    let url = fresh_database("follow");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("machine-0").join(".baton");
    run(&dir, &["start", "--project", "site", "--agent", "claude"]);
    let mut follower = sync_command(&dir, &url)
        .args(["--follow", "--every", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let machine = machine_of_when_made(&dir);
    let on_server = || {
        psql_at(
            &url,
            &format!("SELECT count(*) FROM baton_events WHERE machine = '{machine}'"),
        )
        .ok()
        .and_then(|rows| rows.first().and_then(|n| n.parse::<usize>().ok()))
        .unwrap_or(0)
    };
    let wait_for = |wanted: usize| {
        for _ in 0..300 {
            if on_server() == wanted {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "the server never held {wanted} events (it holds {})",
            on_server()
        );
    };
    wait_for(event_ids(&dir).len());
    run(&dir, &["start", "--project", "site", "--agent", "codex"]);
    wait_for(event_ids(&dir).len());
    // Down and up again: the follower goes on and catches up.
    let pg_ctl = server_control();
    pg_ctl("stop");
    run(&dir, &["start", "--project", "site", "--agent", "gemini"]);
    std::thread::sleep(Duration::from_millis(1500));
    pg_ctl("start");
    wait_for(event_ids(&dir).len());
    let _ = follower.kill();
    let out = follower.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("local commands go on"), "{said}");
    let lines = String::from_utf8_lossy(&out.stdout);
    assert!(lines.lines().count() >= 2, "{lines}");
    for line in lines.lines() {
        let report: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(report["machine"], machine.as_str());
    }
}

/// The machine id, once the first sync has made it.
fn machine_of_when_made(dir: &Path) -> String {
    for _ in 0..100 {
        if let Ok(text) = std::fs::read_to_string(dir.join("machine-id"))
            && text.ends_with('\n')
        {
            return text.trim().to_owned();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no machine id was made");
}

/// Stops or starts the test server.
pub(crate) fn server_control() -> impl Fn(&str) {
    server_control_with(String::new())
}

/// Stops or starts the test server, started with `extra` server options.
fn server_control_with(extra: String) -> impl Fn(&str) {
    let ctl = std::env::var("BATON_TEST_PG_CTL").unwrap();
    let data = std::env::var("BATON_TEST_PG_DATA").unwrap();
    let port = std::env::var("BATON_TEST_PG_PORT").unwrap();
    let sockets = std::env::var("BATON_TEST_PG_SOCKETS").unwrap();
    move |action: &str| {
        let mut words = ctl.split(' ');
        let mut command = Command::new(words.next().unwrap());
        command.args(words).args(["-D", &data, "-w", "-m", "fast"]);
        if action == "start" {
            command.args([
                "-l",
                &format!("{sockets}/server.log"),
                "-o",
                &format!(
                    "-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off {extra}"
                ),
            ]);
        }
        let status = command.arg(action).stdout(Stdio::null()).status().unwrap();
        assert!(status.success(), "pg_ctl {action}");
    }
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn sync_and_team_views_use_tls_when_the_url_asks_and_check_the_certificate() {
    let _server = take_server();
    let url = fresh_database("tlsonly");
    let database = url.rsplit_once('/').unwrap().1.to_owned();
    let port = std::env::var("BATON_TEST_PG_PORT").unwrap();
    let sockets = std::path::PathBuf::from(std::env::var("BATON_TEST_PG_SOCKETS").unwrap());
    let data = std::path::PathBuf::from(std::env::var("BATON_TEST_PG_DATA").unwrap());
    // A CA of this test's own, and a certificate for localhost it signed.
    let tmp = tempfile::tempdir().unwrap();
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(tmp.path())
            .output()
            .expect("openssl runs");
        assert_success(&out, format_args!("openssl {args:?}"));
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=Baton test CA",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(
        tmp.path().join("ext.cnf"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
    // The server reads its key only when it owns it and no one else may read it.
    for name in ["server.pem", "server.key"] {
        std::fs::copy(tmp.path().join(name), sockets.join(name)).unwrap();
    }
    let owner = std::fs::metadata(&sockets).unwrap();
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::set_permissions(
        sockets.join("server.key"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    for name in ["server.pem", "server.key"] {
        std::os::unix::fs::chown(sockets.join(name), Some(owner.uid()), Some(owner.gid())).unwrap();
    }
    // This database takes TLS connections only.
    let hba = data.join("pg_hba.conf");
    let before = std::fs::read_to_string(&hba).unwrap();
    std::fs::write(
        &hba,
        format!("hostnossl {database} all 127.0.0.1/32 reject\nhostssl {database} all 127.0.0.1/32 trust\n{before}"),
    )
    .unwrap();
    let plain = server_control();
    plain("stop");
    let with_tls = server_control_with(format!(
        "-c ssl=on -c ssl_cert_file={0}/server.pem -c ssl_key_file={0}/server.key",
        sockets.display()
    ));
    with_tls("start");
    let ca = tmp.path().join("ca.pem");
    let tls_url = format!(
        "postgres://baton@localhost:{port}/{database}?sslmode=verify-full&sslrootcert={}",
        ca.display()
    );
    let dir = tmp.path().join("machine-0").join(".baton");
    run(&dir, &["start", "--project", "site", "--agent", "claude"]);
    let synced = sync_command(&dir, &tls_url).output().unwrap();
    let plain_sync = sync_command(
        &dir,
        &format!("postgres://baton@localhost:{port}/{database}"),
    )
    .output()
    .unwrap();
    let untrusted = sync_command(
        &dir,
        &format!("postgres://baton@localhost:{port}/{database}?sslmode=require"),
    )
    .output()
    .unwrap();
    let listed = baton_tests::baton(&dir)
        .args(["--json", "team", "list", "--from", &tls_url])
        .output()
        .unwrap();
    // Back as it was before any assertion can stop the test.
    with_tls("stop");
    std::fs::write(&hba, before).unwrap();
    plain("start");
    assert_success(&synced, format_args!(""));
    assert_eq!(
        baton_tests::json_of(&synced)["inserted"],
        event_ids(&dir).len()
    );
    assert_success(&listed, format_args!(""));
    assert_eq!(baton_tests::json_of(&listed)["total"], 1);
    let said = |out: &std::process::Output| {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{text}");
        text
    };
    let refused = said(&plain_sync);
    assert!(
        refused.contains("no encryption") || refused.contains("pg_hba"),
        "{refused}"
    );
    let unchecked = said(&untrusted);
    assert!(unchecked.contains("certificate"), "{unchecked}");
    assert!(
        unchecked.contains("sslrootcert"),
        "the way out is said: {unchecked}"
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn usage_rows_from_each_machines_mirror_add_up_in_the_team_usage() {
    let _server = take_server();
    let url = fresh_database("usage");
    let tmp = tempfile::tempdir().unwrap();
    let mut local_totals = Vec::new();
    let mut local_projects: std::collections::BTreeMap<String, u64> = Default::default();
    for m in 0..2 {
        let trees = tmp.path().join(format!("trees-{m}"));
        let generated = Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
            .arg(&trees)
            .args([
                "--sessions",
                "6",
                "--responses",
                "20",
                "--seed",
                &(m + 3).to_string(),
            ])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(generated.success());
        let dir = tmp.path().join(format!("machine-{m}")).join(".baton");
        let claude = trees.join("claude/projects");
        let codex = trees.join("codex/sessions");
        // One session that moves from one working directory to another across days: its
        // project is the first one, also when only the later day is sent again.
        const SPAN: &str = "0b5e55a0-0000-4000-8000-000000000001";
        if m == 0 {
            let folder = claude.join("-work-alpha");
            std::fs::create_dir_all(&folder).unwrap();
            let line = |n: u32, at: &str, cwd: &str| {
                format!(
                    r#"{{"type":"assistant","sessionId":"{SPAN}","cwd":"{cwd}","timestamp":"{at}","requestId":"req_span_{n}","message":{{"id":"msg_span_{n}","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","usage":{{"input_tokens":100,"output_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}}}"#
                )
            };
            std::fs::write(
                folder.join(format!("{SPAN}.jsonl")),
                format!(
                    "{}\n{}\n",
                    line(1, "2025-01-01T10:00:00.000Z", "/work/alpha"),
                    line(2, "2025-01-05T10:00:00.000Z", "/work/beta")
                ),
            )
            .unwrap();
        }
        let empty = tmp.path().join(format!("empty-{m}"));
        std::fs::create_dir_all(&empty).unwrap();
        let mirror = |with_codex: bool| {
            let mut command = baton_tests::baton(&dir);
            command.arg("mirror").arg("--claude-dir").arg(&claude);
            // Codex's folder is added to the mirror after the first sync: its responses are
            // older than ones the server already has.
            command.arg("--codex-dir").arg(if with_codex {
                codex.clone()
            } else {
                empty.clone()
            });
            let mirrored = command.stdout(Stdio::null()).status().unwrap();
            assert!(mirrored.success());
        };
        let sync_usage = || {
            let out = sync_command(&dir, &url).arg("--usage").output().unwrap();
            assert_success(&out, format_args!(""));
            baton_tests::json_of(&out)["usage"].clone()
        };
        mirror(false);
        run(&dir, &["start", "--project", "shop", "--agent", "claude"]);
        let first = sync_usage();
        let sent = first["inserted"].as_u64().unwrap();
        assert!(sent > 20, "{first}");
        assert_eq!(first["read"], sent);
        assert!(first["days"].as_u64().unwrap() > 1, "{first}");
        assert_eq!(
            (&first["corrected"], &first["removed"]),
            (&0.into(), &0.into())
        );
        // Again: every day's digest matches, so nothing is read or sent.
        let again = sync_usage();
        assert_eq!(
            (&again["days"], &again["read"], &again["inserted"]),
            (&0.into(), &0.into(), &0.into()),
            "{again}"
        );
        // The folder added later: its days differ and are sent, the older ones included.
        mirror(true);
        let late = sync_usage();
        assert!(late["inserted"].as_u64().unwrap() > 20, "{late}");
        let machine = machine_of(&dir);
        let older = psql_at(
            &url,
            &format!(
                "SELECT count(*) FROM baton_usage WHERE machine = '{machine}' AND provider = 'codex'
                   AND at < (SELECT max(at) - interval '1 day' FROM baton_usage
                             WHERE machine = '{machine}' AND provider = 'claude_code')"
            ),
        )
        .unwrap();
        assert_ne!(
            older,
            vec!["0".to_owned()],
            "no Codex response older than Claude's"
        );
        // A row the server holds with other figures is corrected, one the mirror does not
        // count is removed, and only that day is read.
        psql_at(
            &url,
            &format!(
                "UPDATE baton_usage SET output_tokens = output_tokens + 1000
                 WHERE (machine, key) = (SELECT machine, key FROM baton_usage
                                         WHERE machine = '{machine}' ORDER BY at LIMIT 1);
                 INSERT INTO baton_usage (machine, key, provider, provider_session, at,
                     input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
                     reasoning_tokens, cache_creation_1h_tokens)
                 SELECT machine, 'claude_code/gone', provider, provider_session, at, 5, 5, 0, 0,
                     0, 0
                 FROM baton_usage WHERE machine = '{machine}' ORDER BY at LIMIT 1"
            ),
        )
        .unwrap();
        let mended = sync_usage();
        assert_eq!(
            (
                &mended["days"],
                &mended["inserted"],
                &mended["corrected"],
                &mended["removed"]
            ),
            (&1.into(), &0.into(), &1.into(), &1.into()),
            "{mended}"
        );
        assert!(mended["read"].as_u64().unwrap() < sent, "{mended}");
        if m == 0 {
            psql_at(
                &url,
                &format!(
                    "UPDATE baton_usage SET output_tokens = 1
                     WHERE provider_session = '{SPAN}' AND at >= '2025-01-05'"
                ),
            )
            .unwrap();
            let resent = sync_usage();
            assert_eq!(resent["corrected"], 1, "{resent}");
        }
        let local = run(&dir, &["usage", "monthly", "--timezone", "UTC", "--index"]);
        local_totals.push(local["totals"].clone());
        let by_project = run(&dir, &["usage", "project", "--timezone", "UTC", "--index"]);
        for row in by_project["rows"].as_array().unwrap() {
            *local_projects
                .entry(row["key"].as_str().unwrap().to_owned())
                .or_default() += row["total_tokens"].as_u64().unwrap();
        }
    }
    // By machine: each machine's row is its own local total.
    let by_machine = run(
        &tmp.path().join("reader"),
        &[
            "team",
            "usage",
            "machine",
            "--timezone",
            "UTC",
            "--from",
            &url,
        ],
    );
    assert_eq!(by_machine["group_by"], "machine");
    let rows = by_machine["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for (m, total) in local_totals.iter().enumerate() {
        let row = rows
            .iter()
            .find(|r| r["key"] == format!("host-{m}"))
            .unwrap();
        for field in [
            "input_tokens",
            "output_tokens",
            "cache_creation_tokens",
            "cache_read_tokens",
            "reasoning_tokens",
            "total_tokens",
            "models",
        ] {
            assert!(!total[field].is_null(), "{field} in {total}");
            assert_eq!(row[field], total[field], "host-{m} {field}");
        }
        let (team_cost, local_cost) = (
            row["cost_usd"].as_f64().unwrap(),
            total["cost_usd"].as_f64().unwrap(),
        );
        assert!(local_cost > 0.0);
        assert!(
            (team_cost - local_cost).abs() < 1e-9,
            "{team_cost} vs {local_cost}"
        );
    }
    // By month: the totals are the two machines' totals added.
    let monthly = run(
        &tmp.path().join("reader"),
        &[
            "team",
            "usage",
            "monthly",
            "--timezone",
            "UTC",
            "--from",
            &url,
        ],
    );
    let sum = |field: &str| -> u64 {
        local_totals
            .iter()
            .map(|t| t[field].as_u64().unwrap())
            .sum()
    };
    for field in ["total_tokens", "cache_read_tokens", "output_tokens"] {
        assert_eq!(
            monthly["totals"][field].as_u64().unwrap(),
            sum(field),
            "{field}"
        );
    }
    // By project: each project's tokens are the machines' local figures added (a resent day
    // decides a session's project from all its responses, as a full report does).
    let team_projects = run(
        &tmp.path().join("reader"),
        &[
            "team",
            "usage",
            "project",
            "--timezone",
            "UTC",
            "--from",
            &url,
        ],
    );
    let team_projects: std::collections::BTreeMap<String, u64> = team_projects["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            (
                row["key"].as_str().unwrap().to_owned(),
                row["total_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(local_projects.len() > 1, "{local_projects:?}");
    assert_eq!(team_projects, local_projects);
    // Tokens, models and costs only: the server holds no message text.
    let columns = psql_at(
        &url,
        "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'baton_usage'",
    )
    .unwrap();
    assert_eq!(
        columns,
        vec!["machine,key,provider,provider_session,at,project,model,input_tokens,output_tokens,cache_creation_tokens,cache_read_tokens,reasoning_tokens,cache_creation_1h_tokens,request_context_tokens,recorded_cost_micro_usd,fast,web_searches".to_owned()]
    );
    // Without a mirror, asking for usage says so and sends the events all the same.
    let bare = tmp.path().join("machine-9").join(".baton");
    run(&bare, &["start", "--project", "shop", "--agent", "codex"]);
    let out = sync_command(&bare, &url).arg("--usage").output().unwrap();
    assert!(out.status.success());
    assert!(
        baton_tests::json_of(&out)["usage"]["skipped"]
            .as_str()
            .unwrap()
            .contains("baton mirror")
    );
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn an_older_schema_is_brought_up_to_date_and_a_newer_one_is_refused() {
    let _server = take_server();
    let url = fresh_database("schema");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("machine-0").join(".baton");
    let init = run(&dir, &["team", "init", "--from", &url]);
    let current = init["schema_version"].as_u64().unwrap();
    assert!(current >= 2);
    // Back to version 1, as a server a first build set up would be.
    psql_at(
        &url,
        "DROP TABLE baton_usage, baton_budget; DELETE FROM baton_schema WHERE version >= 2",
    )
    .unwrap();
    run(&dir, &["start", "--project", "shop", "--agent", "claude"]);
    let synced = run(&dir, &["sync", "--to", &url]);
    assert_eq!(synced["schema_version"], current);
    assert_eq!(
        psql_at(
            &url,
            "SELECT max(version), to_regclass('baton_usage') IS NOT NULL FROM baton_schema"
        )
        .unwrap(),
        vec![format!("{current}|t")]
    );
    // A newer schema than this build knows: refused, with its code, for sending and reading.
    psql_at(
        &url,
        &format!(
            "INSERT INTO baton_schema (version) VALUES ({})",
            current + 1
        ),
    )
    .unwrap();
    for args in [
        vec!["sync", "--to", &url],
        vec!["team", "list", "--from", &url],
    ] {
        let out = baton_tests::baton(&dir)
            .arg("--json")
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let error: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| serde_json::from_slice(&out.stderr).unwrap());
        assert_eq!(
            error["error"]["code"], "FORMAT_TOO_NEW",
            "{args:?}: {error}"
        );
    }
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn compaction_between_syncs_and_small_chunks_killed_midway_lose_nothing() {
    let _server = take_server();
    let url = fresh_database("compaction");
    let psql = |sql: &str| psql_at(&url, sql).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("machine-0").join(".baton");
    let write = |n: usize, round: usize| {
        for s in 0..n {
            let started = run(
                &dir,
                &[
                    "start",
                    "--project",
                    "shop",
                    "--agent",
                    "claude",
                    "--goal",
                    &format!("{round}-{s} {}", "x".repeat(400)),
                ],
            );
            run(&dir, &["end", started["session_id"].as_str().unwrap()]);
        }
    };
    let small_chunks = |command: &mut Command| {
        // Smaller than one line: each line is read whole all the same.
        command.env("BATON_SYNC_CHUNK_BYTES", "256");
    };
    write(20, 0);
    let mut expected = event_ids(&dir);
    let mut first = sync_command(&dir, &url);
    small_chunks(&mut first);
    assert!(first.output().unwrap().status.success());
    // Compaction moves the log into an archive; the next lines start a new log.
    let compacted = run(&dir, &["compact"]);
    assert!(compacted["events_in"].as_u64().unwrap() > 0, "{compacted}");
    write(20, 1);
    expected.extend(event_ids(&dir));
    // Syncs killed midway, a transaction at a time; then one to the end.
    for delay in [5, 20, 40] {
        let mut command = sync_command(&dir, &url);
        small_chunks(&mut command);
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
    }
    let mut last = sync_command(&dir, &url);
    small_chunks(&mut last);
    let out = last.output().unwrap();
    assert_success(&out, format_args!(""));
    let on_server: std::collections::BTreeSet<String> = psql("SELECT event_id FROM baton_events")
        .into_iter()
        .collect();
    assert_eq!(on_server, expected, "every event, archived or not, once");
    assert_eq!(
        psql("SELECT count(*) FROM baton_events"),
        vec![expected.len().to_string()]
    );
    // A cursor whose file was rewritten under the same name starts again.
    let again = run(&dir, &["sync", "--to", &url]);
    assert_eq!(again["inserted"], 0, "{again}");
}
