//! The conversations in lines appended to an agent's transcript, read on from where the last
//! read stopped: each agent's reader, chosen by its provider, with its state saved as text
//! between reads (Codex keeps one; Claude Code's lines stand alone).

use crate::transcripts::Provider;
use crate::transcripts::conversation::{ClaudeCodeReader, CodexReader, CodexState, Parsed};

/// The conversations `lines` hold, read on from `state` (what the previous read returned;
/// `None` from a file's start), and the state to read on from next time.
pub fn read_appended<L: AsRef<[u8]>>(
    provider: Provider,
    state: Option<&str>,
    lines: &[L],
) -> (Parsed, Option<String>) {
    match provider {
        Provider::Codex => {
            let state: CodexState = state
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default();
            let mut reader = CodexReader::continuing(state);
            for line in lines {
                reader.push_line(line.as_ref());
            }
            let next = serde_json::to_string(&reader.state()).ok();
            (reader.finish(), next)
        }
        Provider::ClaudeCode | Provider::Chatgpt | Provider::ClaudeAi => {
            let mut reader = ClaudeCodeReader::default();
            for line in lines {
                reader.push_line(line.as_ref());
            }
            (reader.finish(), None)
        }
    }
}

/// The readers' states after `first`, the first line of an agent's transcript named `name`,
/// for a transcript followed from its end: the conversation reader's and the usage reader's,
/// as [`read_appended`] and the usage readers take them back. `(None, None)` for an agent
/// whose lines stand alone (Claude Code); Codex's session line names the session every later
/// line belongs to.
pub fn states_after_first_line(
    provider: Provider,
    name: &str,
    first: &[u8],
) -> (Option<String>, Option<String>) {
    match provider {
        Provider::Codex => {
            let mut reader = CodexReader::default();
            reader.push_line(first);
            let mut usage = crate::transcripts::usage::codex::CodexUsage::new(
                crate::transcripts::ingest::session_name(name),
            );
            usage.push_line(first);
            (
                serde_json::to_string(&reader.state()).ok(),
                serde_json::to_string(&usage.state()).ok(),
            )
        }
        Provider::ClaudeCode | Provider::Chatgpt | Provider::ClaudeAi => (None, None),
    }
}
