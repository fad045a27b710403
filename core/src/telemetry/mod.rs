//! What coding agents report of their own model requests over OpenTelemetry, read into one
//! shape: Claude Code's `api_request` events, Codex's completed responses, and spans that
//! follow OpenTelemetry's GenAI conventions (Copilot's). Each reported request has a stable
//! key, so a report sent twice is kept once. The host decodes the wire (OTLP over HTTP, or a
//! file an agent wrote) into [`Record`]s and asks [`read`]; nothing here knows the wire.

pub mod reconcile;
pub mod traces;

use crate::tokens::TokenTotals;
use crate::transcripts::Provider;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Attributes as OpenTelemetry gives them, each value plain JSON (strings, numbers, booleans,
/// lists, maps).
pub type Attributes = BTreeMap<String, Value>;

/// One log record or span, as the host decoded it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Record {
    /// The event's name (a log record's `event_name`, else its `event.name` attribute), or a
    /// span's name.
    pub name: Option<String>,
    /// A log record's body, when it is a string.
    pub body: Option<String>,
    /// The record's own attributes.
    pub attributes: Attributes,
    /// Its resource's attributes (`service.name`, …).
    pub resource: Attributes,
    /// When it happened, in milliseconds since the epoch (a span: when it started).
    pub at_ms: Option<i64>,
    /// A span's length in milliseconds.
    pub span_ms: Option<i64>,
    /// A span's trace and span ids (hex), which name it when nothing else does.
    pub span_id: Option<String>,
}

/// One model request an agent reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reported {
    /// Which agent reported it (`claude_code`, `codex`, `copilot_cli`, or the service's name).
    pub source: String,
    /// The agent's session (Claude Code's `session.id`, Codex's conversation id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The prompt it answered (Claude Code's `prompt.id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The provider's request id, which the transcript keeps too (Claude Code's `requestId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// The model asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When (ms since the epoch).
    pub at_ms: i64,
    /// Its tokens by class.
    pub tokens: TokenTotals,
    /// The cost the agent computed, in US dollars, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// How long the request took.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<i64>,
    /// What names it among the agent's reports: the request id, else the prompt and the
    /// event's sequence number, else the span, else its time and figures.
    pub key: String,
}

/// A number however it came: OpenTelemetry integers, doubles, or their text (some agents send
/// every attribute as a string).
fn number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|n| n.is_finite())
}

/// The most tokens one request is believed to have (a larger count is a broken report).
const MOST_TOKENS: f64 = 1e12;

fn count(value: Option<&Value>) -> u64 {
    number(value).map_or(0, |n| {
        if n > 0.0 && n <= MOST_TOKENS {
            n.round() as u64
        } else {
            0
        }
    })
}

fn text(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The agent a record came from: the one the event's family names (`claude_code.*`,
/// `codex.*`), else its resource's `service.name` (a provider's key when Baton knows the
/// agent, else the name as given).
fn source(record: &Record, fallback: &str) -> String {
    if fallback != "genai" {
        return fallback.to_owned();
    }
    match text(record.resource.get("service.name")) {
        Some(name) => {
            let lowered = name.to_ascii_lowercase();
            if lowered.contains("copilot") {
                return Provider::CopilotCli.key().to_owned();
            }
            Provider::named(&lowered)
                .map(|p| p.key().to_owned())
                .unwrap_or(name)
        }
        None => fallback.to_owned(),
    }
}

/// Every name the record goes by: a log record's event name, its `event.name` attribute, its
/// body (an agent logging through a bridge may fill one with something else).
fn names(record: &Record) -> Vec<String> {
    [
        record.name.clone(),
        text(record.attributes.get("event.name")),
        record.body.clone(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Whether a record with GenAI token counts is one model request: a span of an inference
/// operation (an agent's `invoke_agent` span adds its children's tokens up), or a log.
fn one_request(record: &Record) -> bool {
    match text(record.attributes.get("gen_ai.operation.name")) {
        Some(operation) => matches!(
            operation.as_str(),
            "chat" | "text_completion" | "generate_content"
        ),
        // A span says what it is in its name (`chat gpt-4.1`); a log record is one report.
        None => {
            record.span_id.is_none()
                || record.name.as_deref().is_some_and(|n| {
                    ["chat", "text_completion", "generate_content"]
                        .iter()
                        .any(|op| n == *op || n.starts_with(&format!("{op} ")))
                })
        }
    }
}

/// The latest time a record may say (the year 2286): later ones are no times.
const LATEST_MS: i64 = 10_000_000_000_000;

/// The request `record` reports, if it reports one.
pub fn read(record: &Record) -> Option<Reported> {
    let names = names(record);
    let named = |wanted: &[&str]| names.iter().any(|n| wanted.contains(&n.as_str()));
    let a = &record.attributes;
    let at_ms = record
        .at_ms
        .or_else(|| {
            text(a.get("event.timestamp"))
                .and_then(|t| crate::time::Timestamp::parse(&t).ok())
                .map(|t| t.millis())
        })
        .unwrap_or(0)
        .clamp(0, LATEST_MS);
    // Claude Code: `claude_code.api_request` (the body), `api_request` (`event.name`).
    if named(&["claude_code.api_request", "api_request"]) {
        let tokens = TokenTotals {
            input_tokens: count(a.get("input_tokens")),
            output_tokens: count(a.get("output_tokens")),
            cache_creation_tokens: count(a.get("cache_creation_tokens")),
            cache_read_tokens: count(a.get("cache_read_tokens")),
            reasoning_tokens: 0,
        };
        return Some(finish(Reported {
            source: source(record, Provider::ClaudeCode.key()),
            session_id: text(a.get("session.id")),
            prompt_id: text(a.get("prompt.id")),
            request_id: text(a.get("request_id")).or_else(|| text(a.get("request.id"))),
            model: text(a.get("model")),
            at_ms,
            tokens,
            cost_usd: number(a.get("cost_usd")),
            duration_ms: number(a.get("duration_ms")).map(|d| d.round() as i64),
            key: sequence_key(a),
        }));
    }
    // Codex: a streamed response's completion carries its tokens.
    // (A failed completion has the same kind, an error and no counts: no request.)
    if named(&["codex.sse_event"])
        && text(a.get("event.kind")).as_deref() == Some("response.completed")
        && a.contains_key("input_token_count")
        && !a.contains_key("error.message")
    {
        let cached = count(a.get("cached_token_count"));
        let tokens = TokenTotals {
            // Codex counts the cached part inside the input.
            input_tokens: count(a.get("input_token_count")).saturating_sub(cached),
            output_tokens: count(a.get("output_token_count")),
            cache_creation_tokens: 0,
            cache_read_tokens: cached,
            reasoning_tokens: count(a.get("reasoning_token_count")),
        };
        return Some(finish(Reported {
            source: source(record, Provider::Codex.key()),
            session_id: text(a.get("conversation.id")),
            prompt_id: None,
            request_id: text(a.get("response.id")),
            model: text(a.get("model")),
            at_ms,
            tokens,
            cost_usd: None,
            duration_ms: number(a.get("duration_ms")).map(|d| d.round() as i64),
            key: sequence_key(a),
        }));
    }
    // GenAI conventions (Copilot's `chat {model}` spans, and any agent that follows them).
    let input = a.get("gen_ai.usage.input_tokens");
    let output = a.get("gen_ai.usage.output_tokens");
    if (input.is_some() || output.is_some()) && one_request(record) {
        let cache_read = count(
            a.get("gen_ai.usage.cache_read.input_tokens")
                .or_else(|| a.get("gen_ai.usage.cache_read_input_tokens")),
        );
        let cache_creation = count(
            a.get("gen_ai.usage.cache_creation.input_tokens")
                .or_else(|| a.get("gen_ai.usage.cache_write.input_tokens"))
                .or_else(|| a.get("gen_ai.usage.cache_creation_input_tokens")),
        );
        // The conventions count cached tokens (read and written) in the input; Baton counts
        // them apart.
        let tokens = TokenTotals {
            input_tokens: count(input)
                .saturating_sub(cache_read)
                .saturating_sub(cache_creation),
            output_tokens: count(output),
            cache_creation_tokens: cache_creation,
            cache_read_tokens: cache_read,
            reasoning_tokens: count(
                a.get("gen_ai.usage.reasoning.output_tokens")
                    .or_else(|| a.get("gen_ai.usage.reasoning_tokens")),
            ),
        };
        return Some(finish(Reported {
            source: source(record, "genai"),
            session_id: [
                "gen_ai.conversation.id",
                "copilot_chat.session_id",
                "copilot_chat.chat_session_id",
                "session.id",
            ]
            .iter()
            .find_map(|k| text(a.get(*k))),
            prompt_id: None,
            request_id: text(a.get("gen_ai.response.id")),
            model: text(a.get("gen_ai.response.model"))
                .or_else(|| text(a.get("gen_ai.request.model"))),
            at_ms,
            tokens,
            cost_usd: number(a.get("gen_ai.usage.cost")).or_else(|| number(a.get("cost_usd"))),
            duration_ms: record.span_ms,
            key: record
                .span_id
                .as_ref()
                .map(|s| format!("span:{s}"))
                .unwrap_or_default(),
        }));
    }
    None
}

/// Claude Code numbers its events within a prompt: the prompt and that number name one.
fn sequence_key(a: &Attributes) -> String {
    match (text(a.get("prompt.id")), text(a.get("event.sequence"))) {
        (Some(prompt), Some(sequence)) => format!("prompt:{prompt}#{sequence}"),
        _ => String::new(),
    }
}

/// Gives `reported` its key: the request id when there is one, else what the reader found,
/// else its time, session, model and figures (a report sent again is the same).
fn finish(mut reported: Reported) -> Reported {
    let prefix = format!("{}:", reported.source);
    reported.key = match (&reported.request_id, reported.key.is_empty()) {
        (Some(request), _) => format!("{prefix}request:{request}"),
        (None, false) => format!("{prefix}{}", reported.key),
        (None, true) => {
            let t = &reported.tokens;
            format!(
                "{prefix}at:{}:{}:{}:{}/{}/{}/{}/{}",
                reported.at_ms,
                reported.session_id.as_deref().unwrap_or(""),
                reported.model.as_deref().unwrap_or(""),
                t.input_tokens,
                t.output_tokens,
                t.cache_creation_tokens,
                t.cache_read_tokens,
                t.reasoning_tokens
            )
        }
    };
    reported
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn attrs(v: Value) -> Attributes {
        v.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    #[test]
    fn claude_codes_api_request_is_read_whatever_carries_its_name_and_numbers() {
        let record = Record {
            body: Some("claude_code.api_request".to_owned()),
            attributes: attrs(json!({
                "event.name": "api_request", "session.id": "s-1", "prompt.id": "p-1",
                "event.sequence": 3, "model": "claude-sonnet-4-5", "input_tokens": "120",
                "output_tokens": 45, "cache_read_tokens": 1000, "cache_creation_tokens": 0,
                "cost_usd": "0.0123", "duration_ms": 2200.4,
                "event.timestamp": "2026-12-01T10:00:00.000Z"
            })),
            resource: attrs(json!({"service.name": "claude-code"})),
            ..Record::default()
        };
        let r = read(&record).unwrap();
        assert_eq!(r.source, "claude_code");
        assert_eq!(
            (
                r.tokens.input_tokens,
                r.tokens.output_tokens,
                r.tokens.cache_read_tokens
            ),
            (120, 45, 1000)
        );
        assert_eq!(r.cost_usd, Some(0.0123));
        assert_eq!(r.duration_ms, Some(2200));
        assert_eq!(r.at_ms, 1_796_119_200_000);
        assert_eq!(r.key, "claude_code:prompt:p-1#3");
        let with_id = Record {
            attributes: {
                let mut a = record.attributes.clone();
                a.insert("request_id".to_owned(), json!("req_01"));
                a
            },
            ..record.clone()
        };
        assert_eq!(read(&with_id).unwrap().key, "claude_code:request:req_01");
        // Other events are no requests.
        let prompt = Record {
            body: Some("claude_code.user_prompt".to_owned()),
            ..Record::default()
        };
        assert_eq!(read(&prompt), None);
    }

    #[test]
    fn codex_and_genai_spans_are_read_and_a_bare_report_keyed_by_its_figures() {
        let codex = Record {
            // Codex logs through tracing's bridge: the record's own event name is tracing's.
            name: Some("event codex-rs/otel/src/otel_event_manager.rs:512".to_owned()),
            attributes: attrs(json!({
                "event.name": "codex.sse_event",
                "event.kind": "response.completed", "conversation.id": "c-1",
                "input_token_count": 1000, "cached_token_count": 600,
                "output_token_count": 50, "reasoning_token_count": 20, "model": "gpt-5-codex"
            })),
            at_ms: Some(5),
            ..Record::default()
        };
        let r = read(&codex).unwrap();
        assert_eq!(
            (r.tokens.input_tokens, r.tokens.cache_read_tokens),
            (400, 600)
        );
        assert_eq!(r.key, "codex:at:5:c-1:gpt-5-codex:400/50/0/600/20");
        let span = Record {
            name: Some("chat gpt-4.1".to_owned()),
            attributes: attrs(json!({
                "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 2,
                "gen_ai.request.model": "gpt-4.1", "gen_ai.conversation.id": "conv"
            })),
            resource: attrs(json!({"service.name": "github-copilot"})),
            span_id: Some("0af7651916cd43dd8448eb211c80319c/b7ad6b7169203331".to_owned()),
            span_ms: Some(900),
            ..Record::default()
        };
        let r = read(&span).unwrap();
        assert_eq!(r.source, "copilot_cli");
        // An agent's span adds its requests up: not a request of its own.
        let mut agent = span.clone();
        agent.name = Some("invoke_agent copilot".to_owned());
        assert_eq!(read(&agent), None);
        let mut chat = span.clone();
        chat.attributes
            .insert("gen_ai.operation.name".to_owned(), json!("chat"));
        assert!(read(&chat).is_some());
        chat.attributes
            .insert("gen_ai.operation.name".to_owned(), json!("invoke_agent"));
        assert_eq!(read(&chat), None);
        // A count no request has is no count.
        let mut huge = codex.clone();
        huge.attributes
            .insert("output_token_count".to_owned(), json!(1e30));
        assert_eq!(read(&huge).unwrap().tokens.output_tokens, 0);
        assert_eq!(r.duration_ms, Some(900));
        assert!(r.key.starts_with("copilot_cli:span:0af7"));
    }

    #[test]
    fn a_copilot_file_line_counts_its_cached_input_apart() {
        // As Copilot's file exporter writes a chat span: the attributes a map, the input
        // counting its cached part, the cache write and reasoning under their newer names.
        let span = Record {
            name: Some("chat claude-sonnet-4.5".to_owned()),
            attributes: attrs(json!({
                "gen_ai.operation.name": "chat",
                "gen_ai.usage.input_tokens": 1000, "gen_ai.usage.cache_read.input_tokens": 700,
                "gen_ai.usage.cache_write.input_tokens": 50,
                "gen_ai.usage.reasoning.output_tokens": 9, "gen_ai.usage.output_tokens": 40,
                "gen_ai.response.model": "claude-sonnet-4.5",
                "copilot_chat.session_id": "chat-1"
            })),
            span_id: Some("aa/bb".to_owned()),
            ..Record::default()
        };
        let r = read(&span).unwrap();
        assert_eq!(
            (
                r.tokens.input_tokens,
                r.tokens.cache_read_tokens,
                r.tokens.cache_creation_tokens,
                r.tokens.reasoning_tokens
            ),
            (250, 700, 50, 9)
        );
        assert_eq!(r.session_id.as_deref(), Some("chat-1"));
        // A log record written inside that span (its inference details, with the same
        // figures) is named as the span is: the index keeps one of the two.
        let details = Record {
            name: None,
            attributes: span.attributes.clone(),
            span_id: Some("aa/bb".to_owned()),
            ..Record::default()
        };
        assert_eq!(read(&details).map(|d| d.key), Some(r.key.clone()));
    }
}
