//! Provider transcripts, bytes in and records out: format detection by content, and the token
//! usage each provider's files record, counted the way the provider means it (one API response
//! once, cumulative totals as deltas), in one meaning for every provider:
//! `input_tokens` excludes cached input, `cache_read_tokens` is the cached input,
//! `output_tokens` includes reasoning and `reasoning_tokens` is that part of it.
//!
//! Readers are streaming: a host feeds lines as it reads them, so a file of any size is never
//! held in memory. Nothing here panics on any input; unreadable lines are counted.

pub mod aider;
pub mod amp;
pub mod cline;
pub mod conversation;
pub mod copilot;
pub mod copilot_chat;
pub mod cursor;
pub mod databases;
pub mod export_files;
pub mod filters;
mod fingerprints;
pub mod follow;
pub mod gemini;
pub mod ingest;
pub mod inspect;
pub mod limits;
pub mod lines;
pub mod mark;
pub mod opencode;
pub mod places;
pub mod providers;
pub mod qwen;
pub mod ranking;
pub mod readers;
pub mod reading;
pub mod scanner;
pub mod search;
pub mod secrets;
pub mod snippets;
pub mod sqlite;
pub mod tally;
pub mod usage;
pub mod whole;
pub mod zip;

use crate::error::Error;
use crate::ledger::event::{Line, decode_line};
use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::lines::first_line;
use crate::transcripts::providers::{Kind, REGISTRY};
pub(crate) use fingerprints::fingerprint;
pub use fingerprints::{FingerprintHasher, Fingerprinted};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::Arc;

/// Shares repeated strings (session ids, paths, model names) between entries, so a reader's
/// memory grows with distinct values, not with responses.
#[derive(Debug, Default, Clone)]
pub struct Interner(HashSet<Arc<str>>);

impl Interner {
    /// The shared copy of `text`.
    pub fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(found) = self.0.get(text) {
            return found.clone();
        }
        let shared: Arc<str> = Arc::from(text);
        self.0.insert(shared.clone());
        shared
    }
}

/// The providers Baton reads (each described by one entry of the registry in `providers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// Claude Code CLI JSONL transcripts.
    ClaudeCode,
    /// OpenAI Codex CLI rollouts.
    Codex,
    /// Google Gemini CLI session logs.
    Gemini,
    /// Qwen Code session transcripts.
    Qwen,
    /// OpenCode's session database.
    Opencode,
    /// Kilo CLI's session database (OpenCode's, under Kilo's name).
    Kilo,
    /// GitHub Copilot CLI session event logs.
    CopilotCli,
    /// GitHub Copilot Chat's sessions in VS Code.
    CopilotChat,
    /// Amp's thread documents.
    Amp,
    /// Aider's Markdown chat histories.
    Aider,
    /// Cline's tasks (the VS Code extension).
    Cline,
    /// Roo Code's tasks (the VS Code extension).
    RooCode,
    /// Kilo Code's tasks (the VS Code extension, before Kilo's CLI).
    KiloCode,
    /// Cursor's chats, in its editor's SQLite store.
    Cursor,
    /// The transcripts Cursor's agents leave (copies of its chats, read as Cursor's).
    CursorTranscripts,
    /// `cursor-agent`'s chats, a SQLite store each (read as Cursor's).
    CursorCli,
    /// ChatGPT data export `conversations.json`.
    Chatgpt,
    /// claude.ai data export `conversations.json`.
    ClaudeAi,
}

impl Provider {
    /// Every provider, in the order reports list them.
    pub const ALL: [Provider; 18] = [
        Provider::ClaudeCode,
        Provider::Codex,
        Provider::Gemini,
        Provider::Qwen,
        Provider::Opencode,
        Provider::Kilo,
        Provider::CopilotCli,
        Provider::CopilotChat,
        Provider::Amp,
        Provider::Aider,
        Provider::Cline,
        Provider::RooCode,
        Provider::KiloCode,
        Provider::Cursor,
        Provider::CursorTranscripts,
        Provider::CursorCli,
        Provider::Chatgpt,
        Provider::ClaudeAi,
    ];

    /// Its entry in the registry ([`providers::REGISTRY`]): names, files, folders, settings.
    pub fn entry(self) -> &'static providers::Entry {
        // The registry lists the providers in declaration order (a test holds it).
        &providers::REGISTRY[self as usize]
    }

    /// Its key in the transcript index and in a team's database (`claude_code`, `claude_ai`).
    pub fn key(self) -> &'static str {
        self.entry().key
    }

    /// The provider a person or a program named, in either spelling (`claude-code`,
    /// `Claude_Code`); `None` for a name no provider has. Every host reads names through this.
    pub fn named(name: &str) -> Option<Provider> {
        // The index's own keys (every usage row read) match as they are, without a copy; then
        // the names people write (`claude-code`) and a work session's agent (`claude`).
        let find = |wanted: &str| Provider::ALL.into_iter().find(|p| p.key() == wanted);
        find(name)
            .or_else(|| find(&name.trim().to_ascii_lowercase().replace('-', "_")))
            .or_else(|| find(&crate::names::canonical_agent(name).replace('-', "_")))
    }

    /// Whether it keeps token usage (the coding agents' transcripts do; exports do not).
    pub fn has_usage(self) -> bool {
        self.entry().gives.tokens
    }
}

/// The session a transcript file names before its lines say: the file's name without its
/// folder and extension.
pub fn session_name(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(stem, _)| stem)
}

/// What a file turned out to be: one provider's transcript or export, or a Baton ledger. In
/// JSON, a name: the provider's key (`claude_code`, `gemini`) or `baton_ledger`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileFormat {
    /// A transcript or export of this provider.
    Transcript(Provider),
    /// A Baton ledger (`events.ndjson`, an archive month).
    BatonLedger,
}

impl FileFormat {
    /// Its name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FileFormat::Transcript(provider) => provider.key(),
            FileFormat::BatonLedger => "baton_ledger",
        }
    }

    /// Every format, in the order reports list them.
    pub fn all() -> impl Iterator<Item = FileFormat> {
        Provider::ALL
            .into_iter()
            .map(FileFormat::Transcript)
            .chain([FileFormat::BatonLedger])
    }
}

impl From<Provider> for FileFormat {
    fn from(provider: Provider) -> FileFormat {
        FileFormat::Transcript(provider)
    }
}

impl Serialize for FileFormat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FileFormat {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        FileFormat::all()
            .find(|format| format.as_str() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown file format `{name}`")))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for FileFormat {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FileFormat".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = FileFormat::all().map(FileFormat::as_str).collect();
        schemars::json_schema!({
            "description": "What a file turned out to be: a provider's key (its transcript or export) or `baton_ledger`.",
            "type": "string",
            "enum": names,
        })
    }
}

/// One billed model response, normalized.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageEntry {
    /// Whose file it came from.
    pub provider: Provider,
    /// When the response was recorded.
    pub at: Timestamp,
    /// The provider's session id.
    pub session: Arc<str>,
    /// The working directory, when recorded.
    pub project: Option<Arc<str>>,
    /// The model.
    pub model: Option<Arc<str>>,
    /// The response's tokens.
    #[serde(flatten)]
    pub tokens: TokenTotals,
    /// The part of `cache_creation_tokens` written to the one-hour cache (billed at its own
    /// rate).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_1h_tokens: u64,
    /// The input context (input + cache writes + cache reads) of the one request whose size
    /// decides a long-context rate, when the entry sums several (a Codex delta); otherwise
    /// the entry's own tokens decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_context_tokens: Option<u64>,
    /// The cost the line itself records (Claude Code's `costUSD`), in micro-dollars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_cost_micro_usd: Option<u64>,
    /// Served fast (Claude Code's `speed: "fast"`): billed at the model's fast rates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fast: bool,
    /// Server-side web searches the response ran (billed per search).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub web_searches: u64,
    /// Made by a sub-agent the session delegated to (a sidechain, a Codex sub-agent's rollout).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delegated: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What a reader met, line by line (a count left out of its JSON is zero).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ReadStats {
    /// Lines read.
    pub lines: u64,
    /// Lines skipped before JSON parsing because they cannot carry usage.
    pub without_usage: u64,
    /// Lines that were not JSON even after repairing lone UTF-16 surrogate escapes.
    pub malformed: u64,
    /// Lines that parsed only after repair: lone surrogate escapes or invalid UTF-8 bytes
    /// replaced with U+FFFD (the rest of the line, its message included, is kept).
    pub repaired_surrogates: u64,
    /// Usage lines that repeated a response already counted.
    pub duplicates: u64,
    /// Locally generated pseudo-responses (`<synthetic>`), not billed.
    pub synthetic: u64,
    /// Lines passed over for being longer than the longest a reader takes (32 MiB).
    #[serde(skip_serializing_if = "is_zero")]
    pub too_long: u64,
}

impl ReadStats {
    /// Adds what another read met.
    pub fn add(&mut self, other: &ReadStats) {
        self.lines += other.lines;
        self.without_usage += other.without_usage;
        self.malformed += other.malformed;
        self.repaired_surrogates += other.repaired_surrogates;
        self.duplicates += other.duplicates;
        self.synthetic += other.synthetic;
        self.too_long += other.too_long;
    }
}

/// Whether `needle` occurs in `haystack` (a cheap pre-filter before JSON parsing).
pub fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    // A vectorised search: a line is scanned for a few words before anything parses it.
    memchr::memmem::find(haystack, needle).is_some()
}

/// Replaces escaped lone UTF-16 surrogates (`\ud83d` without its pair) with `\ufffd`, so a
/// line a truncating writer damaged still parses. Valid pairs are left alone.
pub fn repair_lone_surrogates(line: &[u8]) -> Option<Vec<u8>> {
    fn escape_at(b: &[u8], i: usize) -> Option<u16> {
        let hex = b.get(i + 2..i + 6)?;
        if b.get(i) != Some(&b'\\') || !matches!(b.get(i + 1), Some(b'u' | b'U')) {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    }
    // Most lines hold no lone surrogate: find that out without copying anything.
    let lone_at = |i: usize| {
        escape_at(line, i).is_some_and(|unit| {
            let high = (0xD800..0xDC00).contains(&unit);
            let low = (0xDC00..0xE000).contains(&unit);
            let paired =
                high && escape_at(line, i + 6).is_some_and(|next| (0xDC00..0xE000).contains(&next));
            (high || low) && !paired
        })
    };
    let mut at = 0;
    let mut found = false;
    while let Some(offset) = line[at..].iter().position(|&b| b == b'\\') {
        let i = at + offset;
        if line.get(i + 1) == Some(&b'\\') {
            at = i + 2;
            continue;
        }
        if lone_at(i) {
            found = true;
            break;
        }
        at = i + 1;
    }
    if !found {
        return None;
    }
    let mut out = Vec::with_capacity(line.len());
    let mut changed = false;
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'\\' {
            // An escaped backslash is copied whole so `\\ud83d` is not mistaken for an escape.
            if line.get(i + 1) == Some(&b'\\') {
                out.extend_from_slice(b"\\\\");
                i += 2;
                continue;
            }
            if let Some(unit) = escape_at(line, i) {
                let high = (0xD800..0xDC00).contains(&unit);
                let low = (0xDC00..0xE000).contains(&unit);
                let paired = high
                    && escape_at(line, i + 6).is_some_and(|next| (0xDC00..0xE000).contains(&next));
                if paired {
                    out.extend_from_slice(&line[i..i + 12]);
                    i += 12;
                    continue;
                }
                if high || low {
                    out.extend_from_slice(b"\\ufffd");
                    changed = true;
                    i += 6;
                    continue;
                }
            }
        }
        out.push(line[i]);
        i += 1;
    }
    changed.then_some(out)
}

/// Repairs what keeps a line from parsing that a writer may have damaged: invalid UTF-8 bytes
/// are decoded lossily (each becomes U+FFFD) and lone surrogate escapes become `\ufffd`.
/// `None` when there was nothing to repair.
pub fn repair_line(line: &[u8]) -> Option<Vec<u8>> {
    match std::str::from_utf8(line) {
        Ok(_) => repair_lone_surrogates(line),
        Err(_) => {
            let text = String::from_utf8_lossy(line).into_owned().into_bytes();
            Some(repair_lone_surrogates(&text).unwrap_or(text))
        }
    }
}

/// Parses a JSON line, repairing it ([`repair_line`]) if that is what stops it.
pub(crate) fn parse_line<T: for<'de> Deserialize<'de>>(
    line: &[u8],
    stats: &mut ReadStats,
) -> Option<T> {
    match serde_json::from_slice(line) {
        Ok(value) => Some(value),
        Err(_) => {
            let repaired = repair_line(line)?;
            let value = serde_json::from_slice(&repaired).ok()?;
            stats.repaired_surrogates += 1;
            Some(value)
        }
    }
}

/// Recognizes a file's format from its first bytes, never from its name.
pub fn detect(head: &[u8]) -> Result<Provider, Error> {
    let text = String::from_utf8_lossy(&head[..head.len().min(64 * 1024)]);
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let trimmed = text.trim_start();
    // Before the exports: a panel message's text may quote an export's keys.
    if let Some(product) = cline::looks_like_ui_messages(text) {
        return Ok(product);
    }
    if trimmed.starts_with('[') || trimmed.starts_with("{\"conversations\"") {
        if text.contains("\"mapping\"") || text.contains("\"current_node\"") {
            return Ok(Provider::Chatgpt);
        }
        // A conversation has `chat_messages`; the export's other files (projects, users)
        // hold objects with a `uuid` too, and are not conversations.
        if text.contains("\"chat_messages\"") {
            return Ok(Provider::ClaudeAi);
        }
    }
    if trimmed.starts_with('{') && text.contains("\"chat_messages\"") {
        return Ok(Provider::ClaudeAi);
    }
    if first_line.starts_with("# aider chat started at ") {
        return Ok(Provider::Aider);
    }
    if amp::looks_like_thread(text) {
        return Ok(Provider::Amp);
    }
    if copilot_chat::looks_like_session(text) {
        return Ok(Provider::CopilotChat);
    }
    // An older Gemini CLI session: one document, pretty-printed, its session first.
    if trimmed.starts_with('{') {
        let second = trimmed.lines().nth(1).unwrap_or("").trim_start();
        if second.starts_with("\"sessionId\"") && text.contains("\"projectHash\"") {
            return Ok(Provider::Gemini);
        }
    }
    if cursor::looks_like_transcript(text) {
        return Ok(Provider::CursorTranscripts);
    }
    if let Some(agent) = agent_of_records(text.lines().filter(|l| !l.trim().is_empty()).take(5)) {
        return Ok(agent);
    }
    Err(Error::unknown_format(first_line, &formats_read()))
}

/// What Baton reads, as an error says it: `Claude Code, Codex, … transcript, nor an OpenCode
/// or Kilo CLI database, nor a ChatGPT export or a claude.ai export`, from the registry.
pub fn formats_read() -> String {
    let titles = |kind: Kind| -> Vec<&str> {
        REGISTRY
            .iter()
            .filter(|e| e.kind == kind)
            .map(|e| e.title)
            .collect()
    };
    let or = |names: Vec<&str>| match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    format!(
        "{} transcript, nor an {} database, nor a {} session file, nor a {}",
        or(titles(Kind::Agent)),
        or(titles(Kind::Database)),
        or(titles(Kind::Document)),
        or(titles(Kind::Export))
    )
}

/// The agent whose JSONL records these first few lines are: each line read as JSON where it
/// is whole (what keys it has decides), else by the keys it shows.
fn agent_of_records<'a>(lines: impl Iterator<Item = &'a str>) -> Option<Provider> {
    let codex_markers = [
        "\"session_meta\"",
        "\"turn_context\"",
        "\"response_item\"",
        "\"event_msg\"",
        "\"record_type\"",
    ];
    let claude_markers = [
        "\"sessionId\"",
        "\"leafUuid\"",
        "\"parentUuid\"",
        "\"file-history-snapshot\"",
    ];
    // Keys only Qwen Code writes beside the ids it shares with Claude Code; keys only a
    // Gemini CLI log has.
    let qwen_markers = ["\"systemPayload\"", "\"usageMetadata\"", "\"provenance\""];
    let gemini_markers = ["\"projectHash\"", "\"$rewindTo\"", "\"$set\""];
    let copilot_markers = [
        "\"type\":\"session.start\"",
        "\"producer\":\"copilot-agent\"",
        "\"type\":\"user.message\"",
        "\"type\":\"assistant.message\"",
    ];
    for line in lines {
        if let Ok(serde_json::Value::Object(record)) = serde_json::from_str(line) {
            let has = |key: &str| record.contains_key(key);
            // A Gemini CLI message (a log read from its middle opens with one): an `id`, a
            // kind of its own and `content`, none of the ids the other agents write.
            let gemini_message = record.get("id").is_some_and(serde_json::Value::is_string)
                && record
                    .get("type")
                    .and_then(serde_json::Value::as_str)
                    .is_some_and(|t| matches!(t, "user" | "gemini" | "info" | "warning" | "error"))
                && has("content")
                && !has("uuid")
                && !has("sessionId");
            if has("projectHash") || has("$set") || has("$rewindTo") || gemini_message {
                return Some(Provider::Gemini);
            }
            // A Copilot CLI event: a dotted kind (`session.start`, `user.message`) with its
            // `data` object; no other agent writes dots in its kinds.
            if record
                .get("type")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|t| t.contains('.') && !t.starts_with('$'))
                && record.get("data").is_some_and(serde_json::Value::is_object)
            {
                return Some(Provider::CopilotCli);
            }
            if has("uuid")
                && has("sessionId")
                && (record.get("message").is_some_and(|m| m["parts"].is_array())
                    || has("systemPayload")
                    || has("usageMetadata")
                    || has("provenance"))
            {
                return Some(Provider::Qwen);
            }
        } else {
            if gemini_markers.iter().any(|m| line.contains(m)) {
                return Some(Provider::Gemini);
            }
            if line.contains("\"uuid\"") && qwen_markers.iter().any(|m| line.contains(m)) {
                return Some(Provider::Qwen);
            }
            if copilot_markers.iter().any(|m| line.contains(m)) {
                return Some(Provider::CopilotCli);
            }
        }
        if claude_markers.iter().any(|m| line.contains(m)) {
            return Some(Provider::ClaudeCode);
        }
        if codex_markers.iter().any(|m| line.contains(m)) {
            return Some(Provider::Codex);
        }
    }
    None
}

/// Whether the first line of `head` is a Baton ledger line; an error for a ledger written by
/// a newer Baton.
pub(crate) fn ledger_head(head: &[u8]) -> Result<bool, Error> {
    // Only the head decides (a host may push a first chunk of megabytes), and a ledger line
    // is an object: an export's array is ruled out without parsing it.
    let first = first_line(&head[..head.len().min(crate::transcripts::ingest::HEAD_BYTES)]);
    if first.trim_ascii_start().first() != Some(&b'{') {
        return Ok(false);
    }
    match decode_line(first) {
        Line::Header { .. } | Line::Event(_) => Ok(true),
        _ => {
            let value: Option<serde_json::Value> = serde_json::from_slice(first).ok();
            match value.as_ref().and_then(|v| v.get("baton_log")) {
                Some(version) => Err(Error::ledger_too_new(version.clone())),
                None => Ok(false),
            }
        }
    }
}
