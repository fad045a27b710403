//! Stored records on this machine: their content blobs under `.baton/blobs/`, the ledger
//! event that stores each (the truth), and their rows in the index (a cache for querying,
//! brought up to date from the ledger before each use, so deleting the index loses nothing).

use crate::ops::engine::Acting;
use crate::ops::mirror::query::{Include, Listing, ListingQuery};
use crate::store::{Ledger, Snapshot};
use baton_core::Error;
use baton_core::ids::{RECORDS_STREAM, SessionId};
use baton_core::ledger::event::Actor;
use baton_core::ledger::store::LedgerView;
use baton_core::records::{
    BlobRef, IdQuery, Kind, Record, StoreRequest, StoredRecord, plan_store, stored_records,
};
use baton_core::transcripts::search::searchable_text;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The folder of content blobs, inside the ledger.
const BLOBS: &str = "blobs";

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| crate::index::failure("use the index", path, e)
}

/// Where the blob `sha256` lives, when the name is a SHA-256 (64 lower-case hex digits): a
/// name from a hand-edited or hostile ledger line (`../x`, `/dev/zero`) names no file.
fn blob_path(ledger: &Ledger, sha256: &str) -> Option<PathBuf> {
    let hex = sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then(|| ledger.dir().join(BLOBS).join(sha256))
}

/// The blobs under `.baton/blobs/` whose bytes are not what their name (a SHA-256) promises:
/// each as a finding for `baton doctor`, with what to do. A blob is checked whole, up to
/// 1 GiB (a larger one is named as too large to be Baton's).
pub fn check_blobs(ledger: &Ledger) -> Vec<String> {
    let dir = ledger.dir().join(BLOBS);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    let mut findings = Vec::new();
    for name in names {
        let Some(path) = blob_path(ledger, &name) else {
            continue;
        };
        let problem = match crate::store::read_own_bytes(&path, 1 << 30) {
            None => "cannot be read as the ledger's own file (a link, a FIFO, another user's, or over 1 GiB)".to_owned(),
            Some(bytes) if baton_core::records::sha256_hex(&bytes) != name => format!(
                "holds {} bytes that are not the ones its name promises (altered or cut)",
                bytes.len()
            ),
            Some(_) => continue,
        };
        findings.push(format!(
            "the record blob {} {problem}: restore it from a copy of the ledger (records that use it answer RECORD_CONTENT_DAMAGED)",
            path.display()
        ));
    }
    findings
}

/// Writes a content blob whole and durably (a temporary, fsync, rename), unless a blob with
/// these very bytes is already there (the name is their hash: the same content is kept once).
/// The ledger and its `blobs/` folder must be this user's own, not links.
fn write_blob(ledger: &Ledger, blob: &BlobRef, content: &[u8]) -> Result<(), Error> {
    let path = blob_path(ledger, &blob.sha256)
        .ok_or_else(|| Error::internal("a blob name that is not a SHA-256"))?;
    let dir = ledger.dir().join(BLOBS);
    crate::store::check_own_folder(ledger, ledger.dir())?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::store_io("create directory", &dir.display().to_string(), e))?;
    crate::store::check_own_folder(ledger, &dir)?;
    if crate::store::read_own_bytes(&path, content.len() as u64).is_some_and(|kept| kept == content)
    {
        return Ok(());
    }
    crate::store::write_atomically(&path, content)
}

/// A stored record with its content, read from its blob when it has one (checked against
/// the blob's name; read as the ledger's own file, never past the size it should have).
fn with_content(ledger: &Ledger, stored: StoredRecord) -> Result<Record, Error> {
    let bytes = stored.blob.as_ref().and_then(|blob| {
        crate::store::read_own_bytes(&blob_path(ledger, &blob.sha256)?, blob.bytes)
    });
    stored.with_content(bytes.as_deref())
}

/// `baton record store` and `session_store`: checks the request, writes the blob (when the
/// content does not fit a ledger line), appends the event, then indexes the record (a failure
/// there is only a warning: the next query brings the index up to date from the ledger).
pub fn store(
    ledger: &Ledger,
    index_path: &Path,
    request: StoreRequest,
    work_session: Option<&str>,
    acting: &Acting,
) -> Result<Record, Error> {
    let snapshot = ledger.snapshot()?;
    // Named as every command names a session: its id, 8+ hex digits of either end, its path.
    let work_session = work_session
        .map(|raw| {
            baton_core::commands::resolve_session(&snapshot, "session", raw)
                .and_then(|full| SessionId::parse_v7("session", &full))
        })
        .transpose()?;
    if let Some(id) = work_session
        && snapshot.session(id)?.is_none()
    {
        return Err(Error::session_not_found(id).with("field", "session"));
    }
    let now = crate::os::system::now()?;
    let mut record = request.into_record(crate::os::system::new_uuid(), now, work_session)?;
    record.agent_id = acting.caller.agent_name().map(str::to_owned);
    let actor = acting
        .actor
        .clone()
        .unwrap_or_else(|| match &acting.caller {
            baton_core::commands::Caller::Agent(name) => Actor::agent(name.clone()),
            baton_core::commands::Caller::Person => Actor {
                kind: baton_core::ledger::event::ActorKind::Human,
                name: acting
                    .person
                    .clone()
                    .unwrap_or_else(crate::os::system::person),
            },
        });
    let plan = plan_store(
        &record,
        baton_core::EventId(crate::os::system::new_uuid()),
        actor,
    )?;
    let line = plan.event.encode()?;
    if let Some(blob) = &plan.blob {
        write_blob(ledger, blob, record.content.as_bytes())?;
    }
    ledger.append_lines(&[line])?;
    let indexed = (|| -> Result<(), Error> {
        let mut mirror = crate::ops::mirror::Mirror::open(index_path)?;
        let project = project_of(&snapshot, record.work_session)?;
        // What the ledger now holds, as the next query's check will find it (another writer
        // in between only costs that query a full check).
        let before = ledger_records(&snapshot)?;
        let last = before
            .iter()
            .map(|r| r.event)
            .chain([plan.event.id])
            .max()
            .map(|e| e.to_string())
            .unwrap_or_default();
        let key = ledger_key(ledger.dir());
        mirror.with_lock(|connection| {
            in_transaction(connection, index_path, || {
                insert(
                    connection,
                    index_path,
                    &key,
                    &record,
                    plan.blob.as_ref(),
                    project.as_deref(),
                )?;
                let kept: Option<i64> = connection
                    .query_row(
                        "SELECT records FROM records_sync WHERE ledger = ?1",
                        [&key],
                        |r| r.get(0),
                    )
                    .optional()
                    .map_err(sql(index_path))?;
                // Only an index that had taken every earlier record may say it has them all.
                if kept == Some(before.len() as i64) || before.is_empty() {
                    connection
                        .execute(
                            "INSERT INTO records_sync (ledger, records, last_event)
                             VALUES (?1, ?2, ?3)
                             ON CONFLICT (ledger) DO UPDATE SET records = excluded.records,
                                 last_event = excluded.last_event",
                            params![key, before.len() as i64 + 1, last],
                        )
                        .map_err(sql(index_path))?;
                }
                Ok(())
            })
        })
    })();
    if let Err(err) = indexed {
        crate::os::warnings::warn(&format!(
            "the record is stored in the ledger, but the index could not take it yet ({err}); the next query adds it"
        ));
    }
    Ok(record)
}

/// How the index names a ledger: its folder, resolved (the index is the user's, shared by
/// every project, and a record is its ledger's).
pub fn ledger_key(ledger_dir: &Path) -> String {
    std::fs::canonicalize(ledger_dir)
        .unwrap_or_else(|_| ledger_dir.to_path_buf())
        .display()
        .to_string()
}

/// The project of the work session a record is attached to, when it is known.
fn project_of(snapshot: &Snapshot, session: Option<SessionId>) -> Result<Option<String>, Error> {
    Ok(match session {
        Some(id) => snapshot.session(id)?.map(|s| s.project),
        None => None,
    })
}

/// Adds one record to the index (nothing when its id is there already).
fn insert(
    connection: &Connection,
    path: &Path,
    ledger: &str,
    record: &Record,
    blob: Option<&BlobRef>,
    project: Option<&str>,
) -> Result<(), Error> {
    let tags = serde_json::to_string(&record.tags).unwrap_or_else(|_| "[]".to_owned());
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
                record.title,
                record.provider,
                record.provider_session_id,
                record.agent_id,
                tags,
                record.work_session.map(|s| s.to_string()),
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
                    searchable_text(record.title.as_deref().unwrap_or("")),
                    searchable_text(&record.content)
                ])
            })
            .map_err(sql(path))?;
    }
    Ok(())
}

/// Runs `work` in one write transaction: all of it is kept, or none.
fn in_transaction<T>(
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
fn ledger_records(snapshot: &Snapshot) -> Result<Vec<StoredRecord>, Error> {
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
                let session = stored.record.work_session;
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
fn read_record(r: &rusqlite::Row) -> rusqlite::Result<Record> {
    let hex: String = r.get(0)?;
    let tags: String = r.get(7)?;
    let work_session: Option<String> = r.get(8)?;
    Ok(Record {
        id: uuid::Uuid::try_parse(&hex).unwrap_or_default(),
        created_at: baton_core::time::Timestamp::from_millis(r.get(1)?),
        updated_at: baton_core::time::Timestamp::from_millis(r.get(2)?),
        title: r.get(3)?,
        provider: r.get(4)?,
        provider_session_id: r.get(5)?,
        agent_id: r.get(6)?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        work_session: work_session
            .and_then(|s| uuid::Uuid::try_parse(&s).ok())
            .map(SessionId),
        content: r.get(9)?,
    })
}

const RECORD_COLUMNS: &str = "hex, created_at, updated_at, title, provider, provider_session_id,
    agent_id, tags, work_session, content, content_bytes, blob";

/// The one record `query` names (a whole id or a prefix of 8+ hex digits), by the core's
/// rule: what else the id could name (a work session, a mirrored conversation) is looked up
/// only when no record has it, so the error can say which kind it is.
pub fn resolve(
    connection: &Connection,
    index_path: &Path,
    snapshot: &Snapshot,
    ledger_dir: &Path,
    query: &IdQuery,
) -> Result<Record, Error> {
    let prefix = match query {
        IdQuery::Whole(id) => id.simple().to_string(),
        IdQuery::Prefix(prefix) => prefix.clone(),
    };
    let mut upper = prefix.clone();
    upper.push('g');
    let key = ledger_key(ledger_dir);
    let mut statement = connection
        .prepare_cached(&format!(
            "SELECT {RECORD_COLUMNS} FROM records
             WHERE ledger = ?3 AND ((hex >= ?1 AND hex < ?2) OR substr(hex, -length(?1)) = ?1)
             ORDER BY hex LIMIT 20"
        ))
        .map_err(sql(index_path))?;
    let found = statement
        .query_map([&prefix, &upper, &key], read_record)
        .map_err(sql(index_path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(index_path))?;
    let mut known: Vec<(uuid::Uuid, Kind)> = found.iter().map(|r| (r.id, Kind::Record)).collect();
    if found.is_empty() {
        for session in snapshot.sessions()? {
            known.push((session.session_id.0, Kind::WorkSession));
        }
        known.extend(
            mirrored_ids(connection, &prefix)
                .map_err(sql(index_path))?
                .into_iter()
                .map(|id| (id, Kind::MirroredConversation)),
        );
    }
    let id = baton_core::records::resolve(query, known)?;
    let record = found
        .into_iter()
        .find(|r| r.id == id)
        .ok_or_else(|| Error::internal("a resolved record left the index"))?;
    // Its content was left out when its blob was damaged as the index took it: read it
    // again, now, and say what is wrong if it still is.
    let (expected, blob): (i64, Option<String>) = connection
        .query_row(
            "SELECT content_bytes, blob FROM records WHERE ledger = ?2 AND hex = ?1",
            [id.simple().to_string(), key],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql(index_path))?;
    match blob {
        Some(sha256) if expected != record.content.len() as i64 => {
            let stored = StoredRecord {
                blob: Some(BlobRef {
                    sha256,
                    bytes: expected as u64,
                }),
                event: baton_core::EventId(uuid::Uuid::nil()),
                record,
            };
            let ledger = Ledger::new(ledger_dir, false);
            with_content(&ledger, stored)
        }
        _ => Ok(record),
    }
}

/// Mirrored conversations whose provider id is a UUID starting with the hex digits `prefix`.
fn mirrored_ids(connection: &Connection, prefix: &str) -> rusqlite::Result<Vec<uuid::Uuid>> {
    // A provider's UUID is written with hyphens: the prefix is looked for in that form.
    let mut hyphenated = String::new();
    for (at, c) in prefix.chars().enumerate() {
        if [8, 12, 16, 20].contains(&at) {
            hyphenated.push('-');
        }
        hyphenated.push(c);
    }
    let mut upper = hyphenated.clone();
    upper.push('g');
    let mut statement = connection.prepare_cached(
        "SELECT provider_id FROM conversations
         WHERE provider IN ('claude_code', 'codex', 'chatgpt', 'claude_ai')
           AND provider_id >= ?1 AND provider_id < ?2
         LIMIT 20",
    )?;
    let ids = statement
        .query_map(params![hyphenated, upper], |r| r.get::<_, String>(0))?
        .filter_map(|id| id.ok().and_then(|id| uuid::Uuid::try_parse(&id).ok()))
        .collect();
    Ok(ids)
}

/// What is linked to a record: the work session it is attached to, and the mirrored
/// conversations with its provider session id.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Links {
    /// The work session, when the record is attached to one that is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_session: Option<LinkedSession>,
    /// Mirrored conversations sharing the provider session id.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mirrored: Vec<crate::ops::mirror::query::ConversationRow>,
    /// Other stored records sharing the provider session id or the work session.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<String>,
}

/// A work session, as a link shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LinkedSession {
    /// Its id.
    pub session_id: String,
    /// Its project.
    pub project: String,
    /// Its agent.
    pub agent: String,
    /// Its status.
    pub status: String,
}

/// What links to `record`.
pub fn links_of(
    connection: &Connection,
    index_path: &Path,
    snapshot: &Snapshot,
    ledger_dir: &Path,
    record: &Record,
) -> Result<Links, Error> {
    let work_session = match record.work_session {
        Some(id) => snapshot.session(id)?.map(|s| LinkedSession {
            session_id: s.session_id.to_string(),
            project: s.project,
            agent: s.agent,
            status: s.status.as_str().to_owned(),
        }),
        None => None,
    };
    let mirrored = match &record.provider_session_id {
        Some(anchor) => {
            crate::ops::mirror::query::conversations_with_anchor(connection, index_path, anchor)?
        }
        None => Vec::new(),
    };
    let mut statement = connection
        .prepare_cached(
            "SELECT hex FROM records WHERE hex <> ?1 AND ledger = ?4
               AND ((?2 IS NOT NULL AND provider_session_id = ?2)
                 OR (?3 IS NOT NULL AND work_session = ?3))
             ORDER BY created_at DESC LIMIT 50",
        )
        .map_err(sql(index_path))?;
    let records = statement
        .query_map(
            params![
                record.id.simple().to_string(),
                record.provider_session_id,
                record.work_session.map(|s| s.to_string()),
                ledger_key(ledger_dir)
            ],
            |r| r.get::<_, String>(0),
        )
        .map_err(sql(index_path))?
        .filter_map(|hex| hex.ok().and_then(|h| uuid::Uuid::try_parse(&h).ok()))
        .map(|id| id.to_string())
        .collect();
    Ok(Links {
        work_session,
        mirrored,
        records,
    })
}

/// What links to a work session: the records attached to it, and those whose provider
/// session id is the session's own (or its attempt id, where hooks written before the
/// session had one keep Claude's session id), newest first; and the mirrored conversations
/// those ids name.
pub fn linked_to_session(
    connection: &Connection,
    index_path: &Path,
    ledger_dir: &Path,
    session: &baton_core::ledger::session::Session,
) -> Result<(Vec<Record>, Vec<crate::ops::mirror::query::ConversationRow>), Error> {
    let mut statement = connection
        .prepare_cached(&format!(
            "SELECT {RECORD_COLUMNS} FROM records
             WHERE ledger = ?4 AND (work_session = ?1
                OR (?2 IS NOT NULL AND provider_session_id = ?2)
                OR (?3 IS NOT NULL AND provider_session_id = ?3))
             ORDER BY created_at DESC, hex DESC LIMIT 200"
        ))
        .map_err(sql(index_path))?;
    let records = statement
        .query_map(
            params![
                session.session_id.to_string(),
                session.attempt_id,
                session.provider_session_id,
                ledger_key(ledger_dir)
            ],
            read_record,
        )
        .map_err(sql(index_path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(index_path))?;
    let mut anchors: Vec<&str> = records
        .iter()
        .filter_map(|r| r.provider_session_id.as_deref())
        .chain(session.attempt_id.as_deref())
        .chain(session.provider_session_id.as_deref())
        .collect();
    anchors.sort_unstable();
    anchors.dedup();
    let mut mirrored = Vec::new();
    for anchor in anchors {
        mirrored.extend(crate::ops::mirror::query::conversations_with_anchor(
            connection, index_path, anchor,
        )?);
    }
    Ok((records, mirrored))
}

/// A listing of records (and, as asked, mirrored conversations) from an index brought up to
/// date with the ledger.
pub fn list(
    connection: &Connection,
    index_path: &Path,
    query: &ListingQuery,
) -> Result<Listing, Error> {
    crate::ops::mirror::query::listing(connection, index_path, query)
}

/// A record exported as `format`: pretty JSON (with a last newline), or the core's Markdown.
pub fn export_document(record: &Record, format: baton_core::records::ExportFormat) -> String {
    match format {
        baton_core::records::ExportFormat::Json => {
            serde_json::to_string_pretty(record).unwrap_or_default() + "\n"
        }
        baton_core::records::ExportFormat::Markdown => baton_core::records::markdown(record),
    }
}

/// The spec's list (`record list`, `session_list`): `query` as the core checked it, over
/// what `include` names, from an index brought up to date with the ledger.
pub fn list_records(
    ledger: &Ledger,
    index_path: &Path,
    query: baton_core::records::ListQuery,
    include: Include,
) -> Result<Listing, Error> {
    let (_, connection) = open_synced(ledger, index_path)?;
    list(
        &connection,
        index_path,
        &ListingQuery {
            include,
            limit: i64::from(query.limit),
            offset: query.offset as i64,
            provider: query.provider,
            agent_id: query.agent_id,
            project: None,
            since: query.since.map(|t| t.millis()),
            until: None,
            ledger: ledger_key(ledger.dir()),
        },
    )
}

/// A record without its content, as lists and answers about it show it.
pub fn summary(record: &Record) -> serde_json::Value {
    let mut value = serde_json::to_value(record).unwrap_or_default();
    if let Some(object) = value.as_object_mut() {
        object.remove("content");
    }
    value
}

/// Which of stored, mirrored or both a listing covers, from a caller's word.
pub fn include_of(text: Option<&str>, default: Include) -> Result<Include, Error> {
    match text {
        None => Ok(default),
        Some(word) => word.parse(),
    }
}

/// A stored record a search found.
#[derive(Debug, Clone, Serialize)]
pub struct RecordHit {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: Option<String>,
    /// Its provider.
    pub provider: Option<String>,
    /// When it was stored.
    pub created_at: baton_core::time::Timestamp,
    /// The words in their place.
    pub snippet: String,
}

/// Stored records matching every word of `query` (in the title or content), best first, with
/// how many match in all; filtered as a listing is (provider exactly, project, times).
pub fn search(
    connection: &Connection,
    index_path: &Path,
    query: &str,
    filters: &ListingQuery,
    limit: i64,
) -> Result<(i64, Vec<RecordHit>), Error> {
    use baton_core::transcripts::search::plan;
    use baton_core::transcripts::snippets::snippet_of;
    let plan = plan(query, &["title", "content"])?;
    let expression = plan.required.clone();
    let filter = "r.ledger = ?7 AND (?2 IS NULL OR r.provider = ?2) AND (?3 IS NULL OR instr(r.project, ?3) > 0)
         AND (?4 IS NULL OR r.created_at >= ?4) AND (?5 IS NULL OR r.created_at <= ?5)";
    let arguments = params![
        expression,
        filters.provider,
        filters.project,
        filters.since,
        filters.until,
        limit,
        filters.ledger
    ];
    let total: i64 = connection
        .query_row(
            &format!(
                "SELECT count(*) FROM records_fts f JOIN records r ON r.id = f.rowid
                 WHERE records_fts MATCH ?1 AND {filter} AND ?6 IS NOT NULL"
            ),
            arguments,
            |r| r.get(0),
        )
        .map_err(sql(index_path))?;

    let mut statement = connection
        .prepare_cached(&format!(
            "SELECT r.hex, r.title, r.provider, r.created_at, r.content
             FROM records_fts f JOIN records r ON r.id = f.rowid
             WHERE records_fts MATCH ?1 AND {filter}
             ORDER BY f.rank LIMIT ?6"
        ))
        .map_err(sql(index_path))?;
    let hits = statement
        .query_map(arguments, |r| {
            let hex: String = r.get(0)?;
            let content: String = r.get(4)?;
            Ok(RecordHit {
                id: uuid::Uuid::try_parse(&hex)
                    .map(|id| id.to_string())
                    .unwrap_or(hex),
                title: r.get(1)?,
                provider: r.get(2)?,
                created_at: baton_core::time::Timestamp::from_millis(r.get(3)?),
                snippet: snippet_of(&content, &plan.needles, 100).text,
            })
        })
        .map_err(sql(index_path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(index_path))?;
    Ok((total, hits))
}
