//! What agents report over OpenTelemetry, received and kept: OTLP export requests (logs,
//! traces, metrics; protobuf or JSON) decoded into the core's records, read by the core's rule
//! ([`baton_core::telemetry::read`]) into reported requests, and kept in the transcript index,
//! one row per request (a report sent again is one row). Every face that takes telemetry (the
//! receiver, an imported file) asks [`keep`].

pub mod compare;
pub mod decode;
pub mod export;
pub mod send;

use baton_core::Error;
use baton_core::telemetry::Reported;
use rusqlite::{Connection, params};
use std::path::Path;

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Kept {
    /// Records read (log records, spans, data points).
    pub records: usize,
    /// Requests among them.
    pub requests: usize,
    /// Requests new to the index (the rest it had).
    pub new: usize,
}

impl Kept {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: Kept) {
        self.records += other.records;
        self.requests += other.requests;
        self.new += other.new;
    }
}

/// Keeps the requests of `records` in the index, in one transaction; `now_ms` is when they
/// were received.
pub fn keep(
    connection: &mut Connection,
    index: &Path,
    records: &[baton_core::telemetry::Record],
    now_ms: i64,
) -> Result<Kept, Error> {
    let reported: Vec<Reported> = records
        .iter()
        .filter_map(baton_core::telemetry::read)
        .collect();
    let mut kept = Kept {
        records: records.len(),
        requests: reported.len(),
        new: 0,
    };
    if reported.is_empty() {
        return Ok(kept);
    }
    let failed = |e| crate::index::failure("keep the reported requests in", index, e);
    let tx = connection.transaction().map_err(failed)?;
    {
        let mut insert = tx
            .prepare_cached(
                "INSERT OR IGNORE INTO telemetry (key, source, session_id, prompt_id, request_id,
                     model, at, input_tokens, output_tokens, cache_creation_tokens,
                     cache_read_tokens, reasoning_tokens, cost_usd, duration_ms, received_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )
            .map_err(failed)?;
        for r in &reported {
            let t = &r.tokens;
            let signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            kept.new += insert
                .execute(params![
                    r.key,
                    r.source,
                    r.session_id,
                    r.prompt_id,
                    r.request_id,
                    r.model,
                    r.at_ms,
                    signed(t.input_tokens),
                    signed(t.output_tokens),
                    signed(t.cache_creation_tokens),
                    signed(t.cache_read_tokens),
                    signed(t.reasoning_tokens),
                    r.cost_usd,
                    r.duration_ms,
                    now_ms,
                ])
                .map_err(failed)?;
        }
    }
    tx.commit().map_err(failed)?;
    Ok(kept)
}

/// One agent and model's kept requests.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StatusRow {
    /// The agent that reported them.
    pub source: String,
    /// The model.
    pub model: Option<String>,
    /// How many requests.
    pub requests: i64,
    /// Their tokens, all classes.
    pub total_tokens: i64,
    /// The cost they reported (the requests that reported one).
    pub cost_usd: f64,
    /// The first and the last (ms since the epoch).
    pub first_ms: i64,
    pub last_ms: i64,
}

/// What the index keeps of the agents' reports, by agent and model.
pub fn status(connection: &Connection, index: &Path) -> Result<Vec<StatusRow>, Error> {
    let failed = |e| crate::index::failure("read the reported requests of", index, e);
    let mut statement = connection
        .prepare(
            "SELECT source, model, COUNT(*),
                    SUM(input_tokens + output_tokens + cache_creation_tokens + cache_read_tokens
                        + reasoning_tokens),
                    COALESCE(SUM(cost_usd), 0), MIN(at), MAX(at)
             FROM telemetry GROUP BY source, model ORDER BY source, model",
        )
        .map_err(failed)?;
    let rows = statement
        .query_map([], |r| {
            Ok(StatusRow {
                source: r.get(0)?,
                model: r.get(1)?,
                requests: r.get(2)?,
                total_tokens: r.get(3)?,
                cost_usd: r.get(4)?,
                first_ms: r.get(5)?,
                last_ms: r.get(6)?,
            })
        })
        .map_err(failed)?;
    rows.collect::<Result<Vec<_>, _>>().map_err(failed)
}
