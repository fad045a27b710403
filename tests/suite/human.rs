//! What people read, pinned: the human lines of every command (the JSON that follows them is
//! pinned elsewhere), the usage table, `inspect` and `analyze` on real fixtures, and the
//! `[error]` line of every error a person can reach from the command line. Time is pinned
//! with `BATON_NOW`, ids and temporary paths are replaced by placeholders, the environment is
//! cleared, so the snapshots only change when what people read changes.

use baton_tests::{baton, redact_ids};
use std::path::Path;
use std::process::Command;

/// A scripted terminal session: each command's human lines (stdout, then stderr), under the
/// command as typed.
struct Script<'a> {
    dir: &'a Path,
    replace: Vec<(String, String)>,
    text: String,
}

impl Script<'_> {
    fn run_at(&mut self, now: &str, args: &[&str]) -> String {
        let out = baton(self.dir)
            .env("BATON_NOW", now)
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut shown = args.join(" ");
        let mut body = stdout.trim_end().to_owned();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !stderr.trim().is_empty() {
            if !body.is_empty() {
                body.push('\n');
            }
            body.push_str(&format!("(stderr) {}", stderr.trim_end()));
        }
        for (from, to) in &self.replace {
            shown = shown.replace(from, to);
            body = body.replace(from, to);
        }
        self.text.push_str(&format!(
            "$ baton {shown}   [exit {}]\n{body}\n\n",
            out.status.code().unwrap_or(-1)
        ));
        stdout
    }

    fn finish(self) -> String {
        redact_ids(&self.text)
    }
}

/// The first full session id (a UUID) a human line shows.
fn id_of(human: &str) -> String {
    human
        .split(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .find(|word| uuid::Uuid::try_parse(word).is_ok() && word.len() == 36)
        .unwrap_or_else(|| panic!("no session id in {human}"))
        .to_owned()
}

#[test]
fn every_ledger_command_reads_as_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let contract = tmp.path().join("contract.md");
    std::fs::write(
        &contract,
        "# CLAIM-7\n- Search is case-insensitive\n- Newest first\n",
    )
    .unwrap();
    let constitution = tmp.path().join("constitution.md");
    std::fs::write(&constitution, "Layers: core below hosts.\n").unwrap();
    let mut s = Script {
        dir: &dir,
        replace: vec![(tmp.path().display().to_string(), "<TMP>".into())],
        text: String::new(),
    };
    let t = |minute: u32| format!("2026-07-18T20:{minute:02}:00.000Z");
    let contract_arg = contract.display().to_string();
    let constitution_arg = constitution.display().to_string();
    s.run_at(
        &t(0),
        &["mission", "add", "CLAIM-7", "--contract", &contract_arg],
    );
    s.run_at(&t(1), &["mission", "approve", "CLAIM-7"]);
    s.run_at(&t(2), &["constitution", "set", &constitution_arg]);
    s.run_at(&t(3), &["index", "--commit", "0123456789abcdef"]);
    let a = id_of(&s.run_at(
        &t(4),
        &[
            "start",
            "--project",
            "demo",
            "--agent",
            "Claude",
            "--client",
            "claude-code",
            "--goal",
            "Implement search",
            "--mission",
            "CLAIM-7",
        ],
    ));
    let b = id_of(&s.run_at(&t(5), &["start", "--project", "demo", "--agent", "codex"]));
    s.run_at(&t(6), &["brief", &a]);
    s.run_at(&t(7), &["depend", &a, "--on", "src/search.rs"]);
    s.run_at(
        &t(8),
        &[
            "report",
            &b,
            "--changed",
            "src/search.rs",
            "--via",
            "hook",
            "--progress",
            "40",
        ],
    );
    s.run_at(&t(9), &["health", &a]);
    s.run_at(
        &t(10),
        &["pause", &a, "--reason", "Wait for the API review"],
    );
    s.run_at(&t(11), &["brief", &a]);
    s.run_at(&t(12), &["unpause", &a]);
    s.run_at(
        &t(13),
        &["ambiguity", "open", "CLAIM-7", "Is fuzzy matching wanted?"],
    );
    s.run_at(&t(14), &["ambiguity", "resolve", "1"]);
    s.run_at(&t(15), &["decision", "record", "Days are UTC"]);
    s.run_at(&t(16), &["start", "--session-id", &b]);
    s.run_at(&t(16), &["resume", &b, "--project", "demo"]);
    s.run_at(&t(17), &["list"]);
    s.run_at(&t(18), &["show", &a]);
    s.run_at(&t(19), &["timeline", &a]);
    s.run_at(&t(20), &["end", &a, "--status", "failed"]);
    s.run_at(
        &t(50),
        &[
            "end",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--summary",
            "Done",
        ],
    );
    s.run_at(&t(51), &["attention"]);
    s.run_at(&t(52), &["list", "--all"]);
    s.run_at(&t(53), &["doctor"]);
    s.run_at(&t(54), &["compact"]);
    insta::assert_snapshot!("ledger_commands", s.finish());
}

#[test]
fn every_reachable_error_reads_as_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "approved_clients = [\"codex\"]\nmission_required = false\n[members]\nlead = \"owner\"\nguest = \"viewer\"\n",
    )
    .unwrap();
    let mut s = Script {
        dir: &dir,
        replace: vec![(tmp.path().display().to_string(), "<TMP>".into())],
        text: String::new(),
    };
    let now = "2026-07-18T20:00:00.000Z";
    let a = id_of(&s.run_at(
        now,
        &[
            "--as",
            "lead",
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--client",
            "codex",
        ],
    ));
    s.run_at(
        now,
        &[
            "--as",
            "lead",
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--client",
            "codex",
        ],
    );
    let junk = tmp.path().join("notes.txt");
    std::fs::write(&junk, "just some notes\n").unwrap();
    let junk_arg = junk.display().to_string();
    let zip = tmp.path().join("photos.zip");
    std::fs::write(
        &zip,
        baton_core::transcripts::zip::write_zip(&[("photo.jpg", b"\xff\xd8".as_slice())], false),
    )
    .unwrap();
    let zip_arg = zip.display().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["start", "--project", "demo"],
        vec!["start", "--project", "../up", "--agent", "codex"],
        vec![
            "--as",
            "guest",
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
        ],
        vec![
            "--as",
            "lead",
            "start",
            "--project",
            "demo",
            "--agent",
            "claude",
            "--client",
            "cursor",
        ],
        vec![
            "--as",
            "lead",
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--client",
            "codex",
            "--mission",
            "NOPE-1",
        ],
        vec!["show", "not-a-uuid"],
        vec!["show", "019c0000-0000-7000-8000-000000000001"],
        vec![
            "--as",
            "lead",
            "end",
            "--project",
            "demo",
            "--agent",
            "codex",
        ],
        vec!["--as", "lead", "end", "--project", "elsewhere"],
        vec!["--as", "lead", "unpause", &a],
        vec!["--as", "lead", "ambiguity", "resolve", "9"],
        vec!["--as", "lead", "mission", "approve", "NOPE-1"],
        vec!["inspect", &junk_arg],
        vec!["analyze", &zip_arg],
        vec!["usage", "--since", "yesterday"],
        vec!["record", "store", "--content", " "],
        vec!["record", "list", "--limit", "0"],
        vec!["record", "get", "0190abcd"],
        vec!["record", "get", &a],
        vec!["record", "export", "0190abcd", "--format", "yaml"],
    ];
    for case in &cases {
        s.run_at(now, case);
    }
    insta::assert_snapshot!("errors", s.finish());
}

#[test]
fn transcripts_read_as_pinned() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let trees = tmp.path().join("trees");
    assert!(
        Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
            .arg(&trees)
            .args(["--sessions", "8", "--seed", "21"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let dir = tmp.path().join(".baton");
    let mut s = Script {
        dir: &dir,
        replace: vec![
            (fixtures.display().to_string(), "<FIXTURES>".into()),
            (tmp.path().display().to_string(), "<TMP>".into()),
        ],
        text: String::new(),
    };
    let now = "2026-07-18T20:00:00.000Z";
    let claude = trees.join("claude/projects").display().to_string();
    let codex = trees.join("codex/sessions").display().to_string();
    for group in ["daily", "monthly", "model", "project"] {
        s.run_at(
            now,
            &[
                "usage",
                group,
                "--claude-dir",
                &claude,
                "--codex-dir",
                &codex,
            ],
        );
    }
    let files: Vec<String> = [
        "claude-code/spotter-v2.1.38-tool_heavy.jsonl",
        "codex/agentsview-function_calls.jsonl",
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
        "claude-ai/claude-chat-viewer-testdata-conversations.json",
    ]
    .iter()
    .map(|f| fixtures.join(f).display().to_string())
    .collect();
    let mut inspect = vec!["inspect"];
    inspect.extend(files.iter().map(String::as_str));
    s.run_at(now, &inspect);
    let mut analyze = vec!["analyze", "--list", "5", "--search", "the"];
    analyze.extend(files.iter().map(String::as_str));
    s.run_at(now, &analyze);
    insta::assert_snapshot!("transcripts", s.finish());
}

/// Every snapshot file of this binary belongs to a test that still asserts it: a renamed or
/// deleted test must take its snapshot with it.
#[test]
fn no_snapshot_is_left_unreferenced() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("suite");
    let mut sources = String::new();
    for entry in std::fs::read_dir(&here).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            sources.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(here.join("snapshots")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".snap") else {
            stale.push(name);
            continue;
        };
        let snapshot = stem.rsplit("__").next().unwrap_or(stem);
        if !sources.contains(&format!("assert_snapshot!(\"{snapshot}\"")) {
            stale.push(name);
        }
    }
    assert!(stale.is_empty(), "unreferenced snapshots: {stale:?}");
}
