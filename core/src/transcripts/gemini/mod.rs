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

/// What the path of a file under `…/tmp/<project>/chats/` says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Clues {
    /// The project folder's name, as it is: a short name since v0.29, older ones the SHA-256
    /// of the project's path.
    pub(crate) folder: Option<String>,
    /// For a sub-agent's file (`chats/<parent session>/<agent>.jsonl`), the session it
    /// belongs to.
    pub(crate) parent: Option<String>,
}

impl Clues {
    /// The project the folder names: its short name (a hash names nothing a person knows, so
    /// none), unless `projects.json` said which folder it stands for.
    pub(crate) fn project(&self) -> Option<String> {
        self.folder.clone().filter(|f| !is_hash(f))
    }

    /// The path `projects.json` (given whole as `bytes`; `name` is the file's) says the
    /// project folder stands for, when it is that file and names it.
    pub(crate) fn registered(&self, name: &str, bytes: &[u8]) -> Option<String> {
        if name.rsplit(['/', '\\']).next() != Some("projects.json") {
            return None;
        }
        registered_folder(bytes, self.folder.as_deref()?)
    }
}

/// Whether a folder's name is a SHA-256 in hex.
fn is_hash(folder: &str) -> bool {
    folder.len() == 64 && folder.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The folder of Gemini CLI's `projects.json` (`{"projects": {"<path>": "<short name>"}}`)
/// that the project folder `folder` stands for: the path whose short name it is, or for an
/// older folder the path whose SHA-256 it is.
pub(crate) fn registered_folder(bytes: &[u8], folder: &str) -> Option<String> {
    use sha2::Digest;
    let value: Value = serde_json::from_slice(bytes).ok()?;
    let projects = value["projects"].as_object()?;
    let hash = is_hash(folder).then(|| folder.to_ascii_lowercase());
    projects
        .iter()
        .find(|(path, short)| match &hash {
            Some(hash) => {
                let digest = sha2::Sha256::digest(path.as_bytes());
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                hex == *hash
            }
            None => short.as_str() == Some(folder),
        })
        .map(|(path, _)| path.clone())
}

/// What the path of a file under `…/tmp/<project>/chats/` says: the project folder's name and,
/// for a sub-agent's file, the session it belongs to.
pub(crate) fn path_clues(path: &str) -> Clues {
    let parts = folders(path);
    let Some(chats) = parts.iter().rposition(|p| *p == "chats") else {
        return Clues::default();
    };
    let folder = chats.checked_sub(1).map(|at| parts[at].to_owned());
    // `chats/<parent>/<file>`: the file sits one folder below `chats`.
    let parent = (parts.len() == chats + 3).then(|| parts[chats + 1].to_owned());
    Clues { folder, parent }
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
        let clues =
            path_clues("/h/.gemini/tmp/my-app/chats/session-2026-08-21T16-16-3f2a9c1e.jsonl");
        assert_eq!(
            (clues.project(), clues.parent),
            (Some("my-app".into()), None)
        );
        let hash = "9b0e".repeat(16);
        let clues = path_clues(&format!(
            "C:\\u\\.gemini\\tmp\\{hash}\\chats\\3f2a\\agent.jsonl"
        ));
        assert_eq!(
            (clues.project(), clues.parent.clone()),
            (None, Some("3f2a".into()))
        );
        assert_eq!(path_clues("session.jsonl"), Clues::default());
    }

    #[test]
    fn projects_json_says_which_folder_a_short_name_or_a_hash_stands_for() {
        let registry = br#"{"projects": {"/home/dev/my-app": "my-app", "/home/dev/old": "old"}}"#;
        let short = path_clues("/h/.gemini/tmp/my-app/chats/session-1.jsonl");
        assert_eq!(
            short
                .registered("/h/.gemini/projects.json", registry)
                .as_deref(),
            Some("/home/dev/my-app")
        );
        // Another file's name, or a project it does not list, says nothing.
        assert_eq!(short.registered("/h/.gemini/settings.json", registry), None);
        let other = path_clues("/h/.gemini/tmp/other/chats/session-1.jsonl");
        assert_eq!(other.registered("projects.json", registry), None);
        // An older folder is the SHA-256 of the path.
        let hash = "c4b9f4c8b1d3b6bd38c1c1c82e0ff0d1d3d38b39a2da42f4f6bb6e38b7e1b5d0";
        let digest: String = {
            use sha2::Digest;
            sha2::Sha256::digest(b"/home/dev/old")
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        };
        assert_ne!(digest, hash);
        let hashed = path_clues(&format!("/h/.gemini/tmp/{digest}/chats/session-1.json"));
        assert_eq!(hashed.project(), None);
        assert_eq!(
            hashed.registered("projects.json", registry).as_deref(),
            Some("/home/dev/old")
        );
        // Not JSON, or not the shape: nothing, no panic.
        assert_eq!(short.registered("projects.json", b"[1,2"), None);
        assert_eq!(
            short.registered("projects.json", br#"{"projects": ["my-app"]}"#),
            None
        );
    }
}
