//! The work-session model: statuses, the session view, and what a resume looks like.

use crate::event::TokenTotals;
use crate::ids::SessionId;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Where a session stands. The first five are live; `complete` and `failed` are ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Registered, not yet briefed.
    Starting,
    /// Briefed, or reporting changes.
    Working,
    /// The agent said it is stuck.
    Blocked,
    /// Implementation reported complete; waiting for a person.
    AwaitingReview,
    /// A person pulled the brake.
    Paused,
    /// Ended, the work done.
    Complete,
    /// Ended without finishing.
    Failed,
}

impl Status {
    /// Every status, live ones first.
    pub const ALL: [Status; 7] = [
        Status::Starting,
        Status::Working,
        Status::Blocked,
        Status::AwaitingReview,
        Status::Paused,
        Status::Complete,
        Status::Failed,
    ];

    /// Live statuses can still change; ended ones cannot.
    pub fn is_live(self) -> bool {
        !matches!(self, Status::Complete | Status::Failed)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Starting => "starting",
            Status::Working => "working",
            Status::Blocked => "blocked",
            Status::AwaitingReview => "awaiting_review",
            Status::Paused => "paused",
            Status::Complete => "complete",
            Status::Failed => "failed",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Status {
    type Err = crate::Error;

    fn from_str(text: &str) -> Result<Status, crate::Error> {
        let wanted = text.trim().to_ascii_lowercase().replace('-', "_");
        Status::ALL
            .into_iter()
            .find(|s| s.as_str() == wanted)
            .ok_or_else(|| {
                crate::Error::invalid(
                    "status",
                    format!(
                        "`{text}` is not a status; use one of starting, working, blocked, awaiting_review, paused, complete, failed"
                    ),
                )
                .with("value", text)
            })
    }
}

/// A marker left each time a session is resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResumeMarker {
    /// When it was resumed.
    pub at: Timestamp,
    /// The client that resumed it, when known.
    pub client_name: Option<String>,
}

/// A work session as the fold of its events presents it. Every field is always present in
/// JSON (`null` when unknown), so consumers can rely on the shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The only identity (UUIDv7).
    pub session_id: SessionId,
    /// A readable handle, `project/YYYY-MM-DD-HHMM-agent-id8`; presentation only, never identity.
    pub path: String,
    /// The project.
    pub project: String,
    /// The normalized agent.
    pub agent: String,
    /// The coding client that started it.
    pub client_name: Option<String>,
    /// What it set out to do (the latest correction wins).
    pub goal: Option<String>,
    /// Where it stands.
    pub status: Status,
    /// When it started (never changed by a resume).
    pub started_at: Timestamp,
    /// When it ended.
    pub ended_at: Option<Timestamp>,
    /// Whole seconds from `started_at` to `ended_at`.
    pub duration_seconds: Option<i64>,
    /// What was done.
    pub summary: Option<String>,
    /// The session it follows on from.
    pub parent_session_id: Option<SessionId>,
    /// External run id.
    pub run_id: Option<String>,
    /// External work item id.
    pub work_item_id: Option<String>,
    /// External attempt id.
    pub attempt_id: Option<String>,
    /// Every resume, oldest first.
    pub resumes: Vec<ResumeMarker>,
    /// Token usage: for each transcript the highest cumulative totals, summed.
    pub usage: TokenTotals,
    /// The time of its latest event.
    pub last_event_at: Timestamp,
    /// How many distinct events it has.
    pub event_count: u64,
}

impl Session {
    /// Whether the session is still live.
    pub fn is_live(&self) -> bool {
        self.status.is_live()
    }
}

/// The presentation path of a session: readable, stable, and unique through the id suffix.
pub fn presentation_path(
    project: &str,
    started_at: Timestamp,
    agent: &str,
    id: SessionId,
) -> String {
    format!(
        "{project}/{}-{agent}-{}",
        started_at.path_stamp(),
        id.short()
    )
}
