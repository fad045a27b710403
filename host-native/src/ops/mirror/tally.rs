//! What the usage rows add up to, kept current as rows come and go, so a report need not
//! replay them: which rows count (each response once: a message id's rows are settled
//! together by the core's rule, as a read of every file would settle them), and sums of the
//! counted rows per provider, 15-minute slot, model, long-context tier and kind of cost,
//! which SQLite triggers keep exact as rows are added, removed or recounted. A daily,
//! weekly, monthly or per-model report reads the sums.

use baton_core::Timestamp;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::PriceTable;
use baton_core::transcripts::usage::claude_code::{ClaudeCodeUsage, Response};
use baton_core::transcripts::usage::keyed::{KeyedRows, Named};
use baton_core::transcripts::{Provider, UsageEntry};
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The length of a slot: every time zone's offset is a multiple of it, so a slot lies in one
/// local day.
pub const SLOT_MILLIS: i64 = 15 * 60 * 1000;
/// The version of the tallies' rules; an index with another is tallied again.
const VERSION: &str = "3";

/// The token columns summed, in order.
const SUMMED: [&str; 7] = [
    "input_tokens",
    "output_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
    "cache_creation_1h_tokens",
    "web_searches",
];

/// Added to a slot's tier when its responses were served fast (a tier below it counts the
/// long-context thresholds passed).
pub const FAST_TIER: i64 = 16;

/// Added to a slot's tier when its responses were a sub-agent's (see [`FAST_TIER`]).
pub const DELEGATED_TIER: i64 = 32;

/// Whether a slot's `tier` holds responses served fast.
pub fn fast_of_tier(tier: i64) -> bool {
    tier & FAST_TIER != 0
}

/// Whether a slot's `tier` holds a sub-agent's responses.
pub fn delegated_of_tier(tier: i64) -> bool {
    tier & DELEGATED_TIER != 0
}

/// The stats a source's lines held, summed per provider.
const STATS: [&str; 6] = [
    "lines",
    "without_usage",
    "malformed",
    "repaired_surrogates",
    "duplicates",
    "synthetic",
];

/// What the tallies were made under: their version and the long-context thresholds.
fn stamp(tiers: &[u64]) -> String {
    let tiers: Vec<String> = tiers.iter().map(u64::to_string).collect();
    format!("{VERSION}:{}", tiers.join(","))
}

/// The request context a slot's `tier` stands for: above exactly the first `tier` of
/// `tiers` (less [`FAST_TIER`]), so it prices as its rows did.
pub fn context_of_tier(tier: i64, tiers: &[u64]) -> u64 {
    // The flags are bits above the thresholds' count.
    match usize::try_from(tier & (FAST_TIER - 1)).unwrap_or(0) {
        0 => 0,
        k => tiers.get(k - 1).map_or(0, |t| t + 1),
    }
}

/// The thresholds the shipped prices split requests by.
pub fn shipped_tiers() -> Vec<u64> {
    PriceTable::shipped().long_context_thresholds()
}

/// A row's tier: how many of `tiers` its input context is above, plus [`FAST_TIER`] when it
/// was served fast and [`DELEGATED_TIER`] when a sub-agent made it (`row` is `NEW` or `OLD` in
/// a trigger, or a table alias).
fn tier_sql(row: &str, tiers: &[u64]) -> String {
    tier_expression(&format!("{row}."), tiers, Dialect::Sqlite)
}

/// Where a tier is worked out: the index's SQLite, or the team's PostgreSQL (whose usage rows
/// hold `fast` as a boolean and do not say which were a sub-agent's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// The index.
    Sqlite,
    /// The team database's `baton_usage`.
    Postgres,
}

/// The tier of a usage row whose columns are named with `prefix` (`NEW.`, `u.`, or none), in
/// `dialect`: the one rule for the tallies and the team's sums alike.
pub fn tier_expression(prefix: &str, tiers: &[u64], dialect: Dialect) -> String {
    let context = format!(
        "coalesce({prefix}request_context_tokens, {prefix}input_tokens + {prefix}cache_creation_tokens + {prefix}cache_read_tokens)"
    );
    // A condition as 0 or 1 (SQLite's comparisons already are).
    let number = |condition: String| match dialect {
        Dialect::Sqlite => format!("({condition})"),
        Dialect::Postgres => format!("({condition})::int"),
    };
    let mut parts: Vec<String> = tiers
        .iter()
        .map(|t| number(format!("{context} > {t}")))
        .collect();
    match dialect {
        Dialect::Sqlite => {
            parts.push(format!(
                "{FAST_TIER} * {}",
                number(format!("{prefix}fast <> 0"))
            ));
            parts.push(format!(
                "{DELEGATED_TIER} * {}",
                number(format!("{prefix}sidechain <> 0"))
            ));
        }
        Dialect::Postgres => {
            parts.push(format!("{FAST_TIER} * {}", number(format!("{prefix}fast"))))
        }
    }
    format!("({})", parts.join(" + "))
}

/// A row's slot: its time's 15-minute slot (rounded down, also before 1970).
fn slot_sql(row: &str) -> String {
    format!(
        "(({row}.at - ((({row}.at % {SLOT_MILLIS}) + {SLOT_MILLIS}) % {SLOT_MILLIS})) / {SLOT_MILLIS})"
    )
}

/// The statements that add (`sign` 1) or take away (-1) one row's figures: to the sums when
/// it counts, else to the count of rows left out. (A trigger body has no IF: each statement
/// carries the row's condition. An upsert from a SELECT needs its WHERE, which it has.)
fn row_change(row: &str, sign: i64, tiers: &[u64]) -> String {
    let provider = format!("(SELECT provider FROM sources WHERE id = {row}.source)");
    let values: Vec<String> = SUMMED
        .iter()
        .map(|c| match *c {
            // A row's one-hour writes are never more than its writes.
            "cache_creation_1h_tokens" => {
                format!("{sign} * min({row}.{c}, {row}.cache_creation_tokens)")
            }
            _ => format!("{sign} * {row}.{c}"),
        })
        .collect();
    let sums: Vec<String> = SUMMED
        .iter()
        .chain(["recorded_cost_micro_usd", "entries"].iter())
        .map(|c| format!("{c} = {c} + excluded.{c}"))
        .collect();
    let emptied = if sign < 0 {
        emptied(row, tiers)
    } else {
        String::new()
    };
    format!(
        "INSERT INTO usage_slots (provider, slot, model, tier, recorded, {columns},
             recorded_cost_micro_usd, entries)
         SELECT {provider}, {slot}, coalesce({row}.model, 0), {tier},
             {row}.recorded_cost_micro_usd IS NOT NULL, {values},
             {sign} * coalesce({row}.recorded_cost_micro_usd, 0), {sign}
         WHERE {row}.counted = 1
         ON CONFLICT (provider, slot, model, tier, recorded) DO UPDATE SET {sums};
         {emptied}
         INSERT INTO usage_totals (provider, dropped) SELECT {provider}, {sign}
         WHERE {row}.counted = 0
         ON CONFLICT (provider) DO UPDATE SET dropped = dropped + excluded.dropped;",
        columns = SUMMED.join(", "),
        slot = slot_sql(row),
        tier = tier_sql(row, tiers),
        values = values.join(", "),
        sums = sums.join(", "),
    )
}

/// The slot a row taken away may have emptied goes.
fn emptied(row: &str, tiers: &[u64]) -> String {
    format!(
        "DELETE FROM usage_slots WHERE {row}.counted = 1 AND entries = 0
             AND provider = (SELECT provider FROM sources WHERE id = {row}.source)
             AND slot = {slot} AND model = coalesce({row}.model, 0) AND tier = {tier}
             AND recorded = ({row}.recorded_cost_micro_usd IS NOT NULL);",
        slot = slot_sql(row),
        tier = tier_sql(row, tiers),
    )
}

/// The triggers that keep the sums as rows change.
fn triggers_sql(tiers: &[u64]) -> String {
    let stat = |row: &str, c: &str| {
        format!(
            "coalesce(json_extract({row}.usage_stats, '$.{c}'), 0) + coalesce(json_extract({row}.usage_pending, '$.{c}'), 0)"
        )
    };
    let stats_values: Vec<String> = STATS
        .iter()
        .map(|c| format!("{} - ({})", stat("NEW", c), stat("OLD", c)))
        .collect();
    let stats_sums: Vec<String> = STATS
        .iter()
        .map(|c| format!("{c} = {c} + excluded.{c}"))
        .collect();
    format!(
        "{DROP_TRIGGERS}
         CREATE TRIGGER usage_added AFTER INSERT ON usage BEGIN
             {add_new}
         END;
         CREATE TRIGGER usage_removed AFTER DELETE ON usage BEGIN
             {remove_old}
         END;
         CREATE TRIGGER usage_recounted AFTER UPDATE OF counted ON usage
             WHEN OLD.counted <> NEW.counted BEGIN
             {remove_old}
             {add_new}
         END;
         CREATE TRIGGER usage_stats_changed AFTER UPDATE OF usage_stats, usage_pending ON sources
         BEGIN
             INSERT INTO usage_totals (provider, {stats_columns})
             SELECT NEW.provider, {stats_values} WHERE true
             ON CONFLICT (provider) DO UPDATE SET {stats_sums};
         END;",
        add_new = row_change("NEW", 1, tiers),
        remove_old = row_change("OLD", -1, tiers),
        stats_columns = STATS.join(", "),
        stats_values = stats_values.join(", "),
        stats_sums = stats_sums.join(", "),
    )
}

const DROP_TRIGGERS: &str = "DROP TRIGGER IF EXISTS usage_added;
    DROP TRIGGER IF EXISTS usage_removed;
    DROP TRIGGER IF EXISTS usage_recounted;
    DROP TRIGGER IF EXISTS usage_stats_changed;";

/// The tallies made again from the rows: every row recounted (each message id's rows
/// settled), the sums added up, the triggers (re)made. The writer runs it when the index's tallies are missing or from other rules.
pub fn rebuild(connection: &Connection, tiers: &[u64]) -> rusqlite::Result<()> {
    connection.execute_batch(&format!(
        "{DROP_TRIGGERS}
         DELETE FROM usage_slots; DELETE FROM usage_totals;
         UPDATE usage SET counted = 1 WHERE counted <> 1;"
    ))?;
    let messages: Vec<i64> = connection
        .prepare("SELECT DISTINCT message_key FROM usage WHERE message_key IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for message in messages {
        settle_message(connection, message)?;
    }
    let sums: Vec<String> = SUMMED
        .iter()
        .map(|c| match *c {
            "cache_creation_1h_tokens" => format!("sum(min(u.{c}, u.cache_creation_tokens))"),
            _ => format!("sum(u.{c})"),
        })
        .collect();
    connection.execute_batch(&format!(
        "INSERT INTO usage_slots (provider, slot, model, tier, recorded, {columns},
             recorded_cost_micro_usd, entries)
         SELECT s.provider, {slot}, coalesce(u.model, 0), {tier},
             u.recorded_cost_micro_usd IS NOT NULL, {sums},
             sum(coalesce(u.recorded_cost_micro_usd, 0)), count(*)
         FROM usage u JOIN sources s ON s.id = u.source WHERE u.counted = 1
         GROUP BY 1, 2, 3, 4, 5;
         INSERT INTO usage_totals (provider, dropped)
         SELECT s.provider, count(*) FROM usage u JOIN sources s ON s.id = u.source
         WHERE u.counted = 0 GROUP BY 1;",
        columns = SUMMED.join(", "),
        slot = slot_sql("u"),
        tier = tier_sql("u", tiers),
        sums = sums.join(", "),
    ))?;
    let stats: Vec<String> = STATS
        .iter()
        .map(|c| {
            format!(
                "sum(coalesce(json_extract(usage_stats, '$.{c}'), 0) + coalesce(json_extract(usage_pending, '$.{c}'), 0))"
            )
        })
        .collect();
    let sums: Vec<String> = STATS
        .iter()
        .map(|c| format!("{c} = excluded.{c}"))
        .collect();
    connection.execute_batch(&format!(
        "INSERT INTO usage_totals (provider, {columns})
         SELECT provider, {stats} FROM sources WHERE true GROUP BY provider
         ON CONFLICT (provider) DO UPDATE SET {sums};",
        columns = STATS.join(", "),
        stats = stats.join(", "),
        sums = sums.join(", "),
    ))?;
    connection.execute_batch(&triggers_sql(tiers))?;
    connection.execute(
        "INSERT INTO usage_meta (key, value) VALUES ('tallies', ?1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [stamp(tiers)],
    )?;
    Ok(())
}

/// Makes the tallies when the index has none, or has them from other rules (the writer, as
/// it opens the index).
pub fn ensure(connection: &Connection) -> rusqlite::Result<()> {
    let tiers = shipped_tiers();
    if is_current(connection, &tiers) {
        return Ok(());
    }
    connection.execute_batch("BEGIN IMMEDIATE")?;
    let made = (|| {
        if !is_current(connection, &tiers) {
            rebuild(connection, &tiers)?;
        }
        connection.execute_batch("COMMIT")
    })();
    if made.is_err() {
        let _ = connection.execute_batch("ROLLBACK");
    }
    made
}

/// Whether the index's tallies follow these rules and thresholds.
pub fn is_current(connection: &Connection, tiers: &[u64]) -> bool {
    connection
        .query_row(
            "SELECT value FROM usage_meta WHERE key = 'tallies'",
            [],
            |r| r.get::<_, String>(0),
        )
        .optional()
        .ok()
        .flatten()
        .is_some_and(|v| v == stamp(tiers))
}

/// The message ids whose rows changed in a transaction, to settle before it commits.
#[derive(Debug, Default)]
pub struct Dirty {
    messages: BTreeSet<i64>,
}

impl Dirty {
    /// A row with this message key (if any) was added or is about to go.
    pub fn note(&mut self, message: Option<i64>) {
        if let Some(message) = message {
            self.messages.insert(message);
        }
    }

    /// Runs `delete` (a `DELETE FROM usage … RETURNING message_key`), noting what
    /// each row it removed leaves to settle; returns how many it removed.
    pub fn delete(
        &mut self,
        connection: &Connection,
        delete: &str,
        arguments: impl rusqlite::Params,
    ) -> rusqlite::Result<usize> {
        let mut statement = connection.prepare_cached(delete)?;
        let mut rows = statement.query(arguments)?;
        let mut removed = 0;
        while let Some(row) = rows.next()? {
            self.note(row.get(0)?);
            removed += 1;
        }
        Ok(removed)
    }

    /// Forgets what was noted (its transaction was rolled back).
    pub fn clear(&mut self) {
        self.messages.clear();
    }

    /// Settles what changed: each message id's rows recounted.
    pub fn settle(&mut self, connection: &Connection) -> rusqlite::Result<()> {
        for message in std::mem::take(&mut self.messages) {
            settle_message(connection, message)?;
        }
        Ok(())
    }
}

/// A stored row as the core's rule reads it.
struct Row {
    /// Where a read of the folders meets it: provider, path, offset.
    read_at: (String, String, i64),
    source: i64,
    offset: i64,
    counted: bool,
    /// What it names (the keyed rows' rule asks).
    named: Named,
    response: Response,
}

/// Recounts the rows of one message id, as a read of every file in order would (by
/// provider, path and offset).
fn settle_message(connection: &Connection, message: i64) -> rusqlite::Result<()> {
    let mut statement = connection.prepare_cached(
        "SELECT u.source, u.offset, u.counted, u.at, u.input_tokens, u.output_tokens,
                u.cache_creation_tokens, u.cache_read_tokens, u.sidechain, u.relayed,
                u.dedup_key, s.provider, s.path, u.model IS NOT NULL, u.project IS NOT NULL
         FROM usage u JOIN sources s ON s.id = u.source
         WHERE u.message_key = ?1",
    )?;
    let key = |k: Option<i64>| k.map(|k| u128::from(k as u64) << 64);
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    let mut rows: Vec<Row> = statement
        .query_map([message], |r| {
            Ok(Row {
                read_at: (r.get(11)?, r.get(12)?, r.get(1)?),
                source: r.get(0)?,
                offset: r.get(1)?,
                counted: r.get(2)?,
                named: Named {
                    model: r.get(13)?,
                    project: r.get(14)?,
                },
                response: Response {
                    // Only what the rule compares: tokens' total, sidechain, relay, keys.
                    entry: UsageEntry {
                        provider: Provider::ClaudeCode,
                        at: Timestamp::from_millis(r.get(3)?),
                        session: Arc::from(""),
                        project: None,
                        model: None,
                        tokens: TokenTotals {
                            input_tokens: count(r.get(4)?),
                            output_tokens: count(r.get(5)?),
                            cache_creation_tokens: count(r.get(6)?),
                            cache_read_tokens: count(r.get(7)?),
                            reasoning_tokens: 0,
                        },
                        cache_creation_1h_tokens: 0,
                        request_context_tokens: None,
                        recorded_cost_micro_usd: None,
                        fast: false,
                        web_searches: 0,
                        delegated: false,
                    },
                    folder: None,
                    sidechain: r.get(8)?,
                    relayed: r.get(9)?,
                    key: key(r.get(10)?),
                    message_id: key(Some(message)),
                },
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    // In the order a read of the folders meets them (sorted here: a message id has few rows).
    rows.sort_by(|a, b| a.read_at.cmp(&b.read_at));
    // Claude Code's rule, else the keyed rows' (one per key: a message id's rows share one).
    let claude = rows
        .first()
        .is_some_and(|r| r.read_at.0 == Provider::ClaudeCode.key());
    let counted: BTreeSet<usize> = if claude {
        ClaudeCodeUsage::counted_positions(rows.iter().map(|r| r.response.clone()).collect())
            .into_iter()
            .collect()
    } else {
        let named: Vec<Named> = rows.iter().map(|r| r.named).collect();
        KeyedRows::counted_position(&named).into_iter().collect()
    };
    let mut update = connection
        .prepare_cached("UPDATE usage SET counted = ?3 WHERE source = ?1 AND offset = ?2")?;
    for (at, row) in rows.iter().enumerate() {
        let counts = counted.contains(&at);
        if counts != row.counted {
            update.execute(params![row.source, row.offset, counts])?;
        }
    }
    Ok(())
}
