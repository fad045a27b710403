//! The agents read through one pair of readers (Gemini CLI, Qwen Code, Copilot CLI, and each agent added
//! after them; those whose sessions are whole documents also have one reader of both, each
//! document parsed once): a conversation reader and a usage reader per file, both fed whole lines, both
//! able to stop and go on from a state kept as text, the usage reader giving rows keyed by
//! their response ([`crate::transcripts::usage::keyed`]). The ingest, the tally, a transcript
//! followed as it grows and the mirror ask [`readers`] and never name these agents.

use crate::transcripts::aider::{AiderReader, AiderUsage};
use crate::transcripts::amp::AmpThread;
use crate::transcripts::cline::Task;
use crate::transcripts::conversation::Parsed;
use crate::transcripts::copilot::{CopilotReader, CopilotUsage};
use crate::transcripts::copilot_chat::ChatSession;
use crate::transcripts::cursor::AgentTranscript;
use crate::transcripts::gemini::{GeminiReader, GeminiUsage};
use crate::transcripts::qwen::{QwenReader, QwenUsage};
pub use crate::transcripts::reading::{Conversations, Usage};
use crate::transcripts::whole::{WholeBoth, WholeReader, WholeUsage};
use crate::transcripts::{Provider, ReadStats, UsageEntry};

/// The readers of an agent whose sessions are whole documents ([`crate::transcripts::whole`]),
/// read in `format`.
macro_rules! whole {
    ($format:expr) => {
        Readers {
            conversations: |path, _| Box::new(WholeReader::new($format, path)),
            usage: |path, _| Box::new(WholeUsage::new($format, path)),
            both: Some(|path| Box::new(WholeBoth::new($format, path))),
        }
    };
}

/// The one reader of a whole document at a path, for its conversation and its usage.
pub type BothReader = fn(&str) -> Box<dyn Usage>;

/// How an agent's files are read.
#[derive(Debug, Clone, Copy)]
pub struct Readers {
    /// The conversation reader of the file at a path, going on from a state.
    pub conversations: fn(&str, Option<&str>) -> Box<dyn Conversations>,
    /// The usage reader of the file at a path, going on from a state.
    pub usage: fn(&str, Option<&str>) -> Box<dyn Usage>,
    /// One reader for both, where the agent's sessions are whole documents: each is parsed
    /// once, and its usage reader gives the conversation too ([`Usage::take_parsed`]).
    pub both: Option<BothReader>,
}

/// The readers of `provider`'s files, when it is read through them (Claude Code and Codex
/// have readers of their own, the exports are read whole).
pub fn readers(provider: Provider) -> Option<Readers> {
    match provider {
        Provider::Gemini => Some(Readers {
            conversations: |path, state| Box::new(GeminiReader::new(path, parse(state))),
            usage: |path, state| Box::new(GeminiUsage::new(path, parse(state))),
            both: None,
        }),
        Provider::Qwen => Some(Readers {
            conversations: |_, state| {
                Box::new(QwenReader::continuing(parse(state).unwrap_or_default()))
            },
            usage: |_, _| Box::new(QwenUsage::new()),
            both: None,
        }),
        Provider::CopilotCli => Some(Readers {
            conversations: |path, state| Box::new(CopilotReader::new(path, parse(state))),
            usage: |path, state| Box::new(CopilotUsage::new(path, parse(state))),
            both: None,
        }),
        Provider::Aider => Some(Readers {
            conversations: |path, state| Box::new(AiderReader::new(path, parse(state))),
            usage: |path, state| Box::new(AiderUsage::new(path, parse(state))),
            both: None,
        }),
        Provider::CopilotChat => Some(whole!(ChatSession)),
        Provider::Amp => Some(whole!(AmpThread)),
        Provider::Cline => Some(whole!(Task(Provider::Cline))),
        Provider::RooCode => Some(whole!(Task(Provider::RooCode))),
        Provider::KiloCode => Some(whole!(Task(Provider::KiloCode))),
        Provider::CursorTranscripts => Some(whole!(AgentTranscript)),
        Provider::ClaudeCode
        | Provider::Codex
        | Provider::Opencode
        | Provider::Kilo
        | Provider::Cursor
        | Provider::CursorCli
        | Provider::Chatgpt
        | Provider::ClaudeAi => None,
    }
}

fn parse<T: serde::de::DeserializeOwned>(state: Option<&str>) -> Option<T> {
    state.and_then(|s| serde_json::from_str(s).ok())
}

fn json<T: serde::Serialize>(state: &T) -> Option<String> {
    serde_json::to_string(state).ok()
}

/// `Conversations` for an agent's reader: its state kept as JSON, and the method that takes a
/// file found with the transcript where it has one (`companion = …`).
macro_rules! conversations {
    ($reader:ident $(, companion = $companion:ident)?) => {
        impl Conversations for $reader {
            fn state(&self) -> Option<String> {
                json(&$reader::state(self))
            }
            fn finish(self: Box<Self>) -> Parsed {
                $reader::finish(*self)
            }
            $(fn companion(&mut self, name: &str, bytes: &[u8]) {
                $reader::$companion(self, name, bytes);
            })?
        }
    };
}

/// `Usage` for an agent's usage reader: its state kept as JSON (or none, `state = stateless`), the
/// method that reads what a file's end leaves unfinished where it has one (`end = …`), and the
/// one that takes a file found with the transcript (`companion = …`).
macro_rules! usage {
    (@state $usage:ident) => {
        fn state(&self) -> Option<String> {
            json(&$usage::state(self))
        }
    };
    (@state $usage:ident stateless) => {
        fn state(&self) -> Option<String> {
            None
        }
    };
    ($usage:ident $(, state = $stateless:ident)? $(, end = $end:ident)? $(, companion = $companion:ident)?) => {
        impl Usage for $usage {
            fn take_rows(&mut self) -> Vec<(UsageEntry, u128)> {
                $usage::take_rows(self)
            }
            fn stats(&self) -> ReadStats {
                self.stats.clone()
            }
            usage!(@state $usage $($stateless)?);
            $(fn end(&mut self) {
                $usage::$end(self);
            })?
            $(fn companion(&mut self, name: &str, bytes: &[u8]) {
                $usage::$companion(self, name, bytes);
            })?
        }
    };
}

conversations!(GeminiReader, companion = companion);
conversations!(QwenReader);
conversations!(CopilotReader, companion = companion);
conversations!(AiderReader);
usage!(GeminiUsage, end = finish, companion = companion);
usage!(QwenUsage, state = stateless);
usage!(CopilotUsage, companion = companion);
usage!(AiderUsage);
