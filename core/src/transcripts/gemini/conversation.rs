//! A Gemini CLI session as a conversation: each message once, as its last copy wrote it, in
//! the place its first copy had; tool calls with their results on the response that made them
//! (the CLI writes each result again as a message of its own since v0.44: that copy is left
//! out, so no result is counted twice); the session's summary as its title.

use super::{Record, document_value, gemini_tokens, kept_in_document, listed_messages, path_clues};
use crate::transcripts::conversation::parts::content_blocks;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use crate::transcripts::{Provider, parse_line};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

/// Where a [`GeminiReader`] stopped in a file, to read what is appended later without the
/// lines before.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct GeminiState {
    /// The session id.
    pub id: String,
    /// The project, when known.
    pub project: Option<String>,
    /// A sub-agent's file: its messages hang off the main session.
    pub side_chain: bool,
    /// The last message's id (the next one's parent).
    pub previous: Option<String>,
    /// The first prompt, for the title.
    pub first_prompt: Option<String>,
    /// The session's summary, when one was written.
    pub title: Option<String>,
    /// The lines of an old-format document read so far (it spans the whole file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// Lines read so far.
    pub lines: u64,
}

/// Builds a Gemini CLI conversation from lines fed one at a time.
#[derive(Debug)]
pub struct GeminiReader {
    parsed: Parsed,
    conversation: Conversation,
    /// Where each message id sits in the conversation's messages.
    places: HashMap<String, usize>,
    previous: Option<String>,
    side_chain: bool,
    /// A sub-agent's file names its main session by its folder.
    parent: Option<String>,
    /// What the file's path says.
    clues: super::Clues,
    /// The project the file's folder names, when no line names one.
    folder_project: Option<String>,
    /// An old-format document, pretty-printed over many lines: kept until the file ends.
    document: Option<Vec<u8>>,
    lines: u64,
}

/// Openings of prompts the CLI itself never takes for a session's name: its commands and
/// the context it sends before the first prompt.
const NOT_A_NAME: &[&str] = &["/", "?", "<session_context>", "<hook_context>"];

/// Openings of the context the CLI writes as a user turn: shown as the system's.
const CONTEXT: &[&str] = &["<session_context>", "<hook_context>"];

impl GeminiReader {
    /// A reader for the file at `path` (its folders say the project and, for a sub-agent's
    /// file, the session), continued from `state` when the lines before were read already.
    pub fn new(path: &str, state: Option<GeminiState>) -> GeminiReader {
        let clues = path_clues(path);
        let (project, parent) = (clues.project(), clues.parent.clone());
        let state = state.unwrap_or_default();
        let mut conversation = Conversation::new(Provider::Gemini, state.id);
        conversation.project = state.project;
        conversation.first_prompt = state.first_prompt;
        conversation.title = state.title;
        if conversation.id.is_empty() {
            conversation.id = parent.clone().unwrap_or_default();
        }
        GeminiReader {
            parsed: Parsed::default(),
            conversation,
            places: HashMap::new(),
            previous: state.previous,
            side_chain: state.side_chain || parent.is_some(),
            parent,
            clues,
            folder_project: project,
            document: state.document.map(String::into_bytes),
            lines: state.lines,
        }
    }

    /// Takes a file found with the transcript: `projects.json` says which folder the
    /// project's folder under `tmp/` stands for.
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        if let Some(folder) = self.clues.registered(name, bytes) {
            self.folder_project = Some(folder);
        }
    }

    /// Where this reader is, to go on with [`GeminiReader::new`].
    pub fn state(&self) -> GeminiState {
        GeminiState {
            id: self.conversation.id.clone(),
            project: self.conversation.project.clone(),
            side_chain: self.side_chain,
            previous: self.previous.clone(),
            first_prompt: self.conversation.first_prompt.clone(),
            title: self.conversation.title.clone(),
            document: self
                .document
                .as_ref()
                .map(|d| String::from_utf8_lossy(d).into_owned()),
            lines: self.lines,
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.parsed.stats.lines += 1;
        self.lines += 1;
        if kept_in_document(&mut self.document, self.lines, line) {
            return;
        }
        let Some(value) = parse_line::<Value>(line, &mut self.parsed.stats) else {
            self.parsed.stats.malformed += 1;
            return;
        };
        self.take(&value, line);
    }

    fn take(&mut self, value: &Value, line: &[u8]) {
        match Record::of(value) {
            Record::Rewind => {}
            Record::Message(message) => self.message(message),
            Record::Set(set) => self.metadata(set),
            Record::Metadata(metadata) => self.metadata(metadata),
            Record::Other => self.parsed.unknown("other".to_owned(), line),
        }
    }

    fn metadata(&mut self, value: &Value) {
        if let Some(id) = value["sessionId"].as_str().filter(|id| !id.is_empty())
            && self.parent.is_none()
        {
            self.conversation.id = id.to_owned();
        }
        if value["kind"] == "subagent" {
            self.side_chain = true;
        }
        if let Some(folder) = value["directories"][0].as_str()
            && self.conversation.project.is_none()
        {
            self.conversation.project = Some(folder.to_owned());
        }
        if let Some(summary) = value["summary"].as_str().filter(|s| !s.trim().is_empty()) {
            self.conversation.title = Some(summary.to_owned());
        }
        if let Some(start) = time(&value["startTime"]) {
            self.conversation.started_at = Some(match self.conversation.started_at {
                Some(known) => known.min(start),
                None => start,
            });
        }
        for message in listed_messages(value) {
            self.message(message);
        }
    }

    /// Takes in a message: new, or a later copy of one already read.
    fn message(&mut self, value: &Value) {
        let id = value["id"].as_str().unwrap_or_default().to_owned();
        let kind = value["type"].as_str().unwrap_or_default();
        let mut role = match kind {
            "user" => Role::User,
            "gemini" => Role::Assistant,
            "info" | "warning" | "error" => Role::System,
            other => {
                let raw = value.to_string();
                self.parsed
                    .unknown(format!("message.{other}"), raw.as_bytes());
                return;
            }
        };
        let shown = match &value["displayContent"] {
            Value::Null => &value["content"],
            display => display,
        };
        // The context the CLI sends before the first prompt is no one's words.
        if role == Role::User
            && CONTEXT
                .iter()
                .any(|opening| text_of(shown).trim_start().starts_with(opening))
        {
            role = Role::System;
        }
        let mut blocks = Vec::new();
        if role == Role::Assistant {
            for thought in value["thoughts"].as_array().into_iter().flatten() {
                let subject = text_of(&thought["subject"]);
                let description = text_of(&thought["description"]);
                let text = [subject.trim(), description.trim()]
                    .into_iter()
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n");
                if !text.is_empty() {
                    blocks.push(Block::Thinking { text });
                }
            }
        }
        let parts = content_blocks(shown);
        // A tool's result sent back to the model (v0.44 on) repeats what the response's own
        // tool call holds: left out.
        if role == Role::User
            && !parts.is_empty()
            && parts.iter().all(|b| matches!(b, Block::ToolResult { .. }))
        {
            return;
        }
        blocks.extend(parts);
        for call in value["toolCalls"].as_array().into_iter().flatten() {
            let call_id = call["id"].as_str().unwrap_or_default().to_owned();
            blocks.push(Block::ToolCall {
                id: call_id.clone(),
                name: call["name"].as_str().unwrap_or_default().to_owned(),
                input: call["args"].to_string(),
            });
            let results: Vec<&Value> = match &call["result"] {
                Value::Array(parts) => parts.iter().collect(),
                Value::Null => Vec::new(),
                one => vec![one],
            };
            if results.is_empty() {
                continue;
            }
            let mut failed = call["status"] == "error";
            let output = results
                .iter()
                .map(|part| {
                    let response = &part["functionResponse"]["response"];
                    if !response["error"].is_null() {
                        failed = true;
                        text_of(&response["error"])
                    } else if !response["output"].is_null() {
                        text_of(&response["output"])
                    } else {
                        text_of(part)
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            blocks.push(Block::ToolResult {
                call_id,
                output,
                is_error: failed,
            });
        }
        if role == Role::User && !self.side_chain && self.conversation.first_prompt.is_none() {
            let text = text_of(shown);
            let text = text.trim_start();
            if !NOT_A_NAME.iter().any(|opening| text.starts_with(opening)) {
                self.conversation.first_prompt = prompt_title(text);
            }
        }
        let mut message = Message {
            id: id.clone(),
            parent: None,
            role,
            at: time(&value["timestamp"]),
            blocks,
            model: value["model"].as_str().map(str::to_owned),
            side_chain: self.side_chain,
            tokens: gemini_tokens(&value["tokens"]),
        };
        match self.places.get(&id) {
            Some(&at) => {
                let kept = &mut self.conversation.messages[at];
                message.parent = kept.parent.take();
                // A copy written before the response's usage arrived keeps the usage it had.
                message.tokens = message.tokens.or(kept.tokens);
                *kept = message;
            }
            None => {
                message.parent = self.previous.replace(id.clone());
                self.places.insert(id, self.conversation.messages.len());
                self.conversation.messages.push(message);
            }
        }
    }

    /// The conversation (none when the file named no session).
    pub fn finish(mut self) -> Parsed {
        if let Some(document) = self.document.take() {
            self.read_document(document);
        }
        if self.conversation.id.is_empty() {
            return self.parsed;
        }
        // The folder's name first (the main file names no other); a sub-agent's `directories`
        // only where the folder is a hash.
        if let Some(folder) = self.folder_project.take() {
            self.conversation.project = Some(folder);
        }
        self.conversation.seal();
        self.parsed.conversations.push(self.conversation);
        self.parsed
    }

    /// An old-format document, whole.
    fn read_document(&mut self, document: Vec<u8>) {
        match document_value(document) {
            Some(value) => self.take(&value, b"{}"),
            None => self.parsed.stats.malformed += 1,
        }
    }
}

impl crate::transcripts::lines::LineReader for GeminiReader {
    fn push_line(&mut self, line: &[u8]) {
        GeminiReader::push_line(self, line);
    }
}
