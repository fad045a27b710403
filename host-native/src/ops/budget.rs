//! Budgets measured on this machine: the workspace policy's `[budget]` rules against the usage
//! the transcript index keeps (each response once, tied to the ledger's work sessions) and the
//! limits the agents last reported, and the team's budget (kept in the team database) against
//! this machine's usage and every other machine's. Every face asks here: `baton budget
//! status|check`, the MCP tool, and the engine before a brief, a report or a start (where a
//! rule at its limit pauses the session: see the core's `lifecycle::budget`).

use crate::ops::sync::budget::TeamRead;
use crate::store::Ledger;
use baton_core::lifecycle::budget::team::evaluate_team;
use baton_core::lifecycle::budget::{
    BudgetPolicy, BudgetStatus, DEFAULT_WARN_PERCENT, Measure, evaluate,
};
use baton_core::transcripts::usage::summed_windows::Sum;
use baton_core::{Error, Timestamp};
use serde::Serialize;

/// Where the spend was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpendSource {
    /// The transcript index (`baton mirror` keeps it).
    Index,
    /// Nothing: there is no index yet (every dollar rule reads 0).
    None,
}

/// The budgets as measured now.
#[derive(Debug, Clone, Serialize)]
pub struct Budgets {
    /// The rules: the workspace's, then the team's.
    #[serde(flatten)]
    pub status: BudgetStatus,
    /// Where the spend was read from.
    pub source: SpendSource,
    /// The index read.
    pub index: String,
    /// The zone days, weeks and months are taken in.
    pub timezone: String,
    /// Where the team's budget and the other machines' usage came from, with a team database.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<TeamSource>,
}

/// Where the team's figures came from.
#[derive(Debug, Clone, Serialize)]
pub struct TeamSource {
    /// The team database (its URL without a password).
    pub server: String,
    /// `server` (asked now) or `cache` (what it said last).
    pub from: &'static str,
    /// When the server said it.
    pub fetched_at: Timestamp,
    /// Whether the team has a budget.
    pub budget: bool,
    /// Who set it, and when.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_by: Option<String>,
    /// When it was set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub set_at: Option<Timestamp>,
    /// The other machines whose usage counts in its periods.
    pub machines: usize,
    /// Why the server's last word was used, when it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
}

impl TeamSource {
    fn of(read: &TeamRead) -> TeamSource {
        let figures = &read.figures;
        TeamSource {
            server: figures.server.clone(),
            from: if read.asked { "server" } else { "cache" },
            fetched_at: figures.fetched_at,
            budget: figures.budget.is_some(),
            set_by: figures.budget.as_ref().map(|b| b.set_by.clone()),
            set_at: figures.budget.as_ref().map(|b| b.set_at),
            machines: figures.machines,
            unreachable: figures.failed.as_ref().map(|(_, why)| why.clone()),
        }
    }
}

/// The budget part of the workspace policy (`policy`, as `ops::engine::policy` reads it),
/// checked; `None` when it limits nothing.
pub fn policy_of(
    ledger: &Ledger,
    policy: &baton_core::lifecycle::workspace::Policy,
) -> Result<Option<BudgetPolicy>, Error> {
    let Some(budget) = policy.budget.clone() else {
        return Ok(None);
    };
    budget.check().map_err(|err| {
        let config = ledger.dir().join(crate::config::FILE);
        crate::config::ConfigFile::invalid(&config, &err.message)
    })?;
    Ok((!budget.is_empty()).then_some(budget))
}

/// The team's figures for a measure at `now` (`pull`: waiting at most a moment).
fn team_figures(ledger: &Ledger, now: Timestamp, pull: bool) -> Result<Option<TeamRead>, Error> {
    let zone = crate::os::zone::resolve(None)?;
    let since_of = |policy: &BudgetPolicy| policy.sums_since(now, &zone);
    crate::ops::sync::budget::figures(
        ledger,
        &since_of,
        now,
        pull,
        &crate::ops::mirror::tally::shipped_tiers(),
    )
}

/// The budgets of `policy` (the workspace policy `ops::engine::policy` read) and the team's,
/// measured now on the ledger's sessions and its index: what `budget status|check` and the MCP
/// tool show; `None` when no budget is set.
pub fn status(
    ledger: &Ledger,
    policy: &baton_core::lifecycle::workspace::Policy,
) -> Result<Option<Budgets>, Error> {
    use baton_core::ledger::store::LedgerView;
    let own = policy_of(ledger, policy)?;
    let now = crate::os::system::now()?;
    let team = team_figures(ledger, now, false).unwrap_or_else(|err| {
        crate::os::warnings::warn(&format!("team budget not read: {err}"));
        None
    });
    let has_team = team.as_ref().is_some_and(|t| t.figures.budget.is_some());
    if own.is_none() && !has_team {
        return Ok(None);
    }
    let sessions = if ledger.dir().is_dir() {
        ledger.snapshot()?.all_sessions()?
    } else {
        Vec::new()
    };
    measure(ledger, own.as_ref(), team.as_ref(), &sessions, now).map(Some)
}

/// Every rule of `policy` and of the team's budget in `team` measured at `now` on `sessions`
/// (the ledger's), the index beside `ledger`, and the other machines' usage in `team`.
pub fn measure(
    ledger: &Ledger,
    policy: Option<&BudgetPolicy>,
    team: Option<&TeamRead>,
    sessions: &[baton_core::ledger::session::Session],
    now: Timestamp,
) -> Result<Budgets, Error> {
    let zone = crate::os::zone::resolve(None)?;
    let index = crate::index::path_for(ledger.dir());
    let team_policy = team.and_then(|t| t.figures.budget.as_ref().map(|b| &b.policy));
    let sums_since = [policy, team_policy]
        .into_iter()
        .flatten()
        .filter_map(|p| p.sums_since(now, &zone))
        .min();
    let mut entries = Vec::new();
    let mut sums = Vec::new();
    let mut source = SpendSource::None;
    let tiers = crate::ops::mirror::tally::shipped_tiers();
    if index.is_file() {
        use crate::ops::mirror::{counted::counted_between, tally, windows};
        let connection = crate::index::open_existing(&index)?;
        if tally::is_current(&connection, &tiers) {
            source = SpendSource::Index;
            // Days start on a slot in every zone of whole quarter hours: the sums serve.
            let on_slots = i64::from(baton_core::time::Zone::offset_seconds(&zone, now))
                .rem_euclid(tally::SLOT_MILLIS / 1000)
                == 0;
            // A rule over all work's open window places it as the windows before it were.
            let windows_asked = [policy, team_policy]
                .into_iter()
                .flatten()
                .any(BudgetPolicy::measures_the_window);
            if let Some(since) = sums_since {
                sums = if on_slots {
                    // Sums of nothing at each hour used before: the windows open as they did.
                    let earlier = if windows_asked {
                        windows::hours_before(
                            &connection,
                            &index,
                            since,
                            baton_core::transcripts::usage::windows::FIVE_HOURS_MS,
                        )?
                    } else {
                        Vec::new()
                    };
                    let mut sums: Vec<Sum> = earlier.into_iter().map(Sum::nothing_at).collect();
                    // Hours serve where days start on the hour (a zone of whole hours): read
                    // from the hour `since` is in (a period starts on the hour; a window's
                    // sums before its start change nothing).
                    let hourly = [since, now].into_iter().all(|at| {
                        i64::from(baton_core::time::Zone::offset_seconds(&zone, at))
                            .rem_euclid(3600)
                            == 0
                    });
                    let from = if hourly {
                        Timestamp::from_millis(
                            since.millis() - since.millis().rem_euclid(3_600_000),
                        )
                    } else {
                        since
                    };
                    sums.extend(windows::sums(
                        &connection,
                        &index,
                        &[],
                        Some(from),
                        None,
                        &tiers,
                        hourly,
                    )?);
                    sums
                } else {
                    counted_between(&connection, &index, since, None, &[], true)?
                        .into_iter()
                        .map(Sum::one)
                        .collect()
                };
            }
            if let Some(since) = policy.and_then(|p| p.reads_since(now, &zone)) {
                entries = counted_between(&connection, &index, since, None, &[], true)?;
            }
        }
    }
    // Only a share-of-the-plan rule reads what the agents reported (looking walks their
    // folders: not worth it on every pull otherwise).
    let reads_limits = policy.is_some_and(|p| {
        p.rules()
            .iter()
            .any(|(_, _, unit, _, _)| *unit == baton_core::lifecycle::budget::Unit::Percent)
    });
    let agent_limits = if reads_limits {
        crate::ops::limits::agents_latest(&[], &[], now)
    } else {
        Vec::new()
    };
    let root = ledger.dir().parent().map(|p| p.display().to_string());
    let prices = baton_core::transcripts::usage::PriceTable::shipped();
    let mut measure = Measure {
        entries: &entries,
        sums: &sums,
        sessions,
        root: root.as_deref(),
        agent_limits: &agent_limits,
        prices: &prices,
        zone: &zone,
    };
    let mut status = match policy {
        Some(policy) => evaluate(policy, &measure, now),
        None => BudgetStatus {
            now,
            warn_percent: DEFAULT_WARN_PERCENT,
            rules: Vec::new(),
        },
    };
    if let (Some(team), Some(team_policy)) = (team, team_policy) {
        // This machine's sums and the others', in time order.
        let mut everyone = sums.clone();
        everyone.extend(team.figures.sums(&tiers));
        everyone.sort_by_key(|s| s.entry.at);
        measure.sums = &everyone;
        measure.entries = &[];
        status
            .rules
            .extend(evaluate_team(team_policy, &measure, now));
    }
    Ok(Budgets {
        status,
        source,
        index: index.display().to_string(),
        timezone: baton_core::time::Zone::name(&zone),
        team: team.map(TeamSource::of),
    })
}

/// The budgets for a command that pulls (a brief, a report, a start): measured when the
/// workspace or the team has any; a budget that cannot be measured is warned about and
/// governs nothing this time (the work is not stopped by a broken index or a team database
/// out of reach).
pub fn for_pull(
    ledger: &Ledger,
    policy: &baton_core::lifecycle::workspace::Policy,
    view: &dyn baton_core::ledger::store::LedgerView,
    now: Timestamp,
) -> Option<BudgetStatus> {
    let measured = (|| {
        let own = policy_of(ledger, policy)?;
        let team = team_figures(ledger, now, true).unwrap_or_else(|err| {
            crate::os::warnings::warn(&format!("team budget not checked: {err}"));
            None
        });
        let has_team = team.as_ref().is_some_and(|t| t.figures.budget.is_some());
        if own.is_none() && !has_team {
            return Ok(None);
        }
        let sessions = view.all_sessions()?;
        measure(ledger, own.as_ref(), team.as_ref(), &sessions, now).map(|b| Some(b.status))
    })();
    measured.unwrap_or_else(|err: Error| {
        crate::os::warnings::warn(&format!("budgets not applied: {err}"));
        None
    })
}
