//! Amp threads (`~/.local/share/amp/threads/T-<id>.json`): each thread one JSON document that
//! Amp rewrites whole as it changes (current Amp keeps new threads on its server; these files
//! are the history it left on disk, and what `amp threads export` prints has the same shape).
//! A thread is read whole: its messages (prompts, responses with thinking and tool calls, the
//! tools' results, notices) and one usage row per response that counted tokens. A response's
//! `usage` is its own (not a running total); `totalInputTokens` sums the three input counts and
//! `maxInputTokens` is the context window, so neither is added. Threads of OpenAI's models put
//! the uncached prompt in `cacheCreationInputTokens` with `inputTokens` 0: it is input there, as
//! no cache write is billed for them. Older threads also keep a `usageLedger`, which repeats the
//! responses' usage and is not read.

use crate::tokens::TokenTotals;
use crate::transcripts::conversation::title::prompt_title;
use crate::transcripts::conversation::{Block, Conversation, Message, Parsed, Role, text_of, time};
use crate::transcripts::whole::{UsageRead, WholeFormat, WholeReader, WholeUsage, object_of};
use crate::transcripts::{Provider, Timestamp, UsageEntry, fingerprint, parse_line};
use serde::Deserialize;
use serde_json::Value;

/// A response's tokens in Baton's one meaning; `None` for a placeholder that counts nothing.
fn usage_tokens(usage: &Value, model: Option<&str>) -> Option<TokenTotals> {
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let (mut input, output) = (count("inputTokens"), count("outputTokens"));
    let (mut write, read) = (
        count("cacheCreationInputTokens"),
        count("cacheReadInputTokens"),
    );
    if input == 0 && output == 0 && write == 0 && read == 0 {
        return None;
    }
    if model.is_some_and(|m| m.starts_with("gpt-") || m.starts_with("o3") || m.starts_with("o4")) {
        input += write;
        write = 0;
    }
    Some(TokenTotals {
        input_tokens: input,
        output_tokens: output,
        cache_creation_tokens: write,
        cache_read_tokens: read,
        reasoning_tokens: 0,
    })
}

/// When a message was written: its usage's time, else when it was sent (milliseconds).
fn message_time(message: &Value) -> Option<Timestamp> {
    time(&message["usage"]["timestamp"]).or_else(|| {
        message["meta"]["sentAt"]
            .as_i64()
            .map(Timestamp::from_millis)
    })
}

/// The thread's id: its own, else its file's name.
fn thread_id(thread: &Value, path: &str) -> String {
    match thread["id"].as_str() {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => {
            let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
            name.strip_suffix(".json").unwrap_or(name).to_owned()
        }
    }
}

/// The folder the thread worked in (`file:///…` of its first tree), else the tree's name.
fn project_of(thread: &Value) -> Option<String> {
    let tree = &thread["env"]["initial"]["trees"][0];
    tree["uri"]
        .as_str()
        .and_then(crate::transcripts::places::path_of_uri)
        .or_else(|| tree["displayName"].as_str().map(str::to_owned))
}

/// A tool's result as text: a string as it is, `{output}` its output, else the JSON.
fn result_text(run: &Value) -> String {
    let result = &run["result"];
    match result {
        Value::Null => run["error"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| run["error"]["message"].as_str().unwrap_or("").to_owned()),
        Value::String(text) => text.clone(),
        Value::Array(_) => text_of(result),
        _ => match &result["output"] {
            Value::String(text) => text.clone(),
            _ => result.to_string(),
        },
    }
}

fn blocks_of(content: &Value) -> Vec<Block> {
    let mut blocks = Vec::new();
    let items: Vec<Value> = match content {
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        Value::Array(items) => items.clone(),
        _ => Vec::new(),
    };
    for item in &items {
        match item["type"].as_str().unwrap_or_default() {
            "text" => blocks.push(Block::Text {
                text: text_of(&item["text"]),
            }),
            "thinking" => blocks.push(Block::Thinking {
                text: text_of(&item["thinking"]),
            }),
            "redacted_thinking" => blocks.push(Block::Thinking {
                text: String::new(),
            }),
            "tool_use" => blocks.push(Block::ToolCall {
                id: text_of(&item["id"]),
                name: text_of(&item["name"]),
                input: item["input"].to_string(),
            }),
            "tool_result" => {
                let run = &item["run"];
                let status = run["status"].as_str().unwrap_or_default();
                let call = match &item["toolUseID"] {
                    Value::Null => &item["tool_use_id"],
                    id => id,
                };
                blocks.push(Block::ToolResult {
                    call_id: text_of(call),
                    output: result_text(run),
                    is_error: matches!(status, "error" | "cancelled" | "rejected-by-user"),
                });
            }
            "summary" => blocks.push(Block::Text {
                text: text_of(&item["summary"]["summary"]),
            }),
            kind => blocks.push(Block::Other {
                kind: kind.to_owned(),
                raw: item.to_string(),
            }),
        }
    }
    blocks
}

/// Amp's threads, read whole ([`WholeReader`], [`WholeUsage`]).
#[derive(Debug, Clone, Copy)]
pub struct AmpThread;

/// Reads an Amp thread as a conversation.
pub type AmpReader = WholeReader<AmpThread>;
/// Reads an Amp thread's usage rows.
pub type AmpUsage = WholeUsage<AmpThread>;

impl WholeFormat for AmpThread {
    type Notes = ();

    fn conversations(self, path: &str, bytes: &[u8], _: &mut (), parsed: &mut Parsed) {
        if let Some(thread) = object_of(bytes, &mut parsed.stats) {
            conversation_of(path, &thread, parsed);
        }
    }

    fn usage(self, path: &str, bytes: &[u8], _: &mut (), read: &mut UsageRead) {
        usage_of(path, bytes, read);
    }

    fn both(self, path: &str, bytes: &[u8], _: &mut (), parsed: &mut Parsed, read: &mut UsageRead) {
        let Some(thread) = object_of(bytes, &mut parsed.stats) else {
            read.stats.malformed += 1;
            return;
        };
        read.stats.repaired_surrogates += parsed.stats.repaired_surrogates;
        conversation_of(path, &thread, parsed);
        // What usage reads, taken from the parsed thread (its messages' content not copied).
        match UsageThread::deserialize(&thread) {
            Ok(usage) => rows_of(path, usage, read),
            Err(_) => read.stats.malformed += 1,
        }
    }
}

/// An Amp thread as a conversation.
fn conversation_of(path: &str, thread: &Value, parsed: &mut Parsed) {
    let id = thread_id(thread, path);
    let mut conversation = Conversation::new(Provider::Amp, id.clone());
    conversation.title = thread["title"]
        .as_str()
        .filter(|t| !t.trim().is_empty())
        .map(str::to_owned);
    conversation.project = project_of(thread);
    conversation.started_at = thread["created"].as_i64().map(Timestamp::from_millis);
    let mut previous: Option<String> = None;
    for (at, message) in thread["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let blocks = blocks_of(&message["content"]);
        let role = match message["role"].as_str() {
            Some("user") if blocks.iter().all(|b| matches!(b, Block::ToolResult { .. })) => {
                Role::Tool
            }
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("info") => Role::System,
            other => {
                let kind = other.unwrap_or("message without a role").to_owned();
                parsed.unknown(kind, message.to_string().as_bytes());
                continue;
            }
        };
        if role == Role::User && conversation.first_prompt.is_none() {
            let text = blocks.iter().find_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            });
            conversation.first_prompt = text.and_then(prompt_title);
        }
        let number = match &message["messageId"] {
            Value::Null => at.to_string(),
            n => text_of(n),
        };
        let model = message["usage"]["model"].as_str();
        let message_id = format!("{id}:{number}");
        conversation.messages.push(Message {
            id: message_id.clone(),
            parent: previous.replace(message_id),
            role,
            at: message_time(message),
            blocks,
            model: model.map(str::to_owned),
            side_chain: false,
            tokens: usage_tokens(&message["usage"], model),
        });
    }
    conversation.active_leaf = previous;
    conversation.seal();
    parsed.conversations.push(conversation);
}

/// What usage reads of a thread (everything else, the messages' content first, is skipped).
#[derive(Debug, Deserialize)]
struct UsageThread {
    #[serde(default)]
    id: Value,
    #[serde(default)]
    created: Value,
    #[serde(default)]
    env: Value,
    #[serde(default)]
    messages: Vec<UsageMessage>,
}

/// What usage reads of a message.
#[derive(Debug, Deserialize)]
struct UsageMessage {
    #[serde(default)]
    role: Value,
    #[serde(default, rename = "messageId")]
    message_id: Value,
    #[serde(default)]
    usage: Value,
    #[serde(default)]
    meta: Value,
}

/// A thread's usage rows. Only what usage needs is read: the messages' content is passed
/// over unparsed.
fn usage_of(path: &str, bytes: &[u8], read: &mut UsageRead) {
    let Some(thread) = parse_line::<UsageThread>(bytes, &mut read.stats) else {
        read.stats.malformed += 1;
        return;
    };
    rows_of(path, thread, read);
}

/// A thread's usage rows, from what usage reads of it.
fn rows_of(path: &str, thread: UsageThread, read: &mut UsageRead) {
    let head = serde_json::json!({"id": thread.id, "env": thread.env});
    let id = thread_id(&head, path);
    let session = read.strings.get(&id);
    let project = project_of(&head).map(|p| read.strings.get(&p));
    let created = thread.created.as_i64().map(Timestamp::from_millis);
    for (at, message) in thread.messages.iter().enumerate() {
        let usage = &message.usage;
        if message.role != "assistant" || !usage.is_object() {
            continue;
        }
        let model = usage["model"].as_str();
        let Some(tokens) = usage_tokens(usage, model) else {
            read.stats.without_usage += 1;
            continue;
        };
        let sent = message.meta["sentAt"].as_i64().map(Timestamp::from_millis);
        let Some(when) = time(&usage["timestamp"]).or(sent).or(created) else {
            read.stats.malformed += 1;
            continue;
        };
        let number = match &message.message_id {
            Value::Null => at.to_string(),
            n => text_of(n),
        };
        let entry = UsageEntry {
            provider: Provider::Amp,
            at: when,
            session: session.clone(),
            project: project.clone(),
            model: model.map(|m| read.strings.get(m)),
            tokens,
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: None,
            fast: false,
            web_searches: 0,
            delegated: false,
        };
        let key = fingerprint(&[b"amp", id.as_bytes(), number.as_bytes()]);
        read.rows.push((entry, key));
    }
}

/// Whether the first bytes of a file are an Amp thread: one object whose `id` is a thread's
/// (`T-` and a UUID) near its start.
pub(crate) fn looks_like_thread(text: &str) -> bool {
    let start = text.trim_start();
    if !start.starts_with('{') {
        return false;
    }
    let near: String = start.chars().take(400).collect();
    let compact: String = near.split_whitespace().collect();
    compact.find("\"id\":\"T-").is_some_and(|at| {
        compact[at + 8..]
            .chars()
            .take(36)
            .filter(|c| *c == '-')
            .count()
            == 4
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcripts::lines::LineReader as _;

    const THREAD: &str = r#"{
  "v": 5,
  "id": "T-019ca26f-aaaa-bbbb-cccc-dddddddddddd",
  "created": 1787216400000,
  "messages": [
    {"role": "user", "messageId": 0, "content": [{"type": "text", "text": "list the files"}], "meta": {"sentAt": 1787216401000}},
    {"role": "assistant", "messageId": 1, "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"cmd": "ls"}}],
     "usage": {"model": "claude-sonnet-4-5", "timestamp": "2026-08-20T09:00:03Z", "inputTokens": 100, "outputTokens": 50, "cacheCreationInputTokens": 10, "cacheReadInputTokens": 5, "totalInputTokens": 115, "maxInputTokens": 968000}},
    {"role": "user", "messageId": 2, "content": [{"type": "tool_result", "toolUseID": "toolu_1", "run": {"status": "done", "result": {"output": "a.txt", "exitCode": 0}}}]},
    {"role": "assistant", "messageId": 3, "content": [{"type": "text", "text": "One file."}],
     "usage": {"model": "gpt-5", "timestamp": "2026-08-20T09:00:05Z", "inputTokens": 0, "outputTokens": 7, "cacheCreationInputTokens": 900, "cacheReadInputTokens": 0, "totalInputTokens": 900}},
    {"role": "assistant", "messageId": 4, "content": [], "usage": {"inputTokens": 0, "outputTokens": 0}}
  ],
  "env": {"initial": {"trees": [{"displayName": "app", "uri": "file:///home/dev/app"}]}}
}"#;

    fn lines(text: &str) -> Vec<&[u8]> {
        text.lines().map(str::as_bytes).collect()
    }

    #[test]
    fn a_thread_reads_whole_with_its_usage_once_per_response() {
        let mut reader =
            AmpReader::new(AmpThread, "/t/T-019ca26f-aaaa-bbbb-cccc-dddddddddddd.json");
        let mut usage = AmpUsage::new(AmpThread, "/t/T-019ca26f-aaaa-bbbb-cccc-dddddddddddd.json");
        for line in lines(THREAD) {
            reader.push_line(line);
            usage.push_line(line);
        }
        let parsed = reader.finish();
        let conversation = &parsed.conversations[0];
        assert_eq!(conversation.first_prompt.as_deref(), Some("list the files"));
        assert_eq!(conversation.project.as_deref(), Some("/home/dev/app"));
        assert_eq!(conversation.tool_counts(), (1, 1));
        assert_eq!(conversation.messages[2].role, Role::Tool);
        usage.end();
        let rows = usage.take_rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].0.tokens.input_tokens, 100);
        assert_eq!(rows[0].0.tokens.cache_creation_tokens, 10);
        // An OpenAI model's uncached prompt, written as a cache write, is input.
        assert_eq!(rows[1].0.tokens.input_tokens, 900);
        assert_eq!(rows[1].0.tokens.cache_creation_tokens, 0);
        assert!(looks_like_thread(THREAD));
        assert!(looks_like_thread(&THREAD.replace('\n', "")));
        assert!(!looks_like_thread(r#"{"id":"T-1"}"#));
    }

    #[test]
    fn a_cut_or_odd_document_is_no_thread_and_no_panic() {
        for text in [
            &THREAD[..THREAD.len() / 2],
            r#"{"id": 7, "messages": {"a": 1}}"#,
            r#"{"messages": [{"role": 3, "content": 9, "usage": {"inputTokens": "x"}}]}"#,
            "[]",
            "",
        ] {
            let mut reader = AmpReader::new(AmpThread, "T-x.json");
            let mut usage = AmpUsage::new(AmpThread, "T-x.json");
            for line in lines(text) {
                reader.push_line(line);
                usage.push_line(line);
            }
            let _ = reader.finish();
            usage.end();
            assert!(usage.take_rows().is_empty());
        }
    }
}
