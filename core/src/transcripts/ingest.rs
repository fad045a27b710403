//! The one ingest every host feeds: a file's bytes pushed in chunks, its format found from its
//! head (Claude Code, Codex, ChatGPT, claude.ai, a Baton ledger, or a ZIP export), JSONL split
//! into lines by [`LineSplitter`], exports split one
//! conversation at a time, archives unpacked a slice at a time through `pump`. `baton usage`,
//! `baton inspect`, `baton analyze` and the page all read files through it (the mirror will
//! too), so they agree on every figure.
//!
//! The protocol: [`FileIngest::new`] → [`FileIngest::push`] each chunk → [`FileIngest::pump`]
//! until done (archives) → [`FileIngest::finish`].

use crate::error::{Error, Result};

pub use crate::transcripts::FileFormat;
use crate::transcripts::conversation::exports::read_export_item;
use crate::transcripts::conversation::finish_agent;
use crate::transcripts::conversation::splitter::{ArraySplitter, SplitMode};
use crate::transcripts::conversation::{
    ClaudeCodeReader, CodexReader, Conversation, Parsed, ReadOptions, parse_chatgpt_with,
    parse_claude_ai,
};
use crate::transcripts::lines::{BOM, LineSplitter, feed_agent};
use crate::transcripts::usage::claude_code::ClaudeCodeUsage;
use crate::transcripts::usage::codex::CodexUsage;
use crate::transcripts::zip::{EntryReader, ZipEntry};
use crate::transcripts::{Provider, ReadStats, UsageEntry, detect};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// How many bytes decide a file's format.
pub(crate) const HEAD_BYTES: usize = 64 * 1024;

/// Progress of the current file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Progress {
    /// Whether `finish` can be called.
    pub done: bool,
    /// Work done, in bytes.
    pub processed: u64,
    /// Work in all, in bytes (0 when unknown).
    pub total: u64,
}

/// Reads one stream of bytes whose format is found from its head.
enum Decoder {
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
}

/// How a decoder ended: with what its bytes held, or on an archive (which the pump unpacks at
/// the top and refuses inside another). Made once per file and moved at once: no box needed.
#[allow(clippy::large_enum_variant)]
enum Finished {
    Part(Decoded),
    Archive,
}

/// What one file (or one archive entry) held.
#[derive(Debug)]
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
        /// What the Codex usage reader skipped.
        usage_stats: ReadStats,
    },
    /// A Baton ledger's bytes.
    Ledger(Vec<u8>),
}

impl Decoder {
    /// Moves the conversations finished so far (an export's, one by one) into `out`.
    fn take_conversations(&mut self, out: &mut Vec<Conversation>) {
        if let Decoder::Export { parsed, taken, .. } = self {
            *taken += parsed.conversations.len() as u64;
            out.append(&mut parsed.conversations);
        }
    }

    /// A JSONL transcript's decoder; `with_conversations` off reads usage only.
    fn transcript(provider: Provider, name: &str, with_conversations: bool) -> Decoder {
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

    fn push(&mut self, chunk: &[u8], name: &str, options: ReadOptions) -> Result<()> {
        match self {
            Decoder::Head(head) => {
                head.extend_from_slice(chunk);
                if head.len() >= HEAD_BYTES {
                    self.decide(name, options)?;
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
            Decoder::Ledger(bytes) | Decoder::Zip(bytes) => bytes.extend_from_slice(chunk),
        }
        Ok(())
    }

    /// Decides the format from the head collected so far, then replays it.
    fn decide(&mut self, name: &str, options: ReadOptions) -> Result<()> {
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
        } else if crate::transcripts::ledger_head(&head)? {
            Decoder::Ledger(Vec::new())
        } else {
            let detected = detect(&head).map_err(|e| {
                if crate::transcripts::export_files::export_member(name)
                    == crate::transcripts::export_files::ExportMember::Sidecar
                {
                    Error::export_side_file(name)
                } else {
                    e.with("file", name)
                }
            });
            match detected? {
                provider @ (Provider::ClaudeCode | Provider::Codex) => {
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
        self.push(&head, name, options)
    }

    fn finish(mut self, name: &str, options: ReadOptions) -> Result<Finished> {
        if let Decoder::Head(head) = &self {
            if head.iter().all(u8::is_ascii_whitespace) {
                return Err(Error::empty_file(name));
            }
            self.decide(name, options)?;
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
                    format: FileFormat::ClaudeCode,
                    parsed,
                    claude_usage: Some(usage),
                    usage: Vec::new(),
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
                    format: FileFormat::Codex,
                    parsed,
                    claude_usage: None,
                    usage: entries,
                    usage_stats,
                }
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
                    usage_stats: ReadStats::default(),
                }
            }
            Decoder::Ledger(bytes) => Decoded::Ledger(bytes),
            Decoder::Zip(_) => return Ok(Finished::Archive),
        }))
    }
}

/// Unpacking an archive, one entry and one slice at a time.
struct Unzip {
    archive: Vec<u8>,
    entries: Vec<ZipEntry>,
    next: usize,
    reader: Option<(EntryReader, Decoder)>,
    produced: u64,
    total: u64,
    results: Vec<Decoded>,
}

fn start_unzip(archive: Vec<u8>, name: &str) -> Result<Unzip> {
    let listed = crate::transcripts::zip::entries(&archive).map_err(|e| e.with("file", name))?;
    let entries: Vec<ZipEntry> = listed
        .iter()
        .filter(|e| crate::transcripts::zip::is_conversations_entry(&e.name))
        .cloned()
        .collect();
    if entries.is_empty() {
        let first = listed.iter().take(20).map(|e| e.name.clone()).collect();
        return Err(Error::no_conversations_in_archive(
            name,
            listed.len(),
            first,
        ));
    }
    let total = entries.iter().map(|e| e.size).sum();
    Ok(Unzip {
        archive,
        entries,
        next: 0,
        reader: None,
        produced: 0,
        total,
        results: Vec::new(),
    })
}

/// One file being read: pushed in chunks, pumped while an archive unpacks, then finished.
pub struct FileIngest {
    name: String,
    options: ReadOptions,
    bytes: u64,
    decoder: Option<Decoder>,
    unzip: Option<Unzip>,
}

impl std::fmt::Debug for FileIngest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileIngest")
            .field("name", &self.name)
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

/// Everything one file held, checked whole: a file that fails leaves nothing.
#[derive(Debug)]
pub struct Ingested {
    /// The name the host gave the file.
    pub name: String,
    /// Its format (an archive's: the format of what it holds).
    pub format: FileFormat,
    /// `zip` when the file was an archive.
    pub archive: Option<String>,
    /// The archive entries read.
    pub entries: Vec<String>,
    /// Bytes pushed.
    pub bytes: u64,
    /// What the file (or each entry) held, in order.
    pub parts: Vec<Decoded>,
}

/// The size of the chunks hosts read files in and push (the page and the CLI alike).
pub const CHUNK_BYTES: usize = 4 << 20;

/// The file extensions hosts pick up when they walk a folder (a single file is read whatever
/// its name: its format is found from its content).
pub const INPUT_EXTENSIONS: [&str; 4] = ["jsonl", "json", "zip", "ndjson"];

impl FileIngest {
    /// Starts reading a file whose format is found from its content; everything is read.
    pub fn new(name: &str) -> FileIngest {
        FileIngest::with_options(name, ReadOptions::default())
    }

    /// Starts reading a file whose format is found from its content, with read options
    /// (hidden messages kept on request).
    pub fn with_options(name: &str, options: ReadOptions) -> FileIngest {
        FileIngest {
            name: name.to_owned(),
            options,
            bytes: 0,
            decoder: Some(Decoder::Head(Vec::new())),
            unzip: None,
        }
    }

    /// Starts reading a Claude Code or Codex transcript known by where it was found, for its
    /// token usage only (no conversations are built). Exports carry no usage: for them this
    /// is [`FileIngest::new`].
    pub fn usage_only(name: &str, provider: Provider) -> FileIngest {
        match provider {
            Provider::ClaudeCode | Provider::Codex => FileIngest {
                decoder: Some(Decoder::transcript(provider, name, false)),
                ..FileIngest::new(name)
            },
            Provider::Chatgpt | Provider::ClaudeAi => FileIngest::new(name),
        }
    }

    /// Reads a Claude Code transcript for its usage into a reader that goes on across files:
    /// a response written to several files is counted once, and no reader is built (and
    /// merged) per file. [`FileIngest::finish`] hands the reader back in its part; after a
    /// failed read, [`FileIngest::into_claude_usage`] does, with every line read before.
    pub fn claude_usage_continuing(name: &str, reader: Box<ClaudeCodeUsage>) -> FileIngest {
        FileIngest {
            decoder: Some(Decoder::ClaudeCode {
                lines: LineSplitter::new(),
                conversations: None,
                usage: reader,
            }),
            ..FileIngest::new(name)
        }
    }

    /// The Claude Code usage reader of an unfinished file (see
    /// [`FileIngest::claude_usage_continuing`]), its last unfinished line left out.
    pub fn into_claude_usage(self) -> Option<Box<ClaudeCodeUsage>> {
        match self.decoder {
            Some(Decoder::ClaudeCode { usage, .. }) => Some(usage),
            _ => None,
        }
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.bytes += chunk.len() as u64;
        match self.decoder.as_mut() {
            Some(decoder) => decoder.push(chunk, &self.name, self.options),
            None => Err(Error::invalid(
                "file",
                "the file was already finished".to_owned(),
            )),
        }
    }

    /// Hands over the conversations finished so far (an export finishes them one at a time);
    /// what is taken is counted in the stats but left out of [`Ingested`]. A host that only
    /// summarizes (`baton inspect`) takes them after each chunk and keeps memory flat.
    pub fn take_conversations(&mut self) -> Vec<Conversation> {
        let mut out = Vec::new();
        if let Some(decoder) = self.decoder.as_mut() {
            decoder.take_conversations(&mut out);
        }
        if let Some(unzip) = self.unzip.as_mut() {
            for part in &mut unzip.results {
                if let Decoded::Conversations { parsed, .. } = part {
                    out.append(&mut parsed.conversations);
                }
            }
            if let Some((_, decoder)) = unzip.reader.as_mut() {
                decoder.take_conversations(&mut out);
            }
        }
        out
    }

    /// Does up to about `budget` bytes of the work left after the last chunk (unpacking an
    /// archive); `done` says when [`FileIngest::finish`] can be called.
    pub fn pump(&mut self, budget: usize) -> Result<Progress> {
        let budget = budget.max(64 * 1024);
        let name = &self.name;
        if let Some(decoder) = self.decoder.take() {
            match decoder {
                Decoder::Head(head) if crate::transcripts::zip::is_zip(&head) => {
                    self.unzip = Some(start_unzip(head, name)?);
                }
                Decoder::Zip(bytes) => self.unzip = Some(start_unzip(bytes, name)?),
                other => {
                    self.decoder = Some(other);
                    return Ok(Progress {
                        done: true,
                        processed: self.bytes,
                        total: self.bytes,
                    });
                }
            }
        }
        let Some(unzip) = self.unzip.as_mut() else {
            return Ok(Progress {
                done: true,
                processed: self.bytes,
                total: self.bytes,
            });
        };
        let mut out = vec![0u8; 256 * 1024];
        let mut spent = 0;
        while spent < budget {
            if unzip.reader.is_none() {
                let Some(entry) = unzip.entries.get(unzip.next) else {
                    return Ok(Progress {
                        done: true,
                        processed: unzip.total,
                        total: unzip.total,
                    });
                };
                unzip.next += 1;
                let reader = EntryReader::open(&unzip.archive, entry)?;
                unzip.reader = Some((reader, Decoder::Head(Vec::new())));
            }
            let Some((reader, decoder)) = unzip.reader.as_mut() else {
                continue;
            };
            let n = reader.read(&unzip.archive, &mut out)?;
            let entry_name = format!("{name}:{}", reader.entry().name);
            if n == 0 {
                if let Some((_, decoder)) = unzip.reader.take() {
                    match decoder.finish(&entry_name, self.options)? {
                        Finished::Part(part) => unzip.results.push(part),
                        Finished::Archive => {
                            return Err(Error::nested_archive(name));
                        }
                    }
                }
                continue;
            }
            decoder.push(&out[..n], &entry_name, self.options)?;
            unzip.produced += n as u64;
            spent += n;
        }
        Ok(Progress {
            done: false,
            processed: unzip.produced,
            total: unzip.total,
        })
    }

    /// Finishes the file (pumping what is left) and hands over what it held, checked whole.
    pub fn finish(mut self) -> Result<Ingested> {
        while !self.pump(usize::MAX)?.done {}
        let name = self.name;
        let mut ingested = Ingested {
            name: name.clone(),
            format: FileFormat::BatonLedger,
            archive: None,
            entries: Vec::new(),
            bytes: self.bytes,
            parts: Vec::new(),
        };
        ingested.parts = match (self.decoder, self.unzip) {
            (_, Some(unzip)) => {
                ingested.archive = Some("zip".into());
                ingested.entries = unzip.entries.iter().map(|e| e.name.clone()).collect();
                unzip.results
            }
            (Some(decoder), None) => match decoder.finish(&name, self.options)? {
                Finished::Part(part) => vec![part],
                // The pump unpacks an archive before its decoder could finish.
                Finished::Archive => return Err(Error::internal("an archive was not unpacked")),
            },
            (None, None) => Vec::new(),
        };
        let mut formats = BTreeSet::new();
        for part in &ingested.parts {
            match part {
                Decoded::Conversations { format, .. } => formats.insert(*format),
                Decoded::Ledger(_) => formats.insert(FileFormat::BatonLedger),
            };
        }
        if let Some(format) = formats.first() {
            ingested.format = *format;
        }
        Ok(ingested)
    }

    /// Reads a whole file held in memory: new, push, finish.
    pub fn read_all(name: &str, bytes: &[u8]) -> Result<Ingested> {
        let mut ingest = FileIngest::new(name);
        for chunk in bytes.chunks(CHUNK_BYTES) {
            ingest.push(chunk)?;
        }
        ingest.finish()
    }
}
