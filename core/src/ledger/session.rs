//! The work-session model: statuses, the session view, and what a resume looks like.

use crate::ids::SessionId;
use crate::ledger::event::TokenTotals;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How a session's reports arrived: from a client hook, from the model's own tool calls, or
/// both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReportsVia {
    /// Only from a hook.
    Hook,
    /// Only from the model.
    Model,
    /// From both.
    Both,
}

/// Where a session stands. The first five are live; `complete` and `failed` are ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// How far one transcript's usage is recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageSource {
    /// The transcript (a path or a provider session id).
    pub source: String,
    /// The byte offset its totals cover.
    pub offset: u64,
    /// Its totals up to `offset`.
    pub totals: crate::tokens::TokenTotals,
    /// Their cost, when priced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

/// A marker left each time a session is resumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResumeMarker {
    /// When it was resumed.
    pub at: Timestamp,
    /// The client that resumed it, when known.
    pub client_name: Option<String>,
}

/// A work session as the fold of its events presents it. Every field is always present in
/// JSON (`null` when unknown), so consumers can rely on the shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// The agent's own session id, when the start gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_session_id: Option<String>,
    /// Every resume, oldest first.
    pub resumes: Vec<ResumeMarker>,
    /// Token usage: for each transcript the highest cumulative totals, summed.
    pub usage: TokenTotals,
    /// What that usage cost, in micro-dollars, when its writers priced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_cost_micro_usd: Option<u64>,
    /// Each transcript's usage is recorded up to this byte offset (a hook reads on from it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage_sources: Vec<UsageSource>,
    /// The time of its latest event.
    pub last_event_at: Timestamp,
    /// How many distinct events it has.
    pub event_count: u64,
    /// The mission worked on.
    pub mission: Option<String>,
    /// The repository commit it started from.
    pub start_commit: Option<String>,
    /// The git branch it started on, when it started in a repository on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The git worktree it started in (the working copy's top folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// Self-reported progress, 0–100: shown, never used to decide anything.
    pub progress: Option<u8>,
    /// The pause a person set, until it is lifted.
    pub pause: Option<PauseInfo>,
    /// Budget rules a person waived for it by lifting their pause (`rule@period`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub budget_waivers: Vec<String>,
    /// The latest brief's stamp (cleared by an unpause).
    pub brief: Option<BriefStamp>,
    /// How its reports arrived, from what actually arrived.
    pub reports_via: Option<ReportsVia>,
    /// Files its work stands on.
    pub dependencies: Vec<String>,
    /// Files it changed, first report first.
    pub changed_files: Vec<String>,
    /// Open collisions where it is the affected side.
    pub open_collisions: Vec<Collision>,
    /// Its plan.
    pub plan: Vec<PlanStep>,
    /// Decisions it asked for.
    pub decisions: Vec<DecisionRequest>,
    /// AI runs recorded and refused.
    pub runs: RunCounts,
    /// What it can show for its work.
    pub evidence: Vec<String>,
    /// Where the work landed.
    pub pull_request: Option<String>,
    /// The latest context-health snapshot.
    pub health: Option<crate::ledger::activity::HealthReport>,
    /// Whether its agent is still running, as last recorded (absent until Baton has seen
    /// evidence either way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness: Option<crate::ledger::liveness::LivenessSeen>,
}

/// A pause a person set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PauseInfo {
    /// Why.
    pub reason: String,
    /// When.
    pub at: Timestamp,
    /// Who.
    pub by: String,
    /// Whether a brief has told the agent yet.
    pub delivered: bool,
    /// The budget rule and period that paused it (`day_usd@…`), when a budget did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
}

/// What a session was briefed on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BriefStamp {
    /// When.
    pub at: Timestamp,
    /// The mission's contract version.
    pub contract_version: Option<u32>,
    /// The constitution version.
    pub constitution_version: Option<u32>,
    /// The indexed commit.
    pub indexed_commit: Option<String>,
}

/// An open collision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Collision {
    /// The `collision_opened` event's id.
    pub id: crate::ids::EventId,
    /// Whose change caused it.
    pub by_session: SessionId,
    /// The file.
    pub file: String,
    /// high or normal.
    pub severity: crate::ledger::activity::Severity,
    /// When.
    pub at: Timestamp,
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlanStep {
    /// What.
    pub title: String,
    /// pending, in_progress, done, blocked.
    pub state: crate::ledger::activity::StepState,
}

/// A decision the session asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecisionRequest {
    /// The question.
    pub text: String,
    /// Settled?
    pub resolved: bool,
    /// The answer.
    pub resolution: Option<String>,
}

/// AI runs, counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RunCounts {
    /// Recorded runs.
    pub recorded: u64,
    /// Refused runs (they carried prompt or output text).
    pub refused: u64,
    /// Input tokens over recorded runs.
    pub input_tokens: u64,
    /// Output tokens over recorded runs.
    pub output_tokens: u64,
}

impl Session {
    /// Lifts the pause (the session must be briefed again). A person (not Baton) lifting a
    /// budget's pause waives that rule for the session until its period ends.
    pub(crate) fn lift_pause(&mut self, by_person: bool) {
        if let Some(mark) = self.pause.take().and_then(|p| p.budget)
            && by_person
            && !self.budget_waivers.contains(&mark)
        {
            self.budget_waivers.push(mark);
        }
        self.brief = None;
    }

    /// Whether the session is still live.
    pub fn is_live(&self) -> bool {
        self.status.is_live()
    }
}

/// The presentation path of a session: readable, stable, and unique through the id suffix.
pub(crate) fn presentation_path(
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
