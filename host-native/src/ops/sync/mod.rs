//! Replication of this machine's ledger into a team's PostgreSQL (`baton sync --to URL`): a
//! stable machine id kept in `.baton/machine-id`, every event keyed by (machine, event id) so
//! a re-run, a crash mid-sync or two syncs at once never duplicate or lose a row, and a byte
//! cursor per machine and file (with the file's identity) so a sync reads only what is new.

pub mod budget;
pub mod connect;
pub mod schema;
pub mod team;
pub mod usage;

use connect::pg_error;
pub use connect::redacted;
pub use usage::UsageSent;

use crate::store::Ledger;
use baton_core::ledger::compaction::{ArchiveLine, decode_archive_line};
use baton_core::ledger::event::{Event, Line};
use baton_core::{Error, ErrorCode};
use serde::Serialize;
use std::path::Path;

/// Rows sent per statement.
const BATCH: usize = 1_000;

/// The most of one file read per transaction (a longer line is read whole all the same);
/// `BATON_SYNC_CHUNK_BYTES` makes it smaller, for tests.
fn chunk_bytes() -> u64 {
    crate::os::env::var("BATON_SYNC_CHUNK_BYTES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(16 << 20)
}

/// What one sync did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// This machine's id.
    pub machine: String,
    /// The schema version the server is at.
    pub schema_version: usize,
    /// Ledger files looked at.
    pub files: usize,
    /// Events read past the cursors.
    pub read: u64,
    /// Rows the server did not have.
    pub inserted: u64,
    /// Usage rows from the mirror, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSent>,
}

/// What a sync sends besides the ledger's events.
#[derive(Debug, Clone, Copy, Default)]
pub struct SyncOptions {
    /// The mirror's usage rows (tokens, models, costs, projects; never message text).
    pub usage: bool,
}

/// This machine's id: made once (a UUIDv7), kept in `.baton/machine-id`. Two processes making
/// it at once agree (the first file written wins).
pub fn machine_id(ledger: &Ledger) -> Result<uuid::Uuid, Error> {
    let path = ledger.dir().join("machine-id");
    let read = |path: &Path| -> Result<uuid::Uuid, Error> {
        let text = crate::os::files::read_regular_text(path, 4096)?;
        uuid::Uuid::parse_str(text.trim()).map_err(|_| {
            Error::invalid(
                "machine-id",
                format!(
                    "{} does not hold a UUID: remove it and sync again",
                    path.display()
                ),
            )
        })
    };
    if path.exists() {
        return read(&path);
    }
    std::fs::create_dir_all(ledger.dir())
        .map_err(|e| crate::store::io_err("create", ledger.dir(), e))?;
    let fresh = crate::os::system::new_uuid();
    let temp = ledger
        .dir()
        .join(format!(".machine-id.tmp-{}", fresh.simple()));
    std::fs::write(&temp, format!("{fresh}\n"))
        .map_err(|e| crate::store::io_err("write", &temp, e))?;
    // A hard link appears whole or not at all, and never replaces another's: two processes
    // making the id at once agree on the first.
    let linked = std::fs::hard_link(&temp, &path);
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(fresh),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => read(&path),
        Err(e) => Err(crate::store::io_err("link", &path, e)),
    }
}

/// The name this machine goes by in team views: `BATON_MACHINE_NAME`, else its host name.
fn machine_name() -> String {
    crate::os::env::var("BATON_MACHINE_NAME")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(crate::os::system::host_name)
}

/// Sends what is new in the ledger (and, asked, in the mirror's usage) to the server at `url`.
pub fn sync(ledger: &Ledger, url: &str, options: SyncOptions) -> Result<SyncReport, Error> {
    let machine = machine_id(ledger)?;
    connect::block_on(async {
        let mut client = connect::connect(url).await?;
        let schema_version = schema::migrate(&mut client).await?;
        sync_with(&mut client, ledger, machine, schema_version, options).await
    })
}

/// Syncs over an open connection whose schema is at `schema_version`: the machine
/// registered, then every file of the history from its cursor.
pub async fn sync_with(
    client: &mut tokio_postgres::Client,
    ledger: &Ledger,
    machine: uuid::Uuid,
    schema_version: usize,
    options: SyncOptions,
) -> Result<SyncReport, Error> {
    client
        .execute(
            "INSERT INTO baton_machines (machine, name) VALUES ($1, $2)
             ON CONFLICT (machine) DO UPDATE SET last_sync = now(), name = excluded.name",
            &[&machine, &machine_name()],
        )
        .await
        .map_err(|e| registration_error(machine, e))?;
    let files = ledger.history_files()?;
    let mut report = SyncReport {
        machine: machine.to_string(),
        schema_version,
        files: files.len(),
        ..SyncReport::default()
    };
    for path in &files {
        sync_file(client, ledger, machine, path, &mut report).await?;
    }
    if options.usage {
        report.usage = Some(usage::sync_usage(client, ledger, machine).await?);
    }
    Ok(report)
}

/// A machine id another role registered: said plainly (row security refused it).
fn registration_error(machine: uuid::Uuid, e: tokio_postgres::Error) -> Error {
    let refused = e
        .as_db_error()
        .is_some_and(|db| db.code() == &tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE);
    if refused {
        return Error::new(
            ErrorCode::PermissionDenied,
            format!(
                "the machine {machine} is registered to another PostgreSQL role: each machine syncs as the role that first synced it"
            ),
        )
        .with("machine", machine.to_string());
    }
    pg_error("register the machine", e)
}

/// One event as a row.
struct Row {
    id: uuid::Uuid,
    session: uuid::Uuid,
    kind: String,
    at: chrono::DateTime<chrono::Utc>,
    line: String,
}

impl Row {
    fn of(event: &Event, line: String) -> Row {
        Row {
            id: event.id.0,
            session: event.session.0,
            kind: event.payload.kind().to_owned(),
            at: chrono::DateTime::from_timestamp_millis(event.at.millis()).unwrap_or_default(),
            line,
        }
    }
}

/// The events of complete lines: plain event lines as written, and the members of an
/// archive's rollups.
fn rows_of(bytes: &[u8]) -> Result<Vec<Row>, Error> {
    let mut rows = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        match decode_archive_line(line) {
            ArchiveLine::Plain(Line::Event(event)) => {
                rows.push(Row::of(&event, String::from_utf8_lossy(line).into_owned()));
            }
            ArchiveLine::Rollup { events, .. } => {
                for event in &events {
                    rows.push(Row::of(event, event.encode()?));
                }
            }
            ArchiveLine::Plain(_) => {}
        }
    }
    Ok(rows)
}

/// Sends one file from its cursor, a chunk per transaction. The cursor row is locked for the
/// transaction: two syncs of one machine take turns, and each sends only what the other has
/// not. A file with another identity than the cursor's (compaction rewrote it) or shorter than
/// it is read again from the start; the keys keep the rows single.
async fn sync_file(
    client: &mut tokio_postgres::Client,
    ledger: &Ledger,
    machine: uuid::Uuid,
    path: &Path,
    report: &mut SyncReport,
) -> Result<(), Error> {
    let name = path
        .strip_prefix(ledger.dir())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    let mut chunk = chunk_bytes();
    loop {
        let tx = client
            .transaction()
            .await
            .map_err(|e| pg_error("begin", e))?;
        tx.execute(
            "INSERT INTO baton_sync_cursors (machine, file, bytes) VALUES ($1, $2, 0)
             ON CONFLICT DO NOTHING",
            &[&machine, &name],
        )
        .await
        .map_err(|e| pg_error("make the cursor", e))?;
        let row = tx
            .query_one(
                "SELECT bytes, identity FROM baton_sync_cursors
                 WHERE machine = $1 AND file = $2 FOR UPDATE",
                &[&machine, &name],
            )
            .await
            .map_err(|e| pg_error("read the cursor", e))?;
        let cursor = u64::try_from(row.get::<_, i64>(0)).unwrap_or(0);
        let identity: String = row.get(1);
        // The byte before a cursor is the end of a line: read from there, and a file that is
        // not the one the cursor was left in (another identity, shorter, or no line ending
        // there) is read from the start.
        let mut start = cursor;
        let mut tail = ledger.read_history_tail(path, cursor.saturating_sub(1), chunk + 1)?;
        let continues = tail.identity == identity
            && tail.len >= cursor
            && (cursor == 0 || tail.bytes.first() == Some(&b'\n'));
        if continues && cursor > 0 {
            tail.bytes.remove(0);
        } else if !continues {
            start = 0;
            tail = ledger.read_history_tail(path, 0, chunk)?;
        }
        let whole_len = crate::os::files::whole_lines_len(&tail.bytes);
        let Some(last_newline) = whole_len.checked_sub(1) else {
            // Nothing whole past the cursor: done, unless one line is longer than a chunk.
            let more = start + (tail.bytes.len() as u64) < tail.len;
            if more && !tail.bytes.is_empty() {
                chunk = chunk.saturating_mul(2);
                continue;
            }
            // A rewritten file still needs its new identity recorded.
            if tail.identity != identity {
                tx.execute(
                    "UPDATE baton_sync_cursors SET bytes = $3, identity = $4
                     WHERE machine = $1 AND file = $2",
                    &[
                        &machine,
                        &name,
                        &i64::try_from(start).unwrap_or(0),
                        &tail.identity,
                    ],
                )
                .await
                .map_err(|e| pg_error("move the cursor", e))?;
            }
            tx.commit().await.map_err(|e| pg_error("commit", e))?;
            return Ok(());
        };
        let whole = &tail.bytes[..=last_newline];
        let rows = rows_of(whole)?;
        report.read += rows.len() as u64;
        for batch in rows.chunks(BATCH) {
            report.inserted += insert_batch(&tx, machine, batch).await?;
        }
        let end = start + whole.len() as u64;
        tx.execute(
            "UPDATE baton_sync_cursors SET bytes = $3, identity = $4
             WHERE machine = $1 AND file = $2",
            &[
                &machine,
                &name,
                &i64::try_from(end).unwrap_or(i64::MAX),
                &tail.identity,
            ],
        )
        .await
        .map_err(|e| pg_error("move the cursor", e))?;
        tx.commit().await.map_err(|e| pg_error("commit", e))?;
        chunk = chunk_bytes();
        if end >= tail.len {
            return Ok(());
        }
    }
}

/// Inserts one batch of rows (those already there are skipped) and marks the sessions this
/// machine has seen, ended or not. Returns the rows that were new.
async fn insert_batch(
    tx: &tokio_postgres::Transaction<'_>,
    machine: uuid::Uuid,
    batch: &[Row],
) -> Result<u64, Error> {
    let ids: Vec<uuid::Uuid> = batch.iter().map(|r| r.id).collect();
    let sessions: Vec<uuid::Uuid> = batch.iter().map(|r| r.session).collect();
    let kinds: Vec<&str> = batch.iter().map(|r| r.kind.as_str()).collect();
    let ats: Vec<chrono::DateTime<chrono::Utc>> = batch.iter().map(|r| r.at).collect();
    let lines: Vec<&str> = batch.iter().map(|r| r.line.as_str()).collect();
    let inserted = tx
        .execute(
            "INSERT INTO baton_events (machine, event_id, session, kind, at, line)
             SELECT $1, * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[])
             ON CONFLICT DO NOTHING",
            &[&machine, &ids, &sessions, &kinds, &ats, &lines],
        )
        .await
        .map_err(|e| pg_error("insert events", e))?;
    let ended: Vec<bool> = batch.iter().map(|r| r.kind == "ended").collect();
    tx.execute(
        "INSERT INTO baton_machine_sessions (machine, session, ended)
         SELECT $1, session, bool_or(ended) FROM unnest($2::uuid[], $3::bool[]) AS t(session, ended)
         GROUP BY session
         ON CONFLICT (machine, session) DO UPDATE SET ended = true
         WHERE excluded.ended AND NOT baton_machine_sessions.ended",
        &[&machine, &sessions, &ended],
    )
    .await
    .map_err(|e| pg_error("mark the sessions", e))?;
    Ok(inserted)
}

/// Syncs now and again as the ledger grows, until stopped: a server that cannot be reached is
/// said once per outage on stderr and tried again; `each` hears every sync that sent rows.
pub fn follow(
    ledger: &Ledger,
    url: &str,
    options: SyncOptions,
    every: std::time::Duration,
    each: &mut dyn FnMut(&SyncReport) -> bool,
) -> Result<(), Error> {
    use notify::{RecursiveMode, Watcher};
    let machine = machine_id(ledger)?;
    let (sender, events) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(sender).ok();
    if let Some(watcher) = watcher.as_mut() {
        let _ = std::fs::create_dir_all(ledger.dir());
        let _ = watcher.watch(ledger.dir(), RecursiveMode::Recursive);
    }
    connect::block_on(async {
        // The schema is brought up to date once per connection, not every round.
        let mut client: Option<(tokio_postgres::Client, usize)> = None;
        let mut down_since: Option<String> = None;
        loop {
            if client.as_ref().is_none_or(|(c, _)| c.is_closed()) {
                client = match connect::connect(url).await {
                    Ok(mut c) => match schema::migrate(&mut c).await {
                        Ok(version) => Some((c, version)),
                        Err(err) if err.code == ErrorCode::StoreIo => {
                            outage(&mut down_since, &err);
                            None
                        }
                        Err(err) => return Err(err),
                    },
                    Err(err) => {
                        outage(&mut down_since, &err);
                        None
                    }
                };
            }
            if let Some((open, version)) = client.as_mut() {
                match sync_with(open, ledger, machine, *version, options).await {
                    Ok(report) => {
                        if down_since.take().is_some() {
                            crate::os::warnings::warn("the server answers again; caught up");
                        }
                        if !each(&report) {
                            return Ok(());
                        }
                    }
                    Err(err) if err.code == ErrorCode::StoreIo => {
                        outage(&mut down_since, &err);
                        client = None;
                    }
                    Err(err) => return Err(err),
                }
            }
            // Sleep until the ledger changes or `every` passes.
            let deadline = std::time::Instant::now() + every;
            loop {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    break;
                }
                match events.try_recv() {
                    Ok(Ok(event)) if touches_history(&event) => break,
                    Ok(_) => continue,
                    Err(_) => {
                        tokio::time::sleep(left.min(std::time::Duration::from_millis(100))).await
                    }
                }
            }
            while events.try_recv().is_ok() {}
        }
    })
}

/// Says once per outage that the server is out of reach.
fn outage(down_since: &mut Option<String>, err: &Error) {
    if down_since.is_none() {
        crate::os::warnings::warn(&format!(
            "{}; local commands go on, and the sync catches up when the server answers",
            err.message
        ));
        *down_since = Some(err.message.clone());
    }
}

/// Whether a notification is about the history (not the checkpoint, locks or the index).
fn touches_history(event: &notify::Event) -> bool {
    event.paths.iter().any(|path| {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        name.ends_with(".ndjson")
    })
}
