//! Search at the limit: a generated Claude Code tree of prose and log output (`transcript-gen
//! --prose`, default 600 MB, `BATON_BENCH_MB` overrides), words drawn by a Zipf law so the
//! commonest are in most messages; one backfill, then each query shape a person types — the
//! commonest word, a phrase of two common words, a prefix, a word with a provider, a project
//! and a span of days beside it, and a word in no message — in both orders, as whole `baton
//! search` processes (start-up included). Prints p50 and p95 per shape and over all, against
//! the target (p95 ≤ 20 ms at 500,000 messages or more), the messages held and the index's
//! size as a share of the sources'. `BATON_BENCH_BEFORE=/path/to/baton` runs the same queries
//! with another build on an index it makes itself, for a before-and-after in one run.
//! Run: `cargo bench -p baton-tests --bench search`.

use std::path::{Path, PathBuf};
use std::process::Command;

use baton_tests::bench::{ms, percentile};

/// The bytes of every file under `dir`.
fn bytes_under(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

/// The query shapes, each with the arguments after `search`.
fn shapes() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        ("commonest word", vec!["ledger"]),
        ("two common words", vec!["ledger test"]),
        ("quoted phrase", vec!["\"ledger test\""]),
        ("prefix", vec!["pars*"]),
        (
            "word + provider",
            vec!["error", "--provider", "claude_code"],
        ),
        ("word + project", vec!["error", "--project", "proj3"]),
        (
            "word + days",
            vec!["timeout", "--since", "2026-06-10", "--until", "2026-06-20"],
        ),
        ("word in no message", vec!["zanzibarquux"]),
    ]
}

/// Backfills an index with `baton` and times every shape in both orders (the older build
/// knows one order only); prints the figures and answers the p95 over all.
fn run(label: &str, baton: &Path, home: &Path, claude: &Path, orders: &[&str]) -> f64 {
    let index = home.join(format!("index-{label}.sqlite"));
    let command = |args: &[&str]| {
        let mut cmd = Command::new(baton);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home)
            .env("TZ", "UTC")
            .env("BATON_DIR", home.join(".baton"))
            .args(args)
            .arg("--index")
            .arg(&index);
        cmd
    };
    let claude_dir = claude.to_str().unwrap();
    let backfill = baton_tests::bench::measure(&mut command(&[
        "--json",
        "mirror",
        "--claude-dir",
        claude_dir,
    ]));
    let pass: serde_json::Value = serde_json::from_str(&backfill.stdout).unwrap_or_default();
    let messages = pass["pass"]["messages"].as_u64().unwrap_or(0);
    let index_bytes = std::fs::metadata(&index).map(|m| m.len()).unwrap_or(0);
    let source_bytes = bytes_under(claude);
    println!(
        "[{label}] backfill {:.1} s ({:.1} MB/s, peak {:.0} MB), {messages} messages; index {:.1} % of the sources' {:.0} MB",
        backfill.took.as_secs_f64(),
        source_bytes as f64 / 1e6 / backfill.took.as_secs_f64(),
        backfill.peak_mb,
        index_bytes as f64 * 100.0 / source_bytes as f64,
        source_bytes as f64 / 1e6
    );
    let mut all = Vec::new();
    for order in orders {
        for (shape, args) in shapes() {
            let mut times = Vec::new();
            let mut found = String::new();
            for _ in 0..10 {
                let mut cmd = command(&["--json", "search", "--include", "mirrored"]);
                cmd.args(&args);
                if !order.is_empty() {
                    cmd.args(["--order", order]);
                }
                let measured = baton_tests::bench::measure(&mut cmd);
                let answer: serde_json::Value =
                    serde_json::from_str(&measured.stdout).unwrap_or_default();
                found = format!(
                    "{}{}",
                    if answer["total_capped"] == true {
                        "> "
                    } else {
                        ""
                    },
                    answer["total"]
                );
                times.push(measured.took);
            }
            all.extend(times.iter().copied());
            println!(
                "[{label}] {:<9} {shape:<20} p50 {:>6.1} ms, p95 {:>6.1} ms ({found} matches)",
                if order.is_empty() { "default" } else { order },
                ms(percentile(&mut times, 0.5)),
                ms(percentile(&mut times, 0.95)),
            );
        }
    }
    let p95 = ms(percentile(&mut all, 0.95));
    println!(
        "[{label}] every query: p50 {:.1} ms, p95 {p95:.1} ms (target: p95 ≤ 20 ms at 500,000 messages or more)",
        ms(percentile(&mut all, 0.5))
    );
    p95
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mb = std::env::var("BATON_BENCH_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(600);
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    let generated = Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&trees)
        .args(["--mb", &mb.to_string(), "--prose"])
        .status()
        .unwrap();
    assert!(generated.success());
    let claude = trees.join("claude/projects");
    if let Some(before) = std::env::var_os("BATON_BENCH_BEFORE").map(PathBuf::from) {
        run("before", &before, tmp.path(), &claude, &[""]);
    }
    run("now", &baton, tmp.path(), &claude, &["relevance", "newest"]);
}
