//! Writing a note without taking a person's words: exclusive creation, and updates by
//! compare-and-swap that keep every byte Baton does not own.

use super::*;

/// How many times an update reads the note again after it changed under Baton.
pub(super) const ATTEMPTS: usize = 4;

/// The parts Baton owns in `session`'s note, with links to its parent's and children's notes.
pub(super) fn owned_now(
    vault: &Vault,
    snapshot: &crate::store::Snapshot,
    session: &Session,
    relative: &str,
) -> Result<baton_core::notes::OwnedParts, Error> {
    let note_of =
        |other: &Session| locate(vault, other).unwrap_or_else(|| note_name(other, NoteName::Plain));
    let parent = match session.parent_session_id {
        Some(parent) => snapshot.session(parent)?.map(|p| note_of(&p)),
        None => None,
    };
    let mut children = Vec::new();
    for child in vault.children_of(session.session_id) {
        // Only a session that really names this one as its parent.
        if let Some(child) = snapshot.session(child)?
            && child.parent_session_id == Some(session.session_id)
        {
            children.push(note_of(&child));
        }
    }
    let touched = vault.touched(session, relative);
    Ok(owned_parts(
        session,
        &NoteLinks {
            parent: parent.as_deref(),
            children: &children,
            touched: &touched,
        },
    ))
}

/// Creates the note at `relative`; `None` when the name was taken meanwhile by another
/// session's note (the caller tries the next name).
pub(super) fn create(
    ledger: &Ledger,
    vault: &Vault,
    snapshot: &crate::store::Snapshot,
    session: &Session,
    relative: &str,
) -> Result<Option<NoteReport>, Error> {
    let owned = owned_now(vault, snapshot, session, relative)?;
    let text = splice("", &owned, &[]).map_err(|e| Error::internal(e.to_string()))?;
    let file = vault.file(relative);
    match files::create_exclusive(&file, text.text.as_bytes(), ledger.fsync(), &file) {
        Ok(true) => {
            if let Ok(Some(stamp)) = files::stamp(&file) {
                vault.remember(&Written {
                    path: relative.to_owned(),
                    stamp: Some(stamp),
                    keys: owned.keys,
                });
            }
            Ok(Some(vault.report(relative, NoteOutcome::Created)))
        }
        Ok(false) => match files::read(&file) {
            // Another process made this very note a moment ago: bring it up to date.
            Ok(Some(v)) if session_of(&v).as_deref() == Some(&session.session_id.to_string()) => {
                update(ledger, vault, snapshot, session, relative)
            }
            _ => Ok(None),
        },
        Err(e) => Ok(Some(NoteReport {
            problem: Some(format!("could not create {}: {e}", file.display())),
            ..vault.report(relative, NoteOutcome::Failed)
        })),
    }
}

/// Brings the existing note at `relative` up to date.
pub(super) fn update(
    ledger: &Ledger,
    vault: &Vault,
    snapshot: &crate::store::Snapshot,
    session: &Session,
    relative: &str,
) -> Result<Option<NoteReport>, Error> {
    let file = vault.file(relative);
    let owned = owned_now(vault, snapshot, session, relative)?;
    let written = vault.last_written(relative);
    let earlier = match &written {
        Some(w) => w.keys.clone(),
        None => baton_core::notes::earlier_without_record(&owned),
    };
    let mut spliced_last = None;
    for attempt in 0..ATTEMPTS {
        let version = match files::read(&file) {
            Ok(Some(version)) => version,
            // Deleted meanwhile: the next run creates it again.
            Ok(None) => return Ok(None),
            Err(e) => {
                return Ok(Some(NoteReport {
                    problem: Some(format!("{}: {e}", file.display())),
                    ..vault.report(relative, NoteOutcome::Failed)
                }));
            }
        };
        let Ok(text) = std::str::from_utf8(&version.bytes) else {
            return Ok(Some(NoteReport {
                problem: Some(
                    "it is not UTF-8 text: save it as UTF-8, then run `baton notes rebuild`"
                        .to_owned(),
                ),
                ..vault.report(relative, NoteOutcome::Refused)
            }));
        };
        let spliced = match splice(text, &owned, &earlier) {
            Ok(spliced) => spliced,
            Err(refusal) => {
                return Ok(Some(NoteReport {
                    problem: Some(refusal.to_string()),
                    ..vault.report(relative, NoteOutcome::Refused)
                }));
            }
        };
        let kept_edits = spliced.kept.clone();
        if !spliced.changed {
            // Nothing written: the version on disk stays whoever's it was.
            if written.as_ref().is_none_or(|w| w.keys != owned.keys) {
                vault.remember(&Written {
                    path: relative.to_owned(),
                    stamp: written.as_ref().and_then(|w| w.stamp),
                    keys: owned.keys.clone(),
                });
            }
            return Ok(Some(NoteReport {
                kept_edits,
                ..vault.report(relative, NoteOutcome::Unchanged)
            }));
        }
        // A person changed it seconds ago (not Baton: Baton's own last write is on record).
        // Only before the first try: a change during a try is retried at once.
        let baton_wrote_it = written
            .as_ref()
            .is_some_and(|w| w.stamp == Some(version.stamp));
        if attempt == 0 && !baton_wrote_it && version.stamp.age() < vault.quiet {
            return Ok(Some(NoteReport {
                kept_edits,
                ..vault.report(relative, NoteOutcome::Deferred)
            }));
        }
        match files::replace_if_unchanged(
            &file,
            &version,
            spliced.text.as_bytes(),
            ledger.fsync(),
            vault.test_pause,
        ) {
            Ok(Replaced::Done(stamp)) => {
                vault.remember(&Written {
                    path: relative.to_owned(),
                    stamp: Some(stamp),
                    keys: owned.keys.clone(),
                });
                return Ok(Some(NoteReport {
                    kept_edits,
                    ..vault.report(relative, NoteOutcome::Updated)
                }));
            }
            Ok(Replaced::Changed) => spliced_last = Some(spliced),
            Err(e) => {
                return Ok(Some(NoteReport {
                    problem: Some(format!("could not write {}: {e}", file.display())),
                    ..vault.report(relative, NoteOutcome::Failed)
                }));
            }
        }
    }
    // It kept changing: Baton's update goes beside it, and the ledger says so.
    let spliced = spliced_last.expect("a changed note after every attempt");
    let when = crate::os::system::now()?
        .to_string()
        .replace(':', "")
        .replace('T', " ");
    let when = when.get(..17).unwrap_or(&when).to_owned();
    let copy =
        match files::write_conflict_copy(&file, &when, spliced.text.as_bytes(), ledger.fsync()) {
            Ok(copy) => copy,
            Err(e) => {
                return Ok(Some(NoteReport {
                    problem: Some(format!(
                        "it kept changing, and no copy could be written: {e}"
                    )),
                    ..vault.report(relative, NoteOutcome::Failed)
                }));
            }
        };
    let copy_relative = copy
        .strip_prefix(&vault.root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| copy.display().to_string());
    let event = baton_core::notes::conflict_event(
        session.session_id,
        crate::os::system::now()?,
        baton_core::EventId(crate::os::system::new_uuid()),
        relative,
        &copy_relative,
    );
    ledger.append_lines(&[event.encode()?])?;
    Ok(Some(NoteReport {
        kept_edits: spliced.kept,
        conflict_copy: Some(copy_relative),
        ..vault.report(relative, NoteOutcome::Conflict)
    }))
}
