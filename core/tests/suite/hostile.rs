//! Input written to hurt: parent links that loop (a node its own parent, two nodes each
//! other's) in every format that links messages, and a long chain, all read to the end with
//! every message once.

use baton_core::transcripts::inspect::inspect;
use serde_json::json;

fn chatgpt_node(id: &str, parent: Option<&str>, children: &[&str]) -> serde_json::Value {
    json!({"id": id, "parent": parent, "children": children, "message": {
        "id": id, "author": {"role": "user"}, "create_time": 1.0,
        "content": {"content_type": "text", "parts": [format!("text of {id}")]}}})
}

#[test]
fn parent_links_that_loop_are_read_once_in_every_format() {
    let own_parent = json!([{"title": "self", "current_node": "a",
        "mapping": {"a": chatgpt_node("a", Some("a"), &["a"])}}]);
    let each_other = json!([{"title": "pair", "current_node": "a", "mapping": {
        "a": chatgpt_node("a", Some("b"), &["b"]), "b": chatgpt_node("b", Some("a"), &["a"])}}]);
    let claude_ai = json!([{"uuid": "c1", "name": "pair", "chat_messages": [
        {"uuid": "m1", "text": "a", "sender": "human", "parent_message_uuid": "m2",
         "created_at": "2025-01-01T00:00:00Z"},
        {"uuid": "m2", "text": "b", "sender": "assistant", "parent_message_uuid": "m1",
         "created_at": "2025-01-01T00:00:01Z"}]}]);
    let claude_code = [
        json!({"type": "user", "uuid": "u1", "parentUuid": "u2", "sessionId": "s",
               "timestamp": "2025-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}}),
        json!({"type": "assistant", "uuid": "u2", "parentUuid": "u1", "sessionId": "s",
               "timestamp": "2025-01-01T00:00:01Z",
               "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}}),
    ]
    .map(|line| line.to_string())
    .join("\n");
    for (what, bytes, messages) in [
        ("ChatGPT, its own parent", own_parent.to_string(), 1),
        ("ChatGPT, each other's parent", each_other.to_string(), 2),
        ("claude.ai, each other's parent", claude_ai.to_string(), 2),
        ("Claude Code, each other's parent", claude_code, 2),
    ] {
        let read = inspect(bytes.as_bytes()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(read.messages, messages, "{what}");
        assert!(read.active_branch_messages <= messages, "{what}");
    }
}

#[test]
fn a_twenty_thousand_message_chain_is_read_whole() {
    let n = 20_000;
    let mut mapping = serde_json::Map::new();
    for i in 0..n {
        let id = format!("n{i}");
        let parent = (i > 0).then(|| format!("n{}", i - 1));
        let child = format!("n{}", i + 1);
        let children: Vec<&str> = if i + 1 < n {
            vec![child.as_str()]
        } else {
            vec![]
        };
        mapping.insert(id.clone(), chatgpt_node(&id, parent.as_deref(), &children));
    }
    let export =
        json!([{"title": "chain", "mapping": mapping, "current_node": format!("n{}", n - 1)}]);
    let read = inspect(export.to_string().as_bytes()).unwrap();
    assert_eq!((read.messages, read.active_branch_messages), (n, n));
}

/// Reads one file into `analyzer` as a host does; the error, if any.
fn load(
    analyzer: &mut baton_core::analyzer::Analyzer,
    name: &str,
    bytes: &[u8],
) -> Result<(), baton_core::Error> {
    analyzer.begin(name);
    let pushed = bytes
        .chunks(1 << 16)
        .try_for_each(|chunk| analyzer.push(chunk));
    match pushed {
        Ok(()) => analyzer.finish().map(|_| ()),
        Err(e) => {
            analyzer.cancel();
            Err(e)
        }
    }
}

#[test]
fn a_zip_bomb_is_refused_before_it_inflates_and_later_files_still_load() {
    use baton_core::transcripts::zip::write_zip;
    // 64 MiB of one byte deflates to a few dozen KiB: a thousand to one.
    let zeros = vec![b' '; 64 << 20];
    let bomb = write_zip(&[("conversations.json", zeros.as_slice())], true);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    let err = load(&mut analyzer, "bomb.zip", &bomb).unwrap_err();
    assert_eq!(err.code.as_str(), "ARCHIVE_TOO_LARGE", "{}", err.message);
    let export = crate::fixture("chatgpt/ai-chat-md-export-examples-conversations.json");
    load(&mut analyzer, "conversations.json", &export).unwrap();
    assert_eq!(analyzer.overview().figures.conversations, 2);
}

#[test]
fn an_entry_that_inflates_past_its_declared_size_stops_there() {
    use baton_core::transcripts::zip::write_zip;
    let export = crate::fixture("chatgpt/ai-chat-md-export-examples-conversations.json");
    let mut zip = write_zip(&[("conversations.json", export.as_slice())], true);
    // The central directory's uncompressed size (offset 24 of its record) says 100 bytes.
    let directory = zip.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
    zip[directory + 24..directory + 28].copy_from_slice(&100u32.to_le_bytes());
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    let err = load(&mut analyzer, "lying.zip", &zip).unwrap_err();
    assert_eq!(err.code.as_str(), "ARCHIVE_DAMAGED", "{}", err.message);
    assert!(err.message.contains("inflates past"), "{}", err.message);
}

#[test]
fn a_bad_byte_or_lone_surrogate_in_one_conversation_costs_nothing_in_inspect_or_analyze() {
    let one = |i: usize| {
        json!({"title": format!("c{i}"), "current_node": "a",
               "mapping": {"a": chatgpt_node("a", None, &[])}})
        .to_string()
    };
    let mut export = b"[".to_vec();
    for i in 0..5 {
        if i > 0 {
            export.push(b',');
        }
        let text = one(i);
        let text = match i {
            // Conversation 2 holds a byte that is not UTF-8, conversation 4 a lone surrogate.
            1 => text.replace("text of a", "text \u{1}of a"),
            3 => text.replace("text of a", r"text \ud83d of a"),
            _ => text,
        };
        let mut bytes = text.into_bytes();
        if i == 1 {
            let at = bytes.iter().position(|&b| b == 1).unwrap();
            bytes[at] = 0xff;
        }
        export.extend(bytes);
    }
    export.push(b']');
    let inspected = inspect(&export).unwrap();
    assert_eq!((inspected.conversations, inspected.stats.malformed), (5, 0));
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    load(&mut analyzer, "conversations.json", &export).unwrap();
    assert_eq!(analyzer.overview().figures.conversations, 5);
}

#[test]
fn token_counts_near_the_largest_number_saturate_instead_of_wrapping() {
    let huge = u64::MAX / 2 + 1;
    let lines: Vec<String> = (0..3)
        .map(|i| {
            json!({"type": "assistant", "uuid": format!("u{i}"), "sessionId": "s",
                "timestamp": format!("2026-01-0{}T00:00:00Z", i + 1), "requestId": format!("r{i}"),
                "message": {"id": format!("m{i}"), "role": "assistant", "model": "claude-opus-4-7",
                    "content": [{"type": "text", "text": "x"}],
                    "usage": {"input_tokens": huge, "output_tokens": huge,
                        "cache_read_input_tokens": huge, "cache_creation_input_tokens": huge}}})
            .to_string()
        })
        .collect();
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    load(&mut analyzer, "s.jsonl", lines.join("\n").as_bytes()).unwrap();
    // Debug builds panic on an overflowing sum: every figure and chart must saturate.
    let overview = analyzer.overview();
    let usage = overview.usage.expect("usage counted");
    assert_eq!(usage.tokens.input_tokens, u64::MAX);
    assert_eq!(usage.total_tokens, u64::MAX);
    let charts = analyzer.charts(960);
    assert!(!format!("{charts:?}").is_empty());
}
