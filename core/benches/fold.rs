//! Fold throughput: events per second on one core, from encoded lines (decode + fold) and
//! from decoded events (fold alone). Target: ≥ 1,000,000 events/s per core.

use baton_core::ledger::event::{Actor, Ended, Event, Outcome, Payload, Resumed, Started};
use baton_core::ledger::fold::Fold;
use baton_core::{EventId, SessionId, Timestamp};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use uuid::Uuid;

/// A realistic mix: sessions of 10 events (start, 8 resumes/usage-like markers, end).
fn events(n: usize) -> Vec<Event> {
    (0..n)
        .map(|i| {
            let session = SessionId(Uuid::from_u128(
                0x019c_0000_0000_7000_8000_0000_0000_0000 | (i / 10) as u128,
            ));
            let payload = match i % 10 {
                0 => Payload::Started(Started {
                    client_name: Some("claude-code".into()),
                    goal: Some("Implement the search feature".into()),
                    ..Started::new("bench", "claude")
                }),
                9 => Payload::Ended(Ended {
                    outcome: Outcome::Complete,
                    summary: Some("done".into()),
                    pull_request: None,
                }),
                _ => Payload::Resumed(Resumed {
                    client_name: Some("claude-code".into()),
                }),
            };
            Event {
                id: EventId(Uuid::from_u128(
                    0x019c_0000_0000_7000_9000_0000_0000_0000 | i as u128,
                )),
                session,
                at: Timestamp::from_millis(1_780_000_000_000 + i as i64 * 1000),
                actor: Actor::agent("claude"),
                payload,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    const N: usize = 100_000;
    let events = events(N);
    let mut text = Vec::new();
    for e in &events {
        text.extend_from_slice(e.encode().unwrap().as_bytes());
        text.push(b'\n');
    }
    let mut group = c.benchmark_group("fold");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(20);
    group.bench_function("decode_and_fold_100k_lines", |b| {
        b.iter(|| {
            let mut fold = Fold::new();
            fold.apply_text(black_box(&text), "bench");
            black_box(fold.distinct_events())
        })
    });
    group.bench_function("fold_100k_decoded_events", |b| {
        b.iter_batched(
            || events.clone(),
            |events| {
                let mut fold = Fold::new();
                for e in events {
                    fold.apply(e);
                }
                black_box(fold.distinct_events())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
