//! Reading a source window by window: bounded reads of whole lines, the over-long line passed
//! over, and a file first seen followed from its end.

use super::*;

/// Brings one source up to date, window by window: each window's lines are committed
/// before the next is read, and the size recorded is how far the index has looked, so a pass
/// cut short (killed, or out of time) leaves a source the next pass resumes.
pub(super) fn sync(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let mut prefetched = packer.ahead.take();
    let (shown, meta) = looked_at(source)?;
    let mut file = None;
    let mut windows = 0u32;
    loop {
        let before = known(connection, packer, &shown).map_err(sql(index_path))?;
        if let Some(k) = &before
            && k.identity() == identity_of(&meta)
            && !k.missing
        {
            // Unchanged (or set aside, and unchanged since), or read to its end.
            return Ok(());
        }
        if !meta.is_file() {
            return Err(Error::store_unsafe(&shown, "is not a regular file"));
        }
        let file = match &mut file {
            Some(file) => file,
            None => {
                stats.files_opened += 1;
                file.insert(crate::os::files::open_regular(&source.path)?)
            }
        };
        if before.is_none() && !options.backfill {
            stats.skipped_backlog += 1;
            return follow_from_end(connection, index_path, source, file, &meta, stats);
        }
        let window = Window {
            index_path,
            source,
            shown: &shown,
            masker,
            identity: identity_of(&meta),
        };
        let rereads = stats.rereads;
        if !window.read(connection, file, before, prefetched.take(), packer, stats)? {
            return Ok(());
        }
        // A window is a batch's worth: what the pass gathered is committed before the next,
        // so a pass cut short resumes a big file where its last window ended.
        if !connection.is_autocommit() {
            super::batch::commit(connection, packer).map_err(sql(index_path))?;
        }
        windows += 1;
        // A file rewritten under the reader (its start changed between two windows) is read
        // again from its start once in this pass, not again and again: the next pass goes on.
        if windows > 1 && stats.rereads > rereads {
            return Ok(());
        }
    }
}

/// One window of a source: what [`sync`] reads in one transaction.
pub(super) struct Window<'a> {
    index_path: &'a Path,
    source: &'a Source,
    shown: &'a str,
    masker: &'a Masker,
    identity: Identity,
}

/// What [`read_window`] read, and where an over-long line it passed over ends.
pub(super) type WindowRead = (Vec<u8>, Option<u64>);

/// Reads up to a window of whole lines of `file` from `from`: at least one whole line when
/// one ends before [`MAX_LINE_BYTES`] (a longer line is not held: the answer is then empty,
/// with `Some(end)` saying where the over-long line ends, if it does).
/// A line still being written that is already too long answers empty, with `None`.
pub(super) fn read_window(
    file: &mut std::fs::File,
    from: u64,
    stats: &mut PassStats,
) -> std::io::Result<WindowRead> {
    file.seek(SeekFrom::Start(from))?;
    let mut chunk = Vec::new();
    file.take(WINDOW_BYTES).read_to_end(&mut chunk)?;
    stats.bytes_read += chunk.len() as u64;
    // A line longer than the window: read on to its end, up to the longest line kept (a line
    // of exactly that length, with its newline one byte further, is kept).
    let mut searched = 0;
    while memchr_newline(&chunk[searched..]).is_none() && chunk.len() as u64 >= WINDOW_BYTES {
        searched = chunk.len();
        if chunk.len() as u64 > MAX_LINE_BYTES {
            let end = skip_long_line(file, from + chunk.len() as u64, stats)?;
            return Ok((Vec::new(), end));
        }
        let before = chunk.len();
        file.take(WINDOW_BYTES.min(MAX_LINE_BYTES + 1 - before as u64))
            .read_to_end(&mut chunk)?;
        stats.bytes_read += (chunk.len() - before) as u64;
        if chunk.len() == before {
            break;
        }
    }
    Ok((chunk, None))
}

pub(super) fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

/// How much of `chunk` (read from `cursor` of a file of `size` bytes) is whole lines: up to
/// its last newline, past an over-long line that ends at `long_line_end`, or all of it when
/// the file ends with one whole JSON object never given its newline (a session written on
/// one line).
pub(super) fn complete_of(
    chunk: &[u8],
    cursor: i64,
    size: i64,
    long_line_end: Option<u64>,
) -> usize {
    let complete = match (chunk.iter().rposition(|b| *b == b'\n'), long_line_end) {
        (_, Some(end)) => (end - cursor as u64) as usize,
        (Some(end), None) => end + 1,
        (None, None) => 0,
    };
    if long_line_end.is_none()
        && cursor as u64 + chunk.len() as u64 >= size as u64
        && baton_core::transcripts::lines::whole_unterminated(&chunk[complete..])
    {
        return chunk.len();
    }
    complete
}

impl Window<'_> {
    /// Reads and stores one window; whether the file has more to read now.
    pub(super) fn read(
        &self,
        connection: &mut Connection,
        file: &mut std::fs::File,
        before: Option<Known>,
        prefetched: Option<Prefetched>,
        packer: &mut Packer,
        stats: &mut PassStats,
    ) -> Result<bool, Error> {
        let Window {
            index_path,
            source,
            shown,
            masker,
            identity: (device, inode, size, mtime_ns),
        } = *self;
        let read_err = |e: std::io::Error| Error::store_io("read", shown, e);
        // From where, and what the 4 KiB before it hold.
        let mut cursor = 0i64;
        let mut tail_before: Vec<u8> = Vec::new();
        let mut reread = false;
        let mut reader_state = None;
        if let Some(k) = &before {
            let same_file = (k.device, k.inode) == (device, inode);
            if same_file && size >= k.cursor {
                let from = (k.cursor as u64).saturating_sub(TAIL);
                file.seek(SeekFrom::Start(from)).map_err(read_err)?;
                tail_before.resize((k.cursor as u64 - from) as usize, 0);
                file.read_exact(&mut tail_before).map_err(read_err)?;
                stats.bytes_read += tail_before.len() as u64;
                if fnv(&tail_before) == k.tail_hash {
                    cursor = k.cursor;
                    reader_state = k.reader_state.clone();
                } else {
                    reread = true;
                }
            } else {
                reread = true;
            }
        }
        if !reread && cursor == size && before.is_some() {
            // Touched, not grown: record the identity, nothing to read.
            connection
                .execute(
                    "UPDATE sources SET mtime_ns = ?1, size = ?3, missing = 0
                 WHERE path_key = baton_path_key(?2) AND path = ?2",
                    params![mtime_ns, shown, size],
                )
                .map_err(sql(index_path))?;
            return Ok(false);
        }
        if reread {
            tail_before.clear();
            stats.rereads += 1;
        }
        // A file no pass had read may come read and digested already (by the second thread).
        let (chunk, long_line_end, mut digested) = match prefetched {
            Some(p) if before.is_none() && p.identity == self.identity => {
                stats.bytes_read += p.bytes_read;
                (p.chunk, None, Some(p.digest))
            }
            _ => {
                let (chunk, long_line_end) =
                    read_window(file, cursor as u64, stats).map_err(read_err)?;
                (chunk, long_line_end, None)
            }
        };
        let complete = complete_of(&chunk, cursor, size, long_line_end);
        // Past a line too long to keep, nothing of it is taken.
        let taken: &[u8] = if complete > chunk.len() {
            &[]
        } else {
            &chunk[..complete]
        };
        let new_cursor = cursor + complete as i64;
        let mut tail = tail_before;
        tail.extend_from_slice(taken);
        let tail = &tail[tail.len().saturating_sub(TAIL as usize)..];
        let tail_hash = if complete > chunk.len() {
            // Past a line too long to keep: hash what is before the new cursor.
            let from = (new_cursor as u64).saturating_sub(TAIL);
            let mut bytes = vec![0; (new_cursor as u64 - from) as usize];
            file.seek(SeekFrom::Start(from)).map_err(read_err)?;
            file.read_exact(&mut bytes).map_err(read_err)?;
            stats.bytes_read += bytes.len() as u64;
            fnv(&bytes)
        } else {
            fnv(tail)
        };

        let (transaction, source_id) =
            begin_source(connection, index_path, before.as_ref(), source)?;
        let mut forgotten = Vec::new();
        if reread {
            forgotten = forget_rows(&transaction, packer, source_id).map_err(sql(index_path))?;
            reader_state = None;
        }
        if let Some(end) = long_line_end {
            let bytes = end - cursor as u64;
            crate::os::warnings::warn(&format!(
                "mirror: the line of {shown} at byte {cursor} is {bytes} bytes long, over the {} MiB a line may be; passed over (the lines after it are read)",
                MAX_LINE_BYTES >> 20
            ));
            stats.skipped_lines += 1;
            transaction
            .execute(
                "INSERT OR REPLACE INTO skipped_lines (source, offset, bytes) VALUES (?1, ?2, ?3)",
                params![source_id, cursor, bytes as i64],
            )
            .map_err(sql(index_path))?;
        }
        if !reread {
            // The unfinished last line's provisional usage, from the last pass.
            packer
                .dirty
                .delete(
                    &transaction,
                    "DELETE FROM usage WHERE source = ?1 AND offset >= ?2 RETURNING message_key",
                    params![source_id, cursor],
                )
                .map_err(sql(index_path))?;
        }
        // Whether the window stopped before the file's end with whole lines still to read.
        let more = complete > 0
            && (long_line_end.is_some() || chunk.len() as u64 >= WINDOW_BYTES)
            && new_cursor < size;
        // A last line without its newline waits; a report counts it as it stands meanwhile.
        let at_end = cursor as u64 + chunk.len() as u64 >= size as u64;
        let unfinished = (at_end && complete < chunk.len()).then(|| &chunk[complete..]);
        // The lines, once each, secrets masked (the masked text is all that is kept), with the
        // usage and the conversations they hold.
        let digest = match digested.take() {
            Some(digest) => digest,
            None => {
                let companions = crate::os::files::companions_of(source.provider, &source.path);
                let start = Start {
                    cursor,
                    usage: match (&before, reread) {
                        (Some(k), false) => (k.usage_stats.as_deref(), k.usage_state.as_deref()),
                        _ => (None, None),
                    },
                    reader_state: reader_state.as_deref(),
                };
                digest(
                    source,
                    shown,
                    masker,
                    &start,
                    taken,
                    unfinished,
                    &companions,
                )
            }
        };
        stats.lines += digest.lines.len() as u64;
        for (offset, rows) in &digest.line_rows {
            store_usage(&transaction, packer, source_id, *offset, rows).map_err(sql(index_path))?;
        }
        for (offset, row) in &digest.held {
            store_usage(
                &transaction,
                packer,
                source_id,
                *offset,
                std::slice::from_ref(row),
            )
            .map_err(sql(index_path))?;
        }
        if !digest.lines.is_empty() {
            store_lines(
                &transaction,
                packer,
                source.provider,
                source_id,
                cursor,
                &digest.lines,
            )
            .map_err(sql(index_path))?;
        }
        let pending = match &digest.provisional {
            Some((rows, held)) => {
                store_usage(&transaction, packer, source_id, new_cursor, rows)
                    .map_err(sql(index_path))?;
                Some(held.clone())
            }
            None => None,
        };
        let (usage_stats, usage_state) = digest.usage;
        let (parsed, next_state) = (digest.parsed, digest.reader_state);
        for conversation in &parsed.conversations {
            stats.messages += store_conversation(
                &transaction,
                packer,
                source_id,
                source.provider,
                conversation,
            )
            .map_err(sql(index_path))?;
        }
        settle(&transaction, &forgotten, &parsed.conversations).map_err(sql(index_path))?;
        // A file that holds only conversations removed on purpose keeps no lines either.
        if !parsed.conversations.is_empty() {
            let mut all_removed = true;
            for conversation in &parsed.conversations {
                all_removed &= packer
                    .is_removed(&transaction, source.provider.key(), &conversation.id)
                    .map_err(sql(index_path))?;
            }
            if all_removed {
                transaction
                    .execute(
                        "DELETE FROM lines WHERE source = ?1
                         AND NOT EXISTS (SELECT 1 FROM messages WHERE source = ?1)",
                        [source_id],
                    )
                    .map_err(sql(index_path))?;
            }
        }
        let next_state = packer.pack_state(source.provider, next_state);
        let usage_state = packer.pack_state(source.provider, usage_state);
        // Cached: the statement carries the tallies' trigger on the stats, costly to prepare.
        transaction
            .prepare_cached(
                "UPDATE sources SET device = ?1, inode = ?2, size = ?3, mtime_ns = ?4, cursor = ?5,
                 tail_hash = ?6, reader_state = ?7, missing = 0, rereads = rereads + ?8,
                 usage_stats = ?10, usage_state = ?11, usage_pending = ?12, quarantine = NULL
             WHERE id = ?9",
            )
            .and_then(|mut update| {
                update.execute(params![
                    device,
                    inode,
                    // How far the index has looked: short of the file's size while windows remain,
                    // so a pass cut short between windows is resumed by the next.
                    if more { new_cursor } else { size },
                    mtime_ns,
                    new_cursor,
                    tail_hash,
                    next_state,
                    i64::from(reread),
                    source_id,
                    usage_stats,
                    usage_state,
                    pending
                ])
            })
            .map_err(sql(index_path))?;
        packer.dirty.settle(&transaction).map_err(sql(index_path))?;
        packer
            .vocabulary
            .settle(&transaction)
            .map_err(sql(index_path))?;
        transaction.commit().map_err(sql(index_path))?;
        Ok(more)
    }
}

/// Records a file seen for the first time with backfill off: its cursor after its last
/// complete line, so only what is appended later is kept. A Codex file's first line (its
/// `session_meta`) is read for the session's id, which later lines do not repeat.
pub(super) fn follow_from_end(
    connection: &Connection,
    index_path: &Path,
    source: &Source,
    file: &mut std::fs::File,
    meta: &std::fs::Metadata,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let shown = source.path.display().to_string();
    let read_err = |e: std::io::Error| Error::store_io("read", &shown, e);
    let identity = identity_of(meta);
    let size = meta.size();
    let from = size.saturating_sub(1 << 20);
    file.seek(SeekFrom::Start(from)).map_err(read_err)?;
    let mut end = Vec::new();
    file.read_to_end(&mut end).map_err(read_err)?;
    stats.bytes_read += end.len() as u64;
    let cursor = end
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(from, |at| from + at as u64 + 1);
    let tail_from = cursor.saturating_sub(TAIL);
    let mut tail = vec![0; (cursor - tail_from) as usize];
    file.seek(SeekFrom::Start(tail_from)).map_err(read_err)?;
    file.read_exact(&mut tail).map_err(read_err)?;
    let (mut reader_state, mut usage_state) = (None, None);
    // An agent whose readers keep a state from its first line (Codex's session line) has it
    // read now: the lines followed from here belong to that session.
    if source.provider.entry().gives.first_line_sets_state {
        file.seek(SeekFrom::Start(0)).map_err(read_err)?;
        let mut first = Vec::new();
        std::io::BufRead::read_until(
            &mut std::io::BufReader::new((&mut *file).take(1 << 20)),
            b'\n',
            &mut first,
        )
        .map_err(read_err)?;
        if first.ends_with(b"\n") && (first.len() as u64) <= cursor {
            let line = first.strip_suffix(b"\n").unwrap_or(&first);
            (reader_state, usage_state) = baton_core::transcripts::follow::states_after_first_line(
                source.provider,
                &shown,
                line,
            );
        }
    }
    connection
        .execute(
            "INSERT INTO sources (path, path_key, provider, device, inode, size, mtime_ns, cursor,
                 tail_hash, reader_state, usage_state)
             VALUES (?1, baton_path_key(?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                shown,
                source.provider.key(),
                identity.0,
                identity.1,
                identity.2,
                identity.3,
                cursor as i64,
                fnv(&tail),
                reader_state,
                usage_state
            ],
        )
        .map_err(sql(index_path))?;
    Ok(())
}

/// Reads past a line too long to keep; the offset just after its newline, or `None` when the
/// file ends first (the line is still being written: it is waited for).
pub(super) fn skip_long_line(
    file: &mut std::fs::File,
    mut at: u64,
    stats: &mut PassStats,
) -> std::io::Result<Option<u64>> {
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer)?;
        stats.bytes_read += n as u64;
        if n == 0 {
            return Ok(None);
        }
        if let Some(end) = memchr_newline(&buffer[..n]) {
            return Ok(Some(at + end as u64 + 1));
        }
        at += n as u64;
    }
}
