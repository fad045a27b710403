//! `baton share`'s one owner: what is shared (a kept conversation, a work session with its
//! timeline, cost and linked conversations, or a search's hits) gathered from the index and
//! the ledger, redacted as the profile asks, and made into one file (HTML, optionally locked
//! with a password; Markdown; or JSON). Every face that shares asks this.

use crate::ops::mirror::query::{ConversationRow, Filters};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::{Request, Response, SessionRef, ShowParams};
use baton_core::share::html::{Fact, Hit, Shared, TimelineLine, when};
use baton_core::share::redact::Replacement;
use baton_core::time::Timestamp;
use rusqlite::Connection;
use std::path::Path;

/// What to share.
#[derive(Debug, Clone)]
pub enum Subject {
    /// A kept conversation: the index's number, the provider's id or 8+ characters of it.
    Conversation(String),
    /// A work session of the ledger, with its linked conversations.
    Session(String),
    /// The hits of a search.
    Search {
        /// The words.
        query: String,
        /// The filters beside them.
        filters: Filters,
        /// How many hits.
        limit: i64,
    },
}

pub use baton_core::share::make::{Choices, Format, Made};

/// Whether `row` is a chat service's conversation (an export: ChatGPT, claude.ai), which no
/// agent can resume and no service can import: restoring it writes it out as a file.
pub fn restores_as_file(row: &ConversationRow) -> bool {
    baton_core::transcripts::Provider::named(&row.provider)
        .is_some_and(|p| p.entry().kind == baton_core::transcripts::providers::Kind::Export)
}

/// The conversation `row`'s active branch.
fn active_view(
    connection: &Connection,
    index: &Path,
    row: &ConversationRow,
) -> Result<baton_core::analyzer::ConversationView, Error> {
    let (analyzer, at) = crate::ops::mirror::query::read_back(connection, index, row)?;
    analyzer.view(at, None)
}

/// The facts, timeline and linked conversations of work session `reference`.
fn work_session(
    ledger: &Ledger,
    connection: Option<&Connection>,
    index: &Path,
    reference: &str,
) -> Result<Shared, Error> {
    let acting = crate::ops::engine::Acting {
        actor: None,
        person: None,
        caller: baton_core::commands::Caller::Person,
    };
    let answered = crate::ops::command::run(
        ledger,
        index,
        Request::Show(ShowParams {
            session_id: reference.to_owned(),
        }),
        &acting,
        None,
    );
    let session = match answered.result? {
        Response::Show(shown) => shown.session,
        _ => return Err(Error::internal("show answered something else")),
    };
    let timeline = match crate::ops::engine::run(
        ledger,
        &Request::Timeline(SessionRef {
            session_id: session.session_id.to_string(),
        }),
        None,
    )? {
        Response::Timeline(answer) => answer.events,
        _ => return Err(Error::internal("timeline answered something else")),
    };
    let mut facts = vec![
        Fact {
            label: "Status".to_owned(),
            value: word(&session.status),
        },
        Fact {
            label: "Project".to_owned(),
            value: session.project.clone(),
        },
        Fact {
            label: "Agent".to_owned(),
            value: session.agent.clone(),
        },
    ];
    let mut push = |label: &str, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            facts.push(Fact {
                label: label.to_owned(),
                value,
            });
        }
    };
    push("Branch", session.branch.clone());
    push("Mission", session.mission.clone());
    push("Started", Some(when(session.started_at)));
    push("Ended", session.ended_at.map(when));
    push(
        "Duration",
        session
            .duration_seconds
            .map(baton_core::time::human_duration),
    );
    push(
        "Health",
        session.health.as_ref().map(|h| {
            let verdict = word(&h.verdict);
            h.overall
                .map_or(verdict.clone(), |score| format!("{verdict} ({score}/100)"))
        }),
    );
    push(
        "Cost",
        answered
            .extras
            .cost
            .as_ref()
            .map(crate::ops::work_cost::describe),
    );
    push("Summary", session.summary.clone());
    push("Pull request", session.pull_request.clone());
    push("Session", Some(session.session_id.to_string()));
    let mut conversations = Vec::new();
    if let (Some(connection), Some(cost)) = (connection, &answered.extras.cost) {
        for link in &cost.transcripts {
            // A linked transcript the index no longer holds is named in the facts instead.
            match crate::ops::mirror::query::resolve(connection, index, &link.provider_session_id)
                .and_then(|row| active_view(connection, index, &row))
            {
                Ok(view) => conversations.push(view),
                Err(_) => facts.push(Fact {
                    label: "Transcript not kept".to_owned(),
                    value: link.provider_session_id.clone(),
                }),
            }
        }
    }
    Ok(Shared {
        title: session
            .goal
            .clone()
            .unwrap_or_else(|| format!("{} on {}", session.agent, session.project)),
        kind: "Work session".to_owned(),
        facts,
        timeline: timeline
            .into_iter()
            .map(|e| TimelineLine {
                at: e.at,
                text: format!("{}: {}", e.kind, e.summary),
            })
            .collect(),
        hits: Vec::new(),
        conversations,
    })
}

/// A serde enum's word (`active`, `healthy`).
fn word<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// What `subject` names, gathered from the index (and the ledger, for a work session).
pub fn gather(ledger: Option<&Ledger>, index: &Path, subject: &Subject) -> Result<Shared, Error> {
    match subject {
        Subject::Conversation(reference) => {
            let connection = crate::ops::mirror::open_for_query(index, false, None)?;
            let row = crate::ops::mirror::query::resolve(&connection, index, reference)?;
            Ok(Shared::conversation(active_view(&connection, index, &row)?))
        }
        Subject::Session(reference) => {
            let ledger = ledger.ok_or_else(|| {
                Error::invalid(
                    "session",
                    "no ledger here: run it in a project with .baton/",
                )
            })?;
            let connection = index
                .exists()
                .then(|| crate::ops::mirror::open_for_query(index, false, None))
                .transpose()?;
            work_session(ledger, connection.as_ref(), index, reference)
        }
        Subject::Search {
            query,
            filters,
            limit,
        } => {
            let connection = crate::ops::mirror::open_for_query(index, false, None)?;
            let fields = crate::ops::mirror::query::fields_named(None)?;
            let page = crate::ops::mirror::query::search(
                &connection,
                index,
                query,
                &fields,
                filters,
                baton_core::transcripts::search::Order::asked(None)?,
                *limit,
                240,
            )?;
            Ok(Shared {
                title: format!("Search: {query}"),
                kind: "Search results".to_owned(),
                facts: vec![Fact {
                    label: "Matches".to_owned(),
                    value: format!(
                        "{}{} in all, the best {} here",
                        if page.total_capped { "more than " } else { "" },
                        page.total,
                        page.hits.len()
                    ),
                }],
                timeline: Vec::new(),
                hits: page
                    .hits
                    .into_iter()
                    .map(|h| Hit {
                        title: h
                            .conversation
                            .title
                            .clone()
                            .unwrap_or_else(|| "(untitled)".to_owned()),
                        provider: h.conversation.provider.clone(),
                        conversation: h.conversation.provider_id.clone(),
                        at: h.at.map(Timestamp::from_millis),
                        role: Some(h.role),
                        snippet: h.snippet,
                    })
                    .collect(),
                conversations: Vec::new(),
            })
        }
    }
}

/// The words `[share] redact = [...]` in the workspace's `.baton/config.toml` lists: a
/// config that cannot be read, or a `redact` that is not a list of words, is refused (a
/// share must not go out with words the person listed left in).
pub fn configured_words(ledger_dir: &Path) -> Result<Vec<String>, Error> {
    let config = crate::config::ConfigFile::read(ledger_dir)?;
    let Some(listed) = config.table("share").and_then(|t| t.get("redact")) else {
        return Ok(Vec::new());
    };
    let words: Option<Vec<String>> = listed.as_array().and_then(|items| {
        items
            .iter()
            .map(|w| w.as_str().map(str::to_owned))
            .collect()
    });
    words.ok_or_else(|| {
        Error::invalid(
            "config",
            "`redact` under [share] in .baton/config.toml must be a list of words: redact = [\"acme\", \"zephyr\"]",
        )
    })
}

/// A file name from a title: its words in lower case joined by `-`, at most 60 characters.
pub fn file_name(title: &str, format: Format) -> String {
    let mut slug = String::new();
    for word in title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if slug.len() + word.len() > 60 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word.to_lowercase());
    }
    if slug.is_empty() {
        slug = "baton-share".to_owned();
    }
    let extension = match format {
        Format::Html => "html",
        Format::Markdown => "md",
        Format::Json => "json",
    };
    format!("{slug}.{extension}")
}

/// The name of a locked file made without `--output`.
pub const LOCKED_NAME: &str = "baton share locked";

/// The refusal to replace a file that is there.
pub fn exists(path: &Path) -> Error {
    Error::invalid(
        "output",
        format!(
            "{} exists: give another --output, or --force to replace it",
            path.display()
        ),
    )
    .with("path", path.display().to_string())
}

/// Writes `bytes` to `path` whole, refusing to replace a file there unless `force`.
pub fn write_new(path: &Path, bytes: &[u8], force: bool) -> Result<(), Error> {
    if path.exists() && !force {
        return Err(exists(path));
    }
    crate::os::files::write_whole(path, bytes)
        .map_err(|e| Error::store_io("write", &path.display().to_string(), e))
}

/// Fresh random bytes from the operating system.
fn random<const N: usize>() -> Result<[u8; N], Error> {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| Error::internal(format!("the system gave no random bytes: {e}")))?;
    Ok(bytes)
}

/// What redaction would replace in `shared`, writing nothing.
pub fn preview(shared: Shared, choices: &Choices) -> Result<Vec<Replacement>, Error> {
    baton_core::share::make::preview(shared, choices)
}

/// `shared` redacted as `choices` ask and made into its file, locked with `password` when
/// one is given (with fresh random salt and nonce).
pub fn make(shared: Shared, choices: Choices, password: Option<String>) -> Result<Made, Error> {
    let lock = match password {
        Some(password) => Some(baton_core::share::make::Lock {
            password,
            salt: random()?,
            nonce: random()?,
        }),
        None => None,
    };
    baton_core::share::make::make(shared, &Choices { lock, ..choices })
}
