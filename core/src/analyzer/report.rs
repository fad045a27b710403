//! The overview and charts of everything loaded, worked out in one pass.

use crate::analyzer::charts::Overview;
use crate::analyzer::charts::Unit;
use crate::analyzer::{Analyzer, charts};
use crate::time::{Timestamp, UtcZone};
use crate::transcripts::UsageEntry;
use crate::transcripts::conversation::Role;
use crate::transcripts::usage::{
    CostMode, GroupBy, ReportOptions, UsageReport, UsageRow, aggregate, costs_femto_usd,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
/// The overview of everything loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AnalysisOverview {
    /// Files loaded.
    pub files: u64,
    /// Formats seen, with how many files of each.
    pub formats: BTreeMap<String, u64>,
    /// Conversations, messages, providers, models, dates, activity and lengths.
    #[serde(flatten)]
    pub figures: Overview,
    /// Token totals and estimated cost, when the files record usage (Claude Code, Codex).
    pub usage: Option<UsageRow>,
    /// Models without a price (their cost counts as 0).
    pub unpriced_models: Vec<String>,
    /// Agents loaded whose files keep no token counts (Cursor): not counted, never as zero.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without_tokens: Vec<String>,
    /// Work sessions in the loaded ledgers.
    pub sessions: u64,
    /// Ledger lines that were unreadable or of another schema.
    pub ledger_problems: u64,
}

/// The overview and the charts, worked out together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// The headline figures.
    pub overview: AnalysisOverview,
    /// The charts.
    pub charts: Charts,
}

/// The charts, as SVG text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Charts {
    /// Messages per day, as a calendar.
    pub activity: String,
    /// Assistant messages per model over time.
    pub models: String,
    /// Tokens per model over time (empty when no file records usage).
    pub tokens: String,
    /// Estimated cost per model over time (empty when no file records usage).
    pub cost: String,
    /// Conversation lengths.
    pub lengths: String,
}

impl Analyzer {
    pub(crate) fn usage_entries(&self) -> Vec<UsageEntry> {
        let (mut entries, _) = self.claude_usage.clone().finish();
        entries.extend(self.codex_usage.iter().cloned());
        entries.extend(self.keyed_usage.clone().into_entries());
        entries
    }

    /// The overview and the charts together, from one pass over what is loaded, the charts
    /// drawn [`charts::DEFAULT_WIDTH`] pixels wide.
    pub fn report(&self) -> Report {
        self.report_at(charts::DEFAULT_WIDTH)
    }

    /// The overview and the charts, the charts drawn `width` pixels wide.
    pub fn report_at(&self, width: u32) -> Report {
        let figures = charts::overview(&self.conversations);
        let entries = self.usage_entries();
        Report {
            charts: self.charts_of(&figures, &entries, width),
            overview: self.overview_of(figures, &entries),
        }
    }

    /// How the page counts usage: every entry, days in UTC, the shipped prices with recorded
    /// costs first.
    pub(crate) fn report_options(&self, group_by: GroupBy) -> ReportOptions<'_> {
        ReportOptions {
            group_by,
            since: None,
            until: None,
            providers: &[],
            prices: &self.prices,
            cost_mode: CostMode::Auto,
            zone: &UtcZone,
        }
    }

    /// Usage of everything loaded, grouped as `baton usage` groups it, with days in UTC and
    /// the shipped prices (recorded costs first): the rows `baton usage --timezone UTC` gives
    /// for the same files.
    pub fn usage(&self, group_by: GroupBy) -> UsageReport {
        let mut report = aggregate(
            &self.usage_entries(),
            &self.report_options(group_by),
            BTreeMap::new(),
        );
        report.without_tokens = crate::transcripts::providers::without_tokens(
            self.conversations.iter().map(|c| c.provider),
        );
        report
    }

    /// Usage by five-hour window as `baton usage blocks --by-session --timezone UTC` gives it
    /// for the same files at `now`: every window, the open one first, each with the agent
    /// sessions that used it, the largest share first.
    pub fn windows(
        &self,
        now: crate::time::Timestamp,
    ) -> crate::transcripts::usage::windows::WindowsReport {
        use crate::transcripts::usage::windows::{FIVE_HOURS_MS, Keep, WindowOptions, windows};
        let options = WindowOptions {
            length_ms: FIVE_HOURS_MS,
            now,
            token_limit: None,
            by_session: true,
            keep: Keep::All,
        };
        let mut entries = self.usage_entries();
        crate::transcripts::usage::sort_by_time(&mut entries);
        windows(
            &entries,
            &self.report_options(GroupBy::Daily),
            &options,
            None,
        )
    }

    /// The headline figures of everything loaded.
    pub fn overview(&self) -> AnalysisOverview {
        self.overview_of(charts::overview(&self.conversations), &self.usage_entries())
    }

    /// The charts of everything loaded, drawn `width` pixels wide.
    pub fn charts(&self, width: u32) -> Charts {
        self.charts_of(
            &charts::overview(&self.conversations),
            &self.usage_entries(),
            width,
        )
    }

    fn overview_of(&self, figures: Overview, entries: &[UsageEntry]) -> AnalysisOverview {
        let mut formats = BTreeMap::new();
        for f in &self.files {
            *formats.entry(f.format.as_str().to_owned()).or_default() += 1;
        }
        let (usage, unpriced_models) = if entries.is_empty() {
            (None, Vec::new())
        } else {
            let report = aggregate(
                entries,
                &self.report_options(GroupBy::Model),
                BTreeMap::new(),
            );
            (Some(report.totals), report.unpriced_models)
        };
        let stats = &self.ledger.fold().stats;
        AnalysisOverview {
            files: self.files.len() as u64,
            formats,
            figures,
            usage,
            unpriced_models,
            without_tokens: crate::transcripts::providers::without_tokens(
                self.conversations.iter().map(|c| c.provider),
            ),
            sessions: self.ledger.fold().sessions().len() as u64,
            ledger_problems: stats.corrupt_lines + stats.foreign_lines,
        }
    }

    fn model_of(entry: &UsageEntry) -> &str {
        entry.model.as_deref().unwrap_or("unrecorded")
    }

    fn charts_of(&self, figures: &Overview, entries: &[UsageEntry], width: u32) -> Charts {
        let messages: Vec<(Timestamp, &str, u64)> = self
            .conversations
            .iter()
            .flat_map(|c| c.messages.iter())
            .filter(|m| m.role == Role::Assistant)
            .filter_map(|m| Some((m.at?, m.model.as_deref().unwrap_or("unrecorded"), 1)))
            .collect();
        let models = charts::over_time_svg(
            charts::by_period(&messages),
            Unit::Count,
            "assistant messages",
            "assistant messages per model over time",
            width,
        );
        let (tokens, cost) = if entries.is_empty() {
            (String::new(), String::new())
        } else {
            let tokens: Vec<(Timestamp, &str, u64)> = entries
                .iter()
                .map(|e| (e.at, Self::model_of(e), e.tokens.total()))
                .collect();
            // Nano-dollars: exact enough per response, and a u64 holds billions of dollars.
            let femto_per_nano = 1_000_000u128;
            let costs = costs_femto_usd(entries, &self.prices, CostMode::Auto);
            // A model the price table does not know has no cost to draw (never a $0 series);
            // the overview names it.
            let priced = |e: &UsageEntry, femto: u128| {
                femto > 0
                    || e.model
                        .as_deref()
                        .is_some_and(|m| self.prices.price(m).is_some())
            };
            let cost: Vec<(Timestamp, &str, u64)> = entries
                .iter()
                .zip(costs)
                .filter(|(e, femto)| priced(e, *femto))
                .map(|(e, femto)| {
                    let nano = u64::try_from(femto / femto_per_nano).unwrap_or(u64::MAX);
                    (e.at, Self::model_of(e), nano)
                })
                .collect();
            (
                charts::over_time_svg(
                    charts::by_period(&tokens),
                    Unit::Count,
                    "tokens",
                    "tokens per model over time",
                    width,
                ),
                charts::over_time_svg(
                    charts::by_period(&cost),
                    Unit::NanoUsd,
                    "estimated",
                    "estimated cost per model over time",
                    width,
                ),
            )
        };
        Charts {
            activity: charts::calendar_svg(&figures.messages_per_day, width),
            models,
            tokens,
            cost,
            lengths: charts::length_histogram_svg(&figures.length_buckets, width),
        }
    }
}
