//! GitHub Copilot Chat in VS Code (and Insiders, VSCodium): a chat session per file under
//! `workspaceStorage/<workspace>/chatSessions/` — since VS Code 1.109 `<session>.jsonl`, an
//! operation log (`kind` 0 sets the whole session, 1 sets the value at a path `k`, 2 cuts the
//! array at `k` to `i` items when `i` is given and appends `v`, 3 removes the value at `k`;
//! rewritten as one kind-0 line once it grows past 1,024 entries), before it `<session>.json`,
//! the session as one document. Either is read whole when it changes: the log replayed, the
//! session's requests (a prompt and the response's parts: text, thinking, tool invocations)
//! made into messages.
//!
//! Usage is per request and only where Copilot wrote it: `promptTokens`/`completionTokens` on
//! the request (newer builds) or `promptTokens`/`outputTokens` in its result's metadata, with no
//! cache split (all prompt tokens are input). A request later cut from the log (an undo, a
//! restored checkpoint) was still billed: its tokens are kept from when the log held them.
//! Model ids are `copilot/<model>`; the vendor is taken off, and `auto` is named as such. The
//! folder a session worked in is the one its workspace's `workspace.json` names, above it.

mod conversation;

use crate::tokens::TokenTotals;
use crate::transcripts::conversation::Parsed;
use crate::transcripts::conversation::text_of;
use crate::transcripts::whole::{UsageRead, WholeFormat, WholeReader, WholeUsage};
use crate::transcripts::{Provider, ReadStats, Timestamp, UsageEntry, fingerprint};
use serde_json::Value;
use std::collections::BTreeMap;

/// The longest array a set may grow (an item is only ever added at the end).
const MAX_INDEX: usize = 1 << 16;

/// A session read whole: its final state, and every request's usage seen on the way.
#[derive(Debug, Default)]
pub(crate) struct Session {
    /// The session as it stands.
    pub state: Value,
    /// Each request's usage by its id, as the log last held it (cut requests included).
    pub usage: BTreeMap<String, Billed>,
}

/// One request's usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Billed {
    pub at: i64,
    pub model: Option<String>,
    pub tokens: TokenTotals,
}

/// Reads a document's bytes: one session object (the older `.json`), or an operation log.
/// Each byte is parsed once: the first line says which it is (a log's lines are each an
/// entry with a `kind`; a snapshot is one object, pretty-printed or on one line).
pub(crate) fn read_session(bytes: &[u8], stats: &mut ReadStats) -> Option<Session> {
    let mut session = Session::default();
    let mut lines = bytes
        .split(|b| *b == b'\n')
        .filter(|line| !crate::transcripts::lines::is_blank(line));
    let first = lines.next()?;
    let first = match crate::transcripts::parse_line::<Value>(first, stats) {
        Some(Value::Object(entry)) if entry.contains_key("kind") => entry,
        Some(whole @ Value::Object(_)) if lines.next().is_none() => {
            return session.snapshot(whole);
        }
        // A pretty-printed snapshot (its first line `{`), or not a session at all.
        _ => match serde_json::from_slice::<Value>(bytes) {
            Ok(whole) => return session.snapshot(whole),
            Err(_) => {
                stats.malformed += 1;
                return None;
            }
        },
    };
    let mut started = false;
    let mut rest = bytes
        .split(|b| *b == b'\n')
        .filter(|line| !crate::transcripts::lines::is_blank(line))
        .skip(1);
    let mut first = Some(first);
    loop {
        let mut entry = match first.take() {
            Some(entry) => entry,
            None => match rest.next() {
                None => break,
                Some(line) => match crate::transcripts::parse_line::<Value>(line, stats) {
                    Some(Value::Object(entry)) => entry,
                    _ => {
                        stats.malformed += 1;
                        continue;
                    }
                },
            },
        };
        let path: Vec<Value> = match entry.remove("k") {
            Some(Value::Array(path)) => path,
            _ => Vec::new(),
        };
        // The value is moved out of the entry, never copied.
        let value = entry.remove("v");
        match entry.get("kind").and_then(Value::as_u64) {
            Some(0) => {
                session.state = value.unwrap_or(Value::Null);
                session.note_all();
                started = true;
            }
            // Nothing before the first whole session can be applied (VS Code refuses it).
            _ if !started => stats.malformed += 1,
            Some(1) => {
                set(&mut session.state, &path, value);
                // A list set whole: every request in it is noted.
                session.note_at(&path, usize::MAX);
            }
            Some(2) => {
                let added = value.as_ref().and_then(Value::as_array).map_or(0, Vec::len);
                let keep = entry.get("i").and_then(Value::as_u64);
                push(&mut session.state, &path, value, keep);
                session.note_at(&path, added);
            }
            Some(3) => set(&mut session.state, &path, None),
            _ => stats.malformed += 1,
        }
    }
    started.then_some(session)
}

/// What a session's bytes (an operation log, or a whole document) stand for once read: the
/// session as VS Code would load it (`Null` when they hold none).
pub fn replay(bytes: &[u8]) -> Value {
    read_session(bytes, &mut ReadStats::default()).map_or(Value::Null, |s| s.state)
}

/// The value at `path` below `root`, made where it is missing when `make` is set.
fn at_path<'a>(root: &'a mut Value, path: &[Value]) -> Option<&'a mut Value> {
    let mut here = root;
    for step in path {
        here = match (step, here) {
            (Value::String(key), Value::Object(map)) => map.get_mut(key)?,
            (Value::Number(n), Value::Array(items)) => {
                let at = usize::try_from(n.as_u64()?).ok()?;
                items.get_mut(at)?
            }
            _ => return None,
        };
    }
    Some(here)
}

/// Sets (or, with `None`, removes) the value at `path`; a path through nothing is passed over.
fn set(root: &mut Value, path: &[Value], value: Option<Value>) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    let Some(parent) = at_path(root, parent) else {
        return;
    };
    match (last, parent, value) {
        (Value::String(key), Value::Object(map), Some(value)) => {
            map.insert(key.clone(), value);
        }
        (Value::String(key), Value::Object(map), None) => {
            map.remove(key);
        }
        (Value::Number(n), Value::Array(items), value) => {
            let Some(at) = n.as_u64().and_then(|n| usize::try_from(n).ok()) else {
                return;
            };
            // An item replaced, or one added at the end: VS Code writes nothing else, and a
            // hostile index makes no array longer than by one.
            if at < items.len() {
                items[at] = value.unwrap_or(Value::Null);
            } else if at == items.len()
                && at < MAX_INDEX
                && let Some(value) = value
            {
                items.push(value);
            }
        }
        _ => {}
    }
}

/// Cuts the array at `path` to `keep` items (when given), then appends `items`.
fn push(root: &mut Value, path: &[Value], items: Option<Value>, keep: Option<u64>) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    let Some(parent) = at_path(root, parent) else {
        return;
    };
    let slot = match (last, parent) {
        (Value::String(key), Value::Object(map)) => map
            .entry(key.clone())
            .or_insert_with(|| Value::Array(Vec::new())),
        (Value::Number(n), Value::Array(list)) => {
            match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(at) if at < list.len() => &mut list[at],
                _ => return,
            }
        }
        _ => return,
    };
    if !slot.is_array() {
        *slot = Value::Array(Vec::new());
    }
    if let Value::Array(list) = slot {
        if let Some(keep) = keep.and_then(|k| usize::try_from(k).ok()) {
            list.truncate(keep);
        }
        if let Some(Value::Array(more)) = items {
            list.extend(more);
        }
    }
}

impl Session {
    /// The session a snapshot (the older `.json`) holds, when it is one.
    fn snapshot(mut self, whole: Value) -> Option<Session> {
        if whole.get("requests").is_none() || whole.get("kind").is_some() {
            return None;
        }
        self.state = whole;
        self.note_all();
        Some(self)
    }

    /// Notes the usage of every request the state holds.
    fn note_all(&mut self) {
        let count = self.state["requests"].as_array().map_or(0, Vec::len);
        for at in 0..count {
            self.note_request(at);
        }
    }

    /// Notes the usage of the requests an operation at `path` touched (`added` of them
    /// appended, when it appended to the list itself).
    fn note_at(&mut self, path: &[Value], added: usize) {
        if path.first().and_then(Value::as_str) != Some("requests") {
            return;
        }
        match path.get(1).and_then(Value::as_u64) {
            Some(at) => self.note_request(at as usize),
            None if path.len() == 1 => {
                // Requests appended: those are noted (the ones before were already).
                let count = self.state["requests"].as_array().map_or(0, Vec::len);
                for at in count.saturating_sub(added)..count {
                    self.note_request(at);
                }
            }
            None => {}
        }
    }

    fn note_request(&mut self, at: usize) {
        let request = &self.state["requests"][at];
        let Some(id) = request["requestId"].as_str() else {
            return;
        };
        if let Some(billed) = billed(request) {
            self.usage.insert(id.to_owned(), billed);
        }
    }
}

/// A request's usage, `None` when Copilot wrote none for it.
fn billed(request: &Value) -> Option<Billed> {
    let metadata = &request["result"]["metadata"];
    let prompt = request["promptTokens"]
        .as_u64()
        .or_else(|| metadata["promptTokens"].as_u64())?;
    let output = request["completionTokens"]
        .as_u64()
        .or_else(|| metadata["outputTokens"].as_u64())
        .unwrap_or(0);
    let at = request["modelState"]["completedAt"]
        .as_i64()
        .or_else(|| request["timestamp"].as_i64())?;
    Some(Billed {
        at,
        model: model_of(request),
        tokens: TokenTotals {
            input_tokens: prompt,
            output_tokens: output,
            ..TokenTotals::default()
        },
    })
}

/// The model a request used: the one the result resolved (`auto` picks one), else its
/// `modelId` without the `copilot/` vendor.
pub(crate) fn model_of(request: &Value) -> Option<String> {
    let resolved = request["result"]["metadata"]["resolvedModel"].as_str();
    let id = resolved.or_else(|| request["modelId"].as_str())?;
    let id = id.strip_prefix("copilot/").unwrap_or(id).trim();
    (!id.is_empty()).then(|| id.to_owned())
}

/// The session's id: its own, else its file's name.
pub(crate) fn session_id(state: &Value, path: &str) -> String {
    match state["sessionId"].as_str() {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => {
            let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
            name.split('.').next().unwrap_or(name).to_owned()
        }
    }
}

/// A markdown part's or message's text (`{value}`, or a string).
pub(crate) fn markdown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        _ => match &value["value"] {
            Value::Null => text_of(value),
            text => text_of(text),
        },
    }
}

/// Copilot Chat's sessions, read whole ([`WholeReader`], [`WholeUsage`]).
#[derive(Debug, Clone, Copy)]
pub struct ChatSession;

/// Reads a Copilot Chat session as a conversation.
pub type CopilotChatReader = WholeReader<ChatSession>;
/// Reads a Copilot Chat session's usage rows.
pub type CopilotChatUsage = WholeUsage<ChatSession>;

impl WholeFormat for ChatSession {
    /// The folder the workspace's window had open (its `workspace.json`, above the session).
    type Notes = Option<String>;

    fn note(folder: &mut Option<String>, name: &str, bytes: &[u8]) {
        if name.rsplit(['/', '\\']).next() == Some("workspace.json") {
            *folder = crate::transcripts::places::workspace_folder(bytes);
        }
    }

    fn conversations(
        self,
        path: &str,
        bytes: &[u8],
        folder: &mut Self::Notes,
        parsed: &mut Parsed,
    ) {
        conversation::conversation_of(path, bytes, folder.as_deref(), parsed);
    }

    fn usage(self, path: &str, bytes: &[u8], folder: &mut Self::Notes, read: &mut UsageRead) {
        if let Some(session) = read_session(bytes, &mut read.stats) {
            rows_of(path, &session, folder.as_deref(), read);
        }
    }

    fn both(
        self,
        path: &str,
        bytes: &[u8],
        folder: &mut Self::Notes,
        parsed: &mut Parsed,
        read: &mut UsageRead,
    ) {
        let session = read_session(bytes, &mut read.stats);
        // What the one reading met, told on both sides.
        parsed.stats.malformed += read.stats.malformed;
        parsed.stats.repaired_surrogates += read.stats.repaired_surrogates;
        if let Some(session) = session {
            conversation::conversation_of_session(path, &session, folder.as_deref(), parsed);
            rows_of(path, &session, folder.as_deref(), read);
        }
    }
}

/// A session's usage rows: every request Copilot billed, cut ones included.
fn rows_of(path: &str, session: &Session, folder: Option<&str>, read: &mut UsageRead) {
    let id = session_id(&session.state, path);
    let name = read.strings.get(&id);
    let project = folder.map(|f| read.strings.get(f));
    for (request, billed) in &session.usage {
        let entry = UsageEntry {
            provider: Provider::CopilotChat,
            at: Timestamp::from_millis(billed.at),
            session: name.clone(),
            project: project.clone(),
            model: billed.model.as_deref().map(|m| read.strings.get(m)),
            tokens: billed.tokens,
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: None,
            fast: false,
            web_searches: 0,
            delegated: false,
        };
        let key = fingerprint(&[b"copilot_chat", id.as_bytes(), request.as_bytes()]);
        read.rows.push((entry, key));
    }
}

/// Whether the first bytes of a file are a Copilot Chat session: an operation log's first
/// line (`{"kind":0,"v":{…}}` holding a session), or a session document (`requests` with
/// `requesterUsername` or `responderUsername`).
pub(crate) fn looks_like_session(text: &str) -> bool {
    let start = text.trim_start();
    if !start.starts_with('{') {
        return false;
    }
    let first = start.lines().next().unwrap_or("");
    let compact: String = first
        .chars()
        .take(2000)
        .filter(|c| !c.is_whitespace())
        .collect();
    if compact.starts_with("{\"kind\":0,\"v\":{") {
        return compact.contains("\"sessionId\"") || compact.contains("\"requests\"");
    }
    let near: String = start.chars().take(4000).collect();
    near.contains("\"requests\"")
        && (near.contains("\"requesterUsername\"") || near.contains("\"responderUsername\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Session {
        read_session(text.as_bytes(), &mut ReadStats::default()).unwrap()
    }

    #[test]
    fn a_log_replays_as_vs_code_writes_it() {
        let log = r#"{"kind":0,"v":{"version":3,"sessionId":"s1","creationDate":1,"requests":[]}}
{"kind":1,"k":["customTitle"],"v":"Fix the build"}
{"kind":2,"k":["requests"],"v":[{"requestId":"r1","timestamp":10,"message":{"text":"hi"},"response":[{"value":"a"},{"value":"b"}],"modelId":"copilot/gpt-4o"}]}
{"kind":2,"k":["requests",0,"response"],"v":[{"value":"bc"}],"i":1}
{"kind":1,"k":["requests",0,"result"],"v":{"metadata":{"promptTokens":100,"outputTokens":20}}}
{"kind":2,"k":["requests"],"v":[{"requestId":"r2","timestamp":20,"message":{"text":"undo me"},"promptTokens":7,"completionTokens":3}]}
{"kind":2,"k":["requests"],"i":1}
{"kind":1,"k":["requests",0,"vote"]}
{"kind":3,"k":["customTitle"]}
{"kind":1,"k":["requests",9,"x"],"v":1}"#;
        let session = read(log);
        let requests = session.state["requests"].as_array().unwrap();
        assert_eq!(requests.len(), 1, "the pure cut removed the second request");
        assert_eq!(
            requests[0]["response"],
            serde_json::json!([{"value":"a"},{"value":"bc"}])
        );
        assert!(session.state.get("customTitle").is_none());
        assert_eq!(session.usage.len(), 2, "the cut request was still billed");
        assert_eq!(session.usage["r1"].tokens.input_tokens, 100);
        assert_eq!(session.usage["r1"].model.as_deref(), Some("gpt-4o"));
        assert_eq!(session.usage["r2"].tokens.output_tokens, 3);
        assert!(looks_like_session(log));
    }

    #[test]
    fn a_snapshot_reads_whole_and_odd_logs_do_not_panic() {
        let snapshot = r#"{"version":3,"requesterUsername":"me","responderUsername":"GitHub Copilot","requests":[{"requestId":"r","timestamp":5,"promptTokens":1,"modelId":"copilot/auto"}],"sessionId":"x"}"#;
        assert_eq!(read(snapshot).usage["r"].model.as_deref(), Some("auto"));
        assert!(looks_like_session(snapshot));
        for odd in [
            "{\"kind\":1,\"k\":[\"a\"],\"v\":1}",
            "{\"kind\":0,\"v\":[]}\n{\"kind\":2,\"k\":[\"requests\",0],\"i\":99999999999}\n{\"kind\":1,\"k\":[\"requests\",4294967296],\"v\":1}",
            "{\"kind\":0,\"v\":{\"requests\":{}}}\n{\"kind\":2,\"k\":[\"requests\"],\"v\":5}\n{\"kind\":1,\"k\":[],\"v\":1}",
            "not json",
        ] {
            let _ = read_session(odd.as_bytes(), &mut ReadStats::default());
        }
    }
}
