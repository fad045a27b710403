//! Liveness rules: from what a host saw (Claude Code's process registry, a recorded pid,
//! Codex's writer lock, Copilot CLI's in-use lock, the transcript's last write) to `live`,
//! `idle`, `gone` or `unknown`, with the sentence that says why. Evidence that the agent runs wins over evidence that it
//! does not; with neither, the answer is `unknown`, never a guess from silence alone.

use crate::ledger::liveness::{Evidence, Liveness};
use crate::ledger::session::Session;
use crate::time::{Timestamp, human_duration};

/// The topic of the attention item a session newly seen gone raises (cleared when it ends or
/// its agent comes back).
pub const AGENT_GONE: &str = "agent_gone";

/// How long a running agent may do nothing before it counts as idle, unless the host says.
pub const DEFAULT_IDLE_AFTER_SECONDS: u64 = 15 * 60;

/// A session's liveness, worked out now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The state.
    pub state: Liveness,
    /// Why, in a sentence.
    pub reason: String,
    /// The latest sign of activity: the session's own events, the transcript's last write, the
    /// registry's last update.
    pub last_activity_at: Timestamp,
}

/// What one piece of evidence says on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Says {
    Running,
    NotRunning,
    Nothing,
}

fn says(evidence: &Evidence) -> (Says, String) {
    match evidence {
        Evidence::Registry {
            file,
            pid,
            registered_start,
            running_start,
            ..
        } => match (running_start, registered_start) {
            (None, _) => (
                Says::NotRunning,
                format!(
                    "pid {pid} from Claude Code's registry ({file}) is not running (as this user)"
                ),
            ),
            // A pid alone is no proof: any process could hold it. Only the start time
            // binds the entry to the process that wrote it.
            (Some(_), None) => (
                Says::Nothing,
                format!(
                    "Claude Code's registry ({file}) names pid {pid} without its start time, which proves nothing"
                ),
            ),
            (Some(now), Some(then)) if now != then => (
                Says::NotRunning,
                format!(
                    "pid {pid} from Claude Code's registry ({file}) now belongs to another process (it started at another time)"
                ),
            ),
            _ => (
                Says::Running,
                format!("Claude Code's registry ({file}) names pid {pid}, which is running"),
            ),
        },
        Evidence::Process {
            pid,
            recorded_start,
            running_start,
        } => match (running_start, recorded_start) {
            (None, _) => (
                Says::NotRunning,
                format!("its agent's process (pid {pid}) is no longer running"),
            ),
            (Some(_), None) => (
                Says::Nothing,
                format!(
                    "its agent's pid {pid} was recorded without its start time, which proves nothing"
                ),
            ),
            (Some(now), Some(then)) if now != then => (
                Says::NotRunning,
                format!(
                    "its agent's pid {pid} now belongs to another process (it started at another time)"
                ),
            ),
            _ => (
                Says::Running,
                format!("its agent's process (pid {pid}) is running"),
            ),
        },
        Evidence::WriterLock { file, held: true } => (
            Says::Running,
            format!("Codex holds the thread's writer lock ({file})"),
        ),
        Evidence::WriterLock { file, held: false } => (
            Says::NotRunning,
            format!("no process holds the thread's writer lock ({file})"),
        ),
        Evidence::InUseLock {
            file,
            pid,
            running: true,
        } => (
            Says::Running,
            format!("Copilot CLI's in-use lock ({file}) names pid {pid}, which runs Copilot CLI"),
        ),
        Evidence::InUseLock {
            file,
            pid,
            running: false,
        } => (
            Says::NotRunning,
            format!(
                "Copilot CLI's in-use lock ({file}) names pid {pid}, which no longer runs it (a run that did not end cleanly left it)"
            ),
        ),
        Evidence::Transcript { .. } | Evidence::Other => (Says::Nothing, String::new()),
    }
}

/// The latest sign of activity: the session's own latest event, and any write or update the
/// evidence names.
pub fn last_activity(session: &Session, evidence: &[Evidence]) -> Timestamp {
    evidence
        .iter()
        .filter_map(|e| match e {
            Evidence::Transcript { modified_at, .. } => Some(*modified_at),
            Evidence::Registry { updated_at, .. } => *updated_at,
            _ => None,
        })
        .fold(session.last_event_at, Timestamp::max)
}

/// Classifies a live session from the evidence, at `now`, with the idle threshold.
pub fn classify(
    session: &Session,
    evidence: &[Evidence],
    now: Timestamp,
    idle_after_seconds: u64,
) -> Verdict {
    let last_activity_at = last_activity(session, evidence);
    let quiet = last_activity_at.whole_seconds_until(now);
    let quiet_words = human_duration(quiet);
    let readings: Vec<(Says, String)> = evidence.iter().map(says).collect();
    let first = |wanted: Says| {
        readings
            .iter()
            .find(|(s, _)| *s == wanted)
            .map(|(_, why)| why.clone())
    };
    let (state, reason) = if let Some(why) = first(Says::Running) {
        if u64::try_from(quiet).unwrap_or(0) >= idle_after_seconds {
            (
                Liveness::Idle,
                format!("{why}, but nothing happened for {quiet_words}"),
            )
        } else {
            (
                Liveness::Live,
                format!("{why}; last activity {}", ago(quiet)),
            )
        }
    } else if let Some(why) = first(Says::NotRunning) {
        (
            Liveness::Gone,
            format!("{why}; last activity {}", ago(quiet)),
        )
    } else if let Some((_, why)) = readings.iter().find(|(_, why)| !why.is_empty()) {
        (
            Liveness::Unknown,
            format!("{why}; last activity {}", ago(quiet)),
        )
    } else {
        (
            Liveness::Unknown,
            format!(
                "no process is tied to it (a hook or the MCP server records one); last activity {}",
                ago(quiet)
            ),
        )
    };
    Verdict {
        state,
        reason,
        last_activity_at,
    }
}

/// `just now` under a minute, else `2h 5m ago`.
fn ago(seconds: i64) -> String {
    if seconds < 60 {
        "just now".to_owned()
    } else {
        format!("{} ago", human_duration(seconds))
    }
}

/// Whether a verdict is worth a ledger event: the state changed from the one recorded (none
/// recorded counts as `unknown`), or the evidence ties another process to the session.
pub fn is_transition(session: &Session, verdict: &Verdict, evidence: &[Evidence]) -> bool {
    let recorded = session.liveness.as_ref();
    let recorded_state = recorded.map_or(Liveness::Unknown, |l| l.state);
    let recorded_process = recorded.and_then(|l| l.process);
    let named_process = crate::ledger::liveness::tied_process(evidence);
    recorded_state != verdict.state || named_process.is_some_and(|p| Some(p) != recorded_process)
}

/// Whether `reap` ends a session in `state`, quiet since `last_activity_at`: a gone agent's
/// session always, unless `older_than_seconds` asks for a longer silence; with that span, also
/// a session nothing ties to a process (the span is then the user's evidence).
pub fn reapable(
    state: Liveness,
    last_activity_at: Timestamp,
    now: Timestamp,
    older_than_seconds: Option<u64>,
) -> bool {
    let quiet = u64::try_from(last_activity_at.whole_seconds_until(now)).unwrap_or(0);
    match (state, older_than_seconds) {
        (Liveness::Gone, None) => true,
        (Liveness::Gone | Liveness::Unknown, Some(span)) => quiet >= span,
        _ => false,
    }
}

/// The summary a reaped session ends with.
pub fn reaped_summary(reason: &str) -> String {
    format!("Ended by `baton reap`: {}", reason.trim_end_matches('.'))
}
