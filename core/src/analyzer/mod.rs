//! The analyzer behind the web page and `baton analyze`: files fed in chunks (format detected
//! by content, ZIP exports unpacked a slice at a time), then the overview, charts, a
//! searchable conversation list, a reader that walks any branch, and Markdown/JSON exports.
//! A file counts only once it finishes whole; a failed or cancelled file leaves no trace.

pub mod charts;

use crate::error::{Error, ErrorCode, Result};
use crate::ledger::event::{Line, decode_line};
use crate::ledger::store::MemoryLedger;
use crate::time::Timestamp;
use crate::transcripts::conversation::{
    Block, ClaudeCodeReader, CodexReader, Conversation, Message, Parsed, Role,
    chatgpt_conversation, claude_ai_conversation, parse_chatgpt, parse_claude_ai,
};
use crate::transcripts::usage::claude_code::ClaudeCodeUsage;
use crate::transcripts::usage::codex::CodexUsage;
use crate::transcripts::usage::{GroupBy, PriceTable, UsageRow, aggregate};
use crate::transcripts::zip::{EntryReader, ZipEntry};
use crate::transcripts::{Provider, ReadStats, UsageEntry, detect, repair_lone_surrogates};
use charts::Overview;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many bytes decide a file's format.
const HEAD_BYTES: usize = 64 * 1024;

/// What a file turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileFormat {
    /// Claude Code session JSONL.
    ClaudeCode,
    /// Codex rollout JSONL.
    Codex,
    /// ChatGPT export.
    Chatgpt,
    /// claude.ai export.
    ClaudeAi,
    /// A Baton ledger (`events.ndjson`, an archive month).
    BatonLedger,
}

impl FileFormat {
    /// Its name, as in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FileFormat::ClaudeCode => "claude_code",
            FileFormat::Codex => "codex",
            FileFormat::Chatgpt => "chatgpt",
            FileFormat::ClaudeAi => "claude_ai",
            FileFormat::BatonLedger => "baton_ledger",
        }
    }
}

impl From<Provider> for FileFormat {
    fn from(p: Provider) -> FileFormat {
        match p {
            Provider::ClaudeCode => FileFormat::ClaudeCode,
            Provider::Codex => FileFormat::Codex,
            Provider::Chatgpt => FileFormat::Chatgpt,
            Provider::ClaudeAi => FileFormat::ClaudeAi,
        }
    }
}

/// What one finished file added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    /// The name the host gave.
    pub name: String,
    /// Its format (of the entries, for an archive).
    pub format: FileFormat,
    /// "zip" when it was an archive.
    pub archive: Option<String>,
    /// Entries read from the archive.
    pub entries: Vec<String>,
    /// Bytes fed.
    pub bytes: u64,
    /// Conversations it added.
    pub conversations: u64,
    /// Messages it added.
    pub messages: u64,
    /// Ledger lines it held (ledgers only).
    pub ledger_lines: u64,
    /// Lines read, malformed, repaired.
    pub stats: ReadStats,
    /// Record kinds skipped because this build does not know them.
    pub unknown_kinds: BTreeMap<String, u64>,
}

/// Progress of the current file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Whether `finish` can be called.
    pub done: bool,
    /// Work done, in bytes.
    pub processed: u64,
    /// Work in all, in bytes (0 when unknown).
    pub total: u64,
}

/// Splits a JSON array arriving in chunks into its elements, so an export of any size is
/// parsed one conversation at a time. A top-level object is kept whole instead.
#[derive(Debug, Default)]
struct ArraySplitter {
    mode: SplitMode,
    depth: u32,
    in_string: bool,
    escaped: bool,
    scalar: bool,
    item: Vec<u8>,
    whole: Vec<u8>,
}

#[derive(Debug, Default, PartialEq, Eq)]
enum SplitMode {
    #[default]
    Start,
    Between,
    InItem,
    Whole,
    Done,
}

impl ArraySplitter {
    fn push(&mut self, chunk: &[u8], on_item: &mut dyn FnMut(&[u8])) {
        let mut i = 0;
        let mut item_start = None;
        while i < chunk.len() {
            let b = chunk[i];
            match self.mode {
                SplitMode::Start => {
                    if b == b'[' {
                        self.mode = SplitMode::Between;
                    } else if !b.is_ascii_whitespace() && b != 0xEF && b != 0xBB && b != 0xBF {
                        self.mode = SplitMode::Whole;
                        continue;
                    }
                }
                SplitMode::Whole => {
                    self.whole.extend_from_slice(&chunk[i..]);
                    return;
                }
                SplitMode::Done => return,
                SplitMode::Between => {
                    if b == b']' {
                        self.mode = SplitMode::Done;
                    } else if !b.is_ascii_whitespace() && b != b',' {
                        self.mode = SplitMode::InItem;
                        item_start = Some(i);
                        self.scalar = b != b'{' && b != b'[';
                        self.depth = 0;
                        self.in_string = false;
                        self.escaped = false;
                        continue;
                    }
                }
                SplitMode::InItem => {
                    let start = *item_start.get_or_insert(i);
                    let mut end = None;
                    if self.in_string {
                        if self.escaped {
                            self.escaped = false;
                        } else if b == b'\\' {
                            self.escaped = true;
                        } else if b == b'"' {
                            self.in_string = false;
                        }
                    } else {
                        match b {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => self.depth += 1,
                            b'}' | b']' if self.depth > 0 => {
                                self.depth -= 1;
                                if self.depth == 0 && !self.scalar {
                                    end = Some(i + 1);
                                }
                            }
                            b',' | b']' if self.scalar && self.depth == 0 => end = Some(i),
                            _ => {}
                        }
                    }
                    if let Some(end) = end {
                        if self.item.is_empty() {
                            on_item(&chunk[start..end]);
                        } else {
                            self.item.extend_from_slice(&chunk[start..end]);
                            on_item(&self.item);
                            self.item.clear();
                        }
                        item_start = None;
                        self.mode = SplitMode::Between;
                        i = end;
                        continue;
                    }
                }
            }
            i += 1;
        }
        if let (SplitMode::InItem, Some(start)) = (&self.mode, item_start) {
            self.item.extend_from_slice(&chunk[start..]);
        }
    }
}

/// Turns one export element into a conversation (lone surrogates repaired, invalid UTF-8
/// replaced); `None` when it is not JSON.
fn export_conversation(
    provider: Provider,
    item: &[u8],
    stats: &mut ReadStats,
) -> Option<Conversation> {
    let repaired = repair_lone_surrogates(item);
    if repaired.is_some() {
        stats.repaired_surrogates += 1;
    }
    let bytes = repaired.as_deref().unwrap_or(item);
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(_) => serde_json::from_str(&String::from_utf8_lossy(bytes)).ok()?,
    };
    Some(match provider {
        Provider::ClaudeAi => claude_ai_conversation(&value),
        _ => chatgpt_conversation(&value),
    })
}

/// Reads one stream of bytes whose format is found from its head.
enum Decoder {
    Head(Vec<u8>),
    ClaudeCode {
        carry: Vec<u8>,
        conversations: Box<ClaudeCodeReader>,
        usage: Box<ClaudeCodeUsage>,
    },
    Codex {
        carry: Vec<u8>,
        conversations: Box<CodexReader>,
        usage: Box<CodexUsage>,
    },
    Export {
        provider: Provider,
        splitter: ArraySplitter,
        parsed: Parsed,
    },
    Ledger(Vec<u8>),
    Zip(Vec<u8>),
}

/// What a finished decoder produced.
enum Decoded {
    Conversations {
        format: FileFormat,
        parsed: Parsed,
        claude_usage: Option<Box<ClaudeCodeUsage>>,
        usage: Vec<UsageEntry>,
    },
    Ledger(Vec<u8>),
    /// An archive inside an archive (refused).
    Zip,
}

/// Something fed JSONL one line at a time: a transcript's conversation and usage readers.
trait LineReader {
    fn push_line(&mut self, line: &[u8]);
}

macro_rules! line_readers {
    ($($reader:ty),*) => {
        $(impl LineReader for $reader {
            fn push_line(&mut self, line: &[u8]) {
                <$reader>::push_line(self, line);
            }
        })*
    };
}
line_readers!(ClaudeCodeReader, CodexReader, ClaudeCodeUsage, CodexUsage);

/// Feeds the whole lines of `chunk` (after what `carry` holds from the last chunk) to every
/// reader, and keeps the unfinished last line in `carry`.
fn feed_lines(carry: &mut Vec<u8>, chunk: &[u8], readers: &mut [&mut dyn LineReader]) {
    let mut feed = |line: &[u8]| {
        let line = strip_cr(line);
        for reader in readers.iter_mut() {
            reader.push_line(line);
        }
    };
    let mut rest = chunk;
    while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
        if carry.is_empty() {
            feed(&rest[..nl]);
        } else {
            carry.extend_from_slice(&rest[..nl]);
            feed(carry);
            carry.clear();
        }
        rest = &rest[nl + 1..];
    }
    carry.extend_from_slice(rest);
}

/// Feeds a file's last line when it has no newline.
fn feed_last_line(carry: &[u8], readers: &mut [&mut dyn LineReader]) {
    if !carry.is_empty() {
        for reader in readers.iter_mut() {
            reader.push_line(strip_cr(carry));
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether the first line of `head` is a Baton ledger line; an error for a ledger written by
/// a newer Baton.
fn ledger_head(head: &[u8]) -> Result<bool> {
    let first = head
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or(&[]);
    match decode_line(strip_cr(first)) {
        Line::Header { .. } | Line::Event(_) => Ok(true),
        _ => {
            let value: Option<Value> = serde_json::from_slice(first).ok();
            match value.as_ref().and_then(|v| v.get("baton_log")) {
                Some(version) => Err(Error::new(
                    ErrorCode::FormatTooNew,
                    format!(
                        "this Baton ledger has format version {version}; this build reads version 1: update Baton"
                    ),
                )
                .with("version", version.clone())),
                None => Ok(false),
            }
        }
    }
}

impl Decoder {
    fn push(&mut self, chunk: &[u8], name: &str) -> Result<()> {
        match self {
            Decoder::Head(head) => {
                head.extend_from_slice(chunk);
                if head.len() >= HEAD_BYTES {
                    self.decide(name)?;
                }
            }
            Decoder::ClaudeCode {
                carry,
                conversations,
                usage,
            } => feed_lines(carry, chunk, &mut [&mut **conversations, &mut **usage]),
            Decoder::Codex {
                carry,
                conversations,
                usage,
            } => feed_lines(carry, chunk, &mut [&mut **conversations, &mut **usage]),
            Decoder::Export {
                provider,
                splitter,
                parsed,
            } => {
                let provider = *provider;
                splitter.push(chunk, &mut |item| match export_conversation(
                    provider,
                    item,
                    &mut parsed.stats,
                ) {
                    Some(c) => parsed.conversations.push(c),
                    None => parsed.stats.malformed += 1,
                });
            }
            Decoder::Ledger(bytes) | Decoder::Zip(bytes) => bytes.extend_from_slice(chunk),
        }
        Ok(())
    }

    /// Decides the format from the head collected so far, then replays it.
    fn decide(&mut self, name: &str) -> Result<()> {
        let Decoder::Head(head) = self else {
            return Ok(());
        };
        let head = std::mem::take(head);
        *self = if crate::transcripts::zip::is_zip(&head) {
            Decoder::Zip(Vec::new())
        } else if ledger_head(&head)? {
            Decoder::Ledger(Vec::new())
        } else {
            match detect(&head).map_err(|e| e.with("file", name))? {
                Provider::ClaudeCode => Decoder::ClaudeCode {
                    carry: Vec::new(),
                    conversations: Box::default(),
                    usage: Box::default(),
                },
                Provider::Codex => Decoder::Codex {
                    carry: Vec::new(),
                    conversations: Box::default(),
                    usage: Box::new(CodexUsage::new(session_name(name))),
                },
                provider => Decoder::Export {
                    provider,
                    splitter: ArraySplitter::default(),
                    parsed: Parsed::default(),
                },
            }
        };
        self.push(&head, name)
    }

    fn finish(mut self, name: &str) -> Result<Decoded> {
        if let Decoder::Head(head) = &self {
            if head.iter().all(u8::is_ascii_whitespace) {
                return Err(Error::new(
                    ErrorCode::UnknownFormat,
                    format!("{name} is empty: expected a transcript, an export or a ledger"),
                )
                .with("file", name));
            }
            self.decide(name)?;
        }
        Ok(match self {
            Decoder::Head(_) => return Err(Error::internal("a file's format was left undecided")),
            Decoder::ClaudeCode {
                carry,
                mut conversations,
                mut usage,
            } => {
                feed_last_line(&carry, &mut [&mut *conversations, &mut *usage]);
                Decoded::Conversations {
                    format: FileFormat::ClaudeCode,
                    parsed: conversations.finish(),
                    claude_usage: Some(usage),
                    usage: Vec::new(),
                }
            }
            Decoder::Codex {
                carry,
                mut conversations,
                mut usage,
            } => {
                feed_last_line(&carry, &mut [&mut *conversations, &mut *usage]);
                Decoded::Conversations {
                    format: FileFormat::Codex,
                    parsed: conversations.finish(),
                    claude_usage: None,
                    usage: usage.finish().0,
                }
            }
            Decoder::Export {
                provider,
                splitter,
                mut parsed,
            } => {
                match splitter.mode {
                    SplitMode::Whole => {
                        let whole = match provider {
                            Provider::ClaudeAi => parse_claude_ai(&splitter.whole),
                            _ => parse_chatgpt(&splitter.whole),
                        };
                        parsed.conversations.extend(whole.conversations);
                        parsed.stats.malformed += whole.stats.malformed;
                        parsed.stats.repaired_surrogates += whole.stats.repaired_surrogates;
                    }
                    SplitMode::Done => {}
                    // The array never closed: the file was cut short. What came before stays.
                    _ => parsed.stats.malformed += 1,
                }
                parsed.stats.lines = parsed.conversations.len() as u64 + parsed.stats.malformed;
                Decoded::Conversations {
                    format: provider.into(),
                    parsed,
                    claude_usage: None,
                    usage: Vec::new(),
                }
            }
            Decoder::Ledger(bytes) => Decoded::Ledger(bytes),
            Decoder::Zip(_) => Decoded::Zip,
        })
    }
}

/// The file name without folders and extension: Codex's session name until its metadata.
fn session_name(name: &str) -> &str {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    base.rsplit_once('.').map_or(base, |(stem, _)| stem)
}

/// Whether an archive entry holds conversations (`conversations.json`, or the split
/// `conversations-000.json` files of large exports).
pub fn is_conversations_entry(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    let Some(stem) = base.strip_suffix(".json") else {
        return false;
    };
    stem == "conversations"
        || stem
            .strip_prefix("conversations-")
            .or_else(|| stem.strip_prefix("conversations_"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Unpacking an archive, one entry and one slice at a time.
struct Unzip {
    archive: Vec<u8>,
    entries: Vec<ZipEntry>,
    next: usize,
    reader: Option<(EntryReader, Decoder)>,
    produced: u64,
    total: u64,
    results: Vec<Decoded>,
}

struct Pending {
    name: String,
    bytes: u64,
    decoder: Option<Decoder>,
    unzip: Option<Unzip>,
}

/// Everything loaded so far, and the file being loaded.
pub struct Analyzer {
    conversations: Vec<Conversation>,
    /// Each conversation's list row (title, models, forks), worked out once when it loads.
    rows: Vec<ConversationRow>,
    claude_usage: ClaudeCodeUsage,
    codex_usage: Vec<UsageEntry>,
    ledger_bytes: Vec<u8>,
    ledger: MemoryLedger,
    files: Vec<FileSummary>,
    pending: Option<Pending>,
    prices: PriceTable,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("files", &self.files.len())
            .field("conversations", &self.conversations.len())
            .field("loading", &self.pending.as_ref().map(|p| &p.name))
            .finish_non_exhaustive()
    }
}

impl Default for Analyzer {
    fn default() -> Analyzer {
        Analyzer::new()
    }
}

/// The overview of everything loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisOverview {
    /// Files loaded.
    pub files: u64,
    /// Formats seen, with how many files of each.
    pub formats: BTreeMap<String, u64>,
    /// Conversations, messages, providers, models, dates, activity and lengths.
    #[serde(flatten)]
    pub figures: Overview,
    /// Token totals and estimated cost, when the files record usage (Claude Code, Codex).
    pub usage: Option<UsageRow>,
    /// Models without a price (their cost counts as 0).
    pub unpriced_models: Vec<String>,
    /// Work sessions in the loaded ledgers.
    pub sessions: u64,
    /// Ledger lines that were unreadable or of another schema.
    pub ledger_problems: u64,
}

/// The overview and the charts, worked out together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The headline figures.
    pub overview: AnalysisOverview,
    /// The charts.
    pub charts: Charts,
}

/// The charts, as SVG text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charts {
    /// Messages per day, as a calendar.
    pub activity: String,
    /// Assistant messages per model over time.
    pub models: String,
    /// Tokens per model over time (empty when no file records usage).
    pub tokens: String,
    /// Conversation lengths.
    pub lengths: String,
}

/// How the conversation list is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListQuery {
    /// Words that must all appear (case-insensitive) in the title, project or any message.
    pub search: String,
    /// Only this provider.
    pub provider: Option<Provider>,
    /// Only conversations where this model wrote.
    pub model: Option<String>,
    /// `updated` (default), `started`, `messages` or `title`.
    pub sort: String,
    /// Oldest, shortest or A first; by default titles sort A first, the rest newest or
    /// longest first.
    pub ascending: Option<bool>,
    /// Rows to skip.
    pub offset: usize,
    /// Rows to return (default 100).
    pub limit: usize,
}

/// What names a conversation, in the list and in the reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationHead {
    /// Its number, for `view`.
    pub index: usize,
    /// Whose format.
    pub provider: Provider,
    /// The provider's id.
    pub id: String,
    /// Its title (or the first words of its first message).
    pub title: String,
    /// The working directory, for coding agents.
    pub project: Option<String>,
    /// First message time.
    pub started_at: Option<Timestamp>,
    /// Last message time.
    pub updated_at: Option<Timestamp>,
}

impl ConversationHead {
    fn of(index: usize, c: &Conversation) -> ConversationHead {
        ConversationHead {
            index,
            provider: c.provider,
            id: c.id.clone(),
            title: title_of(c),
            project: c.project.clone(),
            started_at: c.started_at,
            updated_at: c.updated_at,
        }
    }
}

/// One row of the conversation list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRow {
    /// Which conversation.
    #[serde(flatten)]
    pub head: ConversationHead,
    /// Messages, branches included.
    pub messages: usize,
    /// Places where it branched.
    pub branch_points: usize,
    /// Models that wrote in it.
    pub models: Vec<String>,
    /// Where the search matched, with some context.
    pub snippet: Option<String>,
}

/// A page of the conversation list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationList {
    /// Conversations that match.
    pub total: usize,
    /// The rows asked for.
    pub rows: Vec<ConversationRow>,
}

/// One message of the branch being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewMessage {
    /// Its id (pass it to `view` as `through` to read the branch through it).
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// When.
    pub at: Option<Timestamp>,
    /// The model that wrote it.
    pub model: Option<String>,
    /// Its content.
    pub blocks: Vec<Block>,
    /// The ids of the alternatives at this point (itself included), in file order.
    pub alternatives: Vec<String>,
    /// Which of them this is (0-based).
    pub alternative: usize,
}

/// One branch of a conversation, root first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationView {
    /// Which conversation.
    #[serde(flatten)]
    pub head: ConversationHead,
    /// Whether this is the branch the provider marked active.
    pub active: bool,
    /// Messages in all branches.
    pub total_messages: usize,
    /// The messages of this branch.
    pub messages: Vec<ViewMessage>,
}

fn not_found(index: usize) -> Error {
    Error::invalid(
        "conversation",
        format!("there is no conversation number {index}"),
    )
    .with("index", index)
}

fn title_of(c: &Conversation) -> String {
    if let Some(title) = c.title.as_deref().filter(|t| !t.trim().is_empty()) {
        return title.to_owned();
    }
    let first = c
        .messages
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| m.blocks.iter())
        .find_map(|b| match b {
            Block::Text { text } if !text.trim().is_empty() => Some(text.trim()),
            _ => None,
        });
    match first {
        Some(text) => {
            let line = text.lines().next().unwrap_or("");
            let cut: String = line.chars().take(80).collect();
            if cut.len() < line.len() {
                format!("{cut}…")
            } else {
                cut
            }
        }
        None => "(untitled)".to_owned(),
    }
}

fn block_text(block: &Block) -> &str {
    match block {
        Block::Text { text } | Block::Thinking { text } => text,
        Block::ToolCall { input, .. } => input,
        Block::ToolResult { output, .. } => output,
        Block::Other { raw, .. } => raw,
    }
}

/// Case-insensitive search; `needle` is already lowercase. Returns the byte offset.
fn find_folded(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.is_ascii() {
        let (h, n) = (haystack.as_bytes(), needle.as_bytes());
        if n.len() > h.len() {
            return None;
        }
        let first = n[0];
        return (0..=h.len() - n.len()).find(|&i| {
            h[i].to_ascii_lowercase() == first && h[i..i + n.len()].eq_ignore_ascii_case(n)
        });
    }
    let lower = haystack.to_lowercase();
    // Map back approximately: lowercase rarely changes byte lengths in practice.
    lower.find(needle).map(|i| i.min(haystack.len()))
}

fn snippet(text: &str, at: usize) -> String {
    let mut start = at.saturating_sub(60);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 100).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.push_str(&text[start..end].replace(['\n', '\r'], " "));
    if end < text.len() {
        s.push('…');
    }
    s
}

/// A conversation's message tree, with what is a real fork and what is only tool work.
///
/// Coding agents run tools in parallel: Claude Code writes each call and result as its own
/// line, so one turn fans out into side chains that hold nothing but tool calls, results and
/// thinking, while the conversation goes on from one of them. Those side chains are part of
/// the turn, not alternatives; a fork is a sibling subtree with words in it (an edited
/// question, a regenerated answer).
struct Tree<'a> {
    by_id: HashMap<&'a str, &'a Message>,
    children: HashMap<Option<&'a str>, Vec<&'a Message>>,
    work_only: HashMap<&'a str, bool>,
}

fn is_work(m: &Message) -> bool {
    m.blocks.iter().all(|b| {
        matches!(
            b,
            Block::ToolCall { .. } | Block::ToolResult { .. } | Block::Thinking { .. }
        )
    })
}

impl<'a> Tree<'a> {
    fn new(c: &'a Conversation) -> Tree<'a> {
        let by_id: HashMap<&str, &Message> =
            c.messages.iter().map(|m| (m.id.as_str(), m)).collect();
        let mut children: HashMap<Option<&str>, Vec<&Message>> = HashMap::new();
        for m in &c.messages {
            let parent = m.parent.as_deref().filter(|p| by_id.contains_key(p));
            children.entry(parent).or_default().push(m);
        }
        // Whether each subtree is tool work only, children before parents (no recursion).
        let mut order: Vec<&Message> = Vec::with_capacity(c.messages.len());
        let mut stack: Vec<&Message> = children.get(&None).cloned().unwrap_or_default();
        let mut visited = BTreeSet::new();
        while let Some(m) = stack.pop() {
            if !visited.insert(m.id.as_str()) {
                continue;
            }
            order.push(m);
            if let Some(kids) = children.get(&Some(m.id.as_str())) {
                stack.extend(kids.iter().copied());
            }
        }
        let mut work_only: HashMap<&str, bool> = HashMap::new();
        for m in order.iter().rev() {
            let kids_ok = children.get(&Some(m.id.as_str())).is_none_or(|kids| {
                kids.iter()
                    .all(|k| work_only.get(k.id.as_str()) == Some(&true))
            });
            work_only.insert(m.id.as_str(), kids_ok && is_work(m));
        }
        Tree {
            by_id,
            children,
            work_only,
        }
    }

    fn parent_of(&self, m: &Message) -> Option<&'a str> {
        m.parent
            .as_deref()
            .and_then(|p| self.by_id.get_key_value(p).map(|(k, _)| *k))
    }

    fn kids(&self, id: Option<&'a str>) -> &[&'a Message] {
        self.children.get(&id).map_or(&[], Vec::as_slice)
    }

    /// Whether `m` hangs off its parent as a side chain of tool work.
    fn side(&self, m: &Message) -> bool {
        self.work_only.get(m.id.as_str()) == Some(&true)
    }

    /// Places with two or more children that are not side chains.
    fn forks(&self) -> usize {
        self.children
            .values()
            .filter(|kids| kids.iter().filter(|k| !self.side(k)).count() > 1)
            .count()
    }
}

impl Analyzer {
    /// An analyzer with nothing loaded, pricing with the shipped table.
    pub fn new() -> Analyzer {
        Analyzer {
            conversations: Vec::new(),
            rows: Vec::new(),
            claude_usage: ClaudeCodeUsage::new(),
            codex_usage: Vec::new(),
            ledger_bytes: Vec::new(),
            ledger: MemoryLedger::from_ndjson(b""),
            files: Vec::new(),
            pending: None,
            prices: PriceTable::shipped(),
        }
    }

    /// Starts a file (an unfinished one is dropped).
    pub fn begin(&mut self, name: &str) {
        self.pending = Some(Pending {
            name: name.to_owned(),
            bytes: 0,
            decoder: Some(Decoder::Head(Vec::new())),
            unzip: None,
        });
    }

    fn pending(&mut self) -> Result<&mut Pending> {
        self.pending.as_mut().ok_or_else(|| {
            Error::invalid(
                "file",
                "no file is being loaded: call begin first".to_owned(),
            )
        })
    }

    /// Feeds the next chunk of the current file. On an error the file is dropped.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        let pending = self.pending()?;
        pending.bytes += chunk.len() as u64;
        let name = pending.name.clone();
        let result = match pending.decoder.as_mut() {
            Some(decoder) => decoder.push(chunk, &name),
            None => Err(Error::invalid(
                "file",
                "the file was already finished".to_owned(),
            )),
        };
        if result.is_err() {
            self.pending = None;
        }
        result
    }

    /// Drops the current file: nothing of it is kept.
    pub fn cancel(&mut self) {
        self.pending = None;
    }

    /// Does up to about `budget` bytes of the work left after the last chunk (unpacking an
    /// archive); `done` says when `finish` can be called.
    pub fn pump(&mut self, budget: usize) -> Result<Progress> {
        let result = self.pump_inner(budget.max(64 * 1024));
        if result.is_err() {
            self.pending = None;
        }
        result
    }

    fn pump_inner(&mut self, budget: usize) -> Result<Progress> {
        let pending = self.pending()?;
        let name = pending.name.clone();
        if let Some(decoder) = pending.decoder.take() {
            match decoder {
                Decoder::Head(head) if crate::transcripts::zip::is_zip(&head) => {
                    pending.unzip = Some(start_unzip(head, &name)?);
                }
                Decoder::Zip(bytes) => pending.unzip = Some(start_unzip(bytes, &name)?),
                other => {
                    pending.decoder = Some(other);
                    return Ok(Progress {
                        done: true,
                        processed: pending.bytes,
                        total: pending.bytes,
                    });
                }
            }
        }
        let Some(unzip) = pending.unzip.as_mut() else {
            return Ok(Progress {
                done: true,
                processed: pending.bytes,
                total: pending.bytes,
            });
        };
        let mut out = vec![0u8; 256 * 1024];
        let mut spent = 0;
        while spent < budget {
            if unzip.reader.is_none() {
                let Some(entry) = unzip.entries.get(unzip.next) else {
                    return Ok(Progress {
                        done: true,
                        processed: unzip.total,
                        total: unzip.total,
                    });
                };
                unzip.next += 1;
                let reader = EntryReader::open(&unzip.archive, entry)?;
                unzip.reader = Some((reader, Decoder::Head(Vec::new())));
            }
            let Some((reader, decoder)) = unzip.reader.as_mut() else {
                continue;
            };
            let n = reader.read(&unzip.archive, &mut out)?;
            let entry_name = format!("{name}:{}", reader.entry().name);
            if n == 0 {
                if let Some((_, decoder)) = unzip.reader.take() {
                    unzip.results.push(decoder.finish(&entry_name)?);
                }
                continue;
            }
            decoder.push(&out[..n], &entry_name)?;
            unzip.produced += n as u64;
            spent += n;
        }
        Ok(Progress {
            done: false,
            processed: unzip.produced,
            total: unzip.total,
        })
    }

    /// Finishes the current file and adds what it holds. On an error nothing of it is kept.
    pub fn finish(&mut self) -> Result<FileSummary> {
        loop {
            if self.pump(usize::MAX)?.done {
                break;
            }
        }
        let pending = self
            .pending
            .take()
            .ok_or_else(|| Error::invalid("file", "no file is being loaded".to_owned()))?;
        let name = pending.name.clone();
        let mut summary = FileSummary {
            name: name.clone(),
            format: FileFormat::BatonLedger,
            archive: None,
            entries: Vec::new(),
            bytes: pending.bytes,
            conversations: 0,
            messages: 0,
            ledger_lines: 0,
            stats: ReadStats::default(),
            unknown_kinds: BTreeMap::new(),
        };
        let results = match (pending.decoder, pending.unzip) {
            (_, Some(unzip)) => {
                summary.archive = Some("zip".into());
                summary.entries = unzip.entries.iter().map(|e| e.name.clone()).collect();
                unzip.results
            }
            (Some(decoder), None) => vec![decoder.finish(&name)?],
            (None, None) => Vec::new(),
        };
        // Check every part before keeping any of it.
        let mut formats = BTreeSet::new();
        for result in &results {
            match result {
                Decoded::Conversations { format, .. } => formats.insert(*format),
                Decoded::Ledger(_) => formats.insert(FileFormat::BatonLedger),
                Decoded::Zip => {
                    return Err(Error::new(
                        ErrorCode::ArchiveUnsupported,
                        format!("{name} holds an archive inside an archive; unzip it first"),
                    )
                    .with("file", name));
                }
            };
        }
        if let Some(format) = formats.first() {
            summary.format = *format;
        }
        for result in results {
            match result {
                Decoded::Conversations {
                    parsed,
                    claude_usage,
                    usage,
                    ..
                } => {
                    summary.conversations += parsed.conversations.len() as u64;
                    summary.messages += parsed
                        .conversations
                        .iter()
                        .map(|c| c.messages.len() as u64)
                        .sum::<u64>();
                    let s = &mut summary.stats;
                    s.lines += parsed.stats.lines;
                    s.malformed += parsed.stats.malformed;
                    s.repaired_surrogates += parsed.stats.repaired_surrogates;
                    for (kind, n) in parsed.unknown_kinds {
                        *summary.unknown_kinds.entry(kind).or_default() += n;
                    }
                    for c in parsed.conversations {
                        self.rows.push(row_of(self.conversations.len(), &c));
                        self.conversations.push(c);
                    }
                    if let Some(reader) = claude_usage {
                        self.claude_usage.merge(*reader);
                    }
                    self.codex_usage.extend(usage);
                }
                Decoded::Ledger(bytes) => {
                    summary.ledger_lines += bytes.split(|&b| b == b'\n').count() as u64;
                    if !self.ledger_bytes.is_empty() && !self.ledger_bytes.ends_with(b"\n") {
                        self.ledger_bytes.push(b'\n');
                    }
                    self.ledger_bytes.extend_from_slice(&bytes);
                    self.ledger = MemoryLedger::from_ndjson(&self.ledger_bytes);
                }
                Decoded::Zip => {}
            }
        }
        self.files.push(summary.clone());
        Ok(summary)
    }

    /// Feeds a whole file at once: begin, push, finish.
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> Result<FileSummary> {
        self.begin(name);
        for chunk in bytes.chunks(1 << 20) {
            self.push(chunk)?;
        }
        self.finish()
    }

    /// The files loaded, in order.
    pub fn files(&self) -> &[FileSummary] {
        &self.files
    }

    /// Every conversation loaded, in load order.
    pub fn conversations(&self) -> &[Conversation] {
        &self.conversations
    }

    /// The loaded ledgers, folded together.
    pub fn ledger(&self) -> &MemoryLedger {
        &self.ledger
    }

    fn usage_entries(&self) -> Vec<UsageEntry> {
        let (mut entries, _) = self.claude_usage.clone().finish();
        entries.extend(self.codex_usage.iter().cloned());
        entries
    }

    /// The overview and the charts together, from one pass over what is loaded.
    pub fn report(&self) -> Report {
        let figures = charts::overview(&self.conversations);
        let entries = self.usage_entries();
        Report {
            charts: self.charts_of(&figures, &entries),
            overview: self.overview_of(figures, &entries),
        }
    }

    /// The headline figures of everything loaded.
    pub fn overview(&self) -> AnalysisOverview {
        self.overview_of(charts::overview(&self.conversations), &self.usage_entries())
    }

    /// The charts of everything loaded.
    pub fn charts(&self) -> Charts {
        self.charts_of(
            &charts::overview(&self.conversations),
            &self.usage_entries(),
        )
    }

    fn overview_of(&self, figures: Overview, entries: &[UsageEntry]) -> AnalysisOverview {
        let mut formats = BTreeMap::new();
        for f in &self.files {
            *formats.entry(f.format.as_str().to_owned()).or_default() += 1;
        }
        let (usage, unpriced_models) = if entries.is_empty() {
            (None, Vec::new())
        } else {
            let report = aggregate(
                entries,
                GroupBy::Model,
                None,
                None,
                &[],
                &self.prices,
                BTreeMap::new(),
            );
            (Some(report.totals), report.unpriced_models)
        };
        let stats = &self.ledger.fold().stats;
        AnalysisOverview {
            files: self.files.len() as u64,
            formats,
            figures,
            usage,
            unpriced_models,
            sessions: self.ledger.fold().sessions().len() as u64,
            ledger_problems: stats.corrupt_lines + stats.foreign_lines,
        }
    }

    fn charts_of(&self, figures: &Overview, entries: &[UsageEntry]) -> Charts {
        let messages: Vec<(Timestamp, &str, u64)> = self
            .conversations
            .iter()
            .flat_map(|c| c.messages.iter())
            .filter(|m| m.role == Role::Assistant)
            .filter_map(|m| Some((m.at?, m.model.as_deref().unwrap_or("unrecorded"), 1)))
            .collect();
        let models = charts::stacked_bars_svg(&charts::by_period(&messages), "assistant messages");
        let tokens: Vec<(Timestamp, &str, u64)> = entries
            .iter()
            .map(|e| (e.at, e.model.as_deref().unwrap_or("unrecorded"), e.total()))
            .collect();
        let tokens = if tokens.is_empty() {
            String::new()
        } else {
            charts::stacked_bars_svg(&charts::by_period(&tokens), "tokens")
        };
        Charts {
            activity: charts::calendar_heatmap_svg(&figures.messages_per_day),
            models,
            tokens,
            lengths: charts::length_histogram_svg(&figures.length_buckets),
        }
    }

    /// A page of the conversation list: searched, filtered, sorted.
    pub fn list(&self, query: &ListQuery) -> ConversationList {
        let terms: Vec<String> = query
            .search
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        // Matches by reference, with their snippets; only the page asked for is copied out.
        let mut rows: Vec<(&ConversationRow, Option<String>)> = Vec::new();
        for (c, row) in self.conversations.iter().zip(&self.rows) {
            if query.provider.is_some_and(|p| p != c.provider) {
                continue;
            }
            if let Some(model) = &query.model
                && !row.models.contains(model)
            {
                continue;
            }
            let title = &row.head.title;
            let mut snippet_text = None;
            let matches = terms.iter().all(|term| {
                if find_folded(title, term).is_some()
                    || c.project
                        .as_deref()
                        .is_some_and(|p| find_folded(p, term).is_some())
                {
                    return true;
                }
                c.messages.iter().flat_map(|m| m.blocks.iter()).any(|b| {
                    let text = block_text(b);
                    match find_folded(text, term) {
                        Some(at) => {
                            snippet_text.get_or_insert_with(|| snippet(text, at));
                            true
                        }
                        None => false,
                    }
                })
            });
            if !matches {
                continue;
            }
            rows.push((row, snippet_text));
        }
        match query.sort.as_str() {
            "started" => rows.sort_by_key(|(r, _)| (r.head.started_at, r.head.index)),
            "messages" => rows.sort_by_key(|(r, _)| (r.messages, r.head.index)),
            "title" => {
                rows.sort_by_cached_key(|(r, _)| (r.head.title.to_lowercase(), r.head.index));
            }
            _ => rows.sort_by_key(|(r, _)| (r.head.updated_at.or(r.head.started_at), r.head.index)),
        }
        // Titles read A to Z by default; dates and lengths newest and longest first.
        if !query.ascending.unwrap_or(query.sort == "title") {
            rows.reverse();
        }
        let total = rows.len();
        let limit = if query.limit == 0 { 100 } else { query.limit };
        let rows = rows
            .into_iter()
            .skip(query.offset)
            .take(limit)
            .map(|(row, snippet)| ConversationRow {
                snippet,
                ..row.clone()
            })
            .collect();
        ConversationList { total, rows }
    }

    /// One branch of conversation `index`: the active one, or the one through message
    /// `through` (then down the active branch where it rejoins it, else the newest child).
    pub fn view(&self, index: usize, through: Option<&str>) -> Result<ConversationView> {
        let c = self
            .conversations
            .get(index)
            .ok_or_else(|| not_found(index))?;
        let tree = Tree::new(c);
        let (by_id, children) = (&tree.by_id, &tree.children);
        let active: Vec<&Message> = c.active_branch();
        let active_ids: BTreeSet<&str> = active.iter().map(|m| m.id.as_str()).collect();
        let path: Vec<&Message> = match through {
            None => active.clone(),
            Some(id) => {
                let start = *by_id.get(id).ok_or_else(|| {
                    Error::invalid(
                        "message",
                        format!("conversation {index} has no message {id}"),
                    )
                    .with("message", id)
                })?;
                let mut up = Vec::new();
                let mut seen = BTreeSet::new();
                let mut cursor = Some(start);
                while let Some(m) = cursor {
                    if !seen.insert(m.id.as_str()) {
                        break;
                    }
                    up.push(m);
                    cursor = m.parent.as_deref().and_then(|p| by_id.get(p).copied());
                }
                up.reverse();
                let mut cursor = start;
                while let Some(kids) = children.get(&Some(cursor.id.as_str())) {
                    let next = kids
                        .iter()
                        .find(|k| active_ids.contains(k.id.as_str()))
                        .or(kids.last())
                        .copied();
                    match next {
                        Some(n) if seen.insert(n.id.as_str()) => {
                            up.push(n);
                            cursor = n;
                        }
                        _ => break,
                    }
                }
                up
            }
        };
        let is_active =
            path.len() == active.len() && path.iter().zip(&active).all(|(a, b)| a.id == b.id);
        // The branch, with the side chains of tool work of each of its messages after it.
        let on_path: BTreeSet<&str> = path.iter().map(|m| m.id.as_str()).collect();
        let mut shown: Vec<&Message> = Vec::with_capacity(path.len());
        for &m in &path {
            shown.push(m);
            let mut stack: Vec<&Message> = tree
                .kids(Some(m.id.as_str()))
                .iter()
                .rev()
                .filter(|k| !on_path.contains(k.id.as_str()) && tree.side(k))
                .copied()
                .collect();
            while let Some(side) = stack.pop() {
                shown.push(side);
                stack.extend(tree.kids(Some(side.id.as_str())).iter().rev().copied());
            }
        }
        let messages = shown
            .iter()
            .map(|m| {
                let siblings: Vec<String> = if on_path.contains(m.id.as_str()) {
                    tree.kids(tree.parent_of(m))
                        .iter()
                        .filter(|s| s.id == m.id || !tree.side(s))
                        .map(|s| s.id.clone())
                        .collect()
                } else {
                    Vec::new()
                };
                let alternative = siblings.iter().position(|s| *s == m.id).unwrap_or(0);
                ViewMessage {
                    id: m.id.clone(),
                    role: m.role,
                    at: m.at,
                    model: m.model.clone(),
                    blocks: m.blocks.clone(),
                    alternatives: if siblings.len() > 1 {
                        siblings
                    } else {
                        Vec::new()
                    },
                    alternative,
                }
            })
            .collect();
        Ok(ConversationView {
            head: ConversationHead::of(index, c),
            active: is_active,
            total_messages: c.messages.len(),
            messages,
        })
    }

    /// The work sessions of the loaded ledgers, newest first.
    pub fn sessions(&self) -> Vec<crate::ledger::session::Session> {
        let mut sessions = self.ledger.fold().sessions();
        sessions.reverse();
        sessions
    }

    /// One work session's timeline from the loaded ledgers.
    pub fn session_timeline(
        &self,
        id: &str,
    ) -> Result<Vec<crate::lifecycle::timeline::TimelineEntry>> {
        use crate::ledger::store::LedgerView;
        let session = crate::ids::SessionId::parse_v7("session_id", id)?;
        let history = self.ledger.history(session)?.ok_or_else(|| {
            Error::new(
                ErrorCode::SessionNotFound,
                format!("no work session {id} in the loaded ledgers"),
            )
            .with("session_id", id)
        })?;
        Ok(crate::lifecycle::timeline::timeline(&history))
    }

    /// Conversation `index` as written, every branch included, as JSON.
    pub fn conversation_json(&self, index: usize) -> Result<String> {
        let c = self
            .conversations
            .get(index)
            .ok_or_else(|| not_found(index))?;
        serde_json::to_string_pretty(c).map_err(|e| Error::internal(e.to_string()))
    }

    /// Every conversation as one JSON array.
    pub fn all_json(&self) -> String {
        serde_json::to_string(&self.conversations).unwrap_or_else(|_| "[]".to_owned())
    }

    /// Every conversation's active branch as Markdown.
    pub fn all_markdown(&self) -> String {
        let mut out = String::new();
        for index in 0..self.conversations.len() {
            if let Ok(view) = self.view(index, None) {
                out.push_str(&markdown(&view));
                out.push_str("\n---\n\n");
            }
        }
        out
    }
}

/// A conversation's list row, without a search snippet.
fn row_of(index: usize, c: &Conversation) -> ConversationRow {
    let models: BTreeSet<&str> = c
        .messages
        .iter()
        .filter_map(|m| m.model.as_deref())
        .collect();
    ConversationRow {
        head: ConversationHead::of(index, c),
        messages: c.messages.len(),
        branch_points: Tree::new(c).forks(),
        models: models.into_iter().map(str::to_owned).collect(),
        snippet: None,
    }
}

fn start_unzip(archive: Vec<u8>, name: &str) -> Result<Unzip> {
    let listed = crate::transcripts::zip::entries(&archive).map_err(|e| e.with("file", name))?;
    let entries: Vec<ZipEntry> = listed
        .iter()
        .filter(|e| is_conversations_entry(&e.name))
        .cloned()
        .collect();
    if entries.is_empty() {
        let names: Vec<Value> = listed
            .iter()
            .take(20)
            .map(|e| Value::String(e.name.clone()))
            .collect();
        return Err(Error::new(
            ErrorCode::NoConversationsInArchive,
            format!(
                "{name} is a ZIP archive without conversations.json: expected a ChatGPT or claude.ai export ({} entries, none of them conversations)",
                listed.len()
            ),
        )
        .with("file", name)
        .with("entries", Value::Array(names)));
    }
    let total = entries.iter().map(|e| e.size).sum();
    Ok(Unzip {
        archive,
        entries,
        next: 0,
        reader: None,
        produced: 0,
        total,
        results: Vec::new(),
    })
}

fn role_heading(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    }
}

fn fence(text: &str) -> String {
    let mut ticks = "```".to_owned();
    while text.contains(&ticks) {
        ticks.push('`');
    }
    ticks
}

/// One branch as Markdown: a heading per message, tool calls and results as code blocks,
/// thinking as a quote.
pub fn markdown(view: &ConversationView) -> String {
    use std::fmt::Write;
    let head = &view.head;
    let mut out = format!("# {}\n\n", head.title.replace('\n', " "));
    let provider = serde_json::to_value(head.provider)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let _ = writeln!(out, "- Source: {provider}, id `{}`", head.id);
    if let Some(project) = &head.project {
        let _ = writeln!(out, "- Project: `{project}`");
    }
    if let Some(at) = head.started_at {
        let _ = writeln!(out, "- Started: {at}");
    }
    let _ = writeln!(
        out,
        "- Branch: {} ({} of {} messages)\n",
        if view.active { "active" } else { "alternative" },
        view.messages.len(),
        view.total_messages
    );
    for m in &view.messages {
        let _ = write!(out, "## {}", role_heading(m.role));
        if let Some(model) = &m.model {
            let _ = write!(out, " ({model})");
        }
        if let Some(at) = m.at {
            let _ = write!(out, " — {at}");
        }
        out.push_str("\n\n");
        for block in &m.blocks {
            match block {
                Block::Text { text } => {
                    out.push_str(text.trim_end());
                    out.push_str("\n\n");
                }
                Block::Thinking { text } => {
                    out.push_str("> **Thinking**\n>\n");
                    for line in text.lines() {
                        let _ = writeln!(out, "> {line}");
                    }
                    out.push('\n');
                }
                Block::ToolCall { name, input, .. } => {
                    let f = fence(input);
                    let _ = write!(out, "**Tool call** `{name}`\n\n{f}json\n{input}\n{f}\n\n");
                }
                Block::ToolResult {
                    output, is_error, ..
                } => {
                    let f = fence(output);
                    let label = if *is_error {
                        "Tool error"
                    } else {
                        "Tool result"
                    };
                    let _ = write!(out, "**{label}**\n\n{f}\n{output}\n{f}\n\n");
                }
                Block::Other { kind, raw } => {
                    let f = fence(raw);
                    let _ = write!(out, "**{kind}**\n\n{f}json\n{raw}\n{f}\n\n");
                }
            }
        }
    }
    out
}
