//! The usage of Gemini CLI sessions: each response's `tokens` are its own (not a running
//! total), written again with every later copy of the message. Every copy gives a row keyed
//! by the message id, and of a key's rows the last counts (a count written late replaces the
//! copy without it; the same session copied to a second folder by the CLI's migration counts
//! once). A response a rewind or a rewritten message list took away still counts: it was
//! billed.

use super::{Record, document_value, gemini_tokens, kept_in_document, listed_messages, path_clues};
use crate::transcripts::conversation::time;
use crate::transcripts::{Interner, Provider, ReadStats, UsageEntry, contains, fingerprint};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::sync::Arc;

/// Where a [`GeminiUsage`] stopped in a file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct GeminiUsageState {
    /// The session the rows belong to.
    pub session: String,
    /// Its project, when a line named one.
    pub project: Option<String>,
    /// The lines of an old-format document read so far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// Lines read so far.
    pub lines: u64,
}

/// Reads the usage rows of one Gemini CLI file.
#[derive(Debug, Default)]
pub struct GeminiUsage {
    session: Arc<str>,
    project: Option<Arc<str>>,
    /// A sub-agent's file counts in its main session (its folder names it).
    parent: Option<Arc<str>>,
    /// What the file's path says.
    clues: super::Clues,
    folder_project: Option<Arc<str>>,
    strings: Interner,
    rows: Vec<(UsageEntry, u128)>,
    document: Option<Vec<u8>>,
    lines: u64,
    /// What was read.
    pub stats: ReadStats,
}

impl GeminiUsage {
    /// A reader for the file at `path`, continued from `state`.
    pub fn new(path: &str, state: Option<GeminiUsageState>) -> GeminiUsage {
        let clues = path_clues(path);
        let (project, parent) = (clues.project(), clues.parent.clone());
        let state = state.unwrap_or_default();
        let mut strings = Interner::default();
        let parent = parent.map(|p| strings.get(&p));
        let session = parent
            .clone()
            .unwrap_or_else(|| strings.get(&state.session));
        GeminiUsage {
            session,
            project: state.project.map(|p| strings.get(&p)),
            parent,
            clues,
            folder_project: project.map(|p| strings.get(&p)),
            strings,
            rows: Vec::new(),
            document: state.document.map(String::into_bytes),
            lines: state.lines,
            stats: ReadStats::default(),
        }
    }

    /// Takes a file found with the transcript: `projects.json` says which folder the
    /// project's folder under `tmp/` stands for.
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        if let Some(folder) = self.clues.registered(name, bytes) {
            self.folder_project = Some(self.strings.get(&folder));
        }
    }

    /// Where this reader is.
    pub fn state(&self) -> GeminiUsageState {
        GeminiUsageState {
            session: self.session.to_string(),
            project: self.project.as_deref().map(str::to_owned),
            document: self
                .document
                .as_ref()
                .map(|d| String::from_utf8_lossy(d).into_owned()),
            lines: self.lines,
        }
    }

    /// The rows read since the last call, each with its key.
    pub fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.rows)
    }

    /// Feeds one line (without its newline).
    pub fn push_line(&mut self, line: &[u8]) {
        self.stats.lines += 1;
        self.lines += 1;
        if kept_in_document(&mut self.document, self.lines, line) {
            return;
        }
        let names_session = contains(line, b"\"sessionId\"") || contains(line, b"\"directories\"");
        if !names_session && !contains(line, b"\"tokens\"") {
            self.stats.without_usage += 1;
            return;
        }
        match crate::transcripts::parse_line::<Value>(line, &mut self.stats) {
            Some(value) => self.take(&value),
            None => self.stats.malformed += 1,
        }
    }

    fn take(&mut self, value: &Value) {
        match Record::of(value) {
            Record::Message(message) => self.message(message),
            Record::Set(metadata) | Record::Metadata(metadata) => {
                if let Some(id) = metadata["sessionId"].as_str().filter(|id| !id.is_empty())
                    && self.parent.is_none()
                {
                    self.session = self.strings.get(id);
                }
                if let Some(folder) = metadata["directories"][0].as_str()
                    && self.project.is_none()
                {
                    self.project = Some(self.strings.get(folder));
                }
                for message in listed_messages(metadata) {
                    self.message(message);
                }
            }
            Record::Rewind | Record::Other => self.stats.without_usage += 1,
        }
    }

    fn message(&mut self, message: &Value) {
        if message["type"] != "gemini" {
            return;
        }
        let Some(tokens) = gemini_tokens(&message["tokens"]) else {
            // A turn the CLI made up itself (a summary, an acknowledgement) has no counts.
            if message["tokens"].is_null() {
                self.stats.synthetic += 1;
            }
            return;
        };
        let Some(at) = time(&message["timestamp"]) else {
            self.stats.malformed += 1;
            return;
        };
        let id = message["id"].as_str().unwrap_or_default();
        let model = message["model"].as_str().map(|m| self.strings.get(m));
        let entry = UsageEntry {
            provider: Provider::Gemini,
            at,
            session: self.session.clone(),
            // The folder's name first, as the session's other files and its conversation say
            // it; a sub-agent's `directories` only where the folder is a hash.
            project: self.folder_project.clone().or_else(|| self.project.clone()),
            model,
            tokens,
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: None,
            fast: false,
            web_searches: 0,
            delegated: false,
        };
        self.rows
            .push((entry, fingerprint(&[b"gemini", id.as_bytes()])));
    }

    /// Reads what the file left unfinished (an old-format document, whole).
    pub fn finish(&mut self) {
        let Some(document) = self.document.take() else {
            return;
        };
        match document_value(document) {
            Some(value) => self.take(&value),
            None => self.stats.malformed += 1,
        }
    }
}

impl crate::transcripts::lines::LineReader for GeminiUsage {
    fn push_line(&mut self, line: &[u8]) {
        GeminiUsage::push_line(self, line);
    }
}
