//! Plan windows and budgets from the index without a pass over every response: the tallies'
//! 15-minute sums give each window's start, end and totals (windows open on the hour and last
//! whole hours); the index of counted rows' times answers the rest for the few windows that
//! need it (the core's `summed_windows` says which).

use super::counted::counted_between;
use super::rows::{slots_serve, sql};
use super::tally;
use crate::ops::usage::UsageOptions;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::summed_windows::{Responses, Sum, windows_from_sums};
use baton_core::transcripts::usage::windows::{HOUR_MS, Keep, TokenLimit, WindowOptions};
use baton_core::transcripts::usage::{PriceTable, UsageReport};
use baton_core::transcripts::{Provider, UsageEntry};
use baton_core::{Error, Timestamp};
use rusqlite::{Connection, OptionalExtension};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The tallies' sums (one per slot, provider, model, price tier and kind of cost) of
/// `providers` (empty: all) in `[since, until]`, in time order; with `hourly`, the slots of
/// each hour added up into one sum per hour (all a window needs: windows open on the hour and
/// last whole hours), dated at the hour.
pub fn sums(
    connection: &Connection,
    path: &Path,
    providers: &[Provider],
    since: Option<Timestamp>,
    until: Option<Timestamp>,
    tiers: &[u64],
    hourly: bool,
) -> Result<Vec<Sum>, Error> {
    let first = since.map_or(i64::MIN, |s| s.millis().div_euclid(tally::SLOT_MILLIS));
    let last = until.map_or(i64::MAX, |u| u.millis().div_euclid(tally::SLOT_MILLIS));
    let grain = if hourly { HOUR_MS } else { tally::SLOT_MILLIS };
    let slots_in_grain = grain / tally::SLOT_MILLIS;
    // The models' names, looked up as they come (a long history has tens of thousands of
    // names, and a few models).
    let mut names: std::collections::HashMap<i64, Option<Arc<str>>> =
        std::collections::HashMap::new();
    let mut name_of = connection
        .prepare("SELECT text FROM names WHERE id = ?1")
        .map_err(sql(path))?;
    let mut statement = connection
        .prepare(
            "SELECT provider, slot, model, tier, recorded, input_tokens, output_tokens,
                    cache_creation_tokens, cache_read_tokens, reasoning_tokens,
                    cache_creation_1h_tokens, recorded_cost_micro_usd, entries, web_searches
             FROM usage_slots WHERE provider = ?1 AND slot >= ?2 AND slot <= ?3 AND entries > 0",
        )
        .map_err(sql(path))?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let empty: Arc<str> = Arc::from("");
    let mut sums = Vec::new();
    // Each provider's slots in order (the table's own order: nothing to sort), merged after.
    for provider in usage_providers(providers) {
        let mut rows = statement
            .query(rusqlite::params![provider.key(), first, last])
            .map_err(sql(path))?;
        // The sums of the hour (or slot) being read, by model, tier and kind of cost.
        let mut unit: Option<i64> = None;
        let mut pending: Vec<((i64, i64, bool), Sum)> = Vec::new();
        while let Some(row) = rows.next().map_err(sql(path))? {
            // Every column is a number (read without a conversion per column: a long
            // history is tens of thousands of rows).
            let mut v = [0i64; 14];
            for (i, value) in v.iter_mut().enumerate().skip(1) {
                *value = match row.get_ref(i).map_err(sql(path))? {
                    rusqlite::types::ValueRef::Integer(n) => n,
                    rusqlite::types::ValueRef::Null => 0,
                    other => {
                        return Err(sql(path)(rusqlite::Error::InvalidColumnType(
                            i,
                            "usage_slots".to_owned(),
                            other.data_type(),
                        )));
                    }
                };
            }
            let this_unit = v[1].div_euclid(slots_in_grain);
            if unit != Some(this_unit) {
                sums.extend(pending.drain(..).map(|(_, sum)| sum));
                unit = Some(this_unit);
            }
            let (model, tier, recorded) = (v[2], v[3], v[4] != 0);
            let key = (model, tier, recorded);
            if let Some((_, into)) = pending.iter_mut().find(|(k, _)| *k == key) {
                let entry = &mut into.entry;
                entry.tokens.input_tokens += count(v[5]);
                entry.tokens.output_tokens += count(v[6]);
                entry.tokens.cache_creation_tokens += count(v[7]);
                entry.tokens.cache_read_tokens += count(v[8]);
                entry.tokens.reasoning_tokens += count(v[9]);
                entry.cache_creation_1h_tokens += count(v[10]);
                if let Some(cost) = entry.recorded_cost_micro_usd.as_mut() {
                    *cost += count(v[11]);
                }
                entry.web_searches += count(v[13]);
                into.responses += count(v[12]);
                continue;
            }
            let sum = Sum {
                entry: UsageEntry {
                    provider,
                    at: Timestamp::from_millis(this_unit.saturating_mul(grain)),
                    session: empty.clone(),
                    project: None,
                    model: match names.get(&model) {
                        Some(known) => known.clone(),
                        None => {
                            let text: Option<String> = name_of
                                .query_row([model], |r| r.get(0))
                                .optional()
                                .map_err(sql(path))?;
                            let known = text.map(Arc::from);
                            names.insert(model, known.clone());
                            known
                        }
                    },
                    tokens: TokenTotals {
                        input_tokens: count(v[5]),
                        output_tokens: count(v[6]),
                        cache_creation_tokens: count(v[7]),
                        cache_read_tokens: count(v[8]),
                        reasoning_tokens: count(v[9]),
                    },
                    cache_creation_1h_tokens: count(v[10]),
                    request_context_tokens: Some(tally::context_of_tier(tier, tiers)),
                    recorded_cost_micro_usd: recorded.then(|| count(v[11])),
                    fast: tally::fast_of_tier(tier),
                    web_searches: count(v[13]),
                    delegated: tally::delegated_of_tier(tier),
                },
                responses: count(v[12]),
            };
            pending.push((key, sum));
        }
        sums.extend(pending.drain(..).map(|(_, sum)| sum));
    }
    // Runs already in order: the stable sort merges them.
    sums.sort_by_key(|s| s.entry.at);
    Ok(sums)
}

/// The providers that keep usage, of `asked` (empty: all): the tallies' first key, so each is
/// read by a seek rather than a pass over the table to learn which are there.
fn usage_providers(asked: &[Provider]) -> impl Iterator<Item = Provider> + '_ {
    Provider::ALL
        .into_iter()
        .filter(move |p| p.has_usage() && (asked.is_empty() || asked.contains(p)))
}

/// The hours before `before` with any counted response (of any provider), oldest first, back
/// to the last run of idle hours at least `length_ms` long: where a window opens depends on the
/// windows before it, but not across such a gap (whatever window was open has closed when it
/// ends), so a measure that reads sums from some instant on places these first (as sums of
/// nothing). Read back two days at a time, each provider's slots in their own order.
pub fn hours_before(
    connection: &Connection,
    path: &Path,
    before: Timestamp,
    length_ms: i64,
) -> Result<Vec<Timestamp>, Error> {
    const HOUR: i64 = 3_600_000;
    let per_hour = HOUR / tally::SLOT_MILLIS;
    let chunk = 48 * per_hour;
    let idle_hours = length_ms.max(HOUR).div_euclid(HOUR);
    let mut first_of = connection
        .prepare("SELECT min(slot) FROM usage_slots WHERE provider = ?1")
        .map_err(sql(path))?;
    let mut providers: Vec<(&str, Option<i64>)> = Vec::new();
    for provider in usage_providers(&[]) {
        let first: Option<i64> = first_of
            .query_row([provider.key()], |r| r.get(0))
            .map_err(sql(path))?;
        providers.push((provider.key(), first));
    }
    let Some(first) = providers.iter().filter_map(|(_, min)| *min).min() else {
        return Ok(Vec::new());
    };
    let mut statement = connection
        .prepare(
            "SELECT DISTINCT slot FROM usage_slots
             WHERE provider = ?1 AND slot >= ?2 AND slot < ?3 AND entries > 0",
        )
        .map_err(sql(path))?;
    let mut hours: std::collections::BTreeSet<i64> = std::collections::BTreeSet::new();
    let mut high = before.millis().div_euclid(tally::SLOT_MILLIS);
    // The hour `before` falls in: hours from it on are not read.
    let top = high.div_euclid(per_hour);
    loop {
        let low = high - chunk;
        for (provider, _) in &providers {
            let slots = statement
                .query_map(rusqlite::params![provider, low, high], |r| {
                    r.get::<_, i64>(0)
                })
                .map_err(sql(path))?;
            for slot in slots {
                hours.insert(slot.map_err(sql(path))?.div_euclid(per_hour));
            }
        }
        // The latest idle run long enough, among the hours read so far.
        let mut later = top;
        let gap_end = hours.iter().rev().find_map(|&hour| {
            let idle = later - hour - 1;
            later = hour;
            (idle >= idle_hours).then_some(hour + 1 + idle)
        });
        if let Some(end) = gap_end {
            hours.retain(|&hour| hour >= end);
            break;
        }
        if low <= first {
            break;
        }
        high = low;
    }
    Ok(hours
        .into_iter()
        .map(|hour| Timestamp::from_millis(hour.saturating_mul(HOUR)))
        .collect())
}

/// The sums a windows report of every provider over all days needs: when it keeps only
/// windows ending after some instant and measures no limit against past windows, the sums
/// from a window's length before that instant (no window it keeps opens earlier), after sums
/// of nothing at every hour used before (so the windows open as they did); else every sum.
fn sums_for(
    connection: &Connection,
    path: &Path,
    options: &WindowOptions,
    tiers: &[u64],
) -> Result<Vec<Sum>, Error> {
    let after = match options.keep {
        Keep::All => None,
        Keep::Active => Some(options.now),
        Keep::EndingAfter { at } => Some(at.min(options.now)),
    };
    let bound = after
        .filter(|_| options.token_limit != Some(TokenLimit::HighestPast))
        .map(|at| Timestamp::from_millis(at.millis() - options.length_ms.max(HOUR_MS)));
    let Some(bound) = bound else {
        return sums(connection, path, &[], None, None, tiers, true);
    };
    let mut out: Vec<Sum> = hours_before(connection, path, bound, options.length_ms)?
        .into_iter()
        .map(Sum::nothing_at)
        .collect();
    out.extend(sums(connection, path, &[], Some(bound), None, tiers, true)?);
    Ok(out)
}

/// The first (`{order}` ASC) or last (DESC) counted response in `[?1, ?2)` of the providers
/// named in JSON by ?3 (NULL: all).
pub(super) const EDGE: &str = "SELECT u.at FROM usage u
     WHERE u.counted = 1 AND u.at >= ?1 AND u.at < ?2
       AND (?3 IS NULL OR (SELECT provider FROM sources WHERE id = u.source)
            IN (SELECT value FROM json_each(?3)))
     ORDER BY u.at {order} LIMIT 1";

/// The index answering what sums cannot tell, for the providers asked for.
struct Indexed<'c> {
    connection: &'c Connection,
    path: &'c Path,
    providers: &'c [Provider],
    /// The providers as the index names them, as JSON (`None`: all).
    keys: Option<String>,
    /// Whether responses are tied to work sessions (their sessions' projects are then needed).
    linked: bool,
}

impl Indexed<'_> {
    fn edge(&self, start: Timestamp, end: Timestamp, last: bool) -> Result<Option<i64>, Error> {
        let order = if last { "DESC" } else { "ASC" };
        self.connection
            .prepare_cached(&EDGE.replace("{order}", order))
            .and_then(|mut statement| {
                statement
                    .query_row(
                        rusqlite::params![start.millis(), end.millis(), self.keys],
                        |r| r.get(0),
                    )
                    .optional()
            })
            .map_err(sql(self.path))
    }
}

impl Responses for Indexed<'_> {
    type Error = Error;

    fn bounds(
        &mut self,
        start: Timestamp,
        end: Timestamp,
    ) -> Result<Option<(Timestamp, Timestamp)>, Error> {
        let first = self.edge(start, end, false)?;
        let last = self.edge(start, end, true)?;
        Ok(first
            .zip(last)
            .map(|(a, b)| (Timestamp::from_millis(a), Timestamp::from_millis(b))))
    }

    fn within(&mut self, start: Timestamp, end: Timestamp) -> Result<Vec<UsageEntry>, Error> {
        counted_between(
            self.connection,
            self.path,
            start,
            Some(end),
            self.providers,
            self.linked,
        )
    }
}

/// The five-hour window open at `now`, from the index beside a ledger, with each user's share:
/// the work sessions of `sessions` (with the ledger's project folder) where responses link to
/// them, else the agent sessions. `None` when there is no index, its tallies are not made, or
/// no window is open. What `show` and the status line tell of a session's share of the window.
pub fn open_window(
    index: &Path,
    sessions: Option<(&[baton_core::ledger::session::Session], Option<&str>)>,
    now: Timestamp,
) -> Result<Option<baton_core::transcripts::usage::windows::UsageWindow>, Error> {
    use baton_core::transcripts::usage::windows::FIVE_HOURS_MS;
    use baton_core::transcripts::usage::{CostMode, GroupBy, ReportOptions};
    if !index.is_file() {
        return Ok(None);
    }
    // A status line cannot wait on a busy index.
    let connection =
        crate::index::open_existing_waiting(index, std::time::Duration::from_millis(200))?;
    let tiers = tally::shipped_tiers();
    if !tally::is_current(&connection, &tiers) {
        return Ok(None);
    }
    let prices = PriceTable::shipped();
    let report = ReportOptions {
        group_by: GroupBy::Daily,
        since: None,
        until: None,
        providers: &[],
        prices: &prices,
        cost_mode: CostMode::Auto,
        zone: &baton_core::time::UtcZone,
    };
    let options = WindowOptions {
        length_ms: FIVE_HOURS_MS,
        now,
        token_limit: None,
        by_session: true,
        keep: Keep::Active,
    };
    let sums = sums_for(&connection, index, &options, &tiers)?;
    let mut responses = Indexed {
        connection: &connection,
        path: index,
        providers: &[],
        keys: None,
        linked: sessions.is_some(),
    };
    let windows = windows_from_sums(&sums, &report, &options, sessions, &mut responses)?;
    Ok(windows.windows.into_iter().next())
}

/// The `usage blocks` report from the sums, when they serve (whole slots of the asked days,
/// prices the tallies split by): `None` otherwise, or when the report is not of windows.
pub fn report(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
    prices: &PriceTable,
    tiers: &[u64],
    skipped: BTreeMap<String, u64>,
) -> Result<Option<UsageReport>, Error> {
    let Some(asked) = &options.windows else {
        return Ok(None);
    };
    if !slots_serve(options, prices, tiers) {
        return Ok(None);
    }
    let sums = if options.providers.is_empty() && options.since.is_none() && options.until.is_none()
    {
        sums_for(connection, path, asked, tiers)?
    } else {
        // Hours serve when the asked days start and end on the hour (every zone but a few).
        let on_hours = options
            .since
            .is_none_or(|s| s.millis().rem_euclid(HOUR_MS) == 0)
            && options
                .until
                .is_none_or(|u| (u.millis() + 1).rem_euclid(HOUR_MS) == 0);
        sums(
            connection,
            path,
            &options.providers,
            options.since,
            options.until,
            tiers,
            on_hours,
        )?
    };
    let report_options = crate::ops::usage::report_options(options, prices);
    let sessions = options
        .work_sessions
        .as_deref()
        .map(|s| (s, options.work_root.as_deref()));
    let keys = (!options.providers.is_empty()).then(|| {
        serde_json::to_string(
            &options
                .providers
                .iter()
                .map(|p| p.key())
                .collect::<Vec<_>>(),
        )
        .unwrap_or_default()
    });
    let mut index = Indexed {
        connection,
        path,
        providers: &options.providers,
        keys,
        linked: sessions.is_some(),
    };
    let windows = windows_from_sums(&sums, &report_options, asked, sessions, &mut index)?;
    let entries: Vec<UsageEntry> = sums.into_iter().map(|s| s.entry).collect();
    Ok(Some(crate::ops::usage::windows_report(
        &entries,
        windows,
        skipped,
        options,
        &report_options,
    )))
}
