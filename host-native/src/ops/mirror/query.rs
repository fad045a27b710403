//! Answers from the index alone (never the sources): the conversations, newest first, and
//! ranked full-text hits with snippets made for the returned page only.

use baton_core::Error;
use baton_core::transcripts::Provider;
use baton_core::transcripts::search::Field;
use rusqlite::{Connection, params};
use serde::Serialize;
use std::path::Path;

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| crate::index::failure("read the index", path, e)
}

/// One conversation in a listing.
#[derive(Debug, Clone, Serialize)]
pub struct ConversationRow {
    /// The index's id.
    pub id: i64,
    /// Whose.
    pub provider: String,
    /// The provider's id (the continuity anchor).
    pub provider_id: String,
    /// Its title.
    pub title: Option<String>,
    /// The working directory.
    pub project: Option<String>,
    /// First message (ms since the epoch).
    pub started_at: Option<i64>,
    /// Last message.
    pub updated_at: Option<i64>,
    /// Messages kept.
    pub messages: i64,
}

impl ConversationRow {
    /// The row from a result whose first eight columns are, in order: id, provider,
    /// provider_id, title, project, started_at, updated_at, messages.
    fn read(r: &rusqlite::Row) -> rusqlite::Result<ConversationRow> {
        Ok(ConversationRow {
            id: r.get(0)?,
            provider: r.get(1)?,
            provider_id: r.get(2)?,
            title: r.get(3)?,
            project: r.get(4)?,
            started_at: r.get(5)?,
            updated_at: r.get(6)?,
            messages: r.get(7)?,
        })
    }
}

/// A page of conversations and how many match in all.
#[derive(Debug, Clone, Serialize)]
pub struct ConversationPage {
    /// Matching conversations in all.
    pub total: i64,
    /// This page, newest first.
    pub conversations: Vec<ConversationRow>,
}

/// Filters of a listing or a search.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    /// `claude_code`, `codex`, …
    pub provider: Option<String>,
    /// Conversations whose project contains this.
    pub project: Option<String>,
    /// Updated at or after (ms).
    pub since: Option<i64>,
    /// Updated at or before (ms).
    pub until: Option<i64>,
}

impl Filters {
    /// Filters as a person or an agent writes them: a provider by its name (`claude_code` or
    /// `claude-code`, …), days as `YYYY-MM-DD` in `zone` (`until` included).
    pub fn from_words(
        provider: Option<&str>,
        project: Option<&str>,
        since: Option<&str>,
        until: Option<&str>,
        zone: &dyn baton_core::time::Zone,
    ) -> Result<Filters, Error> {
        let provider = provider
            .map(|name| match Provider::named(name) {
                Some(provider) => Ok(provider.key().to_owned()),
                None => Err(Error::invalid(
                    "provider",
                    format!("`{name}` is none of claude_code, codex, chatgpt, claude_ai"),
                )
                .with("provider", name)),
            })
            .transpose()?;
        let day = |field: &str, text: Option<&str>, end: bool| {
            text.map(|d| baton_core::time::parse_day_in(field, d, end, zone).map(|t| t.millis()))
                .transpose()
        };
        Ok(Filters {
            provider,
            project: project.map(str::to_owned),
            since: day("since", since, false)?,
            until: day("until", until, true)?,
        })
    }
}

/// One tool's use across the kept conversations.
#[derive(Debug, Clone, Serialize)]
pub struct ToolUse {
    /// The tool's name as the agent called it.
    pub name: String,
    /// Calls.
    pub calls: i64,
    /// Calls whose result reported an error.
    pub errors: i64,
    /// Conversations that called it.
    pub conversations: i64,
    /// The last call (ms), when its message is dated.
    pub last_at: Option<i64>,
}

/// Tools by how often they were called.
#[derive(Debug, Clone, Serialize)]
pub struct ToolPage {
    /// Tools called in all.
    pub total: i64,
    /// Calls in all.
    pub calls: i64,
    /// This page, most called first.
    pub tools: Vec<ToolUse>,
}

/// The tools the filtered conversations called, most called first, with how often each
/// failed.
pub fn tools(
    connection: &Connection,
    path: &Path,
    filters: &Filters,
    limit: i64,
) -> Result<ToolPage, Error> {
    let from = "FROM tool_calls t JOIN conversations c ON c.id = t.conversation
         LEFT JOIN messages m ON m.id = t.message
         WHERE t.name IS NOT NULL AND (?1 IS NULL OR c.provider = ?1)
         AND (?2 IS NULL OR instr(c.project, ?2) > 0)
         AND (?3 IS NULL OR m.at >= ?3) AND (?4 IS NULL OR m.at <= ?4)";
    let (total, calls): (i64, i64) = connection
        .query_row(
            &format!("SELECT count(DISTINCT t.name), count(*) {from}"),
            params![
                filters.provider,
                filters.project,
                filters.since,
                filters.until
            ],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(sql(path))?;
    let mut statement = connection
        .prepare(&format!(
            "SELECT t.name, count(*), sum(coalesce(t.is_error, 0)), count(DISTINCT t.conversation),
                    max(m.at)
             {from} GROUP BY t.name ORDER BY count(*) DESC, t.name LIMIT ?5"
        ))
        .map_err(sql(path))?;
    let tools = statement
        .query_map(
            params![
                filters.provider,
                filters.project,
                filters.since,
                filters.until,
                limit
            ],
            |r| {
                Ok(ToolUse {
                    name: r.get(0)?,
                    calls: r.get(1)?,
                    errors: r.get(2)?,
                    conversations: r.get(3)?,
                    last_at: r.get(4)?,
                })
            },
        )
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    Ok(ToolPage {
        total,
        calls,
        tools,
    })
}

/// The fields a search looks in, as written (`text,tool`, …); the default ones without.
pub fn fields_named(text: Option<&str>) -> Result<Vec<Field>, Error> {
    match text {
        Some(text) => Field::parse_list(text).ok_or_else(|| {
            Error::invalid(
                "in",
                format!(
                    "`{text}`: say text, thinking, tool, tool_input or tool_output, comma-separated"
                ),
            )
        }),
        None => Ok(Field::DEFAULT.to_vec()),
    }
}

/// The conditions `filters` put on conversations (only those given), and their values.
fn conversation_conditions(filters: &Filters) -> (Vec<&'static str>, Vec<rusqlite::types::Value>) {
    let mut conditions: Vec<&str> = Vec::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(provider) = &filters.provider {
        conditions.push("provider = ?");
        args.push(provider.clone().into());
    }
    if let Some(project) = &filters.project {
        conditions.push("instr(project, ?) > 0");
        args.push(project.clone().into());
    }
    if let Some(since) = filters.since {
        conditions.push("updated_at >= ?");
        args.push(since.into());
    }
    if let Some(until) = filters.until {
        conditions.push("updated_at <= ?");
        args.push(until.into());
    }
    (conditions, args)
}

/// `WHERE` and the conditions, or nothing when there are none.
fn where_clause(conditions: &[&str]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    }
}

/// How many conversations `filters` leave: with no filter but the provider, the total the
/// triggers keep rather than a count of the rows.
fn conversation_total(
    connection: &Connection,
    path: &Path,
    filters: &Filters,
) -> Result<i64, Error> {
    let (conditions, args) = conversation_conditions(filters);
    let kept_total =
        filters.project.is_none() && filters.since.is_none() && filters.until.is_none();
    let count = if kept_total {
        "SELECT coalesce(sum(conversations), 0) FROM conversation_counts"
    } else {
        "SELECT count(*) FROM conversations"
    };
    connection
        .query_row(
            &format!("{count} {}", where_clause(&conditions)),
            rusqlite::params_from_iter(&args),
            |r| r.get(0),
        )
        .map_err(sql(path))
}

/// Conversations, newest first, filtered in SQL.
pub fn list(
    connection: &Connection,
    path: &Path,
    filters: &Filters,
    limit: i64,
    offset: i64,
) -> Result<ConversationPage, Error> {
    // Only the filters given become conditions: with none, the count reads the smallest
    // index and the page the first rows of the newest-first one.
    let total = conversation_total(connection, path, filters)?;
    let (conditions, mut args) = conversation_conditions(filters);
    let filter = where_clause(&conditions);
    let mut statement = connection
        .prepare(&format!(
            "SELECT id, provider, provider_id, title, project, started_at, updated_at, messages
             FROM conversations {filter}
             ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?"
        ))
        .map_err(sql(path))?;
    args.push(limit.into());
    args.push(offset.into());
    let conversations = statement
        .query_map(rusqlite::params_from_iter(&args), ConversationRow::read)
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    Ok(ConversationPage {
        total,
        conversations,
    })
}

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

pub use baton_core::records::Include;

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

/// One search hit: a message.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The conversation.
    pub conversation: ConversationRow,
    /// The message's provider id.
    pub message_id: String,
    /// Who wrote it.
    pub role: String,
    /// When (ms).
    pub at: Option<i64>,
    /// Where it matched: `text`, `thinking`, `tool_call` or `tool_output`.
    pub field: &'static str,
    /// Whether it holds the whole query as a phrase (such hits come first).
    pub exact: bool,
    /// An excerpt centred on the match.
    pub snippet: String,
    /// Each match inside the snippet, `[start, end)` in characters.
    pub highlights: Vec<(usize, usize)>,
}

/// Ranked hits and how many messages match in all.
#[derive(Debug, Clone, Serialize)]
pub struct HitPage {
    /// The query's FTS5 expression (every word a literal term).
    pub expression: String,
    /// Matching messages in all.
    pub total: i64,
    /// This page, best first.
    pub hits: Vec<Hit>,
}

/// Messages matching `query` in `fields`, best first, with how many match in all (see
/// [`baton_core::transcripts::search::plan`]: quoted phrases and rare words required, stop
/// words not one by one). Messages holding the whole query as a phrase come first, then the
/// others by rank; each hit says where it matched and carries a snippet of at most `width`
/// characters centred on the match, with the matches' offsets.
pub fn search(
    connection: &Connection,
    path: &Path,
    query: &str,
    fields: &[Field],
    filters: &Filters,
    limit: i64,
    width: usize,
) -> Result<HitPage, Error> {
    let columns: Vec<&str> = fields.iter().map(|f| f.column()).collect();
    let plan = baton_core::transcripts::search::plan(query, &columns)?;
    let filter = "(?2 IS NULL OR c.provider = ?2) AND (?3 IS NULL OR instr(c.project, ?3) > 0)
         AND (?4 IS NULL OR m.at >= ?4) AND (?5 IS NULL OR m.at <= ?5)";
    let total: i64 = connection
        .query_row(
            &format!(
                "SELECT count(*) FROM messages_fts f
                 JOIN messages m ON m.id = f.rowid JOIN conversations c ON c.id = m.conversation
                 WHERE messages_fts MATCH ?1 AND {filter}"
            ),
            params![
                plan.required,
                filters.provider,
                filters.project,
                filters.since,
                filters.until
            ],
            |r| r.get(0),
        )
        .map_err(sql(path))?;
    // The page, ranked: the whole phrase's matches first, then the other matches.
    let ranked = |expression: &str, want: i64| -> Result<Vec<i64>, Error> {
        let mut statement = connection
            .prepare_cached(&format!(
                "SELECT f.rowid FROM messages_fts f
                 JOIN messages m ON m.id = f.rowid JOIN conversations c ON c.id = m.conversation
                 WHERE messages_fts MATCH ?1 AND {filter}
                 ORDER BY f.rank LIMIT ?6"
            ))
            .map_err(sql(path))?;
        statement
            .query_map(
                params![
                    expression,
                    filters.provider,
                    filters.project,
                    filters.since,
                    filters.until,
                    want
                ],
                |r| r.get::<_, i64>(0),
            )
            .map_err(sql(path))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql(path))
    };
    let mut page: Vec<(i64, bool)> = Vec::new();
    if let Some(phrase) = &plan.phrase {
        page.extend(ranked(phrase, limit)?.into_iter().map(|id| (id, true)));
    }
    if (page.len() as i64) < limit {
        let exact: std::collections::HashSet<i64> = page.iter().map(|(id, _)| *id).collect();
        let more = ranked(&plan.required, limit + exact.len() as i64)?;
        page.extend(
            more.into_iter()
                .filter(|id| !exact.contains(id))
                .take(
                    usize::try_from(limit)
                        .unwrap_or(0)
                        .saturating_sub(page.len()),
                )
                .map(|id| (id, plan.phrase.is_none())),
        );
    }
    // Where each hit matched: the first field, in the order given, that holds the query.
    let ids: Vec<String> = page.iter().map(|(id, _)| id.to_string()).collect();
    let mut found_in: std::collections::HashMap<i64, Field> = std::collections::HashMap::new();
    if !ids.is_empty() {
        for field in fields {
            let scoped = baton_core::transcripts::search::plan(query, &[field.column()])?;
            let mut statement = connection
                .prepare(&format!(
                    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
                     AND rowid IN ({})",
                    ids.join(",")
                ))
                .map_err(sql(path))?;
            let rows = statement
                .query_map([&scoped.required], |r| r.get::<_, i64>(0))
                .map_err(sql(path))?;
            for id in rows {
                found_in.entry(id.map_err(sql(path))?).or_insert(*field);
            }
        }
    }
    let mut statement = connection
        .prepare_cached(
            "SELECT c.id, c.provider, c.provider_id, c.title, c.project, c.started_at,
                    c.updated_at, c.messages, m.message_id, m.role, m.at, m.excerpt, m.source
             FROM messages m JOIN conversations c ON c.id = m.conversation
             WHERE m.id = ?1",
        )
        .map_err(sql(path))?;
    let mut inflater = super::packing::Inflater::new();
    let mut hits = Vec::with_capacity(page.len());
    for (id, exact) in page {
        let hit = statement
            .query_row([id], |r| {
                // A blob is compressed; a short excerpt is kept as text.
                let text = match r.get_ref(11)? {
                    rusqlite::types::ValueRef::Blob(frame) => inflater
                        .inflate(connection, frame)
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default(),
                    rusqlite::types::ValueRef::Text(text) => {
                        String::from_utf8_lossy(text).into_owned()
                    }
                    _ => String::new(),
                };
                let mut cut =
                    baton_core::transcripts::snippets::snippet_of(&text, &plan.needles, width);
                // The match is past what the excerpt keeps (deep in a long tool output): the
                // message's own line, from the kept lines.
                if cut.highlights.is_empty() {
                    let message_id: String = r.get(8)?;
                    if let Some(whole) =
                        line_text(connection, &mut inflater, r.get(12)?, &message_id)
                    {
                        let again = baton_core::transcripts::snippets::snippet_of(
                            &whole,
                            &plan.needles,
                            width,
                        );
                        if !again.highlights.is_empty() {
                            cut = again;
                        }
                    }
                }
                Ok(Hit {
                    conversation: ConversationRow::read(r)?,
                    message_id: r.get(8)?,
                    role: r.get(9)?,
                    at: r.get(10)?,
                    field: found_in.get(&id).map_or("text", |f| f.wire()),
                    exact,
                    snippet: cut.text,
                    highlights: cut.highlights,
                })
            })
            .map_err(sql(path))?;
        hits.push(hit);
    }
    Ok(HitPage {
        expression: plan.required,
        total,
        hits,
    })
}

/// Every string of the kept line that names `message_id` in source `source` (its text, tool
/// input and output), one per line: what a snippet is cut from when the excerpt missed the
/// match. Reads that source's kept lines until the line is found; none when it is not.
fn line_text(
    connection: &Connection,
    inflater: &mut super::packing::Inflater,
    source: i64,
    message_id: &str,
) -> Option<String> {
    let needle = serde_json::to_string(message_id).ok()?;
    let mut statement = connection
        .prepare_cached("SELECT raw FROM lines WHERE source = ?1 ORDER BY offset")
        .ok()?;
    let mut rows = statement.query([source]).ok()?;
    while let Ok(Some(row)) = rows.next() {
        let bytes = match row.get_ref(0) {
            Ok(rusqlite::types::ValueRef::Blob(frame)) => match inflater.inflate(connection, frame)
            {
                Ok(bytes) => bytes,
                Err(_) => continue,
            },
            Ok(rusqlite::types::ValueRef::Text(text)) => text.to_vec(),
            _ => continue,
        };
        let Some(at) = bytes
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
        else {
            continue;
        };
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| at + n);
        let value: serde_json::Value = serde_json::from_slice(&bytes[start..end]).ok()?;
        let mut out = String::new();
        strings_of(&value, &mut out);
        return Some(out);
    }
    None
}

/// Every string inside `value`, each on its own line.
fn strings_of(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

/// A conversation as kept: rebuilt from its stored lines (an export's: its own JSON) by the
/// same core readers that read the sources, so what `show` prints is what `analyze` would
/// print of the original files.
#[derive(Debug)]
pub struct Shown {
    /// Its row.
    pub row: ConversationRow,
    /// The branches asked for as Markdown: the active one, or every one (active first).
    pub markdown: String,
    /// How many branches the conversation has.
    pub branches: usize,
    /// The conversation, every branch, as JSON.
    pub json: serde_json::Value,
    /// The ids of the active branch's messages, root first.
    pub active_branch: Vec<String>,
}

/// Which branches `show` writes as Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Branches {
    /// The one the provider marked active (else the last written).
    #[default]
    Active,
    /// Every branch, the active one first.
    All,
}

/// The conversation `reference` names: the index's number, the provider's id, or 8 or more
/// characters from the start of it (unique).
pub fn resolve(
    connection: &Connection,
    path: &Path,
    reference: &str,
) -> Result<ConversationRow, Error> {
    let reference = reference.trim();
    let mut statement = connection
        .prepare(
            "SELECT id, provider, provider_id, title, project, started_at, updated_at, messages
             FROM conversations
             WHERE CAST(id AS TEXT) = ?1 OR provider_id = ?1
                OR (length(?1) >= 8 AND substr(provider_id, 1, length(?1)) = ?1)
             ORDER BY id LIMIT 11",
        )
        .map_err(sql(path))?;
    let rows = statement
        .query_map([reference], ConversationRow::read)
        .map_err(sql(path))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(path))?;
    // An exact id wins over prefixes it happens to share.
    let row = match rows
        .iter()
        .find(|r| r.provider_id == reference || r.id.to_string() == reference)
    {
        Some(row) => row.clone(),
        None => match rows.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(Error::invalid(
                    "conversation",
                    format!("no kept conversation matches `{reference}`; `baton transcripts list` shows them"),
                )
                .with("reference", reference));
            }
            several => {
                return Err(Error::invalid(
                    "conversation",
                    format!(
                        "{} kept conversations start with `{reference}`; give more of the id",
                        several.len()
                    ),
                )
                .with("reference", reference)
                .with(
                    "candidates",
                    serde_json::Value::from(
                        several
                            .iter()
                            .map(|r| r.provider_id.clone())
                            .collect::<Vec<_>>(),
                    ),
                ));
            }
        },
    };
    Ok(row)
}

/// The conversation `reference` names (see [`resolve`]) in full, rebuilt from what was kept.
pub fn show(
    connection: &Connection,
    path: &Path,
    reference: &str,
    branches: Branches,
) -> Result<Shown, Error> {
    let row = resolve(connection, path, reference)?;
    let mut inflater = super::packing::Inflater::new();
    let mut inflate = |raw: &[u8]| {
        inflater
            .inflate(connection, raw)
            .map_err(|e| Error::internal(format!("a stored line would not inflate: {e}")))
    };
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    if matches!(row.provider.as_str(), "chatgpt" | "claude_ai") {
        let raw: Vec<u8> = connection
            .query_row(
                "SELECT raw FROM export_items WHERE provider = ?1 AND provider_id = ?2",
                [&row.provider, &row.provider_id],
                |r| r.get(0),
            )
            .map_err(sql(path))?;
        let mut bytes = b"[".to_vec();
        bytes.extend_from_slice(&inflate(&raw)?);
        bytes.push(b']');
        analyzer.add_file("conversations.json", &bytes)?;
    } else {
        let mut sources = connection
            .prepare(
                "SELECT DISTINCT s.id, s.path FROM messages m JOIN sources s ON s.id = m.source
                 WHERE m.conversation = ?1 ORDER BY s.path",
            )
            .map_err(sql(path))?;
        let sources: Vec<(i64, String)> = sources
            .query_map([row.id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(sql(path))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql(path))?;
        let mut lines = connection
            .prepare("SELECT raw FROM lines WHERE source = ?1 ORDER BY offset")
            .map_err(sql(path))?;
        for (source, name) in &sources {
            let mut bytes = Vec::new();
            let raws = lines
                .query_map([source], |r| r.get::<_, Vec<u8>>(0))
                .map_err(sql(path))?;
            for raw in raws {
                bytes.extend_from_slice(&inflate(&raw.map_err(sql(path))?)?);
                bytes.push(b'\n');
            }
            // A file that no longer parses on its own still leaves the others to read.
            let _ = analyzer.add_file(name, &bytes);
        }
    }
    let index = analyzer
        .conversations()
        .iter()
        .position(|c| {
            c.id == row.provider_id
                || (c.id.is_empty() && crate::ops::mirror::pass::anchor_id(c) == row.provider_id)
        })
        .ok_or_else(|| {
            Error::internal(format!(
                "conversation {} is indexed but what was kept does not hold it",
                row.provider_id
            ))
        })?;
    let views = analyzer.branches(index)?;
    let markdown = match branches {
        Branches::Active => baton_core::analyzer::export::markdown(&views[0]),
        Branches::All => {
            let mut out = String::new();
            for (n, view) in views.iter().enumerate() {
                let fork = view
                    .messages
                    .iter()
                    .zip(&views[0].messages)
                    .take_while(|(a, b)| a.id == b.id)
                    .count();
                out.push_str(&format!(
                    "> **Branch {} of {}**{}\n\n",
                    n + 1,
                    views.len(),
                    if n == 0 {
                        ", the active one".to_owned()
                    } else {
                        format!(": leaves the active one after its message {fork}")
                    }
                ));
                out.push_str(&baton_core::analyzer::export::markdown(view));
                out.push_str("\n---\n\n");
            }
            out
        }
    };
    let json = serde_json::from_str(&analyzer.conversation_json(index)?)
        .map_err(|e| Error::internal(format!("encoding the conversation: {e}")))?;
    Ok(Shown {
        row,
        markdown,
        branches: views.len(),
        json,
        active_branch: views[0].messages.iter().map(|m| m.id.clone()).collect(),
    })
}
