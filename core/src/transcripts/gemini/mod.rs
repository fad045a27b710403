//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/`): the JSONL log since v0.39 and the one
//! JSON document before it, read as one kind of record. The log is appended to: a message is
//! written again whole whenever it changes (the same `id`: the last copy wins, in the first
//! copy's place), `$set` lines change the session's metadata (or rewrite its whole message
//! list), and `$rewindTo` lines take messages back. Baton keeps every message it saw (a message
//! rewound away was still sent and still billed) and each response's usage once.

mod conversation;
mod usage;

pub use conversation::{GeminiReader, GeminiState};
pub use usage::{GeminiUsage, GeminiUsageState};

use crate::tokens::TokenTotals;
use serde_json::Value;

/// What one line of a Gemini CLI log is, in the order the CLI's own loader asks.
pub(crate) enum Record<'a> {
    /// `{"$rewindTo": id}`: that message and the ones after it were taken back.
    Rewind,
    /// A message, whole (a later copy with its id replaces it).
    Message(&'a Value),
    /// `{"$set": {...}}`: metadata changed; its `messages`, when present, are the whole list.
    Set(&'a Value),
    /// The metadata line (the first), or a whole old-format document on one line.
    Metadata(&'a Value),
    /// Something else.
    Other,
}

impl<'a> Record<'a> {
    pub(crate) fn of(value: &'a Value) -> Record<'a> {
        if value.get("$rewindTo").is_some() {
            Record::Rewind
        } else if value["id"].is_string() {
            Record::Message(value)
        } else if value["$set"].is_object() {
            Record::Set(&value["$set"])
        } else if value["sessionId"].is_string() && value.get("projectHash").is_some() {
            Record::Metadata(value)
        } else {
            Record::Other
        }
    }
}

/// The messages a metadata line, a `$set` or an old-format document lists.
pub(crate) fn listed_messages(value: &Value) -> impl Iterator<Item = &Value> {
    value["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["id"].is_string())
}

/// A Gemini response's `tokens` in Baton's one meaning: Gemini's `input` holds the cached
/// tokens (taken out here), its `output` leaves out the thinking (billed as output, so put in
/// here), and `tool` is prompt-side input. `None` when the record has no counts (a synthetic
/// turn writes `null`).
pub(crate) fn gemini_tokens(tokens: &Value) -> Option<TokenTotals> {
    if !tokens.is_object() {
        return None;
    }
    let count = |key: &str| tokens[key].as_u64().unwrap_or(0);
    let (input, output, cached) = (count("input"), count("output"), count("cached"));
    let (thoughts, tool) = (count("thoughts"), count("tool"));
    if input == 0 && output == 0 && cached == 0 && thoughts == 0 && tool == 0 {
        return None;
    }
    Some(TokenTotals {
        input_tokens: input.saturating_sub(cached).saturating_add(tool),
        output_tokens: output.saturating_add(thoughts),
        cache_creation_tokens: 0,
        cache_read_tokens: cached.min(input),
        reasoning_tokens: thoughts,
    })
}

/// Keeps `line` (the file's `number`th) when it belongs to an old-format document, which is
/// pretty-printed over many lines and read when the file ends: a first line that is a lone
/// brace starts one. Whether it did.
pub(crate) fn kept_in_document(document: &mut Option<Vec<u8>>, number: u64, line: &[u8]) -> bool {
    if let Some(document) = document.as_mut() {
        document.push(b'\n');
        document.extend_from_slice(line);
        return true;
    }
    if number == 1 && line.trim_ascii() == b"{" {
        *document = Some(line.to_vec());
        return true;
    }
    false
}

/// An old-format document, whole, as one object. The CLI writes it without a last newline, so
/// a reader of whole lines (the mirror) may not have its closing brace yet: it is supplied.
pub(crate) fn document_value(mut document: Vec<u8>) -> Option<Value> {
    serde_json::from_slice::<Value>(&document)
        .or_else(|_| {
            document.extend_from_slice(b"\n}");
            serde_json::from_slice::<Value>(&document)
        })
        .ok()
        .filter(Value::is_object)
}

/// The folders of a path, `/` or `\` separated.
fn folders(path: &str) -> Vec<&str> {
    path.split(['/', '\\']).filter(|p| !p.is_empty()).collect()
}

/// What the path of a file under `…/tmp/<project>/chats/` says: the project folder's name
/// (a short name since v0.29; older ones are the SHA-256 of the project's path, which names
/// nothing a person knows, so none), and for a sub-agent's file
/// (`chats/<parent session>/<agent>.jsonl`) the session it belongs to.
pub(crate) fn path_clues(path: &str) -> (Option<String>, Option<String>) {
    let parts = folders(path);
    let Some(chats) = parts.iter().rposition(|p| *p == "chats") else {
        return (None, None);
    };
    let project = chats
        .checked_sub(1)
        .map(|at| parts[at])
        .filter(|p| !(p.len() == 64 && p.bytes().all(|b| b.is_ascii_hexdigit())))
        .map(str::to_owned);
    // `chats/<parent>/<file>`: the file sits one folder below `chats`.
    let parent = (parts.len() == chats + 3).then(|| parts[chats + 1].to_owned());
    (project, parent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_take_the_cache_out_of_input_and_put_thinking_in_output() {
        let tokens = serde_json::json!({"input": 1000, "output": 50, "cached": 600, "thoughts": 20, "tool": 5, "total": 1075});
        let totals = gemini_tokens(&tokens).unwrap();
        assert_eq!(totals.input_tokens, 405);
        assert_eq!(totals.cache_read_tokens, 600);
        assert_eq!(totals.output_tokens, 70);
        assert_eq!(totals.reasoning_tokens, 20);
        assert_eq!(gemini_tokens(&Value::Null), None);
        assert_eq!(gemini_tokens(&serde_json::json!({"input": 0})), None);
        // Wrong types count as nothing, never panic.
        assert_eq!(gemini_tokens(&serde_json::json!({"input": "9"})), None);
    }

    #[test]
    fn the_path_names_the_project_and_a_sub_agents_session() {
        assert_eq!(
            path_clues("/h/.gemini/tmp/my-app/chats/session-2026-08-21T16-16-3f2a9c1e.jsonl"),
            (Some("my-app".into()), None)
        );
        let hash = "9b0e".repeat(16);
        assert_eq!(
            path_clues(&format!(
                "C:\\u\\.gemini\\tmp\\{hash}\\chats\\3f2a\\agent.jsonl"
            )),
            (None, Some("3f2a".into()))
        );
        assert_eq!(path_clues("session.jsonl"), (None, None));
    }
}
