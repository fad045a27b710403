//! An export (ChatGPT, claude.ai) brought up to date: read whole when it changed, each
//! conversation stored with its own JSON.

use super::*;

/// Brings one export file up to date. An export is rewritten, never appended to, so a changed
/// file (by its identity) is read whole, up to its provider's cap, and each conversation is
/// stored with its own JSON; a conversation an earlier export held and this one does not
/// stays, as do its messages. Nothing is kept unless the whole file reads: a file that does
/// not is set aside until it changes.
pub(super) fn sync_export(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let (shown, meta) = looked_at(source)?;
    let identity = identity_of(&meta);
    let size = meta.size();
    let before = known(connection, packer, &shown).map_err(sql(index_path))?;
    let cap = options.max_bytes_of(source.provider);
    let variable = format!("BATON_MIRROR_{}_MAX_BYTES", source.provider.entry().setting);
    if let Some(k) = &before
        && k.identity() == identity
        && !k.missing
    {
        // Unchanged; but one set aside for its size is tried again once the cap admits it.
        let over_an_older_cap = k
            .quarantine
            .as_deref()
            .is_some_and(|why| why.contains(variable.as_str()))
            && size <= cap;
        if !over_an_older_cap {
            return Ok(());
        }
    }
    if !meta.is_file() {
        return Err(Error::store_unsafe(&shown, "is not a regular file"));
    }
    let over_cap = |bytes: u64| {
        Error::invalid(
            "export",
            format!(
                "it holds {}, over the {} cap ({variable} raises it)",
                crate::human_bytes(bytes),
                crate::human_bytes(cap)
            ),
        )
        .with("path", shown.clone())
        .with("bytes", bytes)
        .with("cap", cap)
    };
    if size > cap {
        return Err(over_cap(size));
    }
    let mut file = crate::os::files::open_regular(&source.path)?;
    stats.files_opened += 1;
    let mut bytes = Vec::with_capacity(size as usize);
    (&mut file)
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::store_io("read", &shown, e))?;
    stats.bytes_read += bytes.len() as u64;
    if bytes.len() as u64 > cap {
        return Err(over_cap(bytes.len() as u64));
    }
    let documents = export_documents(bytes, cap, &over_cap)?;
    // Every conversation with its own JSON, secrets masked first.
    let mut items: Vec<(Conversation, Vec<u8>)> = Vec::new();
    for document in &documents {
        // Read as the core reads a whole export: bad bytes replaced, lone surrogates repaired.
        let masked = masker.mask_bytes(document);
        let text = String::from_utf8_lossy(&masked);
        let repaired = baton_core::transcripts::repair_lone_surrogates(text.as_bytes());
        let masked = repaired.as_deref().unwrap_or(text.as_bytes());
        // Nothing is kept unless the whole file reads: it is JSON to its end, then split.
        if let Err(err) = serde_json::from_slice::<serde::de::IgnoredAny>(masked) {
            return Err(
                Error::invalid("export", format!("it does not read as an export: {err}"))
                    .with("path", shown.clone()),
            );
        }
        let elements = baton_core::transcripts::conversation::split_export(masked);
        for item in elements.map_err(|damaged| {
            Error::invalid(
                "export",
                format!("it does not read as an export: {}", damaged.why),
            )
            .with("path", shown.clone())
        })? {
            let mut wrapped = Vec::with_capacity(item.len() + 2);
            wrapped.push(b'[');
            wrapped.extend_from_slice(item);
            wrapped.push(b']');
            let ingested = baton_core::transcripts::ingest::FileIngest::read_all(
                "conversations.json",
                &wrapped,
            )?;
            for part in ingested.parts {
                if let baton_core::transcripts::ingest::Decoded::Conversations { parsed, .. } = part
                {
                    for conversation in parsed.conversations {
                        items.push((conversation, item.to_vec()));
                    }
                }
            }
        }
    }
    let (transaction, source_id) = begin_source(connection, index_path, before.as_ref(), source)?;
    for (conversation, raw) in &mut items {
        if conversation.id.is_empty() {
            conversation.id = anchor_id(conversation);
        }
        let provider = conversation.provider.key();
        if packer
            .is_removed(&transaction, provider, &conversation.id)
            .map_err(sql(index_path))?
        {
            continue;
        }
        stats.messages += store_conversation(
            &transaction,
            packer,
            source_id,
            conversation.provider,
            conversation,
        )
        .map_err(sql(index_path))?;
        // The newest copy is kept (an older export read later does not replace it), and its
        // title is the conversation's: a conversation renamed in the provider is renamed here.
        let newest = keep_item(&transaction, packer, source_id, conversation, raw, true)
            .map_err(sql(index_path))?;
        if newest > 0
            && let Some(title) = conversation
                .title
                .as_deref()
                .filter(|t| !t.trim().is_empty())
        {
            transaction
                .execute(
                    "UPDATE conversations SET title = ?3 WHERE provider = ?1 AND provider_id = ?2",
                    params![
                        provider,
                        conversation.id,
                        title.chars().take(120).collect::<String>()
                    ],
                )
                .map_err(sql(index_path))?;
        }
        stats.export_conversations += 1;
    }
    packer
        .vocabulary
        .settle(&transaction)
        .map_err(sql(index_path))?;
    let done = (source_id, identity, before.is_some());
    read_whole(transaction, index_path, done, stats)
}

/// Keeps one conversation as read whole (an export's item, a database's session), for
/// `transcripts show`; with `newest_only`, an older copy does not replace a newer one (an
/// older export read later). A file holding only a sub-agent's thread of a conversation is
/// kept as a part of it ([`kept_key`]); a copy ([`COPY_MARK`]) is not kept where the
/// conversation has its fuller form, and that form's arriving forgets the copy's parts.
/// Answers whether it was kept.
pub(super) fn keep_item(
    transaction: &Connection,
    packer: &mut Packer,
    source_id: i64,
    conversation: &Conversation,
    raw: &[u8],
    newest_only: bool,
) -> rusqlite::Result<usize> {
    let provider = conversation.provider;
    let key = kept_key(conversation);
    if conversation.is_copy() {
        let id = transaction
            .prepare_cached(
                "SELECT id FROM conversations WHERE provider = ?1 AND provider_id = ?2",
            )?
            .query_row(params![provider.key(), conversation.id], |r| {
                r.get::<_, i64>(0)
            })
            .optional()?;
        let fuller = match id {
            Some(id) => has_messages(transaction, id, FULLER_MESSAGES)?,
            None => false,
        };
        if fuller {
            return Ok(0);
        }
    } else if !conversation.messages.is_empty() {
        // The copy's parts (`<id>#~…`), a range of the key's index.
        transaction
            .prepare_cached(
                "DELETE FROM export_items WHERE provider = ?1
                     AND provider_id >= ?2 || '#~' AND provider_id < ?2 || '#' || char(127)",
            )?
            .execute(params![provider.key(), conversation.id])?;
    }
    let statement = if newest_only {
        "INSERT INTO export_items (provider, provider_id, source, raw, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (provider, provider_id) DO UPDATE SET source = excluded.source,
             raw = excluded.raw, updated_at = excluded.updated_at
         WHERE coalesce(excluded.updated_at, 0) >= coalesce(export_items.updated_at, 0)"
    } else {
        "INSERT INTO export_items (provider, provider_id, source, raw, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (provider, provider_id) DO UPDATE SET source = excluded.source,
             raw = excluded.raw, updated_at = excluded.updated_at"
    };
    transaction.prepare_cached(statement)?.execute(params![
        provider.key(),
        key,
        source_id,
        packer.pack(provider, raw),
        conversation.updated_at.map(|t| t.millis())
    ])
}

/// The key a conversation read whole is kept under: its id, or, for a file that holds only a
/// sub-agent's thread of it (Cursor's `subagents/`), `<id>#<its first message>` — a part,
/// read with the conversation (`<id>#…`) by `transcripts show`.
pub(crate) fn kept_key(conversation: &Conversation) -> String {
    match conversation.messages.first() {
        Some(first) if conversation.messages.iter().all(|m| m.side_chain) => {
            format!("{}#{}", conversation.id, first.id)
        }
        _ => conversation.id.clone(),
    }
}

/// Ends the read of a source read whole (its row, its identity now, whether it was read
/// before): its identity and cursor (its size) recorded, a re-read counted, the transaction
/// committed.
pub(super) fn read_whole(
    transaction: rusqlite::Savepoint,
    index_path: &Path,
    (source_id, identity, reread): (i64, Identity, bool),
    stats: &mut PassStats,
) -> Result<(), Error> {
    transaction
        .execute(
            "UPDATE sources SET device = ?1, inode = ?2, size = ?3, mtime_ns = ?4, cursor = ?3,
                 tail_hash = 0, missing = 0, rereads = rereads + ?5, quarantine = NULL
             WHERE id = ?6",
            params![
                identity.0,
                identity.1,
                identity.2,
                identity.3,
                i64::from(reread),
                source_id
            ],
        )
        .map_err(sql(index_path))?;
    if reread {
        stats.rereads += 1;
    }
    transaction.commit().map_err(sql(index_path))
}

/// The id a conversation that names none is kept under: made from when it started and its
/// first message, so the next export's copy of it gets the same one.
pub fn anchor_id(conversation: &Conversation) -> String {
    let first = conversation.messages.first().map_or("", |m| m.id.as_str());
    let started = conversation.started_at.map_or(0, |t| t.millis());
    format!(
        "untitled-{:016x}",
        fnv(format!("{started}|{first}").as_bytes()) as u64
    )
}

/// The JSON documents of an export file: the file itself, or each conversations file of a
/// zip archive (inflated, together at most `cap` bytes).
pub(super) fn export_documents(
    bytes: Vec<u8>,
    cap: u64,
    over_cap: &dyn Fn(u64) -> Error,
) -> Result<Vec<Vec<u8>>, Error> {
    use baton_core::transcripts::export_files::is_conversations_entry;
    use baton_core::transcripts::zip;
    if !bytes.starts_with(b"PK") {
        return Ok(vec![bytes]);
    }
    let mut documents = Vec::new();
    let mut inflated = 0u64;
    for entry in zip::entries(&bytes)? {
        if !is_conversations_entry(&entry.name) {
            continue;
        }
        if inflated.saturating_add(entry.size) > cap {
            return Err(over_cap(inflated.saturating_add(entry.size)));
        }
        let mut reader = zip::EntryReader::open(&bytes, &entry)?;
        let mut out = vec![0u8; entry.size as usize];
        let mut at = 0;
        loop {
            if at == out.len() {
                // The entry said how long it is; a longer one is damaged (the reader checks).
                out.resize(out.len() + (1 << 16), 0);
            }
            let n = reader.read(&bytes, &mut out[at..])?;
            if n == 0 {
                break;
            }
            at += n;
            if at as u64 > cap {
                return Err(over_cap(at as u64));
            }
        }
        out.truncate(at);
        inflated += at as u64;
        documents.push(out);
    }
    if documents.is_empty() {
        return Err(Error::invalid(
            "export",
            "the archive holds no conversations.json",
        ));
    }
    Ok(documents)
}
