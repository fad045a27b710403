//! A share as one HTML file: every message of the conversation in it, with the reader's
//! cards and threads; transcript text that would run or load something shown as text; the
//! file's policy allowing exactly its own style and script; a locked file holding nothing
//! of its content; and redaction reaching every string a reader sees.

use baton_core::analyzer::Analyzer;
use baton_core::share::document::{Content, SCRIPT, STYLE, document, policy};
use baton_core::share::html::{Shared, body};
use baton_core::share::redact::{Profile, Redactor};
use baton_core::share::seal::{open, seal};
use serde_json::json;

fn claude_code(lines: &[serde_json::Value]) -> Shared {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let mut analyzer = Analyzer::new();
    analyzer.add_file("s.jsonl", text.as_bytes()).unwrap();
    Shared::conversation(analyzer.view(0, None).unwrap())
}

fn line(
    uuid: &str,
    parent: Option<&str>,
    role: &str,
    content: serde_json::Value,
) -> serde_json::Value {
    json!({"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
           "cwd": "/home/ana/work/app", "timestamp": "2026-07-12T10:00:00Z",
           "message": {"role": role, "content": content}})
}

const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "<iframe src=\"https://evil.example\"></iframe>",
    "![x](https://evil.example/pixel.png)",
    "</pre></details><script>alert(2)</script>",
];

fn hostile() -> Shared {
    let mut lines = vec![line(
        "u0",
        None,
        "user",
        json!("Fix the parser; planted-word-alpha"),
    )];
    for (n, text) in HOSTILE.iter().enumerate() {
        let parent = format!("u{n}");
        lines.push(line(
            &format!("u{}", n + 1),
            Some(&parent),
            if n % 2 == 0 { "assistant" } else { "user" },
            json!([{"type": "text", "text": text}]),
        ));
    }
    let last = format!("u{}", HOSTILE.len());
    lines.push(line(
        "call",
        Some(&last),
        "assistant",
        json!([{"type": "tool_use", "id": "t1", "name": "Bash",
                "input": {"command": "echo '<script>alert(3)</script>'"}}]),
    ));
    lines.push(line(
        "result",
        Some("call"),
        "user",
        json!([{"type": "tool_result", "tool_use_id": "t1",
                "content": "<script>alert(4)</script>\nplanted-word-omega"}]),
    ));
    claude_code(&lines)
}

#[test]
fn every_message_is_in_the_file_and_hostile_text_is_only_text() {
    let shared = hostile();
    let html = body(&shared);
    assert_eq!(
        html.matches("<li class=\"message role-").count(),
        shared.messages(),
        "{html}"
    );
    assert!(html.contains("planted-word-alpha") && html.contains("planted-word-omega"));
    // Nothing from a transcript becomes an element or a link that runs or loads.
    for tag in ["<script", "<img", "<iframe", "href=\"javascript"] {
        assert!(!html.contains(tag), "{tag} in {html}");
    }
    // Every element is the renderer's own: no event handler on any of them.
    for element in html.split('<').skip(1) {
        let inside = element.split('>').next().unwrap_or_default();
        assert!(
            !inside
                .split_whitespace()
                .skip(1)
                .any(|a| a.starts_with("on")),
            "<{inside}> in {html}"
        );
    }
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // The tool call is a folded card named by its command.
    assert!(
        html.contains("<details class=\"tool tool-call\"><summary><span class=\"card-kind\">Tool</span><strong>Bash</strong><code class=\"gist\">echo &#39;&lt;script&gt;"),
        "{html}"
    );
    let file = document(
        Content::Open {
            title: &shared.title,
            html: &html,
        },
        "Shared with Baton",
    );
    // Exactly one style and one script, both the file's own.
    assert_eq!(file.matches("<script>").count(), 1);
    assert_eq!(file.matches("<style>").count(), 1);
    assert!(file.contains(STYLE) && file.contains(SCRIPT));
}

#[test]
fn the_policy_allows_exactly_the_inline_style_and_script_by_hash() {
    use base64::Engine;
    use sha2::Digest;
    let hash = |text: &str| {
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes()))
    };
    let policy = policy();
    assert!(policy.starts_with("default-src 'none';"), "{policy}");
    assert!(policy.contains(&format!("style-src 'sha256-{}'", hash(STYLE))));
    assert!(policy.contains(&format!("script-src 'sha256-{}'", hash(SCRIPT))));
    assert!(!policy.contains("unsafe"), "{policy}");
    // A browser hashes the text with LF line ends: a checkout that wrote CRLF into them would
    // block both (`.gitattributes` keeps them LF).
    assert!(!STYLE.contains('\r') && !SCRIPT.contains('\r'));
    let file = document(
        Content::Open {
            title: "t",
            html: "<p>x</p>",
        },
        "f",
    );
    // The text hashed is the text between the tags, byte for byte.
    let style = file
        .split("<style>")
        .nth(1)
        .unwrap()
        .split("</style>")
        .next()
        .unwrap();
    let script = file
        .split("<script>")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    assert_eq!((style, script), (STYLE, SCRIPT));
}

#[test]
fn a_locked_file_holds_none_of_its_content_and_the_password_opens_it() {
    let shared = hostile();
    let html = body(&shared);
    let sealed = seal(html.as_bytes(), "s3cret pass", [1; 16], [2; 12], 1_000).unwrap();
    let file = document(Content::Sealed(&sealed), "Shared with Baton");
    for planted in [
        "planted-word-alpha",
        "planted-word-omega",
        "Fix the parser",
        "Bash",
    ] {
        assert!(!file.contains(planted), "{planted} in the locked file");
    }
    assert!(file.contains("data-iterations=\"1000\""));
    assert!(file.contains("<noscript>"));
    assert_eq!(open(&sealed, "s3cret pass").unwrap(), html.as_bytes());
    assert!(open(&sealed, "s3cret pas").is_err());
}

#[test]
fn redaction_reaches_the_title_the_project_every_block_and_keeps_placeholders_stable() {
    let mut shared = claude_code(&[
        line(
            "u0",
            None,
            "user",
            json!("mail ana.lopez@example.com about build01.corp"),
        ),
        line(
            "u1",
            Some("u0"),
            "assistant",
            json!([{"type": "thinking", "thinking": "ask ana.lopez@example.com"},
                   {"type": "tool_use", "id": "t1", "name": "Bash",
                    "input": {"command": "ssh 10.20.30.40 cat /home/ana/.env"}}]),
        ),
        line(
            "u2",
            Some("u1"),
            "user",
            json!([{"type": "tool_result", "tool_use_id": "t1",
                    "content": "TOKEN_VALUE=abc123 from +44 20 7946 0958"}]),
        ),
    ]);
    let mut redactor = Redactor::new(Profile::Share, &[]).unwrap();
    shared.redact(&mut redactor);
    let html = body(&shared);
    for planted in [
        "ana.lopez@example.com",
        "build01.corp",
        "10.20.30.40",
        "/home/ana",
        "abc123",
        "7946 0958",
    ] {
        assert!(!html.contains(planted), "{planted} left in {html}");
    }
    // One address, one placeholder, in the title, the text and the thinking alike.
    assert_eq!(html.matches("&lt;email-1&gt;").count(), 3, "{html}");
    assert!(html.contains("/home/&lt;user-1&gt;"), "{html}");
    let preview = redactor.preview();
    let email = preview
        .iter()
        .find(|r| r.value == "ana.lopez@example.com")
        .unwrap();
    assert_eq!(email.count, 3);
}

#[test]
fn sub_agent_threads_are_folded_under_one_item_with_their_counts() {
    let bytes = crate::fixture("claude-code/handmade-v1.0.x-inline-subagents.jsonl");
    let mut analyzer = Analyzer::new();
    analyzer.add_file("s.jsonl", &bytes).unwrap();
    let view = analyzer.view(0, None).unwrap();
    let side = view.messages.iter().filter(|m| m.side_chain).count();
    assert!(side > 0, "the fixture has a sub-agent thread");
    let html = body(&Shared::conversation(view.clone()));
    assert!(html.contains("<li class=\"message thread\"><details><summary>Sub-agent thread · "));
    assert_eq!(
        html.matches("<li class=\"message role-").count(),
        view.messages.len()
    );
}

#[test]
fn values_inside_a_tool_calls_json_are_redacted_however_its_lines_are_escaped() {
    let mut shared = claude_code(&[
        line("u0", None, "user", json!("deploy")),
        line(
            "u1",
            Some("u0"),
            "assistant",
            json!([{"type": "tool_use", "id": "t1", "name": "Write",
                    "input": {"file_path": "/home/ana/app/.env",
                              "content": "HOST=db\nAPI_TOKEN=abc123\n10.20.30.40\n+44 20 7946 0958"}}]),
        ),
    ]);
    let mut redactor = Redactor::new(Profile::Share, &[]).unwrap();
    shared.redact(&mut redactor);
    let html = body(&shared);
    for planted in ["abc123", "10.20.30.40", "7946 0958", "/home/ana"] {
        assert!(!html.contains(planted), "{planted} left in {html}");
    }
    // Still JSON, pretty-printed in its card, and the user is one placeholder.
    assert!(html.contains("&lt;env-"), "{html}");
    assert!(!html.contains("user-2"), "{html}");
}
