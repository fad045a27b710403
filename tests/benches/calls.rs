//! The per-call cost, which must stay flat as the ledger grows (#36, target 2):
//! - `start` + `end` through `baton mcp` driven by the official Python MCP SDK, 300 pairs on a
//!   new ledger and 300 pairs on one already holding 10,000 ended sessions, session notes off
//!   and on: p50 and p99 of each call, as the client sees it. Target: p99 ≤ 2 ms.
//! - `baton list` with 2,000 live sessions, whole processes. Target: median ≤ 10 ms.
//! - `baton start` on a ledger of 100,000 sessions against an empty one. Target: within 1.2×.
//!
//! Run: `cargo bench -p baton-tests --bench calls` (the Python SDK from `target/pyenv`, which
//! `./run test` makes). Prints figures; `BATON_BENCH_PAIRS` changes the number of pairs.

use baton_tests::bench::{measure, ms, percentile, release_baton};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/pyenv/bin/python");
    let baton = release_baton();
    let pairs: usize = std::env::var("BATON_BENCH_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let tmp = tempfile::tempdir().unwrap();

    if python.exists() {
        let cases = [
            ("a new ledger", 0, "off"),
            ("10,000 sessions", 10_000, "off"),
            ("a new ledger", 0, "on"),
            ("10,000 sessions", 10_000, "on"),
        ];
        for (name, earlier, notes) in cases {
            let ledger = fresh_ledger(tmp.path(), &format!("mcp-{earlier}-{notes}"), earlier, true);
            let output = Command::new(&python)
                .arg(root.join("tests/benches/mcp_pairs.py"))
                .arg(&baton)
                .arg(&ledger)
                .arg(pairs.to_string())
                .arg(notes)
                .stderr(Stdio::inherit())
                .output()
                .unwrap();
            assert!(output.status.success(), "the Python driver failed");
            let times: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
            let seconds = |key: &str| -> Vec<Duration> {
                times[key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| Duration::from_secs_f64(s.as_f64().unwrap()))
                    .collect()
            };
            let (mut starts, mut ends) = (seconds("starts"), seconds("ends"));
            let mut all: Vec<Duration> = starts.iter().chain(&ends).copied().collect();
            println!(
                "mcp start+end, {pairs} pairs on {name}, notes {notes}: every call p50 {:.2} ms p99 {:.2} ms \
                 (start p50 {:.2} p99 {:.2}; end p50 {:.2} p99 {:.2}); target p99 ≤ 2 ms",
                ms(percentile(&mut all, 0.5)),
                ms(percentile(&mut all, 0.99)),
                ms(percentile(&mut starts, 0.5)),
                ms(percentile(&mut starts, 0.99)),
                ms(percentile(&mut ends, 0.5)),
                ms(percentile(&mut ends, 0.99)),
            );
        }
    } else {
        println!(
            "mcp start+end: skipped, no {} (`./run test` makes it)",
            python.display()
        );
    }

    // `list` with 2,000 live sessions.
    let ledger = fresh_ledger(tmp.path(), "live-2000", 2_000, false);
    let mut times = runs(&baton, &ledger, &["list", "--json"], 30);
    println!(
        "list, 2,000 live sessions: median {:.2} ms p95 {:.2} ms; target median ≤ 10 ms",
        ms(percentile(&mut times, 0.5)),
        ms(percentile(&mut times, 0.95)),
    );

    // `start` on 100,000 sessions against an empty ledger.
    let mut medians = Vec::new();
    for (name, earlier) in [("an empty ledger", 0), ("100,000 sessions", 100_000)] {
        let ledger = fresh_ledger(tmp.path(), &format!("start-{earlier}"), earlier, true);
        let start = [
            "start",
            "--project",
            "bench",
            "--agent",
            "bench",
            "--goal",
            "a task",
            "--json",
        ];
        let mut times = runs(&baton, &ledger, &start, 30);
        let median = percentile(&mut times, 0.5);
        println!(
            "start on {name}: median {:.2} ms p95 {:.2} ms",
            ms(median),
            ms(percentile(&mut times, 0.95)),
        );
        medians.push(median);
    }
    println!(
        "start, 100,000 sessions / empty: {:.2}×; target ≤ 1.2×",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
}

/// A ledger holding `earlier` sessions (ended, or live), written by the test writer, then read
/// once so its checkpoint exists as it would in use.
fn fresh_ledger(tmp: &Path, name: &str, earlier: usize, ended: bool) -> PathBuf {
    let ledger = tmp.join(name).join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    if earlier > 0 {
        let mut writer = Command::new(env!("CARGO_BIN_EXE_ledger-writer"));
        writer.arg(&ledger).arg(earlier.to_string());
        if ended {
            writer.arg("--ended");
        }
        let status = writer.stdout(Stdio::null()).status().unwrap();
        assert!(status.success());
    }
    ledger
}

/// `times` runs of `baton ARGS` on `ledger` (the first, which may fold the log into a
/// checkpoint, not counted).
fn runs(baton: &Path, ledger: &Path, args: &[&str], times: usize) -> Vec<Duration> {
    let home = ledger.parent().unwrap();
    let command = || {
        let mut command = Command::new(baton);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("BATON_DIR", ledger)
            .env("BATON_FSYNC", "0")
            .env("XDG_DATA_HOME", home.join("user-data"))
            .env("XDG_CACHE_HOME", home.join("user-cache"))
            .args(args)
            .stdin(Stdio::null());
        command
    };
    measure(&mut command());
    (0..times).map(|_| measure(&mut command()).took).collect()
}
