//! The mirror: agents' transcripts kept in a SQLite index that outlives their sources and is
//! searched in milliseconds. `index` owns the file and its schema, `pass` brings it up to date
//! with the sources (reading only what was appended), `query` answers from it alone, `usage` rebuilds the usage report from it.

pub mod index;
pub mod pass;
pub mod query;
pub mod usage;

use baton_core::Error;
use std::path::{Path, PathBuf};

/// The index's writer lock: one mirror pass at a time, beside the index.
fn lock_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Runs one pass under the writer lock (waiting for another pass to finish).
pub fn mirror_once(index_path: &Path, sources: &[pass::Source]) -> Result<pass::PassStats, Error> {
    let mut connection = index::open(index_path, true)?;
    let lock = lock_path(index_path);
    let shown = lock.display().to_string();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .map_err(|e| Error::store_io("open", &shown, e))?;
    file.lock()
        .map_err(|e| Error::store_io("lock", &shown, e))?;
    let masker = baton_core::transcripts::secrets::Masker::new(&[], &[])
        .map_err(|e| Error::internal(format!("a built-in secret rule: {e}")))?;
    Ok(pass::run(&mut connection, index_path, sources, &masker))
}

/// Claude Code deletes transcripts older than `cleanupPeriodDays` (30 unless its
/// `settings.json` says otherwise). For each Claude Code folder in use whose setting is unset
/// or 30 days or less: what to do about it, in words.
pub fn retention_advice() -> Vec<String> {
    let mut advice = Vec::new();
    for projects in crate::usage::default_claude_dirs() {
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
