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
    let live = crate::ops::live::live(ledger, reader.now)?;
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
    for row in &live.rows {
        let session = &row.session;
        table.row(vec![
            Cell::painted(session.session_id.short(), Some(Paint::Dim)),
            session.agent.clone().into(),
            session.project.clone().into(),
            session.status.as_str().into(),
            Cell::painted(
                row.liveness.as_str(),
                crate::faces::present::liveness_paint(row.liveness),
            ),
            row.health
                .map_or_else(|| "—".to_owned(), |h| h.to_string())
                .into(),
            row.cost_usd
                .map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"))
                .into(),
            row.window_share
                .map_or_else(|| "—".to_owned(), |p| format!("{p:.0} %"))
                .into(),
            reader.ago(row.last_activity).into(),
            session.goal.clone().unwrap_or_default().into(),
        ]);
        rows.push(serde_json::json!({
            "session_id": session.session_id,
            "path": session.path,
            "agent": session.agent,
            "project": session.project,
            "status": session.status,
            "liveness": row.liveness,
            "health": row.health,
            "cost_usd": row.cost_usd,
            "window_share_percent": row.window_share,
            "last_activity_at": row.last_activity,
            "goal": session.goal,
        }));
    }
    let window = live.window;
    let watched = live.watched;
    let heading = format!(
        "baton watch · {} · {} live session{} · {}",
        ledger.dir().display(),
        live.rows.len(),
        if live.rows.len() == 1 { "" } else { "s" },
        reader.clock(reader.now)
    );
    let mut text = reader.style.paint(&heading, Paint::Bold);
    if live.rows.is_empty() {
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
            "total": live.rows.len(),
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
    let mut watching = crate::ops::live::Watching::default();
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
            watched: BTreeSet::new(),
        });
        if !draw(&frame) {
            return Ok(());
        }
        // A frame that could not be read keeps what was watched.
        if let Some(watcher) = watcher.as_mut()
            && !frame.watched.is_empty()
        {
            watching.update(watcher, &frame.watched);
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
                Ok(Ok(event)) if !crate::ops::live::changes_anything(&event) => continue,
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
