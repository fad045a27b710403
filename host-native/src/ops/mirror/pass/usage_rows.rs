//! The usage a pass reads from a source's lines, and its rows in the index.

use super::*;

/// The usage a source's new lines record, one row per line (before deduplication, which a
/// report does over every row), and what the lines held.
pub(super) enum UsageReader {
    Claude {
        reader: ClaudeCodeUsage,
        base: ReadStats,
        /// This pass's responses by line offset, stored together (see `store_batch`).
        batch: Vec<(i64, Response)>,
    },
    Codex {
        reader: CodexUsage,
        base: ReadStats,
    },
}

impl UsageReader {
    /// Continues from what the index knew of the source (`None`: from its start).
    pub(super) fn new(source: &Source, shown: &str, before: Option<&Known>) -> UsageReader {
        let base: ReadStats = before
            .and_then(|k| k.usage_stats.as_deref())
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        match source.provider {
            Provider::Codex => {
                let state: Option<CodexUsageState> = before
                    .and_then(|k| k.usage_state.as_deref())
                    .and_then(|s| serde_json::from_str(s).ok());
                let reader = match state {
                    Some(state) => CodexUsage::continuing(state),
                    None => CodexUsage::new(session_name(shown)),
                };
                UsageReader::Codex { reader, base }
            }
            _ => {
                let mut reader = ClaudeCodeUsage::collecting();
                reader.set_project_folder(project_folder_of(shown));
                UsageReader::Claude {
                    reader,
                    base,
                    batch: Vec::new(),
                }
            }
        }
    }

    /// Reads one line; stores the usage it records (a Claude Code response waits for the
    /// pass's others: see `store_batch`).
    pub(super) fn push_line(
        &mut self,
        transaction: &rusqlite::Transaction,
        packer: &mut Packer,
        source_id: i64,
        offset: i64,
        line: &[u8],
    ) -> rusqlite::Result<()> {
        match self {
            UsageReader::Claude { reader, batch, .. } => {
                reader.push_line(line);
                batch.extend(reader.take_collected().into_iter().map(|r| (offset, r)));
                Ok(())
            }
            UsageReader::Codex { reader, .. } => {
                reader.push_line(line);
                let rows: Vec<(UsageEntry, Option<Response>)> = reader
                    .take_entries()
                    .into_iter()
                    .map(|e| (e, None))
                    .collect();
                store_usage(transaction, packer, source_id, offset, &rows)
            }
        }
    }

    /// Stores this pass's Claude Code responses, less those the core's rule already drops
    /// among them (the copies of a response Claude Code writes once per content block, with
    /// the final count on the last): a response one of its own file's later lines beats
    /// never counts, whatever other files hold, so its row would only take room. Each left
    /// out counts as a duplicate in the source's stats, as a read of the file counts it.
    pub(super) fn store_batch(
        &mut self,
        transaction: &rusqlite::Transaction,
        packer: &mut Packer,
        source_id: i64,
    ) -> rusqlite::Result<()> {
        let UsageReader::Claude { reader, batch, .. } = self else {
            return Ok(());
        };
        let batch = std::mem::take(batch);
        let kept =
            ClaudeCodeUsage::counted_positions(batch.iter().map(|(_, r)| r.clone()).collect());
        reader.stats.duplicates += (batch.len() - kept.len()) as u64;
        let mut kept = kept.into_iter().peekable();
        for (at, (offset, response)) in batch.into_iter().enumerate() {
            if kept.peek() == Some(&at) {
                kept.next();
                store_usage(
                    transaction,
                    packer,
                    source_id,
                    offset,
                    &[(response.entry.clone(), Some(response))],
                )?;
            }
        }
        Ok(())
    }

    /// Reads the unfinished last line of a file as a read of the whole file would (as its
    /// last line), without taking it: its usage row (at its offset, replaced when the line is
    /// finished) and what it held, returned (JSON) to keep apart from the taken lines' stats.
    pub(super) fn provisional(
        &self,
        transaction: &rusqlite::Transaction,
        packer: &mut Packer,
        source_id: i64,
        offset: i64,
        line: &[u8],
    ) -> rusqlite::Result<Option<String>> {
        let Some(line) = baton_core::transcripts::lines::whole_line(line) else {
            return Ok(None);
        };
        let (rows, stats): (Vec<(UsageEntry, Option<Response>)>, ReadStats) = match self {
            UsageReader::Claude { reader, .. } => {
                let mut reader = reader.clone();
                reader.stats = ReadStats::default();
                reader.push_line(line);
                let rows = reader
                    .take_collected()
                    .into_iter()
                    .map(|r| (r.entry.clone(), Some(r)))
                    .collect();
                (rows, reader.stats)
            }
            UsageReader::Codex { reader, .. } => {
                let mut reader = CodexUsage::continuing(reader.state());
                reader.push_line(line);
                let rows = reader
                    .take_entries()
                    .into_iter()
                    .map(|e| (e, None))
                    .collect();
                (rows, reader.stats)
            }
        };
        store_usage(transaction, packer, source_id, offset, &rows)?;
        Ok(Some(stats_json(&stats)))
    }

    /// What the source's lines held so far, and where the Codex reader stopped (JSON).
    pub(super) fn finish(self) -> (Option<String>, Option<String>) {
        let (mut base, stats, state) = match self {
            UsageReader::Claude { reader, base, .. } => (base, reader.stats, None),
            UsageReader::Codex { reader, base } => {
                let state = serde_json::to_string(&reader.state()).ok();
                (base, reader.stats, state)
            }
        };
        base.add(&stats);
        (Some(stats_json(&base)), state)
    }
}

/// What a source's lines held, as JSON that names only the counts that are not zero (most
/// are, and every source keeps a copy).
pub(super) fn stats_json(stats: &ReadStats) -> String {
    let mut value = serde_json::to_value(stats).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        fields.retain(|_, n| n.as_u64() != Some(0));
    }
    value.to_string()
}

/// Stores the usage rows of the line at `offset`.
pub(super) fn store_usage(
    transaction: &rusqlite::Transaction,
    packer: &mut Packer,
    source_id: i64,
    offset: i64,
    rows: &[(UsageEntry, Option<Response>)],
) -> rusqlite::Result<()> {
    // One row per line: of two a line gave (none of the readers gives two), the last. No row
    // is at this offset yet: the pass removed its source's rows from its cursor on.
    for (entry, response) in rows.iter().rev().take(1) {
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
                     recorded_cost_micro_usd, sidechain, relayed, dedup_key, message_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                     ?17, ?18, ?19)",
            )?
            .execute(params![
                source_id,
                offset,
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
                response.is_some_and(|r| r.sidechain),
                response.is_some_and(|r| r.relayed),
                key(response.and_then(|r| r.key)),
                message_key,
            ])?;
        packer.dirty.note(message_key);
    }
    Ok(())
}
