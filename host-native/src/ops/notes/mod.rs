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

/// How many times an update reads the note again after it changed under Baton.
const ATTEMPTS: usize = 4;

/// What Baton last wrote into a note: the version it left (none when it found the note up to
/// date and wrote nothing) and its owned keys then.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Written {
    path: String,
    stamp: Option<files::Stamp>,
    keys: Vec<(String, String)>,
}

impl Vault {
    fn file(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn record_path(&self, relative: &str) -> PathBuf {
        let key = baton_core::ledger::checkpoint::fnv1a64(relative.as_bytes());
        self.state.join("written").join(format!("{key:016x}.json"))
    }

    fn last_written(&self, relative: &str) -> Option<Written> {
        let text = crate::os::files::read_regular_text(self.record_path(relative), 1 << 20).ok()?;
        serde_json::from_str::<Written>(&text)
            .ok()
            .filter(|w| w.path == relative)
    }

    fn remember(&self, written: &Written) {
        let path = self.record_path(&written.path);
        // A cache of Baton's: written whole (temporary, rename), not synced.
        let saved = (|| -> std::io::Result<()> {
            std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
            // One temporary per note: its writes take turns under the note's lock.
            let temporary = path.with_extension("json.tmp");
            std::fs::write(&temporary, serde_json::to_vec(written)?)?;
            std::fs::rename(&temporary, &path)
        })();
        if let Err(err) = saved {
            crate::os::warnings::warn(&format!(
                "could not remember what Baton wrote into {}: {err}",
                written.path
            ));
        }
    }

    fn path_record(&self, id: SessionId) -> PathBuf {
        self.state.join("paths").join(id.to_string())
    }

    /// Where Baton last wrote `id`'s note, inside the vault.
    fn recorded_path(&self, id: SessionId) -> Option<String> {
        let text = crate::os::files::read_regular_text(self.path_record(id), 1 << 20).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    }

    fn record_path_of(&self, id: SessionId, relative: &str) {
        if self.recorded_path(id).as_deref() == Some(relative) {
            return;
        }
        let path = self.path_record(id);
        let _ = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")));
        let temporary = path.with_extension("tmp");
        if std::fs::write(&temporary, relative).is_ok() {
            let _ = std::fs::rename(&temporary, &path);
        }
    }

    /// The vault's notes modified while an ended session ran: found once, when it ends, and
    /// kept (a later render, or a rebuild after the vault is gone, lists the same).
    fn touched(&self, session: &Session, own: &str) -> Vec<String> {
        if session.ended_at.is_none() {
            return Vec::new();
        }
        let path = self
            .state
            .join("touched")
            .join(session.session_id.to_string());
        if let Ok(text) = crate::os::files::read_regular_text(&path, 8 << 20)
            && let Ok(list) = serde_json::from_str::<Vec<String>>(&text)
        {
            return list;
        }
        let list = touched_meanwhile(self, session, own);
        let _ = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")));
        if let Ok(json) = serde_json::to_vec(&list) {
            let temporary = path.with_extension("tmp");
            if std::fs::write(&temporary, json).is_ok() {
                let _ = std::fs::rename(&temporary, &path);
            }
        }
        list
    }

    fn children_file(&self, parent: SessionId) -> PathBuf {
        self.state.join("children").join(parent.to_string())
    }

    /// The sessions known to follow on from `parent`, oldest first: kept as their notes are
    /// written (so a note need not read every session of the ledger to find them), and made
    /// again from the ledger by `baton notes rebuild`.
    fn children_of(&self, parent: SessionId) -> Vec<SessionId> {
        let text = crate::os::files::read_regular_text(self.children_file(parent), 8 << 20)
            .unwrap_or_default();
        let mut ids: Vec<SessionId> = text
            .lines()
            .filter_map(|line| SessionId::parse_v7("child", line.trim()).ok())
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Records that `child` follows on from `parent` (one short append: concurrent ones do
    /// not mix).
    fn add_child(&self, parent: SessionId, child: SessionId) {
        use std::io::Write;
        if self.children_of(parent).contains(&child) {
            return;
        }
        let path = self.children_file(parent);
        let _ = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")));
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            let _ = file.write_all(format!("{child}\n").as_bytes());
        }
    }

    /// Writes every parent's children again, from the ledger's sessions.
    pub(crate) fn set_all_children(&self, sessions: &[Session]) {
        let mut by_parent: std::collections::BTreeMap<SessionId, Vec<SessionId>> =
            std::collections::BTreeMap::new();
        for session in sessions {
            if let Some(parent) = session.parent_session_id {
                by_parent
                    .entry(parent)
                    .or_default()
                    .push(session.session_id);
            }
        }
        let _ = std::fs::remove_dir_all(self.state.join("children"));
        for (parent, children) in by_parent {
            let path = self.children_file(parent);
            let _ = std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")));
            let text: String = children.iter().map(|c| format!("{c}\n")).collect();
            let _ = std::fs::write(path, text);
        }
    }

    fn pending_dir(&self) -> PathBuf {
        self.state.join("pending")
    }

    fn set_pending(&self, id: SessionId, pending: bool) {
        let path = self.pending_dir().join(id.to_string());
        if pending {
            let _ = std::fs::create_dir_all(self.pending_dir());
            let _ = std::fs::write(path, b"");
        } else {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Sessions whose note was deferred and is still to be brought up to date.
    fn pending(&self) -> Vec<SessionId> {
        let Ok(entries) = std::fs::read_dir(self.pending_dir()) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| SessionId::parse_v7("pending", &e.file_name().to_string_lossy()).ok())
            .collect()
    }

    fn report(&self, relative: &str, outcome: NoteOutcome) -> NoteReport {
        NoteReport {
            path: relative.to_owned(),
            file: self.file(relative).display().to_string(),
            outcome,
            kept_edits: Vec::new(),
            conflict_copy: None,
            problem: None,
        }
    }
}

/// The session a note names in its frontmatter (`None`: not a session note, or one Baton
/// cannot read). A stray byte that is not UTF-8 elsewhere does not hide it.
fn session_of(version: &NoteVersion) -> Option<String> {
    let text = String::from_utf8_lossy(&version.bytes);
    frontmatter_value(&text, "session_id").ok().flatten()
}

/// Whether a note opens a frontmatter that never closes.
fn unreadable_frontmatter(version: &NoteVersion) -> bool {
    let text = String::from_utf8_lossy(&version.bytes);
    frontmatter_value(&text, "session_id").is_err()
}

/// Where `session`'s note is: where Baton last wrote it, unless another session's note is
/// there now; else the first of its possible names holding a note that names it; else, when
/// Baton wrote one and it is gone from there (renamed or moved in the editor), the vault's
/// note that names it in its frontmatter.
fn locate(vault: &Vault, session: &Session) -> Option<String> {
    let id = session.session_id.to_string();
    let recorded = vault.recorded_path(session.session_id);
    if let Some(relative) = &recorded
        && let Ok(Some(version)) = files::read(&vault.file(relative))
        && session_of(&version).is_none_or(|named| named == id)
    {
        return Some(relative.clone());
    }
    let by_name = NoteName::ALL.into_iter().find_map(|name| {
        let relative = note_name(session, name);
        let version = files::read(&vault.file(&relative)).ok()??;
        (session_of(&version).as_deref() == Some(id.as_str())).then_some(relative)
    });
    if by_name.is_some() || recorded.is_none() {
        return by_name;
    }
    find_moved(vault, &id)
}

/// Visits the vault's Markdown notes (not hidden files, not Baton's conflict copies), each
/// with its path inside the vault, looking at 50,000 entries at most; `descend` says whether
/// to look inside a folder (given it and its parent), `visit` returns `true` to stop.
fn walk_notes(
    vault: &Vault,
    descend: impl Fn(&Path, &str) -> bool,
    mut visit: impl FnMut(&std::fs::DirEntry, String) -> bool,
) {
    let mut stack = vec![vault.root.clone()];
    let mut visited = 0usize;
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited > 50_000 {
                return;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name.contains("(baton conflict") {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if descend(&folder, &name) {
                    stack.push(entry.path());
                }
            } else if kind.is_file()
                && name.ends_with(".md")
                && let Ok(relative) = entry.path().strip_prefix(&vault.root)
                && visit(&entry, relative.to_string_lossy().into_owned())
            {
                return;
            }
        }
    }
}

/// The vault's note whose frontmatter names `id`.
fn find_moved(vault: &Vault, id: &str) -> Option<String> {
    let mut found = None;
    walk_notes(
        vault,
        |_, _| true,
        |entry, relative| {
            let names_it = matches!(files::read(&entry.path()), Ok(Some(version))
                if session_of(&version).as_deref() == Some(id));
            if names_it {
                found = Some(relative);
            }
            names_it
        },
    );
    found
}

fn note_name(session: &Session, name: NoteName) -> String {
    note_path(
        &session.project,
        &session.agent,
        session.started_at,
        &session.session_id.to_string(),
        name,
    )
}

/// The other notes of the vault modified while `session` ran (at most 50, in path order;
/// session notes left out): the spec's list at the end of a session.
fn touched_meanwhile(vault: &Vault, session: &Session, own: &str) -> Vec<String> {
    let Some(ended) = session.ended_at else {
        return Vec::new();
    };
    let (from, to) = (session.started_at.millis(), ended.millis());
    let mut found = Vec::new();
    // Session notes are Baton's own writes: not what a person changed meanwhile.
    let not_sessions = |folder: &Path, name: &str| {
        !(name == "sessions"
            && folder.parent().and_then(|p| p.file_name()) == Some("Projects".as_ref()))
    };
    walk_notes(vault, not_sessions, |entry, relative| {
        let modified = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        if relative != own && modified.is_some_and(|m| m >= from && m <= to) {
            found.push(relative);
        }
        false
    });
    found.sort();
    found.truncate(50);
    found
}

/// Brings `id`'s note up to date from the ledger: created if it has none, else Baton's parts
/// rewritten if they are out of date. Never overwrites a person's change; see the module.
pub fn sync_session(ledger: &Ledger, vault: &Vault, id: SessionId) -> Result<NoteReport, Error> {
    let snapshot = ledger.snapshot()?;
    let Some(session) = snapshot.session(id)? else {
        return Err(Error::session_not_found(id));
    };
    sync_known(ledger, vault, &session)
}

/// The first folder on the way from `root` to the note `relative` that is a symbolic link.
fn linked_component(root: &Path, relative: &str) -> Option<std::path::PathBuf> {
    let mut at = root.to_path_buf();
    for part in Path::new(relative).parent()?.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return Some(at),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
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

/// The parts Baton owns in `session`'s note, with links to its parent's and children's notes.
fn owned_now(
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
fn create(
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
fn update(
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
    let Some(vault) = settings::resolve(ledger, &mut warnings) else {
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
        if let Some(vault) = settings::resolve(ledger, &mut warnings) {
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
