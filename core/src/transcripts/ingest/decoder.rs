//! A file's decoder: its head decides its format, then its bytes go to that format's reader
//! (an agent's lines, an export's conversations one at a time, a ledger's bytes) until it ends.

use super::HEAD_BYTES;
use crate::error::{Error, Result};
use crate::transcripts::FileFormat;
use crate::transcripts::conversation::exports::read_export_item;
use crate::transcripts::conversation::finish_agent;
use crate::transcripts::conversation::splitter::{ArraySplitter, SplitMode};
use crate::transcripts::conversation::{
    ClaudeCodeReader, CodexReader, Conversation, Parsed, ReadOptions, parse_chatgpt_with,
    parse_claude_ai,
};
use crate::transcripts::lines::{BOM, LineSplitter, feed_agent};
use crate::transcripts::providers::Kind;
use crate::transcripts::readers::{Conversations, Usage};
use crate::transcripts::usage::claude_code::ClaudeCodeUsage;
use crate::transcripts::usage::codex::CodexUsage;
use crate::transcripts::usage::keyed::KeyedRows;
use crate::transcripts::{Provider, ReadStats, UsageEntry, detect};

/// Reads one stream of bytes whose format is found from its head.
pub(super) enum Decoder {
    Head(Vec<u8>),
    ClaudeCode {
        lines: LineSplitter,
        conversations: Option<Box<ClaudeCodeReader>>,
        usage: Box<ClaudeCodeUsage>,
    },
    Codex {
        lines: LineSplitter,
        conversations: Option<Box<CodexReader>>,
        usage: Box<CodexUsage>,
    },
    /// An agent read through the shared readers ([`crate::transcripts::readers`]).
    Keyed {
        provider: Provider,
        lines: LineSplitter,
        conversations: Option<Box<dyn Conversations>>,
        usage: Box<dyn Usage>,
        rows: Box<KeyedRows>,
    },
    Export {
        provider: Provider,
        options: ReadOptions,
        splitter: ArraySplitter,
        parsed: Parsed,
        /// Conversations handed over early by [`FileIngest::take_conversations`].
        taken: u64,
    },
    Ledger(Vec<u8>),
    Zip(Vec<u8>),
    /// An agent's SQLite database, held whole (its pages are read in any order).
    Database(Vec<u8>),
}

/// How a decoder ended: with what its bytes held, or on an archive (which the pump unpacks at
/// the top and refuses inside another). Made once per file and moved at once: no box needed.
#[allow(clippy::large_enum_variant)]
pub(super) enum Finished {
    Part(Decoded),
    Archive,
}

/// What one file (or one archive entry) held. Made once per file and moved to its reader at
/// once, like [`Finished`]: no box needed.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Decoded {
    /// A transcript or an export.
    Conversations {
        /// Its format.
        format: FileFormat,
        /// Its conversations (none when only usage was read).
        parsed: Parsed,
        /// A Claude Code file's usage reader, to merge with others' (responses repeat across
        /// files, so Claude Code usage is counted once all files are in).
        claude_usage: Option<Box<ClaudeCodeUsage>>,
        /// A Codex rollout's usage entries.
        usage: Vec<UsageEntry>,
        /// The usage rows of an agent whose rows are keyed by their response, one per key (a
        /// response its other files repeat counts once when the rows are merged).
        keyed_usage: Option<Box<KeyedRows>>,
        /// What the Codex usage reader skipped.
        usage_stats: ReadStats,
    },
    /// A Baton ledger's bytes.
    Ledger(Vec<u8>),
}

impl Decoder {
    /// Moves the conversations finished so far (an export's, one by one) into `out`.
    pub(super) fn take_conversations(&mut self, out: &mut Vec<Conversation>) {
        if let Decoder::Export { parsed, taken, .. } = self {
            *taken += parsed.conversations.len() as u64;
            out.append(&mut parsed.conversations);
        }
    }

    /// A JSONL transcript's decoder; `with_conversations` off reads usage only.
    pub(super) fn transcript(provider: Provider, name: &str, with_conversations: bool) -> Decoder {
        if let Some(readers) = crate::transcripts::readers::readers(provider) {
            // A document is read whole, its lines as long as it is.
            let lines = match provider.entry().kind {
                Kind::Document => {
                    LineSplitter::with_limit(crate::transcripts::lines::DOCUMENT_BYTES)
                }
                _ => LineSplitter::new(),
            };
            // A whole document wanted for both is read once, by one reader.
            let (conversations, usage) = match readers.both.filter(|_| with_conversations) {
                Some(both) => (None, both(name)),
                None => (
                    with_conversations.then(|| (readers.conversations)(name, None)),
                    (readers.usage)(name, None),
                ),
            };
            return Decoder::Keyed {
                provider,
                lines,
                conversations,
                usage,
                rows: Box::default(),
            };
        }
        match provider {
            Provider::Codex => Decoder::Codex {
                lines: LineSplitter::new(),
                conversations: with_conversations.then(Box::default),
                usage: Box::new(CodexUsage::new(crate::transcripts::session_name(name))),
            },
            _ => Decoder::ClaudeCode {
                lines: LineSplitter::new(),
                conversations: with_conversations.then(Box::default),
                usage: Box::default(),
            },
        }
    }

    /// Feeds the next chunk; `companions` are the files found with this one, given to an
    /// agent's readers as they are made (before any line).
    pub(super) fn push(
        &mut self,
        chunk: &[u8],
        name: &str,
        options: ReadOptions,
        companions: &[(String, Vec<u8>)],
    ) -> Result<()> {
        match self {
            Decoder::Head(head) => {
                head.extend_from_slice(chunk);
                if head.len() >= HEAD_BYTES {
                    self.decide(name, options, companions)?;
                }
            }
            Decoder::ClaudeCode {
                lines,
                conversations: c,
                usage: u,
            } => {
                feed_agent(lines, chunk, c.as_deref_mut().map(|r| r as _), &mut **u);
            }
            Decoder::Codex {
                lines,
                conversations: c,
                usage: u,
            } => {
                feed_agent(lines, chunk, c.as_deref_mut().map(|r| r as _), &mut **u);
            }
            Decoder::Keyed {
                lines,
                conversations: c,
                usage: u,
                rows,
                ..
            } => {
                feed_agent(lines, chunk, c.as_deref_mut().map(|r| r as _), &mut **u);
                for (entry, key) in u.take_rows() {
                    rows.add(entry, key);
                }
            }
            Decoder::Export {
                provider,
                options,
                splitter,
                parsed,
                ..
            } => {
                let (provider, options) = (*provider, *options);
                splitter.push(chunk, &mut |item| {
                    read_export_item(provider, item, options, parsed);
                });
            }
            Decoder::Ledger(bytes) | Decoder::Zip(bytes) | Decoder::Database(bytes) => {
                bytes.extend_from_slice(chunk)
            }
        }
        Ok(())
    }

    /// Decides the format from the head collected so far, then replays it.
    pub(super) fn decide(
        &mut self,
        name: &str,
        options: ReadOptions,
        companions: &[(String, Vec<u8>)],
    ) -> Result<()> {
        let Decoder::Head(head) = self else {
            return Ok(());
        };
        let mut head = std::mem::take(head);
        // A byte order mark opens some files an editor saved: it is no part of any format.
        if head.starts_with(BOM) {
            head.drain(..BOM.len());
        }
        *self = if crate::transcripts::zip::is_zip(&head) {
            Decoder::Zip(Vec::new())
        } else if crate::transcripts::sqlite::is_sqlite(&head) {
            Decoder::Database(Vec::new())
        } else if crate::transcripts::ledger_head(&head)? {
            Decoder::Ledger(Vec::new())
        } else {
            let detected = detect(&head).map_err(|e| {
                if crate::transcripts::export_files::export_member(name)
                    == crate::transcripts::export_files::ExportMember::Sidecar
                {
                    Error::export_side_file(name)
                } else if let Some((.., root)) =
                    crate::transcripts::opencode::legacy::place_of(name)
                {
                    Error::tree_file(name, root)
                } else {
                    e.with("file", name)
                }
            });
            // Which of the extensions that share a task's format wrote it: its folder says.
            let detected = detected.map(|p| match p {
                Provider::Cline | Provider::RooCode => {
                    crate::transcripts::cline::product_of(name, p)
                }
                p => p,
            });
            match detected? {
                provider if matches!(provider.entry().kind, Kind::Agent | Kind::Document) => {
                    Decoder::transcript(provider, name, true)
                }
                provider => Decoder::Export {
                    provider,
                    options,
                    splitter: ArraySplitter::default(),
                    parsed: Parsed::default(),
                    taken: 0,
                },
            }
        };
        for (name, bytes) in companions {
            self.give_companion(name, bytes);
        }
        self.push(&head, name, options, companions)
    }

    /// Gives an agent's readers a file found with the transcript (nothing for other files).
    pub(super) fn give_companion(&mut self, name: &str, bytes: &[u8]) {
        if let Decoder::Keyed {
            conversations,
            usage,
            ..
        } = self
        {
            usage.companion(name, bytes);
            if let Some(reader) = conversations.as_mut() {
                reader.companion(name, bytes);
            }
        }
    }

    /// Ends the file; `log` is a database's write-ahead log, when the host found one beside it.
    pub(super) fn finish(
        mut self,
        name: &str,
        options: ReadOptions,
        log: Option<&[u8]>,
        companions: &[(String, Vec<u8>)],
    ) -> Result<Finished> {
        if let Decoder::Head(head) = &self {
            if head.iter().all(u8::is_ascii_whitespace) {
                return Err(Error::empty_file(name));
            }
            self.decide(name, options, companions)?;
        }
        Ok(Finished::Part(match self {
            Decoder::Head(_) => return Err(Error::internal("a file's format was left undecided")),
            Decoder::ClaudeCode {
                mut lines,
                conversations,
                mut usage,
            } => {
                let finish = ClaudeCodeReader::finish;
                let parsed = finish_agent(&mut lines, conversations, &mut *usage, finish);
                Decoded::Conversations {
                    format: Provider::ClaudeCode.into(),
                    parsed,
                    claude_usage: Some(usage),
                    usage: Vec::new(),
                    keyed_usage: None,
                    usage_stats: ReadStats::default(),
                }
            }
            Decoder::Codex {
                mut lines,
                conversations,
                mut usage,
            } => {
                let parsed =
                    finish_agent(&mut lines, conversations, &mut *usage, CodexReader::finish);
                let (entries, usage_stats) = usage.finish();
                Decoded::Conversations {
                    format: Provider::Codex.into(),
                    parsed,
                    claude_usage: None,
                    usage: entries,
                    keyed_usage: None,
                    usage_stats,
                }
            }
            Decoder::Keyed {
                provider,
                mut lines,
                conversations,
                mut usage,
                mut rows,
            } => {
                let mut parsed = Parsed::default();
                match conversations {
                    Some(mut reader) => {
                        lines.finish(|line| {
                            reader.push_line(line);
                            usage.push_line(line);
                        });
                        parsed = reader.finish();
                    }
                    None => lines.finish(|line| usage.push_line(line)),
                }
                usage.end();
                if let Some(whole) = usage.take_parsed() {
                    parsed = whole;
                }
                parsed.stats.too_long += lines.too_long();
                for (entry, key) in usage.take_rows() {
                    rows.add(entry, key);
                }
                let mut usage_stats = usage.stats();
                usage_stats.too_long += lines.too_long();
                keyed(provider, parsed, rows, usage_stats)
            }
            Decoder::Export {
                provider,
                options,
                splitter,
                mut parsed,
                taken,
            } => {
                match splitter.mode {
                    SplitMode::Whole => {
                        let whole = match provider {
                            Provider::ClaudeAi => parse_claude_ai(&splitter.whole),
                            _ => parse_chatgpt_with(&splitter.whole, options),
                        };
                        parsed.conversations.extend(whole.conversations);
                        parsed.stats.malformed += whole.stats.malformed;
                        parsed.stats.repaired_surrogates += whole.stats.repaired_surrogates;
                    }
                    SplitMode::Done => {}
                    // The array never closed: the file was cut short. What came before stays.
                    _ => parsed.stats.malformed += 1,
                }
                parsed.stats.lines =
                    parsed.conversations.len() as u64 + taken + parsed.stats.malformed;
                Decoded::Conversations {
                    format: provider.into(),
                    parsed,
                    claude_usage: None,
                    usage: Vec::new(),
                    keyed_usage: None,
                    usage_stats: ReadStats::default(),
                }
            }
            Decoder::Ledger(bytes) => Decoded::Ledger(bytes),
            Decoder::Zip(_) => return Ok(Finished::Archive),
            Decoder::Database(bytes) => database(name, &bytes, log)?,
        }))
    }
}

/// What an agent's database holds, its write-ahead log laid over it when there is one (a file
/// dropped alone has none: what the agent had not yet checkpointed is then not in it).
fn database(name: &str, bytes: &[u8], log: Option<&[u8]>) -> Result<Decoded> {
    use crate::transcripts::{databases, sqlite};
    let wal = match log {
        Some(log) => Some(sqlite::Wal::parse(log).map_err(|e| e.with("file", name))?),
        None => None,
    };
    let db = sqlite::Database::open(&bytes, wal.as_ref()).map_err(|e| e.with("file", name))?;
    let Some(store) = databases::read(name, &db, None).map_err(|e| e.with("file", name))? else {
        return Err(Error::unknown_format(
            &format!("a SQLite database without {}", databases::WANTED),
            &crate::transcripts::formats_read(),
        )
        .with("file", name));
    };
    Ok(store_decoded(&store))
}

/// What an agent's database (or the tree of files it was before) holds, as a file's part.
pub(crate) fn store_decoded(store: &crate::transcripts::databases::Store) -> Decoded {
    let provider = store.provider();
    let mut rows = Box::<KeyedRows>::default();
    for (entry, key) in store.usage_rows() {
        rows.add(entry, key);
    }
    let parsed = store.conversations();
    let usage_stats = ReadStats {
        lines: store.stats().lines,
        malformed: store.stats().malformed,
        ..ReadStats::default()
    };
    keyed(provider, parsed, rows, usage_stats)
}

/// What an agent read through keyed rows held: its conversations and its rows, the rows a
/// later one of the same key replaced counted as duplicates.
fn keyed(
    provider: Provider,
    parsed: Parsed,
    mut rows: Box<KeyedRows>,
    mut usage_stats: ReadStats,
) -> Decoded {
    usage_stats.duplicates += std::mem::take(&mut rows.replaced);
    Decoded::Conversations {
        format: provider.into(),
        parsed,
        claude_usage: None,
        usage: Vec::new(),
        keyed_usage: Some(rows),
        usage_stats,
    }
}
