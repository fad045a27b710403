//! `baton mirror --follow`: passes as the sources change. Where the platform notifies
//! (inotify, FSEvents, …) the process sleeps until a file changes, gathers the changes that
//! arrive together into one batch, and reads only the files named; a notification it cannot
//! trust (a folder created or moved, an overflow) brings a full pass. Without notifications
//! it polls: a full pass every interval, each costing a `stat` per unchanged file. Nothing
//! runs between changes, so an idle follow uses no CPU.

use super::Mirror;
use super::pass::{PassStats, Source};
use super::settings::Settings;
use baton_core::Error;
use baton_core::transcripts::Provider;
use notify::{EventKind, RecursiveMode, Watcher};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long a batch waits for more changes after the last one.
const QUIET: Duration = Duration::from_millis(200);
/// The longest a batch gathers changes before it is read.
const LONGEST_BATCH: Duration = Duration::from_secs(1);
/// With notifications, a full pass this often all the same (a folder that appears later, a
/// change a notification missed).
const SWEEP: Duration = Duration::from_secs(300);

/// How the follow learns of changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watch {
    /// Notifications where the platform has them, polling where not.
    Notify,
    /// Polling only (network file systems, where notifications do not arrive).
    Poll,
}

/// What one batch did, for the caller to report.
#[derive(Debug)]
pub struct Batch<'a> {
    /// The pass's counts.
    pub stats: &'a PassStats,
    /// Whether it was a full pass (else only the files named by notifications).
    pub full: bool,
    /// How long it took.
    pub took: Duration,
}

/// What changed, from notifications.
enum Changes {
    /// These files.
    Files(BTreeSet<PathBuf>),
    /// Something a full pass must find out.
    Everything,
}

impl Changes {
    fn add(&mut self, event: notify::Result<notify::Event>) {
        let Changes::Files(files) = self else {
            return;
        };
        let Ok(event) = event else {
            *self = Changes::Everything;
            return;
        };
        if event.need_rescan() {
            *self = Changes::Everything;
            return;
        }
        match event.kind {
            EventKind::Access(_) => {}
            _ => {
                for path in event.paths {
                    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                    let sources = baton_core::transcripts::providers::REGISTRY.iter();
                    if sources
                        .flat_map(|entry| entry.extensions)
                        .any(|e| *e == extension)
                    {
                        files.insert(path);
                    } else if let Some(database) = database_of_log(&path, extension) {
                        // A write that reached a database's log: the database changed.
                        files.insert(database);
                    } else if extension.ends_with("-shm") {
                        // SQLite's shared memory: it changes on every read; never a source.
                    } else if !path.is_file() {
                        // A folder made, moved or removed: its files are not named one by one.
                        *self = Changes::Everything;
                        return;
                    }
                }
            }
        }
    }
}

/// The database whose log (`<db>-wal`, or a rollback journal `<db>-journal`; Cursor's
/// `.vscdb` likewise) `path` is.
fn database_of_log(path: &std::path::Path, extension: &str) -> Option<PathBuf> {
    let base = extension
        .strip_suffix("-wal")
        .or_else(|| extension.strip_suffix("-journal"))?;
    if !baton_core::transcripts::providers::is_database_extension(base) {
        return None;
    }
    let name = path.to_string_lossy();
    let database = name
        .strip_suffix("-wal")
        .or_else(|| name.strip_suffix("-journal"))?;
    Some(PathBuf::from(database))
}

/// The document a changed file is read with, when it is one of the files a document's
/// readers are given beside it (a Cline task's `api_conversation_history.json` names its
/// `ui_messages.json`).
fn document_of_companion(provider: Provider, path: &std::path::Path) -> Option<PathBuf> {
    let names = &provider.entry().names;
    let name = path.file_name()?.to_str()?;
    if provider.entry().kind != baton_core::transcripts::providers::Kind::Document
        || !names.companions.contains(&name)
    {
        return None;
    }
    let document = path.with_file_name(names.only_named?);
    document.is_file().then_some(document)
}

/// The sources the changed files are, by the folder each lies under (a file read with a
/// document stands for its document).
fn sources_of(files: &BTreeSet<PathBuf>, settings: &Settings) -> Vec<Source> {
    let mut sources: BTreeMap<PathBuf, Provider> = BTreeMap::new();
    for path in files {
        let Some(provider) = settings.provider_of(path) else {
            continue;
        };
        let path = document_of_companion(provider, path).unwrap_or_else(|| path.clone());
        // What a full pass would read, and a file gone since (its rows are marked).
        if path.exists() && !super::pass::wanted(provider, &path) {
            continue;
        }
        sources.insert(path, provider);
    }
    sources
        .into_iter()
        .map(|(path, provider)| Source {
            path,
            provider,
            seen: None,
        })
        .collect()
}

/// Waits for the next batch of notifications: the first (up to `wait`), then whatever
/// follows it closely. `None` when `wait` passed with none.
fn next_batch(events: &Receiver<notify::Result<notify::Event>>, wait: Duration) -> Option<Changes> {
    let first = match events.recv_timeout(wait) {
        Ok(event) => event,
        Err(RecvTimeoutError::Timeout) => return None,
        Err(RecvTimeoutError::Disconnected) => return Some(Changes::Everything),
    };
    let mut changes = Changes::Files(BTreeSet::new());
    changes.add(first);
    let started = Instant::now();
    while started.elapsed() < LONGEST_BATCH {
        match events.recv_timeout(QUIET) {
            Ok(event) => changes.add(event),
            Err(_) => break,
        }
    }
    Some(changes)
}

/// Follows the sources until the process is stopped, calling `on_batch` after every pass that
/// read something (and after the first pass, whatever it read). Returns only on an error.
pub fn follow(
    mirror: &mut Mirror,
    settings: &Settings,
    watch: Watch,
    on_batch: &mut dyn FnMut(&Batch<'_>),
) -> Result<(), Error> {
    let roots: Vec<&Path> = settings.roots().map(PathBuf::as_path).collect();
    let (sender, events) = channel();
    // The watcher lives as long as the follow; without one, the follow polls.
    let watcher = match watch {
        Watch::Poll => None,
        Watch::Notify => match notify::recommended_watcher(sender) {
            Ok(mut watcher) => {
                let mut watching = 0;
                for root in &roots {
                    if root.is_dir() && watcher.watch(root, RecursiveMode::Recursive).is_ok() {
                        watching += 1;
                    }
                }
                (watching > 0).then_some(watcher)
            }
            Err(err) => {
                crate::os::warnings::warn(&format!(
                    "mirror: no file notifications here ({err}); looking every {} s instead",
                    settings.poll.as_secs()
                ));
                None
            }
        },
    };
    let full_pass = |mirror: &mut Mirror,
                     first: bool,
                     on_batch: &mut dyn FnMut(&Batch<'_>)|
     -> Result<(), Error> {
        let started = Instant::now();
        let sources = settings.sources();
        let options = settings.pass_options(settings.backfill || !first, true);
        let stats = mirror.pass(&sources, options, &mut |_| {})?;
        if first || stats.changed() {
            on_batch(&Batch {
                stats: &stats,
                full: true,
                took: started.elapsed(),
            });
        }
        Ok(())
    };
    full_pass(mirror, true, on_batch)?;
    if watcher.is_none() {
        loop {
            std::thread::sleep(settings.poll);
            full_pass(mirror, false, on_batch)?;
        }
    }
    let mut last_sweep = Instant::now();
    loop {
        let wait = SWEEP.saturating_sub(last_sweep.elapsed());
        match next_batch(&events, wait) {
            None | Some(Changes::Everything) => {
                full_pass(mirror, false, on_batch)?;
                last_sweep = Instant::now();
            }
            Some(Changes::Files(files)) => {
                let started = Instant::now();
                let sources = sources_of(&files, settings);
                let options = settings.pass_options(true, false);
                let stats = mirror.pass(&sources, options, &mut |_| {})?;
                if stats.changed() {
                    on_batch(&Batch {
                        stats: &stats,
                        full: false,
                        took: started.elapsed(),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_with_a_document_stands_for_its_document() {
        let tmp = tempfile::tempdir().unwrap();
        let task = tmp.path().join("tasks/1");
        std::fs::create_dir_all(&task).unwrap();
        let history = task.join("api_conversation_history.json");
        std::fs::write(&history, "[]").unwrap();
        // No panel file yet: nothing to stand for.
        assert_eq!(document_of_companion(Provider::Cline, &history), None);
        std::fs::write(task.join("ui_messages.json"), "[]").unwrap();
        assert_eq!(
            document_of_companion(Provider::Cline, &history),
            Some(task.join("ui_messages.json"))
        );
        // Not a companion, or not an agent read by documents.
        let settings = task.join("settings.json");
        assert_eq!(document_of_companion(Provider::Cline, &settings), None);
        assert_eq!(document_of_companion(Provider::Gemini, &history), None);
    }
}
