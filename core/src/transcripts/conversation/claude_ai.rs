//! claude.ai exports: `chat_messages` with their parent links and content blocks.

use crate::transcripts::Provider;
use crate::transcripts::conversation::exports::export_items;
use crate::transcripts::conversation::{
    Block, Conversation, Message, Parsed, Role, anthropic_blocks, text_of, time,
};
use serde_json::Value;
use std::collections::BTreeSet;
/// claude.ai exports (bulk array, or one conversation from the API): `content[]` blocks with
/// thinking kept apart, branches via `parent_message_uuid`, empty conversations kept.
pub fn parse_claude_ai(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    for item in export_items(bytes, &mut parsed) {
        if let Some(c) = claude_ai_conversation(&item) {
            parsed.conversations.push(c);
        }
    }
    parsed
}

/// One claude.ai conversation object; `None` when the object is no conversation (it has no
/// `chat_messages`: a project, a user or a memory of the export's other files).
pub(crate) fn claude_ai_conversation(item: &Value) -> Option<Conversation> {
    item.get("chat_messages")?;
    {
        let mut conversation =
            Conversation::new(Provider::ClaudeAi, item["uuid"].as_str().unwrap_or(""));
        conversation.title = item["name"]
            .as_str()
            .filter(|n| !n.is_empty())
            .map(str::to_owned);
        conversation.started_at = time(&item["created_at"]);
        conversation.updated_at = time(&item["updated_at"]);
        let mut previous: Option<String> = None;
        for m in item["chat_messages"].as_array().into_iter().flatten() {
            let id = m["uuid"].as_str().unwrap_or("").to_owned();
            let blocks = match m["content"].as_array() {
                Some(content) if !content.is_empty() => anthropic_blocks(&m["content"]),
                _ => vec![Block::Text {
                    text: text_of(&m["text"]),
                }],
            };
            // A parent that is no message of this conversation (the export's all-zero root
            // sentinel) makes a root; it is settled once every id is known, below.
            let parent = match m["parent_message_uuid"].as_str() {
                Some(p) => Some(p.to_owned()),
                None => previous.clone(),
            };
            conversation.messages.push(Message {
                id: id.clone(),
                parent,
                role: if m["sender"] == "human" {
                    Role::User
                } else {
                    Role::Assistant
                },
                at: time(&m["created_at"]),
                blocks,
                model: None,
                side_chain: false,
                tokens: None,
            });
            previous = Some(id);
        }
        let ids: BTreeSet<String> = conversation.messages.iter().map(|m| m.id.clone()).collect();
        for message in &mut conversation.messages {
            if message.parent.as_ref().is_some_and(|p| !ids.contains(p)) {
                message.parent = None;
            }
        }
        conversation.active_leaf = item["current_leaf_message_uuid"]
            .as_str()
            .map(str::to_owned)
            .or(previous);
        conversation.seal();
        Some(conversation)
    }
}
