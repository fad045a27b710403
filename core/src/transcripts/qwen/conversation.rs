//! A Qwen Code session as a conversation: prompts, responses (thinking, text, tool calls) and
//! tool results joined by their parents' ids, the branch the file ends on active (a rewind
//! leaves the turns it took back on a branch of their own), sub-agents' records hung off the
//! session, and the session's title (`custom_title`, the last written) or its first prompt.

use super::Counts;
use crate::transcripts::conversation::parts::content_blocks;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use crate::transcripts::{Provider, parse_line};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a [`QwenReader`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct QwenState {
    /// The session id.
    pub id: String,
    /// The working folder.
    pub project: Option<String>,
    /// The git branch.
    pub branch: Option<String>,
    /// The first prompt, for the title.
    pub first_prompt: Option<String>,
    /// The title the session was given.
    pub title: Option<String>,
    /// The last record of the conversation (the active branch ends there).
    pub leaf: Option<String>,
    /// The latest records that are no message (telemetry, titles), each with the message it
    /// follows: a message whose parent is one of them hangs off that message instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<(String, Option<String>)>,
}

/// How many records that are no message a state carries (a new record's parent is one of the
/// last few written).
const LINKS_KEPT: usize = 64;

/// Builds a Qwen Code conversation from lines fed one at a time.
#[derive(Debug)]
pub struct QwenReader {
    parsed: Parsed,
    conversation: Conversation,
    leaf: Option<String>,
    /// Records that are no message, each with the message it follows, in read order.
    links: Vec<(String, Option<String>)>,
    link_of: std::collections::HashMap<String, Option<String>>,
}

impl Default for QwenReader {
    fn default() -> QwenReader {
        QwenReader::continuing(QwenState::default())
    }
}

/// The records of the `user` kind that the person did not type: the CLI's notices and
/// scheduled prompts.
const NOT_TYPED: &[&str] = &["notification", "cron"];

/// The counts a record's `usageMetadata` holds.
pub(crate) fn metadata_counts(usage: &Value) -> Counts {
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    Counts {
        prompt: count("promptTokenCount"),
        candidates: count("candidatesTokenCount"),
        cached: count("cachedContentTokenCount"),
        thoughts: count("thoughtsTokenCount"),
        total: count("totalTokenCount"),
    }
}

impl QwenReader {
    /// A reader that goes on from `state`.
    pub fn continuing(state: QwenState) -> QwenReader {
        let mut conversation = Conversation::new(Provider::Qwen, state.id);
        conversation.project = state.project;
        conversation.branch = state.branch;
        conversation.first_prompt = state.first_prompt;
        conversation.title = state.title;
        let link_of = state.links.iter().cloned().collect();
        QwenReader {
            parsed: Parsed::default(),
            conversation,
            leaf: state.leaf,
            links: state.links,
            link_of,
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> QwenState {
        QwenState {
            id: self.conversation.id.clone(),
            project: self.conversation.project.clone(),
            branch: self.conversation.branch.clone(),
            first_prompt: self.conversation.first_prompt.clone(),
            title: self.conversation.title.clone(),
            leaf: self.leaf.clone(),
            links: self.links[self.links.len().saturating_sub(LINKS_KEPT)..].to_vec(),
        }
    }

    /// The message a record's parent stands for: itself, or, when it is no message, the
    /// message it follows.
    fn message_parent(&self, parent: Option<&str>) -> Option<String> {
        let parent = parent?;
        match self.link_of.get(parent) {
            Some(linked) => linked.clone(),
            None => Some(parent.to_owned()),
        }
    }

    /// Notes a record that is no message, so its children hang off the message before it.
    fn pass_over(&mut self, record: &Value) {
        if let Some(id) = record["uuid"].as_str().filter(|id| !id.is_empty()) {
            let linked = self.message_parent(record["parentUuid"].as_str());
            self.links.push((id.to_owned(), linked.clone()));
            self.link_of.insert(id.to_owned(), linked);
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.parsed.stats.lines += 1;
        let Some(record) = parse_line::<Value>(line, &mut self.parsed.stats) else {
            self.parsed.stats.malformed += 1;
            return;
        };
        if self.conversation.id.is_empty()
            && let Some(id) = record["sessionId"].as_str()
        {
            self.conversation.id = id.to_owned();
        }
        if self.conversation.project.is_none() {
            self.conversation.project = record["cwd"].as_str().map(str::to_owned);
        }
        if self.conversation.branch.is_none() {
            self.conversation.branch = record["gitBranch"].as_str().map(str::to_owned);
        }
        let subtype = record["subtype"].as_str();
        let side_chain = record["isSidechain"] == true;
        let parts = &record["message"]["parts"];
        let (role, blocks) = match record["type"].as_str().unwrap_or_default() {
            "user" => {
                let shown = match record["systemPayload"]["displayText"].as_str() {
                    Some(text) if !text.trim().is_empty() => vec![Block::Text {
                        text: text.to_owned(),
                    }],
                    _ => content_blocks(parts),
                };
                if subtype.is_some_and(|s| NOT_TYPED.contains(&s)) {
                    (Role::System, shown)
                } else {
                    if subtype.is_none() && !side_chain && self.conversation.first_prompt.is_none()
                    {
                        let text = shown.iter().find_map(|b| match b {
                            Block::Text { text } => Some(text.as_str()),
                            _ => None,
                        });
                        self.conversation.first_prompt = text.and_then(prompt_title);
                    }
                    (Role::User, shown)
                }
            }
            "assistant" => (Role::Assistant, content_blocks(parts)),
            "tool_result" => {
                let status = &record["toolCallResult"]["status"];
                let mut blocks = content_blocks(parts);
                for block in &mut blocks {
                    if let Block::ToolResult {
                        call_id, is_error, ..
                    } = block
                    {
                        *is_error |= status == "error";
                        if call_id.is_empty() {
                            *call_id = text_of(&record["toolCallResult"]["callId"]);
                        }
                    }
                }
                (Role::Tool, blocks)
            }
            "system" => {
                if subtype == Some("custom_title")
                    && let Some(title) = record["systemPayload"]["customTitle"].as_str()
                    && !title.trim().is_empty()
                {
                    self.conversation.title = Some(title.to_owned());
                }
                self.pass_over(&record);
                return;
            }
            other => {
                self.parsed.unknown(other.to_owned(), line);
                self.pass_over(&record);
                return;
            }
        };
        let Some(id) = record["uuid"].as_str().filter(|id| !id.is_empty()) else {
            self.parsed.stats.malformed += 1;
            return;
        };
        let usage = &record["usageMetadata"];
        let counts = metadata_counts(usage);
        let parent = self.message_parent(record["parentUuid"].as_str());
        self.conversation.messages.push(Message {
            id: id.to_owned(),
            parent,
            role,
            at: time(&record["timestamp"]),
            blocks,
            model: record["model"].as_str().map(str::to_owned),
            side_chain,
            tokens: (!counts.is_empty()).then(|| counts.totals()),
        });
        if !side_chain {
            self.leaf = Some(id.to_owned());
        }
    }

    /// The conversation (none when no line named its session).
    pub fn finish(mut self) -> Parsed {
        if self.conversation.id.is_empty() {
            return self.parsed;
        }
        self.conversation.active_leaf = self.leaf;
        self.conversation.seal();
        self.parsed.conversations.push(self.conversation);
        self.parsed
    }
}

impl crate::transcripts::lines::LineReader for QwenReader {
    fn push_line(&mut self, line: &[u8]) {
        QwenReader::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str], state: QwenState) -> QwenReader {
        let mut reader = QwenReader::continuing(state);
        for line in lines {
            reader.push_line(line.as_bytes());
        }
        reader
    }

    #[test]
    fn a_response_after_a_telemetry_record_hangs_off_the_prompt_even_read_later() {
        let prompt = r#"{"uuid":"u1","parentUuid":null,"sessionId":"s","type":"user","message":{"parts":[{"text":"hi"}]}}"#;
        let telemetry = r#"{"uuid":"t1","parentUuid":"u1","sessionId":"s","type":"system","subtype":"ui_telemetry"}"#;
        let answer = r#"{"uuid":"a1","parentUuid":"t1","sessionId":"s","type":"assistant","message":{"parts":[{"text":"hello"}]}}"#;
        let whole = read(&[prompt, telemetry, answer], QwenState::default()).finish();
        let messages = &whole.conversations[0].messages;
        assert_eq!(messages[1].parent.as_deref(), Some("u1"));
        // Read in two goes, the second from the first's state.
        let first = read(&[prompt, telemetry], QwenState::default());
        let state: QwenState =
            serde_json::from_str(&serde_json::to_string(&first.state()).unwrap()).unwrap();
        let later = read(&[answer], state).finish();
        assert_eq!(
            later.conversations[0].messages[0].parent.as_deref(),
            Some("u1")
        );
    }
}
