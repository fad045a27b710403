//! The agents' reports beside the transcripts: a usage report of what the agents reported
//! (`usage --source telemetry`), and each reported request paired with the transcript
//! response it describes (`usage --check`; the pairing and the likely causes are the core's,
//! [`baton_core::telemetry::reconcile`]).

use crate::ops::usage::UsageOptions;
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::telemetry::Reported;
use baton_core::telemetry::reconcile::{Check, Response};
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::UsageReport;
use baton_core::transcripts::{Provider, UsageEntry};
use rusqlite::Connection;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// The kept reports within the options' days and of their agents, in time order.
pub fn reported(
    connection: &Connection,
    index: &Path,
    options: &UsageOptions,
) -> Result<Vec<Reported>, Error> {
    let failed = |e| crate::index::failure("read the reported requests of", index, e);
    let mut statement = connection
        .prepare(
            "SELECT key, source, session_id, prompt_id, request_id, model, at, input_tokens,
                    output_tokens, cache_creation_tokens, cache_read_tokens, reasoning_tokens,
                    cost_usd, duration_ms
             FROM telemetry WHERE (?1 IS NULL OR at >= ?1) AND (?2 IS NULL OR at <= ?2)
             ORDER BY at, key",
        )
        .map_err(failed)?;
    let rows = statement
        .query_map(
            rusqlite::params![
                options.since.map(Timestamp::millis),
                options.until.map(Timestamp::millis)
            ],
            |r| {
                let count = |n: usize| r.get::<_, i64>(n).map(|v| u64::try_from(v).unwrap_or(0));
                Ok(Reported {
                    key: r.get(0)?,
                    source: r.get(1)?,
                    session_id: r.get(2)?,
                    prompt_id: r.get(3)?,
                    request_id: r.get(4)?,
                    model: r.get(5)?,
                    at_ms: r.get(6)?,
                    tokens: TokenTotals {
                        input_tokens: count(7)?,
                        output_tokens: count(8)?,
                        cache_creation_tokens: count(9)?,
                        cache_read_tokens: count(10)?,
                        reasoning_tokens: count(11)?,
                    },
                    cost_usd: r.get(12)?,
                    duration_ms: r.get(13)?,
                })
            },
        )
        .map_err(failed)?;
    let all = rows.collect::<Result<Vec<_>, _>>().map_err(failed)?;
    Ok(all
        .into_iter()
        .filter(|r| {
            options.providers.is_empty()
                || Provider::named(&r.source).is_some_and(|p| options.providers.contains(&p))
        })
        .collect())
}

/// `usage --source telemetry`: the report the agents' own figures give, grouped as asked
/// (their costs are the ones they reported; a request without one is priced by Baton's table).
pub fn report(
    connection: &Connection,
    index: &Path,
    options: &UsageOptions,
) -> Result<UsageReport, Error> {
    let reported = reported(connection, index, options)?;
    // A reported session's project is its conversation's, when the mirror keeps it.
    let mut projects: BTreeMap<String, Option<Arc<str>>> = BTreeMap::new();
    let mut lookup = connection
        .prepare("SELECT project FROM conversations WHERE provider_id = ?1 AND project IS NOT NULL LIMIT 1")
        .map_err(|e| crate::index::failure("read the projects of", index, e))?;
    let mut skipped = BTreeMap::new();
    let mut entries = Vec::with_capacity(reported.len());
    for r in &reported {
        let Some(provider) = Provider::named(&r.source) else {
            *skipped
                .entry("reported by an agent Baton does not know".to_owned())
                .or_insert(0) += 1;
            continue;
        };
        let session = r.session_id.clone().unwrap_or_else(|| r.key.clone());
        let project = projects
            .entry(session.clone())
            .or_insert_with(|| {
                lookup
                    .query_row([&session], |row| row.get::<_, String>(0))
                    .ok()
                    .map(Arc::from)
            })
            .clone();
        entries.push(UsageEntry {
            provider,
            at: Timestamp::from_millis(r.at_ms),
            session: Arc::from(session.as_str()),
            project,
            model: r.model.as_deref().map(Arc::from),
            tokens: r.tokens,
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: r.cost_usd.map(|c| (c * 1e6).round().max(0.0) as u64),
            fast: false,
            web_searches: 0,
            delegated: false,
        });
    }
    let prices = crate::ops::usage::prices(options)?;
    Ok(crate::ops::usage::report_of_entries(
        entries, skipped, options, &prices,
    ))
}

/// `usage --check`: every kept report within the options' days paired with the transcript
/// response it describes, and what disagrees.
pub fn check(
    connection: &Connection,
    index: &Path,
    options: &UsageOptions,
) -> Result<Check, Error> {
    let reported = reported(connection, index, options)?;
    let sessions: Vec<String> = reported
        .iter()
        .filter_map(|r| r.session_id.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let since = reported.iter().map(|r| r.at_ms).min().unwrap_or(0) - 15 * 60 * 1000;
    let rows = crate::ops::mirror::usage::counted_of_sessions(
        connection,
        index,
        Timestamp::from_millis(since),
        sessions.clone(),
    )?
    .ok_or_else(|| {
        Error::invalid(
            "check",
            "the index has not counted its responses yet: run `baton mirror` once, then check again",
        )
    })?;
    // Claude Code's responses carry the request id its reports name: pairs by it come first.
    let request_ids = crate::ops::mirror::query::claude_request_ids(connection, index, &sessions)?;
    let ids: Vec<Option<String>> = rows
        .iter()
        .map(|row| row.dedup_key.and_then(|k| request_ids.get(&k).cloned()))
        .collect();
    let entries: Vec<UsageEntry> = rows.into_iter().map(|row| row.entry).collect();
    let prices = crate::ops::usage::prices(options)?;
    let costs =
        baton_core::transcripts::usage::costs_femto_usd(&entries, &prices, options.cost_mode);
    let responses: Vec<Response> = entries
        .iter()
        .zip(costs)
        .zip(ids)
        .map(|((entry, femto), request_id)| Response {
            request_id,
            session: entry.session.to_string(),
            at_ms: entry.at.millis(),
            model: entry.model.as_deref().map(str::to_owned),
            tokens: entry.tokens,
            // An unpriced model costs nothing in the table: no price, rather than $0.
            cost_usd: (femto > 0 || entry.tokens.total() == 0).then(|| femto as f64 / 1e15),
        })
        .collect();
    Ok(baton_core::telemetry::reconcile::check(
        &reported, &responses,
    ))
}

/// What the agents reported over OpenTelemetry for work session `id` (its requests tied to it
/// by the rule that ties its transcripts: the agent session id, else project, agent and
/// time): `{cost_usd, total_tokens, models}`, the costs as the agents computed them (a
/// request that came without one priced by Baton's table). None when the index keeps no
/// report of it.
pub fn of_work_session(
    index: &Path,
    work_root: Option<String>,
    sessions: &[baton_core::ledger::session::Session],
    id: baton_core::SessionId,
) -> Result<Option<serde_json::Value>, Error> {
    let Some(session) = sessions.iter().find(|s| s.session_id == id) else {
        return Ok(None);
    };
    if !index.is_file() {
        return Ok(None);
    }
    let connection = crate::ops::mirror::open_for_query(index, false, None)?;
    let any: Option<i64> = connection
        .query_row("SELECT 1 FROM telemetry LIMIT 1", [], |r| r.get(0))
        .ok();
    if any.is_none() {
        return Ok(None);
    }
    let options = UsageOptions {
        work_sessions: Some(sessions.to_vec()),
        work_focus: crate::ops::usage::WorkFocus::of(&[session]),
        work_root,
        ..UsageOptions::everything(
            baton_core::transcripts::usage::GroupBy::Session,
            crate::os::zone::resolve(Some("UTC"))?,
        )
    };
    let report = report(&connection, index, &options)?;
    let links = report.work_sessions.map(|w| w.links).unwrap_or_default();
    let Some(row) = report
        .rows
        .iter()
        .find(|row| links.get(&row.key).is_some_and(|l| l.session_id == id))
    else {
        return Ok(None);
    };
    Ok(Some(serde_json::json!({
        "cost_usd": row.cost_usd,
        "total_tokens": row.total_tokens,
        "models": row.models,
        "source": "telemetry",
    })))
}
