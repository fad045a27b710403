//! Cline, Roo Code and Kilo Code tasks as the editor extensions leave them
//! (`globalStorage/<extension>/tasks/<task>/`), from their sources (cline/cline v4.0.12
//! `apps/vscode/src/core/task/index.ts`, `shared/ExtensionMessage.ts`, `core/storage/disk.ts`;
//! RooCodeInc/Roo-Code `src/core/task/Task.ts`, `packages/types/src/message.ts`,
//! `src/core/environment/getEnvironmentDetails.ts`; Kilo-Org/kilocode-legacy `Task.ts`). The
//! traps: each request's tokens its own, written in its `api_req_started` (a placeholder
//! without counts while the request runs, running totals while it streams with `partial`);
//! Roo's and Kilo's `tokensIn` holding the cache (since late 2025) where Cline's does not, and
//! a Roo task from before that change; the model only in the companions (`<model>` in the
//! prompts' environment details for Roo and Kilo, Cline's `task_metadata.json` or the
//! `modelInfo` on its messages) and changed in the middle of a task; a legacy
//! `api_req_finished` holding the counts; Cline's `deleted_api_reqs` counted and Roo's
//! `api_req_deleted` not; a cancelled request's tokens counted; Kilo's `usageMissing`; a
//! model the extension cannot price recorded at a cost of 0; Roo's and Kilo's prompt (and its
//! model) written to the history after the request starts; a quoted file holding a `<model>` tag;
//! a Roo sub-task (its `history_item.json` naming `parentTaskId`/`rootTaskId`, as Roo's
//! `new_task` tool writes it), a thread of its parent's conversation.

use super::{Listed, PLANTED, Rng, START_MILLIS, Tokens, Truth, title_of, write};
use baton_core::transcripts::Provider;
use serde_json::{Value, json};
use std::path::Path;

/// Each product's models: two the price table knows and one it does not.
pub fn models(product: Provider) -> [&'static str; 3] {
    match product {
        Provider::Cline => ["claude-sonnet-4-5", "gpt-5", "cline-stealth-1"],
        Provider::RooCode => ["claude-sonnet-4-5", "gpt-5-mini", "roo-router-1"],
        _ => ["claude-haiku-4-5", "gpt-5", "kilo-auto-1"],
    }
}

/// The extension's folder name (`globalStorage/<this>/tasks`).
pub fn extension(product: Provider) -> &'static str {
    match product {
        Provider::Cline => "saoudrizwan.claude-dev",
        Provider::RooCode => "rooveterinaryinc.roo-cline",
        _ => "kilocode.kilo-code",
    }
}

struct Task {
    product: Provider,
    rng: Rng,
    at: i64,
    panel: Vec<Value>,
    history: Vec<Value>,
    model_usage: Vec<Value>,
    tool_calls: usize,
    /// Whether Roo's or Kilo's `tokensIn` holds the cache (a task after the change).
    cache_inside: bool,
}

impl Task {
    fn say(&mut self, say: &str, text: &str, extra: Value) {
        self.at += 300 + self.rng.below(4000) as i64;
        let mut message = json!({"ts": self.at, "type": "say", "say": say, "text": text});
        merge(&mut message, extra);
        self.panel.push(message);
    }

    fn ask(&mut self, ask: &str, text: &str) {
        self.at += 300 + self.rng.below(4000) as i64;
        self.panel
            .push(json!({"ts": self.at, "type": "ask", "ask": ask, "text": text}));
    }

    /// The prompt sent with a request, naming `model` as the product does.
    fn prompt(&mut self, text: &str, model: &str, cline_model_in_metadata: bool) {
        self.at += 200;
        let details = match self.product {
            Provider::Cline => "<environment_details>\n# Current Working Directory (/home/dev/app) Files\nsrc/\n\n# Current Mode\nACT MODE\n</environment_details>".to_owned(),
            _ => format!("<environment_details>\n# Current Workspace Directory (/home/dev/app) Files\nsrc/\n\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>{model}</model>\n</environment_details>"),
        };
        // Roo and Kilo add the prompt to the history after the panel says the request
        // started (they load its context in between).
        let written = match self.product {
            Provider::Cline => self.at,
            _ => self.at + 1000,
        };
        self.history.push(json!({"role": "user", "ts": written,
            "content": [{"type": "text", "text": text}, {"type": "text", "text": details}]}));
        if self.product == Provider::Cline && cline_model_in_metadata {
            self.model_usage
                .push(json!({"ts": self.at, "model_id": model,
                "model_provider_id": "anthropic", "mode": "act"}));
        }
    }

    /// One request's counts as the product writes them; billed in the truth.
    fn request(&mut self, truth: &mut Truth, model: &str, model_info: bool) -> Value {
        let fresh = 5 + self.rng.below(3000);
        let read = self.rng.below(50_000);
        let write = self.rng.below(4000);
        let output = 20 + self.rng.below(900);
        let tokens_in = if self.product != Provider::Cline && self.cache_inside {
            fresh + read + write
        } else {
            fresh
        };
        self.at += 400;
        truth.bill(
            self.at,
            model,
            Tokens {
                input: fresh,
                output,
                cache_read: read,
                cache_write: write,
                reasoning: 0,
            },
        );
        // A model the extension has no price for costs 0 in its records.
        let priced = !models(self.product)[2].eq(model);
        let cost = if priced {
            (fresh + output * 5) as f64 / 1e6
        } else {
            0.0
        };
        let mut info = json!({"tokensIn": tokens_in, "tokensOut": output,
            "cacheWrites": write, "cacheReads": read, "cost": cost});
        if self.product != Provider::Cline {
            info["apiProtocol"] = json!("anthropic");
        }
        if model_info {
            json!({"modelInfo": {"modelId": model, "providerId": "anthropic", "mode": "act"},
                "info": info})
        } else {
            json!({"info": info})
        }
    }

    /// Says the request just counted, at the time it was billed.
    fn said_request(&mut self, request: Value) {
        let mut message = json!({"ts": self.at, "type": "say", "say": "api_req_started",
            "text": request["info"].to_string()});
        if !request["modelInfo"].is_null() {
            message["modelInfo"] = request["modelInfo"].clone();
        }
        self.panel.push(message);
    }
}

fn merge(message: &mut Value, extra: Value) {
    if let (Some(m), Value::Object(extra)) = (message.as_object_mut(), extra) {
        m.extend(extra);
    }
}

/// Writes `sessions` tasks (at least 5, one for every trap) of `product` under `root` (the
/// extension's `globalStorage/<extension>` folder: tasks in `root/tasks/<task>/`), and answers
/// their truth.
pub fn tree(root: &Path, product: Provider, sessions: usize, seed: u64) -> Truth {
    let sessions = sessions.max(5);
    let mut truth = Truth::default();
    // Each product's own stream (not its place in the provider list, which grows).
    let salt = match product {
        Provider::Cline => 1,
        Provider::RooCode => 2,
        _ => 3,
    };
    let mut rng = Rng::new(seed ^ 0x636c_696e ^ salt);
    let [first_model, second_model, unpriced] = models(product);
    // The task written before this one (a sub-task's parent).
    let mut parent_task: Option<String> = None;
    for n in 0..sessions {
        // A Roo task from before its `tokensIn` held the cache (September 2025).
        let old = product == Provider::RooCode && n % 5 == 2;
        let start = if old {
            1_757_930_400_000 + n as i64 * 3_600_000
        } else {
            START_MILLIS + n as i64 * 6 * 3_600_000
        };
        let id = match product {
            Provider::Cline => start.to_string(),
            _ => rng.uuid(),
        };
        let model = [first_model, second_model, unpriced][n % 3];
        let mut task = Task {
            product,
            rng: Rng::new(rng.draw()),
            at: start,
            panel: Vec::new(),
            history: Vec::new(),
            model_usage: Vec::new(),
            tool_calls: 0,
            cache_inside: !old,
        };
        let prompt = if n == 0 {
            format!("why does {PLANTED} break the release build")
        } else {
            format!("task {n}: make the upload client retry")
        };
        // Cline names its model on its messages in newer tasks, in its metadata in older (an
        // older one also writes a request's counts in a legacy finish).
        let legacy = product == Provider::Cline && n % 5 == 4;
        let info_on_messages = product == Provider::Cline && n % 2 == 0 && !legacy;
        let opening = if product == Provider::Cline {
            "task"
        } else {
            "text"
        };
        task.say(opening, &prompt, json!({}));
        task.prompt(
            &format!("<task>\n{prompt}\n</task>"),
            model,
            !info_on_messages,
        );
        let request = task.request(&mut truth, model, info_on_messages);
        task.said_request(request);
        if product == Provider::Cline {
            task.say("reasoning", "Read the build script first.", json!({}));
            task.say("text", "I will read the build script.", json!({}));
        } else {
            task.say(
                "text",
                "I will read the build script.",
                json!({"reasoning": "Read the build script first."}),
            );
        }
        task.ask(
            "tool",
            r#"{"tool":"readFile","path":"build.rs","isOutsideWorkspace":false}"#,
        );
        task.tool_calls += 1;
        task.ask("command", "cargo build --release");
        task.tool_calls += 1;
        task.ask("command_output", "error: linker `cc` not found");
        if n % 3 == 0 {
            task.ask(
                "use_mcp_server",
                r#"{"type":"use_mcp_tool","serverName":"github","toolName":"search_issues","arguments":"{\"q\":\"linker\"}"}"#,
            );
            task.tool_calls += 1;
            task.say("mcp_server_response", "2 issues found", json!({}));
        }
        task.say("checkpoint_saved", "3f2a9c", json!({}));
        // A task switched model in its middle.
        let later = if n % 3 == 1 { first_model } else { model };
        task.prompt(
            // A file the tool read holds a tag named like the model's: not the model.
            "[read_file for 'pom.xml'] Result: <model>maven-pom</model>\n[execute_command for 'cargo build'] Result: error",
            later,
            !info_on_messages,
        );
        if legacy {
            // An older Cline: a placeholder start, its counts in a legacy finish.
            let request = task.request(&mut truth, later, false);
            task.said_request(json!({"info": {"request": "[execute_command] Result"}}));
            task.say("api_req_finished", &request["info"].to_string(), json!({}));
        } else {
            let mut request = task.request(&mut truth, later, info_on_messages);
            if n % 4 == 3 {
                // Cancelled while streaming: its tokens were still billed.
                request["info"]["cancelReason"] = json!("user_cancelled");
            }
            task.said_request(request);
        }
        task.say(
            "completion_result",
            "Installed the linker and the build passes.",
            json!({}),
        );
        match product {
            Provider::Cline if n % 2 == 1 => {
                // A checkpoint restore deleted a request: Cline still counts it.
                let request = task.request(&mut truth, later, false);
                let deleted = json!({"ts": task.at, "type": "say", "say": "deleted_api_reqs",
                    "text": request["info"].to_string()});
                task.panel.push(deleted);
            }
            Provider::RooCode if n % 2 == 1 => {
                // Roo writes its deleted requests down but leaves them out.
                task.say(
                    "api_req_deleted",
                    r#"{"tokensIn":900,"tokensOut":90,"cost":0.01}"#,
                    json!({}),
                );
            }
            Provider::KiloCode => {
                task.say(
                    "api_req_started",
                    r#"{"tokensIn":0,"tokensOut":0,"usageMissing":true,"inferenceProvider":"Z.AI"}"#,
                    json!({}),
                );
            }
            _ => {}
        }
        // A request still running: a placeholder, then streamed running totals.
        task.say(
            "api_req_started",
            r#"{"apiProtocol":"anthropic"}"#,
            json!({}),
        );
        if n % 2 == 0 {
            task.say(
                "api_req_started",
                r#"{"tokensIn":77,"tokensOut":7}"#,
                json!({"partial": true}),
            );
        }
        let folder = root.join("tasks").join(&id);
        let panel = Value::Array(std::mem::take(&mut task.panel));
        let text = if n % 2 == 0 {
            serde_json::to_string_pretty(&panel).unwrap_or_default()
        } else {
            panel.to_string()
        };
        truth.bytes += write(&folder.join("ui_messages.json"), text.as_bytes());
        let history = Value::Array(std::mem::take(&mut task.history));
        truth.bytes += write(
            &folder.join("api_conversation_history.json"),
            history.to_string().as_bytes(),
        );
        let mut title = title_of(&prompt);
        match product {
            Provider::Cline => {
                // Cline's own bookkeeping beside the task: no transcript (passed over).
                truth.bytes += write(&folder.join("context_history.json"), b"[]");
                if n % 2 == 0 {
                    truth.bytes += write(
                        &folder.join("settings.json"),
                        br#"{"mode":"act","autoApprovalSettings":{"enabled":false}}"#,
                    );
                }
                let metadata = json!({"files_in_context": [], "model_usage": task.model_usage,
                    "environment_history": []});
                truth.bytes += write(
                    &folder.join("task_metadata.json"),
                    metadata.to_string().as_bytes(),
                );
            }
            // A sub-task the one before started (`new_task`): a thread of that task, its
            // usage and tool calls that task's.
            Provider::RooCode if n == 3 => {
                let parent = parent_task.clone().unwrap_or_default();
                let item = json!({"id": id, "rootTaskId": parent, "parentTaskId": parent,
                    "number": n + 1, "ts": start, "task": title, "tokensIn": 0, "tokensOut": 0,
                    "totalCost": 0.0, "workspace": "/home/dev/app", "mode": "code"});
                truth.bytes += write(
                    &folder.join("history_item.json"),
                    item.to_string().as_bytes(),
                );
                if let Some(listed) = truth.conversations.get_mut(&parent) {
                    listed.tool_calls += task.tool_calls;
                }
                continue;
            }
            Provider::RooCode if n % 2 == 0 => {
                title = format!("Retries for the upload client {n}");
                let item = json!({"id": id, "number": n + 1, "ts": start, "task": title,
                    "tokensIn": 0, "tokensOut": 0, "totalCost": 0.0, "workspace": "/home/dev/app",
                    "mode": "code", "apiConfigName": "default"});
                truth.bytes += write(
                    &folder.join("history_item.json"),
                    item.to_string().as_bytes(),
                );
            }
            _ => {}
        }
        parent_task = Some(id.clone());
        truth.conversations.insert(
            id.clone(),
            Listed {
                id,
                title,
                tool_calls: task.tool_calls,
            },
        );
    }
    truth
}
