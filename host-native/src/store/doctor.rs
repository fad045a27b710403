//! `baton doctor`: the store's health — unreadable lines, live sessions, locks, checkpoint.

use super::compact::read_holder;
use super::{Ledger, io_err};
use baton_core::Error;
use baton_core::ledger::fold::FoldStats;
use baton_core::ledger::store::LedgerView;
use serde::Serialize;
use std::fs;

/// Everything `baton doctor` reports.
#[derive(Debug, Serialize)]
pub struct DoctorReport {
    /// The ledger directory.
    pub dir: String,
    /// Whether it exists yet.
    pub exists: bool,
    /// True when nothing needs attention.
    pub healthy: bool,
    /// What needs attention, in words.
    pub findings: Vec<String>,
    /// The active log.
    pub active_log: ActiveLog,
    /// Archive files and their sizes.
    pub archives: Vec<FileSize>,
    /// Sealed logs a crashed compaction left (rolled up by the next one).
    pub sealed_logs: Vec<String>,
    /// The checkpoint's state.
    pub checkpoint: String,
    /// Line and event counts over the whole ledger.
    pub stats: FoldStats,
    /// Session counts.
    pub sessions: SessionCounts,
    /// `free`, `held` (a compaction runs) or `stale` (a dead compaction's record; taken over
    /// automatically by the next one).
    pub compaction_lock: String,
    /// Who holds or last held the compaction lock.
    pub compaction_lock_holder: Option<String>,
    /// Per-session lock files present.
    pub session_lock_files: usize,
    /// Temporaries killed processes left behind (`baton compact` removes them).
    pub stale_temporaries: Vec<String>,
    /// Files git tracks in the ledger that Baton keeps private (its `.gitignore` lists them):
    /// caches, locks, or what is derived from private transcripts.
    pub tracked_private: Vec<String>,
}

/// The active log's state.
#[derive(Debug, Serialize)]
pub struct ActiveLog {
    /// Its size.
    pub bytes: u64,
    /// Its generation id.
    pub generation: Option<String>,
    /// Bytes after the last newline (a torn line, or one being written).
    pub torn_tail_bytes: u64,
}

/// A file and its size.
#[derive(Debug, Serialize)]
pub struct FileSize {
    /// File name.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
}

/// How many sessions of each sort.
#[derive(Debug, Serialize)]
pub struct SessionCounts {
    /// Sessions with a known start.
    pub total: usize,
    /// Live ones.
    pub live: usize,
    /// Ids with events but no start event.
    pub orphaned_ids: Vec<String>,
}

impl Ledger {
    /// Inspects the store. Reads only.
    pub fn doctor(&self) -> Result<DoctorReport, Error> {
        let exists = self.dir.is_dir();
        let lock = if exists {
            self.lock_file_for_reading()?
        } else {
            None
        };
        let (compaction_lock, holder) = if let Some(mut lock) = lock {
            let holder = read_holder(&mut lock);
            match lock.try_lock_shared() {
                Ok(()) if holder.is_empty() => ("free", None),
                Ok(()) => ("stale", Some(holder)),
                Err(fs::TryLockError::WouldBlock) => ("held", Some(holder)),
                Err(fs::TryLockError::Error(e)) => {
                    return Err(io_err("lock", &self.path(super::COMPACT_LOCK), e));
                }
            }
        } else {
            ("free", None)
        };
        let snapshot = self.snapshot()?;
        let sessions = snapshot.sessions()?;
        let live = snapshot.live_sessions()?.len();
        let orphans = snapshot.orphan_ids()?;
        let stats = snapshot.stats();
        let active_bytes = fs::metadata(self.active_path())
            .map(|m| m.len())
            .unwrap_or(0);
        let archives = self
            .archive_paths()?
            .into_iter()
            .map(|(name, path)| FileSize {
                name: format!("{name}.ndjson"),
                bytes: fs::metadata(&path).map(|m| m.len()).unwrap_or(0),
            })
            .collect();
        let sealed_logs: Vec<String> = self
            .sealed_paths()?
            .iter()
            .map(|p| crate::os::files::name_of(p))
            .collect();
        let session_lock_files = fs::read_dir(self.path(super::SESSION_LOCKS))
            .map(|d| d.count())
            .unwrap_or(0);

        let stale_temporaries: Vec<String> = self
            .stale_temporaries()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let tracked_private = if exists {
            tracked_private(&self.dir)
        } else {
            Vec::new()
        };
        let mut findings = Vec::new();
        if !tracked_private.is_empty() {
            let shown: Vec<&str> = tracked_private.iter().take(5).map(String::as_str).collect();
            findings.push(format!(
                "git tracks {} file(s) Baton keeps private ({}{}): `git rm -r --cached` them in {} (the ledger's .gitignore lists them)",
                tracked_private.len(),
                shown.join(", "),
                if tracked_private.len() > shown.len() { ", …" } else { "" },
                self.dir.display()
            ));
        }
        if !stale_temporaries.is_empty() {
            findings.push(format!(
                "{} temporary file(s) left by killed processes: `baton compact` removes them",
                stale_temporaries.len()
            ));
        }
        if stats.corrupt_lines > 0 {
            findings.push(format!(
                "{} corrupt line(s): kept and skipped; see stats.problems for where",
                stats.corrupt_lines
            ));
        }
        if stats.foreign_lines > 0 {
            findings.push(format!(
                "{} line(s) of another schema: kept and skipped (written by a newer Baton or another tool?)",
                stats.foreign_lines
            ));
        }
        if snapshot.torn_tail_bytes > 0 {
            findings.push(format!(
                "the active log ends in {} bytes without a newline: a torn line, or an append in progress; the next append starts a fresh line",
                snapshot.torn_tail_bytes
            ));
        }
        if !sealed_logs.is_empty() {
            findings.push(format!(
                "{} sealed log(s) from an interrupted compaction: still read; `baton compact` rolls them up",
                sealed_logs.len()
            ));
        }
        if compaction_lock == "stale" {
            findings.push(
                "a compaction died holding the lock; the next `baton compact` takes it over"
                    .to_owned(),
            );
        }
        if !orphans.is_empty() {
            findings.push(format!(
                "{} session id(s) have events but no start event",
                orphans.len()
            ));
        }
        Ok(DoctorReport {
            dir: self.dir.display().to_string(),
            exists,
            healthy: findings.is_empty(),
            findings,
            active_log: ActiveLog {
                bytes: active_bytes,
                generation: snapshot.generation.clone(),
                torn_tail_bytes: snapshot.torn_tail_bytes,
            },
            archives,
            sealed_logs,
            checkpoint: snapshot.checkpoint_state.clone(),
            stats,
            sessions: SessionCounts {
                total: sessions.len(),
                live,
                orphaned_ids: orphans.iter().map(ToString::to_string).collect(),
            },
            compaction_lock: compaction_lock.to_owned(),
            compaction_lock_holder: holder,
            session_lock_files,
            stale_temporaries,
            tracked_private,
        })
    }
}

/// The files under `dir` that git tracks and [`super::is_private`] says are not to be
/// committed, as paths inside `dir`. Empty outside a repository, or without git.
fn tracked_private(dir: &std::path::Path) -> Vec<String> {
    let listed = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["ls-files", "-z", "--", "."])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let Ok(listed) = listed else {
        return Vec::new();
    };
    if !listed.status.success() {
        return Vec::new();
    }
    listed
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .filter(|name| super::is_private(name))
        .collect()
}
