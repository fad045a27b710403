//! Records' rows in the index: a cache brought up to date from the ledger (the truth) before
//! each use, so deleting the index loses nothing.

use super::*;

/// Adds one record to the index (nothing when its id is there already).
pub(super) fn insert(
    connection: &Connection,
    path: &Path,
    ledger: &str,
    record: &Record,
    blob: Option<&BlobRef>,
    project: Option<&str>,
) -> Result<(), Error> {
    let tags = serde_json::to_string(&record.about.tags).unwrap_or_else(|_| "[]".to_owned());
    let added = connection
        .prepare_cached(
            "INSERT INTO records (hex, created_at, updated_at, title, provider,
                 provider_session_id, agent_id, tags, work_session, project, content,
                 content_bytes, blob, ledger)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT (ledger, hex) DO NOTHING",
        )
        .and_then(|mut s| {
            s.execute(params![
                record.id.simple().to_string(),
                record.created_at.millis(),
                record.updated_at.millis(),
                record.about.title,
                record.about.provider,
                record.about.provider_session_id,
                record.about.agent_id,
                tags,
                record.about.work_session.map(|s| s.to_string()),
                project,
                record.content,
                // A blob's size as its reference says: a damaged blob's record is kept
                // without its content, and the sizes then disagree.
                blob.map_or(record.content.len() as u64, |b| b.bytes) as i64,
                blob.map(|b| b.sha256.clone()),
                ledger,
            ])
        })
        .map_err(sql(path))?;
    if added == 1 {
        let row = connection.last_insert_rowid();
        connection
            .prepare_cached("INSERT INTO records_fts (rowid, title, content) VALUES (?1, ?2, ?3)")
            .and_then(|mut s| {
                s.execute(params![
                    row,
                    searchable_text(record.about.title.as_deref().unwrap_or("")),
                    searchable_text(&record.content)
                ])
            })
            .map_err(sql(path))?;
    }
    Ok(())
}

/// Runs `work` in one write transaction: all of it is kept, or none.
pub(super) fn in_transaction<T>(
    connection: &Connection,
    path: &Path,
    work: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    connection
        .execute_batch("BEGIN IMMEDIATE")
        .map_err(sql(path))?;
    match work() {
        Ok(done) => {
            connection.execute_batch("COMMIT").map_err(sql(path))?;
            Ok(done)
        }
        Err(err) => {
            let _ = connection.execute_batch("ROLLBACK");
            Err(err)
        }
    }
}

/// What bringing the index up to date added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Synced {
    /// Records the ledger holds.
    pub records: usize,
    /// Records the index lacked and now has.
    pub added: usize,
}

/// The ledger's records, from `snapshot`.
pub(super) fn ledger_records(snapshot: &Snapshot) -> Result<Vec<StoredRecord>, Error> {
    Ok(snapshot
        .history(RECORDS_STREAM)?
        .map(|history| stored_records(&history))
        .unwrap_or_default())
}

/// Brings the index's records up to date with the ledger's: every record the index lacks is
/// added (its blob read and checked). Cheap when nothing is missing: the index keeps, per
/// ledger, how many records it took and the last event, and the work is skipped when both
/// still hold. Records are never deleted from a ledger, so nothing is taken out.
pub fn sync(
    ledger: &Ledger,
    snapshot: &Snapshot,
    index_path: &Path,
) -> Result<(Connection, Synced), Error> {
    let records = ledger_records(snapshot)?;
    let stamp = records
        .iter()
        .map(|r| r.event)
        .max()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let key = ledger_key(ledger.dir());
    let seen_before = |connection: &Connection| -> Result<bool, Error> {
        let kept: Option<(i64, String)> = connection
            .query_row(
                "SELECT records, last_event FROM records_sync WHERE ledger = ?1",
                [&key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(sql(index_path))?;
        Ok(kept == Some((records.len() as i64, stamp.clone())))
    };
    if index_path.exists() {
        let connection = crate::index::open_existing(index_path)?;
        if seen_before(&connection)? {
            return Ok((
                connection,
                Synced {
                    records: records.len(),
                    added: 0,
                },
            ));
        }
    }
    let mut mirror = crate::ops::mirror::Mirror::open(index_path)?;
    let added = mirror.with_lock(|connection| {
        let mut present = std::collections::HashSet::new();
        {
            let mut statement = connection
                .prepare("SELECT hex FROM records WHERE ledger = ?1")
                .map_err(sql(index_path))?;
            let rows = statement
                .query_map([&key], |r| r.get::<_, String>(0))
                .map_err(sql(index_path))?;
            for hex in rows {
                present.insert(hex.map_err(sql(index_path))?);
            }
        }
        in_transaction(connection, index_path, || {
            let mut added = 0;
            for stored in &records {
                if present.contains(&stored.record.id.simple().to_string()) {
                    continue;
                }
                let blob = stored.blob.clone();
                let session = stored.record.about.work_session;
                let record = match with_content(ledger, stored.clone()) {
                    Ok(record) => record,
                    Err(err) => {
                        // A damaged blob keeps the record listed (without its content); the
                        // warning says what is wrong.
                        crate::os::warnings::warn(&err.message);
                        stored.record.clone()
                    }
                };
                let project = project_of(snapshot, session)?;
                insert(
                    connection,
                    index_path,
                    &key,
                    &record,
                    blob.as_ref(),
                    project.as_deref(),
                )?;
                added += 1;
            }
            connection
                .execute(
                    "INSERT INTO records_sync (ledger, records, last_event) VALUES (?1, ?2, ?3)
                     ON CONFLICT (ledger) DO UPDATE SET records = excluded.records,
                         last_event = excluded.last_event",
                    params![key, records.len() as i64, stamp],
                )
                .map_err(sql(index_path))?;
            Ok(added)
        })
    })?;
    let connection = crate::index::open_existing(index_path)?;
    Ok((
        connection,
        Synced {
            records: records.len(),
            added,
        },
    ))
}

/// [`open_synced`], unless there is no index and no record to make one with: a search of
/// the transcripts then says there is no index, as it always has.
pub fn open_synced_if_any(
    ledger: &Ledger,
    index_path: &Path,
) -> Result<Option<(Snapshot, Connection)>, Error> {
    let snapshot = ledger.snapshot()?;
    if !index_path.exists() && ledger_records(&snapshot)?.is_empty() {
        return Ok(None);
    }
    let (connection, _) = sync(ledger, &snapshot, index_path)?;
    Ok(Some((snapshot, connection)))
}

/// The index, brought up to date with the ledger's records, to query.
pub fn open_synced(ledger: &Ledger, index_path: &Path) -> Result<(Snapshot, Connection), Error> {
    let snapshot = ledger.snapshot()?;
    let (connection, _) = sync(ledger, &snapshot, index_path)?;
    Ok((snapshot, connection))
}

/// A record's row in the index, as a list shows it.
pub(super) fn read_record(r: &rusqlite::Row) -> rusqlite::Result<Record> {
    let hex: String = r.get(0)?;
    let tags: String = r.get(7)?;
    let work_session: Option<String> = r.get(8)?;
    Ok(Record {
        id: uuid::Uuid::try_parse(&hex).unwrap_or_default(),
        created_at: baton_core::time::Timestamp::from_millis(r.get(1)?),
        updated_at: baton_core::time::Timestamp::from_millis(r.get(2)?),
        about: baton_core::ledger::record::RecordAbout {
            title: r.get(3)?,
            provider: r.get(4)?,
            provider_session_id: r.get(5)?,
            agent_id: r.get(6)?,
            tags: serde_json::from_str(&tags).unwrap_or_default(),
            work_session: work_session
                .and_then(|s| uuid::Uuid::try_parse(&s).ok())
                .map(SessionId),
        },
        content: r.get(9)?,
    })
}

pub(super) const RECORD_COLUMNS: &str =
    "hex, created_at, updated_at, title, provider, provider_session_id,
    agent_id, tags, work_session, content, content_bytes, blob";
