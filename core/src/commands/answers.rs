//! The answers commands give: one [`Response`] whose variants serialize as bare objects.

use crate::ids::SessionId;
use crate::ledger::activity::HealthReport;
use crate::ledger::session::Session;
use crate::lifecycle::timeline::TimelineEntry;
use crate::lifecycle::workspace::{Ambiguity, AttentionItem, Decision};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a start, resume or end did to its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SessionActionKind {
    /// A new session.
    Started,
    /// A session picked up again.
    Resumed,
    /// A session closed.
    Ended,
}

impl SessionActionKind {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionActionKind::Started => "started",
            SessionActionKind::Resumed => "resumed",
            SessionActionKind::Ended => "ended",
        }
    }
}

/// What a lifecycle command did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LifecycleAction {
    /// The session was given its context (or its pause).
    Briefed,
    /// A report was recorded.
    Reported,
    /// The files the session depends on were recorded.
    DependenciesDeclared,
    /// A person paused the session.
    Paused,
    /// A person lifted the pause.
    Unpaused,
    /// A transcript's usage was recorded (or was already, up to that offset).
    UsageRecorded,
    /// The session's goal or summary was corrected.
    Corrected,
}

impl LifecycleAction {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            LifecycleAction::Briefed => "briefed",
            LifecycleAction::Reported => "reported",
            LifecycleAction::DependenciesDeclared => "dependencies_declared",
            LifecycleAction::Paused => "paused",
            LifecycleAction::Unpaused => "unpaused",
            LifecycleAction::UsageRecorded => "usage_recorded",
            LifecycleAction::Corrected => "corrected",
        }
    }
}

/// What a brief tells the agent to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NextAction {
    /// Work on.
    Work,
    /// Stop: a person paused the session.
    Blocked,
}

/// A session together with what a command did to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionAction {
    /// What the command did to the session.
    pub action: SessionActionKind,
    /// When the resume marker was recorded (resumes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<Timestamp>,
    /// The session after the command.
    #[serde(flatten)]
    pub session: Session,
    /// What the session was briefed with (starts that brief).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub briefing: Option<BriefContext>,
    /// A sentence for the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What became of the session's note (a host with a vault fills it in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<crate::notes::NoteReport>,
}

/// The answer to a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionList {
    /// The matching sessions, oldest first.
    pub sessions: Vec<Session>,
    /// How many matched.
    pub total: usize,
}

/// The answer to a show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionShow {
    /// The session with every field of the model.
    pub session: Session,
}

/// Every response. Serializes as the bare object of its variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
#[non_exhaustive]
// One response is built per command and serialized at once: boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Response {
    /// start, resume, end.
    Action(SessionAction),
    /// list.
    List(SessionList),
    /// show.
    Show(SessionShow),
    /// brief, report, depend, pause, unpause.
    Lifecycle(LifecycleAnswer),
    /// health.
    Health(HealthAnswer),
    /// timeline.
    Timeline(TimelineAnswer),
    /// attention.
    Attention(AttentionAnswer),
    /// workspace changes.
    Workspace(WorkspaceAnswer),
    /// observe: each session's liveness.
    Liveness(LivenessAnswer),
}

/// What a brief tells the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BriefContext {
    /// Work on, or stop: a person paused the session.
    pub next_action: NextAction,
    /// The pause and its reason, when paused.
    pub pause: Option<Value>,
    /// The mission and its contract.
    pub mission: Option<Value>,
    /// The constitution's version.
    pub constitution_version: Option<u32>,
    /// The indexed commit.
    pub indexed_commit: Option<String>,
    /// Open ambiguities on the mission.
    pub open_ambiguities: Vec<Ambiguity>,
    /// Active decisions.
    pub active_decisions: Vec<Decision>,
    /// Each declared dependency and whether another session broke it.
    pub dependencies: Vec<Value>,
    /// Health after the brief.
    pub health: Option<HealthReport>,
}

/// The answer of brief, report, depend, pause and unpause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LifecycleAnswer {
    /// What happened.
    pub action: LifecycleAction,
    /// The session.
    pub session_id: SessionId,
    /// Its status afterwards.
    pub status: crate::Status,
    /// Self-reported progress.
    pub progress: Option<u8>,
    /// The brief, for briefs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brief: Option<BriefContext>,
    /// Collisions this call opened (reports).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collisions_opened: Vec<Value>,
    /// A sentence for the caller.
    pub message: String,
}

/// The answer of `health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HealthAnswer {
    /// The session.
    pub session_id: SessionId,
    /// The report's fields, flattened.
    #[serde(flatten)]
    pub report: HealthReport,
}

/// The answer of `timeline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineAnswer {
    /// The session.
    pub session_id: SessionId,
    /// Its entries, oldest first.
    pub events: Vec<TimelineEntry>,
}

/// The answer of `attention`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AttentionAnswer {
    /// Open items, most urgent first.
    pub items: Vec<AttentionItem>,
    /// How many.
    pub total: usize,
    /// How many items this command marked done (`attention done` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub done: Option<usize>,
}

/// The answer of a workspace change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkspaceAnswer {
    /// What happened.
    pub action: String,
    /// The details.
    #[serde(flatten)]
    pub details: serde_json::Map<String, Value>,
}

pub(crate) fn answer(
    action: LifecycleAction,
    session: &Session,
    message: String,
) -> LifecycleAnswer {
    LifecycleAnswer {
        action,
        session_id: session.session_id,
        status: session.status,
        progress: session.progress,
        brief: None,
        collisions_opened: Vec::new(),
        message,
    }
}

/// The answer of `observe`: each observed live session's liveness, worked out now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LivenessAnswer {
    /// One per observed live session, in the order observed.
    pub sessions: Vec<LivenessReport>,
    /// How many changes this observation recorded in the ledger.
    pub recorded: usize,
}

/// One session's liveness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LivenessReport {
    /// The session.
    pub session_id: SessionId,
    /// Its readable handle.
    pub path: String,
    /// Its status.
    pub status: crate::Status,
    /// What the evidence says.
    pub state: crate::ledger::liveness::Liveness,
    /// Why, in a sentence.
    pub reason: String,
    /// The latest sign of activity.
    pub last_activity_at: crate::time::Timestamp,
    /// Since when the ledger has it in this state (now, when this observation recorded it;
    /// none for `unknown` never recorded).
    pub since: Option<crate::time::Timestamp>,
    /// Whether this observation recorded a change.
    pub recorded: bool,
    /// The evidence.
    pub evidence: Vec<crate::ledger::liveness::Evidence>,
}
