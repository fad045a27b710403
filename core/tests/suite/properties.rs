//! Property tests: the fold is order-independent and idempotent, partial folds join, compaction
//! and checkpoints preserve the fold, and no decoder panics on any input.

use baton_core::ledger::checkpoint::{CheckpointHeader, decode_session_line, encode_session_line};
use baton_core::ledger::compaction::{CompactionInput, compact, decode_archive_line, fold_archive};
use baton_core::ledger::event::{
    Actor, Corrected, Ended, Event, Outcome, Payload, Resumed, Started, TokenTotals, Usage,
    decode_line,
};
use baton_core::ledger::fold::Fold;
use baton_core::{EventId, SessionId, Timestamp};
use proptest::prelude::*;
use std::collections::BTreeMap;
use uuid::Uuid;

fn v7(n: u128) -> Uuid {
    Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0000 | n)
}

fn payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        (0..3u8, 0..3u8, proptest::option::of("[a-z ]{0,12}")).prop_map(|(p, a, goal)| {
            Payload::Started(Started {
                goal,
                ..Started::new(format!("p{p}"), format!("a{a}"))
            })
        }),
        Just(Payload::Resumed(Resumed::default())),
        (any::<bool>(), proptest::option::of("[a-z]{0,8}")).prop_map(|(failed, summary)| {
            Payload::Ended(Ended {
                outcome: if failed {
                    Outcome::Failed
                } else {
                    Outcome::Complete
                },
                summary,
                pull_request: None,
            })
        }),
        proptest::option::of("[a-z]{0,8}").prop_map(|goal| Payload::Corrected(Corrected {
            goal,
            summary: None
        })),
        (0..3u8, 0..1000u64, 0..1000u64).prop_map(|(src, offset, input)| Payload::Usage(Usage {
            source: format!("t{src}"),
            offset,
            totals: TokenTotals {
                input_tokens: input,
                ..TokenTotals::default()
            },
            cost_micro_usd: (input % 2 == 0).then_some(input * 3),
        })),
    ]
}

/// Events over a few sessions, with distinct ids and times spread over three months.
fn events() -> impl Strategy<Value = Vec<Event>> {
    proptest::collection::vec((0..4u128, 0..90i64 * 86_400_000, payload()), 0..40).prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (session, at, payload))| Event {
                id: EventId(v7(1000 + i as u128)),
                session: SessionId(v7(session)),
                at: Timestamp::from_millis(1_780_000_000_000 + at),
                actor: Actor::agent("a"),
                payload,
            })
            .collect()
    })
}

fn fold_of(events: &[Event]) -> Fold {
    let mut fold = Fold::new();
    for e in events {
        fold.apply(e.clone());
    }
    fold
}

fn same(a: &Fold, b: &Fold) {
    assert_eq!(a.sessions(), b.sessions());
    assert_eq!(a.distinct_events(), b.distinct_events());
    assert_eq!(a.orphan_ids(), b.orphan_ids());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_permutation_folds_the_same(events in events(), seed in any::<u64>()) {
        let mut shuffled = events.clone();
        // A seeded Fisher–Yates shuffle.
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        same(&fold_of(&events), &fold_of(&shuffled));
    }

    #[test]
    fn any_duplication_folds_the_same(events in events(), picks in proptest::collection::vec(any::<prop::sample::Index>(), 0..30)) {
        let mut doubled = events.clone();
        if !events.is_empty() {
            for pick in picks {
                doubled.push(events[pick.index(events.len())].clone());
            }
        }
        let fold = fold_of(&doubled);
        same(&fold_of(&events), &fold);
        prop_assert_eq!(fold.stats.duplicate_events as usize, doubled.len() - events.len());
    }

    #[test]
    fn partial_folds_join_into_the_whole(events in events(), split in any::<prop::sample::Index>()) {
        let at = if events.is_empty() { 0 } else { split.index(events.len() + 1) };
        let mut left = fold_of(&events[..at]);
        left.join(fold_of(&events[at..]));
        same(&left, &fold_of(&events));
    }

    #[test]
    fn compaction_preserves_the_fold(events in events(), split in any::<prop::sample::Index>()) {
        let lines: Vec<String> = events.iter().map(|e| e.encode().unwrap()).collect();
        let at = if lines.is_empty() { 0 } else { split.index(lines.len() + 1) };
        let first = lines[..at].join("\n");
        let second = format!("not json\n{}\n{{\"v\":9}}", lines[at..].join("\n"));
        // Two compactions in a row, the second on top of the first's archives.
        let out1 = compact(&CompactionInput { sealed: vec![first.as_bytes()], ..Default::default() }).unwrap();
        let archives: BTreeMap<String, &[u8]> = out1.archives.iter().map(|(k, v)| (k.clone(), v.as_bytes())).collect();
        let out2 = compact(&CompactionInput { sealed: vec![second.as_bytes(), first.as_bytes()], archives, preserved: b"" }).unwrap();
        let mut merged: BTreeMap<String, String> = out1.archives;
        merged.extend(out2.archives);
        let mut fold = Fold::new();
        for (month, text) in &merged {
            fold_archive(&mut fold, text.as_bytes(), month);
        }
        same(&fold, &fold_of(&events));
        let preserved = String::from_utf8(out2.preserved.unwrap()).unwrap();
        prop_assert!(preserved.contains("not json"));
        let foreign = r#"{"v":9}"#;
        prop_assert!(preserved.contains(foreign));
    }

    #[test]
    fn checkpoint_lines_round_trip(events in events()) {
        let fold = fold_of(&events);
        for (id, history) in fold.histories() {
            let line = encode_session_line(*id, history).unwrap();
            let (back_id, back) = decode_session_line(line.as_bytes()).unwrap();
            prop_assert_eq!(back_id, *id);
            prop_assert_eq!(back.session(), history.session());
        }
    }

    #[test]
    fn decoders_never_panic_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = decode_line(&bytes);
        let _ = decode_archive_line(&bytes);
        let _ = decode_session_line(&bytes);
        let _ = CheckpointHeader::open(&bytes);
        let mut fold = Fold::new();
        fold.apply_text(&bytes, "fuzz");
        fold_archive(&mut fold, &bytes, "fuzz");
        let _ = baton_core::abi::handle_json(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn decoders_never_panic_on_mutated_events(events in events(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>(), byte in any::<u8>()) {
        for event in events.iter().take(3) {
            let mut line = event.encode().unwrap().into_bytes();
            let i = flip.index(line.len());
            line[i] = byte;
            let _ = decode_line(&line);
            let truncated = &line[..cut.index(line.len() + 1)];
            let _ = decode_line(truncated);
            let _ = decode_archive_line(truncated);
        }
    }
}

/// Inputs that once crashed, or that are known to be nasty, are kept and replayed here.
/// (A test may read files; the library may not.)
#[allow(clippy::disallowed_methods)]
#[test]
fn replay_kept_crash_inputs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crashers");
    let mut replayed = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        let mut fold = Fold::new();
        fold.apply_text(&bytes, "crasher");
        fold_archive(&mut fold, &bytes, "crasher");
        let _ = decode_session_line(&bytes);
        let _ = baton_core::abi::handle_json(&String::from_utf8_lossy(&bytes));
        replayed += 1;
    }
    assert!(
        replayed >= 3,
        "the crashers folder should hold the seed inputs"
    );
}

#[test]
fn compaction_keeps_fields_a_newer_baton_added_to_a_known_event() {
    // A `started` event written by a newer Baton with a field this build does not know.
    let line = r#"{"v":1,"id":"019c0000-0000-7000-8000-000000000001","session":"019c0000-0000-7000-8000-000000000002","kind":"started","at":"2026-07-18T20:00:00.000Z","actor":{"kind":"agent","name":"claude"},"data":{"project":"demo","agent":"claude","sandbox":{"level":3}}}"#;
    let out = compact(&CompactionInput {
        sealed: vec![line.as_bytes()],
        ..Default::default()
    })
    .unwrap();
    let archive = &out.archives["2026-07"];
    assert!(archive.contains(r#""sandbox":{"level":3}"#), "{archive}");
    // And again when that archive is compacted together with a later event of the month.
    let later = line.replace("000000000001", "000000000003");
    let archives: BTreeMap<String, &[u8]> = out
        .archives
        .iter()
        .map(|(k, v)| (k.clone(), v.as_bytes()))
        .collect();
    let out2 = compact(&CompactionInput {
        sealed: vec![later.as_bytes()],
        archives,
        preserved: b"",
    })
    .unwrap();
    assert_eq!(
        out2.archives["2026-07"]
            .matches(r#""sandbox":{"level":3}"#)
            .count(),
        2
    );
}
