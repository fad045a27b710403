//! The live work sessions as every live view reads them (`baton watch`, the terminal UI):
//! each with whether its agent still runs, its health, its cost so far and its share of the
//! open five-hour window, and the files whose change can change the view; and which file
//! notifications are worth a look.

use crate::store::Ledger;
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::ledger::liveness::Liveness;
use baton_core::ledger::session::Session;
use baton_core::ledger::store::LedgerView;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// One live session.
#[derive(Debug, Clone)]
pub struct LiveRow {
    /// The session, as the ledger folds it.
    pub session: Session,
    /// Whether its agent still runs.
    pub liveness: Liveness,
    /// Its last sign of life.
    pub last_activity: Timestamp,
    /// Its context health (0–100), when measured.
    pub health: Option<u32>,
    /// What it cost so far, in dollars, when anything priced it.
    pub cost_usd: Option<f64>,
    /// Its share of the open five-hour window, in percent.
    pub window_share: Option<f64>,
}

/// The live sessions, and what to watch for the next look.
#[derive(Debug)]
pub struct Live {
    /// The live sessions, in the ledger's order.
    pub rows: Vec<LiveRow>,
    /// The open five-hour window, when the index has one.
    pub window: Option<baton_core::transcripts::usage::windows::UsageWindow>,
    /// The files whose change can change this view.
    pub watched: BTreeSet<PathBuf>,
}

/// The live sessions of `ledger` at `now`, priced (see [`sessions`] and [`price`]).
pub fn live(ledger: &Ledger, now: Timestamp) -> Result<Live, Error> {
    let mut live = sessions(ledger)?;
    price(ledger, &mut live, now)?;
    Ok(live)
}

/// The live sessions with whether their agents run, not yet priced: what the ledger and the
/// processes say, read at once (the prices read the index).
pub fn sessions(ledger: &Ledger) -> Result<Live, Error> {
    let liveness = crate::ops::agents::check(ledger)?;
    let live = if ledger.dir().is_dir() {
        ledger.snapshot()?.live_sessions()?
    } else {
        Vec::new()
    };
    let index = crate::index::path_for(ledger.dir());
    let mut watched: BTreeSet<PathBuf> = BTreeSet::new();
    watched.insert(ledger.dir().to_path_buf());
    if let Some(parent) = index.parent() {
        watched.insert(parent.to_path_buf());
    }
    for home in crate::os::places::provider_dirs(baton_core::transcripts::Provider::ClaudeCode) {
        if let Some(config) = home.parent() {
            watched.insert(config.join("sessions"));
        }
    }
    let mut rows = Vec::new();
    for session in live {
        let report = liveness
            .sessions
            .iter()
            .find(|r| r.session_id == session.session_id);
        for evidence in report.map(|r| r.evidence.as_slice()).unwrap_or_default() {
            if let baton_core::ledger::liveness::Evidence::Transcript { file, .. } = evidence {
                watched.insert(PathBuf::from(file));
            }
        }
        for source in &session.usage_sources {
            if source.source.starts_with('/') {
                watched.insert(PathBuf::from(&source.source));
            }
        }
        rows.push(LiveRow {
            liveness: report.map_or(Liveness::Unknown, |r| r.state),
            last_activity: report.map_or(session.last_event_at, |r| r.last_activity_at),
            health: session.health.as_ref().and_then(|h| h.overall),
            cost_usd: None,
            window_share: None,
            session,
        });
    }
    Ok(Live {
        rows,
        window: None,
        watched,
    })
}

/// What each of `live`'s sessions cost so far and its share of the five-hour window open at
/// `now`, from the index.
pub fn price(ledger: &Ledger, live: &mut Live, now: Timestamp) -> Result<(), Error> {
    let all = if ledger.dir().is_dir() {
        ledger.snapshot()?.all_sessions()?
    } else {
        Vec::new()
    };
    let ids: Vec<_> = live.rows.iter().map(|r| r.session.session_id).collect();
    let index = crate::index::path_for(ledger.dir());
    let costs = crate::ops::work_cost::of_sessions(ledger, &index, &all, &ids)?;
    let root = ledger.dir().parent().map(|p| p.display().to_string());
    live.window =
        crate::ops::mirror::windows::open_window(&index, Some((&all, root.as_deref())), now)
            .unwrap_or_else(|err| {
                // Said once: a look during a mirror pass finds the index busy.
                static SAID: std::sync::atomic::AtomicBool =
                    std::sync::atomic::AtomicBool::new(false);
                if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    crate::os::warnings::warn(&format!("the window's shares are left out: {err}"));
                }
                None
            });
    for row in &mut live.rows {
        let id = row.session.session_id;
        row.cost_usd = costs.of(id).and_then(|c| c.cost_usd);
        row.window_share = live
            .window
            .as_ref()
            .and_then(|w| w.sessions.iter().find(|s| s.session_id == Some(id)))
            .map(|s| s.share_percent);
    }
    Ok(())
}

/// Whether a notification can change a live view: a write, a new or removed file, a rename;
/// not a read, and not the by-products of looking (SQLite's shared-memory file, lock files,
/// the checkpoint a command brings up to date).
pub fn changes_anything(event: &notify::Event) -> bool {
    use notify::EventKind;
    if !matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    ) {
        return false;
    }
    if matches!(
        event.kind,
        EventKind::Modify(notify::event::ModifyKind::Metadata(_))
    ) {
        return false;
    }
    event.paths.iter().any(|path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        !(name.ends_with("-shm")
            || name.ends_with(".lock")
            || name.ends_with(".tmp")
            || name.starts_with("checkpoint")
            || name == "hook.log")
    })
}

/// The paths a notify watcher holds, brought to a new wanted set: what is no longer wanted is
/// let go; a path that does not exist yet is watched through its parent, and tried again at
/// the next update.
#[derive(Debug, Default)]
pub struct Watching {
    held: BTreeSet<PathBuf>,
}

impl Watching {
    /// Brings `watcher` to `wanted`.
    pub fn update(&mut self, watcher: &mut dyn notify::Watcher, wanted: &BTreeSet<PathBuf>) {
        use notify::RecursiveMode;
        for gone in self.held.difference(wanted) {
            let parent_of_wanted = wanted.iter().any(|p| p.parent() == Some(gone));
            if !parent_of_wanted {
                let _ = watcher.unwatch(gone);
            }
        }
        let mut now = BTreeSet::new();
        for path in wanted {
            if self.held.contains(path)
                || (path.exists() && watcher.watch(path, RecursiveMode::NonRecursive).is_ok())
            {
                now.insert(path.clone());
            } else if let Some(parent) = path.parent()
                && parent.exists()
                && (self.held.contains(parent)
                    || watcher.watch(parent, RecursiveMode::NonRecursive).is_ok())
            {
                now.insert(parent.to_path_buf());
            }
        }
        self.held = now;
    }
}
