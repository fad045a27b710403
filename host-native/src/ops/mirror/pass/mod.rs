//! One mirror pass: every source file checked by its identity (device, inode, size, mtime)
//! and, when it grew, by a hash of the 4 KiB before its cursor, then read from the cursor.
//! Only complete lines are taken; a partial last line waits for the next pass. A file is read
//! in windows of 8 MiB: a window's lines, the conversations and messages they hold, the
//! full-text rows and the new cursor are kept together (a savepoint, committed with the small
//! files read just before it: see [`Batch`]), so a pass killed anywhere leaves the index as it
//! was before a window or after it, never inside one, and the next pass goes on from the last
//! window committed. A file that shrank, was replaced or had its
//! prefix rewritten is read again from the start (that file only); a deleted file's rows
//! stay, marked missing.

use baton_core::Error;
use baton_core::transcripts::Provider;
use baton_core::transcripts::conversation::{COPY_MARK, Conversation};
use baton_core::transcripts::providers::{Kind, REGISTRY};
use baton_core::transcripts::search::indexed_fields;
use baton_core::transcripts::secrets::Masker;
use baton_core::transcripts::usage::claude_code::Response;
use baton_core::transcripts::{ReadStats, UsageEntry};
use rusqlite::{Connection, OptionalExtension, params};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

mod batch;
mod database;
mod digest;
mod discover;
mod document;
mod export;
mod packer;
mod store;
mod usage_rows;
mod window;

use batch::Batch;
use database::*;
use digest::*;
pub use discover::*;
use document::sync_document;
pub use export::*;
pub use packer::*;
#[cfg(test)]
pub(crate) use store::time_ordered_id;
use store::*;
pub(crate) use store::{SLOT_SIZE, SPILL_MINUTES, slot_start};
use usage_rows::*;
use window::*;

/// The largest export file read (each provider's own setting), unless told otherwise.
pub const DEFAULT_EXPORT_MAX_BYTES: u64 = 256 << 20;

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
    /// The largest export file read, by provider (a larger one is set aside, with a
    /// warning); see [`PassOptions::max_bytes_of`].
    pub max_bytes: [u64; Provider::ALL.len()],
    /// Let a second thread read and digest files no pass has read, ahead of the writer (a
    /// pass over more than 64 files). The index comes out the same either way.
    pub read_ahead: bool,
}

impl PassOptions {
    /// The largest file of `provider`'s read.
    pub fn max_bytes_of(&self, provider: Provider) -> u64 {
        self.max_bytes[provider as usize]
    }
}

impl Default for PassOptions {
    fn default() -> PassOptions {
        PassOptions {
            backfill: true,
            sweep_missing: true,
            max_bytes: [DEFAULT_EXPORT_MAX_BYTES; Provider::ALL.len()],
            read_ahead: true,
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
        let err = crate::index::failure("write the index for", path, e);
        if busy {
            err.with("transient", true)
        } else {
            err
        }
    }
}

use crate::index::fnv;

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

/// Opens a source's write and gives the source's row, made if the index did not know it. The
/// write is a savepoint inside the pass's batch (see [`Batch`]), which is begun here when none
/// is open, taking the index's write lock up front so it is waited for rather than failing on
/// a snapshot another connection moved.
fn begin_source<'c>(
    connection: &'c mut Connection,
    index_path: &Path,
    before: Option<&Known>,
    source: &Source,
) -> Result<(rusqlite::Savepoint<'c>, i64), Error> {
    if connection.is_autocommit() {
        connection
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(sql(index_path))?;
    }
    let transaction = connection.savepoint().map_err(sql(index_path))?;
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
                        source.provider.key()
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
    // An index made before the list of its words gets it now, before this pass adds any (a
    // failure leaves prefixes to FTS5's own search, and is tried again next pass).
    let _ = crate::ops::mirror::vocabulary::fill_once(connection);
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
    let mut batch = Batch::default();
    // Files the index has never seen are read and digested by a second thread a few files
    // ahead of the writer (a backfill then uses both cores); it stops when the writer does.
    let fresh: Vec<usize> = if !options.read_ahead || sources.len() <= 64 {
        Vec::new()
    } else {
        (0..sources.len())
            .filter(|&at| {
                sources[at].provider.entry().kind == Kind::Agent
                    && !identities.contains_key(&sources[at].path.display().to_string())
            })
            .collect()
    };
    std::thread::scope(|scope| {
        let (ahead, digested) = std::sync::mpsc::sync_channel::<Option<Prefetched>>(2);
        let reader_fresh = &fresh;
        scope.spawn(move || {
            for &at in reader_fresh {
                if ahead.send(prefetch(&sources[at], masker)).is_err() {
                    return;
                }
            }
        });
        let mut next_fresh = fresh.iter().peekable();
        for (at, source) in sources.iter().enumerate() {
            let prefetched = match next_fresh.next_if(|&&fresh_at| fresh_at == at) {
                Some(_) => digested.recv().ok().flatten(),
                None => None,
            };
            stats.files += 1;
            let shown = source.path.display().to_string();
            if let Some(seen) = source.seen
                && identities.get(&shown) == Some(&seen)
            {
                present.insert(shown);
                batch.after_source(connection, &mut stats, &mut packer, false);
                progress(&stats);
                continue;
            }
            let meta = std::fs::symlink_metadata(&source.path);
            if let Ok(meta) = &meta
                && identities.get(&shown) == Some(&source_identity(source, meta))
            {
                present.insert(shown);
                batch.after_source(connection, &mut stats, &mut packer, false);
                progress(&stats);
                continue;
            }
            let result = if meta.is_err() {
                // Gone since it was found (or named by a notification of its removal).
                mark_gone(connection, &shown)
                    .map(|gone| stats.missing += gone)
                    .map_err(sql(index_path))
            } else {
                // An export is read whole; a database by its sessions; an agent's transcript
                // window by window.
                let read = match source.provider.entry().kind {
                    Kind::Export => sync_export,
                    Kind::Database => sync_database,
                    Kind::Document => sync_document,
                    Kind::Agent => sync,
                };
                packer.ahead = prefetched;
                read(
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
                    batch.after_source(connection, &mut stats, &mut packer, false);
                    progress(&stats);
                    continue;
                }
                // Set aside under the identity it had before it was read: a file still being
                // written (an export being copied in) changes after that, and is tried again.
                let read_as = meta.as_ref().ok().map(|m| source_identity(source, m));
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
            batch.after_source(connection, &mut stats, &mut packer, false);
            progress(&stats);
        }
        batch.after_source(connection, &mut stats, &mut packer, true);
    });
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

/// A source's name as shown, and what its file is now (never through a link).
fn looked_at(source: &Source) -> Result<(String, std::fs::Metadata), Error> {
    let shown = source.path.display().to_string();
    let meta =
        std::fs::symlink_metadata(&source.path).map_err(|e| Error::store_io("read", &shown, e))?;
    Ok((shown, meta))
}

/// A source's identity: its file's, with a database's log folded in.
fn source_identity(source: &Source, meta: &std::fs::Metadata) -> Identity {
    identity_as(source.provider, &source.path, meta)
}

/// The identity of `provider`'s file at `path`: its own, with a database's log and a
/// document's companions folded in (a change to one of them alone is a change).
pub(super) fn identity_as(provider: Provider, path: &Path, meta: &std::fs::Metadata) -> Identity {
    match provider.entry().kind {
        Kind::Database => database_identity(path, meta),
        Kind::Document => document::document_identity(provider, path, meta),
        _ => identity_of(meta),
    }
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
        source.provider.key(),
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
