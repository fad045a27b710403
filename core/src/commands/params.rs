//! The parameters of every command, as hosts send them (CLI flags, MCP arguments, wasm JSON):
//! raw strings the operations validate, unknown fields refused.

use crate::ledger::activity::{StepState, Via};
use serde::{Deserialize, Serialize};

/// Start a session, or resume one when `session_id` is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StartParams {
    /// The project (required for a new session; optional check on resume).
    #[serde(default)]
    pub project: Option<String>,
    /// The agent (required for a new session).
    #[serde(default)]
    pub agent: Option<String>,
    /// The coding client.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What the session is for.
    #[serde(default)]
    pub goal: Option<String>,
    /// Resume this session instead of starting a new one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session this one follows on from; it must exist and is left as it is.
    #[serde(default)]
    pub parent_session_id: Option<String>,
    /// External run id (only together with `work_item_id`).
    #[serde(default)]
    pub run_id: Option<String>,
    /// External work item id (only together with `run_id`).
    #[serde(default)]
    pub work_item_id: Option<String>,
    /// External attempt id.
    #[serde(default)]
    pub attempt_id: Option<String>,
    /// The mission (its contract must be approved).
    #[serde(default)]
    pub mission: Option<String>,
    /// The repository commit the work starts from (the CLI fills in `git rev-parse HEAD`).
    #[serde(default)]
    pub commit: Option<String>,
    /// Only register (status `starting`) without briefing; for a client's session-start hook.
    #[serde(default)]
    pub no_brief: bool,
}

/// Resume a live session by id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResumeParams {
    /// The session to resume.
    pub session_id: String,
    /// When given, must be the session's project.
    #[serde(default)]
    pub project: Option<String>,
    /// The client resuming it.
    #[serde(default)]
    pub client_name: Option<String>,
}

/// End a session: by id, or the only live one matching the filters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EndParams {
    /// The session to end; without it, implicit resolution applies.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Filter for implicit resolution.
    #[serde(default)]
    pub project: Option<String>,
    /// Filter for implicit resolution (normalized).
    #[serde(default)]
    pub agent: Option<String>,
    /// Filter for implicit resolution.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What was done.
    #[serde(default)]
    pub summary: Option<String>,
    /// `complete` (default) or `failed`.
    #[serde(default)]
    pub status: Option<String>,
}

/// List sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Only this agent (normalized).
    #[serde(default)]
    pub agent: Option<String>,
    /// Only this status (an ended status includes ended sessions).
    #[serde(default)]
    pub status: Option<String>,
    /// Include ended sessions (live ones only by default).
    #[serde(default, alias = "all")]
    pub include_ended: bool,
}

/// Show one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// The session.
    pub session_id: String,
}

/// Names one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SessionRef {
    /// The session.
    pub session_id: String,
}

/// An AI run to record: counts only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunReport {
    /// e.g. anthropic, openai.
    pub provider: String,
    /// e.g. claude-sonnet-4.
    pub model: String,
    /// What the run was for.
    pub purpose: String,
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Never send this: a run carrying prompt text is refused and recorded as refused.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Never send this: a run carrying output text is refused and recorded as refused.
    #[serde(default)]
    pub output: Option<String>,
}

/// What a session reports; any combination, at least one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    /// The reporting session.
    pub session_id: String,
    /// `hook` when a client hook reports, `model` (default) when the model calls itself.
    #[serde(default)]
    pub via: Option<Via>,
    /// Files changed (sets the session working; may open collisions with other sessions).
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// `blocked` or `implementation_complete`.
    #[serde(default)]
    pub status: Option<String>,
    /// Why it is blocked.
    #[serde(default)]
    pub reason: Option<String>,
    /// Self-reported progress 0–100 (advisory; never used to decide anything).
    #[serde(default)]
    pub progress: Option<u8>,
    /// A new plan: the steps' titles.
    #[serde(default)]
    pub plan: Vec<String>,
    /// A plan step's number (1-based), with `step_state`.
    #[serde(default)]
    pub step: Option<u32>,
    /// pending, in_progress, done or blocked.
    #[serde(default)]
    pub step_state: Option<StepState>,
    /// Ask a person to decide this.
    #[serde(default)]
    pub decision_request: Option<String>,
    /// The number of an earlier decision request that is now settled.
    #[serde(default)]
    pub decision_resolved: Option<u32>,
    /// An AI run (provider, model, purpose, token counts).
    #[serde(default)]
    pub run: Option<RunReport>,
    /// Evidence for the work (a test run, a benchmark, a link).
    #[serde(default)]
    pub evidence: Option<String>,
    /// The pull request's address.
    #[serde(default)]
    pub pull_request: Option<String>,
}

/// Declare the files a session's work depends on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DependParams {
    /// The session.
    pub session_id: String,
    /// Paths, relative to the repository.
    pub files: Vec<String>,
}

/// Pause a session (delivered the next time it asks for context).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PauseParams {
    /// The session.
    pub session_id: String,
    /// Why; the agent is told.
    pub reason: String,
}

/// Context health of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HealthParams {
    /// The session.
    pub session_id: String,
    /// Recompute now and record the snapshot.
    #[serde(default)]
    pub recheck: bool,
}

/// A mission's contract (a new version, draft until approved).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MissionParams {
    /// The reference, e.g. CLAIM-142.
    pub reference: String,
    /// The contract's clauses (for approval: leave empty).
    #[serde(default)]
    pub clauses: Vec<String>,
}

/// The constitution's text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ConstitutionParams {
    /// The whole text.
    pub text: String,
}

/// The commit to record as indexed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IndexParams {
    /// The commit (the CLI reads `git rev-parse HEAD`).
    pub commit: String,
}

/// Open an ambiguity, resolve one, or record a decision.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoteParams {
    /// The mission (ambiguities).
    #[serde(default)]
    pub reference: Option<String>,
    /// The text (ambiguity or decision).
    #[serde(default)]
    pub text: Option<String>,
    /// The ambiguity's number (resolve).
    #[serde(default)]
    pub number: Option<u32>,
}
