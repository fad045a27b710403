//! Google's content parts (Gemini CLI and Qwen Code write a message as them): text, thinking,
//! a function's call or response, attached data, each as a block.

use crate::transcripts::conversation::{Block, text_of};
use serde_json::Value;

/// The blocks of a message's content: a string, one part, or a list of parts (text, thinking,
/// a function's call or response, attached data).
pub(crate) fn content_blocks(content: &Value) -> Vec<Block> {
    let part = |part: &Value| -> Option<Block> {
        if let Value::String(text) = part {
            return (!text.is_empty()).then(|| Block::Text { text: text.clone() });
        }
        if let Some(text) = part["text"].as_str() {
            return Some(if part["thought"] == true {
                Block::Thinking {
                    text: text.to_owned(),
                }
            } else {
                Block::Text {
                    text: text.to_owned(),
                }
            });
        }
        let response = &part["functionResponse"];
        if response.is_object() {
            let failed = !response["response"]["error"].is_null();
            let output = if failed {
                &response["response"]["error"]
            } else {
                &response["response"]["output"]
            };
            return Some(Block::ToolResult {
                call_id: response["id"].as_str().unwrap_or_default().to_owned(),
                output: text_of(output),
                is_error: failed,
            });
        }
        let call = &part["functionCall"];
        if call.is_object() {
            return Some(Block::ToolCall {
                id: call["id"].as_str().unwrap_or_default().to_owned(),
                name: call["name"].as_str().unwrap_or_default().to_owned(),
                input: call["args"].to_string(),
            });
        }
        let kind = [
            "inlineData",
            "fileData",
            "executableCode",
            "codeExecutionResult",
        ]
        .into_iter()
        .find(|k| !part[*k].is_null())?;
        Some(Block::Other {
            kind: kind.to_owned(),
            raw: part.to_string(),
        })
    };
    match content {
        Value::Array(parts) => parts.iter().filter_map(part).collect(),
        Value::Null => Vec::new(),
        one => part(one).into_iter().collect(),
    }
}
