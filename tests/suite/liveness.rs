//! Whether live sessions' agents still run, from each kind of evidence on a real machine:
//! Claude Code's registry file (live pid with its start time, a reused pid), a process tied by
//! the hook that has since died, Codex's writer lock held and released, and nothing at all.
//! Transitions are ledger events; only `baton reap` ends a session.

use baton_tests::{assert_success, baton, json_of};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Child, Command};

struct Machine {
    _tmp: tempfile::TempDir,
    ledger: PathBuf,
    claude: PathBuf,
    codex: PathBuf,
    copilot: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let tmp = tempfile::tempdir().unwrap();
        let claude = tmp.path().join("claude");
        let codex = tmp.path().join("codex");
        std::fs::create_dir_all(claude.join("sessions")).unwrap();
        std::fs::create_dir_all(codex.join("thread-writer-locks")).unwrap();
        let copilot = tmp.path().join("copilot");
        Machine {
            ledger: tmp.path().join("webapp/.baton"),
            claude,
            codex,
            copilot,
            _tmp: tmp,
        }
    }

    fn baton(&self) -> Command {
        let mut command = baton(&self.ledger);
        command
            .env("CLAUDE_CONFIG_DIR", &self.claude)
            .env("CODEX_HOME", &self.codex)
            .env("COPILOT_HOME", &self.copilot);
        command
    }

    fn json(&self, args: &[&str]) -> Value {
        let output = self.baton().arg("--json").args(args).output().unwrap();
        assert_success(&output, format_args!("{args:?}"));
        json_of(&output)
    }

    fn start(&self, agent: &str, provider_id: &str) -> String {
        self.json(&[
            "start",
            "--project",
            "webapp",
            "--agent",
            agent,
            "--provider-session-id",
            provider_id,
        ])["session_id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The session as `baton list` shows it (a check runs first).
    fn listed(&self, id: &str) -> Value {
        self.json(&["list", "--all"])["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .cloned()
            .unwrap()
    }

    fn liveness_events(&self) -> usize {
        std::fs::read_to_string(self.ledger.join("events.ndjson"))
            .unwrap()
            .lines()
            .filter(|l| l.contains("\"kind\":\"liveness\""))
            .count()
    }

    fn register(&self, pid: u32, claude_id: &str, proc_start: u64) {
        std::fs::write(
            self.claude.join(format!("sessions/{pid}.json")),
            json!({"pid": pid, "sessionId": claude_id, "cwd": "/w", "procStart": proc_start.to_string(), "status": "busy", "kind": "interactive"}).to_string(),
        )
        .unwrap();
    }
}

fn sleeper() -> Child {
    Command::new("sleep").arg("120").spawn().unwrap()
}

fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    rest.split_whitespace().nth(19).unwrap().parse().unwrap()
}

fn state(session: &Value) -> &str {
    session["liveness"]["state"].as_str().unwrap_or("unknown")
}

#[test]
fn a_registry_file_with_a_running_pid_and_its_start_time_is_live() {
    let m = Machine::new();
    let mut agent = sleeper();
    m.register(agent.id(), "claude-1", start_time(agent.id()));
    // A crash left another file naming the same session, with a pid that no longer runs:
    // the running one wins, whatever order the folder lists them in.
    let mut crashed = sleeper();
    let crashed_pid = crashed.id();
    m.register(crashed_pid, "claude-1", start_time(crashed_pid));
    crashed.kill().unwrap();
    crashed.wait().unwrap();
    // The legacy generation is ignored even when it names the session.
    std::fs::write(
        m.claude.join("sessions/pid-1.json"),
        r#"{"pid":1,"sessionId":"claude-1"}"#,
    )
    .unwrap();
    let id = m.start("claude", "claude-1");
    let session = m.listed(&id);
    assert_eq!(state(&session), "live", "{session}");
    assert!(
        session["liveness"]["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("pid {}", agent.id()))
    );
    assert_eq!(m.liveness_events(), 1);
    m.listed(&id);
    assert_eq!(m.liveness_events(), 1, "no change, nothing written");
    agent.kill().unwrap();
    agent.wait().unwrap();
    // The registry file left behind by a killed agent names a pid that no longer runs.
    assert_eq!(state(&m.listed(&id)), "gone");
    assert_eq!(m.liveness_events(), 2);
}

#[test]
fn the_same_pid_with_another_start_time_is_gone_raises_attention_and_ends_nothing() {
    let m = Machine::new();
    let mut agent = sleeper();
    m.register(agent.id(), "claude-2", start_time(agent.id()) + 1);
    let id = m.start("claude", "claude-2");
    let session = m.listed(&id);
    assert_eq!(state(&session), "gone", "{session}");
    assert_eq!(session["status"], "working", "a check never ends a session");
    assert!(session["ended_at"].is_null());
    let attention = m.json(&["attention"]);
    assert_eq!(attention["total"], 1, "{attention}");
    assert!(
        attention["items"][0]["text"]
            .as_str()
            .unwrap()
            .contains("another process")
    );
    let doctor = m.baton().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("but looks gone"), "{text}");
    agent.kill().unwrap();
    agent.wait().unwrap();
}

/// Runs the hook through `flock`, a parent that is not a shell and exits when the hook does:
/// the process the hook ties to its session is gone once it returns, as when a terminal closes
/// and `SessionEnd` never fires.
fn hook_from_a_short_lived_parent(m: &Machine, claude_id: &str) {
    let project = m.ledger.parent().unwrap();
    std::fs::create_dir_all(project).unwrap();
    let output = baton_tests::output_with_stdin(
        Command::new("flock")
            .arg(project.join("hook.flock"))
            .arg(baton_tests::baton_bin())
            .args(["hook", "claude-code"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("BATON_FSYNC", "0")
            .env("CLAUDE_CONFIG_DIR", &m.claude)
            .env("CODEX_HOME", &m.codex)
            .env("CLAUDE_PROJECT_DIR", project)
            .current_dir(project),
        json!({"session_id": claude_id, "hook_event_name": "SessionStart", "source": "startup"})
            .to_string()
            .as_bytes(),
    );
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    let log = std::fs::read_to_string(m.ledger.join("hook.log")).unwrap();
    assert!(log.contains("tied to it"), "{log}");
}

#[test]
fn a_session_whose_end_hook_never_fired_is_gone_after_one_check_and_reap_ends_it() {
    let m = Machine::new();
    hook_from_a_short_lived_parent(&m, "claude-3");
    // A dry run, first of all, says what it would end and writes nothing, not even what it saw.
    let before = std::fs::read(m.ledger.join("events.ndjson")).unwrap();
    let dry = m.json(&["reap", "--dry-run"]);
    assert_eq!(dry["ended"].as_array().unwrap().len(), 1, "{dry}");
    assert_eq!(
        std::fs::read(m.ledger.join("events.ndjson")).unwrap(),
        before
    );
    let listed = m.json(&["list"]);
    let session = &listed["sessions"][0];
    assert_eq!(state(session), "gone", "{listed}");
    let id = session["session_id"].as_str().unwrap().to_owned();
    assert!(
        session["liveness"]["reason"]
            .as_str()
            .unwrap()
            .contains("no longer running")
    );
    // A dry run says what it would do and writes nothing.
    let dry = m.json(&["reap", "--dry-run"]);
    assert_eq!(dry["ended"].as_array().unwrap().len(), 1, "{dry}");
    assert!(m.listed(&id)["ended_at"].is_null());
    // A fresh session nothing ties to a process is not taken, not even with --older-than.
    let other = m.json(&["start", "--project", "webapp", "--agent", "codex"])["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let reaped = m.json(&["reap", "--older-than", "1h"]);
    assert_eq!(reaped["ended"].as_array().unwrap().len(), 0, "{reaped}");
    let reaped = m.json(&["reap"]);
    assert_eq!(reaped["ended"][0]["session_id"], id.as_str());
    let ended = m.listed(&id);
    assert_eq!(ended["status"], "failed");
    assert!(
        ended["summary"]
            .as_str()
            .unwrap()
            .starts_with("Ended by `baton reap`: "),
        "{ended}"
    );
    assert!(m.listed(&other)["ended_at"].is_null());
    let bad = m
        .baton()
        .args(["reap", "--older-than", "soon"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2), "a bad span is a usage error");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("90s, 20m, 2h, 7d or 1w"));
}

/// A registry entry naming a running pid is no evidence of life unless its start time
/// matches: one without a start time (anyone can write `{"pid": 1, …}`) leaves the session
/// unknown, so `reap --older-than` can end it; a pid another user runs counts as not running.
#[test]
fn a_registry_entry_without_a_start_time_or_for_another_user_s_process_proves_nothing() {
    let m = Machine::new();
    std::fs::write(
        m.claude.join("sessions/1.json"),
        r#"{"pid":1,"sessionId":"claude-spoof","cwd":"/w","status":"busy"}"#,
    )
    .unwrap();
    let mut agent = sleeper();
    std::fs::write(
        m.claude.join(format!("sessions/{}.json", agent.id())),
        json!({"pid": agent.id(), "sessionId": "claude-nostart"}).to_string(),
    )
    .unwrap();
    let spoofed = m.start("claude", "claude-spoof");
    let without_start = m.start("claude", "claude-nostart");
    for id in [&spoofed, &without_start] {
        let session = m.listed(id);
        assert_eq!(state(&session), "unknown", "{session}");
    }
    let shown = m.baton().args(["show", &without_start]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("without its start time"), "{text}");
    // Unknown, not live: reap with a span ends it (as failed, with the evidence).
    let reaped = m.json(&["reap", "--older-than", "0s"]);
    assert_eq!(
        reaped["ended"].as_array().map(Vec::len),
        Some(2),
        "{reaped}"
    );
    agent.kill().unwrap();
    agent.wait().unwrap();
    // A process another user runs, with its true start time, is not this user's agent: not
    // running, as far as this user's sessions go. (As root, one is started as nobody; else
    // pid 1 is root's.)
    let uid = |pid: &str| {
        std::fs::metadata(format!("/proc/{pid}"))
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
            .unwrap()
    };
    let mut theirs = None;
    let pid = if uid("self") == 0 {
        let child = Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "sleep",
                "120",
            ])
            .spawn()
            .unwrap();
        let pid = child.id();
        theirs = Some(child);
        std::thread::sleep(std::time::Duration::from_millis(100));
        pid
    } else {
        1
    };
    assert_ne!(uid(&pid.to_string()), uid("self"));
    let other = Machine::new();
    other.register(pid, "claude-theirs", start_time(pid));
    let id = other.start("claude", "claude-theirs");
    let session = other.listed(&id);
    assert_eq!(state(&session), "gone", "{session}");
    if let Some(mut child) = theirs {
        child.kill().unwrap();
        child.wait().unwrap();
    }
}

#[test]
fn no_evidence_is_unknown_and_writes_nothing() {
    let m = Machine::new();
    let id = m.start("codex", "thread-without-lock");
    let session = m.listed(&id);
    assert!(session.get("liveness").is_none(), "{session}");
    assert_eq!(m.liveness_events(), 0);
    let shown = m.baton().args(["show", &id]).output().unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("agent process"), "{text}");
    assert!(text.contains("unknown: no process is tied to it"), "{text}");
}

#[test]
fn a_codex_writer_lock_held_is_live_and_released_is_gone() {
    use std::os::fd::AsRawFd;
    let m = Machine::new();
    let lock = m.codex.join("thread-writer-locks/thread-9.lock");
    // This test holds the lock as Codex's writer would.
    let writer = std::fs::File::create(&lock).unwrap();
    assert_eq!(unsafe { libc::flock(writer.as_raw_fd(), libc::LOCK_EX) }, 0);
    let id = m.start("codex", "thread-9");
    let session = m.listed(&id);
    assert_eq!(state(&session), "live", "{session}");
    drop(writer);
    let session = m.listed(&id);
    assert_eq!(state(&session), "gone", "{session}");
    assert!(
        session["liveness"]["reason"]
            .as_str()
            .unwrap()
            .contains("no process holds the thread's writer lock")
    );
}

/// Copilot CLI's in-use lock names a pid: live while that pid runs Copilot CLI; gone when it
/// no longer does (a run killed before it could remove its lock), and a pid reused by another
/// program is not taken for it.
#[test]
fn a_copilot_in_use_lock_is_live_while_its_pid_runs_copilot() {
    let m = Machine::new();
    let folder = m
        .copilot
        .join("session-state/5f0c2d1e-0000-4000-8000-000000000001");
    std::fs::create_dir_all(&folder).unwrap();
    // A process whose command line names Copilot CLI, as its binary's does.
    let mut copilot = Command::new("bash")
        .args(["-c", "exec -a copilot sleep 120"])
        .spawn()
        .unwrap();
    let lock = folder.join(format!("inuse.{}.lock", copilot.id()));
    std::fs::write(&lock, copilot.id().to_string()).unwrap();
    let id = m.start("copilot", "5f0c2d1e-0000-4000-8000-000000000001");
    let session = m.listed(&id);
    assert_eq!(state(&session), "live", "{session}");
    assert!(
        session["liveness"]["reason"]
            .as_str()
            .unwrap()
            .contains("in-use lock"),
        "{session}"
    );
    copilot.kill().unwrap();
    copilot.wait().unwrap();
    let session = m.listed(&id);
    assert_eq!(state(&session), "gone", "{session}");
    // The lock left behind now names a pid that runs something else.
    std::fs::remove_file(&lock).unwrap();
    let mut other = sleeper();
    std::fs::write(folder.join(format!("inuse.{}.lock", other.id())), "").unwrap();
    let session = m.listed(&id);
    assert_eq!(state(&session), "gone", "{session}");
    other.kill().unwrap();
    other.wait().unwrap();
}
