//! `baton share` end to end: a Claude Code session with planted secrets, paths, e-mail
//! addresses, phone numbers, hosts and IP addresses, shared as HTML, Markdown and JSON under
//! the default profile: none of them survives in any form, the placeholders are the same
//! throughout, the preview lists exactly what is replaced and writes nothing, a listed word is
//! masked and a kept one is not; a locked file holds none of the content; a file that exists
//! is not overwritten. (The files in a browser: `www/tests/share.test.mjs`.)

use baton_tests::{assert_success, baton, json_of};
use std::path::{Path, PathBuf};

const SESSION: &str = "5a7e0000-0000-4000-8000-0000000000aa";

const PLANTED: &[&str] = &[
    "ana.lopez@example.com",
    "7946 0958",
    "build01.corp",
    "10.20.30.40",
    "/home/ana",
    "-home-ana-",
    "postgres://db",
    "AKIAIOSFODNN7EXAMPLE",
    "Zephyr",
    "10.0.0.5",
];

struct Setup {
    _tmp: tempfile::TempDir,
    ledger: PathBuf,
    index: PathBuf,
    out: PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-ana-work-app");
    std::fs::create_dir_all(&folder).unwrap();
    let said = "Mail ana.lopez@example.com or call +44 20 7946 0958; the runner build01.corp \
                (10.20.30.40) reads /home/ana/work/app with DATABASE_URL=postgres://db \
                and key AKIAIOSFODNN7EXAMPLE, for Project Zephyr on staging.corp.";
    let lines = [
        serde_json::json!({"type":"user","sessionId":SESSION,"uuid":"u1","parentUuid":null,
            "cwd":"/home/ana/work/app","timestamp":"2026-12-01T10:00:00Z",
            "message":{"role":"user","content":said}}),
        serde_json::json!({"type":"assistant","sessionId":SESSION,"uuid":"a1","parentUuid":"u1",
            "cwd":"/home/ana/work/app","timestamp":"2026-12-01T10:00:05Z","requestId":"r1",
            "message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5-20250929",
                "content":[{"type":"text","text":"Noted, ana.lopez@example.com: see http://10.0.0.5:8080/jobs"},
                    {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat /home/ana/.claude/projects/-home-ana-work-app/x.jsonl"}}],
                "usage":{"input_tokens":1,"output_tokens":1}}}),
        serde_json::json!({"type":"user","sessionId":SESSION,"uuid":"u2","parentUuid":"a1",
            "cwd":"/home/ana/work/app","timestamp":"2026-12-01T10:00:06Z",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1",
                "content":"ssh build01.corp ok"}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(folder.join(format!("{SESSION}.jsonl")), text).unwrap();
    let ledger = tmp.path().join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    std::fs::write(
        ledger.join("config.toml"),
        "[share]\nredact = [\"zephyr\"]\n",
    )
    .unwrap();
    let index = tmp.path().join("index.sqlite");
    let mirrored = baton(&ledger)
        .arg("mirror")
        .arg("--claude-dir")
        .arg(tmp.path().join("projects"))
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let out = tmp.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    Setup {
        ledger,
        index,
        out,
        _tmp: tmp,
    }
}

fn share(s: &Setup, more: &[&str]) -> std::process::Output {
    baton(&s.ledger)
        .current_dir(&s.out)
        .args(["share", SESSION])
        .arg(format!("--index={}", s.index.display()))
        .args(more)
        .output()
        .unwrap()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn html_markdown_and_json_leave_out_every_planted_value_with_stable_placeholders() {
    let s = setup();
    for (format, file) in [("html", "s.html"), ("markdown", "s.md"), ("json", "s.json")] {
        let out = share(&s, &["--format", format, "-o", file, "--json"]);
        assert_success(&out, format_args!("share --format {format}"));
        let answer = json_of(&out);
        assert_eq!(answer["format"], format);
        assert_eq!(answer["messages"], 3);
        let text = read(&s.out.join(file));
        for value in PLANTED {
            assert!(!text.contains(value), "{value} in the {format}:\n{text}");
        }
        // One address, one placeholder: in the title, the question and the answer.
        let email = if format == "html" {
            "&lt;email-1&gt;"
        } else {
            "<email-1>"
        };
        assert!(text.matches(email).count() >= 3, "{format}:\n{text}");
        assert!(!text.contains("email-2"), "{format}:\n{text}");
        assert!(text.contains("word-1"), "the listed word is masked: {text}");
    }
    // The JSON is the share as data.
    let json: serde_json::Value = serde_json::from_str(&read(&s.out.join("s.json"))).unwrap();
    assert_eq!(json["share"]["kind"], "Conversation");
    assert_eq!(json["redaction"]["profile"], "share");
}

#[test]
fn the_preview_lists_exactly_what_is_replaced_and_writes_nothing() {
    let s = setup();
    let out = share(&s, &["--preview", "--json"]);
    assert_success(&out, format_args!("share --preview"));
    assert_eq!(
        std::fs::read_dir(&s.out).unwrap().count(),
        0,
        "nothing written"
    );
    let preview = json_of(&out);
    let mut values: Vec<(String, String)> = preview["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["value"].as_str().unwrap().to_owned(),
            )
        })
        .filter(|(kind, _)| kind != "secret")
        .collect();
    values.sort();
    let mut expected: Vec<(String, String)> = [
        ("email", "ana.lopez@example.com"),
        ("env", "postgres://db"),
        ("host", "build01.corp"),
        ("host", "staging.corp"),
        ("ip", "10.20.30.40"),
        ("phone", "+44 20 7946 0958"),
        ("url", "http://10.0.0.5:8080/jobs"),
        ("user", "ana"),
        ("word", "Zephyr"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    expected.sort();
    assert_eq!(values, expected);
    // A value kept as a false positive is left as it is, and leaves the preview.
    let previewed = share(&s, &["--preview", "--json", "--keep", "staging.corp"]);
    let listed: Vec<String> = json_of(&previewed)["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["value"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        !listed.iter().any(|v| v == "staging.corp") && listed.iter().any(|v| v == "build01.corp"),
        "{listed:?}"
    );
    let kept = share(&s, &["--keep", "staging.corp", "-o", "kept.md"]);
    assert_success(&kept, format_args!("share --keep"));
    let text = read(&s.out.join("kept.md"));
    assert!(
        text.contains("staging.corp") && !text.contains("build01.corp"),
        "{text}"
    );
}

#[test]
fn a_locked_file_holds_none_of_the_content_and_only_html_can_be_locked() {
    let s = setup();
    let password = s.out.join("../password.txt");
    std::fs::write(&password, "correct horse battery\n").unwrap();
    let out = share(
        &s,
        &[
            "--password-file",
            password.to_str().unwrap(),
            "--redact",
            "none",
            "-o",
            "locked.html",
        ],
    );
    assert_success(&out, format_args!("share --password-file"));
    let text = read(&s.out.join("locked.html"));
    for planted in ["Mail", "Noted", "Bash", "ana.lopez@example.com", SESSION] {
        assert!(!text.contains(planted), "{planted} in the locked file");
    }
    assert!(text.contains("data-iterations=\"600000\""));
    let refused = share(
        &s,
        &[
            "--password-file",
            password.to_str().unwrap(),
            "--format",
            "markdown",
        ],
    );
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("only an HTML share"), "{stderr}");
}

#[test]
fn an_existing_file_is_not_overwritten_without_force() {
    let s = setup();
    let first = share(&s, &[]);
    assert_success(&first, format_args!("share"));
    // Named after the (redacted) title, in the current folder.
    let made: Vec<String> = std::fs::read_dir(&s.out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(
        made[0].starts_with("mail-email-1-or-call-phone-1") && made[0].ends_with(".html"),
        "{made:?}"
    );
    let path = s.out.join(&made[0]);
    std::fs::write(&path, "mine").unwrap();
    let again = share(&s, &[]);
    assert!(!again.status.success());
    assert_eq!(read(&path), "mine");
    let forced = share(&s, &["--force"]);
    assert_success(&forced, format_args!("share --force"));
    assert!(read(&path).starts_with("<!doctype html>"));
}
