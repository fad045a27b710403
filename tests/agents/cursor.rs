//! Cursor's chats as its editor store holds them (`<Cursor>/User/globalStorage/state.vscdb`).
//! Cursor is not open source: the layout is the one peers' readers of real stores describe
//! (kenn-io/agentsview `internal/parser/cursor.go` at `538600744d1b`,
//! Dicklesworthstone/franken_agent_detection `src/connectors/cursor.rs` at `6ae73d5f78d2`,
//! michaeldhood/chatrxiv `docs/cursor/storage-reference.md` at `1dd83bfeb354`): the two
//! key-value tables every VS Code store has (`key TEXT UNIQUE ON CONFLICT REPLACE, value
//! BLOB`), `cursorDiskKV` holding `composerData:<chat>` and `bubbleId:<chat>:<message>`
//! documents, and Cursor 3's `composerHeaders` table naming each chat's workspace.
//!
//! The traps: values declared `BLOB` but written as text, and some as blobs; a chat's header
//! list naming a message no row holds; a message row holding `null`; an older chat with its
//! messages inline (`conversation`, no `fullConversationHeadersOnly`); a chat with no
//! messages; a chat with no name (its first prompt names it); `default` as the model; a
//! message without its time; `tokenCount` at zero on every message (not usage: the truth has
//! none); a tool's call and result in one message with its arguments as JSON inside a string;
//! sign-in tokens in `ItemTable` that must never be read.

use super::{Listed, PLANTED, Rng, START_MILLIS, Truth, iso, title_of};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use std::path::Path;

/// A sign-in token the store keeps beside the chats: no view may show it.
pub const SECRET: &str = "cursor-access-token-qqxyzzy";

const SCHEMA: &str = "
    CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
    CREATE TABLE composerHeaders (composerId TEXT PRIMARY KEY, workspaceId TEXT,
        createdAt INTEGER, lastUpdatedAt INTEGER, isArchived INTEGER DEFAULT 0,
        isSubagent INTEGER DEFAULT 0, recency INTEGER, checkpointAt INTEGER, value TEXT);";

/// The store being written, and what it must give.
#[derive(Debug)]
pub struct Writer {
    db: Connection,
    rng: Rng,
    truth: Truth,
    at: i64,
}

/// One chat being written.
struct Chat {
    id: String,
    headers: Vec<Value>,
    inline: Vec<Value>,
    tool_calls: usize,
    first_prompt: Option<String>,
    /// Its messages' values written as blobs.
    as_blobs: bool,
}

impl Writer {
    /// A new store at `path` (WAL, as Cursor opens it).
    pub fn create(path: &Path, seed: u64) -> Writer {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let db = Connection::open(path).unwrap();
        db.execute_batch("PRAGMA journal_mode=WAL;").unwrap();
        db.execute_batch(SCHEMA).unwrap();
        for (key, value) in [
            ("cursorAuth/accessToken", SECRET),
            ("cursorAuth/cachedEmail", "dev@example.com"),
            ("workbench.sideBar.position", "0"),
        ] {
            db.execute(
                "INSERT INTO ItemTable (key, value) VALUES (?1, ?2)",
                params![key, value],
            )
            .unwrap();
        }
        Writer {
            db,
            rng: Rng::new(seed ^ 0xc0c5),
            truth: Truth::default(),
            at: START_MILLIS,
        }
    }

    fn tick(&mut self) -> i64 {
        self.at += 500 + self.rng.below(30_000) as i64;
        self.at
    }

    fn put(&self, key: &str, value: &Value, as_blob: bool) {
        let text = value.to_string();
        if as_blob {
            self.db
                .execute(
                    "INSERT INTO cursorDiskKV (key, value) VALUES (?1, ?2)",
                    params![key, text.as_bytes()],
                )
                .unwrap();
        } else {
            self.db
                .execute(
                    "INSERT INTO cursorDiskKV (key, value) VALUES (?1, ?2)",
                    params![key, text],
                )
                .unwrap();
        }
    }

    /// Adds a message to `chat` (its row, its place in the header list).
    fn bubble(&mut self, chat: &mut Chat, mut bubble: Value, timed: bool) {
        let id = self.rng.uuid();
        let at = self.tick();
        bubble["_v"] = json!(3);
        bubble["bubbleId"] = json!(id);
        bubble["tokenCount"] = json!({"inputTokens": 0, "outputTokens": 0});
        bubble["richText"] = json!("{\"root\":{\"children\":[]}}");
        if timed {
            bubble["createdAt"] = json!(iso(at));
        }
        let kind = bubble["type"].clone();
        let key = format!("bubbleId:{}:{id}", chat.id);
        self.put(&key, &bubble, chat.as_blobs);
        chat.headers.push(json!({"bubbleId": id, "type": kind}));
    }

    fn prompt(&mut self, chat: &mut Chat, text: &str) {
        if chat.first_prompt.is_none() {
            chat.first_prompt = Some(text.to_owned());
        }
        self.bubble(chat, json!({"type": 1, "text": text}), true);
    }

    fn reply(&mut self, chat: &mut Chat, text: &str, timed: bool) {
        let bubble = json!({"type": 2, "text": text,
            "thinking": {"text": "Look at the build log first.", "signature": "sig"},
            "capabilityType": 30});
        self.bubble(chat, bubble, timed);
    }

    fn tool(&mut self, chat: &mut Chat, command: &str) {
        chat.tool_calls += 1;
        let call = format!("toolu_{}", &self.rng.uuid()[..8]);
        let bubble = json!({"type": 2, "text": "", "capabilityType": 15,
            "toolFormerData": {"tool": 15, "name": "run_terminal_command_v2",
                "toolCallId": call, "status": "completed", "rawArgs": "",
                "params": json!({"command": command}).to_string(),
                "result": json!({"output": "ok", "exitCode": 0}).to_string()}});
        self.bubble(chat, bubble, true);
    }

    /// Writes the chat's document (and its header row when `project` is given).
    fn document(&mut self, chat: &Chat, name: Option<&str>, model: &str, project: Option<&str>) {
        let created = self.at - 60_000;
        let updated = self.tick();
        let mut document = json!({"_v": 10, "composerId": chat.id, "createdAt": created,
            "lastUpdatedAt": updated, "status": "completed", "unifiedMode": "agent",
            "modelConfig": {"modelName": model, "maxMode": false},
            "fullConversationHeadersOnly": chat.headers, "conversationMap": {},
            "usageData": {}, "blobEncryptionKey": "not-a-chat-field"});
        if let Some(name) = name {
            document["name"] = json!(name);
        }
        if !chat.inline.is_empty() {
            // An older chat: its messages inline, no header list, no version.
            let object = document.as_object_mut().unwrap();
            object.remove("_v");
            object.remove("fullConversationHeadersOnly");
            object.insert("conversation".into(), json!(chat.inline));
        }
        self.put(&format!("composerData:{}", chat.id), &document, false);
        if let Some(project) = project {
            let head = json!({"type": "head", "composerId": chat.id, "name": name,
                "workspaceIdentifier": {"id": "ws", "uri": {"fsPath": project,
                    "scheme": "file"}}});
            self.db
                .execute(
                    "INSERT INTO composerHeaders (composerId, workspaceId, createdAt,
                     lastUpdatedAt, recency, value) VALUES (?1, 'ws', ?2, ?3, ?3, ?4)",
                    params![chat.id, created, updated, head.to_string()],
                )
                .unwrap();
        }
    }

    fn new_chat(&mut self, as_blobs: bool) -> Chat {
        Chat {
            id: self.rng.uuid(),
            headers: Vec::new(),
            inline: Vec::new(),
            tool_calls: 0,
            first_prompt: None,
            as_blobs,
        }
    }

    /// Writes `count` chats, in one transaction.
    pub fn chats(&mut self, count: usize) {
        self.db.execute_batch("BEGIN").unwrap();
        for n in 0..count {
            let mut chat = self.new_chat(n == 3);
            let prompt = if n == 1 {
                format!("Find where {PLANTED} is configured")
            } else {
                format!("Fix the failing build, part {n}\nwith details")
            };
            if n == 2 {
                // An older chat: its messages inline in its document.
                chat.first_prompt = Some(prompt.clone());
                chat.inline = vec![
                    json!({"type": 1, "bubbleId": self.rng.uuid(), "text": prompt}),
                    json!({"type": 2, "bubbleId": self.rng.uuid(), "text": "Done: it builds."}),
                ];
            } else {
                self.prompt(&mut chat, &prompt);
                self.reply(&mut chat, "Let me run the build.", n != 4);
                self.tool(&mut chat, "cargo build");
                if n % 2 == 1 {
                    self.tool(&mut chat, "cargo test");
                }
                self.reply(&mut chat, "Done: the build passes.", true);
            }
            if n == 3 {
                // A message the list names that no row holds, and a row holding null.
                chat.headers.push(json!({"bubbleId": "gone", "type": 2}));
                self.put(
                    &format!("bubbleId:{}:emptied", chat.id),
                    &Value::Null,
                    false,
                );
            }
            let name = (n != 0).then(|| format!("Build fix {n}"));
            let model = if n % 3 == 0 {
                "default"
            } else {
                "claude-4.5-sonnet"
            };
            let project = format!("/home/dev/app{}", n % 3);
            self.document(
                &chat,
                name.as_deref(),
                model,
                (n % 2 == 1).then_some(&*project),
            );
            let title = name.unwrap_or_else(|| title_of(chat.first_prompt.as_deref().unwrap()));
            self.truth.conversations.insert(
                chat.id.clone(),
                Listed {
                    id: chat.id.clone(),
                    title,
                    tool_calls: chat.tool_calls,
                },
            );
        }
        // A chat opened and left empty: no messages, not listed.
        let empty = self.new_chat(false);
        self.document(&empty, None, "default", None);
        self.db.execute_batch("COMMIT").unwrap();
    }

    /// The store's connection (a test keeps writing through it).
    pub fn connection(&self) -> &Connection {
        &self.db
    }

    /// Writes one more chat (a prompt holding `word`, and an answer), as Cursor does while a
    /// mirror follows it; answers its id.
    pub fn one_more(&mut self, word: &str) -> String {
        let mut chat = self.new_chat(false);
        self.prompt(&mut chat, &format!("Tell me about {word}"));
        self.reply(&mut chat, "Here it is.", true);
        let name = format!("About {word}");
        self.document(&chat, Some(&name), "gpt-5", None);
        self.truth.conversations.insert(
            chat.id.clone(),
            Listed {
                id: chat.id.clone(),
                title: name,
                tool_calls: 0,
            },
        );
        chat.id
    }

    /// The truth so far.
    pub fn truth(&self) -> &Truth {
        &self.truth
    }

    /// Ends the writing: the truth, with the bytes the store holds.
    pub fn finish(self, path: &Path) -> Truth {
        let mut truth = self.truth;
        drop(self.db);
        truth.bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        truth
    }
}

/// Writes a Cursor `globalStorage` folder with `chats` chats under `root` (`state.vscdb`);
/// answers its truth (no tokens: Cursor keeps none).
pub fn tree(root: &Path, chats: usize, seed: u64) -> Truth {
    let path = root.join("state.vscdb");
    for stale in ["state.vscdb", "state.vscdb-wal", "state.vscdb-shm"] {
        let _ = std::fs::remove_file(root.join(stale));
    }
    let mut writer = Writer::create(&path, seed);
    writer.chats(chats);
    writer.finish(&path)
}
