//! The parameters of every command, as hosts send them (CLI flags, MCP arguments, wasm JSON):
//! raw strings the operations validate, unknown fields refused.

use crate::ledger::activity::{StepState, Via};
use serde::{Deserialize, Serialize};

/// Start a session, or resume one when `session_id` is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StartParams {
    /// The project; required to start.
    #[serde(default)]
    pub project: Option<String>,
    /// The agent; required to start.
    #[serde(default)]
    pub agent: Option<String>,
    /// The coding client.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What the work is for.
    #[serde(default)]
    pub goal: Option<String>,
    /// Resume this session instead.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session this one takes over from.
    #[serde(default)]
    pub parent_session_id: Option<String>,
    /// External run id.
    #[serde(default)]
    pub run_id: Option<String>,
    /// External work item id.
    #[serde(default)]
    pub work_item_id: Option<String>,
    /// External attempt id; a start with a live session's resumes it.
    #[serde(default)]
    pub attempt_id: Option<String>,
    /// The agent's own session id; a start with a live session's resumes it.
    #[serde(default)]
    pub provider_session_id: Option<String>,
    /// The mission (approved contract).
    #[serde(default)]
    pub mission: Option<String>,
    /// The commit the work starts from.
    #[serde(default)]
    pub commit: Option<String>,
    /// The git branch it starts on. A native host fills it and the worktree from the working
    /// folder; neither is in the MCP tool's schema (an agent starts where it works, and the
    /// tools' list stays small), though a caller may still give them.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub branch: Option<String>,
    /// The git worktree it works in (its top folder).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub worktree: Option<String>,
    /// Register only, without a brief.
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
    /// Without it, the filters pick the one live session.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Filter: project.
    #[serde(default)]
    pub project: Option<String>,
    /// Filter: agent.
    #[serde(default)]
    pub agent: Option<String>,
    /// Filter: client.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What was done.
    #[serde(default)]
    pub summary: Option<String>,
    /// complete (default) or failed.
    #[serde(default)]
    pub status: Option<String>,
    /// A note's path: its session_id decides.
    #[serde(default)]
    pub session_note: Option<String>,
}

/// List sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Only this agent.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only this status.
    #[serde(default)]
    pub status: Option<String>,
    /// Include ended sessions.
    #[serde(default, alias = "all")]
    pub include_ended: bool,
    /// Only sessions on this git branch. Left out of the MCP tool's schema (every agent pays
    /// for each byte of it; an agent asks about its own sessions), taken if sent.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub branch: Option<String>,
    /// Only sessions with activity at or after this: an RFC 3339 time, or a day
    /// (`YYYY-MM-DD`, from its start in UTC). Out of the MCP schema, as `branch`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub since: Option<String>,
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
    /// Never send: a run with text is refused.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Never send: a run with text is refused.
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
    /// hook, or model (default).
    #[serde(default)]
    pub via: Option<Via>,
    /// Files changed (may open collisions).
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// blocked or implementation_complete.
    #[serde(default)]
    pub status: Option<String>,
    /// Why it is blocked.
    #[serde(default)]
    pub reason: Option<String>,
    /// Self-reported progress, 0–100.
    #[serde(default)]
    pub progress: Option<u8>,
    /// A new plan: its steps' titles.
    #[serde(default)]
    pub plan: Vec<String>,
    /// A plan step's number, with step_state.
    #[serde(default)]
    pub step: Option<u32>,
    /// The step's new state.
    #[serde(default)]
    pub step_state: Option<StepState>,
    /// A question for a person.
    #[serde(default)]
    pub decision_request: Option<String>,
    /// A settled decision request's number.
    #[serde(default)]
    pub decision_resolved: Option<u32>,
    /// An AI run: counts only.
    #[serde(default)]
    pub run: Option<RunReport>,
    /// Evidence: a test run, a link.
    #[serde(default)]
    pub evidence: Option<String>,
    /// The pull request's URL.
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
    /// Recompute and record now.
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
    /// The commit hash.
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

/// Mark attention items done: a person saw them. Name items by number, or take them all, or
/// those raised at least `older_than_seconds` ago.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AttentionDoneParams {
    /// The items' numbers, as `attention` lists them.
    #[serde(default)]
    pub numbers: Vec<u32>,
    /// Every open item.
    #[serde(default)]
    pub all: bool,
    /// Only items raised at least this many seconds ago.
    #[serde(default)]
    pub older_than_seconds: Option<u64>,
    /// Why, kept with the acknowledgement.
    #[serde(default)]
    pub note: Option<String>,
}

/// What a host saw of live sessions' agents, for Baton to classify and record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ObserveParams {
    /// When the evidence was gathered.
    pub observed_at: crate::time::Timestamp,
    /// One entry per session to classify; sessions not named are left alone.
    pub observations: Vec<Observation>,
    /// How long a running agent may do nothing before it is idle (default 15 minutes).
    #[serde(default)]
    pub idle_after_seconds: Option<u64>,
}

/// The evidence about one session's agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Observation {
    /// The session.
    pub session_id: String,
    /// What was seen (possibly nothing).
    #[serde(default)]
    pub evidence: Vec<crate::ledger::liveness::Evidence>,
    /// When the evidence was gathered against what the ledger said: the time of the liveness
    /// it held then (`null`: none). If the ledger has recorded another since (a hook tied a
    /// new process meanwhile), this evidence is stale and nothing is recorded from it. Absent:
    /// no such check (a deliberate tie).
    #[serde(default)]
    pub as_of: Option<Option<crate::time::Timestamp>>,
}

/// Correct what a session says it is for or how it ended: a new goal, a new summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CorrectParams {
    /// The session.
    pub session_id: String,
    /// Its goal, in place of the one it has (or has not).
    #[serde(default)]
    pub goal: Option<String>,
    /// Its summary, in place of the one it has.
    #[serde(default)]
    pub summary: Option<String>,
}

/// Record a transcript's usage for a session: cumulative totals up to a byte offset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UsageParams {
    /// The session.
    pub session_id: String,
    /// The transcript (its path, or the provider's session id).
    pub source: String,
    /// The byte offset the totals cover.
    pub offset: u64,
    /// Every token of the transcript up to `offset`.
    pub totals: crate::tokens::TokenTotals,
    /// What they cost, in micro-dollars, when priced.
    #[serde(default)]
    pub cost_micro_usd: Option<u64>,
}
