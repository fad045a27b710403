//! Baton and ccusage (the reference usage tool, installed by `./run test` under
//! `target/ccusage`) read the same
//! generated Claude Code and Codex trees; their daily token totals must agree exactly and
//! their daily costs within a cent (both price from LiteLLM's table, one-hour cache writes
//! and the newest models included).

use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const GEN: &str = env!("CARGO_BIN_EXE_transcript-gen");

fn ccusage_bin() -> PathBuf {
    let bin = std::env::var_os("CCUSAGE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../target/ccusage/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage")
        });
    assert!(
        bin.exists(),
        "{} is missing: `npm install --prefix target/ccusage ccusage@20.0.24` (./run test does)",
        bin.display()
    );
    bin
}

fn ccusage(args: &[&str], env: (&str, &Path)) -> Value {
    let out = Command::new(ccusage_bin())
        .args(args)
        .args(["--offline", "--json", "--timezone", "UTC"])
        .env(env.0, env.1)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_success(&out, format_args!("ccusage"));
    serde_json::from_slice(&out.stdout).expect("ccusage JSON")
}

fn baton_daily(tmp: &Path, provider: &str, dir_flag: &str, dir: &Path) -> Value {
    let out = baton(&tmp.join(".baton"))
        .args([
            "--json",
            "usage",
            "daily",
            "--timezone",
            "UTC",
            "--provider",
            provider,
        ])
        .arg(dir_flag)
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    json_of(&out)
}

#[test]
fn daily_tokens_agree_with_ccusage_exactly_and_costs_within_a_cent() {
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    // The trees leave out the three traps ccusage 20.0.24 counts wrongly (lines of a response
    // without `requestId`, sidechain replays, lone surrogates); `usage.rs` holds Baton to the
    // truth on those.
    let generated = Command::new(GEN)
        .arg(&trees)
        .args(["--sessions", "40", "--seed", "5", "--ccusage-safe"])
        .status()
        .unwrap();
    assert!(generated.success());

    let theirs = ccusage(
        &["claude", "daily"],
        ("CLAUDE_CONFIG_DIR", &trees.join("claude")),
    );
    let ours = baton_daily(
        tmp.path(),
        "claude-code",
        "--claude-dir",
        &trees.join("claude/projects"),
    );
    compare(
        &ours,
        &theirs,
        &[
            ("input_tokens", "inputTokens"),
            ("output_tokens", "outputTokens"),
            ("cache_creation_tokens", "cacheCreationTokens"),
            ("cache_read_tokens", "cacheReadTokens"),
        ],
        "totalCost",
    );

    let theirs = ccusage(&["codex", "daily"], ("CODEX_HOME", &trees.join("codex")));
    let ours = baton_daily(
        tmp.path(),
        "codex",
        "--codex-dir",
        &trees.join("codex/sessions"),
    );
    compare(
        &ours,
        &theirs,
        &[
            ("input_tokens", "inputTokens"),
            ("output_tokens", "outputTokens"),
            ("cache_read_tokens", "cacheReadTokens"),
            ("reasoning_tokens", "reasoningOutputTokens"),
        ],
        "costUSD",
    );
}

fn compare(ours: &Value, theirs: &Value, fields: &[(&str, &str)], their_cost: &str) {
    let our_rows = ours["rows"].as_array().unwrap();
    let their_rows = theirs["daily"].as_array().unwrap();
    assert!(!our_rows.is_empty());
    assert_eq!(our_rows.len(), their_rows.len(), "days");
    for (a, b) in our_rows.iter().zip(their_rows) {
        assert_eq!(a["key"], b["date"]);
        for (mine, theirs) in fields {
            assert_eq!(a[mine], b[theirs], "{} {mine}", a["key"]);
        }
        let (mine, theirs) = (a["cost_usd"].as_f64(), b[their_cost].as_f64());
        let (mine, theirs) = (mine.unwrap(), theirs.unwrap());
        assert!(mine > 0.0, "{} costs nothing", a["key"]);
        assert!(
            (mine - theirs).abs() < 0.01,
            "{}: Baton ${mine:.4}, ccusage ${theirs:.4}",
            a["key"]
        );
    }
}
