//! Gemini CLI sessions as v0.44 writes them (`packages/core/src/services/chatRecordingService.ts`
//! at google-gemini/gemini-cli 5411f113): `tmp/<project>/chats/session-<minute>-<id8>.jsonl`,
//! a metadata line, a `$set` checkpoint of the context turn, each message appended again whole
//! when it changes (its usage written late, its tool calls' results added), each tool result
//! again as a `user` record of its own, `$set lastUpdated` after each message, a `$rewindTo`,
//! a checkpoint repeating earlier messages, a summary written later, a synthetic turn with no
//! usage, a sub-agent's file under `chats/<session>/`, the same session in an old hash folder
//! (the CLI copies it there on migration), the CLI's own logs beside the chats, and a torn
//! last line.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, iso, write, write_lines};
use serde_json::{Value, json};
use std::path::Path;

/// The projects the sessions belong to (folder, path).
const PROJECTS: [(&str, &str); 3] = [
    ("my-app", "/home/dev/my-app"),
    ("billing-service", "/home/dev/billing-service"),
    ("docs", "/home/dev/docs"),
];

/// The models the sessions use: two the price table knows, one it does not.
pub const MODELS: [&str; 3] = [
    "gemini-2.5-pro",
    "gemini-3-flash-preview",
    "gemini-9-experimental",
];

/// The environment turn's fixed id (the first 32 hex of `sha256("environment-context")`).
const CONTEXT_ID: &str = "d04923d38bb0f6017037e74183378ef4";

struct Session {
    rng: Rng,
    model: &'static str,
    at: i64,
    lines: Vec<Value>,
    tool_calls: usize,
    /// Messages written so far (for the checkpoint that repeats them).
    written: Vec<Value>,
}

impl Session {
    fn new(seed: u64, model: &'static str, at: i64) -> Session {
        Session {
            rng: Rng::new(seed),
            model,
            at,
            lines: Vec::new(),
            tool_calls: 0,
            written: Vec::new(),
        }
    }

    fn tick(&mut self) -> String {
        self.at += 1000 + self.rng.below(20_000) as i64;
        iso(self.at)
    }

    fn set_updated(&mut self) {
        let now = iso(self.at + 1);
        self.lines.push(json!({"$set": {"lastUpdated": now}}));
    }

    fn user(&mut self, text: &str) -> String {
        let id = self.rng.uuid();
        let message = json!({"id": id, "timestamp": self.tick(), "type": "user", "content": [{"text": text}]});
        self.lines.push(message.clone());
        self.written.push(message);
        self.set_updated();
        id
    }

    /// A response's counts, billed in the truth.
    fn tokens(&mut self, truth: &mut Truth) -> Value {
        let input = 8_000 + self.rng.below(30_000);
        let cached = self.rng.below(input);
        let output = 50 + self.rng.below(800);
        let thoughts = self.rng.below(300);
        let tool = if self.rng.below(5) == 0 { 12 } else { 0 };
        truth.bill(
            self.at,
            self.model,
            Tokens {
                input: input - cached + tool,
                output: output + thoughts,
                cache_read: cached,
                reasoning: thoughts,
                ..Tokens::default()
            },
        );
        json!({"input": input, "output": output, "cached": cached, "thoughts": thoughts, "tool": tool,
            "total": input + output + thoughts + tool})
    }

    /// A response that calls a tool: written first without its usage, again with it, again
    /// with the call and its result; then the result as a `user` record of its own.
    fn tool_turn(&mut self, truth: &mut Truth, command: &str) {
        let id = self.rng.uuid();
        let at = self.tick();
        let thoughts = json!([{"subject": "Looking around", "description": format!("I will run {command}."), "timestamp": at}]);
        let mut message = json!({"id": id, "timestamp": at, "type": "gemini", "content": "",
            "thoughts": thoughts, "tokens": null, "model": self.model});
        self.lines.push(message.clone());
        message["tokens"] = self.tokens(truth);
        self.lines.push(message.clone());
        self.set_updated();
        let call_id = format!("run_shell_command__run_shell_command_{}_0", self.at);
        let response = json!({"id": call_id, "name": "run_shell_command",
            "response": {"output": format!("Command: {command}\nExit Code: 0\nok")}});
        message["toolCalls"] = json!([{"id": call_id, "name": "run_shell_command",
            "args": {"command": command}, "result": [{"functionResponse": response}],
            "status": "success", "timestamp": self.tick(), "displayName": "Shell",
            "description": command, "renderOutputAsMarkdown": false}]);
        self.lines.push(message.clone());
        self.written.push(message);
        self.tool_calls += 1;
        let result = json!({"id": self.rng.uuid(), "timestamp": self.tick(), "type": "user",
            "content": [{"functionResponse": response}]});
        self.lines.push(result);
        self.set_updated();
    }

    fn answer(&mut self, truth: &mut Truth, text: &str) {
        let id = self.rng.uuid();
        let at = self.tick();
        let tokens = self.tokens(truth);
        let message = json!({"id": id, "timestamp": at, "type": "gemini", "content": text,
            "thoughts": [], "tokens": tokens, "model": self.model});
        self.lines.push(message.clone());
        self.written.push(message);
        self.set_updated();
    }
}

/// A stand-in for a project path's SHA-256 (the old folder name): 64 hex digits.
fn hash_folder(path: &str) -> String {
    let mut rng = Rng::new(
        path.bytes()
            .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b))),
    );
    (0..4).map(|_| format!("{:016x}", rng.draw())).collect()
}

/// Writes `sessions` sessions (at least 3 for every trap) under `root`, Gemini CLI's
/// `~/.gemini/tmp`, and answers their truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed);
    for n in 0..sessions {
        let (folder, path) = PROJECTS[n % PROJECTS.len()];
        let id = rng.uuid();
        let start = START_MILLIS + n as i64 * 5 * 3_600_000;
        let mut session = Session::new(rng.draw(), MODELS[n % MODELS.len()], start);
        session
            .lines
            .push(json!({"sessionId": id, "projectHash": hash_folder(path),
            "startTime": iso(start), "lastUpdated": iso(start), "kind": "main"}));
        let context = json!({"id": CONTEXT_ID, "timestamp": iso(start + 5), "type": "user",
            "content": [{"text": format!("<session_context>\nThis is the Gemini CLI. Workspace Directories:\n  - {path}\n</session_context>")}]});
        session
            .lines
            .push(json!({"$set": {"messages": [context], "lastUpdated": iso(start + 5)}}));
        let first = if n == 0 {
            format!("why does the build fail with {PLANTED} in the log?")
        } else {
            format!("session {n}: tidy up the {folder} tests")
        };
        let mut prompts = vec![session.user(&first)];
        session.tool_turn(&mut truth, "npm run build");
        session.answer(&mut truth, "The build fails because tsconfig excludes src.");
        let turns = 1 + session.rng.below(3);
        for turn in 0..turns {
            prompts.push(session.user(&format!("now step {turn}")));
            session.tool_turn(&mut truth, &format!("npm test -- step{turn}"));
            session.answer(&mut truth, &format!("Step {turn} passes."));
        }
        let mut title = super::title_of(&first);
        match n % 3 {
            // A summary a later run of the CLI wrote: the session's title.
            0 => {
                title = format!("Fix the {folder} build");
                session
                    .lines
                    .push(json!({"$set": {"summary": title, "memoryScratchpad": {"version": 1}}}));
            }
            // The last prompt taken back (its response still billed), then the message list
            // written whole again: copies of messages already read.
            1 => {
                let last = prompts.last().cloned().unwrap_or_default();
                session.lines.push(json!({"$rewindTo": last}));
                let kept: Vec<Value> = session.written.iter().take(3).cloned().collect();
                session
                    .lines
                    .push(json!({"$set": {"messages": kept, "lastUpdated": iso(session.at + 9)}}));
            }
            // A turn the CLI made up (no usage) and a notice.
            _ => {
                let at = session.tick();
                session.lines.push(
                    json!({"id": session.rng.uuid(), "timestamp": at, "type": "gemini",
                    "content": [{"text": "Summary of the conversation so far."}], "tokens": null}),
                );
                let at = session.tick();
                session.lines.push(
                    json!({"id": session.rng.uuid(), "timestamp": at, "type": "info",
                    "content": "Chat compressed."}),
                );
            }
        }
        let minute = iso(start)[..16].replace(':', "-");
        let file = root
            .join(folder)
            .join("chats")
            .join(format!("session-{minute}-{}.jsonl", &id[..8]));
        truth.bytes += write_lines(&file, &session.lines);
        // The same session copied to the old hash folder by the CLI's migration: counted once.
        if n % 3 == 1 {
            let copy = root
                .join(hash_folder(path))
                .join("chats")
                .join(file.file_name().unwrap_or_default());
            truth.bytes += write_lines(&copy, &session.lines);
        }
        if n % 3 == 2 {
            // A line the CLI was writing when it stopped: read as nothing.
            let torn = b"{\"id\":\"torn\",\"timestamp\":\"2026-08-20T10:00:00.000Z\",\"type\":\"gemini\",\"tokens\":{\"input\":5";
            let mut bytes = std::fs::read(&file).unwrap_or_default();
            bytes.extend_from_slice(torn);
            write(&file, &bytes);
            truth.bytes += torn.len() as u64;
        }
        // A sub-agent's file: its spend and tool calls are the session's.
        if n % 3 == 0 {
            let agent = session.rng.uuid();
            let mut sub = Session::new(session.rng.draw(), session.model, session.at);
            sub.lines
                .push(json!({"sessionId": agent, "projectHash": hash_folder(path),
                "startTime": iso(sub.at), "lastUpdated": iso(sub.at), "kind": "subagent",
                "directories": [path]}));
            sub.user("Find every test that touches the network.");
            sub.tool_turn(&mut truth, "grep -r fetch tests");
            sub.answer(&mut truth, "Two tests do.");
            session.tool_calls += sub.tool_calls;
            let file = root
                .join(folder)
                .join("chats")
                .join(&id)
                .join(format!("{agent}.jsonl"));
            truth.bytes += write_lines(&file, &sub.lines);
        }
        // The CLI's own log of the session, beside the chats: not a transcript.
        let log = root
            .join(folder)
            .join("logs")
            .join(format!("session-{id}.jsonl"));
        write_lines(
            &log,
            &[json!({"sessionId": id, "messageId": 0, "type": "user",
            "message": "not a transcript", "timestamp": iso(start),
            "tokens": {"input": 999_999, "output": 999_999}})],
        );
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title,
                tool_calls: session.tool_calls,
            },
        );
    }
    truth
}
