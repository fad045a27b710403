//! Compaction: rolls the active log into monthly archives under the compaction lock, while
//! appends continue without any lock (see `append.rs` for why none is lost).
//!
//! Steps, each safe to crash after: take the lock (a dead holder's flock is already released,
//! so a stale lock is simply taken over and reported); rename the active log to `sealed-*`;
//! start a new active log; roll every sealed log into the archives (written atomically);
//! delete the sealed logs; write a fresh checkpoint. A crash leaves sealed logs that readers
//! still fold and the next compaction rolls up again, idempotently.

use super::{Ledger, PRESERVED, SEALED_PREFIX, SESSION_LOCKS, io_err, sync_dir, write_atomically};
use baton_core::Error;
use baton_core::ledger::compaction::{CompactionInput, compact};
use baton_core::ledger::store::LedgerView;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fs;
use std::io::{Read, Seek, Write};

/// What a compaction did.
#[derive(Debug, Default, Serialize)]
pub struct CompactReport {
    /// Logs rolled up (the active one, plus any a crashed compaction left).
    pub sealed_logs: usize,
    /// Events read from them (duplicates included).
    pub events_in: u64,
    /// Distinct events in the archive months that were rewritten.
    pub events_out: u64,
    /// Archive months written.
    pub months_written: Vec<String>,
    /// Corrupt or foreign lines carried into `archive/preserved.ndjson`.
    pub preserved_lines: u64,
    /// Whether a stale lock left by a dead compaction was taken over, and whose it was.
    pub took_over_stale_lock: Option<String>,
    /// Session lock files removed because their sessions have ended.
    pub session_locks_removed: usize,
    /// Temporaries killed processes left behind, removed.
    pub temporaries_removed: usize,
}

/// How long compaction waits for readers (who hold the lock shared for milliseconds) before
/// it gives up.
const READERS_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

impl Ledger {
    /// Compacts the ledger. Waits up to 10 s for readers; refuses with `STORE_BUSY` while
    /// another compaction runs. Removes the temporaries killed processes left behind.
    pub fn compact(&self) -> Result<CompactReport, Error> {
        let mut report = CompactReport::default();
        if !self.dir.is_dir() {
            return Ok(report);
        }
        self.check_writable()?;
        let lock_path = self.path(super::COMPACT_LOCK);
        let mut lock = self.compact_lock_file()?;
        let asked = std::time::Instant::now();
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) => {
                    // Another compaction writes its name in the lock; readers do not, and
                    // hold it for milliseconds: wait for them, not for a compaction.
                    let holder = read_holder(&mut lock);
                    if !holder.is_empty() || asked.elapsed() > READERS_WAIT {
                        let holder = if holder.is_empty() {
                            "readers held it for 10 s".to_owned()
                        } else {
                            holder
                        };
                        return Err(Error::compaction_running(&holder));
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(fs::TryLockError::Error(e)) => return Err(io_err("lock", &lock_path, e)),
            }
        }
        let previous = read_holder(&mut lock);
        if !previous.is_empty() {
            report.took_over_stale_lock = Some(previous);
        }
        write_holder(&mut lock, &holder_line()).map_err(|e| io_err("write", &lock_path, e))?;

        let active = self.active_path();
        if active.exists() {
            let sealed = self.dir.join(format!(
                "{SEALED_PREFIX}{}.ndjson",
                crate::os::system::new_uuid().simple()
            ));
            fs::rename(&active, &sealed).map_err(|e| io_err("rename", &active, e))?;
            sync_dir(&self.dir)?;
        }
        self.create_active_log()?;

        let sealed_paths = self.sealed_paths()?;
        report.sealed_logs = sealed_paths.len();
        let sealed: Vec<Vec<u8>> = sealed_paths
            .iter()
            .map(|p| fs::read(p).map_err(|e| io_err("read", p, e)))
            .collect::<Result<_, _>>()?;
        let mut archives = BTreeMap::new();
        let mut preserved = Vec::new();
        for (name, path) in self.archive_paths()? {
            let bytes = fs::read(&path).map_err(|e| io_err("read", &path, e))?;
            if format!("{name}.ndjson") == PRESERVED {
                preserved = bytes;
            } else {
                archives.insert(name, bytes);
            }
        }
        let output = compact(&CompactionInput {
            sealed: sealed.iter().map(Vec::as_slice).collect(),
            archives: archives
                .iter()
                .map(|(k, v)| (k.clone(), v.as_slice()))
                .collect(),
            preserved: &preserved,
        })?;
        report.events_in = output.events_in;
        report.events_out = output.events_out;
        report.preserved_lines = output.preserved_lines;
        for (month, text) in &output.archives {
            write_atomically(
                &self.archive_dir().join(format!("{month}.ndjson")),
                text.as_bytes(),
            )?;
            report.months_written.push(month.clone());
        }
        if let Some(bytes) = &output.preserved {
            write_atomically(&self.archive_dir().join(PRESERVED), bytes)?;
        }
        for path in &sealed_paths {
            fs::remove_file(path).map_err(|e| io_err("remove", path, e))?;
        }
        sync_dir(&self.dir)?;

        let snapshot = self.snapshot_locked()?;
        self.refresh_checkpoint(&snapshot)?;
        report.session_locks_removed = self.remove_ended_session_locks(&snapshot)?;
        for temporary in self.stale_temporaries() {
            if fs::remove_file(&temporary).is_ok() {
                report.temporaries_removed += 1;
            }
        }
        write_holder(&mut lock, "").map_err(|e| io_err("write", &lock_path, e))?;
        Ok(report)
    }

    /// Removes the per-session lock files older Batons left (one per session, before the
    /// striped locks) once their session has ended. Safe: whoever still holds one will find
    /// the session ended and refuse, as it would with the lock.
    fn remove_ended_session_locks(&self, snapshot: &super::Snapshot) -> Result<usize, Error> {
        let dir = self.path(SESSION_LOCKS);
        let Ok(entries) = fs::read_dir(&dir) else {
            return Ok(0);
        };
        let mut removed = 0;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(id) = name
                .strip_suffix(".lock")
                .and_then(|id| uuid::Uuid::try_parse(id).ok())
            else {
                continue;
            };
            if let Some(session) = snapshot.session(baton_core::SessionId(id))?
                && !session.is_live()
                && fs::remove_file(entry.path()).is_ok()
            {
                removed += 1;
            }
        }
        Ok(removed)
    }
}

fn holder_line() -> String {
    format!(
        "pid {} on {} since {}",
        std::process::id(),
        crate::os::system::host_name(),
        crate::os::system::now()
            .map(|t| t.to_string())
            .unwrap_or_default()
    )
}

pub(super) fn read_holder(lock: &mut fs::File) -> String {
    let mut text = String::new();
    let _ = lock.rewind().and_then(|()| lock.read_to_string(&mut text));
    text.trim().to_owned()
}

fn write_holder(lock: &mut fs::File, text: &str) -> std::io::Result<()> {
    lock.set_len(0)?;
    lock.rewind()?;
    lock.write_all(text.as_bytes())?;
    lock.sync_data()
}
