//! The arguments of `baton usage` (and the window `baton team usage` shares): grouping,
//! providers, days, costs, and where the transcripts are.

use super::*;

/// The days and costs of a usage report: `baton usage` and `baton team usage` alike.
#[derive(Debug, Args)]
pub(crate) struct UsageWindow {
    /// First day counted (YYYY-MM-DD or YYYYMMDD, in --timezone)
    #[arg(long, value_name = "DATE")]
    pub(crate) since: Option<String>,
    /// Last day counted (YYYY-MM-DD or YYYYMMDD, in --timezone)
    #[arg(long, value_name = "DATE")]
    pub(crate) until: Option<String>,
    /// The zone of days, weeks and months: an IANA name (Europe/Paris) or UTC [default: this
    /// machine's zone, from TZ or /etc/localtime]
    #[arg(long, value_name = "ZONE")]
    pub(crate) timezone: Option<String>,
    /// Which cost to show: `auto` uses the cost a line records (old Claude Code `costUSD`)
    /// and calculates the rest, `calculate` always prices the tokens, `display` shows only
    /// recorded costs
    #[arg(long, value_enum, default_value_t = CostModeArg::Auto)]
    pub(crate) cost_mode: CostModeArg,
}

impl UsageWindow {
    /// The zone, and the first and last instants counted, as given.
    pub(crate) fn resolve(
        &self,
    ) -> Result<
        (
            crate::os::zone::HostZone,
            Option<baton_core::Timestamp>,
            Option<baton_core::Timestamp>,
        ),
        baton_core::Error,
    > {
        let zone = crate::os::zone::resolve(self.timezone.as_deref())?;
        let days = baton_core::transcripts::filters::DayWindow {
            since: self.since.clone(),
            until: self.until.clone(),
        };
        let (since, until) = days.resolve(&zone)?;
        Ok((zone, since, until))
    }
}

#[derive(Debug, Args)]
pub(crate) struct UsageArgs {
    /// How to group rows
    #[arg(value_enum, default_value_t = GroupByArg::Daily)]
    pub(crate) group_by: GroupByArg,
    /// Which agent's transcripts to read: all, or one (claude-code, codex, gemini, qwen,
    /// opencode, kilo; claude_code spelt either way)
    #[arg(long, value_name = "AGENT", default_value = "all", value_parser = provider_arg)]
    pub(crate) provider: ProviderArg,
    #[command(flatten)]
    pub(crate) window: UsageWindow,
    #[command(flatten)]
    pub(crate) agents: AgentDirs,
    /// A price table (JSON, the shape of the shipped one) to use instead of the shipped one
    #[arg(long, value_name = "FILE")]
    pub(crate) prices: Option<PathBuf>,
    /// Count from the transcript index (`baton mirror` keeps it) instead of reading the
    /// folders: fast, and it remembers transcripts whose files are gone. `--index=FILE` names
    /// another index [default: BATON_INDEX, else index.sqlite in your data folder]
    #[arg(
        long = "index",
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        conflicts_with = "agent_dirs"
    )]
    pub(crate) index: Option<String>,
    /// With --index: bring the index up to date first (one mirror pass, reading only what
    /// changed)
    #[arg(long, requires = "index")]
    pub(crate) sync: bool,
    /// With `session`: one row per work session of this ledger instead of per agent session,
    /// each transcript tied by its provider session id, else by project, agent and time
    #[arg(long)]
    pub(crate) work: bool,
    /// Print the rows as CSV (a header, a line per row, then `total`) for a spreadsheet;
    /// `--json` still gives the one JSON object
    #[arg(long)]
    pub(crate) csv: bool,
    /// Only the sessions' own responses: leave out what their sub-agents used (Claude Code's
    /// sidechains, Codex's sub-agent threads). Without it, the SUB-AGENTS column and
    /// `delegated_cost_usd` say their part
    #[arg(long)]
    pub(crate) own_only: bool,
    /// Whose figures: the transcripts' (the default), what the agents reported over
    /// OpenTelemetry (`baton otel serve` keeps it in the index), or both, one report after the
    /// other
    #[arg(long, value_enum, default_value_t = SourceArg::Transcripts)]
    pub(crate) source: SourceArg,
    /// Pair each request the agents reported over OpenTelemetry with the transcript response
    /// it describes, and list what disagrees (missing on one side, tokens, cost) with its
    /// likely cause
    #[arg(long, conflicts_with_all = ["csv", "work", "source"])]
    pub(crate) check: bool,
    #[command(flatten)]
    pub(crate) blocks: BlocksArgs,
}

/// Whose figures `baton usage` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SourceArg {
    /// What Baton reads in the agents' transcripts
    Transcripts,
    /// What the agents reported of their requests over OpenTelemetry
    Telemetry,
    /// Both reports, the transcripts' first
    Both,
}

/// The choices of `baton usage blocks`.
#[derive(Debug, Args)]
#[command(next_help_heading = "Windows (usage blocks)")]
pub(crate) struct BlocksArgs {
    /// Seven-day windows instead of five-hour ones
    #[arg(long)]
    pub(crate) week: bool,
    /// Only the window open now
    #[arg(long, conflicts_with = "recent")]
    pub(crate) active: bool,
    /// Only the windows of the last three days (the open one included)
    #[arg(long)]
    pub(crate) recent: bool,
    /// Measure each window against a token limit: a number of tokens, or `max` for the most
    /// any window that has ended used; the open window says when it runs out at its pace
    #[arg(long, value_name = "N|max", value_parser = token_limit_arg)]
    pub(crate) token_limit: Option<baton_core::transcripts::usage::windows::TokenLimit>,
    /// Who used each window: the work sessions of this ledger its responses belong to, else
    /// the agent sessions, the largest share first
    #[arg(long)]
    pub(crate) by_session: bool,
}

impl BlocksArgs {
    /// The flag given, when one is (they mean something only for `blocks`).
    pub(crate) fn any_given(&self) -> Option<&'static str> {
        [
            (self.week, "--week"),
            (self.active, "--active"),
            (self.recent, "--recent"),
            (self.token_limit.is_some(), "--token-limit"),
            (self.by_session, "--by-session"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

/// `--token-limit`'s value (see [`crate::ops::limits::parse_token_limit`]).
fn token_limit_arg(
    text: &str,
) -> Result<baton_core::transcripts::usage::windows::TokenLimit, String> {
    crate::ops::limits::parse_token_limit(text).map_err(|err| err.message)
}

impl UsageArgs {
    /// The folders the flags named, by provider.
    pub(crate) fn folders(&self) -> std::collections::BTreeMap<Provider, Vec<PathBuf>> {
        self.agents.folders()
    }
}

/// How `baton usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GroupByArg {
    /// One row per day (in --timezone)
    Daily,
    /// One row per week, Monday first (in --timezone)
    Weekly,
    /// One row per month (in --timezone)
    Monthly,
    /// One row per provider session
    Session,
    /// One row per model
    Model,
    /// One row per project (each session's first working folder)
    Project,
    /// One row per git branch the work sessions started on (needs this ledger)
    Branch,
    /// One row per mission of the work sessions (needs this ledger)
    Mission,
    /// One row per pull request the work sessions reported (needs this ledger)
    Pr,
    /// One row per hand-off chain of work sessions, keyed by its first session (needs this
    /// ledger)
    Chain,
    /// The five-hour windows plans are metered in (seven-day with --week), the open one
    /// first: tokens, cost, burn rate, projection and limit
    Blocks,
}

/// Which cost `baton usage` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CostModeArg {
    /// Recorded cost where a line has one, else calculated
    Auto,
    /// Always calculated from tokens and prices
    Calculate,
    /// Only recorded costs
    Display,
}

impl From<CostModeArg> for baton_core::transcripts::usage::CostMode {
    fn from(mode: CostModeArg) -> Self {
        use baton_core::transcripts::usage::CostMode;
        match mode {
            CostModeArg::Auto => CostMode::Auto,
            CostModeArg::Calculate => CostMode::Calculate,
            CostModeArg::Display => CostMode::Display,
        }
    }
}

impl From<GroupByArg> for GroupBy {
    fn from(g: GroupByArg) -> GroupBy {
        match g {
            GroupByArg::Daily => GroupBy::Daily,
            GroupByArg::Weekly => GroupBy::Weekly,
            GroupByArg::Monthly => GroupBy::Monthly,
            GroupByArg::Session => GroupBy::Session,
            GroupByArg::Model => GroupBy::Model,
            GroupByArg::Project => GroupBy::Project,
            GroupByArg::Branch => GroupBy::Branch,
            GroupByArg::Mission => GroupBy::Mission,
            GroupByArg::Pr => GroupBy::PullRequest,
            GroupByArg::Chain => GroupBy::Chain,
            // Windows come with the models they used.
            GroupByArg::Blocks => GroupBy::Model,
        }
    }
}

/// Which agents `baton usage` reads: every one, or the one named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProviderArg(Option<Provider>);

impl ProviderArg {
    /// The providers it names (empty: all).
    pub(crate) fn providers(self) -> Vec<Provider> {
        self.0.into_iter().collect()
    }
}

/// `--provider`'s value: `all`, or an agent that keeps usage, spelt as the registry spells it
/// (`claude-code` or `claude_code`); the core's message lists them when it is neither.
fn provider_arg(text: &str) -> Result<ProviderArg, String> {
    if text.trim().eq_ignore_ascii_case("all") {
        return Ok(ProviderArg(None));
    }
    baton_core::transcripts::filters::usage_provider(text)
        .map(|provider| ProviderArg(Some(provider)))
        .map_err(|err| err.message)
}
