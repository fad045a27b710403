//! `baton tui` as a person runs it, in a real pseudo-terminal: it opens on the live sessions,
//! draws nothing while nothing changes, shows a session another process starts, searches a
//! planted word as it is typed, opens the reader at the hit, answers the mouse and lists work
//! sessions with their details, and gives the terminal back (the alternate screen left, the
//! cursor shown, the mouse released) on `q`, on SIGTERM and on a panic.

use baton_tests::pty::Pty;
use baton_tests::{assert_success, baton};
use std::time::Duration;

const SESSION: &str = "7e1e0000-0000-4000-8000-000000000001";

/// A ledger with a mirrored Claude Code session that says a planted word.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-work-app");
    std::fs::create_dir_all(&folder).unwrap();
    let lines = [
        serde_json::json!({"type":"user","sessionId":SESSION,"uuid":"u1","parentUuid":null,
            "cwd":"/work/app","timestamp":"2026-12-01T10:00:00Z",
            "message":{"role":"user","content":"Why does the zebrafish fixture fail?"}}),
        serde_json::json!({"type":"assistant","sessionId":SESSION,"uuid":"a1","parentUuid":"u1",
            "cwd":"/work/app","timestamp":"2026-12-01T10:00:05Z","requestId":"r1",
            "message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5-20250929",
                "content":[{"type":"text","text":"Its seed changed; pinning it fixes the fixture."}],
                "usage":{"input_tokens":1,"output_tokens":1}}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(folder.join(format!("{SESSION}.jsonl")), text).unwrap();
    let ledger = tmp.path().join(".baton");
    let projects = tmp.path().join("projects");
    let mirrored = baton(&ledger)
        .args(baton_tests::mirror_only(projects.to_str().unwrap()))
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let started = baton(&ledger)
        .args([
            "start",
            "--project",
            "app",
            "--agent",
            "claude",
            "--goal",
            "First one",
        ])
        .output()
        .unwrap();
    assert_success(&started, format_args!("start"));
    (tmp, ledger)
}

#[test]
fn open_rest_follow_search_read_and_leave_with_the_terminal_restored() {
    let (_tmp, ledger) = workspace();
    let mut tui = Pty::open(baton(&ledger).arg("tui"));
    tui.wait_for("First one", Duration::from_secs(10));
    // At rest (once the costs are in) nothing is drawn.
    tui.wait_for("—", Duration::from_secs(10));
    tui.settle(Duration::from_millis(1500));
    let resting = tui.bytes();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(tui.bytes(), resting, "drawn at rest:\n{}", tui.screen());
    // A session another process starts appears by itself.
    let started = baton(&ledger)
        .args([
            "start",
            "--project",
            "app",
            "--agent",
            "codex",
            "--goal",
            "Second one",
        ])
        .output()
        .unwrap();
    assert_success(&started, format_args!("start"));
    let took = tui.wait_for("Second one", Duration::from_secs(10));
    eprintln!("the new session was drawn {took:?} after its start returned");
    // A click on the History tab (SGR mouse report, 1-based), then its work sessions (w),
    // then the details of the newest (Enter), as `baton show` tells them.
    tui.keys("\u{1b}[<0;13;1M");
    tui.wait_for("kept conversation(s)", Duration::from_secs(5));
    tui.keys("w");
    tui.wait_for(
        "work session(s), latest activity first",
        Duration::from_secs(5),
    );
    tui.keys("\r");
    tui.wait_for("Work session ", Duration::from_secs(5));
    tui.wait_for("Second one", Duration::from_secs(5));
    tui.keys("\u{1b}");
    tui.wait_for(
        "work session(s), latest activity first",
        Duration::from_secs(5),
    );
    tui.keys("1");
    tui.wait_for("live session(s)", Duration::from_secs(5));
    // Search as you type, then read at the hit.
    tui.keys("/zebrafish");
    tui.wait_for("1 message(s) match \"zebrafish\"", Duration::from_secs(5));
    tui.keys("\r");
    tui.wait_for("line 1 of", Duration::from_secs(5));
    tui.wait_for("You  2026-12-01 10:00", Duration::from_secs(5));
    assert!(
        tui.screen()
            .contains("Why does the zebrafish fixture fail?")
    );
    // Back to the list, then Ctrl-C (two Esc in one read are one Esc to the terminal).
    tui.keys("\u{1b}");
    tui.wait_for("1 message(s) match", Duration::from_secs(5));
    tui.keys("\u{3}");
    let (code, restored) = tui.finish();
    assert_eq!(code, Some(0));
    assert!(restored, "the terminal was not given back");
}

#[test]
fn sigterm_and_a_panic_give_the_terminal_back() {
    let (_tmp, ledger) = workspace();
    let tui = Pty::open(baton(&ledger).arg("tui"));
    tui.wait_for("First one", Duration::from_secs(10));
    // SAFETY: signals our own child.
    unsafe {
        libc::kill(tui.child.id() as libc::pid_t, libc::SIGTERM);
    }
    let (code, restored) = tui.finish();
    assert_eq!(code, Some(0), "SIGTERM leaves as q does");
    assert!(restored, "SIGTERM left the terminal taken");

    // F12 panics in a debug build (the one the tests run).
    let mut tui = Pty::open(baton(&ledger).arg("tui"));
    tui.wait_for("First one", Duration::from_secs(10));
    tui.keys("\u{1b}[24~");
    let (code, restored) = tui.finish();
    assert_eq!(code, Some(101), "the panic ends the process");
    assert!(restored, "a panic left the terminal taken");
}
