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

pub mod fts5;
pub mod hits;
mod schema;

pub use schema::*;

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

/// The schema's statements, all of them (tests read what it says).
#[cfg(test)]
pub(crate) fn schema_text() -> String {
    schema::MIGRATIONS.concat()
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
    // Plans that never depend on the values bound. Without this, a statement whose plan could
    // (a join beside the partial index on `usage`, a range with `LIMIT`) is compiled again
    // every time the cache hands it out, since handing out clears its values: the mirror's
    // recount of a message cost 34 µs where 6 µs does, a sixth of a backfill's time.
    connection
        .set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .map_err(|e| sql_error("configure", path, e))?;
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
             PRAGMA foreign_keys = ON;
             PRAGMA temp_store = MEMORY;",
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
    if let Some(path) = crate::os::env::var_os("BATON_INDEX").filter(|v| !v.is_empty()) {
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
