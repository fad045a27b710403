//! `baton otel export`: the ledger's ended work sessions sent as OpenTelemetry traces, and
//! their tokens and cost as metrics (the core's rules, [`baton_core::telemetry::traces`]), to
//! an OTLP/HTTP endpoint, protobuf. Each
//! session is sent once: what was sent, per endpoint, is kept in the user's data folder after
//! each accepted batch, so an export that stopped half way (a crash, the endpoint down) sends
//! the rest next time and nothing twice; the spans' ids come from the ledger's ids, so a
//! session sent again is the same spans.

use super::send::{metrics_uri, post, traces_uri};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::ledger::store::LedgerView;
use baton_core::telemetry::traces::{Point, Request, Span, ToolCall, Turn};
use baton_core::transcripts::Provider;
use baton_core::transcripts::usage::PriceTable;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1 as otlp;
use prost::Message;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What one export did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Exported {
    /// Work sessions sent now.
    pub sessions: usize,
    /// Their spans.
    pub spans: usize,
    /// Ended sessions sent before (not sent again).
    pub already: usize,
    /// Live sessions (sent once they end).
    pub live: usize,
    /// Ended sessions waiting for the index to count their responses (`baton mirror`).
    pub waiting: usize,
}

/// The most sessions, and the most spans, a batch sends (a request well under a collector's
/// usual 4 MB).
const BATCH: usize = 50;
const BATCH_SPANS: usize = 5_000;

/// Where what was sent is remembered: the user's data folder (else beside the ledger).
pub fn state_path(ledger: &Ledger) -> PathBuf {
    crate::os::places::data_dir()
        .unwrap_or_else(|| ledger.dir().to_path_buf())
        .join("otel-export.json")
}

type Sent = BTreeMap<String, BTreeMap<String, i64>>;

fn read_state(path: &Path) -> Sent {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write_state(path: &Path, sent: &Sent) -> Result<(), Error> {
    let text = serde_json::to_vec_pretty(sent).map_err(|e| Error::internal(e.to_string()))?;
    let shown = path.display().to_string();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::store_io("create", &shown, e))?;
    }
    crate::os::files::write_whole(path, &text).map_err(|e| Error::store_io("write", &shown, e))
}

/// A metric and its attributes: what a sum adds up by.
type PointKey<'a> = (&'a str, Vec<(String, String)>);

/// The points of a batch, added up by metric and attributes, as delta sums over
/// `[from, to]`: what these sessions add to what was sent before.
fn encode_points(points: &[Point], from: i64, to: i64) -> Vec<u8> {
    use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
    use opentelemetry_proto::tonic::metrics::v1 as m;
    let mut sums: BTreeMap<PointKey, f64> = BTreeMap::new();
    for p in points {
        *sums.entry((p.metric, p.attributes.clone())).or_insert(0.0) += p.value;
    }
    let mut metrics: BTreeMap<&str, Vec<m::NumberDataPoint>> = BTreeMap::new();
    for ((metric, attrs), value) in sums {
        let attributes = attrs
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::from(v.clone())))
            .collect::<Vec<_>>();
        metrics.entry(metric).or_default().push(m::NumberDataPoint {
            attributes: attributes_of(&attributes),
            start_time_unix_nano: nanos(from),
            time_unix_nano: nanos(to),
            value: Some(if metric == "baton.tokens" {
                m::number_data_point::Value::AsInt(value as i64)
            } else {
                m::number_data_point::Value::AsDouble(value)
            }),
            ..Default::default()
        });
    }
    let metrics = metrics
        .into_iter()
        .map(|(name, data_points)| m::Metric {
            name: name.to_owned(),
            unit: if name == "baton.tokens" {
                "{token}"
            } else {
                "USD"
            }
            .to_owned(),
            description: if name == "baton.tokens" {
                "Tokens of the work sessions' model requests"
            } else {
                "What the work sessions' model requests cost"
            }
            .to_owned(),
            data: Some(m::metric::Data::Sum(m::Sum {
                data_points,
                aggregation_temporality: m::AggregationTemporality::Delta as i32,
                is_monotonic: true,
            })),
            ..Default::default()
        })
        .collect();
    ExportMetricsServiceRequest {
        resource_metrics: vec![m::ResourceMetrics {
            resource: Some(baton_resource()),
            scope_metrics: vec![m::ScopeMetrics {
                scope: Some(InstrumentationScope {
                    name: "baton".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    ..Default::default()
                }),
                metrics,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

/// Baton as the resource its spans and metrics come from.
fn baton_resource() -> Resource {
    Resource {
        attributes: attributes_of(&[
            ("service.name".to_owned(), serde_json::Value::from("baton")),
            (
                "service.version".to_owned(),
                serde_json::Value::from(env!("CARGO_PKG_VERSION")),
            ),
        ]),
        ..Default::default()
    }
}

fn value(v: &serde_json::Value) -> AnyValue {
    use any_value::Value as V;
    AnyValue {
        value: Some(match v {
            serde_json::Value::String(s) => V::StringValue(s.clone()),
            serde_json::Value::Bool(b) => V::BoolValue(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => V::IntValue(i),
                None => V::DoubleValue(n.as_f64().unwrap_or(0.0)),
            },
            other => V::StringValue(other.to_string()),
        }),
    }
}

fn attributes_of(list: &[(String, serde_json::Value)]) -> Vec<KeyValue> {
    list.iter()
        .map(|(k, v)| KeyValue {
            key: k.clone(),
            value: Some(value(v)),
            ..Default::default()
        })
        .collect()
}

fn nanos(ms: i64) -> u64 {
    u64::try_from(ms).unwrap_or(0).saturating_mul(1_000_000)
}

fn encode(spans: &[Span]) -> Vec<u8> {
    let spans: Vec<otlp::Span> = spans
        .iter()
        .map(|s| otlp::Span {
            trace_id: s.trace_id.to_vec(),
            span_id: s.span_id.to_vec(),
            parent_span_id: s.parent.map(|p| p.to_vec()).unwrap_or_default(),
            name: s.name.clone(),
            kind: if s.root {
                otlp::span::SpanKind::Server as i32
            } else {
                otlp::span::SpanKind::Internal as i32
            },
            start_time_unix_nano: nanos(s.start_ms),
            end_time_unix_nano: nanos(s.end_ms),
            attributes: attributes_of(&s.attributes),
            events: s
                .events
                .iter()
                .map(|(name, at, attrs)| otlp::span::Event {
                    time_unix_nano: nanos(*at),
                    name: name.clone(),
                    attributes: attributes_of(attrs),
                    ..Default::default()
                })
                .collect(),
            links: s
                .links
                .iter()
                .map(|(trace, span)| otlp::span::Link {
                    trace_id: trace.to_vec(),
                    span_id: span.to_vec(),
                    ..Default::default()
                })
                .collect(),
            status: Some(otlp::Status {
                code: if s.error {
                    otlp::status::StatusCode::Error as i32
                } else {
                    otlp::status::StatusCode::Unset as i32
                },
                ..Default::default()
            }),
            ..Default::default()
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![otlp::ResourceSpans {
            resource: Some(baton_resource()),
            scope_spans: vec![otlp::ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "baton".to_owned(),
                    version: env!("CARGO_PKG_VERSION").to_owned(),
                    ..Default::default()
                }),
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

/// A work session's requests and tool calls, from its transcripts.
/// What a work session's transcripts hold for its trace.
#[derive(Default)]
struct FromTranscripts {
    turns: Vec<Turn>,
    requests: Vec<Request>,
    tools: Vec<ToolCall>,
}

/// The responses the index counts of every agent session an export asks about, by agent
/// session (read once for all of them).
type Counted = HashMap<String, Vec<crate::ops::mirror::rows::CountedRow>>;

/// The prompts, requests and tool calls of the agent sessions `agent_sessions` between `from`
/// and `to`, their requests from `counted` priced by `prices`.
fn transcript_spans(
    connection: &rusqlite::Connection,
    index: &Path,
    (counted, prices, side): (&Counted, &PriceTable, &HashSet<String>),
    agent_sessions: &[(Provider, String)],
    from: i64,
    to: i64,
) -> Result<FromTranscripts, Error> {
    if agent_sessions.is_empty() {
        return Ok(FromTranscripts::default());
    }
    let rows: Vec<_> = agent_sessions
        .iter()
        .filter_map(|(_, s)| counted.get(s))
        .flatten()
        .filter(|r| (from..=to).contains(&r.entry.at.millis()))
        .cloned()
        .collect();
    let keys: Vec<String> = rows
        .iter()
        .map(|r| match r.dedup_key {
            Some(key) => format!("{key:x}"),
            None => format!("at {}", r.entry.at.millis()),
        })
        .collect();
    let entries: Vec<_> = rows.into_iter().map(|r| r.entry).collect();
    let costs = baton_core::transcripts::usage::costs_femto_usd(
        &entries,
        prices,
        baton_core::transcripts::usage::CostMode::Auto,
    );
    let requests: Vec<Request> = entries
        .iter()
        .zip(costs)
        .zip(keys)
        .map(|((e, femto), key)| Request {
            key,
            agent_session: e.session.to_string(),
            at_ms: e.at.millis(),
            model: e.model.as_deref().map(str::to_owned),
            tokens: e.tokens,
            cost_usd: (femto > 0).then(|| femto as f64 / 1e15),
        })
        .collect();
    let failed = |e| crate::index::failure("read the tool calls of", index, e);
    let mut calls = connection
        .prepare_cached(
            "SELECT tc.call_id, COALESCE(tc.name, '?'), COALESCE(tc.is_error, 0), m.at
             FROM conversations c JOIN tool_calls tc ON tc.conversation = c.id
             JOIN messages m ON m.id = tc.message
             WHERE c.provider = ?4 AND c.provider_id = ?1 AND m.at BETWEEN ?2 AND ?3
             ORDER BY m.at",
        )
        .map_err(failed)?;
    // A person's prompt opens a turn: a user-side message the person typed (a tool's output
    // is its own role; injected context, a local command's output or an interruption marker
    // is no prompt, by the rule that names conversations).
    let mut prompts = connection
        .prepare_cached(
            "SELECT m.message_id, m.at, m.excerpt FROM conversations c
             JOIN messages m ON m.conversation = c.id
             WHERE c.provider = ?4 AND c.provider_id = ?1 AND m.role = 'user'
                 AND m.at BETWEEN ?2 AND ?3
             ORDER BY m.at",
        )
        .map_err(failed)?;
    let mut inflater = crate::ops::mirror::packing::Inflater::new();
    let mut found = FromTranscripts {
        requests,
        ..FromTranscripts::default()
    };
    for (provider, agent_session) in agent_sessions {
        let rows = calls
            .query_map(
                rusqlite::params![agent_session, from, to, provider.key()],
                |r| {
                    Ok(ToolCall {
                        agent_session: agent_session.clone(),
                        call_id: r.get(0)?,
                        name: r.get(1)?,
                        failed: r.get::<_, i64>(2)? != 0,
                        at_ms: r.get(3)?,
                    })
                },
            )
            .map_err(failed)?;
        for row in rows {
            found.tools.push(row.map_err(failed)?);
        }
        let rows = prompts
            .query_map(
                rusqlite::params![agent_session, from, to, provider.key()],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, Option<rusqlite::types::Value>>(2)?,
                    ))
                },
            )
            .map_err(failed)?;
        for row in rows {
            let (message_id, at_ms, excerpt) = row.map_err(failed)?;
            // Compressed when that made it smaller (a blob), else kept as text.
            let text = match excerpt {
                Some(rusqlite::types::Value::Text(text)) => text,
                Some(rusqlite::types::Value::Blob(packed)) => inflater
                    .inflate(connection, &packed)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default(),
                _ => String::new(),
            };
            if !side.contains(&message_id)
                && baton_core::transcripts::conversation::title::prompt_title(&text).is_some()
            {
                found.turns.push(Turn {
                    agent_session: agent_session.clone(),
                    message_id,
                    at_ms,
                });
            }
        }
    }
    Ok(found)
}

/// Sends every ended work session not sent to `endpoint` before, in batches; what was sent
/// is remembered after each batch the endpoint accepted.
pub fn export(
    ledger: &Ledger,
    index: &Path,
    endpoint: &str,
    token: Option<&str>,
) -> Result<Exported, Error> {
    let uri = traces_uri(endpoint)?;
    let state = state_path(ledger);
    let mut sent = read_state(&state);
    let key = uri.to_string();
    let snapshot = ledger.snapshot()?;
    let all = snapshot.all_sessions()?;
    let mut out = Exported::default();
    let mut pending = Vec::new();
    for session in &all {
        if session.ended_at.is_none() {
            out.live += 1;
            continue;
        }
        let id = session.session_id.to_string();
        let at = session.last_event_at.millis();
        if sent.get(&key).and_then(|s| s.get(&id)) == Some(&at) {
            out.already += 1;
        } else {
            pending.push(session);
        }
    }
    if pending.is_empty() {
        return Ok(out);
    }
    let ids: Vec<_> = pending.iter().map(|s| s.session_id).collect();
    let opened = index
        .is_file()
        .then(|| crate::ops::mirror::open_for_query(index, false, None))
        .transpose()?;
    let costs = match &opened {
        Some(_) => Some(crate::ops::work_cost::of_sessions(
            ledger, index, &all, &ids,
        )?),
        None => None,
    };
    let agent_sessions_of = |session: &baton_core::ledger::session::Session| {
        costs
            .as_ref()
            .and_then(|c| c.of(session.session_id))
            .map(|c| {
                c.transcripts
                    .iter()
                    .map(|t| (t.provider, t.provider_session_id.clone()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    // The responses of every tied agent session, read once; `None` while the index has not
    // counted them yet (the sessions tied to transcripts then wait, to go out whole).
    let counted: Option<Counted> = match &opened {
        Some(connection) => {
            let mut wanted = std::collections::BTreeSet::new();
            let mut since = i64::MAX;
            for session in &pending {
                let tied = agent_sessions_of(session);
                if !tied.is_empty() {
                    since = since.min(session.started_at.millis() - 60_000);
                }
                wanted.extend(tied.into_iter().map(|(_, id)| id));
            }
            if wanted.is_empty() {
                Some(Counted::new())
            } else {
                crate::ops::mirror::usage::counted_of_sessions(
                    connection,
                    index,
                    baton_core::Timestamp::from_millis(since),
                    wanted.into_iter().collect(),
                )?
                .map(|rows| {
                    let mut by: Counted = HashMap::new();
                    for row in rows {
                        by.entry(row.entry.session.to_string())
                            .or_default()
                            .push(row);
                    }
                    by
                })
            }
        }
        None => None,
    };
    // Claude Code's sub-agent prompts and injected lines, which open no turn of the person's.
    let side: HashSet<String> = match &opened {
        Some(connection) => {
            let claude: Vec<String> = pending
                .iter()
                .flat_map(|s| agent_sessions_of(s))
                .filter(|(provider, _)| *provider == Provider::ClaudeCode)
                .map(|(_, id)| id)
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            crate::ops::mirror::query::claude_side_prompts(connection, index, &claude)?
        }
        None => HashSet::new(),
    };
    let prices = PriceTable::shipped();
    let metrics = metrics_uri(&uri)?;
    let mut at = 0;
    while at < pending.len() {
        let mut spans = Vec::new();
        let mut points = Vec::new();
        let mut batch = Vec::new();
        while at < pending.len() && batch.len() < BATCH && spans.len() < BATCH_SPANS {
            let session = pending[at];
            at += 1;
            let history = snapshot.history(session.session_id)?.unwrap_or_default();
            let events = history.ordered();
            let agent_sessions = agent_sessions_of(session);
            let found = match (&opened, &counted) {
                (Some(connection), Some(counted)) => transcript_spans(
                    connection,
                    index,
                    (counted, &prices, &side),
                    &agent_sessions,
                    session.started_at.millis() - 60_000,
                    session.last_event_at.millis() + 60_000,
                )?,
                // Not counted yet: sent once it is, whole.
                (Some(_), None) if !agent_sessions.is_empty() => {
                    out.waiting += 1;
                    continue;
                }
                _ => FromTranscripts::default(),
            };
            spans.extend(baton_core::telemetry::traces::spans(
                session,
                &events,
                &found.turns,
                &found.requests,
                &found.tools,
            ));
            points.extend(baton_core::telemetry::traces::points(
                session,
                &found.requests,
            ));
            batch.push(session);
        }
        if batch.is_empty() {
            continue;
        }
        post(&uri, encode(&spans), token)?;
        // The batch's tokens and cost, once its traces are in (a failure here sends both
        // again next time: the spans keep their ids, the sums are not counted twice).
        if !points.is_empty() {
            let from = batch
                .iter()
                .map(|s| s.started_at.millis())
                .min()
                .unwrap_or(0);
            let to = batch
                .iter()
                .map(|s| s.last_event_at.millis())
                .max()
                .unwrap_or(from);
            post(&metrics, encode_points(&points, from, to), token)?;
        }
        let mine = sent.entry(key.clone()).or_default();
        for session in &batch {
            mine.insert(
                session.session_id.to_string(),
                session.last_event_at.millis(),
            );
        }
        write_state(&state, &sent)?;
        out.sessions += batch.len();
        out.spans += spans.len();
    }
    Ok(out)
}
