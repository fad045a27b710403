//! What a person reads, on small hand-made fixtures (`tests/fixtures/SOURCES.md`, "hand-made
//! for Baton") and the real ones that hold the case: titles a person recognizes, ChatGPT tool
//! calls and hidden nodes, export folders and their side files, inline sub-agent threads,
//! byte order marks, and error excerpts that never echo a file's private bytes.

use crate::fixture;
use baton_core::analyzer::{Analyzer, ListQuery};
use baton_core::transcripts::conversation::{Block, ReadOptions, Role, parse_chatgpt_with};
use baton_core::transcripts::export_files::{ExportMember, export_member, skipped_export_files};
use baton_core::transcripts::ingest::FileIngest;
use baton_core::transcripts::inspect::{inspect, parse};

fn titles(bytes: &[u8]) -> Vec<String> {
    inspect(bytes).unwrap().titles
}

fn without_lines(bytes: &[u8], drop: &[&str]) -> Vec<u8> {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    text.lines()
        .filter(|l| !drop.iter().any(|d| l.contains(d)))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn claude_code_titles_come_from_title_lines_else_the_first_typed_prompt() {
    let file = fixture("claude-code/handmade-v2.1-titles.jsonl");
    assert_eq!(
        titles(&file),
        ["Rename Config to Settings and update the docs"],
        "the latest ai-title line wins"
    );
    let last_title = r#""aiTitle":"Rename Config to Settings"#;
    assert_eq!(
        titles(&without_lines(&file, &[last_title])),
        ["Config renamed to Settings"],
        "a summary line later than the other ai-title wins"
    );
    let no_titles = without_lines(&file, &[r#""type":"ai-title""#, r#""type":"summary""#]);
    assert_eq!(
        titles(&no_titles),
        ["/model opus"],
        "the meta caveat is passed over; a slash command shows with its arguments"
    );
    let typed = without_lines(&no_titles, &["<command-name>", "<local-command-stdout>"]);
    assert_eq!(
        titles(&typed),
        ["Rename the Config struct to Settings everywhere"]
    );
    let renamed = [
        file.clone(),
        br#"{"type":"custom-title","customTitle":"Settings rename","sessionId":"5d1c0e2a-0000-4000-8000-00000000b020"}"#.to_vec(),
    ]
    .concat();
    assert_eq!(
        titles(&renamed),
        ["Settings rename"],
        "a title the person gave wins"
    );
    // Real files: a `/init` expansion, and a v2.1 session opening with a local command.
    assert_eq!(
        titles(&fixture(
            "claude-code/sniffly-v1.0.17-ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl"
        )),
        ["/init"]
    );
    assert_eq!(
        titles(&fixture("claude-code/spotter-v2.1.38-tool_heavy.jsonl")),
        ["start phoenix in background"]
    );
}

#[test]
fn codex_titles_are_the_first_typed_prompt_never_injected_context() {
    let file = fixture("codex/simonw-claude-code-transcripts-sample_codex_session-v0.77.0.jsonl");
    let expected =
        "can you analyse the MD files in this directory and determine if the info we have…";
    assert_eq!(titles(&file), [expected]);
    // Without the `user_message` event, the injected AGENTS.md and environment messages are
    // still passed over.
    let no_events = without_lines(&file, &[r#""type":"event_msg""#]);
    assert_eq!(titles(&no_events), [expected]);
}

#[test]
fn exports_keep_their_own_titles_and_an_untitled_one_shows_its_first_prompt() {
    assert_eq!(
        titles(&fixture("chatgpt/handmade-tools-hidden-2025.json")),
        ["Tide haiku in a canvas", "What makes a spring tide?"]
    );
    assert_eq!(
        titles(&fixture(
            "claude-ai/handmade-export-folder/conversations.json"
        )),
        ["Packing list for a sailing trip", "(untitled)"]
    );
}

#[test]
fn chatgpt_tool_calls_results_thinking_and_hidden_nodes() {
    let bytes = fixture("chatgpt/handmade-tools-hidden-2025.json");
    let (_, parsed) = parse(&bytes).unwrap();
    let c = &parsed.conversations[0];
    assert_eq!(
        c.messages.len(),
        8,
        "the hidden system and context nodes are left out"
    );
    let calls: Vec<(&str, &str)> = c
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::ToolCall { name, input, .. } => Some((name.as_str(), input.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0], ("bio", "User likes haiku."));
    assert_eq!(calls[1].0, "canmore.create_textdoc");
    assert!(calls[1].1.contains(r#""name": "Tides""#), "{}", calls[1].1);
    let tool_messages: Vec<_> = c.messages.iter().filter(|m| m.role == Role::Tool).collect();
    assert_eq!(tool_messages.len(), 2);
    for m in &tool_messages {
        assert!(
            matches!(&m.blocks[..], [Block::ToolResult { call_id, .. }] if call_id == "bio" || call_id == "canvas"),
            "a tool's reply is its call's result: {m:?}"
        );
    }
    let thinking: Vec<&str> = c
        .messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| match b {
            Block::Thinking { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        thinking,
        [
            "Choosing a form\nA haiku fits: the user likes them.",
            "Thought for 4 seconds"
        ]
    );
    assert!(
        c.messages
            .iter()
            .filter(|m| m.role == Role::Assistant)
            .flat_map(|m| &m.blocks)
            .all(|b| !matches!(b, Block::Text { text } if text.contains("haiku fits"))),
        "reasoning is never answer text"
    );
    // On request, the hidden nodes are kept, and the tree stays linked through them.
    let all = parse_chatgpt_with(
        &bytes,
        ReadOptions {
            include_hidden: true,
        },
    );
    let c = &all.conversations[0];
    assert_eq!(c.messages.len(), 10);
    assert_eq!(c.active_branch().len(), 10);
    // The analyzer reads with the same option.
    let mut analyzer = Analyzer::new();
    analyzer.add_file("default.json", &bytes).unwrap();
    analyzer.set_read_options(ReadOptions {
        include_hidden: true,
    });
    analyzer.add_file("hidden.json", &bytes).unwrap();
    let messages: Vec<u64> = analyzer.files().iter().map(|f| f.messages).collect();
    assert_eq!(messages, [10, 12]);
    let rows = analyzer.list(&ListQuery {
        search: "tide haiku".into(),
        ..ListQuery::default()
    });
    assert!(
        rows.rows
            .iter()
            .all(|r| r.tool_calls == 2 && r.tool_results == 2)
    );
    // The 2023 real export's browsing calls still count as before.
    let real = inspect(&fixture(
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
    ))
    .unwrap();
    assert_eq!((real.tool_calls, real.tool_results), (3, 5));
}

#[test]
fn inline_sub_agent_threads_hang_off_their_task_calls() {
    let bytes = fixture("claude-code/handmade-v1.0.x-inline-subagents.jsonl");
    let (_, parsed) = parse(&bytes).unwrap();
    let c = &parsed.conversations[0];
    let parent = |id: &str| {
        c.messages
            .iter()
            .find(|m| m.id == id)
            .and_then(|m| m.parent.clone())
    };
    assert_eq!(
        parent("sA1").as_deref(),
        Some("a2"),
        "matched by its prompt"
    );
    assert_eq!(
        parent("sB1").as_deref(),
        Some("a3"),
        "matched by its prompt"
    );
    assert_eq!(
        parent("sC1").as_deref(),
        Some("a5"),
        "no prompt matches: the nearest call before it"
    );
    assert_eq!(c.active_leaf.as_deref(), Some("a6"));
    let report = inspect(&bytes).unwrap();
    assert_eq!(report.forks, 0, "a sub-agent's thread is no alternative");
    assert_eq!(
        report.titles,
        ["Find where the config is loaded and where errors are logged"]
    );
    let mut analyzer = Analyzer::new();
    analyzer.add_file("session.jsonl", &bytes).unwrap();
    let view = analyzer.view(0, None).unwrap();
    assert_eq!(view.messages.len(), 21, "the threads are read inline");
    let order: Vec<&str> = view.messages.iter().map(|m| m.id.as_str()).collect();
    let after = |call: &str| order[order.iter().position(|id| *id == call).unwrap() + 1];
    assert_eq!(after("a2"), "sA1");
    assert_eq!(after("a5"), "sC1");
    assert!(view.messages.iter().all(|m| m.alternatives.is_empty()));
    assert_eq!(
        view.messages.iter().filter(|m| m.side_chain).count(),
        10,
        "the page can set a thread apart"
    );
}

#[test]
fn export_folders_read_only_their_conversations_files() {
    let paths = [
        "export/conversations.json",
        "export/projects.json",
        "export/users.json",
        "export/memories.json",
        "gpt/conversations-000.json",
        "gpt/conversations-001.json",
        "gpt/user.json",
        "gpt/message_feedback.json",
        "gpt/shared_conversations.json",
        "gpt/model_comparisons.json",
        "alone/users.json",
        "claude/projects/x/session.jsonl",
    ];
    let skipped: Vec<&str> = paths
        .iter()
        .zip(skipped_export_files(&paths))
        .filter(|(_, skip)| *skip)
        .map(|(p, _)| *p)
        .collect();
    assert_eq!(
        skipped,
        [
            "export/projects.json",
            "export/users.json",
            "export/memories.json",
            "gpt/user.json",
            "gpt/message_feedback.json",
            "gpt/shared_conversations.json",
            "gpt/model_comparisons.json",
        ]
    );
    assert_eq!(export_member("a/chat.html"), ExportMember::Sidecar);
    // Read on their own, the side files are never phantom conversations: each is refused or
    // holds none, and no error echoes the e-mail address or phone number they hold.
    for side in [
        "claude-ai/handmade-export-folder/projects.json",
        "claude-ai/handmade-export-folder/users.json",
        "claude-ai/handmade-export-folder/memories.json",
        "chatgpt/handmade-export-folder/user.json",
        "chatgpt/handmade-export-folder/message_feedback.json",
        "chatgpt/handmade-export-folder/shared_conversations.json",
        "chatgpt/handmade-export-folder/model_comparisons.json",
    ] {
        // Read under its own name, as a host reads a file it was given.
        let mut inspector = baton_core::transcripts::inspect::Inspector::new(side);
        let read = inspector
            .push(&fixture(side))
            .and_then(|()| inspector.finish());
        match read {
            Ok(report) => assert_eq!(report.conversations, 0, "{side}"),
            Err(e) => {
                let text = format!("{} {:?}", e.message, e.details);
                assert!(text.contains("side files"), "{side}: {text}");
                assert!(!text.contains("example.com"), "{side}: {text}");
                assert!(!text.contains("5555550123"), "{side}: {text}");
            }
        }
    }
    // Zipped, the same export reads its conversations file only.
    let folder = "claude-ai/handmade-export-folder/";
    let files: Vec<(String, Vec<u8>)> = ["conversations.json", "projects.json", "users.json"]
        .iter()
        .map(|f| (f.to_string(), fixture(&format!("{folder}{f}"))))
        .collect();
    let members: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let zip = baton_core::transcripts::zip::write_zip(&members, true);
    let read = FileIngest::read_all("export.zip", &zip).unwrap();
    assert_eq!(read.entries, ["conversations.json"]);
    assert_eq!(inspect(&zip).unwrap().conversations, 2);
}

#[test]
fn a_byte_order_mark_is_accepted_on_every_format() {
    let bom = b"\xEF\xBB\xBF";
    for file in [
        "claude-code/spotter-v2.1.38-short.jsonl",
        "codex/agentsview-function_calls.jsonl",
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
        "claude-ai/claude-chat-viewer-claude-bakery-chat-API-single.json",
    ] {
        let plain = fixture(file);
        let marked = [bom.as_slice(), &plain].concat();
        let (a, b) = (inspect(&plain).unwrap(), inspect(&marked).unwrap());
        assert_eq!(
            (a.format, a.messages, b.stats.malformed),
            (b.format, b.messages, 0),
            "{file}"
        );
    }
    let header = baton_core::ledger::event::encode_header("g1");
    let mut analyzer = Analyzer::new();
    let file = analyzer
        .add_file("events.ndjson", format!("\u{feff}{header}\n").as_bytes())
        .unwrap();
    assert_eq!(
        (file.format, file.stats.malformed),
        (baton_core::analyzer::FileFormat::BatonLedger, 0)
    );
    assert_eq!(analyzer.overview().ledger_problems, 0);
    // The hand-made claude.ai export is written with one.
    assert_eq!(
        fixture("claude-ai/handmade-export-folder/conversations.json")[..3],
        *bom
    );
}

#[test]
fn an_unknown_file_is_shown_as_a_short_redacted_excerpt() {
    let private = b"\x1b[1mname: Alex Example <alex.example@example.com>, phone 15555550123, account 0123456789012 and much more text after that\x07\n";
    let err = inspect(private).unwrap_err();
    let seen = err.details["seen"].as_str().unwrap();
    assert!(
        !seen.contains("example.com") && !seen.contains("5555550123"),
        "{seen}"
    );
    assert!(
        seen.contains("<email>") && seen.contains("###########"),
        "{seen}"
    );
    assert!(!seen.chars().any(char::is_control), "{seen:?}");
    assert!(seen.chars().count() <= 61, "{seen}");
    assert!(err.message.contains(seen));
    // Phone numbers as people write them, and an address however it is wrapped.
    let formatted = b"call +1 (555) 012-3456 or 555.012.3456, mail bob@example.org today\n";
    let seen = inspect(formatted).unwrap_err().details["seen"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!seen.contains("555") && !seen.contains("3456"), "{seen}");
    assert!(
        !seen.contains("example.org") && seen.contains("<email>"),
        "{seen}"
    );
}
