//! GitHub Copilot CLI sessions as 1.0.102 writes them (the event schema shipped in the
//! `@github/copilot` package, `schemas/session-events.schema.json`, the same as
//! `github/copilot-sdk` `nodejs/src/generated/session-events.ts` at cc0438d):
//! `session-state/<session>/events.jsonl` beside its `workspace.yaml` and the run's
//! `inuse.<pid>.lock`, and one early session in the flat `session-state/<session>.jsonl`.
//! The traps: each run's `session.shutdown` holds that run's tokens alone (a resumed session
//! has two, summed), input counting the cache reads and writes, reasoning inside the output,
//! Claude's versions with dots and a `-1m` variant, a run killed before its shutdown (its
//! tokens never written, its last line cut), a shutdown with empty metrics, credits
//! (`totalNanoAiu`, cumulative, not dollars), a sub-agent's events in the parent's file
//! (`agentId`), a skill's injected prompt, arguments as a JSON string (older) or an object,
//! results as a string or an object, the system prompt and `transformedContent`.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, iso, title_of, write, write_lines};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

/// The models: Claude's dotted ids (one with the long-context mark), a GPT one, and GitHub's
/// own that the price table does not know.
pub const MODELS: [&str; 4] = [
    "claude-sonnet-4.6",
    "gpt-5.4",
    "claude-opus-4.7-1m",
    "mai-code-1.1-flash",
];

struct Session {
    rng: Rng,
    id: String,
    at: i64,
    parent: Option<String>,
    events: Vec<Value>,
    tool_calls: usize,
    /// This run's tokens by model, written at its shutdown.
    run: BTreeMap<String, (u64, u64, u64, u64, u64)>,
    nano_aiu: u64,
}

impl Session {
    fn event(&mut self, kind: &str, data: Value, agent: Option<&str>) -> String {
        self.at += 300 + self.rng.below(12_000) as i64;
        let id = self.rng.uuid();
        let mut event = json!({"type": kind, "data": data, "id": id,
            "timestamp": iso(self.at), "parentId": self.parent});
        if let Some(agent) = agent {
            event["agentId"] = json!(agent);
        }
        self.events.push(event);
        self.parent = Some(id.clone());
        id
    }

    fn start(&mut self, cwd: &str, model: &str, resume: bool) {
        let context = json!({"cwd": cwd, "gitRoot": cwd, "branch": "main",
            "repository": "acme/app", "hostType": "github"});
        if resume {
            let count = self.events.len();
            self.event(
                "session.resume",
                json!({"resumeTime": iso(self.at), "eventCount": count,
                    "context": context, "selectedModel": model}),
                None,
            );
        } else {
            let id = self.id.clone();
            self.event(
                "session.start",
                json!({"sessionId": id, "version": 1, "producer": "copilot-agent",
                    "copilotVersion": "1.0.102", "startTime": iso(self.at),
                    "context": context, "selectedModel": model, "alreadyInUse": false}),
                None,
            );
        }
        self.event(
            "system.message",
            json!({"content": "You are the GitHub Copilot CLI. ".repeat(40)}),
            None,
        );
    }

    /// One model call: its tokens added to the run's metrics (never written per call).
    fn call(&mut self, model: &str) -> u64 {
        let fresh = 5 + self.rng.below(3000);
        let read = self.rng.below(60_000);
        let write = self.rng.below(8_000);
        let reasoning = self.rng.below(300);
        let output = 40 + self.rng.below(900) + reasoning;
        let run = self.run.entry(model.to_owned()).or_default();
        run.0 += fresh + read + write;
        run.1 += output;
        run.2 += read;
        run.3 += write;
        run.4 += reasoning;
        self.nano_aiu += 1_000_000 + self.rng.below(50_000_000);
        output
    }

    fn prompt(&mut self, text: &str) {
        let uid0 = self.rng.uuid();
        self.event(
            "user.message",
            json!({"content": text, "transformedContent":
                format!("<current_datetime>{}</current_datetime>\n\n{text}", iso(self.at)),
                "attachments": [], "interactionId": uid0}),
            None,
        );
    }

    /// A response that calls a tool, and the tool's result (`old`: the early shapes).
    fn tool_turn(&mut self, model: &str, command: &str, agent: Option<&str>, old: bool) {
        let output = self.call(model);
        let call = format!("toolu_{:012x}", self.rng.below(1 << 48));
        let arguments = json!({"command": command, "description": "look"});
        let arguments = if old {
            json!(arguments.to_string())
        } else {
            arguments
        };
        let uid0 = self.rng.uuid();
        self.event(
            "assistant.reasoning",
            json!({"reasoningId": uid0,
            "content": "I should look first."}),
            agent,
        );
        let uid0 = self.rng.uuid();
        self.event(
            "assistant.message",
            json!({"messageId": uid0, "content": "", "model": model,
                "outputTokens": output, "toolRequests": [{"toolCallId": call, "name": "bash",
                "arguments": arguments, "type": "function"}]}),
            agent,
        );
        self.tool_calls += 1;
        self.event(
            "tool.execution_start",
            json!({"toolCallId": call, "toolName": "bash",
            "arguments": {"command": command}}),
            agent,
        );
        let result = if old {
            json!(format!("$ {command}\nok"))
        } else {
            json!({"content": format!("$ {command}\nok"), "detailedContent": "ok"})
        };
        self.event(
            "tool.execution_complete",
            json!({"toolCallId": call, "success": true, "result": result, "model": model}),
            agent,
        );
    }

    fn answer(&mut self, model: &str, text: &str) {
        let output = self.call(model);
        let uid0 = self.rng.uuid();
        self.event(
            "assistant.message",
            json!({"messageId": uid0, "content": text, "model": model,
                "outputTokens": output}),
            None,
        );
    }

    /// A sub-agent started by a `task` call, its events in this file.
    fn sub_agent(&mut self, model: &str) {
        let output = self.call(model);
        let call = format!("toolu_{:012x}", self.rng.below(1 << 48));
        let uid0 = self.rng.uuid();
        self.event(
            "assistant.message",
            json!({"messageId": uid0, "content": "", "model": model,
                "outputTokens": output, "toolRequests": [{"toolCallId": call, "name": "task",
                "arguments": {"prompt": "explore the billing module", "agent_type": "explore"}}]}),
            None,
        );
        self.tool_calls += 1;
        let agent = format!("agent-{}", self.rng.below(1 << 20));
        self.event(
            "subagent.started",
            json!({"toolCallId": call, "agentName": "explore",
                "agentDisplayName": "Explore", "agentDescription": "reads code"}),
            Some(&agent),
        );
        self.event(
            "user.message",
            json!({"content": "explore the billing module"}),
            Some(&agent),
        );
        self.tool_turn(model, "ls billing", Some(&agent), false);
        self.event(
            "tool.execution_complete",
            json!({"toolCallId": call, "success": true,
                "result": {"content": "billing has three modules"}}),
            None,
        );
        self.event(
            "subagent.completed",
            json!({"toolCallId": call, "agentName": "explore", "durationMs": 4000,
                "totalTokens": 9000, "totalToolCalls": 1}),
            Some(&agent),
        );
    }

    /// The run's end: its metrics billed in the truth at the shutdown's time.
    fn shutdown(&mut self, truth: &mut Truth, model: &str, empty: bool) {
        let run = std::mem::take(&mut self.run);
        let at = self.at + 2000;
        let mut metrics = serde_json::Map::new();
        if !empty {
            for (name, (input, output, read, write, reasoning)) in &run {
                truth.bill(
                    at,
                    name,
                    Tokens {
                        input: input - read - write,
                        output: *output,
                        cache_read: *read,
                        cache_write: *write,
                        reasoning: *reasoning,
                    },
                );
                metrics.insert(
                    name.clone(),
                    json!({"requests": {"count": 3, "cost": 1},
                    "usage": {"inputTokens": input, "outputTokens": output,
                    "cacheReadTokens": read, "cacheWriteTokens": write,
                    "reasoningTokens": reasoning}}),
                );
            }
        }
        let nano = self.nano_aiu;
        self.event(
            "session.usage_checkpoint",
            json!({"totalNanoAiu": nano}),
            None,
        );
        self.at = at - 300;
        self.event(
            "session.shutdown",
            json!({"shutdownType": "routine", "sessionStartTime": START_MILLIS,
                "totalApiDurationMs": 81_000, "modelMetrics": metrics, "totalNanoAiu": nano,
                "totalPremiumRequests": 3, "currentModel": model,
                "codeChanges": {"linesAdded": 3, "linesRemoved": 1, "filesModified": []}}),
            None,
        );
    }
}

/// Writes `sessions` sessions (at least 4 for every trap) under `root`, Copilot CLI's
/// `~/.copilot/session-state`, and answers their truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x636f_7069);
    for n in 0..sessions {
        let cwd = ["/home/dev/my_app", "/home/dev/billing-service"][n % 2];
        let model = MODELS[n % MODELS.len()];
        let mut session = Session {
            rng: Rng::new(rng.draw()),
            id: rng.uuid(),
            at: START_MILLIS + n as i64 * 5 * 3_600_000,
            parent: None,
            events: Vec::new(),
            tool_calls: 0,
            run: BTreeMap::new(),
            nano_aiu: 0,
        };
        session.start(cwd, model, false);
        let first = if n == 0 {
            format!("find where {PLANTED} is configured")
        } else {
            format!("session {n}: fix the flaky login test")
        };
        session.prompt(&first);
        if n % 4 == 1 {
            // A skill's injected text, as a prompt no person typed.
            session.event(
                "user.message",
                json!({"content": "<skill-context>pdf</skill-context>",
                "source": "skill-pdf"}),
                None,
            );
        }
        session.tool_turn(model, "cargo test", None, n % 5 == 2);
        if n % 3 == 0 {
            session.sub_agent(model);
        }
        session.answer(model, "Fixed: the test waited on a clock.");
        let killed = n % 4 == 3;
        if killed {
            // Killed before its shutdown: this run's tokens were never written, and the line
            // being written is cut.
            let mut lines = session.events.clone();
            lines.push(json!({"type": "assistant.turn_end"}));
            let mut text = String::new();
            for line in &lines {
                text.push_str(&line.to_string());
                text.push('\n');
            }
            text.truncate(text.len() - 12);
            let file = root.join(&session.id).join("events.jsonl");
            truth.bytes += write(&file, text.as_bytes());
        } else {
            session.shutdown(&mut truth, model, n % 4 == 1);
            if n % 2 == 0 {
                // Resumed later on another model: a second run, a second shutdown.
                session.at += 3_600_000;
                let other = MODELS[(n + 1) % MODELS.len()];
                session.start(cwd, other, true);
                session.event(
                    "session.model_change",
                    json!({"newModel": other,
                    "previousModel": model}),
                    None,
                );
                session.prompt("and the other flaky test");
                session.tool_turn(other, "cargo test login", None, false);
                session.answer(other, "Both pass now.");
                session.shutdown(&mut truth, other, false);
            }
            // The early flat layout for one session.
            let file = if n == 2 {
                root.join(format!("{}.jsonl", session.id))
            } else {
                root.join(&session.id).join("events.jsonl")
            };
            truth.bytes += write_lines(&file, &session.events);
        }
        let folder = root.join(&session.id);
        // The name the CLI gave the session, which its list shows (the flat layout's session
        // has none beside it: its title is its first prompt). One name is quoted, as YAML
        // writes a value holding `: `.
        let name = if n % 2 == 1 {
            format!("\"Login: the flaky test, part {}\"", n + 1)
        } else {
            format!("Flaky login test, part {}", n + 1)
        };
        let title = if n == 2 {
            title_of(&first)
        } else {
            name.trim_matches('"').to_owned()
        };
        let yaml = format!(
            "id: {}\ncwd: {cwd}\ngit_root: {cwd}\nrepository: acme/app\nhost_type: github\n\
             branch: main\nclient_name: github/cli\nname: {}\nuser_named: false\n\
             summary_count: 0\ncreated_at: {}\nupdated_at: {}\n",
            session.id,
            name,
            iso(START_MILLIS),
            iso(session.at)
        );
        truth.bytes += write(&folder.join("workspace.yaml"), yaml.as_bytes());
        if killed {
            write(&folder.join("inuse.4242.lock"), b"4242");
        }
        truth.conversations.insert(
            session.id.clone(),
            Listed {
                id: session.id.clone(),
                title,
                tool_calls: session.tool_calls,
            },
        );
    }
    truth
}

/// The lines of one more run appended to the session at `file` (a prompt planting `word`, a
/// response, the run's shutdown with `tokens` of `model`), for tests that follow a file.
pub fn appended_run(session: &str, word: &str, model: &str, tokens: Tokens, at: i64) -> Vec<Value> {
    let event = |kind: &str, n: i64, data: Value| {
        json!({"type": kind, "data": data, "id": format!("{session}-more-{n}"),
            "timestamp": iso(at + n * 1000), "parentId": null})
    };
    vec![
        event(
            "session.resume",
            0,
            json!({"resumeTime": iso(at), "eventCount": 9}),
        ),
        event("user.message", 1, json!({"content": format!("now {word}")})),
        event(
            "assistant.message",
            2,
            json!({"messageId": "m", "content": "Done.", "model": model}),
        ),
        event(
            "session.shutdown",
            3,
            json!({"modelMetrics": {model: {"usage": {
            "inputTokens": tokens.input + tokens.cache_read + tokens.cache_write,
            "outputTokens": tokens.output, "cacheReadTokens": tokens.cache_read,
            "cacheWriteTokens": tokens.cache_write, "reasoningTokens": tokens.reasoning}}}}),
        ),
    ]
}
