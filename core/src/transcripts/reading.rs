//! What a reader of an agent's files is: a conversation reader and a usage reader, both fed
//! whole lines ([`LineReader`]), both able to say where they are. The agents' readers
//! implement these; [`crate::transcripts::readers`] says which reads which agent.

use crate::transcripts::conversation::Parsed;
use crate::transcripts::lines::LineReader;
use crate::transcripts::{ReadStats, UsageEntry};

/// An agent's conversation reader.
pub trait Conversations: LineReader + std::fmt::Debug + Send {
    /// Where it is, to go on later (JSON).
    fn state(&self) -> Option<String>;
    /// The conversations read.
    fn finish(self: Box<Self>) -> Parsed;
    /// Gives a file found beside the one read (the registry's `companions`), whole.
    fn companion(&mut self, _name: &str, _bytes: &[u8]) {}
}

/// An agent's usage reader.
pub trait Usage: LineReader + std::fmt::Debug + Send {
    /// The rows read since the last call, each with its response's key.
    fn take_rows(&mut self) -> Vec<(UsageEntry, u128)>;
    /// What its lines held.
    fn stats(&self) -> ReadStats;
    /// Where it is, to go on later (JSON).
    fn state(&self) -> Option<String>;
    /// The file ended: what it left unfinished is read (its rows then taken).
    fn end(&mut self) {}
    /// Gives a file found beside the one read (the registry's `companions`), whole.
    fn companion(&mut self, _name: &str, _bytes: &[u8]) {}
    /// The conversation, from a reader that reads a whole document once for both (once the
    /// file ended: [`crate::transcripts::whole::WholeBoth`]); `None` from every other.
    fn take_parsed(&mut self) -> Option<Parsed> {
        None
    }
}
