//! OpenCode's database while the agent uses it: rows written while `baton mirror --follow`
//! runs arrive once each (a new session, a part rewritten in place); a process holding the
//! write lock neither blocks a pass nor is blocked by it, and what it has not committed is not
//! read; a database with hostile rows, or cut short, gets counts and codes, never a panic.

use baton_tests::agents::opencode::{self, Writer};
use baton_tests::{
    Killed, WriteHolder, assert_success, baton, eventually, index_count as count,
    index_hits as hits, json_of,
};
use std::path::Path;
use std::process::Stdio;

const MESSAGES: &str = "SELECT count(*) FROM messages m JOIN conversations c
    ON c.id = m.conversation WHERE c.provider = 'opencode'";
const DISTINCT: &str = "SELECT count(DISTINCT m.message_id) FROM messages m JOIN conversations c
    ON c.id = m.conversation WHERE c.provider = 'opencode'";

#[test]
fn rows_written_while_the_mirror_follows_arrive_once_each() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("opencode");
    let path = root.join("opencode.db");
    let mut writer = Writer::create(&path, 21, false);
    writer.sessions(3);
    let in_db = |sql: &str| -> i64 { writer_count(&path, sql) };
    let first = in_db("SELECT count(*) FROM message");
    let index = tmp.path().join("index.sqlite");
    let child = baton(&tmp.path().join(".baton"))
        .args(["mirror", "--follow", "--opencode-dir"])
        .arg(&root)
        .arg("--index")
        .arg(&index)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _following = Killed(child);
    let messages = |expected: i64| {
        let index = index.clone();
        move || {
            let (n, ids) = (count(&index, MESSAGES), count(&index, DISTINCT));
            if n == expected && ids == n {
                Ok(())
            } else {
                Err(format!("{n} message(s), {ids} distinct"))
            }
        }
    };
    eventually("the first pass", messages(first));
    std::thread::sleep(std::time::Duration::from_millis(500));

    // A new session: a prompt and an answer, written to the log (no checkpoint yet).
    writer.one_more("laterword");
    eventually("the new session", messages(first + 2));
    eventually("the new session found", || {
        match hits(&index, "laterword") {
            1 => Ok(()),
            n => Err(format!("{n} hit(s)")),
        }
    });

    // A part rewritten in place (text written when the stream ends), stamped a moment older
    // than its last write (a clock set back): no new message, the new words found.
    writer
        .connection()
        .execute(
            "UPDATE part SET data = json_set(data, '$.text', 'Here it is, rewrittenword.'),
                 time_updated = time_updated - 1
             WHERE id = (SELECT id FROM part WHERE data LIKE '%Here it is.%'
                 ORDER BY id DESC LIMIT 1)",
            [],
        )
        .unwrap();
    eventually("the rewritten part", || {
        match (hits(&index, "rewrittenword"), count(&index, MESSAGES)) {
            (1, n) if n == first + 2 => Ok(()),
            (h, n) => Err(format!("{h} hit(s), {n} message(s)")),
        }
    });
    // Usage from the index is the truth, the new session's response counted once.
    let truth = writer.truth().by_day();
    let report = json_of(
        &baton(&tmp.path().join(".baton"))
            .args(["--json", "usage", "daily", "--provider", "opencode"])
            .arg(format!("--index={}", index.display()))
            .output()
            .unwrap(),
    );
    let input: u64 = truth.values().map(|t| t.input).sum();
    assert_eq!(report["totals"]["input_tokens"], input, "{report}");
}

/// Counts rows of the agent's database through SQLite (another connection, as a reader).
fn writer_count(path: &Path, sql: &str) -> i64 {
    let db = rusqlite::Connection::open(path).unwrap();
    db.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn a_process_holding_the_write_lock_neither_blocks_a_pass_nor_is_blocked() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("opencode");
    let truth = opencode::tree(&root, 4, 23, false);
    let path = root.join("opencode.db");
    let sessions = truth.conversations.len() as u64;
    // The agent: the write lock taken, a session written, not yet committed.
    let holder = WriteHolder::start(
        env!("CARGO_BIN_EXE_db-holder"),
        &path,
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created,
                 time_updated) VALUES ('ses_uncommitted', 'global', 's', '/x', 'Uncommitted', '1',
                 1, 1);",
    );
    // A pass, and `usage` from the files, while the lock is held: both end, without the
    // uncommitted session.
    let index = tmp.path().join("index.sqlite");
    let dir = tmp.path().join(".baton");
    let mut pass = baton(&dir);
    pass.args(["--json", "mirror", "--opencode-dir"])
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
    let listed = json_of(
        &baton(&dir)
            .args(["--json", "transcripts", "list", "--index"])
            .arg(&index)
            .output()
            .unwrap(),
    );
    let rows = listed["conversations"].as_array().unwrap();
    assert_eq!(rows.len() as u64, sessions, "{listed}");
    assert!(!listed.to_string().contains("Uncommitted"));
    // The agent commits after the reads: nothing of Baton's held it up.
    holder.commit();
}

#[test]
fn hostile_rows_and_a_cut_database_get_counts_and_codes_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("opencode");
    let truth = opencode::tree(&root, 3, 29, false);
    let path = root.join("opencode.db");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(
            "PRAGMA foreign_keys=OFF;
             INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,
                 time_created, time_updated)
             VALUES ('ses_a', 'global', 'ses_b', 's', '/x', 'A', '1', 1, 1),
                    ('ses_b', 'global', 'ses_a', 's', '/x', 'B', '1', 1, 1);
             INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES
                 ('msg_1', 'ses_a', 1, 1, 'null'),
                 ('msg_2', 'ses_a', 1, 1, '[1,2]'),
                 ('msg_4', 'ses_a', 1, 1, '{\"role\":\"assistant\",\"tokens\":\"many\",
                     \"cost\":\"free\",\"time\":{\"created\":\"soon\"},\"modelID\":7}'),
                 ('msg_5', 'ses_b', 1, 1, '{\"role\":\"assistant\",\"tokens\":{\"input\":-5,
                     \"output\":1e300,\"cache\":[]}}');
             INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
             VALUES ('prt_1', 'msg_4', 'ses_a', 1, 1, '{\"type\":\"tool\",\"state\":7}'),
                    ('prt_2', 'msg_4', 'ses_a', 1, 1, '{\"type\":\"step-finish\",\"tokens\":{}}'),
                    ('prt_3', 'msg_5', 'ses_b', 1, 1, '{\"type\":\"text\",\"text\":{}}');",
        )
        .unwrap();
        db.execute(
            "INSERT INTO message (id, session_id, time_created, time_updated, data)
             VALUES ('msg_3', 'ses_a', 1, 1, ?1)",
            [format!(
                "{{\"role\":\"user\",\"big\":\"{}\"}}",
                "x".repeat(3 << 20)
            )],
        )
        .unwrap();
        db.execute(
            "UPDATE message SET data = 12 WHERE id = (SELECT min(id) FROM message)",
            [],
        )
        .unwrap();
    }
    let dir = tmp.path().join(".baton");
    let analyzed = baton(&dir)
        .args(["--json", "analyze", path.to_str().unwrap(), "--list", "100"])
        .output()
        .unwrap();
    assert_success(&analyzed, format_args!("analyze the hostile database"));
    let report = json_of(&analyzed);
    let file = &report["files"][0];
    assert!(file["stats"]["malformed"].as_u64().unwrap() >= 3, "{file}");
    // The generated sessions are all there, and the cycle's two are one conversation.
    let listed = report["conversations"]["rows"].as_array().unwrap().len();
    assert_eq!(listed, truth.conversations.len() + 1, "{report}");

    // Cut anywhere: a code, never a panic.
    let bytes = std::fs::read(&path).unwrap();
    let mut damaged = 0;
    for cut in [100, 4096, bytes.len() / 3, bytes.len() / 2, bytes.len() - 1] {
        let cut_path = tmp.path().join(format!("cut-{cut}.db"));
        std::fs::write(&cut_path, &bytes[..cut]).unwrap();
        let output = baton(&dir)
            .args(["--json", "inspect", cut_path.to_str().unwrap()])
            .output()
            .unwrap();
        let code = output.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "cut at {cut}: {output:?}"
        );
        if code == Some(1) {
            let answer = json_of(&output);
            let error = answer["error"]["code"]
                .as_str()
                .or(answer["files"][0]["error"]["code"].as_str())
                .unwrap_or_default()
                .to_owned();
            assert_eq!(error, "DATABASE_DAMAGED", "cut at {cut}: {answer}");
            damaged += 1;
        }
    }
    assert!(damaged >= 1, "a database cut to its header is damaged");
}

#[test]
fn each_response_shows_the_tokens_of_all_its_steps() {
    // The message keeps only its last step's tokens; the reader shows the sum of the steps,
    // so the responses of a database add up to its usage.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("opencode");
    let truth = opencode::tree(&root, 5, 31, false);
    let bytes = std::fs::read(root.join("opencode.db")).unwrap();
    let ingested =
        baton_core::transcripts::ingest::FileIngest::read_all("opencode.db", &bytes).unwrap();
    let Some(baton_core::transcripts::ingest::Decoded::Conversations { parsed, .. }) =
        ingested.parts.into_iter().next()
    else {
        panic!("no conversations")
    };
    let mut shown = baton_core::tokens::TokenTotals::default();
    for message in parsed.conversations.iter().flat_map(|c| &c.messages) {
        if let Some(tokens) = &message.tokens {
            shown.add(tokens);
        }
    }
    let billed: u64 = truth.by_day().values().map(|t| t.input).sum();
    let output: u64 = truth.by_day().values().map(|t| t.output).sum();
    assert_eq!((shown.input_tokens, shown.output_tokens), (billed, output));
}

#[test]
fn the_database_opencode_db_names_is_read_besides_the_data_folders() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere/work.db");
    std::fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode/opencode.db"),
        &elsewhere,
    )
    .unwrap();
    let usage = |db: &str| {
        let out = baton(&tmp.path().join(".baton"))
            .env("OPENCODE_DB", db)
            .args([
                "--json",
                "usage",
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
            ])
            .output()
            .unwrap();
        assert_success(&out, format_args!("OPENCODE_DB={db}"));
        json_of(&out)
    };
    let named = usage(elsewhere.to_str().unwrap());
    assert_eq!(named["totals"]["input_tokens"], 22_143, "{named}");
    // A relative name is inside OpenCode's data folder, read with that folder's already: once.
    let data = baton_tests::user_folders(&tmp.path().join(".baton")).join("data/opencode");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(&elsewhere, data.join("work.db")).unwrap();
    let relative = usage("work.db");
    assert_eq!(relative["totals"]["input_tokens"], 22_143, "{relative}");
    std::fs::remove_file(data.join("work.db")).unwrap();
    // SQLite's in-memory database, or nothing: no database to read, and said so.
    for db in [":memory:", ""] {
        let out = baton(&tmp.path().join(".baton"))
            .env("OPENCODE_DB", db)
            .args([
                "--json",
                "usage",
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let error = json_of(&out);
        assert_eq!(error["error"]["code"], "NO_TRANSCRIPTS", "{error}");
    }
}

/// `baton --json ARGS` beside `dir`'s ledger, answered.
fn answer(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = baton(&dir.join(".baton"))
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert_success(&out, format_args!("{args:?}"));
    json_of(&out)
}

#[test]
fn the_tree_of_files_before_the_database_reads_as_the_database_and_counts_once_beside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode/opencode.db");
    // Three data folders: the database alone, its tree alone (OpenCode 1.1), and both (a
    // migration leaves the tree beside the database it filled).
    let (db_only, tree_only, both) = (
        tmp.path().join("db/opencode"),
        tmp.path().join("tree/opencode"),
        tmp.path().join("both/opencode"),
    );
    for dir in [&db_only, &tree_only, &both] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::copy(&fixture, db_only.join("opencode.db")).unwrap();
    std::fs::copy(&fixture, both.join("opencode.db")).unwrap();
    let files = opencode::tree_from_database(&fixture, &tree_only.join("storage"), &[]);
    assert!(files > 20, "{files} files");
    opencode::tree_from_database(&fixture, &both.join("storage"), &[]);
    let usage = |dir: &Path| {
        let dir = dir.to_str().unwrap().to_owned();
        answer(
            tmp.path(),
            &[
                "usage",
                "model",
                "--opencode-dir",
                &dir,
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
            ],
        )
    };
    let from_db = usage(&db_only);
    assert!(
        from_db["totals"]["total_tokens"].as_u64().unwrap() > 0,
        "{from_db}"
    );
    for dir in [&tree_only, &both] {
        let read = usage(dir);
        assert_eq!(read["rows"], from_db["rows"], "{}", dir.display());
        assert_eq!(read["totals"], from_db["totals"], "{}", dir.display());
    }
    // `analyze` on the folder: the same sessions, titles and tool calls as the database's.
    let listed = |dir: &Path| {
        let report = answer(
            tmp.path(),
            &["analyze", "--list", "1000", dir.to_str().unwrap()],
        );
        let mut rows: Vec<(String, u64, u64)> = report["conversations"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["title"].as_str().unwrap().to_owned(),
                    r["messages"].as_u64().unwrap(),
                    r["tool_calls"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        rows.sort();
        (
            rows,
            report["overview"]["usage"]["total_tokens"].clone(),
            report["errors"].clone(),
        )
    };
    let (db_rows, db_tokens, _) = listed(&db_only.join("opencode.db"));
    assert!(!db_rows.is_empty());
    for dir in [&tree_only, &both] {
        let (rows, tokens, errors) = listed(dir);
        assert_eq!(rows, db_rows, "{}", dir.display());
        assert_eq!(tokens, db_tokens, "{}", dir.display());
        assert_eq!(errors, serde_json::json!([]), "{}", dir.display());
    }
    // The mirror: each session once, the tree's and the database's the same conversations.
    let index = tmp.path().join("index.sqlite");
    let mirror = |dir: &Path| {
        answer(
            tmp.path(),
            &[
                "mirror",
                "--opencode-dir",
                dir.to_str().unwrap(),
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
                "--index",
                index.to_str().unwrap(),
            ],
        )
    };
    mirror(&both);
    let sessions = count(
        &index,
        "SELECT count(*) FROM conversations WHERE provider = 'opencode'",
    );
    assert_eq!(sessions as usize, db_rows.len());
    let from_index = answer(
        tmp.path(),
        &["usage", "model", &format!("--index={}", index.display())],
    );
    assert_eq!(from_index["totals"], from_db["totals"], "{from_index}");
    // One file of the tree alone is no transcript: said so, with the folder to open.
    let part = std::fs::read_dir(tree_only.join("storage/session"))
        .unwrap()
        .flatten()
        .flat_map(|project| std::fs::read_dir(project.path()).unwrap().flatten())
        .map(|file| file.path())
        .next()
        .unwrap();
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "inspect"])
        .arg(&part)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let error = json_of(&out);
    assert_eq!(error["error"]["code"], "UNKNOWN_FORMAT", "{error}");
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("tree of files") && message.contains("storage"),
        "{error}"
    );
    // A second pass with nothing changed reads nothing again.
    let again = mirror(&both);
    assert_eq!(again["pass"]["files_opened"], 0, "{again}");
    assert_eq!(again["pass"]["files"], 2, "{again}");
}

#[test]
fn a_session_the_migration_left_in_the_tree_is_read_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode/opencode.db");
    let data = tmp.path().join("opencode");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(&fixture, data.join("opencode.db")).unwrap();
    // The database's first top session exists only in the tree.
    let db = rusqlite::Connection::open(data.join("opencode.db")).unwrap();
    let orphan: String = db
        .query_row(
            "SELECT id FROM session WHERE parent_id IS NULL ORDER BY id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    drop(db);
    opencode::tree_from_database(&data.join("opencode.db"), &data.join("storage"), &[&orphan]);
    let index = tmp.path().join("index.sqlite");
    answer(
        tmp.path(),
        &[
            "mirror",
            "--opencode-dir",
            data.to_str().unwrap(),
            "--claude-dir",
            "/nonexistent",
            "--codex-dir",
            "/nonexistent",
            "--index",
            index.to_str().unwrap(),
        ],
    );
    let found = count(
        &index,
        &format!("SELECT count(*) FROM conversations WHERE provider_id = '{orphan}'"),
    );
    assert_eq!(found, 1, "the session only the tree holds");
}

#[test]
fn a_message_added_to_the_tree_is_read_on_the_next_pass() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/opencode/opencode.db");
    let data = tmp.path().join("opencode");
    let storage = data.join("storage");
    opencode::tree_from_database(&fixture, &storage, &[]);
    let index = tmp.path().join("index.sqlite");
    let mirror = || {
        answer(
            tmp.path(),
            &[
                "mirror",
                "--opencode-dir",
                data.to_str().unwrap(),
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
                "--index",
                index.to_str().unwrap(),
            ],
        )
    };
    mirror();
    let before = count(&index, MESSAGES);
    assert!(before > 0);
    // OpenCode 1.1 answering once more in a session: a message file, then its part's folder.
    let session = std::fs::read_dir(storage.join("message"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .min()
        .unwrap();
    let message = "msg_zzzzzzzzzzzzzzzzzzzzzzzzzz";
    std::fs::write(
        storage
            .join("message")
            .join(&session)
            .join(format!("{message}.json")),
        serde_json::json!({"id": message, "sessionID": session, "role": "assistant",
            "time": {"created": 1_787_000_000_000_i64, "completed": 1_787_000_001_000_i64},
            "modelID": "gpt-5", "providerID": "openai", "cost": 0,
            "tokens": {"input": 10, "output": 5, "reasoning": 0, "cache": {"read": 0, "write": 0}}})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(storage.join("part").join(message)).unwrap();
    std::fs::write(
        storage
            .join("part")
            .join(message)
            .join("prt_zzzzzzzzzzzzzzzzzzzzzzzzzz.json"),
        serde_json::json!({"id": "prt_zzzzzzzzzzzzzzzzzzzzzzzzzz", "messageID": message,
            "sessionID": session, "type": "text", "text": "treeword answered"})
        .to_string(),
    )
    .unwrap();
    let again = mirror();
    assert_eq!(count(&index, MESSAGES), before + 1, "{again}");
    assert_eq!(hits(&index, "treeword"), 1);
}
