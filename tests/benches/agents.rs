//! The mirror on each newer agent's generated history (Gemini CLI, Qwen Code, OpenCode, Kilo
//! CLI, Copilot CLI, Copilot Chat, Amp, Aider, Cline, Roo Code, Kilo Code, Cursor's store, its agent transcripts and cursor-agent's chats; 100 MB each by default, `BATON_BENCH_MB` overrides): a backfill pass per agent
//! (throughput, peak memory), then a pass with nothing changed over every tree together
//! (target: at most 100 ms for 5,000 sessions), and `usage --index daily`. Whole `baton`
//! processes, start-up included; OpenCode 1.1's tree of files (the same sessions) on its own.
//! After them, the core's reading of an OpenCode database, of its tree of files and of
//! Cursor's store in this process, on one core (MiB/s). Run: `cargo bench -p baton-tests --bench agents`.
//! Prints figures.

use std::process::Command;
use std::time::Duration;

/// Each agent the generator writes: its name, its key, and where its tree sits under the home.
const AGENTS: [(&str, &str, &str); 14] = [
    ("Gemini CLI", "gemini", ".gemini/tmp"),
    ("Qwen Code", "qwen", ".qwen/projects"),
    ("OpenCode", "opencode", ".local/share/opencode"),
    ("Kilo CLI", "kilo", ".local/share/kilo"),
    ("Copilot CLI", "copilot_cli", ".copilot/session-state"),
    (
        "Copilot Chat",
        "copilot_chat",
        ".config/Code/User/workspaceStorage",
    ),
    ("Amp", "amp", ".local/share/amp/threads"),
    ("Aider", "aider", "code"),
    (
        "Cline",
        "cline",
        ".config/Code/User/globalStorage/saoudrizwan.claude-dev",
    ),
    (
        "Roo Code",
        "roo_code",
        ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline",
    ),
    (
        "Kilo Code",
        "kilo_code",
        ".config/Code/User/globalStorage/kilocode.kilo-code",
    ),
    ("Cursor", "cursor", ".config/Cursor/User/globalStorage"),
    (
        "Cursor agent transcripts",
        "cursor_transcripts",
        ".cursor/projects",
    ),
    ("Cursor CLI", "cursor_cli", ".cursor/chats"),
];

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
            // Aider's histories sit in repositories, not in a home folder: named.
            .env("BATON_MIRROR_AIDER_DIR", home.join("code"))
            .args(args)
            .arg(format!("--index={}", index.display()));
        // One agent's backfill reads that agent's tree only: the others are switched off.
        for (_, key, _) in AGENTS {
            if only.is_some_and(|o| o != key) {
                let word = key.to_uppercase();
                cmd.env(format!("BATON_MIRROR_{word}_ENABLED"), "0");
            }
        }
        cmd
    };
    for (agent, key, dir) in AGENTS {
        let bytes = bytes_under(&home.join(dir));
        let measured = baton_tests::bench::measure(&mut run(&["mirror"], Some(key)));
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
    // OpenCode 1.1's tree of files (the same sessions as the database, one JSON file per row):
    // its backfill and a pass with nothing changed, into an index of its own.
    let tree = home.join("opencode-1.1");
    let tree_index = tmp.path().join("tree-index.sqlite");
    let tree_pass = || {
        let mut cmd = Command::new(&baton);
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path().join("nobody"))
            .env("BATON_DIR", tmp.path().join(".baton"))
            .args(["mirror", "--opencode-dir"])
            .arg(&tree)
            .arg(format!("--index={}", tree_index.display()));
        cmd
    };
    let backfill = baton_tests::bench::measure(&mut tree_pass());
    let tree_bytes = bytes_under(&tree);
    println!(
        "OpenCode 1.1 tree of files: backfill of {:.1} MB ({} sessions, {} files): {:.2} s ({:.1} MB/s), peak {:.0} MB",
        tree_bytes as f64 / 1e6,
        sessions("opencode"),
        count_files(&tree),
        backfill.took.as_secs_f64(),
        tree_bytes as f64 / 1e6 / backfill.took.as_secs_f64(),
        backfill.peak_mb
    );
    let mut unchanged: Vec<Duration> = (0..5)
        .map(|_| baton_tests::bench::measure(&mut tree_pass()).took)
        .collect();
    unchanged.sort();
    println!(
        "OpenCode 1.1 tree of files, a pass with nothing changed: median {:.1} ms",
        ms(unchanged[2])
    );
    let all: usize = AGENTS.iter().map(|(_, key, _)| sessions(key)).sum();
    let mut quiet = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..9 {
        let measured = baton_tests::bench::measure(&mut run(&["mirror"], None));
        quiet.push(measured.took);
        peak = peak.max(measured.peak_mb);
    }
    quiet.sort();
    println!(
        "a pass with nothing changed over every tree ({all} sessions): median {:.1} ms, p90 {:.1} ms, peak {peak:.0} MB (target 100 ms for 5,000 sessions: BATON_BENCH_MB=2 makes about 7,700 over the fourteen agents)",
        ms(quiet[4]),
        ms(quiet[7])
    );
    let mut daily = Vec::new();
    for _ in 0..9 {
        daily.push(baton_tests::bench::measure(&mut run(&["--json", "usage", "daily"], None)).took);
    }
    daily.sort();
    println!(
        "usage --index daily over every agent: median {:.1} ms",
        ms(daily[4])
    );
    // Last: a child's peak memory counts its parent's from before it started (Linux keeps
    // `ru_maxrss` across fork and exec), so this process grows only after the passes.
    parse_database(
        "OpenCode database",
        &home.join(".local/share/opencode/opencode.db"),
    );
    parse_tree(&tree.join("storage"));
    parse_database(
        "Cursor store",
        &home.join(".config/Cursor/User/globalStorage/state.vscdb"),
    );
    // One cursor-agent chat's store (each chat has its own).
    let chats = walk(&home.join(".cursor/chats"));
    if let Some(largest) = chats
        .iter()
        .max_by_key(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
    {
        parse_database("cursor-agent chat store", largest);
    }
}

/// The core's reading of a database held in memory: the tables, every row's JSON, the
/// conversations and the usage rows, on this thread (the median of 5).
fn parse_database(what: &str, path: &std::path::Path) {
    use baton_core::transcripts::{databases, sqlite};
    let bytes = std::fs::read(path).unwrap();
    let name = path.to_string_lossy();
    let mut took = Vec::new();
    let mut counted = (0, 0);
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let db = sqlite::Database::open(&bytes, None).unwrap();
        let store = databases::read(&name, &db, None).unwrap().unwrap();
        let conversations = store.conversations();
        let rows = store.usage_rows();
        took.push(started.elapsed());
        counted = (conversations.conversations.len(), rows.len());
    }
    took.sort();
    // SAFETY: `rusage` is plain data, all zeroes a valid value, which getrusage fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to a rusage this function owns.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    println!(
        "{what} read by the core, one core: {:.1} MB in {:.0} ms ({:.0} MiB/s; {} conversations, {} usage rows), this process's peak {:.0} MB",
        bytes.len() as f64 / 1e6,
        ms(took[2]),
        bytes.len() as f64 / (1 << 20) as f64 / took[2].as_secs_f64(),
        counted.0,
        counted.1,
        usage.ru_maxrss as f64 / 1024.0
    );
}

/// The core's reading of OpenCode 1.1's tree of files held in memory: every file's JSON, the
/// conversations and the usage rows, on this thread (the median of 5).
fn parse_tree(root: &std::path::Path) {
    use baton_core::transcripts::databases;
    let files: Vec<(String, Vec<u8>)> = walk(root)
        .into_iter()
        .map(|p| (p.to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let name = root.to_string_lossy();
    let mut took = Vec::new();
    let mut counted = (0, 0);
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let store = databases::read_tree(
            &name,
            files.iter().map(|(p, b)| (p.as_str(), b.as_slice())),
            None,
        );
        let conversations = store.conversations();
        let rows = store.usage_rows();
        took.push(started.elapsed());
        counted = (conversations.conversations.len(), rows.len());
    }
    took.sort();
    println!(
        "OpenCode 1.1 tree of files read by the core, one core: {:.1} MB in {} files, {:.0} ms ({:.0} MiB/s; {} conversations, {} usage rows)",
        bytes as f64 / 1e6,
        files.len(),
        ms(took[2]),
        bytes as f64 / (1 << 20) as f64 / took[2].as_secs_f64(),
        counted.0,
        counted.1
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
            } else if path.extension().is_some_and(|e| {
                ["jsonl", "json", "db", "vscdb", "md", "txt"]
                    .iter()
                    .any(|x| e == *x)
            }) {
                found.push(path);
            }
        }
    }
    found
}
