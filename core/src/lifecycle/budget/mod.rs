//! Budgets: spending limits a person sets in the workspace policy (`[budget]` in
//! `.baton/config.toml`), for all work or for one project, agent, branch or mission, per day,
//! week or month (in the report's zone), per five-hour window, in dollars, or as a share of a
//! plan's five-hour window as the agents report it. Each rule is measured against the usage of
//! the work it covers in the current period; at the warning share (80 % unless set) it asks
//! for a person's attention, and at its limit the live sessions it covers are paused when they
//! next ask for their brief or report. The pause stays until a person raises the limit (the
//! next brief lifts it) or lifts the pause, which waives that rule for that session until the
//! period ends. An agent cannot lift it: lifting a pause is a person's.

mod scope;
pub mod team;

pub use scope::Scope;

use crate::error::{Error, Result};
use crate::ledger::session::Session;
use crate::time::{Timestamp, Zone, local_date, local_midnight};
use crate::transcripts::limits::PlanLimits;
use crate::transcripts::usage::summed_windows::{Sum, rough};
use crate::transcripts::usage::windows::{FIVE_HOURS_MS, Keep, WindowOptions, windows};
use crate::transcripts::usage::work::Linker;
use crate::transcripts::usage::{CostMode, GroupBy, PriceTable, ReportOptions, costs_of};
use crate::transcripts::{Provider, UsageEntry};
use chrono::Datelike;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The share of a limit at which a rule asks for attention, unless the policy says.
pub const DEFAULT_WARN_PERCENT: f64 = 80.0;

/// Limits for one scope.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Dollars a day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_usd: Option<f64>,
    /// Dollars a week (Monday first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub week_usd: Option<f64>,
    /// Dollars a month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month_usd: Option<f64>,
    /// Dollars in the open five-hour window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_usd: Option<f64>,
    /// Percent of a plan's five-hour window, as the agents report it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_percent: Option<f64>,
}

/// The `[budget]` table: limits for all work, the warning share, and finer scopes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BudgetPolicy {
    /// Dollars a day, all work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_usd: Option<f64>,
    /// Dollars a week, all work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub week_usd: Option<f64>,
    /// Dollars a month, all work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month_usd: Option<f64>,
    /// Dollars in the open five-hour window, all work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_usd: Option<f64>,
    /// Percent of a plan's five-hour window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_percent: Option<f64>,
    /// The share of a limit that asks for attention (default 80).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warn_percent: Option<f64>,
    /// By project name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub project: BTreeMap<String, Limits>,
    /// By agent (`claude`, `codex`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub agent: BTreeMap<String, Limits>,
    /// By git branch.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub branch: BTreeMap<String, Limits>,
    /// By mission reference.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mission: BTreeMap<String, Limits>,
}

/// A table of scoped limits, and how its names become scopes.
type ScopedTable<'a> = (&'a BTreeMap<String, Limits>, fn(String) -> Scope);

/// How a rule's period runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Period {
    /// The calendar day.
    Day,
    /// The week, Monday first.
    Week,
    /// The calendar month.
    Month,
    /// The open five-hour window.
    Window,
}

/// What a rule limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// US dollars.
    Usd,
    /// Percent of a plan's window, as the agents report it.
    Percent,
}

/// Where a rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// Below the warning share.
    Ok,
    /// At or past the warning share.
    Warn,
    /// At or past the limit.
    Over,
}

/// One rule measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RuleState {
    /// The rule's name in the policy: `day_usd`, `project.app.week_usd`.
    pub key: String,
    /// What it covers.
    pub scope: Scope,
    /// Its period.
    pub period: Period,
    /// Its unit.
    pub unit: Unit,
    /// The limit.
    pub limit: f64,
    /// Used so far in the period.
    pub spent: f64,
    /// `spent` as a share of `limit`, in percent.
    pub used_percent: f64,
    /// Where it stands.
    pub level: Level,
    /// The share of the limit at which it asks for attention, in percent.
    #[serde(default = "default_warn")]
    pub warn_percent: f64,
    /// When the period began (for a window, the open window's start; absent with none open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
    /// When it ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Timestamp>,
}

fn default_warn() -> f64 {
    DEFAULT_WARN_PERCENT
}

impl RuleState {
    /// The rule in this period: what a pause or a waiver names (`day_usd@2026-12-02T00:00:00.000Z`).
    pub fn mark(&self) -> String {
        match self.since {
            Some(since) => format!("{}@{since}", self.key),
            None => self.key.clone(),
        }
    }

    /// The figures in words: `$51.20 of $50.00 a day for all work (102 %)`.
    pub fn describe(&self) -> String {
        let per = match self.period {
            Period::Day => "a day",
            Period::Week => "a week",
            Period::Month => "a month",
            Period::Window => "in the five-hour window",
        };
        let (spent, limit) = match self.unit {
            Unit::Usd => (format!("${:.2}", self.spent), format!("${:.2}", self.limit)),
            Unit::Percent => (
                format!("{:.0} %", self.spent),
                format!("{:.0} % of the plan", self.limit),
            ),
        };
        format!(
            "{spent} of {limit} {per} for {} ({:.0} %)",
            self.scope.describe(),
            self.used_percent
        )
    }
}

/// Every rule of a policy, measured at one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BudgetStatus {
    /// When it was measured.
    pub now: Timestamp,
    /// The warning share, in percent.
    pub warn_percent: f64,
    /// The rules, as the policy lists them.
    pub rules: Vec<RuleState>,
}

impl BudgetStatus {
    /// The worst level of any rule (`Ok` with none).
    pub fn worst(&self) -> Level {
        self.rules
            .iter()
            .map(|r| r.level)
            .max()
            .unwrap_or(Level::Ok)
    }

    /// The first rule at its limit that covers `session` and that a person has not waived
    /// for it this period.
    pub fn over_for(&self, session: &Session) -> Option<&RuleState> {
        self.rules.iter().find(|r| {
            r.level == Level::Over
                && r.scope.covers(session)
                && !session.budget_waivers.contains(&r.mark())
        })
    }

    /// The rules past their warning share that cover `session`.
    pub fn warnings_for<'a>(&'a self, session: &'a Session) -> impl Iterator<Item = &'a RuleState> {
        self.rules
            .iter()
            .filter(move |r| r.level >= Level::Warn && r.scope.covers(session))
    }
}

impl BudgetPolicy {
    /// Checks every figure: positive amounts, percentages within (0, 100].
    pub fn check(&self) -> Result<()> {
        let amount = |key: &str, value: Option<f64>, max: f64| -> Result<()> {
            match value {
                Some(v) if !(v.is_finite() && v > 0.0 && v <= max) => Err(Error::invalid(
                    "budget",
                    format!(
                        "`{key} = {v}` is no limit: give a number above 0{}",
                        if max < f64::MAX {
                            format!(" and at most {max}")
                        } else {
                            String::new()
                        }
                    ),
                )),
                _ => Ok(()),
            }
        };
        amount("warn_percent", self.warn_percent, 100.0)?;
        for (scope, limits) in self.scoped() {
            let prefix = scope.key();
            amount(&format!("{prefix}day_usd"), limits.day_usd, f64::MAX)?;
            amount(&format!("{prefix}week_usd"), limits.week_usd, f64::MAX)?;
            amount(&format!("{prefix}month_usd"), limits.month_usd, f64::MAX)?;
            amount(&format!("{prefix}window_usd"), limits.window_usd, f64::MAX)?;
            amount(
                &format!("{prefix}window_percent"),
                limits.window_percent,
                100.0,
            )?;
        }
        Ok(())
    }

    /// Whether the policy limits anything.
    pub fn is_empty(&self) -> bool {
        self.rules().is_empty()
    }

    /// Each scope with its limits: all work first, then the finer scopes by kind and name.
    fn scoped(&self) -> Vec<(Scope, Limits)> {
        let mut out = vec![(
            Scope::All,
            Limits {
                day_usd: self.day_usd,
                week_usd: self.week_usd,
                month_usd: self.month_usd,
                window_usd: self.window_usd,
                window_percent: self.window_percent,
            },
        )];
        let tables: [ScopedTable<'_>; 4] = [
            (&self.project, Scope::Project),
            (&self.agent, Scope::Agent),
            (&self.branch, Scope::Branch),
            (&self.mission, Scope::Mission),
        ];
        for (table, scope) in tables {
            out.extend(
                table
                    .iter()
                    .map(|(name, limits)| (scope(name.clone()), limits.clone())),
            );
        }
        out
    }

    /// Every rule: (scope, period, unit, limit, key).
    pub fn rules(&self) -> Vec<(Scope, Period, Unit, f64, String)> {
        let mut out = Vec::new();
        for (scope, limits) in self.scoped() {
            let prefix = scope.key();
            for (name, period, unit, value) in [
                ("day_usd", Period::Day, Unit::Usd, limits.day_usd),
                ("week_usd", Period::Week, Unit::Usd, limits.week_usd),
                ("month_usd", Period::Month, Unit::Usd, limits.month_usd),
                ("window_usd", Period::Window, Unit::Usd, limits.window_usd),
                (
                    "window_percent",
                    Period::Window,
                    Unit::Percent,
                    limits.window_percent,
                ),
            ] {
                if let Some(limit) = value {
                    out.push((
                        scope.clone(),
                        period,
                        unit,
                        limit,
                        format!("{prefix}{name}"),
                    ));
                }
            }
        }
        out
    }

    /// Whether a rule over all work measures the open five-hour window in dollars (where it
    /// opens depends on the windows before it).
    pub fn measures_the_window(&self) -> bool {
        self.rules().iter().any(|(scope, period, unit, _, _)| {
            *scope == Scope::All && *period == Period::Window && *unit == Unit::Usd
        })
    }

    /// How far back a measure must read responses one by one at `now`: the earliest period
    /// start of a rule in dollars scoped to some of the work (for a window, two days: where it
    /// opens depends on the ones before it); `None` when there is none (a rule over all work
    /// reads the sums, see [`BudgetPolicy::sums_since`]).
    pub fn reads_since(&self, now: Timestamp, zone: &dyn Zone) -> Option<Timestamp> {
        self.earliest(now, zone, |scope| *scope != Scope::All)
    }

    /// How far back a measure must read the sums at `now`: the earliest period start of a rule
    /// in dollars over all work; `None` when there is none.
    pub fn sums_since(&self, now: Timestamp, zone: &dyn Zone) -> Option<Timestamp> {
        self.earliest(now, zone, |scope| *scope == Scope::All)
    }

    /// The earliest start of the dollar rules whose scope `wanted` takes: its period's, or
    /// for a window two days back (see [`BudgetPolicy::reads_since`]).
    fn earliest(
        &self,
        now: Timestamp,
        zone: &dyn Zone,
        wanted: impl Fn(&Scope) -> bool,
    ) -> Option<Timestamp> {
        self.rules()
            .iter()
            .filter(|(scope, _, unit, _, _)| wanted(scope) && *unit == Unit::Usd)
            .map(|(_, period, _, _, _)| match period {
                Period::Window => Timestamp::from_millis(now.millis() - 2 * 24 * 3_600_000),
                other => period_bounds(*other, now, zone).0,
            })
            .min()
    }
}

/// The calendar period holding `now`: [start, end).
fn period_bounds(period: Period, now: Timestamp, zone: &dyn Zone) -> (Timestamp, Timestamp) {
    let today = local_date(now, zone);
    let (first, next) = match period {
        Period::Day | Period::Window => (today, today.succ_opt().unwrap_or(today)),
        Period::Week => {
            let monday =
                today - chrono::Duration::days(i64::from(today.weekday().num_days_from_monday()));
            (monday, monday + chrono::Duration::days(7))
        }
        Period::Month => {
            let first = today.with_day(1).unwrap_or(today);
            let next = if first.month() == 12 {
                chrono::NaiveDate::from_ymd_opt(first.year() + 1, 1, 1)
            } else {
                chrono::NaiveDate::from_ymd_opt(first.year(), first.month() + 1, 1)
            }
            .unwrap_or(first);
            (first, next)
        }
    };
    (
        local_midnight(first, zone, now),
        local_midnight(next, zone, now),
    )
}

/// `spent` as a share of `limit`, in hundredths of a percent (none of no limit).
fn percent_of(spent: f64, limit: f64) -> f64 {
    let share = (spent / limit * 10_000.0).round() / 100.0;
    if limit > 0.0 { share } else { 0.0 }
}

/// What the budget rules are measured with.
#[derive(Debug)]
pub struct Measure<'a> {
    /// Counted responses (each once), in time order, since [`BudgetPolicy::reads_since`]:
    /// what a rule scoped to some of the work reads.
    pub entries: &'a [UsageEntry],
    /// Every counted response added up (sums of one response each will do), in time order:
    /// what a rule over all work reads.
    pub sums: &'a [Sum],
    /// The ledger's work sessions (responses are tied to them by [`crate::transcripts::usage::work`]).
    pub sessions: &'a [Session],
    /// The ledger's project folder.
    pub root: Option<&'a str>,
    /// What the agents last said of their plans' limits.
    pub agent_limits: &'a [PlanLimits],
    /// The prices.
    pub prices: &'a PriceTable,
    /// The zone of days, weeks and months.
    pub zone: &'a dyn Zone,
}

/// Every rule of `policy` measured at `now`.
pub fn evaluate(policy: &BudgetPolicy, measure: &Measure<'_>, now: Timestamp) -> BudgetStatus {
    let warn = policy.warn_percent.unwrap_or(DEFAULT_WARN_PERCENT);
    let linker = Linker::new(measure.sessions, measure.root);
    // Each response's work session (index), once.
    let owners: Vec<Option<usize>> = measure
        .entries
        .iter()
        .map(|e| linker.link(e).map(|(i, _)| i))
        .collect();
    let costs = costs_of(measure.entries.iter(), measure.prices, CostMode::Auto);
    let rules = policy
        .rules()
        .into_iter()
        .map(|(scope, period, unit, limit, key)| {
            let covered = |at: usize| match &scope {
                Scope::All => true,
                _ => owners[at].is_some_and(|i| scope.covers(&measure.sessions[i])),
            };
            let (since, until, spent) = match (period, unit) {
                (Period::Window, Unit::Percent) => {
                    let providers: Vec<Provider> = match &scope {
                        Scope::Agent(name) => Provider::ALL
                            .iter()
                            .copied()
                            .filter(|p| p.entry().agent_names.iter().any(|a| name.starts_with(a)))
                            .collect(),
                        _ => Vec::new(),
                    };
                    let used = measure
                        .agent_limits
                        .iter()
                        .filter(|l| providers.is_empty() || providers.contains(&l.provider))
                        .filter_map(|l| l.at(now).primary)
                        .map(|w| (w.used_percent, w.resets_at))
                        .fold((0.0_f64, None), |best, (used, reset)| {
                            if used > best.0 { (used, reset) } else { best }
                        });
                    (None, used.1, used.0)
                }
                (Period::Window, Unit::Usd) => {
                    let report = ReportOptions {
                        group_by: GroupBy::Daily,
                        since: None,
                        until: None,
                        providers: &[],
                        prices: measure.prices,
                        cost_mode: CostMode::Auto,
                        zone: measure.zone,
                    };
                    let options = WindowOptions {
                        length_ms: FIVE_HOURS_MS,
                        now,
                        token_limit: None,
                        by_session: false,
                        keep: Keep::Active,
                    };
                    let active = if scope == Scope::All {
                        rough(measure.sums, &report, &options).windows
                    } else {
                        let covered_entries: Vec<UsageEntry> = measure
                            .entries
                            .iter()
                            .enumerate()
                            .filter(|(at, _)| covered(*at))
                            .map(|(_, e)| e.clone())
                            .collect();
                        windows(&covered_entries, &report, &options, None).windows
                    };
                    match active.first() {
                        Some(w) => (Some(w.start), Some(w.end), w.cost_usd),
                        None => (None, None, 0.0),
                    }
                }
                (period, _) if scope == Scope::All => {
                    let (since, until) = period_bounds(period, now, measure.zone);
                    let within: Vec<&Sum> = measure
                        .sums
                        .iter()
                        .filter(|s| s.entry.at >= since && s.entry.at < until)
                        .collect();
                    let femto: u128 = costs_of(
                        within.iter().map(|s| &s.entry),
                        measure.prices,
                        CostMode::Auto,
                    )
                    .into_iter()
                    .sum();
                    let micro = femto / crate::transcripts::usage::prices::FEMTO_PER_MICRO;
                    (Some(since), Some(until), micro as f64 / 1_000_000.0)
                }
                (period, _) => {
                    let (since, until) = period_bounds(period, now, measure.zone);
                    let femto: u128 = measure
                        .entries
                        .iter()
                        .enumerate()
                        .filter(|(at, e)| e.at >= since && e.at < until && covered(*at))
                        .map(|(at, _)| costs[at])
                        .sum();
                    let micro = femto / crate::transcripts::usage::prices::FEMTO_PER_MICRO;
                    (Some(since), Some(until), micro as f64 / 1_000_000.0)
                }
            };
            let used_percent = percent_of(spent, limit);
            let level = if used_percent >= 100.0 {
                Level::Over
            } else if used_percent >= warn {
                Level::Warn
            } else {
                Level::Ok
            };
            RuleState {
                key,
                scope,
                period,
                unit,
                limit,
                spent,
                used_percent,
                level,
                warn_percent: warn,
                since,
                until,
            }
        })
        .collect();
    BudgetStatus {
        now,
        warn_percent: warn,
        rules,
    }
}

#[cfg(test)]
mod tests;
