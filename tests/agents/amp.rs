//! Amp threads as the CLI and editor extension left them on disk (`threads/T-<id>.json`; Amp
//! is closed source: the shapes follow the thread files peers read and test, agentsview's
//! `internal/parser/amp.go` and its tests, and the thread document `amp threads export`
//! prints, as toolpath's notes record it): one JSON document per thread, pretty-printed or on
//! one line. The traps: each response's `usage` its own (never summed with `totalInputTokens`
//! or `maxInputTokens`), an OpenAI model's thread putting the uncached prompt in
//! `cacheCreationInputTokens` with `inputTokens` 0, an all-zero placeholder usage, a response
//! without a `timestamp` (its thread's `created` stands), an older thread's `usageLedger`
//! repeating the responses' usage, a thread without a title, tool results in `user` messages
//! (`toolUseID`, `run.result` an object or a string), an `info` summary.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, iso, title_of, write};
use serde_json::{Value, json};
use std::path::Path;

/// The models: Claude's, an OpenAI one (its prompt written as a cache write), and one the
/// price table does not know.
pub const MODELS: [&str; 3] = ["claude-sonnet-4-5", "gpt-5", "amp-frontier-1"];

struct Thread {
    rng: Rng,
    at: i64,
    messages: Vec<Value>,
    ledger: Vec<Value>,
    tool_calls: usize,
}

impl Thread {
    fn push(&mut self, role: &str, content: Value, extra: Value) {
        self.at += 500 + self.rng.below(10_000) as i64;
        let mut message = json!({"role": role, "messageId": self.messages.len(),
            "content": content});
        if let (Some(m), Some(extra)) = (message.as_object_mut(), extra.as_object()) {
            m.extend(extra.clone());
        }
        self.messages.push(message);
    }

    /// A response's usage: billed in the truth at `billed_at`, as Amp writes it.
    fn usage(&mut self, truth: &mut Truth, model: &str, timestamp: bool, created: i64) -> Value {
        let fresh = 3 + self.rng.below(2000);
        let read = self.rng.below(40_000);
        let write = self.rng.below(5000);
        let output = 30 + self.rng.below(800);
        let billed_at = if timestamp { self.at } else { created };
        let openai = model.starts_with("gpt-");
        let (input, write_field) = if openai { (0, fresh) } else { (fresh, write) };
        let cache_write = if openai { 0 } else { write };
        truth.bill(
            billed_at,
            model,
            Tokens {
                input: fresh,
                output,
                cache_read: read,
                cache_write,
                reasoning: 0,
            },
        );
        self.ledger
            .push(json!({"id": self.rng.uuid(), "timestamp": iso(billed_at),
            "model": model, "credits": 1.5, "tokens": {"input": fresh, "output": output},
            "operationType": "inference", "fromMessageId": self.messages.len() - 1,
            "toMessageId": self.messages.len()}));
        let mut usage = json!({"model": model, "inputTokens": input, "outputTokens": output,
            "cacheCreationInputTokens": write_field, "cacheReadInputTokens": read,
            "totalInputTokens": input + write_field + read, "maxInputTokens": 968_000});
        if timestamp {
            usage["timestamp"] = json!(iso(self.at));
        }
        usage
    }
}

/// Writes `sessions` threads (at least 3 for every trap) under `root`, Amp's
/// `~/.local/share/amp/threads`, and answers their truth.
pub fn tree(root: &Path, sessions: usize, seed: u64) -> Truth {
    let mut truth = Truth::default();
    let mut rng = Rng::new(seed ^ 0x0061_6d70);
    for n in 0..sessions {
        let id = format!("T-{}", rng.uuid());
        let created = START_MILLIS + n as i64 * 6 * 3_600_000;
        let model = MODELS[n % MODELS.len()];
        let mut thread = Thread {
            rng: Rng::new(rng.draw()),
            at: created,
            messages: Vec::new(),
            ledger: Vec::new(),
            tool_calls: 0,
        };
        let first = if n == 0 {
            format!("why does {PLANTED} fail to build")
        } else {
            format!("thread {n}: add retries to the upload client")
        };
        let sent = thread.at + 400;
        thread.push(
            "user",
            json!([{"type": "text", "text": first}]),
            json!({"meta": {"sentAt": sent}}),
        );
        let call = format!("toolu_{:010x}", thread.rng.below(1 << 40));
        thread.at += 2000;
        let usage = thread.usage(&mut truth, model, true, created);
        thread.push(
            "assistant",
            json!([{"type": "thinking", "thinking": "Look first."},
            {"type": "tool_use", "id": call, "name": "Bash", "input": {"cmd": "cargo build"},
             "complete": true}]),
            json!({"usage": usage, "state": {"type": "complete", "stopReason": "tool_use"}}),
        );
        thread.tool_calls += 1;
        let result = if n % 2 == 0 {
            json!({"output": "error: linker failed", "exitCode": 1})
        } else {
            json!("built")
        };
        thread.push(
            "user",
            json!([{"type": "tool_result", "toolUseID": call,
            "run": {"status": "done", "result": result}}]),
            json!({}),
        );
        thread.at += 2000;
        // The last response of every third thread has no timestamp: its thread's time stands.
        let usage = thread.usage(&mut truth, model, n % 3 != 2, created);
        thread.push(
            "assistant",
            json!([{"type": "text", "text": "Added retries with backoff."}]),
            json!({"usage": usage, "state": {"type": "complete", "stopReason": "end_turn"}}),
        );
        // A placeholder that counts nothing, on a response still empty.
        thread.push(
            "assistant",
            json!([]),
            json!({"usage": {"model": model, "inputTokens": 0,
            "outputTokens": 0, "cacheCreationInputTokens": 0, "cacheReadInputTokens": 0}}),
        );
        if n % 3 == 1 {
            thread.push(
                "info",
                json!([{"type": "summary", "summary": {"type": "message",
                "summary": "The thread was summarised."}}]),
                json!({}),
            );
        }
        let titled = n % 3 != 1;
        let title = format!("Retries for the upload client {n}");
        let mut document = json!({"v": 20 + n, "id": id, "created": created,
            "messages": thread.messages, "agentMode": "smart",
            "nextMessageId": thread.messages.len(),
            "env": {"initial": {"trees": [{"displayName": "upload", "uri": "file:///home/dev/upload",
                "repository": {"url": "https://github.com/acme/upload"}}],
                "platform": {"os": "linux", "client": "cli", "clientVersion": "0.0.1785170481"}}},
            "meta": {"traces": [{"name": "inference", "startTime": iso(created),
                "endTime": iso(thread.at)}]},
            "relationships": []});
        if titled {
            document["title"] = json!(title);
        }
        if n % 2 == 1 {
            // An older thread: its ledger repeats the responses' usage.
            document["usageLedger"] = json!({"events": thread.ledger});
        }
        let text = if n % 2 == 0 {
            serde_json::to_string_pretty(&document).unwrap_or_default()
        } else {
            document.to_string()
        };
        truth.bytes += write(&root.join(format!("{id}.json")), text.as_bytes());
        truth.conversations.insert(
            id.clone(),
            Listed {
                id: id.clone(),
                title: if titled { title } else { title_of(&first) },
                tool_calls: thread.tool_calls,
            },
        );
    }
    truth
}
