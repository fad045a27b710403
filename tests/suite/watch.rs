//! `baton watch`: one frame (`--once`, `--json`), and the live view that draws a new frame when
//! a session starts and none while nothing changes.

use baton_tests::{baton, json_of};
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn once_and_json_give_one_frame_of_the_live_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join(".baton");
    let started = baton(&ledger)
        .args(baton_tests::start_demo("claude", "Ship it"))
        .output()
        .unwrap();
    assert!(started.status.success());
    let once = baton(&ledger).args(["watch", "--once"]).output().unwrap();
    let text = String::from_utf8_lossy(&once.stdout);
    assert!(once.status.success());
    assert!(text.contains("1 live session"), "{text}");
    assert!(
        text.contains("PROCESS") && text.contains("Ship it"),
        "{text}"
    );
    let json = json_of(&baton(&ledger).args(["--json", "watch"]).output().unwrap());
    assert_eq!(json["total"], 1);
    assert_eq!(json["sessions"][0]["liveness"], "unknown");
    assert_eq!(json["sessions"][0]["goal"], "Ship it");
}

#[test]
fn a_new_session_brings_a_frame_and_quiet_brings_none() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let out = tmp.path().join("frames.txt");
    let mut watch = baton(&ledger)
        .env("HOME", tmp.path())
        .arg("watch")
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let frames = || std::fs::read_to_string(&out).unwrap();
    let wait_for = |what: &dyn Fn(&str) -> bool| {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if what(&frames()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    };
    assert!(wait_for(&|t| t.contains("No live work sessions")));
    let started = baton(&ledger)
        .args(baton_tests::start_demo("codex", "Watch me"))
        .output()
        .unwrap();
    assert!(started.status.success());
    assert!(
        wait_for(&|t| t.contains("Watch me")),
        "the new session should be drawn: {}",
        frames()
    );
    // Let any frame already due be drawn, then nothing changes: nothing is drawn.
    std::thread::sleep(Duration::from_millis(1500));
    let settled = frames().matches("baton watch ·").count();
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        frames().matches("baton watch ·").count(),
        settled,
        "no frame without a change"
    );
    watch.kill().unwrap();
    watch.wait().unwrap();
}

#[test]
fn a_reader_that_goes_away_ends_the_watch() {
    use std::io::BufRead;
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let mut watch = baton(&ledger)
        .env("HOME", tmp.path())
        .arg("watch")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(watch.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("baton watch"), "{first}");
    // The reader is gone (its end of the pipe dropped); the next frame finds no one.
    let started = baton(&ledger)
        .args(["start", "--project", "demo", "--agent", "codex"])
        .output()
        .unwrap();
    assert!(started.status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = watch.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    watch.kill().unwrap();
    watch.wait().unwrap();
    panic!("the watch should end when its reader goes away");
}
