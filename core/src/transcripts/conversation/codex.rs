//! Codex rollouts as conversations: response items and events read line by line; the first
//! prompt is the first `user_message` event the person typed, never the injected context
//! (AGENTS.md, environment) Codex sends as user messages before it.

use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use crate::transcripts::{Provider, parse_line};
use serde_json::Value;
/// Codex rollouts (current envelope and the older bare-item layout): one conversation.
pub fn parse_codex(bytes: &[u8]) -> Parsed {
    crate::transcripts::conversation::read_lines(CodexReader::default(), bytes, CodexReader::finish)
}

/// Builds a Codex conversation from lines fed one at a time (the browser feeds chunks).
#[derive(Debug)]
pub struct CodexReader {
    parsed: Parsed,
    conversation: Conversation,
    model: Option<String>,
    previous: Option<String>,
    records: usize,
    /// The cumulative count last taken (Codex repeats a count at times).
    last_total: Option<crate::transcripts::usage::codex::Counts>,
}

impl Default for CodexReader {
    fn default() -> CodexReader {
        CodexReader {
            parsed: Parsed::default(),
            conversation: Conversation::new(Provider::Codex, ""),
            model: None,
            previous: None,
            records: 0,
            last_total: None,
        }
    }
}

/// Where a [`CodexReader`] stopped in a file: enough to read the lines appended later without
/// the ones before (the mirror reads only what was appended).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CodexState {
    /// The session id (from `session_meta`).
    pub id: String,
    /// The working directory.
    pub project: Option<String>,
    /// The git branch.
    pub branch: Option<String>,
    /// The model in effect.
    pub model: Option<String>,
    /// Records read so far (message ids count them).
    pub records: usize,
    /// The last message's id (the next one's parent).
    pub previous: Option<String>,
    /// The first prompt, for the title.
    pub first_prompt: Option<String>,
}

impl CodexReader {
    /// A reader that continues a file from where `state` was taken.
    pub fn continuing(state: CodexState) -> CodexReader {
        let mut reader = CodexReader::default();
        reader.conversation.id = state.id;
        reader.conversation.project = state.project;
        reader.conversation.branch = state.branch;
        reader.conversation.first_prompt = state.first_prompt;
        reader.model = state.model;
        reader.records = state.records;
        reader.previous = state.previous;
        reader
    }

    /// Where this reader is, to continue later with [`CodexReader::continuing`].
    pub fn state(&self) -> CodexState {
        CodexState {
            id: self.conversation.id.clone(),
            project: self.conversation.project.clone(),
            branch: self.conversation.branch.clone(),
            model: self.model.clone(),
            records: self.records,
            previous: self.previous.clone(),
            first_prompt: self.conversation.first_prompt.clone(),
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let n = self.records;
        self.records += 1;
        self.parsed.stats.lines += 1;
        let Some(v) = parse_line::<Value>(line, &mut self.parsed.stats) else {
            self.parsed.stats.malformed += 1;
            return;
        };
        // The older layout has no envelope: the item is the line itself.
        let (kind, item) = match v["payload"].is_object() {
            true => (v["type"].as_str().unwrap_or("").to_owned(), &v["payload"]),
            false if v["record_type"].is_string() => return,
            false if n == 0 && v["id"].is_string() => ("session_meta".to_owned(), &v),
            false => ("response_item".to_owned(), &v),
        };
        let at = time(&v["timestamp"]);
        match kind.as_str() {
            "session_meta" => {
                self.conversation.id = item["id"].as_str().unwrap_or("").to_owned();
                self.conversation.project = item["cwd"].as_str().map(str::to_owned);
                self.conversation.branch = item["git"]["branch"].as_str().map(str::to_owned);
            }
            "turn_context" => {
                self.model = item["model"]
                    .as_str()
                    .map(str::to_owned)
                    .or(self.model.take())
            }
            "event_msg" => {
                if item["type"] == "user_message" && self.conversation.first_prompt.is_none() {
                    self.conversation.first_prompt = prompt_title(&text_of(&item["message"]));
                }
                if item["type"] == "token_count" {
                    self.take_token_count(&item["info"]);
                }
            }
            "compacted" => {}
            "response_item" => {
                // A bare message item may omit its type; its role says what it is.
                let default_kind = if item["role"].is_string() {
                    "message"
                } else {
                    ""
                };
                let (role, blocks) = match item["type"].as_str().unwrap_or(default_kind) {
                    "message" => {
                        let role = match item["role"].as_str().unwrap_or("") {
                            "user" => Role::User,
                            "assistant" => Role::Assistant,
                            _ => Role::System,
                        };
                        let blocks = item["content"]
                            .as_array()
                            .map(|c| {
                                c.iter()
                                    .map(|b| Block::Text {
                                        text: text_of(&b["text"]),
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        (role, blocks)
                    }
                    "reasoning" => (
                        Role::Assistant,
                        vec![Block::Thinking {
                            text: text_of(&item["summary"]),
                        }],
                    ),
                    "function_call" | "custom_tool_call" | "local_shell_call" => (
                        Role::Assistant,
                        vec![Block::ToolCall {
                            id: item["call_id"].as_str().unwrap_or("").to_owned(),
                            name: item["name"].as_str().unwrap_or("").to_owned(),
                            input: match &item["arguments"] {
                                Value::String(s) => s.clone(),
                                Value::Null => item["input"].to_string(),
                                other => other.to_string(),
                            },
                        }],
                    ),
                    "function_call_output" | "custom_tool_call_output" => (
                        Role::Tool,
                        vec![Block::ToolResult {
                            call_id: item["call_id"].as_str().unwrap_or("").to_owned(),
                            output: text_of(&item["output"]),
                            is_error: false,
                        }],
                    ),
                    other => {
                        self.parsed.unknown(format!("response_item.{other}"), line);
                        return;
                    }
                };
                let id = format!("{}#{n}", self.conversation.id);
                self.conversation.messages.push(Message {
                    id: id.clone(),
                    parent: self.previous.replace(id),
                    role,
                    at,
                    blocks,
                    model: (role == Role::Assistant)
                        .then(|| self.model.clone())
                        .flatten(),
                    side_chain: false,
                    tokens: None,
                });
            }
            other => self.parsed.unknown(other.to_owned(), line),
        }
    }

    /// A request's tokens go on the latest assistant message: the last item of the response
    /// they paid for. Codex writes the same count again at times; a repeat changes nothing.
    fn take_token_count(&mut self, info: &Value) {
        use crate::transcripts::usage::codex::Counts;
        let parse = |v: &Value| serde_json::from_value::<Counts>(v.clone()).ok();
        let (Some(total), Some(last)) = (
            parse(&info["total_token_usage"]),
            parse(&info["last_token_usage"]),
        ) else {
            return;
        };
        if self.last_total == Some(total) {
            return;
        }
        self.last_total = Some(total);
        if let Some(message) = self
            .conversation
            .messages
            .iter_mut()
            .rev()
            .find(|m| m.role == Role::Assistant)
        {
            message.tokens = Some(last.totals());
        }
    }

    /// The conversation.
    pub fn finish(mut self) -> Parsed {
        self.conversation.active_leaf = self.previous;
        self.conversation.seal();
        self.parsed.conversations.push(self.conversation);
        self.parsed
    }
}

impl crate::transcripts::lines::LineReader for CodexReader {
    fn push_line(&mut self, line: &[u8]) {
        CodexReader::push_line(self, line);
    }
}
