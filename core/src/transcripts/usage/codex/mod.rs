//! Codex rollouts: usage from cumulative `token_count` events, as deltas.
//!
//! Each `event_msg` of type `token_count` carries the thread's cumulative
//! `total_token_usage` (and the last request's `last_token_usage`). Codex re-emits it with
//! unchanged totals; those count once. A total that goes backwards falls back to the last
//! request's usage. Cached input is inside input and reasoning inside output in Codex's own
//! numbers; they are mapped to the one meaning of [`UsageEntry`]. The model comes from the
//! event itself when present, else the latest `turn_context`. Each entry also carries the last
//! request's input, which decides a long-context rate (a delta may sum several requests).
//!
//! A forked or sub-agent rollout (`session_meta` with `forked_from_id`, a `source` object, or
//! `thread_spawn`) opens with a verbatim copy of its parent's events, `token_count`s already
//! counted in the parent's file included, all written in the second the fork was made. Those
//! count nothing here; their totals only set the baseline the fork's own deltas start from
//! (the rule ccusage and tokscale use, see `research/formats.md` §2.3). A sub-agent's rollout
//! (`source: {"subagent": …}`) is work delegated: its responses say so, and a spawned
//! thread's count under its parent's session.

use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::lines::LineSplitter;
use crate::transcripts::{Interner, Provider, ReadStats, UsageEntry, contains};
use serde::Deserialize;
use std::sync::Arc;

mod line;
#[cfg(test)]
mod line_tests;

use line::{Info, Line};

/// A cumulative (or per-request) token count as Codex writes it.
#[derive(Debug, Deserialize, serde::Serialize, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Counts {
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
    /// The counts in Baton's one meaning: input without the cached part, the cached part as
    /// cache reads, output with its reasoning part named.
    pub fn totals(&self) -> TokenTotals {
        TokenTotals {
            input_tokens: self.input_tokens.saturating_sub(self.cached_input_tokens),
            output_tokens: self.output_tokens,
            cache_creation_tokens: 0,
            cache_read_tokens: self.cached_input_tokens,
            reasoning_tokens: self.reasoning_output_tokens,
        }
    }

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
#[derive(Debug)]
pub struct CodexUsage {
    session: Arc<str>,
    cwd: Option<Arc<str>>,
    model: Option<Arc<str>>,
    last_total: Option<Counts>,
    /// Whether the file is a fork or a sub-agent's (it starts with a copy of its parent).
    forked: bool,
    /// Whether the file is a sub-agent's (its responses are its parent session's, delegated).
    delegated: bool,
    /// The second (Unix) of the file's first timestamp: the copied burst carries it.
    first_second: Option<i64>,
    entries: Vec<UsageEntry>,
    strings: Interner,
    /// What was read.
    pub stats: ReadStats,
}

/// Where a [`CodexUsage`] stopped in a file: enough to read the lines appended later without
/// the ones before (the mirror reads only what was appended).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CodexUsageState {
    /// The session id (the file's name until `session_meta` says).
    pub session: String,
    /// The project key of the first working directory.
    pub cwd: Option<String>,
    /// The model in effect.
    pub model: Option<String>,
    /// The last cumulative total seen (deltas are taken from it).
    pub last_total: Option<Counts>,
    /// Whether the file is a fork or a sub-agent's.
    pub forked: bool,
    /// Whether the file is a sub-agent's.
    #[serde(default)]
    pub delegated: bool,
    /// The second of the file's first timestamp.
    pub first_second: Option<i64>,
}

impl CodexUsage {
    /// A reader that continues a file from where `state` was taken.
    pub fn continuing(state: CodexUsageState) -> CodexUsage {
        let mut reader = CodexUsage::new(&state.session);
        reader.cwd = state.cwd.map(|c| reader.strings.get(&c));
        reader.model = state.model.map(|m| reader.strings.get(&m));
        reader.last_total = state.last_total;
        reader.forked = state.forked;
        reader.delegated = state.delegated;
        reader.first_second = state.first_second;
        reader
    }

    /// Where the reader is, to continue from later.
    pub fn state(&self) -> CodexUsageState {
        CodexUsageState {
            session: self.session.to_string(),
            cwd: self.cwd.as_deref().map(str::to_owned),
            model: self.model.as_deref().map(str::to_owned),
            last_total: self.last_total,
            forked: self.forked,
            delegated: self.delegated,
            first_second: self.first_second,
        }
    }

    /// The entries made since the last call, in file order.
    pub fn take_entries(&mut self) -> Vec<UsageEntry> {
        std::mem::take(&mut self.entries)
    }

    /// A reader for one file; `session` names it until its `session_meta` says otherwise.
    pub fn new(session: impl AsRef<str>) -> CodexUsage {
        CodexUsage {
            session: Arc::from(session.as_ref()),
            cwd: None,
            model: None,
            last_total: None,
            forked: false,
            delegated: false,
            first_second: None,
            entries: Vec::new(),
            strings: Interner::default(),
            stats: ReadStats::default(),
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
        // Walked in place; the lines the walker is not sure of go to `serde_json`.
        if let Ok(value) = line::walk(line) {
            self.take(value, line);
            return;
        }
        let repaired;
        let text: &[u8] = match valid_json(line) {
            true => line,
            false => match crate::transcripts::repair_line(line) {
                Some(fixed) => {
                    repaired = fixed;
                    self.stats.repaired_surrogates += 1;
                    &repaired
                }
                None => {
                    self.stats.malformed += 1;
                    return;
                }
            },
        };
        let Ok(value) = serde_json::from_slice::<Line<'_>>(text) else {
            // Valid JSON of a shape this reader does not know: not usage.
            return;
        };
        self.take(value, text);
    }

    /// Takes what one line (`text`) holds.
    fn take(&mut self, value: Line<'_>, text: &[u8]) {
        let Some(payload) = value.payload else {
            return;
        };
        if self.first_second.is_none() {
            self.first_second = value
                .timestamp
                .as_deref()
                .and_then(|t| Timestamp::parse(t).ok())
                .map(|t| t.millis().div_euclid(1000));
        }
        match value.kind.as_deref() {
            Some("session_meta") => {
                self.forked |= payload.forked_from_id.is_some()
                    || payload.source.as_ref().is_some_and(|s| s.is_object())
                    || contains(text, b"thread_spawn");
                if let Some(id) = payload.id.as_deref() {
                    self.session = Arc::from(id);
                }
                // A sub-agent's rollout (`source: {"subagent": …}`): its responses are work
                // its parent delegated, counted under the parent's session when it is named.
                if let Some(subagent) = payload.source.as_ref().and_then(|s| s.get("subagent")) {
                    self.delegated = true;
                    if let Some(parent) = subagent
                        .get("thread_spawn")
                        .and_then(|t| t.get("parent_thread_id"))
                        .and_then(|p| p.as_str())
                    {
                        self.session = Arc::from(parent);
                    }
                }
                if let Some(cwd) = payload.cwd.as_deref() {
                    self.cwd = Some(self.strings.get(&super::project_key(cwd)));
                }
            }
            Some("turn_context") => {
                if let Some(model) = payload.model.as_deref() {
                    self.model = Some(self.strings.get(model));
                }
                if self.cwd.is_none()
                    && let Some(cwd) = payload.cwd.as_deref()
                {
                    // The session's project is its first working directory.
                    self.cwd = Some(self.strings.get(&super::project_key(cwd)));
                }
            }
            Some("event_msg") if payload.kind.as_deref() == Some("token_count") => {
                if let Some(info) = payload.info {
                    self.token_count(value.timestamp.as_deref(), info);
                }
            }
            _ => {}
        }
    }

    fn token_count(&mut self, timestamp: Option<&str>, info: Info<'_>) {
        let (total, last) = (info.total_token_usage, info.last_token_usage);
        let at = timestamp.and_then(|t| Timestamp::parse(t).ok());
        if self.forked && at.is_some_and(|t| Some(t.millis().div_euclid(1000)) == self.first_second)
        {
            // The parent's events, copied: counted in the parent's file.
            self.stats.duplicates += 1;
            if total.is_some() {
                self.last_total = total;
            }
            return;
        }
        let delta = match (total, self.last_total) {
            (Some(total), Some(previous)) if total == previous => {
                self.stats.duplicates += 1;
                return;
            }
            (Some(total), Some(previous)) => total.minus(&previous).or(last),
            (Some(total), None) => Some(total),
            (None, _) => last,
        };
        if total.is_some() {
            self.last_total = total;
        }
        let Some(delta) = delta else {
            return;
        };
        let Some(at) = at else {
            self.stats.malformed += 1;
            return;
        };
        let model = match info.model.as_deref() {
            Some(m) => Some(self.strings.get(m)),
            None => self.model.clone(),
        };
        self.entries.push(UsageEntry {
            provider: Provider::Codex,
            at,
            session: self.session.clone(),
            project: self.cwd.clone(),
            model,
            tokens: delta.totals(),
            cache_creation_1h_tokens: 0,
            // The long-context rate is decided per request: on the last request's input (cached
            // input included), not on a delta that may sum several requests.
            request_context_tokens: last.map(|l| l.input_tokens),
            recorded_cost_micro_usd: None,
            fast: false,
            web_searches: 0,
            delegated: self.delegated,
        });
    }

    /// Feeds a whole file's bytes.
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let mut lines = LineSplitter::new();
        lines.push(bytes, |line| self.push_line(line));
        lines.finish(|line| self.push_line(line));
        self.stats.too_long += lines.too_long();
    }

    /// The usage deltas in file order.
    pub fn finish(self) -> (Vec<UsageEntry>, ReadStats) {
        (self.entries, self.stats)
    }
}

impl crate::transcripts::lines::LineReader for CodexUsage {
    fn push_line(&mut self, line: &[u8]) {
        CodexUsage::push_line(self, line);
    }
}

/// Whether `line` is one JSON value: stepped over in place, or by `serde_json` where the walker
/// is not sure (the same answer, faster).
fn valid_json(line: &[u8]) -> bool {
    let mut cursor = crate::transcripts::scanner::Cursor::new(line);
    match cursor.skip().and_then(|_| cursor.end()) {
        Ok(()) => true,
        Err(_) => serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok(),
    }
}
