//! Session notes on disk: each work session as a Markdown note in a vault (`.baton/vault`, or
//! an Obsidian vault), brought up to date after every start, resume, pause and end. The
//! ledger stays the truth and the core decides what Baton owns in a note (`baton_core::notes`);
//! this module finds the vault, and writes notes without ever taking a person's words:
//! exclusive creation, compare-and-swap, a lock per note, deferral while a person types, and
//! a copy beside the note (with a ledger event) when it keeps changing under Baton.

pub mod files;
pub mod settings;
pub mod upkeep;

pub use settings::{Choice, Vault, choose};

use crate::store::Ledger;
use baton_core::Error;
use baton_core::ids::SessionId;
use baton_core::ledger::session::Session;
use baton_core::ledger::store::LedgerView;
use baton_core::notes::{
    NoteLinks, NoteName, NoteOutcome, NoteReport, frontmatter_value, note_path, owned_parts, splice,
};
use files::{NoteVersion, Replaced};
use std::path::{Path, PathBuf};

mod find;
mod state;
mod write;

use find::*;
use state::*;
use write::*;

/// Brings `id`'s note up to date from the ledger: created if it has none, else Baton's parts
/// rewritten if they are out of date. Never overwrites a person's change; see the module.
pub fn sync_session(ledger: &Ledger, vault: &Vault, id: SessionId) -> Result<NoteReport, Error> {
    let snapshot = ledger.snapshot()?;
    let Some(session) = snapshot.session(id)? else {
        return Err(Error::session_not_found(id));
    };
    sync_known(ledger, vault, &session)
}

/// [`sync_session`] for a session the caller has just read (its identity: project, agent,
/// start and parent, which never change; its state is read again under the note's lock).
pub fn sync_known(ledger: &Ledger, vault: &Vault, session: &Session) -> Result<NoteReport, Error> {
    crate::store::check_own_folder(ledger, &vault.state)?;
    if vault.inside_ledger {
        crate::store::check_own_folder(ledger, &vault.root)?;
    }
    let id = session.session_id;
    if let Some(parent) = session.parent_session_id {
        vault.add_child(parent, id);
    }
    let found = locate(vault, session);
    let names: Vec<String> = match &found {
        Some(relative) => vec![relative.clone()],
        None => NoteName::ALL
            .into_iter()
            .map(|name| note_name(session, name))
            .collect(),
    };
    let mut last_report = None;
    for relative in names {
        // The vault inside the ledger travels with it (a clone can carry a link planted in
        // it): no note is written through a linked folder of it.
        if vault.inside_ledger
            && let Some(link) = linked_component(&vault.root, &relative)
        {
            return Err(Error::store_unsafe(
                &link.display().to_string(),
                "is a symbolic link inside the ledger's vault, and no note is written through one (keep a vault elsewhere with --vault)",
            ));
        }
        let _lock = files::lock(&vault.state.join("locks"), &vault.root, &relative)
            .map_err(|e| Error::store_io("lock a note", &relative, e))?;
        let file = vault.file(&relative);
        files::remove_stale_temporary(&file);
        // Read the ledger again under the note's lock: whoever updates the note last has seen
        // every event before it.
        let snapshot = ledger.snapshot()?;
        let session = snapshot
            .session(id)?
            .ok_or_else(|| Error::session_not_found(id))?;
        let report = match files::read(&file) {
            Ok(None) => create(ledger, vault, &snapshot, &session, &relative)?,
            Ok(Some(version)) if session_of(&version).as_deref() == Some(&id.to_string()) => {
                update(ledger, vault, &snapshot, &session, &relative)?
            }
            // The note Baton found as this session's, its session_id line gone or unreadable:
            // still its note (the splice puts the key back, or refuses a broken frontmatter).
            Ok(Some(version)) if found.is_some() && session_of(&version).is_none() => {
                update(ledger, vault, &snapshot, &session, &relative)?
            }
            // A note at this session's name whose frontmatter cannot be read may well be its
            // own, broken by hand: left alone, not shadowed by a second note.
            Ok(Some(version)) if unreadable_frontmatter(&version) => Some(NoteReport {
                problem: Some(
                    "its frontmatter opens with --- and never closes: mend it, then run `baton notes rebuild`"
                        .to_owned(),
                ),
                ..vault.report(&relative, NoteOutcome::Refused)
            }),
            // Another session's note, or a person's file: try the next name.
            Ok(Some(_)) => None,
            Err(e) => Some(NoteReport {
                problem: Some(format!("{}: {e}", file.display())),
                ..vault.report(&relative, NoteOutcome::Failed)
            }),
        };
        match report {
            Some(report) => {
                vault.set_pending(id, report.outcome == NoteOutcome::Deferred);
                if !matches!(report.outcome, NoteOutcome::Failed) {
                    vault.record_path_of(id, &relative);
                }
                return Ok(report);
            }
            None => last_report = Some(relative),
        }
    }
    Ok(NoteReport {
        problem: Some(format!(
            "every name this session's note could take is held by another file (the last: {})",
            last_report.unwrap_or_default()
        )),
        ..vault.report("", NoteOutcome::Failed)
    })
}

/// Brings the notes a command touched up to date, and any note deferred before: the
/// session a start, resume or end acted on (its report goes into the answer), a new
/// session's parent (now linked to it), a paused or unpaused session.
pub fn after_command(ledger: &Ledger, response: &mut baton_core::commands::Response) {
    use baton_core::commands::{LifecycleAction, Response};
    // Reports, briefs and reads change nothing a note shows: they cost no look at the vault.
    let touches_a_note = match response {
        Response::Action(_) => true,
        Response::Lifecycle(answer) => matches!(
            answer.action,
            LifecycleAction::Paused | LifecycleAction::Unpaused
        ),
        _ => false,
    };
    if !touches_a_note {
        return;
    }
    let mut warnings = Vec::new();
    // The command is recorded: a config that cannot be read is said, and no note is written.
    let resolved = settings::resolve(ledger, &mut warnings).unwrap_or_else(|err| {
        warnings.push(format!("no note was written: {}", err.message));
        None
    });
    let Some(vault) = resolved else {
        for warning in warnings {
            crate::os::warnings::warn(&warning);
        }
        return;
    };
    for warning in warnings {
        crate::os::warnings::warn(&warning);
    }
    let mut others: Vec<SessionId> = vault.pending();
    match response {
        Response::Action(action) => {
            let id = action.session.session_id;
            others.retain(|o| *o != id);
            if let Some(parent) = action.session.parent_session_id {
                others.push(parent);
            }
            let mut synced = sync_known(ledger, &vault, &action.session);
            // An end may be the session's last command: rather than leave its note behind,
            // wait out the quiet time once (at most 3 s) and try again.
            if action.action == baton_core::commands::SessionActionKind::Ended
                && matches!(&synced, Ok(r) if r.outcome == NoteOutcome::Deferred)
            {
                std::thread::sleep(vault.quiet.min(std::time::Duration::from_secs(3)));
                synced = sync_known(ledger, &vault, &action.session);
            }
            match synced {
                Ok(report) => {
                    warn_about(&report);
                    action.note = Some(report);
                }
                Err(err) => crate::os::warnings::warn(&format!("the session's note: {err}")),
            }
        }
        Response::Lifecycle(answer)
            if matches!(
                answer.action,
                LifecycleAction::Paused | LifecycleAction::Unpaused
            ) =>
        {
            others.push(answer.session_id);
        }
        _ => {}
    }
    others.sort();
    others.dedup();
    for id in others {
        match sync_session(ledger, &vault, id) {
            Ok(report) => warn_about(&report),
            Err(err) => crate::os::warnings::warn(&format!("the note of {id}: {err}")),
        }
    }
}

/// Says on stderr what a person should know about a note: kept edits, a deferral, a
/// conflict, a refusal, a failure.
pub fn warn_about(report: &NoteReport) {
    for kept in &report.kept_edits {
        crate::os::warnings::warn(&format!(
            "{}: you set {} to {} where the ledger says {}; kept yours (delete the line to let Baton write it)",
            report.file, kept.key, kept.on_disk, kept.wanted
        ));
    }
    match report.outcome {
        NoteOutcome::Deferred => crate::os::warnings::warn(&format!(
            "{} was edited seconds ago: Baton will update it on its next run (or `baton notes rebuild`)",
            report.file
        )),
        NoteOutcome::Conflict => crate::os::warnings::warn(&format!(
            "{} kept changing while Baton wrote it: Baton's update is in {} beside it",
            report.file,
            report.conflict_copy.as_deref().unwrap_or("a copy")
        )),
        NoteOutcome::Refused | NoteOutcome::Failed => crate::os::warnings::warn(&format!(
            "{} was left alone: {}",
            report.file,
            report.problem.as_deref().unwrap_or("it cannot be read")
        )),
        _ => {}
    }
}

/// The line a person reads about a session's note.
pub fn human_line(report: &NoteReport) -> String {
    let verb = match report.outcome {
        NoteOutcome::Created => "created",
        NoteOutcome::Updated => "updated",
        NoteOutcome::Unchanged => "up to date",
        NoteOutcome::Deferred => "deferred (edited seconds ago)",
        NoteOutcome::Conflict => "in conflict (see the copy beside it)",
        NoteOutcome::Refused => "left alone (cannot be read)",
        NoteOutcome::Failed => "not written",
    };
    format!("Note: {} ({verb})", report.file)
}

/// The session a note names: `path` as given (absolute, from the current folder, or inside
/// the vault), its frontmatter's `session_id`. Never its file name or its time.
pub fn session_of_note(ledger: &Ledger, path: &str) -> Result<String, Error> {
    let mut warnings = Vec::new();
    let given = Path::new(path);
    let candidates: Vec<PathBuf> = if given.is_absolute() {
        vec![given.to_path_buf()]
    } else {
        let mut c = Vec::new();
        if let Some(vault) = settings::resolve(ledger, &mut warnings)? {
            c.push(vault.root.join(given));
        }
        c.push(given.to_path_buf());
        c
    };
    let mut last_error = None;
    for candidate in &candidates {
        match files::read(candidate) {
            Ok(Some(version)) => {
                let text = String::from_utf8_lossy(&version.bytes);
                return match frontmatter_value(&text, "session_id") {
                    Ok(Some(id)) if !id.trim().is_empty() => Ok(id.trim().to_owned()),
                    Ok(_) => Err(Error::invalid(
                        "session_note",
                        format!(
                            "{} has no session_id in its frontmatter: pass the session's id instead",
                            candidate.display()
                        ),
                    )),
                    Err(refusal) => Err(Error::invalid(
                        "session_note",
                        format!("{}: {refusal}", candidate.display()),
                    )),
                };
            }
            Ok(None) => {}
            Err(e) => last_error = Some((candidate.clone(), e)),
        }
    }
    match last_error {
        Some((file, e)) => Err(Error::file_unreadable(
            &file.display().to_string(),
            &e.to_string(),
        )),
        None => Err(Error::file_unreadable(
            path,
            "no such note (looked in the vault and here)",
        )),
    }
}
