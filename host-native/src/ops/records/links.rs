//! Which record a reference names (an id prefix, a mirrored conversation), and what a record
//! and a work session are linked to.

use super::*;

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
pub(super) fn mirrored_ids(
    connection: &Connection,
    prefix: &str,
) -> rusqlite::Result<Vec<uuid::Uuid>> {
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
    let work_session = match record.about.work_session {
        Some(id) => snapshot.session(id)?.map(|s| LinkedSession {
            session_id: s.session_id.to_string(),
            project: s.project,
            agent: s.agent,
            status: s.status.as_str().to_owned(),
        }),
        None => None,
    };
    let mirrored = match &record.about.provider_session_id {
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
                record.about.provider_session_id,
                record.about.work_session.map(|s| s.to_string()),
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
        .filter_map(|r| r.about.provider_session_id.as_deref())
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
