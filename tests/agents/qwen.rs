//! Qwen Code sessions as 0.24.4 writes them (`packages/core/src/services/chatRecordingService.ts`,
//! `telemetry/loggers.ts`, `agents/agent-transcript.ts`, read in the `@qwen-code/qwen-code`
//! 0.24.4 package, commit 9674d6efdc): `projects/<project>/chats/<session>.jsonl`, records joined
//! by `uuid`/`parentUuid`, each response's counts written twice (a `ui_telemetry` record, then
//! the response's `usageMetadata`), a compression call only in the telemetry, a sub-agent whose
//! rounds are in its own file and in the parent's telemetry, an OpenAI-style login (reasoning
//! inside the output) and a Gemini one (beside it), a title set by the CLI, a rewind that
//! leaves a branch behind, a `/branch` fork copying records (`forkedFrom`), an archived session,
//! the sidecars `<session>.ledger.jsonl` and `.runtime.json`, and the monthly usage file that
//! repeats the telemetry.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, iso, title_of, write_lines};
use serde_json::{Value, json};
use std::path::Path;

/// The models: one the price table knows, and the Qwen login's alias it does not.
pub const MODELS: [&str; 2] = ["qwen3.7-max", "coder-model"];

/// A project path as Qwen Code names its folder: every character but ASCII letters and digits
/// becomes `-`.
pub fn project_folder(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

struct Session {
    rng: Rng,
    id: String,
    cwd: String,
    model: &'static str,
    /// Whether the login reports reasoning beside the output (Gemini's) or inside it.
    gemini_login: bool,
    at: i64,
    parent: Option<String>,
    records: Vec<Value>,
    tool_calls: usize,
    /// The monthly usage file's rows this session adds.
    monthly: Vec<Value>,
}

impl Session {
    fn record(&mut self, kind: &str, fields: Value) -> String {
        self.at += 500 + self.rng.below(15_000) as i64;
        let uuid = self.rng.uuid();
        let mut record = json!({"uuid": uuid, "parentUuid": self.parent, "sessionId": self.id,
            "timestamp": iso(self.at), "type": kind, "cwd": self.cwd, "version": "0.24.4",
            "gitBranch": "main"});
        if let (Some(record), Some(fields)) = (record.as_object_mut(), fields.as_object()) {
            record.extend(fields.clone());
        }
        self.records.push(record);
        self.parent = Some(uuid.clone());
        uuid
    }

    fn user(&mut self, text: &str) -> String {
        self.record(
            "user",
            json!({"provenance": "real_user",
            "message": {"role": "user", "parts": [{"text": text}]},
            "systemPayload": {"displayText": text, "hookContext": ""}}),
        )
    }

    /// One call's counts: billed in the truth, as `usageMetadata`.
    fn counts(&mut self, truth: &mut Truth, model: &str) -> Value {
        let prompt = 10_000 + self.rng.below(40_000);
        let cached = self.rng.below(prompt);
        let thoughts = self.rng.below(200);
        let answer = 40 + self.rng.below(600);
        // On an OpenAI-style login the response's count holds the reasoning; on Gemini's
        // the reasoning is beside it and in the total.
        let (candidates, total) = if self.gemini_login {
            (answer, prompt + answer + thoughts)
        } else {
            (answer + thoughts, prompt + answer + thoughts)
        };
        truth.bill(
            self.at,
            model,
            Tokens {
                input: prompt - cached,
                output: answer + thoughts,
                cache_read: cached,
                reasoning: thoughts,
                ..Tokens::default()
            },
        );
        json!({"promptTokenCount": prompt, "candidatesTokenCount": candidates,
            "cachedContentTokenCount": cached, "thoughtsTokenCount": thoughts,
            "totalTokenCount": total})
    }

    /// The telemetry record of a call (written before the response's record).
    fn telemetry(&mut self, usage: &Value, model: &str, subagent: Option<&str>) {
        let auth = if self.gemini_login {
            "gemini"
        } else {
            "openai"
        };
        let mut event = json!({"event.name": "qwen-code.api_response",
            "event.timestamp": iso(self.at + 400), "model": model, "status_code": 200,
            "duration_ms": 1834, "input_token_count": usage["promptTokenCount"],
            "output_token_count": usage["candidatesTokenCount"],
            "cached_content_token_count": usage["cachedContentTokenCount"],
            "thoughts_token_count": usage["thoughtsTokenCount"],
            "total_token_count": usage["totalTokenCount"],
            "prompt_id": format!("{}########0", self.id), "auth_type": auth});
        if let Some(name) = subagent {
            event["subagent_name"] = json!(name);
        }
        self.monthly.push(json!({"schemaVersion": 1, "id": self.rng.uuid(),
            "timestamp": iso(self.at + 399), "sessionId": self.id, "model": model,
            "authType": auth, "source": subagent.unwrap_or("main"),
            "inputTokens": usage["promptTokenCount"], "outputTokens": usage["candidatesTokenCount"],
            "cachedTokens": usage["cachedContentTokenCount"], "thoughtsTokens": usage["thoughtsTokenCount"],
            "totalTokens": usage["totalTokenCount"]}));
        self.record(
            "system",
            json!({"provenance": "system", "subtype": "ui_telemetry",
            "systemPayload": {"uiEvent": event}}),
        );
    }

    /// A response that calls a tool, and the tool's result.
    fn tool_turn(&mut self, truth: &mut Truth, command: &str) {
        let model = self.model;
        let usage = self.counts(truth, model);
        self.telemetry(&usage, model, None);
        let call = format!("call_{}", self.rng.below(1 << 40));
        self.record("assistant", json!({"provenance": "assistant_output", "model": model,
            "message": {"role": "model", "parts": [
                {"text": "I should run it.", "thought": true},
                {"functionCall": {"id": call, "name": "run_shell_command", "args": {"command": command}}}]},
            "usageMetadata": usage, "contextWindowSize": 1_000_000}));
        self.tool_calls += 1;
        self.record(
            "tool_result",
            json!({"provenance": "tool_result",
            "message": {"role": "user", "parts": [{"functionResponse": {"id": call,
                "name": "run_shell_command", "response": {"output": format!("$ {command}\nok")}}}]},
            "toolCallResult": {"callId": call, "status": "success", "resultDisplay": "ok"}}),
        );
    }

    fn answer(&mut self, truth: &mut Truth, text: &str) {
        let model = self.model;
        let usage = self.counts(truth, model);
        self.telemetry(&usage, model, None);
        self.record(
            "assistant",
            json!({"provenance": "assistant_output", "model": model,
            "message": {"role": "model", "parts": [{"text": text}]}, "usageMetadata": usage}),
        );
    }
}

/// Writes `sessions` sessions (at least 3 for every trap) under `root`, Qwen Code's
/// `~/.qwen/projects`, with the monthly usage file beside it (`../usage/`), and answers their
/// truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    // Other numbers than the Gemini tree of the same seed.
    let mut rng = Rng::new(seed ^ 0x7177_656e);
    let mut monthly = Vec::new();
    for n in 0..sessions {
        let cwd = ["/home/dev/my_app", "/home/dev/billing-service"][n % 2].to_owned();
        let folder = root.join(project_folder(&cwd));
        let mut session = Session {
            rng: Rng::new(rng.draw()),
            id: rng.uuid(),
            cwd: cwd.clone(),
            model: MODELS[n % MODELS.len()],
            gemini_login: n % 3 == 1,
            at: START_MILLIS + n as i64 * 7 * 3_600_000,
            parent: None,
            records: Vec::new(),
            tool_calls: 0,
            monthly: Vec::new(),
        };
        let first = if n == 0 {
            format!("list the files and grep for {PLANTED}")
        } else {
            format!("session {n}: explain the billing module")
        };
        session.user(&first);
        session.tool_turn(&mut truth, "ls");
        session.answer(&mut truth, "Here they are.");
        let mut title = title_of(&first);
        match n % 3 {
            0 => {
                // A compression call: only in the telemetry.
                let model = session.model;
                let usage = session.counts(&mut truth, model);
                session.telemetry(&usage, model, None);
                // A sub-agent: its round in its own file and in the parent's telemetry.
                let agent = format!("explore-{:04x}", session.rng.below(1 << 16));
                let round = session.counts(&mut truth, model);
                session.telemetry(&round, model, Some("Explore"));
                let mut sub = Session {
                    rng: Rng::new(session.rng.draw()),
                    id: session.id.clone(),
                    cwd: cwd.clone(),
                    model,
                    gemini_login: false,
                    at: session.at,
                    parent: None,
                    records: Vec::new(),
                    tool_calls: 0,
                    monthly: Vec::new(),
                };
                let side = json!({"agentId": agent, "agentName": "Explore", "isSidechain": true});
                let merge = |mut v: Value| {
                    if let (Some(o), Some(s)) = (v.as_object_mut(), side.as_object()) {
                        o.extend(s.clone());
                    }
                    v
                };
                sub.record("user", merge(json!({"message": {"role": "user", "parts": [{"text": "Find the tests."}]}})));
                let call = "call_sub_1";
                sub.record("assistant", merge(json!({"message": {"role": "model", "parts": [
                    {"functionCall": {"id": call, "name": "glob", "args": {"pattern": "tests/**"}}}]}})));
                sub.record("tool_result", merge(json!({"message": {"role": "user", "parts": [
                    {"functionResponse": {"id": call, "name": "glob", "response": {"output": "tests/a.rs"}}}]},
                    "toolCallResult": {"callId": call, "status": "success"}})));
                sub.record(
                    "assistant",
                    merge(
                        json!({"message": {"role": "model", "parts": [{"text": "Found it."}]},
                    "usageMetadata": round, "agentRunId": "run-1", "agentRound": 2}),
                    ),
                );
                session.tool_calls += 1;
                let file = folder
                    .join("subagents")
                    .join(&session.id)
                    .join(format!("agent-{agent}.jsonl"));
                truth.bytes += write_lines(&file, &sub.records);
                title = "Tidy the file listing".to_owned();
                session.record(
                    "system",
                    json!({"subtype": "custom_title",
                    "systemPayload": {"customTitle": title, "titleSource": "auto"}}),
                );
            }
            1 => {
                // A rewind: the next prompt hangs off the first, leaving the answer behind on a
                // branch of its own (billed all the same).
                let root_prompt = session.records[0]["uuid"].as_str().map(str::to_owned);
                session.parent = root_prompt;
                session.user("no, start again");
                session.answer(&mut truth, "Starting again.");
            }
            _ => {}
        }
        let chats = folder.join("chats");
        let name = format!("{}.jsonl", session.id);
        // One session archived by the CLI.
        let file = if n == 2 {
            chats.join("archive").join(&name)
        } else {
            chats.join(&name)
        };
        truth.bytes += write_lines(&file, &session.records);
        // The sidecars: not transcripts.
        write_lines(
            &chats.join(format!("{}.ledger.jsonl", session.id)),
            &[
                json!({"uuid": "x", "sessionId": session.id, "usageMetadata": {"promptTokenCount": 999_999}}),
            ],
        );
        write_lines(
            &chats.join(format!("{}.runtime.json", session.id)),
            &[json!({"workDir": cwd})],
        );
        monthly.extend(session.monthly.iter().cloned());
        truth.conversations.insert(
            session.id.clone(),
            Listed {
                id: session.id.clone(),
                title,
                tool_calls: session.tool_calls,
            },
        );
        // A `/branch` fork of the first session: its records copied with `forkedFrom` (billed
        // in the first session, not again), then a turn of its own.
        if n == 0 {
            let fork_id = rng.uuid();
            let mut copied = Vec::new();
            for record in session.records.iter().take(4) {
                let mut record = record.clone();
                record["sessionId"] = json!(fork_id);
                record["forkedFrom"] =
                    json!({"sessionId": session.id, "messageUuid": record["uuid"]});
                copied.push(record);
            }
            let mut fork = Session {
                rng: Rng::new(rng.draw()),
                id: fork_id.clone(),
                cwd: cwd.clone(),
                model: session.model,
                gemini_login: false,
                at: session.at + 60_000,
                parent: copied
                    .last()
                    .and_then(|r| r["uuid"].as_str())
                    .map(str::to_owned),
                records: copied,
                tool_calls: 1,
                monthly: Vec::new(),
            };
            fork.user("and on the fork, run the tests");
            fork.tool_turn(&mut truth, "cargo test");
            truth.bytes += write_lines(&chats.join(format!("{fork_id}.jsonl")), &fork.records);
            monthly.extend(fork.monthly.iter().cloned());
            truth.conversations.insert(
                fork_id.clone(),
                Listed {
                    id: fork_id,
                    title: title_of(&first),
                    tool_calls: fork.tool_calls,
                },
            );
        }
    }
    if let Some(base) = root.parent() {
        write_lines(
            &base.join("usage").join("token-usage-2026-08.jsonl"),
            &monthly,
        );
    }
    truth
}
