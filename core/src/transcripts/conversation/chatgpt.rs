//! ChatGPT exports: each conversation's `mapping` of nodes, its current node, and the parts each
//! content type keeps its text in. An assistant message addressed to something other than
//! `all` (a plugin, canvas `canmore.*`, memory `bio`, `python`, `browser`, `dalle…`, `web`) is
//! a call of that tool, and a `tool` author's message is its result; reasoning summaries are
//! thinking; nodes ChatGPT hides from its own reader are left out unless asked for.

use crate::transcripts::Provider;
use crate::transcripts::conversation::exports::export_items;
use crate::transcripts::conversation::{
    Block, Conversation, Message, Parsed, ReadOptions, Role, text_of, time,
};
use serde_json::Value;
use std::collections::BTreeSet;

/// ChatGPT `conversations.json`: the message tree from `mapping`, active branch from
/// `current_node` (else the newest leaf), tool messages and models kept, hidden nodes left out.
pub fn parse_chatgpt(bytes: &[u8]) -> Parsed {
    parse_chatgpt_with(bytes, ReadOptions::default())
}

/// [`parse_chatgpt`] with options (hidden nodes kept on request).
pub fn parse_chatgpt_with(bytes: &[u8], options: ReadOptions) -> Parsed {
    let mut parsed = Parsed::default();
    for item in export_items(bytes, &mut parsed) {
        if let Some(c) = chatgpt_conversation(&item, options) {
            parsed.conversations.push(c);
        }
    }
    parsed
}

/// Content types that hold context ChatGPT adds itself and never shows as a message (custom
/// instructions, memory).
const CONTEXT_TYPES: &[&str] = &["user_editable_context", "model_editable_context"];

/// Whether ChatGPT's own reader hides this message.
fn is_hidden(message: &Value) -> bool {
    message["metadata"]["is_visually_hidden_from_conversation"] == true
        || message["content"]["content_type"]
            .as_str()
            .is_some_and(|t| CONTEXT_TYPES.contains(&t))
}

/// The text a content holds, wherever its type keeps it.
fn content_text(content: &Value) -> String {
    for key in ["text", "parts", "result", "content"] {
        let text = text_of(&content[key]);
        if !text.is_empty() {
            return text;
        }
    }
    String::new()
}

/// A reasoning summary's text: each thought's summary and content (`thoughts`), or the recap
/// line (`reasoning_recap`).
fn thinking_text(content: &Value) -> String {
    match content["thoughts"].as_array() {
        Some(thoughts) => thoughts
            .iter()
            .map(|t| {
                [t["summary"].as_str(), t["content"].as_str()]
                    .into_iter()
                    .flatten()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        None => text_of(&content["content"]),
    }
}

/// One node's message as blocks, by who wrote it, whom it addresses and its content type.
fn blocks_of(node_id: &str, node: &Value, role: Role) -> Vec<Block> {
    let message = &node["message"];
    let content = &message["content"];
    let kind = content["content_type"].as_str().unwrap_or("text");
    let recipient = message["recipient"].as_str().unwrap_or("all");
    match kind {
        "thoughts" | "reasoning_recap" => vec![Block::Thinking {
            text: thinking_text(content),
        }],
        _ if role == Role::Tool => vec![Block::ToolResult {
            call_id: node["parent"].as_str().unwrap_or("").to_owned(),
            output: content_text(content),
            is_error: kind == "system_error",
        }],
        _ if role == Role::Assistant && recipient != "all" && !recipient.is_empty() => {
            vec![Block::ToolCall {
                id: node_id.to_owned(),
                name: recipient.to_owned(),
                input: content_text(content),
            }]
        }
        "code" => vec![Block::ToolCall {
            id: node_id.to_owned(),
            name: "code".to_owned(),
            input: content_text(content),
        }],
        "text" | "multimodal_text" => vec![Block::Text {
            text: text_of(&content["parts"]),
        }],
        other => vec![Block::Other {
            kind: other.to_owned(),
            raw: content.to_string(),
        }],
    }
}

/// Answers "the node `from`, or its nearest ancestor, that is kept" for every node of a
/// mapping, each node climbed at most once: a climb remembers its answer for every node it
/// passed, so a long chain of empty or hidden nodes under many kept ones stays linear. A
/// cycle ends the climb with no answer.
struct Nearest<'a> {
    mapping: &'a serde_json::Map<String, Value>,
    known: std::collections::HashMap<&'a str, Option<&'a str>>,
}

impl<'a> Nearest<'a> {
    fn new(mapping: &'a serde_json::Map<String, Value>) -> Nearest<'a> {
        Nearest {
            mapping,
            known: std::collections::HashMap::new(),
        }
    }

    fn of(&mut self, kept: &dyn Fn(&str) -> bool, from: Option<&str>) -> Option<String> {
        let mut path: Vec<&'a str> = Vec::new();
        let mut on_path = BTreeSet::new();
        let mut cursor: Option<&'a str> = from
            .and_then(|f| self.mapping.get_key_value(f))
            .map(|(k, _)| k.as_str());
        let answer = loop {
            let Some(node) = cursor else {
                break None;
            };
            if let Some(found) = self.known.get(node) {
                break *found;
            }
            if kept(node) {
                break Some(node);
            }
            if !on_path.insert(node) {
                break None;
            }
            path.push(node);
            cursor = self.mapping[node]["parent"]
                .as_str()
                .and_then(|p| self.mapping.get_key_value(p))
                .map(|(k, _)| k.as_str());
        };
        for node in path {
            self.known.insert(node, answer);
        }
        answer.map(str::to_owned)
    }
}

/// One ChatGPT conversation object; `None` when the object is no conversation (it has no
/// `mapping`: a row of another file of the export).
pub(crate) fn chatgpt_conversation(item: &Value, options: ReadOptions) -> Option<Conversation> {
    let mapping = item["mapping"].as_object()?;
    let id = item["conversation_id"]
        .as_str()
        .or(item["id"].as_str())
        .unwrap_or("")
        .to_owned();
    let mut conversation = Conversation::new(Provider::Chatgpt, id);
    conversation.title = item["title"].as_str().map(str::to_owned);
    conversation.started_at = time(&item["create_time"]);
    conversation.updated_at = time(&item["update_time"]);
    let kept = |id: &str| {
        mapping.get(id).is_some_and(|n| {
            n["message"].is_object() && (options.include_hidden || !is_hidden(&n["message"]))
        })
    };
    // Parents are node ids; empty root nodes and hidden nodes are left out, so climb past them.
    let mut nearest = Nearest::new(mapping);
    let mut nearest_kept = |from: Option<&str>| nearest.of(&kept, from);
    for (node_id, node) in mapping {
        if !kept(node_id) {
            continue;
        }
        let message = &node["message"];
        let role = match message["author"]["role"].as_str().unwrap_or("") {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => Role::System,
        };
        conversation.messages.push(Message {
            id: node_id.clone(),
            parent: nearest_kept(node["parent"].as_str()),
            role,
            at: time(&message["create_time"]),
            blocks: blocks_of(node_id, node, role),
            model: message["metadata"]["model_slug"]
                .as_str()
                .map(str::to_owned),
            side_chain: false,
            tokens: None,
        });
    }
    conversation.active_leaf = match item["current_node"].as_str() {
        Some(leaf) => nearest_kept(Some(leaf)),
        None => {
            let parents: BTreeSet<&str> = conversation
                .messages
                .iter()
                .filter_map(|m| m.parent.as_deref())
                .collect();
            conversation
                .messages
                .iter()
                .filter(|m| !parents.contains(m.id.as_str()))
                .max_by_key(|m| m.at)
                .map(|m| m.id.clone())
        }
    };
    conversation.seal();
    Some(conversation)
}
