//! The usage of GitHub Copilot CLI sessions: each `session.shutdown` gives one row per model
//! of its `modelMetrics` (the tokens of the run it ends), at the shutdown's time, keyed by the
//! event's id and the model, so a file read again or a session found in both layouts counts
//! once. A run that ended without a shutdown (killed, or `/new`) left no counts in the file.

use super::{metric_tokens, model_name, session_of_path};
use crate::transcripts::conversation::time;
use crate::transcripts::{Interner, Provider, ReadStats, UsageEntry, contains, fingerprint};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// Where a [`CopilotUsage`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct CopilotUsageState {
    /// The session id.
    pub session: String,
    /// The working folder, when a start named one.
    pub project: Option<String>,
    /// Lines read so far (a shutdown without an id is keyed by its line).
    pub lines: u64,
}

/// Reads the usage rows of a Copilot CLI file.
#[derive(Debug)]
pub struct CopilotUsage {
    strings: Interner,
    session: Arc<str>,
    project: Option<Arc<str>>,
    lines: u64,
    rows: Vec<(UsageEntry, u128)>,
    /// What was read.
    pub stats: ReadStats,
}

impl CopilotUsage {
    /// The reader of the file at `path`, going on from `state`.
    pub fn new(path: &str, state: Option<CopilotUsageState>) -> CopilotUsage {
        let state = state.unwrap_or_else(|| CopilotUsageState {
            session: session_of_path(path).unwrap_or_default(),
            ..CopilotUsageState::default()
        });
        let mut strings = Interner::default();
        CopilotUsage {
            session: strings.get(&state.session),
            project: state.project.as_deref().map(|p| strings.get(p)),
            strings,
            lines: state.lines,
            rows: Vec::new(),
            stats: ReadStats::default(),
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> CopilotUsageState {
        CopilotUsageState {
            session: self.session.to_string(),
            project: self.project.as_deref().map(str::to_owned),
            lines: self.lines,
        }
    }

    /// Takes a file found with the transcript: `workspace.yaml` says where the session worked
    /// (its own start says so too, and is taken when it does).
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        if let Some(cwd) = super::workspace_of(name, bytes).and_then(|w| w.cwd) {
            self.project = Some(self.strings.get(&cwd));
        }
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        self.lines += 1;
        let starts = contains(line, b"\"session.start\"") || contains(line, b"\"session.resume\"");
        if !starts && !contains(line, b"\"session.shutdown\"") {
            self.stats.without_usage += 1;
            return;
        }
        let Some(event) = crate::transcripts::parse_line::<Value>(line, &mut self.stats) else {
            self.stats.malformed += 1;
            return;
        };
        let data = &event["data"];
        match event["type"].as_str() {
            Some("session.start" | "session.resume") => {
                if let Some(id) = data["sessionId"].as_str().filter(|id| !id.is_empty()) {
                    self.session = self.strings.get(id);
                }
                if self.project.is_none()
                    && let Some(cwd) = data["context"]["cwd"].as_str()
                {
                    self.project = Some(self.strings.get(cwd));
                }
                self.stats.without_usage += 1;
            }
            Some("session.shutdown") => self.shutdown(&event),
            _ => self.stats.without_usage += 1,
        }
    }

    fn shutdown(&mut self, event: &Value) {
        let Some(metrics) = event["data"]["modelMetrics"].as_object() else {
            self.stats.without_usage += 1;
            return;
        };
        let Some(at) = time(&event["timestamp"]) else {
            self.stats.malformed += 1;
            return;
        };
        let line = self.lines.to_string();
        let id = event["id"].as_str().unwrap_or(&line);
        for (model, metric) in metrics {
            let Some(tokens) = metric_tokens(metric) else {
                continue;
            };
            let key = fingerprint(&[
                b"copilot_cli",
                self.session.as_bytes(),
                id.as_bytes(),
                model.as_bytes(),
            ]);
            let entry = UsageEntry {
                provider: Provider::CopilotCli,
                at,
                session: self.session.clone(),
                project: self.project.clone(),
                model: Some(self.strings.get(model_name(model))),
                tokens,
                cache_creation_1h_tokens: 0,
                request_context_tokens: None,
                recorded_cost_micro_usd: None,
                fast: false,
                web_searches: 0,
                delegated: false,
            };
            self.rows.push((entry, key));
        }
    }

    /// The rows read since the last call, each with its key.
    pub fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.rows)
    }
}

impl crate::transcripts::lines::LineReader for CopilotUsage {
    fn push_line(&mut self, line: &[u8]) {
        CopilotUsage::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = r#"{"type":"session.start","data":{"sessionId":"s1","context":{"cwd":"/w/app"}},"id":"e1","timestamp":"2026-08-20T09:00:00.000Z","parentId":null}"#;
    const SHUTDOWN: &str = r#"{"type":"session.shutdown","data":{"modelMetrics":{"claude-sonnet-4.6":{"usage":{"inputTokens":100,"outputTokens":10,"cacheReadTokens":60,"cacheWriteTokens":20}},"gpt-5.4":{"usage":{"inputTokens":0,"outputTokens":0}}},"totalNanoAiu":2000000000},"id":"e9","timestamp":"2026-08-20T10:00:00.000Z","parentId":"e1"}"#;

    #[test]
    fn each_shutdown_gives_a_row_per_model_that_counted_something() {
        let mut usage = CopilotUsage::new("/s/events.jsonl", None);
        usage.push_line(START.as_bytes());
        usage.push_line(br#"{"type":"user.message","data":{"content":"hi"}}"#);
        usage.push_line(SHUTDOWN.as_bytes());
        let rows = usage.take_rows();
        assert_eq!(rows.len(), 1);
        let (entry, key) = &rows[0];
        assert_eq!(&*entry.session, "s1");
        assert_eq!(entry.project.as_deref(), Some("/w/app"));
        assert_eq!(entry.model.as_deref(), Some("claude-sonnet-4.6"));
        assert_eq!(entry.tokens.input_tokens, 20);
        // The same shutdown read again (a second pass, the flat layout) has the same key.
        let mut again = CopilotUsage::new("/s/events.jsonl", Some(usage.state()));
        again.push_line(SHUTDOWN.as_bytes());
        assert_eq!(again.take_rows()[0].1, *key);
    }
}
