//! Usage reports: normalized usage entries grouped by day, week, month, session, model or
//! project, with the estimated cost from a model price table. Integer arithmetic throughout
//! (costs in micro-dollars), so the same entries give the same figures natively and in wasm.

pub mod claude_code;
pub mod codex;
mod table;

pub use table::render_table;

use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::{Provider, ReadStats, UsageEntry};
use chrono::{Datelike, Duration, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How rows are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// `YYYY-MM-DD` (UTC).
    Daily,
    /// The Monday that starts the week, `YYYY-MM-DD` (UTC).
    Weekly,
    /// `YYYY-MM` (UTC).
    Monthly,
    /// The provider's session id.
    Session,
    /// The model.
    Model,
    /// The working directory.
    Project,
}

impl std::str::FromStr for GroupBy {
    type Err = Error;
    fn from_str(text: &str) -> Result<GroupBy> {
        Ok(match text {
            "daily" => GroupBy::Daily,
            "weekly" => GroupBy::Weekly,
            "monthly" => GroupBy::Monthly,
            "session" => GroupBy::Session,
            "model" => GroupBy::Model,
            "project" => GroupBy::Project,
            other => {
                return Err(Error::invalid(
                    "group_by",
                    format!("`{other}`: use daily, weekly, monthly, session, model or project"),
                ));
            }
        })
    }
}

/// A model's prices in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Uncached input.
    pub input: f64,
    /// Output (reasoning included).
    pub output: f64,
    /// Writing to the prompt cache.
    #[serde(default)]
    pub cache_write: f64,
    /// Reading from the prompt cache.
    #[serde(default)]
    pub cache_read: f64,
}

/// Model prices, looked up by exact name, else by the longest table key the name starts with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    /// When and where the prices were taken from.
    pub source: String,
    /// Prices by model name or name prefix.
    pub models: BTreeMap<String, ModelPrice>,
}

/// The price table shipped with Baton (works offline; override it with a file of this shape).
pub const DEFAULT_PRICES: &str = include_str!("prices.json");

impl PriceTable {
    /// The shipped table.
    pub fn shipped() -> PriceTable {
        serde_json::from_str(DEFAULT_PRICES).unwrap_or(PriceTable {
            source: "empty".into(),
            models: BTreeMap::new(),
        })
    }

    /// A table from JSON text.
    pub fn parse(text: &str) -> Result<PriceTable> {
        serde_json::from_str(text)
            .map_err(|e| Error::invalid("prices", format!("not a price table: {e}")))
    }

    /// The price of a model, if known.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        self.models.get(model).or_else(|| {
            self.models
                .iter()
                .filter(|(key, _)| model.starts_with(key.as_str()))
                .max_by_key(|(key, _)| key.len())
                .map(|(_, price)| price)
        })
    }
}

/// Micro-dollars for `tokens` at `usd_per_mtok`.
fn micro_usd(tokens: u64, usd_per_mtok: f64) -> u128 {
    // Prices are quoted to at most 1/1000 cent per MTok: exact in thousandths of a micro-dollar.
    let nano_per_mtok = (usd_per_mtok * 1_000_000_000.0).round().max(0.0) as u128;
    u128::from(tokens) * nano_per_mtok / 1_000_000_000
}

/// One row of a report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageRow {
    /// The group's key (a date, session, model or project).
    pub key: String,
    /// The group's tokens.
    #[serde(flatten)]
    pub tokens: TokenTotals,
    /// input + output + cache creation + cache read.
    pub total_tokens: u64,
    /// Estimated cost in US dollars.
    pub cost_usd: f64,
    /// Models seen in the group.
    pub models: Vec<String>,
    #[serde(skip)]
    cost_micro: u128,
}

impl UsageRow {
    fn add(&mut self, entry: &UsageEntry, cost_micro: u128) {
        self.tokens.add(&entry.tokens);
        self.total_tokens = self.tokens.total();
        self.cost_micro += cost_micro;
    }

    fn seal(&mut self, models: BTreeSet<String>) {
        self.cost_usd = self.cost_micro as f64 / 1_000_000.0;
        self.models = models.into_iter().collect();
    }
}

/// A usage report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageReport {
    /// How rows are keyed.
    pub group_by: GroupBy,
    /// The rows, by key.
    pub rows: Vec<UsageRow>,
    /// Everything together.
    pub totals: UsageRow,
    /// Models without a price (their cost counts as 0).
    pub unpriced_models: Vec<String>,
    /// What the readers skipped, and why.
    pub skipped: BTreeMap<String, u64>,
}

/// A usage report's `skipped` section: what the readers left out, and why, under the names
/// every host reports (Claude Code's reader merged over all its files, Codex's per rollout).
pub fn skipped_counts(
    claude: &ReadStats,
    codex: &[ReadStats],
    unreadable_files: u64,
) -> BTreeMap<String, u64> {
    let mut skipped: BTreeMap<String, u64> = BTreeMap::new();
    let mut count = |name: &str, n: u64| *skipped.entry(name.to_owned()).or_default() += n;
    for stats in codex {
        count("malformed_lines", stats.malformed);
        count("duplicate_token_counts", stats.duplicates);
        count("repaired_surrogate_lines", stats.repaired_surrogates);
    }
    count("malformed_lines", claude.malformed);
    count("duplicate_responses", claude.duplicates);
    count("synthetic_responses", claude.synthetic);
    count("repaired_surrogate_lines", claude.repaired_surrogates);
    count("unreadable_files", unreadable_files);
    skipped
}

/// The row key of an entry.
pub(crate) fn key_of(entry: &UsageEntry, group_by: GroupBy) -> String {
    let date = Utc
        .timestamp_millis_opt(entry.at.millis())
        .single()
        .unwrap_or_default()
        .date_naive();
    match group_by {
        GroupBy::Daily => date.format("%Y-%m-%d").to_string(),
        GroupBy::Weekly => (date
            - Duration::days(i64::from(date.weekday().num_days_from_monday())))
        .format("%Y-%m-%d")
        .to_string(),
        GroupBy::Monthly => date.format("%Y-%m").to_string(),
        GroupBy::Session => entry.session.to_string(),
        GroupBy::Model => entry.model.as_deref().unwrap_or("unknown").to_owned(),
        GroupBy::Project => entry.project.as_deref().unwrap_or("unknown").to_owned(),
    }
}

/// Groups entries (within `[since, until]` when given) into a report.
pub fn aggregate(
    entries: &[UsageEntry],
    group_by: GroupBy,
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    providers: &[Provider],
    prices: &PriceTable,
    skipped: BTreeMap<String, u64>,
) -> UsageReport {
    let mut rows: BTreeMap<String, (UsageRow, BTreeSet<String>)> = BTreeMap::new();
    let mut totals = UsageRow {
        key: "total".into(),
        ..UsageRow::default()
    };
    let mut all_models = BTreeSet::new();
    let mut unpriced = BTreeSet::new();
    for entry in entries {
        if since.is_some_and(|s| entry.at < s) || until.is_some_and(|u| entry.at > u) {
            continue;
        }
        if !providers.is_empty() && !providers.contains(&entry.provider) {
            continue;
        }
        let model = entry.model.as_deref().unwrap_or("unknown").to_owned();
        let cost = match prices.price(&model) {
            Some(p) => {
                micro_usd(entry.tokens.input_tokens, p.input)
                    + micro_usd(entry.tokens.output_tokens, p.output)
                    + micro_usd(entry.tokens.cache_creation_tokens, p.cache_write)
                    + micro_usd(entry.tokens.cache_read_tokens, p.cache_read)
            }
            None => {
                unpriced.insert(model.clone());
                0
            }
        };
        let key = key_of(entry, group_by);
        let (row, models) = rows.entry(key.clone()).or_insert_with(|| {
            (
                UsageRow {
                    key,
                    ..UsageRow::default()
                },
                BTreeSet::new(),
            )
        });
        row.add(entry, cost);
        models.insert(model.clone());
        totals.add(entry, cost);
        all_models.insert(model);
    }
    totals.seal(all_models);
    UsageReport {
        group_by,
        rows: rows
            .into_values()
            .map(|(mut row, models)| {
                row.seal(models);
                row
            })
            .collect(),
        totals,
        unpriced_models: unpriced.into_iter().collect(),
        skipped,
    }
}
