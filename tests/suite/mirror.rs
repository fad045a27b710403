//! The mirror, counted rather than timed: a warm pass opens nothing; an append is read by its
//! bytes plus the 4 KiB tail check; a partial line waits; a truncated, replaced or rewritten
//! file is read again, that file only; a deleted source keeps its rows; and searches return
//! exactly the messages they should (identifiers with `_`, CJK, a two-letter word).

use baton::index;
use baton::ops::mirror::pass::{PassStats, Source};
use baton::ops::mirror::{mirror_once, query};
use baton_core::transcripts::search::Field;
use baton_tests::assert_success;
use std::io::Write;
use std::path::PathBuf;

/// A Claude Code line: one user or assistant message of session `session`.
fn claude_line(session: &str, n: u32, role: &str, text: &str) -> String {
    let content = if role == "user" {
        serde_json::json!(text)
    } else {
        serde_json::json!([{ "type": "text", "text": text }])
    };
    serde_json::json!({
        "type": role,
        "sessionId": session,
        "uuid": format!("{session}-{n}"),
        "parentUuid": if n == 0 { serde_json::Value::Null } else { format!("{session}-{}", n - 1).into() },
        "timestamp": format!("2026-06-01T10:{:02}:00.000Z", n % 60),
        "cwd": "/home/dev/app",
        "message": { "role": role, "content": content, "model": "claude-sonnet-4-20250514" },
    })
    .to_string()
        + "\n"
}

struct Tree {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    index: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("projects/-home-dev-app");
        std::fs::create_dir_all(&root).unwrap();
        let index = tmp.path().join("index.sqlite");
        Tree {
            root,
            index,
            _tmp: tmp,
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    fn append(&self, name: &str, text: &str) {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.file(name))
            .unwrap();
        file.write_all(text.as_bytes()).unwrap();
    }

    fn sources(&self) -> Vec<Source> {
        baton::ops::mirror::pass::discover(&std::collections::BTreeMap::from([(
            baton_core::transcripts::Provider::ClaudeCode,
            vec![self.root.parent().unwrap().to_path_buf()],
        )]))
    }

    fn pass(&self) -> PassStats {
        mirror_once(&self.index, &self.sources()).unwrap()
    }

    fn count(&self, sql: &str) -> i64 {
        let connection = index::open(&self.index, false).unwrap();
        connection.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// The lines kept, in order, whatever chunks they were stored in.
    fn stored_lines(&self) -> Vec<String> {
        stored_lines(&self.index)
    }

    fn search(&self, words: &str) -> Vec<String> {
        let connection = index::open(&self.index, false).unwrap();
        let page = query::search(
            &connection,
            &self.index,
            words,
            &Field::DEFAULT,
            &query::Filters::default(),
            Default::default(),
            100,
            100,
        )
        .unwrap();
        let mut ids: Vec<String> = page.hits.into_iter().map(|h| h.message_id).collect();
        ids.sort();
        ids
    }
}

/// Every kept line of every source, as `path: line`, in order (lines are stored in
/// compressed chunks; this is what they hold).
fn stored_lines(index_path: &std::path::Path) -> Vec<String> {
    let connection = index::open(index_path, false).unwrap();
    let mut statement = connection
        .prepare(
            "SELECT s.path, l.raw FROM lines l JOIN sources s ON s.id = l.source
             ORDER BY s.path, l.offset",
        )
        .unwrap();
    let mut lines = Vec::new();
    let rows = statement
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
        })
        .unwrap();
    let mut inflater = baton::ops::mirror::packing::Inflater::new();
    for row in rows {
        let (path, raw) = row.unwrap();
        let text = String::from_utf8(inflater.inflate(&connection, &raw).unwrap()).unwrap();
        lines.extend(text.split('\n').map(|line| format!("{path}: {line}")));
    }
    lines
}

/// Claude Code lines of session `big` (about 1 KB each, user and assistant in turn) until
/// they fill `bytes`; the text and how many lines.
fn windows_of_lines(bytes: u64) -> (String, u32) {
    let filler = "w".repeat(900);
    let mut text = String::new();
    let mut n = 0;
    while (text.len() as u64) < bytes {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        text += &claude_line("big", n, role, &format!("line{n} {filler}"));
        n += 1;
    }
    (text, n)
}

#[test]
fn a_file_larger_than_a_window_and_a_line_over_the_limit_are_mirrored_whole_in_one_pass() {
    use baton::ops::mirror::pass::{MAX_LINE_BYTES, WINDOW_BYTES};
    let tree = Tree::new();
    let (mut text, n) = windows_of_lines(2 * WINDOW_BYTES + WINDOW_BYTES / 2);
    // A line longer than any reader keeps, then lines after it.
    let long_at = text.len() as u64;
    text += &format!(
        r#"{{"type":"user","sessionId":"big","message":{{"content":"{}"}}}}"#,
        "x".repeat(MAX_LINE_BYTES as usize + 1)
    );
    text += "\n";
    let long_bytes = text.len() as u64 - long_at;
    for k in 0..3 {
        text += &claude_line("big", n + k, "user", &format!("afterthelongline number{k}"));
    }
    tree.append("big.jsonl", &text);
    let stats = tree.pass();
    assert_eq!(
        stats.lines,
        u64::from(n) + 3,
        "every line but the long one, in one pass"
    );
    assert_eq!(stats.skipped_lines, 1);
    assert_eq!(
        tree.count("SELECT count(*) FROM messages"),
        i64::from(n) + 3
    );
    assert_eq!(
        tree.search("afterthelongline").len(),
        3,
        "the lines after the long one are found"
    );
    assert_eq!(
        tree.count("SELECT cursor FROM sources"),
        text.len() as i64,
        "the cursor is past the last line"
    );
    let connection = index::open(&tree.index, false).unwrap();
    let skipped = baton::ops::mirror::upkeep::skipped_lines(&connection, &tree.index).unwrap();
    assert_eq!(
        skipped
            .iter()
            .map(|l| (l.offset, l.bytes))
            .collect::<Vec<_>>(),
        [(long_at, long_bytes)]
    );
    // Nothing is left for the next pass.
    let again = tree.pass();
    assert_eq!((again.files_opened, again.lines), (0, 0));
}

#[test]
fn a_warm_pass_opens_nothing_and_an_append_reads_only_what_was_added() {
    let tree = Tree::new();
    let mut big = String::new();
    for n in 0..2000 {
        big.push_str(&claude_line("s1", n, "user", &"filler words ".repeat(20)));
    }
    tree.append("s1.jsonl", &big);
    tree.append("s2.jsonl", &claude_line("s2", 0, "user", "hello"));
    let first = tree.pass();
    assert_eq!(first.files_opened, 2);
    assert_eq!(first.lines, 2001);

    let warm = tree.pass();
    assert_eq!(
        (
            warm.files_opened,
            warm.bytes_read,
            warm.lines,
            warm.messages
        ),
        (0, 0, 0, 0),
        "nothing changed: nothing opened, nothing written"
    );

    let added = claude_line("s1", 2000, "assistant", "the appended answer");
    tree.append("s1.jsonl", &added);
    let grown = tree.pass();
    assert_eq!(grown.files_opened, 1);
    assert_eq!(grown.lines, 1);
    assert_eq!(grown.messages, 1);
    assert!(
        grown.bytes_read <= added.len() as u64 + 4096,
        "read {} bytes for a {}-byte append",
        grown.bytes_read,
        added.len()
    );
    assert_eq!(grown.rereads, 0);
}

/// The same on a 100 MB file: taken up from its end (backfill off, so the test need not
/// parse 100 MB in a debug build), then a one-line append costs the line and the 4 KiB tail
/// check, not the file.
#[test]
fn an_append_to_a_hundred_megabyte_file_reads_the_line_and_four_kilobytes() {
    let tree = Tree::new();
    let filler = claude_line("big", 0, "user", &"filler words ".repeat(60));
    let mut file = std::io::BufWriter::new(std::fs::File::create(tree.file("big.jsonl")).unwrap());
    let mut written = 0u64;
    while written < 100 << 20 {
        file.write_all(filler.as_bytes()).unwrap();
        written += filler.len() as u64;
    }
    drop(file);
    let sources = tree.sources();
    let first = pass_without_backfill(&tree, &sources);
    assert_eq!((first.skipped_backlog, first.lines), (1, 0));
    assert!(first.bytes_read <= (1 << 20) + 4096, "{}", first.bytes_read);
    let added = claude_line("big", 1, "assistant", "appended to a hundred megabytes");
    tree.append("big.jsonl", &added);
    // Found again: a walk's identities are for the pass right after it.
    let grown = pass_without_backfill(&tree, &tree.sources());
    assert_eq!((grown.files_opened, grown.lines, grown.rereads), (1, 1, 0));
    assert!(
        grown.bytes_read <= added.len() as u64 + 4096,
        "read {} bytes for a {}-byte append to {written} bytes",
        grown.bytes_read,
        added.len()
    );
    assert_eq!(tree.search("megabytes"), ["big-1"]);
}

#[test]
fn a_partial_line_waits_for_its_end() {
    let tree = Tree::new();
    let line = claude_line("s1", 0, "user", "complete me");
    let (head, tail) = line.split_at(line.len() / 2);
    tree.append("s1.jsonl", head);
    let stats = tree.pass();
    assert_eq!((stats.lines, stats.messages), (0, 0));
    tree.append("s1.jsonl", tail);
    let stats = tree.pass();
    assert_eq!((stats.lines, stats.messages), (1, 1));
    assert_eq!(tree.search("complete"), ["s1-0"]);
}

#[test]
fn truncation_replacement_and_a_rewritten_prefix_are_each_read_again() {
    let tree = Tree::new();
    let a = claude_line("s1", 0, "user", "alpha version");
    let b = claude_line("s1", 1, "assistant", "bravo answer");
    tree.append("s1.jsonl", &(a.clone() + &b));
    tree.append("other.jsonl", &claude_line("s9", 0, "user", "untouched"));
    tree.pass();

    // Truncated to its first line.
    std::fs::write(tree.file("s1.jsonl"), &a).unwrap();
    let stats = tree.pass();
    assert_eq!(stats.rereads, 1, "only the truncated file");
    assert_eq!(tree.search("bravo"), Vec::<String>::new());
    assert_eq!(tree.search("alpha"), ["s1-0"]);

    // Replaced by another file (rename over it).
    let replacement = tree.root.join("new.tmp");
    std::fs::write(&replacement, claude_line("s1", 0, "user", "charlie text")).unwrap();
    std::fs::rename(&replacement, tree.file("s1.jsonl")).unwrap();
    let stats = tree.pass();
    assert_eq!(stats.rereads, 1);
    assert_eq!(tree.search("charlie"), ["s1-0"]);
    assert_eq!(tree.search("alpha"), Vec::<String>::new());

    // The same size, its start rewritten, then grown (the tail hash catches it).
    let same_size = claude_line("s1", 0, "user", "delta  texts");
    assert_eq!(
        same_size.len(),
        claude_line("s1", 0, "user", "charlie text").len()
    );
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(tree.file("s1.jsonl"))
        .unwrap();
    file.write_all(same_size.as_bytes()).unwrap();
    drop(file);
    tree.append("s1.jsonl", &claude_line("s1", 1, "assistant", "echo reply"));
    let stats = tree.pass();
    assert_eq!(stats.rereads, 1);
    assert_eq!(tree.search("delta"), ["s1-0"]);
    assert_eq!(tree.search("charlie"), Vec::<String>::new());
    assert_eq!(
        tree.search("untouched"),
        ["s9-0"],
        "the other file is as it was"
    );
}

#[test]
fn a_deleted_source_keeps_its_rows() {
    let tree = Tree::new();
    tree.append("s1.jsonl", &claude_line("s1", 0, "user", "remember this"));
    tree.pass();
    std::fs::remove_file(tree.file("s1.jsonl")).unwrap();
    let stats = tree.pass();
    assert_eq!(stats.missing, 1);
    assert_eq!(tree.search("remember"), ["s1-0"]);
    assert_eq!(
        tree.count("SELECT count(*) FROM sources WHERE missing = 1"),
        1
    );
    assert_eq!(tree.stored_lines().len(), 1);
}

#[test]
fn searches_find_exactly_the_messages_that_hold_every_word() {
    let tree = Tree::new();
    let messages = [
        "call parse_claude_code on the file",
        "parse the claude code output",
        "東京で会議があります",
        "京都の会議",
        "go build failed with a long linker message",
        "going home",
        "AND OR NOT are words here",
    ];
    let mut text = String::new();
    for (n, message) in messages.iter().enumerate() {
        text.push_str(&claude_line("s1", n as u32, "user", message));
    }
    tree.append("s1.jsonl", &text);
    tree.pass();
    assert_eq!(
        tree.search("parse_claude_code"),
        ["s1-0"],
        "the identifier, not its words apart"
    );
    assert_eq!(
        tree.search("parse claude"),
        ["s1-0", "s1-1"].map(String::from)
    );
    assert_eq!(tree.search("東京"), ["s1-2"]);
    assert_eq!(tree.search("会議"), ["s1-2", "s1-3"]);
    assert_eq!(
        tree.search("go linker"),
        ["s1-4"],
        "a two-letter word next to a long one"
    );
    assert_eq!(tree.search("go"), ["s1-4"], "words, not prefixes");
    assert_eq!(tree.search("AND OR"), ["s1-6"]);
    assert_eq!(tree.search("nothing-here-at-all"), Vec::<String>::new());
}

/// A hit on a tool call (a message with no text) shows the call in its snippet.
#[test]
fn a_hit_on_a_tool_call_has_a_snippet_of_the_call() {
    let tree = Tree::new();
    let call = serde_json::json!({
        "type": "assistant", "sessionId": "s1", "uuid": "s1-0", "parentUuid": null,
        "timestamp": "2026-06-01T10:00:00.000Z", "cwd": "/home/dev/app",
        "message": { "role": "assistant", "model": "claude-sonnet-4-20250514", "content": [
            { "type": "tool_use", "id": "toolu_1", "name": "Bash",
              "input": { "command": "cargo test --package quuxcrate" } }
        ]}
    });
    tree.append("s1.jsonl", &format!("{call}\n"));
    tree.pass();
    let connection = index::open(&tree.index, false).unwrap();
    let page = query::search(
        &connection,
        &tree.index,
        "quuxcrate",
        &[Field::ToolInput],
        &query::Filters::default(),
        Default::default(),
        10,
        100,
    )
    .unwrap();
    assert_eq!(page.total, 1);
    assert!(
        page.hits[0].snippet.contains("quuxcrate"),
        "{:?}",
        page.hits[0].snippet
    );
}

#[test]
fn the_full_text_index_drives_a_search() {
    let tree = Tree::new();
    tree.append("s1.jsonl", &claude_line("s1", 0, "user", "plan me"));
    tree.pass();
    let connection = index::open(&tree.index, false).unwrap();
    let mut statement = connection
        .prepare(
            "EXPLAIN QUERY PLAN SELECT m.id FROM messages_fts f JOIN messages m ON m.id = f.rowid
             JOIN conversations c ON c.id = m.conversation WHERE messages_fts MATCH 'plan'
             ORDER BY f.rank LIMIT 20",
        )
        .unwrap();
    let plan: Vec<String> = statement
        .query_map([], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(plan[0].contains("VIRTUAL TABLE INDEX"), "{plan:?}");
    assert!(
        plan.iter()
            .skip(1)
            .all(|step| step.contains("PRIMARY KEY") || step.contains("INTEGER PRIMARY KEY")),
        "messages and conversations are looked up by key: {plan:?}"
    );
}

/// Everything a pass leaves in the index, in a stable order: what two indexes must share to be
/// the same.
fn index_contents(path: &std::path::Path) -> Vec<String> {
    let connection = index::open(path, false).unwrap();
    let mut rows = Vec::new();
    for sql in [
        "SELECT path || ' ' || cursor || ' ' || tail_hash || ' ' || coalesce(hex(reader_state), '')
             || ' ' || coalesce(usage_stats, '') || ' ' || coalesce(hex(usage_state), '')
         FROM sources ORDER BY path",
        "SELECT s.path || ' ' || u.offset || ' ' || u.at || ' ' || n.text || ' '
             || u.input_tokens || ' ' || u.output_tokens || ' ' || u.cache_read_tokens
             || ' ' || coalesce(u.dedup_key, '')
         FROM usage u JOIN sources s ON s.id = u.source JOIN names n ON n.id = u.session
         ORDER BY s.path, u.offset",
        "SELECT provider || ' ' || provider_id || ' ' || coalesce(title, '') || ' '
             || coalesce(project, '') || ' ' || coalesce(started_at, '') || ' '
             || coalesce(updated_at, '') || ' ' || messages
         FROM conversations ORDER BY provider, provider_id",
        "SELECT c.provider_id || ' ' || m.message_id || ' ' || m.role || ' ' || coalesce(m.at, '')
             || ' ' || coalesce(m.model, '')
         FROM messages m JOIN conversations c ON c.id = m.conversation
         ORDER BY c.provider_id, m.message_id",
        "SELECT 'fts ' || count(*) FROM messages_fts",
    ] {
        let mut statement = connection.prepare(sql).unwrap();
        rows.extend(
            statement
                .query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap),
        );
    }
    rows.extend(stored_lines(path));
    rows
}

/// `baton mirror` killed (SIGKILL, a real process) at random points of a backfill, again and
/// again, then run to the end, leaves the same index as one clean run: no row twice, none
/// missing.
#[test]
fn a_mirror_killed_anywhere_ends_as_one_clean_run() {
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&trees)
        .args(["--sessions", "40", "--seed", "5", "--responses", "60"])
        .status()
        .unwrap();
    assert!(status.success());
    let mirror = |index: &std::path::Path| {
        let mut command = baton_tests::baton(&tmp.path().join(".baton"));
        command
            .arg("mirror")
            .arg("--claude-dir")
            .arg(trees.join("claude/projects"))
            .arg("--codex-dir")
            .arg(trees.join("codex/sessions"))
            .arg("--index")
            .arg(index)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        command
    };
    let clean = tmp.path().join("clean.sqlite");
    assert!(mirror(&clean).status().unwrap().success());
    let killed = tmp.path().join("killed.sqlite");
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut kills = 0;
    for _ in 0..20 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut child = mirror(&killed).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5 + seed % 120));
        if child.try_wait().unwrap().is_none() {
            kills += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
    }
    assert!(mirror(&killed).status().unwrap().success());
    assert!(
        kills >= 5,
        "only {kills} runs were killed before they finished"
    );
    assert_eq!(index_contents(&killed), index_contents(&clean));
}

/// A file of several windows, its mirror killed (SIGKILL, a real process) between and inside
/// windows, then run to the end: the same index as one clean run (each window is committed
/// whole, and a source read only part way is resumed where its last window ended).
#[test]
fn a_mirror_killed_between_windows_resumes_where_the_last_window_ended() {
    use baton::ops::mirror::pass::WINDOW_BYTES;
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("claude/projects");
    std::fs::create_dir_all(projects.join("-home-dev-app")).unwrap();
    let (text, _) = windows_of_lines(2 * WINDOW_BYTES + WINDOW_BYTES / 2);
    std::fs::write(projects.join("-home-dev-app/big.jsonl"), &text).unwrap();
    let mirror = |index: &std::path::Path| {
        let mut command = baton_tests::baton(&tmp.path().join(".baton"));
        command
            .arg("mirror")
            .arg("--claude-dir")
            .arg(&projects)
            .arg("--codex-dir")
            .arg(tmp.path().join("none"))
            .arg("--index")
            .arg(index)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        command
    };
    let clean = tmp.path().join("clean.sqlite");
    let started = std::time::Instant::now();
    assert!(mirror(&clean).status().unwrap().success());
    let whole_run = started.elapsed().as_millis() as u64;
    let killed = tmp.path().join("killed.sqlite");
    let mut kills = 0;
    let mut partial = 0;
    for attempt in 0..12u64 {
        let mut child = mirror(&killed).spawn().unwrap();
        // At 30, 50 or 70 % of a whole run: inside a window or between two.
        std::thread::sleep(std::time::Duration::from_millis(
            whole_run * [3, 5, 7][(attempt % 3) as usize] / 10 + 1,
        ));
        if child.try_wait().unwrap().is_none() {
            kills += 1;
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let state = index::open(&killed, false).ok().and_then(|connection| {
            connection
                .query_row("SELECT cursor, size FROM sources", [], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
                })
                .ok()
        });
        match state {
            Some((cursor, size)) if cursor > 0 && (cursor as usize) < text.len() => {
                partial += 1;
                assert_eq!(
                    size, cursor,
                    "a source read part way records how far it looked"
                );
                if partial >= 2 {
                    break;
                }
            }
            // Read to its end already: start over, to be killed part way.
            Some((cursor, _)) if cursor as usize == text.len() => {
                for suffix in ["", "-wal", "-shm", ".lock"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", killed.display()));
                }
            }
            _ => {}
        }
    }
    assert!(mirror(&killed).status().unwrap().success());
    assert!(
        kills >= 2,
        "only {kills} runs were killed before they finished"
    );
    assert!(partial >= 1, "no kill left a source read part way");
    assert_eq!(index_contents(&killed), index_contents(&clean));
}

/// A writer that died in the middle of a pass leaves its lock file saying `writing`: the next
/// reader runs SQLite's check once (clearing the words when the index is sound), and answers
/// INDEX_DAMAGED with the fix when it is not, whatever its own query would have touched.
#[test]
fn an_index_left_by_a_writer_that_died_is_checked_before_it_answers() {
    let tree = Tree::new();
    tree.append("s1.jsonl", &claude_line("s1", 0, "user", "hello there"));
    tree.pass();
    let lock = std::path::PathBuf::from(format!("{}.lock", tree.index.display()));
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        "",
        "a pass that ended clears it"
    );
    std::fs::write(&lock, "writing 4242\n").unwrap();
    index::open_existing(&tree.index).unwrap();
    assert_eq!(
        std::fs::read_to_string(&lock).unwrap(),
        "",
        "checked sound, and cleared"
    );
    // Damage the pages (the log folded in first), and the writer's words again.
    let connection = index::open(&tree.index, false).unwrap();
    connection
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    drop(connection);
    let mut bytes = std::fs::read(&tree.index).unwrap();
    let len = bytes.len();
    for b in &mut bytes[len / 2..] {
        *b ^= 0x5a;
    }
    std::fs::write(&tree.index, &bytes).unwrap();
    std::fs::write(&lock, "writing 4242\n").unwrap();
    let err = index::open_existing(&tree.index).unwrap_err();
    assert_eq!(err.code, baton_core::ErrorCode::IndexDamaged, "{err:?}");
    assert!(err.message.contains("baton mirror"), "{}", err.message);
}

/// A secret in a transcript is masked before anything is kept: neither the stored line nor
/// the search index holds it.
#[test]
fn secrets_are_masked_before_they_are_kept() {
    let tree = Tree::new();
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    tree.append(
        "s1.jsonl",
        &claude_line(
            "s1",
            0,
            "user",
            &format!("deploy with {key} and password=hunter22"),
        ),
    );
    tree.pass();
    let connection = index::open(&tree.index, false).unwrap();
    let raw: Vec<u8> = connection
        .query_row("SELECT raw FROM lines", [], |r| r.get(0))
        .unwrap();
    let inflated = baton::ops::mirror::packing::Inflater::new()
        .inflate(&connection, &raw)
        .unwrap();
    let line = String::from_utf8(inflated).unwrap();
    assert!(!line.contains(key) && !line.contains("hunter22"), "{line}");
    assert!(line.contains("[masked:anthropic_key]"), "{line}");
    assert!(serde_json::from_str::<serde_json::Value>(&line).is_ok());
    assert_eq!(tree.search(key), Vec::<String>::new());
    assert_eq!(tree.search("hunter22"), Vec::<String>::new());
    assert_eq!(tree.search("deploy"), ["s1-0"]);
}

/// A kept conversation is shown from its stored lines alone, by the provider's id or a
/// prefix of it, even after its source is gone; an unknown or ambiguous one is a coded error.
#[test]
fn a_kept_conversation_is_shown_after_its_source_is_gone() {
    let tree = Tree::new();
    tree.append(
        "a.jsonl",
        &(claude_line("0191aaaa-first", 0, "user", "how do I rotate logs")
            + &claude_line("0191aaaa-first", 1, "assistant", "use logrotate daily")),
    );
    tree.append(
        "b.jsonl",
        &claude_line("0191bbbb-second", 0, "user", "other"),
    );
    tree.pass();
    std::fs::remove_file(tree.file("a.jsonl")).unwrap();
    tree.pass();
    let connection = index::open(&tree.index, false).unwrap();
    let shown = query::show(
        &connection,
        &tree.index,
        "0191aaaa",
        query::Branches::Active,
    )
    .unwrap();
    assert_eq!(shown.row.provider_id, "0191aaaa-first");
    assert!(
        shown.markdown.contains("how do I rotate logs"),
        "{}",
        shown.markdown
    );
    assert!(
        shown.markdown.contains("use logrotate daily"),
        "{}",
        shown.markdown
    );
    assert_eq!(shown.json["messages"].as_array().unwrap().len(), 2);
    let exact = query::show(
        &connection,
        &tree.index,
        "0191bbbb-second",
        query::Branches::Active,
    )
    .unwrap();
    assert_eq!(exact.row.provider_id, "0191bbbb-second");
    for reference in ["0191", "0191cccc", "0191aaa"] {
        let err =
            query::show(&connection, &tree.index, reference, query::Branches::Active).unwrap_err();
        assert_eq!(
            err.code,
            baton_core::ErrorCode::InvalidArgument,
            "{reference}"
        );
    }
    let both = query::show(&connection, &tree.index, "0191", query::Branches::Active);
    assert!(both.is_err());
}

/// `baton doctor` warns while Claude Code would delete transcripts after 30 days or fewer,
/// and says how to keep them; a longer period, or no Claude Code, says nothing.
#[test]
fn doctor_warns_while_claude_code_would_delete_transcripts() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let claude = home.join(".claude");
    let doctor = || {
        let out = baton_tests::baton(&tmp.path().join(".baton"))
            .env("HOME", &home)
            .args(["--json", "doctor"])
            .output()
            .unwrap();
        assert!(out.status.success());
        baton_tests::json_of(&out)["advice"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert!(doctor().is_empty(), "no Claude Code here");
    std::fs::create_dir_all(claude.join("projects")).unwrap();
    let advice = doctor();
    assert_eq!(advice.len(), 1);
    assert!(advice[0].contains("is not set (30 days)") && advice[0].contains("baton mirror"));
    std::fs::write(claude.join("settings.json"), r#"{"cleanupPeriodDays": 7}"#).unwrap();
    assert!(doctor()[0].contains("is 7"));
    std::fs::write(
        claude.join("settings.json"),
        r#"{"cleanupPeriodDays": 365}"#,
    )
    .unwrap();
    assert!(doctor().is_empty());
}

/// `usage` from every file, and `usage --index` from what a mirror kept.
fn usage_both_ways(
    home: &std::path::Path,
    claude: &std::path::Path,
    codex: &std::path::Path,
    index: &std::path::Path,
    group: &str,
) -> (String, String) {
    // `group` is the grouping and any other options; UTC unless it names a zone.
    let mut asked: Vec<&str> = group.split(' ').collect();
    if !group.contains("--timezone") {
        asked.extend(["--timezone", "UTC"]);
    }
    let run = |args: &[&std::ffi::OsStr]| {
        let out = baton_tests::baton(&home.join(".baton"))
            .arg("usage")
            .args(&asked)
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        assert_success(&out, format_args!("usage {asked:?} {args:?}"));
        String::from_utf8(out.stdout).unwrap()
    };
    let from_files = run(&[
        "--claude-dir".as_ref(),
        claude.as_os_str(),
        "--codex-dir".as_ref(),
        codex.as_os_str(),
    ]);
    let mut flag = std::ffi::OsString::from("--index=");
    flag.push(index);
    (from_files, run(&[flag.as_os_str()]))
}

fn mirror_folders(
    home: &std::path::Path,
    claude: &std::path::Path,
    codex: &std::path::Path,
    index: &std::path::Path,
) {
    let out = baton_tests::baton(&home.join(".baton"))
        .arg("mirror")
        .arg("--claude-dir")
        .arg(claude)
        .arg("--codex-dir")
        .arg(codex)
        .arg("--index")
        .arg(index)
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
}

/// `usage --index` gives the same report, byte for byte, as a read of the files: on every
/// fixture, and on generated Claude Code and Codex trees mirrored in two steps (the first
/// half of each file, then the rest, so the Codex deltas and Claude Code's deduplication cross
/// a pass). A source deleted afterwards still counts in the index.
#[test]
fn usage_from_the_index_equals_a_read_of_the_files() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    for (n, set) in [fixtures, shared].iter().enumerate() {
        if !set.is_dir() {
            continue;
        }
        let index = tmp.path().join(format!("fixtures-{n}.sqlite"));
        let (claude, codex) = (set.join("claude-code"), set.join("codex"));
        mirror_folders(tmp.path(), &claude, &codex, &index);
        // The fixtures span years: a zone with clock changes among them has its days found
        // slot by slot.
        for group in [
            "daily",
            "session",
            "project",
            "model",
            "daily --timezone Europe/Paris",
            "weekly --timezone America/New_York",
        ] {
            let (files, kept) = usage_both_ways(tmp.path(), &claude, &codex, &index, group);
            assert_eq!(kept, files, "{} by {group}", set.display());
        }
    }

    let generated = tmp.path().join("generated");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&generated)
        .args(["--sessions", "30", "--seed", "11", "--responses", "40"])
        .status()
        .unwrap();
    assert!(status.success());
    // The same tree, written half first.
    let tree = tmp.path().join("tree");
    let mut files = Vec::new();
    let mut folders = vec![generated.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    let copy = |half: bool| {
        for file in &files {
            let target = tree.join(file.strip_prefix(&generated).unwrap());
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            let bytes = std::fs::read(file).unwrap();
            let cut = if half {
                let middle = bytes.len() / 2;
                bytes[..middle]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(0, |p| p + 1)
            } else {
                bytes.len()
            };
            std::fs::write(&target, &bytes[..cut]).unwrap();
        }
    };
    let (claude, codex) = (tree.join("claude/projects"), tree.join("codex/sessions"));
    let index = tmp.path().join("generated.sqlite");
    copy(true);
    mirror_folders(tmp.path(), &claude, &codex, &index);
    copy(false);
    mirror_folders(tmp.path(), &claude, &codex, &index);
    let connection = index::open(&index, false).unwrap();
    let rereads: i64 = connection
        .query_row("SELECT sum(rereads) FROM sources", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rereads, 0, "the second pass only appended");
    let usage_rows: i64 = connection
        .query_row("SELECT count(*) FROM usage", [], |r| r.get(0))
        .unwrap();
    assert!(usage_rows > 100, "{usage_rows} usage rows");
    // Each way the index answers: its 15-minute sums (a zone whose days start on a slot,
    // whole slots), its counted rows (a session or project report, a window or zone that
    // cuts a slot), and, for an index whose sums are not made, every row replayed.
    let groups = [
        "daily",
        "weekly",
        "monthly",
        "session",
        "project",
        "model",
        "daily --timezone Asia/Kathmandu",
        "daily --timezone Australia/Eucla",
        "daily --since 2026-05-29",
        "model --since 2026-05-29 --until 2026-06-02",
        "daily --cost-mode calculate",
    ];
    for group in groups {
        let (files, kept) = usage_both_ways(tmp.path(), &claude, &codex, &index, group);
        assert_eq!(kept, files, "generated trees by {group}");
    }
    // The sums the triggers kept through both passes are the sums made from the rows at once.
    let sums = |connection: &rusqlite::Connection| -> Vec<String> {
        let mut statement = connection
            .prepare(
                "SELECT provider || ' ' || slot || ' ' || model || ' ' || tier || ' ' || recorded
                     || ' ' || input_tokens || ' ' || output_tokens || ' ' || cache_creation_tokens
                     || ' ' || cache_read_tokens || ' ' || reasoning_tokens || ' '
                     || cache_creation_1h_tokens || ' ' || recorded_cost_micro_usd || ' ' || entries
                 FROM usage_slots ORDER BY 1",
            )
            .unwrap();
        let mut rows: Vec<String> = statement
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut totals = connection
            .prepare(
                "SELECT provider || ' ' || lines || ' ' || duplicates || ' ' || dropped
                 FROM usage_totals ORDER BY 1",
            )
            .unwrap();
        rows.extend(
            totals
                .query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap),
        );
        rows
    };
    let kept_sums = sums(&connection);
    assert!(kept_sums.len() > 10, "{kept_sums:?}");
    connection
        .execute("DELETE FROM usage_meta WHERE key = 'tallies'", [])
        .unwrap();
    for group in ["daily", "session"] {
        let (files, kept) = usage_both_ways(tmp.path(), &claude, &codex, &index, group);
        assert_eq!(kept, files, "generated trees by {group}, replayed");
    }
    // The next writer makes them again, the same.
    mirror_folders(tmp.path(), &claude, &codex, &index);
    assert_eq!(sums(&connection), kept_sums);
    let (read, kept) = usage_both_ways(tmp.path(), &claude, &codex, &index, "daily");
    assert_eq!(kept, read, "generated trees by day, tallied again");

    // A deleted transcript still counts in the index, not in a read of the files.
    let (_, before) = usage_both_ways(tmp.path(), &claude, &codex, &index, "daily");
    let gone = files
        .iter()
        .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    std::fs::remove_file(tree.join(gone.strip_prefix(&generated).unwrap())).unwrap();
    mirror_folders(tmp.path(), &claude, &codex, &index);
    let (files_now, kept_now) = usage_both_ways(tmp.path(), &claude, &codex, &index, "daily");
    assert_eq!(kept_now, before);
    assert_ne!(files_now, before);
}

/// While a real `baton mirror --follow` runs, a writer appends, leaves a line half written,
/// truncates, renames over and rewrites a file's start at the same size: every complete line
/// arrives once, the partial one only when finished, and each rewrite is read again.
fn follow_sees_every_change(extra: &[&str]) {
    use baton_tests::eventually;
    let tree = Tree::new();
    let projects = tree.root.parent().unwrap().to_path_buf();
    let child = baton_tests::baton(&tree.index.with_file_name(".baton"))
        .arg("mirror")
        .arg("--follow")
        .arg("--claude-dir")
        .arg(&projects)
        .arg("--codex-dir")
        .arg(projects.with_file_name("no-codex"))
        .arg("--index")
        .arg(&tree.index)
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let _following = baton_tests::Killed(child);
    eventually("the first pass", || {
        if tree.index.exists() && index::open(&tree.index, false).is_ok() {
            Ok(())
        } else {
            Err("no index".into())
        }
    });
    // Let the watch start before the first write.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let tree = &tree;
    let lines_of = |expected: i64| {
        move || {
            let kept = tree.stored_lines();
            let distinct: std::collections::BTreeSet<&String> = kept.iter().collect();
            let n = if distinct.len() == kept.len() {
                kept.len() as i64
            } else {
                -1 // a line kept twice
            };
            let ids = tree.count("SELECT count(DISTINCT message_id) FROM messages");
            let messages = tree.count("SELECT count(*) FROM messages");
            if n == expected && messages == expected && ids == messages {
                Ok(())
            } else {
                Err(format!(
                    "{n} line(s), {messages} message(s), {ids} distinct"
                ))
            }
        }
    };
    let found = |word: &'static str, ids: &'static [&'static str]| {
        move || {
            let hits = tree.search(word);
            if hits == ids {
                Ok(())
            } else {
                Err(format!("{word:?} finds {hits:?}"))
            }
        }
    };

    for n in 0..3 {
        tree.append(
            "s1.jsonl",
            &claude_line("s1", n, "user", &format!("line{n} arrives")),
        );
    }
    eventually("three appended lines", lines_of(3));

    let line = claude_line("s1", 3, "assistant", "finished halfway");
    let (head, tail) = line.split_at(line.len() / 2);
    tree.append("s1.jsonl", head);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(tree.stored_lines().len(), 3, "a partial line waits");
    tree.append("s1.jsonl", tail);
    eventually("the finished line", lines_of(4));
    eventually("the finished line found", found("halfway", &["s1-3"]));

    std::fs::write(
        tree.file("s1.jsonl"),
        claude_line("s1", 0, "user", "truncated start"),
    )
    .unwrap();
    eventually("truncation", found("truncated", &["s1-0"]));
    eventually("truncation forgets", found("halfway", &[]));
    eventually("one line after truncation", lines_of(1));

    let replacement = tree.root.join("replacement.tmp");
    std::fs::write(&replacement, claude_line("s1", 0, "user", "renamed over")).unwrap();
    std::fs::rename(&replacement, tree.file("s1.jsonl")).unwrap();
    eventually("rename-over", found("renamed", &["s1-0"]));
    eventually("rename-over forgets", found("truncated", &[]));

    let same_size = claude_line("s1", 0, "user", "rewritten x4");
    assert_eq!(
        same_size.len(),
        claude_line("s1", 0, "user", "renamed over").len()
    );
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .open(tree.file("s1.jsonl"))
        .unwrap();
    file.write_all(same_size.as_bytes()).unwrap();
    drop(file);
    eventually("same-size rewrite", found("rewritten", &["s1-0"]));
    eventually("same-size rewrite forgets", found("renamed", &[]));
    eventually("one line in the end", lines_of(1));
}

#[test]
fn follow_with_notifications_sees_every_change() {
    follow_sees_every_change(&[]);
}

#[test]
fn follow_by_polling_sees_every_change() {
    follow_sees_every_change(&["--poll", "--poll-secs", "1"]);
}

/// A pass over the tree with backfill off.
fn pass_without_backfill(tree: &Tree, sources: &[Source]) -> PassStats {
    let mut mirror = baton::ops::mirror::Mirror::open(&tree.index).unwrap();
    let options = baton::ops::mirror::pass::PassOptions {
        backfill: false,
        ..Default::default()
    };
    mirror.pass(sources, options, &mut |_| {}).unwrap()
}

/// With backfill off, files already there are followed from their end: only what is
/// appended afterwards is kept, and a Codex file's later lines still know their session.
#[test]
fn without_backfill_only_what_is_appended_later_is_kept() {
    let tree = Tree::new();
    tree.append("s1.jsonl", &claude_line("s1", 0, "user", "old history"));
    tree.append("s1.jsonl", &claude_line("s1", 1, "assistant", "old answer"));
    let codex = tree
        .root
        .parent()
        .unwrap()
        .with_file_name("rollout-1.jsonl");
    let meta = serde_json::json!({"timestamp":"2026-06-01T10:00:00Z","type":"session_meta",
        "payload":{"id":"codex-thread-1","cwd":"/w","timestamp":"2026-06-01T10:00:00Z"}});
    let old = serde_json::json!({"timestamp":"2026-06-01T10:00:01Z","type":"response_item",
        "payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"codex old"}]}});
    std::fs::write(&codex, format!("{meta}\n{old}\n")).unwrap();
    let found = || {
        let mut sources = tree.sources();
        sources.push(Source {
            path: codex.clone(),
            provider: baton_core::transcripts::Provider::Codex,
            seen: None,
        });
        sources
    };
    let stats = pass_without_backfill(&tree, &found());
    assert_eq!((stats.skipped_backlog, stats.lines), (2, 0));
    assert_eq!(tree.search("old"), Vec::<String>::new());

    tree.append("s1.jsonl", &claude_line("s1", 2, "user", "new question"));
    let new = serde_json::json!({"timestamp":"2026-06-01T10:00:02Z","type":"response_item",
        "payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"codex new"}]}});
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&codex)
        .unwrap();
    writeln!(file, "{new}").unwrap();
    drop(file);
    let stats = pass_without_backfill(&tree, &found());
    assert_eq!((stats.skipped_backlog, stats.lines), (0, 2));
    assert_eq!(tree.search("new question"), ["s1-2"]);
    assert_eq!(tree.search("old"), Vec::<String>::new());
    assert_eq!(
        tree.count("SELECT count(*) FROM conversations WHERE provider_id = 'codex-thread-1'"),
        1,
        "the appended Codex line is filed under the session its first line named"
    );
}

/// A source that cannot be read is warned about once and set aside with its identity: later
/// passes do not try it again until it changes.
#[test]
fn an_unreadable_source_is_set_aside_until_it_changes() {
    let tree = Tree::new();
    let odd = tree.file("folder.jsonl");
    std::fs::create_dir(&odd).unwrap();
    let sources = vec![Source {
        path: odd.clone(),
        provider: baton_core::transcripts::Provider::ClaudeCode,
        seen: None,
    }];
    let first = mirror_once(&tree.index, &sources).unwrap();
    assert_eq!(first.failed, 1);
    assert_eq!(
        tree.count("SELECT count(*) FROM sources WHERE quarantine IS NOT NULL"),
        1
    );
    let again = mirror_once(&tree.index, &sources).unwrap();
    assert_eq!(
        (again.failed, again.files_opened),
        (0, 0),
        "not tried again"
    );
    std::fs::write(odd.join("inside"), "x").unwrap();
    let changed = mirror_once(&tree.index, &sources).unwrap();
    assert_eq!(changed.failed, 1, "tried again once it changed");
}

/// An error message a person pastes, which sits in a tool's output, is the first hit: its
/// rarer words are required, its stop words are not one by one, the whole phrase ranks first,
/// tool output is searched by default, and the snippet shows the phrase where the offsets say.
#[test]
fn a_pasted_error_that_sits_in_tool_output_is_the_first_hit() {
    let tree = Tree::new();
    // Twenty messages with the words scattered, none with the phrase.
    let mut n = 0;
    for text in [
        "the generate step is done, not a problem",
        "is this a function we need? not sure; generate it later",
        "a function is not what generate returns",
    ]
    .iter()
    .cycle()
    .take(20)
    {
        tree.append("s1.jsonl", &claude_line("s1", n, "user", text));
        n += 1;
    }
    let noise = "line of build output\n".repeat(60);
    let result = serde_json::json!({
        "type": "user", "sessionId": "s1", "uuid": "s1-err", "parentUuid": format!("s1-{}", n - 1),
        "timestamp": "2026-06-01T11:00:00.000Z", "cwd": "/home/dev/app",
        "message": { "role": "user", "content": [
            { "type": "tool_result", "tool_use_id": "toolu_9",
              "content": format!("{noise}TypeError: client.generate is not a function\n    at main (src/api.ts:12:5)\n{noise}") }
        ]}
    });
    tree.append("s1.jsonl", &format!("{result}\n"));
    tree.pass();
    let connection = index::open(&tree.index, false).unwrap();
    let search = |words: &str| {
        query::search(
            &connection,
            &tree.index,
            words,
            &Field::DEFAULT,
            &query::Filters::default(),
            Default::default(),
            10,
            80,
        )
    };
    let page = search("generate is not a function").unwrap();
    assert_eq!(
        page.total, 14,
        "every message with both rare words (13 scattered)"
    );
    let first = &page.hits[0];
    assert_eq!(first.message_id, "s1-err");
    assert_eq!(first.field, "tool_output");
    assert!(first.exact);
    assert!(page.hits[1..].iter().all(|h| !h.exact));
    assert!(
        first.snippet.contains("generate is not a function"),
        "{}",
        first.snippet
    );
    assert!(first.snippet.chars().count() <= 82, "{}", first.snippet);
    let (from, to) = first.highlights[0];
    let marked: String = first.snippet.chars().skip(from).take(to - from).collect();
    assert_eq!(marked, "generate is not a function");
    // Stop words alone: one is refused with a way out, several are looked for as a phrase.
    let refused = search("the").unwrap_err();
    assert_eq!(refused.code, baton_core::ErrorCode::InvalidArgument);
    assert!(
        refused.message.contains("quote a phrase"),
        "{}",
        refused.message
    );
    let phrase = search("is not a").unwrap();
    assert_eq!(
        phrase.total, 1,
        "only the message with those words in a row"
    );
    assert_eq!(phrase.hits[0].message_id, "s1-err");
}

/// A backfill of more than 64 new files has a second thread read and digest them ahead of
/// the writer; the index it leaves is the one the writer alone leaves, row for row.
#[test]
fn reading_ahead_leaves_the_index_the_writer_alone_leaves() {
    use baton::ops::mirror::{Mirror, pass};
    let tmp = tempfile::tempdir().unwrap();
    let trees = tmp.path().join("trees");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_transcript-gen"))
        .arg(&trees)
        .args(["--sessions", "60", "--seed", "11", "--responses", "30"])
        .status()
        .unwrap();
    assert!(status.success());
    let folders = std::collections::BTreeMap::from([
        (
            baton_core::transcripts::Provider::ClaudeCode,
            vec![trees.join("claude/projects")],
        ),
        (
            baton_core::transcripts::Provider::Codex,
            vec![trees.join("codex/sessions")],
        ),
    ]);
    let sources = pass::discover(&folders);
    assert!(
        sources.len() > 64,
        "{} files: too few to read ahead",
        sources.len()
    );
    let mirrored = |name: &str, read_ahead: bool| {
        let index = tmp.path().join(name);
        let options = pass::PassOptions {
            read_ahead,
            ..pass::PassOptions::default()
        };
        let stats = Mirror::open(&index)
            .unwrap()
            .pass(&sources, options, &mut |_| {})
            .unwrap();
        assert_eq!(stats.failed, 0);
        assert!(stats.messages > 0);
        index_contents(&index)
    };
    let alone = mirrored("alone.sqlite", false);
    let ahead = mirrored("ahead.sqlite", true);
    assert_eq!(ahead.len(), alone.len());
    assert_eq!(ahead, alone);
}
