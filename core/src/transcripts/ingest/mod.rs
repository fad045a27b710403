//! The one ingest every host feeds: a file's bytes pushed in chunks, its format found from its
//! head (an agent's transcript, a ChatGPT or claude.ai export, a Baton ledger, or a ZIP export), JSONL split
//! into lines by [`LineSplitter`], exports split one
//! conversation at a time, archives unpacked a slice at a time through `pump`. `baton usage`,
//! `baton inspect`, `baton analyze` and the page all read files through it (the mirror will
//! too), so they agree on every figure.
//!
//! The protocol: [`FileIngest::new`] → [`FileIngest::push`] each chunk → [`FileIngest::pump`]
//! until done (archives) → [`FileIngest::finish`].

use crate::error::{Error, Result};

pub use crate::transcripts::FileFormat;
use crate::transcripts::Provider;
use crate::transcripts::conversation::{Conversation, ReadOptions};
use crate::transcripts::lines::LineSplitter;
use crate::transcripts::providers::Kind;
use crate::transcripts::usage::claude_code::ClaudeCodeUsage;
use crate::transcripts::zip::{EntryReader, ZipEntry};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

mod decoder;

pub use decoder::Decoded;
use decoder::{Decoder, Finished};

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
    /// A database's write-ahead log, given by [`FileIngest::set_log`].
    log: Option<Vec<u8>>,
    /// Files found beside it, given by [`FileIngest::give_companion`].
    companions: Vec<(String, Vec<u8>)>,
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
pub const INPUT_EXTENSIONS: [&str; 6] = ["jsonl", "json", "zip", "ndjson", "db", "vscdb"];

/// The file names hosts also pick up when they walk a folder, whatever their extension: the
/// one name an agent gives its transcripts (Aider's `.aider.chat.history.md`), from the
/// registry.
pub fn input_names() -> impl Iterator<Item = &'static str> {
    crate::transcripts::providers::REGISTRY
        .iter()
        .filter_map(|entry| entry.names.only_named)
}

/// Whether a host walking a folder also picks up the file at `path` (`/` or `\` separated)
/// though its extension is none of [`INPUT_EXTENSIONS`]: a transcript an agent keeps only in a
/// folder of its own (Cursor's `agent-transcripts/<chat>.txt`), by the registry.
pub fn picked_up_within(path: &str) -> bool {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let other = name
        .rsplit_once('.')
        .is_some_and(|(_, ext)| !INPUT_EXTENSIONS.contains(&ext));
    other
        && crate::transcripts::providers::REGISTRY
            .iter()
            .any(|entry| entry.names.within.is_some() && entry.wants_file(path))
}

/// What an agent's database, or the tree of files it was before, holds, as a file's part: its
/// conversations and its keyed usage rows (a host reading a tree of files file by file hands
/// the whole to a tally or an analyzer at once).
pub fn store_decoded(store: &crate::transcripts::databases::Store) -> Decoded {
    decoder::store_decoded(store)
}

/// How a host loads a file found under a folder a person chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    /// Not read.
    No,
    /// Read, in path order.
    Yes,
    /// Read before every other: a file that says where the transcripts below it were made
    /// (the registry's `above`: VS Code's `workspace.json`), given to each of them.
    First,
    /// Not read, even named alone: a file of OpenCode's tree of files that is none of its
    /// sessions, messages or parts (its projects, diffs, to-do lists).
    Aside,
}

/// Which of `paths` (the files found under a folder a person chose) a host reads: those
/// with one of [`INPUT_EXTENSIONS`], named as an agent names its transcripts
/// ([`input_names`]) or kept in an agent's own folder ([`picked_up_within`]), less those
/// passed over ([`crate::transcripts::providers::skipped_files`]), and of OpenCode's tree of
/// files only its sessions, messages and parts; and, first, the files
/// above an agent's transcripts that say where they were made (unless an export's side
/// files). One answer per path, in order: the page's one rule for a folder dropped on it,
/// and `baton analyze`'s.
pub fn taken_from_folder<S: AsRef<str>>(paths: &[S]) -> Vec<Taken> {
    use crate::transcripts::opencode::legacy;
    let skipped = crate::transcripts::providers::skipped_files(paths);
    let export_files = crate::transcripts::export_files::skipped_export_files(paths);
    let names: Vec<&str> = input_names().collect();
    // OpenCode's trees of files: their sessions, messages and parts are read, the rest of
    // their `storage` folder (projects, diffs, to-do lists) is not.
    let trees: std::collections::BTreeSet<&str> = paths
        .iter()
        .filter_map(|p| legacy::place_of(p.as_ref()).map(|(.., root)| root))
        .collect();
    let in_tree = |path: &str| {
        trees.iter().any(|root| {
            path.strip_prefix(root)
                .is_some_and(|rest| rest.starts_with(['/', '\\']))
        })
    };
    paths
        .iter()
        .zip(skipped.into_iter().zip(export_files))
        .map(|(path, (skip, export_file))| {
            let path = path.as_ref();
            if crate::transcripts::providers::above_levels(path).is_some() && !export_file {
                return Taken::First;
            }
            if in_tree(path) {
                return match legacy::place_of(path) {
                    Some(_) => Taken::Yes,
                    None => Taken::Aside,
                };
            }
            let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
            let by_ending = name.rsplit_once('.').is_some_and(|(_, ext)| {
                INPUT_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
            });
            if !skip && (by_ending || names.contains(&name) || picked_up_within(path)) {
                Taken::Yes
            } else {
                Taken::No
            }
        })
        .collect()
}

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
            log: None,
            companions: Vec::new(),
        }
    }

    /// Starts reading a file already known to be `provider`'s (the mirror found it where that
    /// agent keeps its transcripts): an agent's transcript is read by that agent's readers
    /// whatever its first lines hold (a history whose start was cut off); anything else is
    /// found from its content as [`FileIngest::with_options`] does.
    pub fn known(name: &str, provider: Provider, options: ReadOptions) -> FileIngest {
        match provider.entry().kind {
            Kind::Agent | Kind::Document => FileIngest {
                decoder: Some(Decoder::transcript(provider, name, true)),
                ..FileIngest::with_options(name, options)
            },
            Kind::Database | Kind::Export => FileIngest::with_options(name, options),
        }
    }

    /// Starts reading an agent's transcript known by where it was found, for its token usage
    /// only (no conversations are built). Exports carry no usage: for them this
    /// is [`FileIngest::new`].
    pub fn usage_only(name: &str, provider: Provider) -> FileIngest {
        match provider.entry().kind {
            Kind::Agent | Kind::Document => FileIngest {
                decoder: Some(Decoder::transcript(provider, name, false)),
                ..FileIngest::new(name)
            },
            // A database and an export are read whole, conversations and all.
            Kind::Database | Kind::Export => FileIngest::new(name),
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

    /// Gives the write-ahead log found beside a database file (`<name>-wal`): its committed
    /// pages are read over the file's. A host reads the log before the file, so a checkpoint
    /// between the two reads leaves pages the file also has. Ignored for other files.
    pub fn set_log(&mut self, log: Vec<u8>) {
        self.log = Some(log);
    }

    /// Gives a file found beside this one that its agent's readers read with it (the
    /// registry's `companions`: a Cline task's model and workspace). Ignored for other files.
    pub fn give_companion(&mut self, name: &str, bytes: Vec<u8>) {
        // A reader made already (a file known to be its agent's) takes it now, before any line.
        if let Some(decoder) = self.decoder.as_mut() {
            decoder.give_companion(name, &bytes);
        }
        self.companions.push((name.to_owned(), bytes));
    }

    /// The file's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.bytes += chunk.len() as u64;
        match self.decoder.as_mut() {
            Some(decoder) => decoder.push(chunk, &self.name, self.options, &self.companions),
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
                    match decoder.finish(&entry_name, self.options, None, &[])? {
                        Finished::Part(part) => unzip.results.push(part),
                        Finished::Archive => {
                            return Err(Error::nested_archive(name));
                        }
                    }
                }
                continue;
            }
            decoder.push(&out[..n], &entry_name, self.options, &[])?;
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
            (Some(decoder), None) => {
                match decoder.finish(&name, self.options, self.log.as_deref(), &self.companions)? {
                    Finished::Part(part) => vec![part],
                    // The pump unpacks an archive before its decoder could finish.
                    Finished::Archive => {
                        return Err(Error::internal("an archive was not unpacked"));
                    }
                }
            }
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
