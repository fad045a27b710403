//! `baton statusline` as Claude Code runs it: session JSON on stdin, one line on stdout, exit
//! 0 always. Malformed input, a missing transcript and a locked index still give a line; fifty
//! invocations at once for one session compute it at most once.

use baton_tests::{baton, json_of};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    cache: PathBuf,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("webapp");
        let cache = tmp.path().join("runtime");
        std::fs::create_dir_all(root.join(".baton")).unwrap();
        std::fs::create_dir_all(&cache).unwrap();
        Project {
            root,
            cache,
            _tmp: tmp,
        }
    }

    fn ledger(&self) -> PathBuf {
        self.root.join(".baton")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = baton(&self.ledger());
        command
            .env_remove("BATON_DIR")
            .env("XDG_CACHE_HOME", &self.cache)
            .env("NO_COLOR", "1")
            .arg("statusline")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn spawn(&self, input: &str, args: &[&str]) -> Child {
        baton_tests::spawn_with_stdin(&mut self.command(args), input.as_bytes())
    }

    /// The line printed and the exit status.
    fn line(&self, input: &str, args: &[&str]) -> String {
        let output = self.spawn(input, args).wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0), "a status line never fails");
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "one line: {stdout:?}");
        stdout.trim_end().to_owned()
    }

    fn computations(&self) -> u64 {
        let folder = self.cache.join("baton").join("statusline");
        std::fs::read_dir(folder)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
            .map(|e| {
                let cached: Value =
                    serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
                cached["computations"].as_u64().unwrap()
            })
            .sum()
    }
}

fn input(project: &Path, transcript: &Path, extra: Value) -> String {
    let mut value = json!({
        "session_id": "claude-s1",
        "transcript_path": transcript,
        "cwd": project,
        "workspace": {"project_dir": project, "current_dir": project},
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
    });
    for (k, v) in extra.as_object().unwrap() {
        value[k] = v.clone();
    }
    value.to_string()
}

fn start(p: &Project) -> String {
    let output = baton(&p.ledger())
        .args([
            "--json",
            "start",
            "--project",
            "webapp",
            "--agent",
            "claude",
            "--provider-session-id",
            "claude-s1",
        ])
        .output()
        .unwrap();
    json_of(&output)["session_id"].as_str().unwrap().to_owned()
}

fn transcript(p: &Project, input_tokens: u64) -> PathBuf {
    let path = p.root.join("claude-s1.jsonl");
    std::fs::write(
        &path,
        json!({"type":"assistant","sessionId":"claude-s1","timestamp":"2026-07-18T10:00:00Z","requestId":"r1",
            "message":{"id":"m1","model":"claude-sonnet-4-20250514","usage":{"input_tokens": 10,"cache_read_input_tokens": input_tokens,"output_tokens":5}}})
        .to_string()
            + "\n",
    )
    .unwrap();
    path
}

#[test]
fn the_line_names_the_work_session_its_cost_context_and_limits_with_their_pace() {
    let p = Project::new();
    let id = start(&p);
    let path = transcript(&p, 99_990);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let line = p.line(
        &input(
            &p.root,
            &path,
            json!({
                "cost": {"total_cost_usd": 1.5},
                "rate_limits": {
                    // Half the five hours gone, 70 % used: running ahead.
                    "five_hour": {"used_percentage": 70, "resets_at": now + 9000},
                    "seven_day": {"used_percentage": 10, "resets_at": now + 6 * 86400},
                },
            }),
        ),
        &[],
    );
    let short = &id[id.len() - 8..];
    assert!(line.starts_with(&format!("{short} working")), "{line}");
    assert!(line.contains("health 100"), "{line}");
    assert!(line.contains("$1.50 session"), "{line}");
    // 100,000 of the default 200,000-token window, from the transcript's last response.
    assert!(line.contains("ctx 50%"), "{line}");
    assert!(line.contains("5h 70% (time 50%)"), "{line}");
    assert!(line.contains("7d 10% (time 14%)"), "{line}");
    assert!(!line.contains('\x1b'), "NO_COLOR: {line:?}");
    let narrow = p.line(&input(&p.root, &path, json!({})), &["--width", "30"]);
    assert!(narrow.chars().count() <= 30, "{narrow}");
    let chosen = p.line(
        &input(&p.root, &path, json!({})),
        &["--segments", "context,session"],
    );
    assert!(chosen.starts_with("ctx 50% · "), "{chosen}");
}

#[test]
fn malformed_input_a_missing_transcript_and_a_locked_index_still_print_a_line() {
    let p = Project::new();
    start(&p);
    // Nothing good yet: a short problem, not a blank.
    let first = p.line("not json", &[]);
    assert!(first.starts_with("baton: "), "{first}");
    // A missing transcript: the rest of the line.
    let missing = p.root.join("gone.jsonl");
    let good = p.line(&input(&p.root, &missing, json!({})), &[]);
    assert!(good.contains("working"), "{good}");
    // Malformed input after that: the last good line, marked stale.
    let stale = p.line("{\"session_id\": ", &[]);
    assert_eq!(stale, format!("{good} (stale)"));
    // A locked index: the transcript changed (so the line is computed again), the index is
    // held exclusively by another connection, and the last good line comes back.
    let path = transcript(&p, 1000);
    let index = baton_tests::default_index(&p.ledger());
    {
        let mirror = baton(&p.ledger())
            .args(baton_tests::mirror_only("/nonexistent"))
            .output()
            .unwrap();
        assert!(mirror.status.success());
    }
    let holder = rusqlite::Connection::open(&index).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    let locked = p.line(
        &input(&p.root, &path, json!({"cost": {"total_cost_usd": 2.0}})),
        &[],
    );
    assert!(locked.ends_with("(stale)"), "{locked}");
    assert!(locked.starts_with(&good), "{locked}");
    drop(holder);
    let again = p.line(
        &input(&p.root, &path, json!({"cost": {"total_cost_usd": 2.0}})),
        &[],
    );
    assert!(again.contains("$2.00 session"), "{again}");
    assert!(again.contains("today"), "{again}");
}

#[test]
fn fifty_invocations_at_once_compute_at_most_once() {
    let p = Project::new();
    start(&p);
    let path = transcript(&p, 5000);
    let payload = input(&p.root, &path, json!({"cost": {"total_cost_usd": 0.25}}));
    let children: Vec<Child> = (0..50).map(|_| p.spawn(&payload, &[])).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(0));
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1);
        assert!(!stdout.trim().is_empty());
    }
    assert_eq!(p.computations(), 1, "one computation for fifty invocations");
}
