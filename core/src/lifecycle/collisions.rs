//! When one session's change collides with another's work, and the collisions a ledger could
//! not see when the change was reported: ledgers kept apart (team machines) whose union shows
//! a change on one machine to a file another machine's session stands on.

use crate::ids::{EventId, SessionId};
use crate::ledger::activity::{Activity, Severity};
use crate::ledger::event::{Actor, ActorKind, Event, Payload};
use crate::ledger::fold::Fold;
use crate::time::Timestamp;
use std::collections::{BTreeMap, BTreeSet};

/// How a change to a file collides with another live session: high when that session
/// declared it depends on the file, normal when it changed the file too, none otherwise.
pub fn severity(depends_on_file: bool, changed_file: bool) -> Option<Severity> {
    if depends_on_file {
        Some(Severity::High)
    } else if changed_file {
        Some(Severity::Normal)
    } else {
        None
    }
}

/// What one live session's events say about files, with times.
#[derive(Default)]
struct FileFacts {
    /// When it first declared it depends on each file.
    declared: BTreeMap<String, Timestamp>,
    /// When it first reported changing each file.
    first_changed: BTreeMap<String, Timestamp>,
    /// When it last reported changing each file.
    last_changed: BTreeMap<String, Timestamp>,
    /// (by whom, file) of every collision ever opened on it.
    opened: BTreeSet<(SessionId, String)>,
}

/// The collisions the reports in `fold` would have opened had every session been in one
/// ledger when they were made, and that no ledger recorded: for each live session's latest
/// report of a changed file, each other live session that had declared it depends on that
/// file (high), or had changed it (normal), by then. They are `collision_opened` events, by
/// Baton, at the time of the report, with ids derived from what they say (the same union
/// gives the same events).
pub fn unseen(fold: &Fold) -> Vec<Event> {
    let mut facts: BTreeMap<SessionId, FileFacts> = BTreeMap::new();
    for (id, history) in fold.histories() {
        if !history.session().is_some_and(|s| s.is_live()) {
            continue;
        }
        let mut known = FileFacts::default();
        for event in history.ordered() {
            match &event.payload {
                Payload::Activity(Activity::DependenciesDeclared { files }) => {
                    for file in files {
                        known.declared.entry(file.clone()).or_insert(event.at);
                    }
                }
                Payload::Activity(Activity::ChangedFiles { files, .. }) => {
                    for file in files {
                        known.first_changed.entry(file.clone()).or_insert(event.at);
                        known.last_changed.insert(file.clone(), event.at);
                    }
                }
                Payload::Activity(Activity::CollisionOpened {
                    by_session, file, ..
                }) => {
                    known.opened.insert((*by_session, file.clone()));
                }
                _ => {}
            }
        }
        facts.insert(*id, known);
    }
    let mut events = Vec::new();
    for (reporter, reported) in &facts {
        for (file, &at) in &reported.last_changed {
            for (affected, theirs) in &facts {
                if affected == reporter || theirs.opened.contains(&(*reporter, file.clone())) {
                    continue;
                }
                let depends = theirs.declared.get(file).is_some_and(|&t| t <= at);
                let changed = theirs.first_changed.get(file).is_some_and(|&t| t < at);
                if let Some(severity) = severity(depends, changed) {
                    events.push(Event {
                        id: derived_id(*affected, *reporter, file, at),
                        session: *affected,
                        at,
                        actor: Actor {
                            kind: ActorKind::Baton,
                            name: "baton".into(),
                        },
                        payload: Payload::Activity(Activity::CollisionOpened {
                            by_session: *reporter,
                            file: file.clone(),
                            severity,
                        }),
                    });
                }
            }
        }
    }
    events
}

/// What the union makes of the collisions no ledger recorded: those collisions, then each
/// affected session's health assessed again with them (as the report that opens a collision
/// does in one ledger). Apply the events to `fold` in order; the same union gives the same
/// events.
pub fn unseen_with_health(fold: &Fold) -> (Vec<Event>, Vec<Event>) {
    let collisions = unseen(fold);
    if collisions.is_empty() {
        return (collisions, Vec::new());
    }
    let mut with_collisions = Fold::new();
    let mut affected: BTreeMap<SessionId, Timestamp> = BTreeMap::new();
    for event in &collisions {
        let latest = affected.entry(event.session).or_insert(event.at);
        *latest = (*latest).max(event.at);
    }
    for id in affected
        .keys()
        .chain(std::iter::once(&crate::ids::WORKSPACE_STREAM))
    {
        if let Some(history) = fold.history(*id) {
            with_collisions.join_history(*id, history.clone());
        }
    }
    for event in &collisions {
        with_collisions.apply(event.clone());
    }
    let workspace = crate::lifecycle::workspace::Workspace::from_history(
        with_collisions.history(crate::ids::WORKSPACE_STREAM),
    );
    let mut health = Vec::new();
    for (id, at) in affected {
        let Some(session) = with_collisions.session(id) else {
            continue;
        };
        let report = crate::lifecycle::health::assess(&session, &workspace);
        health.push(Event {
            id: derived_id(id, id, "health", at),
            session: id,
            at,
            actor: Actor {
                kind: ActorKind::Baton,
                name: "baton".into(),
            },
            payload: Payload::Activity(Activity::HealthComputed {
                report,
                trigger: crate::ledger::activity::HealthTrigger::Change,
            }),
        });
    }
    (collisions, health)
}

/// A UUIDv7-shaped id from what a derived event says: its time in the high bits, a hash of
/// the sessions and the file in the rest.
fn derived_id(affected: SessionId, reporter: SessionId, file: &str, at: Timestamp) -> EventId {
    let mut hash: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    let prime: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013B;
    for byte in affected
        .0
        .as_bytes()
        .iter()
        .chain(reporter.0.as_bytes())
        .chain(file.as_bytes())
    {
        hash ^= u128::from(*byte);
        hash = hash.wrapping_mul(prime);
    }
    let millis = u64::try_from(at.millis()).unwrap_or(0) & 0xFFFF_FFFF_FFFF;
    let rand_a = u16::try_from(hash & 0x0FFF).unwrap_or(0);
    let rand_b = hash >> 64;
    let bytes = (u128::from(millis) << 80)
        | (0x7u128 << 76)
        | (u128::from(rand_a) << 64)
        | (0b10u128 << 62)
        | (rand_b & 0x3FFF_FFFF_FFFF_FFFF);
    EventId(uuid::Uuid::from_u128(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(id: u128, session: u128, at: i64, kind: &str, data: &str) -> String {
        format!(
            r#"{{"v":1,"id":"{}","session":"{}","at":"{}","actor":{{"kind":"agent","name":"a"}},"kind":"{kind}","data":{data}}}"#,
            uuid::Uuid::from_u128((0x0190_0000_0000_7000_8000_0000_0000_0000) | id),
            uuid::Uuid::from_u128((0x0190_0000_0000_7000_8000_0000_0000_0000) | session),
            Timestamp::from_millis(1_750_000_000_000 + at),
        )
    }

    fn fold(lines: &[String]) -> Fold {
        let mut fold = Fold::new();
        fold.apply_text(lines.join("\n").as_bytes(), "test");
        fold
    }

    const START_A: &str = r#"{"project":"p","agent":"a"}"#;

    #[test]
    fn a_change_on_one_ledger_to_a_file_another_depends_on_opens_a_high_collision() {
        let union = fold(&[
            line(1, 100, 0, "started", START_A),
            line(2, 200, 1, "started", START_A),
            line(
                3,
                200,
                2,
                "dependencies_declared",
                r#"{"files":["src/api.rs"]}"#,
            ),
            line(
                4,
                100,
                3,
                "changed_files",
                r#"{"files":["src/api.rs","README.md"]}"#,
            ),
        ]);
        let opened = unseen(&union);
        assert_eq!(opened.len(), 1, "{opened:?}");
        let event = &opened[0];
        assert_eq!(event.session.0.as_u128() & 0xFFFF, 200);
        assert!(matches!(
            &event.payload,
            Payload::Activity(Activity::CollisionOpened { by_session, file, severity: Severity::High })
                if by_session.0.as_u128() & 0xFFFF == 100 && file == "src/api.rs"
        ));
        assert_eq!(event.id.0.get_version_num(), 7);
        assert_eq!(
            unseen(&union)[0].id,
            event.id,
            "the same union, the same id"
        );
    }

    #[test]
    fn a_dependency_declared_after_the_change_or_a_collision_already_seen_opens_nothing() {
        let late = fold(&[
            line(1, 100, 0, "started", START_A),
            line(2, 200, 1, "started", START_A),
            line(4, 100, 3, "changed_files", r#"{"files":["src/api.rs"]}"#),
            line(
                5,
                200,
                4,
                "dependencies_declared",
                r#"{"files":["src/api.rs"]}"#,
            ),
        ]);
        assert!(unseen(&late).is_empty());
        let mut seen = vec![
            line(1, 100, 0, "started", START_A),
            line(2, 200, 1, "started", START_A),
            line(3, 200, 2, "changed_files", r#"{"files":["src/api.rs"]}"#),
            line(4, 100, 3, "changed_files", r#"{"files":["src/api.rs"]}"#),
        ];
        let both_changed = unseen(&fold(&seen));
        assert_eq!(both_changed.len(), 1, "normal: both changed it");
        assert!(matches!(
            &both_changed[0].payload,
            Payload::Activity(Activity::CollisionOpened {
                severity: Severity::Normal,
                ..
            })
        ));
        seen.push(both_changed[0].encode().unwrap());
        assert!(unseen(&fold(&seen)).is_empty(), "once recorded, not again");
        seen.push(line(6, 100, 5, "ended", r#"{"outcome":"complete"}"#));
        assert!(unseen(&fold(&seen)).is_empty());
    }
}
