//! The native store's read path agrees with a plain fold of its files: through checkpoint
//! rewrites (incremental copies), compactions and a checkpoint from an older generation, and
//! so does the fold a long-running process keeps between its commands.

use baton::store::Ledger;
use baton_core::ledger::event::{Actor, Ended, Event, Outcome, Payload, Resumed, Started};
use baton_core::ledger::store::LedgerView;
use baton_core::{EventId, SessionId, Timestamp};
use baton_tests::fold_dir;

fn event(session: SessionId, n: u64, payload: Payload) -> String {
    Event {
        id: EventId(uuid::Uuid::now_v7()),
        session,
        at: Timestamp::from_millis(1_780_000_000_000 + n as i64 * 1000),
        actor: Actor::agent("t"),
        payload,
    }
    .encode()
    .unwrap()
}

fn started(project: &str) -> Payload {
    Payload::Started(Started {
        client_name: Some("client".into()),
        goal: Some("a goal long enough to make the lines realistic in size".into()),
        ..Started::new(project, "agent")
    })
}

#[test]
fn reads_agree_with_a_plain_fold_through_rewrites_and_compactions() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ledger = Ledger::new(&dir, false);
    // A process keeping its fold (as the MCP server does) reads the same files on.
    let kept = Ledger::new(&dir, false).keeping();
    let mut sessions: Vec<SessionId> = Vec::new();
    let mut rewrites = 0;
    let mut n = 0u64;
    for round in 0..6 {
        for i in 0..1200 {
            n += 1;
            let line = if i % 3 == 0 || sessions.is_empty() {
                let id = SessionId(uuid::Uuid::now_v7());
                sessions.push(id);
                event(id, n, started(&format!("p{}", i % 4)))
            } else if i % 3 == 1 {
                let id = sessions[(i * 7 + round) % sessions.len()];
                event(id, n, Payload::Resumed(Resumed::default()))
            } else {
                let id = sessions[(i * 13 + round) % sessions.len()];
                event(
                    id,
                    n,
                    Payload::Ended(Ended {
                        outcome: Outcome::Complete,
                        summary: None,
                        pull_request: None,
                    }),
                )
            };
            ledger.append(&line).unwrap();
            if i % 400 == 0 {
                // A view held while lines are appended and another view is taken: the second
                // cannot fold them into the kept fold the first still reads, so it lays them
                // over it; once both are gone, the next view folds them in.
                let held = kept.snapshot().unwrap();
                assert_eq!(held.sessions().unwrap(), fold_dir(&dir).sessions());
                let id = SessionId(uuid::Uuid::now_v7());
                sessions.push(id);
                ledger.append(&event(id, n, started("held"))).unwrap();
                let second = kept.snapshot().unwrap();
                assert_eq!(second.sessions().unwrap(), fold_dir(&dir).sessions());
                assert!(second.session(id).unwrap().is_some());
                assert!(held.session(id).unwrap().is_none(), "a view is one moment");
                drop((held, second));
                assert_eq!(
                    kept.snapshot().unwrap().live_sessions().unwrap(),
                    fold_dir(&dir)
                        .sessions()
                        .into_iter()
                        .filter(|s| s.is_live())
                        .collect::<Vec<_>>()
                );
            }
        }
        let snapshot = ledger.snapshot().unwrap();
        if ledger.refresh_checkpoint(&snapshot).unwrap() {
            rewrites += 1;
        }
        if round == 3 {
            ledger.compact().unwrap();
        }
        let snapshot = ledger.snapshot().unwrap();
        let expected = fold_dir(&dir);
        assert_eq!(
            snapshot.sessions().unwrap(),
            expected.sessions(),
            "round {round}"
        );
        let live: Vec<_> = expected
            .sessions()
            .into_iter()
            .filter(|s| s.is_live())
            .collect();
        assert_eq!(snapshot.live_sessions().unwrap(), live, "round {round}");
        let kept_view = kept.snapshot().unwrap();
        assert_eq!(kept_view.sessions().unwrap(), expected.sessions());
        assert_eq!(
            kept_view.live_sessions().unwrap(),
            live,
            "kept, round {round}"
        );
        assert_eq!(kept_view.stats().events, snapshot.stats().events);
        for id in sessions.iter().step_by(37) {
            assert_eq!(
                snapshot.session(*id).unwrap(),
                expected.session(*id),
                "round {round}"
            );
            assert_eq!(kept_view.session(*id).unwrap(), expected.session(*id));
        }
    }
    assert!(rewrites >= 4, "only {rewrites} checkpoint rewrites");
}

#[test]
fn checkpoint_lookups_find_every_session_whatever_its_line_length() {
    // Session lines range from ~300 bytes to tens of KiB (longer than one lookup window), so
    // binary search probes land inside long lines, at line starts and at the body's end. After
    // the first few dozen lookups the body is read into memory: both ways are asked.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ledger = Ledger::new(&dir, false);
    let mut sessions = Vec::new();
    let mut n = 0u64;
    for s in 0..400u64 {
        let id = SessionId(uuid::Uuid::now_v7());
        sessions.push(id);
        n += 1;
        let mut lines = vec![event(id, n, started("p"))];
        let repeats = if s % 17 == 0 { 150 } else { s % 5 };
        for _ in 0..repeats {
            n += 1;
            lines.push(event(id, n, Payload::Resumed(Resumed::default())));
        }
        ledger.append_lines(&lines).unwrap();
    }
    let snapshot = ledger.snapshot().unwrap();
    assert!(ledger.refresh_checkpoint(&snapshot).unwrap());
    let snapshot = ledger.snapshot().unwrap();
    assert!(
        snapshot.checkpoint_state.starts_with("valid"),
        "{}",
        snapshot.checkpoint_state
    );
    let expected = fold_dir(&dir);
    for id in &sessions {
        let found = snapshot.session(*id).unwrap();
        assert!(found.is_some(), "session {id} not found");
        assert_eq!(found, expected.session(*id));
    }
    for _ in 0..50 {
        let absent = SessionId(uuid::Uuid::now_v7());
        assert_eq!(snapshot.session(absent).unwrap(), None);
    }
}

#[test]
fn one_command_s_events_land_in_one_write_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ledger = Ledger::new(&dir, false);
    let id = SessionId(uuid::Uuid::now_v7());
    let lines = vec![
        event(id, 1, started("p")),
        event(id, 2, Payload::Resumed(Resumed::default())),
        event(id, 3, Payload::Resumed(Resumed::default())),
    ];
    ledger.append_lines(&lines).unwrap();
    let text = std::fs::read_to_string(dir.join("events.ndjson")).unwrap();
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(body, lines.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(
        ledger
            .snapshot()
            .unwrap()
            .session(id)
            .unwrap()
            .unwrap()
            .resumes
            .len(),
        2
    );
}

/// A new ledger keeps its caches out of git: committed, a repository shares the history and
/// the policy, never the checkpoint, the locks or a temporary.
#[test]
fn a_new_ledger_keeps_its_caches_out_of_git() {
    let tmp = tempfile::tempdir().unwrap();
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(tmp.path())
            .args(args)
            .output()
    };
    if git(&["init", "-q"]).is_err() {
        eprintln!("skipped: no git");
        return;
    }
    let dir = tmp.path().join(".baton");
    for args in [
        &["start", "--project", "demo", "--agent", "claude"][..],
        &["list"][..],
        &["compact"][..],
        &["list"][..],
    ] {
        let out = baton_tests::baton(&dir).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
    }
    std::fs::write(dir.join("config.toml"), "mission_required = false\n").unwrap();
    assert!(dir.join("checkpoint.ndjson").exists() && dir.join("locks").is_dir());
    let status = git(&["status", "--porcelain", "--untracked-files=all"]).unwrap();
    let mut listed: Vec<String> = String::from_utf8_lossy(&status.stdout)
        .lines()
        .map(|l| l.trim_start_matches("?? ").to_owned())
        .collect();
    listed.sort();
    assert!(
        listed
            .iter()
            .all(|p| !p.contains("checkpoint") && !p.contains("lock")),
        "{listed:?}"
    );
    for kept in [
        ".baton/.gitignore",
        ".baton/config.toml",
        ".baton/events.ndjson",
    ] {
        assert!(listed.iter().any(|p| p == kept), "{kept} in {listed:?}");
    }
    assert!(
        listed.iter().any(|p| p.starts_with(".baton/archive/")),
        "{listed:?}"
    );

    // Written once: a person's edit stays.
    std::fs::write(dir.join(".gitignore"), "*\n").unwrap();
    baton_tests::baton(&dir).args(["list"]).output().unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join(".gitignore")).unwrap(),
        "*\n"
    );
}
