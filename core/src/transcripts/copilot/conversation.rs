//! A GitHub Copilot CLI session as a conversation: the person's prompts (never the context the
//! CLI wrapped them in, nor a skill's injected text), the responses with their reasoning and
//! tool calls, each tool's result joined by its call id, sub-agents' events (written into the
//! same file, marked by `agentId` or `parentToolCallId`) as threads hung off the call that
//! started them, the runs' ends with the credits they used, errors and aborts. The title is
//! the name `workspace.yaml` beside the file gives the session, else the first prompt.

use super::{credits_text, model_name, session_of_path};
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use crate::transcripts::{Provider, parse_line};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Where a [`CopilotReader`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CopilotState {
    /// The session id.
    pub id: String,
    /// The working folder.
    pub project: Option<String>,
    /// The git branch.
    pub branch: Option<String>,
    /// The model the session is on.
    pub model: Option<String>,
    /// The first prompt, for the title.
    pub first_prompt: Option<String>,
    /// The last message of each thread (`""` the session's own, else a sub-agent's key).
    pub previous: BTreeMap<String, String>,
    /// The latest tool calls, each with the message that made it: a sub-agent's thread hangs
    /// off its call's message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<(String, String)>,
    /// Sub-agents by their `agentId`, each with the call that started it.
    pub agents: BTreeMap<String, String>,
    /// Lines read so far (an event without an id is named by its line).
    pub lines: u64,
}

/// How many tool calls a state carries (a sub-agent starts from one of the latest).
const CALLS_KEPT: usize = 64;

/// Builds a Copilot CLI conversation from lines fed one at a time.
#[derive(Debug)]
pub struct CopilotReader {
    parsed: Parsed,
    conversation: Conversation,
    model: Option<String>,
    previous: BTreeMap<String, String>,
    calls: Vec<(String, String)>,
    agents: BTreeMap<String, String>,
    lines: u64,
}

/// Events that hold nothing a reader shows: bookkeeping, streaming marks, hooks and
/// permissions, the starts of tools (their calls are on the responses).
const PASSED_OVER: &[&str] = &[
    "session.usage_checkpoint",
    "session.mode_changed",
    "session.context_changed",
    "session.info",
    "session.task_complete",
    "session.handoff",
    "session.context_cleared",
    "session.plan_changed",
    "session.workspace_file_changed",
    "session.binary_asset",
    "session.compaction_start",
    "session.truncation",
    "system.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "tool.user_requested",
    "tool.execution_start",
    "subagent.completed",
    "subagent.failed",
    "subagent.selected",
    "subagent.deselected",
    "skill.invoked",
    "hook.start",
    "hook.end",
    "permission.requested",
    "permission.completed",
    "external_tool.requested",
    "external_tool.completed",
];

/// Arguments as JSON text (older builds wrote them as a JSON string already).
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::String(text) => text.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// A tool's result as text: the text the model got (`content`), else what was written.
fn result_text(data: &Value) -> String {
    match &data["result"] {
        Value::Null => data["error"]["message"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_default(),
        Value::String(text) => text.clone(),
        result => match &result["content"] {
            Value::Null => match &result["detailedContent"] {
                Value::String(text) => text.clone(),
                _ => result.to_string(),
            },
            content => text_of(content),
        },
    }
}

impl CopilotReader {
    /// The reader of the file at `path`, going on from `state`.
    pub fn new(path: &str, state: Option<CopilotState>) -> CopilotReader {
        let state = state.unwrap_or_else(|| CopilotState {
            id: session_of_path(path).unwrap_or_default(),
            ..CopilotState::default()
        });
        let mut conversation = Conversation::new(Provider::CopilotCli, state.id);
        conversation.project = state.project;
        conversation.branch = state.branch;
        conversation.first_prompt = state.first_prompt;
        CopilotReader {
            parsed: Parsed::default(),
            conversation,
            model: state.model,
            previous: state.previous,
            calls: state.calls,
            agents: state.agents,
            lines: state.lines,
        }
    }

    /// Takes a file found with the transcript: `workspace.yaml` names the session (the title
    /// the CLI's own list shows) and says where it worked.
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        let Some(workspace) = super::workspace_of(name, bytes) else {
            return;
        };
        if workspace.name.is_some() {
            self.conversation.title = workspace.name;
        }
        if self.conversation.project.is_none() {
            self.conversation.project = workspace.cwd;
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> CopilotState {
        CopilotState {
            id: self.conversation.id.clone(),
            project: self.conversation.project.clone(),
            branch: self.conversation.branch.clone(),
            model: self.model.clone(),
            first_prompt: self.conversation.first_prompt.clone(),
            previous: self.previous.clone(),
            calls: self.calls[self.calls.len().saturating_sub(CALLS_KEPT)..].to_vec(),
            agents: self.agents.clone(),
            lines: self.lines,
        }
    }

    /// The thread an event belongs to: `""` for the session's own, else its sub-agent's key.
    fn thread_of(event: &Value) -> String {
        match event["agentId"].as_str() {
            Some(agent) if !agent.is_empty() => agent.to_owned(),
            _ => event["data"]["parentToolCallId"]
                .as_str()
                .map(|call| format!("call:{call}"))
                .unwrap_or_default(),
        }
    }

    /// The message a new one in `thread` follows: the thread's last, else (a sub-agent's
    /// first) the message with the call that started it, else the latest call's.
    fn parent_in(&self, thread: &str) -> Option<String> {
        if let Some(previous) = self.previous.get(thread) {
            return Some(previous.clone());
        }
        if thread.is_empty() {
            return None;
        }
        let call = match thread.strip_prefix("call:") {
            Some(call) => Some(call),
            None => self.agents.get(thread).map(String::as_str),
        };
        let by_call = call.and_then(|call| {
            self.calls
                .iter()
                .rev()
                .find(|(id, _)| id == call)
                .map(|(_, message)| message.clone())
        });
        by_call.or_else(|| self.calls.last().map(|(_, message)| message.clone()))
    }

    fn push(&mut self, event: &Value, role: Role, blocks: Vec<Block>, model: Option<String>) {
        let thread = Self::thread_of(event);
        let id = match event["id"].as_str() {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => format!("{}:{}", self.conversation.id, self.lines),
        };
        for block in &blocks {
            if let Block::ToolCall { id: call, .. } = block {
                self.calls.push((call.clone(), id.clone()));
            }
        }
        let parent = self.parent_in(&thread);
        self.conversation.messages.push(Message {
            id: id.clone(),
            parent,
            role,
            at: time(&event["timestamp"]),
            blocks,
            model,
            side_chain: !thread.is_empty(),
            tokens: None,
        });
        self.previous.insert(thread, id);
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.parsed.stats.lines += 1;
        self.lines += 1;
        let Some(event) = parse_line::<Value>(line, &mut self.parsed.stats) else {
            self.parsed.stats.malformed += 1;
            return;
        };
        let data = &event["data"];
        let kind = event["type"].as_str().unwrap_or_default();
        match kind {
            "session.start" | "session.resume" => {
                if let Some(id) = data["sessionId"].as_str().filter(|id| !id.is_empty()) {
                    self.conversation.id = id.to_owned();
                }
                let context = &data["context"];
                if self.conversation.project.is_none() {
                    self.conversation.project = context["cwd"].as_str().map(str::to_owned);
                }
                if self.conversation.branch.is_none() {
                    self.conversation.branch = context["branch"].as_str().map(str::to_owned);
                }
                if let Some(model) = data["selectedModel"].as_str() {
                    self.model = Some(model_name(model).to_owned());
                }
            }
            "session.model_change" => {
                if let Some(model) = data["newModel"].as_str() {
                    self.model = Some(model_name(model).to_owned());
                }
            }
            "user.message" => self.user(&event),
            "assistant.message" | "assistant.reasoning" => self.assistant(&event, kind),
            "tool.execution_complete" => {
                let Some(call) = data["toolCallId"].as_str() else {
                    self.parsed.stats.malformed += 1;
                    return;
                };
                let block = Block::ToolResult {
                    call_id: call.to_owned(),
                    output: result_text(data),
                    is_error: data["success"] == false,
                };
                self.push(&event, Role::Tool, vec![block], None);
            }
            "subagent.started" => {
                if let (Some(agent), Some(call)) =
                    (event["agentId"].as_str(), data["toolCallId"].as_str())
                {
                    self.agents.insert(agent.to_owned(), call.to_owned());
                }
            }
            "session.shutdown" => {
                let mut said = match data["shutdownType"].as_str() {
                    Some("error") => "The run ended with an error".to_owned(),
                    _ => "The run ended".to_owned(),
                };
                if let Some(nano) = data["totalNanoAiu"].as_u64().filter(|n| *n > 0) {
                    said.push_str(&format!(": {} used so far", credits_text(nano)));
                }
                if let Some(requests) = data["totalPremiumRequests"].as_f64().filter(|n| *n > 0.0) {
                    said.push_str(&format!(" ({requests} premium requests)"));
                }
                self.system(&event, said);
            }
            "session.error" | "session.warning" => {
                let message = data["message"].as_str().unwrap_or("an error").to_owned();
                self.system(&event, message);
            }
            "abort" => {
                let reason = data["reason"].as_str().unwrap_or("unknown");
                self.system(&event, format!("Aborted ({reason})"));
            }
            "session.compaction_complete" => {
                let summary = data["summaryContent"].as_str().unwrap_or_default();
                let said = if summary.is_empty() {
                    "The context was compacted".to_owned()
                } else {
                    format!("The context was compacted:\n\n{summary}")
                };
                self.system(&event, said);
            }
            known if PASSED_OVER.contains(&known) => {}
            "" => self.parsed.stats.malformed += 1,
            other => self.parsed.unknown(other.to_owned(), line),
        }
    }

    fn system(&mut self, event: &Value, text: String) {
        self.push(event, Role::System, vec![Block::Text { text }], None);
    }

    fn user(&mut self, event: &Value) {
        let data = &event["data"];
        let content = text_of(&data["content"]);
        let source = data["source"].as_str().unwrap_or_default();
        if source.starts_with("skill-") || content.starts_with("<skill-context") {
            return;
        }
        let thread = Self::thread_of(event);
        if thread.is_empty()
            && !source.starts_with("agent-")
            && self.conversation.first_prompt.is_none()
        {
            self.conversation.first_prompt = prompt_title(&content);
        }
        let role = if source.starts_with("agent-") {
            Role::System
        } else {
            Role::User
        };
        self.push(event, role, vec![Block::Text { text: content }], None);
    }

    fn assistant(&mut self, event: &Value, kind: &str) {
        let data = &event["data"];
        let mut blocks = Vec::new();
        if kind == "assistant.reasoning" {
            blocks.push(Block::Thinking {
                text: text_of(&data["content"]),
            });
        } else {
            // Reasoning written inline, unless it came as an event of its own just before.
            let reasoned = self
                .conversation
                .messages
                .last()
                .is_some_and(|m| matches!(m.blocks.as_slice(), [Block::Thinking { .. }]));
            if let Some(reasoning) = data["reasoningText"].as_str().filter(|r| !r.is_empty())
                && !reasoned
            {
                blocks.push(Block::Thinking {
                    text: reasoning.to_owned(),
                });
            }
            let content = text_of(&data["content"]);
            if !content.is_empty() {
                blocks.push(Block::Text { text: content });
            }
            for request in data["toolRequests"].as_array().into_iter().flatten() {
                let (Some(id), Some(name)) = (
                    request["toolCallId"].as_str(),
                    request["name"].as_str().or(request["toolName"].as_str()),
                ) else {
                    continue;
                };
                blocks.push(Block::ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    input: arguments_text(&request["arguments"]),
                });
            }
        }
        let model = match data["model"].as_str() {
            Some(model) => Some(model_name(model).to_owned()),
            None => self.model.clone().filter(|m| m != "auto"),
        };
        self.push(event, Role::Assistant, blocks, model);
    }

    /// The conversation (none when nothing named its session).
    pub fn finish(mut self) -> Parsed {
        if self.conversation.id.is_empty() || self.conversation.messages.is_empty() {
            return self.parsed;
        }
        self.conversation.active_leaf = self.previous.get("").cloned();
        self.conversation.seal();
        self.parsed.conversations.push(self.conversation);
        self.parsed
    }
}

impl crate::transcripts::lines::LineReader for CopilotReader {
    fn push_line(&mut self, line: &[u8]) {
        CopilotReader::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str], state: Option<CopilotState>) -> CopilotReader {
        let mut reader = CopilotReader::new("/c/session-state/s1/events.jsonl", state);
        for line in lines {
            reader.push_line(line.as_bytes());
        }
        reader
    }

    const LINES: [&str; 7] = [
        r#"{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"/w/app","branch":"main"},"selectedModel":"claude-sonnet-4.6"},"id":"e1","timestamp":"2026-08-20T09:00:00.000Z","parentId":null}"#,
        r#"{"type":"user.message","data":{"content":"fix the login bug","transformedContent":"<current_datetime>x</current_datetime> fix the login bug"},"id":"e2","timestamp":"2026-08-20T09:00:01.000Z","parentId":"e1"}"#,
        r#"{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"t1","name":"task","arguments":{"prompt":"explore"}}]},"id":"e3","timestamp":"2026-08-20T09:00:02.000Z","parentId":"e2"}"#,
        r#"{"type":"subagent.started","data":{"toolCallId":"t1","agentName":"explore"},"agentId":"a1","id":"e4","timestamp":"2026-08-20T09:00:03.000Z","parentId":"e3"}"#,
        r#"{"type":"assistant.message","data":{"messageId":"m2","content":"","toolRequests":[{"toolCallId":"t2","name":"view","arguments":"{\"path\":\"a\"}"}]},"agentId":"a1","id":"e5","timestamp":"2026-08-20T09:00:04.000Z","parentId":"e4"}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"t2","success":false,"result":{"content":"no such file"}},"agentId":"a1","id":"e6","timestamp":"2026-08-20T09:00:05.000Z","parentId":"e5"}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"t1","success":true,"result":"done"},"id":"e7","timestamp":"2026-08-20T09:00:06.000Z","parentId":"e6"}"#,
    ];

    #[test]
    fn sub_agents_hang_off_their_call_even_read_in_two_goes() {
        let whole = read(&LINES, None).finish();
        let conversation = &whole.conversations[0];
        assert_eq!(
            conversation.first_prompt.as_deref(),
            Some("fix the login bug")
        );
        assert_eq!(conversation.project.as_deref(), Some("/w/app"));
        let by_id = |id: &str| conversation.messages.iter().find(|m| m.id == id).unwrap();
        assert_eq!(by_id("e5").parent.as_deref(), Some("e3"));
        assert!(by_id("e5").side_chain);
        assert_eq!(by_id("e6").parent.as_deref(), Some("e5"));
        assert_eq!(by_id("e7").parent.as_deref(), Some("e3"));
        assert_eq!(by_id("e3").model.as_deref(), Some("claude-sonnet-4.6"));
        assert_eq!(conversation.tool_counts(), (2, 2));
        let first = read(&LINES[..4], None);
        let state: CopilotState =
            serde_json::from_str(&serde_json::to_string(&first.state()).unwrap()).unwrap();
        let later = read(&LINES[4..], Some(state)).finish();
        let messages = &later.conversations[0].messages;
        assert_eq!(messages[0].parent.as_deref(), Some("e3"));
        assert_eq!(messages[2].parent.as_deref(), Some("e3"));
    }

    #[test]
    fn injected_prompts_and_wrong_types_are_no_prompt_and_no_panic() {
        let lines = [
            r#"{"type":"user.message","data":{"content":"<skill-context>x","source":"skill-pdf"},"id":"e1","timestamp":"2026-08-20T09:00:00Z"}"#,
            r#"{"type":"user.message","data":{"content":null},"id":"e2","timestamp":3}"#,
            r#"{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":1}]}}"#,
            r#"{"type":"tool.execution_complete","data":{}}"#,
            r#"{"type":"session.shutdown","data":{"totalNanoAiu":"many"}}"#,
            r#"{"type":"brand.new","data":{}}"#,
            r#"[1,2]"#,
            "not json",
        ];
        let parsed = read(&lines, None).finish();
        let conversation = &parsed.conversations[0];
        assert_eq!(conversation.first_prompt, None);
        assert_eq!(parsed.unknown_kinds.get("brand.new"), Some(&1));
        assert_eq!(parsed.stats.malformed, 3);
    }
}
