//! Work sessions as OpenTelemetry traces: one trace per work session, its root span the
//! session (project, branch, status, health, agent, tokens and cost as attributes; its ledger
//! events as span events; a hand-off as a link to the session it continues), a child span per
//! model request its transcripts hold (GenAI conventions: model, token counts, cost) and per
//! tool call. Every id is derived from the ledger's and the index's own ids, so an export sent
//! again names the same spans. Beside them, the tokens and cost of its requests as metric
//! points by model, project and agent ([`points`]). The host encodes both and sends them.

use crate::ledger::event::Event;
use crate::ledger::session::Session;
use crate::tokens::TokenTotals;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A model request a work session's transcripts hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// What names the response in the index (its dedup key), else its time: the span's id
    /// comes from it, so a session sent again names its requests the same.
    pub key: String,
    /// The agent's session it belongs to.
    pub agent_session: String,
    /// When its response was written (ms).
    pub at_ms: i64,
    /// The model.
    pub model: Option<String>,
    /// Its tokens.
    pub tokens: TokenTotals,
    /// What it cost, when priced.
    pub cost_usd: Option<f64>,
}

/// A tool call a work session's transcripts hold.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The agent's own id of the call.
    pub call_id: String,
    /// The tool.
    pub name: String,
    /// When the message that made it was written (ms).
    pub at_ms: i64,
    /// Whether its result said it failed.
    pub failed: bool,
}

/// Attributes, in order: names and plain JSON values.
pub type Attributes = Vec<(String, Value)>;

/// A span event: its name, when (ms), its attributes.
pub type SpanEvent = (String, i64, Attributes);

/// One span, ready to encode.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The trace: the work session's.
    pub trace_id: [u8; 16],
    /// The span's own id.
    pub span_id: [u8; 8],
    /// The span it is under (the work session's), none for the session's own.
    pub parent: Option<[u8; 8]>,
    /// Its name (`work_session claude`, `chat <model>`, `execute_tool <name>`).
    pub name: String,
    /// Server (the root), or internal.
    pub root: bool,
    /// When it began (ms).
    pub start_ms: i64,
    /// When it ended (ms).
    pub end_ms: i64,
    /// Its attributes.
    pub attributes: Attributes,
    /// Its events: a name, when, and attributes.
    pub events: Vec<SpanEvent>,
    /// Links to other traces' spans (a hand-off's session).
    pub links: Vec<([u8; 16], [u8; 8])>,
    /// Whether it failed.
    pub error: bool,
}

fn digest(parts: &[&str]) -> [u8; 32] {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update(part.as_bytes());
        hash.update([0]);
    }
    hash.finalize().into()
}

/// The trace of work session `id`, and its root span's id.
pub fn ids_of(session: &str) -> ([u8; 16], [u8; 8]) {
    let d = digest(&["baton-trace", session]);
    let mut trace = [0; 16];
    trace.copy_from_slice(&d[..16]);
    let mut span = [0; 8];
    span.copy_from_slice(&d[16..24]);
    (trace, span)
}

fn span_id(parts: &[&str]) -> [u8; 8] {
    let d = digest(parts);
    let mut id = [0; 8];
    id.copy_from_slice(&d[..8]);
    id
}

fn text(key: &str, value: impl Into<String>) -> (String, Value) {
    (key.to_owned(), Value::String(value.into()))
}

fn int(key: &str, value: u64) -> (String, Value) {
    (key.to_owned(), Value::from(value))
}

fn tokens(out: &mut Vec<(String, Value)>, t: &TokenTotals) {
    out.push(int("gen_ai.usage.input_tokens", t.input_tokens));
    out.push(int("gen_ai.usage.output_tokens", t.output_tokens));
    out.push(int(
        "gen_ai.usage.cache_read.input_tokens",
        t.cache_read_tokens,
    ));
    out.push(int(
        "gen_ai.usage.cache_creation.input_tokens",
        t.cache_creation_tokens,
    ));
    if t.reasoning_tokens > 0 {
        out.push(int("gen_ai.usage.reasoning_tokens", t.reasoning_tokens));
    }
}

/// The spans of one work session: its root, then its requests and tool calls in time order.
/// `liveness` is what Baton knows of its agent's process (`live`, `gone`, …).
pub fn spans(
    session: &Session,
    events: &[&Event],
    requests: &[Request],
    tools: &[ToolCall],
    liveness: Option<&str>,
) -> Vec<Span> {
    let id = session.session_id.to_string();
    let (trace_id, root_id) = ids_of(&id);
    let end = session.ended_at.unwrap_or(session.last_event_at).millis();
    let start = session.started_at.millis();
    let mut attributes = vec![
        text("baton.session.id", id.clone()),
        text("baton.project", session.project.clone()),
        text("baton.agent", session.agent.clone()),
        text("gen_ai.agent.name", session.agent.clone()),
        text("baton.status", session.status.as_str()),
    ];
    if let Some(goal) = &session.goal {
        attributes.push(text("baton.goal", goal.clone()));
    }
    if let Some(branch) = &session.branch {
        attributes.push(text("vcs.ref.head.name", branch.clone()));
        attributes.push(text("baton.branch", branch.clone()));
    }
    if let Some(health) = session.health.as_ref().and_then(|h| h.overall) {
        attributes.push(int("baton.health", u64::from(health)));
    }
    if let Some(liveness) = liveness {
        attributes.push(text("baton.liveness", liveness));
    }
    if let Some(provider) = &session.provider_session_id {
        attributes.push(text("gen_ai.conversation.id", provider.clone()));
    }
    let mut total = TokenTotals::default();
    let mut cost = 0.0;
    let mut priced = false;
    for r in requests {
        total.add(&r.tokens);
        if let Some(c) = r.cost_usd {
            cost += c;
            priced = true;
        }
    }
    tokens(&mut attributes, &total);
    if priced {
        attributes.push(("baton.cost_usd".to_owned(), Value::from(cost)));
    }
    let mut root = Span {
        trace_id,
        span_id: root_id,
        parent: None,
        name: format!("work_session {}", session.agent),
        root: true,
        start_ms: start,
        end_ms: end.max(start),
        attributes,
        events: events
            .iter()
            .map(|e| {
                (
                    e.payload.kind().to_owned(),
                    e.at.millis(),
                    vec![text("baton.event.id", e.id.to_string())],
                )
            })
            .collect(),
        links: Vec::new(),
        error: session.status.as_str() == "failed",
    };
    if let Some(parent) = session.parent_session_id {
        root.links.push(ids_of(&parent.to_string()));
    }
    let mut out = vec![root];
    for r in requests {
        let model = r.model.clone().unwrap_or_else(|| "unknown".to_owned());
        let mut attributes = vec![
            text("gen_ai.operation.name", "chat"),
            text("gen_ai.request.model", model.clone()),
            text("gen_ai.conversation.id", r.agent_session.clone()),
        ];
        tokens(&mut attributes, &r.tokens);
        if let Some(c) = r.cost_usd {
            attributes.push(("baton.cost_usd".to_owned(), Value::from(c)));
        }
        out.push(Span {
            trace_id,
            span_id: span_id(&["request", &id, &r.agent_session, &r.key]),
            parent: Some(root_id),
            name: format!("chat {model}"),
            root: false,
            start_ms: r.at_ms,
            end_ms: r.at_ms,
            attributes,
            events: Vec::new(),
            links: Vec::new(),
            error: false,
        });
    }
    for t in tools {
        out.push(Span {
            trace_id,
            span_id: span_id(&["tool", &id, &t.call_id]),
            parent: Some(root_id),
            name: format!("execute_tool {}", t.name),
            root: false,
            start_ms: t.at_ms,
            end_ms: t.at_ms,
            attributes: vec![
                text("gen_ai.operation.name", "execute_tool"),
                text("gen_ai.tool.name", t.name.clone()),
                text("gen_ai.tool.call.id", t.call_id.clone()),
            ],
            events: Vec::new(),
            links: Vec::new(),
            error: t.failed,
        });
    }
    out
}

/// One metric point of a work session's requests: `baton.tokens` (of one token class) or
/// `baton.cost_usd`, by model, project and agent.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// `baton.tokens` or `baton.cost_usd`.
    pub metric: &'static str,
    /// The model, the project, the agent, and (tokens) the class.
    pub attributes: Vec<(String, String)>,
    /// How many tokens, or dollars.
    pub value: f64,
}

/// The metric points of `session`'s requests: per model, its tokens by class and its cost.
pub fn points(session: &Session, requests: &[Request]) -> Vec<Point> {
    use std::collections::BTreeMap;
    let mut by_model: BTreeMap<String, (TokenTotals, f64)> = BTreeMap::new();
    for r in requests {
        let entry = by_model
            .entry(r.model.clone().unwrap_or_else(|| "unknown".to_owned()))
            .or_default();
        entry.0.add(&r.tokens);
        entry.1 += r.cost_usd.unwrap_or(0.0);
    }
    let mut out = Vec::new();
    for (model, (t, cost)) in by_model {
        let base = vec![
            ("gen_ai.request.model".to_owned(), model),
            ("baton.project".to_owned(), session.project.clone()),
            ("baton.agent".to_owned(), session.agent.clone()),
        ];
        for (class, value) in [
            ("input", t.input_tokens),
            ("output", t.output_tokens),
            ("cache_read", t.cache_read_tokens),
            ("cache_creation", t.cache_creation_tokens),
            ("reasoning", t.reasoning_tokens),
        ] {
            if value > 0 {
                let mut attributes = base.clone();
                attributes.push(("gen_ai.token.type".to_owned(), class.to_owned()));
                out.push(Point {
                    metric: "baton.tokens",
                    attributes,
                    value: value as f64,
                });
            }
        }
        if cost > 0.0 {
            out.push(Point {
                metric: "baton.cost_usd",
                attributes: base,
                value: cost,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_distinct() {
        assert_eq!(ids_of("a"), ids_of("a"));
        assert_ne!(ids_of("a").0, ids_of("b").0);
        assert_ne!(span_id(&["tool", "a", "1"]), span_id(&["tool", "a1", ""]));
    }
}
