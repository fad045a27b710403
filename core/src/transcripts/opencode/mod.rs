//! OpenCode and Kilo CLI sessions, kept in a SQLite database (`opencode.db`, `kilo.db`): the
//! `session`, `message` and `part` tables read through [`crate::transcripts::sqlite`], each
//! row's JSON (`data`) parsed once. A row is rewritten in place while its response streams
//! (tokens at 0, text empty until it ends), so what is read is the state at the last commit.
//!
//! A session started by the task tool is a child session (`parent_id`): its messages hang in
//! the conversation of the session at the top of its chain, and its usage counts there. Before
//! the database, the same rows were JSON files in a tree of folders ([`legacy`]), read into the
//! same [`Store`].

mod conversation;
pub mod legacy;
mod usage;

use crate::error::Result;
use crate::transcripts::sqlite::{Database, Row, Table};
use crate::transcripts::{Provider, ReadStats};
use serde_json::Value;
use std::collections::HashMap;
use std::ops::ControlFlow;

pub use conversation::conversations;
pub use usage::usage_rows;

/// One session row.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    /// `ses_…`.
    pub id: String,
    /// The session whose task tool started this one.
    pub parent: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// The folder it worked in.
    pub directory: Option<String>,
    /// The version of the agent that made it.
    pub version: Option<String>,
    /// When it was made (ms).
    pub created: i64,
}

/// One message or part row: its ids, when it was made and last written, and its JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct DataRow {
    /// `msg_…` or `prt_…`.
    pub id: String,
    /// The message a part belongs to (empty for a message).
    pub message: String,
    /// The session.
    pub session: String,
    /// When the row was made (ms; for rows imported from the old file tree, the import).
    pub created: i64,
    /// When it was last written (ms): the high-water mark of an incremental read.
    pub updated: i64,
    /// Its `data`, parsed.
    pub data: Value,
}

pub use crate::transcripts::mark::Mark;

/// What an OpenCode database holds, read whole.
#[derive(Debug, Clone, Default)]
pub struct Store {
    /// Every session.
    pub sessions: Vec<SessionRow>,
    /// Every message, by (creation, id).
    pub messages: Vec<DataRow>,
    /// Every part, by (creation, id).
    pub parts: Vec<DataRow>,
    /// Rows read, and those whose JSON did not read.
    pub stats: ReadStats,
}

/// The tables an OpenCode database has, when `db` is one.
pub fn tables(db: &Database<'_>) -> Result<Option<[Table; 3]>> {
    let tables = db.tables()?;
    let find = |name: &str| tables.iter().find(|t| t.name == name).cloned();
    Ok(match (find("session"), find("message"), find("part")) {
        (Some(s), Some(m), Some(p)) if m.column("data").is_some() && p.column("data").is_some() => {
            Some([s, m, p])
        }
        _ => None,
    })
}

/// Which agent wrote the database named `name`: Kilo CLI's is `kilo.db`, and its sessions
/// record Kilo's version (7 and above); every other is OpenCode's.
pub fn provider_of(name: &str, store: &Store) -> Provider {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let kilo_version = store.sessions.iter().any(|s| {
        s.version
            .as_deref()
            .and_then(|v| v.split('.').next()?.parse::<u32>().ok())
            .is_some_and(|major| major >= 7)
    });
    if base.starts_with("kilo") || kilo_version {
        Provider::Kilo
    } else {
        Provider::Opencode
    }
}

/// Reads the sessions, messages and parts of an OpenCode database.
pub fn read(db: &Database<'_>, [session, message, part]: &[Table; 3]) -> Result<Store> {
    let mut store = Store::default();
    let col = |t: &Table, name: &str| t.column(name).unwrap_or(usize::MAX);
    let text = |row: &Row, at: usize| row.get(at).as_text().map(str::to_owned);
    let (id, parent, title, dir, version, created) = (
        col(session, "id"),
        col(session, "parent_id"),
        col(session, "title"),
        col(session, "directory"),
        col(session, "version"),
        col(session, "time_created"),
    );
    db.scan(session, None, &mut |row| {
        store.sessions.push(SessionRow {
            id: text(&row, id).unwrap_or_default(),
            parent: text(&row, parent).filter(|p| !p.is_empty()),
            title: text(&row, title),
            directory: text(&row, dir),
            version: text(&row, version),
            created: row.get(created).as_integer().unwrap_or(0),
        });
        Ok(ControlFlow::Continue(()))
    })?;
    for (table, into) in [(message, &mut store.messages), (part, &mut store.parts)] {
        let (id, of_message, of_session, created, updated, data) = (
            col(table, "id"),
            col(table, "message_id"),
            col(table, "session_id"),
            col(table, "time_created"),
            col(table, "time_updated"),
            col(table, "data"),
        );
        db.scan(table, None, &mut |row| {
            store.stats.lines += 1;
            let parsed = row
                .get(data)
                .as_bytes()
                .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
                .filter(Value::is_object);
            let Some(mut parsed) = parsed else {
                store.stats.malformed += 1;
                return Ok(ControlFlow::Continue(()));
            };
            if !slim(&mut parsed) {
                return Ok(ControlFlow::Continue(()));
            }
            into.push(DataRow {
                id: text(&row, id).unwrap_or_default(),
                message: text(&row, of_message).unwrap_or_default(),
                session: text(&row, of_session).unwrap_or_default(),
                created: row.get(created).as_integer().unwrap_or(0),
                updated: row.get(updated).as_integer().unwrap_or(0),
                data: parsed,
            });
            Ok(ControlFlow::Continue(()))
        })?;
        into.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    }
    Ok(store)
}

/// Part kinds that are the agent's own bookkeeping: never shown, never billed.
const BOOKKEEPING: &[&str] = &["step-start", "snapshot", "patch"];

/// Drops from a row's JSON what no view reads and what can be large (a tool's metadata holds
/// whole files before and after an edit, a user message the system prompt and the diffs of
/// its summary); false for a bookkeeping part, which is not kept at all.
fn slim(data: &mut Value) -> bool {
    let kind = data["type"].as_str().unwrap_or_default();
    if BOOKKEEPING.contains(&kind) {
        return false;
    }
    if let Some(object) = data.as_object_mut() {
        for field in ["metadata", "system", "tools", "snapshot"] {
            object.remove(field);
        }
        if let Some(summary) = object.get_mut("summary").and_then(Value::as_object_mut) {
            summary.remove("diffs");
        }
        if let Some(state) = object.get_mut("state").and_then(Value::as_object_mut) {
            state.remove("metadata");
            state.remove("attachments");
            state.remove("raw");
        }
    }
    true
}

impl Store {
    /// Keeps only the sessions under the top sessions `roots` (themselves and their children)
    /// and their rows: what a reader builds from is then only what changed.
    pub fn keep_only(&mut self, roots: &std::collections::HashSet<String>) {
        let kept: std::collections::HashSet<String> = self
            .roots()
            .into_iter()
            .filter(|(_, root)| roots.contains(*root))
            .map(|(session, _)| session.to_owned())
            .collect();
        self.sessions.retain(|s| kept.contains(&s.id));
        self.messages.retain(|m| kept.contains(&m.session));
        self.parts.retain(|p| kept.contains(&p.session));
    }

    /// The session at the top of each session's chain of parents (itself for a top session;
    /// for a chain that loops, the smallest id in the loop, whichever session it is read from).
    pub fn roots(&self) -> HashMap<&str, &str> {
        let parents: HashMap<&str, Option<&str>> = self
            .sessions
            .iter()
            .map(|s| (s.id.as_str(), s.parent.as_deref()))
            .collect();
        let mut roots = HashMap::new();
        for session in &self.sessions {
            let mut chain: Vec<&str> = vec![session.id.as_str()];
            let mut top = session.id.as_str();
            while let Some(Some(parent)) = parents.get(top) {
                if !parents.contains_key(parent) {
                    break;
                }
                if let Some(at) = chain.iter().position(|s| s == parent) {
                    top = chain[at..].iter().copied().min().unwrap_or(top);
                    break;
                }
                chain.push(parent);
                top = parent;
            }
            roots.insert(session.id.as_str(), top);
        }
        roots
    }

    /// Each top session's high-water mark: the newest write to any of its messages or parts
    /// (its sub-agents' included), how many rows it has (a reverted message's rows are
    /// deleted, which no time shows) and the sum of their write times (a row rewritten at a
    /// time older than the newest, as a clock set back makes, still moves it). A session whose
    /// mark moved is read again.
    pub fn marks(&self) -> HashMap<String, Mark> {
        let roots = self.roots();
        let mut marks: HashMap<String, Mark> = HashMap::new();
        for row in self.messages.iter().chain(&self.parts) {
            let root = roots.get(row.session.as_str()).copied();
            let mark = marks
                .entry(root.unwrap_or(row.session.as_str()).to_owned())
                .or_default();
            mark.newest = mark.newest.max(row.updated);
            mark.rows += 1;
            mark.written = mark.written.wrapping_add(row.updated);
        }
        marks
    }
}
