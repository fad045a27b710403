//! An agent's SQLite database (OpenCode, Kilo CLI, Cursor) brought up to date: read by the core's
//! reader from its bytes (the file and its write-ahead log), so no lock is taken and the agent
//! writing it never waits (OpenCode's tree of files from before its database is read whole as
//! one); each top session whose mark moved (OpenCode: its newest row write,
//! its row count; Cursor: its document's time, its message rows and their sizes) stored again,
//! the others left as they are.

use super::*;
use baton_core::transcripts::databases;
use baton_core::transcripts::sqlite::{Database, PageSource, Wal};

/// How often a read that met a checkpoint (the log restarted under it) is tried again.
const TRIES: usize = 3;

/// A database's identity with its log's folded in: a write that reached only the log (most
/// do, until a checkpoint) changes it too.
pub(super) fn database_identity(path: &Path, meta: &std::fs::Metadata) -> Identity {
    let (device, inode, size, mtime) = identity_of(meta);
    // A tree of files (OpenCode's before its database): what its folders show.
    if meta.is_dir() {
        let (folders, newest) = crate::os::files::tree_look(path);
        return (device, inode, folders as i64, newest);
    }
    match std::fs::symlink_metadata(crate::os::files::log_path(path)) {
        Ok(wal) if wal.is_file() => {
            let (_, _, wal_size, wal_mtime) = identity_of(&wal);
            (
                device,
                inode,
                size.wrapping_add(wal_size.wrapping_shl(32)),
                mtime.max(wal_mtime),
            )
        }
        _ => (device, inode, size, mtime),
    }
}

/// A database file read page by page as the core asks (never whole: a 100 MB database costs
/// the pages being read, not its size).
struct FilePages {
    file: std::fs::File,
    size: u64,
}

impl PageSource for FilePages {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> baton_core::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file
            .read_exact_at(buf, offset)
            .map_err(|e| Error::database_damaged(&format!("{} bytes at {offset}: {e}", buf.len())))
    }
}

/// The database's rows, read with its committed log laid over the file so that the two belong
/// together: the log is read again after the rows, and a log restarted in between (a
/// checkpoint moved its pages into the file) means the rows are read again.
fn read_store(
    path: &Path,
    shown: &str,
    provider: baton_core::transcripts::Provider,
    stats: &mut PassStats,
) -> Result<Option<databases::Store>, Error> {
    // A tree of files, read file by file.
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        let (store, bytes, files) = crate::os::files::read_tree(path, provider);
        stats.bytes_read += bytes;
        stats.files_opened += files;
        return Ok(Some(store));
    }
    let read_wal = || Wal::parse(&crate::os::files::log_beside(path).unwrap_or_default());
    for _ in 0..TRIES {
        let wal = read_wal()?;
        let file = crate::os::files::open_regular(path)?;
        let size = file
            .metadata()
            .map_err(|e| Error::store_io("read", shown, e))?
            .len();
        stats.files_opened += 1;
        let pages = FilePages { file, size };
        // A page caught mid-write reads as damage: the next pass reads the file again.
        let transient = |e: Error| e.with("transient", true);
        let db = Database::open(&pages, Some(&wal)).map_err(transient)?;
        let Some(store) = databases::read(shown, &db, Some(provider)).map_err(transient)? else {
            return Ok(None);
        };
        stats.bytes_read += size;
        if read_wal()?.generation() == wal.generation() {
            return Ok(Some(store));
        }
    }
    Err(Error::database_damaged(
        "the agent checkpointed its log while it was read, three times running",
    )
    .with("transient", true))
}

/// A source read whole that changed since it was last read: its name, what its file is now,
/// what the index knew of it, and its identity now.
pub(super) struct Changed {
    pub(super) shown: String,
    pub(super) meta: std::fs::Metadata,
    pub(super) before: Option<Known>,
    pub(super) identity: Identity,
}

/// Looks at a source read whole (`identity` says what its identity is): `None` when it is
/// unchanged since it was read, an error when it is no regular file.
pub(super) fn changed_whole(
    connection: &Connection,
    index_path: &Path,
    packer: &mut Packer,
    source: &Source,
    identity: impl Fn(&std::fs::Metadata) -> Identity,
) -> Result<Option<Changed>, Error> {
    let (shown, meta) = looked_at(source)?;
    let tree = meta.is_dir() && databases::tree_folder(source.provider).is_some();
    if !meta.is_file() && !tree {
        return Err(Error::store_unsafe(&shown, "is not a regular file"));
    }
    let identity = identity(&meta);
    let before = known(connection, packer, &shown).map_err(sql(index_path))?;
    if before
        .as_ref()
        .is_some_and(|k| k.identity() == identity && !k.missing)
    {
        return Ok(None);
    }
    Ok(Some(Changed {
        shown,
        meta,
        before,
        identity,
    }))
}

/// Brings one database up to date.
pub(super) fn sync_database(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    _options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let identity = |meta: &std::fs::Metadata| database_identity(&source.path, meta);
    let Some(Changed {
        shown,
        before,
        identity,
        ..
    }) = changed_whole(connection, index_path, packer, source, identity)?
    else {
        return Ok(());
    };
    let Some(mut store) = read_store(&source.path, &shown, source.provider, stats)? else {
        return Err(
            Error::invalid("database", format!("it has none of {}", databases::WANTED))
                .with("path", shown),
        );
    };
    // The sessions whose mark moved since the last read.
    let marks = store.marks();
    let old_marks: std::collections::HashMap<String, databases::Mark> = before
        .as_ref()
        .and_then(|k| k.usage_state.as_deref())
        .and_then(|s| serde_json::from_str(s).ok())
        .unwrap_or_default();
    let changed: std::collections::HashSet<String> = marks
        .iter()
        .filter(|(root, mark)| old_marks.get(*root) != Some(mark))
        .map(|(root, _)| root.clone())
        .collect();
    // Only what changed is built: an unchanged session costs its mark, nothing more.
    store.keep_only(&changed);
    let parsed = store.conversations();
    let rows = store.usage_rows();
    let marks_json = serde_json::to_string(&marks).unwrap_or_default();
    let read = WholeRead {
        parsed,
        rows,
        stats: store.stats(),
        state: Some(marks_json),
        identity,
        before: before.as_ref(),
    };
    store_read(connection, index_path, source, masker, packer, stats, read)
}

/// What reading a whole source gave: its conversations (only those to store again), their
/// usage rows with their keys, what the read met, the state to keep, the file's identity and
/// what the index knew of it.
pub(super) struct WholeRead<'a> {
    pub(super) parsed: baton_core::transcripts::conversation::Parsed,
    pub(super) rows: Vec<(baton_core::transcripts::UsageEntry, u128)>,
    pub(super) stats: &'a baton_core::transcripts::ReadStats,
    pub(super) state: Option<String>,
    pub(super) identity: Identity,
    pub(super) before: Option<&'a Known>,
}

/// Stores what a whole read gave, in one transaction: each conversation read replaces what
/// the index held of it (its messages, tool calls and usage rows), kept as read for `show`.
pub(super) fn store_read(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    packer: &mut Packer,
    stats: &mut PassStats,
    read: WholeRead<'_>,
) -> Result<(), Error> {
    let WholeRead {
        mut parsed,
        rows,
        stats: read_stats,
        state,
        identity,
        before,
    } = read;
    let provider = source.provider;
    let (transaction, source_id) = begin_source(connection, index_path, before, source)?;
    let mut forgotten = Vec::new();
    for conversation in &mut parsed.conversations {
        forgotten.extend(
            forget_conversation(&transaction, packer, source_id, conversation)
                .map_err(sql(index_path))?,
        );
        mask(masker, conversation);
        stats.messages +=
            store_conversation(&transaction, packer, source_id, provider, conversation)
                .map_err(sql(index_path))?;
        // Kept as read (secrets masked), for `transcripts show` and what comes after it.
        let raw = serde_json::to_vec(&*conversation).unwrap_or_default();
        keep_item(&transaction, packer, source_id, conversation, &raw, false)
            .map_err(sql(index_path))?;
    }
    // Each row at its own place past the source's others: a session stored again has had
    // its rows removed above.
    let first: i64 = transaction
        .query_row(
            "SELECT COALESCE(MAX(offset) + 1, 0) FROM usage WHERE source = ?1",
            [source_id],
            |r| r.get(0),
        )
        .map_err(sql(index_path))?;
    for (offset, (entry, key)) in (first..).zip(rows) {
        let response = Response::keyed(&entry, key);
        store_usage(
            &transaction,
            packer,
            source_id,
            offset,
            &[(entry, Some(response))],
        )
        .map_err(sql(index_path))?;
    }
    settle(&transaction, &forgotten, &parsed.conversations).map_err(sql(index_path))?;
    // A response another source also holds (a session copied to a second folder) is counted
    // once: the rows of each key touched are recounted, as a window's are.
    packer.dirty.settle(&transaction).map_err(sql(index_path))?;
    packer
        .vocabulary
        .settle(&transaction)
        .map_err(sql(index_path))?;
    transaction
        .execute(
            "UPDATE sources SET usage_stats = ?1, usage_state = ?2 WHERE id = ?3",
            params![
                stats_json(read_stats),
                packer.pack_state(provider, state),
                source_id
            ],
        )
        .map_err(sql(index_path))?;
    let done = (source_id, identity, before.is_some());
    read_whole(transaction, index_path, done, stats)
}

/// Removes what the index holds of one conversation read from `source_id`, before it is
/// stored again; returns its row id (see [`settle`]).
fn forget_conversation(
    transaction: &Connection,
    packer: &mut Packer,
    source_id: i64,
    read: &Conversation,
) -> rusqlite::Result<Option<i64>> {
    let id = read.id.as_str();
    // The conversation's own provider: a copy is kept as the conversation it copies.
    let Some(conversation): Option<i64> = transaction
        .query_row(
            "SELECT id FROM conversations WHERE provider = ?1 AND provider_id = ?2",
            params![read.provider.key(), id],
            |r| r.get(0),
        )
        .optional()?
    else {
        return Ok(None);
    };
    // This source's calls, and results whose call was never read; a conversation spread
    // over several files (a sub-agent's own) keeps the others'.
    transaction.execute(
        "DELETE FROM tool_calls WHERE conversation = ?1 AND (message IS NULL
             OR message IN (SELECT id FROM messages WHERE conversation = ?1 AND source = ?2))",
        params![conversation, source_id],
    )?;
    transaction.execute(
        "DELETE FROM messages_fts WHERE rowid IN
             (SELECT id FROM messages WHERE conversation = ?1 AND source = ?2)",
        params![conversation, source_id],
    )?;
    transaction.execute(
        "DELETE FROM messages WHERE conversation = ?1 AND source = ?2",
        params![conversation, source_id],
    )?;
    let session = packer.name(transaction, Some(id))?;
    packer.dirty.delete(
        transaction,
        "DELETE FROM usage WHERE source = ?1 AND session = ?2 RETURNING message_key",
        params![source_id, session],
    )?;
    Ok(Some(conversation))
}

/// Masks the secrets in what a conversation's messages say, as the mirror does for every
/// transcript before it is kept.
fn mask(masker: &Masker, conversation: &mut Conversation) {
    use baton_core::transcripts::conversation::Block;
    let masked = |text: &mut String| {
        let out = masker.mask_bytes(text.as_bytes());
        *text = String::from_utf8_lossy(&out).into_owned();
    };
    for message in &mut conversation.messages {
        for block in &mut message.blocks {
            match block {
                Block::Text { text } | Block::Thinking { text } => masked(text),
                Block::ToolCall { input, .. } => masked(input),
                Block::ToolResult { output, .. } => masked(output),
                Block::Other { raw, .. } => masked(raw),
            }
        }
    }
}
