//! The mirror: agents' transcripts kept in a SQLite index that outlives their sources and is
//! searched in milliseconds. `index` owns the file and its schema, `packing` how it
//! compresses, `pass` brings it up to date with the sources (reading only what was
//! appended), `tally` keeps what the usage rows add up to, `follow` keeps passing as files
//! change, `settings` says what to read, `query` answers from it alone, `usage` makes the
//! usage report from it, `upkeep` sizes, compacts and removes.

pub mod counted;
pub mod follow;
pub mod packing;
pub mod pass;
pub mod query;
pub mod restore;
pub mod rows;
pub mod settings;
pub mod tally;
pub mod upkeep;
pub mod usage;
pub mod vocabulary;
pub mod windows;

use baton_core::Error;
use std::path::{Path, PathBuf};

/// The index open for writing: passes run one at a time across processes, each under the
/// index's writer lock (held for the pass only, so a query's `--sync` or another mirror can
/// take its turn between the passes of a `--follow`).
pub struct Mirror {
    connection: rusqlite::Connection,
    path: PathBuf,
    lock: std::fs::File,
    masker: baton_core::transcripts::secrets::Masker,
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror").field("path", &self.path).finish()
    }
}

impl Mirror {
    /// Opens (creating) the index at `path`.
    pub fn open(path: &Path) -> Result<Mirror, Error> {
        let connection = crate::index::open(path, true)?;
        // The writer's page cache: the usage rows' indexes are written all over.
        connection
            .execute_batch("PRAGMA cache_size = -16384;")
            .map_err(|e| Error::store_io("configure", &path.display().to_string(), e))?;
        tally::ensure(&connection)
            .map_err(|e| Error::store_io("tally the usage in", &path.display().to_string(), e))?;
        let lock = crate::index::lock_path(path);
        let shown = lock.display().to_string();
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock)
            .map_err(|e| Error::store_io("open", &shown, e))?;
        let masker = baton_core::transcripts::secrets::Masker::new(&[], &[])
            .map_err(|e| Error::internal(format!("a built-in secret rule: {e}")))?;
        Ok(Mirror {
            connection,
            path: path.to_path_buf(),
            lock,
            masker,
        })
    }

    /// The index's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The index, to read.
    pub fn connection(&self) -> &rusqlite::Connection {
        &self.connection
    }

    /// Runs `work` on the index under the writer lock.
    pub fn with_lock<T>(
        &mut self,
        work: impl FnOnce(&rusqlite::Connection) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let connection = &self.connection;
        locked(&self.lock, &self.path, || work(connection))?
    }

    /// One pass over `sources` under the writer lock (waiting for another pass to finish).
    pub fn pass(
        &mut self,
        sources: &[pass::Source],
        options: pass::PassOptions,
        progress: &mut dyn FnMut(&pass::PassStats),
    ) -> Result<pass::PassStats, Error> {
        let (connection, path, masker) = (&mut self.connection, &self.path, &self.masker);
        locked(&self.lock, path, || {
            pass::run(connection, path, sources, masker, options, progress)
        })
    }
}

/// Runs `work` holding the index's writer lock (`lock`, beside the index at `index`),
/// waiting for another holder to let go first.
///
/// While `work` runs, the lock file says so (`writing`, and the process): a writer that
/// dies in its work leaves the words behind, and the next reader to open the index checks it
/// ([`crate::index::check_after_unclean_end`]).
fn locked<T>(lock: &std::fs::File, index: &Path, work: impl FnOnce() -> T) -> Result<T, Error> {
    lock.lock().map_err(|e| {
        Error::store_io(
            "lock",
            &crate::index::lock_path(index).display().to_string(),
            e,
        )
    })?;
    // At the start of the file whatever this handle wrote before (a truncation does not move
    // its position).
    let _ = lock.set_len(0).and_then(|()| {
        std::os::unix::fs::FileExt::write_all_at(
            lock,
            format!("writing {}\n", std::process::id()).as_bytes(),
            0,
        )
    });
    let result = work();
    let _ = lock.set_len(0);
    let _ = lock.unlock();
    Ok(result)
}

/// Runs one full pass under the writer lock (waiting for another pass to finish).
pub fn mirror_once(index_path: &Path, sources: &[pass::Source]) -> Result<pass::PassStats, Error> {
    Mirror::open(index_path)?.pass(sources, pass::PassOptions::default(), &mut |_| {})
}

/// Claude Code deletes transcripts older than `cleanupPeriodDays` (30 unless its
/// `settings.json` says otherwise). For each Claude Code folder in use whose setting is unset
/// or 30 days or less: what to do about it, in words.
pub fn retention_advice() -> Vec<String> {
    let mut advice = Vec::new();
    for projects in crate::os::places::provider_dirs(baton_core::transcripts::Provider::ClaudeCode)
    {
        let Some(config) = projects.parent() else {
            continue;
        };
        if !projects.is_dir() {
            continue;
        }
        let settings = config.join("settings.json");
        let days = std::fs::read_to_string(&settings)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|v| v["cleanupPeriodDays"].as_f64());
        let (days, said) = match days {
            Some(days) => (days, format!("is {days}")),
            None => (30.0, "is not set (30 days)".to_owned()),
        };
        if days <= 30.0 {
            advice.push(format!(
                "Claude Code deletes its transcripts after cleanupPeriodDays, which {said} in {}: run `baton mirror` to keep them, or set \"cleanupPeriodDays\": 100000 there",
                settings.display()
            ));
        }
    }
    advice
}

/// Opens the index a query reads, after one mirror pass when `sync` asks for it (a pass reads
/// only what changed since the last).
pub fn open_for_query(
    path: &Path,
    sync: bool,
    ledger_dir: Option<&Path>,
) -> Result<rusqlite::Connection, Error> {
    if sync {
        let settings = settings::resolved(&settings::Flags::default(), ledger_dir)?;
        Mirror::open(path)?.pass(
            &settings.sources(),
            settings.pass_options(settings.backfill, true),
            &mut |_| {},
        )?;
    }
    crate::index::open_existing(path)
}
