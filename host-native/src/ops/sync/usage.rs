//! `baton sync --usage`: the team's `baton_usage` rows of this machine kept equal to what its
//! mirror counts, day by day. A sync compares each UTC day's digest (responses and tokens) on
//! both sides and sends only the days that differ; a row's key is the response's dedup key, so
//! when the mirror settles on another copy of a response the server's row is corrected, not
//! doubled.

use super::BATCH;
use super::connect::pg_error;
use crate::ops::mirror::usage::{CountedRow, DAY_MS, DayDigest};
use crate::store::Ledger;
use baton_core::Error;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// What one sync did with the mirror's usage rows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct UsageSent {
    /// UTC days whose responses or tokens differed between the mirror and the server.
    pub days: u64,
    /// Counted responses read from the mirror for those days.
    pub read: u64,
    /// Rows the server did not have.
    pub inserted: u64,
    /// Rows the server had with other figures (the mirror settled on another copy).
    pub corrected: u64,
    /// Rows of those days the mirror no longer counts, removed from the server.
    pub removed: u64,
    /// Why none were sent, when none could be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl UsageSent {
    /// Rows the sync changed on the server.
    pub fn changed(&self) -> u64 {
        self.inserted + self.corrected + self.removed
    }

    fn skipped(why: String) -> UsageSent {
        UsageSent {
            skipped: Some(why),
            ..UsageSent::default()
        }
    }
}

/// A day of `at` (milliseconds): the same division the mirror's digest makes.
fn day_of(at_ms: i64) -> i64 {
    at_ms / DAY_MS
}

/// Brings this machine's rows on the server to what the mirror counts, on every day where the
/// two differ. Days the mirror holds nothing of are left as the server has them.
pub async fn sync_usage(
    client: &mut tokio_postgres::Client,
    ledger: &Ledger,
    machine: uuid::Uuid,
) -> Result<UsageSent, Error> {
    let index = crate::index::path_for(ledger.dir());
    if !index.is_file() {
        return Ok(UsageSent::skipped(format!(
            "no mirror index at {}: run `baton mirror` first",
            index.display()
        )));
    }
    let connection = crate::index::open_existing(&index)?;
    let not_made = || {
        UsageSent::skipped("the mirror's tallies are not made yet: run `baton mirror`".to_owned())
    };
    let Some(local) = crate::ops::mirror::usage::counted_by_day(&connection, &index)? else {
        return Ok(not_made());
    };
    let server = server_days(client, machine).await?;
    let days: BTreeSet<i64> = local
        .iter()
        .filter(|(day, digest)| server.get(day) != Some(digest))
        .map(|(day, _)| *day)
        .collect();
    let mut sent = UsageSent {
        days: days.len() as u64,
        ..UsageSent::default()
    };
    let (Some(&first), Some(&last)) = (days.first(), days.last()) else {
        return Ok(sent);
    };
    let since = baton_core::Timestamp::from_millis(first * DAY_MS);
    let Some(rows) = crate::ops::mirror::usage::counted_since(&connection, &index, since)? else {
        return Ok(not_made());
    };
    // Two rows with one key (identical Codex deltas) are both kept: the later ones numbered.
    let mut seen: HashMap<String, usize> = HashMap::new();
    let rows: Vec<(String, CountedRow)> = rows
        .into_iter()
        .filter(|row| days.contains(&day_of(row.entry.at.millis())))
        .map(|row| {
            let key = key_of(&row);
            let repeats = seen.entry(key.clone()).or_default();
            *repeats += 1;
            match *repeats {
                1 => (key, row),
                n => (format!("{key}#{n}"), row),
            }
        })
        .collect();
    sent.read = rows.len() as u64;
    let tx = client
        .transaction()
        .await
        .map_err(|e| pg_error("begin", e))?;
    for batch in rows.chunks(BATCH) {
        let (inserted, corrected) = upsert(&tx, machine, batch).await?;
        sent.inserted += inserted;
        sent.corrected += corrected;
    }
    // What the server holds of those days that the mirror no longer counts.
    let counted: HashSet<&str> = rows.iter().map(|(key, _)| key.as_str()).collect();
    let held = tx
        .query(
            "SELECT key, (extract(epoch FROM at) * 1000)::bigint FROM baton_usage
             WHERE machine = $1 AND at >= $2 AND at < $3",
            &[&machine, &utc(first * DAY_MS), &utc((last + 1) * DAY_MS)],
        )
        .await
        .map_err(|e| pg_error("read the usage rows of the days that differ", e))?;
    let stale: Vec<String> = held
        .iter()
        .filter(|row| days.contains(&day_of(row.get::<_, i64>(1))))
        .map(|row| row.get::<_, String>(0))
        .filter(|key| !counted.contains(key.as_str()))
        .collect();
    if !stale.is_empty() {
        sent.removed = tx
            .execute(
                "DELETE FROM baton_usage WHERE machine = $1 AND key = ANY($2)",
                &[&machine, &stale],
            )
            .await
            .map_err(|e| pg_error("remove usage rows the mirror no longer counts", e))?;
    }
    tx.commit().await.map_err(|e| pg_error("commit", e))?;
    Ok(sent)
}

fn utc(at_ms: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(at_ms).unwrap_or_default()
}

/// This machine's digest per UTC day, as the server holds it.
async fn server_days(
    client: &tokio_postgres::Client,
    machine: uuid::Uuid,
) -> Result<BTreeMap<i64, DayDigest>, Error> {
    let rows = client
        .query(
            "SELECT (extract(epoch FROM at) * 1000)::bigint / $2, count(*),
                    sum(input_tokens + output_tokens + cache_creation_tokens + cache_read_tokens
                        + reasoning_tokens)::bigint,
                    count(*) FILTER (WHERE fast), sum(web_searches)::bigint
             FROM baton_usage WHERE machine = $1 GROUP BY 1",
            &[&machine, &DAY_MS],
        )
        .await
        .map_err(|e| pg_error("read the usage digest", e))?;
    Ok(rows
        .iter()
        .map(|row| {
            (
                row.get::<_, i64>(0),
                DayDigest {
                    responses: row.get(1),
                    tokens: row.get::<_, Option<i64>>(2).unwrap_or(0),
                    marks: (row.get(3), row.get::<_, Option<i64>>(4).unwrap_or(0)),
                },
            )
        })
        .collect())
}

/// A row's key: the provider and the response's dedup key, the same for every copy of it;
/// a response without one (a Codex delta) by its session, time, model and tokens.
fn key_of(row: &CountedRow) -> String {
    let e = &row.entry;
    let provider = e.provider.key();
    match row.dedup_key {
        Some(key) => format!("{provider}/{:016x}", key as u64),
        None => format!(
            "{provider}/{}/{}/{}/{}/{}/{}/{}/{}",
            e.session,
            e.at.millis(),
            e.model.as_deref().unwrap_or(""),
            e.tokens.input_tokens,
            e.tokens.output_tokens,
            e.tokens.cache_creation_tokens,
            e.tokens.cache_read_tokens,
            e.tokens.reasoning_tokens
        ),
    }
}

/// Inserts one batch, correcting rows whose figures changed; returns (inserted, corrected).
async fn upsert(
    tx: &tokio_postgres::Transaction<'_>,
    machine: uuid::Uuid,
    batch: &[(String, CountedRow)],
) -> Result<(u64, u64), Error> {
    let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    let entries = || batch.iter().map(|(_, row)| &row.entry);
    let keys: Vec<&str> = batch.iter().map(|(key, _)| key.as_str()).collect();
    let providers: Vec<&str> = entries().map(|e| e.provider.key()).collect();
    let sessions: Vec<&str> = entries().map(|e| &*e.session).collect();
    let ats: Vec<chrono::DateTime<chrono::Utc>> = entries().map(|e| utc(e.at.millis())).collect();
    let projects: Vec<Option<&str>> = entries().map(|e| e.project.as_deref()).collect();
    let models: Vec<Option<&str>> = entries().map(|e| e.model.as_deref()).collect();
    let tokens = |f: fn(&baton_core::transcripts::UsageEntry) -> u64| -> Vec<i64> {
        entries().map(|e| count(f(e))).collect()
    };
    let input = tokens(|e| e.tokens.input_tokens);
    let output = tokens(|e| e.tokens.output_tokens);
    let cache_creation = tokens(|e| e.tokens.cache_creation_tokens);
    let cache_read = tokens(|e| e.tokens.cache_read_tokens);
    let reasoning = tokens(|e| e.tokens.reasoning_tokens);
    let cache_1h = tokens(|e| e.cache_creation_1h_tokens);
    let context: Vec<Option<i64>> = entries()
        .map(|e| e.request_context_tokens.map(count))
        .collect();
    let recorded: Vec<Option<i64>> = entries()
        .map(|e| e.recorded_cost_micro_usd.map(count))
        .collect();
    let fast: Vec<bool> = entries().map(|e| e.fast).collect();
    let searches = tokens(|e| e.web_searches);
    // `xmax = 0` tells a row inserted from one updated; an unchanged row returns nothing.
    let rows = tx
        .query(
            "INSERT INTO baton_usage AS u (machine, key, provider, provider_session, at, project,
                 model, input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
                 reasoning_tokens, cache_creation_1h_tokens, request_context_tokens,
                 recorded_cost_micro_usd, fast, web_searches)
             SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[],
                 $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[],
                 $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[],
                 $16::boolean[], $17::bigint[])
             ON CONFLICT (machine, key) DO UPDATE SET
                 provider = excluded.provider, provider_session = excluded.provider_session,
                 at = excluded.at, project = excluded.project, model = excluded.model,
                 input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
                 cache_creation_tokens = excluded.cache_creation_tokens,
                 cache_read_tokens = excluded.cache_read_tokens,
                 reasoning_tokens = excluded.reasoning_tokens,
                 cache_creation_1h_tokens = excluded.cache_creation_1h_tokens,
                 request_context_tokens = excluded.request_context_tokens,
                 recorded_cost_micro_usd = excluded.recorded_cost_micro_usd,
                 fast = excluded.fast, web_searches = excluded.web_searches
             WHERE (u.provider, u.provider_session, u.at, u.project, u.model, u.input_tokens,
                    u.output_tokens, u.cache_creation_tokens, u.cache_read_tokens,
                    u.reasoning_tokens, u.cache_creation_1h_tokens, u.request_context_tokens,
                    u.recorded_cost_micro_usd, u.fast, u.web_searches)
                 IS DISTINCT FROM
                   (excluded.provider, excluded.provider_session, excluded.at, excluded.project,
                    excluded.model, excluded.input_tokens, excluded.output_tokens,
                    excluded.cache_creation_tokens, excluded.cache_read_tokens,
                    excluded.reasoning_tokens, excluded.cache_creation_1h_tokens,
                    excluded.request_context_tokens, excluded.recorded_cost_micro_usd,
                    excluded.fast, excluded.web_searches)
             RETURNING (xmax = 0)",
            &[
                &machine,
                &keys,
                &providers,
                &sessions,
                &ats,
                &projects,
                &models,
                &input,
                &output,
                &cache_creation,
                &cache_read,
                &reasoning,
                &cache_1h,
                &context,
                &recorded,
                &fast,
                &searches,
            ],
        )
        .await
        .map_err(|e| pg_error("send usage rows", e))?;
    let inserted = rows.iter().filter(|row| row.get::<_, bool>(0)).count() as u64;
    Ok((inserted, rows.len() as u64 - inserted))
}
