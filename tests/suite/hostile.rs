//! Input written to hurt, through the real binary: escape sequences and direction-changing
//! characters in goals, summaries, pause reasons and transcript text never reach a terminal
//! raw, and names that would read as something else are refused.

use baton_tests::{assert_success, baton, json_of};

/// Bytes a terminal acts on: ESC (cursor moves, `ESC ] 52` clipboard writes), BEL, and the
/// right-to-left override, as UTF-8.
fn acted_on(bytes: &[u8]) -> bool {
    bytes.contains(&0x1b)
        || bytes.contains(&0x07)
        || bytes.windows(3).any(|w| w == "\u{202e}".as_bytes())
}

#[test]
fn escape_sequences_from_the_ledger_and_transcripts_never_reach_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let hostile = "fix \u{1b}]52;c;ZXZpbA==\u{7} the \u{1b}[2J build \u{202e}txt.exe";
    let started = baton(&dir)
        .arg("--json")
        .args(baton_tests::start_demo("claude", hostile))
        .output()
        .unwrap();
    assert!(started.status.success());
    let id = json_of(&started)["session_id"].as_str().unwrap().to_owned();
    // The JSON keeps the text exactly, escaped.
    let listed = baton(&dir).args(["--json", "list"]).output().unwrap();
    assert!(!acted_on(&listed.stdout));
    assert_eq!(json_of(&listed)["sessions"][0]["goal"], hostile);
    let runs: Vec<Vec<&str>> = vec![
        vec!["pause", &id, "--reason", hostile],
        vec!["list"],
        vec!["show", &id],
        vec!["timeline", &id],
        vec!["brief", &id],
        vec!["health", &id],
        vec!["end", &id, "--summary", hostile],
        vec!["list", "--all"],
        vec!["timeline", &id],
    ];
    for args in runs {
        let out = baton(&dir).args(&args).output().unwrap();
        assert!(
            !acted_on(&out.stdout),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            !acted_on(&out.stderr),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // Transcript text: a prompt with an escape sequence, found by a search.
    let transcript = tmp.path().join("session.jsonl");
    std::fs::write(
        &transcript,
        format!(
            "{}\n",
            serde_json::json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
                "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": hostile}})
        ),
    )
    .unwrap();
    for args in [
        vec!["analyze", "--search", "build", "--list", "5"],
        vec!["inspect"],
    ] {
        let out = baton(&dir).args(&args).arg(&transcript).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!acted_on(&out.stdout), "{args:?}: {text}");
        assert!(
            text.contains("\\u{1b}") || args[0] == "inspect",
            "{args:?}: {text}"
        );
    }
}

#[test]
fn names_that_read_as_something_else_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    for project in ["evil\u{202e}gnp.exe", "de\u{200b}mo"] {
        let out = baton(&dir)
            .args(["--json", "start", "--project", project, "--agent", "claude"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{project:?}");
        assert_eq!(json_of(&out)["error"]["code"], "INVALID_ARGUMENT");
        assert!(!acted_on(&out.stdout));
    }
}

/// A ledger with one live session; its id.
fn ledger_with_a_session(dir: &std::path::Path) -> String {
    let out = baton(dir)
        .args(["--json", "start", "--project", "demo", "--agent", "claude"])
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    json_of(&out)["session_id"].as_str().unwrap().to_owned()
}

fn refused_as_unsafe(out: &std::process::Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(1),
        "{what}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(json_of(out)["error"]["code"], "STORE_UNSAFE", "{what}");
}

#[test]
fn links_planted_in_the_ledger_leave_their_targets_untouched() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let victim = tmp.path().join("victim.rc");
    let precious = "export PATH=/usr/bin\n";

    // compact.lock → a file compaction would truncate.
    let dir = tmp.path().join("a/.baton");
    ledger_with_a_session(&dir);
    std::fs::write(&victim, precious).unwrap();
    let lock = dir.join("compact.lock");
    let _ = std::fs::remove_file(&lock);
    symlink(&victim, &lock).unwrap();
    let out = baton(&dir).args(["--json", "compact"]).output().unwrap();
    refused_as_unsafe(&out, "compact.lock");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), precious);

    // events.ndjson → a shell rc file appends would land in.
    let dir = tmp.path().join("b/.baton");
    ledger_with_a_session(&dir);
    std::fs::remove_file(dir.join("events.ndjson")).unwrap();
    symlink(&victim, dir.join("events.ndjson")).unwrap();
    let out = baton(&dir)
        .args([
            "--json",
            "start",
            "--project",
            "demo",
            "--agent",
            "x",
            "--goal",
            "$(touch /tmp/pwned)",
        ])
        .output()
        .unwrap();
    refused_as_unsafe(&out, "events.ndjson");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), precious);

    // locks/ → a folder elsewhere.
    let dir = tmp.path().join("c/.baton");
    let id = ledger_with_a_session(&dir);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::remove_dir_all(dir.join("locks")).unwrap();
    symlink(&elsewhere, dir.join("locks")).unwrap();
    let out = baton(&dir).args(["--json", "end", &id]).output().unwrap();
    refused_as_unsafe(&out, "locks/");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    // The default vault, or Baton's note state, → a folder elsewhere: the session ends, its
    // note is refused with a warning, and nothing is written there.
    for planted in ["vault", "notes"] {
        let dir = tmp.path().join(format!("n-{planted}/.baton"));
        let id = ledger_with_a_session(&dir);
        let elsewhere = tmp.path().join(format!("elsewhere-{planted}"));
        std::fs::create_dir(&elsewhere).unwrap();
        let _ = std::fs::remove_dir_all(dir.join(planted));
        symlink(&elsewhere, dir.join(planted)).unwrap();
        let out = baton(&dir).args(["--json", "end", &id]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("STORE_UNSAFE"),
            "{out:?}"
        );
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    }

    // An archive month → /dev/zero, which never ends.
    let dir = tmp.path().join("d/.baton");
    ledger_with_a_session(&dir);
    symlink("/dev/zero", dir.join("archive/2026-01.ndjson")).unwrap();
    let out = baton(&dir).args(["--json", "list"]).output().unwrap();
    refused_as_unsafe(&out, "archive → /dev/zero");
}

#[test]
fn a_ledger_owned_by_another_user_is_read_but_not_written_unless_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    ledger_with_a_session(&dir);
    // Only root can give a folder away; elsewhere this test has nothing to prove.
    let given = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(&dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !given {
        eprintln!("skipped: chown to another user needs root");
        return;
    }
    let before = std::fs::read(dir.join("events.ndjson")).unwrap();
    // Writing to it is refused: a goal must not land in someone else's log.
    let start = ["--json", "start", "--project", "demo", "--agent", "root"];
    let out = baton(&dir).args(start).output().unwrap();
    refused_as_unsafe(&out, "a ledger of uid 65534");
    assert_eq!(std::fs::read(dir.join("events.ndjson")).unwrap(), before);
    // Reading it is not (a colleague's ledger, a read-only mount).
    let out = baton(&dir).args(["--json", "list"]).output().unwrap();
    assert_success(&out, format_args!(""));
    assert_eq!(json_of(&out)["total"], 1);
    // Trusted, it is written to.
    let out = baton(&dir)
        .env("BATON_TRUSTED_DIRS", &dir)
        .args(start)
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
}

#[test]
fn discovery_never_climbs_above_the_home_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home/me");
    let project = home.join("work/app");
    std::fs::create_dir_all(&project).unwrap();
    // A ledger planted above the home folder (where other users' folders are).
    let planted = tmp.path().join("home/.baton");
    std::fs::create_dir_all(&planted).unwrap();
    let out = std::process::Command::new(baton_tests::baton_bin())
        .current_dir(&project)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("BATON_FSYNC", "0")
        .args(["--json", "start", "--project", "app", "--agent", "claude"])
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    assert!(project.join(".baton/events.ndjson").is_file());
    assert_eq!(
        std::fs::read_dir(&planted).unwrap().count(),
        0,
        "nothing written above home"
    );
}

#[test]
fn contract_and_constitution_files_are_read_up_to_a_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let big = tmp.path().join("big.md");
    std::fs::write(&big, "x".repeat((1 << 20) + 1)).unwrap();
    for file in ["/dev/zero", big.to_str().unwrap()] {
        let mut command = baton(&dir);
        command.args(["--json", "constitution", "set", file]);
        let out = baton_tests::output_within(command, 30);
        assert_eq!(out.status.code(), Some(1), "{file}");
        assert!(std::fs::metadata(dir.join("events.ndjson")).map_or(0, |m| m.len()) < 4096);
    }
}

#[test]
fn temporaries_left_by_killed_processes_are_reported_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    ledger_with_a_session(&dir);
    let left = [
        dir.join(".events.ndjson.new-0000"),
        dir.join("checkpoint.tmp-0000"),
        dir.join("archive/.2026-01.ndjson.tmp-0000"),
    ];
    let fresh = dir.join(".events.ndjson.new-1111");
    for path in left.iter().chain([&fresh]) {
        std::fs::write(path, "partial").unwrap();
    }
    for path in &left {
        let aged = std::process::Command::new("touch")
            .args(["-d", "20 minutes ago"])
            .arg(path)
            .status()
            .unwrap();
        assert!(aged.success());
    }
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_eq!(
        doctor["stale_temporaries"].as_array().unwrap().len(),
        3,
        "{doctor}"
    );
    assert_eq!(doctor["healthy"], false);
    let compact = json_of(&baton(&dir).args(["--json", "compact"]).output().unwrap());
    assert_eq!(compact["temporaries_removed"], 3, "{compact}");
    assert!(left.iter().all(|p| !p.exists()));
    assert!(
        fresh.exists(),
        "a temporary still being written is left alone"
    );
}

#[test]
fn compaction_waits_for_readers_instead_of_refusing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    ledger_with_a_session(&dir);
    // A reader holding the lock shared for a second (as `list` does for milliseconds).
    let mut reader = std::process::Command::new("flock")
        .arg("-s")
        .arg(dir.join("compact.lock"))
        .args(["sleep", "1"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let out = baton(&dir).args(["--json", "compact"]).output().unwrap();
    reader.wait().unwrap();
    assert_success(&out, format_args!(""));
}

#[test]
fn a_change_report_snapshots_health_only_where_it_changes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ids: Vec<String> = (0..20).map(|_| ledger_with_a_session(&dir)).collect();
    // One other session depends on the file: a collision opens there, and only there.
    let depended = baton(&dir)
        .args(["--json", "depend", &ids[1], "--on", "src/search.rs"])
        .output()
        .unwrap();
    assert_success(&depended, format_args!(""));
    let lines = || {
        std::fs::read_to_string(dir.join("events.ndjson"))
            .unwrap()
            .lines()
            .count()
    };
    let before = lines();
    let out = baton(&dir)
        .args(["--json", "report", &ids[0], "--changed", "src/search.rs"])
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    // The change, one collision, and two health snapshots (the reporter's and the affected
    // session's), not one for each of the 20 live sessions.
    assert_eq!(lines() - before, 4);
}

/// `GET /` on `addr`: the response's status line.
fn get(addr: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(5)))
        .unwrap();
    stream
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

#[test]
fn the_page_server_outlives_slow_and_oversized_requests() {
    use std::io::{BufRead, Write};
    let tmp = tempfile::tempdir().unwrap();
    // Few descriptors, as a busy machine has: unbounded connections would run out of them.
    let mut server = std::process::Command::new("prlimit")
        .args(["--nofile=200", "--"])
        .arg(baton_tests::baton_bin())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BATON_DIR", tmp.path().join(".baton"))
        .args(["--json", "web", "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url: serde_json::Value = serde_json::from_str(&first).unwrap();
    let addr = url["serving"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    assert!(get(&addr).starts_with("HTTP/1.1 200"), "served before");

    // 300 connections that drip a byte a second (slowloris), 300 that say nothing at all,
    // and one request line of 4 MiB: while they last, a request is still answered.
    let mut slow: Vec<std::net::TcpStream> = (0..300)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    let idle: Vec<std::net::TcpStream> = (0..300)
        .filter_map(|_| std::net::TcpStream::connect(&addr).ok())
        .collect();
    let mut huge = std::net::TcpStream::connect(&addr).unwrap();
    let _ = huge.write_all(&vec![b'A'; 4 << 20]);
    let mut during = Vec::new();
    for second in 0..4 {
        for s in &mut slow {
            let _ = s.write_all(b"G");
        }
        if second >= 1 {
            during.push(get(&addr));
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
    let _ = server.kill();
    let _ = server.wait();
    drop((slow, idle));
    assert!(
        during
            .iter()
            .all(|status| status.starts_with("HTTP/1.1 200")),
        "while the slow and idle connections last: {during:?}"
    );
}

#[test]
fn a_checkpoint_with_a_flipped_byte_is_dropped_and_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let ids: Vec<String> = (0..5).map(|_| ledger_with_a_session(&dir)).collect();
    let compacted = baton(&dir).args(["--json", "compact"]).output().unwrap();
    assert!(compacted.status.success());
    let path = dir.join("checkpoint.ndjson");
    let original = std::fs::read(&path).unwrap();
    // A flipped byte that still reads as JSON: a digit of the first session's start time.
    let mut bytes = original.clone();
    let at = bytes.windows(6).position(|w| w == b"\"at\":\"").unwrap() + 7;
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    std::fs::write(&path, &bytes).unwrap();
    for args in [vec!["--json", "show", &ids[0]], vec!["--json", "list"]] {
        let out = baton(&dir).args(&args).output().unwrap();
        assert_success(&out, format_args!("{args:?}"));
    }
    let listed = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(listed["total"], 5);
    let doctor = json_of(&baton(&dir).args(["--json", "doctor"]).output().unwrap());
    assert_ne!(
        std::fs::read(&path).unwrap_or_default(),
        bytes,
        "rebuilt: {doctor}"
    );
}

/// Unmounts a test's filesystem however the test ends.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// Mounts a 1 MiB tmpfs on `at` for the test's life; `None` (and a message) without root.
fn mount_tmpfs(at: &std::path::Path) -> Option<Mounted> {
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(at)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !mounted {
        eprintln!("skipped: mounting a tmpfs needs root");
        return None;
    }
    Some(Mounted(at.to_path_buf()))
}

#[test]
fn on_a_full_disk_a_refused_start_leaves_no_session() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    let Some(_guard) = mount_tmpfs(&mount) else {
        return;
    };
    let dir = mount.join(".baton");
    ledger_with_a_session(&dir);
    // Fill the disk, then leave room in the log's last page for about one line: a start's
    // first event fits, its others would not.
    let mut filler = std::fs::File::create(mount.join("filler")).unwrap();
    while filler.write_all(&[0u8; 4096]).is_ok() {}
    let _ = filler.write_all(&[0u8; 1]);
    let log = dir.join("events.ndjson");
    let size = std::fs::metadata(&log).unwrap().len();
    let room = 4096 - size % 4096;
    if room > 450 {
        let mut appended = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let _ = appended.write_all(&vec![b'\n'; (room - 450) as usize]);
    }
    let out = baton(&dir)
        .args(["--json", "start", "--project", "demo", "--agent", "second"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(json_of(&out)["error"]["code"], "STORE_IO");
    let listed = json_of(&baton(&dir).args(["--json", "list"]).output().unwrap());
    assert_eq!(
        listed["total"], 1,
        "the refused start left a session: {listed}"
    );
}

#[test]
fn a_read_only_ledger_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path().join("ro");
    std::fs::create_dir(&mount).unwrap();
    let Some(_guard) = mount_tmpfs(&mount) else {
        return;
    };
    let dir = mount.join(".baton");
    ledger_with_a_session(&dir);
    // No lock file, and none can be made: a ledger copied to a read-only mount.
    let _ = std::fs::remove_file(dir.join("compact.lock"));
    let remounted = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(remounted.success());
    for args in [vec!["--json", "list"], vec!["--json", "doctor"]] {
        let out = baton(&dir).args(&args).output().unwrap();
        assert_success(&out, format_args!("{args:?}"));
    }
    let out = baton(&dir)
        .args(["--json", "start", "--project", "demo", "--agent", "x"])
        .output()
        .unwrap();
    assert_eq!(
        json_of(&out)["error"]["code"],
        "STORE_IO",
        "a write is refused, clearly"
    );
}

/// Runs `command` with `input` on stdin; its output, or a failure naming `what` when it has
/// not finished in 20 s (a command blocked on a FIFO never would; each is killed then).
fn finishes(mut command: std::process::Command, input: &str, what: &str) -> std::process::Output {
    let mut child = baton_tests::spawn_with_stdin(&mut command, input.as_bytes());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} still waits on a FIFO (killed)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// A FIFO (or a device) wherever Baton reads a path it did not create: the transcript a hook
/// or the status line is handed, Claude Code's process registry, a folder the mirror and
/// `usage` walk. Nothing waits for a writer that never comes, and nothing reads without end.
#[test]
fn a_fifo_at_every_path_baton_reads_never_blocks_it() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    let ledger = project.join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let claude = tmp.path().join("claude");
    std::fs::create_dir_all(claude.join("sessions")).unwrap();
    std::fs::create_dir_all(claude.join("projects/-w")).unwrap();
    let fifo = tmp.path().join("transcript.jsonl");
    mkfifo(&fifo);
    mkfifo(&claude.join("sessions/4242.json"));
    mkfifo(&claude.join("projects/-w/fifo.jsonl"));
    let command = || {
        let mut command = baton(&ledger);
        command
            .env_remove("BATON_DIR")
            .env("CLAUDE_PROJECT_DIR", &project)
            .env("CLAUDE_CONFIG_DIR", &claude)
            .env("CODEX_HOME", tmp.path().join("codex"))
            .current_dir(&project);
        command
    };
    for transcript in [fifo.display().to_string(), "/dev/zero".to_owned()] {
        for event in ["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"] {
            let input = serde_json::json!({
                "session_id": "claude-fifo",
                "transcript_path": transcript,
                "hook_event_name": event,
                "prompt": "go",
                "source": "startup",
                "reason": "exit",
            });
            let mut hook = command();
            hook.args(["hook", "claude-code"]);
            let out = finishes(
                hook,
                &input.to_string(),
                &format!("hook {event} on {transcript}"),
            );
            assert_success(&out, format_args!("{event}"));
        }
        let input = serde_json::json!({
            "session_id": "claude-fifo",
            "transcript_path": transcript,
            "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet"},
            "workspace": {"current_dir": project, "project_dir": project},
            "cost": {"total_cost_usd": 0.5},
        });
        let mut statusline = command();
        statusline.arg("statusline");
        let out = finishes(
            statusline,
            &input.to_string(),
            &format!("statusline on {transcript}"),
        );
        assert!(out.status.success());
        assert!(!out.stdout.is_empty(), "the status line prints a line");
    }
    // The session the hooks began and ended is ended: SessionEnd was not held up.
    let with = |args: &[&str]| {
        let mut run = command();
        run.args(args);
        run
    };
    let list = finishes(with(&["--json", "list", "--all"]), "", "list");
    let sessions: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(
        sessions["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| !s["ended_at"].is_null()),
        "{sessions}"
    );
    // A live session makes every reader look at the registry (and its FIFO).
    let started = finishes(
        with(&[
            "start",
            "--project",
            "webapp",
            "--agent",
            "claude",
            "--provider-session-id",
            "claude-live",
            "--goal",
            "g",
        ]),
        "",
        "start",
    );
    assert_success(&started, format_args!(""));
    for args in [
        &["list"][..],
        &["doctor"],
        &["watch", "--once"],
        &["attention"],
        &["usage", "--claude-dir"],
        &["mirror", "--claude-dir"],
    ] {
        let mut run = with(args);
        if args.ends_with(&["--claude-dir"]) {
            run.arg(claude.join("projects"))
                .arg("--codex-dir")
                .arg(tmp.path().join("none"));
        }
        finishes(run, "", &args.join(" "));
    }
}

/// A folder of the vault inside the ledger that is a symbolic link (a clone can carry one)
/// takes no note: `start` still starts, says why the note was not written, and nothing
/// lands where the link points.
#[test]
fn a_linked_folder_in_the_ledger_s_vault_takes_no_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("webapp/.baton");
    std::fs::create_dir_all(dir.join("vault")).unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join("vault/Projects")).unwrap();
    let out = baton(&dir)
        .args([
            "--json",
            "start",
            "--project",
            "webapp",
            "--agent",
            "claude",
        ])
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("symbolic link"), "{stderr}");
    let written: Vec<_> = walk(&outside);
    assert!(written.is_empty(), "written through the link: {written:?}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}
