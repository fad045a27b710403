//! Concurrency claims, proven with real OS processes (never threads): parallel appends, starts
//! and ends; appends racing repeated compactions; a writer killed with SIGKILL.

use baton_core::ledger::event::{Line, decode_line};
use baton_tests::{assert_success, baton, fold_dir, json_of};
use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const WRITER: &str = env!("CARGO_BIN_EXE_ledger-writer");

fn writer(dir: &Path, count: u64) -> Child {
    writer_with(dir, count, &[])
}

fn writer_with(dir: &Path, count: u64, extra: &[&str]) -> Child {
    Command::new(WRITER)
        .arg(dir)
        .arg(count.to_string())
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ledger-writer")
}

fn acked_ids(child: Child) -> Vec<String> {
    let output = child.wait_with_output().expect("wait");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn eight_processes_times_500_appends_fold_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let children: Vec<Child> = (0..8).map(|_| writer(&dir, 500)).collect();
    let mut acked = HashSet::new();
    for child in children {
        let ids = acked_ids(child);
        assert_eq!(ids.len(), 500);
        acked.extend(ids);
    }
    assert_eq!(acked.len(), 4000);
    let text = std::fs::read(dir.join("events.ndjson")).unwrap();
    assert_eq!(text.last(), Some(&b'\n'), "the log ends with a whole line");
    // Strict NDJSON: no blank line (a newline written before a line still in flight).
    let blank = text.windows(2).filter(|w| w == b"\n\n").count();
    assert_eq!(blank, 0, "blank lines in the log");
    let mut events = 0;
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match decode_line(line) {
            Line::Event(event) => {
                assert!(acked.contains(&event.id.to_string()));
                events += 1;
            }
            Line::Header { .. } => {}
            other => panic!("torn or interleaved line: {other:?}"),
        }
    }
    assert_eq!(events, 4000);
    let fold = fold_dir(&dir);
    assert_eq!(fold.distinct_events(), 4000);
    assert_eq!(fold.stats.corrupt_lines, 0);
    assert_eq!(fold.sessions().len(), 4000);
}

#[test]
fn eight_processes_start_in_the_same_second_get_eight_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let children: Vec<Child> = (0..8)
        .map(|_| {
            baton(&dir)
                .args(["--json", "start", "--project", "demo", "--agent", "claude"])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = HashSet::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        ids.insert(json_of(&out)["session_id"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 8);
    let list = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(list["total"], 8);
}

#[test]
fn eight_processes_starting_with_one_provider_session_id_make_one_session() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    // The ledger exists first: the race is over the session, not over making the folder.
    start(&dir);
    // Each decides, then waits 150 ms before appending: without the lock every one of them
    // would see no live session with the id and open its own.
    let children: Vec<Child> = (0..8)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_ledger-writer"))
                .arg(&dir)
                .args(["start", "claude-session-1", "--delay-us", "150000"])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = HashSet::new();
    let mut actions = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        let json = json_of(&out);
        ids.insert(json["session_id"].as_str().unwrap().to_owned());
        actions.push(json["action"].as_str().unwrap().to_owned());
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
    actions.sort();
    assert_eq!(
        actions.iter().filter(|a| *a == "started").count(),
        1,
        "{actions:?}"
    );
    assert_eq!(
        actions.iter().filter(|a| *a == "resumed").count(),
        7,
        "{actions:?}"
    );
    let list = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(list["total"], 2);
}

fn start(dir: &Path) -> String {
    let out = baton(dir)
        .args(["--json", "start", "--project", "demo", "--agent", "claude"])
        .output()
        .unwrap();
    json_of(&out)["session_id"].as_str().unwrap().to_owned()
}

#[test]
fn eight_processes_ending_one_session_yield_one_end() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let id = start(&dir);
    let children: Vec<Child> = (0..8)
        .map(|_| {
            baton(&dir)
                .args(["--json", "end", &id])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let (mut ok, mut closed) = (0, 0);
    for child in children {
        let out = child.wait_with_output().unwrap();
        let json = json_of(&out);
        match out.status.code() {
            Some(0) => ok += 1,
            Some(1) => {
                assert_eq!(json["error"]["code"], "SESSION_ALREADY_CLOSED");
                closed += 1;
            }
            other => panic!("unexpected exit {other:?}: {json}"),
        }
    }
    assert_eq!((ok, closed), (1, 7));
    let text = std::fs::read_to_string(dir.join("events.ndjson")).unwrap();
    assert_eq!(text.matches(r#""kind":"ended""#).count(), 1);
}

#[test]
fn ends_of_eight_different_sessions_all_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ids: Vec<String> = (0..8).map(|_| start(&dir)).collect();
    let children: Vec<Child> = ids
        .iter()
        .map(|id| {
            baton(&dir)
                .args(["--json", "end", id])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", json_of(&out));
    }
    let list = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(list["total"], 0, "no session left live");
    let all = json_of(
        &baton(&dir)
            .args(["--json", "list", "--all"])
            .output()
            .unwrap(),
    );
    assert_eq!(all["total"], 8);
}

#[test]
fn appends_racing_repeated_compactions_lose_nothing_acknowledged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    // Each writer pauses between opening the log and writing, so compactions often rotate
    // the log inside that window: the race the ADR admits loses appends.
    // (Without Baton's re-append on rotation, this loses dozens of events per run.) Two more
    // writers append at full speed.
    let children: Vec<Child> = (0..2)
        .map(|_| writer_with(&dir, 400, &["--delay-us", "10000"]))
        .chain((0..2).map(|_| writer(&dir, 1500)))
        .collect();
    let mut compactions = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    // Compact over and over (each a separate process) while the writers run.
    while compactions < 25 && Instant::now() < deadline {
        let out = baton(&dir).args(["--json", "compact"]).output().unwrap();
        match out.status.code() {
            Some(0) => compactions += 1,
            Some(1) => assert_eq!(json_of(&out)["error"]["code"], "STORE_BUSY"),
            other => panic!("compact exited {other:?}"),
        }
    }
    let mut acked = HashSet::new();
    for child in children {
        acked.extend(acked_ids(child));
    }
    assert_eq!(acked.len(), 3800);
    assert!(compactions >= 5, "only {compactions} compactions ran");
    // Once more after the writers stopped, then check both the raw files and the CLI.
    let compacted = baton(&dir).arg("compact").output().unwrap();
    assert_success(&compacted, format_args!("compact"));
    let fold = fold_dir(&dir);
    let folded: HashSet<String> = fold
        .histories()
        .flat_map(|(_, h)| h.ordered().into_iter().map(|e| e.id.to_string()))
        .collect();
    let lost: Vec<_> = acked.difference(&folded).collect();
    assert!(lost.is_empty(), "{} acknowledged events lost", lost.len());
    let list = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(list["total"], 3800);
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_eq!(doctor["healthy"], true, "{doctor}");
}

#[test]
fn a_writer_killed_mid_stream_loses_nothing_it_acknowledged() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let mut child = Command::new(WRITER)
        .arg(&dir)
        .arg("0")
        .arg("--fsync")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut acked = Vec::new();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while acked.len() < 300 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "writer stopped");
        acked.push(line.trim().to_owned());
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // Whatever the writer printed after our last read is acknowledged too.
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    acked.extend(rest.lines().map(str::to_owned));

    let fold = fold_dir(&dir);
    let folded: HashSet<String> = fold
        .histories()
        .flat_map(|(_, h)| h.ordered().into_iter().map(|e| e.id.to_string()))
        .collect();
    for id in &acked {
        assert!(folded.contains(id), "acknowledged {id} lost");
    }
    // The store stays readable and appendable.
    let doctor = baton(&dir).args(["--json", "doctor"]).output().unwrap();
    assert!(doctor.status.success());
    let id = start(&dir);
    let show = baton(&dir).args(["--json", "show", &id]).output().unwrap();
    assert!(show.status.success());
}

#[test]
fn a_torn_last_line_never_corrupts_the_next_append() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let first = start(&dir);
    use std::io::Write;
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("events.ndjson"))
        .unwrap();
    log.write_all(br#"{"v":1,"id":"019c0000-0000-7000-8000-0000000"#)
        .unwrap();
    drop(log);
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert!(doctor["active_log"]["torn_tail_bytes"].as_u64().unwrap() > 0);
    let second = start(&dir);
    let list = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![first.as_str(), second.as_str()]);
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_eq!(
        doctor["stats"]["corrupt_lines"], 1,
        "the fragment is one counted line"
    );
    // Compaction keeps the fragment byte for byte.
    let compacted = baton(&dir).arg("compact").output().unwrap();
    assert_success(&compacted, format_args!("compact"));
    let preserved = std::fs::read_to_string(dir.join("archive/preserved.ndjson")).unwrap();
    assert!(preserved.contains(r#""id":"019c0000-0000-7000-8000-0000000"#));
}

#[test]
fn a_dead_compactions_lock_and_sealed_log_are_taken_over() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let id = start(&dir);
    // What a compaction killed right after sealing the log leaves behind: its holder record in
    // the lock file (the kernel already dropped its flock) and a sealed log nobody rolled up.
    std::fs::write(
        dir.join("compact.lock"),
        "pid 999999 on gone since 2026-01-01T00:00:00.000Z",
    )
    .unwrap();
    std::fs::rename(dir.join("events.ndjson"), dir.join("sealed-crashed.ndjson")).unwrap();
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_eq!(doctor["compaction_lock"], "stale");
    assert_eq!(doctor["sealed_logs"].as_array().unwrap().len(), 1);
    assert_eq!(
        doctor["sessions"]["live"], 1,
        "a sealed log is still read: {doctor}"
    );
    let second = start(&dir);
    let compact = baton(&dir).args(["--json", "compact"]).output().unwrap();
    assert!(compact.status.success());
    let report = json_of(&compact);
    assert!(
        report["took_over_stale_lock"]
            .as_str()
            .unwrap()
            .contains("999999")
    );
    assert_eq!(report["sealed_logs"], 2);
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_eq!(doctor["compaction_lock"], "free");
    assert_eq!(doctor["healthy"], true, "{doctor}");
    for session in [id, second] {
        assert!(
            baton(&dir)
                .args(["show", &session])
                .output()
                .unwrap()
                .status
                .success()
        );
    }
}

#[test]
fn a_running_compaction_makes_another_wait_its_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    start(&dir);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(dir.join("compact.lock"))
        .unwrap();
    lock.lock().unwrap(); // this test process plays a compaction in progress
    let busy = baton(&dir).args(["--json", "compact"]).output().unwrap();
    assert_eq!(busy.status.code(), Some(1));
    assert_eq!(json_of(&busy)["error"]["code"], "STORE_BUSY");
    // Appends never wait for the compaction lock.
    let appended = Command::new(WRITER).arg(&dir).arg("3").output().unwrap();
    assert!(appended.status.success());
    drop(lock);
    let compacted = baton(&dir).arg("compact").output().unwrap();
    assert_success(&compacted, format_args!("compact"));
}

/// Runs `count` copies of a `baton --json` command at once; their JSON answers.
fn all_at_once(
    dir: &Path,
    count: usize,
    args: impl Fn(usize) -> Vec<String>,
) -> Vec<serde_json::Value> {
    let children: Vec<Child> = (0..count)
        .map(|i| {
            baton(dir)
                .arg("--json")
                .args(args(i))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().unwrap();
            assert_success(&out, format_args!(""));
            json_of(&out)
        })
        .collect()
}

#[test]
fn concurrent_workspace_writes_keep_every_version_and_number_they_were_told() {
    use baton_core::lifecycle::workspace::Workspace;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let contracts: Vec<_> = (0..8)
        .map(|i| {
            let path = tmp.path().join(format!("contract-{i}.md"));
            std::fs::write(&path, format!("- clause of writer {i}\n")).unwrap();
            path
        })
        .collect();
    let added = all_at_once(&dir, 8, |i| {
        vec![
            "mission".into(),
            "add".into(),
            "M".into(),
            "--contract".into(),
            contracts[i].display().to_string(),
        ]
    });
    let opened = all_at_once(&dir, 12, |i| {
        vec![
            "ambiguity".into(),
            "open".into(),
            "M".into(),
            format!("question {i}"),
        ]
    });
    let ws = Workspace::from_history(fold_dir(&dir).history(baton_core::ids::WORKSPACE_STREAM));
    // Every writer was told a distinct version, and the fold keeps each with that writer's text.
    let mut told: Vec<u64> = added
        .iter()
        .map(|a| a["version"].as_u64().unwrap())
        .collect();
    told.sort();
    assert_eq!(told, (1..=8).collect::<Vec<_>>());
    let mission = &ws.missions["M"];
    assert_eq!(mission.versions.len(), 8);
    for answer in &added {
        let version = answer["version"].as_u64().unwrap();
        let kept = mission
            .versions
            .iter()
            .find(|v| u64::from(v.version) == version)
            .unwrap();
        assert_eq!(
            serde_json::json!(kept.clauses),
            answer["clauses"],
            "version {version}"
        );
    }
    // Ambiguities: numbers 1 to 12, each the one its caller was told.
    let mut numbers: Vec<u64> = opened
        .iter()
        .map(|a| a["number"].as_u64().unwrap())
        .collect();
    numbers.sort();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>());
    for answer in &opened {
        let number = answer["number"].as_u64().unwrap() as u32;
        let kept = ws.ambiguities.iter().find(|a| a.number == number).unwrap();
        assert_eq!(
            kept.text,
            answer["text"].as_str().unwrap(),
            "ambiguity {number}"
        );
    }
}
