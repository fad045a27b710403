//! ChatGPT exports: each conversation's `mapping` of nodes, its current node, and the parts each
//! content type keeps its text in.

use crate::transcripts::Provider;
use crate::transcripts::conversation::exports::export_items;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use serde_json::Value;
use std::collections::BTreeSet;
/// ChatGPT `conversations.json`: the message tree from `mapping`, active branch from
/// `current_node` (else the newest leaf), tool messages and models kept.
pub fn parse_chatgpt(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    for item in export_items(bytes, &mut parsed) {
        parsed.conversations.push(chatgpt_conversation(&item));
    }
    parsed
}

/// One ChatGPT conversation object.
pub(crate) fn chatgpt_conversation(item: &Value) -> Conversation {
    {
        let id = item["conversation_id"]
            .as_str()
            .or(item["id"].as_str())
            .unwrap_or("")
            .to_owned();
        let mut conversation = Conversation::new(Provider::Chatgpt, id);
        conversation.title = item["title"].as_str().map(str::to_owned);
        conversation.started_at = time(&item["create_time"]);
        conversation.updated_at = time(&item["update_time"]);
        let Some(mapping) = item["mapping"].as_object() else {
            return conversation;
        };
        for (node_id, node) in mapping {
            let message = &node["message"];
            if !message.is_object() {
                continue;
            }
            let role = match message["author"]["role"].as_str().unwrap_or("") {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => Role::System,
            };
            let content = &message["content"];
            let kind = content["content_type"].as_str().unwrap_or("text");
            let blocks = match kind {
                "text" | "multimodal_text" => vec![Block::Text {
                    text: text_of(&content["parts"]),
                }],
                "code" => vec![Block::ToolCall {
                    id: node_id.clone(),
                    name: message["recipient"].as_str().unwrap_or("code").to_owned(),
                    input: text_of(&content["text"]),
                }],
                "thoughts" | "reasoning_recap" => vec![Block::Thinking {
                    text: content["thoughts"].to_string(),
                }],
                other if role == Role::Tool => vec![Block::ToolResult {
                    call_id: node["parent"].as_str().unwrap_or("").to_owned(),
                    output: text_of(&content["text"]).or_parts(content),
                    is_error: other == "system_error",
                }],
                other => vec![Block::Other {
                    kind: other.to_owned(),
                    raw: content.to_string(),
                }],
            };
            // Parents are node ids; empty root nodes are skipped, so climb past them.
            let mut parent = node["parent"].as_str();
            while let Some(p) = parent {
                if mapping.get(p).is_some_and(|n| n["message"].is_object()) {
                    break;
                }
                parent = mapping.get(p).and_then(|n| n["parent"].as_str());
            }
            conversation.messages.push(Message {
                id: node_id.clone(),
                parent: parent.map(str::to_owned),
                role,
                at: time(&message["create_time"]),
                blocks,
                model: message["metadata"]["model_slug"]
                    .as_str()
                    .map(str::to_owned),
            });
        }
        conversation.active_leaf = match item["current_node"].as_str() {
            Some(leaf) => Some(leaf.to_owned()),
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
        conversation
    }
}

trait OrParts {
    fn or_parts(self, content: &Value) -> String;
}

impl OrParts for String {
    fn or_parts(self, content: &Value) -> String {
        if self.is_empty() {
            text_of(&content["parts"])
        } else {
            self
        }
    }
}
