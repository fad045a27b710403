//! The conversations in lines appended to an agent's transcript, read on from where the last
//! read stopped: each agent's reader, chosen by its provider, with its state saved as text
//! between reads (Codex, Gemini CLI and Qwen Code keep one; Claude Code's lines stand alone).

use crate::transcripts::Provider;
use crate::transcripts::conversation::{ClaudeCodeReader, CodexReader, CodexState, Parsed};

/// The conversations `lines` of the transcript at `path` hold, read on from `state` (what the
/// previous read returned; `None` from a file's start), and the state to read on from next
/// time; `companions` are the files found with it (Gemini CLI's `projects.json`).
pub fn read_appended<L: AsRef<[u8]>>(
    provider: Provider,
    path: &str,
    state: Option<&str>,
    lines: &[L],
    companions: &[(String, Vec<u8>)],
) -> (Parsed, Option<String>) {
    if let Some(readers) = crate::transcripts::readers::readers(provider) {
        let mut reader = (readers.conversations)(path, state);
        for (name, bytes) in companions {
            reader.companion(name, bytes);
        }
        for line in lines {
            reader.push_line(line.as_ref());
        }
        let next = reader.state();
        return (reader.finish(), next);
    }
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
        _ => {
            let mut reader = ClaudeCodeReader::default();
            for line in lines {
                reader.push_line(line.as_ref());
            }
            (reader.finish(), None)
        }
    }
}
