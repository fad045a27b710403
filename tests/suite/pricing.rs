//! Fast mode and web searches priced end to end: Claude Code lines that record them, read from
//! the files and from the index (after an index made before these were kept is brought up to
//! date), equal to the published rates worked out by hand.

use baton_tests::{assert_success, baton, json_of};

/// Claude Opus 4.6: one response in fast mode with two web searches, one standard, one
/// fast line repeated (the same response logged twice counts once).
const LINES: &str = concat!(
    r#"{"type":"assistant","sessionId":"s","cwd":"/work/app","timestamp":"2026-12-01T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":10000,"speed":"fast","server_tool_use":{"web_search_requests":2,"web_fetch_requests":1}}}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"s","cwd":"/work/app","timestamp":"2026-12-01T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":10000,"speed":"fast","server_tool_use":{"web_search_requests":2,"web_fetch_requests":1}}}}"#,
    "\n",
    r#"{"type":"assistant","sessionId":"s","cwd":"/work/app","timestamp":"2026-12-01T10:05:00Z","requestId":"r2","message":{"id":"m2","model":"claude-opus-4-6","usage":{"input_tokens":1000,"output_tokens":2000,"cache_read_input_tokens":10000,"speed":"standard"}}}"#,
    "\n"
);

#[test]
fn fast_mode_and_web_searches_cost_the_same_from_files_and_from_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    let dir = projects.join("-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s.jsonl"), LINES).unwrap();
    let ledger = tmp.path().join(".baton");
    let claude = projects.to_str().unwrap();
    let usage = |extra: &[&str]| {
        let out = baton(&ledger)
            .args(["usage", "daily", "--timezone", "UTC", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert_success(&out, format_args!("usage {extra:?}"));
        json_of(&out)
    };
    // Fast: $30 in, $150 out, $3 cache reads per million (six times Opus 4.6's), and $0.01 a
    // search: 0.03 + 0.3 + 0.03 + 0.02 = 0.38. Standard: 0.005 + 0.05 + 0.005 = 0.06.
    let files = usage(&["--provider", "claude-code", "--claude-dir", claude]);
    assert_eq!(files["totals"]["cost_usd"], 0.44, "{files}");
    let index = tmp.path().join("index.sqlite");
    let mirrored = baton(&ledger)
        .args(["mirror", "--claude-dir", claude, "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let index_arg = format!("--index={}", index.display());
    let from_index = usage(&[&index_arg]);
    assert_eq!(from_index["totals"]["cost_usd"], 0.44, "{from_index}");
    // From the rows too (a report by session cannot use the 15-minute sums).
    let out = baton(&ledger)
        .args(["usage", "session", "--json", &index_arg])
        .output()
        .unwrap();
    assert_success(&out, format_args!("usage session"));
    assert_eq!(json_of(&out)["totals"]["cost_usd"], 0.44);

    // Rows kept before the index held these (an index from before schema 12), once read
    // again as the migration asks, price as the files do.
    let connection = rusqlite::Connection::open(&index).unwrap();
    connection
        .execute_batch(
            "UPDATE usage SET fast = 0, web_searches = 0;
             UPDATE usage_meta SET value = 'old' WHERE key = 'tallies';
             UPDATE sources SET mtime_ns = -1, tail_hash = 0;",
        )
        .unwrap();
    drop(connection);
    let again = baton(&ledger)
        .args(["mirror", "--claude-dir", claude, "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&again, format_args!("mirror again"));
    assert_eq!(usage(&[&index_arg])["totals"]["cost_usd"], 0.44);
}

/// A Codex rollout of GPT-5: twice 1,000,000 input and 100,000 output tokens, on 1 and on 3
/// December.
const ROLLOUT: &str = concat!(
    r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"0199bbbb-0000-7000-8000-000000000001","cwd":"/work/app","source":"cli"}}"#,
    "\n",
    r#"{"timestamp":"2026-12-01T10:00:00.000Z","type":"turn_context","payload":{"model":"gpt-5","cwd":"/work/app"}}"#,
    "\n",
    r#"{"timestamp":"2026-12-01T10:01:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000000,"cached_input_tokens":0,"output_tokens":100000,"reasoning_output_tokens":0,"total_tokens":1100000},"last_token_usage":null}}}"#,
    "\n",
    r#"{"timestamp":"2026-12-03T10:01:00.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2000000,"cached_input_tokens":0,"output_tokens":200000,"reasoning_output_tokens":0,"total_tokens":2200000},"last_token_usage":null}}}"#,
    "\n"
);

#[test]
fn codex_is_priced_at_the_priority_rates_its_config_asks_for_since_it_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("codex-home");
    let sessions = home.join("sessions/2026/12/01");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(sessions.join("rollout-1.jsonl"), ROLLOUT).unwrap();
    let ledger = tmp.path().join(".baton");
    let index = tmp.path().join("index.sqlite");
    let run = |args: &[&str]| {
        let out = baton(&ledger)
            .env("CODEX_HOME", &home)
            .args(args)
            .output()
            .unwrap();
        assert_success(&out, format_args!("{args:?}"));
        out
    };
    let cost = |args: &[&str]| {
        let mut all = vec!["usage", "daily", "--timezone", "UTC", "--json"];
        all.extend(args);
        json_of(&run(&all))["totals"]["cost_usd"].clone()
    };
    // Standard: $1.25 in, $10 out per million: 1.25 + 1.00 each day.
    assert_eq!(cost(&[]), 4.5);
    // `service_tier = "priority"`, written on 2 December: the 3 December response at $2.50
    // in, $20 out (2.50 + 2.00), the one before at the standard rates; from the files and
    // from the index alike.
    let config = home.join("config.toml");
    std::fs::write(&config, "model = \"gpt-5\"\nservice_tier = \"priority\"\n").unwrap();
    let touched = std::process::Command::new("touch")
        .args(["-d", "2026-12-02T12:00:00Z"])
        .arg(&config)
        .status()
        .unwrap();
    assert!(touched.success());
    assert_eq!(cost(&[]), 6.75);
    let mirrored = baton(&ledger)
        .env("CODEX_HOME", &home)
        .args(["mirror", "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let index_arg = format!("--index={}", index.display());
    assert_eq!(cost(&[&index_arg]), 6.75);
    let text = String::from_utf8_lossy(&run(&["usage", "daily"]).stdout).into_owned();
    assert!(text.contains("Codex at its priority rates since"), "{text}");
}
