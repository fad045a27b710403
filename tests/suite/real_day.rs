//! A real day with Baton set up as the README says (hooks, the MCP server, the status line,
//! the mirror, notes, records) in a git repository: nothing private is left for git to commit,
//! the per-user index is found from every project, a hook's session and the agent's MCP calls
//! are one work session, and the attention list empties.

use baton_tests::{
    McpClient, assert_success, baton, default_index, json_of, output_with_stdin, user_folders,
};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

fn run(ledger: &Path, args: &[&str]) -> Value {
    let output = baton(ledger).arg("--json").args(args).output().unwrap();
    assert_success(&output, format_args!("{args:?}"));
    json_of(&output)
}

/// `baton mirror` of a Claude Code projects folder alone.
fn mirror_claude(ledger: &Path, projects: &Path) -> Value {
    run(
        ledger,
        &[
            "mirror",
            "--claude-dir",
            projects.to_str().unwrap(),
            "--codex-dir",
            "/nonexistent",
        ],
    )
}

/// Claude Code's hook for the project holding `ledger`, as its settings run it.
fn hook(ledger: &Path, input: Value) {
    let project = ledger.parent().unwrap();
    let output = output_with_stdin(
        baton(ledger)
            .env_remove("BATON_DIR")
            .env("CLAUDE_PROJECT_DIR", project)
            .current_dir(project)
            .args(["hook", "claude-code"]),
        input.to_string().as_bytes(),
    );
    assert!(output.status.success());
}

fn git(repo: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .args(args)
        .output()
        .unwrap();
    assert_success(&output, format_args!("git {args:?}"));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A project in a fresh git repository, and its ledger folder.
fn repository(tmp: &Path, name: &str) -> (PathBuf, PathBuf) {
    let repo = tmp.join(name);
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let ledger = repo.join(".baton");
    // The stand-in for the user's home folders sits beside the ledger: not the project's.
    std::fs::write(repo.join(".git/info/exclude"), ".baton-user/\n").unwrap();
    (repo, ledger)
}

#[test]
fn after_a_day_of_hooks_mirror_notes_records_and_the_status_line_git_sees_only_what_is_shared() {
    let tmp = tempfile::tempdir().unwrap();
    let (repo, ledger) = repository(tmp.path(), "webapp");
    let transcript = format!("{FIXTURES}/claude-code/spotter-v2.1.38-short.jsonl");
    let claude = "0191c0de-aaaa-7000-8000-000000000001";
    let event = |name: &str| {
        json!({"session_id": claude, "hook_event_name": name, "transcript_path": transcript,
            "source": "startup", "reason": "prompt_input_exit", "cwd": repo})
    };
    hook(&ledger, event("SessionStart"));
    hook(&ledger, event("Stop"));
    run(
        &ledger,
        &[
            "mirror",
            "--claude-dir",
            &format!("{FIXTURES}/claude-code"),
            "--codex-dir",
            &format!("{FIXTURES}/codex"),
        ],
    );
    let started = run(
        &ledger,
        &[
            "start",
            "--project",
            "webapp",
            "--agent",
            "codex",
            "--goal",
            "Tidy",
        ],
    );
    let id = started["session_id"].as_str().unwrap().to_owned();
    run(
        &ledger,
        &[
            "record",
            "store",
            "--session",
            &id,
            "--title",
            "pasted transcript",
            "--content",
            &"a private line\n".repeat(400),
        ],
    );
    let status_line = output_with_stdin(
        baton(&ledger)
            .env_remove("BATON_DIR")
            .current_dir(&repo)
            .arg("statusline"),
        json!({"session_id": claude, "transcript_path": transcript, "cwd": repo,
            "workspace": {"current_dir": repo, "project_dir": repo}})
        .to_string()
        .as_bytes(),
    );
    assert!(status_line.status.success());
    run(&ledger, &["end", &id, "--summary", "done"]);
    hook(&ledger, event("SessionEnd"));

    // The index and the status line's cache are the user's, not the project's.
    assert!(default_index(&ledger).is_file());
    assert!(!ledger.join("index.sqlite").exists());
    assert!(
        user_folders(&ledger)
            .join("cache/baton/statusline")
            .is_dir()
    );
    // What git would add: the history and the ledger's .gitignore, nothing else.
    let untracked = git(&repo, &["status", "--porcelain", "--untracked-files=all"]);
    let listed: Vec<&str> = untracked
        .lines()
        .map(|l| l.trim_start_matches("?? "))
        .collect();
    assert!(!listed.is_empty());
    for path in &listed {
        assert!(
            [".baton/.gitignore", ".baton/events.ndjson"].contains(path),
            "git would commit {path}: {untracked}"
        );
    }
    // The notes and the stored record's blob were written, and git leaves them out.
    assert!(ledger.join("vault").is_dir());
    assert!(ledger.join("blobs").is_dir());
    let doctor = run(&ledger, &["doctor"]);
    assert_eq!(doctor["tracked_private"], json!([]), "{doctor}");

    // Forced in anyway: doctor names them.
    git(&repo, &["add", "-f", ".baton/vault", ".baton/blobs"]);
    let doctor = run(&ledger, &["doctor"]);
    let tracked = doctor["tracked_private"].as_array().unwrap();
    assert!(tracked.len() >= 2, "{doctor}");
    assert!(
        doctor["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f.as_str().unwrap().contains("git tracks")),
        "{doctor}"
    );
}

#[test]
fn an_older_gitignore_baton_wrote_gains_the_new_lines_and_a_persons_own_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("a/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let old = "# Written by Baton when it made this ledger. Commit the history.\ncheckpoint.ndjson\nlocks/\n";
    std::fs::write(ledger.join(".gitignore"), old).unwrap();
    run(&ledger, &["start", "--project", "a", "--agent", "codex"]);
    let now = std::fs::read_to_string(ledger.join(".gitignore")).unwrap();
    assert!(now.starts_with(old));
    for line in ["vault/", "blobs/", "index.sqlite*", "notes/"] {
        assert!(now.lines().any(|l| l == line), "{line} missing: {now}");
    }
    assert_eq!(now.matches("locks/").count(), 1);
    // Written twice, extended once.
    run(&ledger, &["start", "--project", "a", "--agent", "codex"]);
    assert_eq!(
        std::fs::read_to_string(ledger.join(".gitignore")).unwrap(),
        now
    );
    // A person who takes `vault/` out (to share the notes) has it stay out.
    let shared = now.replace("vault/\n", "");
    std::fs::write(ledger.join(".gitignore"), &shared).unwrap();
    // (A compaction makes a new active log: that is when the file is looked at.)
    run(&ledger, &["compact"]);
    run(&ledger, &["start", "--project", "a", "--agent", "codex"]);
    assert_eq!(
        std::fs::read_to_string(ledger.join(".gitignore")).unwrap(),
        shared
    );
    // So in a ledger this Baton made.
    let fresh = tmp.path().join("c/.baton");
    run(&fresh, &["start", "--project", "c", "--agent", "codex"]);
    let written = std::fs::read_to_string(fresh.join(".gitignore")).unwrap();
    let opted_in = written.replace("vault/\n", "");
    std::fs::write(fresh.join(".gitignore"), &opted_in).unwrap();
    run(&fresh, &["compact"]);
    run(&fresh, &["start", "--project", "c", "--agent", "codex"]);
    assert_eq!(
        std::fs::read_to_string(fresh.join(".gitignore")).unwrap(),
        opted_in
    );

    let mine = tmp.path().join("b/.baton");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join(".gitignore"), "# my own\n*.sqlite\n").unwrap();
    run(&mine, &["start", "--project", "b", "--agent", "codex"]);
    assert_eq!(
        std::fs::read_to_string(mine.join(".gitignore")).unwrap(),
        "# my own\n*.sqlite\n"
    );
}

#[test]
fn a_projects_old_index_moves_to_the_users_folder_once_and_every_project_shares_it() {
    let tmp = tempfile::tempdir().unwrap();
    let alpha = tmp.path().join("alpha/.baton");
    let beta = tmp.path().join("beta/.baton");
    std::fs::create_dir_all(&alpha).unwrap();
    std::fs::create_dir_all(&beta).unwrap();
    // Both projects' commands share one stand-in for the user's folders.
    let user = tmp.path().join("user-data");
    let baton = |ledger: &Path| {
        let mut command = baton(ledger);
        command.env("XDG_DATA_HOME", &user);
        command
    };
    let run = |ledger: &Path, args: &[&str]| {
        let output = baton(ledger).arg("--json").args(args).output().unwrap();
        assert_success(&output, format_args!("{args:?}"));
        json_of(&output)
    };
    // What an earlier Baton made: the index inside the project.
    let old = alpha.join("index.sqlite");
    run(
        &alpha,
        &[
            "mirror",
            "--claude-dir",
            &format!("{FIXTURES}/claude-code"),
            "--codex-dir",
            "/nonexistent",
            "--index",
            old.to_str().unwrap(),
        ],
    );
    assert!(old.is_file());
    let search = |ledger: &Path| {
        baton(ledger)
            .args(["--json", "search", "file", "--limit", "1"])
            .output()
            .unwrap()
    };
    let first = search(&alpha);
    assert!(first.status.success());
    let said = String::from_utf8_lossy(&first.stderr);
    assert!(said.contains("moved the transcript index"), "{said}");
    assert!(!old.exists());
    assert!(user.join("baton/index.sqlite").is_file());
    let found = json_of(&first)["total"].as_i64().unwrap();
    assert!(found > 0);
    // Said once.
    let again = search(&alpha);
    assert!(String::from_utf8_lossy(&again.stderr).is_empty());
    // Another project finds the same transcripts without a mirror of its own.
    let from_beta = search(&beta);
    assert!(from_beta.status.success());
    assert_eq!(json_of(&from_beta)["total"].as_i64().unwrap(), found);
    assert!(!beta.join("index.sqlite").exists());
    // Records stay their own ledger's: one stored in alpha is not listed in beta.
    run(
        &alpha,
        &["record", "store", "--title", "alpha only", "--content", "x"],
    );
    assert_eq!(run(&alpha, &["record", "list"])["total"], 1);
    assert_eq!(run(&beta, &["record", "list"])["total"], 0);
}

#[test]
fn a_hook_session_and_the_agents_mcp_calls_are_one_work_session_ended_once() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    std::fs::create_dir_all(&project).unwrap();
    let ledger = project.join(".baton");
    let claude = "0191c0de-bbbb-7000-8000-000000000002";
    let event = |name: &str| {
        json!({"session_id": claude, "hook_event_name": name, "source": "startup",
            "reason": "prompt_input_exit", "transcript_path": "/nonexistent/t.jsonl", "cwd": project})
    };
    // SessionStart from the hook; this test process is the agent both doors see.
    hook(&ledger, event("SessionStart"));
    let mut mcp = McpClient::start(&ledger, "claude-code");
    let started = mcp.call(
        "start_work_session",
        json!({"project": "my-webapp", "goal": "Fix the login test"}),
    );
    let body = &started["result"]["structuredContent"];
    assert_ne!(started["result"]["isError"], true, "{started}");
    let id = body["session_id"].as_str().unwrap().to_owned();
    assert_eq!(body["action"], "resumed", "{body}");
    // The model ends its work without naming it: the one session fits.
    let ended = mcp.call("end_work_session", json!({"summary": "fixed"}));
    assert_ne!(ended["result"]["isError"], true, "{ended}");
    assert_eq!(ended["result"]["structuredContent"]["session_id"], id);
    drop(mcp);
    hook(&ledger, event("SessionEnd"));

    let all = run(&ledger, &["list", "--all"]);
    let sessions = all["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "{all}");
    assert_eq!(sessions[0]["session_id"], id.as_str());
    assert_eq!(sessions[0]["agent"], "claude-code");
    assert_eq!(sessions[0]["status"], "complete");
    assert_eq!(sessions[0]["provider_session_id"], claude);
    let timeline = run(&ledger, &["timeline", &id]);
    let kinds: Vec<&str> = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "completed").count(),
        1,
        "{kinds:?}"
    );
    // Old ledgers' `claude` is read as the same agent.
    assert_eq!(
        run(&ledger, &["list", "--all", "--agent", "claude"])["total"],
        1
    );
    assert_eq!(run(&ledger, &["attention"])["total"], 0);
}

#[test]
fn six_hook_sessions_leave_no_attention_and_a_persons_done_clears_a_driven_one() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    std::fs::create_dir_all(&project).unwrap();
    let ledger = project.join(".baton");
    for n in 0..6 {
        let claude = format!("claude-session-{n}");
        for name in ["SessionStart", "Stop", "SessionEnd"] {
            hook(
                &ledger,
                json!({"session_id": claude, "hook_event_name": name, "source": "startup",
                    "reason": "prompt_input_exit", "transcript_path": "/nonexistent/t.jsonl"}),
            );
        }
    }
    assert_eq!(run(&ledger, &["list", "--all"])["total"], 6);
    assert_eq!(run(&ledger, &["attention"])["total"], 0);
    // A session the lifecycle drives (its agent reports) and that ends mid-work: one item.
    let id = run(
        &ledger,
        &["start", "--project", "webapp", "--agent", "codex"],
    )["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    run(&ledger, &["report", &id, "--progress", "30"]);
    run(&ledger, &["end", &id]);
    let open = run(&ledger, &["attention"]);
    assert_eq!(open["total"], 1, "{open}");
    let number = open["items"][0]["number"].as_u64().unwrap().to_string();
    // A number that is not open: a clear refusal, nothing cleared.
    let wrong = baton(&ledger)
        .args(["--json", "attention", "done", "99"])
        .output()
        .unwrap();
    assert!(!wrong.status.success());
    assert_eq!(json_of(&wrong)["error"]["code"], "INVALID_ARGUMENT");
    let done = baton(&ledger)
        .env("BATON_ACTOR", "alice")
        .args(["--json", "attention", "done", &number, "--note", "seen"])
        .output()
        .unwrap();
    assert!(done.status.success());
    let done = json_of(&done);
    assert_eq!(
        (done["done"].as_u64(), done["total"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(run(&ledger, &["attention"])["total"], 0);
    let timeline = run(&ledger, &["timeline", &id]);
    let cleared = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "attention_cleared")
        .cloned()
        .expect("who cleared it, in the timeline");
    assert_eq!(cleared["actor_name"], "alice");
    assert_eq!(cleared["actor"], "human");
}

/// A Claude Code session with sub-agents, laid out as Claude Code writes it (the session's file,
/// and `<session>/subagents/agent-*.jsonl`), mirrored with the sub-agents' files read first:
/// every view names it by its main thread's prompt and counts it as one conversation with the
/// same messages.
#[test]
fn a_session_with_sub_agents_is_one_conversation_with_one_title_in_every_view() {
    let tmp = tempfile::tempdir().unwrap();
    let session = "ae4a77f8-aedd-4bc1-888f-c94edc91af04";
    let projects = tmp.path().join("projects");
    let folder = projects.join("-home-USER-projects-spotter");
    let subagents = folder.join(session).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    for name in ["agent-aac57f5.jsonl", "agent-acompact-946d2b.jsonl"] {
        std::fs::copy(
            format!("{FIXTURES}/claude-code/spotter-subagents-ae4a77f8/{name}"),
            subagents.join(name),
        )
        .unwrap();
    }
    let prompt = std::fs::read_to_string(subagents.join("agent-aac57f5.jsonl")).unwrap();
    let first: Value = serde_json::from_str(prompt.lines().next().unwrap()).unwrap();
    let task_prompt = first["message"]["content"].as_str().unwrap();
    let line = |value: Value| value.to_string() + "\n";
    let parent = [
        line(json!({"type": "user", "sessionId": session, "uuid": "p-1", "parentUuid": null,
            "isSidechain": false, "timestamp": "2026-02-12T14:10:00.000Z", "cwd": "/home/USER/projects/spotter",
            "message": {"role": "user", "content": "Add OpenTelemetry to the app"}})),
        line(json!({"type": "assistant", "sessionId": session, "uuid": "p-2", "parentUuid": "p-1",
            "isSidechain": false, "timestamp": "2026-02-12T14:12:00.000Z", "cwd": "/home/USER/projects/spotter",
            "message": {"id": "msg_p2", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                "content": [{"type": "tool_use", "id": "toolu_task", "name": "Task",
                    "input": {"description": "Find versions", "prompt": task_prompt}}],
                "usage": {"input_tokens": 10, "output_tokens": 5}}})),
    ]
    .concat();
    let ledger = tmp.path().join("work/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    // The sub-agents' files first: a sub-agent's prompt stands in while nothing else is known.
    mirror_claude(&ledger, &projects);
    let listed = run(&ledger, &["transcripts", "list"]);
    assert_eq!(listed["total"], 1, "{listed}");
    let search_prompt = "Search hex.pm for the latest versions";
    assert!(
        listed["conversations"][0]["title"]
            .as_str()
            .unwrap()
            .starts_with(search_prompt),
        "the sub-agent that started first names it: {listed}"
    );
    // The page and `analyze` read files in whatever order they come: the same title.
    let agents = ["agent-acompact-946d2b.jsonl", "agent-aac57f5.jsonl"];
    for order in [[0, 1], [1, 0]] {
        let files: Vec<String> = order
            .iter()
            .map(|&i| subagents.join(agents[i]).display().to_string())
            .collect();
        let analyzed = run(&ledger, &["analyze", &files[0], &files[1]]);
        let title = analyzed["conversations"]["rows"][0]["title"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(title.starts_with(search_prompt), "{order:?}: {title}");
    }
    // Then the session's own file.
    std::fs::write(folder.join(format!("{session}.jsonl")), &parent).unwrap();
    mirror_claude(&ledger, &projects);
    let listed = run(&ledger, &["transcripts", "list"]);
    assert_eq!(listed["total"], 1, "{listed}");
    let row = &listed["conversations"][0];
    assert_eq!(row["title"], "Add OpenTelemetry to the app", "{row}");
    let messages = row["messages"].as_u64().unwrap();
    assert_eq!(
        messages, 32,
        "two of the parent's and thirty of its sub-agents'"
    );

    let analyzed = run(&ledger, &["analyze", projects.to_str().unwrap()]);
    let conversations = &analyzed["conversations"];
    assert_eq!(conversations["total"], 1, "{conversations}");
    assert_eq!(conversations["rows"][0]["title"], row["title"]);
    assert_eq!(
        conversations["rows"][0]["messages"].as_u64(),
        Some(messages)
    );
    // Read the other way round, the same.
    let reversed = run(
        &ledger,
        &[
            "analyze",
            folder.join(format!("{session}.jsonl")).to_str().unwrap(),
            subagents.to_str().unwrap(),
        ],
    );
    assert_eq!(reversed["conversations"]["rows"][0]["title"], row["title"]);
    assert_eq!(
        reversed["conversations"]["rows"][0]["messages"].as_u64(),
        Some(messages)
    );
}

/// Every JSON block in the README parses: people paste them into their agents' settings.
#[test]
fn the_readmes_json_blocks_are_json() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let mut blocks = 0;
    for part in readme.split("```json\n").skip(1) {
        let block = part.split("```").next().unwrap();
        serde_json::from_str::<Value>(block)
            .unwrap_or_else(|e| panic!("a README JSON block does not parse ({e}):\n{block}"));
        blocks += 1;
    }
    assert!(blocks >= 3, "{blocks} JSON blocks");
}

/// A session the hooks keep takes its goal from the transcript's first prompt at the first
/// turn's end; a person corrects it, and the timeline keeps who did; an agent may not correct
/// another agent's session.
#[test]
fn a_hook_session_gets_its_goal_from_the_transcript_and_a_person_corrects_it() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("webapp");
    std::fs::create_dir_all(&project).unwrap();
    let ledger = project.join(".baton");
    let claude = "0191c0de-cccc-7000-8000-000000000003";
    let transcript = tmp.path().join("t.jsonl");
    let lines = [
        json!({"type": "user", "sessionId": claude, "uuid": "u1", "parentUuid": null,
            "timestamp": "2026-07-18T10:00:00.000Z", "cwd": project,
            "message": {"role": "user", "content": "Fix the flaky login test"}}),
        json!({"type": "assistant", "sessionId": claude, "uuid": "a1", "parentUuid": "u1",
            "timestamp": "2026-07-18T10:00:05.000Z", "cwd": project, "requestId": "r1",
            "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-20250514",
                "content": [{"type": "text", "text": "On it."}],
                "usage": {"input_tokens": 100, "output_tokens": 20}}}),
    ];
    std::fs::write(
        &transcript,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let event = |name: &str| {
        json!({"session_id": claude, "hook_event_name": name, "source": "startup",
            "transcript_path": transcript, "cwd": project})
    };
    hook(&ledger, event("SessionStart"));
    assert!(run(&ledger, &["list"])["sessions"][0]["goal"].is_null());
    hook(&ledger, event("Stop"));
    let session = run(&ledger, &["list"])["sessions"][0].clone();
    assert_eq!(session["goal"], "Fix the flaky login test", "{session}");
    let id = session["session_id"].as_str().unwrap().to_owned();
    // Another turn does not write it again.
    hook(&ledger, event("Stop"));
    let events = std::fs::read_to_string(ledger.join("events.ndjson")).unwrap();
    assert_eq!(events.matches("\"kind\":\"corrected\"").count(), 1);
    // Another agent may not change it; a person may.
    let refused = baton(&ledger)
        .env("BATON_AGENT", "codex")
        .args(["--json", "correct", &id, "--goal", "mine now"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert_eq!(json_of(&refused)["error"]["code"], "ACTOR_NOT_ALLOWED");
    let short = &id[id.len() - 8..];
    run(
        &ledger,
        &["correct", short, "--goal", "Fix the login test's retry"],
    );
    assert_eq!(
        run(&ledger, &["show", &id])["session"]["goal"],
        "Fix the login test's retry"
    );
    let timeline = run(&ledger, &["timeline", &id]);
    let corrected: Vec<&Value> = timeline["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "corrected")
        .collect();
    assert_eq!(corrected.len(), 2, "{timeline}");
    assert_eq!(corrected[0]["actor"], "agent");
    assert_eq!(corrected[1]["actor"], "human");
    // Its note says which agent session and transcript it was, and what it cost.
    hook(&ledger, event("SessionEnd"));
    let notes = ledger.join("vault/Projects/webapp/sessions");
    let note = std::fs::read_dir(&notes)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(note).unwrap();
    for key in [
        format!("provider_session_id: {claude}"),
        format!("transcript: {}", transcript.display()),
        "tokens: \"120\"".to_owned(),
        "cost_usd: \"0.0006\"".to_owned(),
        "Fix the login test's retry".to_owned(),
    ] {
        assert!(text.contains(&key), "{key} missing:\n{text}");
    }
}

/// `usage session` rows say when each session was last active, whose and which project it is,
/// in that order (the latest last), and on a terminal its title from the mirror.
#[test]
fn usage_by_session_is_in_order_of_last_activity_with_project_and_title() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&folder).unwrap();
    let response = |session: &str, at: &str, n: u32, prompt: &str| {
        [
            json!({"type": "user", "sessionId": session, "uuid": format!("{session}-u{n}"),
                "timestamp": at, "cwd": "/home/dev/app", "message": {"role": "user", "content": prompt}}),
            json!({"type": "assistant", "sessionId": session, "uuid": format!("{session}-a{n}"),
                "parentUuid": format!("{session}-u{n}"), "timestamp": at, "cwd": "/home/dev/app",
                "requestId": format!("r-{session}-{n}"),
                "message": {"id": format!("m-{session}-{n}"), "role": "assistant",
                    "model": "claude-sonnet-4-20250514", "content": [{"type": "text", "text": "ok"}],
                    "usage": {"input_tokens": 100, "output_tokens": 10}}}),
        ]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>()
    };
    // "aaa" starts first but is active last.
    std::fs::write(
        folder.join("aaa.jsonl"),
        response("aaa", "2026-07-01T09:00:00Z", 1, "Write the parser")
            + &response("aaa", "2026-07-03T09:00:00Z", 2, "more"),
    )
    .unwrap();
    std::fs::write(
        folder.join("bbb.jsonl"),
        response("bbb", "2026-07-02T09:00:00Z", 1, "Fix the tests"),
    )
    .unwrap();
    let ledger = tmp.path().join("work/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let projects = tmp.path().join("projects");
    let usage = |extra: &[&str]| {
        let mut args = vec![
            "usage",
            "session",
            "--claude-dir",
            projects.to_str().unwrap(),
            "--codex-dir",
            "/nonexistent",
            "--timezone",
            "UTC",
        ];
        args.extend_from_slice(extra);
        args.iter()
            .map(|s| (*s).to_owned())
            .collect::<Vec<String>>()
    };
    let args = usage(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let report = run(&ledger, &args);
    let rows = report["rows"].as_array().unwrap();
    let keys: Vec<&str> = rows.iter().map(|r| r["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["bbb", "aaa"], "the latest active last");
    assert_eq!(rows[1]["last_at"], "2026-07-03T09:00:00.000Z");
    assert_eq!(rows[1]["first_at"], "2026-07-01T09:00:00.000Z");
    assert_eq!(rows[1]["project"], "/home/dev/app");
    assert_eq!(rows[1]["provider"], "claude-code");
    // With the mirror, the table names each session.
    mirror_claude(&ledger, &projects);
    let human = baton(&ledger).args(&args).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    let order: Vec<usize> = ["Fix the tests", "Write the parser"]
        .iter()
        .map(|t| {
            text.find(t)
                .unwrap_or_else(|| panic!("{t} missing:\n{text}"))
        })
        .collect();
    assert!(order[0] < order[1], "{text}");
    assert!(text.contains("2026-07-03 09:00"), "{text}");
}
