//! Budgets measured on this machine: the workspace policy's `[budget]` rules against the usage
//! the transcript index keeps (each response once, tied to the ledger's work sessions) and the
//! limits the agents last reported. Every face asks here: `baton budget status|check`, the MCP
//! tool, and the engine before a brief, a report or a start (where a rule at its limit pauses
//! the session: see the core's `lifecycle::budget`).

use crate::store::Ledger;
use baton_core::lifecycle::budget::{BudgetPolicy, BudgetStatus, Measure, evaluate};
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
    /// The rules.
    #[serde(flatten)]
    pub status: BudgetStatus,
    /// Where the spend came from.
    pub source: SpendSource,
    /// The index read.
    pub index: String,
    /// The zone days, weeks and months are taken in.
    pub timezone: String,
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

/// The budgets of `policy` (the workspace policy `ops::engine::policy` read) measured now on
/// the ledger's sessions and its index: what `budget status|check` and the MCP tool show;
/// `None` when no budget is set.
pub fn status(
    ledger: &Ledger,
    policy: &baton_core::lifecycle::workspace::Policy,
) -> Result<Option<Budgets>, Error> {
    use baton_core::ledger::store::LedgerView;
    let Some(budget) = policy_of(ledger, policy)? else {
        return Ok(None);
    };
    let sessions = if ledger.dir().is_dir() {
        ledger.snapshot()?.all_sessions()?
    } else {
        Vec::new()
    };
    measure(ledger, &budget, &sessions, crate::os::system::now()?).map(Some)
}

/// Every rule of `policy` measured at `now` on `sessions` (the ledger's) and the index beside
/// `ledger`.
pub fn measure(
    ledger: &Ledger,
    policy: &BudgetPolicy,
    sessions: &[baton_core::ledger::session::Session],
    now: Timestamp,
) -> Result<Budgets, Error> {
    let zone = crate::os::zone::resolve(None)?;
    let index = crate::index::path_for(ledger.dir());
    let mut entries = Vec::new();
    let mut sums = Vec::new();
    let mut source = SpendSource::None;
    if index.is_file() {
        use crate::ops::mirror::{counted::counted_between, tally, windows};
        let connection = crate::index::open_existing(&index)?;
        let tiers = tally::shipped_tiers();
        if tally::is_current(&connection, &tiers) {
            source = SpendSource::Index;
            // Days start on a slot in every zone of whole quarter hours: the sums serve.
            let on_slots = i64::from(baton_core::time::Zone::offset_seconds(&zone, now))
                .rem_euclid(tally::SLOT_MILLIS / 1000)
                == 0;
            if let Some(since) = policy.sums_since(now, &zone) {
                sums = if on_slots {
                    // Sums of nothing at each hour used before: the windows open as they did.
                    let earlier = windows::hours_before(
                        &connection,
                        &index,
                        since,
                        baton_core::transcripts::usage::windows::FIVE_HOURS_MS,
                    )?;
                    let mut sums: Vec<Sum> = earlier.into_iter().map(Sum::nothing_at).collect();
                    sums.extend(windows::sums(
                        &connection,
                        &index,
                        &[],
                        Some(since),
                        None,
                        &tiers,
                    )?);
                    sums
                } else {
                    counted_between(&connection, &index, since, None, &[], true)?
                        .into_iter()
                        .map(Sum::one)
                        .collect()
                };
            }
            if let Some(since) = policy.reads_since(now, &zone) {
                entries = counted_between(&connection, &index, since, None, &[], true)?;
            }
        }
    }
    // Only a share-of-the-plan rule reads what the agents reported (looking walks their
    // folders: not worth it on every pull otherwise).
    let reads_limits = policy
        .rules()
        .iter()
        .any(|(_, _, unit, _, _)| *unit == baton_core::lifecycle::budget::Unit::Percent);
    let agent_limits = if reads_limits {
        crate::ops::limits::agents_latest(&[], &[], now)
    } else {
        Vec::new()
    };
    let root = ledger.dir().parent().map(|p| p.display().to_string());
    let status = evaluate(
        policy,
        &Measure {
            entries: &entries,
            sums: &sums,
            sessions,
            root: root.as_deref(),
            agent_limits: &agent_limits,
            prices: &baton_core::transcripts::usage::PriceTable::shipped(),
            zone: &zone,
        },
        now,
    );
    Ok(Budgets {
        status,
        source,
        index: index.display().to_string(),
        timezone: baton_core::time::Zone::name(&zone),
    })
}

/// The budgets for a command that pulls (a brief, a report, a start): measured when the
/// workspace has any; a budget that cannot be measured is warned about and governs nothing
/// this time (the work is not stopped by a broken index).
pub fn for_pull(
    ledger: &Ledger,
    policy: &baton_core::lifecycle::workspace::Policy,
    view: &dyn baton_core::ledger::store::LedgerView,
    now: Timestamp,
) -> Option<BudgetStatus> {
    let measured = (|| {
        let Some(policy) = policy_of(ledger, policy)? else {
            return Ok(None);
        };
        let sessions = view.all_sessions()?;
        measure(ledger, &policy, &sessions, now).map(|b| Some(b.status))
    })();
    measured.unwrap_or_else(|err: Error| {
        crate::os::warnings::warn(&format!("budgets not applied: {err}"));
        None
    })
}
