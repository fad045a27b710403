//! One normalized model of a conversation for every format, and the readers that build it:
//! Claude Code and Codex JSONL (fed line by line), ChatGPT and claude.ai exports (JSON, one
//! conversation at a time); the newer agents' readers build it too (`transcripts::gemini`,
//! `transcripts::qwen`). Branches are kept: every message keeps its parent, and the active
//! branch is the path from the export's current leaf. Unknown record kinds are counted, never
//! fatal.

use crate::time::Timestamp;
use crate::transcripts::{Provider, ReadStats};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
mod chatgpt;
mod claude_ai;
mod claude_code;
mod codex;
pub(crate) mod exports;
pub(crate) mod parts;
mod sidechains;
pub(crate) mod splitter;
pub mod title;
pub(crate) mod tree;

pub(crate) use chatgpt::chatgpt_conversation;
pub use chatgpt::{parse_chatgpt, parse_chatgpt_with};
pub(crate) use claude_ai::claude_ai_conversation;
pub use claude_ai::parse_claude_ai;
pub use claude_code::{ClaudeCodeReader, parse_claude_code};
pub use codex::{CodexReader, CodexState, parse_codex};
pub use exports::{Damaged, split_export};
use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// System or developer instructions.
    System,
    /// A tool's output.
    Tool,
}

/// A piece of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// Visible text.
    Text {
        /// The text.
        text: String,
    },
    /// Reasoning, kept apart from the answer.
    Thinking {
        /// The reasoning text (may be empty when only a signature was kept).
        text: String,
    },
    /// A tool call.
    ToolCall {
        /// The call id that joins it to its result.
        id: String,
        /// The tool.
        name: String,
        /// The arguments, as JSON text.
        input: String,
    },
    /// A tool's result.
    ToolResult {
        /// The call it answers.
        call_id: String,
        /// The output, as text.
        output: String,
        /// Whether the tool reported an error.
        is_error: bool,
    },
    /// A block of a kind this build does not render.
    Other {
        /// Its kind.
        kind: String,
        /// The block as written (JSON), for a consumer that understands it.
        raw: String,
    },
}

/// One message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Message {
    /// The provider's id.
    pub id: String,
    /// The parent message's id (branches share a parent).
    pub parent: Option<String>,
    /// Who wrote it.
    pub role: Role,
    /// When.
    pub at: Option<Timestamp>,
    /// Its content.
    pub blocks: Vec<Block>,
    /// The model that wrote it.
    pub model: Option<String>,
    /// Whether it belongs to a sub-agent's thread (a Claude Code `isSidechain` line): such a
    /// thread hangs off the tool call that started it, never as an alternative of a prompt.
    #[serde(default, skip_serializing_if = "is_false")]
    pub side_chain: bool,
    /// The tokens of the response it is (Claude Code records them; a response written over
    /// several lines has them on its last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::tokens::TokenTotals>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How conversations are read: what a person sees by default, and what only on request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ReadOptions {
    /// Keep the messages the provider hides from its own reader (ChatGPT nodes marked
    /// `is_visually_hidden_from_conversation`, custom instructions, memory context). Off by
    /// default: they are left out of messages, counts and the reader.
    pub include_hidden: bool,
}

/// What the id of every message of a copy starts with: a conversation an agent also keeps
/// in a fuller form elsewhere (Cursor's agent transcripts beside its store's chats). A copy
/// gives way to the fuller form wherever both are read ([`Conversation::absorb`], the
/// mirror), and stands alone where it is all there is.
pub const COPY_MARK: char = '~';

/// One conversation (a session, a thread, a chat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Conversation {
    /// Whose format.
    pub provider: Provider,
    /// The provider's id.
    pub id: String,
    /// Its title, when there is one.
    pub title: Option<String>,
    /// The working directory, for coding agents.
    pub project: Option<String>,
    /// The git branch, when recorded.
    pub branch: Option<String>,
    /// First message time.
    pub started_at: Option<Timestamp>,
    /// Last message time.
    pub updated_at: Option<Timestamp>,
    /// Every message, branches included, in file order.
    pub messages: Vec<Message>,
    /// The leaf of the active branch, when the format records one.
    pub active_leaf: Option<String>,
    /// The first prompt the person typed, as a title (see [`title::prompt_title`]), when the
    /// reader picks it from records other than the messages (Codex's `user_message` events,
    /// Claude Code's lines that are not meta).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
}

impl Conversation {
    pub(crate) fn new(provider: Provider, id: impl Into<String>) -> Conversation {
        Conversation {
            provider,
            id: id.into(),
            title: None,
            project: None,
            branch: None,
            started_at: None,
            updated_at: None,
            messages: Vec::new(),
            active_leaf: None,
            first_prompt: None,
        }
    }

    /// Takes in this conversation as read from another file: Claude Code writes each
    /// sub-agent's thread to `<session>/subagents/agent-*.jsonl`, with the parent's session id.
    /// Every message is kept once (the main thread's first, whichever file came first), the
    /// sub-agent threads are hung off the calls that started them, and the title and first
    /// prompt are the main thread's: a sub-agent's prompt names the conversation only while
    /// no file of its main thread has been read. Every view reads files through this, so
    /// each names and counts the conversation alike.
    pub fn absorb(&mut self, other: Conversation) {
        // A copy gives way to the fuller form of the same conversation, whichever came first.
        match (self.is_copy(), other.is_copy()) {
            (false, true) if !self.messages.is_empty() => return,
            (true, false) if !other.messages.is_empty() => {
                let title = self.first_prompt.take();
                *self = other;
                self.first_prompt = self.first_prompt.take().or(title);
                return;
            }
            _ => {}
        }
        let main_here = self.messages.iter().any(|m| !m.side_chain);
        let main_there = other.messages.iter().any(|m| !m.side_chain);
        // Sub-agents alone: the one that started first names the conversation (a compaction's
        // agent runs after the work it summarises), whichever file is read first.
        let started_first = !main_here
            && !main_there
            && match (other.started_at, self.started_at) {
                (Some(there), Some(here)) => there < here,
                (Some(_), None) => true,
                _ => false,
            };
        let known: std::collections::HashSet<String> =
            self.messages.iter().map(|m| m.id.clone()).collect();
        let incoming: Vec<Message> = other
            .messages
            .into_iter()
            .filter(|m| !known.contains(&m.id))
            .collect();
        let main_arrives = main_there && !main_here;
        if main_arrives {
            let threads = std::mem::replace(&mut self.messages, incoming);
            self.messages.extend(threads);
            self.first_prompt = other.first_prompt.or(self.first_prompt.take());
            self.title = other.title.or(self.title.take());
            self.active_leaf = other.active_leaf.or(self.active_leaf.take());
        } else {
            self.messages.extend(incoming);
            if self.first_prompt.is_none() || (started_first && other.first_prompt.is_some()) {
                self.first_prompt = other.first_prompt;
            }
            if self.title.is_none() {
                self.title = other.title;
            }
            // The thread that names it is the one read first.
            if self.active_leaf.is_none() || (started_first && other.active_leaf.is_some()) {
                self.active_leaf = other.active_leaf;
            }
        }
        if self.project.is_none() {
            self.project = other.project;
        }
        if self.branch.is_none() {
            self.branch = other.branch;
        }
        self.started_at = match (self.started_at, other.started_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.updated_at = self.updated_at.max(other.updated_at);
        sidechains::attach_side_chains(self);
        self.seal();
    }

    /// Whether it is a copy ([`COPY_MARK`]): it has messages and each is marked so.
    pub fn is_copy(&self) -> bool {
        !self.messages.is_empty() && self.messages.iter().all(|m| m.id.starts_with(COPY_MARK))
    }

    pub(crate) fn seal(&mut self) {
        let times = self.messages.iter().filter_map(|m| m.at);
        self.started_at = self.started_at.or(times.clone().min());
        self.updated_at = self.updated_at.max(times.max());
    }

    /// The active branch, root first: from the active leaf up its parents, else every message.
    pub fn active_branch(&self) -> Vec<&Message> {
        let Some(leaf) = &self.active_leaf else {
            return self.messages.iter().collect();
        };
        let by_id: HashMap<&str, &Message> =
            self.messages.iter().map(|m| (m.id.as_str(), m)).collect();
        let mut path = Vec::new();
        let mut seen = BTreeSet::new();
        let mut cursor = by_id.get(leaf.as_str()).copied();
        while let Some(message) = cursor {
            if !seen.insert(message.id.as_str()) {
                break;
            }
            path.push(message);
            cursor = message
                .parent
                .as_deref()
                .and_then(|p| by_id.get(p).copied());
        }
        path.reverse();
        path
    }

    /// The first and last message times (messages without a time are left out): what every
    /// report calls a conversation's span.
    pub fn message_span(&self) -> Option<(Timestamp, Timestamp)> {
        let mut times = self.messages.iter().filter_map(|m| m.at);
        let first = times.next()?;
        Some(times.fold((first, first), |(lo, hi), at| (lo.min(at), hi.max(at))))
    }

    /// Its tool calls and tool results, every branch included: the figures `inspect`, the
    /// conversation list and the page all show.
    pub fn tool_counts(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for block in self.messages.iter().flat_map(|m| m.blocks.iter()) {
            match block {
                Block::ToolCall { .. } => counts.0 += 1,
                Block::ToolResult { .. } => counts.1 += 1,
                _ => {}
            }
        }
        counts
    }

    /// Places in the raw tree with more than one child (the start of the conversation
    /// included, when it has several first messages): where it branched, parallel tool calls
    /// included. Forks (`forks` in inspection and the list) leave out side chains of tool work.
    pub fn branch_points(&self) -> usize {
        tree::Tree::new(self).branch_points()
    }
}

/// What parsing a file produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Parsed {
    /// The conversations.
    pub conversations: Vec<Conversation>,
    /// Line counts and problems.
    pub stats: ReadStats,
    /// Record kinds this build does not know, with how often they appeared.
    pub unknown_kinds: BTreeMap<String, u64>,
    /// The first few records of each unknown kind, as written, for a consumer that knows them.
    pub unknown_samples: BTreeMap<String, Vec<String>>,
}

impl Parsed {
    /// Adds this file's line counts (read, malformed, repaired) and unknown kinds into running
    /// totals: how every report sums the parts of several files or archive entries.
    pub fn count_into(&self, stats: &mut ReadStats, unknown_kinds: &mut BTreeMap<String, u64>) {
        stats.lines += self.stats.lines;
        stats.malformed += self.stats.malformed;
        stats.repaired_surrogates += self.stats.repaired_surrogates;
        stats.too_long += self.stats.too_long;
        for (kind, n) in &self.unknown_kinds {
            *unknown_kinds.entry(kind.clone()).or_default() += n;
        }
    }
}

/// How many records of one unknown kind are kept verbatim.
pub const UNKNOWN_SAMPLES_PER_KIND: usize = 5;

impl Parsed {
    pub(crate) fn unknown(&mut self, kind: String, raw: &[u8]) {
        let samples = self.unknown_samples.entry(kind.clone()).or_default();
        if samples.len() < UNKNOWN_SAMPLES_PER_KIND {
            samples.push(String::from_utf8_lossy(raw).into_owned());
        }
        *self.unknown_kinds.entry(kind).or_default() += 1;
    }
}

pub(crate) fn time(value: &Value) -> Option<Timestamp> {
    match value {
        Value::String(s) => Timestamp::parse(s).ok(),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.is_finite() && f.abs() < 1e13)
            .map(|secs| Timestamp::from_millis((secs * 1000.0) as i64)),
        _ => None,
    }
}

pub(crate) fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.clone(),
                other => other["text"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Anthropic-style content blocks (Claude Code, claude.ai).
pub(crate) fn anthropic_blocks(content: &Value) -> Vec<Block> {
    match content {
        Value::String(text) => vec![Block::Text { text: text.clone() }],
        Value::Array(items) => items
            .iter()
            .map(|b| match b["type"].as_str().unwrap_or("") {
                "text" => Block::Text {
                    text: text_of(&b["text"]),
                },
                "thinking" => Block::Thinking {
                    text: text_of(&b["thinking"]),
                },
                "tool_use" => Block::ToolCall {
                    id: b["id"].as_str().unwrap_or("").to_owned(),
                    name: b["name"].as_str().unwrap_or("").to_owned(),
                    input: b["input"].to_string(),
                },
                "tool_result" => Block::ToolResult {
                    call_id: b["tool_use_id"].as_str().unwrap_or("").to_owned(),
                    output: text_of(&b["content"]),
                    is_error: b["is_error"].as_bool().unwrap_or(false),
                },
                other => Block::Other {
                    kind: other.to_owned(),
                    raw: b.to_string(),
                },
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The conversations a whole agent transcript holds, read line by line by `reader` (a line
/// over the splitter's bound is passed over and counted).
pub(crate) fn read_lines<R: crate::transcripts::lines::LineReader>(
    mut reader: R,
    bytes: &[u8],
    finish: impl FnOnce(R) -> Parsed,
) -> Parsed {
    let mut lines = crate::transcripts::lines::LineSplitter::new();
    crate::transcripts::lines::feed(&mut lines, bytes, &mut [&mut reader]);
    lines.finish(|line| reader.push_line(line));
    let mut parsed = finish(reader);
    parsed.stats.too_long += lines.too_long();
    parsed
}

/// An agent transcript's last line, when it has no newline, to its readers (see
/// [`crate::transcripts::lines::feed_agent`]); then its conversations, when they were read.
pub(crate) fn finish_agent<C: crate::transcripts::lines::LineReader>(
    lines: &mut crate::transcripts::lines::LineSplitter,
    mut conversations: Option<Box<C>>,
    usage: &mut dyn crate::transcripts::lines::LineReader,
    finish: impl FnOnce(C) -> Parsed,
) -> Parsed {
    lines.finish(|line| {
        if let Some(reader) = conversations.as_mut() {
            reader.push_line(line);
        }
        usage.push_line(line);
    });
    let mut parsed = conversations.map(|r| finish(*r)).unwrap_or_default();
    parsed.stats.too_long += lines.too_long();
    parsed
}
