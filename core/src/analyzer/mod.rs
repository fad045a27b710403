//! The analyzer behind the web page and `baton analyze`: files fed in chunks through the one
//! [ingest](crate::transcripts::ingest), then the overview, charts, a searchable conversation
//! list, a reader that walks any branch, and Markdown/JSON exports. A file counts only once it
//! finishes whole; a failed or cancelled file leaves no trace.
//!
//! The protocol: [`Analyzer::begin`] a file → [`Analyzer::push`] its chunks →
//! [`Analyzer::pump`] until `done` → [`Analyzer::finish`]; then ask for views.

use crate::analyzer::list::row_of;
use crate::error::Error;
use crate::ledger::store::MemoryLedger;
use crate::transcripts::conversation::{Conversation, ReadOptions};
use crate::transcripts::ingest::{Decoded, FileIngest};
use crate::transcripts::usage::PriceTable;
use crate::transcripts::usage::claude_code::ClaudeCodeUsage;
use crate::transcripts::{ReadStats, UsageEntry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
pub mod charts;
mod companions;
pub mod export;
mod list;
mod reader;
mod report;
pub mod safe_html;
pub mod text;
mod trees;
pub mod work;
pub mod wrappers;

use crate::error::Result;
pub use crate::transcripts::ingest::{FileFormat, Progress};
pub use crate::transcripts::zip::is_conversations_entry;
pub use export::markdown;
pub use list::{ConversationHead, ConversationList, ConversationRow, ListQuery, ListSort};
pub use reader::{ConversationView, ViewMessage};
pub use report::{AnalysisOverview, Charts, Report};

/// What one finished file added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileSummary {
    /// The name the host gave.
    pub name: String,
    /// Its format (of the entries, for an archive).
    pub format: FileFormat,
    /// "zip" when it was an archive.
    pub archive: Option<String>,
    /// Entries read from the archive.
    pub entries: Vec<String>,
    /// Bytes fed.
    pub bytes: u64,
    /// Conversations it added.
    pub conversations: u64,
    /// Messages it added.
    pub messages: u64,
    /// Ledger lines it held (ledgers only).
    pub ledger_lines: u64,
    /// Lines read, malformed, repaired.
    pub stats: ReadStats,
    /// Record kinds skipped because this build does not know them.
    pub unknown_kinds: BTreeMap<String, u64>,
}

/// Everything loaded so far, and the file being loaded.
pub struct Analyzer {
    conversations: Vec<Conversation>,
    /// Where each conversation is in `conversations`, by provider and id.
    positions: std::collections::HashMap<(crate::transcripts::Provider, String), usize>,
    /// Each conversation's list row (title, models, forks), worked out once when it loads.
    rows: Vec<ConversationRow>,
    claude_usage: ClaudeCodeUsage,
    codex_usage: Vec<UsageEntry>,
    keyed_usage: crate::transcripts::usage::keyed::KeyedRows,
    ledger_bytes: Vec<u8>,
    ledger: MemoryLedger,
    files: Vec<FileSummary>,
    pending: Option<FileIngest>,
    /// Files loaded to be given to the transcript beside them.
    companions: companions::Companions,
    /// OpenCode's file tree being loaded, a file at a time.
    trees: trees::Trees,
    /// What the trees read whole since [`Analyzer::settle`] last answered held.
    settled: Vec<FileSummary>,
    prices: PriceTable,
    options: ReadOptions,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("files", &self.files.len())
            .field("conversations", &self.conversations.len())
            .field("loading", &self.pending.as_ref().map(FileIngest::name))
            .finish_non_exhaustive()
    }
}

impl Default for Analyzer {
    fn default() -> Analyzer {
        Analyzer::new()
    }
}

impl Analyzer {
    /// An analyzer with nothing loaded, pricing with the shipped table.
    pub fn new() -> Analyzer {
        Analyzer {
            conversations: Vec::new(),
            positions: std::collections::HashMap::new(),
            rows: Vec::new(),
            claude_usage: ClaudeCodeUsage::new(),
            codex_usage: Vec::new(),
            keyed_usage: Default::default(),
            ledger_bytes: Vec::new(),
            ledger: MemoryLedger::from_ndjson(b""),
            files: Vec::new(),
            pending: None,
            companions: Default::default(),
            trees: Default::default(),
            settled: Vec::new(),
            prices: PriceTable::shipped(),
            options: ReadOptions::default(),
        }
    }

    /// How the files begun from now on are read (hidden messages kept on request).
    pub fn set_read_options(&mut self, options: ReadOptions) {
        self.options = options;
    }

    /// Starts a file (an unfinished one is dropped).
    pub fn begin(&mut self, name: &str) {
        self.start(FileIngest::with_options(name, self.options));
    }

    /// Starts loading a file known to be `provider`'s (see [`FileIngest::known`]).
    pub fn begin_known(&mut self, name: &str, provider: crate::transcripts::Provider) {
        self.start(FileIngest::known(name, provider, self.options));
    }

    /// Starts `ingest`, or keeps its file to give the transcript beside it when it is a
    /// companion ([`companions`]).
    fn start(&mut self, mut ingest: FileIngest) {
        self.pending = None;
        // A file of OpenCode's tree of files joins its tree; leaving a tree settles it.
        let (tree_file, left) = self.trees.begin(ingest.name());
        if let Some((root, tree)) = left {
            let summary = self.settle_tree(&root, tree);
            self.settled.push(summary);
        }
        if tree_file {
            self.companions.cancel();
            return;
        }
        if !self.companions.begin(ingest.name()) {
            self.companions.give(&mut ingest);
            self.pending = Some(ingest);
        }
    }

    /// Gives the file being loaded the write-ahead log found beside it (a database's
    /// `<name>-wal`; see [`FileIngest::set_log`]).
    pub fn set_log(&mut self, log: Vec<u8>) -> Result<()> {
        self.pending()?.set_log(log);
        Ok(())
    }

    fn pending(&mut self) -> Result<&mut FileIngest> {
        self.pending.as_mut().ok_or_else(|| {
            Error::invalid(
                "file",
                "no file is being loaded: call begin first".to_owned(),
            )
        })
    }

    /// Feeds the next chunk of the current file. On an error the file is dropped.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        if self.trees.loading() {
            self.trees.push(chunk);
            return Ok(());
        }
        if self.companions.loading() {
            self.companions.push(chunk);
            return Ok(());
        }
        let result = self.pending()?.push(chunk);
        if result.is_err() {
            self.pending = None;
        }
        result
    }

    /// Drops the current file: nothing of it is kept.
    pub fn cancel(&mut self) {
        self.trees.cancel();
        self.companions.cancel();
        self.pending = None;
    }

    /// Does up to about `budget` bytes of the work left after the last chunk (unpacking an
    /// archive); `done` says when `finish` can be called.
    pub fn pump(&mut self, budget: usize) -> Result<Progress> {
        if self.companions.loading() || self.trees.loading() {
            return Ok(Progress {
                done: true,
                processed: 0,
                total: 0,
            });
        }
        let result = self.pending()?.pump(budget);
        if result.is_err() {
            self.pending = None;
        }
        result
    }

    /// Finishes the current file and adds what it holds. On an error nothing of it is kept.
    pub fn finish(&mut self) -> Result<FileSummary> {
        if let Some(summary) = self.trees.finish() {
            self.files.push(summary.clone());
            return Ok(summary);
        }
        if let Some(summary) = self.companions.finish() {
            self.files.push(summary.clone());
            return Ok(summary);
        }
        let pending = self
            .pending
            .take()
            .ok_or_else(|| Error::invalid("file", "no file is being loaded".to_owned()))?;
        let ingested = pending.finish()?;
        let mut summary = FileSummary {
            name: ingested.name,
            format: ingested.format,
            archive: ingested.archive,
            entries: ingested.entries,
            bytes: ingested.bytes,
            conversations: 0,
            messages: 0,
            ledger_lines: 0,
            stats: ReadStats::default(),
            unknown_kinds: BTreeMap::new(),
        };
        for part in ingested.parts {
            self.take_part(part, &mut summary);
        }
        self.files.push(summary.clone());
        Ok(summary)
    }

    /// Adds what one part of a file held, counting it in `summary`.
    fn take_part(&mut self, part: Decoded, summary: &mut FileSummary) {
        match part {
            Decoded::Conversations {
                parsed,
                claude_usage,
                usage,
                keyed_usage,
                ..
            } => {
                summary.conversations += parsed.conversations.len() as u64;
                summary.messages += parsed
                    .conversations
                    .iter()
                    .map(|c| c.messages.len() as u64)
                    .sum::<u64>();
                parsed.count_into(&mut summary.stats, &mut summary.unknown_kinds);
                for c in parsed.conversations {
                    self.add_conversation(c);
                }
                if let Some(reader) = claude_usage {
                    self.claude_usage.merge(*reader);
                }
                self.codex_usage.extend(usage);
                if let Some(rows) = keyed_usage {
                    self.keyed_usage.merge(*rows);
                }
            }
            Decoded::Ledger(bytes) => {
                summary.ledger_lines += bytes.split(|&b| b == b'\n').count() as u64;
                if !self.ledger_bytes.is_empty() && !self.ledger_bytes.ends_with(b"\n") {
                    self.ledger_bytes.push(b'\n');
                }
                self.ledger_bytes.extend_from_slice(&bytes);
                self.ledger = MemoryLedger::from_ndjson(&self.ledger_bytes);
            }
        }
    }

    /// Reads the tree of files loaded last (OpenCode's `storage` folder, from before its
    /// database) as its database would be, when one is still open: a load ends with this, as
    /// leaving a tree's folder does. Answers what each tree read whole since the last call
    /// held, named by its folder.
    pub fn settle(&mut self) -> Vec<FileSummary> {
        if let Some((root, tree)) = self.trees.take() {
            let summary = self.settle_tree(&root, tree);
            self.settled.push(summary);
        }
        std::mem::take(&mut self.settled)
    }

    fn settle_tree(
        &mut self,
        root: &str,
        tree: crate::transcripts::opencode::legacy::Tree,
    ) -> FileSummary {
        let store = crate::transcripts::databases::Store::from_tree(root, tree, None);
        let mut summary = FileSummary {
            name: root.to_owned(),
            format: FileFormat::Transcript(store.provider()),
            archive: None,
            entries: Vec::new(),
            bytes: 0,
            conversations: 0,
            messages: 0,
            ledger_lines: 0,
            stats: ReadStats::default(),
            unknown_kinds: BTreeMap::new(),
        };
        let part = crate::transcripts::ingest::store_decoded(&store);
        self.take_part(part, &mut summary);
        summary
    }

    /// Adds one conversation read elsewhere (a host keeps a database's conversations as they
    /// were read). The same conversation from another file (a sub-agent's thread, its parent
    /// session) is one conversation.
    pub fn add_conversation(&mut self, c: Conversation) {
        let key = (c.provider, c.id.clone());
        let same = (!c.id.is_empty())
            .then(|| self.positions.get(&key).copied())
            .flatten();
        match same {
            Some(at) => {
                self.conversations[at].absorb(c);
                self.rows[at] = row_of(at, &self.conversations[at]);
            }
            None => {
                self.positions.insert(key, self.conversations.len());
                self.rows.push(row_of(self.conversations.len(), &c));
                self.conversations.push(c);
            }
        }
    }

    /// Feeds a whole file at once: begin, push, finish.
    pub fn add_file(&mut self, name: &str, bytes: &[u8]) -> Result<FileSummary> {
        self.begin(name);
        self.add_bytes(bytes)
    }

    /// Feeds a whole file known to be `provider`'s at once (see [`Analyzer::begin_known`]).
    pub fn add_known_file(
        &mut self,
        name: &str,
        provider: crate::transcripts::Provider,
        bytes: &[u8],
    ) -> Result<FileSummary> {
        self.begin_known(name, provider);
        self.add_bytes(bytes)
    }

    fn add_bytes(&mut self, bytes: &[u8]) -> Result<FileSummary> {
        for chunk in bytes.chunks(1 << 20) {
            self.push(chunk)?;
        }
        self.finish()
    }

    /// The files loaded, in order.
    pub fn files(&self) -> &[FileSummary] {
        &self.files
    }

    /// Every conversation loaded, in load order.
    pub fn conversations(&self) -> &[Conversation] {
        &self.conversations
    }

    /// The loaded ledgers, folded together.
    pub fn ledger(&self) -> &MemoryLedger {
        &self.ledger
    }
}
