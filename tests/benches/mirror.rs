//! The mirror on generated Claude Code + Codex trees (default 500 MB; `BATON_BENCH_MB`
//! overrides): backfill throughput, the index's size as a share of the sources, a pass with
//! nothing changed over a tree of at least 5,000 files, `usage --index daily`, `search` (p95
//! over a set of queries), `transcripts list --limit 20`, the status line, `usage blocks`,
//! `budget status` and `budget check`, and the peak resident memory of each.
//! Every figure is a whole `baton` process as a person runs it (start-up included).
//! Run: `cargo bench -p baton-tests --bench mirror`. Prints figures.

use std::process::Command;
use std::time::Duration;

/// `measure` as the figures want it: wall time, peak MB, stdout.
fn measure(cmd: &mut Command) -> (Duration, f64, String) {
    let run = baton_tests::bench::measure(cmd);
    (run.took, run.peak_mb, run.stdout)
}

/// The median wall time and the peak memory of `times` runs of `cmd`.
fn repeated(times: usize, mut cmd: impl FnMut() -> Command) -> (Duration, f64) {
    let mut took = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..times {
        let (time, mb, _) = measure(&mut cmd());
        took.push(time);
        peak = peak.max(mb);
    }
    (percentile(&mut took, 0.5), peak)
}

use baton_tests::bench::{ms, percentile};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mb = baton_tests::bench::tree_mb();
    let baton = baton_tests::bench::release_baton();
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
    let run = |args: &[&str]| baton_tests::bench::baton_in(&baton, tmp.path(), &index, args);
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

    let (unchanged, unchanged_peak) = repeated(5, || run(&mirror_args));
    println!(
        "no-change pass over {} files: median {:.1} ms, peak {unchanged_peak:.0} MB",
        files.len(),
        ms(unchanged)
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
    let (many_time, peak_many) = repeated(5, || run(&many_args));
    println!(
        "no-change pass over {} files: median {:.1} ms, peak {peak_many:.0} MB",
        first["pass"]["files"],
        ms(many_time)
    );

    let (usage, usage_peak) = repeated(7, || run(&["usage", "daily", "--index", "--json"]));
    println!(
        "usage --index daily: median {:.1} ms, peak {usage_peak:.0} MB",
        ms(usage)
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

    let (list, list_peak) = repeated(7, || {
        run(&["transcripts", "list", "--limit", "20", "--json"])
    });
    println!(
        "transcripts list --limit 20: median {:.1} ms, peak {list_peak:.0} MB",
        ms(list)
    );

    // `baton statusline` on this index: a work session tied to one of the Claude sessions,
    // Claude Code's JSON on stdin. Cold: no cached line (a fresh cache folder each run).
    // Warm: the transcript was touched since the last line (computed again, caches warm).
    // Cached: nothing changed (the last line reused).
    let project = tmp.path().join("proj");
    let ledger = project.join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let transcript = files
        .iter()
        .find(|f| {
            f.starts_with(&claude)
                && f.extension().is_some_and(|e| e == "jsonl")
                && !f.to_string_lossy().contains("subagents")
        })
        .unwrap()
        .clone();
    let claude_session = transcript
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let started = run(&[
        "start",
        "--project",
        "proj",
        "--agent",
        "claude",
        "--provider-session-id",
        &claude_session,
    ])
    .env("BATON_DIR", &ledger)
    .output()
    .unwrap();
    assert!(started.status.success());
    let payload = tmp.path().join("statusline.json");
    std::fs::write(
        &payload,
        serde_json::json!({
            "session_id": claude_session,
            "transcript_path": transcript,
            "cwd": project,
            "workspace": {"project_dir": project, "current_dir": project},
            "cost": {"total_cost_usd": 1.25},
            "rate_limits": {"five_hour": {"used_percentage": 40, "resets_at": 4_102_444_800u64},
                            "seven_day": {"used_percentage": 10, "resets_at": 4_102_444_800u64}},
        })
        .to_string(),
    )
    .unwrap();
    let statusline = |cache: &std::path::Path| {
        let mut cmd = run(&["statusline"]);
        cmd.env("BATON_DIR", &ledger)
            .env("XDG_RUNTIME_DIR", cache)
            .stdin(std::fs::File::open(&payload).unwrap());
        cmd
    };
    let timings = |label: &str, mut before: Box<dyn FnMut() -> std::path::PathBuf>| {
        let mut times = Vec::new();
        let mut peak: f64 = 0.0;
        let mut line = String::new();
        for _ in 0..30 {
            let cache = before();
            let (took, mb, out) = measure(&mut statusline(&cache));
            times.push(took);
            peak = peak.max(mb);
            line = out;
        }
        println!(
            "statusline {label}: p50 {:.1} ms, p95 {:.1} ms, peak {peak:.0} MB",
            ms(percentile(&mut times, 0.5)),
            ms(percentile(&mut times, 0.95))
        );
        line
    };
    let caches = tmp.path().join("caches");
    let mut n = 0;
    let line = timings(
        "cold",
        Box::new(move || {
            n += 1;
            let fresh = caches.join(n.to_string());
            std::fs::create_dir_all(&fresh).unwrap();
            fresh
        }),
    );
    println!("statusline line: {}", line.trim());
    let shared = tmp.path().join("cache-shared");
    std::fs::create_dir_all(&shared).unwrap();
    let touched = transcript.clone();
    let shared_warm = shared.clone();
    let mut tick = 0u64;
    timings(
        "warm",
        Box::new(move || {
            tick += 1;
            let file = std::fs::File::options()
                .append(true)
                .open(&touched)
                .unwrap();
            file.set_modified(
                std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + tick),
            )
            .unwrap();
            shared_warm.clone()
        }),
    );
    timings("cached", Box::new(move || shared.clone()));

    // Plan windows and budgets at the generated tree's last day (its responses run from
    // 2026-05-28 for 45 days): `usage blocks` from the index (every window, and the recent
    // ones by work session), and `budget status` on a ledger whose `[budget]` has a rule of
    // every period and a project's.
    let at_the_end = "2026-07-12T12:00:00Z";
    let (blocks, blocks_peak) = repeated(7, || {
        let mut cmd = run(&["usage", "blocks", "--index", "--json"]);
        cmd.env("BATON_NOW", at_the_end);
        cmd
    });
    println!(
        "usage blocks --index: median {:.1} ms, peak {blocks_peak:.0} MB",
        ms(blocks)
    );
    let (recent, recent_peak) = repeated(7, || {
        let mut cmd = run(&[
            "usage",
            "blocks",
            "--index",
            "--recent",
            "--by-session",
            "--token-limit",
            "max",
            "--json",
        ]);
        cmd.env("BATON_NOW", at_the_end).env("BATON_DIR", &ledger);
        cmd
    });
    println!(
        "usage blocks --index --recent --by-session --token-limit max: median {:.1} ms, peak {recent_peak:.0} MB",
        ms(recent)
    );
    std::fs::write(
        ledger.join("config.toml"),
        "[budget]\nday_usd = 50\nweek_usd = 200\nmonth_usd = 600\nwindow_usd = 20\n[budget.project.proj]\nweek_usd = 100\n",
    )
    .unwrap();
    let (budget, budget_peak) = repeated(7, || {
        let mut cmd = run(&["budget", "status", "--json"]);
        cmd.env("BATON_NOW", at_the_end).env("BATON_DIR", &ledger);
        cmd
    });
    println!(
        "budget status (5 rules, one a project's): median {:.1} ms, peak {budget_peak:.0} MB",
        ms(budget)
    );
    // Rules over all work only: the 15-minute sums answer them (the project's rule reads a
    // week of responses one by one).
    std::fs::write(
        ledger.join("config.toml"),
        "[budget]\nday_usd = 50\nweek_usd = 200\nmonth_usd = 600\nwindow_usd = 20\n",
    )
    .unwrap();
    let (all, all_peak) = repeated(7, || {
        let mut cmd = run(&["budget", "status", "--json"]);
        cmd.env("BATON_NOW", at_the_end).env("BATON_DIR", &ledger);
        cmd
    });
    println!(
        "budget status (4 rules over all work): median {:.1} ms, peak {all_peak:.0} MB",
        ms(all)
    );
    // What a script or CI runs: the same rules with limits not reached (over one, it exits
    // 1, which the measure counts as a failure).
    std::fs::write(
        ledger.join("config.toml"),
        "[budget]\nday_usd = 50000\nweek_usd = 200000\nmonth_usd = 600000\nwindow_usd = 20000\n",
    )
    .unwrap();
    let (check, check_peak) = repeated(7, || {
        let mut cmd = run(&["budget", "check"]);
        cmd.env("BATON_NOW", at_the_end).env("BATON_DIR", &ledger);
        cmd
    });
    println!(
        "budget check (4 rules over all work): median {:.1} ms, peak {check_peak:.0} MB",
        ms(check)
    );
}
