//! One normalized model of a conversation for all four formats, and the parsers that build it:
//! Claude Code and Codex JSONL (line by line), ChatGPT and claude.ai exports (JSON). Branches
//! are kept: every message keeps its parent, and the active branch is the path from the
//! export's current leaf. Unknown record kinds are counted, never fatal.

use super::{Provider, ReadStats, detect, parse_line};
use crate::error::Result;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
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
}

/// One conversation (a session, a thread, a chat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
}

impl Conversation {
    fn new(provider: Provider, id: impl Into<String>) -> Conversation {
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
        }
    }

    fn seal(&mut self) {
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

    /// Messages with more than one child: where the conversation branched.
    pub fn branch_points(&self) -> usize {
        let mut children: HashMap<&str, usize> = HashMap::new();
        for m in &self.messages {
            if let Some(p) = &m.parent {
                *children.entry(p.as_str()).or_default() += 1;
            }
        }
        children.values().filter(|&&n| n > 1).count()
    }
}

/// What parsing a file produced.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// How many records of one unknown kind are kept verbatim.
pub const UNKNOWN_SAMPLES_PER_KIND: usize = 5;

impl Parsed {
    fn unknown(&mut self, kind: String, raw: &[u8]) {
        let samples = self.unknown_samples.entry(kind.clone()).or_default();
        if samples.len() < UNKNOWN_SAMPLES_PER_KIND {
            samples.push(String::from_utf8_lossy(raw).into_owned());
        }
        *self.unknown_kinds.entry(kind).or_default() += 1;
    }
}

fn time(value: &Value) -> Option<Timestamp> {
    match value {
        Value::String(s) => Timestamp::parse(s).ok(),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.is_finite() && f.abs() < 1e13)
            .map(|secs| Timestamp::from_millis((secs * 1000.0) as i64)),
        _ => None,
    }
}

fn text_of(value: &Value) -> String {
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
fn anthropic_blocks(content: &Value) -> Vec<Block> {
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

const CLAUDE_CODE_KINDS: &[&str] = &[
    "user",
    "assistant",
    "system",
    "summary",
    "progress",
    "file-history-snapshot",
    "queue-operation",
    "attachment",
    "ai-title",
    "custom-title",
    "last-prompt",
    "mode",
    "permission-mode",
    "agent-name",
    "pr-link",
    "agent-setting",
];

/// Claude Code JSONL: one conversation per `sessionId`; sidechain lines stay in it.
pub fn parse_claude_code(bytes: &[u8]) -> Parsed {
    parse_claude_code_lines(bytes.split(|&b| b == b'\n'))
}

/// The same, fed line by line (a host streams a file of any size through it).
pub fn parse_claude_code_lines<L: AsRef<[u8]>>(lines: impl IntoIterator<Item = L>) -> Parsed {
    let mut reader = ClaudeCodeReader::default();
    for line in lines {
        reader.push_line(line.as_ref());
    }
    reader.finish()
}

/// Builds Claude Code conversations from lines fed one at a time (the browser feeds chunks).
#[derive(Debug, Default)]
pub struct ClaudeCodeReader {
    parsed: Parsed,
    by_session: BTreeMap<String, Conversation>,
    titles: HashMap<String, String>,
    /// Every line's uuid → its parent (or, after a compaction, its logical parent): lines that
    /// are not messages (progress, attachments, titles) are links of the tree too.
    links: HashMap<String, String>,
}

/// The fields of a Claude Code line the conversation model uses. Read typed (unknown fields
/// skipped without building a tree), or from a JSON value when a field has an odd type.
#[derive(Deserialize, Default)]
struct ClaudeCodeLine {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(rename = "sessionId", default)]
    session_id: Option<String>,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(rename = "parentUuid", default)]
    parent_uuid: Option<String>,
    #[serde(rename = "logicalParentUuid", default)]
    logical_parent_uuid: Option<String>,
    #[serde(default)]
    timestamp: Value,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(rename = "gitBranch", default)]
    git_branch: Option<String>,
    #[serde(rename = "leafUuid", default)]
    leaf_uuid: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    message: Option<ClaudeCodeMessage>,
}

#[derive(Deserialize, Default)]
struct ClaudeCodeMessage {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: Value,
}

impl ClaudeCodeLine {
    fn from_value(v: &Value) -> ClaudeCodeLine {
        let text = |key: &str| v[key].as_str().map(str::to_owned);
        ClaudeCodeLine {
            kind: text("type"),
            session_id: text("sessionId"),
            uuid: text("uuid"),
            parent_uuid: text("parentUuid"),
            logical_parent_uuid: text("logicalParentUuid"),
            timestamp: v["timestamp"].clone(),
            cwd: text("cwd"),
            git_branch: text("gitBranch"),
            leaf_uuid: text("leafUuid"),
            summary: text("summary"),
            content: v["content"].clone(),
            message: v["message"].is_object().then(|| ClaudeCodeMessage {
                model: v["message"]["model"].as_str().map(str::to_owned),
                content: v["message"]["content"].clone(),
            }),
        }
    }
}

impl ClaudeCodeReader {
    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        let parsed = &mut self.parsed;
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        parsed.stats.lines += 1;
        let v = match parse_line::<ClaudeCodeLine>(line, &mut parsed.stats) {
            Some(typed) => typed,
            None => match parse_line::<Value>(line, &mut parsed.stats) {
                Some(value) => ClaudeCodeLine::from_value(&value),
                None => {
                    parsed.stats.malformed += 1;
                    return;
                }
            },
        };
        let kind = v.kind.clone().unwrap_or_default();
        if !CLAUDE_CODE_KINDS.contains(&kind.as_str()) {
            let kind = if kind.is_empty() {
                "(none)".into()
            } else {
                kind
            };
            parsed.unknown(kind, line);
            return;
        }
        if kind == "summary" {
            if let (Some(leaf), Some(text)) = (v.leaf_uuid, v.summary) {
                self.titles.insert(leaf, text);
            }
            return;
        }
        // A compaction boundary starts a new root whose logical parent is the previous leaf.
        let parent = v.parent_uuid.or(v.logical_parent_uuid);
        if let (Some(id), Some(parent)) = (&v.uuid, &parent) {
            self.links.insert(id.clone(), parent.clone());
        }
        let Some(session) = v.session_id.as_deref() else {
            return;
        };
        let conversation = self
            .by_session
            .entry(session.to_owned())
            .or_insert_with(|| Conversation::new(Provider::ClaudeCode, session));
        if conversation.project.is_none() {
            conversation.project = v.cwd;
        }
        if conversation.branch.is_none() {
            conversation.branch = v.git_branch;
        }
        let message = v.message.unwrap_or_default();
        let role = match kind.as_str() {
            "user" => {
                let tool = message
                    .content
                    .as_array()
                    .is_some_and(|b| b.iter().any(|x| x["type"] == "tool_result"));
                if tool { Role::Tool } else { Role::User }
            }
            "assistant" => Role::Assistant,
            "system" => Role::System,
            _ => return,
        };
        let Some(id) = v.uuid else {
            return;
        };
        conversation.active_leaf = Some(id.clone());
        conversation.messages.push(Message {
            id,
            parent,
            role,
            at: time(&v.timestamp),
            blocks: if role == Role::System {
                vec![Block::Text {
                    text: text_of(&v.content),
                }]
            } else {
                anthropic_blocks(&message.content)
            },
            model: message.model,
        });
    }

    /// The conversations, titled from their summaries. A message written twice (a file that
    /// re-wrote its history) counts once; a parent that is a non-message line is climbed past
    /// to the nearest message; a conversation without any parent links reads in file order.
    pub fn finish(mut self) -> Parsed {
        for (_, mut conversation) in self.by_session {
            let mut seen = std::collections::HashSet::new();
            conversation.messages.retain(|m| seen.insert(m.id.clone()));
            let ids: std::collections::HashSet<String> =
                conversation.messages.iter().map(|m| m.id.clone()).collect();
            for message in &mut conversation.messages {
                let mut parent = message.parent.take();
                let mut steps = 0;
                while let Some(p) = &parent {
                    if ids.contains(p) || steps > 10_000 {
                        break;
                    }
                    parent = self.links.get(p).cloned();
                    steps += 1;
                }
                message.parent = parent.filter(|p| ids.contains(p) && *p != message.id);
            }
            if conversation.messages.iter().all(|m| m.parent.is_none()) {
                let mut previous: Option<String> = None;
                for message in &mut conversation.messages {
                    message.parent = previous.replace(message.id.clone());
                }
                conversation.active_leaf = previous;
            }
            conversation.title = conversation
                .messages
                .iter()
                .rev()
                .find_map(|m| self.titles.get(&m.id).cloned());
            conversation.seal();
            self.parsed.conversations.push(conversation);
        }
        self.parsed
    }
}

/// Codex rollouts (current envelope and the older bare-item layout): one conversation.
pub fn parse_codex(bytes: &[u8]) -> Parsed {
    parse_codex_lines(bytes.split(|&b| b == b'\n'))
}

/// The same, fed line by line (a host streams a file of any size through it).
pub fn parse_codex_lines<L: AsRef<[u8]>>(lines: impl IntoIterator<Item = L>) -> Parsed {
    let mut reader = CodexReader::default();
    for line in lines {
        reader.push_line(line.as_ref());
    }
    reader.finish()
}

/// Builds a Codex conversation from lines fed one at a time (the browser feeds chunks).
#[derive(Debug)]
pub struct CodexReader {
    parsed: Parsed,
    conversation: Conversation,
    model: Option<String>,
    previous: Option<String>,
    records: usize,
}

impl Default for CodexReader {
    fn default() -> CodexReader {
        CodexReader {
            parsed: Parsed::default(),
            conversation: Conversation::new(Provider::Codex, ""),
            model: None,
            previous: None,
            records: 0,
        }
    }
}

impl CodexReader {
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
            "event_msg" | "compacted" => {}
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
                });
            }
            other => self.parsed.unknown(other.to_owned(), line),
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

/// Calls `visit` with each conversation of a JSON export — an array, or one object — one at
/// a time: a top-level array is streamed element by element, so an export of any size is
/// never held whole as a JSON tree. (`{"conversations": […]}` wrappers are read whole.)
pub fn for_each_export_item(
    reader: impl std::io::Read,
    stats: &mut ReadStats,
    mut visit: impl FnMut(Value),
) {
    use serde::de::{Deserializer as _, SeqAccess, Visitor};
    struct Items<'v, F: FnMut(Value)>(&'v mut F);
    impl<'de, F: FnMut(Value)> Visitor<'de> for Items<'_, F> {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array of conversations or one conversation")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<u64, A::Error> {
            let mut n = 0;
            while let Some(item) = seq.next_element::<Value>()? {
                (self.0)(item);
                n += 1;
            }
            Ok(n)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<u64, A::Error> {
            let value: serde_json::Map<String, Value> =
                serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            match value.get("conversations") {
                Some(Value::Array(items)) => {
                    for item in items {
                        (self.0)(item.clone());
                    }
                    Ok(items.len() as u64)
                }
                _ => {
                    (self.0)(Value::Object(value));
                    Ok(1)
                }
            }
        }
    }
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    if de.deserialize_any(Items(&mut visit)).is_err() {
        // A truncated or damaged export: what was read before the damage is kept.
        stats.malformed += 1;
    }
}

fn export_items(bytes: &[u8], parsed: &mut Parsed) -> Vec<Value> {
    let mut items = Vec::new();
    let text = std::borrow::Cow::Borrowed(bytes);
    let text = match std::str::from_utf8(&text) {
        Ok(_) => text,
        Err(_) => std::borrow::Cow::Owned(String::from_utf8_lossy(bytes).into_owned().into_bytes()),
    };
    let repaired = super::repair_lone_surrogates(&text);
    if repaired.is_some() {
        parsed.stats.repaired_surrogates += 1;
    }
    let input: &[u8] = repaired.as_deref().unwrap_or(&text);
    for_each_export_item(input, &mut parsed.stats, |item| items.push(item));
    items
}

/// ChatGPT `conversations.json`: the message tree from `mapping`, active branch from
/// `current_node` (else the newest leaf), tool messages and models kept.
pub fn parse_chatgpt(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    for item in export_items(bytes, &mut parsed) {
        parsed.conversations.push(chatgpt_conversation(&item));
    }
    parsed
}

/// One ChatGPT conversation object.
pub fn chatgpt_conversation(item: &Value) -> Conversation {
    {
        let id = item["conversation_id"]
            .as_str()
            .or(item["id"].as_str())
            .unwrap_or("")
            .to_owned();
        let mut conversation = Conversation::new(Provider::Chatgpt, id);
        conversation.title = item["title"].as_str().map(str::to_owned);
        conversation.started_at = time(&item["create_time"]);
        conversation.updated_at = time(&item["update_time"]);
        let Some(mapping) = item["mapping"].as_object() else {
            return conversation;
        };
        for (node_id, node) in mapping {
            let message = &node["message"];
            if !message.is_object() {
                continue;
            }
            let role = match message["author"]["role"].as_str().unwrap_or("") {
                "user" => Role::User,
                "assistant" => Role::Assistant,
                "tool" => Role::Tool,
                _ => Role::System,
            };
            let content = &message["content"];
            let kind = content["content_type"].as_str().unwrap_or("text");
            let blocks = match kind {
                "text" | "multimodal_text" => vec![Block::Text {
                    text: text_of(&content["parts"]),
                }],
                "code" => vec![Block::ToolCall {
                    id: node_id.clone(),
                    name: message["recipient"].as_str().unwrap_or("code").to_owned(),
                    input: text_of(&content["text"]),
                }],
                "thoughts" | "reasoning_recap" => vec![Block::Thinking {
                    text: content["thoughts"].to_string(),
                }],
                other if role == Role::Tool => vec![Block::ToolResult {
                    call_id: node["parent"].as_str().unwrap_or("").to_owned(),
                    output: text_of(&content["text"]).or_parts(content),
                    is_error: other == "system_error",
                }],
                other => vec![Block::Other {
                    kind: other.to_owned(),
                    raw: content.to_string(),
                }],
            };
            // Parents are node ids; empty root nodes are skipped, so climb past them.
            let mut parent = node["parent"].as_str();
            while let Some(p) = parent {
                if mapping.get(p).is_some_and(|n| n["message"].is_object()) {
                    break;
                }
                parent = mapping.get(p).and_then(|n| n["parent"].as_str());
            }
            conversation.messages.push(Message {
                id: node_id.clone(),
                parent: parent.map(str::to_owned),
                role,
                at: time(&message["create_time"]),
                blocks,
                model: message["metadata"]["model_slug"]
                    .as_str()
                    .map(str::to_owned),
            });
        }
        conversation.active_leaf = match item["current_node"].as_str() {
            Some(leaf) => Some(leaf.to_owned()),
            None => {
                let parents: BTreeSet<&str> = conversation
                    .messages
                    .iter()
                    .filter_map(|m| m.parent.as_deref())
                    .collect();
                conversation
                    .messages
                    .iter()
                    .filter(|m| !parents.contains(m.id.as_str()))
                    .max_by_key(|m| m.at)
                    .map(|m| m.id.clone())
            }
        };
        conversation.seal();
        conversation
    }
}

trait OrParts {
    fn or_parts(self, content: &Value) -> String;
}

impl OrParts for String {
    fn or_parts(self, content: &Value) -> String {
        if self.is_empty() {
            text_of(&content["parts"])
        } else {
            self
        }
    }
}

/// claude.ai exports (bulk array, or one conversation from the API): `content[]` blocks with
/// thinking kept apart, branches via `parent_message_uuid`, empty conversations kept.
pub fn parse_claude_ai(bytes: &[u8]) -> Parsed {
    let mut parsed = Parsed::default();
    for item in export_items(bytes, &mut parsed) {
        parsed.conversations.push(claude_ai_conversation(&item));
    }
    parsed
}

/// One claude.ai conversation object.
pub fn claude_ai_conversation(item: &Value) -> Conversation {
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
        conversation
    }
}

/// Streams a ChatGPT or claude.ai export from a reader, one conversation at a time, so an
/// export of any size is never in memory whole.
pub fn stream_export(
    provider: Provider,
    reader: impl std::io::Read,
    stats: &mut ReadStats,
    mut visit: impl FnMut(Conversation),
) {
    for_each_export_item(reader, stats, |item| {
        visit(match provider {
            Provider::ClaudeAi => claude_ai_conversation(&item),
            _ => chatgpt_conversation(&item),
        })
    });
}

/// What a file is and what it holds, for `baton inspect`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inspection {
    /// The detected format.
    pub format: Provider,
    /// Conversations.
    pub conversations: usize,
    /// Messages, branches included.
    pub messages: usize,
    /// Messages on the active branches.
    pub active_branch_messages: usize,
    /// Places where a conversation branched.
    pub branch_points: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Tool results.
    pub tool_results: usize,
    /// Models seen.
    pub models: Vec<String>,
    /// First and last message time.
    pub first_at: Option<Timestamp>,
    /// Last message time.
    pub last_at: Option<Timestamp>,
    /// Lines read, malformed, repaired.
    pub stats: ReadStats,
    /// Record kinds skipped because this build does not know them.
    pub unknown_kinds: BTreeMap<String, u64>,
}

/// Parses a file of any of the four formats (detected by content).
pub fn parse(bytes: &[u8]) -> Result<(Provider, Parsed)> {
    let format = detect(bytes)?;
    let parsed = match format {
        Provider::ClaudeCode => parse_claude_code(bytes),
        Provider::Codex => parse_codex(bytes),
        Provider::Chatgpt => parse_chatgpt(bytes),
        Provider::ClaudeAi => parse_claude_ai(bytes),
    };
    Ok((format, parsed))
}

impl Inspection {
    /// An empty summary of a file of `format`.
    pub fn new(format: Provider) -> Inspection {
        Inspection {
            format,
            conversations: 0,
            messages: 0,
            active_branch_messages: 0,
            branch_points: 0,
            tool_calls: 0,
            tool_results: 0,
            models: Vec::new(),
            first_at: None,
            last_at: None,
            stats: ReadStats::default(),
            unknown_kinds: BTreeMap::new(),
        }
    }

    /// Counts one conversation in.
    pub fn add(&mut self, c: &Conversation) {
        self.conversations += 1;
        self.messages += c.messages.len();
        self.active_branch_messages += c.active_branch().len();
        self.branch_points += c.branch_points();
        for block in c.messages.iter().flat_map(|m| m.blocks.iter()) {
            match block {
                Block::ToolCall { .. } => self.tool_calls += 1,
                Block::ToolResult { .. } => self.tool_results += 1,
                _ => {}
            }
        }
        let mut models: BTreeSet<String> = self.models.drain(..).collect();
        models.extend(c.messages.iter().filter_map(|m| m.model.clone()));
        self.models = models.into_iter().collect();
        self.first_at = match (self.first_at, c.started_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_at = self.last_at.max(c.updated_at);
    }
}

/// Summarizes conversations already parsed (e.g. streamed line by line by a host).
pub fn summarize(format: Provider, parsed: Parsed) -> Inspection {
    let mut report = Inspection::new(format);
    for c in &parsed.conversations {
        report.add(c);
    }
    report.stats = parsed.stats;
    report.unknown_kinds = parsed.unknown_kinds;
    report
}

/// Detects, parses and summarizes a file held in memory.
pub fn inspect(bytes: &[u8]) -> Result<Inspection> {
    let (format, parsed) = parse(bytes)?;
    let mut report = Inspection::new(format);
    for c in &parsed.conversations {
        report.add(c);
    }
    report.stats = parsed.stats;
    report.unknown_kinds = parsed.unknown_kinds;
    Ok(report)
}

/// Summarizes a ChatGPT or claude.ai export streamed from a reader, one conversation at a time.
pub fn inspect_export(format: Provider, reader: impl std::io::Read) -> Inspection {
    let mut report = Inspection::new(format);
    let mut stats = ReadStats::default();
    stream_export(format, reader, &mut stats, |c| report.add(&c));
    report.stats = stats;
    report
}
