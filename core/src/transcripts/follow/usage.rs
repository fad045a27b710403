//! The usage of lines appended to one agent transcript, read on from where the last read
//! stopped, as rows a host keeps (those of each line that records usage, before the
//! deduplication a report does over every row): each agent's reader, chosen by its provider,
//! its state and what its lines held carried between reads as text.

use crate::transcripts::usage::claude_code::{ClaudeCodeUsage, Response, project_folder_of};
use crate::transcripts::usage::codex::{CodexUsage, CodexUsageState};
use crate::transcripts::{Provider, ReadStats, UsageEntry};

/// One usage row: the entry, and the response the cross-file rule compares (Claude Code's, and
/// the keyed rows of the agents read through [`crate::transcripts::readers`]).
pub type Row = (UsageEntry, Option<Response>);

/// The usage reader of one transcript, continued across reads.
#[derive(Debug)]
pub enum AppendedUsage {
    /// Claude Code's: a read's responses are held and settled together (see
    /// [`AppendedUsage::take_held`]).
    ClaudeCode {
        /// The reader.
        reader: ClaudeCodeUsage,
        /// What earlier reads' lines held.
        base: ReadStats,
        /// This read's responses by line offset.
        held: Vec<(i64, Response)>,
    },
    /// Codex's: cumulative totals as deltas, its state carried between reads.
    Codex {
        /// The reader.
        reader: CodexUsage,
        /// What earlier reads' lines held.
        base: ReadStats,
    },
    /// An agent read through the shared readers: rows keyed by their response.
    Keyed {
        /// The reader.
        reader: Box<dyn crate::transcripts::readers::Usage>,
        /// How to make another (for a line read without taking it).
        readers: crate::transcripts::readers::Readers,
        /// The transcript's path.
        path: String,
        /// The files found with it, given to each reader made.
        companions: Vec<(String, Vec<u8>)>,
        /// What earlier reads' lines held.
        base: ReadStats,
    },
}

/// A keyed row as the rows of the cross-file rule are: the key names the response.
fn keyed_row((entry, key): (UsageEntry, u128)) -> Row {
    let response = Response::keyed(&entry, key);
    (entry, Some(response))
}

impl AppendedUsage {
    /// The reader of `provider`'s transcript `name`, continued from what an earlier read left
    /// (`stats` and `state` as [`AppendedUsage::finish`] gave them; `None` from the start),
    /// given the files found with it (the registry's companions: Gemini CLI's `projects.json`).
    pub fn continuing(
        provider: Provider,
        name: &str,
        stats: Option<&str>,
        state: Option<&str>,
        companions: Vec<(String, Vec<u8>)>,
    ) -> AppendedUsage {
        let base: ReadStats = stats
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        if let Some(readers) = crate::transcripts::readers::readers(provider) {
            let mut reader = (readers.usage)(name, state);
            for (name, bytes) in &companions {
                reader.companion(name, bytes);
            }
            return AppendedUsage::Keyed {
                reader,
                readers,
                path: name.to_owned(),
                companions,
                base,
            };
        }
        match provider {
            Provider::Codex => {
                let state: Option<CodexUsageState> =
                    state.and_then(|s| serde_json::from_str(s).ok());
                let reader = match state {
                    Some(state) => CodexUsage::continuing(state),
                    None => CodexUsage::new(crate::transcripts::session_name(name)),
                };
                AppendedUsage::Codex { reader, base }
            }
            _ => {
                let mut reader = ClaudeCodeUsage::collecting();
                reader.set_project_folder(project_folder_of(name));
                AppendedUsage::ClaudeCode {
                    reader,
                    base,
                    held: Vec::new(),
                }
            }
        }
    }

    /// Reads the line at `offset`; answers the rows to keep now (a Claude Code response is
    /// held until the read's others are in: see [`AppendedUsage::take_held`]).
    pub fn push_line(&mut self, offset: i64, line: &[u8]) -> Vec<Row> {
        match self {
            AppendedUsage::ClaudeCode { reader, held, .. } => {
                reader.push_line(line);
                held.extend(reader.take_collected().into_iter().map(|r| (offset, r)));
                Vec::new()
            }
            AppendedUsage::Codex { reader, .. } => {
                reader.push_line(line);
                reader
                    .take_entries()
                    .into_iter()
                    .map(|e| (e, None))
                    .collect()
            }
            AppendedUsage::Keyed { reader, .. } => {
                reader.push_line(line);
                reader.take_rows().into_iter().map(keyed_row).collect()
            }
        }
    }

    /// This read's held responses that can count, each with its line's offset, less those the
    /// core's rule already drops among them (the copies of a response Claude Code writes once
    /// per content block, with the final count on the last): a response one of its own file's
    /// later lines beats never counts, whatever other files hold. Each left out counts as a
    /// duplicate, as a read of the file counts it.
    pub fn take_held(&mut self) -> Vec<(i64, Row)> {
        let AppendedUsage::ClaudeCode { reader, held, .. } = self else {
            return Vec::new();
        };
        let held = std::mem::take(held);
        let kept =
            ClaudeCodeUsage::counted_positions(held.iter().map(|(_, r)| r.clone()).collect());
        reader.stats.duplicates += (held.len() - kept.len()) as u64;
        let mut kept = kept.into_iter().peekable();
        let mut rows = Vec::new();
        for (at, (offset, response)) in held.into_iter().enumerate() {
            if kept.peek() == Some(&at) {
                kept.next();
                rows.push((offset, (response.entry.clone(), Some(response))));
            }
        }
        rows
    }

    /// What an unfinished last line gives, read as a read of the whole file would read it (as
    /// its last line) without taking it: its rows, and what it held.
    pub fn provisional(&self, line: &[u8]) -> (Vec<Row>, ReadStats) {
        match self {
            AppendedUsage::ClaudeCode { reader, .. } => {
                let mut reader = reader.clone();
                reader.stats = ReadStats::default();
                reader.push_line(line);
                let rows = reader
                    .take_collected()
                    .into_iter()
                    .map(|r| (r.entry.clone(), Some(r)))
                    .collect();
                (rows, reader.stats)
            }
            AppendedUsage::Codex { reader, .. } => {
                let mut reader = CodexUsage::continuing(reader.state());
                reader.push_line(line);
                let rows = reader
                    .take_entries()
                    .into_iter()
                    .map(|e| (e, None))
                    .collect();
                (rows, reader.stats)
            }
            AppendedUsage::Keyed {
                reader,
                readers,
                path,
                companions,
                ..
            } => {
                let mut reader = (readers.usage)(path, reader.state().as_deref());
                for (name, bytes) in companions.iter() {
                    reader.companion(name, bytes);
                }
                reader.push_line(line);
                reader.end();
                let rows = reader.take_rows().into_iter().map(keyed_row).collect();
                (rows, reader.stats())
            }
        }
    }

    /// What the transcript's lines held so far, and the state to read on from (JSON; none for
    /// a reader whose lines stand alone).
    pub fn finish(self) -> (ReadStats, Option<String>) {
        let (mut base, stats, state) = match self {
            AppendedUsage::ClaudeCode { reader, base, .. } => (base, reader.stats, None),
            AppendedUsage::Codex { reader, base } => {
                let state = serde_json::to_string(&reader.state()).ok();
                (base, reader.stats, state)
            }
            AppendedUsage::Keyed { reader, base, .. } => (base, reader.stats(), reader.state()),
        };
        base.add(&stats);
        (base, state)
    }
}
