//! Redaction before sharing, end to end: a Claude Code session with planted secrets, paths,
//! e-mail addresses, phone numbers, hosts and IP addresses is shown with `--redact share`: none
//! survives in the Markdown or the JSON, the placeholders are the same throughout, the preview
//! lists exactly what is replaced (and writes nothing else), and a listed word is masked.

use baton_tests::{assert_success, baton, json_of};

const SESSION: &str = "5a7e0000-0000-4000-8000-000000000001";

#[test]
fn a_shared_session_leaves_out_what_the_profile_says_and_the_preview_lists_it() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-ana-work-app");
    std::fs::create_dir_all(&folder).unwrap();
    let said = "Mail ana.lopez@example.com or call +44 20 7946 0958; the runner build01.corp \
                (10.20.30.40) reads /home/ana/work/app with DATABASE_URL=postgres://db \
                and key AKIAIOSFODNN7EXAMPLE, for Project Zephyr. Again: ana.lopez@example.com";
    let lines = [
        serde_json::json!({"type":"user","sessionId":SESSION,"uuid":"u1","parentUuid":null,
            "cwd":"/home/ana/work/app","timestamp":"2026-12-01T10:00:00Z",
            "message":{"role":"user","content":said}}),
        serde_json::json!({"type":"assistant","sessionId":SESSION,"uuid":"a1","parentUuid":"u1",
            "cwd":"/home/ana/work/app","timestamp":"2026-12-01T10:00:05Z","requestId":"r1",
            "message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5-20250929",
                "content":[{"type":"text","text":"Noted, ana.lopez@example.com: see http://10.0.0.5:8080/jobs"}],
                "usage":{"input_tokens":1,"output_tokens":1}}}),
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
    let index_arg = format!("--index={}", index.display());
    let show = |more: &[&str]| {
        let out = baton(&ledger)
            .args([
                "transcripts",
                "show",
                SESSION,
                &index_arg,
                "--redact",
                "share",
            ])
            .args(more)
            .output()
            .unwrap();
        assert_success(&out, format_args!("show {more:?}"));
        out
    };
    let planted = [
        "ana.lopez@example.com",
        "7946 0958",
        "build01.corp",
        "10.20.30.40",
        "/home/ana",
        "postgres://db",
        "AKIAIOSFODNN7EXAMPLE",
        "Zephyr",
        "10.0.0.5",
    ];
    let markdown = String::from_utf8(show(&[]).stdout).unwrap();
    let json = String::from_utf8(show(&["--json"]).stdout).unwrap();
    for value in planted {
        assert!(
            !markdown.contains(value),
            "{value} in the Markdown:\n{markdown}"
        );
        assert!(!json.contains(value), "{value} in the JSON:\n{json}");
    }
    // The address is in the title, the question and the answer: one placeholder throughout.
    let emails = markdown.matches("<email-1>").count();
    assert_eq!(emails, 4, "{markdown}");
    assert!(!markdown.contains("<email-2>"));
    assert!(markdown.contains("Project <word-1>"), "{markdown}");
    // The preview: exactly what is replaced, how often, and nothing of the conversation.
    let preview = json_of(&show(&["--preview", "--json"]));
    let listed: Vec<(String, String, u64)> = preview["replacements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_owned(),
                r["value"].as_str().unwrap().to_owned(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect();
    // Each value once, counted as often as the Markdown holds it (the title repeats some).
    for (kind, value, count) in [
        ("email", "ana.lopez@example.com", emails as u64),
        ("phone", "+44 20 7946 0958", 2),
        ("ip", "10.20.30.40", 1),
        ("url", "http://10.0.0.5:8080/jobs", 1),
        ("host", "build01.corp", 2),
        ("user", "ana", 2),
        ("env", "postgres://db", 1),
        ("word", "Zephyr", 1),
    ] {
        assert!(
            listed
                .iter()
                .any(|(k, v, c)| k == kind && v == value && *c == count),
            "{kind} {value} ×{count} in {listed:?}"
        );
    }
    // The key was masked when the transcript was kept: nothing of it is left to replace.
    assert_eq!(listed.len(), 8, "{listed:?}");
    assert!(listed.iter().any(|(k, _, _)| k == "user"), "{listed:?}");
    let human = String::from_utf8(show(&["--preview"]).stdout).unwrap();
    assert!(human.contains("nothing was written"), "{human}");
    assert!(
        !human.contains("Noted"),
        "the preview shows no conversation"
    );
}
