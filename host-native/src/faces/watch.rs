//! `baton watch`: a live view of the running work sessions (status, whether their agent still
//! runs, context health, cost so far, share of the open five-hour window, last activity),
//! redrawn when one of the few files that
//! can change it changes: the ledger's log, the index, Claude Code's process registry and the
//! live sessions' transcripts. File notifications wake it; it redraws at most once a second,
//! and with nothing changing it sleeps (a look a minute keeps "5m ago" and a dead agent true).

use crate::faces::present::Reader;
use crate::faces::table::{Cell, Column, Fit, Paint, Table};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::ledger::liveness::Liveness;
use baton_core::ledger::store::LedgerView;
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The least time between two frames.
const MIN_FRAME_GAP: Duration = Duration::from_secs(1);

/// How long it sleeps with nothing changing before it looks again.
const IDLE_LOOK: Duration = Duration::from_secs(60);

/// One frame: the live sessions as a table, and the files whose change calls for the next.
#[derive(Debug)]
pub struct Frame {
    /// What to print.
    pub text: String,
    /// As JSON (`--json`).
    pub json: serde_json::Value,
    /// The files to watch for the next frame.
    pub watched: BTreeSet<PathBuf>,
}

/// Works out one frame.
pub(crate) fn frame(ledger: &Ledger, reader: &Reader) -> Result<Frame, Error> {
    let liveness = crate::ops::agents::check(ledger)?;
    let (live, all) = if ledger.dir().is_dir() {
        let snapshot = ledger.snapshot()?;
        (snapshot.live_sessions()?, snapshot.all_sessions()?)
    } else {
        (Vec::new(), Vec::new())
    };
    let ids: Vec<_> = live.iter().map(|s| s.session_id).collect();
    let index = crate::index::path_for(ledger.dir());
    let costs = crate::ops::work_cost::of_sessions(ledger, &index, &all, &ids)?;
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
    // Who is eating the open five-hour window: each live session's share of it.
    let root = ledger.dir().parent().map(|p| p.display().to_string());
    let window =
        crate::ops::mirror::windows::open_window(&index, Some((&all, root.as_deref())), reader.now)
            .unwrap_or_else(|err| {
                // Said once: a redraw during a mirror pass finds the index busy.
                static SAID: std::sync::atomic::AtomicBool =
                    std::sync::atomic::AtomicBool::new(false);
                if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                    crate::os::warnings::warn(&format!("the window's shares are left out: {err}"));
                }
                None
            });
    let share_of = |id: baton_core::SessionId| {
        window
            .as_ref()
            .and_then(|w| w.sessions.iter().find(|s| s.session_id == Some(id)))
            .map(|s| s.share_percent)
    };
    let mut table = Table::new(vec![
        Column::text("ID"),
        Column::text("AGENT").cut(Fit::End),
        Column::text("PROJECT").cut(Fit::End),
        Column::text("STATUS"),
        Column::text("PROCESS"),
        Column::number("HEALTH").droppable(2),
        Column::number("COST USD").droppable(1),
        Column::number("5H WINDOW").droppable(3),
        Column::text("LAST ACTIVITY").droppable(0),
        Column::text("GOAL").cut(Fit::End).comfortable(16),
    ]);
    let mut rows = Vec::new();
    for session in &live {
        let report = liveness
            .sessions
            .iter()
            .find(|r| r.session_id == session.session_id);
        let state = report.map_or(Liveness::Unknown, |r| r.state);
        let last = report.map_or(session.last_event_at, |r| r.last_activity_at);
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
        let cost = costs.of(session.session_id).and_then(|c| c.cost_usd);
        let health = session.health.as_ref().and_then(|h| h.overall);
        table.row(vec![
            Cell::painted(session.session_id.short(), Some(Paint::Dim)),
            session.agent.clone().into(),
            session.project.clone().into(),
            session.status.as_str().into(),
            Cell::painted(state.as_str(), crate::faces::present::liveness_paint(state)),
            health
                .map_or_else(|| "—".to_owned(), |h| h.to_string())
                .into(),
            cost.map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"))
                .into(),
            share_of(session.session_id)
                .map_or_else(|| "—".to_owned(), |p| format!("{p:.0} %"))
                .into(),
            reader.ago(last).into(),
            session.goal.clone().unwrap_or_default().into(),
        ]);
        rows.push(serde_json::json!({
            "session_id": session.session_id,
            "path": session.path,
            "agent": session.agent,
            "project": session.project,
            "status": session.status,
            "liveness": state,
            "health": health,
            "cost_usd": cost,
            "window_share_percent": share_of(session.session_id),
            "last_activity_at": last,
            "goal": session.goal,
        }));
    }
    let heading = format!(
        "baton watch · {} · {} live session{} · {}",
        ledger.dir().display(),
        live.len(),
        if live.len() == 1 { "" } else { "s" },
        reader.clock(reader.now)
    );
    let mut text = reader.style.paint(&heading, Paint::Bold);
    if live.is_empty() {
        text.push_str(
            "\nNo live work sessions. This view updates when one starts (Ctrl-C to stop).",
        );
    } else {
        text.push('\n');
        text.push_str(&table.render(&reader.style));
    }
    // What the agents last said of their plans' limits (Codex's newest rollouts, Claude
    // Code's status line).
    let limits = crate::ops::limits::agents_latest(&[], &[], reader.now);
    for said in &limits {
        text.push_str(&crate::faces::present::agent_line(said, reader.zone));
    }
    Ok(Frame {
        text,
        json: serde_json::json!({
            "sessions": rows,
            "total": live.len(),
            "agent_limits": limits,
            "window": window.as_ref().map(|w| serde_json::json!({
                "start": w.start,
                "end": w.end,
                "total_tokens": w.total_tokens,
                "cost_usd": w.cost_usd,
            })),
        }),
        watched,
    })
}

/// Redraws until the process is stopped: a frame, then sleep until a watched file changes
/// (or a minute passes), at most one frame a second. `draw` prints a frame and says whether
/// anyone still reads; the follow ends when no one does.
pub(crate) fn follow(
    ledger: &Ledger,
    make_reader: &dyn Fn() -> Result<Reader<'static>, Error>,
    draw: &mut dyn FnMut(&Frame) -> bool,
) -> Result<(), Error> {
    let (sender, events) = channel();
    let mut watcher = notify::recommended_watcher(sender).ok();
    let mut watching: BTreeSet<PathBuf> = BTreeSet::new();
    loop {
        let started = Instant::now();
        // A frame that cannot be made (a busy index, a ledger being rewritten) says why and
        // the watch goes on.
        let reader = make_reader()?;
        let frame = frame(ledger, &reader).unwrap_or_else(|err| Frame {
            text: format!(
                "{}\n{}",
                reader.style.paint("baton watch", Paint::Bold),
                reader.style.paint(
                    &format!("could not read the sessions just now: {err}"),
                    Paint::Amber
                )
            ),
            json: serde_json::Value::Null,
            watched: watching.clone(),
        });
        if !draw(&frame) {
            return Ok(());
        }
        if let Some(watcher) = watcher.as_mut() {
            for gone in watching.difference(&frame.watched) {
                let parent_of_wanted = frame.watched.iter().any(|p| p.parent() == Some(gone));
                if !parent_of_wanted {
                    let _ = watcher.unwatch(gone);
                }
            }
            // A path that does not exist yet (the ledger before its first start, Claude's
            // registry before its first session) is tried again at the next frame.
            let mut watched_now = BTreeSet::new();
            for path in &frame.watched {
                if watching.contains(path)
                    || (path.exists() && watcher.watch(path, RecursiveMode::NonRecursive).is_ok())
                {
                    watched_now.insert(path.clone());
                } else if let Some(parent) = path.parent()
                    && parent.exists()
                    && (watching.contains(parent)
                        || watcher.watch(parent, RecursiveMode::NonRecursive).is_ok())
                {
                    // Its parent tells when it appears.
                    watched_now.insert(parent.to_path_buf());
                }
            }
            watching = watched_now;
        }
        // Sleep until something changes; then gather what follows closely, and keep a second
        // between frames.
        let wait = if watcher.is_some() {
            IDLE_LOOK
        } else {
            Duration::from_secs(2)
        };
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match events.recv_timeout(left) {
                Ok(Ok(event)) if !changes_anything(&event) => continue,
                Ok(_) | Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    watcher = None;
                    break;
                }
            }
        }
        let gap = MIN_FRAME_GAP.saturating_sub(started.elapsed());
        std::thread::sleep(gap);
        while events.try_recv().is_ok() {}
    }
}

/// Whether a notification can change the view: a write, a new or removed file, a rename; not
/// a read, and not the by-products of looking (SQLite's shared-memory file, lock files, the
/// checkpoint a command brings up to date).
fn changes_anything(event: &notify::Event) -> bool {
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
