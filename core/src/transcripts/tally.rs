//! Usage read from many files into one count, each response counted as its provider means it:
//! Claude Code's once across every file (a resumed or forked session logs a response again),
//! each Codex rollout's cumulative totals as deltas of its own, the keyed rows of the agents
//! read through the shared readers (Gemini CLI, Qwen Code) once per key across every file. A host hands every file (or
//! every row its index kept) to a tally, merges the tallies of its threads, and never asks
//! which provider counts how.

use crate::error::Result;
use crate::transcripts::ingest::{Decoded, FileIngest};
use crate::transcripts::usage::claude_code::{ClaudeCodeUsage, Response, project_folder_of};
use crate::transcripts::usage::keyed::KeyedRows;
use crate::transcripts::usage::skipped_counts;
use crate::transcripts::{Provider, ReadStats, UsageEntry};
use std::collections::BTreeMap;

/// Usage counted so far.
#[derive(Debug, Default)]
pub struct UsageTally {
    /// Claude Code's responses, each once however many files logged it.
    claude: Box<ClaudeCodeUsage>,
    /// The entries of the providers whose files count alone (Codex).
    entries: Vec<UsageEntry>,
    /// The rows keyed by their response, one per key.
    keyed: KeyedRows,
    /// What each of those files held.
    file_stats: Vec<ReadStats>,
    /// Files that could not be read.
    unreadable: u64,
}

impl UsageTally {
    /// A tally with nothing counted.
    pub fn new() -> UsageTally {
        UsageTally::default()
    }

    /// The ingest that reads `name`, one of `provider`'s transcripts, for its usage into this
    /// tally: hand it back to [`UsageTally::absorb`] after its last chunk, or after a read
    /// error.
    pub fn ingest(&mut self, provider: Provider, name: &str) -> FileIngest {
        match provider {
            Provider::ClaudeCode => {
                let mut reader = std::mem::take(&mut self.claude);
                reader.set_project_folder(project_folder_of(name));
                FileIngest::claude_usage_continuing(name, reader)
            }
            _ => FileIngest::usage_only(name, provider),
        }
    }

    /// Counts what `ingest` read, and answers how many lines with usage that added. After a
    /// read error (`read`), Claude Code's lines read before it stay counted and a rollout's
    /// do not (its totals are cumulative: a part of one is no delta); the error is answered.
    pub fn absorb(&mut self, ingest: FileIngest, read: Result<()>) -> (u64, Result<()>) {
        let before = self.claude_lines();
        if let Err(err) = read {
            if let Some(reader) = ingest.into_claude_usage() {
                self.claude = reader;
            }
            return (self.claude_lines().saturating_sub(before), Err(err));
        }
        let part = match ingest.finish() {
            Ok(finished) => finished.parts.into_iter().next(),
            Err(err) => return (0, Err(err)),
        };
        match part {
            Some(part) => (self.absorb_decoded(part), Ok(())),
            None => (0, Ok(())),
        }
    }

    /// Counts what one part read held (a file's, or a tree of files read whole:
    /// [`crate::transcripts::ingest::store_decoded`]); answers how many lines with usage that
    /// added.
    pub fn absorb_decoded(&mut self, part: Decoded) -> u64 {
        let before = self.claude_lines();
        match part {
            Decoded::Conversations {
                claude_usage: Some(reader),
                ..
            } => {
                self.claude = reader;
                self.claude_lines().saturating_sub(before)
            }
            Decoded::Conversations {
                usage,
                keyed_usage,
                usage_stats,
                ..
            } => {
                let mut added = usage.len() as u64;
                self.entries.extend(usage);
                if let Some(rows) = keyed_usage {
                    added += rows.len() as u64;
                    self.keyed.merge(*rows);
                }
                self.file_stats.push(usage_stats);
                added
            }
            Decoded::Ledger(_) => 0,
        }
    }

    /// Lines with usage Claude Code's reader has read.
    fn claude_lines(&self) -> u64 {
        let stats = &self.claude.stats;
        stats.lines.saturating_sub(stats.without_usage)
    }

    /// Counts a file that could not be read.
    pub fn count_unreadable(&mut self) {
        self.unreadable += 1;
    }

    /// Counts a response an index kept, as its provider counts it.
    pub fn replay(&mut self, provider: Provider, response: Response) {
        match (provider, response.key) {
            (Provider::ClaudeCode, _) => self.claude.replay(response),
            (_, Some(key)) => self.keyed.add(response.entry, key),
            (_, None) => self.entries.push(response.entry),
        }
    }

    /// Adds what a file held besides its responses (lines, malformed ones, duplicates), as
    /// an index kept it.
    pub fn add_stats(&mut self, provider: Provider, stats: ReadStats) {
        match provider {
            Provider::ClaudeCode => self.claude.add_stats(&stats),
            _ => self.file_stats.push(stats),
        }
    }

    /// Joins another tally (another thread's) into this one.
    pub fn merge(&mut self, other: UsageTally) {
        self.claude.merge(*other.claude);
        self.entries.extend(other.entries);
        self.keyed.merge(other.keyed);
        self.file_stats.extend(other.file_stats);
        self.unreadable += other.unreadable;
    }

    /// Every response counted, and the report's `skipped` section.
    pub fn finish(self) -> (Vec<UsageEntry>, BTreeMap<String, u64>) {
        let (claude, claude_stats) = self.claude.finish();
        let mut file_stats = self.file_stats;
        // Rows a later read of the same response replaced, across files.
        file_stats.push(ReadStats {
            duplicates: self.keyed.replaced,
            ..ReadStats::default()
        });
        let skipped = skipped_counts(&claude_stats, &file_stats, self.unreadable);
        let mut entries = self.entries;
        crate::transcripts::usage::move_onto(claude, &mut entries, Some);
        crate::transcripts::usage::move_onto(self.keyed.into_entries(), &mut entries, Some);
        (entries, skipped)
    }
}
