//! A test writer process: appends events to a ledger through the real native store and prints
//! each event id once its append has returned (acknowledged), so tests can check that nothing
//! acknowledged is ever lost — across processes, compactions and SIGKILL.
//!
//! Usage: `ledger-writer DIR COUNT [--fsync] [--delay-us N] [--ended]` (COUNT 0 = until
//! killed; `--delay-us` pauses between opening the log and writing, to widen race windows;
//! `--ended` ends each session it starts, as most of a real ledger's sessions are;
//! `--tied-every K` starts session `n` a minute after session `n - 1` and ends it 50 s later,
//! every K-th with provider session id `0b0b0b0b-0000-4000-8000-{n:012}`, for transcripts a
//! benchmark writes to tie to them).
//! `ledger-writer DIR start PROVIDER_SESSION_ID [--delay-us N]` instead runs one `start` with
//! that provider session id through the engine (as `baton start` does) and prints its answer:
//! the delay then falls between the decision and its append, where two starts would race.

use baton::store::Ledger;
use baton_core::ledger::event::{Actor, Event, Payload, Started};
use baton_core::{EventId, SessionId, Timestamp};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("DIR");
    let count: u64 = args.get(2).and_then(|c| c.parse().ok()).unwrap_or(0);
    let fsync = args.iter().any(|a| a == "--fsync");
    let mut ledger = Ledger::new(dir, fsync);
    if let Some(delay) = args
        .iter()
        .position(|a| a == "--delay-us")
        .and_then(|i| args.get(i + 1))
        .and_then(|d| d.parse().ok())
    {
        ledger = ledger.with_write_delay(std::time::Duration::from_micros(delay));
    }
    if args.get(2).is_some_and(|a| a == "start") {
        let request = baton_core::commands::Request::Start(baton_core::commands::StartParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            provider_session_id: args.get(3).cloned(),
            ..Default::default()
        });
        let answer = baton::ops::engine::run(&ledger, &request, None).expect("start");
        println!("{}", serde_json::to_string(&answer).expect("json"));
        return;
    }
    let tied_every: Option<u64> = args
        .iter()
        .position(|a| a == "--tied-every")
        .and_then(|i| args.get(i + 1))
        .and_then(|k| k.parse().ok())
        .filter(|k| *k > 0);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut n = 0u64;
    while count == 0 || n < count {
        let session = SessionId(uuid::Uuid::now_v7());
        let (start, length) = match tied_every {
            Some(_) => (1_780_000_000_000 + n as i64 * 60_000, 50_000),
            None => (1_780_000_000_000 + n as i64, 1),
        };
        let event = Event {
            id: EventId(uuid::Uuid::now_v7()),
            session,
            at: Timestamp::from_millis(start),
            actor: Actor::agent("writer"),
            payload: Payload::Started(Started {
                goal: Some(format!("event {n} of process {}", std::process::id())),
                provider_session_id: tied_every
                    .filter(|k| n.is_multiple_of(*k))
                    .map(|_| format!("0b0b0b0b-0000-4000-8000-{n:012}")),
                ..Started::new("load", format!("writer-{}", std::process::id()))
            }),
        };
        ledger
            .append(&event.encode().expect("encode"))
            .expect("append");
        if args.iter().any(|a| a == "--ended") {
            let ended = Event {
                id: EventId(uuid::Uuid::now_v7()),
                at: Timestamp::from_millis(start + length),
                payload: Payload::Ended(baton_core::ledger::event::Ended::default()),
                ..event.clone()
            };
            ledger
                .append(&ended.encode().expect("encode"))
                .expect("append");
        }
        writeln!(out, "{}", event.id).expect("stdout");
        out.flush().expect("flush");
        n += 1;
    }
}
