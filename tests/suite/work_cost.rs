//! What a work session cost: its transcripts tied by provider session id (on generated trees,
//! the figures equal `usage session`'s for those transcripts), else by project, agent and time
//! (never when two sessions fit), a hand-off chain's total, and, without the mirror, the usage
//! the hook records in the ledger (read on from the last offset, counted once).

use baton_tests::{assert_success, baton, json_of};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const GEN: &str = env!("CARGO_BIN_EXE_transcript-gen");

fn run(ledger: &Path, now: Option<&str>, args: &[&str]) -> Value {
    let mut command = baton(ledger);
    if let Some(now) = now {
        command.env("BATON_NOW", now);
    }
    let output = command.arg("--json").args(args).output().unwrap();
    assert_success(&output, format_args!("{args:?}"));
    json_of(&output)
}

fn start(ledger: &Path, now: Option<&str>, extra: &[&str]) -> String {
    let mut args = vec!["start", "--project", "app", "--agent", "claude"];
    args.extend_from_slice(extra);
    run(ledger, now, &args)["session_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn a_work_sessions_cost_is_its_transcripts_usage_and_a_chain_adds_up() {
    let tmp = tempfile::tempdir().unwrap();
    let generated = tmp.path().join("gen");
    let status = Command::new(GEN)
        .arg(&generated)
        .args(["--sessions", "10", "--seed", "11"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let claude = generated.join("claude/projects");
    let codex = generated.join("codex/sessions");
    run(
        &ledger,
        None,
        &[
            "mirror",
            "--claude-dir",
            claude.to_str().unwrap(),
            "--codex-dir",
            codex.to_str().unwrap(),
            "--chatgpt-dir",
            "/nonexistent",
            "--claude-ai-dir",
            "/nonexistent",
        ],
    );
    let by_session = run(&ledger, None, &["usage", "session", "--index"]);
    let rows = by_session["rows"].as_array().unwrap();
    let row = |i: usize| (rows[i]["key"].as_str().unwrap().to_owned(), &rows[i]);
    let (a, row_a) = row(0);
    let (b, row_b) = row(1);
    let (c, row_c) = row(rows.len() - 1);
    let one = start(&ledger, None, &["--provider-session-id", &a]);
    let two = start(&ledger, None, &["--provider-session-id", &b]);
    run(&ledger, None, &["end", &two, "--summary", "handing off"]);
    let three = start(
        &ledger,
        None,
        &["--provider-session-id", &c, "--parent", &two],
    );

    let shown = run(&ledger, None, &["show", &one]);
    assert_eq!(
        shown["cost"]["total_tokens"], row_a["total_tokens"],
        "{shown}"
    );
    assert!(close(
        shown["cost"]["cost_usd"].as_f64().unwrap(),
        row_a["cost_usd"].as_f64().unwrap()
    ));
    assert_eq!(
        shown["cost"]["transcripts"][0]["rule"],
        "provider_session_id"
    );
    assert!(shown.get("chain_cost").is_none(), "no hand-off, no chain");

    let shown = run(&ledger, None, &["show", &three]);
    let chain = &shown["chain_cost"];
    assert_eq!(
        chain["total_tokens"].as_u64().unwrap(),
        row_b["total_tokens"].as_u64().unwrap() + row_c["total_tokens"].as_u64().unwrap(),
        "{shown}"
    );
    assert!(close(
        chain["cost_usd"].as_f64().unwrap(),
        row_b["cost_usd"].as_f64().unwrap() + row_c["cost_usd"].as_f64().unwrap()
    ));
    assert_eq!(chain["sessions"].as_array().unwrap().len(), 2);

    // The same figures by work session, from the index and from the files alike.
    for source in [
        vec!["--index"],
        vec![
            "--claude-dir",
            claude.to_str().unwrap(),
            "--codex-dir",
            codex.to_str().unwrap(),
        ],
    ] {
        let mut args = vec!["usage", "session", "--work"];
        args.extend(source);
        let work = run(&ledger, None, &args);
        assert_eq!(work["rows"].as_array().unwrap().len(), 3, "{work}");
        let total: u64 = [row_a, row_b, row_c]
            .iter()
            .map(|r| r["total_tokens"].as_u64().unwrap())
            .sum();
        assert_eq!(work["totals"]["total_tokens"].as_u64().unwrap(), total);
        assert!(
            work["work_sessions"]["unlinked_responses"]
                .as_u64()
                .unwrap()
                > 0
        );
    }
    let listed = run(&ledger, None, &["list", "--all", "--cost"]);
    let costs: Vec<u64> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["cost"]["total_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(costs.len(), 3);
    let bad = baton(&ledger)
        .args(["usage", "daily", "--work", "--index"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("usage session --work"));
}

/// One Claude Code response line.
fn response(session: &str, cwd: &str, at: &str, n: u32, input: u64) -> String {
    json!({
        "type": "assistant", "sessionId": session, "cwd": cwd, "timestamp": at,
        "requestId": format!("req-{session}-{n}"),
        "message": {"id": format!("msg-{session}-{n}"), "role": "assistant", "model": "claude-sonnet-4-20250514",
            "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": input, "output_tokens": 10}}
    })
    .to_string()
        + "\n"
}

#[test]
fn without_an_id_a_transcript_goes_to_the_one_session_of_its_project_agent_and_time() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&projects).unwrap();
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let root = ledger.parent().unwrap().to_str().unwrap().to_owned();
    let sub_folder = format!("{root}/src");
    // Inside the session's span, in its project (a sub-folder of it): tied.
    std::fs::write(
        projects.join("inside.jsonl"),
        response("inside", &sub_folder, "2026-07-18T10:30:00Z", 1, 1000),
    )
    .unwrap();
    // Before it started: not.
    std::fs::write(
        projects.join("before.jsonl"),
        response("before", &root, "2026-07-18T09:00:00Z", 1, 2000),
    )
    .unwrap();
    // Another repository whose folder has the same name, at the same time: not.
    std::fs::write(
        projects.join("elsewhere.jsonl"),
        response(
            "elsewhere",
            "/elsewhere/app",
            "2026-07-18T10:40:00Z",
            1,
            8000,
        ),
    )
    .unwrap();
    // While two sessions of the project were open: neither.
    std::fs::write(
        projects.join("both.jsonl"),
        response("both", &root, "2026-07-18T12:30:00Z", 1, 4000),
    )
    .unwrap();
    let first = start(&ledger, Some("2026-07-18T10:00:00Z"), &[]);
    run(
        &ledger,
        Some("2026-07-18T11:00:00Z"),
        &["end", &first, "--summary", "done"],
    );
    start(&ledger, Some("2026-07-18T12:00:00Z"), &[]);
    run(
        &ledger,
        Some("2026-07-18T12:10:00Z"),
        &["start", "--project", "app", "--agent", "claude-review"],
    );
    run(
        &ledger,
        None,
        &baton_tests::mirror_only(tmp.path().join("projects").to_str().unwrap()),
    );
    let shown = run(&ledger, None, &["show", &first]);
    assert_eq!(shown["cost"]["input_tokens"], 1000, "{shown}");
    assert_eq!(
        shown["cost"]["transcripts"][0]["rule"],
        "project_agent_time"
    );
    assert_eq!(
        shown["cost"]["transcripts"][0]["provider_session_id"],
        "inside"
    );
    let work = run(&ledger, None, &["usage", "session", "--work", "--index"]);
    assert_eq!(work["rows"].as_array().unwrap().len(), 1, "{work}");
    assert_eq!(work["work_sessions"]["unlinked_responses"], 3);
}

/// A Copilot Chat session (VS Code's operation log) with one billed request at `at` (ms).
fn copilot_chat_session(id: &str, at: i64, prompt_tokens: u64) -> String {
    let request = json!({"requestId": format!("{id}-r1"), "timestamp": at,
        "message": {"text": "rename the flag"}, "modelId": "copilot/gpt-4.1",
        "response": [{"value": "Done."}], "promptTokens": prompt_tokens, "completionTokens": 10});
    let session = json!({"version": 3, "sessionId": id, "creationDate": at,
        "requesterUsername": "dev", "responderUsername": "GitHub Copilot",
        "requests": [request]});
    format!("{}\n", json!({"kind": 0, "v": session}))
}

#[test]
fn copilot_chat_and_gemini_sessions_are_tied_by_the_folder_their_agents_files_above_name() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let root = ledger.parent().unwrap().to_str().unwrap().to_owned();
    // VS Code: `workspaceStorage/<hash>/workspace.json` names the folder its window had open.
    let workspaces = tmp.path().join("workspaceStorage");
    let chats = workspaces.join("455cac52/chatSessions");
    std::fs::create_dir_all(&chats).unwrap();
    let uri = format!("file://{}", root.replace(' ', "%20"));
    std::fs::write(
        workspaces.join("455cac52/workspace.json"),
        json!({ "folder": uri }).to_string(),
    )
    .unwrap();
    // 2026-07-18T10:30:00Z and 10:35, in milliseconds.
    let at = |time: &str| match time {
        "2026-07-18T10:30:00Z" => 1784370600000,
        _ => 1784370900000,
    };
    std::fs::write(
        chats.join("c1.jsonl"),
        copilot_chat_session("c1", at("2026-07-18T10:30:00Z"), 1200),
    )
    .unwrap();
    // Another workspace, no `workspace.json`: its session is tied to nothing.
    let lone = workspaces.join("9f00/chatSessions");
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::write(
        lone.join("c2.jsonl"),
        copilot_chat_session("c2", at("2026-07-18T10:35:00Z"), 5000),
    )
    .unwrap();
    // Gemini CLI: an old session document in the project's short-named folder, which
    // `~/.gemini/projects.json` says stands for the project's folder.
    let gemini = tmp.path().join(".gemini");
    let slug = gemini.join("tmp/app/chats");
    std::fs::create_dir_all(&slug).unwrap();
    std::fs::write(
        gemini.join("projects.json"),
        json!({"projects": { root.clone(): "app" }}).to_string(),
    )
    .unwrap();
    let document = json!({"sessionId": "g1", "projectHash": "ab",
        "startTime": "2026-07-18T10:40:00.000Z", "lastUpdated": "2026-07-18T10:41:00.000Z",
        "messages": [
            {"id": "u1", "timestamp": "2026-07-18T10:40:00.000Z", "type": "user",
             "content": [{"text": "list the files"}]},
            {"id": "m1", "timestamp": "2026-07-18T10:40:30.000Z", "type": "gemini",
             "content": "Here.", "model": "gemini-2.5-pro",
             "tokens": {"input": 700, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 705}}]});
    // Pretty-printed, with no newline at its end, as the CLI wrote it.
    let document = serde_json::to_string_pretty(&document).unwrap();
    std::fs::write(slug.join("session-2026-07-18T10-40-g1.json"), document).unwrap();
    let copilot = run(
        &ledger,
        Some("2026-07-18T10:00:00Z"),
        &["start", "--project", "app", "--agent", "copilot-chat"],
    )["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let gemini_session = run(
        &ledger,
        Some("2026-07-18T10:00:00Z"),
        &["start", "--project", "app", "--agent", "gemini"],
    )["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for session in [&copilot, &gemini_session] {
        run(
            &ledger,
            Some("2026-07-18T11:00:00Z"),
            &["end", session, "--summary", "done"],
        );
    }
    run(
        &ledger,
        None,
        &[
            "mirror",
            "--copilot-chat-dir",
            workspaces.to_str().unwrap(),
            "--gemini-dir",
            gemini.join("tmp").to_str().unwrap(),
            "--claude-dir",
            "/nonexistent",
            "--codex-dir",
            "/nonexistent",
            "--chatgpt-dir",
            "/nonexistent",
            "--claude-ai-dir",
            "/nonexistent",
        ],
    );
    let listed = run(&ledger, None, &["transcripts", "list"]);
    let projects: std::collections::BTreeMap<String, Value> = listed["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["provider_id"].as_str().unwrap().to_owned(),
                c["project"].clone(),
            )
        })
        .collect();
    assert_eq!(projects["c1"], json!(root), "{listed}");
    assert_eq!(projects["c2"], Value::Null, "{listed}");
    assert_eq!(projects["g1"], json!(root), "{listed}");
    for (session, input, id) in [(&copilot, 1200, "c1"), (&gemini_session, 700, "g1")] {
        let shown = run(&ledger, None, &["show", session]);
        assert_eq!(shown["cost"]["input_tokens"], input, "{shown}");
        let transcripts = shown["cost"]["transcripts"].as_array().unwrap();
        assert_eq!(transcripts.len(), 1, "{shown}");
        assert_eq!(transcripts[0]["rule"], "project_agent_time");
        assert_eq!(transcripts[0]["provider_session_id"], id);
    }
}

/// Runs the Claude Code hook with `input` for the project holding `ledger`.
fn hook(ledger: &Path, input: Value) {
    let project = ledger.parent().unwrap();
    let output = baton_tests::output_with_stdin(
        baton(ledger)
            .env_remove("BATON_DIR")
            .env("CLAUDE_PROJECT_DIR", project)
            .args(["hook", "claude-code"]),
        input.to_string().as_bytes(),
    );
    assert!(output.status.success());
}

fn usage_events(ledger: &Path) -> Vec<Value> {
    std::fs::read_to_string(ledger.join("events.ndjson"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["kind"] == "usage")
        .collect()
}

#[test]
fn the_hook_records_usage_from_the_last_offset_and_a_repeat_counts_once() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger: PathBuf = tmp.path().join("app/.baton");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    let transcript = tmp.path().join("projects/-app/claude-9.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let path = transcript.to_str().unwrap();
    let event = |name: &str| json!({"session_id": "claude-9", "hook_event_name": name, "transcript_path": path, "source": "startup"});
    std::fs::write(
        &transcript,
        response("claude-9", "/app", "2026-07-18T10:00:00Z", 1, 1000),
    )
    .unwrap();
    hook(&ledger, event("SessionStart"));
    hook(&ledger, event("Stop"));
    hook(&ledger, event("Stop"));
    assert_eq!(usage_events(&ledger).len(), 1, "a repeat writes nothing");
    // A second turn, and a line still being written (no newline yet): only the whole line.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    file.write_all(response("claude-9", "/app", "2026-07-18T10:05:00Z", 2, 500).as_bytes())
        .unwrap();
    file.write_all(br#"{"type":"assistant","sessionId":"claude-9""#)
        .unwrap();
    hook(&ledger, event("Stop"));
    let events = usage_events(&ledger);
    assert_eq!(events.len(), 2);
    let last = &events[1]["data"];
    assert_eq!(last["totals"]["input_tokens"], 1500, "cumulative: {last}");
    let whole = std::fs::read(&transcript).unwrap();
    let cut = whole.iter().rposition(|&b| b == b'\n').unwrap() + 1;
    assert_eq!(last["offset"].as_u64().unwrap(), cut as u64);
    hook(&ledger, event("SessionEnd"));
    let listed = run(&ledger, None, &["list", "--all", "--cost"]);
    let session = &listed["sessions"][0];
    assert_eq!(session["status"], "complete");
    assert_eq!(session["cost"]["source"], "ledger");
    assert_eq!(session["cost"]["input_tokens"], 1500);
    assert!(session["cost"]["cost_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(session["usage"]["input_tokens"], 1500);
    // `claude --resume` after the end: a new work session takes the transcript over from
    // where the ended one stopped, and no turn is counted twice.
    hook(
        &ledger,
        json!({"session_id": "claude-9", "hook_event_name": "SessionStart", "source": "resume", "transcript_path": path}),
    );
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    file.write_all(b"}\n").unwrap();
    file.write_all(response("claude-9", "/app", "2026-07-18T11:00:00Z", 3, 70).as_bytes())
        .unwrap();
    hook(&ledger, event("Stop"));
    let listed = run(&ledger, None, &["list", "--cost"]);
    let resumed = &listed["sessions"][0];
    assert_eq!(resumed["usage"]["input_tokens"], 70, "{resumed}");
}

/// A Stop hook reads the transcript further than the last mirror pass: `show`, `list --cost`
/// and MCP give the newer figure (the index is brought up to date for that transcript), equal
/// to `usage session --work`, never the index's older one.
#[test]
fn after_a_stop_past_the_index_the_freshest_figure_wins_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger: PathBuf = tmp.path().join("app/.baton");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    let projects = tmp.path().join("projects");
    let transcript = projects.join("-app/claude-7.jsonl");
    std::fs::create_dir_all(transcript.parent().unwrap()).unwrap();
    let path = transcript.to_str().unwrap();
    let event = |name: &str| json!({"session_id": "claude-7", "hook_event_name": name, "transcript_path": path, "source": "startup", "cwd": "/app"});
    std::fs::write(
        &transcript,
        response("claude-7", "/app", "2026-07-18T10:00:00Z", 1, 1000),
    )
    .unwrap();
    hook(&ledger, event("SessionStart"));
    let mirror = |ledger: &Path| {
        run(
            ledger,
            None,
            &[
                "mirror",
                "--claude-dir",
                projects.to_str().unwrap(),
                "--codex-dir",
                "/nonexistent",
            ],
        )
    };
    mirror(&ledger);
    // Two more turns after the mirror pass; the Stop hook counts them into the ledger.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&transcript)
        .unwrap();
    for n in 2..4 {
        file.write_all(
            response(
                "claude-7",
                "/app",
                &format!("2026-07-18T10:0{n}:00Z"),
                n,
                250,
            )
            .as_bytes(),
        )
        .unwrap();
    }
    hook(&ledger, event("Stop"));
    let id = run(&ledger, None, &["list"])["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let shown = run(&ledger, None, &["show", &id]);
    assert_eq!(shown["cost"]["input_tokens"], 1500, "{}", shown["cost"]);
    let listed = run(&ledger, None, &["list", "--cost"]);
    assert_eq!(listed["sessions"][0]["cost"]["input_tokens"], 1500);
    let work = run(
        &ledger,
        None,
        &["usage", "session", "--work", "--index", "--timezone", "UTC"],
    );
    let row = &work["rows"][0];
    assert_eq!(
        row["tokens"]["input_tokens"]
            .as_u64()
            .or(row["input_tokens"].as_u64()),
        Some(1500),
        "{work}"
    );
    let cost = shown["cost"]["cost_usd"].as_f64().unwrap();
    assert!(
        close(cost, row["cost_usd"].as_f64().unwrap()),
        "{cost} vs {row}"
    );
    assert!(close(
        cost,
        listed["sessions"][0]["cost"]["cost_usd"].as_f64().unwrap()
    ));
    // Over MCP the same.
    let mut server = baton_tests::McpClient::start(&ledger, "claude-code");
    let answer = server.call("get_work_session", json!({"session_id": id}));
    let body = &answer["result"]["structuredContent"];
    assert_eq!(body["cost"]["input_tokens"], 1500, "{answer}");
}
