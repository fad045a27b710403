//! Provider usage from the real fixtures (copied with their attribution in
//! `tests/fixtures/SOURCES.md`): counts checked against an independent reading of the same
//! rules, format detection by content, and no panic on damaged input.

use crate::fixture;
use baton_core::transcripts::usage::claude_code::ClaudeCodeUsage;
use baton_core::transcripts::usage::codex::CodexUsage;
use baton_core::transcripts::{Provider, UsageEntry, detect, repair_lone_surrogates};
use proptest::prelude::*;

fn sums(entries: &[UsageEntry]) -> [u64; 5] {
    entries.iter().fold([0; 5], |s, e| {
        [
            s[0] + e.tokens.input_tokens,
            s[1] + e.tokens.output_tokens,
            s[2] + e.tokens.cache_creation_tokens,
            s[3] + e.tokens.cache_read_tokens,
            s[4] + e.tokens.reasoning_tokens,
        ]
    })
}

/// (file, lines, lines carrying usage, responses after dedup, [input, output, creation, read])
const CLAUDE_CODE: &[(&str, u64, usize, [u64; 4])] = &[
    (
        "claude-code/ccusage-usage-only-chat.jsonl",
        3,
        3,
        [600, 250, 75, 70],
    ),
    (
        "claude-code/claude-code-log-edge_cases.jsonl",
        19,
        4,
        [488, 435, 0, 0],
    ),
    (
        "claude-code/sniffly-v1.0.17-ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl",
        76,
        24,
        [91, 2266, 16072, 503_769],
    ),
    (
        "claude-code/sniffly-v1.0.17-fed8ce56-bc79-401f-a83e-af084253362f.jsonl",
        21,
        4,
        [88, 278, 16000, 44544],
    ),
    (
        "claude-code/sniffly-v1.0.17-ff71dbed-a4f2-4284-a4fc-fe2fb90de929.jsonl",
        1,
        0,
        [0, 0, 0, 0],
    ),
    (
        "claude-code/spotter-subagents-ae4a77f8/agent-aac57f5.jsonl",
        40,
        3,
        [2408, 7, 18814, 29274],
    ),
    (
        "claude-code/spotter-subagents-ae4a77f8/agent-acompact-946d2b.jsonl",
        2,
        1,
        [3, 8, 121_689, 17842],
    ),
    (
        "claude-code/spotter-v2.1.38-short.jsonl",
        15,
        1,
        [3, 13, 13835, 11515],
    ),
    (
        "claude-code/spotter-v2.1.38-tool_heavy.jsonl",
        39,
        4,
        [54, 212, 17696, 88231],
    ),
];

#[test]
fn claude_code_fixtures_count_each_response_once_with_its_final_output() {
    for (file, lines, responses, [input, output, creation, read]) in CLAUDE_CODE {
        let mut reader = ClaudeCodeUsage::new();
        reader.push_bytes(&fixture(file));
        let (entries, stats) = reader.finish();
        assert_eq!(stats.lines, *lines, "{file}");
        assert_eq!(entries.len(), *responses, "{file}");
        assert_eq!(
            sums(&entries)[..4],
            [*input, *output, *creation, *read],
            "{file}"
        );
        assert_eq!(stats.malformed, 0, "{file}");
    }
}

/// Every Claude Code fixture read at once, as collected responses in read order.
fn every_claude_response() -> Vec<baton_core::transcripts::usage::claude_code::Response> {
    let mut collecting = ClaudeCodeUsage::collecting();
    let mut responses = Vec::new();
    for (file, ..) in CLAUDE_CODE {
        let bytes = fixture(file);
        collecting.push_bytes(&bytes);
        // Twice, as a resumed file repeats its lines.
        collecting.push_bytes(&bytes);
        responses.extend(collecting.take_collected());
    }
    responses
}

#[test]
fn each_message_id_settled_alone_counts_what_one_read_counts() {
    let responses = every_claude_response();
    let mut whole = ClaudeCodeUsage::new();
    for response in responses.clone() {
        whole.replay(response);
    }
    let (counted, _) = whole.finish();
    // Group by message id (a response without one is a group of its own), settle each.
    let mut groups: std::collections::BTreeMap<Option<u128>, Vec<usize>> = Default::default();
    for (at, response) in responses.iter().enumerate() {
        let key = response.message_id.or(Some(u128::MAX - at as u128));
        groups.entry(key).or_default().push(at);
    }
    let mut kept = Vec::new();
    for members in groups.values() {
        let group: Vec<_> = members.iter().map(|m| responses[*m].clone()).collect();
        for position in ClaudeCodeUsage::counted_positions(group) {
            kept.push(responses[members[position]].entry.clone());
        }
    }
    assert!(
        counted.len() < responses.len(),
        "the fixtures repeat responses"
    );
    assert_eq!(kept.len(), counted.len());
    assert_eq!(sums(&kept), sums(&counted));
    let mut ats: Vec<_> = kept.iter().map(|e| (e.at, e.tokens.total())).collect();
    let mut expected: Vec<_> = counted.iter().map(|e| (e.at, e.tokens.total())).collect();
    ats.sort();
    expected.sort();
    assert_eq!(ats, expected);
}

#[test]
fn a_session_s_project_is_its_earliest_working_directory_else_its_folder() {
    use baton_core::Timestamp;
    use baton_core::transcripts::usage::claude_code::project_of;
    let t = Timestamp::from_millis;
    assert_eq!(
        project_of([
            (t(20), Some("/work/b/"), Some("f")),
            (t(10), Some("/work/a"), None),
            (t(10), Some("/work/c"), None),
        ]),
        Some("/work/a".to_owned())
    );
    assert_eq!(
        project_of([(t(1), None, None), (t(2), None, Some("-work-x"))]),
        Some("-work-x".to_owned())
    );
    assert_eq!(project_of([(t(1), None, None)]), None);
}

#[test]
fn a_resumed_file_that_repeats_lines_counts_them_once() {
    let bytes = fixture("claude-code/sniffly-v1.0.17-fed8ce56-bc79-401f-a83e-af084253362f.jsonl");
    let mut once = ClaudeCodeUsage::new();
    once.push_bytes(&bytes);
    let mut twice = ClaudeCodeUsage::new();
    twice.push_bytes(&bytes);
    twice.push_bytes(&bytes);
    assert_eq!(sums(&once.finish().0), sums(&twice.finish().0));
}

#[test]
fn codex_cumulative_totals_become_deltas_and_reemissions_count_once() {
    let bytes = fixture("codex/ccusage-session-alpha.jsonl");
    let mut reader = CodexUsage::new("alpha");
    reader.push_bytes(&bytes);
    // A re-emitted token_count with unchanged totals (a rate-limit refresh).
    let last = bytes
        .split(|&b| b == b'\n')
        .rfind(|l| !l.is_empty())
        .unwrap()
        .to_vec();
    reader.push_line(&last);
    let (entries, stats) = reader.finish();
    assert_eq!(stats.duplicates, 1);
    assert_eq!(entries.len(), 2);
    // Input excludes cached input; output includes reasoning.
    assert_eq!(
        sums(&entries),
        [750 + 2000, 125 + 300, 0, 250 + 500, 75 + 200]
    );
    assert_eq!(entries[0].model.as_deref(), Some("gpt-5.2-codex"));
    assert_eq!(entries[1].model.as_deref(), Some("gpt-5.3-codex"));
}

#[test]
fn codex_files_without_token_counts_have_no_usage() {
    for file in [
        "codex/simonw-claude-code-transcripts-sample_codex_session-v0.77.0.jsonl",
        "codex/agentsview-function_calls.jsonl",
    ] {
        let mut reader = CodexUsage::new(file);
        reader.push_bytes(&fixture(file));
        let (entries, stats) = reader.finish();
        assert!(entries.is_empty(), "{file}");
        assert_eq!(stats.malformed, 0, "{file}");
    }
}

#[test]
fn formats_are_detected_by_content() {
    // Every fixture of the conversation tests, and a few more of the agents'.
    let more = [
        (
            "claude-code/ccusage-usage-only-chat.jsonl",
            Provider::ClaudeCode,
        ),
        ("codex/ccusage-session-alpha.jsonl", Provider::Codex),
    ];
    let every = crate::conversations::EXPECTED.iter().map(|e| (e.0, e.1));
    let cases: Vec<(&str, Provider)> = every.chain(more).collect();
    for (file, provider) in cases {
        assert_eq!(detect(&fixture(file)).unwrap(), provider, "{file}");
    }
    let err = detect(b"hello world\n").unwrap_err();
    assert_eq!(err.code, baton_core::ErrorCode::UnknownFormat);
    assert_eq!(err.details["seen"], "hello world");
}

/// A provider is named one way in the index and read in either spelling, whatever the case.
#[test]
fn providers_are_named_once_and_read_in_either_spelling() {
    for provider in Provider::ALL {
        assert_eq!(Provider::named(provider.key()), Some(provider));
        assert_eq!(
            Provider::named(&provider.key().replace('_', "-")),
            Some(provider)
        );
    }
    assert_eq!(Provider::named(" Claude_Code "), Some(Provider::ClaudeCode));
    assert_eq!(Provider::named("openai"), None);
    assert!(Provider::Codex.has_usage() && !Provider::Chatgpt.has_usage());
}

#[test]
fn lone_surrogates_are_repaired_and_pairs_kept() {
    // The damage sits in a field the reader keeps (`cwd`), so the typed parse fails too.
    let line = br#"{"timestamp":"2026-01-09T10:00:00.000Z","sessionId":"s","requestId":"r","cwd":"/tmp/cut \ud83d","message":{"id":"m","model":"claude","usage":{"input_tokens":1,"output_tokens":2}}}"#;
    assert!(serde_json::from_slice::<serde_json::Value>(line).is_err());
    let mut reader = ClaudeCodeUsage::new();
    reader.push_line(line);
    let (entries, stats) = reader.finish();
    assert_eq!((entries.len(), stats.repaired_surrogates), (1, 1));
    assert_eq!(entries[0].project.as_deref(), Some("/tmp/cut \u{fffd}"));
    assert!(
        repair_lone_surrogates(br#""\ud83d\ude00""#).is_none(),
        "a valid pair is left alone"
    );
    assert!(
        repair_lone_surrogates(br#""\\ud83d""#).is_none(),
        "an escaped backslash is not an escape"
    );
}

proptest! {
    #[test]
    fn readers_never_panic_on_damaged_fixtures(cut in 0usize..120_000, flip in 0usize..120_000, byte in any::<u8>()) {
        for file in ["claude-code/spotter-v2.1.38-tool_heavy.jsonl", "codex/ccusage-session-alpha.jsonl"] {
            let mut bytes = fixture(file);
            let at = flip % bytes.len();
            bytes[at] = byte;
            bytes.truncate(cut % (bytes.len() + 1));
            let mut claude = ClaudeCodeUsage::new();
            claude.push_bytes(&bytes);
            let mut codex = CodexUsage::new("x");
            codex.push_bytes(&bytes);
            let _ = detect(&bytes);
            let _ = repair_lone_surrogates(&bytes);
        }
    }

    #[test]
    fn surrogate_repair_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = repair_lone_surrogates(&bytes);
    }
}

/// A rollout: `session_meta` (with `meta_extra` fields), then token_counts as
/// (timestamp, cumulative input, cumulative output).
fn rollout(meta_extra: &str, counts: &[(&str, u64, u64)]) -> Vec<u8> {
    let mut text = format!(
        r#"{{"timestamp":"2026-03-01T10:00:00.100Z","type":"session_meta","payload":{{"id":"child","cwd":"/w"{meta_extra}}}}}"#
    );
    text.push_str("\n{\"timestamp\":\"2026-03-01T10:00:00.100Z\",\"type\":\"turn_context\",\"payload\":{\"model\":\"gpt-5.2-codex\",\"cwd\":\"/w\"}}\n");
    for (at, input, output) in counts {
        text.push_str(&format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{input},"cached_input_tokens":0,"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":{}}},"last_token_usage":null}}}}}}"#,
            input + output
        ));
        text.push('\n');
    }
    text.into_bytes()
}

#[test]
fn a_forked_rollout_does_not_count_its_parent_s_copied_events_again() {
    // The parent's two token_counts are copied in the fork's first second; the fork's own
    // work follows seconds later and continues the cumulative totals.
    let counts = [
        ("2026-03-01T10:00:00.200Z", 100, 10),
        ("2026-03-01T10:00:00.300Z", 300, 30),
        ("2026-03-01T10:00:05.000Z", 350, 40),
        ("2026-03-01T10:00:09.000Z", 500, 70),
    ];
    for meta in [
        r#","forked_from_id":"parent""#,
        r#","source":{"subagent":{"thread_spawn":{"parent_thread_id":"parent"}}}"#,
    ] {
        let mut reader = CodexUsage::new("child");
        reader.push_bytes(&rollout(meta, &counts));
        let (entries, stats) = reader.finish();
        assert_eq!(stats.duplicates, 2, "{meta}");
        assert_eq!(sums(&entries)[..2], [50 + 150, 10 + 30], "{meta}");
        // A fork is the person's own work under its own id; a spawned sub-agent's is work
        // its parent delegated, counted under the parent's session.
        let sub_agent = meta.contains("subagent");
        assert!(entries.iter().all(|e| e.delegated == sub_agent), "{meta}");
        let session = if sub_agent { "parent" } else { "child" };
        assert!(entries.iter().all(|e| &*e.session == session), "{meta}");
    }
    // A sub-agent of another kind (a review) names no parent: delegated, under its own id.
    let mut reader = CodexUsage::new("child");
    reader.push_bytes(&rollout(r#","source":{"subagent":"review"}"#, &counts));
    let (entries, _) = reader.finish();
    assert!(
        entries
            .iter()
            .all(|e| e.delegated && &*e.session == "child")
    );
    // The same events in an ordinary rollout all count.
    let mut reader = CodexUsage::new("plain");
    reader.push_bytes(&rollout(r#","source":"cli""#, &counts));
    let (entries, _) = reader.finish();
    assert_eq!(sums(&entries)[..2], [500, 70]);
}

/// One tally over many files counts as each provider means it: a Claude Code response logged
/// in two files (a resumed session) once, each Codex rollout on its own; tallies of two
/// threads merge to the same count, and a file that could not be read is said.
#[test]
fn a_usage_tally_counts_each_provider_as_it_means_it() {
    use baton_core::transcripts::tally::UsageTally;
    let claude = fixture("claude-code/ccusage-usage-only-chat.jsonl");
    let codex = fixture("codex/ccusage-session-alpha.jsonl");
    let read = |tally: &mut UsageTally, provider: Provider, name: &str, bytes: &[u8]| {
        let mut ingest = tally.ingest(provider, name);
        let pushed = ingest.push(bytes);
        let (added, result) = tally.absorb(ingest, pushed);
        result.unwrap();
        added
    };
    let mut one = UsageTally::new();
    let first = read(
        &mut one,
        Provider::ClaudeCode,
        "a/projects/p/s1.jsonl",
        &claude,
    );
    assert!(first > 0);
    read(
        &mut one,
        Provider::ClaudeCode,
        "a/projects/p/s2.jsonl",
        &claude,
    );
    read(&mut one, Provider::Codex, "rollout-1.jsonl", &codex);
    let mut other = UsageTally::new();
    read(&mut other, Provider::Codex, "rollout-2.jsonl", &codex);
    other.count_unreadable();
    one.merge(other);
    let (entries, skipped) = one.finish();
    let claude_alone = {
        let mut reader = ClaudeCodeUsage::new();
        reader.push_bytes(&claude);
        reader.finish().0
    };
    let codex_alone = {
        let mut reader = CodexUsage::new("rollout");
        reader.push_bytes(&codex);
        reader.finish().0
    };
    assert_eq!(entries.len(), claude_alone.len() + 2 * codex_alone.len());
    assert_eq!(skipped["duplicate_responses"], claude_alone.len() as u64);
    assert_eq!(skipped["unreadable_files"], 1);
}
