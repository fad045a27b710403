//! Sessions an agent keeps as one JSON document it rewrites whole (Amp's threads, Copilot
//! Chat's sessions, the Cline family's tasks): one conversation reader, one usage reader and
//! one reader of both at once ([`WholeBoth`], each document parsed once) for all of them.
//! Each keeps the document's lines and the files given beside it, and when the file ends
//! hands the whole to the agent's [`WholeFormat`], the one part that differs.

use crate::transcripts::conversation::Parsed;
use crate::transcripts::lines::LineReader;
use crate::transcripts::reading::{Conversations, Usage};
use crate::transcripts::{Interner, ReadStats, UsageEntry};

/// How one agent's whole documents are read.
pub trait WholeFormat: Copy + std::fmt::Debug + Send + 'static {
    /// What the files beside a document add.
    type Notes: Default + std::fmt::Debug + Send;

    /// Notes a file found beside the document (the registry's companions), whole.
    fn note(_notes: &mut Self::Notes, _name: &str, _bytes: &[u8]) {}

    /// The conversation of the document at `path`, pushed into `parsed`.
    fn conversations(self, path: &str, bytes: &[u8], notes: &mut Self::Notes, parsed: &mut Parsed);

    /// The usage rows of the document at `path`, each with its response's key.
    fn usage(self, path: &str, bytes: &[u8], notes: &mut Self::Notes, read: &mut UsageRead);

    /// Both from one parse: what [`WholeFormat::conversations`] and [`WholeFormat::usage`]
    /// give, each byte parsed once.
    fn both(
        self,
        path: &str,
        bytes: &[u8],
        notes: &mut Self::Notes,
        parsed: &mut Parsed,
        read: &mut UsageRead,
    );
}

/// Where a format's usage rows go.
#[derive(Debug, Default)]
pub struct UsageRead {
    /// The names the rows share (sessions, models, projects).
    pub strings: Interner,
    /// The rows read, each with its key.
    pub rows: Vec<(UsageEntry, u128)>,
    /// What was read.
    pub stats: ReadStats,
}

/// Reads a whole document as a conversation (fed its lines; read when the file ends).
#[derive(Debug)]
pub struct WholeReader<F: WholeFormat> {
    format: F,
    path: String,
    document: Document,
    notes: F::Notes,
    parsed: Parsed,
}

impl<F: WholeFormat> WholeReader<F> {
    /// The reader of the document at `path`.
    pub fn new(format: F, path: &str) -> WholeReader<F> {
        WholeReader {
            format,
            path: path.to_owned(),
            document: Document::default(),
            notes: F::Notes::default(),
            parsed: Parsed::default(),
        }
    }

    /// Gives a file beside the document.
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        F::note(&mut self.notes, name, bytes);
    }

    /// The conversation.
    pub fn finish(mut self) -> Parsed {
        if let Some(bytes) = self.document.take_bytes() {
            let format = self.format;
            format.conversations(&self.path, &bytes, &mut self.notes, &mut self.parsed);
        }
        self.parsed
    }
}

impl<F: WholeFormat> LineReader for WholeReader<F> {
    fn push_line(&mut self, line: &[u8]) {
        self.document.push(line, &mut self.parsed.stats);
    }
}

impl<F: WholeFormat> Conversations for WholeReader<F> {
    fn state(&self) -> Option<String> {
        None
    }
    fn finish(self: Box<Self>) -> Parsed {
        WholeReader::finish(*self)
    }
    fn companion(&mut self, name: &str, bytes: &[u8]) {
        WholeReader::companion(self, name, bytes);
    }
}

/// Reads a whole document's usage rows (fed its lines; read when the file ends).
#[derive(Debug)]
pub struct WholeUsage<F: WholeFormat> {
    format: F,
    path: String,
    document: Document,
    notes: F::Notes,
    read: UsageRead,
}

impl<F: WholeFormat> WholeUsage<F> {
    /// The reader of the document at `path`.
    pub fn new(format: F, path: &str) -> WholeUsage<F> {
        WholeUsage {
            format,
            path: path.to_owned(),
            document: Document::default(),
            notes: F::Notes::default(),
            read: UsageRead::default(),
        }
    }

    /// Gives a file beside the document.
    pub fn companion(&mut self, name: &str, bytes: &[u8]) {
        F::note(&mut self.notes, name, bytes);
    }

    /// The rows read since the last call, each with its key.
    pub fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.read.rows)
    }

    /// The file ended: the document is read.
    pub fn end(&mut self) {
        if let Some(bytes) = self.document.take_bytes() {
            let format = self.format;
            format.usage(&self.path, &bytes, &mut self.notes, &mut self.read);
        }
    }

    /// What was read.
    pub fn stats(&self) -> &ReadStats {
        &self.read.stats
    }
}

impl<F: WholeFormat> LineReader for WholeUsage<F> {
    fn push_line(&mut self, line: &[u8]) {
        self.document.push(line, &mut self.read.stats);
    }
}

impl<F: WholeFormat> Usage for WholeUsage<F> {
    fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        WholeUsage::take_rows(self)
    }
    fn stats(&self) -> ReadStats {
        self.read.stats.clone()
    }
    fn state(&self) -> Option<String> {
        None
    }
    fn end(&mut self) {
        WholeUsage::end(self);
    }
    fn companion(&mut self, name: &str, bytes: &[u8]) {
        WholeUsage::companion(self, name, bytes);
    }
}

/// Reads a whole document once for its conversation and its usage rows together (what the
/// mirror and the ingest want): fed its lines, read when the file ends.
#[derive(Debug)]
pub struct WholeBoth<F: WholeFormat> {
    format: F,
    path: String,
    document: Document,
    notes: F::Notes,
    parsed: Option<Parsed>,
    read: UsageRead,
}

impl<F: WholeFormat> WholeBoth<F> {
    /// The reader of the document at `path`.
    pub fn new(format: F, path: &str) -> WholeBoth<F> {
        WholeBoth {
            format,
            path: path.to_owned(),
            document: Document::default(),
            notes: F::Notes::default(),
            parsed: None,
            read: UsageRead::default(),
        }
    }
}

impl<F: WholeFormat> LineReader for WholeBoth<F> {
    fn push_line(&mut self, line: &[u8]) {
        self.document.push(line, &mut self.read.stats);
    }
}

impl<F: WholeFormat> Usage for WholeBoth<F> {
    fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
        std::mem::take(&mut self.read.rows)
    }
    fn stats(&self) -> ReadStats {
        self.read.stats.clone()
    }
    fn state(&self) -> Option<String> {
        None
    }
    fn end(&mut self) {
        if self.parsed.is_some() {
            return;
        }
        let mut parsed = Parsed::default();
        parsed.stats.lines = self.read.stats.lines;
        if let Some(bytes) = self.document.take_bytes() {
            let format = self.format;
            format.both(
                &self.path,
                &bytes,
                &mut self.notes,
                &mut parsed,
                &mut self.read,
            );
        }
        self.parsed = Some(parsed);
    }
    fn companion(&mut self, name: &str, bytes: &[u8]) {
        F::note(&mut self.notes, name, bytes);
    }
    fn take_parsed(&mut self) -> Option<Parsed> {
        self.parsed.take()
    }
}

/// The document as JSON (counted malformed when it is not).
pub(crate) fn value_of(bytes: &[u8], stats: &mut ReadStats) -> Option<serde_json::Value> {
    let value = crate::transcripts::parse_line::<serde_json::Value>(bytes, stats);
    if value.is_none() {
        stats.malformed += 1;
    }
    value
}

/// The document when it is one JSON object (else counted malformed).
pub(crate) fn object_of(bytes: &[u8], stats: &mut ReadStats) -> Option<serde_json::Value> {
    let value = value_of(bytes, stats)?;
    if !value.is_object() {
        stats.malformed += 1;
        return None;
    }
    Some(value)
}

/// A document's lines, kept until its file ends (a whole JSON document an agent rewrites as
/// it changes is read whole: Amp's threads, Cline's tasks).
#[derive(Debug, Default)]
struct Document {
    bytes: Vec<u8>,
    lines: u64,
}

impl Document {
    /// Keeps one line (counted in `stats`).
    fn push(&mut self, line: &[u8], stats: &mut crate::transcripts::ReadStats) {
        stats.lines += 1;
        self.lines += 1;
        if self.lines > 1 {
            self.bytes.push(b'\n');
        }
        self.bytes.extend_from_slice(line);
    }

    /// The document's bytes, `None` when it holds only blanks.
    fn take_bytes(&mut self) -> Option<Vec<u8>> {
        let bytes = std::mem::take(&mut self.bytes);
        (!bytes.iter().all(u8::is_ascii_whitespace)).then_some(bytes)
    }
}
