//! `baton start` wall time on a ledger with 1,000,000 prior events versus an empty one
//! (target: at most 2×). Prints figures; it is a bench binary, not a timed test.
//!
//! The big ledger is 100,000 sessions of 10 events, written straight to `events.ndjson`, then
//! read once by `baton list` (which writes the checkpoint, as any use of a real ledger does).
//! Each `baton start` is a fresh process with fsync on, as an agent's hook would run it.
//! Run: `cargo bench -p baton --bench start_scale` (BATON_BENCH_EVENTS overrides the count).

use baton_core::ledger::event::{Actor, Ended, Event, Outcome, Payload, Resumed, Started};
mod common;

use baton_core::{EventId, SessionId, Timestamp};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn baton_bin() -> PathBuf {
    common::release_baton()
}

fn write_history(dir: &Path, events: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let file = std::fs::File::create(dir.join("events.ndjson")).unwrap();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    writeln!(
        out,
        "{}",
        baton_core::ledger::event::encode_header("bench-generation")
    )
    .unwrap();
    let start_ms = 1_780_000_000_000i64;
    for i in 0..events {
        let session = SessionId(uuid::Uuid::from_u128(
            0x019c_0000_0000_7000_8000_0000_0000_0000 | (i / 10) as u128,
        ));
        let payload = match i % 10 {
            0 => Payload::Started(Started {
                client_name: Some("claude-code".into()),
                goal: Some("Implement the search feature".into()),
                ..Started::new(format!("project-{}", i % 7), format!("agent-{}", i % 5))
            }),
            9 => Payload::Ended(Ended {
                outcome: Outcome::Complete,
                summary: Some("done".into()),
                pull_request: None,
            }),
            _ => Payload::Resumed(Resumed { client_name: None }),
        };
        let event = Event {
            id: EventId(uuid::Uuid::from_u128(
                0x019c_0000_0000_7000_9000_0000_0000_0000 | i as u128,
            )),
            session,
            at: Timestamp::from_millis(start_ms + i as i64 * 1000),
            actor: Actor::agent("bench"),
            payload,
        };
        writeln!(out, "{}", event.encode().unwrap()).unwrap();
    }
    out.flush().unwrap();
}

fn time_starts(bin: &Path, dir: &Path, runs: usize) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs)
        .map(|i| {
            let t = Instant::now();
            let out = Command::new(bin)
                .arg("--dir")
                .arg(dir)
                .args([
                    "--json",
                    "start",
                    "--project",
                    "bench",
                    "--agent",
                    &format!("a{i}"),
                ])
                .output()
                .unwrap();
            let elapsed = t.elapsed();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
            elapsed
        })
        .collect();
    times.sort();
    times
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let events: usize = std::env::var("BATON_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let bin = baton_bin();
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty");
    let big = tmp.path().join("big");
    let t = Instant::now();
    write_history(&big, events);
    let size = std::fs::metadata(big.join("events.ndjson")).unwrap().len();
    println!(
        "wrote {events} events ({:.1} MB) in {:.1} s",
        size as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let out = Command::new(&bin)
        .arg("--dir")
        .arg(&big)
        .args(["--json", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
    println!(
        "first read (full fold + checkpoint write): {:.0} ms",
        ms(t.elapsed())
    );

    const RUNS: usize = 41;
    let empty_times = time_starts(&bin, &empty, RUNS);
    let big_times = time_starts(&bin, &big, RUNS);
    let (e50, b50) = (empty_times[RUNS / 2], big_times[RUNS / 2]);
    let (e90, b90) = (empty_times[RUNS * 9 / 10], big_times[RUNS * 9 / 10]);
    println!(
        "baton start, empty ledger:        p50 {:.2} ms  p90 {:.2} ms",
        ms(e50),
        ms(e90)
    );
    println!(
        "baton start, {events} prior events: p50 {:.2} ms  p90 {:.2} ms",
        ms(b50),
        ms(b90)
    );
    println!("ratio (p50): {:.2}x  (target ≤ 2x)", ms(b50) / ms(e50));

    // Reads that must find one old session among 100,000 (binary search in the checkpoint).
    let old = uuid::Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0000 | 12_345).to_string();
    let mut shows: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            let out = Command::new(&bin)
                .arg("--dir")
                .arg(&big)
                .args(["--json", "show", &old])
                .output()
                .unwrap();
            assert!(out.status.success());
            t.elapsed()
        })
        .collect();
    shows.sort();
    println!(
        "baton show <an old session>, {events} prior events: p50 {:.2} ms",
        ms(shows[RUNS / 2])
    );
    let t = Instant::now();
    let out = Command::new(&bin)
        .arg("--dir")
        .arg(&big)
        .args(["--json", "end", "--project", "bench", "--agent", "a0"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    println!(
        "baton end (implicit resolution), {events} prior events: {:.2} ms",
        ms(t.elapsed())
    );
}
