//! What Baton remembers beside the vault about its notes: the bytes it last wrote, where
//! each session's note is, a hand-off chain's children, and the notes waiting for a person to
//! stop typing.

use super::*;

/// What Baton last wrote into a note: the version it left (none when it found the note up to
/// date and wrote nothing) and its owned keys then.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(super) struct Written {
    pub(super) path: String,
    pub(super) stamp: Option<files::Stamp>,
    pub(super) keys: Vec<(String, String)>,
}

impl Vault {
    pub(super) fn file(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub(super) fn record_path(&self, relative: &str) -> PathBuf {
        let key = baton_core::ledger::checkpoint::fnv1a64(relative.as_bytes());
        self.state.join("written").join(format!("{key:016x}.json"))
    }

    pub(super) fn last_written(&self, relative: &str) -> Option<Written> {
        let text = crate::os::files::read_regular_text(self.record_path(relative), 1 << 20).ok()?;
        serde_json::from_str::<Written>(&text)
            .ok()
            .filter(|w| w.path == relative)
    }

    pub(super) fn remember(&self, written: &Written) {
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

    pub(super) fn path_record(&self, id: SessionId) -> PathBuf {
        self.state.join("paths").join(id.to_string())
    }

    /// Where Baton last wrote `id`'s note, inside the vault.
    pub(super) fn recorded_path(&self, id: SessionId) -> Option<String> {
        let text = crate::os::files::read_regular_text(self.path_record(id), 1 << 20).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_owned())
    }

    pub(super) fn record_path_of(&self, id: SessionId, relative: &str) {
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
    pub(super) fn touched(&self, session: &Session, own: &str) -> Vec<String> {
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

    pub(super) fn children_file(&self, parent: SessionId) -> PathBuf {
        self.state.join("children").join(parent.to_string())
    }

    /// The sessions known to follow on from `parent`, oldest first: kept as their notes are
    /// written (so a note need not read every session of the ledger to find them), and made
    /// again from the ledger by `baton notes rebuild`.
    pub(super) fn children_of(&self, parent: SessionId) -> Vec<SessionId> {
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
    pub(super) fn add_child(&self, parent: SessionId, child: SessionId) {
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

    pub(super) fn pending_dir(&self) -> PathBuf {
        self.state.join("pending")
    }

    pub(super) fn set_pending(&self, id: SessionId, pending: bool) {
        let path = self.pending_dir().join(id.to_string());
        if pending {
            let _ = std::fs::create_dir_all(self.pending_dir());
            let _ = std::fs::write(path, b"");
        } else {
            let _ = std::fs::remove_file(path);
        }
    }

    /// Sessions whose note was deferred and is still to be brought up to date.
    pub(super) fn pending(&self) -> Vec<SessionId> {
        let Ok(entries) = std::fs::read_dir(self.pending_dir()) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| SessionId::parse_v7("pending", &e.file_name().to_string_lossy()).ok())
            .collect()
    }

    pub(super) fn report(&self, relative: &str, outcome: NoteOutcome) -> NoteReport {
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
