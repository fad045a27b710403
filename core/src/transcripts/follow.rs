//! Following an agent's transcript from its end rather than its start: the state its readers
//! need from the lines not read (an agent whose first line says what the rest mean).

use crate::transcripts::Provider;

/// The readers' states after `first`, the first line of an agent's transcript named `name`,
/// for a transcript followed from its end: the conversation reader's and the usage reader's,
/// as `conversation::read_appended` and `usage::appended::AppendedUsage` take them back. `(None, None)` for an agent
/// whose lines stand alone (Claude Code); Codex's session line names the session every later
/// line belongs to.
pub fn states_after_first_line(
    provider: Provider,
    name: &str,
    first: &[u8],
) -> (Option<String>, Option<String>) {
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
        Provider::ClaudeCode | Provider::Chatgpt | Provider::ClaudeAi => (None, None),
    }
}
