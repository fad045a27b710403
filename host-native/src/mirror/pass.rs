//! One mirror pass: every source file checked by its identity (device, inode, size, mtime)
//! and, when it grew, by a hash of the 4 KiB before its cursor, then read from the cursor.
//! Only complete lines are taken; a partial last line waits for the next pass. A file is read
//! in windows of 8 MiB: a window's lines, the conversations and messages they hold, the
//! full-text rows and the new cursor commit in one transaction, so a pass killed anywhere
//! leaves the index as it was before a window or after it, never inside one, and the next
//! pass goes on from the last window committed. A file that shrank, was replaced or had its
//! prefix rewritten is read again from the start (that file only); a deleted file's rows
//! stay, marked missing.

use baton_core::Error;
use baton_core::transcripts::Provider;
use baton_core::transcripts::conversation::{
    ClaudeCodeReader, CodexReader, CodexState, Conversation, Parsed,
};
use baton_core::transcripts::ingest::session_name;
use baton_core::transcripts::search::indexed_fields;
use baton_core::transcripts::secrets::Masker;
use baton_core::transcripts::usage::claude_code::{ClaudeCodeUsage, Response, project_folder_of};
use baton_core::transcripts::usage::codex::{CodexUsage, CodexUsageState};
use baton_core::transcripts::{ReadStats, UsageEntry};
use rusqlite::{Connection, OptionalExtension, params};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The bytes before the cursor whose hash tells a grown file from a rewritten one.
const TAIL: u64 = 4096;
/// How much of a file one window reads (a pass reads a file window by window, each in its
/// own transaction, so memory stays bounded whatever the file's size).
pub const WINDOW_BYTES: u64 = 8 << 20;
/// The longest line the mirror keeps, the core's bound for every reader; a longer one is
/// passed over (recorded in `skipped_lines` with its size) and the lines after it are read.
pub const MAX_LINE_BYTES: u64 = baton_core::transcripts::lines::MAX_LINE_BYTES as u64;

/// A file to mirror.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Where it is.
    pub path: PathBuf,
    /// Whose transcript it is.
    pub provider: Provider,
    /// Its identity when the walk found it (device, inode, size, mtime), so the pass right
    /// after the walk need not `stat` it again. It is that pass's only: a list kept for a
    /// later pass must be found again (or say `None`, and the pass looks).
    pub seen: Option<(i64, i64, i64, i64)>,
}

/// What a pass did, counted (the tests' seam: work is counted, not timed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PassStats {
    /// Files looked at.
    pub files: u64,
    /// Files opened to read.
    pub files_opened: u64,
    /// Bytes read from sources (tail checks included).
    pub bytes_read: u64,
    /// Complete lines taken.
    pub lines: u64,
    /// Conversations read from exports.
    pub export_conversations: u64,
    /// Messages added.
    pub messages: u64,
    /// Files read again from the start (shrunk, replaced, rewritten).
    pub rereads: u64,
    /// Files gone from disk whose rows were kept.
    pub missing: u64,
    /// Files that could not be read this pass (set aside until they change).
    pub failed: u64,
    /// Files seen for the first time and followed from their end (backfill off).
    pub skipped_backlog: u64,
    /// Lines passed over for being longer than [`MAX_LINE_BYTES`].
    pub skipped_lines: u64,
}

impl PassStats {
    /// Whether the pass changed anything in the index.
    pub fn changed(&self) -> bool {
        self.lines > 0
            || self.export_conversations > 0
            || self.messages > 0
            || self.rereads > 0
            || self.missing > 0
    }

    /// Adds another pass's counts.
    pub fn add(&mut self, other: &PassStats) {
        self.files += other.files;
        self.files_opened += other.files_opened;
        self.bytes_read += other.bytes_read;
        self.lines += other.lines;
        self.export_conversations += other.export_conversations;
        self.messages += other.messages;
        self.skipped_lines += other.skipped_lines;
        self.rereads += other.rereads;
        self.missing += other.missing;
        self.failed += other.failed;
        self.skipped_backlog += other.skipped_backlog;
    }
}

/// How a pass treats what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassOptions {
    /// Read a file seen for the first time from its start (else follow it from its end).
    pub backfill: bool,
    /// Look for every indexed source gone from disk (a full pass); else only the sources
    /// given are looked at.
    pub sweep_missing: bool,
    /// The largest ChatGPT export file read (a larger one is set aside, with a warning).
    pub chatgpt_max_bytes: u64,
    /// The largest claude.ai export file read.
    pub claude_ai_max_bytes: u64,
}

impl Default for PassOptions {
    fn default() -> PassOptions {
        PassOptions {
            backfill: true,
            sweep_missing: true,
            chatgpt_max_bytes: super::settings::DEFAULT_EXPORT_MAX_BYTES,
            claude_ai_max_bytes: super::settings::DEFAULT_EXPORT_MAX_BYTES,
        }
    }
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| {
        // Another connection held the index a moment too long: the file is not at fault, and
        // the next pass tries it again.
        let busy = matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        );
        let err = super::index::failure("write the index for", path, e);
        if busy {
            err.with("transient", true)
        } else {
            err
        }
    }
}

use super::index::fnv;

fn provider_name(provider: Provider) -> &'static str {
    super::packing::provider_key(provider)
}

/// What the index knew of a source.
struct Known {
    id: i64,
    device: i64,
    inode: i64,
    size: i64,
    mtime_ns: i64,
    cursor: i64,
    tail_hash: i64,
    reader_state: Option<String>,
    missing: bool,
    usage_stats: Option<String>,
    usage_state: Option<String>,
    quarantine: Option<String>,
}

impl Known {
    fn identity(&self) -> Identity {
        (self.device, self.inode, self.size, self.mtime_ns)
    }
}

/// Opens a source's write (taking the index's write lock up front, so it is waited for
/// rather than failing on a snapshot another connection moved) and gives the source's row,
/// made if the index did not know it.
fn begin_source<'c>(
    connection: &'c mut Connection,
    index_path: &Path,
    before: Option<&Known>,
    source: &Source,
) -> Result<(rusqlite::Transaction<'c>, i64), Error> {
    let transaction = connection
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(sql(index_path))?;
    let source_id = match before {
        Some(k) => k.id,
        None => {
            transaction
                .prepare_cached(
                    "INSERT INTO sources (path, path_key, provider)
                     VALUES (?1, baton_path_key(?1), ?2)",
                )
                .and_then(|mut insert| {
                    insert.execute(params![
                        source.path.display().to_string(),
                        provider_name(source.provider)
                    ])
                })
                .map_err(sql(index_path))?;
            transaction.last_insert_rowid()
        }
    };
    Ok((transaction, source_id))
}

/// Runs one pass over `sources` (calling `progress` after each), then, with
/// `sweep_missing`, marks the indexed sources that are gone from disk as missing. A file that
/// cannot be read is set aside with its identity, warned about once, and tried again only
/// when it changes.
pub fn run(
    connection: &mut Connection,
    index_path: &Path,
    sources: &[Source],
    masker: &Masker,
    options: PassOptions,
    progress: &mut dyn FnMut(&PassStats),
) -> PassStats {
    let mut stats = PassStats::default();
    let mut packer = Packer::new(connection);
    packer.train_missing(connection, sources);
    // What the index knows of every file, read once when the pass looks at many: an
    // unchanged file then costs a lookup here, no query. (A follow's batch of a few files
    // asks for each instead of reading every source's row.)
    let identities = if sources.len() > 64 {
        identities(connection).unwrap_or_default()
    } else {
        std::collections::HashMap::new()
    };
    let mut present: std::collections::HashSet<String> = std::collections::HashSet::new();
    for source in sources {
        stats.files += 1;
        let shown = source.path.display().to_string();
        if let Some(seen) = source.seen
            && identities.get(&shown) == Some(&seen)
        {
            present.insert(shown);
            progress(&stats);
            continue;
        }
        let meta = std::fs::symlink_metadata(&source.path);
        if let Ok(meta) = &meta
            && identities.get(&shown) == Some(&identity_of(meta))
        {
            present.insert(shown);
            progress(&stats);
            continue;
        }
        let result = if meta.is_err() {
            // Gone since it was found (or named by a notification of its removal).
            mark_gone(connection, &shown)
                .map(|gone| stats.missing += gone)
                .map_err(sql(index_path))
        } else if matches!(source.provider, Provider::Chatgpt | Provider::ClaudeAi) {
            sync_export(
                connection,
                index_path,
                source,
                masker,
                options,
                &mut packer,
                &mut stats,
            )
        } else {
            sync(
                connection,
                index_path,
                source,
                masker,
                options,
                &mut packer,
                &mut stats,
            )
        };
        if let Err(err) = result {
            packer.forget_names();
            stats.failed += 1;
            if err.details.get("transient") == Some(&serde_json::Value::Bool(true)) {
                crate::os::warnings::warn(&format!(
                    "mirror: {} was not read this pass: {} (tried again next pass)",
                    source.path.display(),
                    err.message
                ));
                progress(&stats);
                continue;
            }
            // Set aside under the identity it had before it was read: a file still being
            // written (an export being copied in) changes after that, and is tried again.
            let read_as = meta.as_ref().ok().map(identity_of);
            if set_aside(connection, source, &err.message, read_as).unwrap_or(true) {
                crate::os::warnings::warn(&format!(
                    "mirror: {} was not read: {} (tried again when it changes)",
                    source.path.display(),
                    err.message
                ));
            }
        }
        if meta.is_ok() {
            present.insert(shown);
        }
        progress(&stats);
    }
    if options.sweep_missing {
        stats.missing += mark_missing(connection, index_path, &present).unwrap_or(0);
    }
    stats
}

/// A file's identity as the index keeps it: device, inode, size, mtime.
type Identity = (i64, i64, i64, i64);

fn identity_of(meta: &std::fs::Metadata) -> Identity {
    (
        meta.dev() as i64,
        meta.ino() as i64,
        meta.size() as i64,
        meta.mtime() * 1_000_000_000 + meta.mtime_nsec(),
    )
}

/// The identity of every source read whole and in good standing (not missing, not set
/// aside): a file with the same identity now has nothing new.
fn identities(
    connection: &Connection,
) -> rusqlite::Result<std::collections::HashMap<String, Identity>> {
    let mut statement = connection.prepare(
        "SELECT path, device, inode, size, mtime_ns FROM sources
         WHERE missing = 0 AND quarantine IS NULL",
    )?;
    let rows = statement.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
        ))
    })?;
    rows.collect()
}

/// How many bytes a pass over `sources` would read at most: each file's size past its cursor
/// (for a progress bar's total).
pub fn unread_bytes(connection: &Connection, sources: &[Source]) -> u64 {
    let mut cursors = std::collections::HashMap::new();
    if let Ok(mut statement) = connection.prepare("SELECT path, cursor FROM sources")
        && let Ok(rows) = statement.query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)?))
        })
    {
        cursors.extend(rows.flatten());
    }
    sources
        .iter()
        .filter_map(|source| {
            let size = std::fs::metadata(&source.path).ok()?.len();
            let cursor = cursors
                .get(&source.path.display().to_string())
                .copied()
                .unwrap_or(0);
            Some(size.saturating_sub(u64::try_from(cursor).unwrap_or(0)))
        })
        .sum()
}

/// Marks one source gone; 1 when it was indexed and not already marked.
fn mark_gone(connection: &Connection, path: &str) -> rusqlite::Result<u64> {
    connection
        .execute(
            "UPDATE sources SET missing = 1
             WHERE path_key = baton_path_key(?1) AND path = ?1 AND missing = 0",
            [path],
        )
        .map(|n| n as u64)
}

/// Records a file that could not be read with the identity it was read under (`read_as`,
/// else as it is now), so it is not tried again until it changes; whether this is news (not
/// the same failure as before).
fn set_aside(
    connection: &Connection,
    source: &Source,
    message: &str,
    read_as: Option<Identity>,
) -> rusqlite::Result<bool> {
    let Some((device, inode, size, mtime_ns)) = read_as.or_else(|| {
        std::fs::symlink_metadata(&source.path)
            .ok()
            .map(|meta| identity_of(&meta))
    }) else {
        return Ok(true);
    };
    let shown = source.path.display().to_string();
    let before: Option<String> = connection
        .query_row(
            "SELECT quarantine FROM sources WHERE path_key = baton_path_key(?1) AND path = ?1",
            [&shown],
            |row| row.get(0),
        )
        .optional()?
        .flatten();
    let set_aside = params![
        shown,
        provider_name(source.provider),
        device,
        inode,
        size,
        mtime_ns,
        message
    ];
    let updated = connection.execute(
        "UPDATE sources SET device = ?3, inode = ?4, size = ?5, mtime_ns = ?6, quarantine = ?7
         WHERE path_key = baton_path_key(?1) AND path = ?1 AND provider = ?2",
        set_aside,
    )?;
    if updated == 0 {
        connection.execute(
            "INSERT INTO sources (path, path_key, provider, device, inode, size, mtime_ns,
                 quarantine)
             VALUES (?1, baton_path_key(?1), ?2, ?3, ?4, ?5, ?6, ?7)",
            set_aside,
        )?;
    }
    Ok(before.as_deref() != Some(message))
}

/// Marks the indexed sources gone from disk; the files this pass found are not looked at
/// again.
fn mark_missing(
    connection: &Connection,
    index_path: &Path,
    present: &std::collections::HashSet<String>,
) -> Result<u64, Error> {
    let mut statement = connection
        .prepare("SELECT id, path FROM sources WHERE missing = 0")
        .map_err(sql(index_path))?;
    let gone: Vec<i64> = statement
        .query_map([], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?))
        })
        .map_err(sql(index_path))?
        .filter_map(Result::ok)
        .filter(|(_, path)| !present.contains(path) && std::fs::symlink_metadata(path).is_err())
        .map(|(id, _)| id)
        .collect();
    for id in &gone {
        connection
            .execute("UPDATE sources SET missing = 1 WHERE id = ?1", [id])
            .map_err(sql(index_path))?;
    }
    Ok(gone.len() as u64)
}

fn known(
    connection: &Connection,
    packer: &mut Packer,
    path: &str,
) -> rusqlite::Result<Option<Known>> {
    use rusqlite::types::Value;
    let found: Option<(Known, Value, Value)> = connection
        .prepare_cached(
            "SELECT id, device, inode, size, mtime_ns, cursor, tail_hash, reader_state, missing,
                    usage_stats, usage_state, quarantine
             FROM sources WHERE path_key = baton_path_key(?1) AND path = ?1",
        )?
        .query_row([path], |row| {
            let known = Known {
                id: row.get(0)?,
                device: row.get(1)?,
                inode: row.get(2)?,
                size: row.get(3)?,
                mtime_ns: row.get(4)?,
                cursor: row.get(5)?,
                tail_hash: row.get(6)?,
                reader_state: None,
                missing: row.get::<_, i64>(8)? != 0,
                usage_stats: row.get(9)?,
                usage_state: None,
                quarantine: row.get(11)?,
            };
            Ok((known, row.get(7)?, row.get(10)?))
        })
        .optional()?;
    // The readers' states are kept compressed when that is smaller.
    Ok(found.map(|(mut known, reader, usage)| {
        known.reader_state = packer.unpack_state(connection, reader);
        known.usage_state = packer.unpack_state(connection, usage);
        known
    }))
}

/// Brings one source up to date, window by window: each window's lines are committed
/// before the next is read, and the size recorded is how far the index has looked, so a pass
/// cut short (killed, or out of time) leaves a source the next pass resumes.
fn sync(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let shown = source.path.display().to_string();
    let meta =
        std::fs::symlink_metadata(&source.path).map_err(|e| Error::store_io("read", &shown, e))?;
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
                file.insert(crate::files::open_regular(&source.path)?)
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
        if !window.read(connection, file, before, packer, stats)? {
            return Ok(());
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
struct Window<'a> {
    index_path: &'a Path,
    source: &'a Source,
    shown: &'a str,
    masker: &'a Masker,
    identity: Identity,
}

/// What [`read_window`] read, and where an over-long line it passed over ends.
type WindowRead = (Vec<u8>, Option<(u64, bool)>);

/// Reads up to a window of whole lines of `file` from `from`: at least one whole line when
/// one ends before [`MAX_LINE_BYTES`] (a longer line is not held: the answer is then empty,
/// with `Some(end)` saying where the over-long line ends, if it does).
/// A line still being written that is already too long answers empty, with `None`.
fn read_window(
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
            return Ok((Vec::new(), end.map(|end| (end, true))));
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

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

impl Window<'_> {
    /// Reads and stores one window; whether the file has more to read now.
    fn read(
        &self,
        connection: &mut Connection,
        file: &mut std::fs::File,
        before: Option<Known>,
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
        let (chunk, long_line_end) = read_window(file, cursor as u64, stats).map_err(read_err)?;
        // Only complete lines; a line longer than the mirror keeps is passed over and recorded.
        let complete = match (chunk.iter().rposition(|b| *b == b'\n'), long_line_end) {
            (_, Some((end, _))) => (end - cursor as u64) as usize,
            (Some(end), None) => end + 1,
            (None, None) => 0,
        };
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
        if let Some((end, _)) = long_line_end {
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
        // The lines, once each, secrets masked: the masked text is all that is kept.
        let mut offset = cursor;
        let mut lines: Vec<std::borrow::Cow<[u8]>> = Vec::new();
        let mut usage =
            UsageReader::new(source, shown, if reread { None } else { before.as_ref() });
        for line in taken.split_inclusive(|b| *b == b'\n') {
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if let Some(body) = baton_core::transcripts::lines::whole_line(body) {
                usage
                    .push_line(&transaction, packer, source_id, offset, body)
                    .map_err(sql(index_path))?;
                lines.push(masker.mask_bytes(body));
                stats.lines += 1;
            }
            offset += line.len() as i64;
        }
        usage
            .store_batch(&transaction, packer, source_id)
            .map_err(sql(index_path))?;
        if !lines.is_empty() {
            store_lines(
                &transaction,
                packer,
                source.provider,
                source_id,
                cursor,
                &lines,
            )
            .map_err(sql(index_path))?;
        }
        // Whether the window stopped before the file's end with whole lines still to read.
        let more = complete > 0
            && (long_line_end.is_some() || chunk.len() as u64 >= WINDOW_BYTES)
            && new_cursor < size;
        // A last line without its newline waits; a report counts it as it stands meanwhile.
        let at_end = cursor as u64 + chunk.len() as u64 >= size as u64;
        let pending = if at_end && complete < chunk.len() {
            usage
                .provisional(
                    &transaction,
                    packer,
                    source_id,
                    new_cursor,
                    &chunk[complete..],
                )
                .map_err(sql(index_path))?
        } else {
            None
        };
        let (usage_stats, usage_state) = usage.finish();
        // What the lines hold.
        let (parsed, next_state) = parse(source.provider, reader_state.as_deref(), &lines);
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
                    .is_removed(
                        &transaction,
                        provider_name(source.provider),
                        &conversation.id,
                    )
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
        transaction.commit().map_err(sql(index_path))?;
        Ok(more)
    }
}

/// Brings one export file up to date. An export is rewritten, never appended to, so a changed
/// file (by its identity) is read whole, up to its provider's cap, and each conversation is
/// stored with its own JSON; a conversation an earlier export held and this one does not
/// stays, as do its messages. Nothing is kept unless the whole file reads: a file that does
/// not is set aside until it changes.
fn sync_export(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let shown = source.path.display().to_string();
    let meta =
        std::fs::symlink_metadata(&source.path).map_err(|e| Error::store_io("read", &shown, e))?;
    let identity = identity_of(&meta);
    let size = meta.size();
    let before = known(connection, packer, &shown).map_err(sql(index_path))?;
    let (cap, variable) = match source.provider {
        Provider::Chatgpt => (options.chatgpt_max_bytes, "BATON_MIRROR_CHATGPT_MAX_BYTES"),
        _ => (
            options.claude_ai_max_bytes,
            "BATON_MIRROR_CLAUDE_AI_MAX_BYTES",
        ),
    };
    if let Some(k) = &before
        && k.identity() == identity
        && !k.missing
    {
        // Unchanged; but one set aside for its size is tried again once the cap admits it.
        let over_an_older_cap = k
            .quarantine
            .as_deref()
            .is_some_and(|why| why.contains(variable))
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
    let mut file = crate::files::open_regular(&source.path)?;
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
        for item in split_export(masked).map_err(|e| {
            Error::invalid("export", format!("it does not read as an export: {e}"))
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
        let provider = provider_name(conversation.provider);
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
        let updated_at = conversation.updated_at.map(|t| t.millis());
        let newest = transaction
            .prepare_cached(
                "INSERT INTO export_items (provider, provider_id, source, raw, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (provider, provider_id) DO UPDATE SET source = excluded.source,
                     raw = excluded.raw, updated_at = excluded.updated_at
                 WHERE coalesce(excluded.updated_at, 0) >= coalesce(export_items.updated_at, 0)",
            )
            .and_then(|mut statement| {
                statement.execute(params![
                    provider,
                    conversation.id,
                    source_id,
                    packer.pack(source.provider, raw),
                    updated_at
                ])
            })
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
                i64::from(before.is_some()),
                source_id
            ],
        )
        .map_err(sql(index_path))?;
    if before.is_some() {
        stats.rereads += 1;
    }
    transaction.commit().map_err(sql(index_path))?;
    Ok(())
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
fn export_documents(
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

/// An export's conversations, each as its own JSON text: the items of its array, of a
/// `{"conversations": [...]}` wrapper, or the one conversation it is.
fn split_export(bytes: &[u8]) -> Result<Vec<&[u8]>, serde_json::Error> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Wrapped<'a> {
        #[serde(borrow)]
        conversations: Vec<&'a RawValue>,
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    fn raw(items: Vec<&RawValue>) -> Vec<&[u8]> {
        items
            .into_iter()
            .map(|item| item.get().as_bytes())
            .collect()
    }
    match serde_json::from_slice::<Vec<&RawValue>>(bytes) {
        Ok(items) => Ok(raw(items)),
        Err(err) => match serde_json::from_slice::<Wrapped>(bytes) {
            Ok(wrapped) => Ok(raw(wrapped.conversations)),
            Err(_) => match serde_json::from_slice::<&RawValue>(bytes) {
                Ok(one) if one.get().starts_with('{') => Ok(vec![one.get().as_bytes()]),
                _ => Err(err),
            },
        },
    }
}

/// The usage a source's new lines record, one row per line (before deduplication, which a
/// report does over every row), and what the lines held.
enum UsageReader {
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
    fn new(source: &Source, shown: &str, before: Option<&Known>) -> UsageReader {
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
    fn push_line(
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
    fn store_batch(
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
    fn provisional(
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
    fn finish(self) -> (Option<String>, Option<String>) {
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
fn stats_json(stats: &ReadStats) -> String {
    let mut value = serde_json::to_value(stats).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        fields.retain(|_, n| n.as_u64() != Some(0));
    }
    value.to_string()
}

/// Records a file seen for the first time with backfill off: its cursor after its last
/// complete line, so only what is appended later is kept. A Codex file's first line (its
/// `session_meta`) is read for the session's id, which later lines do not repeat.
fn follow_from_end(
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
    if source.provider == Provider::Codex {
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
            let mut reader = CodexReader::default();
            reader.push_line(line);
            reader_state = serde_json::to_string(&reader.state()).ok();
            let mut usage = CodexUsage::new(session_name(&shown));
            usage.push_line(line);
            usage_state = serde_json::to_string(&usage.state()).ok();
        }
    }
    connection
        .execute(
            "INSERT INTO sources (path, path_key, provider, device, inode, size, mtime_ns, cursor,
                 tail_hash, reader_state, usage_state)
             VALUES (?1, baton_path_key(?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                shown,
                provider_name(source.provider),
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

/// How much of a message's tool input its excerpt keeps, for snippets.
const EXCERPT_TOOL_CHARS: usize = 400;

/// How much of each end of a message's tool output its excerpt keeps: an error a person
/// pastes is most often at the start of what a command printed, or at its end.
const EXCERPT_OUTPUT_CHARS: usize = 600;

/// The start and the end of a tool's output, for snippets (all of it when short).
fn output_ends(output: &str) -> String {
    let count = output.chars().count();
    if count <= 2 * EXCERPT_OUTPUT_CHARS {
        return output.to_owned();
    }
    let head: String = output.chars().take(EXCERPT_OUTPUT_CHARS).collect();
    let tail: String = output.chars().skip(count - EXCERPT_OUTPUT_CHARS).collect();
    format!("{head}\n…\n{tail}")
}

/// A stored chunk this small (compressed) takes the next pass's lines in, so a file written a
/// line at a time still compresses as a whole.
const SMALL_CHUNK: usize = 16 << 10;
/// A chunk never grows past this (uncompressed) by taking lines in.
const CHUNK_LIMIT: usize = 1 << 20;

/// What a pass reuses: its compressor (making one per line cost more than the compressing)
/// and the numbers of the names it stored. A file whose transaction is rolled back forgets
/// the names (their numbers went with it).
pub struct Packer {
    compressors: super::packing::Compressors,
    inflater: super::packing::Inflater,
    /// The usage rows this source's transaction added or removed, settled before it commits.
    dirty: super::tally::Dirty,
    names: std::collections::HashMap<String, i64>,
    /// The conversations removed on purpose, read once per pass (none are removed during
    /// one: removal takes the writer lock too).
    removed: Option<std::collections::HashSet<(String, String)>>,
}

impl std::fmt::Debug for Packer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Packer")
    }
}

impl Packer {
    /// A packer with the index's dictionaries (none when they cannot be read: frames are then
    /// compressed without one, which any reader inflates).
    pub fn new(connection: &Connection) -> Packer {
        Packer {
            compressors: super::packing::Compressors::load(connection)
                .unwrap_or_else(|_| super::packing::Compressors::plain()),
            inflater: super::packing::Inflater::new(),
            dirty: super::tally::Dirty::default(),
            names: std::collections::HashMap::new(),
            removed: None,
        }
    }

    fn pack(&mut self, provider: Provider, bytes: &[u8]) -> Vec<u8> {
        self.compressors.pack(provider, bytes)
    }

    fn inflate(&mut self, connection: &Connection, frame: &[u8]) -> Option<Vec<u8>> {
        self.inflater.inflate(connection, frame).ok()
    }

    /// A reader's state (JSON) as kept: compressed when that is smaller (a blob), else text.
    fn pack_state(&mut self, provider: Provider, state: Option<String>) -> rusqlite::types::Value {
        use rusqlite::types::Value;
        let Some(state) = state else {
            return Value::Null;
        };
        let packed = self.pack(provider, state.as_bytes());
        if packed.len() < state.len() {
            Value::Blob(packed)
        } else {
            Value::Text(state)
        }
    }

    /// A reader's state as [`Packer::pack_state`] kept it (`None` if it cannot be read: the
    /// reader then starts afresh, as for a file never read).
    fn unpack_state(
        &mut self,
        connection: &Connection,
        kept: rusqlite::types::Value,
    ) -> Option<String> {
        match kept {
            rusqlite::types::Value::Text(text) => Some(text),
            rusqlite::types::Value::Blob(frame) => self
                .inflate(connection, &frame)
                .and_then(|bytes| String::from_utf8(bytes).ok()),
            _ => None,
        }
    }

    /// Trains the dictionary of each provider that has none and enough bytes in `sources`
    /// to learn from (its first pass with that much), before any of them is stored.
    fn train_missing(&mut self, connection: &Connection, sources: &[Source]) {
        for provider in [Provider::ClaudeCode, Provider::Codex] {
            if self.compressors.has_dictionary(provider) {
                continue;
            }
            let files: Vec<&Path> = sources
                .iter()
                .filter(|s| s.provider == provider)
                .map(|s| s.path.as_path())
                .collect();
            let bytes: u64 = sources
                .iter()
                .filter(|s| s.provider == provider)
                .filter_map(|s| {
                    s.seen
                        .map(|(_, _, size, _)| u64::try_from(size).unwrap_or(0))
                })
                .sum();
            if bytes >= super::packing::TRAIN_FROM_BYTES {
                let _ = self.compressors.train(connection, provider, &files);
            }
        }
    }

    /// The number of `text` in `names`, added when new.
    fn name(
        &mut self,
        transaction: &rusqlite::Transaction,
        text: Option<&str>,
    ) -> rusqlite::Result<Option<i64>> {
        let Some(text) = text else {
            return Ok(None);
        };
        if let Some(id) = self.names.get(text) {
            return Ok(Some(*id));
        }
        transaction
            .prepare_cached("INSERT OR IGNORE INTO names (text) VALUES (?1)")?
            .execute([text])?;
        let id: i64 = transaction
            .prepare_cached("SELECT id FROM names WHERE text = ?1")?
            .query_row([text], |r| r.get(0))?;
        self.names.insert(text.to_owned(), id);
        Ok(Some(id))
    }

    /// Whether the conversation was removed on purpose (`baton transcripts remove`): a pass
    /// does not bring it back.
    fn is_removed(
        &mut self,
        connection: &Connection,
        provider: &str,
        id: &str,
    ) -> rusqlite::Result<bool> {
        if self.removed.is_none() {
            let mut statement = connection.prepare("SELECT provider, provider_id FROM removed")?;
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            self.removed = Some(rows.collect::<rusqlite::Result<_>>()?);
        }
        Ok(self
            .removed
            .as_ref()
            .is_some_and(|set| set.contains(&(provider.to_owned(), id.to_owned()))))
    }

    /// Forgets the names' numbers and the rows noted to settle (after a rollback).
    fn forget_names(&mut self) {
        self.names.clear();
        self.dirty.clear();
    }
}

/// Stores a pass's lines of a source as one compressed chunk (newline-separated) at the
/// offset of its first line; when the source's last chunk is small, the lines join it
/// instead (the chunk is rewritten in place, in this transaction).
fn store_lines(
    transaction: &rusqlite::Transaction,
    packer: &mut Packer,
    provider: Provider,
    source_id: i64,
    offset: i64,
    lines: &[std::borrow::Cow<[u8]>],
) -> rusqlite::Result<()> {
    let mut text: Vec<u8> = Vec::new();
    let mut at = offset;
    let last: Option<(i64, Vec<u8>)> = transaction
        .prepare_cached(
            "SELECT offset, raw FROM lines WHERE source = ?1 AND offset < ?2
             ORDER BY offset DESC LIMIT 1",
        )?
        .query_row(params![source_id, offset], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let adding: usize = lines.iter().map(|l| l.len() + 1).sum();
    if let Some((last_offset, raw)) = last
        && raw.len() < SMALL_CHUNK
        && let Some(old) = packer.inflate(transaction, &raw)
        && old.len() + adding <= CHUNK_LIMIT
    {
        text = old;
        at = last_offset;
    }
    for line in lines {
        if !text.is_empty() {
            text.push(b'\n');
        }
        text.extend_from_slice(line);
    }
    transaction
        .prepare_cached(
            "INSERT INTO lines (source, offset, raw) VALUES (?1, ?2, ?3)
             ON CONFLICT (source, offset) DO UPDATE SET raw = excluded.raw",
        )?
        .execute(params![source_id, at, packer.pack(provider, &text)])?;
    Ok(())
}

/// Stores the usage rows of the line at `offset`.
fn store_usage(
    transaction: &rusqlite::Transaction,
    packer: &mut Packer,
    source_id: i64,
    offset: i64,
    rows: &[(UsageEntry, Option<Response>)],
) -> rusqlite::Result<()> {
    // One row per line: of two a line gave (none of the readers gives two), the last. No row
    // is at this offset yet: the pass removed its source's rows from its cursor on.
    for (entry, response) in rows.iter().rev().take(1) {
        if packer.is_removed(transaction, provider_name(entry.provider), &entry.session)? {
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

/// Reads past a line too long to keep; the offset just after its newline, or `None` when the
/// file ends first (the line is still being written: it is waited for).
fn skip_long_line(
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

/// Records a message's tool calls (by the call's id, with the tool's name) and results
/// (whether the tool failed). A result read before its call, or in another pass, meets it
/// on the call's id.
fn store_tool_calls(
    transaction: &rusqlite::Transaction,
    conversation_id: i64,
    message_id: i64,
    blocks: &[baton_core::transcripts::conversation::Block],
) -> rusqlite::Result<()> {
    use baton_core::transcripts::conversation::Block;
    for block in blocks {
        match block {
            Block::ToolCall { id, name, .. } if !id.is_empty() => {
                transaction
                    .prepare_cached(
                        "INSERT INTO tool_calls (conversation, call_id, message, name)
                         VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (conversation, call_id) DO UPDATE SET
                             message = excluded.message, name = excluded.name",
                    )?
                    .execute(params![conversation_id, id, message_id, name])?;
            }
            Block::ToolResult {
                call_id, is_error, ..
            } if !call_id.is_empty() => {
                transaction
                    .prepare_cached(
                        "INSERT INTO tool_calls (conversation, call_id, is_error)
                         VALUES (?1, ?2, ?3)
                         ON CONFLICT (conversation, call_id) DO UPDATE SET
                             is_error = excluded.is_error",
                    )?
                    .execute(params![conversation_id, call_id, is_error])?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Removes what the index holds of a source before it is read again; returns the
/// conversations its messages belonged to (see [`settle`]).
fn forget_rows(
    transaction: &rusqlite::Transaction,
    packer: &mut Packer,
    source_id: i64,
) -> rusqlite::Result<Vec<i64>> {
    let conversations: Vec<i64> = transaction
        .prepare("SELECT DISTINCT conversation FROM messages WHERE source = ?1")?
        .query_map([source_id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    transaction.execute(
        "DELETE FROM tool_calls WHERE message IN (SELECT id FROM messages WHERE source = ?1)",
        [source_id],
    )?;
    for conversation in &conversations {
        // Results whose call was never read belong to no message; they are read again too.
        transaction.execute(
            "DELETE FROM tool_calls WHERE conversation = ?1 AND message IS NULL",
            [conversation],
        )?;
    }
    transaction.execute(
        "DELETE FROM messages_fts WHERE rowid IN (SELECT id FROM messages WHERE source = ?1)",
        [source_id],
    )?;
    transaction.execute("DELETE FROM messages WHERE source = ?1", [source_id])?;
    transaction.execute("DELETE FROM lines WHERE source = ?1", [source_id])?;
    transaction.execute("DELETE FROM skipped_lines WHERE source = ?1", [source_id])?;
    packer.dirty.delete(
        transaction,
        "DELETE FROM usage WHERE source = ?1 RETURNING message_key",
        [source_id],
    )?;
    Ok(conversations)
}

/// After a source was read again: the conversations its old messages belonged to that it no
/// longer holds are recounted, and one left with no message at all (it was known only from
/// this source) is forgotten with its tool calls.
fn settle(
    transaction: &rusqlite::Transaction,
    forgotten: &[i64],
    stored: &[Conversation],
) -> rusqlite::Result<()> {
    for id in forgotten {
        let provider_id: Option<String> = transaction
            .query_row(
                "SELECT provider_id FROM conversations WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(provider_id) = provider_id else {
            continue;
        };
        if stored.iter().any(|c| c.id == provider_id) {
            continue; // stored again: its count is current
        }
        let messages: i64 = transaction.query_row(
            "SELECT count(*) FROM messages WHERE conversation = ?1",
            [id],
            |r| r.get(0),
        )?;
        if messages == 0 {
            transaction.execute("DELETE FROM tool_calls WHERE conversation = ?1", [id])?;
            transaction.execute("DELETE FROM conversations WHERE id = ?1", [id])?;
        } else {
            transaction.execute(
                "UPDATE conversations SET messages = ?2 WHERE id = ?1",
                params![id, messages],
            )?;
        }
    }
    Ok(())
}

/// The lines' conversations, and the reader's state to continue from (Codex).
fn parse(
    provider: Provider,
    state: Option<&str>,
    lines: &[std::borrow::Cow<[u8]>],
) -> (Parsed, Option<String>) {
    match provider {
        Provider::Codex => {
            let state: CodexState = state
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default();
            let mut reader = CodexReader::continuing(state);
            for line in lines {
                reader.push_line(line);
            }
            let next = serde_json::to_string(&reader.state()).ok();
            (reader.finish(), next)
        }
        _ => {
            let mut reader = ClaudeCodeReader::default();
            for line in lines {
                reader.push_line(line);
            }
            (reader.finish(), None)
        }
    }
}

/// Adds a conversation's messages (each once) and keeps its row current; returns how many
/// messages were new.
fn store_conversation(
    transaction: &rusqlite::Transaction,
    packer: &mut Packer,
    source_id: i64,
    provider: Provider,
    conversation: &Conversation,
) -> rusqlite::Result<u64> {
    if conversation.id.is_empty()
        || packer.is_removed(transaction, provider_name(provider), &conversation.id)?
    {
        return Ok(0);
    }
    // One title rule with the readers (see `Conversation::absorb`): the provider's title
    // (rank 3; one from a copy at least as new replaces it), else the main thread's first
    // prompt (2), else the prompt of the sub-agent that started first (1), which names the
    // conversation only until its main thread is read: a sub-agent's file is often read
    // before its parent's.
    let main_thread = conversation.messages.iter().any(|m| !m.side_chain);
    let first_text = conversation.messages.iter().find_map(|m| {
        (m.role == baton_core::transcripts::conversation::Role::User && !m.side_chain)
            .then(|| indexed_fields(m).text)
            .filter(|t| !t.trim().is_empty())
    });
    let (title, rank) = match (&conversation.title, &conversation.first_prompt) {
        (Some(title), _) => (Some(title.clone()), 3),
        (None, Some(prompt)) => (Some(prompt.clone()), if main_thread { 2 } else { 1 }),
        (None, None) => (first_text, 2),
    };
    let title = title.map(|t| t.chars().take(120).collect::<String>());
    let millis = |t: Option<baton_core::Timestamp>| t.map(|t| t.millis());
    // When a batch's title replaces the kept one, written once for both columns it sets.
    macro_rules! title_wins {
        () => {
            "excluded.title IS NOT NULL AND (conversations.title IS NULL
                OR excluded.title_rank > COALESCE(conversations.title_rank, 2)
                OR (excluded.title_rank = 3 AND COALESCE(excluded.updated_at, 0)
                    >= COALESCE(conversations.updated_at, 0))
                OR (excluded.title_rank = 1 AND conversations.title_rank = 1
                    AND excluded.started_at < conversations.started_at))"
        };
    }
    transaction
        .prepare_cached(concat!(
        "INSERT INTO conversations (provider, provider_id, title, project, started_at, updated_at,
             title_rank)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (provider, provider_id) DO UPDATE SET
             title = CASE WHEN ", title_wins!(), " THEN excluded.title ELSE conversations.title END,
             title_rank = CASE WHEN ", title_wins!(),
        " THEN excluded.title_rank ELSE conversations.title_rank END,
             project = COALESCE(conversations.project, excluded.project),
             started_at = MIN(COALESCE(conversations.started_at, excluded.started_at),
                              COALESCE(excluded.started_at, conversations.started_at)),
             updated_at = MAX(COALESCE(conversations.updated_at, excluded.updated_at),
                              COALESCE(excluded.updated_at, conversations.updated_at))"
    ))?
        .execute(params![
            provider_name(provider),
            conversation.id,
            title,
            conversation.project,
            millis(conversation.started_at),
            millis(conversation.updated_at),
            rank,
        ])?;
    let conversation_id: i64 = transaction
        .prepare_cached("SELECT id FROM conversations WHERE provider = ?1 AND provider_id = ?2")?
        .query_row(params![provider_name(provider), conversation.id], |row| {
            row.get(0)
        })?;
    let mut added = 0;
    for message in &conversation.messages {
        let fields = indexed_fields(message);
        // What snippets are cut from: the text and thinking, the start of the tool input (a
        // call's command or path, so a hit on a tool call shows what was run) and both ends of
        // the tool output (where errors are; the whole output stays in the lines).
        let tool_start: String = fields.tool_input.chars().take(EXCERPT_TOOL_CHARS).collect();
        let output = output_ends(&fields.tool_output);
        let excerpt: String = [
            fields.text.as_str(),
            fields.thinking.as_str(),
            tool_start.as_str(),
            output.as_str(),
        ]
        .iter()
        .filter(|t| !t.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
        // Compressed when that makes it smaller (a blob), else kept as it is (text).
        let packed = packer.pack(provider, excerpt.as_bytes());
        let excerpt = if excerpt.is_empty() {
            rusqlite::types::Value::Null
        } else if packed.len() < excerpt.len() {
            rusqlite::types::Value::Blob(packed)
        } else {
            rusqlite::types::Value::Text(excerpt)
        };
        let model = packer.name(transaction, message.model.as_deref())?;
        let inserted = transaction
            .prepare_cached(
                "INSERT OR IGNORE INTO messages
                 (conversation, source, message_id, role, at, model, excerpt)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                conversation_id,
                source_id,
                message.id,
                crate::wire_name(&message.role),
                millis(message.at),
                model,
                excerpt
            ])?;
        if inserted == 0 {
            continue;
        }
        added += 1;
        let rowid = transaction.last_insert_rowid();
        if !fields.is_empty() {
            transaction
                .prepare_cached(
                    "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    rowid,
                    fields.text,
                    fields.thinking,
                    fields.tool_input,
                    fields.tool_output
                ])?;
        }
        store_tool_calls(transaction, conversation_id, rowid, &message.blocks)?;
    }
    transaction.prepare_cached(
        "UPDATE conversations SET messages = (SELECT count(*) FROM messages WHERE conversation = ?1)
         WHERE id = ?1")?.execute(
        [conversation_id],
    )?;
    Ok(added)
}

/// Whether the mirror reads the file at `path` as `provider`'s: a transcript (`.jsonl`), or
/// an export (`.zip`, or a conversations file), and never a link.
pub fn wanted(provider: Provider, path: &Path) -> bool {
    wanted_by_name(provider, path) && !is_link(path)
}

/// The name half of [`wanted`].
fn wanted_by_name(provider: Provider, path: &Path) -> bool {
    use baton_core::transcripts::export_files::is_conversations_entry;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    match provider {
        Provider::ClaudeCode | Provider::Codex => name.ends_with(".jsonl"),
        Provider::Chatgpt | Provider::ClaudeAi => {
            name.ends_with(".zip") || is_conversations_entry(&name)
        }
    }
}

/// Whether `path` is a symbolic link. The mirror reads no link: one out of its folder could
/// hand it any file, and one inside names a file the walk finds by its own name.
fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The export files under the ChatGPT and claude.ai folders: `conversations.json` (or the
/// numbered parts of a large export) unzipped, and zip archives as they were downloaded.
pub fn discover_exports(chatgpt_dirs: &[PathBuf], claude_ai_dirs: &[PathBuf]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (dirs, provider) in [
        (chatgpt_dirs, Provider::Chatgpt),
        (claude_ai_dirs, Provider::ClaudeAi),
    ] {
        for dir in dirs {
            let mut files = crate::files::regular_files_under(dir, &["json", "zip"]);
            files.retain(|(path, _)| wanted_by_name(provider, path));
            files.sort_by(|a, b| a.0.cmp(&b.0));
            sources.extend(files.into_iter().map(|(path, meta)| Source {
                path,
                provider,
                seen: Some(identity_of(&meta)),
            }));
        }
    }
    sources
}

/// The transcript files under the Claude Code and Codex folders.
pub fn discover(claude_dirs: &[PathBuf], codex_dirs: &[PathBuf]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (dirs, provider) in [
        (claude_dirs, Provider::ClaudeCode),
        (codex_dirs, Provider::Codex),
    ] {
        for dir in dirs {
            let mut files = crate::files::regular_files_under(dir, &["jsonl"]);
            files.sort_by(|a, b| a.0.cmp(&b.0));
            sources.extend(files.into_iter().map(|(path, meta)| Source {
                path,
                provider,
                seen: Some(identity_of(&meta)),
            }));
        }
    }
    sources
}
