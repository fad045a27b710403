//! The transcript index: one SQLite file (WAL, `synchronous=NORMAL`, a busy timeout) that any
//! number of readers share while one writer at a time (the mirror, under a file lock) adds to
//! it. Its schema is versioned (`PRAGMA user_version`) and brought up to date by the
//! migrations below, in order, each in its own transaction.
//!
//! What it holds: every source file with its identity and cursor; every complete line read,
//! once, compressed (zstd, with a dictionary per provider: see `packing`); the conversations
//! and messages the lines hold (with an excerpt of what was said, for snippets: never the
//! tool output, which the lines keep); and
//! a contentless FTS5 index over the messages (text, thinking, tool input, tool output); the
//! usage each line records, before deduplication; each export conversation's own JSON; and
//! the log of conversations removed on purpose.

use baton_core::Error;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The schema's migrations: migration `n` takes `user_version` from `n` to `n + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: sources, lines, conversations, messages, full-text index.
    "
    CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        provider TEXT NOT NULL,
        device INTEGER NOT NULL DEFAULT 0,
        inode INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        cursor INTEGER NOT NULL DEFAULT 0,
        tail_hash INTEGER NOT NULL DEFAULT 0,
        reader_state TEXT,
        missing INTEGER NOT NULL DEFAULT 0,
        quarantine TEXT,
        rereads INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE lines (
        source INTEGER NOT NULL REFERENCES sources(id),
        offset INTEGER NOT NULL,
        raw BLOB NOT NULL,
        PRIMARY KEY (source, offset)
    ) WITHOUT ROWID;
    CREATE TABLE conversations (
        id INTEGER PRIMARY KEY,
        provider TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        title TEXT,
        project TEXT,
        started_at INTEGER,
        updated_at INTEGER,
        messages INTEGER NOT NULL DEFAULT 0,
        UNIQUE (provider, provider_id)
    );
    CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
    CREATE TABLE messages (
        id INTEGER PRIMARY KEY,
        conversation INTEGER NOT NULL REFERENCES conversations(id),
        source INTEGER NOT NULL REFERENCES sources(id),
        message_id TEXT NOT NULL,
        role TEXT NOT NULL,
        at INTEGER,
        model TEXT,
        excerpt BLOB,
        UNIQUE (conversation, message_id)
    );
    CREATE INDEX messages_by_source ON messages (source);
    CREATE INDEX messages_by_conversation ON messages (conversation, at);
    CREATE VIRTUAL TABLE messages_fts USING fts5(
        text, thinking, tool_input, tool_output,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    ",
    // 2: usage, one row per line that records a response's tokens (before dedup, so a report
    // rebuilt from the rows counts exactly what one read of the files counts; sessions,
    // projects, models and folders as numbers into `names`; the dedup keys' first 64 bits), and per source
    // what its lines held and where the Codex usage reader stopped. Every source is read
    // again once (its identity is forgotten) so its usage rows exist.
    "
    CREATE TABLE names (
        id INTEGER PRIMARY KEY,
        text TEXT NOT NULL UNIQUE
    );
    CREATE TABLE usage (
        source INTEGER NOT NULL REFERENCES sources(id),
        offset INTEGER NOT NULL,
        at INTEGER NOT NULL,
        session INTEGER NOT NULL REFERENCES names(id),
        project INTEGER REFERENCES names(id),
        model INTEGER REFERENCES names(id),
        folder INTEGER REFERENCES names(id),
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_creation_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cache_creation_1h_tokens INTEGER NOT NULL,
        request_context_tokens INTEGER,
        recorded_cost_micro_usd INTEGER,
        sidechain INTEGER NOT NULL,
        relayed INTEGER NOT NULL,
        dedup_key INTEGER,
        message_key INTEGER,
        PRIMARY KEY (source, offset)
    ) WITHOUT ROWID;
    ALTER TABLE sources ADD COLUMN usage_stats TEXT;
    ALTER TABLE sources ADD COLUMN usage_state TEXT;
    ALTER TABLE sources ADD COLUMN usage_pending TEXT;
    UPDATE sources SET mtime_ns = -1, tail_hash = 0 WHERE missing = 0;
    ",
    // 3: conversations removed on purpose: the log of each removal, and what keeps a later
    // pass from bringing one back while its source is still there. And each conversation of
    // a ChatGPT or claude.ai export as its own JSON (masked, compressed): an export is read
    // whole when it changes, and a conversation a later export no longer holds stays. And the
    // tool calls of every conversation, with the tool's name and whether its result failed.
    "
    CREATE TABLE tool_calls (
        conversation INTEGER NOT NULL REFERENCES conversations(id),
        call_id TEXT NOT NULL,
        message INTEGER,
        name TEXT,
        is_error INTEGER,
        PRIMARY KEY (conversation, call_id)
    ) WITHOUT ROWID;
    CREATE INDEX tool_calls_by_name ON tool_calls (name);
    CREATE TABLE export_items (
        provider TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        source INTEGER NOT NULL REFERENCES sources(id),
        raw BLOB NOT NULL,
        updated_at INTEGER,
        PRIMARY KEY (provider, provider_id)
    ) WITHOUT ROWID;
    CREATE TABLE removed (
        provider TEXT NOT NULL,
        provider_id TEXT NOT NULL,
        title TEXT,
        messages INTEGER NOT NULL,
        removed_at INTEGER NOT NULL,
        removed_by TEXT,
        PRIMARY KEY (provider, provider_id)
    );
    ",
    // 4: smaller, and usage summed ahead. Each provider's zstd dictionary (trained from its own lines; a frame names
    // the one it needs). Stored lines in a rowid table, whose pages hold a chunk of a few KiB
    // inline where a WITHOUT ROWID table spilled it to overflow pages, wasting most of the
    // last. A message's model as a number into `names`.
    "
    CREATE TABLE dictionaries (
        id INTEGER PRIMARY KEY,
        provider TEXT NOT NULL,
        bytes BLOB NOT NULL
    );
    CREATE TABLE lines_v4 (
        id INTEGER PRIMARY KEY,
        source INTEGER NOT NULL REFERENCES sources(id),
        offset INTEGER NOT NULL,
        raw BLOB NOT NULL,
        UNIQUE (source, offset)
    );
    INSERT INTO lines_v4 (source, offset, raw) SELECT source, offset, raw FROM lines;
    -- Sources found by a 64-bit key of their path (an index of numbers, not of paths).
    CREATE TABLE sources_v4 (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        path_key INTEGER NOT NULL,
        provider TEXT NOT NULL,
        device INTEGER NOT NULL DEFAULT 0,
        inode INTEGER NOT NULL DEFAULT 0,
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        cursor INTEGER NOT NULL DEFAULT 0,
        tail_hash INTEGER NOT NULL DEFAULT 0,
        reader_state,
        missing INTEGER NOT NULL DEFAULT 0,
        quarantine TEXT,
        rereads INTEGER NOT NULL DEFAULT 0,
        usage_stats TEXT,
        usage_state,
        usage_pending TEXT
    );
    INSERT INTO sources_v4 SELECT id, path, baton_path_key(path), provider, device, inode, size,
        mtime_ns, cursor, tail_hash, reader_state, missing, quarantine, rereads, usage_stats,
        usage_state, usage_pending FROM sources;
    DROP TABLE sources;
    ALTER TABLE sources_v4 RENAME TO sources;
    CREATE INDEX sources_by_path ON sources (path_key);
    DROP TABLE lines;
    ALTER TABLE lines_v4 RENAME TO lines;
    INSERT OR IGNORE INTO names (text) SELECT DISTINCT model FROM messages WHERE model IS NOT NULL;
    CREATE TABLE messages_v4 (
        id INTEGER PRIMARY KEY,
        conversation INTEGER NOT NULL REFERENCES conversations(id),
        source INTEGER NOT NULL REFERENCES sources(id),
        message_id TEXT NOT NULL,
        role TEXT NOT NULL,
        at INTEGER,
        model INTEGER REFERENCES names(id),
        excerpt BLOB,
        UNIQUE (conversation, message_id)
    );
    INSERT INTO messages_v4 (id, conversation, source, message_id, role, at, model, excerpt)
        SELECT m.id, m.conversation, m.source, m.message_id, m.role, m.at, n.id, m.excerpt
        FROM messages m LEFT JOIN names n ON n.text = m.model;
    DROP TABLE messages;
    ALTER TABLE messages_v4 RENAME TO messages;
    CREATE INDEX messages_by_source ON messages (source);
    CREATE INDEX messages_by_conversation ON messages (conversation, at);
    -- What the usage rows add up to (see `tally`, which makes and keeps these).
    ALTER TABLE usage ADD COLUMN counted INTEGER NOT NULL DEFAULT 1;
    CREATE INDEX usage_by_message ON usage (message_key) WHERE message_key IS NOT NULL;
    CREATE TABLE usage_slots (
        provider TEXT NOT NULL,
        slot INTEGER NOT NULL,
        model INTEGER NOT NULL,
        tier INTEGER NOT NULL,
        recorded INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_creation_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cache_creation_1h_tokens INTEGER NOT NULL,
        recorded_cost_micro_usd INTEGER NOT NULL,
        entries INTEGER NOT NULL,
        PRIMARY KEY (provider, slot, model, tier, recorded)
    ) WITHOUT ROWID;
    CREATE TABLE usage_totals (
        provider TEXT PRIMARY KEY,
        lines INTEGER NOT NULL DEFAULT 0,
        without_usage INTEGER NOT NULL DEFAULT 0,
        malformed INTEGER NOT NULL DEFAULT 0,
        repaired_surrogates INTEGER NOT NULL DEFAULT 0,
        duplicates INTEGER NOT NULL DEFAULT 0,
        synthetic INTEGER NOT NULL DEFAULT 0,
        dropped INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE usage_meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    -- How many conversations each provider has, kept by triggers: a list's total without
    -- counting rows.
    CREATE TABLE conversation_counts (
        provider TEXT PRIMARY KEY,
        conversations INTEGER NOT NULL
    );
    INSERT INTO conversation_counts (provider, conversations)
        SELECT provider, count(*) FROM conversations GROUP BY provider;
    CREATE TRIGGER conversation_added AFTER INSERT ON conversations BEGIN
        INSERT INTO conversation_counts (provider, conversations) VALUES (NEW.provider, 1)
        ON CONFLICT (provider) DO UPDATE SET conversations = conversations + 1;
    END;
    CREATE TRIGGER conversation_removed AFTER DELETE ON conversations BEGIN
        UPDATE conversation_counts SET conversations = conversations - 1
        WHERE provider = OLD.provider;
    END;
    ",
    // 5: stored records, a cache of the ledger's `record_stored` events (their content
    // included, blobs read in), searchable; and per ledger how much of it the index took.
    "
    CREATE TABLE records (
        id INTEGER PRIMARY KEY,
        hex TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        title TEXT,
        provider TEXT,
        provider_session_id TEXT,
        agent_id TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        work_session TEXT,
        project TEXT,
        content TEXT NOT NULL,
        content_bytes INTEGER NOT NULL,
        blob TEXT
    );
    CREATE INDEX records_by_creation ON records (created_at DESC, hex DESC);
    CREATE INDEX records_by_provider ON records (provider, created_at DESC);
    CREATE INDEX records_by_anchor ON records (provider_session_id);
    CREATE INDEX records_by_work_session ON records (work_session);
    CREATE VIRTUAL TABLE records_fts USING fts5(
        title, content,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE records_sync (
        ledger TEXT PRIMARY KEY,
        records INTEGER NOT NULL,
        last_event TEXT NOT NULL
    );
    ",
    // 6: one index per user, shared by every project's ledger: a record is its ledger's (two
    // clones of one repository hold the same record ids). The records are a cache of the
    // ledgers, so they are made again from each ledger on its next query.
    "
    DROP TABLE records_fts;
    DROP TABLE records;
    DROP TABLE records_sync;
    CREATE TABLE records (
        id INTEGER PRIMARY KEY,
        ledger TEXT NOT NULL,
        hex TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        title TEXT,
        provider TEXT,
        provider_session_id TEXT,
        agent_id TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        work_session TEXT,
        project TEXT,
        content TEXT NOT NULL,
        content_bytes INTEGER NOT NULL,
        blob TEXT,
        UNIQUE (ledger, hex)
    );
    CREATE INDEX records_by_creation ON records (ledger, created_at DESC, hex DESC);
    CREATE INDEX records_by_provider ON records (ledger, provider, created_at DESC);
    CREATE INDEX records_by_anchor ON records (provider_session_id);
    CREATE INDEX records_by_work_session ON records (work_session);
    CREATE VIRTUAL TABLE records_fts USING fts5(
        title, content,
        content = '', contentless_delete = 1,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE TABLE records_sync (
        ledger TEXT PRIMARY KEY,
        records INTEGER NOT NULL,
        last_event TEXT NOT NULL
    );
    ",
    // 7: where a conversation's title came from (3 the provider's title, 2 the main thread's
    // first prompt, 1 a sub-agent's prompt), so a sub-agent's file read before its parent's
    // does not name the conversation for good. Titles kept before this count as 2.
    "
    ALTER TABLE conversations ADD COLUMN title_rank INTEGER;
    ",
    // 8: lines passed over for their length (where, and how long), so `inspect` and `doctor`
    // can say what the index does not hold.
    "
    CREATE TABLE skipped_lines (
        source INTEGER NOT NULL REFERENCES sources(id),
        offset INTEGER NOT NULL,
        bytes INTEGER NOT NULL,
        PRIMARY KEY (source, offset)
    ) WITHOUT ROWID;
    ",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// The index's file name.
const FILE: &str = "index.sqlite";

/// Where the index lives when the user has no data folder to find: beside the ledger (which
/// `.baton/.gitignore` keeps out of git).
pub fn default_path(ledger_dir: &Path) -> PathBuf {
    ledger_dir.join(FILE)
}

fn sql_error(action: &str, path: &Path, err: impl std::fmt::Display) -> Error {
    Error::store_io(action, &path.display().to_string(), err)
}

/// The error of a failed use of the index at `path`: `INDEX_DAMAGED` (with the command that
/// rebuilds it) when SQLite says the file is malformed or no database, else `STORE_IO`
/// saying what was being done.
pub fn failure(action: &str, path: &Path, err: rusqlite::Error) -> Error {
    match err.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
            Error::index_damaged(&path.display().to_string(), &err.to_string())
        }
        _ => sql_error(action, path, err),
    }
}

/// SQLite's own check of the index's pages (`PRAGMA quick_check`): `INDEX_DAMAGED` naming
/// the first problem found.
pub fn check(connection: &Connection, path: &Path) -> Result<(), Error> {
    let verdict: String = connection
        .query_row("PRAGMA quick_check(1)", [], |row| row.get(0))
        .map_err(|e| failure("check", path, e))?;
    if verdict == "ok" {
        Ok(())
    } else {
        Err(Error::index_damaged(&path.display().to_string(), &verdict))
    }
}

/// Opens (creating when `create`) the index at `path` and brings its schema up to date.
pub fn open(path: &Path, create: bool) -> Result<Connection, Error> {
    open_waiting(path, create, Duration::from_secs(10))
}

/// [`open`], waiting at most `busy` for another connection's lock.
fn open_waiting(path: &Path, create: bool, busy: Duration) -> Result<Connection, Error> {
    let fresh = !path.exists();
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| sql_error("create", dir, e))?;
        }
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let connection =
        Connection::open_with_flags(path, flags).map_err(|e| failure("open", path, e))?;
    connection
        .busy_timeout(busy)
        .map_err(|e| sql_error("configure", path, e))?;
    // A pass prepares a few dozen statements per file: all stay prepared (the default keeps
    // 16, and one prepared again, with its triggers, costs more than its run).
    connection.set_prepared_statement_cache_capacity(64);
    // A new index frees pages as it goes (see `upkeep::compact`); this is only settable before
    // its first table, and asked of an existing index it writes its header (a commit, with
    // its fsyncs, that a query need not pay).
    if fresh {
        connection
            .execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")
            .map_err(|e| sql_error("configure", path, e))?;
    }
    connection
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = NORMAL;
             PRAGMA foreign_keys = ON;",
        )
        .map_err(|e| failure("configure", path, e))?;
    connection
        .create_scalar_function(
            "baton_path_key",
            1,
            rusqlite::functions::FunctionFlags::SQLITE_UTF8
                | rusqlite::functions::FunctionFlags::SQLITE_DETERMINISTIC,
            |context| Ok(path_key(&context.get::<String>(0)?)),
        )
        .map_err(|e| sql_error("configure", path, e))?;
    migrate(&connection, path)?;
    Ok(connection)
}

/// The number a source's path is found by (FNV-1a, 64 bits; a lookup also compares the
/// path, so two paths with one key stay apart).
pub fn path_key(path: &str) -> i64 {
    fnv(path.as_bytes())
}

/// FNV-1a, 64 bits (the core's [`fnv1a64`](baton_core::ledger::checkpoint::fnv1a64), as
/// SQLite's signed integer): the index's hash of a path, of a tail of bytes, of an anchor.
pub fn fnv(bytes: &[u8]) -> i64 {
    baton_core::ledger::checkpoint::fnv1a64(bytes) as i64
}

/// Opens an index that exists, to read; a missing one is an error that says how to make it.
pub fn open_existing(path: &Path) -> Result<Connection, Error> {
    open_existing_waiting(path, Duration::from_secs(10))
}

/// [`open_existing`] for a glance that cannot wait (the status line): at most `busy` for
/// another connection's lock.
pub fn open_existing_waiting(path: &Path, busy: Duration) -> Result<Connection, Error> {
    if !path.exists() {
        return Err(Error::invalid(
            "index",
            format!(
                "there is no transcript index at {}: run `baton mirror` to make it",
                path.display()
            ),
        )
        .with("path", path.display().to_string()));
    }
    let connection = open_waiting(path, false, busy)?;
    check_after_unclean_end(&connection, path)?;
    // A query leaves the log to the writer: closing does not fold it in (an fsync a reader
    // need not pay; the mirror's own checkpoints do it).
    connection
        .set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .map_err(|e| sql_error("configure", path, e))?;
    Ok(connection)
}

/// The index's writer lock: one mirror pass at a time, beside the index.
pub fn lock_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Checks the index when its last writer ended in the middle of its work (killed, or the
/// machine stopped): the writer lock's file still says `writing` and nobody holds the lock.
/// SQLite's own check then runs once; a sound index has the words cleared, a damaged one is
/// `INDEX_DAMAGED`. Any other time this costs one small read.
pub fn check_after_unclean_end(connection: &Connection, path: &Path) -> Result<(), Error> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    let lock_path = lock_path(path);
    let Ok(mut lock) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&lock_path)
    else {
        return Ok(());
    };
    let mut said = String::new();
    let _ = (&mut lock).take(256).read_to_string(&mut said);
    if !said.starts_with("writing") {
        return Ok(());
    }
    // A writer at work holds the lock: nothing ended uncleanly.
    if lock.try_lock().is_err() {
        return Ok(());
    }
    let checked = check(connection, path);
    if checked.is_ok() {
        let _ = lock.set_len(0).and_then(|()| lock.flush());
    }
    let _ = lock.unlock();
    checked
}

/// Where the index is: `BATON_INDEX`, else `index.sqlite` in the user's data folder (one
/// per user, found from any folder: it holds the whole machine's transcripts), else beside the
/// ledger. An index an earlier Baton kept in the ledger's folder is moved to the user's.
pub fn path_for(ledger_dir: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("BATON_INDEX").filter(|v| !v.is_empty()) {
        return PathBuf::from(path);
    }
    let Some(data) = crate::os::places::data_dir() else {
        return default_path(ledger_dir);
    };
    let path = data.join(FILE);
    adopt_project_index(&default_path(ledger_dir), &path);
    path
}

/// Moves a project's own index (what Baton kept in `.baton/` before it kept one per user) to
/// `to`, once, saying so. Its write-ahead log is folded in first, so the one file moved is
/// the whole index. When `to` already exists, the project's is set aside beside itself
/// (`index.sqlite.old`, still out of git) rather than deleted: it may hold transcripts whose
/// sources are gone.
fn adopt_project_index(from: &Path, to: &Path) {
    let is_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    if !is_file(from) || from == to {
        return;
    }
    let companion = |path: &Path, suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    if let Ok(connection) = Connection::open_with_flags(from, OpenFlags::SQLITE_OPEN_READ_WRITE) {
        let _ = connection.busy_timeout(Duration::from_secs(5));
        let _ = connection.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);");
    }
    let target = if is_file(to) {
        companion(from, ".old")
    } else {
        if let Some(dir) = to.parent() {
            use std::os::unix::fs::DirBuilderExt;
            let _ = std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir);
        }
        to.to_path_buf()
    };
    let moved = std::fs::rename(from, &target).is_ok()
        || (std::fs::copy(from, &target).is_ok() && std::fs::remove_file(from).is_ok());
    if !moved {
        return;
    }
    for suffix in ["-wal", "-shm", ".lock"] {
        let _ = std::fs::remove_file(companion(from, suffix));
    }
    if target == to {
        crate::os::warnings::warn(&format!(
            "moved the transcript index from {} to {}: it holds your private transcripts, so it \
             now lives in your data folder, one for every project (BATON_INDEX moves it)",
            from.display(),
            to.display()
        ));
    } else {
        crate::os::warnings::warn(&format!(
            "this project kept its own transcript index; the one in your data folder ({}) is used \
             now, and the project's is set aside as {} (delete it once you no longer need it)",
            to.display(),
            target.display()
        ));
    }
}

/// Applies the migrations this index lacks, each with its version bump in one transaction;
/// an index newer than this build is refused rather than misread.
fn migrate(connection: &Connection, path: &Path) -> Result<(), Error> {
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| failure("read the schema version of", path, e))?;
    let version = usize::try_from(version).unwrap_or(usize::MAX);
    if version > SCHEMA_VERSION {
        return Err(Error::new(
            baton_core::ErrorCode::FormatTooNew,
            format!(
                "the index {} has schema version {version}; this baton knows up to {SCHEMA_VERSION}: update baton, or give another --index",
                path.display()
            ),
        )
        .with("path", path.display().to_string())
        .with("version", version));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    // A migration may rebuild a table others refer to: references are checked once, before
    // each step commits, rather than row by row (SQLite's procedure for a table rebuild).
    connection
        .execute_batch("PRAGMA foreign_keys = OFF;")
        .map_err(|e| sql_error("configure", path, e))?;
    for (n, migration) in MIGRATIONS.iter().enumerate().skip(version) {
        // Each step re-reads the version under its write lock, so two processes opening an
        // old index at once apply each migration once.
        let step = || -> rusqlite::Result<()> {
            connection.execute_batch("BEGIN IMMEDIATE")?;
            let now: i64 = connection.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            if usize::try_from(now).unwrap_or(usize::MAX) <= n {
                connection
                    .execute_batch(&format!("{migration}; PRAGMA user_version = {};", n + 1))?;
                let broken: Option<String> = connection
                    .query_row("PRAGMA foreign_key_check", [], |row| row.get(0))
                    .optional()?;
                if let Some(table) = broken {
                    return Err(rusqlite::Error::SqliteFailure(
                        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CONSTRAINT),
                        Some(format!(
                            "the migration left rows of {table} referring to nothing"
                        )),
                    ));
                }
            }
            connection.execute_batch("COMMIT")
        };
        if let Err(err) = step() {
            let _ = connection.execute_batch("ROLLBACK");
            let _ = connection.execute_batch("PRAGMA foreign_keys = ON;");
            return Err(sql_error(
                &format!("migrate to schema {}", n + 1),
                path,
                err,
            ));
        }
    }
    connection
        .execute_batch("PRAGMA foreign_keys = ON;")
        .map_err(|e| sql_error("configure", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_index_gets_every_migration_and_a_reopen_changes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.sqlite");
        let connection = open(&path, true).unwrap();
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version as usize, SCHEMA_VERSION);
        let mode: String = connection
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        drop(connection);
        let again = open(&path, false).unwrap();
        let tables: i64 = again
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name IN ('sources','lines','conversations','messages','messages_fts','usage')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 6);
    }

    #[test]
    fn a_version_one_index_is_migrated_and_its_sources_are_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.sqlite");
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch(&format!("{}; PRAGMA user_version = 1;", MIGRATIONS[0]))
            .unwrap();
        connection
            .execute(
                "INSERT INTO sources (path, provider, size, mtime_ns, cursor, tail_hash)
                 VALUES ('/t/a.jsonl', 'claude_code', 10, 5, 10, 77)",
                [],
            )
            .unwrap();
        drop(connection);
        let migrated = open(&path, false).unwrap();
        let version: i64 = migrated
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version as usize, SCHEMA_VERSION);
        let (mtime, hash, stats): (i64, i64, Option<String>) = migrated
            .query_row(
                "SELECT mtime_ns, tail_hash, usage_stats FROM sources",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!((mtime, hash, stats), (-1, 0, None));
    }

    #[test]
    fn a_version_three_index_keeps_its_lines_messages_and_counts_when_migrated() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.sqlite");
        let connection = Connection::open(&path).unwrap();
        for migration in &MIGRATIONS[..3] {
            connection.execute_batch(migration).unwrap();
        }
        connection
            .execute_batch(
                "PRAGMA user_version = 3;
                 INSERT INTO sources (id, path, provider) VALUES (1, '/t/a.jsonl', 'claude_code');
                 INSERT INTO lines (source, offset, raw) VALUES (1, 0, x'0102'), (1, 9, x'03');
                 INSERT INTO conversations (id, provider, provider_id) VALUES
                     (7, 'claude_code', 's1'), (8, 'claude_code', 's2'), (9, 'codex', 'c1');
                 INSERT INTO messages (id, conversation, source, message_id, role, model, excerpt)
                     VALUES (5, 7, 1, 'm1', 'assistant', 'claude-opus-4-7', x'00');",
            )
            .unwrap();
        drop(connection);
        let migrated = open(&path, false).unwrap();
        let lines: Vec<(i64, Vec<u8>)> = migrated
            .prepare("SELECT offset, raw FROM lines ORDER BY offset")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(lines, vec![(0, vec![1, 2]), (9, vec![3])]);
        let (id, model): (i64, String) = migrated
            .query_row(
                "SELECT m.id, n.text FROM messages m JOIN names n ON n.id = m.model",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((id, model.as_str()), (5, "claude-opus-4-7"));
        let counts: Vec<(String, i64)> = migrated
            .prepare("SELECT provider, conversations FROM conversation_counts ORDER BY provider")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(counts, vec![("claude_code".into(), 2), ("codex".into(), 1)]);
        migrated
            .execute("DELETE FROM conversations WHERE id = 9", [])
            .unwrap();
        let codex: i64 = migrated
            .query_row(
                "SELECT conversations FROM conversation_counts WHERE provider = 'codex'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(codex, 0);
    }

    #[test]
    fn an_index_from_a_newer_baton_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.sqlite");
        let connection = open(&path, true).unwrap();
        connection
            .execute_batch(&format!("PRAGMA user_version = {}", SCHEMA_VERSION + 1))
            .unwrap();
        drop(connection);
        let err = open(&path, false).unwrap_err();
        assert_eq!(err.code, baton_core::ErrorCode::FormatTooNew);
    }
}
