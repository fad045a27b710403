//! Answers from the index alone (never the sources): the conversations, newest first, and
//! ranked full-text hits with snippets made for the returned page only.

use baton_core::Error;
use baton_core::transcripts::Provider;
pub use baton_core::transcripts::filters::TranscriptFilter;
use baton_core::transcripts::search::Field;
use rusqlite::{Connection, params};
use serde::Serialize;
use std::path::Path;

mod listing;
mod requests;
mod scope;
mod search;
mod show;
mod tools;

pub use listing::*;
pub use requests::*;
pub use search::*;
pub use show::*;
pub use tools::*;

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
    /// Filters as a person or an agent writes them, read by the core's rule
    /// ([`TranscriptFilter::resolve`]): a provider by its name (`claude_code` or
    /// `claude-code`, …), days as `YYYY-MM-DD` in this machine's zone (`until` included).
    pub fn read(filter: &TranscriptFilter) -> Result<Filters, Error> {
        let zone = crate::os::zone::resolve(None)?;
        let read = filter.resolve(&zone)?;
        Ok(Filters {
            provider: read.provider.map(|p| p.key().to_owned()),
            project: read.project,
            since: read.since.map(|t| t.millis()),
            until: read.until.map(|t| t.millis()),
        })
    }
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

pub use baton_core::records::Include;
