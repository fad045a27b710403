//! The mirror on each newer agent's generated history (Gemini CLI, Qwen Code; 100 MB each by
//! default, `BATON_BENCH_MB` overrides): a backfill pass per agent (throughput, peak memory),
//! then a pass with nothing changed over both trees together (target: at most 100 ms for
//! 5,000 sessions), and `usage --index daily`. Whole `baton` processes, start-up included.
//! Run: `cargo bench -p baton-tests --bench agents`. Prints figures.

use std::process::Command;
use std::time::Duration;

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
        .unwrap_or(100);
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let generated = Command::new(env!("CARGO_BIN_EXE_agent-gen"))
        .arg(&home)
        .args(["--mb", &mb.to_string(), "--truth"])
        .arg(tmp.path().join("truth.json"))
        .status()
        .unwrap();
    assert!(generated.success());
    // Sessions per agent, as the generator's truth lists them.
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("truth.json")).unwrap()).unwrap();
    let sessions = |agent: &str| truth[agent]["conversations"].as_array().map_or(0, Vec::len);
    let index = tmp.path().join("index.sqlite");
    let run = |args: &[&str], only: Option<&str>| {
        let mut cmd = Command::new(&baton);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("TZ", "UTC")
            .env("BATON_DIR", tmp.path().join(".baton"))
            .args(args)
            .arg(format!("--index={}", index.display()));
        // One agent's backfill reads that agent's tree only: the other's is switched off.
        for word in ["GEMINI", "QWEN"] {
            if only.is_some_and(|o| o != word) {
                cmd.env(format!("BATON_MIRROR_{word}_ENABLED"), "0");
            }
        }
        cmd
    };
    for (agent, key, word, dir) in [
        ("Gemini CLI", "gemini", "GEMINI", ".gemini/tmp"),
        ("Qwen Code", "qwen", "QWEN", ".qwen/projects"),
    ] {
        let bytes = bytes_under(&home.join(dir));
        let measured = baton_tests::bench::measure(&mut run(&["mirror"], Some(word)));
        println!(
            "{agent}: backfill of {:.1} MB ({} sessions, {} files): {:.2} s ({:.1} MB/s), peak {:.0} MB",
            bytes as f64 / 1e6,
            sessions(key),
            count_files(&home.join(dir)),
            measured.took.as_secs_f64(),
            bytes as f64 / 1e6 / measured.took.as_secs_f64(),
            measured.peak_mb
        );
    }
    let all = sessions("gemini") + sessions("qwen");
    let mut quiet = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..9 {
        let measured = baton_tests::bench::measure(&mut run(&["mirror"], None));
        quiet.push(measured.took);
        peak = peak.max(measured.peak_mb);
    }
    quiet.sort();
    println!(
        "a pass with nothing changed over both trees ({all} sessions): median {:.1} ms, p90 {:.1} ms, peak {peak:.0} MB (target 100 ms for 5,000 sessions: BATON_BENCH_MB=19 makes about 5,000)",
        ms(quiet[4]),
        ms(quiet[7])
    );
    let mut daily = Vec::new();
    for _ in 0..9 {
        daily.push(baton_tests::bench::measure(&mut run(&["--json", "usage", "daily"], None)).took);
    }
    daily.sort();
    println!(
        "usage --index daily over both: median {:.1} ms",
        ms(daily[4])
    );
}

fn count_files(dir: &std::path::Path) -> usize {
    walk(dir).len()
}

fn bytes_under(dir: &std::path::Path) -> u64 {
    walk(dir)
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "jsonl" || e == "json")
            {
                found.push(path);
            }
        }
    }
    found
}
