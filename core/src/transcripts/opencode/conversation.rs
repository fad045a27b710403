//! OpenCode sessions as conversations: one per top session, its messages in the order they
//! were made, each message's parts as blocks (text, reasoning, a tool call with its result),
//! the bookkeeping parts (steps, snapshots, patches) left out, a child session's messages
//! hung in as a sub-agent's thread. The session's title names it, unless it is the title the
//! agent gives before it names one.

use super::{DataRow, Store};
use crate::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role};
use crate::transcripts::{Provider, opencode::usage::tokens_of};
use serde_json::Value;
use std::collections::HashMap;

/// The titles OpenCode gives a session before it names it.
const PLACEHOLDER_TITLES: &[&str] = &["New session - ", "Child session - "];

/// Part kinds that are the agent's bookkeeping, not what was said (the others are not read).
const NOT_SHOWN: &[&str] = &["step-finish"];

/// The conversations of a database's sessions.
pub fn conversations(provider: Provider, store: &Store) -> Parsed {
    let roots = store.roots();
    let mut parts: HashMap<&str, Vec<&DataRow>> = HashMap::new();
    for part in &store.parts {
        parts.entry(part.message.as_str()).or_default().push(part);
    }
    let mut by_session: HashMap<&str, Vec<&DataRow>> = HashMap::new();
    for message in &store.messages {
        by_session
            .entry(message.session.as_str())
            .or_default()
            .push(message);
    }
    let mut parsed = Parsed {
        stats: store.stats.clone(),
        ..Parsed::default()
    };
    let mut places: HashMap<&str, usize> = HashMap::new();
    // Top sessions first, so a child's thread is hung in its parent's conversation.
    let mut sessions: Vec<_> = store.sessions.iter().collect();
    sessions.sort_by_key(|s| (roots.get(s.id.as_str()) != Some(&s.id.as_str()), s.created));
    for session in sessions {
        let root = roots
            .get(session.id.as_str())
            .copied()
            .unwrap_or(&session.id);
        let side_chain = root != session.id;
        let mut conversation = Conversation::new(provider, root);
        conversation.project = session.directory.clone();
        conversation.title = session
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .filter(|t| !PLACEHOLDER_TITLES.iter().any(|p| t.starts_with(p)));
        let mut previous: Option<String> = None;
        for row in by_session.remove(session.id.as_str()).unwrap_or_default() {
            let message = message_of(row, parts.get(row.id.as_str()), previous.take(), side_chain);
            if conversation.first_prompt.is_none() && message.role == Role::User && !side_chain {
                conversation.first_prompt = message.blocks.iter().find_map(|b| match b {
                    Block::Text { text } => prompt_title(text),
                    _ => None,
                });
            }
            previous = Some(message.id.clone());
            conversation.messages.push(message);
        }
        conversation.seal();
        match places.get(root) {
            Some(&at) => parsed.conversations[at].absorb(conversation),
            None => {
                places.insert(root, parsed.conversations.len());
                parsed.conversations.push(conversation);
            }
        }
    }
    parsed
}

fn millis(value: &Value) -> Option<Timestamp> {
    value.as_i64().map(Timestamp::from_millis)
}

fn message_of(
    row: &DataRow,
    parts: Option<&Vec<&DataRow>>,
    parent: Option<String>,
    side_chain: bool,
) -> Message {
    let data = &row.data;
    let assistant = data["role"] == "assistant";
    let mut blocks = Vec::new();
    for part in parts.into_iter().flatten() {
        blocks_of(&part.data, &mut blocks);
    }
    if let Some(error) = data["error"].as_object() {
        let name = error.get("name").and_then(Value::as_str).unwrap_or("error");
        let said = error
            .get("data")
            .and_then(|d| d.get("message"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        blocks.push(Block::Other {
            kind: "error".into(),
            raw: format!("{name}: {said}").trim_end_matches(": ").to_owned(),
        });
    }
    Message {
        id: row.id.clone(),
        parent,
        role: if assistant {
            Role::Assistant
        } else {
            Role::User
        },
        at: millis(&data["time"]["created"]).or(Some(Timestamp::from_millis(row.created))),
        blocks,
        model: assistant
            .then(|| data["modelID"].as_str().map(str::to_owned))
            .flatten(),
        side_chain,
        tokens: assistant
            .then(|| response_tokens(data, parts))
            .filter(|t| t.input_tokens + t.output_tokens + t.cache_read_tokens > 0),
    }
}

/// A response's tokens: the sum of its steps (the message's own are only its last step's),
/// else the message's.
fn response_tokens(data: &Value, parts: Option<&Vec<&DataRow>>) -> TokenTotals {
    let mut steps = parts
        .into_iter()
        .flatten()
        .filter(|p| p.data["type"] == "step-finish")
        .map(|p| tokens_of(&p.data["tokens"]))
        .peekable();
    if steps.peek().is_none() {
        return tokens_of(&data["tokens"]);
    }
    steps.fold(TokenTotals::default(), |mut sum, t| {
        sum.add(&t);
        sum
    })
}

/// The blocks one part gives.
fn blocks_of(part: &Value, blocks: &mut Vec<Block>) {
    let text = |key: &str| part[key].as_str().unwrap_or_default().to_owned();
    match part["type"].as_str().unwrap_or_default() {
        "text" if part["ignored"] != true => blocks.push(Block::Text { text: text("text") }),
        "reasoning" => blocks.push(Block::Thinking { text: text("text") }),
        "tool" => {
            let state = &part["state"];
            let id = text("callID");
            blocks.push(Block::ToolCall {
                id: id.clone(),
                name: text("tool"),
                input: state["input"].to_string(),
            });
            let status = state["status"].as_str().unwrap_or_default();
            if matches!(status, "completed" | "error") {
                let output = state["output"]
                    .as_str()
                    .or(state["error"].as_str())
                    .unwrap_or_default();
                blocks.push(Block::ToolResult {
                    call_id: id,
                    output: output.to_owned(),
                    is_error: status == "error",
                });
            }
        }
        // A file's bytes may be inline (a data: URL): its name and type are kept.
        "file" => blocks.push(Block::Other {
            kind: "file".into(),
            raw: serde_json::json!({"mime": part["mime"], "filename": part["filename"]})
                .to_string(),
        }),
        kind if NOT_SHOWN.contains(&kind) || kind == "text" => {}
        kind => blocks.push(Block::Other {
            kind: kind.to_owned(),
            raw: part.to_string(),
        }),
    }
}
