//! Cursor's agent transcripts (`~/.cursor/projects/<workspace slug>/agent-transcripts/`): the
//! text each agent chat leaves for later chats to read, written by the editor and by
//! `cursor-agent`. Two layouts: a flat `<chat>.txt` of blocks opened by a `user:` or
//! `assistant:` line (a prompt inside `<user_query>` tags; `[Thinking]`, `[Tool call] <tool>`
//! and `[Tool result] <tool>` openers with indented bodies), and, since, `<chat>/<chat>.jsonl`:
//! one `{"role", "message": {"content": [...]}}` per line with Anthropic-style blocks, a
//! `turn_ended` line closing each turn, and a sub-agent's thread in
//! `<chat>/subagents/<child>.jsonl`.
//!
//! Neither keeps a time, a model, a token count or a tool call's id: calls are numbered and a
//! result answers the oldest call still open. The chat's id is the file's stem, the id Cursor's
//! own store gives the same chat, so a transcript is read as a copy of that chat
//! ([`crate::transcripts::conversation::COPY_MARK`]): where the store's chat is read too, the
//! store's gives the conversation and the copy gives way.

use crate::transcripts::Provider;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{
    Block, COPY_MARK, Conversation, Message, Parsed, Role, anthropic_blocks,
};
use crate::transcripts::whole::{UsageRead, WholeFormat};
use serde_json::Value;
use std::collections::VecDeque;

/// Cursor's agent transcripts, as whole documents.
#[derive(Debug, Clone, Copy)]
pub struct AgentTranscript;

impl WholeFormat for AgentTranscript {
    type Notes = ();

    fn conversations(self, path: &str, bytes: &[u8], _: &mut (), parsed: &mut Parsed) {
        read(path, bytes, parsed);
    }

    /// No usage: Cursor writes none here.
    fn usage(self, _: &str, _: &[u8], _: &mut (), _: &mut UsageRead) {}

    fn both(self, path: &str, bytes: &[u8], _: &mut (), parsed: &mut Parsed, _: &mut UsageRead) {
        read(path, bytes, parsed);
    }
}

/// Whether `text` (a file's start) is an agent transcript: a plain one opening on a `user:`
/// line, or a JSONL one whose first line has a `role` and a `message` and nothing of Claude
/// Code's (`type`, `sessionId`).
pub fn looks_like_transcript(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_end() == "user:" {
        return true;
    }
    match serde_json::from_str::<Value>(first) {
        Ok(Value::Object(line)) => {
            matches!(
                line.get("role").and_then(Value::as_str),
                Some("user" | "assistant")
            ) && line.get("message").is_some_and(Value::is_object)
                && !line.contains_key("type")
                && !line.contains_key("sessionId")
        }
        _ => false,
    }
}

/// The chat a transcript at `path` belongs to, and the sub-agent whose thread it is when it
/// sits in a chat's `subagents/` folder.
fn ids_of(path: &str) -> (String, Option<String>) {
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let name = parts.last().copied().unwrap_or("");
    let stem = name
        .rsplit_once('.')
        .map_or(name, |(stem, _)| stem)
        .to_owned();
    match parts
        .len()
        .checked_sub(3)
        .map(|at| (parts[at], parts[at + 1]))
    {
        Some((chat, "subagents")) => (chat.to_owned(), Some(stem)),
        _ => (stem, None),
    }
}

/// Reads the transcript at `path` into a conversation.
pub(crate) fn read(path: &str, bytes: &[u8], parsed: &mut Parsed) {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => {
            parsed.stats.repaired_surrogates += 1;
            String::from_utf8_lossy(bytes)
        }
    };
    let (chat, sub) = ids_of(path);
    let mut thread = Thread {
        prefix: match &sub {
            Some(sub) => format!("{COPY_MARK}{sub}:"),
            None => COPY_MARK.to_string(),
        },
        side_chain: sub.is_some(),
        messages: Vec::new(),
        open: VecDeque::new(),
        calls: 0,
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('{') {
        read_lines(&text, &mut thread, parsed);
    } else {
        read_plain(&text, &mut thread);
    }
    if thread.messages.is_empty() {
        return;
    }
    let mut conversation = Conversation::new(Provider::Cursor, chat);
    conversation.first_prompt = thread
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .find_map(|m| {
            m.blocks.iter().find_map(|b| match b {
                Block::Text { text } => prompt_title(text),
                _ => None,
            })
        });
    let mut previous: Option<String> = None;
    for message in &mut thread.messages {
        message.parent = previous.replace(message.id.clone());
    }
    if sub.is_none() {
        conversation.active_leaf = previous;
    }
    conversation.messages = thread.messages;
    parsed.conversations.push(conversation);
}

/// One file's messages as they are read.
struct Thread {
    /// What each message id starts with (the copy's mark, and a sub-agent's id).
    prefix: String,
    side_chain: bool,
    messages: Vec<Message>,
    /// Calls not yet answered, oldest first: (id, tool).
    open: VecDeque<(String, String)>,
    calls: usize,
}

impl Thread {
    /// Adds a message of `role` with `blocks`, numbering its calls and answering the oldest
    /// open call with each result that names none (the one whose tool it names, when one
    /// does).
    fn push(&mut self, role: Role, mut blocks: Vec<Block>) {
        for block in &mut blocks {
            match block {
                Block::ToolCall { id, name, .. } => {
                    if id.is_empty() {
                        self.calls += 1;
                        *id = format!("{}call-{}", self.prefix, self.calls);
                    }
                    self.open.push_back((id.clone(), name.clone()));
                }
                Block::ToolResult { call_id, .. } if call_id.is_empty() => {
                    if let Some((id, _)) = self.open.pop_front() {
                        *call_id = id;
                    }
                }
                Block::ToolResult { call_id, .. } => {
                    self.open.retain(|(id, _)| id != call_id);
                }
                _ => {}
            }
        }
        self.push_message(role, blocks);
    }

    /// Adds a message of `role` with `blocks` as they are (blank text left out).
    fn push_message(&mut self, role: Role, mut blocks: Vec<Block>) {
        blocks.retain(|b| !matches!(b, Block::Text { text } if text.trim().is_empty()));
        if blocks.is_empty() {
            return;
        }
        let role =
            if role == Role::User && blocks.iter().all(|b| matches!(b, Block::ToolResult { .. })) {
                Role::Tool
            } else {
                role
            };
        self.messages.push(Message {
            id: format!("{}{}", self.prefix, self.messages.len()),
            parent: None,
            role,
            at: None,
            blocks,
            model: None,
            side_chain: self.side_chain,
            tokens: None,
        });
    }

    /// Answers the oldest open call to `tool` (else the oldest) with `output`.
    fn result_of(&mut self, tool: &str) -> String {
        let at = self
            .open
            .iter()
            .position(|(_, name)| name == tool)
            .unwrap_or(0);
        self.open.remove(at).map(|(id, _)| id).unwrap_or_default()
    }
}

/// A prompt's text without the `<user_query>` tags Cursor wraps it in (the text between them
/// when it has them).
fn query_of(text: &str) -> String {
    super::user_query(text).unwrap_or(text.trim()).to_owned()
}

/// The JSONL layout: one message per line.
fn read_lines(text: &str, thread: &mut Thread, parsed: &mut Parsed) {
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else {
            parsed.stats.malformed += 1;
            continue;
        };
        let role = match record.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                let kind = record
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("line without a role");
                // Each turn ends with a line saying so; its open calls stay open (a
                // delegation to a sub-agent is never answered here).
                if kind != "turn_ended" {
                    parsed.unknown(kind.to_owned(), line.as_bytes());
                }
                continue;
            }
        };
        let content = record
            .get("message")
            .and_then(|m| m.get("content"))
            .unwrap_or(&Value::Null);
        let mut blocks = anthropic_blocks(content);
        if role == Role::User {
            for block in &mut blocks {
                if let Block::Text { text } = block {
                    *text = query_of(text);
                }
            }
        }
        thread.push(role, blocks);
    }
}

/// The plain layout: `user:` and `assistant:` lines open each message.
fn read_plain(text: &str, thread: &mut Thread) {
    let mut role: Option<Role> = None;
    let mut body: Vec<&str> = Vec::new();
    for line in text.lines().chain(std::iter::once("user:")) {
        let opener = match line.trim() {
            "user:" => Some(Role::User),
            "assistant:" => Some(Role::Assistant),
            _ => None,
        };
        let Some(next) = opener else {
            body.push(line);
            continue;
        };
        match role {
            Some(Role::User) => {
                let text = query_of(&body.join("\n"));
                thread.push(Role::User, vec![Block::Text { text }]);
            }
            Some(_) => {
                assistant_blocks(&body, thread);
            }
            None => {}
        }
        role = Some(next);
        body.clear();
    }
}

/// A plain assistant block as messages: its text, thinking and tool calls, then the calls'
/// results as the tool's turn (as the other agents write them).
fn assistant_blocks(lines: &[&str], thread: &mut Thread) {
    let mut blocks = Vec::new();
    let mut text: Vec<&str> = Vec::new();
    let mut results: Vec<Block> = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at].trim();
        let opener = ["[Thinking]", "[Tool call]", "[Tool result]"]
            .into_iter()
            .find(|o| line.starts_with(o));
        let Some(opener) = opener else {
            text.push(lines[at]);
            at += 1;
            continue;
        };
        flush_text(&mut text, &mut blocks);
        let head = line[opener.len()..].trim();
        at += 1;
        let start = at;
        while at < lines.len() && !ends_body(lines[at]) {
            at += 1;
        }
        let body = dedent(&lines[start..at]);
        match opener {
            "[Thinking]" => blocks.push(Block::Thinking {
                text: [head, body.as_str()]
                    .iter()
                    .filter(|t| !t.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n"),
            }),
            "[Tool call]" => {
                thread.calls += 1;
                let id = format!("{}call-{}", thread.prefix, thread.calls);
                thread.open.push_back((id.clone(), head.to_owned()));
                blocks.push(Block::ToolCall {
                    id,
                    name: head.to_owned(),
                    input: input_of(&body),
                });
            }
            _ => results.push(Block::ToolResult {
                call_id: thread.result_of(head),
                output: body,
                is_error: false,
            }),
        }
    }
    flush_text(&mut text, &mut blocks);
    thread.push_message(Role::Assistant, blocks);
    thread.push_message(Role::Tool, results);
}

fn flush_text(text: &mut Vec<&str>, blocks: &mut Vec<Block>) {
    let joined = text.join("\n").trim().to_owned();
    text.clear();
    if !joined.is_empty() {
        blocks.push(Block::Text { text: joined });
    }
}

/// Whether `line` ends a thinking, call or result body: bodies are indented or blank, so a
/// line at the margin (a new opener, or the reply's text) ends one.
fn ends_body(line: &str) -> bool {
    !line.trim().is_empty() && !line.starts_with([' ', '\t'])
}

/// Lines without the indent they share, trimmed at both ends.
fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or_else(|| l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// A plain call's arguments as JSON: as written when they are JSON, else an object of its
/// `key: value` (or `key=value`) lines, else `{"text": …}`.
fn input_of(body: &str) -> String {
    if serde_json::from_str::<Value>(body).is_ok_and(|v| v.is_object()) {
        return body.to_owned();
    }
    let pairs: Option<serde_json::Map<String, Value>> = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (key, value) = l.split_once(": ").or_else(|| l.split_once('='))?;
            let key = key.trim();
            (!key.is_empty() && !key.contains(' '))
                .then(|| (key.to_owned(), Value::String(value.trim().to_owned())))
        })
        .collect();
    let object = match pairs {
        Some(pairs) if !pairs.is_empty() => pairs,
        _ if body.is_empty() => serde_json::Map::new(),
        _ => serde_json::Map::from_iter([("text".to_owned(), Value::String(body.to_owned()))]),
    };
    Value::Object(object).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_one(path: &str, text: &str) -> Parsed {
        let mut parsed = Parsed::default();
        read(path, text.as_bytes(), &mut parsed);
        parsed
    }

    #[test]
    fn a_plain_transcript_gives_prompts_replies_thinking_and_answered_calls() {
        let text = "user:\n<user_query>\nFix it\n</user_query>\n\nassistant:\n\
                    [Thinking] First look.\n  Then act.\nOn it; user: says hi.\n\
                    [Tool call] Shell\n  command: ls\n[Tool result] Shell\n  a.txt\n";
        let parsed = read_one("/p/agent-transcripts/abc.txt", text);
        let chat = &parsed.conversations[0];
        assert_eq!((chat.provider, chat.id.as_str()), (Provider::Cursor, "abc"));
        assert_eq!(chat.first_prompt.as_deref(), Some("Fix it"));
        assert!(chat.is_copy());
        let roles: Vec<Role> = chat.messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, [Role::User, Role::Assistant, Role::Tool]);
        let reply = &chat.messages[1].blocks;
        assert_eq!(
            reply[0],
            Block::Thinking {
                text: "First look.\nThen act.".into()
            }
        );
        assert_eq!(
            reply[1],
            Block::Text {
                text: "On it; user: says hi.".into()
            }
        );
        let Block::ToolCall { id, input, .. } = &reply[2] else {
            panic!("{reply:?}")
        };
        assert_eq!(input, r#"{"command":"ls"}"#);
        assert_eq!(
            chat.messages[2].blocks[0],
            Block::ToolResult {
                call_id: id.clone(),
                output: "a.txt".into(),
                is_error: false
            }
        );
    }

    #[test]
    fn a_jsonl_transcript_numbers_its_calls_and_a_sub_agent_joins_its_parent() {
        let text = concat!(
            r#"{"role":"user","message":{"content":"<user_query>\nGo\n</user_query>"}}"#,
            "\n",
            r#"{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"a"}}]}}"#,
            "\n",
            r#"{"role":"user","message":{"content":[{"type":"tool_result","content":"done"}]}}"#,
            "\n{\"type\":\"turn_ended\"}\n{\"type\":\"odd\"}\nnot json\n"
        );
        let parsed = read_one("/p/agent-transcripts/c1/c1.jsonl", text);
        let chat = &parsed.conversations[0];
        assert_eq!(chat.id, "c1");
        assert_eq!(chat.first_prompt.as_deref(), Some("Go"));
        assert_eq!(chat.messages[2].role, Role::Tool);
        assert_eq!(
            chat.messages[2].blocks[0],
            Block::ToolResult {
                call_id: "~call-1".into(),
                output: "done".into(),
                is_error: false
            }
        );
        assert_eq!((parsed.stats.malformed, parsed.unknown_kinds.len()), (1, 1));
        let sub = read_one("/p/agent-transcripts/c1/subagents/s9.jsonl", text);
        let sub = &sub.conversations[0];
        assert_eq!(sub.id, "c1");
        assert!(
            sub.messages
                .iter()
                .all(|m| m.side_chain && m.id.starts_with("~s9:"))
        );
    }

    #[test]
    fn a_copy_gives_way_to_the_fuller_chat_in_either_order() {
        let copy = read_one("/p/agent-transcripts/c1.txt", "user:\nHi\n").conversations;
        let mut fuller = copy[0].clone();
        fuller.messages[0].id = "bubble-1".into();
        fuller.title = Some("Named".into());
        let mut a = copy[0].clone();
        a.absorb(fuller.clone());
        let mut b = fuller.clone();
        b.absorb(copy[0].clone());
        for merged in [a, b] {
            assert_eq!(merged.messages.len(), 1);
            assert_eq!(merged.messages[0].id, "bubble-1");
            assert_eq!(merged.title.as_deref(), Some("Named"));
        }
        assert!(!looks_like_transcript(
            "{\"type\":\"user\",\"role\":\"user\",\"message\":{}}"
        ));
        assert!(looks_like_transcript("\nuser:\nhello"));
    }
}
