//! Claude Code transcripts: usage counted once per API response.
//!
//! Claude Code writes one line per content block of a response; the lines share `message.id`
//! and `requestId` and repeat the usage, with a placeholder `output_tokens` on all but the last.
//! The key is (`message.id`, `requestId`), or the session and `message.id` when the request id
//! is missing; of the copies the non-sidechain one wins, then the larger total (the final
//! count). A resumed file that repeats lines therefore counts them once, and sub-agent files
//! (real spend) count like any other. A sidechain line that replays a main-conversation
//! response (same `message.id`, a new `requestId`, as `/btw` side questions do) is not spend
//! and is dropped, whichever of the two is read first.

use super::{Provider, ReadStats, UsageEntry, contains, parse_line};
use crate::time::Timestamp;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};

#[derive(Debug)]
struct Kept {
    entry: UsageEntry,
    sidechain: bool,
    key: Option<String>,
    message_id: Option<String>,
}

#[derive(Deserialize)]
struct Line {
    #[serde(default)]
    timestamp: Option<String>,
    #[serde(default, rename = "sessionId")]
    session_id: Option<String>,
    #[serde(default, rename = "requestId")]
    request_id: Option<String>,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: Option<bool>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize)]
struct CacheCreation {
    #[serde(default)]
    ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    ephemeral_1h_input_tokens: Option<u64>,
}

/// Reads the usage of Claude Code transcript lines, across any number of files.
#[derive(Debug, Default)]
pub struct ClaudeCodeUsage {
    entries: Vec<Option<Kept>>,
    index: HashMap<String, usize>,
    /// Message ids seen on main-conversation lines.
    main_messages: HashSet<String>,
    /// Sidechain entries by message id, to drop when a main line with that id shows up.
    sidechain_by_message: HashMap<String, Vec<usize>>,
    /// What was read.
    pub stats: ReadStats,
}

impl ClaudeCodeUsage {
    /// A reader with nothing read.
    pub fn new() -> ClaudeCodeUsage {
        ClaudeCodeUsage::default()
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        if !contains(line, b"\"usage\"") {
            self.stats.without_usage += 1;
            return;
        }
        let Some(parsed) = parse_line::<Line>(line, &mut self.stats) else {
            self.stats.malformed += 1;
            return;
        };
        let Some(message) = parsed.message else {
            return;
        };
        let Some(usage) = message.usage else {
            return;
        };
        if message.model.as_deref() == Some("<synthetic>") {
            self.stats.synthetic += 1;
            return;
        }
        let Some(at) = parsed
            .timestamp
            .as_deref()
            .and_then(|t| Timestamp::parse(t).ok())
        else {
            self.stats.malformed += 1;
            return;
        };
        let session = parsed.session_id.unwrap_or_default();
        let cache_creation = match &usage.cache_creation {
            Some(c) => c
                .ephemeral_5m_input_tokens
                .unwrap_or(0)
                .saturating_add(c.ephemeral_1h_input_tokens.unwrap_or(0)),
            None => usage.cache_creation_input_tokens.unwrap_or(0),
        };
        let entry = UsageEntry {
            provider: Provider::ClaudeCode,
            at,
            session: session.clone(),
            project: parsed.cwd,
            model: message.model,
            input_tokens: usage.input_tokens.unwrap_or(0),
            output_tokens: usage.output_tokens.unwrap_or(0),
            cache_creation_tokens: cache_creation,
            cache_read_tokens: usage.cache_read_input_tokens.unwrap_or(0),
            reasoning_tokens: 0,
        };
        let sidechain = parsed.is_sidechain.unwrap_or(false);
        let message_id = message.id.filter(|id| !id.is_empty());
        let key = message_id
            .as_ref()
            .map(|id| match parsed.request_id.filter(|r| !r.is_empty()) {
                Some(request) => format!("{id}\u{1f}{request}"),
                None => format!("{session}\u{1f}{id}"),
            });
        self.offer(Kept {
            entry,
            sidechain,
            key,
            message_id,
        });
    }

    /// Keeps an entry, or the better of it and the copy already kept under its key.
    fn offer(&mut self, kept: Kept) {
        if let Some(id) = &kept.message_id {
            if kept.sidechain && self.main_messages.contains(id) {
                self.stats.duplicates += 1;
                return;
            }
            if !kept.sidechain && self.main_messages.insert(id.clone()) {
                for at in self.sidechain_by_message.remove(id).unwrap_or_default() {
                    if let Some(replay) = self.entries[at].take() {
                        self.stats.duplicates += 1;
                        if let Some(key) = &replay.key {
                            self.index.remove(key);
                        }
                    }
                }
            }
        }
        let Some(key) = kept.key.clone() else {
            self.entries.push(Some(kept));
            return;
        };
        match self.index.get(&key).copied() {
            Some(at) => {
                self.stats.duplicates += 1;
                let better = match &self.entries[at] {
                    Some(old) => {
                        (old.sidechain && !kept.sidechain)
                            || (old.sidechain == kept.sidechain
                                && kept.entry.total() > old.entry.total())
                    }
                    None => true,
                };
                if better {
                    self.entries[at] = Some(kept);
                }
            }
            None => {
                let at = self.entries.len();
                self.index.insert(key, at);
                if kept.sidechain
                    && let Some(id) = &kept.message_id
                {
                    self.sidechain_by_message
                        .entry(id.clone())
                        .or_default()
                        .push(at);
                }
                self.entries.push(Some(kept));
            }
        }
    }

    /// Merges another reader's responses (read in parallel from other files), deduplicating
    /// across both by the same rule.
    pub fn merge(&mut self, other: ClaudeCodeUsage) {
        let stats = other.stats;
        for kept in other.entries.into_iter().flatten() {
            self.offer(kept);
        }
        self.stats.lines += stats.lines;
        self.stats.without_usage += stats.without_usage;
        self.stats.malformed += stats.malformed;
        self.stats.repaired_surrogates += stats.repaired_surrogates;
        self.stats.duplicates += stats.duplicates;
        self.stats.synthetic += stats.synthetic;
    }

    /// Feeds a whole file's bytes.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        for line in bytes.split(|&b| b == b'\n') {
            if !line.is_empty() {
                self.push_line(line.strip_suffix(b"\r").unwrap_or(line));
            }
        }
    }

    /// The responses, each counted once, in the order first seen.
    pub fn finish(self) -> (Vec<UsageEntry>, ReadStats) {
        (
            self.entries
                .into_iter()
                .flatten()
                .map(|k| k.entry)
                .collect(),
            self.stats,
        )
    }
}
