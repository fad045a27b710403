//! Claude Code transcripts: usage counted once per API response.
//!
//! Claude Code writes one line per content block of a response; the lines share `message.id`
//! and `requestId` and repeat the usage, with a placeholder `output_tokens` on all but the last.
//! The key is (`message.id`, `requestId`), or the session and `message.id` when the request id
//! is missing; of the copies the non-sidechain one wins, then the larger total (the final
//! count). A resumed file that repeats lines therefore counts them once, and sub-agent files
//! (real spend) count like any other.

use super::{Provider, ReadStats, UsageEntry, contains, parse_line};
use crate::time::Timestamp;
use serde::Deserialize;
use std::collections::HashMap;

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
    entries: Vec<(UsageEntry, bool, Option<String>)>,
    index: HashMap<String, usize>,
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
        let key = message.id.filter(|id| !id.is_empty()).map(|id| {
            match parsed.request_id.filter(|r| !r.is_empty()) {
                Some(request) => format!("{id}\u{1f}{request}"),
                None => format!("{session}\u{1f}{id}"),
            }
        });
        self.offer(entry, sidechain, key);
    }

    /// Keeps an entry, or the better of it and the copy already kept under its key.
    fn offer(&mut self, entry: UsageEntry, sidechain: bool, key: Option<String>) {
        let Some(k) = key.clone() else {
            self.entries.push((entry, sidechain, None));
            return;
        };
        match self.index.get(&k) {
            Some(&at) => {
                self.stats.duplicates += 1;
                let (kept, kept_sidechain, _) = &self.entries[at];
                let better = (*kept_sidechain && !sidechain)
                    || (*kept_sidechain == sidechain && entry.total() > kept.total());
                if better {
                    self.entries[at] = (entry, sidechain, key);
                }
            }
            None => {
                self.index.insert(k, self.entries.len());
                self.entries.push((entry, sidechain, key));
            }
        }
    }

    /// Merges another reader's responses (read in parallel from other files), deduplicating
    /// across both by the same rule.
    pub fn merge(&mut self, other: ClaudeCodeUsage) {
        let stats = other.stats;
        for (entry, sidechain, key) in other.entries {
            self.offer(entry, sidechain, key);
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
            self.entries.into_iter().map(|(e, _, _)| e).collect(),
            self.stats,
        )
    }
}
