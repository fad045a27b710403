//! Every newer agent's sessions (Gemini CLI, Qwen Code, OpenCode, Kilo CLI, Copilot CLI, Amp,
//! Aider, Cline, Roo Code, Kilo Code, Cursor's store, its agents' transcripts and cursor-agent's chats), generated in the agents' own layouts with the traps
//! their sources show (`baton_tests::agents`), give the generator's truth through every face:
//! `usage` from the files and from the index, `analyze`, search and `transcripts show`; a
//! mirror killed mid-pass ends as one clean pass, and lines appended later add exactly their
//! messages.

use baton_core::transcripts::Provider;
use baton_tests::agents::{
    PLANTED, Rng, Tokens, Truth, aider, amp, cline, copilot, copilot_chat, cursor, cursor_cli,
    cursor_transcripts, gemini, opencode, qwen,
};
use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One agent's generated tree: its key, the flag that names its folder, the folder, its truth.
struct Agent {
    key: &'static str,
    flag: &'static str,
    root: PathBuf,
    truth: Truth,
}

/// Every agent's tree under `tmp`, each of about `sessions` sessions.
/// Where each editor extension keeps its tasks, below the home (VS Code's, on Linux).
const CLINE_HOME: &str = ".config/Code/User/globalStorage/saoudrizwan.claude-dev";
const ROO_HOME: &str = ".config/Code/User/globalStorage/rooveterinaryinc.roo-cline";
const KILO_CODE_HOME: &str = ".config/Code/User/globalStorage/kilocode.kilo-code";

fn agents(tmp: &Path, sessions: usize) -> Vec<Agent> {
    let agent = |key, flag, folder: &str, write: &dyn Fn(&Path) -> Truth| {
        let root = tmp.join(folder);
        Agent {
            key,
            flag,
            truth: write(&root),
            root,
        }
    };
    vec![
        agent("gemini", "--gemini-dir", ".gemini/tmp", &|r| {
            gemini::tree(r, sessions, 3)
        }),
        agent("qwen", "--qwen-dir", ".qwen/projects", &|r| {
            qwen::tree(r, sessions, 5)
        }),
        agent(
            "opencode",
            "--opencode-dir",
            ".local/share/opencode",
            &|r| opencode::tree(r, sessions, 9, false),
        ),
        agent("kilo", "--kilo-dir", ".local/share/kilo", &|r| {
            opencode::tree(r, sessions - 2, 11, true)
        }),
        agent(
            "copilot_cli",
            "--copilot-cli-dir",
            ".copilot/session-state",
            &|r| copilot::tree(r, sessions, 13),
        ),
        agent(
            "copilot_chat",
            "--copilot-chat-dir",
            ".config/Code/User/workspaceStorage",
            &|r| copilot_chat::tree(r, sessions, 17),
        ),
        agent("amp", "--amp-dir", ".local/share/amp/threads", &|r| {
            amp::tree(r, sessions, 19)
        }),
        agent("aider", "--aider-dir", "code", &|r| {
            aider::tree(r, sessions, 29)
        }),
        agent("cline", "--cline-dir", CLINE_HOME, &|r| {
            cline::tree(r, Provider::Cline, sessions, 31)
        }),
        agent("roo_code", "--roo-code-dir", ROO_HOME, &|r| {
            cline::tree(r, Provider::RooCode, sessions, 37)
        }),
        agent("kilo_code", "--kilo-code-dir", KILO_CODE_HOME, &|r| {
            cline::tree(r, Provider::KiloCode, sessions, 41)
        }),
        agent(
            "cursor",
            "--cursor-dir",
            ".config/Cursor/User/globalStorage",
            &|r| cursor::tree(r, sessions, 43),
        ),
        agent(
            "cursor_transcripts",
            "--cursor-transcripts-dir",
            ".cursor/projects",
            &|r| cursor_transcripts::tree(r, sessions, 47, &[]),
        ),
        agent("cursor_cli", "--cursor-cli-dir", ".cursor/chats", &|r| {
            cursor_cli::tree(r, sessions, 53)
        }),
    ]
}

/// A temporary folder, and the ledger folder in it.
fn fresh() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    (tmp, dir)
}

fn run(dir: &Path, args: &[&str]) -> Value {
    let output = baton(dir).args(args).output().unwrap();
    assert_success(&output, format_args!("baton {}", args.join(" ")));
    json_of(&output)
}

/// One `baton mirror` pass over `root` (the folder `flag` names) into the index at `index`;
/// answers its JSON.
fn mirror_pass(dir: &Path, flag: &str, root: &Path, index: &str) -> Value {
    let output = baton(dir)
        .args(["--json", "mirror", flag])
        .arg(root)
        .args(["--index", index])
        .output()
        .unwrap();
    assert_success(&output, format_args!("mirror"));
    json_of(&output)
}

/// Asserts that the index at `index` finds `word` in one message; answers its daily usage.
fn found_once_and_usage(dir: &Path, word: &str, index: &str) -> Value {
    let found = run(dir, &["--json", "search", word, "--index", index]);
    assert_eq!(found["hits"].as_array().unwrap().len(), 1, "{found}");
    run(
        dir,
        &["--json", "usage", "daily", &format!("--index={index}")],
    )
}

/// The messages of every conversation an index keeps, added up.
fn listed_messages(dir: &Path, index: &str) -> u64 {
    listed(dir, index)["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["messages"].as_u64().unwrap())
        .sum()
}

/// The conversations an index keeps, as `transcripts list --json` gives them.
fn listed(dir: &Path, index: &str) -> Value {
    run(
        dir,
        &[
            "--json",
            "transcripts",
            "list",
            "--index",
            index,
            "--limit",
            "1000",
        ],
    )
}

/// A report's rows by key, as the truth counts them.
fn rows_of(report: &Value) -> BTreeMap<String, Tokens> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let n = |field: &str| row[field].as_u64().unwrap();
            let tokens = Tokens {
                input: n("input_tokens"),
                output: n("output_tokens"),
                cache_read: n("cache_read_tokens"),
                cache_write: n("cache_creation_tokens"),
                reasoning: n("reasoning_tokens"),
            };
            (row["key"].as_str().unwrap().to_owned(), tokens)
        })
        .collect()
}

fn mirror(dir: &Path, agent: &Agent, index: &Path) -> Command {
    let mut command = baton(dir);
    command
        .arg("mirror")
        .arg(agent.flag)
        .arg(&agent.root)
        .arg("--index")
        .arg(index);
    command
}

#[test]
fn usage_from_the_files_and_from_the_index_equals_the_truth_by_day_and_model() {
    let (tmp, dir) = fresh();
    for agent in agents(tmp.path(), 7) {
        let root = agent.root.to_str().unwrap();
        if agent.truth.by_day_model.is_empty() {
            no_token_counts(&dir, &agent);
            continue;
        }
        let index = tmp.path().join(format!("{}.sqlite", agent.key));
        let index_flag = format!("--index={}", index.display());
        let by = |group: &str, from_index: bool| {
            let mut args = vec!["--json", "usage", group, "--provider", agent.key];
            if from_index {
                args.push(&index_flag);
            } else {
                args.extend([agent.flag, root]);
            }
            rows_of(&run(&dir, &args))
        };
        for from_index in [false, true] {
            if from_index {
                let mirrored = mirror(&dir, &agent, &index).output().unwrap();
                assert_success(&mirrored, format_args!("mirror {}", agent.key));
            }
            let what = format!("{}, from the index: {from_index}", agent.key);
            assert_eq!(
                by("daily", from_index),
                agent.truth.by_day(),
                "{what}: daily"
            );
            assert_eq!(
                by("model", from_index),
                agent.truth.by_model(),
                "{what}: models"
            );
        }
        // A model the price table does not know is said to be unpriced, never costed at $0.
        let report = run(&dir, &["--json", "usage", "model", agent.flag, root]);
        let unpriced: Vec<&str> = report["unpriced_models"]
            .as_array()
            .map(|m| m.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let unknown = match agent.key {
            "gemini" => gemini::MODELS[2],
            "qwen" => qwen::MODELS[1],
            "copilot_cli" => copilot::MODELS[3],
            "copilot_chat" => "oswe-vscode-prime",
            "amp" => amp::MODELS[2],
            "aider" => aider::MODELS[2],
            "cline" => cline::models(Provider::Cline)[2],
            "roo_code" => cline::models(Provider::RooCode)[2],
            "kilo_code" => cline::models(Provider::KiloCode)[2],
            _ => opencode::MODELS[2],
        };
        assert!(unpriced.contains(&unknown), "{}: {report}", agent.key);
        assert!(report["totals"]["cost_usd"].as_f64().unwrap() > 0.0);
    }
}

/// An agent that keeps no token counts (Cursor) is named in the report, never counted as zero,
/// and asking for its usage says why there is none.
fn no_token_counts(dir: &Path, agent: &Agent) {
    let root = agent.root.to_str().unwrap();
    let report = run(dir, &["--json", "usage", "daily", agent.flag, root]);
    assert_eq!(
        report["without_tokens"],
        serde_json::json!([agent.key]),
        "{report}"
    );
    assert!(report["rows"].as_array().unwrap().is_empty(), "{report}");
    let human = baton(dir)
        .args(["usage", "daily", agent.flag, root])
        .output()
        .unwrap();
    assert_success(&human, format_args!("usage daily {}", agent.key));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("no token counts on disk"), "{text}");
    let asked = baton(dir)
        .args(["--json", "usage", "daily", "--provider", agent.key])
        .output()
        .unwrap();
    assert!(!asked.status.success());
    let error = String::from_utf8_lossy(&asked.stdout);
    assert!(error.contains("keeps no token counts on disk"), "{error}");
}

/// Cursor's three sources read at once are named on one line of the report, not three.
#[test]
fn the_agents_without_token_counts_share_one_line() {
    let (tmp, dir) = fresh();
    let mut args = vec!["usage".to_owned(), "daily".to_owned()];
    for agent in agents(tmp.path(), 3) {
        if agent.key.starts_with("cursor") {
            args.push(agent.flag.to_owned());
            args.push(agent.root.to_str().unwrap().to_owned());
        }
    }
    let output = baton(&dir).args(&args).output().unwrap();
    assert_success(&output, format_args!("usage daily"));
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("no token counts"))
        .collect();
    assert_eq!(
        lines,
        [
            "Cursor, Cursor agent transcripts and Cursor CLI: no token counts on disk (their chats are searchable after `baton mirror`)"
        ],
        "{text}"
    );
}

#[test]
fn analyze_lists_each_session_once_with_its_title_and_tool_calls() {
    let (tmp, dir) = fresh();
    for agent in agents(tmp.path(), 7) {
        let report = run(
            &dir,
            &[
                "--json",
                "analyze",
                agent.root.to_str().unwrap(),
                "--list",
                "1000",
            ],
        );
        let mut listed: Vec<(String, u64)> = report["conversations"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["title"].as_str().unwrap().to_owned(),
                    r["tool_calls"].as_u64().unwrap(),
                )
            })
            .collect();
        let mut expected: Vec<(String, u64)> = agent
            .truth
            .conversations
            .values()
            .map(|c| (c.title.clone(), c.tool_calls as u64))
            .collect();
        listed.sort();
        expected.sort();
        assert_eq!(listed, expected, "{}", agent.key);
        let usage = &report["overview"]["usage"];
        if agent.truth.by_day_model.is_empty() {
            // No tokens on disk: none shown, not a zero.
            assert!(usage.is_null(), "{}: {usage}", agent.key);
            continue;
        }
        let total: Tokens = agent
            .truth
            .by_day()
            .values()
            .fold(Tokens::default(), |mut t, d| {
                t.add(*d);
                t
            });
        assert_eq!(usage["input_tokens"], total.input, "{}: {usage}", agent.key);
        assert_eq!(usage["output_tokens"], total.output, "{}", agent.key);
        assert_eq!(
            usage["cache_read_tokens"], total.cache_read,
            "{}",
            agent.key
        );
        assert_eq!(
            usage["cache_creation_tokens"], total.cache_write,
            "{}",
            agent.key
        );
    }
}

#[test]
fn search_finds_the_planted_word_and_show_renders_the_session() {
    let (tmp, dir) = fresh();
    for agent in agents(tmp.path(), 7) {
        let index = tmp.path().join(format!("{}.sqlite", agent.key));
        assert_success(
            &mirror(&dir, &agent, &index).output().unwrap(),
            format_args!("mirror"),
        );
        let index_flag = index.to_str().unwrap();
        let found = run(&dir, &["--json", "search", PLANTED, "--index", index_flag]);
        let hits = found["hits"].as_array().unwrap();
        // Qwen's `/branch` fork copies the prompt that holds the word: a hit in each session.
        let expected = if agent.key == "qwen" { 2 } else { 1 };
        assert_eq!(hits.len(), expected, "{}: {found}", agent.key);
        let session = hits[0]["conversation"]["provider_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            agent.truth.conversations.contains_key(&session),
            "{}: {found}",
            agent.key
        );
        let shown = baton(&dir)
            .args(["transcripts", "show", &session, "--index", index_flag])
            .output()
            .unwrap();
        assert_success(&shown, format_args!("show {session}"));
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.contains(PLANTED), "{}: {text}", agent.key);
        let listed = listed(&dir, index_flag);
        let rows = listed["conversations"].as_array().unwrap();
        assert_eq!(
            rows.len(),
            agent.truth.conversations.len(),
            "{}: {listed}",
            agent.key
        );
    }
}

/// `baton mirror` killed (SIGKILL, a real process) at random points, then run to the end,
/// leaves the index one clean run leaves.
#[test]
fn a_mirror_of_the_agents_killed_anywhere_ends_as_one_clean_run() {
    let (tmp, dir) = fresh();
    let agents = agents(tmp.path(), 40);
    let mirror = |index: &Path| {
        let mut command = baton(&dir);
        command.arg("mirror");
        for agent in &agents {
            command.arg(agent.flag).arg(&agent.root);
        }
        command
            .arg("--index")
            .arg(index)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        command
    };
    let contents = |index: &Path| -> Vec<String> {
        let usage = run(
            &dir,
            &[
                "--json",
                "usage",
                "session",
                &format!("--index={}", index.display()),
            ],
        );
        let listed = listed(&dir, index.to_str().unwrap());
        vec![
            usage["rows"].to_string(),
            listed["conversations"].to_string(),
        ]
    };
    let clean = tmp.path().join("clean.sqlite");
    assert!(mirror(&clean).status().unwrap().success());
    let killed = tmp.path().join("killed.sqlite");
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..12 {
        let mut child = mirror(&killed).spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5 + rng.below(80)));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
    }
    assert!(mirror(&killed).status().unwrap().success());
    assert_eq!(contents(&killed), contents(&clean));
}

/// Lines appended to a Gemini CLI log (a new prompt and response, then the response written
/// again with its tool call) and to a Qwen Code transcript add exactly those messages: the
/// copy replaces the message it repeats, and its usage counts once.
#[test]
fn lines_appended_later_add_exactly_their_messages() {
    let (tmp, dir) = fresh();
    let root = tmp.path().join("gemini/tmp/app/chats");
    let file = root.join("session-2026-08-20T09-00-3f2a9c1e.jsonl");
    let start = r#"{"sessionId":"3f2a9c1e-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-08-20T09:00:00.000Z","lastUpdated":"2026-08-20T09:00:00.000Z","kind":"main"}
{"id":"u1","timestamp":"2026-08-20T09:00:01.000Z","type":"user","content":[{"text":"first prompt"}]}
{"id":"g1","timestamp":"2026-08-20T09:00:02.000Z","type":"gemini","content":"first answer","tokens":{"input":100,"output":10,"cached":40,"thoughts":5,"tool":0,"total":115},"model":"gemini-2.5-pro"}
"#;
    baton_tests::agents::write(&file, start.as_bytes());
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let gemini_root = tmp.path().join("gemini/tmp");
    let pass = || mirror_pass(&dir, "--gemini-dir", &gemini_root, &index_flag);
    let messages = |pass: &Value| pass["pass"]["messages"].as_u64().unwrap_or(u64::MAX);
    assert_eq!(messages(&pass()), 2);
    let appended = r#"{"id":"u2","timestamp":"2026-08-20T09:01:00.000Z","type":"user","content":[{"text":"second prompt"}]}
{"id":"g2","timestamp":"2026-08-20T09:01:02.000Z","type":"gemini","content":"","tokens":{"input":200,"output":20,"cached":0,"thoughts":0,"tool":0,"total":220},"model":"gemini-2.5-pro"}
"#;
    let again = r#"{"id":"g2","timestamp":"2026-08-20T09:01:02.000Z","type":"gemini","content":"","tokens":{"input":200,"output":20,"cached":0,"thoughts":0,"tool":0,"total":220},"model":"gemini-2.5-pro","toolCalls":[{"id":"c1","name":"read_file","args":{"path":"a"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"appendedword"}}}],"status":"success"}]}
"#;
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(appended.as_bytes());
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(messages(&pass()), 2, "a prompt and a response");
    bytes.extend_from_slice(again.as_bytes());
    std::fs::write(&file, &bytes).unwrap();
    assert_eq!(
        messages(&pass()),
        0,
        "a copy replaces the message it repeats"
    );
    let usage = found_once_and_usage(&dir, "appendedword", &index_flag);
    assert_eq!(usage["totals"]["input_tokens"], 60 + 200, "{usage}");
    assert_eq!(usage["totals"]["output_tokens"], 15 + 20, "{usage}");
}

/// An old-format Gemini CLI session written on one line with no newline after it is
/// mirrored as it stands (its last line never gets a newline to wait for), once; rewritten
/// whole with one more exchange, it is read again and holds both.
#[test]
fn a_gemini_document_on_one_line_without_a_newline_is_mirrored() {
    let (tmp, dir) = fresh();
    let file = tmp
        .path()
        .join("gemini/tmp/app/chats/session-2025-06-01T09-00-5d1e2f3a.json");
    let exchange = |n: u32, word: &str| {
        format!(
            r#"{{"id":"u{n}","timestamp":"2025-06-01T09:0{n}:00.000Z","type":"user","content":"prompt {n}"}},{{"id":"g{n}","timestamp":"2025-06-01T09:0{n}:05.000Z","type":"gemini","content":"{word}","tokens":{{"input":100,"output":10,"cached":40,"thoughts":0,"tool":0,"total":110}},"model":"gemini-2.5-pro"}}"#
        )
    };
    let document = |messages: &str| {
        format!(
            r#"{{"sessionId":"5d1e2f3a-0000-4000-8000-000000000009","projectHash":"ab","startTime":"2025-06-01T09:00:00.000Z","lastUpdated":"2025-06-01T09:05:00.000Z","messages":[{messages}]}}"#
        )
    };
    baton_tests::agents::write(&file, document(&exchange(1, "onelineword")).as_bytes());
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let gemini_root = tmp.path().join("gemini/tmp");
    let pass = || mirror_pass(&dir, "--gemini-dir", &gemini_root, &index_flag);
    let messages = |pass: &Value| pass["pass"]["messages"].as_u64().unwrap_or(u64::MAX);
    assert_eq!(messages(&pass()), 2, "the prompt and the answer");
    assert_eq!(messages(&pass()), 0, "nothing changed");
    assert_eq!(listed_messages(&dir, &index_flag), 2);
    let both = format!(
        "{},{}",
        exchange(1, "onelineword"),
        exchange(2, "secondword")
    );
    std::fs::write(&file, document(&both)).unwrap();
    pass();
    assert_eq!(listed_messages(&dir, &index_flag), 4, "rewritten whole");
    let usage = found_once_and_usage(&dir, "secondword", &index_flag);
    assert_eq!(usage["totals"]["input_tokens"], 2 * 60, "{usage}");
    assert_eq!(usage["totals"]["output_tokens"], 2 * 10, "{usage}");
}

/// A Copilot CLI session resumed after a pass (its run's events appended to `events.jsonl`)
/// adds exactly that run's messages, and its shutdown's tokens count once, however many
/// passes read the file.
#[test]
fn a_copilot_run_appended_later_adds_its_messages_and_its_tokens_once() {
    let (tmp, dir) = fresh();
    let root = tmp.path().join(".copilot/session-state");
    let truth = copilot::tree(&root, 4, 17);
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let pass = || mirror_pass(&dir, "--copilot-cli-dir", &root, &index_flag);
    let messages = |pass: &Value| pass["pass"]["messages"].as_u64().unwrap_or(u64::MAX);
    assert!(messages(&pass()) > 0);
    let session = truth.conversations.keys().next().unwrap().clone();
    let file = root.join(&session).join("events.jsonl");
    let file = if file.exists() {
        file
    } else {
        root.join(format!("{session}.jsonl"))
    };
    let tokens = Tokens {
        input: 700,
        output: 90,
        cache_read: 5000,
        cache_write: 300,
        reasoning: 10,
    };
    let at = baton_tests::agents::START_MILLIS + 30 * 3_600_000;
    let lines = copilot::appended_run(&session, "appendedword", "gpt-5.4", tokens, at);
    let mut text = std::fs::read_to_string(&file).unwrap();
    for line in &lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(&file, text).unwrap();
    // The prompt, the response and the run's end; the resume is no message.
    assert_eq!(messages(&pass()), 3);
    assert_eq!(messages(&pass()), 0);
    let usage = found_once_and_usage(&dir, "appendedword", &index_flag);
    let day = baton_tests::agents::day_of(at + 3000);
    let row = usage["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == day.as_str())
        .unwrap_or_else(|| panic!("{day}: {usage}"));
    let before = truth.by_day().get(&day).copied().unwrap_or_default();
    assert_eq!(row["input_tokens"], before.input + 700, "{usage}");
    assert_eq!(
        row["cache_read_tokens"],
        before.cache_read + 5000,
        "{usage}"
    );
    assert_eq!(row["output_tokens"], before.output + 90, "{usage}");
}

/// An Amp thread Amp rewrote whole with one more response is read again whole: the index
/// then holds the thread's messages once each (none twice), and the new response's tokens
/// count once.
#[test]
fn an_amp_thread_rewritten_whole_is_kept_once_with_its_new_response() {
    let (tmp, dir) = fresh();
    let root = tmp.path().join(".local/share/amp/threads");
    amp::tree(&root, 3, 23);
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let pass = || mirror_pass(&dir, "--amp-dir", &root, &index_flag);
    pass();
    let total = |field: &str| -> u64 {
        let usage = run(
            &dir,
            &["--json", "usage", "daily", &format!("--index={index_flag}")],
        );
        usage["totals"][field].as_u64().unwrap()
    };
    let messages = || listed_messages(&dir, &index_flag);
    let (before_messages, before_output) = (messages(), total("output_tokens"));
    let file = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    let mut thread: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let messages_of = thread["messages"].as_array_mut().unwrap();
    let next = messages_of.len();
    messages_of.push(serde_json::json!({"role": "assistant", "messageId": next,
        "content": [{"type": "text", "text": "rewrittenword"}],
        "usage": {"model": "claude-sonnet-4-5", "timestamp": "2026-08-22T10:00:00.000Z",
            "inputTokens": 11, "outputTokens": 77, "cacheCreationInputTokens": 0,
            "cacheReadInputTokens": 0}}));
    thread["v"] = serde_json::json!(999);
    std::fs::write(&file, serde_json::to_string_pretty(&thread).unwrap()).unwrap();
    pass();
    pass();
    assert_eq!(messages(), before_messages + 1);
    assert_eq!(total("output_tokens"), before_output + 77);
    let found = run(
        &dir,
        &["--json", "search", "rewrittenword", "--index", &index_flag],
    );
    assert_eq!(found["hits"].as_array().unwrap().len(), 1, "{found}");
}

/// A run Aider appended to a history after a pass adds exactly its messages (its notes, the
/// prompt, the reply, the notes after it) and its report's tokens, once.
#[test]
fn an_aider_run_appended_later_adds_its_messages_and_tokens_once() {
    let (tmp, dir) = fresh();
    let root = tmp.path().join("code");
    aider::tree(&root, 3, 31);
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let pass = || mirror_pass(&dir, "--aider-dir", &root, &index_flag);
    let messages = |pass: &Value| pass["pass"]["messages"].as_u64().unwrap_or(u64::MAX);
    assert!(messages(&pass()) > 0);
    let before = run(
        &dir,
        &["--json", "usage", "daily", &format!("--index={index_flag}")],
    );
    let file = root.join("billing/.aider.chat.history.md");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str(
        "\n# aider chat started at 2026-08-20 23:00:00\n\n> Model: gpt-5 with diff edit format  \n\
         \n#### now appendedword  \n\nDone.\n\n\
         > Tokens: 1.5k sent, 250 received. Cost: $0.01 message, $0.01 session.  \n\
         > Applied edit to app.py  \n",
    );
    std::fs::write(&file, text).unwrap();
    assert_eq!(messages(&pass()), 4);
    assert_eq!(messages(&pass()), 0);
    let usage = found_once_and_usage(&dir, "appendedword", &index_flag);
    let output = |usage: &Value| usage["totals"]["output_tokens"].as_u64().unwrap();
    assert_eq!(output(&usage), output(&before) + 250, "{usage}");
}

/// A Roo Code task its extension rewrote whole with one more request (its panel file and the
/// conversation history beside it, which names the model): a pass then holds the task's
/// messages once each, the new request's tokens once, under the model the companion names.
#[test]
fn a_roo_task_rewritten_whole_is_kept_once_with_its_new_request_and_model() {
    let (tmp, dir) = fresh();
    let root = tmp.path().join(ROO_HOME);
    cline::tree(&root, Provider::RooCode, 5, 43);
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    let pass = || mirror_pass(&dir, "--roo-code-dir", &root, &index_flag);
    assert!(pass()["pass"]["messages"].as_u64().unwrap() > 0);
    let by_model = || {
        run(
            &dir,
            &["--json", "usage", "model", &format!("--index={index_flag}")],
        )
    };
    let output_of = |report: &Value, model: &str| -> u64 {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == model)
            .map_or(0, |r| r["output_tokens"].as_u64().unwrap())
    };
    let before = by_model();
    let messages = || listed_messages(&dir, &index_flag);
    let before_messages = messages();
    let task = std::fs::read_dir(root.join("tasks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    let read = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(task.join(name)).unwrap()).unwrap()
    };
    let (mut panel, mut history) = (
        read("ui_messages.json"),
        read("api_conversation_history.json"),
    );
    let at = 1_787_400_000_000_i64;
    history
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"role": "user", "ts": at,
        "content": "<environment_details>\n<model>gpt-5</model>\n</environment_details>"}));
    let panel_of = panel.as_array_mut().unwrap();
    panel_of.push(
        serde_json::json!({"ts": at + 10, "type": "say", "say": "api_req_started",
        "text": "{\"tokensIn\":500,\"tokensOut\":77,\"cacheReads\":100,\"cost\":0.002}"}),
    );
    panel_of.push(
        serde_json::json!({"ts": at + 20, "type": "say", "say": "text",
        "text": "rewrittenword is fixed"}),
    );
    // The panel's file saved first, the history (which names the request's model) after:
    // the pass between them reads the task again when the history alone changes.
    std::fs::write(task.join("ui_messages.json"), panel.to_string()).unwrap();
    pass();
    std::fs::write(
        task.join("api_conversation_history.json"),
        history.to_string(),
    )
    .unwrap();
    pass();
    assert_eq!(
        pass()["pass"]["messages"],
        0,
        "a pass with nothing changed reads nothing"
    );
    assert_eq!(messages(), before_messages + 1);
    let after = by_model();
    assert_eq!(
        output_of(&after, "gpt-5"),
        output_of(&before, "gpt-5") + 77,
        "{after}"
    );
    let found = run(
        &dir,
        &["--json", "search", "rewrittenword", "--index", &index_flag],
    );
    assert_eq!(found["hits"].as_array().unwrap().len(), 1, "{found}");
}

/// A history whose start was cut off (trimmed by hand: no run's heading before its first
/// prompt) is read and shown whole, its last reply on the one branch. Once, the reader
/// recursed until the stack ran out and `show` found nothing to render.
#[test]
fn an_aider_history_cut_before_its_first_heading_is_mirrored_and_shown() {
    let (tmp, dir) = fresh();
    let repo = tmp.path().join("trimmed");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::write(
        repo.join(".aider.chat.history.md"),
        "#### where is trimmedword handled  \n\nIn `app.py`.\n",
    )
    .unwrap();
    let index = tmp.path().join("index.sqlite");
    let index_flag = index.to_str().unwrap().to_owned();
    assert_eq!(
        mirror_pass(&dir, "--aider-dir", &repo, &index_flag)["pass"]["messages"],
        2
    );
    found_once_and_usage(&dir, "trimmedword", &index_flag);
    let shown = run(
        &dir,
        &["--json", "transcripts", "show", "1", "--index", &index_flag],
    );
    let messages = shown["transcript"]["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{shown}");
    assert_eq!(messages[1]["blocks"][0]["text"], "In `app.py`.");
    assert_eq!(shown["active_branch"].as_array().unwrap().len(), 2);
}

/// A repository is looked at for its Aider history at its root only (a copy inside its
/// dependencies is not its history), where a folder of repositories is walked; the repository
/// a command runs in is read without being named.
#[test]
fn an_aider_history_is_read_at_a_repositorys_root_only() {
    let (tmp, dir) = fresh();
    let code = tmp.path().join("code");
    let truth = aider::tree(&code, 4, 37);
    let repo = code.join("billing");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let nested = repo.join("node_modules/pkg/.aider.chat.history.md");
    std::fs::create_dir_all(nested.parent().unwrap()).unwrap();
    std::fs::copy(code.join("upload-client/.aider.chat.history.md"), &nested).unwrap();
    let sessions = |args: &[&str], cwd: &Path| -> usize {
        let output = baton(&dir)
            .current_dir(cwd)
            .args(["--json", "usage", "session"])
            .args(args)
            .env("HOME", tmp.path())
            .output()
            .unwrap();
        assert_success(&output, format_args!("usage {args:?}"));
        json_of(&output)["rows"].as_array().unwrap().len()
    };
    let in_billing = truth.conversations.len() / 2;
    let repo_flag = repo.to_str().unwrap();
    assert_eq!(
        sessions(&["--aider-dir", repo_flag], tmp.path()),
        in_billing
    );
    assert_eq!(sessions(&[], &repo.join("node_modules")), in_billing);
    // A folder that is no repository is walked: both repositories, and the nested copy.
    let code_flag = code.to_str().unwrap();
    assert!(sessions(&["--aider-dir", code_flag], tmp.path()) > truth.conversations.len() - 1);
}

/// The fixtures (`tests/fixtures/gemini`, `qwen`, … `cursor`, `cursor-transcripts`) through the ABI: the golden vector
/// `analyzer-agents` (answered alike natively and in wasm, `wasm.rs` holds that) counts the
/// tokens the generator's truth says, and lists every session once.
#[test]
fn the_abi_counts_the_fixtures_as_their_truth_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("vectors/agents-truth.json")).unwrap(),
    )
    .unwrap();
    let answers =
        std::fs::read_to_string(root.join("vectors/analyzer-agents.answers.ndjson")).unwrap();
    let requests =
        std::fs::read_to_string(root.join("vectors/analyzer-agents.requests.ndjson")).unwrap();
    let asked: Vec<Value> = requests
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answered: Vec<Value> = answers
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answer_to = |op: &str, group: Option<&str>| -> &Value {
        let at = asked
            .iter()
            .position(|r| r["op"] == op && group.is_none_or(|g| r["group_by"] == g))
            .unwrap();
        &answered[at]["ok"]
    };
    // Every agent the generator wrote (the truth's keys), so one added later is counted here.
    let agents = truth.as_object().unwrap();
    let sum = |field: &str| -> u64 {
        agents
            .values()
            .flat_map(|agent| agent["by_day_model"].as_array().unwrap())
            .map(|row| row[field].as_u64().unwrap())
            .sum()
    };
    let daily = answer_to("analyzer_usage", Some("daily"));
    for field in [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_creation_tokens",
        "reasoning_tokens",
    ] {
        assert_eq!(
            daily["totals"][field].as_u64().unwrap(),
            sum(field),
            "{field}"
        );
    }
    // Each chat once: a Cursor transcript copying a chat of the store gives way to it (its
    // chats are Cursor's).
    let sessions = agents
        .iter()
        .flat_map(|(key, agent)| {
            let owner = if key == "cursor_transcripts" {
                "cursor"
            } else {
                key
            };
            agent["conversations"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |c| (owner, c["id"].as_str().unwrap()))
        })
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let listed = answer_to("analyzer_list", None);
    assert_eq!(
        listed["total"].as_u64().unwrap() as usize,
        sessions,
        "{listed}"
    );
}

/// A whole document read once for both (the mirror's and the ingest's way) gives what its two
/// readers give apart: the same conversations, usage rows and counts, on every such fixture
/// (Amp's threads, Copilot Chat's sessions, the Cline family's tasks with their companions,
/// Cursor's agent transcripts).
#[test]
fn a_document_read_once_gives_what_its_two_readers_give() {
    use baton_core::transcripts::lines::{DOCUMENT_BYTES, LineSplitter};
    use baton_core::transcripts::readers::readers;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut checked = 0;
    for (folder, provider) in [
        ("amp", Provider::Amp),
        ("copilot-chat", Provider::CopilotChat),
        ("cline", Provider::Cline),
        ("roo-code", Provider::RooCode),
        ("kilo-code", Provider::KiloCode),
        ("cursor-transcripts", Provider::CursorTranscripts),
    ] {
        let entry = provider.entry();
        let mut files = Vec::new();
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            for item in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = item.path();
                if path.is_dir() {
                    stack.push(path);
                } else if entry.wants_file(&path.to_string_lossy())
                    && !baton_core::transcripts::providers::is_companion(&path.to_string_lossy())
                {
                    files.push(path);
                }
            }
        }
        for path in files {
            let name = path.to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).unwrap();
            if bytes.is_empty() {
                continue; // a chat just opened: nothing to read either way
            }
            let companions: Vec<(String, Vec<u8>)> = entry
                .names
                .companions
                .iter()
                .filter_map(|c| {
                    let beside = path.with_file_name(c);
                    Some((
                        beside.to_string_lossy().into_owned(),
                        std::fs::read(beside).ok()?,
                    ))
                })
                .collect();
            let read = readers(provider).unwrap();
            let mut conversations = (read.conversations)(&name, None);
            let mut usage = (read.usage)(&name, None);
            let mut both = (read.both.unwrap())(&name);
            let mut lines = LineSplitter::with_limit(DOCUMENT_BYTES);
            let mut feed = |line: &[u8]| {
                conversations.push_line(line);
                usage.push_line(line);
                both.push_line(line);
            };
            lines.push(&bytes, &mut feed);
            lines.finish(&mut feed);
            for (beside, data) in &companions {
                conversations.companion(beside, data);
                usage.companion(beside, data);
                both.companion(beside, data);
            }
            usage.end();
            both.end();
            let apart = conversations.finish();
            let once = both.take_parsed().unwrap();
            assert!(!once.conversations.is_empty(), "{name}");
            assert_eq!(
                format!("{:?}", once.conversations),
                format!("{:?}", apart.conversations),
                "{name}"
            );
            assert_eq!(
                format!("{:?}", once.stats),
                format!("{:?}", apart.stats),
                "{name}"
            );
            assert_eq!(
                format!("{:?}", both.take_rows()),
                format!("{:?}", usage.take_rows()),
                "{name}"
            );
            assert_eq!(
                format!("{:?}", both.stats()),
                format!("{:?}", usage.stats()),
                "{name}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} documents");
}
