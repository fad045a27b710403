//! The arguments of the session commands: start, resume, end, list and show; reports,
//! pauses, health and corrections; attention and reaping; the workspace's missions,
//! constitution, ambiguities, decisions and notes.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct IdArg {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Who reports: a client hook or the model's own call
    #[arg(long, value_enum, default_value_t = ViaArg::Model)]
    pub(crate) via: ViaArg,
    /// Files changed
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub(crate) changed: Vec<String>,
    /// blocked or implementation-complete
    #[arg(long, value_enum)]
    pub(crate) status: Option<ReportStatusArg>,
    /// Why it is blocked
    #[arg(long)]
    pub(crate) reason: Option<String>,
    /// Self-reported progress, 0–100 (shown, never used to decide)
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub(crate) progress: Option<u8>,
    /// An AI run: PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS
    #[arg(long, value_name = "SPEC")]
    pub(crate) run: Option<String>,
    /// Evidence for the work
    #[arg(long)]
    pub(crate) evidence: Option<String>,
    /// The pull request's address
    #[arg(long = "pr", value_name = "URL")]
    pub(crate) pull_request: Option<String>,
    /// A new plan: the steps' titles
    #[arg(long, num_args = 1.., value_name = "STEP")]
    pub(crate) plan: Vec<String>,
    /// A plan step's number (with --step-state)
    #[arg(long, requires = "step_state")]
    pub(crate) step: Option<u32>,
    /// pending, in-progress, done or blocked
    #[arg(long, requires = "step", value_enum)]
    pub(crate) step_state: Option<StepStateArg>,
    /// Ask a person to decide this
    #[arg(long, value_name = "QUESTION")]
    pub(crate) ask_decision: Option<String>,
    /// Mark an earlier decision request (by number) settled
    #[arg(long, value_name = "N")]
    pub(crate) decision_resolved: Option<u32>,
}

#[derive(Debug, Args)]
pub(crate) struct DependArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Files the work depends on
    #[arg(long = "on", num_args = 1.., required = true, value_name = "FILE")]
    pub(crate) files: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct PauseArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Why (the agent is told)
    #[arg(long, required = true)]
    pub(crate) reason: String,
}

#[derive(Debug, Args)]
pub(crate) struct HealthArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Recompute now and record the snapshot
    #[arg(long)]
    pub(crate) recheck: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum MissionCommand {
    /// Add a mission, or a new version of its contract (a draft until approved)
    Add {
        /// The reference, e.g. CLAIM-142
        reference: String,
        /// The contract: one clause per non-empty line (Markdown list markers are dropped)
        #[arg(long, value_name = "FILE")]
        contract: PathBuf,
    },
    /// Approve the newest contract version (needs a lead: owner or admin)
    Approve {
        /// The reference
        reference: String,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConstitutionCommand {
    /// Set a new version of the architecture constitution from a file
    Set {
        /// The constitution's text
        file: PathBuf,
    },
}

/// The budgets.
#[derive(Debug, Subcommand)]
pub(crate) enum BudgetCommand {
    /// Every rule measured now: spent, limit, share, period
    Status,
    /// Exit 1 with BUDGET_EXCEEDED when a rule is at its limit (or, with --fail-at warn, past
    /// its warning share); for scripts and CI
    Check {
        /// The level that fails
        #[arg(long, value_enum, default_value_t = FailAt::Over)]
        fail_at: FailAt,
    },
}

/// What `budget check` fails at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FailAt {
    /// A rule past its warning share
    Warn,
    /// A rule at its limit
    Over,
}

/// Looking after the transcript index.
#[derive(Debug, Subcommand)]
pub(crate) enum NotesCommand {
    /// Render every session's note from the ledger again (a deleted vault loses nothing Baton
    /// owns; a person's words in the notes are kept)
    Rebuild,
    /// Report session notes Baton cannot read (never written until mended), notes of unknown
    /// sessions, conflict copies, and sessions without a note
    Check,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AmbiguityCommand {
    /// Open an ambiguity on a mission's requirements
    Open {
        /// The mission
        reference: String,
        /// The question
        text: String,
    },
    /// Resolve an ambiguity by number
    Resolve {
        /// Its number
        number: u32,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum DecisionCommand {
    /// Record a decision
    Record {
        /// The decision
        text: String,
    },
}

/// `baton correct`.
#[derive(Debug, Args)]
pub(crate) struct CorrectArgs {
    /// The session: its id, 8+ hex digits of either end, or its path
    pub(crate) id: String,
    /// Its new goal
    #[arg(long, required_unless_present = "summary")]
    pub(crate) goal: Option<String>,
    /// Its new summary
    #[arg(long)]
    pub(crate) summary: Option<String>,
}

/// `baton attention [done …]`.
#[derive(Debug, Args)]
pub(crate) struct AttentionArgs {
    #[command(subcommand)]
    pub(crate) done: Option<AttentionCommand>,
}

/// What `baton attention` does besides listing.
#[derive(Debug, Subcommand)]
pub(crate) enum AttentionCommand {
    /// Mark attention items done (you saw them): by number, every one, or the old ones
    #[command(after_help = "Examples:
  baton attention done 3 5
  baton attention done --all
  baton attention done --older-than 2d --note \"stale after the weekend\"")]
    Done(AttentionDoneArgs),
}

/// `baton attention done`.
#[derive(Debug, Args)]
pub(crate) struct AttentionDoneArgs {
    /// The items' numbers, as `baton attention` lists them
    #[arg(value_name = "N", required_unless_present_any = ["all", "older_than"])]
    pub(crate) numbers: Vec<u32>,
    /// Every open item
    #[arg(long, conflicts_with = "numbers")]
    pub(crate) all: bool,
    /// Only items raised at least this long ago (`90m`, `2h`, `7d`)
    #[arg(long, value_name = "SPAN", value_parser = span_seconds)]
    pub(crate) older_than: Option<u64>,
    /// Why, kept with the acknowledgement
    #[arg(long, value_name = "TEXT")]
    pub(crate) note: Option<String>,
}

/// A span on the command line (`90s`, `20m`, `2h`, `7d`), in seconds.
fn span_seconds(text: &str) -> Result<u64, String> {
    baton_core::time::parse_duration_seconds("span", text)
        .map_err(|e| e.message.trim_start_matches("span: ").to_owned())
}

/// `baton reap`.
#[derive(Debug, Args)]
pub(crate) struct ReapArgs {
    /// Only sessions silent for at least this long (90m, 12h, 7d); then also the ones no
    /// process is tied to
    #[arg(long, value_name = "SPAN", value_parser = span_seconds)]
    pub(crate) older_than: Option<u64>,
    /// Say what would be ended, end nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StartArgs {
    /// The project the work belongs to
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// The agent doing the work (normalized: trimmed, lower-case)
    #[arg(long, env = "BATON_AGENT")]
    pub(crate) agent: Option<String>,
    /// The coding client, e.g. claude-code, codex, cursor
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
    /// What the session sets out to do
    #[arg(long)]
    pub(crate) goal: Option<String>,
    /// The session this one follows on from (it must exist; it is not closed)
    #[arg(long = "parent", value_name = "ID")]
    pub(crate) parent: Option<String>,
    /// External run id (requires --work-item-id)
    #[arg(long, requires = "work_item_id")]
    pub(crate) run_id: Option<String>,
    /// External work item id (requires --run-id)
    #[arg(long, requires = "run_id")]
    pub(crate) work_item_id: Option<String>,
    /// External attempt id (a start with a live session's id resumes it)
    #[arg(long)]
    pub(crate) attempt_id: Option<String>,
    /// The agent's own session id: Claude Code's session_id, Codex's thread id (links the
    /// session to its transcripts; a start with a live session's id resumes it)
    #[arg(long, value_name = "ID")]
    pub(crate) provider_session_id: Option<String>,
    /// Resume this session instead of starting one
    #[arg(long, value_name = "ID")]
    pub(crate) session_id: Option<String>,
    /// The mission (its contract must be approved)
    #[arg(long, value_name = "REF")]
    pub(crate) mission: Option<String>,
    /// The commit the work starts from [default: `git rev-parse HEAD` here, if a repository]
    #[arg(long)]
    pub(crate) commit: Option<String>,
    /// The git branch the work starts on [default: this folder's, if a repository on one]
    #[arg(long, value_name = "NAME")]
    pub(crate) branch: Option<String>,
    /// Only register (status `starting`); brief later with `baton brief`
    #[arg(long)]
    pub(crate) no_brief: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The session to resume (its id, its last 8+ hex digits, or its path)
    pub(crate) id: String,
    /// Refuse unless the session belongs to this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// The client resuming it
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct EndArgs {
    /// The session to end: its id, its last 8+ hex digits or its path (omit to resolve the only matching live session)
    pub(crate) id: Option<String>,
    /// Only consider sessions of this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Only consider sessions of this agent
    #[arg(long, env = "BATON_AGENT")]
    pub(crate) agent: Option<String>,
    /// Only consider sessions of this client
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
    /// What was done
    #[arg(long)]
    pub(crate) summary: Option<String>,
    /// How it ended
    #[arg(long, value_enum, default_value_t = OutcomeArg::Complete)]
    pub(crate) status: OutcomeArg,
    /// Also keep the summary as a stored record attached to the session (`baton record
    /// list` finds it; `baton show` lists it)
    #[arg(long, requires = "summary")]
    pub(crate) store_summary: bool,
    /// End the session this note belongs to: the `session_id` in its frontmatter decides,
    /// never its file name or time (a path in the vault, or on disk)
    #[arg(long, value_name = "PATH", conflicts_with = "id")]
    pub(crate) note: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Only this agent
    #[arg(long)]
    pub(crate) agent: Option<String>,
    /// Only this status: starting, working, blocked, awaiting_review, paused, complete, failed
    #[arg(long)]
    pub(crate) status: Option<String>,
    /// Include ended sessions
    #[arg(long)]
    pub(crate) all: bool,
    /// Only sessions on this git branch
    #[arg(long)]
    pub(crate) branch: Option<String>,
    /// Only sessions with activity on or after this day (YYYY-MM-DD, this machine's zone) or
    /// time (RFC 3339)
    #[arg(long, value_name = "DAY")]
    pub(crate) since: Option<String>,
    /// Add each session's tokens and cost (from the mirror's index when there is one, else
    /// from the usage its hooks recorded)
    #[arg(long)]
    pub(crate) cost: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

/// Who sent a report (`--via`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ViaArg {
    /// A client hook reported it
    Hook,
    /// The model reported it itself
    Model,
}

impl From<ViaArg> for Via {
    fn from(v: ViaArg) -> Via {
        match v {
            ViaArg::Hook => Via::Hook,
            ViaArg::Model => Via::Model,
        }
    }
}

/// What a report says of the session (`report --status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportStatusArg {
    /// It cannot go on (say why with --reason)
    Blocked,
    /// The work is done and awaits review
    #[value(alias = "implementation_complete")]
    ImplementationComplete,
}

impl ReportStatusArg {
    /// The core's word for it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ReportStatusArg::Blocked => "blocked",
            ReportStatusArg::ImplementationComplete => "implementation_complete",
        }
    }
}

/// A plan step's state (`report --step-state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StepStateArg {
    /// Not started
    Pending,
    /// Being worked on
    #[value(alias = "in_progress")]
    InProgress,
    /// Finished
    Done,
    /// Cannot go on
    Blocked,
}

impl From<StepStateArg> for StepState {
    fn from(s: StepStateArg) -> StepState {
        match s {
            StepStateArg::Pending => StepState::Pending,
            StepStateArg::InProgress => StepState::InProgress,
            StepStateArg::Done => StepState::Done,
            StepStateArg::Blocked => StepState::Blocked,
        }
    }
}

/// How a session ended (`end --status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutcomeArg {
    /// The work is finished
    Complete,
    /// The work stopped without finishing
    Failed,
}

impl OutcomeArg {
    /// The core's word for it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OutcomeArg::Complete => "complete",
            OutcomeArg::Failed => "failed",
        }
    }
}
