//! The read side: a consistent view of the ledger, built from the checkpoint and the part of
//! the active log appended since, or rebuilt from every file when the checkpoint is stale.

use super::checkpoint::{CheckpointFile, CheckpointWriter};
use super::{CHECKPOINT, Ledger, io_err};
use baton_core::ledger::checkpoint::{CHECKPOINT_FORMAT, CheckpointHeader};
use baton_core::ledger::fold::{Fold, LineClass, SessionHistory};
use baton_core::ledger::store::LedgerView;
use baton_core::{Error, Session, SessionId};
use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Rewrite the checkpoint once the unfolded tail passes this many bytes, or 1/256 of the
/// checkpoint, whichever is larger. A rewrite copies unchanged sessions verbatim, so its cost
/// is about a file copy; the bound keeps every command's tail fold small (~1 MB at 1M events,
/// 64 KiB on small ledgers).
const CHECKPOINT_TAIL_BYTES: u64 = 64 * 1024;

/// The fold a long-running process keeps (see `kept.rs`) as a view's base. Such a process
/// leaves the checkpoint to the short-lived commands, which read it: writing it from there
/// would cost a call now and then the time to encode every session.
pub(super) struct KeptBase {
    pub fold: std::sync::Arc<Fold>,
    pub live: std::sync::Arc<BTreeSet<SessionId>>,
}

pub(super) enum Base {
    Empty,
    Full(Fold),
    Checkpoint(Box<CheckpointFile>),
    /// The fold a long-running process keeps (see `kept.rs`).
    Kept(KeptBase),
}

/// A consistent view of the ledger at one moment.
pub struct Snapshot {
    base: Base,
    tail: Fold,
    /// The active log's generation, when it exists.
    pub generation: Option<String>,
    /// Bytes of the active log folded (up to its last complete line).
    pub folded_to: u64,
    /// Bytes after the last newline: a torn line or one being written right now.
    pub torn_tail_bytes: u64,
    /// The checkpoint used, or why none was.
    pub checkpoint_state: String,
    archive_stamp: String,
    tail_bytes: u64,
    /// Checkpoint lookups already made: one command asks for the same session several times.
    looked_up: std::sync::Mutex<std::collections::HashMap<SessionId, Option<SessionHistory>>>,
    /// Sessions already derived from their histories: a command that checks liveness first
    /// derives each live session, then the core asks for each again (twice for an
    /// observation, once more for the answer).
    /// Boxed: a session is about a kilobyte, and the map moves its entries as it grows.
    derived: std::sync::Mutex<std::collections::HashMap<SessionId, Option<Box<Session>>>>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("generation", &self.generation)
            .field("folded_to", &self.folded_to)
            .field("checkpoint_state", &self.checkpoint_state)
            .finish_non_exhaustive()
    }
}

/// Folds the complete lines of `file` from `start`; returns (end of last complete line,
/// bytes after it).
pub(super) fn fold_log(
    fold: &mut Fold,
    file: &File,
    path: &Path,
    start: u64,
    generation: &mut Option<String>,
) -> Result<(u64, u64), Error> {
    let mut file = file.try_clone().map_err(|e| io_err("read", path, e))?;
    file.seek(SeekFrom::Start(start))
        .map_err(|e| io_err("read", path, e))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let source = path.display().to_string();
    let (mut offset, mut line) = (start, Vec::new());
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| io_err("read", path, e))?;
        if n == 0 {
            return Ok((offset, 0));
        }
        if line.last() != Some(&b'\n') {
            return Ok((offset, n as u64));
        }
        if let LineClass::Header(g) = fold.apply_line(&line[..n - 1], &source, offset) {
            generation.get_or_insert(g);
        }
        offset += n as u64;
    }
}

/// The generation the active log's header line names, when it has one.
pub(super) fn read_generation(file: &File, path: &Path) -> Result<Option<String>, Error> {
    let mut first = Vec::new();
    let mut reader =
        BufReader::with_capacity(4096, file.try_clone().map_err(|e| io_err("read", path, e))?);
    reader
        .read_until(b'\n', &mut first)
        .map_err(|e| io_err("read", path, e))?;
    Ok(
        match baton_core::ledger::event::decode_line(first.strip_suffix(b"\n").unwrap_or(&first)) {
            baton_core::ledger::event::Line::Header { generation } => Some(generation),
            _ => None,
        },
    )
}

fn read_all(path: &Path) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    super::own::open_read(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| super::own::open_error("read", path, e))?;
    Ok(bytes)
}

/// The active log as a view starts from: the file (when there is one), the generation its
/// header names, and the archives' stamp beside it.
pub(super) struct ActiveLog {
    pub path: std::path::PathBuf,
    pub file: Option<File>,
    pub archive_stamp: String,
    pub generation: Option<String>,
}

impl Ledger {
    /// Opens the active log and reads what a view is checked against (the caller holds the
    /// compaction lock).
    pub(super) fn active_log(&self) -> Result<ActiveLog, Error> {
        let path = self.active_path();
        let file = match super::own::open_read(&path) {
            Ok(file) => Some(file),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(super::own::open_error("open", &path, e)),
        };
        let archive_stamp = self.archive_stamp()?;
        let generation = match &file {
            Some(file) => read_generation(file, &path)?,
            None => None,
        };
        Ok(ActiveLog {
            path,
            file,
            archive_stamp,
            generation,
        })
    }

    /// Builds a consistent view. Waits while a compaction runs (shared compaction lock).
    pub fn snapshot(&self) -> Result<Snapshot, Error> {
        if !self.dir.is_dir() {
            return Ok(Snapshot {
                base: Base::Empty,
                tail: Fold::new(),
                generation: None,
                folded_to: 0,
                torn_tail_bytes: 0,
                checkpoint_state: "no ledger yet".into(),
                archive_stamp: String::new(),
                tail_bytes: 0,
                looked_up: Default::default(),
                derived: Default::default(),
            });
        }
        self.check_layout()?;
        let _lock = self.reader_lock()?;
        match &self.keeper {
            Some(keeper) => self.snapshot_kept(keeper),
            None => self.snapshot_locked(),
        }
    }

    /// Builds the view; the caller holds the compaction lock (shared or exclusive).
    pub(super) fn snapshot_locked(&self) -> Result<Snapshot, Error> {
        let ActiveLog {
            path: active_path,
            file: active,
            archive_stamp,
            mut generation,
        } = self.active_log()?;
        let checkpoint = CheckpointFile::open(&self.path(CHECKPOINT))?;
        let usable = match checkpoint {
            Ok(cp) => match (&active, &generation) {
                (Some(file), Some(g))
                    if &cp.header.generation == g && cp.header.archive_stamp == archive_stamp =>
                {
                    if line_boundary(file, cp.header.offset) {
                        Ok(cp)
                    } else {
                        Err("stale: log shorter than its offset".to_owned())
                    }
                }
                _ => Err("stale: the log or archives changed (compaction)".to_owned()),
            },
            Err(reason) => Err(reason),
        };
        match usable {
            Ok(cp) => {
                let mut tail = Fold::new();
                let start = cp.header.offset;
                let file = active
                    .as_ref()
                    .ok_or_else(|| Error::internal("log vanished"))?;
                let (folded_to, torn) = fold_log(&mut tail, file, &active_path, start, &mut None)?;
                Ok(Snapshot {
                    checkpoint_state: format!("valid at offset {start}"),
                    tail_bytes: folded_to - start,
                    base: Base::Checkpoint(Box::new(cp)),
                    tail,
                    generation,
                    folded_to,
                    torn_tail_bytes: torn,
                    archive_stamp,
                    looked_up: Default::default(),
                    derived: Default::default(),
                })
            }
            Err(reason) => {
                let mut fold = Fold::new();
                for (name, path) in self.archive_paths()? {
                    baton_core::ledger::compaction::fold_archive(
                        &mut fold,
                        &read_all(&path)?,
                        &name,
                    );
                }
                for path in self.sealed_paths()? {
                    fold.apply_text(&read_all(&path)?, &path.display().to_string());
                }
                let (folded_to, torn) = match &active {
                    Some(file) => fold_log(&mut fold, file, &active_path, 0, &mut generation)?,
                    None => (0, 0),
                };
                Ok(Snapshot {
                    base: Base::Full(fold),
                    tail: Fold::new(),
                    generation,
                    folded_to,
                    torn_tail_bytes: torn,
                    checkpoint_state: reason,
                    archive_stamp,
                    tail_bytes: folded_to,
                    looked_up: Default::default(),
                    derived: Default::default(),
                })
            }
        }
    }

    /// Writes a fresh checkpoint when the view was rebuilt or its tail has grown; a failure
    /// here costs only speed, so it is reported and otherwise ignored.
    pub fn refresh_checkpoint(&self, snapshot: &Snapshot) -> Result<bool, Error> {
        let Some(generation) = snapshot.generation.clone() else {
            return Ok(false);
        };
        let threshold = match &snapshot.base {
            Base::Empty | Base::Kept(_) => return Ok(false),
            Base::Full(_) => None,
            Base::Checkpoint(cp) => Some(cp.header.body_bytes),
        }
        .map(|body| CHECKPOINT_TAIL_BYTES.max(body / 256));
        if threshold.is_some_and(|bytes| snapshot.tail_bytes <= bytes) {
            return Ok(false);
        }
        let mut writer = CheckpointWriter::create(&self.path(CHECKPOINT))?;
        snapshot.write_sessions(&mut writer)?;
        writer.finish(CheckpointHeader {
            baton_checkpoint: CHECKPOINT_FORMAT,
            generation: generation.clone(),
            offset: snapshot.folded_to,
            archive_stamp: snapshot.archive_stamp.clone(),
            live: Vec::new(),
            sessions: 0,
            body_bytes: 0,
            stats: snapshot.stats(),
            check: String::new(),
        })?;
        Ok(true)
    }
}

pub(super) fn line_boundary(file: &File, offset: u64) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(meta) = file.metadata() else {
        return false;
    };
    if offset == 0 {
        return true;
    }
    if offset > meta.len() {
        return false;
    }
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, offset - 1).is_ok() && byte[0] == b'\n'
}

impl Snapshot {
    /// A view over a kept fold with `tail` laid over it: the active log of `generation` folded
    /// up to `folded_to` (`torn` bytes after it).
    pub(super) fn over(
        base: KeptBase,
        tail: Fold,
        generation: Option<String>,
        (folded_to, torn): (u64, u64),
        checkpoint_state: String,
        archive_stamp: String,
    ) -> Snapshot {
        Snapshot {
            base: Base::Kept(base),
            tail,
            generation,
            folded_to,
            torn_tail_bytes: torn,
            checkpoint_state,
            archive_stamp,
            tail_bytes: 0,
            looked_up: Default::default(),
            derived: Default::default(),
        }
    }

    /// The whole view as one fold (its counts included): a fold read from the files is moved,
    /// not copied; a checkpoint's sessions are decoded.
    pub(super) fn into_fold(self) -> Result<Fold, Error> {
        let stats = self.stats();
        let mut fold = match self.base {
            Base::Full(fold) => {
                let mut fold = fold;
                fold.join(self.tail);
                fold
            }
            _ => {
                let mut fold = Fold::new();
                self.for_each_history(|id, history| {
                    fold.join_history(id, history);
                    Ok(())
                })?;
                fold
            }
        };
        fold.stats = stats;
        Ok(fold)
    }

    /// How many sessions the view holds, as cheaply as it can say: the checkpoint's count and
    /// the tail's, which may count a session twice.
    pub(super) fn session_count(&self) -> usize {
        let base = match &self.base {
            Base::Empty => 0,
            Base::Full(fold) => fold.histories().count(),
            Base::Checkpoint(cp) => cp.header.sessions as usize,
            Base::Kept(kept) => kept.fold.histories().count(),
        };
        base + self.tail.histories().count()
    }

    /// The archives' stamp this view was read with.
    pub(super) fn archive_stamp(&self) -> &str {
        &self.archive_stamp
    }

    /// Counts of what was read, including what the checkpoint had counted before.
    pub fn stats(&self) -> baton_core::ledger::fold::FoldStats {
        let mut stats = match &self.base {
            Base::Empty => Default::default(),
            Base::Full(fold) => fold.stats.clone(),
            Base::Checkpoint(cp) => cp.header.stats.clone(),
            Base::Kept(kept) => kept.fold.stats.clone(),
        };
        stats.absorb(self.tail.stats.clone());
        stats
    }

    /// Visits every session history (base joined with tail) in id order.
    pub fn for_each_history(
        &self,
        mut visit: impl FnMut(SessionId, SessionHistory) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut tail = self.tail.histories().peekable();
        let mut on_base = |id: SessionId, mut history: SessionHistory| -> Result<(), Error> {
            while let Some((tail_id, tail_history)) = tail.next_if(|(t, _)| **t < id) {
                visit(*tail_id, tail_history.clone())?;
            }
            if let Some((_, tail_history)) = tail.next_if(|(t, _)| **t == id) {
                history.join(tail_history.clone());
            }
            visit(id, history)
        };
        match &self.base {
            Base::Empty => {}
            Base::Full(fold) => {
                for (id, history) in fold.histories() {
                    on_base(*id, history.clone())?;
                }
            }
            Base::Kept(kept) => {
                for (id, history) in kept.fold.histories() {
                    on_base(*id, history.clone())?;
                }
            }
            Base::Checkpoint(cp) => cp.for_each(&mut on_base)?,
        }
        for (id, history) in tail {
            visit(*id, history.clone())?;
        }
        Ok(())
    }

    /// Writes every session into a new checkpoint: sessions the tail did not touch are copied
    /// from the old checkpoint without decoding.
    fn write_sessions(&self, writer: &mut CheckpointWriter) -> Result<(), Error> {
        let Base::Checkpoint(cp) = &self.base else {
            return self.for_each_history(|id, history| writer.push(id, &history));
        };
        let live: BTreeSet<SessionId> = cp.header.live.iter().copied().collect();
        let mut tail = self.tail.histories().peekable();
        cp.for_each_raw(|id, line| {
            while let Some((tail_id, history)) = tail.next_if(|(t, _)| **t < id) {
                writer.push(*tail_id, history)?;
            }
            match tail.next_if(|(t, _)| **t == id) {
                Some((_, extra)) => {
                    let (_, mut history) =
                        baton_core::ledger::checkpoint::decode_session_line(line)
                            .ok_or_else(|| super::checkpoint::damaged_checkpoint(cp.path()))?;
                    history.join(extra.clone());
                    writer.push(id, &history)
                }
                None => writer.push_raw(id, line, live.contains(&id)),
            }
        })?;
        for (id, history) in tail {
            writer.push(*id, history)?;
        }
        Ok(())
    }

    /// Every session with a known start (base joined with tail), in id order.
    pub fn sessions(&self) -> Result<Vec<Session>, Error> {
        let mut sessions = Vec::new();
        self.for_each_history(|_, history| {
            sessions.extend(history.session());
            Ok(())
        })?;
        Ok(sessions)
    }

    /// Ids that have events but no start, by the core's one orphan rule.
    pub fn orphan_ids(&self) -> Result<Vec<SessionId>, Error> {
        let mut ids = Vec::new();
        self.for_each_history(|id, history| {
            if baton_core::ledger::fold::is_orphan(id, &history) {
                ids.push(id);
            }
            Ok(())
        })?;
        Ok(ids)
    }
}

impl Snapshot {
    /// A session's history in the checkpoint, remembered for the rest of this view when
    /// `remember` (a history asked for once, to derive its session, is not kept).
    fn checkpoint_history(
        &self,
        cp: &CheckpointFile,
        id: SessionId,
        remember: bool,
    ) -> Result<Option<SessionHistory>, Error> {
        let mut memo = self
            .looked_up
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(found) = memo.get(&id) {
            return Ok(found.clone());
        }
        let found = cp.lookup(id)?;
        if remember {
            memo.insert(id, found.clone());
        }
        Ok(found)
    }

    /// A session's history: the base's joined with the tail's.
    fn joined_history(
        &self,
        id: SessionId,
        remember: bool,
    ) -> Result<Option<SessionHistory>, Error> {
        let base = match &self.base {
            Base::Empty => None,
            Base::Full(fold) => fold.history(id).cloned(),
            Base::Kept(kept) => kept.fold.history(id).cloned(),
            Base::Checkpoint(cp) => self.checkpoint_history(cp, id, remember)?,
        };
        Ok(match (base, self.tail.history(id)) {
            (None, None) => None,
            (Some(h), None) => Some(h),
            (None, Some(t)) => Some(t.clone()),
            (Some(mut h), Some(t)) => {
                h.join(t.clone());
                Some(h)
            }
        })
    }
}

impl LedgerView for Snapshot {
    fn history(&self, id: SessionId) -> Result<Option<SessionHistory>, Error> {
        self.joined_history(id, true)
    }

    fn session(&self, id: SessionId) -> Result<Option<Session>, Error> {
        let memo = || {
            self.derived
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(found) = memo().get(&id) {
            return Ok(found.as_deref().cloned());
        }
        let found = self.joined_history(id, false)?.and_then(|h| h.session());
        memo().insert(id, found.clone().map(Box::new));
        Ok(found)
    }

    fn live_sessions(&self) -> Result<Vec<Session>, Error> {
        let candidates: BTreeSet<SessionId> = match &self.base {
            Base::Empty => BTreeSet::new(),
            Base::Full(fold) => fold.histories().map(|(id, _)| *id).collect(),
            Base::Checkpoint(cp) => cp.header.live.iter().copied().collect(),
            Base::Kept(kept) => kept.live.iter().copied().collect(),
        }
        .into_iter()
        .chain(self.tail.histories().map(|(id, _)| *id))
        .collect();
        let mut live = Vec::with_capacity(candidates.len());
        for id in candidates {
            if let Some(session) = self.session(id)?
                && session.is_live()
            {
                live.push(session);
            }
        }
        Ok(live)
    }

    fn all_sessions(&self) -> Result<Vec<Session>, Error> {
        self.sessions()
    }
}
