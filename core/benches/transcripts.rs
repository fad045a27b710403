//! Parser throughput, MB/s on one core: the Claude Code, Codex, Gemini CLI, Qwen Code, Copilot
//! CLI, Copilot Chat, Amp, Aider and Roo Code (Cline's and Kilo Code's reader) usage readers, the newer agents' conversation readers (Cursor's agent transcripts among them), and the ChatGPT and claude.ai
//! export parsers (streamed, one conversation at a time), over synthetic lines shaped like real
//! ones (several content blocks per response, progress lines without usage, cumulative Codex
//! token counts, Gemini messages written again with their tool calls, Qwen's telemetry
//! records before each response).

use baton_core::transcripts::Provider;
use baton_core::transcripts::ingest::{CHUNK_BYTES, FileIngest};
use baton_core::transcripts::inspect::Inspector;
use baton_core::transcripts::usage::claude_code::ClaudeCodeUsage;
use baton_core::transcripts::usage::codex::CodexUsage;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write;
use std::hint::black_box;

fn claude_text() -> Vec<u8> {
    let mut text = String::new();
    for r in 0..20_000 {
        for b in 0..3 {
            writeln!(text, r#"{{"parentUuid":"p{r}","isSidechain":false,"userType":"external","cwd":"/home/dev/app","sessionId":"s1","version":"2.1.38","gitBranch":"main","type":"assistant","uuid":"u{r}-{b}","timestamp":"2026-02-10T12:{:02}:{:02}.000Z","requestId":"req_{r}","message":{{"id":"msg_{r}","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{{"type":"text","text":"Some answer text that is about as long as a short paragraph of real output would be, with a few words more."}}],"stop_reason":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":45000,"cache_creation":{{"ephemeral_5m_input_tokens":1200,"ephemeral_1h_input_tokens":0}},"output_tokens":{},"service_tier":"standard"}}}}}}"#, r / 60 % 60, r % 60, 5 + b * 100).unwrap();
        }
        writeln!(text, r#"{{"parentUuid":"u{r}-2","isSidechain":false,"type":"progress","data":{{"type":"hook_progress","hookEvent":"PostToolUse"}},"toolUseID":"toolu_{r}","sessionId":"s1","timestamp":"2026-02-10T12:00:00.000Z","uuid":"p{r}"}}"#).unwrap();
    }
    text.into_bytes()
}

fn codex_text() -> Vec<u8> {
    let mut text = String::new();
    let mut total = 0u64;
    for t in 0..40_000u64 {
        total += 1000 + t % 977;
        writeln!(text, r#"{{"timestamp":"2026-05-13T09:{:02}:{:02}.000Z","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":"Working on it; running the tests next and then fixing what fails."}}]}}}}"#, t / 60 % 60, t % 60).unwrap();
        writeln!(text, r#"{{"timestamp":"2026-05-13T09:{:02}:{:02}.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total},"cached_input_tokens":{},"output_tokens":{},"reasoning_output_tokens":{},"total_tokens":{}}},"last_token_usage":{{"input_tokens":1000,"cached_input_tokens":200,"output_tokens":100,"reasoning_output_tokens":40,"total_tokens":1100}},"model_context_window":272000}},"rate_limits":{{"primary":{{"used_percent":12.0,"window_minutes":300}}}}}}}}"#, t / 60 % 60, t % 60, total / 5, total / 10, total / 25, total + total / 10).unwrap();
    }
    text.into_bytes()
}

fn gemini_text() -> Vec<u8> {
    let mut text = String::from(
        "{\"sessionId\":\"s1\",\"projectHash\":\"ab\",\"startTime\":\"2026-08-20T09:00:00.000Z\",\"lastUpdated\":\"2026-08-20T09:00:00.000Z\",\"kind\":\"main\"}\n",
    );
    for t in 0..15_000u64 {
        let at = at_of(t);
        writeln!(text, r#"{{"id":"u{t}","timestamp":"{at}","type":"user","content":[{{"text":"Please run the tests again and tell me what fails this time."}}]}}"#).unwrap();
        writeln!(text, r#"{{"$set":{{"lastUpdated":"{at}"}}}}"#).unwrap();
        let message = format!(
            r#""id":"g{t}","timestamp":"{at}","type":"gemini","content":"","thoughts":[{{"subject":"Running tests","description":"I will run the test suite.","timestamp":"{at}"}}],"tokens":{{"input":{},"output":120,"cached":9000,"thoughts":40,"tool":0,"total":{}}},"model":"gemini-2.5-pro""#,
            12_000 + t,
            12_160 + t
        );
        writeln!(text, "{{{message}}}").unwrap();
        writeln!(text, r#"{{{message},"toolCalls":[{{"id":"c{t}","name":"run_shell_command","args":{{"command":"cargo test"}},"result":[{{"functionResponse":{{"id":"c{t}","name":"run_shell_command","response":{{"output":"test result: ok. 12 passed; 0 failed"}}}}}}],"status":"success","timestamp":"{at}"}}]}}"#).unwrap();
    }
    text.into_bytes()
}

/// The `t`th second of a working day, as the agents write times.
fn at_of(t: u64) -> String {
    format!(
        "2026-08-20T{:02}:{:02}:{:02}.000Z",
        9 + t / 3600 % 12,
        t / 60 % 60,
        t % 60
    )
}

fn qwen_text() -> Vec<u8> {
    let mut text = String::new();
    for t in 0..15_000u64 {
        let at = at_of(t);
        let base = format!(
            r#""sessionId":"q1","timestamp":"{at}","cwd":"/home/dev/app","version":"0.24.4","gitBranch":"main""#
        );
        writeln!(text, r#"{{"uuid":"u{t}","parentUuid":"r{}",{base},"type":"user","message":{{"role":"user","parts":[{{"text":"Please run the tests again."}}]}},"systemPayload":{{"displayText":"Please run the tests again."}}}}"#, t.saturating_sub(1)).unwrap();
        writeln!(text, r#"{{"uuid":"s{t}","parentUuid":"u{t}",{base},"type":"system","subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.api_response","event.timestamp":"{at}","model":"qwen3.7-max","input_token_count":{},"output_token_count":160,"cached_content_token_count":9000,"thoughts_token_count":40,"total_token_count":{},"auth_type":"openai"}}}}}}"#, 12_000 + t, 12_160 + t).unwrap();
        writeln!(text, r#"{{"uuid":"a{t}","parentUuid":"s{t}",{base},"type":"assistant","model":"qwen3.7-max","message":{{"role":"model","parts":[{{"text":"I will run them.","thought":true}},{{"functionCall":{{"id":"c{t}","name":"run_shell_command","args":{{"command":"cargo test"}}}}}}]}},"usageMetadata":{{"promptTokenCount":{},"candidatesTokenCount":160,"cachedContentTokenCount":9000,"thoughtsTokenCount":40,"totalTokenCount":{}}}}}"#, 12_000 + t, 12_160 + t).unwrap();
        writeln!(text, r#"{{"uuid":"r{t}","parentUuid":"a{t}",{base},"type":"tool_result","message":{{"role":"user","parts":[{{"functionResponse":{{"id":"c{t}","name":"run_shell_command","response":{{"output":"test result: ok. 12 passed"}}}}}}]}},"toolCallResult":{{"callId":"c{t}","status":"success"}}}}"#).unwrap();
    }
    text.into_bytes()
}

fn chatgpt_text() -> Vec<u8> {
    let mut items = Vec::new();
    for c in 0..2000 {
        let mut mapping =
            String::from(r#""root":{"id":"root","message":null,"parent":null,"children":["m0"]}"#);
        for t in 0..20 {
            let parent = if t == 0 {
                "root".to_owned()
            } else {
                format!("m{}", t - 1)
            };
            let child = if t < 19 {
                format!(r#""m{}""#, t + 1)
            } else {
                String::new()
            };
            let role = if t % 2 == 0 { "user" } else { "assistant" };
            write!(mapping, r#","m{t}":{{"id":"m{t}","message":{{"id":"m{t}","author":{{"role":"{role}"}},"create_time":1700000000.5,"content":{{"content_type":"text","parts":["A message of ordinary length in a conversation export, with some more words in it."]}},"metadata":{{"model_slug":"gpt-4o"}}}},"parent":"{parent}","children":[{child}]}}"#).unwrap();
        }
        items.push(format!(
            r#"{{"id":"c{c}","title":"t","current_node":"m19","mapping":{{{mapping}}}}}"#
        ));
    }
    format!("[{}]", items.join(",")).into_bytes()
}

/// One ChatGPT conversation whose 20,000 empty nodes form a chain, each with a message hung
/// off it: every message climbs past the empty nodes above it (quadratic unless memoized).
fn chatgpt_empty_chain() -> Vec<u8> {
    let mut mapping = String::new();
    for i in 0..20_000 {
        let parent = if i == 0 {
            "null".to_owned()
        } else {
            format!(r#""e{}""#, i - 1)
        };
        if i > 0 {
            mapping.push(',');
        }
        write!(mapping, r#""e{i}":{{"id":"e{i}","message":null,"parent":{parent},"children":["e{}","k{i}"]}},"k{i}":{{"id":"k{i}","parent":"e{i}","children":[],"message":{{"id":"k{i}","author":{{"role":"user"}},"create_time":{i},"content":{{"content_type":"text","parts":["hi"]}}}}}}"#, i + 1).unwrap();
    }
    format!(r#"[{{"id":"chain","title":"t","mapping":{{{mapping}}}}}]"#).into_bytes()
}

fn claude_ai_text() -> Vec<u8> {
    let mut items = Vec::new();
    for c in 0..2000 {
        let messages: Vec<String> = (0..20)
            .map(|t| format!(r#"{{"uuid":"c{c}-{t}","sender":"{}","created_at":"2025-02-01T10:00:00Z","content":[{{"type":"text","text":"A message of ordinary length in a conversation export, with some more words in it."}}]}}"#, if t % 2 == 0 { "human" } else { "assistant" }))
            .collect();
        items.push(format!(
            r#"{{"uuid":"c{c}","name":"n","chat_messages":[{}]}}"#,
            messages.join(",")
        ));
    }
    format!("[{}]", items.join(",")).into_bytes()
}

fn copilot_text() -> Vec<u8> {
    let mut text = String::new();
    writeln!(text, r#"{{"type":"session.start","data":{{"sessionId":"s1","version":1,"producer":"copilot-agent","copilotVersion":"1.0.102","startTime":"2026-08-20T09:00:00.000Z","context":{{"cwd":"/home/dev/app","branch":"main"}},"selectedModel":"claude-sonnet-4.6"}},"id":"e0","timestamp":"2026-08-20T09:00:00.000Z","parentId":null}}"#).unwrap();
    for t in 0..20_000u64 {
        let at = format!("2026-08-20T10:{:02}:{:02}.000Z", t / 60 % 60, t % 60);
        writeln!(text, r#"{{"type":"user.message","data":{{"content":"run the tests and fix what fails","transformedContent":"<current_datetime>{at}</current_datetime> run the tests and fix what fails"}},"id":"u{t}","timestamp":"{at}","parentId":"e0"}}"#).unwrap();
        writeln!(text, r#"{{"type":"assistant.message","data":{{"messageId":"m{t}","content":"I will run them.","model":"claude-sonnet-4.6","outputTokens":160,"toolRequests":[{{"toolCallId":"c{t}","name":"bash","arguments":{{"command":"cargo test"}}}}]}},"id":"a{t}","timestamp":"{at}","parentId":"u{t}"}}"#).unwrap();
        writeln!(text, r#"{{"type":"tool.execution_complete","data":{{"toolCallId":"c{t}","success":true,"result":{{"content":"test result: ok. 12 passed"}}}},"id":"r{t}","timestamp":"{at}","parentId":"a{t}"}}"#).unwrap();
        if t % 100 == 99 {
            writeln!(text, r#"{{"type":"session.shutdown","data":{{"modelMetrics":{{"claude-sonnet-4.6":{{"usage":{{"inputTokens":900000,"outputTokens":16000,"cacheReadTokens":800000,"cacheWriteTokens":50000}}}}}},"totalNanoAiu":1750000000}},"id":"x{t}","timestamp":"{at}","parentId":"r{t}"}}"#).unwrap();
        }
    }
    text.into_bytes()
}

fn amp_text() -> Vec<u8> {
    let mut messages = Vec::new();
    for t in 0..20_000u64 {
        messages.push(format!(r#"{{"role":"user","messageId":{},"content":[{{"type":"text","text":"run the tests and fix what fails"}}],"meta":{{"sentAt":1787216400000}}}}"#, t * 3));
        messages.push(format!(r#"{{"role":"assistant","messageId":{},"content":[{{"type":"thinking","thinking":"Run them first."}},{{"type":"tool_use","id":"toolu_{t}","name":"Bash","input":{{"cmd":"cargo test"}}}}],"usage":{{"model":"claude-sonnet-4-5","timestamp":"2026-08-20T10:00:00.000Z","inputTokens":12,"outputTokens":160,"cacheCreationInputTokens":900,"cacheReadInputTokens":40000,"totalInputTokens":40912,"maxInputTokens":968000}}}}"#, t * 3 + 1));
        messages.push(format!(r#"{{"role":"user","messageId":{},"content":[{{"type":"tool_result","toolUseID":"toolu_{t}","run":{{"status":"done","result":{{"output":"test result: ok","exitCode":0}}}}}}]}}"#, t * 3 + 2));
    }
    format!(r#"{{"v":200,"id":"T-019ca26f-aaaa-bbbb-cccc-dddddddddddd","created":1787216400000,"title":"Tests","messages":[{}],"env":{{"initial":{{"trees":[{{"displayName":"app","uri":"file:///home/dev/app"}}]}}}}}}"#, messages.join(",")).into_bytes()
}

/// A long Copilot Chat operation log: 3,000 requests, each appended, its response streamed in
/// three rewrites of its tail, its result and state set (tokens in the result's metadata).
fn copilot_chat_text() -> Vec<u8> {
    let mut text = String::from(
        r#"{"kind":0,"v":{"version":3,"sessionId":"s1","creationDate":1787216400000,"requests":[]}}"#,
    );
    text.push('\n');
    for r in 0..3_000u64 {
        let at = 1_787_216_400_000 + r * 1000;
        writeln!(text, r#"{{"kind":2,"k":["requests"],"v":[{{"requestId":"request_{r}","timestamp":{at},"message":{{"text":"run the tests and fix what fails","parts":[]}},"modelId":"copilot/claude-sonnet-4.5","response":[],"modelState":{{"value":0}}}}]}}"#).unwrap();
        for step in 1..=3 {
            writeln!(text, r#"{{"kind":2,"k":["requests",{r},"response"],"v":[{{"value":"{}"}},{{"kind":"toolInvocationSerialized","toolId":"run_in_terminal","toolCallId":"c{r}","isComplete":true,"pastTenseMessage":{{"value":"Ran cargo test"}},"toolSpecificData":{{"kind":"terminal","commandLine":{{"original":"cargo test"}}}}}}],"i":0}}"#, "The failing test waited on a clock. ".repeat(step)).unwrap();
        }
        writeln!(text, r#"{{"kind":1,"k":["requests",{r},"result"],"v":{{"timings":{{"totalElapsed":9000}},"metadata":{{"promptTokens":41000,"outputTokens":160}}}}}}"#).unwrap();
        writeln!(
            text,
            r#"{{"kind":1,"k":["requests",{r},"modelState"],"v":{{"value":1,"completedAt":{}}}}}"#,
            at + 900
        )
        .unwrap();
    }
    text.into_bytes()
}

/// A long Roo Code task's panel file (one task of 20,000 requests, each with its reply, a tool
/// ask and a command's output), as the extension writes it: one JSON array on one line.
fn roo_text() -> Vec<u8> {
    let mut messages = vec![r#"{"ts":1787216400000,"type":"say","say":"text","text":"run the tests and fix what fails"}"#.to_owned()];
    for t in 0..20_000u64 {
        let at = 1_787_216_400_000 + t * 10;
        messages.push(format!(r#"{{"ts":{},"type":"say","say":"api_req_started","text":"{{\"apiProtocol\":\"anthropic\",\"tokensIn\":41912,\"tokensOut\":160,\"cacheWrites\":900,\"cacheReads\":40000,\"cost\":0.0172}}"}}"#, at + 1));
        messages.push(format!(r#"{{"ts":{},"type":"say","say":"text","text":"I will run them.","reasoning":"Run them first."}}"#, at + 2));
        messages.push(format!(
            r#"{{"ts":{},"type":"ask","ask":"command","text":"cargo test"}}"#,
            at + 3
        ));
        messages.push(format!(r#"{{"ts":{},"type":"ask","ask":"command_output","text":"test result: ok. 12 passed"}}"#, at + 4));
    }
    format!("[{}]", messages.join(",")).into_bytes()
}

fn aider_text() -> Vec<u8> {
    let mut text = String::new();
    for run in 0..2000u64 {
        write!(text, "\n# aider chat started at 2026-08-20 {:02}:{:02}:00\n\n> Aider v0.86.2  \n> Main model: anthropic/claude-sonnet-4-5 with diff edit format  \n", run / 60 % 24, run % 60).unwrap();
        for _ in 0..10 {
            text.push_str("\n#### run the tests and fix what fails  \n\nThe failing test waited on a clock; here is the change.\n\napp.py\n```python\n<<<<<<< SEARCH\n    sleep(1)\n=======\n    clock.advance(1)\n>>>>>>> REPLACE\n```\n\n> Tokens: 12k sent, 1.1k cache write, 9.6k cache hit, 160 received.\nCost: $0.01 message, $0.05 session.  \n> Applied edit to app.py  \n> Commit 1a2b3c4 fix: clock  \n");
        }
    }
    text.into_bytes()
}

fn cursor_transcript_text() -> Vec<u8> {
    let mut text = String::new();
    for t in 0..8000u64 {
        writeln!(text, r#"{{"role":"user","message":{{"content":[{{"type":"text","text":"<user_query>\nrun the tests and fix what fails, turn {t}\n</user_query>"}}]}}}}"#).unwrap();
        writeln!(text, r#"{{"role":"assistant","message":{{"content":[{{"type":"text","text":"I will run them and read what fails."}},{{"type":"tool_use","name":"Shell","input":{{"command":"cargo test"}}}}]}}}}"#).unwrap();
        writeln!(text, r#"{{"role":"user","message":{{"content":[{{"type":"tool_result","content":"test result: ok. 12 passed; 0 failed"}}]}}}}"#).unwrap();
        writeln!(text, r#"{{"type":"turn_ended"}}"#).unwrap();
    }
    text.into_bytes()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("transcripts");
    group.sample_size(10);
    let claude = claude_text();
    group.throughput(Throughput::Bytes(claude.len() as u64));
    group.bench_function("claude_code_usage", |b| {
        b.iter(|| {
            let mut reader = ClaudeCodeUsage::new();
            reader.push_bytes(black_box(&claude));
            black_box(reader.finish().0.len())
        })
    });
    let codex = codex_text();
    group.throughput(Throughput::Bytes(codex.len() as u64));
    group.bench_function("codex_usage", |b| {
        b.iter(|| {
            let mut reader = CodexUsage::new("bench");
            reader.push_bytes(black_box(&codex));
            black_box(reader.finish().0.len())
        })
    });
    for (name, provider, path, text) in [
        (
            "gemini_usage",
            Provider::Gemini,
            "tmp/app/chats/session-1.jsonl",
            gemini_text(),
        ),
        (
            "qwen_usage",
            Provider::Qwen,
            "projects/app/chats/q1.jsonl",
            qwen_text(),
        ),
        (
            "copilot_cli_usage",
            Provider::CopilotCli,
            "session-state/s1/events.jsonl",
            copilot_text(),
        ),
        (
            "amp_usage",
            Provider::Amp,
            "threads/T-019ca26f-aaaa-bbbb-cccc-dddddddddddd.json",
            amp_text(),
        ),
        (
            "aider_usage",
            Provider::Aider,
            "app/.aider.chat.history.md",
            aider_text(),
        ),
        (
            "copilot_chat_usage",
            Provider::CopilotChat,
            "workspaceStorage/w1/chatSessions/s1.jsonl",
            copilot_chat_text(),
        ),
        (
            "roo_code_usage",
            Provider::RooCode,
            "globalStorage/rooveterinaryinc.roo-cline/tasks/t1/ui_messages.json",
            roo_text(),
        ),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut ingest = FileIngest::usage_only(path, provider);
                for chunk in black_box(text.as_slice()).chunks(CHUNK_BYTES) {
                    ingest.push(chunk).unwrap();
                }
                black_box(ingest.finish().unwrap().parts.len())
            })
        });
    }
    for (name, _provider, text) in [
        ("gemini_conversations", Provider::Gemini, gemini_text()),
        ("qwen_conversations", Provider::Qwen, qwen_text()),
        (
            "copilot_cli_conversations",
            Provider::CopilotCli,
            copilot_text(),
        ),
        ("amp_conversations", Provider::Amp, amp_text()),
        ("aider_conversations", Provider::Aider, aider_text()),
        ("roo_code_conversations", Provider::RooCode, roo_text()),
        (
            "copilot_chat_conversations",
            Provider::CopilotChat,
            copilot_chat_text(),
        ),
        (
            "cursor_transcripts_conversations",
            Provider::CursorTranscripts,
            cursor_transcript_text(),
        ),
        ("chatgpt_export", Provider::Chatgpt, chatgpt_text()),
        ("claude_ai_export", Provider::ClaudeAi, claude_ai_text()),
        (
            "chatgpt_empty_chain_20k",
            Provider::Chatgpt,
            chatgpt_empty_chain(),
        ),
    ] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut inspector = Inspector::new("transcript");
                for chunk in black_box(text.as_slice()).chunks(CHUNK_BYTES) {
                    inspector.push(chunk).unwrap();
                }
                let summary = inspector.finish().unwrap();
                black_box(summary.messages)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
