//! The fold a long-running process keeps between its commands (the MCP server): the whole
//! ledger folded once, then only the bytes any writer appended since. Every view is still
//! checked against the files first (the active log's generation, the archives' stamp, the
//! offset falling on a line's end), so another process's append, a compaction or a removed
//! log is seen at the next command; what cannot be trusted is folded again from the files.

use super::Ledger;
use super::snapshot::{ActiveLog, KeptBase, Snapshot, fold_log, line_boundary};
use baton_core::Error;
use baton_core::SessionId;
use baton_core::ledger::fold::Fold;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// The most sessions a kept fold holds (about 4 KB of memory each, so some 70 MB): a larger
/// ledger is read through its checkpoint on every command, as the CLI reads it, rather than
/// held whole by every agent's server.
pub const KEEP_AT_MOST_SESSIONS: usize = 16_384;

/// What a process keeps of a ledger between commands; shared by every clone of the
/// [`Ledger`] it was made for (see [`Ledger::keeping`]).
#[derive(Default)]
pub struct Keeper(Mutex<Option<Kept>>);

impl Keeper {
    /// The kept state, dropped when a panic left it half-changed (it is folded again).
    fn lock(&self) -> MutexGuard<'_, Option<Kept>> {
        match self.0.lock() {
            Ok(kept) => kept,
            Err(poisoned) => {
                let mut kept = poisoned.into_inner();
                *kept = None;
                self.0.clear_poison();
                kept
            }
        }
    }
}

impl std::fmt::Debug for Keeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.lock();
        f.debug_struct("Keeper")
            .field("offset", &kept.as_ref().map(|k| k.offset))
            .finish_non_exhaustive()
    }
}

/// The fold of the ledger up to `offset` of the active log of `generation`.
struct Kept {
    /// The active log's device and inode: a log put in its place (a checkout, a restore) is
    /// another file even when its header and length agree.
    file: (u64, u64),
    generation: String,
    archive_stamp: String,
    /// Bytes of the active log folded into `fold`.
    offset: u64,
    fold: Arc<Fold>,
    /// The sessions of `fold` that are live.
    live: Arc<BTreeSet<SessionId>>,
    /// How many sessions `fold` holds.
    sessions: usize,
}

impl Kept {
    /// Folds `tail` (the log up to `folded_to`) into the kept fold when no view still holds
    /// it, and gives back what the view must still lay over the base: nothing, or `tail`.
    fn absorb(&mut self, tail: Fold, folded_to: u64) -> Fold {
        let (Some(fold), Some(live)) = (Arc::get_mut(&mut self.fold), Arc::get_mut(&mut self.live))
        else {
            return tail;
        };
        let touched: Vec<SessionId> = tail.histories().map(|(id, _)| *id).collect();
        self.sessions += touched
            .iter()
            .filter(|id| fold.history(**id).is_none())
            .count();
        fold.join(tail);
        for id in touched {
            if fold.session(id).is_some_and(|s| s.is_live()) {
                live.insert(id);
            } else {
                live.remove(&id);
            }
        }
        self.offset = folded_to;
        Fold::new()
    }

    fn base(&self) -> KeptBase {
        KeptBase {
            fold: self.fold.clone(),
            live: self.live.clone(),
        }
    }
}

impl Ledger {
    /// This ledger, keeping its fold between commands: for a process that runs many (the MCP
    /// server). Each view then reads only what was appended since the last one.
    pub fn keeping(mut self) -> Ledger {
        self.keeper = Some(Arc::default());
        self
    }

    /// Builds a view from the kept fold (the caller holds the shared compaction lock): the
    /// appended bytes folded in, or everything folded again when the files moved under it.
    pub(super) fn snapshot_kept(&self, keeper: &Keeper) -> Result<Snapshot, Error> {
        let ActiveLog {
            path: active_path,
            file: active,
            archive_stamp,
            generation,
        } = self.active_log()?;
        let identity = active.as_ref().and_then(file_identity);
        let mut kept = keeper.lock();
        if let (Some(k), Some(file), Some(g)) = (kept.as_mut(), &active, &generation)
            && Some(k.file) == identity
            && k.sessions <= KEEP_AT_MOST_SESSIONS
            && k.generation == *g
            && k.archive_stamp == archive_stamp
            && line_boundary(file, k.offset)
        {
            let mut tail = Fold::new();
            let start = k.offset;
            let (folded_to, torn) = fold_log(&mut tail, file, &active_path, start, &mut None)?;
            let tail = if folded_to > start {
                k.absorb(tail, folded_to)
            } else {
                tail
            };
            return Ok(Snapshot::over(
                k.base(),
                tail,
                generation,
                (folded_to, torn),
                format!("kept in memory, read on from offset {start}"),
                archive_stamp,
            ));
        }
        // Nothing kept yet, or the files changed under it: fold them again, and keep that.
        *kept = None;
        let fresh = self.snapshot_locked()?;
        let (Some(generation), Some(file)) = (fresh.generation.clone(), identity) else {
            return Ok(fresh);
        };
        if fresh.session_count() > KEEP_AT_MOST_SESSIONS {
            return Ok(fresh);
        }
        let (folded_to, torn) = (fresh.folded_to, fresh.torn_tail_bytes);
        let state = format!("folded and kept in memory ({})", fresh.checkpoint_state);
        let archive_stamp = fresh.archive_stamp().to_owned();
        let fold = fresh.into_fold()?;
        let live = fold
            .histories()
            .filter(|(_, history)| history.session().is_some_and(|s| s.is_live()))
            .map(|(id, _)| *id)
            .collect();
        let k = Kept {
            file,
            sessions: fold.histories().count(),
            generation: generation.clone(),
            archive_stamp: archive_stamp.clone(),
            offset: folded_to,
            fold: Arc::new(fold),
            live: Arc::new(live),
        };
        let snapshot = Snapshot::over(
            k.base(),
            Fold::new(),
            Some(generation),
            (folded_to, torn),
            state,
            archive_stamp,
        );
        *kept = Some(k);
        Ok(snapshot)
    }
}

/// A file's device and inode.
fn file_identity(file: &std::fs::File) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|m| (m.dev(), m.ino()))
}
