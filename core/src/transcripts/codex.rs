//! Codex rollouts: usage from cumulative `token_count` events, as deltas.
//!
//! Each `event_msg` of type `token_count` carries the thread's cumulative
//! `total_token_usage` (and the last request's `last_token_usage`). Codex re-emits it with
//! unchanged totals; those count once. A total that goes backwards falls back to the last
//! request's usage. Cached input is inside input and reasoning inside output in Codex's own
//! numbers; they are mapped to the one meaning of [`UsageEntry`]. The model comes from the
//! event itself when present, else the latest `turn_context`.

use super::{Provider, ReadStats, UsageEntry, contains, parse_line};
use crate::time::Timestamp;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize, Clone, Copy, Default, PartialEq, Eq)]
struct Counts {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cached_input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    reasoning_output_tokens: u64,
}

impl Counts {
    fn minus(&self, earlier: &Counts) -> Option<Counts> {
        Some(Counts {
            input_tokens: self.input_tokens.checked_sub(earlier.input_tokens)?,
            cached_input_tokens: self
                .cached_input_tokens
                .checked_sub(earlier.cached_input_tokens)?,
            output_tokens: self.output_tokens.checked_sub(earlier.output_tokens)?,
            reasoning_output_tokens: self
                .reasoning_output_tokens
                .checked_sub(earlier.reasoning_output_tokens)?,
        })
    }
}

/// Reads the usage of one Codex rollout file (feed files one reader each).
#[derive(Debug, Default)]
pub struct CodexUsage {
    session: String,
    cwd: Option<String>,
    model: Option<String>,
    last_total: Option<Counts>,
    entries: Vec<UsageEntry>,
    /// What was read.
    pub stats: ReadStats,
}

impl CodexUsage {
    /// A reader for one file; `session` names it until its `session_meta` says otherwise.
    pub fn new(session: impl Into<String>) -> CodexUsage {
        CodexUsage {
            session: session.into(),
            ..CodexUsage::default()
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        let interesting = contains(line, b"token_count")
            || contains(line, b"turn_context")
            || contains(line, b"session_meta");
        if !interesting {
            self.stats.without_usage += 1;
            return;
        }
        let Some(value) = parse_line::<Value>(line, &mut self.stats) else {
            self.stats.malformed += 1;
            return;
        };
        let payload = &value["payload"];
        match value["type"].as_str() {
            Some("session_meta") => {
                if let Some(id) = payload["id"].as_str() {
                    self.session = id.to_owned();
                }
                self.cwd = payload["cwd"].as_str().map(str::to_owned);
            }
            Some("turn_context") => {
                if let Some(model) = payload["model"].as_str() {
                    self.model = Some(model.to_owned());
                }
                if let Some(cwd) = payload["cwd"].as_str() {
                    self.cwd = Some(cwd.to_owned());
                }
            }
            Some("event_msg") if payload["type"] == "token_count" => self.token_count(&value),
            _ => {}
        }
    }

    fn token_count(&mut self, value: &Value) {
        let info = &value["payload"]["info"];
        if info.is_null() {
            return;
        }
        let total: Option<Counts> = serde_json::from_value(info["total_token_usage"].clone()).ok();
        let last: Option<Counts> = serde_json::from_value(info["last_token_usage"].clone()).ok();
        let delta = match (total, self.last_total) {
            (Some(total), Some(previous)) if total == previous => {
                self.stats.duplicates += 1;
                return;
            }
            (Some(total), Some(previous)) => total.minus(&previous).or(last),
            (Some(total), None) => Some(total),
            (None, _) => last,
        };
        if let Some(total) = total {
            self.last_total = Some(total);
        }
        let Some(delta) = delta else {
            return;
        };
        let Some(at) = value["timestamp"]
            .as_str()
            .and_then(|t| Timestamp::parse(t).ok())
        else {
            self.stats.malformed += 1;
            return;
        };
        let model = info["model"]
            .as_str()
            .map(str::to_owned)
            .or_else(|| self.model.clone());
        self.entries.push(UsageEntry {
            provider: Provider::Codex,
            at,
            session: self.session.clone(),
            project: self.cwd.clone(),
            model,
            input_tokens: delta.input_tokens.saturating_sub(delta.cached_input_tokens),
            output_tokens: delta.output_tokens,
            cache_creation_tokens: 0,
            cache_read_tokens: delta.cached_input_tokens,
            reasoning_tokens: delta.reasoning_output_tokens,
        });
    }

    /// Feeds a whole file's bytes.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        for line in bytes.split(|&b| b == b'\n') {
            if !line.is_empty() {
                self.push_line(line.strip_suffix(b"\r").unwrap_or(line));
            }
        }
    }

    /// The usage deltas in file order.
    pub fn finish(self) -> (Vec<UsageEntry>, ReadStats) {
        (self.entries, self.stats)
    }
}
