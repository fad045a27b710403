//! Stored records through the CLI: each refusal by name, a thousand records paged exactly
//! under sparse filters, prefixes two records share, the index deleted and rebuilt from the
//! ledger (a megabyte round-tripping byte for byte, compaction included), stored and mirrored
//! rows in one newest-first order, and the Markdown export against its snapshot.

use baton_core::ledger::event::Actor;
use baton_core::records::{Record, plan_store};
use baton_core::time::Timestamp;
use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};
use uuid::Uuid;

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    baton(dir).args(args).output().unwrap()
}

/// The JSON answer of a command that must succeed.
fn ok(dir: &Path, args: &[&str]) -> Value {
    let output = run(dir, &[&["--json"], args].concat());
    assert_success(&output, format_args!("{args:?}"));
    json_of(&output)
}

/// The error of a command that must fail: its code and field.
fn refused(dir: &Path, args: &[&str]) -> (String, Value) {
    let output = run(dir, &[&["--json"], args].concat());
    assert!(!output.status.success(), "{args:?} was not refused");
    let body = json_of(&output);
    (
        body["error"]["code"].as_str().unwrap().to_owned(),
        body["error"]["details"].clone(),
    )
}

fn ledger() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    (tmp, dir)
}

/// Appends `record_stored` events to the ledger as another writer would (the ledger made
/// first, so its log has its header).
fn append_records(dir: &Path, records: &[Record]) {
    use std::io::Write;
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("events.ndjson"))
        .unwrap();
    for (n, record) in records.iter().enumerate() {
        let event = baton_core::EventId(Uuid::from_u128(
            0x0190_0000_0000_7000_8000_0000_0000_0000 | (n as u128 + 1),
        ));
        let plan = plan_store(record, event, Actor::agent("generator")).unwrap();
        assert!(plan.blob.is_none());
        writeln!(log, "{}", plan.event.encode().unwrap()).unwrap();
    }
}

/// Mirrors the Claude Code fixtures (and the Codex ones when `codex`) into the ledger's index.
fn mirror_fixtures(dir: &Path, codex: bool) {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let codex_dir = if codex {
        fixtures.join("codex")
    } else {
        PathBuf::from("/nonexistent")
    };
    let mirrored = run(
        dir,
        &[
            "mirror",
            "--claude-dir",
            fixtures.join("claude-code").to_str().unwrap(),
            "--codex-dir",
            codex_dir.to_str().unwrap(),
        ],
    );
    assert_success(&mirrored, format_args!(""));
}

fn record(id: Uuid, at_ms: i64, provider: Option<&str>, content: &str) -> Record {
    Record {
        id,
        about: baton_core::ledger::record::RecordAbout {
            title: Some(format!("record at {at_ms}")),
            provider: provider.map(str::to_owned),
            ..Default::default()
        },
        created_at: Timestamp::from_millis(at_ms),
        updated_at: Timestamp::from_millis(at_ms),
        content: content.to_owned(),
    }
}

fn ids(listing: &Value) -> Vec<String> {
    listing["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i["id"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("#{}", i["number"]))
        })
        .collect()
}

#[test]
fn each_refusal_names_its_field_and_writes_nothing() {
    let (_tmp, dir) = ledger();
    let cases: &[(&[&str], &str)] = &[
        (&["record", "store"], "content"),
        (&["record", "store", "--content", " \n"], "content"),
        (
            &["record", "store", "--content", "x", "--title", " "],
            "title",
        ),
        (
            &["record", "store", "--content", "x", "--provider", ""],
            "provider",
        ),
        (
            &[
                "record",
                "store",
                "--content",
                "x",
                "--provider-session-id",
                "\t",
            ],
            "provider_session_id",
        ),
        (
            &[
                "record",
                "store",
                "--content",
                "x",
                "--tag",
                "a",
                "--tag",
                " ",
            ],
            "tags",
        ),
        (&["record", "list", "--limit", "0"], "limit"),
        (&["record", "list", "--limit", "201"], "limit"),
        (&["record", "list", "--offset", "-1"], "offset"),
        (&["record", "list", "--since", "2026-13-01"], "since"),
        (&["record", "list", "--include", "both"], "include"),
        (&["record", "get", "0190abc"], "id"),
        (&["record", "get", "0190abcz"], "id"),
        // The format is refused before the id is even read.
        (
            &["record", "export", "nonsense", "--format", "html"],
            "format",
        ),
        (&["transcripts", "list", "--include", "both"], "include"),
    ];
    for (args, field) in cases {
        let (code, details) = refused(&dir, args);
        assert_eq!(code, "INVALID_ARGUMENT", "{args:?}");
        assert_eq!(details["field"], *field, "{args:?}: {details}");
    }
    let (code, details) = refused(
        &dir,
        &[
            "record",
            "store",
            "--content",
            "x",
            "--session",
            "019c0000-0000-7000-8000-000000000001",
        ],
    );
    assert_eq!(
        (code.as_str(), &details["field"]),
        ("SESSION_NOT_FOUND", &Value::from("session"))
    );
    let (code, _) = refused(&dir, &["record", "get", "0190abcd"]);
    assert_eq!(code, "RECORD_NOT_FOUND");
    let listing = ok(&dir, &["record", "list"]);
    assert_eq!(listing["total"], 0);
}

#[test]
fn a_thousand_records_page_newest_first_with_exact_totals_under_sparse_filters() {
    let (_tmp, dir) = ledger();
    ok(
        &dir,
        &["record", "store", "--content", "the first, made by the CLI"],
    );
    let base = 1_780_000_000_000i64;
    let records: Vec<Record> = (0..1000u128)
        .map(|n| {
            // Stored out of time order: the list must sort, not trust the log.
            let at = base + ((n * 7919) % 1000) as i64 * 60_000;
            let provider = if n % 97 == 0 { "rare" } else { "common" };
            record(
                Uuid::from_u128(0x0190_0000_0000_7000_8000_0001_0000_0000 | n),
                at,
                Some(provider),
                &format!("content {n}"),
            )
        })
        .collect();
    append_records(&dir, &records);
    let mut expected: Vec<&Record> = records.iter().collect();
    expected.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id.simple().to_string())));
    // Every page of the whole list, newest first, with the total.
    let mut seen = Vec::new();
    let mut offset = 0;
    loop {
        let page = ok(
            &dir,
            &[
                "record",
                "list",
                "--provider",
                "common",
                "--limit",
                "200",
                "--offset",
                &offset.to_string(),
            ],
        );
        assert_eq!(page["total"], 989);
        let page_ids = ids(&page);
        if page_ids.is_empty() {
            break;
        }
        offset += page_ids.len();
        seen.extend(page_ids);
    }
    let common: Vec<String> = expected
        .iter()
        .filter(|r| r.about.provider.as_deref() == Some("common"))
        .map(|r| r.id.to_string())
        .collect();
    assert_eq!(seen, common);
    // A sparse filter: 11 rare records among 1,001, the page cut from them alone.
    let rare: Vec<String> = expected
        .iter()
        .filter(|r| r.about.provider.as_deref() == Some("rare"))
        .map(|r| r.id.to_string())
        .collect();
    assert_eq!(rare.len(), 11);
    let page = ok(
        &dir,
        &[
            "record",
            "list",
            "--provider",
            "rare",
            "--limit",
            "3",
            "--offset",
            "8",
        ],
    );
    assert_eq!(page["total"], 11);
    assert_eq!(ids(&page), rare[8..11]);
    // `since` is inclusive.
    let since = Timestamp::from_millis(base + 990 * 60_000).to_string();
    let page = ok(
        &dir,
        &["record", "list", "--since", &since, "--provider", "common"],
    );
    let after = common
        .iter()
        .filter(|id| {
            records
                .iter()
                .find(|r| &r.id.to_string() == *id)
                .is_some_and(|r| r.created_at.millis() >= base + 990 * 60_000)
        })
        .count();
    assert_eq!(page["total"], after as u64);
    assert_eq!(after, 10);
    let all = ok(&dir, &["record", "list", "--limit", "1"]);
    assert_eq!(all["total"], 1001);
}

#[test]
fn a_prefix_two_records_share_is_ambiguous_and_lists_both() {
    let (_tmp, dir) = ledger();
    ok(&dir, &["record", "store", "--content", "made first"]);
    let twins = [
        Uuid::from_u128(0x0190_abcd_0000_7000_8000_0000_0000_0001),
        Uuid::from_u128(0x0190_abcd_0000_7000_8000_0000_0000_0002),
    ];
    append_records(
        &dir,
        &[
            record(twins[0], 1_780_000_000_000, None, "one"),
            record(twins[1], 1_780_000_001_000, None, "two"),
        ],
    );
    let (code, details) = refused(&dir, &["record", "get", "0190abcd"]);
    assert_eq!(code, "AMBIGUOUS_RECORD");
    let mut candidates: Vec<String> = details["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_owned())
        .collect();
    candidates.sort();
    assert_eq!(candidates, twins.map(|t| t.to_string()));
    // More digits settle it; a work session's id is another kind.
    let got = ok(&dir, &["record", "get", &twins[1].simple().to_string()]);
    assert_eq!(got["record"]["content"], "two");
    let started = ok(&dir, &["start", "--project", "demo", "--agent", "claude"]);
    let (code, details) = refused(
        &dir,
        &["record", "get", started["session_id"].as_str().unwrap()],
    );
    assert_eq!(code, "NOT_A_RECORD");
    assert_eq!(details["kind"], "work_session");
}

#[test]
fn deleting_the_index_loses_nothing_and_a_megabyte_round_trips_byte_for_byte() {
    let (tmp, dir) = ledger();
    let big: String = ["lorem ", "é", "\n", "末尾", "\t", "  "]
        .iter()
        .cycle()
        .take(500_000)
        .copied()
        .collect();
    assert!(big.len() > 1_000_000);
    let file = tmp.path().join("big.txt");
    std::fs::write(&file, &big).unwrap();
    let stored = ok(
        &dir,
        &[
            "record",
            "store",
            "--file",
            file.to_str().unwrap(),
            "--title",
            "Big",
            "--tag",
            "bulk",
        ],
    );
    let id = stored["record"]["id"].as_str().unwrap().to_owned();
    let small = ok(&dir, &["record", "store", "--content", "small\n"]);
    let blobs: Vec<PathBuf> = std::fs::read_dir(dir.join("blobs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(blobs.len(), 1, "only the big one goes to a blob");
    assert_eq!(std::fs::read(&blobs[0]).unwrap(), big.as_bytes());
    let listed = |what: &str| {
        let page = ok(&dir, &["record", "list"]);
        assert_eq!(page["total"], 2, "{what}");
        ids(&page)
    };
    let before = listed("as stored");
    for step in ["deleted", "compacted and deleted"] {
        if step.starts_with("compacted") {
            ok(&dir, &["compact"]);
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!(
                "{}{suffix}",
                baton_tests::default_index(&dir).display()
            ));
        }
        assert_eq!(listed(step), before);
        let exported = run(&dir, &["record", "export", &id]);
        assert!(exported.status.success());
        let document: Value = serde_json::from_slice(&exported.stdout).unwrap();
        assert_eq!(document["content"].as_str().unwrap(), big, "{step}");
        let markdown = run(&dir, &["record", "export", &id, "--format", "markdown"]);
        assert!(markdown.stdout.ends_with(big.as_bytes()), "{step}");
    }
    let got = ok(
        &dir,
        &["record", "get", small["record"]["id"].as_str().unwrap()],
    );
    assert_eq!(got["record"]["content"], "small\n");
    // A blob altered behind Baton's back is said to be damaged, not served.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!(
            "{}{suffix}",
            baton_tests::default_index(&dir).display()
        ));
    }
    std::fs::write(&blobs[0], "tampered").unwrap();
    // `doctor` sees it before anything is rebuilt from it.
    let doctor = ok(&dir, &["doctor"]);
    assert_eq!(doctor["healthy"], false, "{doctor}");
    assert!(
        doctor["findings"].as_array().unwrap().iter().any(|f| f
            .as_str()
            .unwrap()
            .contains("not the ones its name promises")),
        "{doctor}"
    );
    let (code, details) = refused(&dir, &["record", "get", &id]);
    assert_eq!(code, "RECORD_CONTENT_DAMAGED");
    assert_eq!(details["id"], id.as_str());
}

/// A damaged transcript index answers with its own code and the command that rebuilds it
/// (never an answer from damaged pages, never SQLite's words alone), `doctor` says so, and the
/// rebuild it names works; a search with no index says there is none, stored records or not.
#[test]
fn a_damaged_or_missing_index_is_said_with_the_command_that_fixes_it() {
    let (_tmp, dir) = ledger();
    ok(
        &dir,
        &[
            "record",
            "store",
            "--content",
            "a stored note about zebras\n",
        ],
    );
    let index = baton_tests::default_index(&dir);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    let searched = run(&dir, &["search", "zebras"]);
    assert!(searched.status.success());
    let stderr = String::from_utf8_lossy(&searched.stderr);
    assert!(
        stderr.contains("no transcript index") && stderr.contains("baton mirror"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&searched.stdout).contains("1 stored record(s)"));
    // An index that exists but never held a transcript says so too.
    let searched = run(&dir, &["search", "zebras"]);
    assert!(String::from_utf8_lossy(&searched.stderr).contains("holds no transcripts yet"));

    mirror_fixtures(&dir, false);
    // Fold the log in, then overwrite the pages past the header with garbage.
    let connection = rusqlite::Connection::open(&index).unwrap();
    connection
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .unwrap();
    drop(connection);
    let mut bytes = std::fs::read(&index).unwrap();
    let page = 4096;
    for (i, b) in bytes.iter_mut().enumerate().skip(page) {
        *b = (i * 7 % 251) as u8;
    }
    std::fs::write(&index, &bytes).unwrap();
    for args in [
        &["search", "tool"][..],
        &["transcripts", "list"],
        &["usage", "--index"],
    ] {
        let (code, details) = refused(&dir, args);
        assert_eq!(code, "INDEX_DAMAGED", "{args:?}: {details}");
        assert!(details["fix"].as_str().unwrap().contains("baton mirror"));
    }
    let doctor = ok(&dir, &["doctor"]);
    assert_eq!(doctor["healthy"], false);
    assert!(
        doctor["findings"].to_string().contains("is damaged"),
        "{doctor}"
    );
    // The fix it names.
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
    mirror_fixtures(&dir, false);
    assert!(
        ok(&dir, &["transcripts", "list"])["total"]
            .as_i64()
            .unwrap()
            > 0
    );
}

#[test]
fn include_all_lists_stored_and_mirrored_rows_in_one_newest_first_order() {
    let (tmp, dir) = ledger();
    mirror_fixtures(&dir, true);
    let conversations = ok(&dir, &["transcripts", "list", "--limit", "500"]);
    let conversation_total = conversations["total"].as_i64().unwrap();
    assert!(conversation_total >= 5);
    // Records stored at times between the conversations' last messages.
    let times: Vec<i64> = conversations["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["updated_at"].as_i64())
        .collect();
    let anchor = conversations["conversations"][0]["provider_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for (n, at) in times.iter().step_by(2).enumerate() {
        let now = Timestamp::from_millis(at - 1).to_string();
        let mut command = baton(&dir);
        command.env("BATON_NOW", &now).args([
            "--json",
            "record",
            "store",
            "--content",
            &format!("note {n}"),
            "--provider",
            "claude_code",
        ]);
        if n == 0 {
            command.args(["--provider-session-id", &anchor]);
        }
        assert!(command.output().unwrap().status.success());
    }
    let stored_total = times.iter().step_by(2).count() as i64;
    let _ = tmp;
    let all = ok(
        &dir,
        &["record", "list", "--include", "all", "--limit", "200"],
    );
    assert_eq!(all["total"], stored_total + conversation_total);
    assert_eq!(all["stored_total"], stored_total);
    assert_eq!(all["mirrored_total"], conversation_total);
    let items = all["items"].as_array().unwrap();
    assert_eq!(items.len() as i64, stored_total + conversation_total);
    let order: Vec<String> = items
        .iter()
        .map(|i| i["updated_at"].as_str().unwrap_or("").to_owned())
        .collect();
    let mut sorted = order.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(order, sorted, "newest first across both origins");
    assert!(items.iter().any(|i| i["origin"] == "stored"));
    assert!(items.iter().any(|i| i["origin"] == "mirrored"));
    // The same listing from the other side, paged: each page is the slice of the whole.
    let whole = ids(&all);
    let page = ok(
        &dir,
        &[
            "transcripts",
            "list",
            "--include",
            "all",
            "--limit",
            "4",
            "--offset",
            "3",
        ],
    );
    assert_eq!(ids(&page), whole[3..7]);
    assert_eq!(page["total"], all["total"]);
    // A provider filter now finds both the mirrored and the stored rows.
    let claude = ok(
        &dir,
        &[
            "record",
            "list",
            "--include",
            "all",
            "--provider",
            "claude_code",
            "--limit",
            "200",
        ],
    );
    let mirrored_claude = ok(
        &dir,
        &[
            "transcripts",
            "list",
            "--provider",
            "claude_code",
            "--limit",
            "200",
        ],
    );
    assert_eq!(
        claude["total"],
        stored_total + mirrored_claude["total"].as_i64().unwrap()
    );
    let only_stored = ok(&dir, &["transcripts", "list", "--include", "stored"]);
    assert_eq!(only_stored["total"], stored_total);
    // A mirrored conversation's id is not a record's; the first note links to it.
    let (code, details) = refused(&dir, &["record", "get", &anchor]);
    assert_eq!(code, "NOT_A_RECORD", "{details}");
    assert_eq!(details["kind"], "mirrored_conversation");
    let first = items
        .iter()
        .find(|i| i["origin"] == "stored" && i["provider_session_id"] == anchor.as_str())
        .unwrap();
    let got = ok(&dir, &["record", "get", first["id"].as_str().unwrap()]);
    assert_eq!(
        got["record"]["links"]["mirrored"][0]["provider_id"],
        anchor.as_str()
    );
}

#[test]
fn the_markdown_export_is_the_snapshot_byte_for_byte() {
    let (_tmp, dir) = ledger();
    let mut command = baton(&dir);
    command.env("BATON_NOW", "2026-06-01T09:30:00Z").args([
        "--json",
        "record",
        "store",
        "--title",
        "PR #610 review session",
        "--provider",
        "claude_code",
        "--provider-session-id",
        "5c1e0000-aaaa-4bbb-8ccc-000000000001",
        "--tag",
        "review",
        "--tag",
        "hand-off",
        "--content",
        "Looked at the diff.\n\n```sh\ncargo test\n```\n  no trailing newline",
    ]);
    let stored = json_of(&command.output().unwrap());
    let id = stored["record"]["id"].as_str().unwrap().to_owned();
    let exported = run(&dir, &["record", "export", &id, "--format", "markdown"]);
    assert!(exported.status.success());
    let text = String::from_utf8(exported.stdout)
        .unwrap()
        .replace(&id, "<id>");
    insta::assert_snapshot!("record_export_markdown", text);
    // The same document, as the JSON answer carries it.
    let answer = ok(&dir, &["record", "export", &id, "--format", "markdown"]);
    assert_eq!(
        answer["document"].as_str().unwrap().replace(&id, "<id>"),
        text
    );
}

/// Mirrors the fixtures; the provider id of the newest conversation kept.
fn newest_mirrored(dir: &Path) -> String {
    mirror_fixtures(dir, false);
    let conversations = ok(dir, &["transcripts", "list", "--limit", "1"]);
    conversations["conversations"][0]["provider_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn search_finds_records_and_messages_and_a_session_lists_what_links_to_it() {
    let (_tmp, dir) = ledger();
    let anchor = newest_mirrored(&dir);
    let started = ok(
        &dir,
        &[
            "start",
            "--project",
            "demo",
            "--agent",
            "codex",
            "--client",
            "codex",
            "--goal",
            "Fix the login test",
        ],
    );
    let session = started["session_id"].as_str().unwrap().to_owned();
    let attached = ok(
        &dir,
        &[
            "record",
            "store",
            "--session",
            &session,
            "--provider-session-id",
            &anchor,
            "--title",
            "Hand-off",
            "--content",
            "The parse_claude_code 東京 fix is half done",
        ],
    );
    let ended = ok(
        &dir,
        &[
            "end",
            &session,
            "--summary",
            "Waits on the event now, not a timer",
            "--store-summary",
        ],
    );
    let summary = ended["stored_summary"].as_str().unwrap().to_owned();
    // The summary is a record attached to the session, tagged and titled from its goal.
    let got = ok(&dir, &["record", "get", &summary]);
    assert_eq!(
        got["record"]["content"],
        "Waits on the event now, not a timer"
    );
    assert_eq!(got["record"]["work_session"], session.as_str());
    assert_eq!(got["record"]["tags"], serde_json::json!(["summary"]));
    assert_eq!(got["record"]["title"], "Summary: Fix the login test");
    assert_eq!(got["record"]["links"]["work_session"]["status"], "complete");
    // `show` lists both records and the mirrored conversation the hand-off names.
    let shown = ok(&dir, &["show", &session]);
    let linked: Vec<&str> = shown["linked"]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        linked,
        [summary.as_str(), attached["record"]["id"].as_str().unwrap()]
    );
    assert_eq!(
        shown["linked"]["mirrored"][0]["provider_id"],
        anchor.as_str()
    );
    let human = run(&dir, &["show", &session]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("Linked:") && text.contains("Hand-off"),
        "{text}"
    );
    // Search looks in both: identifiers and CJK in a record, words in messages.
    for query in ["parse_claude_code", "東京", "half done"] {
        let found = ok(&dir, &["search", query]);
        assert_eq!(found["stored_total"], 1, "{query}");
        assert_eq!(
            found["stored_hits"][0]["id"], attached["record"]["id"],
            "{query}"
        );
    }
    let found = ok(&dir, &["search", "timer"]);
    assert_eq!(found["stored_hits"][0]["id"], summary.as_str());
    let mirrored_only = ok(
        &dir,
        &["search", "parse_claude_code", "--include", "mirrored"],
    );
    assert!(mirrored_only.get("stored_total").is_none());
    let stored_only = ok(&dir, &["search", "half", "--include", "stored"]);
    assert!(stored_only.get("hits").is_none() && stored_only["stored_total"] == 1);
    // --store-summary needs a summary to store, and says so before anything is ended.
    let output = run(&dir, &["end", "--store-summary"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_session_whose_attempt_id_is_a_provider_session_id_links_to_that_conversation() {
    let (_tmp, dir) = ledger();
    let anchor = newest_mirrored(&dir);
    // What the README's Claude Code hook does: Claude's session id as the attempt id.
    let started = ok(
        &dir,
        &[
            "start",
            "--project",
            "demo",
            "--agent",
            "claude",
            "--attempt-id",
            &anchor,
        ],
    );
    let shown = ok(&dir, &["show", started["session_id"].as_str().unwrap()]);
    assert_eq!(
        shown["linked"]["mirrored"][0]["provider_id"],
        anchor.as_str()
    );
    assert_eq!(shown["linked"]["records"], serde_json::json!([]));
}

#[test]
fn records_stored_by_many_processes_at_once_are_all_kept_once() {
    let (_tmp, dir) = ledger();
    ok(
        &dir,
        &["record", "store", "--content", "first, to make the ledger"],
    );
    let children: Vec<std::process::Child> = (0..12)
        .map(|n| {
            let mut command = baton(&dir);
            // Every third one large enough for a blob.
            let content = if n % 3 == 0 {
                format!("{n} {}", "x".repeat(5000))
            } else {
                format!("record {n}")
            };
            command
                .args([
                    "--json",
                    "record",
                    "store",
                    "--content",
                    &content,
                    "--tag",
                    &format!("p{n}"),
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert_success(&output, format_args!(""));
    }
    let listing = ok(&dir, &["record", "list", "--limit", "200"]);
    assert_eq!(listing["total"], 13);
    let mut listed = ids(&listing);
    listed.sort();
    listed.dedup();
    assert_eq!(listed.len(), 13);
    // Rebuilt from the ledger alone, the same records.
    std::fs::remove_file(baton_tests::default_index(&dir)).unwrap();
    let rebuilt = ok(&dir, &["record", "list", "--limit", "200"]);
    assert_eq!(ids(&rebuilt), ids(&listing));
    assert_eq!(std::fs::read_dir(dir.join("blobs")).unwrap().count(), 4);
}

#[test]
fn a_blob_name_that_is_not_a_hash_reads_no_file() {
    use std::io::Write;
    let (tmp, dir) = ledger();
    ok(&dir, &["record", "store", "--content", "made first"]);
    std::fs::write(tmp.path().join("secret.txt"), "not for records").unwrap();
    // A hand-edited (or hostile) line naming a path instead of a SHA-256.
    let line = serde_json::json!({
        "v": 1,
        "id": "0190abcd-0000-7000-8000-0000000000e1",
        "session": "00000000-0000-0000-0000-000000000001",
        "kind": "record_stored",
        "at": "2026-06-01T09:00:00.000Z",
        "actor": {"kind": "agent", "name": "x"},
        "data": {
            "record_id": "0190abcd-0000-7000-8000-000000000077",
            "content_blob": {"sha256": "../../secret.txt", "bytes": 15}
        }
    });
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("events.ndjson"))
        .unwrap();
    writeln!(log, "{line}").unwrap();
    drop(log);
    let listed = ok(&dir, &["record", "list"]);
    assert_eq!(listed["total"], 2);
    let (code, details) = refused(&dir, &["record", "get", "0190abcd00007000800000000000007"]);
    assert_eq!(code, "RECORD_CONTENT_DAMAGED");
    assert_eq!(details["blob"], "../../secret.txt");
    let found = ok(&dir, &["search", "records", "--include", "stored"]);
    assert_eq!(found["stored_total"], 0);
}
