//! The transcripts Cursor's agents leave for later chats to read
//! (`~/.cursor/projects/<workspace slug>/agent-transcripts/`). Cursor is not open source: the
//! layouts are the ones peers' readers describe (kenn-io/agentsview
//! `internal/parser/cursor.go` at `109ae211ef5c`, its flat `<chat>.txt` and its JSONL
//! `<chat>/<chat>.jsonl` with `subagents/`), read, not copied.
//!
//! The traps: no time, model or token anywhere (the truth has no tokens); a prompt wrapped in
//! `<user_query>` tags; a prompt written as a string rather than blocks; tool calls without
//! ids, their results naming none; a `turn_ended` line after each turn; a sub-agent's thread
//! in its own file under its parent's folder (its calls counted with the parent's); a flat
//! transcript's indented thinking, call and result bodies; an empty transcript (no chat); and
//! a transcript of a chat Cursor's store holds too (`copies`): a copy, which gives way to the
//! store's chat when both are read.

use super::{Listed, PLANTED, Rng, Truth, title_of, write, write_lines};
use serde_json::{Value, json};
use std::path::Path;

fn prompt_line(text: &str, as_string: bool) -> Value {
    let wrapped = format!("<user_query>\n{text}\n</user_query>");
    if as_string {
        json!({"role": "user", "message": {"content": wrapped}})
    } else {
        json!({"role": "user", "message": {"content": [{"type": "text", "text": wrapped}]}})
    }
}

fn reply_line(text: &str, tools: &[(&str, Value)]) -> Value {
    let mut content = vec![json!({"type": "text", "text": text})];
    for (name, input) in tools {
        content.push(json!({"type": "tool_use", "name": name, "input": input}));
    }
    json!({"role": "assistant", "message": {"content": content}})
}

fn result_line(output: &str) -> Value {
    json!({"role": "user", "message": {"content": [{"type": "tool_result", "content": output}]}})
}

fn turn_ended() -> Value {
    json!({"type": "turn_ended"})
}

/// A flat transcript: `user:`/`assistant:` blocks with indented bodies.
fn plain(prompt: &str) -> String {
    format!(
        "user:\n<user_query>\n{prompt}\n</user_query>\n\nassistant:\n\
         [Thinking] Look at the build log first.\n  It failed on a missing import.\n\
         Let me run the build.\n[Tool call] run_terminal_cmd\n  command: cargo build\n\
         \x20 is_background: false\n[Tool result] run_terminal_cmd\n\
         \x20 error[E0432]: unresolved import `crate::cfg`\n\x20   --> src/main.rs:1:5\n\n\
         assistant:\nThe import was renamed; user: code now builds.\n\
         [Tool call] read_file\n  {{\"target_file\": \"src/main.rs\"}}\n\
         [Tool result] read_file\n  fn main() {{}}\n\nassistant:\nDone: the build passes.\n"
    )
}

/// Writes `sessions` transcripts (at least 4 for every trap) under `root`, Cursor's
/// `~/.cursor/projects`, with a copy of each chat of `copies` (a store's chat ids and first
/// prompts); answers the truth of the transcripts read alone (the copies listed too).
pub fn tree(root: &Path, sessions: usize, seed: u64, copies: &[(String, String)]) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x6375_7273);
    for n in 0..sessions {
        let id = rng.uuid();
        let folder = root.join(format!("home-dev-app{}/agent-transcripts", n % 3));
        let prompt = if n == 1 {
            format!("Find where {PLANTED} is configured")
        } else {
            format!("Fix the failing build, part {n}\nwith details")
        };
        let tool_calls = match n % 3 {
            0 => {
                truth.bytes += write(&folder.join(format!("{id}.txt")), plain(&prompt).as_bytes());
                2
            }
            1 => {
                let lines = [
                    prompt_line(&prompt, false),
                    reply_line(
                        "Let me run the build.",
                        &[("Shell", json!({"command": "cargo build"}))],
                    ),
                    result_line("Finished `dev` profile"),
                    reply_line(
                        "I'll ask a helper to check the tests.",
                        &[(
                            "Task",
                            json!({"description": "check tests", "subagent_type": "generalPurpose"}),
                        )],
                    ),
                    reply_line("Done: the build passes.", &[]),
                    turn_ended(),
                ];
                truth.bytes += write_lines(&folder.join(format!("{id}/{id}.jsonl")), &lines);
                let child = rng.uuid();
                let sub = [
                    prompt_line("Run the tests and report failures", false),
                    reply_line(
                        "Running them.",
                        &[("Shell", json!({"command": "cargo test"}))],
                    ),
                    result_line("test result: ok. 12 passed"),
                    reply_line("All 12 tests pass.", &[]),
                    turn_ended(),
                ];
                let path = folder.join(format!("{id}/subagents/{child}.jsonl"));
                truth.bytes += write_lines(&path, &sub);
                3
            }
            _ => {
                let lines = [
                    prompt_line(&prompt, true),
                    reply_line(
                        "Reading the file.",
                        &[("Read", json!({"path": "src/lib.rs"}))],
                    ),
                    result_line("pub fn run() {}"),
                    reply_line("Done: nothing to change.", &[]),
                    turn_ended(),
                ];
                truth.bytes += write_lines(&folder.join(format!("{id}/{id}.jsonl")), &lines);
                1
            }
        };
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title: title_of(&prompt),
                tool_calls,
            },
        );
    }
    // An empty transcript: no chat.
    truth.bytes += write(
        &root.join(format!(
            "home-dev-app0/agent-transcripts/{}.txt",
            rng.uuid()
        )),
        b"",
    );
    for (id, prompt) in copies {
        let lines = [
            prompt_line(prompt, false),
            reply_line("Done: the build passes.", &[]),
            turn_ended(),
        ];
        let path = root.join(format!("home-dev-app1/agent-transcripts/{id}/{id}.jsonl"));
        truth.bytes += write_lines(&path, &lines);
        truth.conversations.insert(
            id.clone(),
            Listed {
                id: id.clone(),
                title: title_of(prompt),
                tool_calls: 0,
            },
        );
    }
    truth
}

/// The chats of a Cursor store's truth that get a copy among the transcripts: the first, by
/// id, with a prompt of its own.
pub fn copies_of(store: &Truth) -> Vec<(String, String)> {
    store
        .conversations
        .keys()
        .take(1)
        .map(|id| (id.clone(), format!("Copied chat {}", &id[..8])))
        .collect()
}
