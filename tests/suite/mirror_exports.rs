//! The mirror on ChatGPT and claude.ai exports (read whole when they change, capped, a
//! conversation a newer export dropped kept), every branch of a kept conversation, links
//! refused, and the index's upkeep from the command line: `transcripts remove` (logged, and
//! not brought back), `index stats`, `index compact`, and `--sync` on a query.

use baton::index;
use baton::ops::mirror::pass::{PassOptions, PassStats, Source, discover};
use baton::ops::mirror::{Mirror, query};
use baton_core::analyzer::Analyzer;
use baton_core::transcripts::Provider;
use baton_tests::assert_success;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(relative: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(relative),
    )
    .unwrap()
}

/// A temporary home for export folders and an index.
struct Drops {
    tmp: tempfile::TempDir,
    index: PathBuf,
}

impl Drops {
    fn new() -> Drops {
        let tmp = tempfile::tempdir().unwrap();
        for dir in ["chatgpt", "claude"] {
            std::fs::create_dir_all(tmp.path().join(dir)).unwrap();
        }
        let index = tmp.path().join("index.sqlite");
        Drops { tmp, index }
    }

    fn dir(&self, name: &str) -> PathBuf {
        self.tmp.path().join(name)
    }

    fn sources(&self) -> Vec<Source> {
        discover(&BTreeMap::from([
            (Provider::Chatgpt, vec![self.dir("chatgpt")]),
            (Provider::ClaudeAi, vec![self.dir("claude")]),
        ]))
    }

    fn pass_with(&self, options: PassOptions) -> PassStats {
        Mirror::open(&self.index)
            .unwrap()
            .pass(&self.sources(), options, &mut |_| {})
            .unwrap()
    }

    fn pass(&self) -> PassStats {
        self.pass_with(PassOptions::default())
    }

    fn connection(&self) -> rusqlite::Connection {
        index::open(&self.index, false).unwrap()
    }
}

/// What `analyze` makes of an export: each conversation's id and its active branch as
/// Markdown.
fn analyzed(name: &str, bytes: &[u8]) -> Vec<(String, String)> {
    let mut analyzer = Analyzer::new();
    analyzer.add_file(name, bytes).unwrap();
    (0..analyzer.conversations().len())
        .map(|index| {
            let view = analyzer.view(index, None).unwrap();
            (
                analyzer.conversations()[index].id.clone(),
                baton_core::analyzer::export::markdown(&view),
            )
        })
        .collect()
}

#[test]
fn exports_are_kept_as_analyze_reads_them_and_read_again_only_when_they_change() {
    let drops = Drops::new();
    let chatgpt = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
    std::fs::write(drops.dir("chatgpt").join("conversations.json"), &chatgpt).unwrap();
    let claude = fixture("claude-ai/claude-chat-viewer-testdata-conversations.json");
    let zip = baton_core::transcripts::zip::write_zip(
        &[
            ("conversations.json", &claude),
            ("users.json", b"[{\"uuid\":\"u1\"}]"),
        ],
        true,
    );
    std::fs::write(drops.dir("claude").join("data-2026-01-02.zip"), &zip).unwrap();
    // A side file beside an unzipped export is no source.
    std::fs::write(drops.dir("chatgpt").join("user.json"), b"{\"id\":\"u\"}").unwrap();
    assert_eq!(drops.sources().len(), 2);

    let first = drops.pass();
    assert_eq!((first.files_opened, first.failed), (2, 0));
    assert_eq!(first.lines, 0, "an export has conversations, not lines");
    let expected_gpt = analyzed("conversations.json", &chatgpt);
    let expected_claude = analyzed("conversations.json", &claude);
    assert!(expected_gpt.len() >= 2 && !expected_claude.is_empty());
    assert_eq!(
        first.export_conversations as usize,
        expected_gpt.len() + expected_claude.len()
    );
    let connection = drops.connection();
    let page = query::list(
        &connection,
        &drops.index,
        &query::Filters::default(),
        100,
        0,
    )
    .unwrap();
    assert_eq!(
        page.total as usize,
        expected_gpt.len() + expected_claude.len(),
        "every conversation has a row"
    );
    let only = |provider: &str, project: Option<&str>| {
        let filters = query::Filters {
            provider: Some(provider.into()),
            project: project.map(str::to_owned),
            ..Default::default()
        };
        query::list(&connection, &drops.index, &filters, 1, 0)
            .unwrap()
            .total as usize
    };
    assert_eq!(only("chatgpt", None), expected_gpt.len());
    assert_eq!(only("claude_ai", None), expected_claude.len());
    assert_eq!(only("chatgpt", Some("no such project")), 0);
    let since = query::Filters {
        since: Some(i64::MAX),
        ..Default::default()
    };
    assert_eq!(
        query::list(&connection, &drops.index, &since, 10, 0)
            .unwrap()
            .total,
        0
    );
    // Each kept conversation reads exactly as analyze reads the original.
    for (id, markdown) in expected_gpt.iter().chain(&expected_claude) {
        let shown = query::show(&connection, &drops.index, id, query::Branches::Active).unwrap();
        assert_eq!(&shown.markdown, markdown, "conversation {id}");
    }

    let warm = drops.pass();
    assert_eq!(
        (warm.files_opened, warm.export_conversations, warm.messages),
        (0, 0, 0),
        "unchanged exports are not opened"
    );

    // A newer export without the first conversation: read whole again, and the dropped
    // conversation stays with its messages.
    let mut items: Vec<serde_json::Value> = serde_json::from_slice(&chatgpt).unwrap();
    items.remove(0);
    std::fs::write(
        drops.dir("chatgpt").join("conversations.json"),
        serde_json::to_vec(&items).unwrap(),
    )
    .unwrap();
    let messages = |c: &rusqlite::Connection| -> i64 {
        c.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
            .unwrap()
    };
    let messages_before = messages(&connection);
    let again = drops.pass();
    assert_eq!((again.files_opened, again.rereads), (1, 1));
    assert_eq!(messages(&connection), messages_before, "no message twice");
    let after = query::list(
        &connection,
        &drops.index,
        &query::Filters::default(),
        100,
        0,
    )
    .unwrap();
    assert_eq!(after.total, page.total);
    let (dropped, markdown) = &expected_gpt[0];
    let shown = query::show(&connection, &drops.index, dropped, query::Branches::Active).unwrap();
    assert_eq!(&shown.markdown, markdown);

    // After the files are gone, everything is still there.
    std::fs::remove_file(drops.dir("chatgpt").join("conversations.json")).unwrap();
    std::fs::remove_file(drops.dir("claude").join("data-2026-01-02.zip")).unwrap();
    let gone = drops.pass();
    assert_eq!(gone.missing, 2);
    let kept = query::list(
        &connection,
        &drops.index,
        &query::Filters::default(),
        100,
        0,
    )
    .unwrap();
    assert_eq!(kept.total, page.total);
}

/// Two copies of one export, the older read last: the newer copy is what is kept, and the
/// conversation carries the title it was renamed to.
#[test]
fn the_newest_copy_of_an_export_conversation_wins_whatever_is_read_last() {
    let drops = Drops::new();
    let chatgpt = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
    let older: Vec<serde_json::Value> = serde_json::from_slice(&chatgpt).unwrap();
    let mut newer = older.clone();
    newer[0]["title"] = "Renamed later".into();
    newer[0]["update_time"] = (newer[0]["update_time"].as_f64().unwrap() + 1000.0).into();
    let folder = drops.dir("chatgpt");
    std::fs::write(
        folder.join("conversations.json"),
        serde_json::to_vec(&newer).unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(folder.join("old")).unwrap();
    std::fs::write(
        folder.join("old/conversations.json"),
        serde_json::to_vec(&older).unwrap(),
    )
    .unwrap();
    let order: Vec<PathBuf> = drops.sources().into_iter().map(|s| s.path).collect();
    assert_eq!(
        order,
        [
            folder.join("conversations.json"),
            folder.join("old/conversations.json")
        ],
        "the older copy is read last"
    );
    drops.pass();
    let newer_bytes = serde_json::to_vec(&newer).unwrap();
    let (id, markdown) = &analyzed("conversations.json", &newer_bytes)[0];
    let connection = drops.connection();
    let shown = query::show(&connection, &drops.index, id, query::Branches::Active).unwrap();
    assert_eq!(&shown.markdown, markdown);
    assert_eq!(shown.row.title.as_deref(), Some("Renamed later"));
}

#[test]
fn every_branch_of_a_kept_conversation_can_be_read() {
    let drops = Drops::new();
    let chatgpt = fixture("chatgpt/pkuppens-real-2023-06-export-subset3.json");
    std::fs::write(drops.dir("chatgpt").join("conversations.json"), &chatgpt).unwrap();
    drops.pass();
    let mut analyzer = Analyzer::new();
    analyzer.add_file("conversations.json", &chatgpt).unwrap();
    let forked = analyzer
        .list(&Default::default())
        .rows
        .into_iter()
        .find(|r| r.forks > 0)
        .unwrap();
    let id = &analyzer.conversations()[forked.head.index].id;
    let branches = analyzer.branches(forked.head.index).unwrap();
    let connection = drops.connection();
    let active = query::show(&connection, &drops.index, id, query::Branches::Active).unwrap();
    let all = query::show(&connection, &drops.index, id, query::Branches::All).unwrap();
    assert_eq!(active.branches, branches.len());
    assert!(active.branches > 1);
    assert!(!active.markdown.contains("Branch 2 of"));
    for (n, branch) in branches.iter().enumerate() {
        assert!(
            all.markdown
                .contains(&format!("**Branch {} of {}**", n + 1, branches.len()))
        );
        let body = baton_core::analyzer::export::markdown(branch);
        assert!(all.markdown.contains(&body), "branch {n} is shown whole");
    }
    assert_eq!(
        active.active_branch,
        branches[0]
            .messages
            .iter()
            .map(|m| m.id.clone())
            .collect::<Vec<_>>()
    );
}

#[test]
fn an_export_over_its_cap_or_damaged_is_set_aside_until_it_changes() {
    let drops = Drops::new();
    let chatgpt = fixture("chatgpt/ai-chat-md-export-examples-conversations.json");
    let gpt = drops.dir("chatgpt").join("conversations.json");
    std::fs::write(&gpt, &chatgpt).unwrap();
    let damaged = drops.dir("claude").join("conversations.json");
    std::fs::write(&damaged, b"[{\"uuid\": \"c1\", \"chat_messages\": [").unwrap();
    let mut small = PassOptions::default();
    small.max_bytes[Provider::Chatgpt as usize] = 100;
    let first = drops.pass_with(small);
    assert_eq!((first.failed, first.messages), (2, 0));
    let connection = drops.connection();
    let why: String = connection
        .query_row(
            "SELECT quarantine FROM sources WHERE path LIKE '%chatgpt%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(why.contains("BATON_MIRROR_CHATGPT_MAX_BYTES"), "{why}");
    let again = drops.pass_with(small);
    assert_eq!(
        (again.failed, again.files_opened),
        (0, 0),
        "no retry until they change"
    );
    // Once the cap is raised, the same file reads (as the warning said it would); the damaged
    // one stays aside until it is fixed.
    let roomy = drops.pass_with(PassOptions::default());
    assert_eq!((roomy.files_opened, roomy.failed), (1, 0));
    assert!(roomy.messages > 0);
    let settled = drops.pass_with(PassOptions::default());
    assert_eq!(settled.files_opened, 0);
    std::fs::write(
        &damaged,
        fixture("claude-ai/claude-chat-viewer-testdata-conversations.json"),
    )
    .unwrap();
    let fixed = drops.pass();
    assert_eq!((fixed.files_opened, fixed.failed), (1, 0));
    let aside: i64 = connection
        .query_row(
            "SELECT count(*) FROM sources WHERE quarantine IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(aside, 0);
}

#[test]
fn links_are_not_followed_and_do_not_hide_their_targets() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("projects/-home-dev-app");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let line = |session: &str, text: &str| {
        serde_json::json!({"type":"user","sessionId":session,"uuid":format!("{session}-0"),
            "timestamp":"2026-06-01T10:00:00Z","message":{"role":"user","content":text}})
        .to_string()
            + "\n"
    };
    std::fs::write(
        outside.join("secret.jsonl"),
        line("s-out", "outside secret"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), root.join("evil.jsonl")).unwrap();
    std::fs::write(root.join("real.jsonl"), line("s-in", "inside words")).unwrap();
    std::os::unix::fs::symlink(root.join("real.jsonl"), root.join("alias.jsonl")).unwrap();
    let sources = discover(&BTreeMap::from([(
        Provider::ClaudeCode,
        vec![tmp.path().join("projects")],
    )]));
    assert_eq!(
        sources.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
        [root.join("real.jsonl")],
        "the file by its own name, no link"
    );
    // What `--follow` is told of is held to the same rule.
    use baton::ops::mirror::pass::wanted;
    use baton_core::transcripts::Provider;
    assert!(!wanted(Provider::ClaudeCode, &root.join("alias.jsonl")));
    assert!(wanted(Provider::ClaudeCode, &root.join("real.jsonl")));
    assert!(!wanted(Provider::ClaudeCode, &root.join("notes.json")));
    assert!(!wanted(Provider::Chatgpt, &root.join("user.json")));
    assert!(wanted(
        Provider::Chatgpt,
        &root.join("conversations-001.json")
    ));
    assert!(wanted(Provider::ClaudeAi, &root.join("data-2026.zip")));
}

/// The CLI's upkeep of the index: a removal is asked for, logged and lasting; stats count the
/// parts; compaction keeps every answer; `--sync` reads what changed first.
#[test]
fn removing_sizing_compacting_and_syncing_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join(".baton");
    let projects = tmp.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&projects).unwrap();
    let index = tmp.path().join("index.sqlite");
    let line = |session: &str, n: u32, text: &str| {
        serde_json::json!({"type":"user","sessionId":session,"uuid":format!("{session}-{n}"),
            "timestamp":format!("2026-06-01T10:0{n}:00Z"),"cwd":"/home/dev/app",
            "message":{"role":"user","content":text}})
        .to_string()
            + "\n"
    };
    std::fs::write(
        projects.join("a.jsonl"),
        line("0191aaaa-keep", 0, "alpha words"),
    )
    .unwrap();
    let answer = serde_json::json!({"type":"assistant","sessionId":"0191bbbb-drop","uuid":"b-a",
        "parentUuid":"0191bbbb-drop-0","timestamp":"2026-06-01T10:00:30Z","cwd":"/home/dev/app",
        "requestId":"r1","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-20250514",
            "content":[{"type":"text","text":"bravo answer"}],
            "usage":{"input_tokens":10,"output_tokens":7}}});
    std::fs::write(
        projects.join("b.jsonl"),
        line("0191bbbb-drop", 0, "bravo words") + &format!("{answer}\n"),
    )
    .unwrap();
    let baton = |args: &[&str]| {
        let mut command = baton_tests::baton(&ledger);
        command
            .args(args)
            .env("BATON_INDEX", &index)
            .env("BATON_MIRROR_CLAUDE_DIR", tmp.path().join("projects"))
            .stdin(std::process::Stdio::null());
        command.output().unwrap()
    };
    let json = |args: &[&str]| {
        let out = baton(&[&["--json"], args].concat());
        assert_success(&out, format_args!("{args:?}"));
        baton_tests::json_of(&out)
    };
    json(&["mirror"]);
    assert_eq!(json(&["transcripts", "list"])["total"], 2);

    let refused = baton(&["transcripts", "remove", "0191bbbb"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--yes"),
        "off a terminal it asks for --yes"
    );
    assert_eq!(
        json(&["transcripts", "list"])["total"],
        2,
        "nothing removed"
    );
    assert_eq!(json(&["usage", "--index"])["totals"]["output_tokens"], 7);
    let removed = json(&["transcripts", "remove", "0191bbbb", "--yes"]);
    assert_eq!(removed["removed"]["provider_id"], "0191bbbb-drop");
    assert_eq!(
        json(&["usage", "--index"])["totals"]["output_tokens"],
        0,
        "its usage went with it"
    );
    assert_eq!(json(&["transcripts", "list"])["total"], 1);
    assert_eq!(json(&["search", "bravo"])["total"], 0);
    // The source grows and is read again from its start: the conversation stays out.
    std::fs::write(
        projects.join("b.jsonl"),
        line("0191bbbb-drop", 0, "bravo rewritten") + &line("0191bbbb-drop", 1, "more"),
    )
    .unwrap();
    json(&["mirror"]);
    assert_eq!(json(&["transcripts", "list"])["total"], 1);
    assert_eq!(json(&["search", "bravo"])["total"], 0);

    let stats = json(&["index", "stats"]);
    assert_eq!(stats["removed"], 1);
    assert_eq!(stats["sources"], 2);
    let tables: Vec<&str> = stats["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for table in [
        "lines",
        "messages",
        "messages_fts",
        "conversations",
        "usage",
    ] {
        assert!(tables.contains(&table), "{table} in {tables:?}");
    }
    assert!(stats["share_of_sources"].as_f64().unwrap() > 0.0);
    let human = baton(&["index", "stats"]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("messages_fts"));

    let compacted = json(&["index", "compact"]);
    let done = &compacted["compacted"];
    assert!(
        done["bytes_after"].as_u64() <= done["bytes_before"].as_u64(),
        "{done}"
    );
    assert_eq!(
        json(&["index", "stats"])["free_bytes"],
        0,
        "every free page given back"
    );
    assert_eq!(json(&["search", "alpha"])["total"], 1, "answers survive");

    // --sync reads a new file before answering; without it the index answers alone.
    std::fs::write(
        projects.join("c.jsonl"),
        line("0191cccc-new", 0, "charlie words"),
    )
    .unwrap();
    assert_eq!(json(&["search", "charlie"])["total"], 0);
    assert_eq!(json(&["search", "charlie", "--sync"])["total"], 1);
    assert_eq!(json(&["transcripts", "list"])["total"], 2);
    // `--index` alone is the index BATON_INDEX names.
    assert!(json(&["usage", "--index"])["rows"].is_array());
    assert!(json(&["usage", "model", "--index", "--sync"])["rows"].is_array());
}

/// Every tool call the fixtures hold is counted once under its tool, with the calls whose
/// result failed, as the core's readers see them.
#[test]
fn tool_calls_are_counted_by_tool_with_their_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let index = tmp.path().join("index.sqlite");
    let sources = discover(&BTreeMap::from([
        (Provider::ClaudeCode, vec![fixtures.join("claude-code")]),
        (Provider::Codex, vec![fixtures.join("codex")]),
    ]));
    assert!(sources.len() > 5);
    baton::ops::mirror::mirror_once(&index, &sources).unwrap();
    let mut expected: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
    let mut calls = std::collections::BTreeMap::new();
    let mut failed = std::collections::BTreeSet::new();
    let mut analyzer = Analyzer::new();
    for source in &sources {
        let _ = analyzer.add_file(
            &source.path.display().to_string(),
            &std::fs::read(&source.path).unwrap(),
        );
    }
    use baton_core::transcripts::conversation::Block;
    for conversation in analyzer.conversations() {
        for block in conversation.messages.iter().flat_map(|m| &m.blocks) {
            match block {
                Block::ToolCall { id, name, .. } if !id.is_empty() => {
                    calls.insert((conversation.id.clone(), id.clone()), name.clone());
                }
                Block::ToolResult {
                    call_id,
                    is_error: true,
                    ..
                } => {
                    failed.insert((conversation.id.clone(), call_id.clone()));
                }
                _ => {}
            }
        }
    }
    for (key, name) in &calls {
        let entry = expected.entry(name.clone()).or_default();
        entry.0 += 1;
        entry.1 += i64::from(failed.contains(key));
    }
    assert!(
        expected.values().any(|(_, errors)| *errors > 0),
        "a fixture has a failed call"
    );
    let connection = index::open(&index, false).unwrap();
    let page = query::tools(&connection, &index, &query::Filters::default(), 1000).unwrap();
    let got: std::collections::BTreeMap<String, (i64, i64)> = page
        .tools
        .iter()
        .map(|t| (t.name.clone(), (t.calls, t.errors)))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(page.calls as usize, calls.len());
    let only_codex = query::tools(
        &connection,
        &index,
        &query::Filters {
            provider: Some("codex".into()),
            ..Default::default()
        },
        1000,
    )
    .unwrap();
    assert!(only_codex.calls > 0 && only_codex.calls < page.calls);
}
