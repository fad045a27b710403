//! The team schema in PostgreSQL: its versioned migrations, applied once each, in order, under
//! an advisory lock, and the row security that lets a machine's role write only its own rows.

use super::connect::pg_error;
use baton_core::{Error, ErrorCode};

/// The schema this build writes; each step is applied once, in order, under a lock.
///
/// Row security: a machine belongs to the role that first registered it (`owner`). A role
/// that does not own the tables writes only rows of machines it owns, and can change or
/// remove none of the events. The policies name `baton_machines` themselves (bound when they
/// are made), so no object a role makes in its own search path stands in for it. An event id
/// is stored once whichever machine sends it first, so no machine can add a second version of
/// another's event. The tables' owner (the one who set the schema up) is not bound by the
/// policies, so a one-role setup works unchanged.
pub const MIGRATIONS: &[&str] = &[
    // 1: machines, events, the sessions each machine has seen, cursors, row security.
    "CREATE TABLE baton_machines (
         machine uuid PRIMARY KEY,
         name text NOT NULL DEFAULT '',
         owner name NOT NULL DEFAULT current_user,
         first_sync timestamptz NOT NULL DEFAULT now(),
         last_sync timestamptz NOT NULL DEFAULT now());
     CREATE TABLE baton_events (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         event_id uuid NOT NULL,
         session uuid NOT NULL,
         kind text NOT NULL,
         at timestamptz NOT NULL,
         line text NOT NULL,
         PRIMARY KEY (machine, event_id),
         UNIQUE (event_id));
     CREATE INDEX baton_events_session ON baton_events (session, at);
     CREATE TABLE baton_machine_sessions (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         session uuid NOT NULL,
         ended boolean NOT NULL,
         PRIMARY KEY (machine, session));
     CREATE INDEX baton_machine_sessions_open ON baton_machine_sessions (session) WHERE NOT ended;
     CREATE INDEX baton_machine_sessions_session ON baton_machine_sessions (session, ended);
     CREATE TABLE baton_sync_cursors (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         file text NOT NULL,
         identity text NOT NULL DEFAULT '',
         bytes bigint NOT NULL,
         PRIMARY KEY (machine, file));
     ALTER TABLE baton_machines ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_read ON baton_machines FOR SELECT USING (true);
     CREATE POLICY baton_register ON baton_machines FOR INSERT WITH CHECK (owner = current_user);
     CREATE POLICY baton_touch ON baton_machines FOR UPDATE
         USING (owner = current_user) WITH CHECK (owner = current_user);
     ALTER TABLE baton_events ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_read ON baton_events FOR SELECT USING (true);
     CREATE POLICY baton_append ON baton_events FOR INSERT
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_events.machine AND m.owner = current_user));
     ALTER TABLE baton_machine_sessions ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_read ON baton_machine_sessions FOR SELECT USING (true);
     CREATE POLICY baton_append ON baton_machine_sessions FOR INSERT
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_machine_sessions.machine AND m.owner = current_user));
     CREATE POLICY baton_end ON baton_machine_sessions FOR UPDATE
         USING (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_machine_sessions.machine AND m.owner = current_user))
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_machine_sessions.machine AND m.owner = current_user));
     ALTER TABLE baton_sync_cursors ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_own ON baton_sync_cursors FOR ALL
         USING (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_sync_cursors.machine AND m.owner = current_user))
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_sync_cursors.machine AND m.owner = current_user));",
    // 2: usage rows from the mirror (tokens and recorded costs; never message text).
    "CREATE TABLE baton_usage (
         machine uuid NOT NULL REFERENCES baton_machines(machine),
         key text NOT NULL,
         provider text NOT NULL,
         provider_session text NOT NULL,
         at timestamptz NOT NULL,
         project text,
         model text,
         input_tokens bigint NOT NULL,
         output_tokens bigint NOT NULL,
         cache_creation_tokens bigint NOT NULL,
         cache_read_tokens bigint NOT NULL,
         reasoning_tokens bigint NOT NULL,
         cache_creation_1h_tokens bigint NOT NULL,
         request_context_tokens bigint,
         recorded_cost_micro_usd bigint,
         PRIMARY KEY (machine, key));
     CREATE INDEX baton_usage_at ON baton_usage (at);
     CREATE INDEX baton_usage_machine_at ON baton_usage (machine, at);
     ALTER TABLE baton_usage ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_read ON baton_usage FOR SELECT USING (true);
     CREATE POLICY baton_append ON baton_usage FOR INSERT
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_usage.machine AND m.owner = current_user));
     CREATE POLICY baton_correct ON baton_usage FOR UPDATE
         USING (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_usage.machine AND m.owner = current_user))
         WITH CHECK (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_usage.machine AND m.owner = current_user));
     CREATE POLICY baton_forget ON baton_usage FOR DELETE
         USING (EXISTS (SELECT 1 FROM baton_machines m WHERE m.machine = baton_usage.machine AND m.owner = current_user));",
    // 3: whether a response was served fast, and its web searches (both priced apart).
    "ALTER TABLE baton_usage ADD COLUMN fast boolean NOT NULL DEFAULT false;
     ALTER TABLE baton_usage ADD COLUMN web_searches bigint NOT NULL DEFAULT 0;",
    // 4: the team budget (one row per team; '' is the database's one team). Everyone reads
    // it; only the schema's owner (or a role given a policy to) writes it: a machine's role,
    // and so an agent on that machine, cannot raise it.
    "CREATE TABLE baton_budget (
         team text PRIMARY KEY DEFAULT '',
         policy text NOT NULL,
         set_by name NOT NULL DEFAULT current_user,
         set_at timestamptz NOT NULL DEFAULT now());
     ALTER TABLE baton_budget ENABLE ROW LEVEL SECURITY;
     CREATE POLICY baton_read ON baton_budget FOR SELECT USING (true);",
];

/// Brings the server's schema to this build's version; returns it. A schema already current
/// is only read, so a role without the right to create tables can sync.
pub async fn migrate(client: &mut tokio_postgres::Client) -> Result<usize, Error> {
    if let Some(version) = current_version(client).await?
        && version == MIGRATIONS.len()
    {
        return Ok(version);
    }
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
    .map_err(|e| schema_error("create baton_schema", e))?;
    let current = stored_version(&tx).await?;
    for (index, step) in MIGRATIONS.iter().enumerate().skip(current) {
        tx.batch_execute(step)
            .await
            .map_err(|e| schema_error(&format!("apply schema version {}", index + 1), e))?;
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

/// The schema version a server holds, or `None` when it has no Baton schema yet.
pub async fn current_version(client: &tokio_postgres::Client) -> Result<Option<usize>, Error> {
    let row = client
        .query_one("SELECT to_regclass('baton_schema') IS NOT NULL", &[])
        .await
        .map_err(|e| pg_error("look for the schema", e))?;
    if !row.get::<_, bool>(0) {
        return Ok(None);
    }
    stored_version(client).await.map(Some)
}

/// The version `baton_schema` records, refused when newer than this build knows.
async fn stored_version(client: &impl tokio_postgres::GenericClient) -> Result<usize, Error> {
    let row = client
        .query_one("SELECT coalesce(max(version), 0) FROM baton_schema", &[])
        .await
        .map_err(|e| pg_error("read the schema version", e))?;
    let version = usize::try_from(row.get::<_, i32>(0)).unwrap_or(0);
    check_not_newer(version)?;
    Ok(version)
}

/// Reading a schema needs it to be one this build knows.
pub async fn require_current(client: &tokio_postgres::Client) -> Result<usize, Error> {
    match current_version(client).await? {
        Some(version) if version == MIGRATIONS.len() => Ok(version),
        found => Err(Error::new(
            ErrorCode::StoreIo,
            format!(
                "the server has {}; this build reads version {}: run `baton sync` (or `baton team init`) as the schema's owner",
                found.map_or_else(
                    || "no Baton schema".to_owned(),
                    |v| format!("Baton schema version {v}")
                ),
                MIGRATIONS.len()
            ),
        )
        .with("operation", "read the schema version")),
    }
}

fn check_not_newer(version: usize) -> Result<(), Error> {
    if version > MIGRATIONS.len() {
        return Err(Error::new(
            ErrorCode::FormatTooNew,
            format!(
                "the server's Baton schema is version {version}; this build knows {}: update Baton",
                MIGRATIONS.len()
            ),
        ));
    }
    Ok(())
}

/// A migration refused for want of rights says who can apply it.
fn schema_error(what: &str, e: tokio_postgres::Error) -> Error {
    let denied = e
        .as_db_error()
        .is_some_and(|db| db.code() == &tokio_postgres::error::SqlState::INSUFFICIENT_PRIVILEGE);
    let err = pg_error(what, e);
    if denied {
        let message = format!(
            "{}: this role may not change the schema; run `baton team init` once as the role that owns it",
            err.message
        );
        return Error::new(err.code, message).with("operation", what);
    }
    err
}
