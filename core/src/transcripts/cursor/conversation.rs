//! A Cursor chat as a conversation: its prompts, its replies with their thinking, and each
//! tool a reply ran as a call and a result; its title the name Cursor gave it, else its first
//! prompt. No message carries tokens (see the module above).

use super::{Bubble, Chat, Store, when};
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of};
use crate::transcripts::{Provider, Timestamp};
use serde_json::Value;

/// The conversations of a store's chats.
pub fn conversations(store: &Store) -> Parsed {
    let mut parsed = Parsed {
        stats: store.stats.clone(),
        ..Parsed::default()
    };
    for chat in &store.chats {
        if let Some(conversation) = conversation(chat, &mut parsed) {
            parsed.conversations.push(conversation);
        }
    }
    parsed
}

fn conversation(chat: &Chat, parsed: &mut Parsed) -> Option<Conversation> {
    let mut conversation = Conversation::new(Provider::Cursor, chat.id.clone());
    conversation.title = chat.name.clone();
    conversation.project = chat.project.clone();
    conversation.started_at = chat.created.map(Timestamp::from_millis);
    let mut previous: Option<String> = None;
    for (at, bubble) in chat.bubbles.iter().enumerate() {
        let number = if bubble.id.is_empty() {
            at.to_string()
        } else {
            bubble.id.clone()
        };
        let time = when(&bubble.created)
            .or_else(|| when(&bubble.timestamp))
            .map(Timestamp::from_millis);
        let mut push = |role: Role, blocks: Vec<Block>, model: Option<String>, id: String| {
            conversation.messages.push(Message {
                id: id.clone(),
                parent: previous.replace(id),
                role,
                at: time,
                blocks,
                model,
                side_chain: false,
                tokens: None,
            });
        };
        match role_of(&bubble.kind) {
            Some(Role::User) => {
                if bubble.text.trim().is_empty() {
                    continue;
                }
                if conversation.first_prompt.is_none() {
                    conversation.first_prompt = prompt_title(&bubble.text);
                }
                let blocks = vec![Block::Text {
                    text: bubble.text.clone(),
                }];
                push(Role::User, blocks, None, format!("{}:{number}", chat.id));
            }
            Some(_) => {
                let (blocks, result) = reply(bubble, &number);
                if blocks.is_empty() {
                    continue;
                }
                let model = bubble.model["modelName"]
                    .as_str()
                    .filter(|m| !m.is_empty() && *m != "default")
                    .map(str::to_owned)
                    .or_else(|| chat.model.clone());
                push(
                    Role::Assistant,
                    blocks,
                    model,
                    format!("{}:{number}", chat.id),
                );
                if let Some(result) = result {
                    push(
                        Role::Tool,
                        vec![result],
                        None,
                        format!("{}:{number}:result", chat.id),
                    );
                }
            }
            None => {
                // A short label whatever the value holds, and no text of the person's.
                let kind = match &bubble.kind {
                    Value::Number(n) => n.to_string(),
                    Value::String(s) => s.chars().take(32).collect(),
                    _ => "other".to_owned(),
                };
                parsed.unknown(format!("bubble of type {kind}"), b"");
            }
        }
    }
    if conversation.messages.is_empty() {
        return None;
    }
    conversation.active_leaf = previous;
    conversation.seal();
    Some(conversation)
}

/// A bubble's role: 1 (or `user`) a prompt, 2 (or `ai`) a reply.
fn role_of(kind: &Value) -> Option<Role> {
    match kind {
        Value::Number(n) if n.as_u64() == Some(1) => Some(Role::User),
        Value::Number(n) if n.as_u64() == Some(2) => Some(Role::Assistant),
        Value::String(s) if s == "user" => Some(Role::User),
        Value::String(s) if s == "ai" || s == "assistant" => Some(Role::Assistant),
        _ => None,
    }
}

/// A reply's blocks (thinking, text, a tool's call) and the tool's result, when it ran.
fn reply(bubble: &Bubble, number: &str) -> (Vec<Block>, Option<Block>) {
    let mut blocks = Vec::new();
    let thinking = text_of(&bubble.thinking["text"]);
    if !thinking.trim().is_empty() {
        blocks.push(Block::Thinking { text: thinking });
    }
    if !bubble.text.trim().is_empty() {
        blocks.push(Block::Text {
            text: bubble.text.clone(),
        });
    }
    let tool = &bubble.tool;
    let Some(name) = tool["name"].as_str().filter(|n| !n.is_empty()) else {
        return (blocks, None);
    };
    let id = match tool["toolCallId"].as_str() {
        Some(id) if !id.is_empty() => id.trim().to_owned(),
        _ => format!("call-{number}"),
    };
    // Arguments and result are JSON kept as text; `rawArgs` is often empty.
    let input = [&tool["params"], &tool["rawArgs"]]
        .into_iter()
        .find_map(|v| match v {
            Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
            Value::Object(_) => Some(v.to_string()),
            _ => None,
        })
        .unwrap_or_else(|| "{}".to_owned());
    blocks.push(Block::ToolCall {
        id: id.clone(),
        name: name.to_owned(),
        input,
    });
    let status = tool["status"].as_str().unwrap_or_default();
    let output = match &tool["result"] {
        Value::String(s) => Some(s.clone()),
        Value::Null => tool["error"].as_str().map(str::to_owned),
        other => Some(other.to_string()),
    };
    let result = match output {
        Some(output) => Some(Block::ToolResult {
            call_id: id,
            output,
            is_error: matches!(status, "error" | "cancelled"),
        }),
        None if matches!(status, "error" | "cancelled") => Some(Block::ToolResult {
            call_id: id,
            output: String::new(),
            is_error: true,
        }),
        None => None,
    };
    (blocks, result)
}
