//! Cursor's chats, kept in its editor's SQLite store (`<Cursor>/User/globalStorage/state.vscdb`)
//! and read through [`crate::transcripts::sqlite`]: the key-value table `cursorDiskKV` holds a
//! document per chat (`composerData:<chat>`, its title, times, model and the order of its
//! messages in `fullConversationHeadersOnly`, or older chats their messages inline in
//! `conversation`) and one per message (`bubbleId:<chat>:<message>`: `type` 1 a prompt, 2 a
//! reply, with its text, its thinking and, in `toolFormerData`, a tool's call and result
//! together). Cursor 3 adds a `composerHeaders` table naming each chat's workspace. The oldest
//! builds kept a window's chats in `ItemTable` under `workbench.panel.aichat.view.aichat.chatdata`
//! (tabs of bubbles typed `user` and `ai`), in each window's own store
//! (`workspaceStorage/<id>/state.vscdb`): read when such a store is named.
//!
//! Cursor keeps no token counts it stands behind on disk: a message's `tokenCount` is zero in
//! nearly every store peers have looked at, and the spend is on Cursor's servers. So a chat
//! gives conversations, search and work-session links, and no usage rows; every face says
//! Cursor's tokens are not on disk rather than show a zero. The store also keeps sign-in
//! tokens and keys: only the chat keys are read.

mod cli;
mod conversation;
mod transcript;

pub use cli::{CliChat, cli_conversation, cli_tables, read_cli};
pub use conversation::conversations;
pub use transcript::{AgentTranscript, looks_like_transcript};

use crate::error::Result;
use crate::transcripts::ReadStats;
use crate::transcripts::mark::Mark;
use crate::transcripts::sqlite::{Database, SqlValue, Table};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::ops::ControlFlow;

/// The legacy chat panel's key in `ItemTable`.
const LEGACY_CHATS: [&str; 2] = [
    "workbench.panel.aichat.view.aichat.chatdata",
    "workbench.panel.chat.view.chat.chatdata",
];

/// What the person typed in a prompt Cursor wraps in `<user_query>` tags (the text between
/// them, trimmed), when it has them: its agent transcripts and `cursor-agent` alike.
pub(crate) fn user_query(text: &str) -> Option<&str> {
    let start = text.find("<user_query>")? + "<user_query>".len();
    let end = start + text[start..].find("</user_query>")?;
    Some(text[start..end].trim())
}

/// One chat.
#[derive(Debug, Clone, Default)]
pub struct Chat {
    /// Its id (`composerId`, or an old panel tab's `tabId`).
    pub id: String,
    /// The name Cursor gave it.
    pub name: Option<String>,
    /// When it was made (ms).
    pub created: Option<i64>,
    /// The model it was set to (`modelConfig.modelName`; not `default`).
    pub model: Option<String>,
    /// The folder it worked in (`composerHeaders`).
    pub project: Option<String>,
    /// Its messages, in order.
    pub bubbles: Vec<Bubble>,
    /// Where it stood when read.
    pub mark: Mark,
}

/// One message, with only what the views read.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Bubble {
    /// Its id.
    #[serde(rename = "bubbleId", deserialize_with = "text_or_empty")]
    pub id: String,
    /// 1 a prompt, 2 a reply (old panels: `user`, `ai`).
    #[serde(rename = "type")]
    pub kind: Value,
    /// Its text.
    #[serde(deserialize_with = "text_or_empty")]
    pub text: String,
    /// Its thinking.
    pub thinking: Value,
    /// A tool's call and its result.
    #[serde(rename = "toolFormerData")]
    pub tool: Value,
    /// When it was written (ISO text, or a number).
    #[serde(rename = "createdAt")]
    pub created: Value,
    /// An old panel bubble's time (ms).
    pub timestamp: Value,
    /// The model that wrote it.
    #[serde(rename = "modelInfo")]
    pub model: Value,
}

/// The chat document's fields read.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Document {
    #[serde(rename = "composerId", deserialize_with = "text_or_empty")]
    id: String,
    #[serde(deserialize_with = "text_or_none")]
    name: Option<String>,
    #[serde(rename = "createdAt")]
    created: Value,
    #[serde(rename = "lastUpdatedAt")]
    updated: Value,
    #[serde(rename = "modelConfig")]
    model: Value,
    #[serde(rename = "fullConversationHeadersOnly")]
    headers: Option<Vec<Header>>,
    conversation: Option<Vec<Value>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Header {
    #[serde(rename = "bubbleId", deserialize_with = "text_or_empty")]
    id: String,
}

/// A field that should be text: any other value (`null`, a number) reads as empty, so one
/// odd field does not lose its message.
fn text_or_empty<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<String, D::Error> {
    Ok(text_or_none(d)?.unwrap_or_default())
}

/// A field that should be text, or nothing when it is not.
fn text_or_none<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(text) => Some(text),
        _ => None,
    })
}

/// Messages kept inline: each read on its own (one odd element loses only itself).
fn inline_bubbles(items: Vec<Value>) -> Vec<Bubble> {
    items
        .iter()
        .filter(|item| item.is_object())
        .filter_map(|item| Bubble::deserialize(item).ok())
        .collect()
}

/// What a Cursor store holds, read whole.
#[derive(Debug, Clone, Default)]
pub struct Store {
    /// Every chat with a message, by id.
    pub chats: Vec<Chat>,
    /// Rows read, and those whose JSON did not read.
    pub stats: ReadStats,
}

/// The tables of a Cursor store, when `db` is one: `cursorDiskKV` and `ItemTable` (either may
/// be missing, not both), with `composerHeaders` where Cursor 3 made it.
pub fn tables(db: &Database<'_>) -> Result<Option<[Option<Table>; 3]>> {
    let tables = db.tables()?;
    let find = |name: &str| {
        tables
            .iter()
            .find(|t| t.name == name && t.column("key").is_some() && t.column("value").is_some())
            .cloned()
    };
    let (kv, items) = (find("cursorDiskKV"), find("ItemTable"));
    if kv.is_none() && items.is_none() {
        return Ok(None);
    }
    // Every VS Code keeps an `ItemTable`: only Cursor's has a chat key table too, or its panel.
    if kv.is_none() && !has_legacy_chats(db, items.as_ref())? {
        return Ok(None);
    }
    let headers = tables
        .iter()
        .find(|t| t.name == "composerHeaders" && t.column("composerId").is_some())
        .cloned();
    Ok(Some([kv, items, headers]))
}

fn has_legacy_chats(db: &Database<'_>, items: Option<&Table>) -> Result<bool> {
    let Some(items) = items else {
        return Ok(false);
    };
    let key = items.column("key").unwrap_or(0);
    let mut found = false;
    db.scan(items, Some(&[key]), &mut |row| {
        found = row
            .get(key)
            .as_text()
            .is_some_and(|k| LEGACY_CHATS.contains(&k));
        Ok(if found {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        })
    })?;
    Ok(found)
}

/// A value's bytes, stored as text or as a blob (Cursor declares `BLOB` and writes text).
fn bytes_of(value: &SqlValue) -> Option<&[u8]> {
    value.as_bytes()
}

/// A time as Cursor writes it: ISO text, or a number of milliseconds (seconds when small).
pub(crate) fn when(value: &Value) -> Option<i64> {
    let millis = |n: f64| {
        let n = if n.abs() < 1e11 { n * 1000.0 } else { n };
        // Zero or less is an unset time, not 1970.
        (n.is_finite() && n > 0.0 && n < 1e15).then_some(n as i64)
    };
    match value {
        Value::Number(n) => n.as_f64().and_then(millis),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(n) => millis(n),
            Err(_) => crate::transcripts::Timestamp::parse(s)
                .ok()
                .map(|t| t.millis()),
        },
        _ => None,
    }
}

/// Reads the chats of a Cursor store.
pub fn read(db: &Database<'_>, [kv, items, headers]: &[Option<Table>; 3]) -> Result<Store> {
    let mut store = Store::default();
    let mut documents: Vec<(String, Document, u64)> = Vec::new();
    let mut bubbles: HashMap<String, HashMap<String, (Bubble, u64)>> = HashMap::new();
    if let Some(kv) = kv {
        let (key, value) = (
            kv.column("key").unwrap_or(0),
            kv.column("value").unwrap_or(1),
        );
        db.scan(kv, Some(&[key, value]), &mut |row| {
            let Some(name) = row.get(key).as_text() else {
                return Ok(ControlFlow::Continue(()));
            };
            let Some(bytes) = bytes_of(row.get(value)) else {
                return Ok(ControlFlow::Continue(()));
            };
            if name.starts_with("composerData:") {
                store.stats.lines += 1;
                match serde_json::from_slice::<Document>(bytes) {
                    Ok(document) => {
                        let key = name.trim_start_matches("composerData:").to_owned();
                        documents.push((key, document, bytes.len() as u64));
                    }
                    Err(_) if bytes == b"null" => {}
                    Err(_) => store.stats.malformed += 1,
                }
            } else if let Some(rest) = name.strip_prefix("bubbleId:") {
                store.stats.lines += 1;
                let Some((chat, id)) = rest.split_once(':') else {
                    return Ok(ControlFlow::Continue(()));
                };
                match serde_json::from_slice::<Bubble>(bytes) {
                    Ok(bubble) => {
                        bubbles
                            .entry(chat.to_owned())
                            .or_default()
                            .insert(id.to_owned(), (bubble, bytes.len() as u64));
                    }
                    // A row Cursor emptied.
                    Err(_) if bytes == b"null" => {}
                    Err(_) => store.stats.malformed += 1,
                }
            }
            Ok(ControlFlow::Continue(()))
        })?;
    }
    let projects = match headers {
        Some(headers) => projects(db, headers)?,
        None => HashMap::new(),
    };
    for (key, mut document, size) in documents {
        // The chat is the one its key names (its document's own id where the key has none).
        if !key.is_empty() {
            document.id = key;
        }
        let mut chat = Chat {
            id: document.id.clone(),
            name: document.name.filter(|n| !n.trim().is_empty()),
            created: when(&document.created),
            model: document.model["modelName"]
                .as_str()
                .filter(|m| !m.is_empty() && *m != "default")
                .map(str::to_owned),
            project: projects.get(&document.id).cloned(),
            ..Chat::default()
        };
        let mut mark = Mark {
            newest: when(&document.updated).or(chat.created).unwrap_or(0),
            rows: 1,
            written: size as i64,
        };
        if let Some(headers) = document.headers {
            let mut own = bubbles.remove(&document.id).unwrap_or_default();
            for header in headers {
                // A message the chat lists but no row holds is passed over.
                if let Some((bubble, size)) = own.remove(&header.id) {
                    mark.rows += 1;
                    mark.written = mark.written.wrapping_add(size as i64);
                    chat.bubbles.push(bubble);
                }
            }
        }
        // An older chat keeps its messages inline (and one whose rows are all gone may too).
        if chat.bubbles.is_empty()
            && let Some(inline) = document.conversation
        {
            chat.bubbles = inline_bubbles(inline);
        }
        chat.mark = mark;
        if !chat.id.is_empty() && !chat.bubbles.is_empty() {
            store.chats.push(chat);
        }
    }
    if let Some(items) = items {
        legacy(db, items, &mut store)?;
    }
    store.chats.sort_by(|a, b| a.id.cmp(&b.id));
    store.chats.dedup_by(|a, b| a.id == b.id);
    Ok(store)
}

/// Each chat's folder, as Cursor 3's `composerHeaders` names it.
fn projects(db: &Database<'_>, headers: &Table) -> Result<HashMap<String, String>> {
    let (id, value) = (
        headers.column("composerId").unwrap_or(0),
        headers.column("value").unwrap_or(usize::MAX),
    );
    let mut projects = HashMap::new();
    db.scan(headers, None, &mut |row| {
        let head = bytes_of(row.get(value))
            .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
            .unwrap_or_default();
        let folder = head["workspaceIdentifier"]["uri"]["fsPath"].as_str();
        if let (Some(id), Some(folder)) = (row.get(id).as_text(), folder) {
            projects.insert(id.to_owned(), folder.to_owned());
        }
        Ok(ControlFlow::Continue(()))
    })?;
    Ok(projects)
}

/// The oldest builds' chat panel: tabs of bubbles in one `ItemTable` value.
fn legacy(db: &Database<'_>, items: &Table, store: &mut Store) -> Result<()> {
    let (key, value) = (
        items.column("key").unwrap_or(0),
        items.column("value").unwrap_or(1),
    );
    db.scan(items, Some(&[key, value]), &mut |row| {
        if !row
            .get(key)
            .as_text()
            .is_some_and(|k| LEGACY_CHATS.contains(&k))
        {
            return Ok(ControlFlow::Continue(()));
        }
        store.stats.lines += 1;
        let Some(panel) =
            bytes_of(row.get(value)).and_then(|b| serde_json::from_slice::<Value>(b).ok())
        else {
            store.stats.malformed += 1;
            return Ok(ControlFlow::Continue(()));
        };
        for tab in panel["tabs"].as_array().into_iter().flatten() {
            let bubbles: Vec<Bubble> = tab["bubbles"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| Bubble::deserialize(b).ok())
                .collect();
            let Some(id) = tab["tabId"].as_str().filter(|id| !id.is_empty()) else {
                continue;
            };
            if bubbles.is_empty() {
                continue;
            }
            let sent = when(&tab["lastSendTime"]);
            store.chats.push(Chat {
                id: id.to_owned(),
                name: tab["chatTitle"]
                    .as_str()
                    .filter(|t| !t.trim().is_empty())
                    .map(str::to_owned),
                created: bubbles.iter().find_map(|b| when(&b.timestamp)).or(sent),
                mark: Mark {
                    newest: sent.unwrap_or(0),
                    rows: bubbles.len() as u64,
                    // The tab's whole size: a title, a reply or a tool's result rewritten moves it.
                    written: tab.to_string().len() as i64,
                },
                bubbles,
                ..Chat::default()
            });
        }
        Ok(ControlFlow::Continue(()))
    })
}

impl Store {
    /// Keeps only the chats in `ids`: what a reader builds from is then only what changed.
    pub fn keep_only(&mut self, ids: &std::collections::HashSet<String>) {
        self.chats.retain(|c| ids.contains(&c.id));
    }

    /// Each chat's mark: when its document says it was last written, its message rows and
    /// the sum of their sizes (a message rewritten in place as it streams moves it). A chat
    /// whose mark moved is read again.
    pub fn marks(&self) -> HashMap<String, Mark> {
        self.chats.iter().map(|c| (c.id.clone(), c.mark)).collect()
    }
}
