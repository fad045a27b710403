//! `baton usage --index`: the usage report from what the mirror keeps, equal byte for byte
//! to a read of the files, while the index also remembers transcripts whose files are gone.
//! Three ways, the quickest that gives the same report: the tallies' 15-minute sums (a
//! daily, weekly, monthly or per-model report over whole slots, in a zone whose days start on
//! a slot); else the rows that count (the tallies settled them), each with its session's
//! project; else, for an index whose tallies are not made yet, every row replayed through the
//! core's counting, as a read of the files does.

pub use super::rows::CountedRow;
use super::rows::{
    REST, asked_provider, entry_of, provider_of, slots_serve, sql, usage_query, wants,
};
use super::tally;
use crate::ops::usage::UsageOptions;
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::time::Zone;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::tally::UsageTally;
use baton_core::transcripts::usage::claude_code::Response;
use baton_core::transcripts::usage::{GroupBy, PriceTable, UsageReport};
use baton_core::transcripts::{Provider, ReadStats, UsageEntry};
use rusqlite::{Connection, OptionalExtension};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The report of every usage row the index holds, for the options' providers, days and
/// grouping.
pub fn report(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
) -> Result<UsageReport, Error> {
    let prices = crate::ops::usage::prices(options)?;
    // The tallies are split by the shipped table's thresholds (the same table, unless a
    // price file was given).
    let tiers = match options.prices {
        None => prices.long_context_thresholds(),
        Some(_) => tally::shipped_tiers(),
    };
    if !tally::is_current(connection, &tiers) {
        return replayed(connection, path, options, &prices);
    }
    let skipped = skipped(connection, path, options)?;
    if let Some(report) =
        super::windows::report(connection, path, options, &prices, &tiers, skipped.clone())?
    {
        return Ok(report);
    }
    // The 15-minute sums know no sessions (rows by work session need the rows) nor exact times
    // (a window's pace does).
    let exact = options.work_sessions.is_some() || options.windows.is_some();
    let slots = (!exact).then(|| slot_entries(connection, path, options, &prices, &tiers));
    let entries = match slots.transpose()?.flatten() {
        Some(entries) => entries,
        None => super::counted::counted_rows(connection, path, options)?
            .into_iter()
            .map(|row| row.entry)
            .collect(),
    };
    Ok(crate::ops::usage::report_of_entries(
        entries, skipped, options, &prices,
    ))
}

/// The responses that count (each once, with its session's project) written at or after
/// `since`, as `baton sync --usage` sends them; `None` while the index's tallies are not made
/// (a `baton mirror` pass makes them). A session's project is decided from all its responses,
/// those before `since` included, so it is the project a full report gives.
pub fn counted_since(
    connection: &Connection,
    path: &Path,
    since: Timestamp,
) -> Result<Option<Vec<CountedRow>>, Error> {
    if !tally::is_current(connection, &tally::shipped_tiers()) {
        return Ok(None);
    }
    let sessions: Vec<String> = connection
        .prepare(
            "SELECT DISTINCT n.text FROM usage u JOIN names n ON n.id = u.session
             WHERE u.counted = 1 AND u.at >= ?1",
        )
        .and_then(|mut s| {
            s.query_map([since.millis()], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(sql(path))?;
    let mut options =
        UsageOptions::everything(GroupBy::Daily, crate::os::zone::resolve(Some("UTC"))?);
    options.work_focus = Some(crate::ops::usage::WorkFocus {
        since,
        provider_ids: sessions,
    });
    let mut rows = super::counted::counted_rows(connection, path, &options)?;
    rows.retain(|row| row.entry.at >= since);
    Ok(Some(rows))
}

/// The responses that count (each once) of the agent sessions `sessions` (their provider ids),
/// written at or after `since`; `None` while the index's tallies are not made.
pub fn counted_of_sessions(
    connection: &Connection,
    path: &Path,
    since: Timestamp,
    sessions: Vec<String>,
) -> Result<Option<Vec<CountedRow>>, Error> {
    if !tally::is_current(connection, &tally::shipped_tiers()) {
        return Ok(None);
    }
    let wanted: std::collections::HashSet<String> = sessions.iter().cloned().collect();
    let mut options =
        UsageOptions::everything(GroupBy::Daily, crate::os::zone::resolve(Some("UTC"))?);
    options.work_focus = Some(crate::ops::usage::WorkFocus {
        since,
        provider_ids: sessions,
    });
    let mut rows = super::counted::counted_rows(connection, path, &options)?;
    rows.retain(|row| row.entry.at >= since && wanted.contains(&*row.entry.session));
    Ok(Some(rows))
}

/// How many responses count, and their tokens' total, on one UTC day.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DayDigest {
    /// Responses that count.
    pub responses: i64,
    /// Their input, output, cache and reasoning tokens, added.
    pub tokens: i64,
    /// How many were served fast, and their web searches (a row re-priced differs here).
    pub marks: (i64, i64),
}

/// Milliseconds in a day: a digest's day is `at / DAY_MS` (UTC).
pub const DAY_MS: i64 = 86_400_000;

/// The counted responses' digest per UTC day (days since 1970-01-01); `None` while the
/// index's tallies are not made. One aggregate over the index: a sync compares it with the
/// server's to find the days it must send.
pub fn counted_by_day(
    connection: &Connection,
    path: &Path,
) -> Result<Option<std::collections::BTreeMap<i64, DayDigest>>, Error> {
    if !tally::is_current(connection, &tally::shipped_tiers()) {
        return Ok(None);
    }
    let mut statement = connection
        .prepare(
            "SELECT u.at / ?1, count(*), sum(u.input_tokens + u.output_tokens
                    + u.cache_creation_tokens + u.cache_read_tokens + u.reasoning_tokens),
                    sum(u.fast <> 0), sum(u.web_searches)
             FROM sources s JOIN usage u ON u.source = s.id
             WHERE u.counted = 1
             GROUP BY 1",
        )
        .map_err(sql(path))?;
    let rows = statement
        .query_map([DAY_MS], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                DayDigest {
                    responses: r.get(1)?,
                    tokens: r.get::<_, Option<i64>>(2)?.unwrap_or(0),
                    marks: (
                        r.get::<_, Option<i64>>(3)?.unwrap_or(0),
                        r.get::<_, Option<i64>>(4)?.unwrap_or(0),
                    ),
                },
            ))
        })
        .map_err(sql(path))?;
    rows.collect::<rusqlite::Result<_>>()
        .map(Some)
        .map_err(sql(path))
}

/// What the readers skipped, from the tallies' sums of every source's stats (a response
/// left out as a repeat is a duplicate, as a read of the files counts it).
fn skipped(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
) -> Result<std::collections::BTreeMap<String, u64>, Error> {
    let mut tally = UsageTally::new();
    let mut statement = connection
        .prepare(
            "SELECT provider, lines, without_usage, malformed, repaired_surrogates, duplicates,
                    synthetic, dropped
             FROM usage_totals",
        )
        .map_err(sql(path))?;
    let mut rows = statement.query([]).map_err(sql(path))?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    while let Some(row) = rows.next().map_err(sql(path))? {
        let provider: String = row.get(0).map_err(sql(path))?;
        let n = |i: usize| -> Result<u64, Error> { Ok(count(row.get(i).map_err(sql(path))?)) };
        let stats = ReadStats {
            lines: n(1)?,
            without_usage: n(2)?,
            malformed: n(3)?,
            repaired_surrogates: n(4)?,
            duplicates: n(5)? + n(7)?,
            synthetic: n(6)?,
            // Lines too long to keep are in `skipped_lines`, not in the usage tallies.
            too_long: 0,
        };
        if let Some(provider) = Provider::named(&provider).filter(|p| wants(options, *p)) {
            tally.add_stats(provider, stats);
        }
    }
    Ok(tally.finish().1)
}

/// The entries of the tallies' slots, one per slot, model, tier and kind of cost, when they
/// give the report the rows would: a report keyed by day, week, month or model, over whole
/// slots, in a zone with each slot inside one day, priced by a table whose long-context
/// thresholds the tallies kept apart. `None` otherwise.
fn slot_entries(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
    prices: &PriceTable,
    tiers: &[u64],
) -> Result<Option<Vec<UsageEntry>>, Error> {
    let grouped_by_time_or_model = matches!(
        options.group_by,
        GroupBy::Daily | GroupBy::Weekly | GroupBy::Monthly | GroupBy::Model
    );
    if !(grouped_by_time_or_model && slots_serve(options, prices, tiers)) {
        return Ok(None);
    }
    // The window as slots (whole slots, checked above).
    let first_slot = options
        .since
        .map_or(i64::MIN, |s| s.millis().div_euclid(tally::SLOT_MILLIS));
    let last_slot = options
        .until
        .map_or(i64::MAX, |u| u.millis().div_euclid(tally::SLOT_MILLIS));
    let by_model = options.group_by == GroupBy::Model;
    // Each slot's row is added up here: SQLite's GROUP BY over them (a sorter) was slower.
    let sql_text = "SELECT provider, slot, model, tier, recorded, input_tokens, output_tokens,
                cache_creation_tokens, cache_read_tokens, reasoning_tokens,
                cache_creation_1h_tokens, recorded_cost_micro_usd, web_searches
         FROM usage_slots WHERE slot >= ?1 AND slot <= ?2";
    let mut statement = connection.prepare(sql_text).map_err(sql(path))?;
    let mut rows = statement
        .query([first_slot, last_slot])
        .map_err(sql(path))?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    // The slots merged per local day (or, by model, over the window), as costs add up: a
    // report then groups a few entries a day rather than one a slot.
    let mut merged: HashMap<(Provider, i64, i64, i64, bool), UsageEntry> = HashMap::new();
    // Rows come by provider and slot: the last slot's day is the one asked for again.
    let mut last_day: Option<(i64, Option<i64>)> = None;
    let empty: Arc<str> = Arc::from("");
    while let Some(row) = rows.next().map_err(sql(path))? {
        let Some(provider) = asked_provider(row, path, options)? else {
            continue;
        };
        let n = |i: usize| -> Result<i64, Error> { row.get(i).map_err(sql(path)) };
        let slot = n(1)?;
        let start = slot.saturating_mul(tally::SLOT_MILLIS);
        if options.since.is_some_and(|s| start < s.millis())
            || options.until.is_some_and(|u| start > u.millis())
        {
            continue;
        }
        // The local day the slot lies in, when it lies in one.
        // (A report by model needs no day: it holds whatever the zone.)
        let day = match last_day {
            _ if by_model => Some(0),
            Some((last, day)) if last == slot => day,
            _ => {
                let first = options.zone.offset_seconds(Timestamp::from_millis(start));
                let last = options
                    .zone
                    .offset_seconds(Timestamp::from_millis(start + tally::SLOT_MILLIS - 1));
                let day = (first == last
                    && i64::from(first).rem_euclid(tally::SLOT_MILLIS / 1000) == 0)
                    .then(|| (start + i64::from(first) * 1000).div_euclid(86_400_000));
                last_day = Some((slot, day));
                day
            }
        };
        let Some(day) = day else {
            return Ok(None);
        };
        let (model, tier, recorded) = (n(2)?, n(3)?, n(4)? != 0);
        let key = (
            provider,
            if by_model { 0 } else { day },
            model,
            tier,
            recorded,
        );
        let entry = merged.entry(key).or_insert_with(|| {
            let context = tally::context_of_tier(tier, tiers);
            UsageEntry {
                provider,
                at: Timestamp::from_millis(start),
                session: empty.clone(),
                project: None,
                // Named below, once per model.
                model: None,
                tokens: TokenTotals::default(),
                cache_creation_1h_tokens: 0,
                request_context_tokens: Some(context),
                recorded_cost_micro_usd: recorded.then_some(0),
                fast: tally::fast_of_tier(tier),
                web_searches: 0,
                delegated: tally::delegated_of_tier(tier),
            }
        });
        entry.tokens.add(&TokenTotals {
            input_tokens: count(n(5)?),
            output_tokens: count(n(6)?),
            cache_creation_tokens: count(n(7)?),
            cache_read_tokens: count(n(8)?),
            reasoning_tokens: count(n(9)?),
        });
        entry.cache_creation_1h_tokens += count(n(10)?);
        entry.web_searches += count(n(12)?);
        if let Some(cost) = &mut entry.recorded_cost_micro_usd {
            *cost += count(n(11)?);
        }
    }
    let mut entries: Vec<(i64, UsageEntry)> = merged
        .into_iter()
        .map(|((_, _, model, _, _), entry)| (model, entry))
        .collect();
    let mut names: HashMap<i64, Option<Arc<str>>> = HashMap::new();
    let mut name = connection
        .prepare("SELECT text FROM names WHERE id = ?1")
        .map_err(sql(path))?;
    for (model, entry) in &mut entries {
        if !names.contains_key(model) {
            let text: Option<String> = name
                .query_row([*model], |r| r.get(0))
                .optional()
                .map_err(sql(path))?;
            names.insert(*model, text.map(|t| Arc::from(t.as_str())));
        }
        entry.model = names.get(model).cloned().flatten();
    }
    Ok(Some(entries.into_iter().map(|(_, entry)| entry).collect()))
}

/// Every usage row replayed through the core's counting. Sources are replayed in the order
/// a read of the folders takes them (Claude Code, then Codex, each by path), and their lines
/// in file order.
fn replayed(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
    prices: &PriceTable,
) -> Result<UsageReport, Error> {
    let wants = |p: Provider| options.providers.is_empty() || options.providers.contains(&p);
    let mut tally = UsageTally::new();
    let mut sources = connection
        .prepare("SELECT provider, usage_stats, usage_pending FROM sources ORDER BY provider, path")
        .map_err(sql(path))?;
    let rows = sources
        .query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, Option<String>>(1)?,
                row.get::<_, Option<String>>(2)?,
            ))
        })
        .map_err(sql(path))?;
    let stats_of = |json: Option<String>| -> ReadStats {
        json.and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default()
    };
    for row in rows {
        let (provider, stats, pending) = row.map_err(sql(path))?;
        let mut stats = stats_of(stats);
        // An unfinished last line counts as it stands, as in a read of the file.
        stats.add(&stats_of(pending));
        if let Some(provider) = Provider::named(&provider).filter(|p| wants(*p)) {
            tally.add_stats(provider, stats);
        }
    }
    // Every name once, as the entries will share it.
    let (names, mut statement) = usage_query(
        connection,
        path,
        "u.sidechain, u.relayed, u.dedup_key, u.message_key
                 FROM usage u JOIN sources s ON s.id = u.source
                 ORDER BY s.provider, s.path, u.offset",
    )?;
    let name = |id: Option<i64>| id.and_then(|id| names.get(&id).cloned());
    let mut rows = statement.query([]).map_err(sql(path))?;
    // A stored key is a fingerprint's first 64 bits; equal keys stay equal.
    let key = |k: Option<i64>| k.map(|k| u128::from(k as u64) << 64);
    while let Some(row) = rows.next().map_err(sql(path))? {
        let Some(provider) = provider_of(row.get_ref(0).map_err(sql(path))?.as_str().unwrap_or(""))
        else {
            continue;
        };
        if !wants(provider) {
            continue;
        }
        let id = |i: usize| -> Result<Option<i64>, Error> { row.get(i).map_err(sql(path)) };
        let entry = entry_of(row, path, provider, &names)?;
        tally.replay(
            provider,
            Response {
                entry,
                folder: name(id(13)?),
                sidechain: row.get(REST).map_err(sql(path))?,
                relayed: row.get(REST + 1).map_err(sql(path))?,
                key: key(row.get(REST + 2).map_err(sql(path))?),
                message_id: key(row.get(REST + 3).map_err(sql(path))?),
            },
        );
    }
    Ok(crate::ops::usage::report_of(tally, options, prices))
}
