//! Cost as a bill would show it: every token class at its own rate, hand-computed; exact,
//! aliased and unknown models; long-context tiers; recorded `costUSD`; and the report rules
//! that come with cost (a session's one project, days in a zone).

use crate::fixture;
use baton_core::time::{Timestamp, UtcZone, Zone, parse_day_in};
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::claude_code::ClaudeCodeUsage;
use baton_core::transcripts::usage::codex::CodexUsage;
use baton_core::transcripts::usage::{
    CostMode, GroupBy, PriceTable, ReportOptions, UsageReport, aggregate, project_key,
};
use baton_core::transcripts::{Provider, UsageEntry};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A table with one model of each shape, so the hand computations below read off it.
fn table() -> PriceTable {
    PriceTable::parse(
        r#"{"source": "test", "date": "2026-11-30", "models": {
            "claude-opus-4-7": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write_5m": 6.25, "cache_write_1h": 10},
            "claude-sonnet-4-20250514": {"input": 3, "output": 15, "cache_read": 0.3, "cache_write": 3.75,
                "above": {"tokens": 200000, "input": 6, "output": 22.5, "cache_read": 0.6, "cache_write_5m": 7.5}},
            "gpt-5.4": {"input": 2.5, "output": 15, "cache_read": 0.25,
                "above": {"tokens": 272000, "input": 5, "output": 22.5, "cache_read": 0.5}},
            "deepseek": {"input": 1, "output": 1}
        }}"#,
    )
    .unwrap()
}

fn entry(model: &str, tokens: [u64; 4], one_hour: u64, recorded: Option<u64>) -> UsageEntry {
    UsageEntry {
        provider: Provider::ClaudeCode,
        at: Timestamp::parse("2026-11-30T23:30:00Z").unwrap(),
        session: Arc::from("s1"),
        project: None,
        model: Some(Arc::from(model)),
        tokens: TokenTotals {
            input_tokens: tokens[0],
            output_tokens: tokens[1],
            cache_creation_tokens: tokens[2],
            cache_read_tokens: tokens[3],
            reasoning_tokens: 0,
        },
        cache_creation_1h_tokens: one_hour,
        request_context_tokens: None,
        recorded_cost_micro_usd: recorded,
        fast: false,
        web_searches: 0,
        delegated: false,
    }
}

fn report(
    entries: &[UsageEntry],
    group_by: GroupBy,
    mode: CostMode,
    zone: &dyn Zone,
) -> UsageReport {
    let prices = table();
    let options = ReportOptions {
        group_by,
        since: None,
        until: None,
        providers: &[],
        prices: &prices,
        cost_mode: mode,
        zone,
    };
    aggregate(entries, &options, BTreeMap::new())
}

fn cost(entries: &[UsageEntry], mode: CostMode) -> f64 {
    report(entries, GroupBy::Model, mode, &UtcZone)
        .totals
        .cost_usd
}

#[test]
fn every_token_class_is_priced_at_its_own_rate() {
    // 1,000 input at $5, 2,000 output at $25, 3,000 five-minute writes at $6.25, 4,000
    // one-hour writes at $10 and 5,000 cache reads at $0.50 (per million):
    // 0.005 + 0.05 + 0.01875 + 0.04 + 0.0025 = 0.11625.
    let exact = entry("claude-opus-4-7", [1000, 2000, 7000, 5000], 4000, None);
    assert_eq!(cost(&[exact], CostMode::Calculate), 0.11625);
}

#[test]
fn an_aliased_model_is_priced_as_its_table_key_and_says_so() {
    for alias in [
        "claude-opus-4-7-thinking",
        "anthropic/claude-opus-4-7",
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-opus-4-7-v1:0",
        "claude-opus-4-7@20260416",
    ] {
        let e = entry(alias, [1000, 2000, 7000, 5000], 4000, None);
        let r = report(&[e], GroupBy::Model, CostMode::Calculate, &UtcZone);
        assert_eq!(r.totals.cost_usd, 0.11625, "{alias}");
        assert_eq!(r.priced_as[alias], "claude-opus-4-7");
        assert!(r.unpriced_models.is_empty());
    }
    // An undated id of a model the table lists once, dated.
    let undated = entry("claude-sonnet-4", [100_000, 0, 0, 0], 0, None);
    let r = report(&[undated], GroupBy::Model, CostMode::Calculate, &UtcZone);
    assert_eq!(r.totals.cost_usd, 0.3);
    assert_eq!(r.priced_as["claude-sonnet-4"], "claude-sonnet-4-20250514");
    // A dated id of a model the table lists undated: the date comes off.
    let dated = entry("gpt-5.4-2026-03-05", [100_000, 0, 0, 0], 0, None);
    assert_eq!(cost(&[dated], CostMode::Calculate), 0.25);
}

#[test]
fn an_unknown_model_is_listed_and_costs_nothing_never_priced_as_a_relative() {
    // `claude-opus-4-7` is in the table, and these start with its name or a sibling's: none
    // of them may borrow its price.
    for unknown in [
        "claude-opus-4-71",
        "claude-opus-4",
        "gpt-5.4-pro",
        "gpt-5",
        "mystery",
    ] {
        let e = entry(unknown, [1000, 2000, 7000, 5000], 4000, None);
        let r = report(
            &[e, entry("claude-opus-4-7", [1000, 0, 0, 0], 0, None)],
            GroupBy::Model,
            CostMode::Calculate,
            &UtcZone,
        );
        assert_eq!(r.unpriced_models, [unknown]);
        let row = r.rows.iter().find(|row| row.key == unknown).unwrap();
        assert_eq!(row.cost_usd, 0.0, "{unknown}");
        assert_eq!(r.totals.cost_usd, 0.005);
    }
}

#[test]
fn one_hour_writes_cost_twice_the_input_price_when_the_table_has_no_rate() {
    // Sonnet 4 has no one-hour rate listed: 1M one-hour writes at 2 × $3 = $6, and the 5m rate
    // comes from the older `cache_write` name.
    let one_hour = entry(
        "claude-sonnet-4-20250514",
        [0, 0, 100_000, 0],
        100_000,
        None,
    );
    assert_eq!(cost(&[one_hour], CostMode::Calculate), 0.6);
    let five_minutes = entry("claude-sonnet-4-20250514", [0, 0, 100_000, 0], 0, None);
    assert_eq!(cost(&[five_minutes], CostMode::Calculate), 0.375);
}

#[test]
fn a_request_above_the_long_context_threshold_is_billed_whole_at_the_long_rates() {
    // At 200,000 input context (input + writes + reads) the standard rates hold:
    // 1,000 × $3 + 1,000 × $15 + 9,000 × $3.75 + 190,000 × $0.30 = 0.003 + 0.015 + 0.03375 + 0.057.
    let at = entry(
        "claude-sonnet-4-20250514",
        [1000, 1000, 9000, 190_000],
        0,
        None,
    );
    assert_eq!(cost(&[at], CostMode::Calculate), 0.10875);
    // One more read token, and every class moves to the long rates (the output too):
    // 1,000 × $6 + 1,000 × $22.50 + 9,000 × $7.50 + 190,001 × $0.60 (in whole micro-dollars:
    // 6,000 + 22,500 + 67,500 + 114,000).
    let above = entry(
        "claude-sonnet-4-20250514",
        [1000, 1000, 9000, 190_001],
        0,
        None,
    );
    assert_eq!(cost(&[above], CostMode::Calculate), 0.21);
    // One-hour writes above the threshold: twice the long input rate ($12).
    let long_one_hour = entry(
        "claude-sonnet-4-20250514",
        [0, 0, 300_000, 0],
        300_000,
        None,
    );
    assert_eq!(cost(&[long_one_hour], CostMode::Calculate), 3.6);
}

#[test]
fn a_codex_delta_is_billed_by_the_size_of_its_last_request() {
    // Two requests of 150,000 input each, summed in one delta: 300,000 is above GPT-5.4's
    // 272k threshold, but no request was, so the standard $2.50 holds.
    let mut delta = entry("gpt-5.4", [300_000, 0, 0, 0], 0, None);
    delta.request_context_tokens = Some(150_000);
    assert_eq!(cost(&[delta.clone()], CostMode::Calculate), 0.75);
    delta.request_context_tokens = Some(280_000);
    assert_eq!(cost(&[delta], CostMode::Calculate), 1.5);
}

#[test]
fn undated_ids_with_two_dated_releases_stay_unpriced() {
    let prices = PriceTable::parse(
        r#"{"source": "t", "models": {
            "claude-3-5-sonnet-20240620": {"input": 3, "output": 15},
            "claude-3-5-sonnet-20241022": {"input": 3, "output": 15}}}"#,
    )
    .unwrap();
    assert!(prices.price("claude-3-5-sonnet").is_none());
    assert!(prices.price("claude-3-5-sonnet-20241022").is_some());
}

#[test]
fn a_price_table_with_impossible_prices_is_refused() {
    for bad in ["-1", "1e300", "2000000"] {
        let text =
            format!(r#"{{"source": "t", "models": {{"m": {{"input": {bad}, "output": 1}}}}}}"#);
        let err = PriceTable::parse(&text).unwrap_err();
        assert!(err.message.contains("m:"), "{bad}: {}", err.message);
    }
}

#[test]
fn cost_modes_choose_between_recorded_and_calculated_cost() {
    let recorded = entry("claude-opus-4-7", [1000, 0, 0, 0], 0, Some(120_000));
    let unrecorded = entry("claude-opus-4-7", [1000, 0, 0, 0], 0, None);
    let both = [recorded, unrecorded];
    assert_eq!(cost(&both, CostMode::Auto), 0.125);
    assert_eq!(cost(&both, CostMode::Calculate), 0.01);
    assert_eq!(cost(&both, CostMode::Display), 0.12);
    // A recorded cost needs no price: the model is not reported unpriced for it.
    let old = entry("claude-2-legacy", [1000, 0, 0, 0], 0, Some(340_000));
    let r = report(&[old], GroupBy::Model, CostMode::Auto, &UtcZone);
    assert!(r.unpriced_models.is_empty());
    assert_eq!(r.totals.cost_usd, 0.34);
}

#[test]
fn claude_code_cost_usd_lines_are_read_and_used_in_auto_mode() {
    let mut reader = ClaudeCodeUsage::new();
    reader.push_bytes(&fixture("claude-code/ccusage-usage-only-chat.jsonl"));
    let (entries, _) = reader.finish();
    assert_eq!(entries.len(), 3);
    assert_eq!(cost(&entries, CostMode::Auto), 1.02);
    assert_eq!(cost(&entries, CostMode::Display), 1.02);
}

#[test]
fn the_shipped_table_prices_the_newest_models_and_dates_itself() {
    let shipped = PriceTable::shipped();
    assert!(shipped.source.contains("LiteLLM"), "{}", shipped.source);
    assert_eq!(shipped.date.len(), 10, "{}", shipped.date);
    let rates = |model: &str| {
        let p = shipped
            .price(model)
            .unwrap_or_else(|| panic!("{model} unpriced"));
        (p.input, p.output)
    };
    assert_eq!(rates("claude-opus-4-7"), (5.0, 25.0));
    assert_eq!(rates("claude-opus-4-1-20250805"), (15.0, 75.0));
    assert_eq!(rates("claude-sonnet-4-20250514"), (3.0, 15.0));
    assert_eq!(rates("claude-haiku-4-5-20251001"), (1.0, 5.0));
    assert_eq!(rates("gpt-5.4"), (2.5, 15.0));
    assert_eq!(rates("gpt-5.5"), (5.0, 30.0));
    assert_eq!(rates("gpt-5-codex"), (1.25, 10.0));
    assert!(shipped.price("claude-opus-4-99").is_none());
    assert!(shipped.price("gpt-5.49").is_none());
}

#[test]
fn one_hour_writes_in_a_real_v2_1_file_are_priced_at_the_one_hour_rate() {
    // spotter-v2.1.38-short.jsonl: one Opus 4.6 response, 3 input, 13 output, 11,515 cache
    // reads and 13,835 one-hour writes: 15 + 325 + 5,757 + 138,350 micro-dollars.
    let mut reader = ClaudeCodeUsage::new();
    reader.push_bytes(&fixture("claude-code/spotter-v2.1.38-short.jsonl"));
    let (entries, _) = reader.finish();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].cache_creation_1h_tokens, 13_835);
    let prices = PriceTable::shipped();
    let options = ReportOptions {
        group_by: GroupBy::Daily,
        since: None,
        until: None,
        providers: &[],
        prices: &prices,
        cost_mode: CostMode::Auto,
        zone: &UtcZone,
    };
    let r = aggregate(&entries, &options, BTreeMap::new());
    assert_eq!(r.totals.cost_usd, 0.144447);
}

fn assistant(session: &str, at: &str, id: &str, request: &str, cwd: &str, input: u64) -> String {
    format!(
        r#"{{"type":"assistant","isSidechain":false,"sessionId":"{session}","cwd":"{cwd}","timestamp":"{at}","requestId":"{request}","message":{{"id":"{id}","model":"claude-opus-4-7","usage":{{"input_tokens":{input},"output_tokens":10}}}}}}"#
    )
}

/// A parent-file `progress` line relaying a sub-agent's response.
fn progress(session: &str, at: &str, id: &str, request: &str, input: u64) -> String {
    format!(
        r#"{{"type":"progress","sessionId":"{session}","cwd":"/work/app","timestamp":"{at}","parentToolUseID":"toolu_1","data":{{"type":"agent_progress","agentId":"a1","message":{{"type":"assistant","timestamp":"{at}","requestId":"{request}","message":{{"id":"{id}","model":"claude-haiku-4-5-20251001","usage":{{"input_tokens":{input},"output_tokens":5}}}}}}}}}}"#
    )
}

fn sidechain(session: &str, at: &str, id: &str, request: &str, input: u64) -> String {
    format!(
        r#"{{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"{session}","cwd":"/work/app","timestamp":"{at}","requestId":"{request}","message":{{"id":"{id}","model":"claude-haiku-4-5-20251001","usage":{{"input_tokens":{input},"output_tokens":5}}}}}}"#
    )
}

fn read_claude(files: &[Vec<String>]) -> Vec<UsageEntry> {
    let mut reader = ClaudeCodeUsage::new();
    for lines in files {
        reader.push_bytes(lines.join("\n").as_bytes());
    }
    reader.finish().0
}

#[test]
fn sub_agent_spend_seen_only_in_progress_lines_counts_once() {
    let parent = vec![
        assistant("s1", "2026-11-30T10:00:00Z", "m1", "r1", "/work/app", 100),
        // Streaming updates repeat the same sub-agent response.
        progress("s1", "2026-11-30T10:00:05Z", "sub1", "rs1", 40),
        progress("s1", "2026-11-30T10:00:06Z", "sub1", "rs1", 40),
        progress("s1", "2026-11-30T10:00:09Z", "sub2", "rs2", 60),
    ];
    let inputs =
        |entries: &[UsageEntry]| -> u64 { entries.iter().map(|e| e.tokens.input_tokens).sum() };
    // The sub-agent's own file is gone: its spend still counts, each response once.
    let alone = read_claude(std::slice::from_ref(&parent));
    assert_eq!(inputs(&alone), 200);
    assert!(alone.iter().all(|e| e.session.as_ref() == "s1"));
    // Both present, in either order: once.
    let file = vec![
        sidechain("s1", "2026-11-30T10:00:05Z", "sub1", "rs1", 40),
        sidechain("s1", "2026-11-30T10:00:09Z", "sub2", "rs2", 60),
    ];
    assert_eq!(inputs(&read_claude(&[parent.clone(), file.clone()])), 200);
    assert_eq!(inputs(&read_claude(&[file.clone(), parent.clone()])), 200);
    // The relayed copy may carry no request id (or another one): the message id matches it.
    let without_request: Vec<String> = parent
        .iter()
        .map(|line| {
            line.replace(r#""requestId":"rs1","#, "")
                .replace("rs2", "other")
        })
        .collect();
    assert_eq!(inputs(&read_claude(&[without_request, file])), 200);
}

#[test]
fn a_session_is_one_project_however_often_its_agent_changes_directory() {
    let lines = vec![
        assistant(
            "s1",
            "2026-11-30T10:00:00Z",
            "m1",
            "r1",
            "C:\\\\work\\\\app",
            1,
        ),
        assistant(
            "s1",
            "2026-11-30T10:01:00Z",
            "m2",
            "r2",
            "C:\\\\work\\\\app\\\\src",
            1,
        ),
        assistant("s2", "2026-11-30T11:00:00Z", "m3", "r3", "c:/work/app/", 1),
        assistant("s2", "2026-11-30T11:05:00Z", "m4", "r4", "/tmp", 1),
    ];
    let entries = read_claude(&[lines]);
    let r = report(&entries, GroupBy::Project, CostMode::Calculate, &UtcZone);
    let keys: Vec<&str> = r.rows.iter().map(|row| row.key.as_str()).collect();
    assert_eq!(keys, ["C:\\work\\app"]);
    assert_eq!(r.rows[0].tokens.input_tokens, 4);

    // A session whose lines record no working directory: the project folder of its file.
    let mut reader = ClaudeCodeUsage::new();
    reader.set_project_folder(Some("-home-me-old-app"));
    reader.push_bytes(&fixture("claude-code/ccusage-usage-only-chat.jsonl"));
    let (entries, _) = reader.finish();
    assert!(
        entries
            .iter()
            .all(|e| e.project.as_deref() == Some("-home-me-old-app"))
    );

    use baton_core::transcripts::usage::claude_code::project_folder_of;
    assert_eq!(
        project_folder_of("/h/.claude/projects/-h-app/s1.jsonl"),
        Some("-h-app")
    );
    assert_eq!(
        project_folder_of("C:\\Users\\me\\.claude\\projects\\C--app\\s1\\subagents\\agent-a.jsonl"),
        Some("C--app")
    );
    assert_eq!(project_folder_of("/h/.claude/projects/s1.jsonl"), None);

    // Codex: the session's first working directory, whatever later turns say.
    let mut codex = CodexUsage::new("rollout");
    codex.push_bytes(
        br#"{"timestamp":"2026-11-30T10:00:00Z","type":"session_meta","payload":{"id":"c1","cwd":"/home/me/app/"}}
{"timestamp":"2026-11-30T10:00:01Z","type":"turn_context","payload":{"model":"gpt-5.4","cwd":"/home/me/app/sub"}}
{"timestamp":"2026-11-30T10:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"output_tokens":1}}}}"#,
    );
    let (entries, _) = codex.finish();
    assert_eq!(entries[0].project.as_deref(), Some("/home/me/app"));
}

#[test]
fn project_keys_normalize_windows_drives_and_separators() {
    assert_eq!(project_key("c:\\Users\\me\\app\\"), "C:\\Users\\me\\app");
    assert_eq!(project_key("C:/Users/me/app"), "C:\\Users\\me\\app");
    assert_eq!(project_key("C:\\"), "C:\\");
    assert_eq!(
        project_key("\\\\server\\share\\app"),
        "\\\\server\\share\\app"
    );
    assert_eq!(project_key("/home/me/app/"), "/home/me/app");
    assert_eq!(project_key("/"), "/");
}

/// A zone two hours east of UTC all year.
#[derive(Debug)]
struct PlusTwo;

impl Zone for PlusTwo {
    fn name(&self) -> String {
        "Test/PlusTwo".into()
    }
    fn offset_seconds(&self, _at: Timestamp) -> i32 {
        7200
    }
}

#[test]
fn days_and_months_are_taken_in_the_report_s_zone() {
    // 23:30 UTC on 30 November is 01:30 on 1 December two hours east.
    let e = entry("claude-opus-4-7", [1, 0, 0, 0], 0, None);
    let utc = report(
        std::slice::from_ref(&e),
        GroupBy::Daily,
        CostMode::Calculate,
        &UtcZone,
    );
    let east = report(
        std::slice::from_ref(&e),
        GroupBy::Daily,
        CostMode::Calculate,
        &PlusTwo,
    );
    assert_eq!(utc.rows[0].key, "2026-11-30");
    assert_eq!(east.rows[0].key, "2026-12-01");
    assert_eq!(east.timezone, "Test/PlusTwo");
    let month = report(&[e], GroupBy::Monthly, CostMode::Calculate, &PlusTwo);
    assert_eq!(month.rows[0].key, "2026-12");
    // --since/--until name days of the zone.
    let since = parse_day_in("since", "2026-12-01", false, &PlusTwo).unwrap();
    let until = parse_day_in("until", "2026-12-01", true, &PlusTwo).unwrap();
    assert_eq!(since.to_string(), "2026-11-30T22:00:00.000Z");
    assert_eq!(until.to_string(), "2026-12-01T21:59:59.999Z");
    assert!(parse_day_in("since", "2026-02-30", false, &UtcZone).is_err());
}

/// The total cost of `entries` under the shipped table, every line priced.
fn shipped_total(entries: &[UsageEntry]) -> f64 {
    let prices = PriceTable::shipped();
    let options = ReportOptions {
        group_by: GroupBy::Model,
        since: None,
        until: None,
        providers: &[],
        prices: &prices,
        cost_mode: CostMode::Calculate,
        zone: &UtcZone,
    };
    aggregate(entries, &options, BTreeMap::new())
        .totals
        .cost_usd
}

/// A response of the shipped table's `model`: `[input, output, cache writes, cache reads]`.
fn shipped_cost(model: &str, tokens: [u64; 4], fast: bool, web_searches: u64) -> f64 {
    shipped_total(&[UsageEntry {
        fast,
        web_searches,
        ..entry(model, tokens, 0, None)
    }])
}

#[test]
fn a_fast_response_is_billed_at_the_published_fast_rates() {
    // Claude Opus 4.6 in fast mode: $30 input, $150 output per million (six times $5/$25),
    // cache reads six times $0.50. 1,000 in + 2,000 out + 10,000 read:
    // 0.03 + 0.3 + 0.03 = 0.36 (standard: 0.005 + 0.05 + 0.005 = 0.06).
    let tokens = [1000, 2000, 0, 10_000];
    assert_eq!(shipped_cost("claude-opus-4-6", tokens, false, 0), 0.06);
    assert_eq!(shipped_cost("claude-opus-4-6", tokens, true, 0), 0.36);
    // Opus 5 at twice its rates ($10/$50): 0.01 + 0.1 + 0.01 = 0.12.
    assert_eq!(shipped_cost("claude-opus-5", tokens, true, 0), 0.12);
    // GPT-5 with priority processing: $2.50 input, $20 output, $0.25 cache reads per million
    // (its own listed rates): 1M in + 100k out + 1M read = 2.5 + 2.0 + 0.25 = 4.75
    // (standard 1.25 + 1.0 + 0.125 = 2.375).
    let big = [1_000_000, 100_000, 0, 1_000_000];
    assert_eq!(shipped_cost("gpt-5", big, false, 0), 2.375);
    assert_eq!(shipped_cost("gpt-5", big, true, 0), 4.75);
    // A model with no fast price is billed at its standard rates.
    assert_eq!(
        shipped_cost("claude-sonnet-4-5", tokens, true, 0),
        shipped_cost("claude-sonnet-4-5", tokens, false, 0)
    );
}

#[test]
fn web_searches_are_billed_per_search_beside_the_tokens() {
    // Claude Sonnet 4.5: 1,000 input at $3 per million = 0.003, and three searches at $10
    // per thousand = 0.03.
    assert_eq!(
        shipped_cost("claude-sonnet-4-5", [1000, 0, 0, 0], false, 0),
        0.003
    );
    assert_eq!(
        shipped_cost("claude-sonnet-4-5", [1000, 0, 0, 0], false, 3),
        0.033
    );
}

#[test]
fn claude_code_lines_say_fast_mode_and_web_searches() {
    let text = concat!(
        r#"{"type":"assistant","sessionId":"s","timestamp":"2026-12-01T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":10000,"speed":"fast","server_tool_use":{"web_search_requests":2,"web_fetch_requests":1}}}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","timestamp":"2026-12-01T10:01:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":10000,"speed":"standard"}}}"#,
        "\n"
    );
    let mut reader = ClaudeCodeUsage::new();
    reader.push_bytes(text.as_bytes());
    let entries = reader.finish().0;
    let marks: Vec<(bool, u64)> = entries.iter().map(|e| (e.fast, e.web_searches)).collect();
    assert_eq!(marks, [(true, 2), (false, 0)]);
    // 0.36 fast + two searches at $0.01 + 0.06 standard.
    assert_eq!(shipped_total(&entries), 0.44);
}
