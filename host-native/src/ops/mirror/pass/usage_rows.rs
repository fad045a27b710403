//! A source's usage rows in the index, and what its lines held, as the index keeps it.

use super::*;

/// What a source's lines held, as JSON that names only the counts that are not zero (most
/// are, and every source keeps a copy).
pub(super) fn stats_json(stats: &ReadStats) -> String {
    let mut value = serde_json::to_value(stats).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        fields.retain(|_, n| n.as_u64() != Some(0));
    }
    value.to_string()
}

/// Stores the usage rows of the line at `offset`: the first at the line's offset, each after it
/// one byte further (a line is longer than the rows it holds, so no row meets the next
/// line's; a Gemini CLI line that rewrites the message list holds several).
pub(super) fn store_usage(
    transaction: &Connection,
    packer: &mut Packer,
    source_id: i64,
    offset: i64,
    rows: &[(UsageEntry, Option<Response>)],
) -> rusqlite::Result<()> {
    // No row is at these offsets yet: the pass removed its source's rows from its cursor on.
    for (place, (entry, response)) in (offset..).zip(rows) {
        if packer.is_removed(transaction, entry.provider.key(), &entry.session)? {
            continue;
        }
        // The first 64 bits of a 128-bit fingerprint: as good a key across one index.
        let key = |k: Option<u128>| k.map(|k| (k >> 64) as i64);
        let response = response.as_ref();
        let session = packer.name(transaction, Some(&entry.session))?;
        let project = packer.name(transaction, entry.project.as_deref())?;
        let model = packer.name(transaction, entry.model.as_deref())?;
        let folder = packer.name(transaction, response.and_then(|r| r.folder.as_deref()))?;
        let message_key = key(response.and_then(|r| r.message_id));
        transaction
            .prepare_cached(
                "INSERT INTO usage (source, offset, at, session, project, model, folder,
                     input_tokens, output_tokens, cache_creation_tokens, cache_read_tokens,
                     reasoning_tokens, cache_creation_1h_tokens, request_context_tokens,
                     recorded_cost_micro_usd, sidechain, relayed, dedup_key, message_key, fast,
                     web_searches)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                     ?17, ?18, ?19, ?20, ?21)",
            )?
            .execute(params![
                source_id,
                place,
                entry.at.millis(),
                session,
                project,
                model,
                folder,
                entry.tokens.input_tokens as i64,
                entry.tokens.output_tokens as i64,
                entry.tokens.cache_creation_tokens as i64,
                entry.tokens.cache_read_tokens as i64,
                entry.tokens.reasoning_tokens as i64,
                entry.cache_creation_1h_tokens as i64,
                entry.request_context_tokens.map(|n| n as i64),
                entry.recorded_cost_micro_usd.map(|n| n as i64),
                // A sub-agent's response: Claude Code's sidechains, a Codex sub-agent's.
                entry.delegated || response.is_some_and(|r| r.sidechain),
                response.is_some_and(|r| r.relayed),
                key(response.and_then(|r| r.key)),
                message_key,
                // Codex's tier is the one its config asks for (see `ops::usage::tier`).
                entry.fast || crate::ops::usage::tier::is_priority(entry),
                entry.web_searches as i64,
            ])?;
        packer.dirty.note(message_key);
    }
    Ok(())
}
