//! Usage reports: normalized usage entries grouped by day, week or month (in a time zone),
//! session, model or project, with the cost from a model price table or the cost lines
//! recorded. Integer arithmetic throughout (costs summed exactly in femto-dollars, shown to
//! the micro-dollar), so the same entries give the same figures natively and in wasm, and
//! entries summed first cost what they cost one by one.

pub mod claude_code;
pub mod codex;
mod csv;
mod entries;
pub mod keyed;
mod missing;
pub mod prices;
pub use missing::{MissingSource, describe_missing};
mod by_work;
pub mod summed_windows;
#[cfg(test)]
pub(crate) mod test_support;
pub mod windows;
pub mod work;
pub use by_work::{
    WorkSessionLinks, WorkSessions, aggregate_by_work_key, aggregate_by_work_session,
};

pub use entries::sort_by_time;
pub(crate) use entries::{drain_in_order, move_onto};

pub use prices::{CostMode, DEFAULT_PRICES, LongContextPrice, ModelPrice, PriceTable};

use crate::error::{Error, Result};
use crate::time::{Timestamp, Zone, local_date};
use crate::tokens::TokenTotals;
use crate::transcripts::{Provider, ReadStats, UsageEntry};
use chrono::{Datelike, Duration};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::collections::{BTreeMap, BTreeSet};

/// How rows are keyed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// `YYYY-MM-DD` in the report's zone.
    Daily,
    /// The Monday that starts the week, `YYYY-MM-DD` in the report's zone.
    Weekly,
    /// `YYYY-MM` in the report's zone.
    Monthly,
    /// The provider's session id.
    Session,
    /// The model.
    Model,
    /// The session's project: its first working directory.
    Project,
    /// The git branch the work session a response belongs to started on.
    Branch,
    /// The mission of the work session a response belongs to.
    Mission,
    /// The pull request the work session a response belongs to reported.
    PullRequest,
    /// The hand-off chain of the work session a response belongs to (its first session's
    /// path).
    Chain,
}

impl GroupBy {
    /// Whether rows are keyed by something of the work sessions' (a report that needs the
    /// ledger's sessions).
    pub fn is_by_work(self) -> bool {
        matches!(
            self,
            GroupBy::Branch | GroupBy::Mission | GroupBy::PullRequest | GroupBy::Chain
        )
    }
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
            "branch" => GroupBy::Branch,
            "mission" => GroupBy::Mission,
            "pr" | "pull_request" => GroupBy::PullRequest,
            "chain" => GroupBy::Chain,
            other => {
                return Err(Error::invalid(
                    "group_by",
                    format!(
                        "`{other}`: use daily, weekly, monthly, session, model, project, branch, mission, pr or chain"
                    ),
                ));
            }
        })
    }
}

/// One row of a report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
    /// A session's row: when its first counted response was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_at: Option<crate::time::Timestamp>,
    /// A session's row: when its last counted response was written (rows are in this order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_at: Option<crate::time::Timestamp>,
    /// A session's row: whose transcript it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Provider>,
    /// A session's row: its project (its first working folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Of `total_tokens`, what sub-agents used (Claude Code's sidechains, Codex's sub-agent
    /// rollouts): the rest is the sessions' own.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delegated_tokens: u64,
    /// Of `cost_usd`, what sub-agents' responses cost.
    #[serde(default, skip_serializing_if = "is_zero_usd")]
    pub delegated_cost_usd: f64,
    /// The exact cost, in femto-dollars (rounded to micro-dollars when shown).
    #[serde(skip)]
    cost_femto: u128,
    /// The exact cost of the sub-agents' part.
    #[serde(skip)]
    delegated_femto: u128,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_usd(n: &f64) -> bool {
    *n == 0.0
}

impl UsageRow {
    /// Takes in a session's response: its time, provider and project.
    fn note_session(&mut self, entry: &UsageEntry) {
        self.first_at = Some(self.first_at.map_or(entry.at, |t| t.min(entry.at)));
        self.last_at = Some(self.last_at.map_or(entry.at, |t| t.max(entry.at)));
        if self.provider.is_none() {
            self.provider = Some(entry.provider);
        }
        if self.project.is_none() {
            self.project = entry.project.as_deref().map(str::to_owned);
        }
    }

    fn add(&mut self, entry: &UsageEntry, cost_femto: u128) {
        self.tokens.add(&entry.tokens);
        self.total_tokens = self.tokens.total();
        self.cost_femto = self.cost_femto.saturating_add(cost_femto);
        if entry.delegated {
            self.delegated_tokens = self.delegated_tokens.saturating_add(entry.tokens.total());
            self.delegated_femto = self.delegated_femto.saturating_add(cost_femto);
        }
    }

    fn seal(&mut self, models: BTreeSet<String>) {
        self.cost_usd = (self.cost_femto / prices::FEMTO_PER_MICRO) as f64 / 1_000_000.0;
        self.delegated_cost_usd =
            (self.delegated_femto / prices::FEMTO_PER_MICRO) as f64 / 1_000_000.0;
        self.models = models.into_iter().collect();
    }
}

/// A usage report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageReport {
    /// How rows are keyed.
    pub group_by: GroupBy,
    /// The rows, by key.
    pub rows: Vec<UsageRow>,
    /// Everything together.
    pub totals: UsageRow,
    /// Models without a price (their cost counts as 0).
    pub unpriced_models: Vec<String>,
    /// Models priced through an alias rule, and the table key each was priced as.
    pub priced_as: BTreeMap<String, String>,
    /// Which cost is shown.
    pub cost_mode: CostMode,
    /// The price table's source and date.
    pub prices: PriceTableInfo,
    /// The zone days, weeks and months are taken in.
    pub timezone: String,
    /// Sources asked for that gave nothing (filled by the host that looked).
    pub missing_sources: Vec<MissingSource>,
    /// What the readers skipped, and why.
    pub skipped: BTreeMap<String, u64>,
    /// Agents whose sessions were found but whose files keep no token counts (Cursor): not
    /// counted, and never counted as zero (filled by the host that looked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without_tokens: Vec<String>,
    /// When rows are work sessions: each row's work session and the transcripts tied to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_sessions: Option<WorkSessions>,
    /// Usage by metered window (`usage blocks`), when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<windows::WindowsReport>,
}

/// Where a report's prices come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PriceTableInfo {
    /// The table's source.
    pub source: String,
    /// The day its prices were taken.
    pub date: String,
}

/// How a report is made: rows, window, providers, prices and zone.
#[derive(Debug)]
pub struct ReportOptions<'a> {
    /// How rows are keyed.
    pub group_by: GroupBy,
    /// First instant counted.
    pub since: Option<Timestamp>,
    /// Last instant counted.
    pub until: Option<Timestamp>,
    /// Which providers (empty: all).
    pub providers: &'a [Provider],
    /// The price table.
    pub prices: &'a PriceTable,
    /// Which cost to show.
    pub cost_mode: CostMode,
    /// The zone of days, weeks and months.
    pub zone: &'a dyn Zone,
}

impl ReportOptions<'_> {
    /// Whether a report counts `entry`: within `[since, until]` and of a provider asked for.
    pub fn admits(&self, entry: &UsageEntry) -> bool {
        self.since.is_none_or(|s| entry.at >= s)
            && self.until.is_none_or(|u| entry.at <= u)
            && (self.providers.is_empty() || self.providers.contains(&entry.provider))
    }
}

/// A session's project as one key: trailing separators off, and a Windows path (drive letter
/// or UNC) with an upper-case drive letter and backslashes only, so `c:/work/app/` and
/// `C:\work\app` are one project.
pub fn project_key(path: &str) -> String {
    let bytes = path.as_bytes();
    let windows = (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
        || path.starts_with("\\\\");
    if windows {
        let mut key: String = path.replace('/', "\\");
        if key.as_bytes()[1] == b':' {
            key[..1].make_ascii_uppercase();
        }
        while key.len() > 3 && key.ends_with('\\') {
            key.pop();
        }
        key
    } else {
        let trimmed = path.trim_end_matches('/');
        if trimmed.is_empty() && !path.is_empty() {
            "/".to_owned()
        } else {
            trimmed.to_owned()
        }
    }
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

/// A model's name as a person reads it in a table: `claude-sonnet-4-5-20250929` is
/// `sonnet-4.5`, `claude-3-5-haiku-20241022` is `haiku-3.5`, `gpt-4o-2024-08-06` is `gpt-4o`;
/// a name it does not know the shape of is kept whole. JSON keeps the full id.
pub fn short_model_name(model: &str) -> String {
    let mut parts: Vec<&str> = model.split('-').collect();
    // A trailing date: `20250929`, or `2024-08-06`.
    if parts
        .last()
        .is_some_and(|p| p.len() == 8 && p.bytes().all(|b| b.is_ascii_digit()))
    {
        parts.pop();
    } else if parts.len() > 3 {
        let tail = &parts[parts.len() - 3..];
        if tail[0].len() == 4
            && tail[1].len() == 2
            && tail[2].len() == 2
            && tail.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()))
        {
            parts.truncate(parts.len() - 3);
        }
    }
    if parts.first() != Some(&"claude") {
        return parts.join("-");
    }
    let rest = &parts[1..];
    let is_number = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (family, numbers): (Vec<&str>, Vec<&str>) = rest.iter().partition(|p| !is_number(p));
    match (family.as_slice(), numbers.as_slice()) {
        ([family], [major]) => format!("{family}-{major}"),
        ([family], [major, minor]) => format!("{family}-{major}.{minor}"),
        _ => parts.join("-"),
    }
}

/// The row key of an entry, borrowed from it when it names the key.
fn key_ref<'a>(
    entry: &'a UsageEntry,
    group_by: GroupBy,
    zone: &dyn Zone,
) -> std::borrow::Cow<'a, str> {
    use std::borrow::Cow;
    match group_by {
        // Rows by work-session key: the entries were keyed by it.
        GroupBy::Session
        | GroupBy::Branch
        | GroupBy::Mission
        | GroupBy::PullRequest
        | GroupBy::Chain => Cow::Borrowed(&entry.session),
        GroupBy::Model => Cow::Borrowed(entry.model.as_deref().unwrap_or("unknown")),
        GroupBy::Project => Cow::Borrowed(entry.project.as_deref().unwrap_or("unknown")),
        _ => Cow::Owned(key_of(entry, group_by, zone)),
    }
}

/// The row key of an entry.
pub(crate) fn key_of(entry: &UsageEntry, group_by: GroupBy, zone: &dyn Zone) -> String {
    let date = || local_date(entry.at, zone);
    match group_by {
        GroupBy::Daily => date().format("%Y-%m-%d").to_string(),
        GroupBy::Weekly => {
            let date = date();
            (date - Duration::days(i64::from(date.weekday().num_days_from_monday())))
                .format("%Y-%m-%d")
                .to_string()
        }
        GroupBy::Monthly => date().format("%Y-%m").to_string(),
        GroupBy::Session
        | GroupBy::Branch
        | GroupBy::Mission
        | GroupBy::PullRequest
        | GroupBy::Chain => entry.session.to_string(),
        GroupBy::Model => entry.model.as_deref().unwrap_or("unknown").to_owned(),
        GroupBy::Project => entry.project.as_deref().unwrap_or("unknown").to_owned(),
    }
}

/// How each model is priced, decided once per model.
struct Pricing<'a> {
    table: &'a PriceTable,
    mode: CostMode,
    resolved: HashMap<String, Option<&'a ModelPrice>>,
    unpriced: BTreeSet<String>,
    priced_as: BTreeMap<String, String>,
}

impl<'a> Pricing<'a> {
    /// The exact cost of one entry in femto-dollars, as the mode asks.
    fn cost(&mut self, entry: &UsageEntry, model: &str) -> u128 {
        let recorded = entry
            .recorded_cost_micro_usd
            .map(|micro| u128::from(micro) * prices::FEMTO_PER_MICRO);
        match (self.mode, recorded) {
            (CostMode::Display, recorded) => recorded.unwrap_or(0),
            (CostMode::Auto, Some(recorded)) => recorded,
            _ => match self.price(model) {
                Some(price) => price.cost_femto_usd(entry),
                None => 0,
            },
        }
    }

    fn price(&mut self, model: &str) -> Option<&'a ModelPrice> {
        if let Some(found) = self.resolved.get(model) {
            return *found;
        }
        let table = self.table;
        let found = table.resolve(model);
        match found {
            Some((key, _)) if key != model => {
                self.priced_as.insert(model.to_owned(), key.to_owned());
            }
            Some(_) => {}
            None => {
                self.unpriced.insert(model.to_owned());
            }
        }
        let price = found.map(|(_, price)| price);
        self.resolved.insert(model.to_owned(), price);
        price
    }
}

/// Groups entries (within `[since, until]` when given) into a report.
pub fn aggregate(
    entries: &[UsageEntry],
    options: &ReportOptions<'_>,
    skipped: BTreeMap<String, u64>,
) -> UsageReport {
    let mut rows: BTreeMap<String, (UsageRow, BTreeSet<String>)> = BTreeMap::new();
    let mut totals = UsageRow {
        key: "total".into(),
        ..UsageRow::default()
    };
    let mut all_models = BTreeSet::new();
    let mut pricing = Pricing {
        table: options.prices,
        mode: options.cost_mode,
        resolved: HashMap::new(),
        unpriced: BTreeSet::new(),
        priced_as: BTreeMap::new(),
    };
    for entry in entries {
        if !options.admits(entry) {
            continue;
        }
        let model = entry.model.as_deref().unwrap_or("unknown");
        let cost = pricing.cost(entry, model);
        // A key or model already seen is looked up by reference: an entry allocates nothing
        // unless it starts a row or names a new model.
        let key = key_ref(entry, options.group_by, options.zone);
        if !rows.contains_key(key.as_ref()) {
            let row = UsageRow {
                key: key.clone().into_owned(),
                ..UsageRow::default()
            };
            rows.insert(key.clone().into_owned(), (row, BTreeSet::new()));
        }
        if let Some((row, models)) = rows.get_mut(key.as_ref()) {
            row.add(entry, cost);
            if options.group_by == GroupBy::Session {
                row.note_session(entry);
            }
            if !models.contains(model) {
                models.insert(model.to_owned());
            }
        }
        totals.add(entry, cost);
        if !all_models.contains(model) {
            all_models.insert(model.to_owned());
        }
    }
    totals.seal(all_models);
    let mut rows: Vec<UsageRow> = rows
        .into_values()
        .map(|(mut row, models)| {
            row.seal(models);
            row
        })
        .collect();
    // Sessions in the order they were last active (the key breaks ties), the latest last.
    if options.group_by == GroupBy::Session {
        rows.sort_by(|a, b| a.last_at.cmp(&b.last_at).then_with(|| a.key.cmp(&b.key)));
    }
    UsageReport {
        group_by: options.group_by,
        rows,
        totals,
        unpriced_models: pricing.unpriced.into_iter().collect(),
        priced_as: pricing.priced_as,
        cost_mode: options.cost_mode,
        prices: PriceTableInfo {
            source: options.prices.source.clone(),
            date: options.prices.date.clone(),
        },
        timezone: options.zone.name(),
        missing_sources: Vec::new(),
        skipped,
        without_tokens: Vec::new(),
        work_sessions: None,
        windows: None,
    }
}

/// Every token of `entries` and what they cost in micro-dollars (recorded costs where lines
/// have them, else the price table; an unpriced model costs 0): what a hook records as a
/// transcript's usage.
pub fn totals_and_cost(entries: &[UsageEntry], prices: &PriceTable) -> (TokenTotals, u64) {
    let mut pricing = Pricing {
        table: prices,
        mode: CostMode::Auto,
        resolved: HashMap::new(),
        unpriced: BTreeSet::new(),
        priced_as: BTreeMap::new(),
    };
    let mut totals = TokenTotals::default();
    let mut femto: u128 = 0;
    for entry in entries {
        totals.add(&entry.tokens);
        let model = entry.model.as_deref().unwrap_or("unknown");
        femto = femto.saturating_add(pricing.cost(entry, model));
    }
    (
        totals,
        u64::try_from(femto / prices::FEMTO_PER_MICRO).unwrap_or(u64::MAX),
    )
}

/// Each entry's exact cost in femto-dollars, in order, as `mode` asks (an unpriced model
/// costs 0): what charts of cost over time add up.
pub fn costs_femto_usd(entries: &[UsageEntry], prices: &PriceTable, mode: CostMode) -> Vec<u128> {
    costs_of(entries.iter(), prices, mode)
}

/// Each entry's exact cost in femto-dollars, in order (see [`costs_femto_usd`]).
pub(crate) fn costs_of<'e>(
    entries: impl ExactSizeIterator<Item = &'e UsageEntry>,
    prices: &PriceTable,
    mode: CostMode,
) -> Vec<u128> {
    let mut pricing = Pricing {
        table: prices,
        mode,
        resolved: HashMap::new(),
        unpriced: BTreeSet::new(),
        priced_as: BTreeMap::new(),
    };
    entries
        .map(|entry| pricing.cost(entry, entry.model.as_deref().unwrap_or("unknown")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::short_model_name;

    #[test]
    fn model_names_are_short_as_people_say_them() {
        for (full, short) in [
            ("claude-sonnet-4-5-20250929", "sonnet-4.5"),
            ("claude-opus-4-1-20250805", "opus-4.1"),
            ("claude-sonnet-4-20250514", "sonnet-4"),
            ("claude-3-5-haiku-20241022", "haiku-3.5"),
            ("claude-3-7-sonnet-latest", "claude-3-7-sonnet-latest"),
            ("gpt-4o-2024-08-06", "gpt-4o"),
            ("gpt-5-codex", "gpt-5-codex"),
            ("unknown", "unknown"),
            ("", ""),
        ] {
            assert_eq!(short_model_name(full), short, "{full}");
        }
    }
}
