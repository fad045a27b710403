//! What a person or an agent writes to narrow transcripts and usage, and the one rule that
//! reads it: a window of days (`YYYY-MM-DD` or `YYYYMMDD` in a zone, the last day whole) and
//! the transcript filters (a provider by either spelling of its name, a project, days). The
//! CLI and the MCP server read their arguments through here.

use crate::error::{Error, Result};
use crate::time::{Timestamp, Zone, parse_day_in};
use crate::transcripts::Provider;
use crate::transcripts::providers::REGISTRY;
use serde::{Deserialize, Serialize};

/// A window of days as written: the first and the last day counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DayWindow {
    /// The first day counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The last day counted (all of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

impl DayWindow {
    /// The first and last instants counted, days read in `zone`.
    pub fn resolve(&self, zone: &dyn Zone) -> Result<(Option<Timestamp>, Option<Timestamp>)> {
        let day = |field: &str, text: Option<&str>, end: bool| {
            text.map(|d| parse_day_in(field, d, end, zone)).transpose()
        };
        Ok((
            day("since", self.since.as_deref(), false)?,
            day("until", self.until.as_deref(), true)?,
        ))
    }
}

/// A transcript query's filters as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptFilter {
    /// A provider, by its key or its kebab-case name (`claude_code`, `claude-code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Conversations whose project contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The days.
    #[serde(flatten)]
    pub days: DayWindow,
}

/// A transcript query's filters, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The provider asked for.
    pub provider: Option<Provider>,
    /// Conversations whose project contains this.
    pub project: Option<String>,
    /// Updated at or after.
    pub since: Option<Timestamp>,
    /// Updated at or before.
    pub until: Option<Timestamp>,
}

impl TranscriptFilter {
    /// The filters read, days in `zone`; a provider no entry of the registry has is refused,
    /// with the names there are.
    pub fn resolve(&self, zone: &dyn Zone) -> Result<Filter> {
        let provider = self
            .provider
            .as_deref()
            .map(|name| {
                Provider::named(name).ok_or_else(|| {
                    let keys: Vec<&str> = REGISTRY.iter().map(|e| e.key).collect();
                    Error::invalid(
                        "provider",
                        format!("`{name}` is none of {}", keys.join(", ")),
                    )
                    .with("provider", name)
                })
            })
            .transpose()?;
        let (since, until) = self.days.resolve(zone)?;
        Ok(Filter {
            provider,
            project: self.project.clone(),
            since,
            until,
        })
    }
}

/// Names as a sentence lists them: `a, b and c`.
/// Names as a sentence lists them: `a`, `a and b`, `a, b and c`.
pub fn spoken_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The provider a usage request names: only one whose files keep token usage.
pub fn usage_provider(name: &str) -> Result<Provider> {
    Provider::named(name)
        .filter(|p| p.has_usage())
        .ok_or_else(|| {
            let keys: Vec<&str> = REGISTRY
                .iter()
                .filter(|e| e.gives.tokens)
                .map(|e| e.key)
                .collect();
            let why = match Provider::named(name) {
                Some(p) if p.entry().kind != crate::transcripts::providers::Kind::Export => {
                    format!("{} keeps no token counts on disk; ", p.entry().title)
                }
                _ => String::new(),
            };
            Error::invalid(
                "provider",
                format!("`{name}`: {why}usage is kept for {}", spoken_list(&keys)),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::UtcZone;

    #[test]
    fn days_are_read_whole_and_providers_by_either_spelling() {
        let filter = TranscriptFilter {
            provider: Some("claude-code".into()),
            project: None,
            days: DayWindow {
                since: Some("2026-06-01".into()),
                until: Some("20260601".into()),
            },
        };
        let read = filter.resolve(&UtcZone).unwrap();
        assert_eq!(read.provider, Some(Provider::ClaudeCode));
        let (since, until) = (read.since.unwrap(), read.until.unwrap());
        assert_eq!(until.millis() - since.millis(), 86_400_000 - 1);
        let bad = TranscriptFilter {
            provider: Some("windsurf".into()),
            ..TranscriptFilter::default()
        };
        let err = bad.resolve(&UtcZone).unwrap_err();
        assert!(err.message.contains(
            "claude_code, codex, gemini, qwen, opencode, kilo, copilot_cli, copilot_chat, amp, aider, cline, roo_code, kilo_code, cursor, cursor_transcripts, cursor_cli, chatgpt, claude_ai"
        ));
        assert_eq!(usage_provider("Codex").unwrap(), Provider::Codex);
        let err = usage_provider("chatgpt").unwrap_err();
        assert!(err.message.ends_with(
            "usage is kept for claude_code, codex, gemini, qwen, opencode, kilo, copilot_cli, copilot_chat, amp, aider, cline, roo_code and kilo_code"
        ));
    }
}
