//! GitHub Copilot Chat sessions as VS Code leaves them (`workspaceStorage/<workspace>/chatSessions/`),
//! from its source (microsoft/vscode `chatSessionStore.ts`, `objectMutationLog.ts`,
//! `chatSessionOperationLog.ts`, `chatModel.ts`; microsoft/vscode-copilot-chat
//! `conversation.ts` for the result's metadata). The traps: the operation log (a whole session,
//! then sets, appends that cut an array's tail first — a streaming response rewritten — and
//! removals; a set with no `v` removes), a request undone (cut from the log: its tokens were
//! billed all the same), tokens on the request (newer builds) or in its result's metadata
//! (older), a request with no tokens on disk and a cancelled one, `copilot/auto` resolved to a
//! model, a log compacted into one whole line, an older `.json` snapshot, and a session copied
//! to a second workspace when its window moved (one session).

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, title_of, write};
use serde_json::{Value, json};
use std::path::Path;

/// The models (VS Code's ids): two the price table knows and one it does not.
pub const MODELS: [&str; 3] = [
    "copilot/claude-sonnet-4.5",
    "copilot/gpt-4.1",
    "copilot/oswe-vscode-prime",
];

/// The model a request billed, as Baton names it (the vendor taken off).
fn billed_name(model: &str) -> &str {
    model.strip_prefix("copilot/").unwrap_or(model)
}

/// Writes `sessions` sessions (at least 5, one for every trap) under `root`, VS Code's
/// `workspaceStorage`, and answers their truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let sessions = sessions.max(5);
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x0000_6368_6174);
    for n in 0..sessions {
        let workspace = format!(
            "{:032x}",
            u128::from(rng.draw()) << 64 | u128::from(rng.draw())
        );
        let id = rng.uuid();
        let created = START_MILLIS + n as i64 * 5 * 3_600_000 + 120_000;
        let model = MODELS[n % MODELS.len()];
        let mut at = created;
        let mut log: Vec<Value> = vec![json!({"kind": 0, "v": {"version": 3, "sessionId": id,
            "creationDate": created, "customTitle": null, "initialLocation": "panel",
            "responderUsername": "GitHub Copilot", "requests": [], "hasPendingEdits": false,
            "inputState": {"mode": {"id": "agent", "kind": "agent"}, "selectedModel": {"identifier": model}}}})];
        let mut tool_calls = 0;
        let first = if n == 0 {
            format!("why does {PLANTED} fail in the release build")
        } else {
            format!("session {n}: add a retry to the upload client")
        };
        let mut requests = 0usize;
        for (turn, prompt) in [first.clone(), "now run the tests".to_owned()]
            .into_iter()
            .enumerate()
        {
            at += 2000 + rng.below(20_000) as i64;
            let request_id = format!("request_{}", rng.uuid());
            // `copilot/auto` picks a model, written in the result.
            let asked = if n % 4 == 2 && turn == 1 {
                "copilot/auto"
            } else {
                model
            };
            log.push(json!({"kind": 2, "k": ["requests"], "v": [{"requestId": request_id,
                "timestamp": at, "message": {"text": prompt, "parts": [{"kind": "text", "text": prompt}]},
                "agent": {"id": "github.copilot.editsAgent"}, "modelId": asked,
                "response": [], "modelState": {"value": 0}, "variableData": {"variables": []}}]}));
            let index = requests;
            requests += 1;
            // The response streams: its text grows, the tail rewritten in place.
            log.push(json!({"kind": 2, "k": ["requests", index, "response"],
                "v": [{"value": "Looking at the build", "supportThemeIcons": false}]}));
            log.push(json!({"kind": 2, "k": ["requests", index, "response"],
                "v": [{"value": "Looking at the build script first.", "supportThemeIcons": false},
                    {"kind": "thinking", "value": ["The linker ", "is missing."]},
                    {"kind": "toolInvocationSerialized", "toolId": "run_in_terminal",
                     "toolCallId": rng.uuid(), "isConfirmed": {"type": 1}, "isComplete": true,
                     "invocationMessage": {"value": "Running `cargo build`"},
                     "pastTenseMessage": {"value": "Ran `cargo build`"},
                     "toolSpecificData": {"kind": "terminal", "commandLine": {"original": "cargo build --release"}}},
                    {"kind": "toolInvocationSerialized", "toolId": "copilot_readFile",
                     "toolCallId": rng.uuid(), "isComplete": true,
                     "invocationMessage": {"value": "Reading build.rs"},
                     "pastTenseMessage": {"value": "Read build.rs"}},
                    {"value": " Installed the linker.", "supportThemeIcons": false}],
                "i": 0}));
            tool_calls += 2;
            at += 1000 + rng.below(30_000) as i64;
            let prompt_tokens = 2000 + rng.below(40_000);
            let output_tokens = 50 + rng.below(2000);
            let resolved = if asked == "copilot/auto" {
                MODELS[1]
            } else {
                asked
            };
            // A cancelled request (every fourth session's second) wrote no tokens.
            let cancelled = n % 4 == 3 && turn == 1;
            if cancelled {
                log.push(json!({"kind": 1, "k": ["requests", index, "modelState"],
                    "v": {"value": 2, "completedAt": at}}));
                continue;
            }
            let mut result = json!({"timings": {"firstProgress": 800, "totalElapsed": 9000},
                "details": "Claude Sonnet 4.5 • 1x",
                "metadata": {"modelMessageId": rng.uuid(), "responseId": rng.uuid(), "sessionId": id,
                    "agentId": "github.copilot.editsAgent"}});
            if asked == "copilot/auto" {
                result["metadata"]["resolvedModel"] = json!(resolved);
            }
            if n % 2 == 0 {
                // Older builds: the tokens in the result's metadata.
                result["metadata"]["promptTokens"] = json!(prompt_tokens);
                result["metadata"]["outputTokens"] = json!(output_tokens);
            } else {
                log.push(json!({"kind": 1, "k": ["requests", index, "promptTokens"], "v": prompt_tokens}));
                log.push(json!({"kind": 1, "k": ["requests", index, "completionTokens"], "v": output_tokens}));
                log.push(json!({"kind": 1, "k": ["requests", index, "copilotCredits"], "v": 1.25}));
            }
            log.push(json!({"kind": 1, "k": ["requests", index, "result"], "v": result}));
            log.push(json!({"kind": 1, "k": ["requests", index, "modelState"],
                "v": {"value": 1, "completedAt": at}}));
            // A vote set, then taken back (a set with no value).
            log.push(json!({"kind": 1, "k": ["requests", index, "vote"], "v": 1}));
            log.push(json!({"kind": 1, "k": ["requests", index, "vote"]}));
            truth.bill(
                at,
                billed_name(resolved),
                Tokens {
                    input: prompt_tokens,
                    output: output_tokens,
                    ..Tokens::default()
                },
            );
        }
        if n % 4 == 0 && n > 0 {
            // A third request, answered and billed, then undone: cut from the log (a log that
            // keeps every entry; a compaction or a snapshot no longer holds it).
            at += 5000;
            let request_id = format!("request_{}", rng.uuid());
            log.push(
                json!({"kind": 2, "k": ["requests"], "v": [{"requestId": request_id,
                "timestamp": at, "message": {"text": "try another way"}, "modelId": model,
                "response": [{"value": "Trying another way."}], "promptTokens": 900,
                "completionTokens": 40, "modelState": {"value": 1, "completedAt": at + 900}}]}),
            );
            truth.bill(
                at + 900,
                billed_name(model),
                Tokens {
                    input: 900,
                    output: 40,
                    ..Tokens::default()
                },
            );
            log.push(json!({"kind": 2, "k": ["requests"], "i": requests}));
        }
        let titled = n % 2 == 0;
        let title = format!("Release build fix {n}");
        if titled {
            log.push(json!({"kind": 1, "k": ["customTitle"], "v": title}));
        }
        let folder = root.join(&workspace);
        truth.bytes += write(
            &folder.join("workspace.json"),
            json!({"folder": format!("file:///home/dev/app-{n}")})
                .to_string()
                .as_bytes(),
        );
        let sessions_folder = folder.join("chatSessions");
        let text = match n % 4 {
            // An older VS Code: the session as one document.
            1 => {
                let state = replay_for_snapshot(&log);
                truth.bytes += write(
                    &sessions_folder.join(format!("{id}.json")),
                    serde_json::to_string_pretty(&state)
                        .unwrap_or_default()
                        .as_bytes(),
                );
                None
            }
            // A log compacted into one whole session.
            3 => Some(format!(
                "{}\n",
                json!({"kind": 0, "v": replay_for_snapshot(&log)})
            )),
            _ => Some(log.iter().map(|l| format!("{l}\n")).collect::<String>()),
        };
        if let Some(text) = text {
            truth.bytes += write(
                &sessions_folder.join(format!("{id}.jsonl")),
                text.as_bytes(),
            );
            if n == 2 {
                // The window moved to another folder: the session copied there too.
                let moved = root
                    .join(format!("{:032x}", rng.draw()))
                    .join("chatSessions");
                truth.bytes += write(&moved.join(format!("{id}.jsonl")), text.as_bytes());
            }
        }
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title: if titled { title } else { title_of(&first) },
                tool_calls,
            },
        );
    }
    truth
}

/// The session a log ends as (what an older VS Code wrote as `.json`, or a compaction's one
/// line): replayed by Baton's own core.
fn replay_for_snapshot(log: &[Value]) -> Value {
    let text: String = log.iter().map(|l| format!("{l}\n")).collect();
    let mut state = baton_core::transcripts::copilot_chat::replay(text.as_bytes());
    if let Some(map) = state.as_object_mut() {
        map.insert("requesterUsername".into(), json!("dev"));
        map.insert("lastMessageDate".into(), json!(0));
    }
    state
}
