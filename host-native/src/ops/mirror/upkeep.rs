//! Looking after the index: what it holds and what each part costs (`baton index stats`),
//! giving back the space removed rows left (`baton index compact`, in small steps so neither
//! the mirror nor a reader waits long), and removing a conversation on purpose
//! (`baton transcripts remove`, logged, and never brought back by a later pass).

use super::Mirror;
use baton_core::Error;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::Path;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| crate::index::failure("use the index", path, e)
}

/// One table (with its indexes) and what it takes on disk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableSize {
    /// The table, or the full-text index with its shadow tables.
    pub name: String,
    /// Its rows (the full-text index: the messages it indexes).
    pub rows: u64,
    /// Bytes of its pages, its indexes' included.
    pub bytes: u64,
}

/// What the index holds.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    /// The index file.
    pub path: String,
    /// The database file's bytes.
    pub file_bytes: u64,
    /// The write-ahead log's bytes (folded into the file at checkpoints).
    pub wal_bytes: u64,
    /// Bytes of free pages (given back by `compact`).
    pub free_bytes: u64,
    /// Per table.
    pub tables: Vec<TableSize>,
    /// Source files known.
    pub sources: u64,
    /// Of which gone from disk (their rows kept).
    pub sources_missing: u64,
    /// Of which set aside (could not be read).
    pub sources_set_aside: u64,
    /// The bytes of the source files read so far.
    pub source_bytes: u64,
    /// `file_bytes + wal_bytes` as a share of `source_bytes`.
    pub share_of_sources: f64,
    /// Conversations removed on purpose.
    pub removed: u64,
    /// The schema version.
    pub schema_version: i64,
    /// Lines passed over for their length (longest first, at most 20), which the index
    /// does not hold.
    pub skipped_lines: Vec<SkippedLine>,
}

/// A line the mirror passed over for being longer than it keeps.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedLine {
    /// The source file.
    pub path: String,
    /// Where the line starts.
    pub offset: u64,
    /// Its length.
    pub bytes: u64,
}

/// Which table a b-tree belongs to (an index to its table, FTS5's shadow tables to the
/// full-text index).
fn owner(connection: &Connection, name: &str) -> String {
    if name.starts_with("messages_fts") {
        return "messages_fts".to_owned();
    }
    if name == "sqlite_schema" || name == "sqlite_master" {
        return "sqlite (schema)".to_owned();
    }
    connection
        .query_row(
            "SELECT tbl_name FROM sqlite_master WHERE name = ?1",
            [name],
            |r| r.get::<_, String>(0),
        )
        .unwrap_or_else(|_| name.to_owned())
}

/// What the index at `path` holds, from its pages (SQLite's `dbstat`).
pub fn stats(connection: &Connection, path: &Path) -> Result<Stats, Error> {
    let mut sizes: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    {
        let mut statement = connection
            .prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
            .map_err(sql(path))?;
        let rows = statement
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
            .map_err(sql(path))?;
        for row in rows {
            let (name, bytes) = row.map_err(sql(path))?;
            *sizes.entry(owner(connection, &name)).or_default() += bytes as u64;
        }
    }
    let count = |table: &str| -> u64 {
        connection
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
                r.get::<_, i64>(0)
            })
            .map_or(0, |n| n as u64)
    };
    let mut tables: Vec<TableSize> = sizes
        .into_iter()
        .map(|(name, bytes)| TableSize {
            rows: match name.as_str() {
                "messages_fts" => connection
                    .query_row("SELECT count(*) FROM messages_fts_docsize", [], |r| {
                        r.get::<_, i64>(0)
                    })
                    .map_or(0, |n| n as u64),
                "sqlite (schema)" => 0,
                table => count(table),
            },
            name,
            bytes,
        })
        .collect();
    tables.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    let pragma = |name: &str| -> i64 {
        connection
            .query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
            .unwrap_or(0)
    };
    let file_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal_bytes = std::fs::metadata(&wal).map_or(0, |m| m.len());
    let one = |sql_text: &str| -> u64 {
        connection
            .query_row(sql_text, [], |r| r.get::<_, Option<i64>>(0))
            .ok()
            .flatten()
            .map_or(0, |n| n.max(0) as u64)
    };
    let source_bytes = one("SELECT sum(cursor) FROM sources");
    Ok(Stats {
        path: path.display().to_string(),
        file_bytes,
        wal_bytes,
        free_bytes: (pragma("freelist_count") * pragma("page_size")) as u64,
        tables,
        sources: one("SELECT count(*) FROM sources"),
        sources_missing: one("SELECT count(*) FROM sources WHERE missing = 1"),
        sources_set_aside: one("SELECT count(*) FROM sources WHERE quarantine IS NOT NULL"),
        source_bytes,
        share_of_sources: if source_bytes == 0 {
            0.0
        } else {
            (file_bytes + wal_bytes) as f64 / source_bytes as f64
        },
        removed: one("SELECT count(*) FROM removed"),
        schema_version: pragma("user_version"),
        skipped_lines: skipped_lines(connection, path)?,
    })
}

/// The lines passed over for their length, longest first (at most 20).
pub fn skipped_lines(connection: &Connection, path: &Path) -> Result<Vec<SkippedLine>, Error> {
    let mut statement = connection
        .prepare(
            "SELECT s.path, k.offset, k.bytes FROM skipped_lines k JOIN sources s ON s.id = k.source
             ORDER BY k.bytes DESC, s.path, k.offset LIMIT 20",
        )
        .map_err(sql(path))?;
    let rows = statement
        .query_map([], |r| {
            Ok(SkippedLine {
                path: r.get(0)?,
                offset: r.get::<_, i64>(1)?.max(0) as u64,
                bytes: r.get::<_, i64>(2)?.max(0) as u64,
            })
        })
        .map_err(sql(path))?;
    rows.collect::<Result<_, _>>().map_err(sql(path))
}

/// What a compaction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Compacted {
    /// Bytes of the file and its log before.
    pub bytes_before: u64,
    /// And after.
    pub bytes_after: u64,
    /// Steps taken (each a short transaction under the writer lock).
    pub steps: u64,
    /// Whether a one-time full rewrite (`VACUUM`) was needed: an index made before pages
    /// could be freed in steps.
    pub rewrote: bool,
}

/// Pages freed per step.
const PAGES_PER_STEP: i64 = 512;
/// Full-text segments merged per step.
const MERGE_PAGES_PER_STEP: i64 = 64;

fn on_disk(path: &Path) -> u64 {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::metadata(path).map_or(0, |m| m.len()) + std::fs::metadata(&wal).map_or(0, |m| m.len())
}

/// Gives back space in small steps, each a short write under the writer lock: the full-text
/// index's segments are merged, free pages returned to the file system, and the log folded
/// in and truncated. Readers never wait (the log keeps their view); a mirror waits at most
/// one step.
pub fn compact(mirror: &mut Mirror) -> Result<Compacted, Error> {
    let path = mirror.path().to_path_buf();
    let bytes_before = on_disk(&path);
    let mut steps = 0;
    let mut rewrote = false;
    let auto_vacuum: i64 = mirror
        .connection()
        .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
        .map_err(sql(&path))?;
    if auto_vacuum != 2 {
        // Made before pages could be freed in steps: one full rewrite turns that on.
        mirror.with_lock(|c| {
            c.execute_batch("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;")
                .map_err(sql(&path))
        })?;
        rewrote = true;
        steps += 1;
    }
    loop {
        let changed = mirror.with_lock(|c| {
            let before = c.total_changes();
            c.execute(
                "INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', ?1)",
                [MERGE_PAGES_PER_STEP],
            )
            .map_err(sql(&path))?;
            // SQLite's rule: a merge step that changed fewer than two rows found nothing left.
            Ok(c.total_changes() - before >= 2)
        })?;
        steps += 1;
        if !changed {
            break;
        }
    }
    loop {
        let free = mirror.with_lock(|c| {
            c.execute_batch(&format!("PRAGMA incremental_vacuum({PAGES_PER_STEP});"))
                .map_err(sql(&path))?;
            c.query_row("PRAGMA freelist_count", [], |r| r.get::<_, i64>(0))
                .map_err(sql(&path))
        })?;
        steps += 1;
        if free == 0 {
            break;
        }
    }
    // The log is folded in and truncated if no reader holds it; a reader is waited for only
    // briefly (the next compaction or checkpoint finishes the job).
    mirror.with_lock(|c| {
        c.busy_timeout(std::time::Duration::from_millis(250))
            .map_err(sql(&path))?;
        let folded = c
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(sql(&path));
        c.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sql(&path))?;
        folded
    })?;
    steps += 1;
    Ok(Compacted {
        bytes_before,
        bytes_after: on_disk(&path),
        steps,
        rewrote,
    })
}

/// A conversation removed on purpose.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Removal {
    /// Whose.
    pub provider: String,
    /// The provider's id.
    pub provider_id: String,
    /// Its title.
    pub title: Option<String>,
    /// Messages removed.
    pub messages: u64,
}

/// Removes the conversation numbered `id` (its messages, their full-text rows and usage
/// rows stay out from now on): logged in `removed`, which also keeps a later pass from
/// bringing it back. Its export copy goes, and the stored lines of a file that held nothing
/// else; lines shared with another conversation stay.
pub fn remove(
    mirror: &mut Mirror,
    id: i64,
    now_millis: i64,
    by: Option<&str>,
) -> Result<Removal, Error> {
    let path = mirror.path().to_path_buf();
    mirror.with_lock(|c| {
        let transaction = c.unchecked_transaction().map_err(sql(&path))?;
        let found: Option<(String, String, Option<String>)> = transaction
            .query_row(
                "SELECT provider, provider_id, title FROM conversations WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(sql(&path))?;
        let Some((provider, provider_id, title)) = found else {
            return Err(Error::invalid(
                "conversation",
                format!("no kept conversation is numbered {id}"),
            ));
        };
        transaction
            .execute("DELETE FROM tool_calls WHERE conversation = ?1", [id])
            .map_err(sql(&path))?;
        transaction
            .execute(
                "DELETE FROM messages_fts WHERE rowid IN
                     (SELECT id FROM messages WHERE conversation = ?1)",
                [id],
            )
            .map_err(sql(&path))?;
        let sources: Vec<i64> = transaction
            .prepare("SELECT DISTINCT source FROM messages WHERE conversation = ?1")
            .and_then(|mut statement| {
                statement
                    .query_map([id], |r| r.get(0))?
                    .collect::<rusqlite::Result<_>>()
            })
            .map_err(sql(&path))?;
        let messages = transaction
            .execute("DELETE FROM messages WHERE conversation = ?1", [id])
            .map_err(sql(&path))? as u64;
        let mut dirty = super::tally::Dirty::default();
        dirty
            .delete(
                &transaction,
                "DELETE FROM usage WHERE session = (SELECT id FROM names WHERE text = ?1)
                     AND source IN (SELECT id FROM sources WHERE provider = ?2)
                 RETURNING message_key",
                params![provider_id, provider],
            )
            .map_err(sql(&path))?;
        dirty.settle(&transaction).map_err(sql(&path))?;
        transaction
            .execute(
                "DELETE FROM export_items WHERE provider = ?1 AND (provider_id = ?2
                     OR (provider_id >= ?2 || '#' AND provider_id < ?2 || '$'))",
                params![provider, provider_id],
            )
            .map_err(sql(&path))?;
        // The lines of a file that held nothing else go too (a transcript is mostly one
        // conversation); lines shared with another conversation stay, as they are its too.
        for source in &sources {
            transaction
                .execute(
                    "DELETE FROM lines WHERE source = ?1
                         AND NOT EXISTS (SELECT 1 FROM messages WHERE source = ?1)",
                    [source],
                )
                .map_err(sql(&path))?;
        }
        transaction
            .execute("DELETE FROM conversations WHERE id = ?1", [id])
            .map_err(sql(&path))?;
        transaction
            .execute(
                "INSERT OR REPLACE INTO removed
                     (provider, provider_id, title, messages, removed_at, removed_by)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    provider,
                    provider_id,
                    title,
                    messages as i64,
                    now_millis,
                    by
                ],
            )
            .map_err(sql(&path))?;
        transaction.commit().map_err(sql(&path))?;
        Ok(Removal {
            provider,
            provider_id,
            title,
            messages,
        })
    })
}
