//! The mirror on generated Claude Code + Codex trees (default 500 MB; `BATON_BENCH_MB`
//! overrides): backfill throughput, the index's size as a share of the sources, a pass with
//! nothing changed over a tree of at least 5,000 files, `usage --index daily`, `search` (p95
//! over a set of queries), `transcripts list --limit 20`, and the peak resident memory of each.
//! Every figure is a whole `baton` process as a person runs it (start-up included).
//! Run: `cargo bench -p baton-tests --bench mirror`. Prints figures.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs a command to completion; returns wall time, peak RSS in MB (polled from /proc) and
/// stdout.
fn measure(cmd: &mut Command) -> (Duration, f64, String) {
    let start = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_path)
            && let Some(line) = text.lines().find(|l| l.starts_with("VmHWM:"))
        {
            peak_kb = peak_kb.max(
                line.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0),
            );
        }
        if let Some(status) = child.try_wait().unwrap() {
            let elapsed = start.elapsed();
            assert!(status.success(), "{cmd:?} failed");
            return (elapsed, peak_kb as f64 / 1024.0, reader.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let at = ((times.len() as f64 - 1.0) * p).round() as usize;
    times[at]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mb: u64 = std::env::var("BATON_BENCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "baton"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(status.success());
    let baton = root.join("target/release/baton");
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    let generated = Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&trees)
        .args(["--mb", &mb.to_string()])
        .status()
        .unwrap();
    assert!(generated.success());
    let (claude, codex) = (trees.join("claude/projects"), trees.join("codex/sessions"));
    let index = tmp.path().join("index.sqlite");
    let run = |args: &[&str]| {
        let mut cmd = Command::new(&baton);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("TZ", "UTC")
            .env("BATON_INDEX", &index)
            .current_dir(tmp.path())
            .args(args);
        cmd
    };
    let mirror_args = [
        "mirror",
        "--claude-dir",
        claude.to_str().unwrap(),
        "--codex-dir",
        codex.to_str().unwrap(),
    ];
    let mut files = Vec::new();
    let mut bytes = 0u64;
    let mut folders = vec![trees.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                folders.push(entry.path());
            } else {
                bytes += meta.len();
                files.push(entry.path());
            }
        }
    }
    // Warm the page cache: the figure is the mirror's work, not the disk's.
    for file in &files {
        let _ = std::fs::read(file);
    }
    println!(
        "sources: {} files, {:.0} MB (Claude Code + Codex, generated)",
        files.len(),
        bytes as f64 / 1e6
    );

    let (took, peak, _) = measure(&mut run(&mirror_args));
    println!(
        "backfill: {:.2} s, {:.1} MB/s, peak {peak:.0} MB",
        took.as_secs_f64(),
        bytes as f64 / 1e6 / took.as_secs_f64()
    );
    let (_, _, stats) = measure(&mut run(&["index", "stats", "--json"]));
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    println!(
        "index: {:.0} MB, {:.1} % of the sources' bytes; by table: {}",
        (stats["file_bytes"].as_u64().unwrap() + stats["wal_bytes"].as_u64().unwrap()) as f64 / 1e6,
        stats["share_of_sources"].as_f64().unwrap() * 100.0,
        stats["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| format!(
                "{} {:.1} MB",
                t["name"].as_str().unwrap(),
                t["bytes"].as_u64().unwrap() as f64 / 1e6
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );

    let mut unchanged = Vec::new();
    let mut unchanged_peak: f64 = 0.0;
    for _ in 0..5 {
        let (took, peak, _) = measure(&mut run(&mirror_args));
        unchanged.push(took);
        unchanged_peak = unchanged_peak.max(peak);
    }
    println!(
        "no-change pass over {} files: median {:.1} ms, peak {unchanged_peak:.0} MB",
        files.len(),
        ms(percentile(&mut unchanged, 0.5))
    );
    // A tree of just over 5,000 small files (the yardstick): the no-change pass's cost
    // is per file.
    let many = tmp.path().join("many");
    let generated = Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&many)
        .args(["--sessions", "1780", "--responses", "2"])
        .status()
        .unwrap();
    assert!(generated.success());
    let many_index = tmp.path().join("many.sqlite");
    let many_args = [
        "mirror",
        "--claude-dir",
        &many.join("claude/projects").display().to_string(),
        "--codex-dir",
        &many.join("codex/sessions").display().to_string(),
        "--index",
        &many_index.display().to_string(),
        "--json",
    ]
    .map(|s| s.to_owned());
    let many_args: Vec<&str> = many_args.iter().map(String::as_str).collect();
    let (_, _, first) = measure(&mut run(&many_args));
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let mut times = Vec::new();
    let mut peak_many: f64 = 0.0;
    for _ in 0..5 {
        let (took, peak, _) = measure(&mut run(&many_args));
        times.push(took);
        peak_many = peak_many.max(peak);
    }
    println!(
        "no-change pass over {} files: median {:.1} ms, peak {peak_many:.0} MB",
        first["pass"]["files"],
        ms(percentile(&mut times, 0.5))
    );

    let mut usage = Vec::new();
    let mut usage_peak: f64 = 0.0;
    for _ in 0..7 {
        let (took, peak, _) = measure(&mut run(&["usage", "daily", "--index", "--json"]));
        usage.push(took);
        usage_peak = usage_peak.max(peak);
    }
    println!(
        "usage --index daily: median {:.1} ms, peak {usage_peak:.0} MB",
        ms(percentile(&mut usage, 0.5))
    );

    let queries = [
        "error",
        "parse_claude_code",
        "refactor the parser",
        "test",
        "東京",
        "fn main",
        "timeout retry",
        "database migration",
        "ok",
        "cargo build release",
    ];
    let mut search = Vec::new();
    let mut search_peak: f64 = 0.0;
    for _ in 0..4 {
        for query in queries {
            let (took, peak, _) = measure(&mut run(&["search", query, "--json"]));
            search.push(took);
            search_peak = search_peak.max(peak);
        }
    }
    println!(
        "search ({} queries x 4): p50 {:.1} ms, p95 {:.1} ms, peak {search_peak:.0} MB",
        queries.len(),
        ms(percentile(&mut search, 0.5)),
        ms(percentile(&mut search, 0.95))
    );

    let mut list = Vec::new();
    let mut list_peak: f64 = 0.0;
    for _ in 0..7 {
        let (took, peak, _) = measure(&mut run(&[
            "transcripts",
            "list",
            "--limit",
            "20",
            "--json",
        ]));
        list.push(took);
        list_peak = list_peak.max(peak);
    }
    println!(
        "transcripts list --limit 20: median {:.1} ms, peak {list_peak:.0} MB",
        ms(percentile(&mut list, 0.5))
    );
}
