//! A Cline, Roo Code or Kilo Code task as a conversation, read from its panel file: the task's
//! prompt and the person's feedback, the replies, reasoning, questions and results, the tools
//! asked for (a file read or edit, a command, an MCP server's tool, the browser) with their
//! output, and errors; the tokens of the requests before a reply on that reply.

use super::usage::{Requests, requests};
use super::{Notes, kind_of, task_of, text_json, time_of};
use crate::transcripts::Provider;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role};
use crate::transcripts::whole::value_of;
use serde_json::Value;

/// The panel messages that show nothing of the conversation (requests' bookkeeping, status,
/// checkpoints, prompts to resume): passed over without being counted as unknown.
const QUIET: &[&str] = &[
    "api_req_started",
    "api_req_finished",
    "api_req_retried",
    "api_req_retry_delayed",
    "api_req_rate_limit_wait",
    "api_req_deleted",
    "deleted_api_reqs",
    "subagent_usage",
    "subagent",
    "checkpoint_created",
    "checkpoint_saved",
    "resume_task",
    "resume_completed_task",
    "shell_integration_warning",
    "shell_integration_warning_with_suggestion",
    "task_progress",
    "hook_status",
    "hook_output_stream",
    "info",
    "conditional_rules_applied",
    "sliding_window_truncation",
    "auto_approval_max_req_reached",
    "user_edit_todos",
    "too_many_tools_warning",
    "codebase_search_result",
    "load_mcp_documentation",
    "generate_explanation",
    "clineignore_error",
    "rooignore_error",
    "mcp_notification",
    "image",
    "browser_action",
    "condense_context",
    "condense_context_error",
    "use_subagents",
];

/// The reading of one task's panel file as a conversation.
struct Reading<'a> {
    product: Provider,
    notes: &'a mut Notes,
    parsed: &'a mut Parsed,
}

/// Reads a task's panel file as a conversation, with what its companions noted.
pub(super) fn conversation_of(
    product: Provider,
    path: &str,
    bytes: &[u8],
    notes: &mut Notes,
    parsed: &mut Parsed,
) -> Option<Requests> {
    let mut reading = Reading {
        product,
        notes,
        parsed,
    };
    reading.read(path, bytes)
}

impl Reading<'_> {
    /// The conversation; answers the task's requests (its usage), `None` when the file is
    /// no panel file.
    fn read(&mut self, path: &str, bytes: &[u8]) -> Option<Requests> {
        let value = value_of(bytes, &mut self.parsed.stats)?;
        let Some(messages) = value.as_array() else {
            self.parsed.stats.malformed += 1;
            return None;
        };
        let id = task_of(path);
        // A sub-task's messages are a thread of the task at the top of its chain.
        let side_chain = self.notes.root.is_some();
        let conversation_id = self.notes.root.clone().unwrap_or_else(|| id.clone());
        let mut conversation = Conversation::new(self.product, conversation_id);
        conversation.started_at = messages.first().and_then(time_of);
        let said = messages.iter().map(super::usage::Said::of);
        let requests = requests(said, self.product, self.notes);
        let all = requests.clone();
        conversation.project = self.notes.project.clone();
        let mut requests = requests.into_iter().peekable();
        let mut built = Built::default();
        for (at, message) in messages.iter().enumerate() {
            // The requests before a reply put their tokens on it (a retried or deleted one's
            // add up with the one that answered).
            while let Some((when, request, _)) = requests.next_if(|(_, _, place)| *place < at) {
                let tokens = request.tokens(self.product, when);
                built
                    .tokens
                    .get_or_insert_with(Default::default)
                    .add(&tokens);
            }
            if !message.is_object() {
                self.parsed.stats.malformed += 1;
                continue;
            }
            if message["partial"] == true {
                continue;
            }
            let Some((role, blocks)) = self.message(message, &mut built) else {
                continue;
            };
            let message_id = format!("{id}:{at}");
            let at_ms = time_of(message);
            let model = (role == Role::Assistant)
                .then(|| {
                    message["modelInfo"]["modelId"].as_str().or_else(|| {
                        self.notes
                            .model_at(at_ms.map_or(0, crate::transcripts::Timestamp::millis))
                    })
                })
                .flatten()
                .map(str::to_owned);
            if role == Role::User && conversation.first_prompt.is_none() && !side_chain {
                conversation.first_prompt = blocks.iter().find_map(|b| match b {
                    Block::Text { text } => prompt_title(text),
                    _ => None,
                });
            }
            let tokens = (role == Role::Assistant)
                .then(|| built.tokens.take())
                .flatten();
            conversation.messages.push(Message {
                id: message_id.clone(),
                parent: built.previous.replace(message_id),
                role,
                at: at_ms,
                blocks,
                model,
                side_chain,
                tokens,
            });
        }
        if conversation.messages.is_empty() {
            return Some(all);
        }
        // A sub-task's thread names neither the title nor the active branch of its task.
        if !side_chain {
            conversation.title = self.notes.title.clone();
            conversation.active_leaf = built.previous;
        }
        conversation.seal();
        self.parsed.conversations.push(conversation);
        Some(all)
    }

    /// One panel message's role and blocks, `None` for one that shows nothing.
    fn message(&mut self, message: &Value, built: &mut Built) -> Option<(Role, Vec<Block>)> {
        let (kind, what) = kind_of(message);
        let text = message["text"].as_str().unwrap_or("").to_owned();
        let mut blocks = Vec::new();
        if let Some(reasoning) = message["reasoning"].as_str().filter(|r| !r.is_empty()) {
            blocks.push(Block::Thinking {
                text: reasoning.to_owned(),
            });
        }
        let call = |name: &str, input: String, built: &mut Built| {
            built.calls += 1;
            let id = format!("call-{}", built.calls);
            built.open_call = Some(id.clone());
            Block::ToolCall {
                id,
                name: name.to_owned(),
                input,
            }
        };
        let role = match what {
            // Cline's task opens with `task`; Roo's and Kilo's with a `text` said first.
            "task" | "user_feedback" | "user_feedback_diff" => Role::User,
            "text" if kind == "say" && !built.prompted => Role::User,
            "text" | "completion_result" | "plan_mode_respond" | "act_mode_respond"
            | "subtask_result" => Role::Assistant,
            "followup" => {
                let question = text_json(message);
                let asked = question["question"].as_str().map(str::to_owned);
                blocks.push(Block::Text {
                    text: asked.unwrap_or(text),
                });
                return Some((Role::Assistant, blocks));
            }
            "reasoning" => {
                blocks.push(Block::Thinking { text });
                return Some((Role::Assistant, blocks));
            }
            "tool" => {
                let tool = text_json(message);
                let name = tool["tool"].as_str().unwrap_or("tool").to_owned();
                blocks.push(call(&name, text, built));
                return Some((Role::Assistant, blocks));
            }
            "command" => {
                let input = serde_json::json!({ "command": text }).to_string();
                blocks.push(call("execute_command", input, built));
                return Some((Role::Assistant, blocks));
            }
            "use_mcp_server" => {
                let server = text_json(message);
                let name = match (server["serverName"].as_str(), server["toolName"].as_str()) {
                    (Some(s), Some(t)) => format!("mcp:{s}/{t}"),
                    _ => "use_mcp_server".to_owned(),
                };
                blocks.push(call(&name, text, built));
                return Some((Role::Assistant, blocks));
            }
            "browser_action_launch" => {
                let input = serde_json::json!({ "url": text }).to_string();
                blocks.push(call("browser_action", input, built));
                return Some((Role::Assistant, blocks));
            }
            "command_output" | "mcp_server_response" | "browser_action_result" => {
                let call_id = built.open_call.clone().unwrap_or_default();
                blocks.push(Block::ToolResult {
                    call_id,
                    output: text,
                    is_error: false,
                });
                return Some((Role::Tool, blocks));
            }
            "error"
            | "error_retry"
            | "api_req_failed"
            | "mistake_limit_reached"
            | "diff_error"
            | "command_permission_denied"
            | "condense"
            | "new_task"
            | "summarize_task"
            | "report_bug" => Role::System,
            quiet if QUIET.contains(&quiet) => return None,
            other => {
                let kind = if other.is_empty() {
                    "panel message without a kind"
                } else {
                    other
                };
                self.parsed.unknown(
                    format!("{kind} ({})", self.product.key()),
                    message.to_string().as_bytes(),
                );
                return None;
            }
        };
        if role == Role::User {
            built.prompted = true;
        }
        if !text.is_empty() || blocks.is_empty() {
            blocks.push(Block::Text { text });
        }
        Some((role, blocks))
    }
}

/// What the reading of a task has built so far.
#[derive(Debug, Default)]
struct Built {
    previous: Option<String>,
    prompted: bool,
    calls: usize,
    open_call: Option<String>,
    tokens: Option<crate::tokens::TokenTotals>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcripts::cline::{ClineReader, Task};
    use crate::transcripts::lines::LineReader as _;

    const PANEL: &str = r#"[
 {"ts":1787216400000,"type":"say","say":"text","text":"why does the build fail"},
 {"ts":1787216401000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":1200,\"tokensOut\":40,\"cacheReads\":1000,\"cost\":0.01}"},
 {"ts":1787216402000,"type":"say","say":"text","text":"Let me look.","reasoning":"Check the log."},
 {"ts":1787216403000,"type":"ask","ask":"tool","text":"{\"tool\":\"readFile\",\"path\":\"build.rs\"}"},
 {"ts":1787216404000,"type":"ask","ask":"command","text":"cargo build"},
 {"ts":1787216405000,"type":"ask","ask":"command_output","text":"error: linker"},
 {"ts":1787216406000,"type":"say","say":"checkpoint_saved","text":"abc"},
 {"ts":1787216407000,"type":"say","say":"completion_result","text":"Fixed."},
 {"ts":1787216408000,"type":"say","say":"mystery_kind","text":"?"},
 {"ts":1787216409000,"type":"say","say":"text","partial":true,"text":"half"}
]"#;

    #[test]
    fn a_roo_task_reads_as_its_panel_shows_it() {
        let path = "/c/globalStorage/rooveterinaryinc.roo-cline/tasks/019c/ui_messages.json";
        let mut reader = ClineReader::new(Task(Provider::RooCode), path);
        for line in PANEL.lines() {
            reader.push_line(line.as_bytes());
        }
        reader.companion(
            "history_item.json",
            br#"{"task":"Build fails","workspace":"/w/app"}"#,
        );
        reader.companion(
            "api_conversation_history.json",
            br#"[{"role":"user","ts":1,"content":"<environment_details><model>glm-4.6</model></environment_details>"}]"#,
        );
        let parsed = reader.finish();
        let conversation = &parsed.conversations[0];
        assert_eq!(conversation.provider, Provider::RooCode);
        assert_eq!(conversation.id, "019c");
        assert_eq!(conversation.title.as_deref(), Some("Build fails"));
        assert_eq!(
            conversation.first_prompt.as_deref(),
            Some("why does the build fail")
        );
        assert_eq!(conversation.project.as_deref(), Some("/w/app"));
        let roles: Vec<Role> = conversation.messages.iter().map(|m| m.role).collect();
        use Role::*;
        assert_eq!(
            roles,
            [User, Assistant, Assistant, Assistant, Tool, Assistant]
        );
        assert_eq!(conversation.tool_counts().0, 2);
        let reply = &conversation.messages[1];
        assert_eq!(reply.model.as_deref(), Some("glm-4.6"));
        assert_eq!(reply.tokens.map(|t| t.input_tokens), Some(200));
        assert!(matches!(&reply.blocks[0], Block::Thinking { text } if text == "Check the log."));
        assert_eq!(parsed.unknown_kinds.len(), 1);
    }

    #[test]
    fn odd_files_are_no_task_and_no_panic() {
        for odd in [
            "{}",
            "[1, null, \"x\"]",
            "[{\"type\":3,\"say\":{}}]",
            "[",
            "",
            "[]",
        ] {
            let mut reader = ClineReader::new(Task(Provider::Cline), "t/ui_messages.json");
            for line in odd.lines() {
                reader.push_line(line.as_bytes());
            }
            reader.companion("history_item.json", b"[]");
            assert!(reader.finish().conversations.is_empty(), "{odd}");
        }
    }
}
