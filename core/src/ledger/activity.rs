//! The lifecycle's event payloads: briefs, reports, dependencies, pauses, collisions, health
//! snapshots (session streams), and missions, constitution, index, ambiguities, decisions and
//! attention items (the workspace stream). On the wire each is `kind` + `data` like any event.

use crate::ids::{EventId, SessionId};
use serde::{Deserialize, Serialize};

/// How loudly an attention item asks for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AttentionLevel {
    /// For the record.
    Inform,
    /// Worth a look.
    Warn,
    /// Needs a decision.
    Act,
    /// A level a newer Baton wrote: the event stays readable, the log and archives keep its line
    /// as written (this build shows it as `other`).
    #[serde(other)]
    Other,
}

impl AttentionLevel {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            AttentionLevel::Inform => "inform",
            AttentionLevel::Warn => "warn",
            AttentionLevel::Act => "act",
            AttentionLevel::Other => "other",
        }
    }
}

impl std::fmt::Display for AttentionLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What made Baton score a session's context health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum HealthTrigger {
    /// The session was briefed.
    Brief,
    /// The session was resumed.
    Resume,
    /// A report changed files it or another session depends on.
    Change,
    /// Someone asked for a fresh score.
    Recheck,
    /// A person lifted the session's pause.
    Unpause,
    /// A trigger a newer Baton wrote: the event stays readable, the log and archives keep its
    /// line as written (this build shows it as `other`).
    #[serde(other)]
    Other,
}

impl HealthTrigger {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthTrigger::Brief => "brief",
            HealthTrigger::Resume => "resume",
            HealthTrigger::Change => "change",
            HealthTrigger::Recheck => "recheck",
            HealthTrigger::Unpause => "unpause",
            HealthTrigger::Other => "other",
        }
    }
}

/// Where a report came from: a client hook, or the model's own tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// A client hook (SessionStart, PostToolUse, …).
    Hook,
    /// The model called the tool itself.
    #[default]
    Model,
}

/// The state of one plan step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepState {
    /// Not started.
    Pending,
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
    /// Stuck.
    Blocked,
}

impl StepState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            StepState::Pending => "pending",
            StepState::InProgress => "in_progress",
            StepState::Done => "done",
            StepState::Blocked => "blocked",
        }
    }
}

/// Collision severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The change overlaps the affected session's own changes.
    Normal,
    /// The change breaks a dependency the affected session declared.
    High,
}

/// Every lifecycle and workspace event kind. `kind` on the wire is the snake_case name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Activity {
    /// The session was given its context; records the versions it saw.
    Briefed {
        /// The mission briefed on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mission: Option<String>,
        /// Its contract version at the brief.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        contract_version: Option<u32>,
        /// The constitution version at the brief.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        constitution_version: Option<u32>,
        /// The indexed commit at the brief.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        indexed_commit: Option<String>,
    },
    /// A brief found the session paused and told it so.
    PauseDelivered {
        /// The pause's reason.
        reason: String,
    },
    /// Files the session changed.
    ChangedFiles {
        /// Paths, relative to the repository.
        files: Vec<String>,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// The agent says it is stuck.
    Blocked {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// The agent says the implementation is complete.
    ImplementationComplete {
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// Self-reported progress (advisory only).
    Progress {
        /// 0–100.
        percent: u8,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// A plan of steps, all pending.
    PlanCreated {
        /// Step titles.
        steps: Vec<String>,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// A step changed state.
    Step {
        /// 1-based step number.
        number: u32,
        /// The new state.
        state: StepState,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// The agent asks a person to decide.
    DecisionRequested {
        /// The question.
        text: String,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// A requested decision was settled.
    DecisionResolved {
        /// 1-based number of the request in this session.
        number: u32,
        /// The answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resolution: Option<String>,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// A model invocation: counts only, never prompt or output.
    RunRecorded {
        /// e.g. anthropic.
        provider: String,
        /// e.g. claude-sonnet-4.
        model: String,
        /// What it was for.
        purpose: String,
        /// Input tokens.
        input_tokens: u64,
        /// Output tokens.
        output_tokens: u64,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// A run report refused because it carried prompt or output text.
    RunRefused {
        /// Provider as reported.
        provider: String,
        /// Model as reported.
        model: String,
        /// Why it was refused.
        reason: String,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// Something the session can show for its work.
    Evidence {
        /// What.
        text: String,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// Where the work landed.
    PullRequestReported {
        /// The pull request's address.
        url: String,
        /// Hook or model.
        #[serde(default)]
        via: Via,
    },
    /// Files the session's work stands on.
    DependenciesDeclared {
        /// Paths.
        files: Vec<String>,
    },
    /// A person pulled the brake.
    Paused {
        /// Why.
        reason: String,
        /// The budget rule and period that paused it (`day_usd@…`), when a budget did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<String>,
    },
    /// The pause was lifted; the session must re-brief.
    Unpaused {},
    /// Another session changed something this one stands on (this session is affected).
    CollisionOpened {
        /// The session whose change caused it.
        by_session: SessionId,
        /// The file.
        file: String,
        /// High for a broken dependency, normal for overlapping changes.
        severity: Severity,
    },
    /// A collision was closed.
    CollisionClosed {
        /// The `collision_opened` event's id.
        collision: EventId,
        /// Why.
        reason: String,
    },
    /// A context-health snapshot.
    HealthComputed {
        /// The report.
        report: HealthReport,
        /// What triggered it.
        trigger: HealthTrigger,
    },
    /// Workspace: a mission's contract, at a version (draft until approved).
    MissionContract {
        /// The reference, e.g. CLAIM-142.
        reference: String,
        /// 1, 2, …
        version: u32,
        /// The clauses.
        clauses: Vec<String>,
    },
    /// Workspace: a lead approved a contract version.
    MissionApproved {
        /// The reference.
        reference: String,
        /// The version approved.
        version: u32,
    },
    /// Workspace: the architecture constitution, at a version.
    ConstitutionSet {
        /// 1, 2, …
        version: u32,
        /// FNV-1a of the text, to tell versions apart.
        digest: String,
        /// How many lines it has.
        lines: u32,
    },
    /// Workspace: the repository commit that was indexed.
    RepositoryIndexed {
        /// The commit.
        commit: String,
    },
    /// Workspace: an open question about a mission's requirements.
    AmbiguityOpened {
        /// The mission.
        reference: String,
        /// The question.
        text: String,
    },
    /// Workspace: an ambiguity was resolved.
    AmbiguityResolved {
        /// Its number.
        number: u32,
    },
    /// Workspace: a decision every session should know.
    DecisionRecorded {
        /// The decision.
        text: String,
    },
    /// Workspace: something a person should look at.
    AttentionRaised {
        /// The session concerned.
        session: SessionId,
        /// How loudly to tell.
        level: AttentionLevel,
        /// 0–100.
        urgency: u8,
        /// What.
        text: String,
        /// What kind of item it is, when Baton may clear it itself (`agent_gone`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        topic: Option<String>,
    },
    /// Workspace: an attention item that no longer applies (its session ended, or its agent
    /// came back).
    AttentionCleared {
        /// The event that raised it.
        raised: EventId,
        /// Why it no longer applies.
        reason: String,
    },
    /// Baton saw a live session's agent change state (live, idle, gone, unknown), or tied a
    /// new process to it; the evidence is kept with it. Never counted as the session's own
    /// activity.
    Liveness {
        /// The state seen.
        state: crate::ledger::liveness::Liveness,
        /// Why, in a sentence.
        reason: String,
        /// What was seen.
        evidence: Vec<crate::ledger::liveness::Evidence>,
    },
    /// The session's note kept changing under Baton (a person or a sync tool writing it), so
    /// Baton wrote its update beside it instead of over it. Never counted as the session's
    /// own activity.
    NoteConflict {
        /// The note, inside the vault.
        path: String,
        /// The copy Baton wrote beside it, inside the vault.
        copy: String,
    },
}

impl Activity {
    /// The wire kind.
    pub fn kind(&self) -> &'static str {
        match self {
            Activity::Briefed { .. } => "briefed",
            Activity::PauseDelivered { .. } => "pause_delivered",
            Activity::ChangedFiles { .. } => "changed_files",
            Activity::Blocked { .. } => "blocked",
            Activity::ImplementationComplete { .. } => "implementation_complete",
            Activity::Progress { .. } => "progress",
            Activity::PlanCreated { .. } => "plan_created",
            Activity::Step { .. } => "step",
            Activity::DecisionRequested { .. } => "decision_requested",
            Activity::DecisionResolved { .. } => "decision_resolved",
            Activity::RunRecorded { .. } => "run_recorded",
            Activity::RunRefused { .. } => "run_refused",
            Activity::Evidence { .. } => "evidence",
            Activity::PullRequestReported { .. } => "pull_request_reported",
            Activity::DependenciesDeclared { .. } => "dependencies_declared",
            Activity::Paused { .. } => "paused",
            Activity::Unpaused {} => "unpaused",
            Activity::CollisionOpened { .. } => "collision_opened",
            Activity::CollisionClosed { .. } => "collision_closed",
            Activity::HealthComputed { .. } => "health_computed",
            Activity::MissionContract { .. } => "mission_contract",
            Activity::MissionApproved { .. } => "mission_approved",
            Activity::ConstitutionSet { .. } => "constitution_set",
            Activity::RepositoryIndexed { .. } => "repository_indexed",
            Activity::AmbiguityOpened { .. } => "ambiguity_opened",
            Activity::AmbiguityResolved { .. } => "ambiguity_resolved",
            Activity::DecisionRecorded { .. } => "decision_recorded",
            Activity::AttentionRaised { .. } => "attention_raised",
            Activity::AttentionCleared { .. } => "attention_cleared",
            Activity::Liveness { .. } => "liveness",
            Activity::NoteConflict { .. } => "note_conflict",
        }
    }

    /// Whether a report arrived by hook or model, when it is a report.
    pub fn via(&self) -> Option<Via> {
        match self {
            Activity::ChangedFiles { via, .. }
            | Activity::Blocked { via, .. }
            | Activity::ImplementationComplete { via }
            | Activity::Progress { via, .. }
            | Activity::PlanCreated { via, .. }
            | Activity::Step { via, .. }
            | Activity::DecisionRequested { via, .. }
            | Activity::DecisionResolved { via, .. }
            | Activity::RunRecorded { via, .. }
            | Activity::RunRefused { via, .. }
            | Activity::Evidence { via, .. }
            | Activity::PullRequestReported { via, .. } => Some(*via),
            _ => None,
        }
    }

    /// Decodes `kind` + raw `data`; `None` when the kind is not an activity kind.
    pub fn decode(kind: &str, data: &str) -> Option<Result<Activity, String>> {
        if !ACTIVITY_KINDS.contains(&kind) {
            return None;
        }
        let wrapped = format!(
            "{{\"kind\":{},\"data\":{data}}}",
            serde_json::Value::from(kind)
        );
        Some(serde_json::from_str(&wrapped).map_err(|e| format!("bad data: {e}")))
    }

    /// The `data` object of this activity, as JSON text.
    pub fn data_json(&self) -> Result<String, serde_json::Error> {
        let value = serde_json::to_value(self)?;
        Ok(value
            .get("data")
            .map_or_else(|| "{}".to_owned(), ToString::to_string))
    }
}

/// Every activity kind's wire name.
pub const ACTIVITY_KINDS: &[&str] = &[
    "briefed",
    "pause_delivered",
    "changed_files",
    "blocked",
    "implementation_complete",
    "progress",
    "plan_created",
    "step",
    "decision_requested",
    "decision_resolved",
    "run_recorded",
    "run_refused",
    "evidence",
    "pull_request_reported",
    "dependencies_declared",
    "paused",
    "unpaused",
    "collision_opened",
    "collision_closed",
    "health_computed",
    "mission_contract",
    "mission_approved",
    "constitution_set",
    "repository_indexed",
    "ambiguity_opened",
    "ambiguity_resolved",
    "decision_recorded",
    "attention_raised",
    "attention_cleared",
    "liveness",
    "note_conflict",
];

/// The verdict on the overall score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// 85 or above, or nothing computable.
    Healthy,
    /// Below 85.
    Degraded,
    /// Below 60.
    Stale,
}

/// One dimension's score (0–100) or blank, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Dimension {
    /// The dimension's name.
    pub name: String,
    /// The score, or `null` when it cannot be computed.
    pub score: Option<u32>,
    /// What it was compared against, or why it is blank.
    pub reason: String,
}

/// A session's context health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HealthReport {
    /// The lowest computable score, or `null` when none is computable.
    pub overall: Option<u32>,
    /// healthy, degraded or stale.
    pub verdict: Verdict,
    /// The six dimensions, in the spec's order.
    pub dimensions: Vec<Dimension>,
    /// Whether the session should be briefed again.
    pub recommend_rebrief: bool,
    /// Why a re-brief is recommended.
    pub rebrief_reasons: Vec<String>,
}
