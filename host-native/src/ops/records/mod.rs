//! Stored records on this machine: their content blobs under `.baton/blobs/`, the ledger
//! event that stores each (the truth), and their rows in the index (a cache for querying,
//! brought up to date from the ledger before each use, so deleting the index loses nothing).

use crate::ops::engine::Acting;
use crate::ops::mirror::query::{Include, Listing, ListingQuery};
use crate::store::{Ledger, Snapshot};
use baton_core::Error;
use baton_core::ids::{RECORDS_STREAM, SessionId};
use baton_core::ledger::event::Actor;
use baton_core::ledger::record::BlobRef;
use baton_core::ledger::store::LedgerView;
use baton_core::records::{
    IdQuery, Kind, Record, StoreRequest, StoredRecord, plan_store, stored_records,
};
use baton_core::transcripts::search::searchable_text;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use std::path::{Path, PathBuf};

mod blobs;
mod links;
mod rows;

pub use blobs::*;
pub use links::*;
pub use rows::*;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| crate::index::failure("use the index", path, e)
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
    record.about.agent_id = acting.caller.agent_name().map(str::to_owned);
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
        let project = project_of(&snapshot, record.about.work_session)?;
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
