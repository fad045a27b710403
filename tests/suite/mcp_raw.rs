//! `baton mcp` as a real process fed malformed requests: each gets a protocol or tool error,
//! never a crash, and the server keeps serving.

use baton_tests::baton_bin;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

struct Server {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    fn start(dir: &std::path::Path) -> Server {
        let mut child = Command::new(baton_bin())
            .env_clear()
            .env("BATON_DIR", dir)
            .env("BATON_FSYNC", "0")
            .env("XDG_DATA_HOME", baton_tests::user_folders(dir).join("data"))
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut server = Server {
            child,
            stdin,
            stdout,
        };
        let init = server.request(
            1,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "1"}
            }),
        );
        assert!(init["result"]["serverInfo"]["name"] == "baton", "{init}");
        server.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        server
    }

    fn send_line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        self.response(id)
    }

    fn response(&mut self, id: u64) -> Value {
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed stdout"
            );
            let value: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
            if value["id"] == id {
                return value;
            }
        }
    }

    fn call(&mut self, id: u64, tool: &str, args: Value) -> Value {
        self.request(id, "tools/call", json!({"name": tool, "arguments": args}))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_error(response: &Value, what: &str) {
    let protocol_error = response.get("error").is_some();
    let tool_error = response["result"]["isError"] == true;
    assert!(protocol_error || tool_error, "{what}: {response}");
}

#[test]
fn malformed_requests_get_errors_and_the_server_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let mut server = Server::start(&tmp.path().join(".baton"));

    assert_error(&server.call(2, "launch_rockets", json!({})), "unknown tool");
    assert_error(
        &server.call(3, "list_work_sessions", json!({"include_ended": "yes"})),
        "wrong type",
    );
    assert_error(
        &server.call(4, "get_work_session", json!({})),
        "missing required field",
    );
    assert_error(
        &server.call(5, "start_work_session", json!({"project": 42})),
        "number for a string",
    );
    assert_error(
        &server.call(6, "end_work_session", json!({"session_id": "../../etc"})),
        "bad id",
    );
    let huge = "x".repeat(10 * 1024 * 1024);
    let too_big = server.call(
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

    // Still serving, and nothing bad was written.
    let started = server.call(9, "start_work_session", json!({"project": "demo"}));
    assert_eq!(started["result"]["isError"], false, "{started}");
    let listed = server.call(10, "list_work_sessions", json!({}));
    assert_eq!(listed["result"]["structuredContent"]["total"], 1);
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server exited"
    );
}

/// A session started over MCP has its client's process tied to it (this test is the client),
/// and `get_work_session` answers what it cost once its usage is recorded.
#[test]
fn a_session_started_over_mcp_is_live_and_get_work_session_gives_its_cost() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&dir).unwrap();
    let mut server = Server::start(&dir);
    let started = server.call(
        2,
        "start_work_session",
        json!({"project": "app", "agent": "claude", "provider_session_id": "cl-77"}),
    );
    let id = started["result"]["structuredContent"]["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    let shown = server.call(3, "get_work_session", json!({"session_id": id}));
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
    let shown = server.call(4, "get_work_session", json!({"session_id": id}));
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
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&dir).unwrap();
    let mut server = Server::start(&dir);
    let started = server.call(
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
    let ended = server.call(
        3,
        "end_work_session",
        json!({"session_note": path, "summary": "Implemented"}),
    );
    let answer = &ended["result"]["structuredContent"];
    assert_eq!(answer["session_id"], id.as_str(), "{ended}");
    assert_eq!(answer["note"]["outcome"], "updated", "{ended}");
    let note = std::fs::read_to_string(dir.join("vault").join(&path)).unwrap();
    assert!(note.contains("\nImplemented\n"), "{note}");
    let missing = server.call(
        4,
        "end_work_session",
        json!({"session_note": "Projects/demo/sessions/none.md"}),
    );
    assert_eq!(
        missing["result"]["structuredContent"]["error"]["code"], "FILE_UNREADABLE",
        "{missing}"
    );
}
