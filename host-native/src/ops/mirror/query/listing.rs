//! Conversations and stored records listed together, newest first (`baton transcripts list`
//! and the records' listing), and the conversations around an anchor.

use super::*;

/// A listing over stored records, mirrored conversations or both (`--include`).
#[derive(Debug, Clone)]
pub struct ListingQuery {
    /// Which rows.
    pub include: Include,
    /// How many.
    pub limit: i64,
    /// How many to skip.
    pub offset: i64,
    /// Exactly this provider (a mirrored provider in either spelling, `claude-code` or
    /// `claude_code`).
    pub provider: Option<String>,
    /// Records whose `agent_id` is this (mirrored conversations have none, so none is listed).
    pub agent_id: Option<String>,
    /// Rows whose project contains this (a record's is its work session's).
    pub project: Option<String>,
    /// Rows at or after (ms): a record's creation, a conversation's last message.
    pub since: Option<i64>,
    /// Rows at or before (ms).
    pub until: Option<i64>,
    /// Records of this ledger only (as [`crate::ops::records::ledger_key`] names it): the index is
    /// the user's, shared by every project, and a record is its ledger's.
    pub ledger: String,
}

impl ListingQuery {
    /// The listing of `include`d rows of the ledger `ledger` (see [`Self::ledger`]) that
    /// `filters` pick, `provider` as given: `limit` rows after `offset`, no agent asked for.
    pub fn of(
        include: Include,
        filters: Filters,
        provider: Option<String>,
        ledger: String,
        (limit, offset): (i64, i64),
    ) -> ListingQuery {
        ListingQuery {
            include,
            limit,
            offset,
            provider,
            agent_id: None,
            project: filters.project,
            since: filters.since,
            until: filters.until,
            ledger,
        }
    }
}

/// One row of a listing; `origin` says where it came from.
#[derive(Debug, Clone, Serialize)]
pub struct ListedItem {
    /// `stored` (a record kept on purpose) or `mirrored` (a conversation the mirror keeps).
    pub origin: &'static str,
    /// A record's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A mirrored conversation's number (what `transcripts show` takes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<i64>,
    /// The provider.
    pub provider: Option<String>,
    /// The provider's session id (a conversation's provider id).
    pub provider_session_id: Option<String>,
    /// The title.
    pub title: Option<String>,
    /// The project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// A record's tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The work session a record is attached to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub work_session: Option<String>,
    /// The agent that stored a record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// When the record was stored, or the conversation's first message.
    pub created_at: Option<baton_core::time::Timestamp>,
    /// When the record last changed, or the conversation's last message (the order).
    pub updated_at: Option<baton_core::time::Timestamp>,
    /// A conversation's messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<i64>,
    /// A record's content size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_bytes: Option<i64>,
}

/// A page of a listing and how many rows match in all, and of each origin.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    /// Matching rows in all.
    pub total: i64,
    /// Matching stored records (when listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_total: Option<i64>,
    /// Matching mirrored conversations (when listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mirrored_total: Option<i64>,
    /// This page, newest first.
    pub items: Vec<ListedItem>,
}

/// The conditions a listing puts on records.
fn record_conditions(query: &ListingQuery) -> (Vec<&'static str>, Vec<rusqlite::types::Value>) {
    let mut conditions: Vec<&str> = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    conditions.push("ledger = ?");
    args.push(query.ledger.clone().into());
    if let Some(provider) = &query.provider {
        conditions.push("provider = ?");
        args.push(provider.clone().into());
    }
    if let Some(agent) = &query.agent_id {
        conditions.push("agent_id = ?");
        args.push(agent.clone().into());
    }
    if let Some(project) = &query.project {
        conditions.push("instr(project, ?) > 0");
        args.push(project.clone().into());
    }
    if let Some(since) = query.since {
        conditions.push("created_at >= ?");
        args.push(since.into());
    }
    if let Some(until) = query.until {
        conditions.push("created_at <= ?");
        args.push(until.into());
    }
    (conditions, args)
}

/// The mirror's name for a provider written either way (`claude-code`), else as given.
fn mirrored_provider(name: &str) -> String {
    Provider::named(name).map_or_else(|| name.to_owned(), |p| p.key().to_owned())
}

/// Stored records and mirrored conversations as asked, newest first, filtered and paged in
/// SQL. Both sides give their first `offset + limit` rows by their newest-first indexes and
/// the page is cut from the merge of those: exact, whatever the filters leave.
pub fn listing(
    connection: &Connection,
    path: &Path,
    query: &ListingQuery,
) -> Result<Listing, Error> {
    let window = query.offset.saturating_add(query.limit);
    let mut parts: Vec<String> = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    let mut stored_total = None;
    let mut mirrored_total = None;
    if query.include.stored() {
        let (conditions, values) = record_conditions(query);
        let filter = where_clause(&conditions);
        stored_total = Some(
            connection
                .query_row(
                    &format!("SELECT count(*) FROM records {filter}"),
                    rusqlite::params_from_iter(&values),
                    |r| r.get::<_, i64>(0),
                )
                .map_err(sql(path))?,
        );
        parts.push(format!(
            "SELECT * FROM (SELECT 1 AS origin, hex, NULL AS number, provider,
                 provider_session_id, title, project, tags, work_session, agent_id, created_at,
                 updated_at, NULL AS messages, content_bytes
             FROM records {filter} ORDER BY created_at DESC, hex DESC LIMIT ?)"
        ));
        args.extend(values);
        args.push(window.into());
    }
    // Conversations carry no agent_id: a filter on it leaves none of them.
    if query.include.mirrored() && query.agent_id.is_none() {
        let filters = Filters {
            provider: query.provider.as_deref().map(mirrored_provider),
            project: query.project.clone(),
            since: query.since,
            until: query.until,
        };
        mirrored_total = Some(conversation_total(connection, path, &filters)?);
        let (conditions, values) = conversation_conditions(&filters);
        parts.push(format!(
            "SELECT * FROM (SELECT 0 AS origin, NULL AS hex, id AS number, provider,
                 provider_id, title, project, NULL AS tags, NULL AS work_session,
                 NULL AS agent_id, started_at, updated_at, messages, NULL AS content_bytes
             FROM conversations {} ORDER BY updated_at DESC, id DESC LIMIT ?)",
            where_clause(&conditions)
        ));
        args.extend(values);
        args.push(window.into());
    } else if query.include.mirrored() {
        mirrored_total = Some(0);
    }
    let total = stored_total.unwrap_or(0) + mirrored_total.unwrap_or(0);
    if parts.is_empty() {
        return Ok(Listing {
            total,
            stored_total,
            mirrored_total,
            items: Vec::new(),
        });
    }
    args.push(query.limit.into());
    args.push(query.offset.into());
    let mut statement = connection
        .prepare(&format!(
            "{} ORDER BY updated_at DESC, origin DESC, hex DESC, number DESC LIMIT ? OFFSET ?",
            parts.join(" UNION ALL ")
        ))
        .map_err(sql(path))?;
    let millis = |at: Option<i64>| at.map(baton_core::time::Timestamp::from_millis);
    let items = statement
        .query_map(rusqlite::params_from_iter(&args), |r| {
            let stored = r.get::<_, i64>(0)? == 1;
            let hex: Option<String> = r.get(1)?;
            let tags: Option<String> = r.get(7)?;
            Ok(ListedItem {
                origin: if stored { "stored" } else { "mirrored" },
                id: hex
                    .and_then(|h| uuid::Uuid::try_parse(&h).ok())
                    .map(|id| id.to_string()),
                number: r.get(2)?,
                provider: r.get(3)?,
                provider_session_id: r.get(4)?,
                title: r.get(5)?,
                project: r.get(6)?,
                tags: tags
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or_default(),
                work_session: r.get(8)?,
                agent_id: r.get(9)?,
                created_at: millis(r.get(10)?),
                updated_at: millis(r.get(11)?),
                messages: r.get(12)?,
                content_bytes: r.get(13)?,
            })
        })
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    Ok(Listing {
        total,
        stored_total,
        mirrored_total,
        items,
    })
}

/// The mirrored conversations whose provider id is `anchor` (any provider).
pub fn conversations_with_anchor(
    connection: &Connection,
    path: &Path,
    anchor: &str,
) -> Result<Vec<ConversationRow>, Error> {
    let mut statement = connection
        .prepare_cached(
            "SELECT id, provider, provider_id, title, project, started_at, updated_at, messages
             FROM conversations
             WHERE provider IN ('claude_code', 'codex', 'chatgpt', 'claude_ai')
               AND provider_id = ?1
             ORDER BY id",
        )
        .map_err(sql(path))?;
    statement
        .query_map([anchor], ConversationRow::read)
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))
}
