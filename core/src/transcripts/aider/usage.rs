//! The usage of Aider histories: one row per reply's `Tokens:` note, at its run's start (the
//! file keeps no other time), under the model the run announced, with the cost Aider wrote
//! as recorded. The counts are Aider's rounded ones.

use super::{Line, Report, announced_model, classify, project_of, report, report_tokens, run_id};
use crate::transcripts::{Interner, Provider, ReadStats, Timestamp, UsageEntry, fingerprint};
use serde::{Deserialize, Serialize};

/// Where an [`AiderUsage`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct AiderUsageState {
    /// The run being read.
    pub run: Option<String>,
    /// Its start, in milliseconds.
    pub start: Option<i64>,
    /// The model it announced.
    pub model: Option<String>,
    /// Reports read in the run so far.
    pub reports: u64,
    /// The last line was a report whose `Cost:` may follow on the next line.
    pub open: bool,
}

/// Reads the usage rows of an Aider history.
#[derive(Debug)]
pub struct AiderUsage {
    project: Option<String>,
    state: AiderUsageState,
    strings: Interner,
    rows: Vec<(UsageEntry, u128)>,
    /// What was read.
    pub stats: ReadStats,
}

impl AiderUsage {
    /// The reader of the history at `path`, going on from `state`.
    pub fn new(path: &str, state: Option<AiderUsageState>) -> AiderUsage {
        AiderUsage {
            project: project_of(path),
            state: state.unwrap_or_default(),
            strings: Interner::default(),
            rows: Vec::new(),
            stats: ReadStats::default(),
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> AiderUsageState {
        self.state.clone()
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        let line = String::from_utf8_lossy(line);
        let open = std::mem::take(&mut self.state.open);
        match classify(&line) {
            Line::Run(start) => {
                self.state = AiderUsageState {
                    run: Some(run_id(Some(start), self.project.as_deref())),
                    start: Some(start.millis()),
                    ..AiderUsageState::default()
                };
            }
            Line::Note(note) => {
                if let Some(model) = announced_model(note) {
                    self.state.model = Some(model.to_owned());
                } else if let Some(report) = report(note) {
                    self.state.open = report.cost_micro_usd.is_none();
                    self.row(report);
                    return;
                }
                self.stats.without_usage += 1;
            }
            Line::Other(text) if open && text.starts_with("Cost: $") => {
                // The cost of the report before, on its own line: that row's recorded cost.
                if let Some(cost) = super::message_cost(text)
                    && let Some((row, _)) = self.rows.last_mut()
                {
                    row.recorded_cost_micro_usd = Some(cost);
                }
            }
            _ => self.stats.without_usage += 1,
        }
    }

    fn row(&mut self, report: Report) {
        if self.state.run.is_none() {
            self.state.run = Some(run_id(None, self.project.as_deref()));
        }
        let run = self.state.run.clone().unwrap_or_default();
        let n = self.state.reports;
        self.state.reports += 1;
        let Some(at) = self.state.start.map(Timestamp::from_millis) else {
            self.stats.malformed += 1;
            return;
        };
        let entry = UsageEntry {
            provider: Provider::Aider,
            at,
            session: self.strings.get(&run),
            project: self.project.as_deref().map(|p| self.strings.get(p)),
            model: self.state.model.as_deref().map(|m| self.strings.get(m)),
            tokens: report_tokens(report),
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: report.cost_micro_usd,
            fast: false,
            web_searches: 0,
            delegated: false,
        };
        let key = fingerprint(&[b"aider", run.as_bytes(), &n.to_le_bytes()]);
        self.rows.push((entry, key));
    }

    /// The rows read since the last call, each with its key.
    pub fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.rows)
    }
}

impl crate::transcripts::lines::LineReader for AiderUsage {
    fn push_line(&mut self, line: &[u8]) {
        AiderUsage::push_line(self, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_report_under_the_announced_model() {
        let mut usage = AiderUsage::new("/w/app/.aider.chat.history.md", None);
        for line in [
            "# aider chat started at 2026-08-20 09:00:00",
            "> Model: gpt-5 with diff edit format  ",
            "#### hi  ",
            "hello",
            "> Tokens: 16k sent, 900 cache write, 11k cache hit, 98 received.",
            "Cost: $0.0087 message, $0.02 session.  ",
            "> Tokens: 5.2k sent, 88 received.  ",
        ] {
            usage.push_line(line.as_bytes());
        }
        let rows = usage.take_rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].0.model.as_deref(), Some("gpt-5"));
        assert_eq!(rows[0].0.tokens.input_tokens, 16_000 - 900 - 11_000);
        assert_eq!(rows[0].0.recorded_cost_micro_usd, Some(8700));
        assert_eq!(rows[1].0.recorded_cost_micro_usd, None);
        assert_ne!(rows[0].1, rows[1].1);
    }
}
