//! OpenCode's sessions before its database (1.1 and older; Kilo CLI until April 2026): one JSON
//! document per row under `storage/` — `session/<project>/<session>.json`,
//! `message/<session>/<message>.json` and `part/<message>/<part>.json` — each id taken from its
//! path, as OpenCode's own move to the database takes it. That move leaves the tree on disk:
//! a session in both is one session (its conversation and its usage rows have the same keys
//! from either), and one the move left behind (its project's file gone) is read from the tree.

use super::{DataRow, SessionRow, Store, slim};
use crate::transcripts::Provider;
use serde_json::Value;
use std::collections::HashMap;

/// The folder a tree is kept in, inside the agent's data folder.
pub const STORAGE: &str = "storage";

/// The largest file of a tree read (a bigger one is counted as too long, and left out).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Which of a tree's folders a file is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `session/<project>/<session>.json`.
    Session,
    /// `message/<session>/<message>.json`.
    Message,
    /// `part/<message>/<part>.json`.
    Part,
}

/// Where a file of a tree sits: its kind, the id its folder gives (the project, session or
/// message it belongs to), its own id, and the tree's `storage` folder. `None` for a path no
/// tree's file has (`/` or `\` separated).
pub fn place_of(path: &str) -> Option<(Kind, &str, &str, &str)> {
    let mut folders = path.rsplitn(5, ['/', '\\']);
    let (file, folder, kind) = (folders.next()?, folders.next()?, folders.next()?);
    let storage = folders.next()?;
    if storage != STORAGE {
        return None;
    }
    let id = file.strip_suffix(".json").filter(|id| !id.is_empty())?;
    let kind = match kind {
        "session" => Kind::Session,
        "message" => Kind::Message,
        "part" => Kind::Part,
        _ => return None,
    };
    if folder.is_empty() {
        return None;
    }
    // The path up to and with `storage`.
    let tail = file.len()
        + folder.len()
        + 1
        + match kind {
            Kind::Session => "session".len(),
            Kind::Message => "message".len(),
            Kind::Part => "part".len(),
        }
        + 1;
    let root = &path[..path.len() - tail - 1];
    Some((kind, folder, id, root))
}

/// Which agent kept the tree at `root` (its `storage` folder): Kilo CLI's is in its own data
/// folder (`…/kilo/storage`) or names Kilo's versions; every other is OpenCode's.
pub fn provider_of(root: &str, store: &Store) -> Provider {
    let in_kilo = root
        .rsplit(['/', '\\'])
        .nth(1)
        .is_some_and(|folder| folder.eq_ignore_ascii_case("kilo"));
    if in_kilo {
        Provider::Kilo
    } else {
        super::provider_of("storage", store)
    }
}

/// A tree read one file at a time, in any order.
#[derive(Debug, Default)]
pub struct Tree {
    store: Store,
}

/// A time in a row's JSON (ms), when it is one.
fn millis(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| value.as_f64().map(|f| f as i64))
}

impl Tree {
    /// Adds one of the tree's files, whole; `false` when the path is none of a tree's (the
    /// file is then not read). A file that is no JSON object counts as malformed.
    pub fn add(&mut self, path: &str, bytes: &[u8]) -> bool {
        let Some((kind, folder, id, _)) = place_of(path) else {
            return false;
        };
        let stats = &mut self.store.stats;
        stats.lines += 1;
        let parsed = serde_json::from_slice::<Value>(bytes)
            .ok()
            .filter(Value::is_object);
        let Some(mut data) = parsed else {
            stats.malformed += 1;
            return true;
        };
        let text = |value: &Value| value.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
        let time = &data["time"];
        let created = millis(&time["created"])
            .or_else(|| millis(&time["start"]))
            .unwrap_or(0);
        let updated = millis(&time["updated"])
            .or_else(|| millis(&time["completed"]))
            .or_else(|| millis(&time["end"]))
            .unwrap_or(created);
        match kind {
            Kind::Session => self.store.sessions.push(SessionRow {
                id: id.to_owned(),
                parent: text(&data["parentID"]),
                title: text(&data["title"]),
                directory: text(&data["directory"]),
                version: text(&data["version"]),
                created,
            }),
            Kind::Message | Kind::Part => {
                let session = match kind {
                    Kind::Message => folder.to_owned(),
                    // Else found through its message when the tree is finished.
                    _ => text(&data["sessionID"]).unwrap_or_default(),
                };
                let message = match kind {
                    Kind::Part => folder.to_owned(),
                    _ => String::new(),
                };
                if !slim(&mut data) {
                    return true;
                }
                let row = DataRow {
                    id: id.to_owned(),
                    message,
                    session,
                    created,
                    updated,
                    data,
                };
                match kind {
                    Kind::Message => self.store.messages.push(row),
                    _ => self.store.parts.push(row),
                }
            }
        }
        true
    }

    /// The tree's rows as a database's: each part's session found through its message where
    /// its JSON names none, rows in the order they were made.
    pub fn finish(mut self) -> Store {
        let sessions: HashMap<&str, &str> = self
            .store
            .messages
            .iter()
            .map(|m| (m.id.as_str(), m.session.as_str()))
            .collect();
        let mut found: Vec<(usize, String)> = Vec::new();
        for (at, part) in self.store.parts.iter().enumerate() {
            if part.session.is_empty()
                && let Some(session) = sessions.get(part.message.as_str())
            {
                found.push((at, (*session).to_owned()));
            }
        }
        for (at, session) in found {
            self.store.parts[at].session = session;
        }
        let order = |a: &DataRow, b: &DataRow| (a.created, &a.id).cmp(&(b.created, &b.id));
        self.store.messages.sort_by(order);
        self.store.parts.sort_by(order);
        self.store.sessions.sort_by(|a, b| a.id.cmp(&b.id));
        self.store
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_a_rows_kind_folder_id_and_tree() {
        let root = "/h/.local/share/opencode/storage";
        assert_eq!(
            place_of(&format!("{root}/session/global/ses_1.json")),
            Some((Kind::Session, "global", "ses_1", root))
        );
        assert_eq!(
            place_of(&format!("{root}/message/ses_1/msg_2.json")),
            Some((Kind::Message, "ses_1", "msg_2", root))
        );
        assert_eq!(
            place_of("storage\\part\\msg_2\\prt_3.json"),
            Some((Kind::Part, "msg_2", "prt_3", "storage"))
        );
        assert_eq!(place_of(&format!("{root}/project/p.json")), None);
        assert_eq!(place_of(&format!("{root}/todo/ses_1.json")), None);
        assert_eq!(place_of(&format!("{root}/session/global/.json")), None);
        assert_eq!(place_of("session/global/ses_1.json"), None);
        assert_eq!(place_of("/x/session/global/ses_1.json"), None);
        assert_eq!(place_of(""), None);
    }

    #[test]
    fn hostile_files_are_counted_and_never_panic() {
        let mut tree = Tree::default();
        let root = "storage";
        let files: &[(&str, &[u8])] = &[
            // Sessions whose parents loop, wrong types everywhere.
            (
                "session/p/ses_a.json",
                br#"{"parentID":"ses_b","title":7,"time":{"created":"x"}}"#,
            ),
            (
                "session/p/ses_b.json",
                br#"{"parentID":"ses_a","directory":["/w"],"time":null}"#,
            ),
            (
                "message/ses_a/msg_1.json",
                br#"{"role":"assistant","time":{"created":1e300},"tokens":"many","cost":"free"}"#,
            ),
            ("message/ses_a/msg_2.json", br#"[1,2,3]"#),
            ("message/ses_gone/msg_3.json", br#"{"role":"user"}"#),
            // A part of a message no file holds; a step with wrong-typed tokens.
            ("part/msg_9/prt_1.json", br#"{"type":"text","text":5}"#),
            (
                "part/msg_1/prt_2.json",
                br#"{"type":"step-finish","tokens":{"input":-5,"cache":"x"}}"#,
            ),
            ("part/msg_1/prt_3.json", b""),
        ];
        for (path, bytes) in files {
            assert!(tree.add(&format!("{root}/{path}"), bytes));
        }
        let store = tree.finish();
        assert_eq!(store.stats.malformed, 2);
        let parsed = super::super::conversations(Provider::Opencode, &store);
        assert!(parsed.conversations.len() <= 2);
        let _ = super::super::usage_rows(Provider::Opencode, &store);
    }

    #[test]
    fn a_tree_reads_as_its_database_would() {
        let mut tree = Tree::default();
        let root = "/h/.local/share/kilo/storage";
        assert!(tree.add(
            &format!("{root}/session/p1/ses_a.json"),
            br#"{"id":"ses_a","title":"Fix it","directory":"/w/app","version":"0.15.2","time":{"created":10,"updated":20}}"#
        ));
        assert!(tree.add(
            &format!("{root}/message/ses_a/msg_2.json"),
            br#"{"id":"msg_2","sessionID":"ses_a","role":"assistant","time":{"created":12,"completed":15}}"#
        ));
        assert!(tree.add(
            &format!("{root}/message/ses_a/msg_1.json"),
            br#"{"id":"msg_1","sessionID":"ses_a","role":"user","time":{"created":11}}"#
        ));
        // A part that names no session: found through its message.
        assert!(tree.add(
            &format!("{root}/part/msg_2/prt_1.json"),
            br#"{"id":"prt_1","messageID":"msg_2","type":"text","text":"done"}"#
        ));
        // Bookkeeping is not kept; a broken file counts as malformed; other files are none.
        assert!(tree.add(
            &format!("{root}/part/msg_2/prt_0.json"),
            br#"{"type":"step-start"}"#
        ));
        assert!(tree.add(&format!("{root}/part/msg_2/prt_9.json"), b"{\"type\""));
        assert!(!tree.add(&format!("{root}/project/p1.json"), b"{}"));
        let store = tree.finish();
        assert_eq!(provider_of(root, &store), Provider::Kilo);
        assert_eq!(store.sessions.len(), 1);
        assert_eq!(store.sessions[0].directory.as_deref(), Some("/w/app"));
        let ids: Vec<&str> = store.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["msg_1", "msg_2"]);
        assert_eq!(store.messages[1].updated, 15);
        assert_eq!(store.parts.len(), 1);
        assert_eq!(store.parts[0].session, "ses_a");
        assert_eq!(store.stats.malformed, 1);
        assert_eq!(store.stats.lines, 6);
        let parsed = super::super::conversations(Provider::Kilo, &store);
        assert_eq!(parsed.conversations.len(), 1);
        assert_eq!(parsed.conversations[0].title.as_deref(), Some("Fix it"));
        assert_eq!(parsed.conversations[0].messages.len(), 2);
    }
}
