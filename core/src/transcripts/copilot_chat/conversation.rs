//! A Copilot Chat session as a conversation: each request's prompt, then its response's parts
//! (text, thinking, the tools it invoked with what they did), its title the one Copilot gave
//! it, else its first prompt.

use super::{Session, markdown, model_of, read_session, session_id};
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role};
use crate::transcripts::{Provider, Timestamp};
use serde_json::Value;

/// Reads a Copilot Chat session as a conversation.
pub(super) fn conversation_of(path: &str, bytes: &[u8], folder: Option<&str>, parsed: &mut Parsed) {
    if let Some(session) = read_session(bytes, &mut parsed.stats) {
        conversation_of_session(path, &session, folder, parsed);
    }
}

/// A session read as a conversation.
pub(super) fn conversation_of_session(
    path: &str,
    session: &Session,
    folder: Option<&str>,
    parsed: &mut Parsed,
) {
    let state = &session.state;
    let id = session_id(state, path);
    let mut conversation = Conversation::new(Provider::CopilotChat, id.clone());
    conversation.project = folder.map(str::to_owned);
    conversation.started_at = state["creationDate"].as_i64().map(Timestamp::from_millis);
    conversation.title = state["customTitle"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned);
    let mut previous: Option<String> = None;
    let mut push = |message: Message, conversation: &mut Conversation| {
        let id = message.id.clone();
        conversation.messages.push(Message {
            parent: previous.replace(id),
            ..message
        });
    };
    for (at, request) in state["requests"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        if !request.is_object() {
            parsed.stats.malformed += 1;
            continue;
        }
        let number = request["requestId"]
            .as_str()
            .map_or_else(|| at.to_string(), str::to_owned);
        let when = request["timestamp"].as_i64().map(Timestamp::from_millis);
        let prompt = markdown(&request["message"]["text"]);
        let prompt = if prompt.is_empty() {
            markdown(&request["message"])
        } else {
            prompt
        };
        if conversation.first_prompt.is_none() {
            conversation.first_prompt = prompt_title(&prompt);
        }
        push(
            Message {
                id: format!("{id}:{number}:prompt"),
                parent: None,
                role: Role::User,
                at: when,
                blocks: vec![Block::Text { text: prompt }],
                model: None,
                side_chain: false,
                tokens: None,
            },
            &mut conversation,
        );
        let (blocks, results) = response(request);
        let answered = request["modelState"]["completedAt"]
            .as_i64()
            .map(Timestamp::from_millis)
            .or(when);
        let tokens = super::billed(request).map(|b| b.tokens);
        push(
            Message {
                id: format!("{id}:{number}:response"),
                parent: None,
                role: Role::Assistant,
                at: answered,
                blocks,
                model: model_of(request),
                side_chain: false,
                tokens,
            },
            &mut conversation,
        );
        if !results.is_empty() {
            push(
                Message {
                    id: format!("{id}:{number}:tools"),
                    parent: None,
                    role: Role::Tool,
                    at: answered,
                    blocks: results,
                    model: None,
                    side_chain: false,
                    tokens: None,
                },
                &mut conversation,
            );
        }
    }
    if conversation.messages.is_empty() {
        return;
    }
    conversation.active_leaf = conversation.messages.last().map(|m| m.id.clone());
    conversation.seal();
    parsed.conversations.push(conversation);
}

/// A response's blocks (text, thinking, tool calls) and the results of the tools it ran.
fn response(request: &Value) -> (Vec<Block>, Vec<Block>) {
    let (mut blocks, mut results) = (Vec::new(), Vec::new());
    let mut text = String::new();
    let flush = |text: &mut String, blocks: &mut Vec<Block>| {
        if !text.trim().is_empty() {
            blocks.push(Block::Text {
                text: std::mem::take(text),
            });
        }
        text.clear();
    };
    for part in request["response"].as_array().into_iter().flatten() {
        match part["kind"].as_str() {
            // Text is written without a kind, in pieces.
            None if part.get("value").is_some() || part.is_string() => {
                text.push_str(&markdown(part));
            }
            Some("markdownContent") => text.push_str(&markdown(&part["content"])),
            Some("inlineReference") => {
                let reference = &part["inlineReference"];
                let name = part["name"].as_str().or_else(|| reference["path"].as_str());
                text.push_str(&format!("`{}`", name.unwrap_or("reference")));
            }
            Some("thinking") => {
                flush(&mut text, &mut blocks);
                let thought = match &part["value"] {
                    Value::Array(pieces) => {
                        pieces.iter().filter_map(Value::as_str).collect::<String>()
                    }
                    value => markdown(value),
                };
                if !thought.is_empty() {
                    blocks.push(Block::Thinking { text: thought });
                }
            }
            Some("toolInvocationSerialized") => {
                flush(&mut text, &mut blocks);
                let call = part["toolCallId"].as_str().unwrap_or("").to_owned();
                let name = part["toolId"].as_str().unwrap_or("tool").to_owned();
                let data = &part["toolSpecificData"];
                let input = match data["commandLine"]["original"].as_str() {
                    Some(command) => serde_json::json!({ "command": command }),
                    None => match &data["rawInput"] {
                        Value::Null => {
                            serde_json::json!({ "message": markdown(&part["invocationMessage"]) })
                        }
                        raw => raw.clone(),
                    },
                };
                blocks.push(Block::ToolCall {
                    id: call.clone(),
                    name,
                    input: input.to_string(),
                });
                if part["isComplete"] == true {
                    let done = markdown(&part["pastTenseMessage"]);
                    results.push(Block::ToolResult {
                        call_id: call,
                        output: done,
                        is_error: part["resultDetails"]["isError"] == true,
                    });
                }
            }
            // Progress, references, edits' bookkeeping, confirmations: not the answer.
            Some(_) | None => {}
        }
    }
    flush(&mut text, &mut blocks);
    if blocks.is_empty() {
        let failed = request["result"]["errorDetails"]["message"].as_str();
        blocks.push(Block::Text {
            text: failed.unwrap_or("").to_owned(),
        });
    }
    (blocks, results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcripts::copilot_chat::{ChatSession, CopilotChatReader};
    use crate::transcripts::lines::LineReader as _;

    #[test]
    fn requests_become_prompts_responses_and_tool_results() {
        let log = r#"{"kind":0,"v":{"version":3,"sessionId":"s1","creationDate":1787216400000,"requests":[]}}
{"kind":2,"k":["requests"],"v":[{"requestId":"r1","timestamp":1787216401000,"message":{"text":"read test.txt and run it"},"response":[{"value":"I'll read "},{"kind":"inlineReference","inlineReference":{"path":"/w/test.txt"}},{"kind":"thinking","value":["Look ","first."]},{"kind":"toolInvocationSerialized","toolId":"run_in_terminal","toolCallId":"c1","isComplete":true,"pastTenseMessage":{"value":"Ran uname"},"toolSpecificData":{"kind":"terminal","commandLine":{"original":"uname -a"}}},{"value":" Done."}],"modelId":"copilot/claude-sonnet-4.5","modelState":{"value":1,"completedAt":1787216409000}}]}
{"kind":1,"k":["customTitle"],"v":"Run test.txt"}"#;
        let mut reader = CopilotChatReader::new(ChatSession, "/w/chatSessions/s1.jsonl");
        for line in log.lines() {
            reader.push_line(line.as_bytes());
        }
        let parsed = reader.finish();
        let conversation = &parsed.conversations[0];
        assert_eq!(conversation.title.as_deref(), Some("Run test.txt"));
        assert_eq!(
            conversation.first_prompt.as_deref(),
            Some("read test.txt and run it")
        );
        let roles: Vec<Role> = conversation.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
        assert_eq!(conversation.tool_counts(), (1, 1));
        let reply = &conversation.messages[1];
        assert_eq!(reply.model.as_deref(), Some("claude-sonnet-4.5"));
        assert!(
            matches!(&reply.blocks[0], Block::Text { text } if text == "I'll read `/w/test.txt`")
        );
        assert!(matches!(&reply.blocks[1], Block::Thinking { text } if text == "Look first."));
    }
}
