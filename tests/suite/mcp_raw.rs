//! `baton mcp` as a real process fed malformed requests: each gets a protocol or tool error,
//! never a crash, and the server keeps serving.

use baton_tests::McpClient;
use serde_json::{Value, json};

fn assert_error(response: &Value, what: &str) {
    let protocol_error = response.get("error").is_some();
    let tool_error = response["result"]["isError"] == true;
    assert!(protocol_error || tool_error, "{what}: {response}");
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let mut server = McpClient::start(&tmp.path().join(".baton"), "raw-test");

    assert_error(
        &server.call_id(2, "launch_rockets", json!({})),
        "unknown tool",
    );
    assert_error(
        &server.call_id(3, "list_work_sessions", json!({"include_ended": "yes"})),
        "wrong type",
    );
    assert_error(
        &server.call_id(4, "get_work_session", json!({})),
        "missing required field",
    );
    assert_error(
        &server.call_id(5, "start_work_session", json!({"project": 42})),
        "number for a string",
    );
    assert_error(
        &server.call_id(6, "end_work_session", json!({"session_id": "../../etc"})),
        "bad id",
    );
    let huge = "x".repeat(10 * 1024 * 1024);
    let too_big = server.call_id(
        7,
        "start_work_session",
        json!({"project": "demo", "goal": huge}),
    );
    assert_error(&too_big, "10 MB argument");
    assert_eq!(
        too_big["result"]["structuredContent"]["error"]["code"],
        "EVENT_TOO_LARGE"
    );
    server.send_line("this is not JSON-RPC");
    server.send_line(r#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#);
    assert_error(&server.response(8), "unknown method");

    // A request over the size limit is answered (with its id and the limit), not dropped;
    // one whose id comes last, too.
    let over = "y".repeat(baton::faces::mcp::frames::MAX_REQUEST_BYTES + 10);
    server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"search_transcripts","arguments":{{"query":"{over}"}}}}}}"#
    ));
    let refused = server.response(11);
    assert_eq!(
        refused["error"]["data"]["code"], "INVALID_ARGUMENT",
        "{refused}"
    );
    assert_eq!(
        refused["error"]["data"]["limit_bytes"],
        baton::faces::mcp::frames::MAX_REQUEST_BYTES
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("16 MiB")
    );
    server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"x","arguments":{{"q":"{over}"}}}},"id":12}}"#
    ));
    assert_eq!(server.response(12)["error"]["code"], -32600);
    // NUL and other control characters are refused, named, before any tool runs.
    for (id, arguments) in [
        (13, json!({"project": "demo", "goal": "a\u{0}b"})),
        (
            14,
            json!({"project": "demo", "goal": "ok", "plan": ["one", "tw\u{1b}[2Jo"]}),
        ),
    ] {
        let answer = server.call_id(id, "start_work_session", arguments);
        assert_eq!(
            answer["result"]["structuredContent"]["error"]["code"], "INVALID_ARGUMENT",
            "{answer}"
        );
        assert!(
            answer["result"]["structuredContent"]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("control character")
        );
    }

    // Still serving, and nothing bad was written.
    let started = server.call_id(9, "start_work_session", json!({"project": "demo"}));
    assert_eq!(started["result"]["isError"], false, "{started}");
    let listed = server.call_id(10, "list_work_sessions", json!({}));
    assert_eq!(listed["result"]["structuredContent"]["total"], 1);
    assert!(server.is_running(), "the server exited");
}

/// An MCP server over the ledger of a project folder `app`, in a folder of its own.
fn server_in_app() -> (tempfile::TempDir, std::path::PathBuf, McpClient) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&dir).unwrap();
    let server = McpClient::start(&dir, "raw-test");
    (tmp, dir, server)
}

/// A session started over MCP has its client's process tied to it (this test is the client),
/// and `get_work_session` answers what it cost once its usage is recorded.
#[test]
fn a_session_started_over_mcp_is_live_and_get_work_session_gives_its_cost() {
    let (tmp, dir, mut server) = server_in_app();
    let started = server.call_id(
        2,
        "start_work_session",
        json!({"project": "app", "agent": "claude", "provider_session_id": "cl-77"}),
    );
    let id = started["result"]["structuredContent"]["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    let shown = server.call_id(3, "get_work_session", json!({"session_id": id}));
    let session = &shown["result"]["structuredContent"]["session"];
    assert_eq!(session["liveness"]["state"], "live", "{shown}");
    assert!(shown["result"]["structuredContent"].get("cost").is_none());
    // The hook records a turn's usage for the same Claude session.
    let transcript = tmp.path().join("cl-77.jsonl");
    std::fs::write(
        &transcript,
        json!({"type":"assistant","sessionId":"cl-77","timestamp":"2026-07-18T10:00:00Z","requestId":"r1",
            "message":{"id":"m1","model":"claude-sonnet-4-20250514","usage":{"input_tokens":2000,"output_tokens":100}}})
        .to_string()
            + "\n",
    )
    .unwrap();
    let hook = baton_tests::output_with_stdin(
        baton_tests::baton(&dir).args(["hook", "claude-code"]),
        json!({"session_id": "cl-77", "hook_event_name": "Stop", "transcript_path": transcript})
            .to_string()
            .as_bytes(),
    );
    assert!(hook.status.success());
    let shown = server.call_id(4, "get_work_session", json!({"session_id": id}));
    let cost = &shown["result"]["structuredContent"]["cost"];
    assert_eq!(cost["input_tokens"], 2000, "{shown}");
    assert_eq!(cost["source"], "ledger");
    // 2,000 input and 100 output tokens at Sonnet 4's $3 and $15 per million.
    assert!(
        (cost["cost_usd"].as_f64().unwrap() - 0.0075).abs() < 1e-9,
        "{cost}"
    );
}

#[test]
fn end_work_session_takes_the_legacy_session_note_and_answers_with_the_note() {
    let (_tmp, dir, mut server) = server_in_app();
    let started = server.call_id(
        2,
        "start_work_session",
        json!({"project": "demo", "agent": "claude", "goal": "Implement search"}),
    );
    let answer = &started["result"]["structuredContent"];
    let id = answer["session_id"].as_str().unwrap().to_owned();
    assert_eq!(answer["note"]["outcome"], "created", "{started}");
    let path = answer["note"]["path"].as_str().unwrap().to_owned();
    assert!(path.starts_with("Projects/demo/sessions/"), "{path}");
    // The note's path inside the vault, as the spec's clients pass it.
    let ended = server.call_id(
        3,
        "end_work_session",
        json!({"session_note": path, "summary": "Implemented"}),
    );
    let answer = &ended["result"]["structuredContent"];
    assert_eq!(answer["session_id"], id.as_str(), "{ended}");
    assert_eq!(answer["note"]["outcome"], "updated", "{ended}");
    let note = std::fs::read_to_string(dir.join("vault").join(&path)).unwrap();
    assert!(note.contains("\nImplemented\n"), "{note}");
    let missing = server.call_id(
        4,
        "end_work_session",
        json!({"session_note": "Projects/demo/sessions/none.md"}),
    );
    assert_eq!(
        missing["result"]["structuredContent"]["error"]["code"], "FILE_UNREADABLE",
        "{missing}"
    );
}

/// The server keeps its fold between calls and reads only what was appended since, yet what
/// other processes wrote between two calls is always seen: a start and an end from the CLI, a
/// compaction (a new log), a line being written (torn), a checkpoint written by another
/// process. At every step the server's list is the CLI's, row for row.
#[test]
fn the_server_sees_what_other_processes_wrote_between_two_calls() {
    let (_tmp, dir, mut server) = server_in_app();
    let same_rows = |server: &mut McpClient, when: &str| -> Value {
        let listed = server.call("list_work_sessions", json!({"include_ended": true}));
        let by_mcp = listed["result"]["structuredContent"].clone();
        let cli = baton_tests::baton(&dir)
            .args(["list", "--all", "--json"])
            .output()
            .unwrap();
        let by_cli = baton_tests::json_of(&cli);
        assert_eq!(by_mcp["sessions"], by_cli["sessions"], "{when}");
        by_mcp
    };
    let id_of = |answer: &Value| answer["session_id"].as_str().unwrap().to_owned();
    let mine = server.call(
        "start_work_session",
        json!({"project": "app", "goal": "mine"}),
    );
    let mine = id_of(&mine["result"]["structuredContent"]);
    let listed = same_rows(&mut server, "after the server's own start");
    assert_eq!(listed["total"], 1, "{listed}");

    // The log put back by another file (as a checkout or a restore would), its header and its
    // length the same, one goal changed: the server reads the new file, not what it kept.
    let log = dir.join("events.ndjson");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.matches(r#""goal":"mine""#).count(), 1, "{text}");
    let restored = dir.join("restored.tmp");
    std::fs::write(
        &restored,
        text.replace(r#""goal":"mine""#, r#""goal":"mind""#),
    )
    .unwrap();
    std::fs::rename(&restored, &log).unwrap();
    // The checkpoint, made from the old file at the same offset, would hide it from the CLI.
    std::fs::remove_file(dir.join("checkpoint.ndjson")).unwrap();
    let listed = same_rows(&mut server, "after the log was put back");
    assert_eq!(listed["sessions"][0]["goal"], "mind", "{listed}");

    // Another process starts a session and ends the server's.
    let theirs = baton_tests::baton(&dir)
        .args([
            "start",
            "--project",
            "app",
            "--agent",
            "codex",
            "--goal",
            "theirs",
            "--json",
        ])
        .output()
        .unwrap();
    let theirs = id_of(&baton_tests::json_of(&theirs));
    let ended = baton_tests::baton(&dir)
        .args(["end", &mine, "--summary", "ended elsewhere", "--json"])
        .output()
        .unwrap();
    assert!(ended.status.success(), "{ended:?}");
    let listed = same_rows(&mut server, "after another process's start and end");
    let status_of = |listed: &Value, id: &str| -> Value {
        listed["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["session_id"] == id)
            .map(|s| s["status"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(status_of(&listed, &mine), "complete", "{listed}");
    assert_eq!(status_of(&listed, &theirs), "working", "{listed}");
    // The server cannot end its session twice: it knows it is ended.
    let again = server.call("end_work_session", json!({"session_id": mine}));
    assert_eq!(again["result"]["isError"], true, "{again}");

    // A compaction starts a new log; another process writes to it.
    let compacted = baton_tests::baton(&dir)
        .args(["compact", "--json"])
        .output()
        .unwrap();
    assert!(compacted.status.success(), "{compacted:?}");
    let third = baton_tests::baton(&dir)
        .args([
            "start",
            "--project",
            "app",
            "--agent",
            "gemini",
            "--goal",
            "third",
            "--json",
        ])
        .output()
        .unwrap();
    let third = id_of(&baton_tests::json_of(&third));
    let listed = same_rows(&mut server, "after a compaction and a start on the new log");
    assert_eq!(listed["total"], 3, "{listed}");
    assert_eq!(status_of(&listed, &third), "working");

    // A line being written: the server answers from what is whole, then reads the rest.
    let text = std::fs::read_to_string(&log).unwrap();
    let ended_line = baton_tests::baton(&dir)
        .args(["end", &theirs, "--summary", "done", "--json"])
        .output()
        .unwrap();
    assert!(ended_line.status.success());
    let whole = std::fs::read_to_string(&log).unwrap();
    let appended = whole[text.len()..].to_owned();
    assert!(appended.ends_with('\n') && appended.len() > 2, "{appended}");
    let (head, rest) = appended.split_at(appended.len() / 2);
    std::fs::write(&log, format!("{text}{head}")).unwrap();
    let listed = same_rows(&mut server, "with a torn last line");
    assert_eq!(status_of(&listed, &theirs), "working", "{listed}");
    std::fs::write(&log, format!("{text}{head}{rest}")).unwrap();
    let listed = same_rows(&mut server, "once the line is whole");
    assert_eq!(status_of(&listed, &theirs), "complete", "{listed}");

    // Many appends from other processes, so the CLI rewrites the checkpoint meanwhile.
    for n in 0..40 {
        let started = baton_tests::baton(&dir)
            .args(["start", "--project", "app", "--agent", "codex", "--goal"])
            .arg(format!("task {n} {}", "with a long goal ".repeat(40)))
            .arg("--json")
            .output()
            .unwrap();
        assert!(started.status.success());
        if n % 10 == 0 {
            same_rows(&mut server, &format!("after {n} more starts"));
        }
    }
    let listed = same_rows(&mut server, "after 40 more starts");
    assert_eq!(listed["total"], 43, "{listed}");
}
