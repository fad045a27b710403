//! Team scale against a local PostgreSQL (Debian's, started privately by
//! `tests/pg/with-postgres.sh`), with the release binary, wall time of whole processes:
//! 1. `baton sync` of a 1,000,000-event ledger into an empty database: events per second;
//! 2. `baton sync` of 1,000 new events on top of it (median of 5): target ≤ 200 ms;
//! 3. `baton team list` over 100 machines × 10,000 sessions each (1,000,000 sessions, 10 live
//!    per machine), after each machine synced: median of 10, target ≤ 100 ms.
//!
//! Run: `tests/pg/with-postgres.sh cargo bench -p baton-tests --bench team`. Prints figures.
//! `BATON_BENCH_SYNC_EVENTS` and `BATON_BENCH_TEAM_MACHINES` make it smaller.

use baton_core::ledger::event::{Actor, Ended, Event, Payload, Started};
use baton_core::{EventId, SessionId, Timestamp};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fresh database on the bench server; its URL.
fn fresh_database(server: &str, name: &str) -> String {
    for sql in [
        format!("DROP DATABASE IF EXISTS {name}"),
        format!("CREATE DATABASE {name}"),
    ] {
        let status = Command::new("psql")
            .args([server, "-q", "-v", "ON_ERROR_STOP=1", "-c", &sql])
            .status()
            .unwrap();
        assert!(status.success(), "{sql}");
    }
    format!("{}/{name}", server.rsplit_once('/').unwrap().0)
}

/// Appends `sessions` sessions to the ledger at `dir`: each started, all but the last `live`
/// ended; returns the events written.
fn write_sessions(dir: &Path, first: u64, sessions: u64, live: u64, agent: &str) -> u64 {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("events.ndjson");
    let fresh = !path.exists();
    let mut file = std::io::BufWriter::new(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap(),
    );
    if fresh {
        writeln!(
            file,
            "{}",
            baton_core::ledger::event::encode_header(&uuid::Uuid::now_v7().to_string())
        )
        .unwrap();
    }
    let mut written = 0;
    for n in first..first + sessions {
        let at = Timestamp::from_millis(1_780_000_000_000 + (n as i64) * 1_000);
        let started = Event {
            id: EventId(uuid::Uuid::now_v7()),
            session: SessionId(uuid::Uuid::now_v7()),
            at,
            actor: Actor::agent(agent),
            payload: Payload::Started(Started {
                goal: Some(format!("task {n}")),
                ..Started::new("shop", agent)
            }),
        };
        writeln!(file, "{}", started.encode().unwrap()).unwrap();
        written += 1;
        if n < first + sessions - live {
            let ended = Event {
                id: EventId(uuid::Uuid::now_v7()),
                at: Timestamp::from_millis(at.millis() + 500),
                payload: Payload::Ended(Ended::default()),
                ..started
            };
            writeln!(file, "{}", ended.encode().unwrap()).unwrap();
            written += 1;
        }
    }
    file.flush().unwrap();
    written
}

fn baton(binary: &Path, dir: &Path, name: &str) -> Command {
    let mut command = Command::new(binary);
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("BATON_DIR", dir)
        .env("BATON_MACHINE_NAME", name)
        .env("BATON_FSYNC", "0");
    command
}

/// Runs a command to success; its wall time.
fn timed(command: &mut Command) -> Duration {
    let started = Instant::now();
    let out = command.output().unwrap();
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let Ok(server) = std::env::var("BATON_TEST_PG_URL") else {
        eprintln!(
            "no server: run `tests/pg/with-postgres.sh cargo bench -p baton-tests --bench team`"
        );
        return;
    };
    let binary: PathBuf = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();

    // 1. A million events, sent once.
    let events = env_number("BATON_BENCH_SYNC_EVENTS", 1_000_000) as u64;
    if events > 0 {
        sync_figures(&binary, &server, tmp.path(), events);
    }
    team_list_figures(&binary, &server, tmp.path());
}

/// Parts 1 and 2: the big sync, then small ones on top.
fn sync_figures(binary: &Path, server: &str, tmp: &Path, events: u64) {
    let url = fresh_database(server, "bench_sync");
    let big = tmp.join("big/.baton");
    // Two events per ended session.
    let written = write_sessions(&big, 0, events / 2, 0, "claude");
    let took = timed(baton(binary, &big, "big").args(["sync", "--to", &url]));
    println!(
        "sync of {written} events into an empty database: {:.1} s, {:.0} events/s",
        took.as_secs_f64(),
        written as f64 / took.as_secs_f64()
    );

    // 2. A thousand new events on top, five times.
    let mut samples = Vec::new();
    for round in 0..5u64 {
        write_sessions(&big, events + round * 1_000, 500, 0, "claude");
        samples.push(timed(
            baton(binary, &big, "big").args(["sync", "--to", &url]),
        ));
    }
    println!(
        "sync of 1,000 new events on a {written}-event ledger: median {:.0} ms (target ≤ 200 ms; samples {:?})",
        median(samples.clone()).as_secs_f64() * 1e3,
        samples
            .iter()
            .map(|s| (s.as_secs_f64() * 1e3).round() as u64)
            .collect::<Vec<_>>()
    );
}

/// Part 3: the team list over 100 machines × 10,000 sessions, measured once the server has
/// analyzed the tables (as autovacuum soon does), human and JSON in turn.
fn team_list_figures(binary: &Path, server: &str, tmp: &Path) {
    let machines = env_number("BATON_BENCH_TEAM_MACHINES", 100);
    let url = fresh_database(server, "bench_team");
    let filling = Instant::now();
    for m in 0..machines {
        let dir = tmp.join(format!("machine-{m}/.baton"));
        write_sessions(&dir, 0, 10_000, 10, &format!("agent{m}"));
        timed(baton(binary, &dir, &format!("host-{m}")).args(["sync", "--to", &url]));
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }
    println!(
        "{machines} machines × 10,000 sessions synced in {:.0} s",
        filling.elapsed().as_secs_f64()
    );
    let analyzed = Command::new("psql")
        .args([&url, "-q", "-c", "VACUUM ANALYZE"])
        .status()
        .unwrap();
    assert!(analyzed.success());
    let reader = tmp.join("reader/.baton");
    let (mut human, mut json) = (Vec::new(), Vec::new());
    for _ in 0..10 {
        for (format, samples) in [(&[][..], &mut human), (&["--json"][..], &mut json)] {
            samples.push(timed(
                baton(binary, &reader, "reader")
                    .args(format)
                    .args(["team", "list", "--from", &url]),
            ));
        }
    }
    for (name, samples) in [("team list", human), ("team list --json", json)] {
        println!(
            "{name} ({} live sessions of {}): median {:.0} ms (target ≤ 100 ms)",
            machines * 10,
            machines * 10_000,
            median(samples).as_secs_f64() * 1e3
        );
    }
}
