//! `cursor-agent`'s chats (Cursor's CLI): one SQLite store per chat,
//! `<config>/chats/<md5 of the workspace path>/<chat>/store.db` (`$CURSOR_CONFIG_DIR`, else
//! `~/.cursor`), read through [`crate::transcripts::sqlite`]. Its `meta` table keeps, under key
//! `0`, the chat's document as hex-encoded JSON (`agentId`, `name`, `createdAt` in ms,
//! `lastUsedModel`, `latestRootBlobId`). Its `blobs` table (`id` a SHA-256 in hex, `data`)
//! keeps the messages content-addressed: a message is a JSON document in the AI SDK's shape
//! (`role` system, user, assistant or tool; its content a string or parts: `text`,
//! `reasoning`, `tool-call` with `toolCallId`, `toolName` and `args`, `tool-result` with
//! `result` and `isError`), and a node of the tree lists its children as protobuf field 1
//! (`0x0a 0x20` and the child's 32-byte id), a message possibly after them. The chat is the
//! tree from `latestRootBlobId`, depth first.
//!
//! No message keeps a time (the chat's `createdAt` is its start) or tokens: like the editor's
//! store, the CLI's gives conversations and search, no usage. Every reply's `id` is `"1"`, so
//! a message is known by its blob's id. A prompt carries context in tags beside the
//! `<user_query>` that holds what the person typed.

use crate::error::Result;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of};
use crate::transcripts::mark::Mark;
use crate::transcripts::sqlite::{Database, Table};
use crate::transcripts::{Provider, ReadStats, Timestamp, fingerprint};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;

/// One `cursor-agent` chat, read whole.
#[derive(Debug, Clone, Default)]
pub struct CliChat {
    /// Its id (`agentId`, else its folder's name).
    pub id: String,
    /// The name it was given.
    pub name: Option<String>,
    /// When it was made (ms).
    pub created: Option<i64>,
    /// The model it last used.
    pub model: Option<String>,
    /// Its messages in order, each with its blob's id.
    pub messages: Vec<(String, Value)>,
    /// Where it stood when read.
    pub mark: Mark,
    /// Blobs read, and those that did not read.
    pub stats: ReadStats,
}

/// The tables of a `cursor-agent` store, when `db` is one: `meta` and `blobs`.
pub fn cli_tables(db: &Database<'_>) -> Result<Option<[Table; 2]>> {
    let tables = db.tables()?;
    let find = |name: &str, columns: [&str; 2]| {
        tables
            .iter()
            .find(|t| t.name == name && columns.iter().all(|c| t.column(c).is_some()))
            .cloned()
    };
    Ok(find("meta", ["key", "value"])
        .zip(find("blobs", ["id", "data"]))
        .map(|(m, b)| [m, b]))
}

/// The chat document kept under `meta` key `0`: hex-encoded JSON (or, if a build wrote it
/// so, the JSON itself).
fn document_of(bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?.trim();
    if text.starts_with('{') {
        return serde_json::from_str(text).ok();
    }
    let decoded = hex(text)?;
    serde_json::from_slice(&decoded).ok()
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(text.get(at..at + 2)?, 16).ok())
        .collect()
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads the chat of a `cursor-agent` store named `name` (its path: the chat's folder names
/// it when the document does not).
pub fn read_cli(name: &str, db: &Database<'_>, [meta, blobs]: &[Table; 2]) -> Result<CliChat> {
    let mut chat = CliChat::default();
    let (key, value) = (
        meta.column("key").unwrap_or(0),
        meta.column("value").unwrap_or(1),
    );
    let mut document = Value::Null;
    db.scan(meta, Some(&[key, value]), &mut |row| {
        let is_chat = row.get(key).as_text() == Some("0") || row.get(key).as_integer() == Some(0);
        if is_chat && let Some(bytes) = row.get(value).as_bytes() {
            match document_of(bytes) {
                Some(found) => document = found,
                None => chat.stats.malformed += 1,
            }
        }
        Ok(ControlFlow::Continue(()))
    })?;
    let text = |field: &str| {
        document[field]
            .as_str()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    };
    let folder = name
        .rsplit(['/', '\\'])
        .nth(1)
        .filter(|f| !f.is_empty())
        .map(str::to_owned);
    chat.id = text("agentId").or(folder).unwrap_or_default();
    chat.name = text("name");
    chat.model = text("lastUsedModel").filter(|m| m != "default");
    chat.created = super::when(&document["createdAt"]);
    let root = text("latestRootBlobId").unwrap_or_default();
    let (id, data) = (
        blobs.column("id").unwrap_or(0),
        blobs.column("data").unwrap_or(1),
    );
    let mut all: HashMap<String, Vec<u8>> = HashMap::new();
    db.scan(blobs, Some(&[id, data]), &mut |row| {
        let key = match (row.get(id).as_text(), row.get(id).as_bytes()) {
            (Some(text), _) => text.to_ascii_lowercase(),
            (None, Some(bytes)) => hex_of(bytes),
            (None, None) => return Ok(ControlFlow::Continue(())),
        };
        if let Some(bytes) = row.get(data).as_bytes() {
            all.insert(key, bytes.to_vec());
        }
        Ok(ControlFlow::Continue(()))
    })?;
    chat.mark = Mark {
        newest: chat.created.unwrap_or(0),
        rows: all.len() as u64,
        written: (fingerprint(&[root.as_bytes()]) as i64) & i64::MAX,
    };
    walk(&root, &all, &mut chat);
    Ok(chat)
}

/// The messages of the tree from `root`, depth first; each blob once (a cycle or a shared
/// node is not followed twice).
fn walk(root: &str, all: &HashMap<String, Vec<u8>>, chat: &mut CliChat) {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = vec![root];
    while let Some(id) = stack.pop() {
        let Some((key, data)) = all.get_key_value(id) else {
            continue;
        };
        if !seen.insert(key.as_str()) {
            continue;
        }
        chat.stats.lines += 1;
        let mut at = 0;
        let mut children = Vec::new();
        while data.len() >= at + 34 && data[at] == 0x0a && data[at + 1] == 0x20 {
            children.push(hex_of(&data[at + 2..at + 34]));
            at += 34;
        }
        let rest = &data[at..];
        if let Some(start) = rest.iter().position(|b| *b == b'{') {
            match serde_json::from_slice::<Value>(&rest[start..]) {
                Ok(message) if message.is_object() => chat.messages.push((key.clone(), message)),
                _ => chat.stats.malformed += 1,
            }
        } else if children.is_empty() {
            chat.stats.malformed += 1;
        }
        // Children in their order: pushed last first.
        for child in children.iter().rev() {
            if let Some((child, _)) = all.get_key_value(child.as_str()) {
                stack.push(child.as_str());
            }
        }
    }
}

/// The chat as a conversation: Cursor's, its messages each known by its blob.
pub fn cli_conversation(chat: &CliChat, parsed: &mut Parsed) {
    if chat.id.is_empty() {
        return;
    }
    let mut conversation = Conversation::new(Provider::Cursor, chat.id.clone());
    conversation.title = chat.name.clone();
    conversation.started_at = chat.created.map(Timestamp::from_millis);
    let mut previous: Option<String> = None;
    for (blob, message) in &chat.messages {
        let (role, blocks) = match message["role"].as_str() {
            Some("system") => continue,
            Some("user") => (Role::User, prompt_blocks(&message["content"])),
            Some("assistant") => (Role::Assistant, reply_blocks(&message["content"])),
            Some("tool") => (Role::Tool, reply_blocks(&message["content"])),
            other => {
                let kind = other.unwrap_or("message without a role").to_owned();
                parsed.unknown(kind, message.to_string().as_bytes());
                continue;
            }
        };
        if blocks.is_empty() {
            continue;
        }
        if role == Role::User && conversation.first_prompt.is_none() {
            conversation.first_prompt = blocks.iter().find_map(|b| match b {
                Block::Text { text } => prompt_title(text),
                _ => None,
            });
        }
        let model = (role == Role::Assistant)
            .then(|| model_of(&message["content"]).or_else(|| chat.model.clone()))
            .flatten();
        conversation.messages.push(Message {
            id: blob.clone(),
            parent: previous.replace(blob.clone()),
            role,
            at: None,
            blocks,
            model,
            side_chain: false,
            tokens: None,
        });
    }
    if conversation.messages.is_empty() {
        return;
    }
    conversation.active_leaf = previous;
    conversation.seal();
    parsed.conversations.push(conversation);
}

/// The tags the CLI's context sits in when it sends it as a prompt of its own.
const CONTEXT_TAGS: [&str; 4] = [
    "<user_info>",
    "<additional_data>",
    "<system_reminder>",
    "<project_layout>",
];

/// A prompt's text: what the person typed (inside `<user_query>`), the context beside it left
/// out; a prompt of context alone gives nothing.
fn prompt_blocks(content: &Value) -> Vec<Block> {
    let text = match content {
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] == "text" || p.is_string())
            .map(|p| {
                p.as_str()
                    .map_or_else(|| text_of(&p["text"]), str::to_owned)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => text_of(other),
    };
    let typed = match super::user_query(&text) {
        Some(typed) => typed.to_owned(),
        // Context the CLI sends on its own (its tags first): not something the person typed.
        None if CONTEXT_TAGS
            .iter()
            .any(|t| text.trim_start().starts_with(t)) =>
        {
            String::new()
        }
        None => text.trim().to_owned(),
    };
    if typed.is_empty() {
        Vec::new()
    } else {
        vec![Block::Text { text: typed }]
    }
}

/// A reply's or a tool's parts as blocks.
fn reply_blocks(content: &Value) -> Vec<Block> {
    let Value::Array(parts) = content else {
        let text = text_of(content);
        return if text.trim().is_empty() {
            Vec::new()
        } else {
            vec![Block::Text { text }]
        };
    };
    parts
        .iter()
        .filter_map(|part| {
            Some(match part["type"].as_str().unwrap_or("") {
                "text" => Block::Text {
                    text: text_of(&part["text"]),
                }
                .non_empty()?,
                "reasoning" => Block::Thinking {
                    text: text_of(&part["text"]),
                },
                "tool-call" => Block::ToolCall {
                    id: text_of(&part["toolCallId"]),
                    name: text_of(&part["toolName"]),
                    input: part["args"].to_string(),
                },
                "tool-result" => Block::ToolResult {
                    call_id: text_of(&part["toolCallId"]),
                    output: text_of(&part["result"]),
                    is_error: part["isError"].as_bool().unwrap_or(false),
                },
                other => Block::Other {
                    kind: other.to_owned(),
                    raw: part.to_string(),
                },
            })
        })
        .collect()
}

/// The model a reply names (`providerOptions.cursor.modelName` on one of its parts).
fn model_of(content: &Value) -> Option<String> {
    content.as_array()?.iter().find_map(|part| {
        part["providerOptions"]["cursor"]["modelName"]
            .as_str()
            .filter(|m| !m.is_empty() && *m != "default")
            .map(str::to_owned)
    })
}

trait NonEmpty: Sized {
    fn non_empty(self) -> Option<Self>;
}

impl NonEmpty for Block {
    /// `None` for a text block with nothing in it.
    fn non_empty(self) -> Option<Block> {
        match &self {
            Block::Text { text } if text.trim().is_empty() => None,
            _ => Some(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_what_the_person_typed_and_context_alone_is_none() {
        let typed = |text: &str| match prompt_blocks(&Value::String(text.into())).as_slice() {
            [Block::Text { text }] => Some(text.clone()),
            _ => None,
        };
        assert_eq!(
            typed("<user_info>os</user_info>\n<user_query>\nFix it\n</user_query>").as_deref(),
            Some("Fix it")
        );
        assert_eq!(typed("<user_info>os</user_info>"), None);
        assert_eq!(
            typed("<div> renders twice").as_deref(),
            Some("<div> renders twice")
        );
        assert_eq!(hex("4142").as_deref(), Some(&b"AB"[..]));
        assert_eq!(hex("414"), None);
        assert_eq!(hex("zz"), None);
    }
}
