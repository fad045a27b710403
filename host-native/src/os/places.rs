//! Where things live that belong to the person rather than to a project: Baton's per-user data
//! folder (the transcript index, derived from private transcripts) and cache folder (the
//! status line's last lines), and the folders where the agents keep their transcripts. Nothing
//! Baton writes here is inside a project, so nothing can be committed by accident.

use baton_core::transcripts::Provider;
use baton_core::transcripts::providers::{Base, System};
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
    crate::os::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
}

/// The folders where `provider` keeps its files on this machine (its registry entry's
/// homes): those the variable it reads names (`CLAUDE_CONFIG_DIR`, comma-separated, each with
/// `projects/`; `CODEX_HOME` with `sessions/`), else its default places on this system; and a
/// file a variable names as the agent's own (`OPENCODE_DB`), when it is not in those already.
pub fn provider_dirs(provider: Provider) -> Vec<PathBuf> {
    let homes = provider.entry().homes;
    let mut places = home_dirs(provider);
    for moved in homes.moved.iter().filter(|moved| moved.file) {
        // SQLite's `:memory:` names no file.
        let Some(value) = crate::os::env::var_os(moved.variable)
            .filter(|v| !v.is_empty() && v.as_os_str() != ":memory:")
        else {
            continue;
        };
        let named = PathBuf::from(value);
        let files: Vec<PathBuf> = if named.is_absolute() {
            vec![named]
        } else {
            places.iter().map(|home| home.join(&named)).collect()
        };
        for file in files {
            // A file at a home's top is read with the home's others already.
            if !places
                .iter()
                .any(|home| file.parent() == Some(home.as_path()))
            {
                places.push(file);
            }
        }
    }
    places
}

/// The folders of [`provider_dirs`], without the files variables add.
fn home_dirs(provider: Provider) -> Vec<PathBuf> {
    let homes = provider.entry().homes;
    // The first variable set wins (Qwen Code's runtime folder before its home).
    let set = homes
        .moved
        .iter()
        .filter(|moved| !moved.file)
        .find_map(|moved| {
            let value = crate::os::env::var_os(moved.variable).filter(|v| !v.is_empty())?;
            Some((moved, value))
        });
    if let Some((moved, value)) = set {
        let folders: Vec<PathBuf> = if moved.list {
            value
                .to_string_lossy()
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .collect()
        } else {
            vec![PathBuf::from(value)]
        };
        return folders.into_iter().map(|d| d.join(moved.below)).collect();
    }
    homes
        .on(this_system())
        .iter()
        .flat_map(|place| match place.base {
            // One place in each editor's user folder.
            Base::Editors(editors) => editors
                .iter()
                .filter_map(|editor| Some(base(editor.base)?.join(editor.user).join(place.path)))
                .collect(),
            other => base(other)
                .map(|b| b.join(place.path))
                .into_iter()
                .collect::<Vec<_>>(),
        })
        .collect()
}

/// The system this runs on, as the registry names them.
fn this_system() -> System {
    if cfg!(target_os = "macos") {
        System::Macos
    } else if cfg!(windows) {
        System::Windows
    } else {
        System::Linux
    }
}

/// The folder a registry place is relative to.
fn base(base: Base) -> Option<PathBuf> {
    match base {
        // `HOME` where there is one (an unset `HOME` finds no folder); Windows has none.
        Base::Home if cfg!(windows) => Some(directories::BaseDirs::new()?.home_dir().into()),
        Base::Home => home(),
        Base::Data => Some(directories::BaseDirs::new()?.data_dir().into()),
        Base::Config => Some(directories::BaseDirs::new()?.config_dir().into()),
        Base::Repository => repository_root(),
        // Editors' folders are each a base of their own (`provider_dirs`).
        Base::Editors(_) => None,
    }
}

/// The root of the git repository the current folder is in (the folder holding `.git`, a
/// folder or a worktree's file), if any.
pub(crate) fn repository_root() -> Option<PathBuf> {
    let mut folder = std::env::current_dir().ok()?;
    loop {
        if folder.join(".git").exists() {
            return Some(folder);
        }
        if !folder.pop() {
            return None;
        }
    }
}

/// Whether only the top of `dir` is looked at for `provider`'s files: a database sits in its
/// agent's folder itself, beside folders of its own (git snapshots, logs) that are not
/// walked (unless the agent keeps one per session in folders, as `cursor-agent` does); Aider writes its history at a repository's root, so a repository is looked at
/// there only (never through its build and dependency folders), while a folder of
/// repositories is walked.
pub fn top_only(provider: Provider, dir: &Path) -> bool {
    let entry = provider.entry();
    (entry.kind == baton_core::transcripts::providers::Kind::Database && !entry.names.in_folders)
        || (entry.homes.linux.iter().any(|p| p.base == Base::Repository)
            && dir.join(".git").exists())
}
