//! Work sessions as OpenTelemetry traces: one trace per work session, its root span the
//! session (project, branch, status, health, liveness, agent, tokens and cost as attributes;
//! its ledger events as span events; a hand-off as a link to the session it continues), under
//! it a span per agent turn (a person's prompt and what the agent did until the next one), and
//! under each turn a span per model request its transcripts hold (GenAI conventions: model,
//! token counts, cost) and per tool call. Every id is derived from the ledger's and the index's own ids, so an export sent
//! again names the same spans. Beside them, the tokens and cost of its requests as metric
//! points by model, project and agent ([`points`]). The host encodes both and sends them.

use crate::ledger::event::Event;
use crate::ledger::session::Session;
use crate::tokens::TokenTotals;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

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

/// A prompt a person gave the agent: it opens a turn, which lasts until the next prompt in
/// the same agent session.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The agent's session it belongs to.
    pub agent_session: String,
    /// The prompt message's own id (the turn's span id comes from it).
    pub message_id: String,
    /// When the prompt was written (ms).
    pub at_ms: i64,
}

/// A tool call a work session's transcripts hold.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The agent's session it belongs to.
    pub agent_session: String,
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
    /// Its name (`work_session claude`, `invoke_agent claude`, `chat <model>`,
    /// `execute_tool <name>`).
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

/// Token counts as the GenAI conventions name them: the input counts its cached part (read
/// and written), which is also given apart.
fn tokens(out: &mut Vec<(String, Value)>, t: &TokenTotals) {
    out.push(int(
        "gen_ai.usage.input_tokens",
        t.input_tokens
            .saturating_add(t.cache_read_tokens)
            .saturating_add(t.cache_creation_tokens),
    ));
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

/// The turns of one work session, by agent session, in time order: each turn's start and
/// span id.
struct Turns<'a> {
    by_session: BTreeMap<&'a str, Vec<(i64, [u8; 8])>>,
}

impl<'a> Turns<'a> {
    fn new(session: &str, turns: &'a [Turn]) -> Self {
        let mut by_session: BTreeMap<&str, Vec<(i64, [u8; 8])>> = BTreeMap::new();
        for t in turns {
            by_session.entry(&t.agent_session).or_default().push((
                t.at_ms,
                span_id(&["turn", session, &t.agent_session, &t.message_id]),
            ));
        }
        for list in by_session.values_mut() {
            list.sort_by_key(|(at, _)| *at);
        }
        Turns { by_session }
    }

    /// The turn a request or tool call at `at_ms` of `agent_session` belongs to: the latest
    /// that began at or before it.
    fn of(&self, agent_session: &str, at_ms: i64) -> Option<[u8; 8]> {
        let list = self.by_session.get(agent_session)?;
        let n = list.partition_point(|(at, _)| *at <= at_ms);
        n.checked_sub(1).map(|n| list[n].1)
    }
}

/// The spans of one work session: its root, its turns, then its requests and tool calls in
/// time order, each under the turn it happened in (under the root when before any prompt).
pub fn spans(
    session: &Session,
    events: &[&Event],
    turns: &[Turn],
    requests: &[Request],
    tools: &[ToolCall],
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
    if let Some(seen) = &session.liveness {
        attributes.push(text("baton.liveness", seen.state.as_str()));
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
    let turn_of = Turns::new(&id, turns);
    out.extend(turn_spans(
        session, &id, trace_id, root_id, turns, requests, tools,
    ));
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
            parent: Some(turn_of.of(&r.agent_session, r.at_ms).unwrap_or(root_id)),
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
            span_id: span_id(&["tool", &id, &t.agent_session, &t.call_id]),
            parent: Some(turn_of.of(&t.agent_session, t.at_ms).unwrap_or(root_id)),
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

/// What happened within one turn.
#[derive(Debug, Clone, Copy, Default)]
struct Inside {
    /// Its last request's or tool call's moment (ms).
    last: i64,
    tokens: TokenTotals,
    cost: f64,
    /// Whether any of its requests was priced.
    priced: bool,
    requests: u64,
    tools: u64,
}

/// A span per turn: from its prompt to the last request or tool call before the next prompt,
/// with the tokens and cost of its requests.
fn turn_spans(
    session: &Session,
    id: &str,
    trace_id: [u8; 16],
    root_id: [u8; 8],
    turns: &[Turn],
    requests: &[Request],
    tools: &[ToolCall],
) -> Vec<Span> {
    let index = Turns::new(id, turns);
    let mut inside: BTreeMap<[u8; 8], Inside> = BTreeMap::new();
    for r in requests {
        if let Some(turn) = index.of(&r.agent_session, r.at_ms) {
            let entry = inside.entry(turn).or_default();
            entry.last = entry.last.max(r.at_ms);
            entry.tokens.add(&r.tokens);
            if let Some(c) = r.cost_usd {
                entry.cost += c;
                entry.priced = true;
            }
            entry.requests += 1;
        }
    }
    for t in tools {
        if let Some(turn) = index.of(&t.agent_session, t.at_ms) {
            let entry = inside.entry(turn).or_default();
            entry.last = entry.last.max(t.at_ms);
            entry.tools += 1;
        }
    }
    let mut out = Vec::new();
    let mut ordered: Vec<&Turn> = turns.iter().collect();
    ordered.sort_by_key(|t| t.at_ms);
    let mut counted: BTreeMap<&str, u64> = BTreeMap::new();
    for t in ordered {
        let span = span_id(&["turn", id, &t.agent_session, &t.message_id]);
        let number = counted.entry(&t.agent_session).or_default();
        *number += 1;
        let Inside {
            last,
            tokens: tokens_in,
            cost,
            priced,
            requests: asked,
            tools: used,
        } = inside.get(&span).copied().unwrap_or_default();
        let mut attributes = vec![
            text("gen_ai.operation.name", "invoke_agent"),
            text("gen_ai.agent.name", session.agent.clone()),
            text("gen_ai.conversation.id", t.agent_session.clone()),
            int("baton.turn", *number),
            int("baton.turn.requests", asked),
            int("baton.turn.tool_calls", used),
        ];
        tokens(&mut attributes, &tokens_in);
        if priced {
            attributes.push(("baton.cost_usd".to_owned(), Value::from(cost)));
        }
        out.push(Span {
            trace_id,
            span_id: span,
            parent: Some(root_id),
            name: format!("invoke_agent {}", session.agent),
            root: false,
            start_ms: t.at_ms,
            end_ms: last.max(t.at_ms),
            attributes,
            events: Vec::new(),
            links: Vec::new(),
            error: false,
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

    fn request(agent_session: &str, at_ms: i64, output: u64) -> Request {
        Request {
            key: format!("k{at_ms}"),
            agent_session: agent_session.to_owned(),
            at_ms,
            model: Some("m".to_owned()),
            tokens: TokenTotals {
                output_tokens: output,
                ..TokenTotals::default()
            },
            cost_usd: Some(output as f64 / 1e6),
        }
    }

    fn turn(agent_session: &str, message_id: &str, at_ms: i64) -> Turn {
        Turn {
            agent_session: agent_session.to_owned(),
            message_id: message_id.to_owned(),
            at_ms,
        }
    }

    #[test]
    fn requests_and_tools_sit_under_the_turn_they_happened_in() {
        let session = crate::transcripts::usage::test_support::work_session(
            "01900000-0000-7000-8000-000000000001",
            "agent-a",
            "2026-12-01T10:00:00Z",
            "app",
            "",
        );
        let t0 = session.started_at.millis();
        let turns = [
            turn("agent-a", "p1", t0 + 1_000),
            turn("agent-a", "p2", t0 + 10_000),
            turn("agent-b", "q1", t0 + 2_000),
        ];
        let requests = [
            request("agent-a", t0 + 500, 1),
            request("agent-a", t0 + 2_000, 10),
            request("agent-a", t0 + 5_000, 20),
            request("agent-a", t0 + 10_000, 40),
            request("agent-b", t0 + 6_000, 80),
        ];
        let tools = [ToolCall {
            agent_session: "agent-a".to_owned(),
            call_id: "c1".to_owned(),
            name: "Bash".to_owned(),
            at_ms: t0 + 7_000,
            failed: true,
        }];
        let out = spans(&session, &[], &turns, &requests, &tools);
        let root = out[0].span_id;
        let named = |name: &str| out.iter().filter(|s| s.name == name).collect::<Vec<_>>();
        let turn_spans = named("invoke_agent claude");
        assert_eq!(turn_spans.len(), 3);
        assert!(turn_spans.iter().all(|s| s.parent == Some(root)));
        let first = turn_spans
            .iter()
            .find(|s| s.start_ms == t0 + 1_000)
            .unwrap();
        let other = turn_spans
            .iter()
            .find(|s| s.start_ms == t0 + 2_000)
            .unwrap();
        let second = turn_spans
            .iter()
            .find(|s| s.start_ms == t0 + 10_000)
            .unwrap();
        // The first turn ends at its last tool call, holds two requests (30 tokens) and a call.
        assert_eq!(first.end_ms, t0 + 7_000);
        let attribute = |s: &Span, key: &str| {
            s.attributes
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            attribute(first, "gen_ai.usage.output_tokens"),
            Some(Value::from(30))
        );
        assert_eq!(
            attribute(first, "baton.turn.requests"),
            Some(Value::from(2))
        );
        assert_eq!(
            attribute(first, "baton.turn.tool_calls"),
            Some(Value::from(1))
        );
        assert_eq!(attribute(second, "baton.turn"), Some(Value::from(2)));
        assert_eq!(attribute(other, "baton.turn"), Some(Value::from(1)));
        let chats = named("chat m");
        let parent_at = |at: i64| chats.iter().find(|s| s.start_ms == at).unwrap().parent;
        assert_eq!(parent_at(t0 + 500), Some(root), "before any prompt");
        assert_eq!(parent_at(t0 + 2_000), Some(first.span_id));
        assert_eq!(parent_at(t0 + 5_000), Some(first.span_id));
        assert_eq!(
            parent_at(t0 + 10_000),
            Some(second.span_id),
            "a prompt's own moment"
        );
        assert_eq!(
            parent_at(t0 + 6_000),
            Some(other.span_id),
            "by its own agent session"
        );
        assert_eq!(named("execute_tool Bash")[0].parent, Some(first.span_id));
        // The same input names the same spans.
        assert_eq!(out, spans(&session, &[], &turns, &requests, &tools));
    }

    #[test]
    fn ids_are_stable_and_distinct() {
        assert_eq!(ids_of("a"), ids_of("a"));
        assert_ne!(ids_of("a").0, ids_of("b").0);
        assert_ne!(span_id(&["tool", "a", "1"]), span_id(&["tool", "a1", ""]));
    }
}
