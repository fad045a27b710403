//! `baton usage daily --json` against `ccusage claude daily` + `ccusage codex daily` (offline,
//! JSON) on the same generated trees (default 500 MB; `BATON_BENCH_MB` overrides), in paired
//! runs (`BATON_BENCH_PAIRS`, default 5): median wall time and peak resident memory of each,
//! with #36's targets (≥ 8× ccusage, ≤ 64 MB).
//! Run: `cargo bench -p baton-tests --bench usage_vs_ccusage` (needs ccusage under
//! `target/ccusage`, which `./run setup --browser` installs).
//! Both tools use every core; the page cache is warmed for both before measuring.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A run's wall time and peak resident memory (MB).
type Run = (Duration, f64);

/// Runs a command to completion; returns wall time and peak RSS in MB.
fn measure(mut cmd: Command) -> (Duration, f64) {
    let run = baton_tests::bench::measure(&mut cmd);
    (run.took, run.peak_mb)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mb = baton_tests::bench::tree_mb();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let baton = baton_tests::bench::release_baton();
    // The native binary itself (the npm `ccusage` command is a Node shim that spawns it, so
    // measuring the shim would miss the real process's memory).
    let ccusage: PathBuf = std::env::var_os("CCUSAGE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            root.join("target/ccusage/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage")
        });
    assert!(
        ccusage.exists(),
        "run `./run setup --browser` (it installs ccusage) first"
    );
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    let t = Instant::now();
    let generated = Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&trees)
        .args(["--mb", &mb.to_string(), "--ccusage-safe"])
        .status()
        .unwrap();
    assert!(generated.success());
    println!(
        "generated {mb} MB of Claude Code and Codex transcripts in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    // Warm the page cache, so neither pays the first read.
    for _ in 0..2 {
        let mut cmd = Command::new(&baton);
        cmd.args(["--json", "usage", "daily", "--claude-dir"])
            .arg(trees.join("claude/projects"))
            .arg("--codex-dir")
            .arg(trees.join("codex/sessions"));
        measure(cmd);
    }
    // Paired runs, alternating, so a slower minute of the machine falls on both tools alike;
    // the medians are compared.
    let pairs: usize = std::env::var("BATON_BENCH_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
        .max(1);
    // Per pair: baton, ccusage's Claude Code run, its Codex run (wall time, peak MB).
    let mut runs: Vec<[Run; 3]> = Vec::new();
    for _ in 0..pairs {
        let mut cmd = Command::new(&baton);
        cmd.args(["--json", "usage", "daily", "--claude-dir"])
            .arg(trees.join("claude/projects"))
            .arg("--codex-dir")
            .arg(trees.join("codex/sessions"));
        let ours = measure(cmd);
        let mut claude = Command::new(&ccusage);
        claude
            .args(["claude", "daily", "--offline", "--json"])
            .env("CLAUDE_CONFIG_DIR", trees.join("claude"));
        let theirs_claude = measure(claude);
        let mut codex = Command::new(&ccusage);
        codex
            .args(["codex", "daily", "--offline", "--json"])
            .env("CODEX_HOME", trees.join("codex"));
        let theirs_codex = measure(codex);
        println!(
            "pair: baton {:.2} s ({:.0} MB); ccusage {:.2} s + {:.2} s",
            ours.0.as_secs_f64(),
            ours.1,
            theirs_claude.0.as_secs_f64(),
            theirs_codex.0.as_secs_f64()
        );
        runs.push([ours, theirs_claude, theirs_codex]);
    }
    let median = |pick: &dyn Fn(&[Run; 3]) -> f64| {
        let mut values: Vec<f64> = runs.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    let baton_time = Duration::from_secs_f64(median(&|r| r[0].0.as_secs_f64()));
    let baton_mem = runs.iter().map(|r| r[0].1).fold(0.0, f64::max);
    let claude_time = Duration::from_secs_f64(median(&|r| r[1].0.as_secs_f64()));
    let claude_mem = runs.iter().map(|r| r[1].1).fold(0.0, f64::max);
    let codex_time = Duration::from_secs_f64(median(&|r| r[2].0.as_secs_f64()));
    let codex_mem = runs.iter().map(|r| r[2].1).fold(0.0, f64::max);
    let ratios = median(&|r| (r[1].0 + r[2].0).as_secs_f64() / r[0].0.as_secs_f64());
    let ccusage_time = claude_time + codex_time;
    println!(
        "baton usage daily --json (Claude Code + Codex): {:.2} s, peak {:.0} MB",
        baton_time.as_secs_f64(),
        baton_mem
    );
    println!(
        "ccusage claude daily --offline --json:          {:.2} s, peak {:.0} MB",
        claude_time.as_secs_f64(),
        claude_mem
    );
    println!(
        "ccusage codex daily --offline --json:           {:.2} s, peak {:.0} MB",
        codex_time.as_secs_f64(),
        codex_mem
    );
    println!(
        "speed-up: {:.2}x of the medians, {ratios:.2}x the median pair (target ≥ 8x); \
         peak memory: baton {:.0} MB (target ≤ 64 MB) vs ccusage max {:.0} MB",
        ccusage_time.as_secs_f64() / baton_time.as_secs_f64(),
        baton_mem,
        claude_mem.max(codex_mem)
    );
}
