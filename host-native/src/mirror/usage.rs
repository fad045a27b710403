//! `baton usage --index`: the usage report rebuilt from the rows the mirror keeps, one per
//! line that records tokens, replayed through the same core counting a read of the files
//! does (deduplication, sub-agent relays, each session's project), so the two reports agree
//! byte for byte while the index also remembers transcripts whose files are gone.

use crate::usage::{Counted, UsageOptions};
use baton_core::Error;
use baton_core::Timestamp;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::UsageReport;
use baton_core::transcripts::usage::claude_code::{ClaudeCodeUsage, Response};
use baton_core::transcripts::{Provider, ReadStats, UsageEntry};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::store_io("read the index", &path.display().to_string(), e)
}

/// The report of every usage row the index holds, for the options' providers, days and
/// grouping. Sources are replayed in the order a read of the folders takes them (Claude
/// Code, then Codex, each by path), and their lines in file order.
pub fn report(
    connection: &Connection,
    path: &Path,
    options: &UsageOptions,
) -> Result<UsageReport, Error> {
    let prices = crate::usage::prices(options)?;
    let wants = |p: Provider| options.providers.is_empty() || options.providers.contains(&p);
    let mut claude = ClaudeCodeUsage::new();
    let mut codex_stats = Vec::new();
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
        match provider.as_str() {
            "claude_code" if wants(Provider::ClaudeCode) => claude.add_stats(&stats),
            "codex" if wants(Provider::Codex) => codex_stats.push(stats),
            _ => {}
        }
    }
    // Every name once, as the entries will share it.
    let mut names: HashMap<i64, Arc<str>> = HashMap::new();
    {
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
    }
    let name = |id: Option<i64>| id.and_then(|id| names.get(&id).cloned());
    let mut codex = Vec::new();
    let mut statement = connection
        .prepare(
            "SELECT s.provider, u.at, u.session, u.project, u.model, u.input_tokens,
                    u.output_tokens, u.cache_creation_tokens, u.cache_read_tokens,
                    u.reasoning_tokens, u.cache_creation_1h_tokens, u.request_context_tokens,
                    u.recorded_cost_micro_usd, u.folder, u.sidechain, u.relayed, u.dedup_key,
                    u.message_key
             FROM usage u JOIN sources s ON s.id = u.source
             ORDER BY s.provider, s.path, u.offset",
        )
        .map_err(sql(path))?;
    let mut rows = statement.query([]).map_err(sql(path))?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    // A stored key is a fingerprint's first 64 bits; equal keys stay equal.
    let key = |k: Option<i64>| k.map(|k| u128::from(k as u64) << 64);
    while let Some(row) = rows.next().map_err(sql(path))? {
        let provider = match row.get_ref(0).map_err(sql(path))?.as_str().unwrap_or("") {
            "codex" => Provider::Codex,
            _ => Provider::ClaudeCode,
        };
        if !wants(provider) {
            continue;
        }
        let get_count = |i: usize| -> Result<u64, Error> {
            Ok(count(row.get::<_, i64>(i).map_err(sql(path))?))
        };
        let optional = |i: usize| -> Result<Option<u64>, Error> {
            Ok(row.get::<_, Option<i64>>(i).map_err(sql(path))?.map(count))
        };
        let id = |i: usize| -> Result<Option<i64>, Error> { row.get(i).map_err(sql(path)) };
        let entry = UsageEntry {
            provider,
            at: Timestamp::from_millis(row.get(1).map_err(sql(path))?),
            session: name(id(2)?).unwrap_or_else(|| Arc::from("")),
            project: name(id(3)?),
            model: name(id(4)?),
            tokens: TokenTotals {
                input_tokens: get_count(5)?,
                output_tokens: get_count(6)?,
                cache_creation_tokens: get_count(7)?,
                cache_read_tokens: get_count(8)?,
                reasoning_tokens: get_count(9)?,
            },
            cache_creation_1h_tokens: get_count(10)?,
            request_context_tokens: optional(11)?,
            recorded_cost_micro_usd: optional(12)?,
        };
        match provider {
            Provider::Codex => codex.push(entry),
            _ => claude.replay(Response {
                entry,
                folder: name(id(13)?),
                sidechain: row.get(14).map_err(sql(path))?,
                relayed: row.get(15).map_err(sql(path))?,
                key: key(row.get(16).map_err(sql(path))?),
                message_id: key(row.get(17).map_err(sql(path))?),
            }),
        }
    }
    let counted = Counted {
        claude,
        codex,
        codex_stats,
        unreadable: 0,
    };
    Ok(crate::usage::report_of(counted, options, &prices))
}
