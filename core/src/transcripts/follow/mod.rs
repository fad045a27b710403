//! Reading an agent's transcript as it grows: the lines appended since the last read, its
//! readers' states carried between reads as text (`conversations`, `usage`), and a transcript
//! followed from its end rather than its start, with the state its readers need from the lines
//! not read (an agent whose first line says what the rest mean).

mod conversations;
mod usage;

pub use conversations::read_appended;
pub use usage::{AppendedUsage, Row};

use crate::transcripts::Provider;

/// The readers' states after `first`, the first line of an agent's transcript named `name`,
/// for a transcript followed from its end: the conversation reader's and the usage reader's,
/// as [`read_appended`] and [`AppendedUsage`] take them back. `(None, None)` for an agent
/// whose lines stand alone (Claude Code); Codex's session line names the session every later
/// line belongs to.
pub fn states_after_first_line(
    provider: Provider,
    name: &str,
    first: &[u8],
) -> (Option<String>, Option<String>) {
    if let Some(readers) = crate::transcripts::readers::readers(provider) {
        let mut reader = (readers.conversations)(name, None);
        reader.push_line(first);
        let mut usage = (readers.usage)(name, None);
        usage.push_line(first);
        return (reader.state(), usage.state());
    }
    match provider {
        Provider::Codex => {
            let mut reader = crate::transcripts::conversation::CodexReader::default();
            reader.push_line(first);
            let mut usage = crate::transcripts::usage::codex::CodexUsage::new(
                crate::transcripts::session_name(name),
            );
            usage.push_line(first);
            (
                serde_json::to_string(&reader.state()).ok(),
                serde_json::to_string(&usage.state()).ok(),
            )
        }
        _ => (None, None),
    }
}
