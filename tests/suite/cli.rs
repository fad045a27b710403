//! The `baton` CLI contract, end to end through the real binary: output shape, exit statuses,
//! environment defaults, ledger discovery, and bad input that writes nothing.

use baton_tests::{assert_success, baton, baton_bin, json_of, redact_ids};
use std::path::Path;
use std::process::{Command, Output};

/// Runs `baton` at `now`, in `--json` mode (the contract's shapes) unless `args` already say.
fn at(dir: &Path, now: &str, args: &[&str]) -> Output {
    let mut command = baton(dir);
    command.env("BATON_NOW", now);
    if !args.contains(&"--json") {
        command.arg("--json");
    }
    command.args(args).output().unwrap()
}

fn transcript(output: &Output) -> String {
    format!(
        "exit: {:?}\n{}",
        output.status.code(),
        redact_temporary_folders(&redact_ids(&String::from_utf8_lossy(&output.stdout)))
    )
}

/// `text` with each temporary folder a test made (`<temp>/.tmpXXXXXX`, as a note's file
/// names it) written `<TMP>`.
fn redact_temporary_folders(text: &str) -> String {
    let prefix = format!(
        "{}/.tmp",
        std::env::temp_dir()
            .display()
            .to_string()
            .trim_end_matches('/')
    );
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at]);
        out.push_str("<TMP>");
        let after = &rest[at + prefix.len()..];
        let name_end = after
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(after.len());
        rest = &after[name_end..];
    }
    out.push_str(rest);
    out
}

const T0: &str = "2026-07-18T20:00:00.000Z";
const T1: &str = "2026-07-18T21:30:00.000Z";

#[test]
fn a_day_of_work_sessions_reads_as_the_contract_says() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let claude = at(
        &dir,
        T0,
        &[
            "start",
            "--project",
            "demo",
            "--agent",
            "Claude",
            "--client",
            "claude-code",
            "--goal",
            "Implement the search feature",
        ],
    );
    insta::assert_snapshot!("start", transcript(&claude));
    let claude_id = json_of(&claude)["session_id"].as_str().unwrap().to_owned();
    let codex = at(
        &dir,
        T0,
        &[
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--parent",
            &claude_id,
        ],
    );
    assert_eq!(json_of(&codex)["parent_session_id"], claude_id.as_str());

    let ambiguous = at(&dir, T1, &["end", "--project", "demo"]);
    insta::assert_snapshot!("end_ambiguous", transcript(&ambiguous));

    let ended = at(
        &dir,
        T1,
        &[
            "end",
            "--project",
            "demo",
            "--agent",
            "claude",
            "--summary",
            "Implemented and tested.",
        ],
    );
    insta::assert_snapshot!("end_by_agent", transcript(&ended));
    assert_eq!(json_of(&ended)["duration_seconds"], 5400);

    let again = at(&dir, T1, &["end", &claude_id]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(json_of(&again)["error"]["code"], "SESSION_ALREADY_CLOSED");

    let show = at(&dir, T1, &["--json", "show", &claude_id]);
    insta::assert_snapshot!("show_json", transcript(&show));

    let list = at(&dir, T1, &["list", "--all"]);
    insta::assert_snapshot!("list_all", transcript(&list));
}

#[test]
fn json_mode_prints_exactly_one_object() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    for args in [
        vec!["--json", "start", "--project", "p", "--agent", "a"],
        vec!["--json", "list"],
        vec!["--json", "show", "nope"],
        vec!["--json", "end"],
        vec!["--json", "doctor"],
        vec!["--json", "compact"],
    ] {
        let out = at(&dir, T0, &args);
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "{args:?}: {stdout}");
        let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert!(value.is_object());
    }
}

#[test]
fn bad_input_exits_1_with_the_code_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let long_goal = "g".repeat(4100);
    let long_name = "n".repeat(129);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["show", "not-an-id"], "INVALID_ARGUMENT"),
        (
            vec!["show", "019c0000-0000-7000-8000-00000000abcd"],
            "SESSION_NOT_FOUND",
        ),
        (
            vec!["end", "019c0000-0000-7000-8000-00000000abcd"],
            "SESSION_NOT_FOUND",
        ),
        (
            vec!["resume", "9f1c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", "a/b", "--agent", "x"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", "a\\b", "--agent", "x"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", "..", "--agent", "x"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", "p", "--agent", "a\tb"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", "", "--agent", "x"],
            "INVALID_ARGUMENT",
        ),
        (
            vec!["start", "--project", &long_name, "--agent", "x"],
            "INVALID_ARGUMENT",
        ),
        (vec!["start", "--project", "p"], "INVALID_ARGUMENT"),
        (
            vec![
                "start",
                "--project",
                "p",
                "--agent",
                "a",
                "--goal",
                &long_goal,
            ],
            "EVENT_TOO_LARGE",
        ),
        (
            vec![
                "start",
                "--project",
                "p",
                "--agent",
                "a",
                "--parent",
                "019c0000-0000-7000-8000-00000000abcd",
            ],
            "SESSION_NOT_FOUND",
        ),
        (vec!["end"], "NO_ACTIVE_SESSION"),
    ];
    for (args, code) in cases {
        let out = at(&dir, T0, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let json = json_of(&out);
        assert_eq!(json["error"]["code"], code, "{args:?}: {json}");
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert!(json["error"]["details"].is_object());
        // Without --json: the error line on stderr, nothing on stdout.
        let plain = baton(&dir)
            .env("BATON_NOW", T0)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(plain.status.code(), Some(1), "{args:?}");
        assert!(plain.stdout.is_empty(), "{args:?}: {:?}", plain.stdout);
        let human = String::from_utf8_lossy(&plain.stderr);
        assert!(human.starts_with(&format!("[error] {code}: ")), "{human}");
        assert!(!dir.exists(), "{args:?} wrote to the ledger");
    }
    let too_large = at(
        &dir,
        T0,
        &[
            "--json",
            "start",
            "--project",
            "p",
            "--agent",
            "a",
            "--goal",
            &long_goal,
        ],
    );
    assert_eq!(json_of(&too_large)["error"]["details"]["limit"], 4000);
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        vec!["bogus"],
        vec!["start", "--nope"],
        vec!["end", "--status", "maybe"],
        vec![],
    ] {
        let out = baton(tmp.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let help = baton(tmp.path()).arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Examples:"));
}

#[test]
fn agent_and_client_default_from_the_environment() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let started = baton(&dir)
        .env("BATON_AGENT", "Claude ")
        .env("BATON_CLIENT", "claude-code")
        .args(["--json", "start", "--project", "demo"])
        .output()
        .unwrap();
    let json = json_of(&started);
    assert_eq!(json["agent"], "claude");
    assert_eq!(json["client_name"], "claude-code");
    // Another client's session on the same project does not confuse the implicit end.
    baton(&dir)
        .args([
            "start",
            "--project",
            "demo",
            "--agent",
            "claude",
            "--client",
            "cursor",
        ])
        .output()
        .unwrap();
    let ended = baton(&dir)
        .env("BATON_AGENT", "claude")
        .env("BATON_CLIENT", "claude-code")
        .args(["--json", "end", "--project", "demo"])
        .output()
        .unwrap();
    assert!(ended.status.success(), "{}", json_of(&ended));
    assert_eq!(json_of(&ended)["session_id"], json["session_id"]);
}

#[test]
fn the_ledger_is_found_by_walking_up_and_created_where_you_stand() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("repo");
    let deep = project.join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let run = |cwd: &Path, args: &[&str]| {
        std::process::Command::new(baton_bin())
            .env_clear()
            .env("BATON_FSYNC", "0")
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(
        &project,
        &["--json", "start", "--project", "p", "--agent", "a"],
    );
    assert!(out.status.success());
    assert!(project.join(".baton/events.ndjson").exists());
    let list = run(&deep, &["--json", "list"]);
    assert_eq!(json_of(&list)["total"], 1, "found from a subdirectory");
    assert!(!deep.join(".baton").exists());
}

#[test]
fn a_damaged_checkpoint_is_rebuilt_not_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let mut ids = Vec::new();
    for i in 0..30 {
        let out = at(
            &dir,
            T0,
            &[
                "--json",
                "start",
                "--project",
                "p",
                "--agent",
                &format!("a{i}"),
            ],
        );
        ids.push(json_of(&out)["session_id"].as_str().unwrap().to_owned());
    }
    let doctor = json_of(&at(&dir, T0, &["--json", "doctor"]));
    assert!(
        doctor["checkpoint"].as_str().unwrap().starts_with("valid"),
        "{doctor}"
    );
    let cp = dir.join("checkpoint.ndjson");
    let mut bytes = std::fs::read(&cp).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0x55;
    std::fs::write(&cp, bytes).unwrap();
    let doctor = json_of(&at(&dir, T0, &["--json", "doctor"]));
    assert!(
        doctor["checkpoint"].as_str().unwrap().contains("damaged"),
        "{doctor}"
    );
    assert_eq!(doctor["sessions"]["live"], 30);
    // Every session is still found, and the checkpoint is valid again afterwards.
    for id in &ids {
        assert!(at(&dir, T0, &["show", id]).status.success());
    }
    let doctor = json_of(&at(&dir, T0, &["--json", "doctor"]));
    assert!(
        doctor["checkpoint"].as_str().unwrap().starts_with("valid"),
        "{doctor}"
    );
}

#[test]
fn a_terminal_gets_human_text_only_in_colour_unless_no_color() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    // `script` gives the command a terminal, as a person's shell does.
    let on_terminal = |no_color: bool| {
        let mut command = Command::new("script");
        command
            .args([
                "-qc",
                &format!(
                    "{} start --project demo --agent claude",
                    baton_bin().display()
                ),
            ])
            .arg("/dev/null")
            .env("BATON_DIR", &dir)
            .env("BATON_FSYNC", "0");
        if no_color {
            command.env("NO_COLOR", "1");
        } else {
            command.env_remove("NO_COLOR");
        }
        String::from_utf8_lossy(&command.output().unwrap().stdout).into_owned()
    };
    let coloured = on_terminal(false);
    assert!(coloured.contains("\u{1b}[32m[ok]\u{1b}[0m"), "{coloured:?}");
    assert!(
        !coloured.contains("{\""),
        "no JSON on a terminal: {coloured}"
    );
    let plain = on_terminal(true);
    assert!(
        plain.starts_with("[ok]") && !plain.contains('\u{1b}'),
        "{plain:?}"
    );
    // Piped, without --json: the same text, no colour, no JSON.
    let piped = baton(&dir).args(["list"]).output().unwrap();
    let text = String::from_utf8_lossy(&piped.stdout);
    assert!(
        text.starts_with("[ok]") && !text.contains('\u{1b}') && !text.contains("{\""),
        "{text}"
    );
}

#[test]
fn sessions_are_named_as_people_type_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let start = |agent: &str| {
        let out = at(&dir, T0, &["start", "--project", "demo", "--agent", agent]);
        json_of(&out)["session_id"].as_str().unwrap().to_owned()
    };
    let (first, second) = (start("claude"), start("codex"));
    let shown = |reference: &str| json_of(&at(&dir, T1, &["show", reference]));
    let path = shown(&first)["session"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    // The short form Baton prints (the last 8 hex digits), a longer prefix, the path.
    for reference in [
        first[first.len() - 8..].to_owned(),
        first[..23].to_owned(),
        path.clone(),
    ] {
        assert_eq!(
            shown(&reference)["session"]["session_id"],
            first,
            "{reference}"
        );
    }
    // Both start with the same time-based digits: ambiguous, with both as candidates.
    let ambiguous = shown(&first[..8]);
    assert_eq!(
        ambiguous["error"]["code"], "AMBIGUOUS_SESSION",
        "{ambiguous}"
    );
    let candidates: Vec<&str> = ambiguous["error"]["details"]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["session_id"].as_str().unwrap())
        .collect();
    assert!(candidates.contains(&first.as_str()) && candidates.contains(&second.as_str()));
    // Unknown and malformed references.
    assert_eq!(shown("abcdef12")["error"]["code"], "SESSION_NOT_FOUND");
    assert_eq!(shown("abc")["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(shown("not-an-id")["error"]["code"], "INVALID_ARGUMENT");
    // Any command that takes a session: end by its short form.
    let ended = json_of(&at(&dir, T1, &["end", &second[second.len() - 8..]]));
    assert_eq!(ended["session_id"], second, "{ended}");
}

#[test]
fn usage_errors_under_json_are_one_json_object_too() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    for args in [
        vec!["--json", "start", "--bogus"],
        vec!["--json", "shw"],
        vec!["--json", "end", "--status", "maybe"],
    ] {
        let out = baton(&dir).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "{args:?}: {stdout}");
        let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(json["error"]["code"], "INVALID_ARGUMENT", "{args:?}");
        assert!(
            !json["error"]["message"].as_str().unwrap().is_empty(),
            "{args:?}"
        );
    }
    // Without --json, clap's own text on stderr, as before.
    let out = baton(&dir).args(["start", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Usage:"));
}

#[test]
fn a_filter_that_leaves_nothing_shows_the_live_sessions_it_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let started = at(
        &dir,
        T0,
        &["start", "--project", "demo", "--agent", "claude"],
    );
    let id = json_of(&started)["session_id"].as_str().unwrap().to_owned();
    let refused = at(&dir, T1, &["end", "--project", "demo", "--agent", "codex"]);
    let json = json_of(&refused);
    assert_eq!(json["error"]["code"], "NO_ACTIVE_SESSION");
    assert_eq!(
        json["error"]["details"]["other_live_sessions"][0]["session_id"],
        id
    );
    let human = baton(&dir)
        .args(["end", "--project", "demo", "--agent", "codex"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stderr);
    assert!(
        text.contains(&id[id.len() - 8..]) && text.contains("claude"),
        "{text}"
    );
}

#[test]
fn demo_under_json_prints_one_object_and_narrates_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let out = baton(&tmp.path().join(".baton"))
        .env("TMPDIR", tmp.path())
        .args(["--json", "demo", "--port", "0", "--serve-seconds", "1"])
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(json["ledger"].as_str().unwrap().ends_with(".baton"));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("[ok]"),
        "the narration"
    );
}

/// The CLI run from a coding agent's shell is that agent: it starts sessions under the agent's
/// name, is recorded as the agent, and is refused what only a person may do.
#[test]
fn the_cli_inside_an_agent_is_that_agent() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let as_agent = |args: &[&str]| {
        let mut command = baton(&dir);
        command
            .env("BATON_NOW", T1)
            .env("CLAUDECODE", "1")
            .arg("--json");
        command.args(args).output().unwrap()
    };
    let started = json_of(&as_agent(&["start", "--project", "demo"]));
    assert_eq!(started["agent"], "claude-code", "{started}");
    assert_eq!(started["client_name"], "claude-code");
    let id = started["session_id"].as_str().unwrap().to_owned();

    let paused = at(&dir, T1, &["pause", &id, "--reason", "look at this"]);
    assert!(paused.status.success(), "a person at a terminal may pause");
    let refused = as_agent(&["unpause", &id]);
    assert_eq!(refused.status.code(), Some(1));
    let body = json_of(&refused);
    assert_eq!(body["error"]["code"], "ACTOR_NOT_ALLOWED", "{body}");
    assert_eq!(body["error"]["details"]["actor"], "claude-code");

    // Any harness can say which agent it is; the person's own terminal says nothing.
    let mut command = baton(&dir);
    command.env("BATON_NOW", T1).env("BATON_AGENT", "CI-Runner");
    let refused = command.args(["--json", "unpause", &id]).output().unwrap();
    assert_eq!(json_of(&refused)["error"]["details"]["actor"], "ci-runner");
    let unpaused = at(&dir, T1, &["unpause", &id]);
    assert!(unpaused.status.success());

    let timeline = json_of(&at(&dir, T1, &["timeline", &id]));
    let actors: Vec<(String, String)> = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_owned(),
                format!(
                    "{} {}",
                    e["actor"].as_str().unwrap(),
                    e["actor_name"].as_str().unwrap()
                ),
            )
        })
        .collect();
    assert_eq!(
        actors[0],
        ("started".to_owned(), "agent claude-code".to_owned())
    );
    assert!(
        actors
            .iter()
            .any(|(k, a)| k == "paused" && a.starts_with("human ")),
        "{actors:?}"
    );
    assert!(
        actors
            .iter()
            .any(|(k, a)| k == "unpaused" && a.starts_with("human ")),
        "{actors:?}"
    );
}

/// One failure policy for `config.toml`: a file that is not TOML refuses a ledger command and
/// a mirror command alike, naming the file, and writes nothing.
#[test]
fn a_config_that_is_not_toml_refuses_every_command_that_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.toml"), "[mirror\npoll_secs = 3\n").unwrap();
    let projects = tmp.path().join("projects");
    std::fs::create_dir_all(&projects).unwrap();
    for args in [
        vec!["--json", "list"],
        vec!["--json", "start", "--project", "p", "--agent", "codex"],
        vec![
            "--json",
            "mirror",
            "--claude-dir",
            projects.to_str().unwrap(),
        ],
    ] {
        let out = baton(&dir).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let json = json_of(&out);
        assert_eq!(
            json["error"]["code"], "INVALID_ARGUMENT",
            "{args:?}: {json}"
        );
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("config.toml")),
            "{args:?}: {json}"
        );
    }
    assert!(!dir.join("events.ndjson").exists(), "nothing was written");
}
