//! Claude Code sessions as conversations: typed line parsing, duplicate writes counted once,
//! progress and attachment lines climbed past so the tree stays linked, titles from the
//! session's title lines or its first typed prompt, and inline sub-agent threads hung off the
//! tool call that started them.

use crate::transcripts::conversation::sidechains::attach_side_chains;
use crate::transcripts::conversation::title::blocks_prompt_title;
use crate::transcripts::conversation::{
    Block, Conversation, Message, Parsed, Role, anthropic_blocks, text_of, time,
};
use crate::transcripts::{Provider, parse_line};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
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

/// Claude Code JSONL: one conversation per `sessionId`; sidechain lines stay in it, hung off
/// the tool call that started their thread.
pub fn parse_claude_code(bytes: &[u8]) -> Parsed {
    crate::transcripts::conversation::read_lines(
        ClaudeCodeReader::default(),
        bytes,
        ClaudeCodeReader::finish,
    )
}

/// Builds Claude Code conversations from lines fed one at a time (the browser feeds chunks).
#[derive(Debug, Default)]
pub struct ClaudeCodeReader {
    parsed: Parsed,
    by_session: BTreeMap<String, Conversation>,
    /// `summary` lines: the leaf they describe → (line number, text).
    summaries: HashMap<String, (u64, String)>,
    /// `ai-title` lines per session: (line number, text); the latest wins.
    ai_titles: HashMap<String, (u64, String)>,
    /// `custom-title` lines per session (a title the person gave): the latest wins over all.
    custom_titles: HashMap<String, String>,
    /// The first typed prompt of each session's sub-agent threads, for a file that holds
    /// nothing else (a `subagents/` file).
    side_prompts: HashMap<String, String>,
    /// Every line's uuid → its parent (or, after a compaction, its logical parent): lines that
    /// are not messages (progress, attachments, titles) are links of the tree too.
    links: HashMap<String, String>,
    /// Each API response's latest line (session, response id → message index): the tokens a
    /// response repeats on every line are kept on its last line only.
    responses: HashMap<(String, String), usize>,
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
    #[serde(rename = "aiTitle", default)]
    ai_title: Option<String>,
    #[serde(rename = "customTitle", default)]
    custom_title: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
    #[serde(rename = "isMeta", default)]
    is_meta: Option<bool>,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    message: Option<ClaudeCodeMessage>,
}

#[derive(Deserialize, Default)]
struct ClaudeCodeMessage {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    content: Value,
    #[serde(default)]
    usage: Option<crate::transcripts::usage::claude_code::Usage>,
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
            ai_title: text("aiTitle"),
            custom_title: text("customTitle"),
            is_sidechain: v["isSidechain"].as_bool(),
            is_meta: v["isMeta"].as_bool(),
            content: v["content"].clone(),
            message: v["message"].is_object().then(|| ClaudeCodeMessage {
                id: v["message"]["id"].as_str().map(str::to_owned),
                model: v["message"]["model"].as_str().map(str::to_owned),
                content: v["message"]["content"].clone(),
                usage: serde_json::from_value(v["message"]["usage"].clone()).ok(),
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
        let line_number = parsed.stats.lines;
        if kind == "summary" {
            if let (Some(leaf), Some(text)) = (v.leaf_uuid, v.summary) {
                self.summaries.insert(leaf, (line_number, text));
            }
            return;
        }
        if let (Some(session), Some(text)) = (&v.session_id, &v.ai_title) {
            self.ai_titles
                .insert(session.clone(), (line_number, text.clone()));
        }
        if let (Some(session), Some(text)) = (&v.session_id, &v.custom_title) {
            self.custom_titles.insert(session.clone(), text.clone());
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
        let side_chain = v.is_sidechain == Some(true);
        let blocks = if role == Role::System {
            vec![Block::Text {
                text: text_of(&v.content),
            }]
        } else {
            anthropic_blocks(&message.content)
        };
        if role == Role::User && v.is_meta != Some(true) {
            if side_chain {
                if !self.side_prompts.contains_key(session)
                    && let Some(prompt) = blocks_prompt_title(&blocks)
                {
                    self.side_prompts.insert(session.to_owned(), prompt);
                }
            } else if conversation.first_prompt.is_none() {
                conversation.first_prompt = blocks_prompt_title(&blocks);
            }
        }
        conversation.active_leaf = Some(id.clone());
        // The counts as the usage reader takes them (a response's last line keeps them).
        let tokens = message.usage.map(|u| u.totals().0);
        if tokens.is_some()
            && let Some(response) = message.id
        {
            let at = conversation.messages.len();
            if let Some(before) = self.responses.insert((session.to_owned(), response), at)
                && let Some(earlier) = conversation.messages.get_mut(before)
            {
                earlier.tokens = None;
            }
        }
        conversation.messages.push(Message {
            id,
            parent,
            role,
            at: time(&v.timestamp),
            blocks,
            model: message.model,
            side_chain,
            tokens,
        });
    }

    /// The conversations, titled by the person (`custom-title`), else by the latest `ai-title`
    /// or `summary` line. A message written twice (a file that re-wrote its history) counts
    /// once; a parent that is a non-message line is climbed past to the nearest message; a
    /// conversation without any parent links reads in file order; sub-agent threads hang off
    /// the tool call that started them.
    pub fn finish(mut self) -> Parsed {
        for (session, mut conversation) in self.by_session {
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
            attach_side_chains(&mut conversation);
            let summary = conversation
                .messages
                .iter()
                .filter_map(|m| self.summaries.get(&m.id))
                .max_by_key(|(line, _)| *line);
            let latest = match (summary, self.ai_titles.get(&session)) {
                (Some(a), Some(b)) => Some(if a.0 > b.0 { a } else { b }),
                (a, b) => a.or(b),
            };
            conversation.title = self
                .custom_titles
                .remove(&session)
                .or_else(|| latest.map(|(_, text)| text.clone()));
            if conversation.first_prompt.is_none() {
                conversation.first_prompt = self.side_prompts.remove(&session);
            }
            conversation.seal();
            self.parsed.conversations.push(conversation);
        }
        self.parsed
    }
}

impl crate::transcripts::lines::LineReader for ClaudeCodeReader {
    fn push_line(&mut self, line: &[u8]) {
        ClaudeCodeReader::push_line(self, line);
    }
}
