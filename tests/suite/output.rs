//! Output fits where it goes: every command into a closed pipe ends quietly; the terminal's
//! output (colour on, a pinned width) is pinned by snapshot; a real terminal (a pty from
//! `script`) gets colour and `NO_COLOR` takes it away.

use baton_tests::{assert_success, baton, json_of, redact_ids};
use std::path::Path;
use std::process::{Command, Stdio};

const T0: &str = "2026-07-18T20:00:00.000Z";
const T1: &str = "2026-07-18T21:30:00.000Z";

fn fixtures() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A ledger with three sessions (one paused, one ended as failed), a mission, and the files
/// the workspace commands read.
struct World {
    tmp: tempfile::TempDir,
    ids: Vec<String>,
    record: String,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join(".baton");
        std::fs::write(tmp.path().join("contract.md"), "- Search is fast\n").unwrap();
        let run = |now: &str, args: &[&str]| {
            let out = baton(&dir)
                .env("BATON_NOW", now)
                .arg("--json")
                .args(args)
                .output()
                .unwrap();
            assert_success(&out, format_args!("{args:?}"));
            json_of(&out)
        };
        let mut ids = Vec::new();
        for (agent, goal) in [
            (
                "claude",
                "Implement search across every transcript in the mirror",
            ),
            ("codex", "Fix the flaky login test"),
            ("cursor", "Write the release notes"),
        ] {
            let started = run(T0, &baton_tests::start_demo(agent, goal));
            ids.push(started["session_id"].as_str().unwrap().to_owned());
        }
        run(T0, &["pause", &ids[1], "--reason", "wrong branch"]);
        run(
            T0,
            &[
                "report",
                &ids[0],
                "--changed",
                "src/search.rs",
                "--progress",
                "40",
            ],
        );
        run(T0, &["end", &ids[2], "--status", "failed"]);
        let stored = run(
            T0,
            &[
                "record",
                "store",
                "--title",
                "Hand-off",
                "--content",
                "Half done",
            ],
        );
        let record = stored["record"]["id"].as_str().unwrap().to_owned();
        World { tmp, ids, record }
    }

    fn dir(&self) -> std::path::PathBuf {
        self.tmp.path().join(".baton")
    }
}

/// Every command, as a person would type it, on the world's ledger.
fn every_command(world: &World) -> Vec<Vec<String>> {
    let tmp = world.tmp.path().display().to_string();
    let claude = fixtures().join("claude-code").display().to_string();
    let codex = fixtures().join("codex").display().to_string();
    let first_claude = std::fs::read_dir(fixtures().join("claude-code"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap_or_else(|| fixtures().join("claude-code"))
        .display()
        .to_string();
    let id = world.ids[0].clone();
    let paused = world.ids[1].clone();
    let words = |line: &str| -> Vec<String> {
        line.split(' ')
            .map(|w| {
                w.replace("{ID}", &id)
                    .replace("{PAUSED}", &paused)
                    .replace("{TMP}", &tmp)
                    .replace("{CLAUDE}", &claude)
                    .replace("{CODEX}", &codex)
                    .replace("{FILE}", &first_claude)
                    .replace("{RECORD}", &world.record)
            })
            .collect()
    };
    [
        "--help",
        "--version",
        "list",
        "list --all",
        "show {ID}",
        "start --project demo --agent gemini",
        "resume {ID}",
        "brief {ID}",
        "report {ID} --progress 50",
        "depend {ID} --on src/api.rs",
        "health {ID}",
        "timeline {ID}",
        "attention",
        "pause {ID} --reason hold",
        "unpause {PAUSED}",
        "mission add CLAIM-1 --contract {TMP}/contract.md",
        "mission approve CLAIM-1",
        "constitution set {TMP}/contract.md",
        "index --commit 0123456789abcdef0123456789abcdef01234567",
        "ambiguity open CLAIM-1 Which?",
        "ambiguity resolve 1",
        "decision record No-ORMs",
        "end --project demo --agent gemini",
        "usage --claude-dir {CLAUDE} --codex-dir {CODEX}",
        "inspect {FILE}",
        "analyze {CLAUDE}",
        "doctor",
        "compact",
        "completions bash",
        "man",
        "mcp --print-tools-markdown",
        "abi {\"op\":\"version\"}",
        "demo --serve-seconds 1",
        "mirror --claude-dir {CLAUDE} --codex-dir {CODEX} --index {TMP}/index.sqlite",
        "search file --index {TMP}/index.sqlite",
        "transcripts list --index {TMP}/index.sqlite",
        "transcripts show 1 --index {TMP}/index.sqlite",
        "record store --content kept --tag t",
        "record list",
        "record list --include all",
        "record get {RECORD}",
        "record export {RECORD}",
        "record export {RECORD} --format markdown",
        "show no-such-session",
    ]
    .iter()
    .map(|line| words(line))
    .collect()
}

/// `baton … | head -1`, with the reader gone before Baton writes a byte: no panic, no noise,
/// and the exit status the command would have had anyway.
#[test]
fn every_command_into_a_closed_pipe_ends_quietly() {
    for json in [false, true] {
        // Each pass on its own ledger: the commands change it.
        let world = World::new();
        for args in every_command(&world) {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            let mut command = baton(&world.dir());
            command.env("BATON_NOW", T1).current_dir(world.tmp.path());
            if json {
                command.arg("--json");
            }
            let out = command
                .args(&args)
                .stdout(Stdio::from(writer))
                .stderr(Stdio::piped())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let code = out.status.code();
            assert!(
                !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
                "{args:?} (json: {json}): {stderr}"
            );
            assert!(
                matches!(code, Some(0 | 1)),
                "{args:?} (json: {json}) exited {code:?}: {stderr}"
            );
            let failing = args.iter().any(|a| a == "no-such-session");
            assert_eq!(
                code == Some(1),
                failing,
                "{args:?} (json: {json}): {stderr}"
            );
        }
    }
}

/// What a terminal 72 columns wide shows, colour codes drawn as `⎋`.
#[test]
fn terminal_output_reads_as_pinned() {
    let world = World::new();
    let claude = fixtures().join("claude-code").display().to_string();
    let codex = fixtures().join("codex").display().to_string();
    let mut text = String::new();
    let commands: Vec<Vec<String>> = [
        vec!["list"],
        vec!["list", "--all"],
        vec!["show", &world.ids[0]],
        vec!["timeline", &world.ids[1]],
        vec!["health", &world.ids[0]],
        vec!["attention"],
        vec!["end", "--project", "demo"],
        vec!["usage", "--claude-dir", &claude, "--codex-dir", &codex],
    ]
    .into_iter()
    .map(|a| a.into_iter().map(str::to_owned).collect())
    .collect();
    for args in commands {
        let out = baton(&world.dir())
            .env("BATON_NOW", T1)
            .env("COLUMNS", "72")
            .arg("--color")
            .arg("always")
            .args(&args)
            .output()
            .unwrap();
        let mut shown = args.join(" ");
        for (from, to) in [(&claude, "<CLAUDE>"), (&codex, "<CODEX>")] {
            shown = shown.replace(from.as_str(), to);
        }
        text.push_str(&format!(
            "$ baton {shown}   [exit {:?}]\n",
            out.status.code()
        ));
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !stderr.is_empty() {
            text.push_str(&format!("(stderr)\n{stderr}"));
        }
        text.push('\n');
        // Every table line fits the width it was given (colour codes take no room); a heading
        // or a note is a sentence the terminal wraps.
        let prose = [
            "[",
            "  ",
            "cost:",
            "no price",
            "re-brief:",
            "Retry",
            "not counted",
        ];
        for line in String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|line| !prose.iter().any(|p| strip_sgr(line).starts_with(p)))
        {
            let visible = strip_sgr(line);
            assert!(
                visible.chars().count() <= 72,
                "wider than 72 columns: {visible}"
            );
        }
    }
    // A session whose full id is never printed still shows its short id.
    let mut text = redact_ids(&text);
    for (n, id) in world.ids.iter().enumerate() {
        text = text.replace(&id[28..], &format!("<SESSION{n}>"));
    }
    // A path cut through its short id shows a random digit or two: drawn as `#`.
    let text: String = text
        .split("cursor-")
        .enumerate()
        .map(|(i, part)| match part.split_once('…') {
            Some((cut, rest)) if i > 0 && cut.chars().all(|c| c.is_ascii_hexdigit()) => {
                format!("{}…{rest}", "#".repeat(cut.len()))
            }
            _ => part.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("cursor-");
    insta::assert_snapshot!("terminal", text.replace('\x1b', "⎋"));
}

fn strip_sgr(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('\x1b') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        match rest.find('m') {
            Some(end) => rest = &rest[end + 1..],
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// A real terminal (a pty, from util-linux `script`): colour by default, none with `NO_COLOR`
/// or `--color never`, and none into a pipe.
#[test]
fn a_terminal_gets_colour_unless_no_color_says_otherwise() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: no `script` (util-linux) to make a pty");
        return;
    }
    let world = World::new();
    let bin = baton_tests::baton_bin().display().to_string();
    let on_a_terminal = |extra_env: &[(&str, &str)], flags: &str| {
        let mut command = Command::new("script");
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("BATON_DIR", world.dir())
            .env("BATON_NOW", T1)
            .env("TZ", "UTC")
            .env("TERM", "xterm");
        for (k, v) in extra_env {
            command.env(k, v);
        }
        let out = command
            .args(["-qec", &format!("{bin} {flags} list"), "/dev/null"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let coloured = on_a_terminal(&[], "");
    assert!(coloured.contains("\x1b[32m[ok]\x1b[0m"), "{coloured:?}");
    assert!(coloured.contains("\x1b[33mpaused\x1b[0m"), "{coloured:?}");
    for plain in [
        on_a_terminal(&[("NO_COLOR", "1")], ""),
        on_a_terminal(&[], "--color never"),
    ] {
        assert!(plain.contains("[ok] 2 live work sessions"), "{plain:?}");
        assert!(!plain.contains('\x1b'), "{plain:?}");
    }
    let piped = baton(&world.dir())
        .env("BATON_NOW", T1)
        .arg("list")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&piped.stdout).contains('\x1b'));
}
