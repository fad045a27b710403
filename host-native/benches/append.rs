//! Append latency: one event line appended to the filesystem ledger, with fsync on and off.

use baton::store::Ledger;
use baton_core::ledger::event::{Actor, Event, Payload, Resumed};
use baton_core::{EventId, SessionId, Timestamp};
use criterion::{Criterion, criterion_group, criterion_main};

fn line() -> String {
    Event {
        id: EventId(uuid::Uuid::now_v7()),
        session: SessionId(uuid::Uuid::now_v7()),
        at: Timestamp::from_millis(1_780_000_000_000),
        actor: Actor::agent("bench"),
        payload: Payload::Resumed(Resumed {
            client_name: Some("claude-code".into()),
        }),
    }
    .encode()
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("append");
    for fsync in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let ledger = Ledger::new(tmp.path().join(".baton"), fsync);
        let line = line();
        ledger.append(&line).unwrap();
        group.bench_function(if fsync { "fsync_on" } else { "fsync_off" }, |b| {
            b.iter(|| ledger.append(&line).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
