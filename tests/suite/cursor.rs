//! Cursor's store while Cursor uses it: chats written while `baton mirror --follow` runs
//! arrive once each, a message rewritten in place is read again without a new message; a
//! process holding the write lock neither blocks a pass nor is blocked; the sign-in tokens
//! and keys the store keeps beside the chats are never read; hostile rows get counts, never
//! a panic; its agents' transcripts copying its chats give way to the store's.

use baton_tests::agents::cursor::{self, SECRET, Writer};
use baton_tests::{
    Killed, WriteHolder, assert_success, baton, eventually, index_count as count,
    index_hits as hits, json_of, listed_in as listed,
};
use std::path::Path;
use std::process::Stdio;

const MESSAGES: &str = "SELECT count(*) FROM messages m JOIN conversations c
    ON c.id = m.conversation WHERE c.provider = 'cursor'";

#[test]
fn chats_written_while_the_mirror_follows_arrive_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("globalStorage");
    let mut writer = Writer::create(&root.join("state.vscdb"), 21);
    writer.chats(3);
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let child = baton(&dir)
        .args(["mirror", "--follow", "--cursor-dir"])
        .arg(&root)
        .arg("--index")
        .arg(&index)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _following = Killed(child);
    let mut first = 0;
    eventually("the first pass", || match count(&index, MESSAGES) {
        n if n > 0 => {
            first = n;
            Ok(())
        }
        n => Err(format!("{n} message(s)")),
    });
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(
        count(&index, MESSAGES),
        first,
        "a pass with nothing new adds nothing"
    );

    // A new chat: a prompt and a reply (with its thinking), in the log, not checkpointed.
    writer.one_more("laterword");
    eventually("the new chat", || match count(&index, MESSAGES) {
        n if n == first + 2 => Ok(()),
        n => Err(format!("{n} message(s), {first} before")),
    });
    eventually("the new chat found", || match hits(&index, "laterword") {
        1 => Ok(()),
        n => Err(format!("{n} hit(s)")),
    });

    // A reply rewritten in place as its stream ends: its new words found, no new message.
    writer
        .connection()
        .execute(
            "UPDATE cursorDiskKV SET value = json_set(value, '$.text', 'Here it is, rewrittenword.')
             WHERE key LIKE 'bubbleId:%' AND value LIKE '%Here it is.%'",
            [],
        )
        .unwrap();
    eventually("the rewritten reply", || {
        match (hits(&index, "rewrittenword"), count(&index, MESSAGES)) {
            (1, n) if n == first + 2 => Ok(()),
            (h, n) => Err(format!("{h} hit(s), {n} message(s)")),
        }
    });
    // The chats are the truth's, and what the store keeps beside them is never read.
    let listed = listed(&dir, &index);
    let rows = listed["conversations"].as_array().unwrap();
    assert_eq!(rows.len(), writer.truth().conversations.len(), "{listed}");
    for word in [SECRET, "not-a-chat-field", "example.com"] {
        assert_eq!(hits(&index, &format!("\"{word}\"")), 0, "{word}");
    }
    let found = json_of(
        &baton(&dir)
            .args(["--json", "search", "qqxyzzy", "--index"])
            .arg(&index)
            .output()
            .unwrap(),
    );
    assert_eq!(found["hits"].as_array().map_or(0, Vec::len), 0, "{found}");
}

#[test]
fn a_process_holding_the_write_lock_neither_blocks_a_pass_nor_is_blocked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("globalStorage");
    let truth = cursor::tree(&root, 4, 23);
    let path = root.join("state.vscdb");
    // Cursor: the write lock taken, a chat written, not yet committed.
    let holder = WriteHolder::start(env!("CARGO_BIN_EXE_db-holder"), &path, "INSERT INTO cursorDiskKV (key, value) VALUES
                 ('composerData:uncommitted', '{\"composerId\":\"uncommitted\",\"name\":\"Uncommitted\",\"conversation\":[{\"type\":1,\"text\":\"hello\"}]}');");
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let mut pass = baton(&dir);
    pass.args(["--json", "mirror", "--cursor-dir"])
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
    let listed = listed(&dir, &index);
    let rows = listed["conversations"].as_array().unwrap();
    assert_eq!(rows.len(), truth.conversations.len(), "{listed}");
    assert!(!listed.to_string().contains("Uncommitted"));
    holder.commit();
}

#[test]
fn hostile_rows_get_counts_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("globalStorage");
    let truth = cursor::tree(&root, 3, 29);
    let path = root.join("state.vscdb");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "INSERT INTO cursorDiskKV (key, value) VALUES
                 ('composerData:a', '12'),
                 ('composerData:b', '{\"composerId\":\"b\",\"fullConversationHeadersOnly\":\"many\"}'),
                 ('composerData:c', '{\"composerId\":\"c\",\"fullConversationHeadersOnly\":[{\"bubbleId\":\"x\"},{\"bubbleId\":7}]}'),
                 ('bubbleId:c:x', '{\"type\":\"2\",\"text\":[],\"toolFormerData\":7}'),
                 ('bubbleId:c', '{}'),
                 ('bubbleId:d:y', '{\"type\":1,\"text\":'),
                 ('composerData:e', '{\"composerId\":\"e\",\"conversation\":[{\"type\":2,\"text\":\"ok\",\"createdAt\":\"soon\",\"toolFormerData\":{\"name\":\"edit\",\"params\":{},\"result\":[1]}}]}');
             INSERT INTO composerHeaders (composerId, value) VALUES ('e', '[1]'), (NULL, 7);
             INSERT INTO cursorDiskKV (key, value) VALUES
                 ('composerData:g', '{\"composerId\":\"g\",\"name\":7,\"createdAt\":0,\"fullConversationHeadersOnly\":[{\"bubbleId\":\"g1\"},{\"bubbleId\":\"g2\"}]}'),
                 ('bubbleId:g:g1', '{\"type\":1,\"bubbleId\":5,\"text\":\"hello from gee\",\"createdAt\":0}'),
                 ('bubbleId:g:g2', '{\"type\":2,\"text\":null,\"thinking\":{\"text\":\"hmm\"}}'),
                 ('composerData:h', '{\"conversation\":[3,{\"type\":1,\"text\":\"an old chat\"}]}');",
        )
        .unwrap();
        db.execute(
            "INSERT INTO cursorDiskKV (key, value) VALUES ('bubbleId:f:z', ?1)",
            [format!(
                "{{\"type\":1,\"text\":\"{}\"}}",
                "x".repeat(3 << 20)
            )],
        )
        .unwrap();
    }
    let dir = tmp.path().join(".baton");
    let analyzed = baton(&dir)
        .args(["--json", "analyze", path.to_str().unwrap(), "--list", "100"])
        .output()
        .unwrap();
    assert_success(&analyzed, format_args!("analyze the hostile store"));
    let report = json_of(&analyzed);
    let file = &report["files"][0];
    assert!(file["stats"]["malformed"].as_u64().unwrap() >= 3, "{file}");
    // The generated chats, the hostile chat that holds a readable reply, and two whose odd
    // fields (a number for a name or an id, a null text, a time of 0, a number among inline
    // messages, no id but the key's) lose only themselves.
    let rows = report["conversations"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), truth.conversations.len() + 3, "{report}");
    let titles: Vec<&str> = rows.iter().filter_map(|r| r["title"].as_str()).collect();
    assert!(titles.contains(&"hello from gee"), "{titles:?}");
    assert!(titles.contains(&"an old chat"), "{titles:?}");
}

/// A window's store from Cursor's oldest builds keeps its chats in `ItemTable`, as the panel's
/// tabs of bubbles: read when named, each tab a conversation with its title. A VS Code store
/// without them is no agent's.
#[test]
fn the_oldest_chat_panel_is_read_and_a_plain_editor_store_is_not() {
    let tmp = tempfile::tempdir().unwrap();
    let panel = serde_json::json!({"tabs": [
        {"tabId": "tab-1", "chatTitle": "Why the build fails", "lastSendTime": 1_787_216_400_000i64,
         "bubbles": [
            {"type": "user", "text": "why does the build fail on panelword", "timestamp": 1_787_216_300_000i64},
            {"type": "ai", "text": "The linker is missing.", "modelType": "gpt-4"}]},
        {"tabId": "tab-2", "chatTitle": "", "bubbles": [
            {"type": "user", "text": "rename the module"},
            {"type": "ai", "text": "Done."},
            {"type": "robot", "text": "?"}]},
        {"tabId": "tab-3", "chatTitle": "Empty", "bubbles": []}
    ]});
    let store = |path: &Path, chats: Option<&serde_json::Value>| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let db = rusqlite::Connection::open(path).unwrap();
        db.execute_batch(
            "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
             INSERT INTO ItemTable VALUES ('workbench.sideBar.position', '0');",
        )
        .unwrap();
        if let Some(chats) = chats {
            db.execute(
                "INSERT INTO ItemTable VALUES ('workbench.panel.aichat.view.aichat.chatdata', ?1)",
                [chats.to_string()],
            )
            .unwrap();
        }
    };
    let old = tmp.path().join("workspaceStorage/abc/state.vscdb");
    store(&old, Some(&panel));
    let dir = tmp.path().join(".baton");
    let analyzed = baton(&dir)
        .args(["--json", "analyze", old.to_str().unwrap(), "--list", "10"])
        .output()
        .unwrap();
    assert_success(&analyzed, format_args!("analyze the old panel"));
    let report = json_of(&analyzed);
    let mut titles: Vec<&str> = report["conversations"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    titles.sort();
    assert_eq!(
        titles,
        ["Why the build fails", "rename the module"],
        "{report}"
    );
    assert_eq!(report["overview"]["formats"]["cursor"], 1, "{report}");
    assert_eq!(
        report["overview"]["without_tokens"],
        serde_json::json!(["cursor"])
    );
    let found = baton(&dir)
        .args([
            "--json",
            "analyze",
            old.to_str().unwrap(),
            "--search",
            "panelword",
        ])
        .output()
        .unwrap();
    let found = json_of(&found);
    assert_eq!(found["conversations"]["total"], 1, "{found}");

    let plain = tmp.path().join("Code/User/globalStorage/state.vscdb");
    store(&plain, None);
    let refused = baton(&dir)
        .args(["--json", "inspect", plain.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let answer = json_of(&refused);
    let code = answer["error"]["code"]
        .as_str()
        .or(answer["files"][0]["error"]["code"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(code, "UNKNOWN_FORMAT", "{answer}");
}

/// Cursor's agent transcripts copy chats its store holds: read with the store, in either
/// order, a copied chat is listed once, as the store has it (its name, its messages), and a
/// transcript of a chat the store lacks stands on its own; `analyze` over both folders
/// counts as the mirror does. A copy appended to later still gives way.
#[test]
fn a_transcript_copying_a_stored_chat_gives_way_to_the_stores_chat() {
    use baton_tests::agents::cursor_transcripts;
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("globalStorage");
    let store_truth = cursor::tree(&store, 4, 71);
    let projects = tmp.path().join("projects");
    let copies = cursor_transcripts::copies_of(&store_truth);
    let transcripts_truth = cursor_transcripts::tree(&projects, 4, 73, &copies);
    let copied = &copies[0].0;
    let dir = tmp.path().join(".baton");
    let expected = store_truth.conversations.len() + transcripts_truth.conversations.len() - 1;
    for (n, order) in [["--cursor-dir", "--cursor-transcripts-dir"]; 2]
        .iter()
        .enumerate()
    {
        let index = tmp.path().join(format!("index-{n}.sqlite"));
        // Each folder its own pass: the store first, then the transcripts (and the reverse).
        let passes = if n == 0 {
            [(order[0], &store), (order[1], &projects)]
        } else {
            [(order[1], &projects), (order[0], &store)]
        };
        for (flag, root) in passes {
            let out = baton(&dir)
                .args(["mirror", flag])
                .arg(root)
                .arg("--index")
                .arg(&index)
                .output()
                .unwrap();
            assert_success(&out, format_args!("mirror {flag}"));
        }
        let list = listed(&dir, &index);
        let rows = list["conversations"].as_array().unwrap();
        assert_eq!(rows.len(), expected, "order {n}: {list}");
        let row = rows
            .iter()
            .find(|r| r["provider_id"] == copied.as_str())
            .unwrap_or_else(|| panic!("{copied} listed: {list}"));
        assert_eq!(
            row["title"], store_truth.conversations[copied].title,
            "{row}"
        );
        assert_eq!(
            count(
                &index,
                &format!(
                    "SELECT count(*) FROM messages m JOIN conversations c ON c.id = m.conversation
                     WHERE c.provider_id = '{copied}' AND m.message_id LIKE '~%'"
                ),
            ),
            0,
            "order {n}: the copy's messages are gone"
        );
        let shown = baton(&dir)
            .args(["transcripts", "show", copied, "--index"])
            .arg(&index)
            .output()
            .unwrap();
        assert_success(&shown, format_args!("show {copied}"));
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(!text.contains("Copied chat"), "order {n}: {text}");
        // Every transcript-only chat is listed as Cursor's.
        for id in transcripts_truth.conversations.keys() {
            assert!(
                rows.iter()
                    .any(|r| r["provider_id"] == id.as_str() && r["provider"] == "cursor"),
                "{id}: {list}"
            );
        }
    }
    // The copy appended to: read again, it still gives way.
    let copy_file = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|e| {
            e.path()
                .join(format!("agent-transcripts/{copied}/{copied}.jsonl"))
        })
        .find(|p| p.exists())
        .unwrap();
    let mut text = std::fs::read_to_string(&copy_file).unwrap();
    text.push_str(
        "{\"role\":\"user\",\"message\":{\"content\":\"<user_query>\\nOne more\\n</user_query>\"}}\n",
    );
    std::fs::write(&copy_file, text).unwrap();
    let index = tmp.path().join("index-0.sqlite");
    let out = baton(&dir)
        .args(["mirror", "--cursor-transcripts-dir"])
        .arg(&projects)
        .arg("--index")
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&out, format_args!("mirror again"));
    assert_eq!(
        listed(&dir, &index)["conversations"]
            .as_array()
            .unwrap()
            .len(),
        expected
    );
    assert_eq!(hits(&index, "\"One more\""), 0);
    // `analyze` over both folders: the same count, the store's title.
    let report = json_of(
        &baton(&dir)
            .args(["--json", "analyze"])
            .arg(&store)
            .arg(&projects)
            .args(["--list", "100"])
            .output()
            .unwrap(),
    );
    let rows = report["conversations"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), expected, "{report}");
    assert!(
        rows.iter()
            .any(|r| r["title"] == store_truth.conversations[copied].title.as_str()),
        "{report}"
    );
}
