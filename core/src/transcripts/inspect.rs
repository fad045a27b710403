//! What one file holds, for `baton inspect`: counts of conversations, messages, roles, tool
//! calls and branches, worked out from what the one [ingest](crate::transcripts::ingest) read,
//! so `inspect` and `analyze` agree on every figure both report.

use crate::error::Result;
use crate::time::Timestamp;
use crate::transcripts::ReadStats;
use crate::transcripts::conversation::tree::Tree;
use crate::transcripts::conversation::{Conversation, Parsed};
use crate::transcripts::ingest::{Decoded, FileFormat, FileIngest, Ingested};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What a file is and what it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inspection {
    /// The detected format (an archive's: the format of what it holds), spelled as
    /// `baton usage` spells providers (`claude-code`, `claude-ai`, `baton-ledger`).
    #[serde(with = "kebab_format")]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub format: FileFormat,
    /// `zip` when the file was an archive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    /// Conversations.
    pub conversations: usize,
    /// Messages, branches included.
    pub messages: usize,
    /// Messages on the active branches.
    pub active_branch_messages: usize,
    /// Places where a message has more than one child in the raw tree, parallel tool calls
    /// included.
    pub branch_points: usize,
    /// Forks a person would call alternatives (an edited question, a regenerated answer):
    /// branch points whose side chains hold more than tool work. The page lists these.
    pub forks: usize,
    /// Tool calls.
    pub tool_calls: usize,
    /// Tool results.
    pub tool_results: usize,
    /// Each conversation's title, in the order read (the titles the conversation list and
    /// the page show).
    pub titles: Vec<String>,
    /// Models seen.
    pub models: Vec<String>,
    /// First message time.
    pub first_at: Option<Timestamp>,
    /// Last message time.
    pub last_at: Option<Timestamp>,
    /// Lines read, malformed, repaired.
    pub stats: ReadStats,
    /// Record kinds skipped because this build does not know them.
    pub unknown_kinds: BTreeMap<String, u64>,
    /// Lines of a Baton ledger.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ledger_lines: u64,
    /// Whether the file is one an agent keeps beside a transcript for its readers (a Cline
    /// task's `api_conversation_history.json`): read with that transcript, nothing alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub companion: bool,
}

/// `baton inspect` has always spelled formats as providers are spelled (kebab case), while the
/// analyzer spells them in snake case; both are kept until a wire change can unify them.
mod kebab_format {
    use crate::transcripts::ingest::FileFormat;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn name(format: FileFormat) -> String {
        format.as_str().replace('_', "-")
    }

    pub(super) fn serialize<S: Serializer>(format: &FileFormat, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&name(*format))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<FileFormat, D::Error> {
        let text = String::deserialize(d)?;
        FileFormat::all()
            .find(|f| name(*f) == text)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown format {text}")))
    }
}

impl Inspection {
    /// The line a person reads for this file (`shown` is how the host names it).
    pub fn human_line(&self, shown: &str) -> String {
        if self.companion {
            return format!(
                "[ok] {shown}: kept by {} beside a task's ui_messages.json, which is read with it (inspect that file)",
                match self.format {
                    FileFormat::Transcript(provider) => provider.entry().title,
                    FileFormat::BatonLedger => "an agent",
                }
            );
        }
        format!(
            "[ok] {shown}: {}, {} conversation(s), {} message(s) ({} on active branches), {} tool call(s), {} malformed line(s){}{}",
            self.format_name(),
            self.conversations,
            self.messages,
            self.active_branch_messages,
            self.tool_calls,
            self.stats.malformed,
            if self.stats.too_long == 0 {
                String::new()
            } else {
                format!(
                    ", {} line(s) over {} MiB passed over",
                    self.stats.too_long,
                    crate::transcripts::lines::MAX_LINE_BYTES >> 20
                )
            },
            if self.unknown_kinds.is_empty() {
                String::new()
            } else {
                format!(", unknown kinds skipped: {:?}", self.unknown_kinds)
            }
        )
    }

    /// The format's name as this report spells it (`claude-code`).
    pub fn format_name(&self) -> String {
        kebab_format::name(self.format)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Inspection {
    /// An empty summary of a file of `format`.
    pub fn new(format: FileFormat) -> Inspection {
        Inspection {
            format,
            archive: None,
            conversations: 0,
            messages: 0,
            active_branch_messages: 0,
            branch_points: 0,
            forks: 0,
            tool_calls: 0,
            tool_results: 0,
            titles: Vec::new(),
            models: Vec::new(),
            first_at: None,
            last_at: None,
            stats: ReadStats::default(),
            unknown_kinds: BTreeMap::new(),
            ledger_lines: 0,
            companion: false,
        }
    }

    /// The summary of a file read through the ingest.
    pub fn of(ingested: &Ingested) -> Inspection {
        let mut report = Inspection::new(ingested.format);
        report.add_ingested(ingested);
        report
    }

    /// Adds what the ingest kept (conversations not taken early, stats, ledger lines).
    fn add_ingested(&mut self, ingested: &Ingested) {
        let report = self;
        report.archive = ingested.archive.clone();
        for part in &ingested.parts {
            match part {
                Decoded::Conversations { parsed, .. } => report.add_parsed(parsed),
                Decoded::Ledger(bytes) => {
                    report.ledger_lines += bytes.split(|&b| b == b'\n').count() as u64;
                }
            }
        }
    }

    fn add_parsed(&mut self, parsed: &Parsed) {
        for c in &parsed.conversations {
            self.add(c);
        }
        parsed.count_into(&mut self.stats, &mut self.unknown_kinds);
    }

    /// Counts one conversation in.
    pub fn add(&mut self, c: &Conversation) {
        self.conversations += 1;
        self.messages += c.messages.len();
        self.active_branch_messages += c.active_branch().len();
        let tree = Tree::new(c);
        self.branch_points += tree.branch_points();
        self.forks += tree.forks();
        let (calls, results) = c.tool_counts();
        self.tool_calls += calls;
        self.tool_results += results;
        self.titles.push(c.display_title());
        let mut models: BTreeSet<String> = self.models.drain(..).collect();
        models.extend(c.messages.iter().filter_map(|m| m.model.clone()));
        self.models = models.into_iter().collect();
        if let Some((first, last)) = c.message_span() {
            self.first_at = Some(self.first_at.map_or(first, |f| f.min(first)));
            self.last_at = Some(self.last_at.map_or(last, |l| l.max(last)));
        }
    }
}

/// Reads a file held in memory through the ingest (format found from its content, archives
/// unpacked) and returns its conversations and its summary.
pub fn parse(bytes: &[u8]) -> Result<(FileFormat, Parsed)> {
    let ingested = FileIngest::read_all("input", bytes)?;
    let mut all = Parsed::default();
    for part in ingested.parts {
        if let Decoded::Conversations { parsed, .. } = part {
            parsed.count_into(&mut all.stats, &mut all.unknown_kinds);
            all.conversations.extend(parsed.conversations);
            all.unknown_samples.extend(parsed.unknown_samples);
        }
    }
    Ok((ingested.format, all))
}

/// Summarizes conversations already parsed.
pub fn summarize(format: FileFormat, parsed: &Parsed) -> Inspection {
    let mut report = Inspection::new(format);
    report.add_parsed(parsed);
    report
}

/// Reads and summarizes a file held in memory.
pub fn inspect(bytes: &[u8]) -> Result<Inspection> {
    Ok(Inspection::of(&FileIngest::read_all("input", bytes)?))
}

/// Summarizes one file as its chunks arrive: the ingest reads them, and each conversation is
/// counted as soon as it finishes and then dropped, so memory stays flat on an export of any
/// size. The protocol is the ingest's: [`Inspector::new`] → [`Inspector::push`] →
/// [`Inspector::finish`].
#[derive(Debug)]
pub struct Inspector {
    ingest: FileIngest,
    report: Inspection,
    /// Set for a file kept beside a transcript for its readers (a Cline task's
    /// `api_conversation_history.json`): it holds no conversation of its own, as the analyzer
    /// reads it too.
    companion: bool,
}

impl Inspector {
    /// Starts on a file whose format is found from its content.
    pub fn new(name: &str) -> Inspector {
        let companion = crate::transcripts::providers::is_companion(name);
        let format = match companion {
            true => FileFormat::Transcript(crate::transcripts::cline::product_of(
                name,
                crate::transcripts::Provider::Cline,
            )),
            false => FileFormat::BatonLedger,
        };
        let mut report = Inspection::new(format);
        report.companion = companion;
        Inspector {
            ingest: FileIngest::new(name),
            report,
            companion,
        }
    }

    /// Gives the write-ahead log found beside a database (see [`FileIngest::set_log`]).
    pub fn set_log(&mut self, log: Vec<u8>) {
        self.ingest.set_log(log);
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        if self.companion {
            return Ok(());
        }
        self.ingest.push(chunk)?;
        for c in self.ingest.take_conversations() {
            self.report.add(&c);
        }
        Ok(())
    }

    /// Finishes the file and returns its summary.
    pub fn finish(self) -> Result<Inspection> {
        if self.companion {
            return Ok(self.report);
        }
        let ingested = self.ingest.finish()?;
        let mut report = self.report;
        report.format = ingested.format;
        report.add_ingested(&ingested);
        Ok(report)
    }
}
