//! Stored session records: a summary, a review, a hand-off or a pasted transcript kept on
//! purpose. What a record is, how a request to store, list, find or export one is checked
//! (each refusal names its field), how an id or prefix resolves among everything with an id,
//! and a record's Markdown. Storage is the host's; every host asks these rules.

use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::record::RecordAbout;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

mod stored;
pub use stored::{StorePlan, StoredRecord, plan_store, stored_record, stored_records};

/// The most a list returns at once, and how many it returns unless asked.
pub const LIST_LIMIT_MAX: u32 = 200;
/// The default page of a list.
pub const LIST_LIMIT_DEFAULT: u32 = 20;
/// The fewest hex digits an id prefix may have.
pub const PREFIX_MIN: usize = 8;

/// A stored record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Record {
    /// Its id (a UUIDv7 minted by the host).
    pub id: Uuid,
    /// What is said about it: title, provider, the provider's session id, tags, work
    /// session, the agent that stored it.
    #[serde(flatten)]
    pub about: RecordAbout,
    /// When it was stored.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// What it holds, verbatim.
    pub content: String,
}

/// A request to store a record, as a caller gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct StoreRequest {
    /// What to keep (required, not blank).
    #[serde(default)]
    pub content: Option<String>,
    /// A title (not blank when given).
    #[serde(default)]
    pub title: Option<String>,
    /// The provider (not blank when given).
    #[serde(default)]
    pub provider: Option<String>,
    /// The provider's session id (not blank when given).
    #[serde(default)]
    pub provider_session_id: Option<String>,
    /// Tags (none blank).
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A field given but blank after trimming.
fn blank(field: &str) -> Error {
    Error::invalid(
        field,
        format!("`{field}` is blank: give it some text, or leave it out"),
    )
}

/// A given string, trimmed; refused when it is blank.
fn present(field: &str, value: Option<String>) -> Result<Option<String>> {
    match value {
        None => Ok(None),
        Some(text) if text.trim().is_empty() => Err(blank(field)),
        Some(text) => Ok(Some(text.trim().to_owned())),
    }
}

impl StoreRequest {
    /// The record this request stores, with the id and time the host minted; refused, naming
    /// the field, when the content is missing or blank, or a title, provider, provider
    /// session id or tag is given blank; the provider, its session id and the tags are names
    /// (NFKC, no control, invisible or direction-changing characters, no look-alike scripts
    /// mixed, at most 128 bytes). The content is kept verbatim (not trimmed).
    pub fn into_record(
        self,
        id: Uuid,
        now: Timestamp,
        work_session: Option<SessionId>,
    ) -> Result<Record> {
        let content = match self.content {
            None => {
                return Err(Error::invalid(
                    "content",
                    "`content` is required: the summary or transcript to keep",
                ));
            }
            Some(text) if text.trim().is_empty() => {
                return Err(Error::invalid(
                    "content",
                    "`content` is blank: give the summary or transcript to keep",
                ));
            }
            Some(text) => text,
        };
        let title = present("title", self.title)?;
        // Names a list is filtered by: one spelling, nothing that reads as something else.
        let name = |field: &str, value: Option<String>| -> Result<Option<String>> {
            present(field, value)?
                .map(|text| crate::names::label(field, &text))
                .transpose()
        };
        let provider = name("provider", self.provider)?;
        let provider_session_id = name("provider_session_id", self.provider_session_id)?;
        let mut tags = Vec::with_capacity(self.tags.len());
        for (at, tag) in self.tags.into_iter().enumerate() {
            if tag.trim().is_empty() {
                return Err(Error::invalid(
                    "tags",
                    format!(
                        "tag {} of the list is blank: remove it or give it text",
                        at + 1
                    ),
                )
                .with("index", at));
            }
            tags.push(crate::names::label("tags", &tag).map_err(|e| e.with("index", at))?);
        }
        Ok(Record {
            id,
            about: RecordAbout {
                title,
                provider,
                provider_session_id,
                tags,
                work_session,
                agent_id: None,
            },
            created_at: now,
            updated_at: now,
            content,
        })
    }
}

/// A list of records, as asked for: newest first, filtered and paged by the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    /// How many (1 to [`LIST_LIMIT_MAX`]).
    pub limit: u32,
    /// How many to skip.
    pub offset: u64,
    /// Only records of this provider (exact).
    pub provider: Option<String>,
    /// Only records whose legacy `agent_id` property is this (exact).
    pub agent_id: Option<String>,
    /// Only records stored at or after this instant.
    pub since: Option<Timestamp>,
}

impl ListQuery {
    /// A query from a caller's values: the limit must be 1 to 200 (20 when not given), the
    /// offset not negative, `since` an RFC 3339 time.
    pub fn parse(
        limit: Option<i64>,
        offset: Option<i64>,
        provider: Option<String>,
        agent_id: Option<String>,
        since: Option<&str>,
    ) -> Result<ListQuery> {
        let limit = match limit {
            None => LIST_LIMIT_DEFAULT,
            Some(n) if (1..=i64::from(LIST_LIMIT_MAX)).contains(&n) => n as u32,
            Some(n) => {
                return Err(Error::invalid(
                    "limit",
                    format!("limit {n} is out of range: give 1 to {LIST_LIMIT_MAX}"),
                )
                .with("value", n));
            }
        };
        let offset = match offset {
            None => 0,
            Some(n) if n >= 0 => n as u64,
            Some(n) => {
                return Err(
                    Error::invalid("offset", format!("offset {n} is negative")).with("value", n)
                );
            }
        };
        let since = match since {
            None => None,
            Some(text) => Some(
                chrono::DateTime::parse_from_rfc3339(text.trim())
                    .map(|t| Timestamp::from_millis(t.timestamp_millis()))
                    .map_err(|e| {
                        Error::invalid(
                            "since",
                            format!(
                                "`{text}` is not an RFC 3339 time (like 2026-05-01T09:00:00Z): {e}"
                            ),
                        )
                    })?,
            ),
        };
        Ok(ListQuery {
            limit,
            offset,
            provider: present("provider", provider)?,
            agent_id: present("agent_id", agent_id)?,
            since,
        })
    }
}

/// How a caller names one record: a whole UUID, or 8 or more of its hex digits from its start
/// or its end (as sessions are named: the end is what tells two ids of one minute apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdQuery {
    /// A whole UUID.
    Whole(Uuid),
    /// The first hex digits (lower case, hyphens dropped).
    Prefix(String),
}

impl IdQuery {
    /// Reads an id or prefix; anything else is refused as malformed.
    pub fn parse(text: &str) -> Result<IdQuery> {
        let trimmed = text.trim();
        if let Ok(uuid) = Uuid::try_parse(trimmed) {
            return Ok(IdQuery::Whole(uuid));
        }
        let digits: String = trimmed.chars().filter(|c| *c != '-').collect();
        let malformed = |why: &str| {
            Error::invalid(
                "id",
                format!("`{trimmed}` is not an id: {why} (a UUID, or {PREFIX_MIN} or more hex digits from its start or end)"),
            )
            .with("value", trimmed)
        };
        if !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(malformed("it holds a character that is not a hex digit"));
        }
        if digits.len() < PREFIX_MIN {
            return Err(malformed("it is too short"));
        }
        if digits.len() > 32 {
            return Err(malformed("it is longer than a UUID"));
        }
        Ok(IdQuery::Prefix(digits.to_ascii_lowercase()))
    }

    /// Whether `id` is the one named (or starts or ends with the digits given).
    pub fn matches(&self, id: &Uuid) -> bool {
        match self {
            IdQuery::Whole(whole) => whole == id,
            IdQuery::Prefix(part) => {
                let hex = id.simple().to_string();
                hex.starts_with(part.as_str()) || hex.ends_with(part.as_str())
            }
        }
    }
}

/// What kind of thing an id names, among those a person may paste.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A stored record.
    Record,
    /// A work session of the ledger.
    WorkSession,
    /// A conversation the mirror keeps.
    MirroredConversation,
}

impl Kind {
    /// Its wire name.
    pub fn wire(self) -> &'static str {
        match self {
            Kind::Record => "record",
            Kind::WorkSession => "work_session",
            Kind::MirroredConversation => "mirrored_conversation",
        }
    }

    /// How a person reads it.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Record => "a stored record",
            Kind::WorkSession => "a work session",
            Kind::MirroredConversation => "a mirrored conversation",
        }
    }
}

/// The one record `query` names among `known` (every id with its kind: the host gives the
/// records, and the work sessions and mirrored conversations whose ids could be pasted by
/// mistake). Distinct errors: nothing has the id (`RECORD_NOT_FOUND`); several records share
/// the prefix (`AMBIGUOUS_RECORD`, with each candidate); the id names something else
/// (`NOT_A_RECORD`, naming its kind).
pub fn resolve(query: &IdQuery, known: impl IntoIterator<Item = (Uuid, Kind)>) -> Result<Uuid> {
    let mut records = Vec::new();
    let mut others = Vec::new();
    for (id, kind) in known {
        if query.matches(&id) {
            match kind {
                Kind::Record => records.push(id),
                other => others.push((id, other)),
            }
        }
    }
    records.sort();
    records.dedup();
    let asked = match query {
        IdQuery::Whole(id) => id.to_string(),
        IdQuery::Prefix(prefix) => prefix.clone(),
    };
    match (records.as_slice(), others.first()) {
        ([one], _) => Ok(*one),
        ([], Some((id, kind))) => Err(Error::not_a_record(
            &asked,
            &id.to_string(),
            kind.wire(),
            kind.describe(),
        )),
        ([], None) => Err(Error::record_not_found(&asked)),
        (many, _) => Err(Error::ambiguous_record(
            &asked,
            many.iter().map(|id| id.to_string()).collect(),
        )),
    }
}

/// Which rows a listing covers: the records stored on purpose, the conversations the mirror
/// keeps, or both in one newest-first order. Each row says where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Include {
    /// Stored records only.
    Stored,
    /// Mirrored conversations only.
    Mirrored,
    /// Both.
    All,
}

impl Include {
    /// Whether stored records are listed.
    pub fn stored(self) -> bool {
        matches!(self, Include::Stored | Include::All)
    }

    /// Whether mirrored conversations are listed.
    pub fn mirrored(self) -> bool {
        matches!(self, Include::Mirrored | Include::All)
    }
}

impl std::str::FromStr for Include {
    type Err = Error;

    fn from_str(text: &str) -> Result<Include> {
        match text.trim() {
            "stored" => Ok(Include::Stored),
            "mirrored" => Ok(Include::Mirrored),
            "all" => Ok(Include::All),
            other => Err(Error::invalid(
                "include",
                format!("`{other}` is not a choice: use stored, mirrored or all"),
            )
            .with("value", other)),
        }
    }
}

/// How a record is exported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    /// The record as JSON (the default).
    Json,
    /// A Markdown document.
    Markdown,
}

impl ExportFormat {
    /// Reads a format (`json` when none is given); checked before the id is looked up, so a
    /// bad format is refused whatever the id.
    pub fn parse(text: Option<&str>) -> Result<ExportFormat> {
        match text.map(str::trim) {
            None | Some("json") => Ok(ExportFormat::Json),
            Some("markdown") => Ok(ExportFormat::Markdown),
            Some(other) => Err(Error::invalid(
                "format",
                format!("`{other}` is not an export format: use json or markdown"),
            )
            .with("value", other)),
        }
    }
}

/// A record as Markdown: a heading (its title, else `Session` and the first 8 characters of
/// its id), a list of what is known of it, and its content, verbatim (byte for byte, to its
/// last byte), under `## Content`.
pub fn markdown(record: &Record) -> String {
    let id = record.id.to_string();
    let heading = match &record.about.title {
        Some(title) => title.clone(),
        None => format!("Session {}", &id[..8]),
    };
    let shown = |value: &Option<String>| value.clone().unwrap_or_else(|| "(none)".to_owned());
    let tags = if record.about.tags.is_empty() {
        "(none)".to_owned()
    } else {
        record.about.tags.join(", ")
    };
    let mut out = format!("# {heading}\n\n");
    out.push_str(&format!("- id: {id}\n"));
    out.push_str(&format!("- provider: {}\n", shown(&record.about.provider)));
    out.push_str(&format!(
        "- provider_session_id: {}\n",
        shown(&record.about.provider_session_id)
    ));
    out.push_str(&format!("- created_at: {}\n", record.created_at));
    out.push_str(&format!("- updated_at: {}\n", record.updated_at));
    out.push_str(&format!("- tags: {tags}\n"));
    out.push_str("\n## Content\n\n");
    out.push_str(&record.content);
    out
}

#[cfg(test)]
mod tests;
