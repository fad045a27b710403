//! Where things live that belong to the person rather than to a project: Baton's per-user data
//! folder (the transcript index, derived from private transcripts) and cache folder (the
//! status line's last lines), and the folders where the agents keep their transcripts. Nothing
//! Baton writes here is inside a project, so nothing can be committed by accident.

use std::path::{Path, PathBuf};

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

/// The home folder, when `HOME` names one (an empty `HOME` names none).
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// `CLAUDE_CONFIG_DIR` (comma-separated, each with `projects/`), else `~/.claude/projects`
/// and `~/.config/claude/projects`.
pub fn default_claude_dirs() -> Vec<PathBuf> {
    if let Ok(dirs) = std::env::var("CLAUDE_CONFIG_DIR") {
        return dirs
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| Path::new(d).join("projects"))
            .collect();
    }
    home()
        .map(|h| {
            vec![
                h.join(".claude/projects"),
                h.join(".config/claude/projects"),
            ]
        })
        .unwrap_or_default()
}

/// `$CODEX_HOME/sessions`, else `~/.codex/sessions`.
pub fn default_codex_dirs() -> Vec<PathBuf> {
    match std::env::var_os("CODEX_HOME") {
        Some(dir) => vec![PathBuf::from(dir).join("sessions")],
        None => home()
            .map(|h| vec![h.join(".codex/sessions")])
            .unwrap_or_default(),
    }
}
