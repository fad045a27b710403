//! The agents read through the shared readers (Gemini CLI, Qwen Code): found by content, each
//! message once as its last copy wrote it, each response's usage once, and hostile input
//! (wrong types, loops, a record of megabytes, torn lines) read without a panic.

use baton_core::transcripts::ingest::{Decoded, FileIngest};
use baton_core::transcripts::inspect::inspect;
use baton_core::transcripts::readers::readers;
use baton_core::transcripts::tally::UsageTally;
use baton_core::transcripts::{FileFormat, Provider, detect};
use serde_json::json;

fn lines(records: &[serde_json::Value]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect()
}

/// Every response counted in `files` (name, bytes), read as `provider`'s through the tally.
fn tally(provider: Provider, files: &[(&str, &str)]) -> Vec<baton_core::transcripts::UsageEntry> {
    let mut tally = UsageTally::new();
    for (name, bytes) in files {
        let mut ingest = tally.ingest(provider, name);
        let read = ingest.push(bytes.as_bytes());
        tally.absorb(ingest, read).1.unwrap();
    }
    tally.finish().0
}

fn gemini_session() -> Vec<serde_json::Value> {
    let tokens = json!({"input": 1000, "output": 50, "cached": 600, "thoughts": 20, "tool": 0, "total": 1070});
    let call = json!([{"id": "c1", "name": "run_shell_command", "args": {"command": "ls"},
        "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
            "response": {"error": "denied"}}}], "status": "error"}]);
    vec![
        json!({"sessionId": "s1", "projectHash": "ab", "startTime": "2026-08-20T09:00:00.000Z",
            "lastUpdated": "2026-08-20T09:00:00.000Z", "kind": "main"}),
        json!({"$set": {"messages": [{"id": "ctx", "timestamp": "2026-08-20T09:00:00.100Z",
            "type": "user", "content": [{"text": "<session_context>\nstuff\n</session_context>"}]}]}}),
        json!({"id": "u1", "timestamp": "2026-08-20T09:00:01.000Z", "type": "user",
            "content": [{"text": "/help"}]}),
        json!({"id": "u2", "timestamp": "2026-08-20T09:00:02.000Z", "type": "user",
            "content": [{"text": "list the files"}]}),
        json!({"id": "g1", "timestamp": "2026-08-20T09:00:03.000Z", "type": "gemini",
            "content": "", "tokens": null, "model": "gemini-2.5-pro"}),
        json!({"id": "g1", "timestamp": "2026-08-20T09:00:03.000Z", "type": "gemini",
            "content": "", "tokens": tokens, "model": "gemini-2.5-pro"}),
        json!({"id": "g1", "timestamp": "2026-08-20T09:00:03.000Z", "type": "gemini",
            "content": "", "tokens": tokens, "model": "gemini-2.5-pro", "toolCalls": call}),
        json!({"id": "r1", "timestamp": "2026-08-20T09:00:04.000Z", "type": "user",
            "content": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                "response": {"error": "denied"}}}]}),
        json!({"$rewindTo": "u2"}),
        json!({"$set": {"summary": "Listing files", "lastUpdated": "2026-08-20T09:00:05.000Z"}}),
    ]
}

#[test]
fn a_gemini_log_keeps_each_message_once_as_its_last_copy_wrote_it() {
    let text = lines(&gemini_session());
    assert_eq!(detect(text.as_bytes()).unwrap(), Provider::Gemini);
    let read = inspect(text.as_bytes()).unwrap();
    assert_eq!(read.format, FileFormat::Transcript(Provider::Gemini));
    // `baton inspect --json` spells it `gemini`, and reads back what it wrote.
    let json = serde_json::to_value(&read).unwrap();
    assert_eq!(json["format"], "gemini");
    assert_eq!(
        serde_json::from_value::<baton_core::transcripts::inspect::Inspection>(json).unwrap(),
        read
    );
    assert_eq!(read.conversations, 1);
    // The context turn, two prompts and one response (the result's own record is left out).
    assert_eq!(read.messages, 4);
    assert_eq!((read.tool_calls, read.tool_results), (1, 1));
    assert_eq!(read.titles, ["Listing files"]);
    assert_eq!(read.stats.malformed, 0);
    let entries = tally(
        Provider::Gemini,
        &[("tmp/app/chats/session-x.jsonl", &text)],
    );
    assert_eq!(entries.len(), 1, "three copies of one response");
    let tokens = &entries[0].tokens;
    assert_eq!(
        (
            tokens.input_tokens,
            tokens.cache_read_tokens,
            tokens.output_tokens,
            tokens.reasoning_tokens
        ),
        (400, 600, 70, 20)
    );
    assert_eq!(entries[0].project.as_deref(), Some("app"));
    // The same session copied to a second folder counts once.
    let twice = tally(
        Provider::Gemini,
        &[
            ("tmp/app/chats/a.jsonl", &text),
            ("tmp/old/chats/a.jsonl", &text),
        ],
    );
    assert_eq!(twice.len(), 1);
}

#[test]
fn a_failed_tool_call_is_an_error_and_the_first_typed_prompt_names_a_session_without_summary() {
    let mut records = gemini_session();
    records.pop();
    let read = inspect(lines(&records).as_bytes()).unwrap();
    assert_eq!(
        read.titles,
        ["list the files"],
        "not the command, not the context"
    );
    let text = lines(&records);
    let ingested = FileIngest::read_all("tmp/app/chats/s.jsonl", text.as_bytes()).unwrap();
    let Some(Decoded::Conversations { parsed, .. }) = ingested.parts.into_iter().next() else {
        panic!("no conversation");
    };
    let blocks: Vec<_> = parsed.conversations[0]
        .messages
        .iter()
        .flat_map(|m| m.blocks.clone())
        .collect();
    assert!(blocks.iter().any(|b| matches!(b,
        baton_core::transcripts::conversation::Block::ToolResult { is_error: true, output, .. } if output == "denied")));
}

#[test]
fn an_old_gemini_document_is_read_whole_even_without_its_closing_brace() {
    let document = json!({"sessionId": "old", "projectHash": "ab", "startTime": "2025-10-01T10:00:00.000Z",
        "lastUpdated": "2025-10-01T10:05:00.000Z", "messages": [
            {"id": "u", "timestamp": "2025-10-01T10:00:01.000Z", "type": "user", "content": "hello"},
            {"id": "g", "timestamp": "2025-10-01T10:00:02.000Z", "type": "gemini", "content": "hi",
             "tokens": {"input": 10, "output": 2, "cached": 0, "thoughts": 0, "tool": 0, "total": 12},
             "model": "gemini-2.5-flash"}]});
    let pretty = serde_json::to_string_pretty(&document).unwrap();
    assert_eq!(detect(pretty.as_bytes()).unwrap(), Provider::Gemini);
    let read = inspect(pretty.as_bytes()).unwrap();
    assert_eq!((read.conversations, read.messages), (1, 2));
    let cut = pretty.trim_end().strip_suffix('}').unwrap();
    let entries = tally(Provider::Gemini, &[("tmp/x/chats/session-old.json", cut)]);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].tokens.output_tokens, 2);
}

fn qwen(
    kind: &str,
    uuid: &str,
    parent: Option<&str>,
    extra: serde_json::Value,
) -> serde_json::Value {
    let mut record = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "q1",
        "timestamp": "2026-08-20T09:00:00.000Z", "type": kind, "cwd": "/home/dev/app",
        "version": "0.24.4", "gitBranch": "main"});
    record
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    record
}

#[test]
fn a_qwen_response_written_twice_counts_once_and_a_fork_counts_nothing() {
    let usage = json!({"promptTokenCount": 1000, "candidatesTokenCount": 90, "cachedContentTokenCount": 400,
        "thoughtsTokenCount": 30, "totalTokenCount": 1090});
    let event = json!({"event.name": "qwen-code.api_response", "event.timestamp": "2026-08-20T09:00:01.000Z",
        "model": "qwen3.7-max", "input_token_count": 1000, "output_token_count": 90,
        "cached_content_token_count": 400, "thoughts_token_count": 30, "total_token_count": 1090,
        "auth_type": "openai"});
    let compression = json!({"event.name": "qwen-code.api_response", "event.timestamp": "2026-08-20T09:00:02.000Z",
        "model": "qwen3.7-max", "input_token_count": 5000, "output_token_count": 100,
        "cached_content_token_count": 0, "thoughts_token_count": 0, "total_token_count": 5100});
    let records = vec![
        qwen(
            "user",
            "a1",
            None,
            json!({"message": {"role": "user", "parts": [{"text": "hello"}]},
            "systemPayload": {"displayText": "hello"}}),
        ),
        qwen(
            "system",
            "a2",
            Some("a1"),
            json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": event}}),
        ),
        qwen(
            "assistant",
            "a3",
            Some("a2"),
            json!({"model": "qwen3.7-max", "usageMetadata": usage,
            "message": {"role": "model", "parts": [{"text": "thinking", "thought": true},
                {"functionCall": {"id": "c1", "name": "ls", "args": {}}}]}}),
        ),
        qwen(
            "tool_result",
            "a4",
            Some("a3"),
            json!({"message": {"role": "user", "parts": [
            {"functionResponse": {"id": "c1", "name": "ls", "response": {"output": "a.rs"}}}]},
            "toolCallResult": {"callId": "c1", "status": "error"}}),
        ),
        qwen(
            "system",
            "a5",
            Some("a4"),
            json!({"subtype": "ui_telemetry", "systemPayload": {"uiEvent": compression}}),
        ),
        qwen(
            "system",
            "a6",
            Some("a5"),
            json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Say hello"}}),
        ),
        qwen(
            "assistant",
            "a7",
            Some("a3"),
            json!({"forkedFrom": {"sessionId": "q0"}, "model": "qwen3.7-max",
            "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 9},
            "message": {"role": "model", "parts": [{"text": "copied"}]}}),
        ),
    ];
    let text = lines(&records);
    assert_eq!(detect(text.as_bytes()).unwrap(), Provider::Qwen);
    let read = inspect(text.as_bytes()).unwrap();
    assert_eq!(read.titles, ["Say hello"]);
    assert_eq!((read.tool_calls, read.tool_results), (1, 1));
    let entries = tally(
        Provider::Qwen,
        &[("projects/-home-dev-app/chats/q1.jsonl", &text)],
    );
    assert_eq!(
        entries.len(),
        2,
        "the response once, and the compression call"
    );
    let response = entries
        .iter()
        .find(|e| e.tokens.cache_read_tokens == 400)
        .unwrap();
    // OpenAI-style: the reasoning is inside the 90 output tokens.
    assert_eq!(
        (
            response.tokens.input_tokens,
            response.tokens.output_tokens,
            response.tokens.reasoning_tokens
        ),
        (600, 90, 30)
    );
    assert_eq!(response.project.as_deref(), Some("/home/dev/app"));
}

#[test]
fn claude_code_lines_are_still_claude_codes() {
    let line = json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s",
        "timestamp": "2025-01-01T00:00:00Z", "message": {"role": "user", "content": "hi"}});
    assert_eq!(
        detect(format!("{line}\n").as_bytes()).unwrap(),
        Provider::ClaudeCode
    );
}

/// What a hostile file does to each reader: no panic, and the rest of the file read.
#[test]
fn hostile_records_are_read_without_a_panic() {
    let huge = "x".repeat(3 << 20);
    let hostile = [
        // Wrong types everywhere.
        json!({"id": 5, "type": ["gemini"], "tokens": "many", "content": {"a": 1}}),
        json!({"id": "g", "type": "gemini", "timestamp": 12, "tokens": {"input": -5, "output": 1e300},
            "toolCalls": {"id": 1}, "thoughts": "no", "model": 7}),
        json!({"$set": {"messages": "none", "directories": 3, "summary": []}}),
        json!({"$set": [1, 2]}),
        json!({"$rewindTo": {"id": "x"}}),
        json!({"uuid": "l1", "parentUuid": "l2", "sessionId": "q", "type": "assistant",
            "message": {"parts": "text"}, "usageMetadata": {"promptTokenCount": "1"}}),
        json!({"uuid": "l2", "parentUuid": "l1", "sessionId": "q", "type": "user",
            "message": {"parts": [{"functionResponse": "no"}, 3, null]},
            "systemPayload": {"displayText": 9}}),
        json!({"uuid": "l3", "sessionId": 1, "type": "system", "subtype": "ui_telemetry",
            "systemPayload": {"uiEvent": {"event.name": "qwen-code.api_response", "input_token_count": "x"}}}),
        json!({"id": "big", "type": "user", "timestamp": "2026-01-01T00:00:00Z", "content": [{"text": huge}]}),
    ];
    let mut text = lines(&hostile);
    text.push_str("{\"id\":\"torn\",\"type\":\"gemini\",\"tokens\":{\"inp");
    for provider in [Provider::Gemini, Provider::Qwen] {
        let readers = readers(provider).unwrap();
        let mut conversations = (readers.conversations)("tmp/a/chats/x.jsonl", Some("not json"));
        let mut usage = (readers.usage)("tmp/a/chats/x.jsonl", Some("{\"session\": 3}"));
        for line in text.lines() {
            conversations.push_line(line.as_bytes());
            usage.push_line(line.as_bytes());
        }
        usage.end();
        let _ = usage.take_rows();
        let parsed = conversations.finish();
        assert!(parsed.stats.lines > 0, "{provider:?}");
        let ingest = FileIngest::read_all("x.jsonl", text.as_bytes());
        if let Ok(ingested) = ingest {
            for part in ingested.parts {
                if let Decoded::Conversations { parsed, .. } = part {
                    assert!(parsed.stats.malformed >= 1);
                }
            }
        }
    }
}

/// Every agent read through the shared readers (Gemini CLI to Kilo Code) is given every
/// hostile document and companion: deep nesting, wrong types, huge values, a document cut
/// short. None panics; each reads on.
#[test]
fn every_readers_agent_takes_hostile_documents_without_a_panic() {
    let deep = format!("{}1{}", "[".repeat(50_000), "]".repeat(50_000));
    let huge = format!(
        "[{{\"ts\":1,\"type\":\"say\",\"say\":\"text\",\"text\":\"{}\"}}]",
        "y".repeat(3 << 20)
    );
    let documents = [
        deep.clone(),
        huge,
        r#"[{"ts":"soon","type":"say","say":"api_req_started","text":"{\"tokensIn\":-1,\"tokensOut\":1e300,\"cost\":\"free\"}"},
            {"ts":2,"type":"ask","ask":"tool","text":"{\"tool\":5}"},
            {"ts":3,"type":"say","say":"api_req_finished","text":"[1,2]"},
            {"ts":4,"type":"ask","ask":"use_mcp_server","text":"not json"},
            {"ts":5,"type":"say","say":"command_output","text":null},
            {"ts":6,"type":"say","say":"text","reasoning":{"a":1},"modelInfo":"x"}]"#
            .to_owned(),
        r#"{"id":"T-1","messages":[{"role":"assistant","usage":{"inputTokens":"x"},"content":{"a":1}}]}"#.to_owned(),
        "[{\"ts\":1,\"type\":\"say\",\"say\":\"task\",\"text\":\"cut".to_owned(),
        "# aider chat started at 9999-99-99 99:99:99\n#### \n> Tokens: lots sent".to_owned(),
    ];
    let companions: [(&str, &[u8]); 4] = [
        ("t/api_conversation_history.json", deep.as_bytes()),
        (
            "t/api_conversation_history.json",
            br#"[{"role":"user","ts":"x","content":{"text":"<model></model>"}},7]"#,
        ),
        (
            "t/task_metadata.json",
            br#"{"model_usage":[{"ts":"x","model_id":5},null]}"#,
        ),
        ("t/history_item.json", br#"{"task":9,"workspace":["/w"]}"#),
    ];
    for provider in Provider::ALL {
        let Some(readers) = readers(provider) else {
            continue;
        };
        for document in &documents {
            let path = "h/tasks/t/ui_messages.json";
            let mut conversations = (readers.conversations)(path, None);
            let mut usage = (readers.usage)(path, None);
            for line in document.lines() {
                conversations.push_line(line.as_bytes());
                usage.push_line(line.as_bytes());
            }
            for (name, bytes) in companions {
                conversations.companion(name, bytes);
                usage.companion(name, bytes);
            }
            usage.end();
            let _ = usage.take_rows();
            let _ = conversations.finish();
        }
    }
}

#[test]
fn a_roo_sub_task_is_a_thread_of_the_task_that_started_it_and_its_usage_counts_there() {
    use baton_core::analyzer::Analyzer;
    let tasks = "globalStorage/rooveterinaryinc.roo-cline/tasks";
    let panel = |prompt: &str, at: i64| {
        json!([
            {"ts": at, "type": "say", "say": "text", "text": prompt},
            {"ts": at + 1, "type": "say", "say": "api_req_started",
             "text": json!({"tokensIn": 100, "tokensOut": 10, "cost": 0.01}).to_string()},
            {"ts": at + 2, "type": "say", "say": "text", "text": "done"}
        ])
        .to_string()
    };
    let mut analyzer = Analyzer::new();
    for (task, item, prompt, at) in [
        (
            "parent",
            json!({"id": "parent", "task": "Fix the build"}),
            "fix the build",
            1_000,
        ),
        // Its history item names the task that started it.
        (
            "child",
            json!({"id": "child", "parentTaskId": "parent", "rootTaskId": "parent",
            "task": "look around"}),
            "look around",
            2_000,
        ),
    ] {
        analyzer
            .add_file(
                &format!("{tasks}/{task}/history_item.json"),
                item.to_string().as_bytes(),
            )
            .unwrap();
        analyzer
            .add_file(
                &format!("{tasks}/{task}/ui_messages.json"),
                panel(prompt, at).as_bytes(),
            )
            .unwrap();
    }
    let conversations = analyzer.conversations();
    assert_eq!(conversations.len(), 1);
    let task = &conversations[0];
    assert_eq!(task.id, "parent");
    assert_eq!(task.title.as_deref(), Some("Fix the build"));
    let threads: Vec<bool> = task.messages.iter().map(|m| m.side_chain).collect();
    assert_eq!(threads, [false, false, true, true]);
    // The view shows the thread after the task's own messages.
    let view = analyzer.view(0, None).unwrap();
    assert_eq!(view.messages.len(), 4);
    let usage = analyzer.usage(baton_core::transcripts::usage::GroupBy::Session);
    assert_eq!(usage.rows.len(), 1, "{:?}", usage.rows);
    assert_eq!(usage.rows[0].key, "parent");
    assert_eq!(usage.totals.tokens.input_tokens, 200);
}
