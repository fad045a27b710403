//! Reading the index's usage rows: the columns every query reads first, the names the rows
//! number, a row as the core's entry, which providers a report asks for, and when the
//! tallies' slots hold what a report counts. The readers of usage (`usage`, `counted`,
//! `windows`) share these.

use super::tally;
use crate::ops::usage::UsageOptions;
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::PriceTable;
use baton_core::transcripts::{Provider, UsageEntry};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The columns every query of usage rows reads first, in the order `entry_of` takes them.
macro_rules! usage_columns {
    () => {
        "s.provider, u.at, u.session, u.project, u.model, u.input_tokens, u.output_tokens,
         u.cache_creation_tokens, u.cache_read_tokens, u.reasoning_tokens,
         u.cache_creation_1h_tokens, u.request_context_tokens, u.recorded_cost_micro_usd,
         u.folder, u.fast, u.web_searches, u.sidechain"
    };
}

/// The first column after [`usage_columns!`]: a statement's own columns start here.
pub(crate) const REST: usize = 17;

/// A statement over usage rows reading [`usage_columns!`] first, then `rest`.
pub(crate) fn select(rest: &str) -> String {
    format!("SELECT {}, {rest}", usage_columns!())
}

/// The names the index keeps once (see [`names`]), and a statement over usage rows that reads
/// [`usage_columns!`] first, then `rest` (more columns, its `FROM` and the rest).
pub(crate) fn usage_query<'c>(
    connection: &'c Connection,
    path: &Path,
    rest: &str,
) -> Result<(HashMap<i64, Arc<str>>, rusqlite::Statement<'c>), Error> {
    let names = names(connection, path)?;
    let statement = connection.prepare(&select(rest)).map_err(sql(path))?;
    Ok((names, statement))
}

pub(crate) fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| crate::index::failure("read the index", path, e)
}

/// A response that counts, with the dedup key the mirror settled it by (`None` for a
/// response without one: a Codex delta, a line without a message id).
#[derive(Debug, Clone)]
pub struct CountedRow {
    /// The upper 64 bits of the core's dedup key: the same for every copy of one response,
    /// whichever copy counts.
    pub dedup_key: Option<i64>,
    /// The response as a report counts it, with its session's project.
    pub entry: UsageEntry,
}

pub(crate) fn wants(options: &UsageOptions, provider: Provider) -> bool {
    options.providers.is_empty() || options.providers.contains(&provider)
}

/// The provider of a row whose first column names it, when the report asks for it.
pub(crate) fn asked_provider(
    row: &rusqlite::Row,
    path: &Path,
    options: &UsageOptions,
) -> Result<Option<Provider>, Error> {
    let name = row.get_ref(0).map_err(sql(path))?.as_str().unwrap_or("");
    Ok(provider_of(name).filter(|p| wants(options, *p)))
}

/// The provider of an index key; a key of no provider with usage is none (never taken for
/// Claude Code's).
pub(crate) fn provider_of(name: &str) -> Option<Provider> {
    Provider::named(name).filter(|p| p.has_usage())
}

/// Every name's text by number, shared by the entries.
pub(crate) fn names(connection: &Connection, path: &Path) -> Result<HashMap<i64, Arc<str>>, Error> {
    let mut names = HashMap::new();
    let mut statement = connection
        .prepare("SELECT id, text FROM names")
        .map_err(sql(path))?;
    let rows = statement
        .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
        .map_err(sql(path))?;
    for row in rows {
        let (id, text) = row.map_err(sql(path))?;
        names.insert(id, Arc::from(text.as_str()));
    }
    Ok(names)
}

/// Whether the tallies' slots hold what a report of `options` counts: whole slots, priced by a
/// table whose long-context thresholds the tallies kept apart.
pub(crate) fn slots_serve(options: &UsageOptions, prices: &PriceTable, tiers: &[u64]) -> bool {
    let whole_slots = options
        .since
        .is_none_or(|s| s.millis().rem_euclid(tally::SLOT_MILLIS) == 0)
        && options
            .until
            .is_none_or(|u| (u.millis() + 1).rem_euclid(tally::SLOT_MILLIS) == 0);
    let priced_apart = prices
        .long_context_thresholds()
        .iter()
        .all(|t| tiers.contains(t));
    whole_slots && priced_apart
}

/// A usage row as an entry, from a query whose columns 1 to 12 are the row's time, session,
/// project, model, five token counts, one-hour writes, request context and recorded cost.
pub(crate) fn entry_of(
    row: &rusqlite::Row<'_>,
    path: &Path,
    provider: Provider,
    names: &HashMap<i64, Arc<str>>,
) -> Result<UsageEntry, Error> {
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let n = |i: usize| -> Result<u64, Error> { Ok(count(row.get(i).map_err(sql(path))?)) };
    let optional = |i: usize| -> Result<Option<u64>, Error> {
        Ok(row.get::<_, Option<i64>>(i).map_err(sql(path))?.map(count))
    };
    let name = |i: usize| -> Result<Option<Arc<str>>, Error> {
        let id: Option<i64> = row.get(i).map_err(sql(path))?;
        Ok(id.and_then(|id| names.get(&id).cloned()))
    };
    Ok(UsageEntry {
        provider,
        at: Timestamp::from_millis(row.get(1).map_err(sql(path))?),
        session: name(2)?.unwrap_or_else(|| Arc::from("")),
        project: name(3)?,
        model: name(4)?,
        tokens: TokenTotals {
            input_tokens: n(5)?,
            output_tokens: n(6)?,
            cache_creation_tokens: n(7)?,
            cache_read_tokens: n(8)?,
            reasoning_tokens: n(9)?,
        },
        cache_creation_1h_tokens: n(10)?,
        request_context_tokens: optional(11)?,
        recorded_cost_micro_usd: optional(12)?,
        fast: row.get::<_, i64>(14).map_err(sql(path))? != 0,
        web_searches: n(15)?,
        delegated: row.get::<_, i64>(16).map_err(sql(path))? != 0,
    })
}
