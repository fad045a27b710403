//! Replication of this machine's ledger into PostgreSQL (`baton sync --to URL`): a stable
//! machine id kept in `.baton/machine-id`, a versioned schema, every event keyed by
//! (machine, event id) so a re-run, a crash mid-sync or two syncs at once never duplicate or
//! lose a row, and a byte cursor per machine and file so a sync reads only what is new.

use crate::store::Ledger;
use baton_core::ledger::event::{Line, decode_line};
use baton_core::{Error, ErrorCode};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The schema this build writes; each step is applied once, in order, under a lock.
const MIGRATIONS: &[&str] = &[
    // 1: machines, events, cursors.
    "CREATE TABLE baton_machines (
         machine uuid PRIMARY KEY,
         first_sync timestamptz NOT NULL DEFAULT now(),
         last_sync timestamptz NOT NULL DEFAULT now());
     CREATE TABLE baton_events (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         event_id uuid NOT NULL,
         session uuid NOT NULL,
         kind text NOT NULL,
         at timestamptz NOT NULL,
         line text NOT NULL,
         PRIMARY KEY (machine, event_id));
     CREATE INDEX baton_events_session ON baton_events (session, at);
     CREATE TABLE baton_sync_cursors (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         file text NOT NULL,
         bytes bigint NOT NULL,
         PRIMARY KEY (machine, file));",
];

/// Rows sent per statement.
const BATCH: usize = 1_000;

/// What one sync did.
#[derive(Debug, Clone, Serialize)]
pub struct SyncReport {
    /// This machine's id.
    pub machine: String,
    /// The schema version the server is at.
    pub schema_version: usize,
    /// Ledger files looked at.
    pub files: usize,
    /// Event lines read past the cursors.
    pub read: u64,
    /// Rows the server did not have.
    pub inserted: u64,
}

/// This machine's id: made once (a UUIDv7), kept in `.baton/machine-id`. Two processes making
/// it at once agree (the first file written wins).
pub fn machine_id(ledger: &Ledger) -> Result<uuid::Uuid, Error> {
    let path = ledger.dir().join("machine-id");
    let read = |path: &Path| -> Result<uuid::Uuid, Error> {
        let text =
            std::fs::read_to_string(path).map_err(|e| crate::store::io_err("read", path, e))?;
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
    let fresh = crate::system::new_uuid();
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

fn sync_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::new(ErrorCode::StoreIo, format!("sync: {what}: {e}")).with("operation", what)
}

/// A client error with the server's own words (tokio-postgres prints only "db error").
fn pg_error(what: &str, e: tokio_postgres::Error) -> Error {
    let mut text = e.to_string();
    if let Some(db) = e.as_db_error() {
        text = format!("{} ({})", db.message(), db.code().code());
    } else if let Some(source) = std::error::Error::source(&e) {
        text = format!("{text}: {source}");
    }
    sync_error(what, text)
}

/// The `url` under `[sync]` in the ledger's `config.toml`, if any.
pub fn configured_url(dir: &Path) -> Result<Option<String>, Error> {
    let path = dir.join("config.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e| Error::invalid("config.toml", format!("{}: {e}", path.display())))?;
    Ok(table
        .get("sync")
        .and_then(|s| s.get("url"))
        .and_then(|u| u.as_str())
        .map(str::to_owned))
}

/// The URL without its password, for messages.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            let user = credentials.split(':').next().unwrap_or("");
            format!("{}{user}@{}", &url[..scheme + 3], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Brings the server's schema to this build's version; returns it.
async fn migrate(client: &mut tokio_postgres::Client) -> Result<usize, Error> {
    let tx = client
        .transaction()
        .await
        .map_err(|e| pg_error("begin", e))?;
    // One migrator at a time, whichever machine it runs on.
    tx.execute("SELECT pg_advisory_xact_lock(7447118801)", &[])
        .await
        .map_err(|e| pg_error("lock the schema", e))?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS baton_schema (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now())",
    )
    .await
    .map_err(|e| pg_error("create baton_schema", e))?;
    let row = tx
        .query_one("SELECT coalesce(max(version), 0) FROM baton_schema", &[])
        .await
        .map_err(|e| pg_error("read the schema version", e))?;
    let current = usize::try_from(row.get::<_, i32>(0)).unwrap_or(0);
    if current > MIGRATIONS.len() {
        return Err(Error::new(
            ErrorCode::FormatTooNew,
            format!(
                "the server's Baton schema is version {current}; this build knows {}: update Baton",
                MIGRATIONS.len()
            ),
        ));
    }
    for (index, step) in MIGRATIONS.iter().enumerate().skip(current) {
        tx.batch_execute(step)
            .await
            .map_err(|e| pg_error(&format!("apply schema version {}", index + 1), e))?;
        tx.execute(
            "INSERT INTO baton_schema (version) VALUES ($1)",
            &[&i32::try_from(index + 1).unwrap_or(i32::MAX)],
        )
        .await
        .map_err(|e| pg_error("record the schema version", e))?;
    }
    tx.commit()
        .await
        .map_err(|e| pg_error("commit the schema", e))?;
    Ok(MIGRATIONS.len())
}

/// Sends what is new in the ledger to the server at `url`.
pub fn sync(ledger: &Ledger, url: &str) -> Result<SyncReport, Error> {
    let machine = machine_id(ledger)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| sync_error("start the runtime", e))?;
    runtime.block_on(sync_async(ledger, url, machine))
}

/// The connection settings of `url`, its password (when it has none) from `PGPASSWORD` or
/// the first matching line of `~/.pgpass` (or `PGPASSFILE`), as libpq finds it.
fn connection_config(url: &str) -> Result<tokio_postgres::Config, Error> {
    let mut config: tokio_postgres::Config = url
        .parse()
        .map_err(|e| Error::invalid("to", format!("{}: {e}", redacted(url))))?;
    if config.get_password().is_none() {
        let password = std::env::var("PGPASSWORD").ok().or_else(|| {
            let file = std::env::var_os("PGPASSFILE")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".pgpass")))?;
            let text = std::fs::read_to_string(file).ok()?;
            let host = match config.get_hosts().first() {
                Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
                _ => "localhost".to_owned(),
            };
            let port = config
                .get_ports()
                .first()
                .copied()
                .unwrap_or(5432)
                .to_string();
            pgpass_lookup(
                &text,
                [
                    host.as_str(),
                    port.as_str(),
                    config
                        .get_dbname()
                        .unwrap_or(config.get_user().unwrap_or("")),
                    config.get_user().unwrap_or(""),
                ],
            )
        });
        if let Some(password) = password {
            config.password(password);
        }
    }
    Ok(config)
}

/// The password of the first `~/.pgpass` line matching host, port, database and user (`*`
/// matches anything; `\:` and `\\` are a colon and a backslash).
fn pgpass_lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    for line in text.lines() {
        if line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => field.extend(chars.next()),
                ':' if fields.len() < 4 => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        if fields.len() == 5
            && fields[..4]
                .iter()
                .zip(wanted)
                .all(|(have, want)| have == "*" || have == want)
        {
            return fields.pop();
        }
    }
    None
}

async fn sync_async(ledger: &Ledger, url: &str, machine: uuid::Uuid) -> Result<SyncReport, Error> {
    let config = connection_config(url)?;
    let (mut client, connection) = config
        .connect(tokio_postgres::NoTls)
        .await
        .map_err(|e| pg_error(&format!("connect to {}", redacted(url)), e))?;
    let connection = tokio::spawn(connection);
    let schema_version = migrate(&mut client).await?;
    client
        .execute(
            "INSERT INTO baton_machines (machine) VALUES ($1)
             ON CONFLICT (machine) DO UPDATE SET last_sync = now()",
            &[&machine],
        )
        .await
        .map_err(|e| pg_error("register the machine", e))?;
    let files = ledger.history_files()?;
    let mut report = SyncReport {
        machine: machine.to_string(),
        schema_version,
        files: files.len(),
        read: 0,
        inserted: 0,
    };
    for path in &files {
        let name = path
            .strip_prefix(ledger.dir())
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        let bytes = ledger.read_history_file(path)?;
        let tx = client
            .transaction()
            .await
            .map_err(|e| pg_error("begin", e))?;
        // The cursor row is locked for the file's transaction: two syncs of one machine take
        // turns per file, and each sends only what the other has not.
        tx.execute(
            "INSERT INTO baton_sync_cursors (machine, file, bytes) VALUES ($1, $2, 0)
             ON CONFLICT DO NOTHING",
            &[&machine, &name],
        )
        .await
        .map_err(|e| pg_error("make the cursor", e))?;
        let row = tx
            .query_one(
                "SELECT bytes FROM baton_sync_cursors WHERE machine = $1 AND file = $2 FOR UPDATE",
                &[&machine, &name],
            )
            .await
            .map_err(|e| pg_error("read the cursor", e))?;
        let cursor = usize::try_from(row.get::<_, i64>(0)).unwrap_or(0);
        // A file shorter than its cursor was rewritten (compaction): read it again whole; the
        // keys keep the rows single.
        let start = if cursor <= bytes.len() { cursor } else { 0 };
        let end = bytes[start..]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(start, |i| start + i + 1);
        let mut batch: Vec<(
            uuid::Uuid,
            uuid::Uuid,
            String,
            chrono::DateTime<chrono::Utc>,
            String,
        )> = Vec::new();
        for line in bytes[start..end].split(|&b| b == b'\n') {
            if let Line::Event(event) = decode_line(line) {
                let at =
                    chrono::DateTime::from_timestamp_millis(event.at.millis()).unwrap_or_default();
                batch.push((
                    event.id.0,
                    event.session.0,
                    event.payload.kind().to_owned(),
                    at,
                    String::from_utf8_lossy(line).into_owned(),
                ));
            }
        }
        report.read += batch.len() as u64;
        for chunk in batch.chunks(BATCH) {
            let ids: Vec<uuid::Uuid> = chunk.iter().map(|r| r.0).collect();
            let sessions: Vec<uuid::Uuid> = chunk.iter().map(|r| r.1).collect();
            let kinds: Vec<&str> = chunk.iter().map(|r| r.2.as_str()).collect();
            let ats: Vec<chrono::DateTime<chrono::Utc>> = chunk.iter().map(|r| r.3).collect();
            let lines: Vec<&str> = chunk.iter().map(|r| r.4.as_str()).collect();
            let inserted = tx
                .execute(
                    "INSERT INTO baton_events (machine, event_id, session, kind, at, line)
                     SELECT $1, * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[])
                     ON CONFLICT DO NOTHING",
                    &[&machine, &ids, &sessions, &kinds, &ats, &lines],
                )
                .await
                .map_err(|e| pg_error("insert events", e))?;
            report.inserted += inserted;
        }
        tx.execute(
            "UPDATE baton_sync_cursors SET bytes = $3 WHERE machine = $1 AND file = $2",
            &[&machine, &name, &i64::try_from(end).unwrap_or(i64::MAX)],
        )
        .await
        .map_err(|e| pg_error("move the cursor", e))?;
        tx.commit().await.map_err(|e| pg_error("commit", e))?;
    }
    drop(client);
    let _ = connection.await;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgpass_lines_match_as_libpq_reads_them() {
        let text = "# comment\n\
                    db.internal:5432:baton:reader:read-only\n\
                    db.internal:*:*:laptop:pa\\:ss\\\\word\n\
                    *:*:*:*:fallback\n";
        let find = |host, port, db, user| pgpass_lookup(text, [host, port, db, user]);
        assert_eq!(
            find("db.internal", "5432", "baton", "reader").as_deref(),
            Some("read-only")
        );
        assert_eq!(
            find("db.internal", "6543", "team", "laptop").as_deref(),
            Some("pa:ss\\word")
        );
        assert_eq!(
            find("other", "5432", "baton", "reader").as_deref(),
            Some("fallback")
        );
        assert_eq!(pgpass_lookup("short:line\n", ["a", "b", "c", "d"]), None);
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        assert_eq!(redacted("postgres://me:secret@db/x"), "postgres://me@db/x");
        assert_eq!(redacted("postgres://db/x"), "postgres://db/x");
    }
}
