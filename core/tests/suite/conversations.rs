//! The four formats parsed into one model, from the real fixtures (attribution in
//! `tests/fixtures/SOURCES.md`): per-fixture counts checked against an independent reading,
//! active branches and branch points, and no panic on damaged input.

use crate::fixture;
use baton_core::transcripts::Provider;
use baton_core::transcripts::conversation::{Block, Role};
use baton_core::transcripts::inspect::{Inspection, inspect, parse};
use proptest::prelude::*;

/// (file, format, conversations, messages, active-branch messages, branch points, tool calls,
/// tool results). Claude Code's "branch points" include parallel tool results that share the
/// assistant line as parent, as its own tree records them (the analyzer's reader shows those
/// side chains inline and does not count them as forks). A Claude Code message written twice
/// counts once, and non-message lines are climbed past, so active branches are whole.
#[allow(clippy::type_complexity)]
pub(crate) const EXPECTED: &[(&str, Provider, usize, usize, usize, usize, usize, usize)] = &[
    (
        "claude-code/claude-code-log-edge_cases.jsonl",
        Provider::ClaudeCode,
        2,
        12,
        12,
        0,
        3,
        1,
    ),
    (
        "claude-code/sniffly-v1.0.17-ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
        Provider::ClaudeCode,
        1,
        76,
        76,
        0,
        30,
        30,
    ),
    (
        "claude-code/sniffly-v1.0.17-fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
        Provider::ClaudeCode,
        1,
        20,
        20,
        0,
        7,
        7,
    ),
    (
        "claude-code/sniffly-v1.0.17-ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl",
        Provider::ClaudeCode,
        0,
        0,
        0,
        0,
        0,
        0,
    ),
    (
        "claude-code/spotter-subagents-ae4a77f8/agent-aac57f5.jsonl",
        Provider::ClaudeCode,
        1,
        28,
        13,
        9,
        12,
        12,
    ),
    (
        "claude-code/spotter-subagents-ae4a77f8/agent-acompact-946d2b.jsonl",
        Provider::ClaudeCode,
        1,
        2,
        2,
        0,
        0,
        0,
    ),
    (
        "claude-code/spotter-v2.1.38-short.jsonl",
        Provider::ClaudeCode,
        1,
        11,
        10,
        1,
        2,
        2,
    ),
    (
        "claude-code/spotter-v2.1.38-tool_heavy.jsonl",
        Provider::ClaudeCode,
        1,
        24,
        22,
        1,
        6,
        6,
    ),
    (
        "claude-code/handmade-v1.0.x-inline-subagents.jsonl",
        Provider::ClaudeCode,
        1,
        21,
        11,
        3,
        5,
        5,
    ),
    (
        "claude-code/handmade-v2.1-titles.jsonl",
        Provider::ClaudeCode,
        1,
        7,
        7,
        0,
        0,
        0,
    ),
    (
        "codex/agentsview-function_calls.jsonl",
        Provider::Codex,
        1,
        3,
        3,
        0,
        2,
        0,
    ),
    (
        "codex/simonw-claude-code-transcripts-sample_codex_session-v0.77.0.jsonl",
        Provider::Codex,
        1,
        3,
        3,
        0,
        0,
        0,
    ),
    (
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
        Provider::Chatgpt,
        3,
        31,
        30,
        1,
        3,
        5,
    ),
    (
        "chatgpt/ai-chat-md-export-examples-conversations.json",
        Provider::Chatgpt,
        2,
        8,
        8,
        0,
        0,
        0,
    ),
    (
        "chatgpt/handmade-tools-hidden-2025.json",
        Provider::Chatgpt,
        2,
        10,
        10,
        0,
        2,
        2,
    ),
    (
        "chatgpt/handmade-export-folder/conversations.json",
        Provider::Chatgpt,
        1,
        2,
        2,
        0,
        0,
        0,
    ),
    (
        "claude-ai/handmade-export-folder/conversations.json",
        Provider::ClaudeAi,
        2,
        2,
        2,
        0,
        0,
        0,
    ),
    (
        "claude-ai/claude-chat-viewer-testdata-conversations.json",
        Provider::ClaudeAi,
        2,
        6,
        6,
        0,
        0,
        0,
    ),
    (
        "claude-ai/ai-chat-md-export-examples-conversations.json",
        Provider::ClaudeAi,
        2,
        8,
        8,
        0,
        0,
        0,
    ),
    (
        "claude-ai/claude-chat-viewer-claude-bakery-chat-API-single.json",
        Provider::ClaudeAi,
        1,
        4,
        4,
        0,
        0,
        0,
    ),
];

#[test]
fn every_fixture_parses_with_the_expected_counts() {
    for &(file, format, conversations, messages, active, branch_points, calls, results) in EXPECTED
    {
        let report = inspect(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(report.format, format.into(), "{file}");
        assert_eq!(report.conversations, conversations, "{file} conversations");
        assert_eq!(report.messages, messages, "{file} messages");
        if active > 0 {
            assert_eq!(
                report.active_branch_messages, active,
                "{file} active branch"
            );
        }
        assert_eq!(report.branch_points, branch_points, "{file} branch points");
        assert_eq!(report.tool_calls, calls, "{file} tool calls");
        assert_eq!(report.tool_results, results, "{file} tool results");
    }
}

#[test]
fn chatgpt_keeps_branches_and_follows_the_current_node() {
    let (_, parsed) = parse(&fixture(
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
    ))
    .unwrap();
    let branched = parsed
        .conversations
        .iter()
        .find(|c| c.branch_points() == 1)
        .unwrap();
    assert_eq!(branched.messages.len(), 16);
    let active = branched.active_branch();
    assert_eq!(
        active.len(),
        15,
        "one alternative answer is off the active branch"
    );
    assert_eq!(
        active.last().unwrap().id,
        branched.active_leaf.clone().unwrap()
    );
    assert!(
        branched
            .messages
            .iter()
            .any(|m| m.model.as_deref() == Some("text-davinci-002-render-sha"))
    );
    let browsing = parsed
        .conversations
        .iter()
        .find(|c| c.messages.iter().any(|m| m.role == Role::Tool))
        .unwrap();
    assert!(
        browsing.messages.iter().any(|m| m
            .blocks
            .iter()
            .any(|b| matches!(b, Block::ToolResult { is_error: true, .. }))),
        "system_error is a failed tool result"
    );
}

#[test]
fn claude_ai_keeps_thinking_apart_and_empty_conversations() {
    let (_, single) = parse(&fixture(
        "claude-ai/claude-chat-viewer-claude-bakery-chat-API-single.json",
    ))
    .unwrap();
    let c = &single.conversations[0];
    assert_eq!(c.active_branch().len(), 4);
    assert_eq!(c.active_leaf.as_deref().map(|l| &l[..8]), Some("47e6dd5f"));
    let empty = br#"[{"uuid":"e1","name":"","created_at":"2025-01-01T00:00:00Z","updated_at":"2025-01-01T00:00:00Z","chat_messages":[]}]"#;
    let (_, parsed) = parse(empty).unwrap();
    assert_eq!(
        parsed.conversations.len(),
        1,
        "an empty conversation is kept"
    );
    let thinking = br#"[{"uuid":"t1","name":"x","chat_messages":[{"uuid":"m1","sender":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"answer"}]}]}]"#;
    let (_, parsed) = parse(thinking).unwrap();
    let blocks = &parsed.conversations[0].messages[0].blocks;
    assert!(matches!(&blocks[0], Block::Thinking { text } if text == "hmm"));
    assert!(matches!(&blocks[1], Block::Text { text } if text == "answer"));
}

#[test]
fn claude_code_unknown_kinds_are_counted_not_fatal() {
    let text = br#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}
{"type":"brand-new-kind","sessionId":"s","uuid":"x"}
not json
{"type":"assistant","sessionId":"s","uuid":"u2","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","model":"claude","content":[{"type":"text","text":"hello"}]}}"#;
    let report = inspect(text).unwrap();
    assert_eq!((report.conversations, report.messages), (1, 2));
    assert_eq!(report.unknown_kinds.get("brand-new-kind"), Some(&1));
    assert_eq!(report.stats.malformed, 1);
    // Unknown records and blocks are kept as written for a consumer that understands them.
    let (_, parsed) = parse(text).unwrap();
    assert!(parsed.unknown_samples["brand-new-kind"][0].contains(r#""uuid":"x""#));
    let odd = br#"[{"uuid":"o1","name":"x","chat_messages":[{"uuid":"m1","sender":"assistant","content":[{"type":"artifact","id":"a1","body":"<svg/>"}]}]}]"#;
    let (_, parsed) = parse(odd).unwrap();
    assert!(
        matches!(&parsed.conversations[0].messages[0].blocks[0], Block::Other { kind, raw } if kind == "artifact" && raw.contains("<svg/>"))
    );
}

#[test]
fn chatgpt_messages_climb_past_empty_nodes_to_their_nearest_message() {
    // k0 under an empty root; below it two empty nodes, each with a message hung off it;
    // and a message under a cycle of empty nodes.
    let text = br#"[{"id":"c","title":"t","mapping":{
      "e0":{"id":"e0","message":null,"parent":null},
      "k0":{"id":"k0","parent":"e0","message":{"id":"k0","author":{"role":"user"},"create_time":1,"content":{"content_type":"text","parts":["first"]}}},
      "e1":{"id":"e1","message":null,"parent":"k0"},
      "e2":{"id":"e2","message":null,"parent":"e1"},
      "k1":{"id":"k1","parent":"e1","message":{"id":"k1","author":{"role":"assistant"},"create_time":2,"content":{"content_type":"text","parts":["a"]}}},
      "k2":{"id":"k2","parent":"e2","message":{"id":"k2","author":{"role":"assistant"},"create_time":3,"content":{"content_type":"text","parts":["b"]}}},
      "x":{"id":"x","message":null,"parent":"y"},
      "y":{"id":"y","message":null,"parent":"x"},
      "k3":{"id":"k3","parent":"x","message":{"id":"k3","author":{"role":"user"},"create_time":4,"content":{"content_type":"text","parts":["in a cycle"]}}}
    }}]"#;
    let (_, parsed) = parse(text).unwrap();
    let parent = |id: &str| {
        parsed.conversations[0]
            .messages
            .iter()
            .find(|m| m.id == id)
            .unwrap()
            .parent
            .clone()
    };
    assert_eq!(parent("k0"), None);
    assert_eq!(parent("k1").as_deref(), Some("k0"));
    assert_eq!(
        parent("k2").as_deref(),
        Some("k0"),
        "two empty nodes climbed"
    );
    assert_eq!(parent("k3"), None, "a cycle of empty nodes ends the climb");
}

#[test]
fn a_line_with_invalid_utf8_keeps_its_message_and_its_tokens() {
    // A writer cut a multi-byte character: the bytes left are not UTF-8.
    let mut text = br#"{"type":"user","sessionId":"s","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"caf"#.to_vec();
    text.extend_from_slice(b"\xC3 ok\"}}\n");
    text.extend_from_slice(br#"{"type":"assistant","sessionId":"s","uuid":"u2","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.000Z","requestId":"r","message":{"id":"m","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"bad "#);
    text.extend_from_slice(
        b"\xFF\xFE byte\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}}\n",
    );
    let (_, parsed) = parse(&text).unwrap();
    let messages = &parsed.conversations[0].messages;
    assert_eq!(messages.len(), 2, "both messages are kept");
    assert!(matches!(&messages[0].blocks[0], Block::Text { text } if text == "caf\u{fffd} ok"));
    assert!(
        matches!(&messages[1].blocks[0], Block::Text { text } if text == "bad \u{fffd}\u{fffd} byte")
    );
    assert_eq!(
        parsed.stats.repaired_surrogates, 2,
        "each repaired line is counted"
    );
    let report = inspect(&text).unwrap();
    assert_eq!((report.messages, report.stats.malformed), (2, 0));
}

proptest! {
    #[test]
    fn parsers_never_panic_on_damaged_fixtures(cut in 0usize..60_000, flip in 0usize..60_000, byte in any::<u8>()) {
        for &(file, ..) in EXPECTED {
            let mut bytes = fixture(file);
            let at = flip % bytes.len().max(1);
            if !bytes.is_empty() {
                bytes[at] = byte;
            }
            bytes.truncate(cut % (bytes.len() + 1));
            let _ = inspect(&bytes);
        }
    }
}

#[test]
fn exports_pushed_in_small_chunks_give_the_same_conversations_as_whole_reads() {
    use baton_core::transcripts::conversation::{parse_chatgpt, parse_claude_ai};
    use baton_core::transcripts::ingest::{Decoded, FileIngest, Ingested};
    fn pushed(bytes: &[u8], chunk: usize) -> Ingested {
        let mut ingest = FileIngest::new("export.json");
        for piece in bytes.chunks(chunk) {
            ingest.push(piece).unwrap();
        }
        ingest.finish().unwrap()
    }
    fn conversations(
        ingested: Ingested,
    ) -> Vec<baton_core::transcripts::conversation::Conversation> {
        ingested
            .parts
            .into_iter()
            .flat_map(|part| match part {
                Decoded::Conversations { parsed, .. } => parsed.conversations,
                _ => Vec::new(),
            })
            .collect()
    }
    for (file, provider) in [
        (
            "chatgpt/pkuppens-real-2023-06-export-subset3.json",
            Provider::Chatgpt,
        ),
        (
            "claude-ai/claude-chat-viewer-testdata-conversations.json",
            Provider::ClaudeAi,
        ),
        (
            "claude-ai/claude-chat-viewer-claude-bakery-chat-API-single.json",
            Provider::ClaudeAi,
        ),
    ] {
        let bytes = fixture(file);
        let whole = match provider {
            Provider::ClaudeAi => parse_claude_ai(&bytes),
            _ => parse_chatgpt(&bytes),
        };
        for chunk in [1, 7, 4096] {
            let streamed = pushed(&bytes, chunk);
            assert_eq!(
                Inspection::of(&streamed).messages,
                inspect(&bytes).unwrap().messages,
                "{file}"
            );
            assert_eq!(
                conversations(streamed),
                whole.conversations,
                "{file} in {chunk}-byte chunks"
            );
        }
    }
    // A truncated export keeps the conversations read before the cut.
    let bytes = fixture("claude-ai/claude-chat-viewer-testdata-conversations.json");
    let cut = bytes.len() * 3 / 4;
    let summary = Inspection::of(&pushed(&bytes[..cut], 4096));
    assert_eq!(summary.stats.malformed, 1);
    assert!(summary.conversations >= 1);
}

#[test]
fn old_codex_rollouts_without_the_envelope_are_read() {
    let text = br#"{"id":"0f1e2d3c-aaaa-4bbb-8ccc-000000000001","timestamp":"2025-05-01T10:00:00.000Z","instructions":"be brief","git":{"branch":"main"}}
{"record_type":"state"}
{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}
{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}
{"type":"function_call_output","call_id":"c1","output":"README.md"}
{"type":"message","role":"assistant","content":[{"type":"output_text","text":"One file."}]}
"#;
    let (format, parsed) = parse(text).unwrap();
    assert_eq!(format, Provider::Codex.into());
    let c = &parsed.conversations[0];
    assert_eq!(c.id, "0f1e2d3c-aaaa-4bbb-8ccc-000000000001");
    assert_eq!(c.branch.as_deref(), Some("main"));
    assert_eq!(c.messages.len(), 4);
    assert!(
        matches!(&c.messages[1].blocks[0], Block::ToolCall { id, name, .. } if id == "c1" && name == "shell")
    );
    assert!(
        matches!(&c.messages[2].blocks[0], Block::ToolResult { call_id, output, .. } if call_id == "c1" && output == "README.md")
    );
    assert_eq!(c.active_branch().len(), 4);
}

/// Inputs that once crashed, or that are known to be nasty, replayed through every parser.
#[test]
#[allow(clippy::disallowed_methods)]
fn replay_kept_crash_inputs_through_the_parsers() {
    use baton_core::transcripts::conversation::{
        parse_chatgpt, parse_claude_ai, parse_claude_code, parse_codex,
    };
    use baton_core::transcripts::usage::claude_code::ClaudeCodeUsage;
    use baton_core::transcripts::usage::codex::CodexUsage;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let _ = inspect(&bytes);
        let _ = (
            parse_claude_code(&bytes),
            parse_codex(&bytes),
            parse_chatgpt(&bytes),
            parse_claude_ai(&bytes),
        );
        let mut claude = ClaudeCodeUsage::new();
        claude.push_bytes(&bytes);
        let mut codex = CodexUsage::new("x");
        codex.push_bytes(&bytes);
        replayed += 1;
    }
    assert!(replayed >= 5);
}
