//! `cursor-agent`'s chats while it works: a turn added to a chat, and a new chat, while
//! `baton mirror --follow` runs arrive once each; a process holding a chat's write lock
//! neither blocks a pass nor is blocked; hostile stores (a tree that loops, blobs that are no
//! JSON, a document that is no hex) get counts, never a panic; the transcripts Cursor writes
//! of its chats give way to them.

use baton_tests::agents::{cursor_cli, cursor_transcripts};
use baton_tests::{
    Killed, WriteHolder, assert_success, baton, eventually, index_count as count, json_of,
    listed_in as listed,
};
use std::path::{Path, PathBuf};
use std::process::Stdio;

const MESSAGES: &str = "SELECT count(*) FROM messages m JOIN conversations c
    ON c.id = m.conversation WHERE c.provider = 'cursor'";

/// The chat stores under `root` that hold a chat (the tree keeps one without), in path order.
fn stores(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = item.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "store.db")
                && count(&path, "SELECT count(*) FROM meta") > 0
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn turns_and_chats_written_while_the_mirror_follows_arrive_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("chats");
    let truth = cursor_cli::tree(&root, 3, 61);
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let child = baton(&dir)
        .args(["mirror", "--follow", "--cursor-cli-dir"])
        .arg(&root)
        .arg("--index")
        .arg(&index)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _following = Killed(child);
    // The first pass stores each chat's store as it reads it: it is over once every chat is in.
    let chats = truth.conversations.len() as i64;
    let mut first = 0;
    eventually("the first pass", || {
        let stored = count(
            &index,
            "SELECT count(*) FROM conversations WHERE provider = 'cursor'",
        );
        match count(&index, MESSAGES) {
            n if n > 0 && stored == chats => {
                first = n;
                Ok(())
            }
            n => Err(format!("{n} message(s) in {stored} of {chats} chat(s)")),
        }
    });
    // A turn added to a chat: its two messages, once.
    let chat = stores(&root)[0].clone();
    cursor_cli::add_turn(&chat, "laterword");
    eventually("the new turn", || match count(&index, MESSAGES) {
        n if n == first + 2 => Ok(()),
        n => Err(format!("{n} message(s), {first} before")),
    });
    // A new chat's store.
    let more = tmp.path().join("more");
    let added = cursor_cli::tree(&more, 1, 67);
    let id = added.conversations.keys().next().unwrap().clone();
    let from = stores(&more)[0].clone();
    let to = root.join("0000000000000000000000000000beef").join(&id);
    std::fs::create_dir_all(&to).unwrap();
    std::fs::copy(&from, to.join("store.db")).unwrap();
    eventually("the new chat", || {
        let rows = listed(&dir, &index)["conversations"]
            .as_array()
            .map_or(0, Vec::len);
        if rows == truth.conversations.len() + 1 {
            Ok(())
        } else {
            Err(format!("{rows} chat(s)"))
        }
    });
    let found = json_of(
        &baton(&dir)
            .args(["--json", "search", "laterword", "--index"])
            .arg(&index)
            .output()
            .unwrap(),
    );
    assert_eq!(found["hits"].as_array().map_or(0, Vec::len), 1, "{found}");
}

#[test]
fn a_process_holding_a_chats_write_lock_neither_blocks_a_pass_nor_is_blocked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("chats");
    let truth = cursor_cli::tree(&root, 3, 71);
    let chat = stores(&root)[0].clone();
    let holder = WriteHolder::start(
        env!("CARGO_BIN_EXE_db-holder"),
        &chat,
        "INSERT INTO blobs (id, data) VALUES ('uncommitted', '{\"role\":\"user\",\"content\":\"hi\"}');",
    );
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let mut pass = baton(&dir);
    pass.args(["--json", "mirror", "--cursor-cli-dir"])
        .arg(&root)
        .arg("--index")
        .arg(&index);
    let passed = baton_tests::output_within(pass, 60);
    assert_success(&passed, format_args!("mirror while the lock is held"));
    assert_eq!(
        json_of(&passed)["pass"]["failed"],
        0,
        "{}",
        json_of(&passed)
    );
    let rows = listed(&dir, &index)["conversations"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(rows, truth.conversations.len());
    holder.commit();
}

#[test]
fn hostile_stores_get_counts_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("chats");
    let truth = cursor_cli::tree(&root, 3, 73);
    let chats = stores(&root);
    let looped = "ab".repeat(32);
    {
        // A tree whose root lists itself and a node that is no JSON, beside a message.
        let db = rusqlite::Connection::open(&chats[0]).unwrap();
        let mut node = vec![0x0a, 0x20];
        node.extend(std::iter::repeat_n(0xab, 32));
        node.extend_from_slice(
            b"{\"role\":\"user\",\"content\":\"<user_query>looped</user_query>\"}",
        );
        db.execute(
            "INSERT INTO blobs (id, data) VALUES (?1, ?2), ('cd', x'0a20ff'), ('ef', '{\"role\":7}')",
            rusqlite::params![looped, node],
        )
        .unwrap();
        let document = format!("{{\"agentId\":\"looped\",\"latestRootBlobId\":\"{looped}\"}}");
        let hex: String = document.bytes().map(|b| format!("{b:02x}")).collect();
        db.execute("UPDATE meta SET value = ?1 WHERE key = '0'", [hex])
            .unwrap();
        // A document that is no hex; a huge blob.
        let db = rusqlite::Connection::open(&chats[1]).unwrap();
        db.execute("UPDATE meta SET value = 'zz-not-hex' WHERE key = '0'", [])
            .unwrap();
        db.execute(
            "INSERT INTO blobs (id, data) VALUES ('huge', ?1)",
            [format!(
                "{{\"role\":\"user\",\"content\":\"{}\"}}",
                "x".repeat(3 << 20)
            )],
        )
        .unwrap();
    }
    let dir = tmp.path().join(".baton");
    let analyzed = baton(&dir)
        .args(["--json", "analyze", root.to_str().unwrap(), "--list", "100"])
        .output()
        .unwrap();
    assert_success(&analyzed, format_args!("analyze the hostile stores"));
    let report = json_of(&analyzed);
    // The document that is no hex and the blob that reads as no message are counted.
    let malformed: u64 = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["stats"]["malformed"].as_u64().unwrap_or(0))
        .sum();
    assert!(malformed >= 1, "{report}");
    let rows = report["conversations"]["rows"].as_array().unwrap();
    // The looped chat is read once (its one message); the store whose document is no hex has
    // no root to read from; the third is whole.
    assert_eq!(rows.len(), truth.conversations.len() - 1, "{report}");
    assert!(
        rows.iter()
            .any(|r| r["id"] == "looped" && r["messages"] == 1),
        "{report}"
    );
    let index = tmp.path().join("index.sqlite");
    let out = baton(&dir)
        .args(["--json", "mirror", "--cursor-cli-dir"])
        .arg(&root)
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&out, format_args!("mirror the hostile stores"));
}

/// Cursor writes a transcript of each agent chat: read with `cursor-agent`'s stores, a chat
/// both hold is listed once, as its store has it.
#[test]
fn a_transcript_of_a_cli_chat_gives_way_to_its_store() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("chats");
    let truth = cursor_cli::tree(&root, 3, 79);
    let projects = tmp.path().join("projects");
    let copies = cursor_transcripts::copies_of(&truth);
    let transcripts = cursor_transcripts::tree(&projects, 3, 83, &copies);
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let out = baton(&dir)
        .args(["mirror", "--cursor-transcripts-dir"])
        .arg(&projects)
        .arg("--cursor-cli-dir")
        .arg(&root)
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&out, format_args!("mirror"));
    let list = listed(&dir, &index);
    let rows = list["conversations"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        truth.conversations.len() + transcripts.conversations.len() - 1,
        "{list}"
    );
    let copied = &copies[0].0;
    let row = rows
        .iter()
        .find(|r| r["provider_id"] == copied.as_str())
        .unwrap();
    assert_eq!(row["title"], truth.conversations[copied].title, "{row}");
}
