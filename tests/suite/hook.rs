//! `baton hook claude-code` as Claude Code runs it (and `codex`, `gemini`, `qwen` as their
//! agents do): hook JSON on stdin, the project folder in `CLAUDE_PROJECT_DIR` (or the agent's
//! own variable), from any sub-folder; one work session per agent session, its usage recorded
//! once, and an exit status of 0 whatever happens (the reason in stderr and `.baton/hook.log`).

use baton_tests::{baton, json_of, output_with_stdin};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Stdio;

/// Runs the hook with `input` on stdin from `cwd`, the project at `project`; its exit status
/// and stderr.
fn hook(project: &Path, cwd: &Path, input: &str) -> (i32, String) {
    let output = output_with_stdin(
        baton(&project.join(".baton"))
            .env_remove("BATON_DIR")
            .env("CLAUDE_PROJECT_DIR", project)
            .current_dir(cwd)
            .args(["hook", "claude-code"]),
        input.as_bytes(),
    );
    assert!(
        output.stdout.is_empty(),
        "stdout would reach Claude's context"
    );
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn event(claude: &str, name: &str, extra: Value) -> String {
    let mut input = json!({
        "session_id": claude,
        "transcript_path": "/nonexistent/transcript.jsonl",
        "hook_event_name": name,
    });
    for (key, value) in extra.as_object().unwrap() {
        input[key] = value.clone();
    }
    input.to_string()
}

fn sessions(project: &Path) -> Vec<Value> {
    let list = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "list", "--all"])
            .output()
            .unwrap(),
    );
    list["sessions"].as_array().unwrap().clone()
}

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    (tmp, project)
}

#[test]
fn start_compact_resume_end_of_one_claude_session_leave_one_work_session_ended() {
    let (_tmp, project) = project();
    for (name, extra) in [
        ("SessionStart", json!({"source": "startup"})),
        ("UserPromptSubmit", json!({"prompt": "fix the login test"})),
        ("SessionStart", json!({"source": "compact"})),
        ("Stop", json!({})),
        ("SessionStart", json!({"source": "resume"})),
        ("SessionStart", json!({"source": "startup"})),
        ("SessionEnd", json!({"reason": "prompt_input_exit"})),
        ("SessionEnd", json!({"reason": "other"})),
    ] {
        let (status, stderr) = hook(&project, &project, &event("claude-1", name, extra));
        assert_eq!(status, 0, "{name}: {stderr}");
        assert!(stderr.is_empty(), "{name}: {stderr}");
    }
    let all = sessions(&project);
    assert_eq!(all.len(), 1, "{all:?}");
    let session = &all[0];
    assert_eq!(session["status"], "complete");
    assert_eq!(session["project"], "webapp");
    assert_eq!(session["client_name"], "claude-code");
    assert_eq!(session["provider_session_id"], "claude-1");
    assert_eq!(session["resumes"].as_array().unwrap().len(), 2);
    let log = std::fs::read_to_string(project.join(".baton/hook.log")).unwrap();
    assert_eq!(log.lines().count(), 8);
    assert!(
        log.contains("no live work session has Claude session claude-1"),
        "{log}"
    );
}

#[test]
fn from_a_sub_folder_it_uses_the_projects_ledger_and_clear_hands_off() {
    let (_tmp, project) = project();
    let deep = project.join("src/deep");
    let (status, _) = hook(
        &project,
        &project,
        &event("c-1", "SessionStart", json!({"source": "startup"})),
    );
    assert_eq!(status, 0);
    // Claude Code started in a sub-folder: still the project's ledger, never a second one.
    let (status, stderr) = hook(
        &project,
        &deep,
        &event("c-1", "SessionEnd", json!({"reason": "clear"})),
    );
    assert_eq!(status, 0, "{stderr}");
    let (status, _) = hook(
        &project,
        &deep,
        &event("c-2", "SessionStart", json!({"source": "clear"})),
    );
    assert_eq!(status, 0);
    assert!(!deep.join(".baton").exists() && !project.join("src/.baton").exists());
    let all = sessions(&project);
    assert_eq!(all.len(), 2);
    let first = all
        .iter()
        .find(|s| s["provider_session_id"] == "c-1")
        .unwrap();
    let second = all
        .iter()
        .find(|s| s["provider_session_id"] == "c-2")
        .unwrap();
    assert_eq!(first["status"], "complete");
    assert_eq!(second["parent_session_id"], first["session_id"]);
    // Without CLAUDE_PROJECT_DIR, the hook's cwd finds the nearest ledger above it.
    let mut command = baton(&project.join(".baton"));
    command
        .env_remove("BATON_DIR")
        .current_dir(&deep)
        .args(["hook", "claude-code"]);
    let input = event(
        "c-2",
        "SessionEnd",
        json!({"reason": "logout", "cwd": deep}),
    );
    let ended = output_with_stdin(&mut command, input.as_bytes());
    assert!(ended.status.success());
    assert!(!deep.join(".baton").exists());
    let second = sessions(&project)
        .into_iter()
        .find(|s| s["provider_session_id"] == "c-2")
        .unwrap();
    assert_eq!(second["status"], "complete");
}

#[test]
fn a_refused_start_or_bad_input_exits_0_and_logs_why() {
    let (_tmp, project) = project();
    std::fs::create_dir_all(project.join(".baton")).unwrap();
    std::fs::write(
        project.join(".baton/config.toml"),
        "approved_clients = [\"codex\"]\n",
    )
    .unwrap();
    let (status, stderr) = hook(
        &project,
        &project,
        &event("c-9", "SessionStart", json!({"source": "startup"})),
    );
    assert_eq!(status, 0);
    assert!(stderr.contains("CLIENT_NOT_APPROVED"), "{stderr}");
    for input in ["not json", "{\"hook_event_name\":\"SessionStart\"}", ""] {
        let (status, stderr) = hook(&project, &project, input);
        assert_eq!(status, 0, "{input:?}");
        assert!(stderr.contains("INVALID_ARGUMENT"), "{input:?}: {stderr}");
    }
    let log = std::fs::read_to_string(project.join(".baton/hook.log")).unwrap();
    assert!(
        log.lines().next().unwrap().contains("CLIENT_NOT_APPROVED"),
        "{log}"
    );
    assert_eq!(log.lines().count(), 4);
    assert!(sessions(&project).is_empty());
}

/// Runs `baton hook codex PAYLOAD` as Codex's notify would, from `cwd`.
fn codex_notify(project: &Path, payload: &str) -> (i32, String) {
    let output = baton(&project.join(".baton"))
        .env_remove("BATON_DIR")
        .current_dir(project)
        .args(["hook", "codex", payload])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.stdout.is_empty(), "nothing on stdout");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn codex_notify_opens_one_work_session_per_thread_from_a_sub_folder() {
    let (_tmp, project) = project();
    std::fs::create_dir_all(project.join(".baton")).unwrap();
    let deep = project.join("src/deep");
    for turn in 1..=3 {
        let payload = json!({
            "type": "agent-turn-complete", "thread-id": "thread-7", "turn-id": turn.to_string(),
            "cwd": deep, "client": "codex-tui",
            "input-messages": ["fix it"], "last-assistant-message": "done",
        })
        .to_string();
        let (status, stderr) = codex_notify(&project, &payload);
        assert_eq!(status, 0);
        assert!(stderr.is_empty(), "{stderr}");
    }
    assert!(
        !deep.join(".baton").exists(),
        "the project's ledger, not a new one"
    );
    let all = sessions(&project);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["agent"], "codex");
    assert_eq!(all[0]["provider_session_id"], "thread-7");
    assert_eq!(all[0]["project"], "webapp");
    assert!(all[0]["ended_at"].is_null());
    // Another kind of notification records nothing; a bad one is logged, and still exits 0.
    let (status, _) = codex_notify(&project, r#"{"type":"approval-requested"}"#);
    assert_eq!(status, 0);
    let (status, stderr) = codex_notify(&project, "{not json");
    assert_eq!(status, 0);
    assert!(stderr.contains("INVALID_ARGUMENT"), "{stderr}");
    let log = std::fs::read_to_string(project.join(".baton/hook.log")).unwrap();
    assert!(log.contains("approval-requested"), "{log}");
    assert_eq!(sessions(&project).len(), 1);
}

/// Codex's notify records the thread's usage from its rollout (found by the thread id under
/// `CODEX_HOME/sessions`), so `list --cost` has a figure, equal to `usage session`'s for the
/// same rollout; a notify with nothing new written records nothing more.
#[test]
fn codex_notify_records_the_threads_usage_from_its_rollout() {
    let (tmp, project) = project();
    std::fs::create_dir_all(project.join(".baton")).unwrap();
    let codex = tmp.path().join("codex-home");
    let day = codex.join("sessions/2025/09/11");
    std::fs::create_dir_all(&day).unwrap();
    let thread = "0199a213-81c0-7800-8aa1-bbab2a035a53";
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/codex/ccusage-session-alpha.jsonl"
        ),
        day.join(format!("rollout-2025-09-11T10-00-00-{thread}.jsonl")),
    )
    .unwrap();
    let notify = || {
        let payload = json!({"type": "agent-turn-complete", "thread-id": thread, "turn-id": "1",
            "cwd": project, "input-messages": ["fix it"], "last-assistant-message": "done"})
        .to_string();
        let output = baton(&project.join(".baton"))
            .env_remove("BATON_DIR")
            .env("CODEX_HOME", &codex)
            .current_dir(&project)
            .args(["hook", "codex", &payload])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(output.status.success());
    };
    notify();
    notify();
    let events = std::fs::read_to_string(project.join(".baton/events.ndjson")).unwrap();
    assert_eq!(events.matches("\"kind\":\"usage\"").count(), 1, "{events}");
    let listed = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "list", "--cost"])
            .output()
            .unwrap(),
    );
    let cost = &listed["sessions"][0]["cost"];
    assert_eq!(cost["source"], "ledger", "{listed}");
    let usage = json_of(
        &baton(&project.join(".baton"))
            .env("CODEX_HOME", &codex)
            .args([
                "--json",
                "usage",
                "session",
                "--provider",
                "codex",
                "--timezone",
                "UTC",
            ])
            .output()
            .unwrap(),
    );
    let row = &usage["totals"];
    assert!(row["total_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(cost["total_tokens"], row["total_tokens"], "{usage}");
    let close = (cost["cost_usd"].as_f64().unwrap() - row["cost_usd"].as_f64().unwrap()).abs();
    assert!(close < 1e-6, "{cost} vs {row}");
}

/// Runs `baton hook AGENT` as Gemini CLI or Qwen Code does: the JSON on stdin, the project in
/// `GEMINI_PROJECT_DIR` or `QWEN_PROJECT_DIR`, stdout left empty (read as the hook's answer).
fn agent_hook(agent: &str, project: &Path, input: Value) {
    let variable = match agent {
        "gemini" => "GEMINI_PROJECT_DIR",
        _ => "QWEN_PROJECT_DIR",
    };
    let output = output_with_stdin(
        baton(&project.join(".baton"))
            .env_remove("BATON_DIR")
            .env(variable, project)
            .current_dir(project.join("src"))
            .args(["hook", agent]),
        input.to_string().as_bytes(),
    );
    assert!(output.status.success());
    assert!(
        output.stdout.is_empty(),
        "stdout is the hook's answer to the agent"
    );
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn gemini_hook(project: &Path, input: Value) {
    agent_hook("gemini", project, input);
}

#[test]
fn gemini_hooks_open_record_the_usage_of_and_end_one_work_session() {
    let (tmp, project) = project();
    std::fs::create_dir_all(project.join(".baton")).unwrap();
    // The session's log as Gemini CLI writes it: each response written again as it changes.
    let chats = tmp.path().join("gemini/tmp/webapp/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let log = chats.join("session-2026-08-20T09-00-fb4d394f.jsonl");
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/gemini/my-app/chats/session-2026-08-20T09-00-fb4d394f.jsonl"
        ),
        &log,
    )
    .unwrap();
    let id = "fb4d394f-8ead-4d08-8eca-1bf6459aa472";
    let event = |name: &str, extra: Value| {
        let mut input = json!({"session_id": id, "transcript_path": log, "cwd": project,
            "hook_event_name": name, "timestamp": "2026-08-20T09:00:00.000Z"});
        for (key, value) in extra.as_object().unwrap() {
            input[key] = value.clone();
        }
        input
    };
    gemini_hook(
        &project,
        event("SessionStart", json!({"source": "startup"})),
    );
    gemini_hook(
        &project,
        event("BeforeAgent", json!({"prompt": "fix the build"})),
    );
    gemini_hook(
        &project,
        event("AfterAgent", json!({"prompt": "fix the build"})),
    );
    // A second turn's end with nothing new: nothing more recorded.
    gemini_hook(&project, event("AfterAgent", json!({})));
    gemini_hook(&project, event("SessionEnd", json!({"reason": "exit"})));
    let all = sessions(&project);
    assert_eq!(all.len(), 1, "{all:?}");
    let session = &all[0];
    assert_eq!(session["status"], "complete");
    assert_eq!(session["agent"], "gemini");
    assert_eq!(session["client_name"], "gemini-cli");
    assert_eq!(session["provider_session_id"], id);
    let events = std::fs::read_to_string(project.join(".baton/events.ndjson")).unwrap();
    assert_eq!(events.matches("\"kind\":\"usage\"").count(), 1, "{events}");
    // What the ledger recorded is what `usage` counts for that session from the file.
    let listed = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "list", "--all", "--cost"])
            .output()
            .unwrap(),
    );
    let cost = &listed["sessions"][0]["cost"];
    assert_eq!(cost["source"], "ledger", "{listed}");
    let usage = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "usage", "session", "--gemini-dir"])
            .arg(tmp.path().join("gemini/tmp"))
            .args([
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
            ])
            .output()
            .unwrap(),
    );
    let totals = &usage["totals"];
    assert!(totals["total_tokens"].as_u64().unwrap() > 0, "{usage}");
    assert_eq!(cost["total_tokens"], totals["total_tokens"], "{usage}");
    // A /clear: the next session takes over from the one it ended.
    let next = "0c0ffee0-0000-4000-8000-000000000002";
    gemini_hook(
        &project,
        event("SessionStart", json!({"source": "startup"})),
    );
    gemini_hook(&project, event("SessionEnd", json!({"reason": "clear"})));
    let mut cleared = event("SessionStart", json!({"source": "clear"}));
    cleared["session_id"] = json!(next);
    gemini_hook(&project, cleared);
    let all = sessions(&project);
    let new = all
        .iter()
        .find(|s| s["provider_session_id"] == next)
        .unwrap_or_else(|| panic!("{all:?}"));
    assert!(new["parent_session_id"].is_string(), "{new}");
}

#[test]
fn qwen_hooks_open_record_the_usage_of_and_end_one_work_session() {
    let (tmp, project) = project();
    std::fs::create_dir_all(project.join(".baton")).unwrap();
    let chats = tmp.path().join("qwen/projects/-w-webapp/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let id = "16eaf4e0-ac60-4ee0-81ba-c129a979e7dd";
    let log = chats.join(format!("{id}.jsonl"));
    std::fs::copy(
        format!(
            "{}/fixtures/qwen/-home-dev-my-app/chats/{id}.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ),
        &log,
    )
    .unwrap();
    let event = |name: &str, extra: Value| {
        let mut input = json!({"session_id": id, "transcript_path": log, "cwd": project,
            "hook_event_name": name, "timestamp": "2026-08-20T09:00:00.000Z"});
        for (key, value) in extra.as_object().unwrap() {
            input[key] = value.clone();
        }
        input
    };
    for (name, extra) in [
        ("SessionStart", json!({"source": "startup"})),
        ("UserPromptSubmit", json!({"prompt": "fix the build"})),
        ("Stop", json!({})),
        ("Stop", json!({})),
        ("SessionEnd", json!({"reason": "prompt_input_exit"})),
    ] {
        agent_hook("qwen", &project, event(name, extra));
    }
    let all = sessions(&project);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["status"], "complete");
    assert_eq!(all[0]["client_name"], "qwen-code");
    assert_eq!(all[0]["provider_session_id"], id);
    let events = std::fs::read_to_string(project.join(".baton/events.ndjson")).unwrap();
    assert_eq!(events.matches("\"kind\":\"usage\"").count(), 1, "{events}");
    let listed = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "list", "--all", "--cost"])
            .output()
            .unwrap(),
    );
    let usage = json_of(
        &baton(&project.join(".baton"))
            .args(["--json", "usage", "session", "--qwen-dir"])
            .arg(tmp.path().join("qwen/projects"))
            .args([
                "--claude-dir",
                "/nonexistent",
                "--codex-dir",
                "/nonexistent",
            ])
            .output()
            .unwrap(),
    );
    let cost = &listed["sessions"][0]["cost"];
    assert!(
        usage["totals"]["total_tokens"].as_u64().unwrap() > 0,
        "{usage}"
    );
    assert_eq!(
        cost["total_tokens"], usage["totals"]["total_tokens"],
        "{usage}"
    );
}
