//! The arguments of team sync and the team's views.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// The server: postgres://USER@HOST[:PORT]/DATABASE
    #[arg(long = "to", env = "BATON_SYNC_URL", value_name = "URL")]
    pub(crate) to: Option<String>,
    /// Keep syncing as the ledger grows, until stopped; a server out of reach is tried again
    #[arg(long)]
    pub(crate) follow: bool,
    /// Send the mirror's usage rows too (tokens, models, costs, projects; never message
    /// text), for `baton team usage`: only the days whose rows differ from the server's
    /// [default: `usage = true` under [sync] in config.toml]
    #[arg(long)]
    pub(crate) usage: bool,
    /// With --follow: the longest wait between syncs when nothing changes
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30,
        requires = "follow"
    )]
    pub(crate) every: u64,
}

/// Where a team view reads from.
#[derive(Debug, Args)]
pub(crate) struct TeamServer {
    /// The server: postgres://USER@HOST[:PORT]/DATABASE [default: BATON_TEAM_URL, else
    /// `url` under [team] or [sync] in .baton/config.toml, else BATON_SYNC_URL]
    #[arg(
        long = "from",
        env = "BATON_TEAM_URL",
        value_name = "URL",
        global = true
    )]
    pub(crate) from: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TeamCommand {
    /// Live sessions on every machine (--all adds ended ones), with machine and health
    #[command(after_help = "Examples:
  baton team list --from postgres://baton_reader@db.internal/baton
  baton team list --all --project shop
  baton --json team list | jq '.sessions[] | {goal, machines}'")]
    List(TeamListArgs),
    /// What needs a person, on every machine, and collisions only the team sees
    #[command(after_help = "Examples:
  baton team attention
  BATON_TEAM_URL=postgres://baton_reader@db.internal/baton baton team attention")]
    Attention(TeamServer),
    /// One session, whichever machine it ran on
    #[command(after_help = "Examples:
  baton team show 3f9c2a1e
  baton --json team show 01a2389c-30cd-7797-90e9-1ee4909ebc53")]
    Show(TeamShowArgs),
    /// Every machine's tokens and cost (what `baton sync --usage` sent), by day, model, project
    /// or machine
    #[command(after_help = "Examples:
  baton team usage                             # by day
  baton team usage machine --since 2026-11-01
  baton team usage model --timezone Europe/Paris --csv > team.csv

Costs are priced by the same table and rules as `baton usage`.")]
    Usage(TeamUsageArgs),
    /// The team's budget: limits over every machine's work, kept on the server; pulls on
    /// every machine measure it with this machine's usage and the others' (`sync --usage`)
    #[command(after_help = "Examples:
  baton team budget                            # what it is, and where every machine stands
  baton team budget set day_usd=200 week_usd=800
  baton team budget set window_usd=40 warn_percent=90
  baton team budget set week_usd=none          # one limit removed
  baton team budget clear

Settings: day_usd, week_usd, month_usd (the calendar period in this machine's zone),
window_usd (the open five-hour window), warn_percent (default 80). At the warning share an
attention item asks for a person; at the limit every live session on every machine pauses at
its next brief, report or start, until a person raises the limit or lifts the pause. Only the
schema's owner can set it (see the README's \"Team budget\"), and never from inside an agent.")]
    Budget(TeamBudgetArgs),
    /// Create or update the team schema on the server (once, as the role that owns it)
    #[command(after_help = "Examples:
  baton team init --from postgres://owner@db.internal/baton

Then give each machine a role of its own and the lead a read-only one: the README's
\"Least privilege\" section has the SQL.")]
    Init(TeamServer),
}

#[derive(Debug, Args)]
pub(crate) struct TeamListArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
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
}

#[derive(Debug, Args)]
pub(crate) struct TeamUsageArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    /// How to group rows
    #[arg(value_enum, default_value_t = TeamGroupByArg::Daily)]
    pub(crate) group_by: TeamGroupByArg,
    #[command(flatten)]
    pub(crate) window: UsageWindow,
    /// Print the rows as CSV; `--json` still gives the one JSON object
    #[arg(long)]
    pub(crate) csv: bool,
}

/// How `baton team usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TeamGroupByArg {
    /// One row per day (in --timezone)
    Daily,
    /// One row per week, Monday first (in --timezone)
    Weekly,
    /// One row per month (in --timezone)
    Monthly,
    /// One row per model
    Model,
    /// One row per project (each session's first working folder)
    Project,
    /// One row per machine
    Machine,
}

#[derive(Debug, Args)]
pub(crate) struct TeamShowArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct TeamBudgetArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    #[command(subcommand)]
    pub(crate) action: Option<TeamBudgetAction>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TeamBudgetAction {
    /// The team budget and where it stands now (the default)
    Show,
    /// Set limits, keeping the others: NAME=DOLLARS (or NAME=none to remove one)
    Set {
        /// day_usd=200, week_usd=800, month_usd=3000, window_usd=40, warn_percent=90
        #[arg(required = true, value_name = "NAME=VALUE")]
        settings: Vec<String>,
    },
    /// Remove the team budget
    Clear,
}
