//! The index's schema as migrations, in order: migration `n` takes `user_version` from `n` to
//! `n + 1`, each in its own transaction.

use super::*;

/// The schema's migrations: migration `n` takes `user_version` from `n` to `n + 1`.
pub(super) const MIGRATIONS: &[&str] = &[
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
    // 9: every word the messages' full-text index holds, so a prefix is looked for as the
    // words it begins (FTS5 merges every such word's list before it can give the newest
    // match). Made empty here (filling it reads the whole full-text index: not for whatever
    // command opens the index first, the status line included); the next mirror pass fills it
    // from the index's own vocabulary and marks it whole, then each pass keeps it. Until then
    // a prefix is FTS5's.
    "
    CREATE TABLE vocabulary (term TEXT PRIMARY KEY) WITHOUT ROWID;
    ",
    // 10: whether that list is whole yet (an index that took 9 from a build that filled the
    // list while migrating is filled again, harmlessly, by its next pass).
    "
    CREATE TABLE vocabulary_state (whole INTEGER NOT NULL);
    INSERT INTO vocabulary_state (whole) VALUES (0);
    ",
    // 11: the counted responses by time, so a window's or a budget period's responses are
    // read without a pass over every row (only the rows that count: a copy is never asked
    // for by time).
    "
    CREATE INDEX usage_by_time ON usage (at) WHERE counted = 1;
    ",
    // 12: whether a response was served fast and how many web searches it ran (each priced
    // apart), in the rows and the tallies. Claude Code's sources are read again once so their
    // rows hold them (the tallies are made again from the rows: their rules' version moved).
    "
    ALTER TABLE usage ADD COLUMN fast INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE usage ADD COLUMN web_searches INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE usage_slots ADD COLUMN web_searches INTEGER NOT NULL DEFAULT 0;
    UPDATE sources SET mtime_ns = -1, tail_hash = 0
        WHERE missing = 0 AND provider = 'claude_code';
    ",
    // 13: a sub-agent's responses told from the session's own: Claude Code's sidechains were
    // marked already (`sidechain`); a Codex sub-agent's rollout is now marked the same way and
    // counted under its parent's session, so Codex's sources are read again once (and the
    // tallies split by it: their rules' version moved).
    "
    UPDATE sources SET mtime_ns = -1, tail_hash = 0
        WHERE missing = 0 AND provider = 'codex';
    ",
    // 14: the requests agents reported over OpenTelemetry (`baton otel serve`), one row per
    // reported request, named by its key so a report sent twice is one row.
    "
    CREATE TABLE telemetry (
        key TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        session_id TEXT,
        prompt_id TEXT,
        request_id TEXT,
        model TEXT,
        at INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_creation_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cost_usd REAL,
        duration_ms INTEGER,
        received_at INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX telemetry_by_time ON telemetry (at);
    CREATE INDEX telemetry_by_request ON telemetry (request_id) WHERE request_id IS NOT NULL;
    ",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: usize = MIGRATIONS.len();

/// Applies the migrations this index lacks, each with its version bump in one transaction;
/// an index newer than this build is refused rather than misread.
pub(super) fn migrate(connection: &Connection, path: &Path) -> Result<(), Error> {
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
