//! `cursor-agent`'s chats as the CLI leaves them (`~/.cursor/chats/<workspace hash>/<chat>/
//! store.db`). Cursor is not open source: the layout is the one peers' readers of real stores
//! describe (the format guide of a Go reader of `store.db`, and `meta`/`blobs` readers in
//! TypeScript and Python, found by the library search), read, not copied: a `meta` row `0`
//! holding the chat's document as hex-encoded JSON, a `blobs` table of messages and tree nodes
//! keyed by 64-hex ids.
//!
//! The traps: the document hex-encoded; a system prompt (not a message of the chat); a prompt
//! whose context (`<user_info>`) sits beside the `<user_query>` the person typed, and one of
//! context alone; every reply's `id` "1"; a reply's model only in `providerOptions` (and
//! `default` as the chat's last model); a tool's result as a string and as text parts, one an
//! error; the tree nested (a node of nodes) with a message after a node's references; a blob
//! left from an older root that is no longer in the chat; no times and no tokens (the truth
//! has none); a store whose chat has no message (not listed).

use super::{Listed, PLANTED, Rng, START_MILLIS, Truth, title_of};
use rusqlite::{Connection, params};
use serde_json::{Value, json};
use std::path::Path;

/// The models the chats name.
pub const MODELS: [&str; 2] = ["claude-4.5-opus-high-thinking", "gpt-5"];

struct Store {
    db: Connection,
    rng: Rng,
}

impl Store {
    fn id(&mut self) -> String {
        (0..4)
            .map(|_| format!("{:016x}", self.rng.draw()))
            .collect()
    }

    /// Writes a blob; answers its id.
    fn blob(&mut self, data: &[u8]) -> String {
        let id = self.id();
        self.db
            .execute(
                "INSERT INTO blobs (id, data) VALUES (?1, ?2)",
                params![id, data],
            )
            .unwrap();
        id
    }

    fn message(&mut self, message: &Value) -> String {
        self.blob(message.to_string().as_bytes())
    }

    /// A tree node: its children's references, and a message after them when given.
    fn node(&mut self, children: &[String], message: Option<&Value>) -> String {
        let mut data = Vec::new();
        for child in children {
            data.extend_from_slice(&[0x0a, 0x20]);
            for at in (0..64).step_by(2) {
                data.push(u8::from_str_radix(&child[at..at + 2], 16).unwrap());
            }
        }
        if let Some(message) = message {
            data.extend_from_slice(message.to_string().as_bytes());
        }
        self.blob(&data)
    }
}

/// A chat's document as `cursor-agent` keeps it: its JSON, hex-encoded.
fn hex_of(document: &Value) -> String {
    document
        .to_string()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn prompt(text: &str) -> Value {
    json!({"role": "user", "content": format!(
        "<user_info>\nOS Version: linux\nShell: bash\n</user_info>\n\n<user_query>\n{text}\n</user_query>")})
}

fn reply(text: &str, model: &str, call: Option<(&str, Value)>) -> Value {
    let mut content = vec![
        json!({"type": "reasoning", "text": "Check the build first.", "signature": "c2ln",
            "providerOptions": {"cursor": {"modelName": model}}}),
        json!({"type": "text", "text": text}),
    ];
    if let Some((id, args)) = call {
        content.push(
            json!({"type": "tool-call", "toolCallId": id, "toolName": "Shell",
            "args": args, "providerOptions": {"cursor": {"rawToolCallArgs": args.to_string()}}}),
        );
    }
    json!({"id": "1", "role": "assistant", "content": content})
}

fn result(id: &str, output: Value, error: bool) -> Value {
    json!({"role": "tool", "id": id, "content": [{"type": "tool-result", "toolName": "Shell",
        "toolCallId": id, "result": output, "isError": error}]})
}

/// Writes one chat's store at `path`; answers its tool calls.
fn chat(path: &Path, rng: &mut Rng, id: &str, n: usize, prompt_text: &str) -> usize {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let _ = std::fs::remove_file(path);
    let db = Connection::open(path).unwrap();
    db.execute_batch(
        "PRAGMA journal_mode=WAL;
         CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
    )
    .unwrap();
    let mut store = Store {
        db,
        rng: Rng::new(rng.draw()),
    };
    let model = MODELS[n % 2];
    let call = |k: usize| format!("toolu_{n:02}{k:02}{}", "x".repeat(20));
    let system =
        store.message(&json!({"role": "system", "content": "You are an AI coding assistant."}));
    let context = store.message(&json!({"role": "user",
        "content": "<user_info>\nOS Version: linux\n</user_info>"}));
    let first = store.message(&prompt(prompt_text));
    let (c1, c2) = (call(1), call(2));
    let asked = store.message(&reply(
        "Let me run the build.",
        model,
        Some((&c1, json!({"command": "cargo build"}))),
    ));
    let ran = store.message(&result(&c1, json!("Finished `dev` profile"), false));
    let mut tool_calls = 1;
    // The first turn as a node of its own (a node of nodes).
    let turn = store.node(&[context, first, asked, ran], None);
    let mut top = vec![system, turn];
    if n % 2 == 1 {
        tool_calls += 1;
        let again = store.message(&reply(
            "And the tests.",
            model,
            Some((&c2, json!({"command": "cargo test"}))),
        ));
        let failed = store.message(&result(
            &c2,
            json!([{"type": "text", "text": "test result: FAILED."},
                {"type": "text", "text": "1 failed"}]),
            true,
        ));
        top.extend([again, failed]);
    }
    // A node with a message after its references: the last reply.
    let done = reply("Done: the build passes.", model, None);
    let tail = store.node(&[], Some(&done));
    top.push(tail);
    let root = store.node(&top, None);
    // A blob from an older root, no longer in the chat.
    store.message(&json!({"role": "user", "content": "<user_query>\nstale draft\n</user_query>"}));
    let document = json!({"agentId": id, "latestRootBlobId": root, "name": (n != 0).then(|| format!("Agent fix {n}")),
        "mode": "auto-run", "createdAt": START_MILLIS + n as i64 * 3_600_000,
        "lastUsedModel": if n.is_multiple_of(3) { "default" } else { model }});
    let hex = hex_of(&document);
    store
        .db
        .execute(
            "INSERT INTO meta (key, value) VALUES ('0', ?1)",
            params![hex],
        )
        .unwrap();
    tool_calls
}

/// Writes `sessions` chats (at least 3 for every trap) under `root`, `cursor-agent`'s
/// `~/.cursor/chats`, and answers their truth (no tokens: the CLI keeps none).
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x0063_6c69);
    for n in 0..sessions {
        let id = rng.uuid();
        let workspace = format!("{:016x}{:016x}", n % 2, 0xabcd_u64 + (n % 2) as u64);
        let path = root.join(&workspace).join(&id).join("store.db");
        let prompt_text = if n == 1 {
            format!("Find where {PLANTED} is configured")
        } else {
            format!("Fix the failing build, part {n}\nwith details")
        };
        let tool_calls = chat(&path, &mut rng, &id, n, &prompt_text);
        truth.bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
        let title = if n == 0 {
            title_of(&prompt_text)
        } else {
            format!("Agent fix {n}")
        };
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title,
                tool_calls,
            },
        );
    }
    // A chat opened and left: its store has no message.
    let empty = root
        .join("0000000000000000000000000000abcd")
        .join(rng.uuid());
    std::fs::create_dir_all(&empty).unwrap();
    let db = Connection::open(empty.join("store.db")).unwrap();
    db.execute_batch(
        "CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB);
         CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
    )
    .unwrap();
    truth
}

/// Adds a turn to the chat whose store is at `path`, as `cursor-agent` does while a mirror
/// follows it: a prompt holding `word` and a reply, under a new root whose first child is the
/// old one (in the write-ahead log, not checkpointed).
pub fn add_turn(path: &Path, word: &str) {
    let db = Connection::open(path).unwrap();
    db.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;")
        .unwrap();
    let hex: String = db
        .query_row("SELECT value FROM meta WHERE key = '0'", [], |r| r.get(0))
        .unwrap();
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).unwrap())
        .collect();
    let mut document: Value = serde_json::from_slice(&bytes).unwrap();
    let old = document["latestRootBlobId"].as_str().unwrap().to_owned();
    let mut store = Store {
        db,
        rng: Rng::new(word.len() as u64 ^ 0x7475_726e),
    };
    let asked = store.message(&prompt(&format!("Tell me about {word}")));
    let answered = store.message(&reply("Here it is.", MODELS[0], None));
    let root = store.node(&[old, asked, answered], None);
    document["latestRootBlobId"] = json!(root);
    let hex = hex_of(&document);
    store
        .db
        .execute("UPDATE meta SET value = ?1 WHERE key = '0'", params![hex])
        .unwrap();
    // Kept open: a checkpoint on close would fold the log into the file.
    std::mem::forget(store.db);
}
