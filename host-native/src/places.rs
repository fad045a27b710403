//! Where Baton keeps what belongs to the person rather than to a project: the per-user data
//! folder (the transcript index, derived from private transcripts) and cache folder (the
//! status line's last lines). Nothing here is inside a project, so nothing here can be
//! committed by accident.

use std::path::PathBuf;

/// Baton's folder in the user's data folder: `$XDG_DATA_HOME/baton` (else
/// `~/.local/share/baton`) on Linux, `~/Library/Application Support/baton` on macOS,
/// `%LOCALAPPDATA%\baton` on Windows. `None` when the user has no home folder to find.
pub fn data_dir() -> Option<PathBuf> {
    let base = directories::BaseDirs::new()?;
    Some(base.data_local_dir().join("baton"))
}

/// Baton's folder in the user's cache folder: `$XDG_CACHE_HOME/baton` (else `~/.cache/baton`)
/// on Linux, `~/Library/Caches/baton` on macOS, `%LOCALAPPDATA%\baton\cache` on Windows.
pub fn cache_dir() -> Option<PathBuf> {
    let base = directories::BaseDirs::new()?;
    let cache = base.cache_dir();
    // On Windows the cache and data folders are one: keep the cache apart inside it.
    if Some(cache) == Some(base.data_local_dir()) {
        Some(cache.join("baton").join("cache"))
    } else {
        Some(cache.join("baton"))
    }
}
