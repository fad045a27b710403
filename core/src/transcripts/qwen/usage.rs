//! The usage of Qwen Code sessions. Each response's counts are written twice in its
//! transcript: a telemetry record (`ui_telemetry`, `qwen-code.api_response`: every call,
//! compression and sub-agents' included) and then the response's own `usageMetadata`; a
//! sub-agent's rounds are written again in its own file. Every record gives a row keyed by
//! its session and counts, so each response counts once; records a `/branch` copied from
//! another session (`forkedFrom`) were billed there and give none. The monthly files under
//! `~/.qwen/usage/` repeat the telemetry and are not read.

use super::Counts;
use super::conversation::metadata_counts;
use crate::transcripts::conversation::time;
use crate::transcripts::{Interner, Provider, ReadStats, UsageEntry, contains};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where a [`QwenUsage`] stopped: nothing to carry (every record names its session).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct QwenUsageState {}

/// Reads the usage rows of Qwen Code files.
#[derive(Debug, Default)]
pub struct QwenUsage {
    strings: Interner,
    rows: Vec<(UsageEntry, u128)>,
    /// What was read.
    pub stats: ReadStats,
}

/// A model name as the CLI may write it with its login before it (`$runtime|openai|qwen3`).
fn model_name(model: &str) -> &str {
    match model.strip_prefix("$runtime|") {
        Some(rest) => rest.split_once('|').map_or(rest, |(_, name)| name),
        None => model,
    }
}

impl QwenUsage {
    /// A reader with nothing read.
    pub fn new() -> QwenUsage {
        QwenUsage::default()
    }

    /// The rows read since the last call, each with its key.
    pub fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.rows)
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        if !contains(line, b"\"usageMetadata\"") && !contains(line, b"api_response") {
            self.stats.without_usage += 1;
            return;
        }
        let Some(record) = crate::transcripts::parse_line::<Value>(line, &mut self.stats) else {
            self.stats.malformed += 1;
            return;
        };
        if !record["forkedFrom"].is_null() {
            self.stats.duplicates += 1;
            return;
        }
        let event = &record["systemPayload"]["uiEvent"];
        let (counts, model, at) = if record["type"] == "assistant" {
            (
                metadata_counts(&record["usageMetadata"]),
                &record["model"],
                &record["timestamp"],
            )
        } else if record["subtype"] == "ui_telemetry"
            && event["event.name"] == "qwen-code.api_response"
        {
            let count = |key: &str| event[key].as_u64().unwrap_or(0);
            let counts = Counts {
                prompt: count("input_token_count"),
                candidates: count("output_token_count"),
                cached: count("cached_content_token_count"),
                thoughts: count("thoughts_token_count"),
                total: count("total_token_count"),
            };
            let at = match &event["event.timestamp"] {
                Value::Null => &record["timestamp"],
                at => at,
            };
            (counts, &event["model"], at)
        } else {
            self.stats.without_usage += 1;
            return;
        };
        if counts.is_empty() {
            self.stats.without_usage += 1;
            return;
        }
        let (Some(session), Some(at)) = (record["sessionId"].as_str(), time(at)) else {
            self.stats.malformed += 1;
            return;
        };
        let key = counts.key(session);
        let entry = UsageEntry {
            provider: Provider::Qwen,
            at,
            session: self.strings.get(session),
            project: record["cwd"].as_str().map(|p| self.strings.get(p)),
            model: model.as_str().map(|m| self.strings.get(model_name(m))),
            tokens: counts.totals(),
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

impl crate::transcripts::lines::LineReader for QwenUsage {
    fn push_line(&mut self, line: &[u8]) {
        QwenUsage::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_login_before_the_model_is_taken_off() {
        assert_eq!(
            model_name("$runtime|openai|qwen3-coder-plus"),
            "qwen3-coder-plus"
        );
        assert_eq!(model_name("coder-model"), "coder-model");
        assert_eq!(model_name("$runtime|broken"), "broken");
    }
}
