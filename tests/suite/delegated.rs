//! A session's own spend told from its sub-agents': a Claude Code session with a sub-agent's
//! file (sidechain lines under the parent's session id) and a Codex session with a spawned
//! sub-agent's rollout (its responses counted under the parent's thread). Read from the files,
//! from the index's rows and from its 15-minute sums, every report gives the same split, and
//! `--own-only` leaves the sub-agents out. Figures by hand from the shipped rates.

use baton_tests::{assert_success, baton, json_of};

const PARENT: &str = "0199aaaa-0000-7000-8000-000000000001";
const CHILD: &str = "0199aaaa-0000-7000-8000-000000000002";

/// Claude Sonnet 4.5 ($15 per million output): the session's own 100,000 ($1.50), its
/// sub-agent's 200,000 ($3.00).
fn claude(root: &std::path::Path) {
    let dir = root.join("projects/-work-app");
    std::fs::create_dir_all(dir.join("s/subagents")).unwrap();
    let line = |id: &str, at: &str, sidechain: bool, output: u64| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","isSidechain":{sidechain},"cwd":"/work/app","timestamp":"{at}","requestId":"r-{id}","message":{{"id":"m-{id}","model":"claude-sonnet-4-5-20250929","usage":{{"input_tokens":0,"output_tokens":{output}}}}}}}"#
        ) + "\n"
    };
    std::fs::write(
        dir.join("s.jsonl"),
        line("1", "2026-12-01T10:00:00Z", false, 100_000),
    )
    .unwrap();
    std::fs::write(
        dir.join("s/subagents/agent-a1.jsonl"),
        line("2", "2026-12-01T10:01:00Z", true, 200_000),
    )
    .unwrap();
}

/// GPT-5 ($10 per million output): the parent's 100,000 ($1.00); a spawned sub-agent whose
/// rollout opens with the parent's count copied, then 50,000 of its own ($0.50).
fn codex(root: &std::path::Path) {
    let dir = root.join("sessions/2026/12/01");
    std::fs::create_dir_all(&dir).unwrap();
    let count = |at: &str, output: u64| {
        format!(
            r#"{{"timestamp":"{at}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":0,"cached_input_tokens":0,"output_tokens":{output},"reasoning_output_tokens":0,"total_tokens":{output}}},"last_token_usage":null}}}}}}"#
        ) + "\n"
    };
    let head = |id: &str, at: &str, source: &str| {
        format!(
            r#"{{"timestamp":"{at}","type":"session_meta","payload":{{"id":"{id}","cwd":"/work/app","source":{source}}}}}"#
        ) + "\n"
            + &format!(
                r#"{{"timestamp":"{at}","type":"turn_context","payload":{{"model":"gpt-5","cwd":"/work/app"}}}}"#
            )
            + "\n"
    };
    std::fs::write(
        dir.join(format!("rollout-2026-12-01T10-00-00-{PARENT}.jsonl")),
        head(PARENT, "2026-12-01T10:00:00.000Z", r#""cli""#)
            + &count("2026-12-01T10:01:00.000Z", 100_000),
    )
    .unwrap();
    let spawned =
        format!(r#"{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{PARENT}","depth":1}}}}}}"#);
    std::fs::write(
        dir.join(format!("rollout-2026-12-01T10-02-00-{CHILD}.jsonl")),
        head(CHILD, "2026-12-01T10:02:00.000Z", &spawned)
            + &count("2026-12-01T10:02:00.100Z", 100_000)
            + &count("2026-12-01T10:02:30.000Z", 150_000),
    )
    .unwrap();
}

#[test]
fn sub_agents_spend_is_told_apart_from_the_files_the_rows_and_the_sums() {
    let tmp = tempfile::tempdir().unwrap();
    claude(tmp.path());
    codex(tmp.path());
    let ledger = tmp.path().join("app/.baton");
    let (claude_dir, codex_dir) = (tmp.path().join("projects"), tmp.path().join("sessions"));
    let index = tmp.path().join("index.sqlite");
    let index_arg = format!("--index={}", index.display());
    let usage = |args: &[&str]| {
        let mut command = baton(&ledger);
        command
            .args(["usage", "--timezone", "UTC", "--json"])
            .args(args);
        if !args.iter().any(|a| a.starts_with("--index")) {
            command
                .arg("--claude-dir")
                .arg(&claude_dir)
                .arg("--codex-dir")
                .arg(&codex_dir);
        }
        let out = command.output().unwrap();
        assert_success(&out, format_args!("usage {args:?}"));
        json_of(&out)
    };
    let mirrored = baton(&ledger)
        .arg("mirror")
        .arg("--claude-dir")
        .arg(&claude_dir)
        .arg("--codex-dir")
        .arg(&codex_dir)
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    for source in [None, Some(index_arg.as_str())] {
        let with = |args: &[&str]| {
            let mut all: Vec<&str> = args.to_vec();
            all.extend(source);
            usage(&all)
        };
        let sessions = with(&["session"]);
        let split: Vec<(String, f64, f64)> = sessions["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["key"].as_str().unwrap().to_owned(),
                    r["cost_usd"].as_f64().unwrap(),
                    r["delegated_cost_usd"].as_f64().unwrap_or(0.0),
                )
            })
            .collect();
        assert_eq!(
            split,
            [("s".to_owned(), 4.5, 3.0), (PARENT.to_owned(), 1.5, 0.5)],
            "{source:?}: the spawned thread counts under its parent: {sessions}"
        );
        assert_eq!(sessions["totals"]["delegated_tokens"], 250_000);
        // By day: from the 15-minute sums when read from the index.
        let daily = with(&["daily"]);
        assert_eq!(
            (
                &daily["totals"]["cost_usd"],
                &daily["totals"]["delegated_cost_usd"]
            ),
            (&6.0.into(), &3.5.into()),
            "{source:?}: {daily}"
        );
        for group in ["daily", "session", "model"] {
            let own = with(&[group, "--own-only"]);
            assert_eq!(own["totals"]["cost_usd"], 2.5, "{source:?} {group}: {own}");
            assert!(own["totals"]["delegated_cost_usd"].is_null(), "{own}");
        }
    }
    // The work session that ran the Claude Code session: `show` gives its sub-agents' part.
    let started = baton(&ledger)
        .args(["--json", "start", "--project", "app", "--agent", "claude"])
        .args(["--provider-session-id", "s"])
        .env("BATON_NOW", "2026-12-01T09:59:00Z")
        .output()
        .unwrap();
    assert_success(&started, format_args!("start"));
    let id = json_of(&started)["session_id"].as_str().unwrap().to_owned();
    let shown = baton(&ledger)
        .args(["--json", "show", &id])
        .env("BATON_INDEX", &index)
        .output()
        .unwrap();
    assert_success(&shown, format_args!("show"));
    let cost = json_of(&shown)["cost"].clone();
    assert_eq!(
        (&cost["cost_usd"], &cost["delegated_cost_usd"]),
        (&4.5.into(), &3.0.into()),
        "{cost}"
    );
    let shown = baton(&ledger)
        .args(["show", &id])
        .env("BATON_INDEX", &index)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("$4.50 (sub-agents $3.00)"), "{text}");
    // A person reads the split in the table.
    let out = baton(&ledger)
        .args(["usage", "session", &index_arg])
        .env("COLUMNS", "160")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("SUB-AGENTS"), "{text}");
    assert!(text.contains("sub-agents: $3.50 of $6.00 (58 %)"), "{text}");
    // A window meters every response: --own-only is refused there, by name.
    let out = baton(&ledger)
        .args(["usage", "blocks", "--own-only", &index_arg])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--own-only"));
}
