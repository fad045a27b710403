//! `baton hook claude-code` as Claude Code runs it, on a project ledger that already holds
//! 2,000 ended work sessions: a `SessionStart` (a new Claude session), a `SessionStart` of a live one
//! (a reconnect), a `Stop` (its transcript's usage read and recorded: 200 responses, about
//! 110 KB, the first time) and a `SessionEnd`; median and p95 wall time
//! of whole processes (start-up included) and their peak memory. Target: 50 ms.
//! Run: `cargo bench -p baton-tests --bench hook`. Prints figures.

use std::process::{Command, Stdio};
use std::time::Duration;

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    times[((times.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    std::fs::create_dir_all(&project).unwrap();
    let ledger = project.join(".baton");
    // 2,000 earlier sessions, ended, written as a busy project's would be (then folded into
    // a checkpoint by the first command, as in use).
    let status = Command::new(env!("CARGO_BIN_EXE_ledger-writer"))
        .arg(&ledger)
        .args(["2000", "--ended"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let hook = |input: String| {
        let file = tmp.path().join("input.json");
        std::fs::write(&file, input).unwrap();
        let mut command = Command::new(&baton);
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", tmp.path())
            .env("CLAUDE_PROJECT_DIR", &project)
            .current_dir(&project)
            .args(["hook", "claude-code"])
            .stdin(Stdio::from(std::fs::File::open(&file).unwrap()));
        baton_tests::bench::measure(&mut command)
    };
    // Each Claude session's transcript: 200 responses, read whole by its first Stop.
    let transcripts = tmp.path().join("transcripts");
    std::fs::create_dir_all(&transcripts).unwrap();
    let transcript = |id: &str| {
        let path = transcripts.join(format!("{id}.jsonl"));
        if !path.exists() {
            let mut text = String::new();
            for n in 0..200 {
                text.push_str(&format!(
                    r#"{{"type":"assistant","sessionId":"{id}","cwd":"/w/webapp","timestamp":"2026-07-18T10:{:02}:00Z","requestId":"r{n}","message":{{"id":"m{n}","role":"assistant","model":"claude-sonnet-4-20250514","content":[{{"type":"text","text":"{}"}}],"usage":{{"input_tokens":{},"cache_read_input_tokens":40000,"output_tokens":300}}}}}}"#,
                    n % 60,
                    "words ".repeat(60),
                    1000 + n
                ));
                text.push('\n');
            }
            std::fs::write(&path, text).unwrap();
        }
        path.display().to_string()
    };
    let event = |id: &str, name: &str, extra: &str| {
        format!(
            r#"{{"session_id":"{id}","hook_event_name":"{name}","transcript_path":"{}"{extra}}}"#,
            transcript(id)
        )
    };
    hook(event("warm-up", "SessionStart", r#","source":"startup""#));
    let mut figures: Vec<(&str, Vec<Duration>, f64)> = Vec::new();
    let runs = 30;
    for (label, name, extra) in [
        (
            "SessionStart (new)",
            "SessionStart",
            r#","source":"startup""#,
        ),
        (
            "SessionStart (reconnect)",
            "SessionStart",
            r#","source":"resume""#,
        ),
        ("Stop", "Stop", ""),
        ("SessionEnd", "SessionEnd", r#","reason":"other""#),
    ] {
        let mut took = Vec::new();
        let mut peak: f64 = 0.0;
        for n in 0..runs {
            let run = hook(event(&format!("claude-{n}"), name, extra));
            took.push(run.took);
            peak = peak.max(run.peak_mb);
        }
        figures.push((label, took, peak));
    }
    for (label, mut took, peak) in figures {
        let median = percentile(&mut took, 0.5);
        let p95 = percentile(&mut took, 0.95);
        println!(
            "hook claude-code, {label}: median {:.1} ms, p95 {:.1} ms, peak {peak:.0} MB",
            median.as_secs_f64() * 1000.0,
            p95.as_secs_f64() * 1000.0
        );
    }
}
