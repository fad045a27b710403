//! Sessions the agents deleted, put back from the mirror: a real Claude Code session and a real
//! Codex rollout are mirrored, deleted, and restored byte for byte where the agents look for
//! them, with the command that resumes each; a file that is there is never replaced unless
//! forced (and then kept beside); a line masked when kept is named and nothing is written
//! unless the person allows it.

use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

const CLAUDE_ID: &str = "55604662-cf2a-4331-851a-ec234028f8ca";
const CODEX_ID: &str = "019b64e5-57fa-7463-b644-fba7e456f905";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
    )
    .unwrap()
}

struct Kept {
    _tmp: tempfile::TempDir,
    ledger: PathBuf,
    index: String,
    claude: PathBuf,
    codex: PathBuf,
}

/// The two sessions where their agents keep them, mirrored.
fn kept(extra_claude_line: Option<&str>) -> Kept {
    let tmp = tempfile::tempdir().unwrap();
    let claude = tmp.path().join(format!(
        "projects/-home-marco-projects-spotter/{CLAUDE_ID}.jsonl"
    ));
    let codex = tmp.path().join(format!(
        "sessions/2025/12/28/rollout-2025-12-28T12-18-30-{CODEX_ID}.jsonl"
    ));
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    let mut bytes = fixture("claude-code/spotter-v2.1.38-short.jsonl");
    if let Some(line) = extra_claude_line {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    std::fs::write(&claude, bytes).unwrap();
    std::fs::write(
        &codex,
        fixture("codex/simonw-claude-code-transcripts-sample_codex_session-v0.77.0.jsonl"),
    )
    .unwrap();
    let ledger = tmp.path().join(".baton");
    let index = format!("--index={}", tmp.path().join("index.sqlite").display());
    let mirrored = baton(&ledger)
        .arg("mirror")
        .arg("--claude-dir")
        .arg(tmp.path().join("projects"))
        .arg("--codex-dir")
        .arg(tmp.path().join("sessions"))
        .arg("--index")
        .arg(tmp.path().join("index.sqlite"))
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    Kept {
        _tmp: tmp,
        ledger,
        index,
        claude,
        codex,
    }
}

impl Kept {
    /// What `transcripts show` says of resuming `id`.
    fn resume(&self, id: &str) -> Value {
        let out = baton(&self.ledger)
            .args(["--json", "transcripts", "show", id, &self.index])
            .output()
            .unwrap();
        assert_success(&out, format_args!("show {id}"));
        json_of(&out)["resume"].clone()
    }

    fn restore(&self, id: &str, more: &[&str]) -> (i32, Value) {
        let out = baton(&self.ledger)
            .args(["--json", "transcripts", "restore", id, &self.index])
            .args(more)
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), json_of(&out))
    }
}

/// What Claude Code's `--resume` needs of a session file: every line JSON, and the chain of
/// `parentUuid` links from the last message back to the root whole. The chain's length.
fn claude_resumes(bytes: &[u8]) -> usize {
    let mut parents = std::collections::HashMap::new();
    let mut last = None;
    for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let value: Value = serde_json::from_slice(line).expect("every line is JSON");
        if let Some(uuid) = value["uuid"].as_str() {
            parents.insert(
                uuid.to_owned(),
                value["parentUuid"].as_str().map(str::to_owned),
            );
            last = Some(uuid.to_owned());
        }
    }
    let (mut at, mut steps) = (last.expect("a message"), 1);
    while let Some(parent) = parents[&at].clone() {
        assert!(
            parents.contains_key(&parent),
            "the chain breaks at {parent}"
        );
        at = parent;
        steps += 1;
        assert!(steps <= parents.len(), "the chain loops");
    }
    steps
}

/// What `codex resume` needs of a rollout: every line a `{timestamp, type, payload}` record,
/// the first its session's meta with the thread's id.
fn codex_resumes(bytes: &[u8]) {
    let lines: Vec<Value> = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("every line is JSON"))
        .collect();
    for line in &lines {
        assert!(
            line["timestamp"].is_string() && line["type"].is_string(),
            "{line}"
        );
    }
    assert_eq!(lines[0]["type"], "session_meta");
    assert_eq!(lines[0]["payload"]["id"], CODEX_ID);
}

#[test]
fn deleted_sessions_come_back_byte_for_byte_where_the_agents_look() {
    let kept = kept(None);
    let originals = [
        std::fs::read(&kept.claude).unwrap(),
        std::fs::read(&kept.codex).unwrap(),
    ];
    assert_eq!(
        kept.resume(CODEX_ID)["command"],
        format!("codex resume {CODEX_ID}")
    );
    std::fs::remove_file(&kept.claude).unwrap();
    std::fs::remove_file(&kept.codex).unwrap();
    // Gone: `show` says to restore it first.
    let gone = kept.resume(CLAUDE_ID);
    assert!(gone["command"].is_null(), "{gone}");
    assert!(
        gone["why_not"]
            .as_str()
            .unwrap()
            .contains(&format!("baton transcripts restore {CLAUDE_ID}")),
        "{gone}"
    );
    let (status, claude) = kept.restore(&CLAUDE_ID[..8], &[]);
    assert_eq!(status, 0, "{claude}");
    assert_eq!(std::fs::read(&kept.claude).unwrap(), originals[0]);
    assert_eq!(
        claude["resume"],
        format!("cd /home/marco/projects/spotter && claude --resume {CLAUDE_ID}")
    );
    assert!(claude["masked"].as_array().unwrap().is_empty(), "{claude}");
    // The session's folder is another machine's (the fixture's): `show` says so rather than
    // give a `cd` that would fail here.
    let elsewhere = kept.resume(CLAUDE_ID);
    assert!(elsewhere["command"].is_null(), "{elsewhere}");
    assert!(
        elsewhere["why_not"]
            .as_str()
            .unwrap()
            .contains("/home/marco/projects/spotter is not on this machine"),
        "{elsewhere}"
    );
    assert!(claude_resumes(&std::fs::read(&kept.claude).unwrap()) > 1);
    let (status, codex) = kept.restore(CODEX_ID, &[]);
    assert_eq!(status, 0, "{codex}");
    assert_eq!(std::fs::read(&kept.codex).unwrap(), originals[1]);
    codex_resumes(&std::fs::read(&kept.codex).unwrap());
    assert_eq!(codex["resume"], format!("codex resume {CODEX_ID}"));

    // There now: not replaced, and said how to.
    std::fs::write(&kept.codex, b"changed since\n").unwrap();
    let (status, refused) = kept.restore(CODEX_ID, &[]);
    assert_eq!(status, 1);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--force"),
        "{refused}"
    );
    assert_eq!(std::fs::read(&kept.codex).unwrap(), b"changed since\n");
    // Forced: the kept one written, the one that was there kept beside.
    let (status, forced) = kept.restore(CODEX_ID, &["--force"]);
    assert_eq!(status, 0, "{forced}");
    assert_eq!(std::fs::read(&kept.codex).unwrap(), originals[1]);
    let beside = format!("{}.before-restore", kept.codex.display());
    assert_eq!(std::fs::read(&beside).unwrap(), b"changed since\n");
    assert_eq!(forced["files"][0]["kept_old"], beside);
}

#[test]
fn a_line_masked_when_kept_is_named_and_written_only_when_allowed() {
    let secret = format!(
        r#"{{"type":"user","sessionId":"{CLAUDE_ID}","uuid":"u-secret","parentUuid":null,"timestamp":"2026-02-10T22:00:00Z","message":{{"role":"user","content":"the key is AKIAIOSFODNN7EXAMPLE"}}}}"#
    );
    let kept = kept(Some(&secret));
    let original = std::fs::read(&kept.claude).unwrap();
    let lines = original
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    std::fs::remove_file(&kept.claude).unwrap();
    let (status, refused) = kept.restore(CLAUDE_ID, &[]);
    assert_eq!(status, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "INVALID_ARGUMENT");
    let masked = refused["error"]["details"]["masked"].as_array().unwrap();
    assert_eq!(masked.len(), 1, "{refused}");
    assert_eq!(masked[0]["line"], lines, "the last line");
    assert!(!kept.claude.exists(), "nothing written");
    let (status, written) = kept.restore(CLAUDE_ID, &["--allow-masked"]);
    assert_eq!(status, 0, "{written}");
    let restored = std::fs::read_to_string(&kept.claude).unwrap();
    assert!(restored.contains("[masked:aws_access_key]"));
    assert!(!restored.contains("AKIAIOSFODNN7EXAMPLE"));
    assert_eq!(
        restored.lines().count(),
        lines,
        "every other line as it was"
    );
}

#[test]
fn a_search_hit_says_how_to_resume_its_session_and_why_not_when_it_cannot() {
    let kept = kept(None);
    let search = |provider: &str| {
        let out = baton(&kept.ledger)
            .args([
                "--json",
                "search",
                "skills",
                "--provider",
                provider,
                &kept.index,
            ])
            .output()
            .unwrap();
        assert_success(&out, format_args!("search --provider {provider}"));
        json_of(&out)
    };
    let codex = search("codex");
    let hits = codex["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{codex}");
    for hit in hits {
        assert_eq!(hit["resume"]["command"], format!("codex resume {CODEX_ID}"));
    }
    std::fs::remove_file(&kept.codex).unwrap();
    let gone = search("codex");
    assert!(
        gone["hits"][0]["resume"]["why_not"]
            .as_str()
            .unwrap()
            .contains(&format!("baton transcripts restore {CODEX_ID}")),
        "{gone}"
    );
    // The human answer ends with it too.
    let out = baton(&kept.ledger)
        .args(["search", "skills", "--provider", "codex", &kept.index])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("to resume it:"), "{text}");
}

#[test]
fn a_work_session_shows_how_to_resume_its_agent_session() {
    let kept = kept(None);
    let sessions = kept.codex.ancestors().nth(4).unwrap();
    let mirrored = baton(&kept.ledger)
        .args(["mirror", "--codex-dir"])
        .arg(sessions)
        .arg("--index")
        .arg(baton_tests::default_index(&kept.ledger))
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror into the ledger's index"));
    let started = baton(&kept.ledger)
        .args([
            "--json",
            "start",
            "--project",
            "homelab-migration",
            "--agent",
            "codex",
        ])
        .args(["--provider-session-id", CODEX_ID])
        .output()
        .unwrap();
    assert_success(&started, format_args!("start"));
    let id = json_of(&started)["session_id"].as_str().unwrap().to_owned();
    let shown = baton(&kept.ledger)
        .args(["--json", "show", &id])
        .output()
        .unwrap();
    assert_success(&shown, format_args!("show"));
    let resume = json_of(&shown)["resume"].clone();
    assert_eq!(
        resume["command"],
        format!("codex resume {CODEX_ID}"),
        "{resume}"
    );
    assert_eq!(resume["provider_session_id"], CODEX_ID);
    let human = baton(&kept.ledger).args(["show", &id]).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains(&format!("resume         codex resume {CODEX_ID}")),
        "{text}"
    );
}

#[test]
fn a_chat_services_conversation_is_restored_as_a_file_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let chat = tmp.path().join("chat");
    std::fs::create_dir_all(&chat).unwrap();
    std::fs::write(
        chat.join("conversations.json"),
        fixture("chatgpt/ai-chat-md-export-examples-conversations.json"),
    )
    .unwrap();
    let ledger = tmp.path().join(".baton");
    let index = format!("--index={}", tmp.path().join("index.sqlite").display());
    let mirrored = baton(&ledger)
        .args(["mirror", "--chatgpt-dir"])
        .arg(&chat)
        .args([
            "--claude-dir",
            "/nonexistent",
            "--codex-dir",
            "/nonexistent",
            &index,
        ])
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let listed = baton(&ledger)
        .args(["--json", "transcripts", "list", &index])
        .output()
        .unwrap();
    let first = json_of(&listed)["conversations"][0].clone();
    let id = first["provider_id"].as_str().unwrap().to_owned();
    let restore = |more: &[&str]| {
        baton(&ledger)
            .args(["--json", "transcripts", "restore", &id, &index])
            .args(more)
            .output()
            .unwrap()
    };
    let out = restore(&[]);
    assert_success(&out, format_args!("restore"));
    let written = tmp.path().join(json_of(&out)["written"].as_str().unwrap());
    let html = std::fs::read_to_string(&written).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains(&format!("<h1>{}</h1>", first["title"].as_str().unwrap())));
    // Not replaced on a second restore, and Markdown when asked.
    assert!(!restore(&[]).status.success());
    let markdown = restore(&["--format", "markdown"]);
    assert_success(&markdown, format_args!("restore --format markdown"));
    assert!(
        json_of(&markdown)["written"]
            .as_str()
            .unwrap()
            .ends_with(".md")
    );
}
