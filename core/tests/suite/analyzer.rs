//! The analyzer the web page runs: chunked intake equals whole-file parsing for every fixture
//! format, ZIP exports (stored, deflated, split, damaged), ledgers, search, the branch reader,
//! exports, cancellation, and no panic on any bytes.

use crate::fixture;
use baton_core::ErrorCode;
use baton_core::analyzer::{Analyzer, FileFormat, ListQuery, is_conversations_entry, markdown};
use baton_core::transcripts::Provider;
use baton_core::transcripts::inspect::parse;
use baton_core::transcripts::zip::write_zip;
use proptest::prelude::*;
use std::collections::BTreeSet;

const FIXTURES: &[&str] = &[
    "claude-code/claude-code-log-edge_cases.jsonl",
    "claude-code/sniffly-v1.0.17-ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
    "claude-code/spotter-v2.1.38-tool_heavy.jsonl",
    "claude-code/spotter-subagents-ae4a77f8/agent-aac57f5.jsonl",
    "claude-code/handmade-v1.0.x-inline-subagents.jsonl",
    "claude-code/handmade-v2.1-titles.jsonl",
    "codex/agentsview-function_calls.jsonl",
    "codex/simonw-claude-code-transcripts-sample_codex_session-v0.77.0.jsonl",
    "chatgpt/pkuppens-real-2023-06-export-subset3.json",
    "chatgpt/ai-chat-md-export-examples-conversations.json",
    "chatgpt/handmade-tools-hidden-2025.json",
    "claude-ai/handmade-export-folder/conversations.json",
    "claude-ai/ai-chat-md-export-examples-conversations.json",
    "claude-ai/claude-chat-viewer-claude-bakery-chat-API-single.json",
    "claude-ai/claude-chat-viewer-testdata-conversations.json",
];

fn fed_in_chunks(name: &str, bytes: &[u8], chunk: usize) -> Analyzer {
    let mut analyzer = Analyzer::new();
    analyzer.begin(name);
    for piece in bytes.chunks(chunk.max(1)) {
        analyzer.push(piece).unwrap();
    }
    analyzer.finish().unwrap();
    analyzer
}

#[test]
fn chunked_intake_equals_whole_file_parsing_for_every_fixture() {
    for path in FIXTURES {
        let bytes = fixture(path);
        let (_, whole) = parse(&bytes).unwrap();
        for chunk in [1, 7, 4096, 1 << 20] {
            let analyzer = fed_in_chunks(path, &bytes, chunk);
            assert_eq!(
                analyzer.conversations(),
                &whole.conversations[..],
                "{path} in chunks of {chunk}"
            );
        }
    }
}

#[test]
fn formats_are_detected_and_summed_across_files() {
    let mut analyzer = Analyzer::new();
    let mut expected_conversations = 0;
    let mut expected_messages = 0;
    for path in FIXTURES {
        let bytes = fixture(path);
        let (_, parsed) = parse(&bytes).unwrap();
        expected_conversations += parsed.conversations.len() as u64;
        expected_messages += parsed
            .conversations
            .iter()
            .map(|c| c.messages.len() as u64)
            .sum::<u64>();
        analyzer.add_file(path, &bytes).unwrap();
    }
    let overview = analyzer.overview();
    assert_eq!(overview.files, FIXTURES.len() as u64);
    assert_eq!(overview.figures.conversations, expected_conversations);
    assert_eq!(overview.figures.messages, expected_messages);
    assert_eq!(overview.formats["claude_code"], 6);
    assert_eq!(overview.formats["codex"], 2);
    assert_eq!(overview.formats["chatgpt"], 3);
    assert_eq!(overview.formats["claude_ai"], 4);
    let usage = overview
        .usage
        .expect("Claude Code and Codex files record usage");
    assert!(usage.total_tokens > 0 && usage.cost_usd > 0.0, "{usage:?}");
    let charts = analyzer.charts(960);
    for svg in [
        &charts.activity,
        &charts.models,
        &charts.tokens,
        &charts.cost,
        &charts.lengths,
    ] {
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"), "{svg}");
    }
    assert!(
        charts.models.contains("gpt-4"),
        "model legend names the models"
    );
}

#[test]
fn zipped_exports_read_like_the_json_inside_stored_or_deflated_or_split() {
    let json = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
    let plain = fed_in_chunks("conversations.json", &json, 1 << 20);
    for deflate in [false, true] {
        let zip = write_zip(
            &[
                ("chat.html", b"<html></html>".as_slice()),
                ("conversations.json", &json),
            ],
            deflate,
        );
        for chunk in [3, 1 << 20] {
            let analyzer = fed_in_chunks("export.zip", &zip, chunk);
            assert_eq!(analyzer.conversations(), plain.conversations());
            let file = &analyzer.files()[0];
            assert_eq!(file.archive.as_deref(), Some("zip"));
            assert_eq!(file.format, FileFormat::Transcript(Provider::Chatgpt));
        }
    }
    // Split exports: every conversations-NNN.json is read.
    let other = fixture("chatgpt/ai-chat-md-export-examples-conversations.json");
    let zip = write_zip(
        &[
            ("export/conversations-000.json", json.as_slice()),
            ("export/conversations-001.json", &other),
        ],
        true,
    );
    let analyzer = fed_in_chunks("split.zip", &zip, 1 << 16);
    assert_eq!(analyzer.overview().figures.conversations, 3 + 2);
    assert!(is_conversations_entry("a/conversations_12.json"));
    assert!(!is_conversations_entry("conversations-x.json"));
}

#[test]
fn a_damaged_archive_is_refused_whole_and_what_was_loaded_stays() {
    let json = fixture("claude-ai/claude-chat-viewer-testdata-conversations.json");
    let zip = write_zip(&[("conversations.json", json.as_slice())], true);
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(
            "first.json",
            &fixture("chatgpt/ai-chat-md-export-examples-conversations.json"),
        )
        .unwrap();
    let before = analyzer.overview();
    // Cut short: the end record is gone.
    let err = analyzer
        .add_file("cut.zip", &zip[..zip.len() / 2])
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::ArchiveDamaged, "{err:?}");
    assert!(err.message.contains("truncated"), "{}", err.message);
    // A flipped byte inside the compressed data: corrupt data or a CRC mismatch.
    let mut flipped = zip.clone();
    flipped[60] ^= 0x55;
    let err = analyzer.add_file("flipped.zip", &flipped).unwrap_err();
    assert_eq!(err.code, ErrorCode::ArchiveDamaged, "{err:?}");
    // An archive that is not an export says what it holds.
    let photos = write_zip(&[("photo.jpg", b"\xff\xd8".as_slice())], false);
    let err = analyzer.add_file("photos.zip", &photos).unwrap_err();
    assert_eq!(err.code, ErrorCode::NoConversationsInArchive);
    assert_eq!(err.details["entries"][0], "photo.jpg");
    assert_eq!(analyzer.overview(), before);
    assert_eq!(analyzer.files().len(), 1);
}

#[test]
fn wrong_files_get_coded_errors_and_a_cancelled_file_leaves_nothing() {
    let mut analyzer = Analyzer::new();
    let err = analyzer
        .add_file("notes.txt", b"just some notes\n")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownFormat);
    let err = analyzer.add_file("empty.json", b"  \n").unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownFormat);
    let err = analyzer
        .add_file("future.ndjson", b"{\"baton_log\":2,\"generation\":\"g\"}\n")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::FormatTooNew);
    analyzer.begin("big.json");
    analyzer
        .push(&fixture(
            "chatgpt/pkuppens-real-2023-06-export-subset3.json",
        ))
        .unwrap();
    analyzer.cancel();
    assert!(
        analyzer.push(b"more").is_err(),
        "no file is open after a cancel"
    );
    assert_eq!(analyzer.overview().figures.conversations, 0);
    assert!(analyzer.files().is_empty());
}

#[test]
fn a_truncated_export_keeps_the_conversations_before_the_cut() {
    let json = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
    let mut analyzer = Analyzer::new();
    let file = analyzer
        .add_file("cut.json", &json[..json.len() - 200])
        .unwrap();
    assert_eq!(file.conversations, 2);
    assert_eq!(file.stats.malformed, 1);
}

#[test]
fn ledgers_are_recognized_by_content_and_folded_together() {
    let header = baton_core::ledger::event::encode_header("g1");
    let mut analyzer = Analyzer::new();
    let file = analyzer
        .add_file("events.ndjson", format!("{header}\n").as_bytes())
        .unwrap();
    assert_eq!(file.format, FileFormat::BatonLedger);
    assert_eq!(analyzer.overview().sessions, 0);
}

#[test]
fn search_filters_and_sorts_the_list() {
    let mut analyzer = Analyzer::new();
    for path in FIXTURES {
        analyzer.add_file(path, &fixture(path)).unwrap();
    }
    let all = analyzer.list(&ListQuery::default());
    assert_eq!(all.total, analyzer.conversations().len());
    // Newest first by default.
    let dates: Vec<_> = all
        .rows
        .iter()
        .map(|r| r.head.updated_at.or(r.head.started_at))
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    let by_title = analyzer.list(&ListQuery {
        sort: baton_core::analyzer::ListSort::Title,
        ..ListQuery::default()
    });
    let titles: Vec<String> = by_title
        .rows
        .iter()
        .map(|r| r.head.title.to_lowercase())
        .collect();
    assert!(titles.windows(2).all(|w| w[0] <= w[1]), "{titles:?}");
    // A word from inside one message, in another case, finds it with a snippet.
    let found = analyzer.list(&ListQuery {
        search: "BAKERY".into(),
        ..ListQuery::default()
    });
    assert!(found.total >= 1);
    assert!(
        found.rows.iter().any(|r| r
            .snippet
            .as_deref()
            .is_some_and(|s| s.to_lowercase().contains("bakery"))
            || r.head.title.to_lowercase().contains("bakery")),
        "{found:?}"
    );
    let none = analyzer.list(&ListQuery {
        search: "zzqx-never-said".into(),
        ..ListQuery::default()
    });
    assert_eq!(none.total, 0);
    let codex = analyzer.list(&ListQuery {
        provider: Some(baton_core::transcripts::Provider::Codex),
        ..ListQuery::default()
    });
    assert_eq!(codex.total, 2);
    assert!(
        codex
            .rows
            .iter()
            .all(|r| r.head.provider == baton_core::transcripts::Provider::Codex)
    );
    let page = analyzer.list(&ListQuery {
        offset: 2,
        limit: 3,
        ..ListQuery::default()
    });
    assert_eq!(page.rows.len(), 3);
    assert_eq!(page.rows[0], all.rows[2]);
}

#[test]
fn the_reader_walks_the_active_branch_and_switches_to_another() {
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(
            "c.json",
            &fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json"),
        )
        .unwrap();
    let branched = analyzer
        .list(&ListQuery::default())
        .rows
        .into_iter()
        .find(|r| r.forks > 0)
        .expect("the fixture has a branched conversation");
    let active = analyzer.view(branched.head.index, None).unwrap();
    assert!(active.active);
    assert!(!active.messages.is_empty());
    let fork = active
        .messages
        .iter()
        .find(|m| m.alternatives.len() > 1)
        .expect("a message with alternatives");
    let other = fork
        .alternatives
        .iter()
        .find(|id| **id != fork.id)
        .unwrap()
        .clone();
    let switched = analyzer.view(branched.head.index, Some(&other)).unwrap();
    assert!(!switched.active);
    assert!(switched.messages.iter().any(|m| m.id == other));
    assert!(!switched.messages.iter().any(|m| m.id == fork.id));
    // Every message follows its parent.
    let conversation = &analyzer.conversations()[branched.head.index];
    for pair in switched.messages.windows(2) {
        let child = conversation
            .messages
            .iter()
            .find(|m| m.id == pair[1].id)
            .unwrap();
        assert_eq!(child.parent.as_deref(), Some(pair[0].id.as_str()));
    }
    // Back through the original message: the active branch again.
    let back = analyzer.view(branched.head.index, Some(&fork.id)).unwrap();
    assert!(back.active);
    let md = markdown(&switched);
    assert!(md.starts_with(&format!("# {}", switched.head.title)));
    assert!(md.contains("alternative"));
    assert!(analyzer.view(999, None).is_err());
    assert!(
        analyzer
            .view(branched.head.index, Some("no-such-id"))
            .is_err()
    );
}

#[test]
fn every_branch_of_a_forked_conversation_is_read_once_active_first() {
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(
            "c.json",
            &fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json"),
        )
        .unwrap();
    let rows = analyzer.list(&ListQuery::default()).rows;
    let branched = rows.iter().find(|r| r.forks > 0).unwrap();
    let branches = analyzer.branches(branched.head.index).unwrap();
    assert!(branches[0].active, "the active branch comes first");
    assert!(branches[1..].iter().all(|b| !b.active));
    assert!(
        branches.len() > branched.forks,
        "a fork gives at least one more branch"
    );
    let ends: std::collections::BTreeSet<&str> = branches
        .iter()
        .map(|b| b.messages.last().unwrap().id.as_str())
        .collect();
    assert_eq!(ends.len(), branches.len(), "each branch ends elsewhere");
    // Every question a person asked, edited ones included, is on some branch.
    let on_some: std::collections::BTreeSet<&str> = branches
        .iter()
        .flat_map(|b| b.messages.iter().map(|m| m.id.as_str()))
        .collect();
    let conversation = &analyzer.conversations()[branched.head.index];
    for m in &conversation.messages {
        if m.role == baton_core::transcripts::conversation::Role::User {
            assert!(on_some.contains(m.id.as_str()), "{} is on no branch", m.id);
        }
    }
    // A conversation without forks has exactly one branch.
    let straight = rows.iter().find(|r| r.forks == 0).unwrap();
    assert_eq!(analyzer.branches(straight.head.index).unwrap().len(), 1);
    assert!(analyzer.branches(999).is_err());
}

#[test]
fn every_fixture_conversation_reads_non_empty() {
    let mut analyzer = Analyzer::new();
    for path in FIXTURES {
        analyzer.add_file(path, &fixture(path)).unwrap();
    }
    for (index, c) in analyzer.conversations().iter().enumerate() {
        let view = analyzer.view(index, None).unwrap();
        assert_eq!(view.messages.is_empty(), c.messages.is_empty(), "{}", c.id);
    }
    let md = analyzer.all_markdown();
    for index in 0..analyzer.conversations().len() {
        let title = analyzer.view(index, None).unwrap().head.title;
        assert!(
            md.contains(&format!("# {}\n", title.replace('\n', " "))),
            "{title}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&analyzer.all_json()).unwrap();
    assert_eq!(
        json.as_array().unwrap().len(),
        analyzer.conversations().len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_bytes_make_it_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048), chunk in 1usize..64) {
        let mut analyzer = Analyzer::new();
        analyzer.begin("any");
        let mut ok = true;
        for piece in bytes.chunks(chunk) {
            if analyzer.push(piece).is_err() { ok = false; break; }
        }
        if ok { let _ = analyzer.finish(); }
        let _ = analyzer.overview();
        let _ = analyzer.charts(960);
    }

    #[test]
    fn damaged_archives_never_panic(cut in 0usize..4000, flip in 0usize..4000, bit in 0u8..8) {
        let json = fixture("claude-ai/claude-chat-viewer-testdata-conversations.json");
        let mut zip = write_zip(&[("conversations.json", json.as_slice())], true);
        if flip < zip.len() { zip[flip] ^= 1 << bit; }
        zip.truncate(cut.max(4).min(zip.len()));
        let mut analyzer = Analyzer::new();
        let _ = analyzer.add_file("x.zip", &zip);
    }

    #[test]
    fn exports_split_anywhere_read_the_same(cuts in proptest::collection::vec(0usize..42833, 0..12)) {
        let json = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
        let (_, whole) = parse(&json).unwrap();
        let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c < json.len()).collect();
        cuts.sort();
        let mut analyzer = Analyzer::new();
        analyzer.begin("c.json");
        let mut from = 0;
        for cut in cuts.into_iter().chain([json.len()]) {
            analyzer.push(&json[from..cut]).unwrap();
            from = cut;
        }
        analyzer.finish().unwrap();
        prop_assert_eq!(analyzer.conversations(), &whole.conversations[..]);
    }
}

#[test]
fn ledger_sessions_come_with_their_timeline() {
    use baton_core::ledger::event::{Actor, Event, Payload, Started};
    use baton_core::{EventId, SessionId, Timestamp};
    let session = SessionId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-000000000002").unwrap());
    let line = Event {
        id: EventId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-000000000001").unwrap()),
        session,
        at: Timestamp::from_millis(1_780_000_000_000),
        actor: Actor::agent("claude"),
        payload: Payload::Started(Started::new("demo", "claude")),
    }
    .encode()
    .unwrap();
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file("events.ndjson", format!("{line}\nnot json\n").as_bytes())
        .unwrap();
    assert_eq!(analyzer.overview().sessions, 1);
    assert_eq!(analyzer.overview().ledger_problems, 1);
    let sessions = analyzer.sessions();
    assert_eq!(sessions[0].project, "demo");
    let timeline = analyzer.session_timeline(&session.to_string()).unwrap();
    assert_eq!(timeline[0].kind, "started");
    let err = analyzer
        .session_timeline("019c0000-0000-7000-8000-0000000000ff")
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
}

/// A ZIP64 archive as large-export tools write it: 32-bit fields saturated, the real values
/// in ZIP64 extra fields, and the ZIP64 end record with its locator.
fn zip64(name: &str, data: &[u8]) -> Vec<u8> {
    let packed = miniz_oxide::deflate::compress_to_vec(data, 6);
    let crc = baton_core::transcripts::zip::crc32_update(0, data);
    let u16le = |v: u16| v.to_le_bytes().to_vec();
    let u32le = |v: u32| v.to_le_bytes().to_vec();
    let u64le = |v: u64| v.to_le_bytes().to_vec();
    let mut out = Vec::new();
    // Local header: sizes in its ZIP64 extra field.
    let local_extra = [
        u16le(1),
        u16le(16),
        u64le(data.len() as u64),
        u64le(packed.len() as u64),
    ]
    .concat();
    out.extend(
        [
            u32le(0x0403_4b50),
            u16le(45),
            u16le(0),
            u16le(8),
            u32le(0),
            u32le(crc),
            u32le(u32::MAX),
            u32le(u32::MAX),
            u16le(name.len() as u16),
            u16le(local_extra.len() as u16),
        ]
        .concat(),
    );
    out.extend_from_slice(name.as_bytes());
    out.extend(&local_extra);
    out.extend(&packed);
    let dir_at = out.len() as u64;
    let central_extra = [
        u16le(1),
        u16le(24),
        u64le(data.len() as u64),
        u64le(packed.len() as u64),
        u64le(0),
    ]
    .concat();
    let mut central = [
        u32le(0x0201_4b50),
        u16le(45),
        u16le(45),
        u16le(0),
        u16le(8),
        u32le(0),
        u32le(crc),
        u32le(u32::MAX),
        u32le(u32::MAX),
        u16le(name.len() as u16),
        u16le(central_extra.len() as u16),
        u16le(0),
        u16le(0),
        u16le(0),
        u32le(0),
        u32le(u32::MAX),
    ]
    .concat();
    central.extend_from_slice(name.as_bytes());
    central.extend(&central_extra);
    out.extend(&central);
    let record_at = out.len() as u64;
    out.extend(
        [
            u32le(0x0606_4b50),
            u64le(44),
            u16le(45),
            u16le(45),
            u32le(0),
            u32le(0),
            u64le(1),
            u64le(1),
            u64le(central.len() as u64),
            u64le(dir_at),
        ]
        .concat(),
    );
    out.extend([u32le(0x0706_4b50), u32le(0), u64le(record_at), u32le(1)].concat());
    out.extend(
        [
            u32le(0x0605_4b50),
            u16le(0),
            u16le(0),
            u16le(u16::MAX),
            u16le(u16::MAX),
            u32le(u32::MAX),
            u32le(u32::MAX),
            u16le(0),
        ]
        .concat(),
    );
    out
}

#[test]
fn zip64_archives_are_read() {
    let json = fixture("claude-ai/claude-chat-viewer-testdata-conversations.json");
    let archive = zip64("conversations.json", &json);
    let entries = baton_core::transcripts::zip::entries(&archive).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].size, json.len() as u64);
    let plain = fed_in_chunks("conversations.json", &json, 1 << 20);
    let zipped = fed_in_chunks("export.zip", &archive, 1000);
    assert_eq!(zipped.conversations(), plain.conversations());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Odd times (far past and future, fractions, negative), odd text (any Unicode, empty)
    /// and odd searches: every view answers, none panics.
    #[test]
    fn odd_times_and_text_never_panic(
        times in proptest::collection::vec(prop_oneof![any::<f64>(), -1e13f64..1e13, Just(0.0)], 1..6),
        text in "\\PC{0,40}",
        search in "\\PC{0,8}",
    ) {
        let mapping: Vec<String> = times.iter().enumerate().map(|(i, t)| {
            let time = if t.is_finite() { t.to_string() } else { "null".into() };
            let parent = if i == 0 { "null".to_owned() } else { format!("\"m{}\"", i - 1) };
            format!(r#""m{i}":{{"id":"m{i}","parent":{parent},"message":{{"id":"m{i}","author":{{"role":"{}"}},"create_time":{time},"content":{{"content_type":"text","parts":[{}]}},"metadata":{{"model_slug":"m"}}}}}}"#,
                if i % 2 == 0 { "user" } else { "assistant" }, serde_json::to_string(&text).unwrap())
        }).collect();
        let export = format!(r#"[{{"id":"c","title":{},"create_time":{},"mapping":{{{}}}}}]"#,
            serde_json::to_string(&text).unwrap(),
            if times[0].is_finite() { times[0].to_string() } else { "null".into() },
            mapping.join(","));
        let mut analyzer = Analyzer::new();
        analyzer.add_file("conversations.json", export.as_bytes()).unwrap();
        let _ = analyzer.overview();
        let _ = analyzer.charts(960);
        let list = analyzer.list(&ListQuery { search, ..ListQuery::default() });
        for row in list.rows {
            let view = analyzer.view(row.head.index, None).unwrap();
            let _ = markdown(&view);
            for m in &view.messages {
                let _ = analyzer.view(row.head.index, Some(&m.id)).unwrap();
            }
        }
        let _ = analyzer.all_markdown();
    }
}

#[test]
fn parallel_tool_work_reads_inline_and_is_not_offered_as_a_branch() {
    // A Claude Code sub-agent that ran tools in parallel: its tree fans out into side chains
    // of tool calls and results while the conversation goes on from one of them.
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(
            "agent.jsonl",
            &fixture("claude-code/spotter-subagents-ae4a77f8/agent-aac57f5.jsonl"),
        )
        .unwrap();
    let conversation = &analyzer.conversations()[0];
    assert_eq!(conversation.active_branch().len(), 13);
    let view = analyzer.view(0, None).unwrap();
    assert_eq!(view.messages.len(), 28, "every call and result is shown");
    assert!(view.messages.iter().all(|m| m.alternatives.is_empty()));
    let ids: BTreeSet<&str> = view.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), 28, "each once");
    // Each shown message comes after its parent.
    for (i, m) in view.messages.iter().enumerate() {
        let parent = conversation
            .messages
            .iter()
            .find(|x| x.id == m.id)
            .unwrap()
            .parent
            .clone();
        if let Some(parent) = parent {
            let at = view.messages.iter().position(|x| x.id == parent).unwrap();
            assert!(at < i, "{} before its parent", m.id);
        }
    }
    let row = &analyzer.list(&ListQuery::default()).rows[0];
    assert_eq!(row.forks, 0, "parallel tool calls are not forks");
}

#[test]
fn claude_code_duplicates_count_once_and_structural_lines_keep_the_branch_whole() {
    let mut analyzer = Analyzer::new();
    for path in [
        "claude-code/claude-code-log-edge_cases.jsonl",
        "claude-code/spotter-v2.1.38-short.jsonl",
    ] {
        analyzer.add_file(path, &fixture(path)).unwrap();
    }
    for (index, c) in analyzer.conversations().iter().enumerate() {
        let ids: BTreeSet<&str> = c.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids.len(),
            c.messages.len(),
            "{}: a message written twice counts once",
            c.id
        );
        let view = analyzer.view(index, None).unwrap();
        assert_eq!(
            view.messages.len(),
            c.messages.len(),
            "{}: the whole conversation reads",
            c.id
        );
    }
}

#[test]
fn the_report_is_the_overview_and_the_charts_and_format_names_match_json() {
    let mut analyzer = Analyzer::new();
    for path in FIXTURES {
        analyzer.add_file(path, &fixture(path)).unwrap();
    }
    let report = analyzer.report();
    assert_eq!(report.overview, analyzer.overview());
    assert_eq!(report.charts, analyzer.charts(960));
    for format in FileFormat::all() {
        let json = serde_json::to_value(format).unwrap();
        assert_eq!(json, format.as_str());
        assert_eq!(serde_json::from_value::<FileFormat>(json).unwrap(), format);
    }
    assert_eq!(FileFormat::all().count(), Provider::ALL.len() + 1);
    assert!(serde_json::from_value::<FileFormat>("claude-code".into()).is_err());
}

#[test]
fn the_markdown_export_reads_as_pinned() {
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(
            "chatgpt/pkuppens-real-2023-06-export-subset3.json",
            &fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json"),
        )
        .unwrap();
    let branched = analyzer
        .list(&ListQuery {
            limit: 1000,
            ..ListQuery::default()
        })
        .rows
        .into_iter()
        .find(|r| r.forks > 0)
        .expect("the fixture has a branched conversation");
    let view = analyzer.view(branched.head.index, None).unwrap();
    insta::assert_snapshot!("markdown_export", markdown(&view));
}

#[test]
fn codex_responses_carry_the_tokens_of_their_request_once() {
    let line = |kind: &str, payload: serde_json::Value| {
        serde_json::json!({ "timestamp": "2026-05-13T09:00:00.000Z", "type": kind, "payload": payload }).to_string()
    };
    let count = |total: u64, last: u64| {
        serde_json::json!({ "type": "token_count", "info": {
            "total_token_usage": { "input_tokens": total, "cached_input_tokens": 100, "output_tokens": 50, "reasoning_output_tokens": 20 },
            "last_token_usage": { "input_tokens": last, "cached_input_tokens": 100, "output_tokens": 50, "reasoning_output_tokens": 20 } } })
    };
    let file = [
        line("session_meta", serde_json::json!({ "id": "c1", "cwd": "/w" })),
        line("turn_context", serde_json::json!({ "model": "gpt-5.2-codex" })),
        line("response_item", serde_json::json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "hi" }] })),
        line("response_item", serde_json::json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "hello" }] })),
        line("event_msg", count(1000, 1000)),
        // Codex writes the same count again: it changes nothing.
        line("event_msg", count(1000, 1000)),
        line("response_item", serde_json::json!({ "type": "function_call", "name": "shell", "call_id": "x", "arguments": "{\"command\":[\"ls\"]}" })),
        line("event_msg", count(3000, 2000)),
    ]
    .join("\n");
    let mut analyzer = Analyzer::new();
    analyzer.add_file("rollout.jsonl", file.as_bytes()).unwrap();
    let view = analyzer.view(0, None).unwrap();
    let tokens: Vec<Option<u64>> = view
        .messages
        .iter()
        .map(|m| m.tokens.map(|t| t.input_tokens))
        .collect();
    // Input without its cached part, as everywhere in Baton.
    assert_eq!(tokens, vec![None, Some(900), Some(1900)]);
    let first = view.messages[1].tokens.unwrap();
    assert_eq!(
        (
            first.cache_read_tokens,
            first.output_tokens,
            first.reasoning_tokens
        ),
        (100, 50, 20)
    );
}
