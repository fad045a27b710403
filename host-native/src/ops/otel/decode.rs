//! OTLP on the wire, read into the core's records: an export request of logs, traces or
//! metrics as protobuf or as OTLP's JSON (the official message definitions, via
//! `opentelemetry-proto`), and a file of JSON lines (Copilot CLI's file export: a request or
//! a record a line). Metrics are understood and counted, not kept: agents report each request
//! as a log record or a span.

use baton_core::Error;
use baton_core::telemetry::{Attributes, Record};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use serde_json::Value;

/// Which signal a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Logs,
    Traces,
    Metrics,
}

impl Signal {
    /// The signal a receiver's path is for (`/v1/logs`, …).
    pub fn of_path(path: &str) -> Option<Signal> {
        match path.trim_end_matches('/') {
            "/v1/logs" => Some(Signal::Logs),
            "/v1/traces" => Some(Signal::Traces),
            "/v1/metrics" => Some(Signal::Metrics),
            _ => None,
        }
    }

    /// Its name, as a person reads it.
    pub fn name(self) -> &'static str {
        match self {
            Signal::Logs => "logs",
            Signal::Traces => "traces",
            Signal::Metrics => "metrics",
        }
    }
}

/// How a request is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

/// The records of an export request; metrics give none, but their data points are counted.
#[derive(Debug, Default)]
pub struct Decoded {
    pub records: Vec<Record>,
    /// Metric data points read (not kept).
    pub points: usize,
}

fn malformed(signal: Signal, encoding: Encoding, err: impl std::fmt::Display) -> Error {
    Error::invalid(
        "body",
        format!(
            "not an OTLP {} export request in {}: {err}",
            signal.name(),
            match encoding {
                Encoding::Protobuf => "protobuf",
                Encoding::Json => "JSON",
            }
        ),
    )
}

fn decode<T: Message + Default + serde::de::DeserializeOwned>(
    body: &[u8],
    signal: Signal,
    encoding: Encoding,
) -> Result<T, Error> {
    match encoding {
        Encoding::Protobuf => T::decode(body).map_err(|e| malformed(signal, encoding, e)),
        Encoding::Json => serde_json::from_slice(body).map_err(|e| malformed(signal, encoding, e)),
    }
}

/// The most records one export request may carry (an exporter sends 512 at a time): a
/// request of more is refused before it is decoded, so that a small body cannot unfold into
/// gigabytes of records.
pub const MOST_RECORDS: usize = 50_000;

/// How many records (log records, spans, metrics) a protobuf export request holds, counted
/// on the wire without decoding them; `None` when it is no protobuf (the decoding says why).
pub fn count_protobuf(body: &[u8]) -> Option<usize> {
    // Export request → resource (field 1) → scope (field 2) → record (field 2).
    fn walk(mut bytes: &[u8], depth: usize) -> Option<usize> {
        use prost::bytes::Buf;
        let mut count = 0;
        while bytes.has_remaining() {
            let key = prost::encoding::decode_varint(&mut bytes).ok()?;
            let (field, wire) = (key >> 3, key & 7);
            match wire {
                0 => {
                    prost::encoding::decode_varint(&mut bytes).ok()?;
                }
                1 => bytes = bytes.get(8..)?,
                5 => bytes = bytes.get(4..)?,
                2 => {
                    let len =
                        usize::try_from(prost::encoding::decode_varint(&mut bytes).ok()?).ok()?;
                    let inner = bytes.get(..len)?;
                    bytes = &bytes[len..];
                    let wanted = if depth == 0 { 1 } else { 2 };
                    if field == wanted {
                        count += if depth == 2 {
                            1
                        } else {
                            walk(inner, depth + 1)?
                        };
                    }
                }
                _ => return None,
            }
        }
        Some(count)
    }
    walk(body, 0)
}

/// The most JSON objects one export request may hold: every record is one at least, and a
/// real one (with its attributes) dozens, so this admits thousands of real records and keeps
/// a body of empty ones from unfolding into gigabytes.
pub const MOST_JSON_OBJECTS: usize = 200_000;

/// How many JSON objects a body opens (an upper bound on its records).
pub fn count_json(body: &[u8]) -> usize {
    body.iter().filter(|b| **b == b'{').count()
}

/// The records of one export request.
pub fn request(signal: Signal, encoding: Encoding, body: &[u8]) -> Result<Decoded, Error> {
    Ok(match signal {
        Signal::Logs => Decoded {
            records: logs(decode(body, signal, encoding)?),
            points: 0,
        },
        Signal::Traces => Decoded {
            records: traces(decode(body, signal, encoding)?),
            points: 0,
        },
        Signal::Metrics => Decoded {
            records: Vec::new(),
            points: points(&decode(body, signal, encoding)?),
        },
    })
}

/// An OTLP value as plain JSON (bytes as hex).
fn any(value: &AnyValue) -> Value {
    match &value.value {
        Some(any_value::Value::StringValue(s)) => Value::String(s.clone()),
        Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
        Some(any_value::Value::IntValue(i)) => Value::from(*i),
        Some(any_value::Value::DoubleValue(d)) => {
            serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number)
        }
        Some(any_value::Value::ArrayValue(list)) => {
            Value::Array(list.values.iter().map(any).collect())
        }
        Some(any_value::Value::KvlistValue(map)) => Value::Object(
            map.values
                .iter()
                .map(|kv| (kv.key.clone(), kv.value.as_ref().map_or(Value::Null, any)))
                .collect(),
        ),
        Some(any_value::Value::BytesValue(bytes)) => Value::String(hex(bytes)),
        _ => Value::Null,
    }
}

fn attributes(list: &[KeyValue]) -> Attributes {
    list.iter()
        .map(|kv| (kv.key.clone(), kv.value.as_ref().map_or(Value::Null, any)))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn millis(nanos: u64) -> Option<i64> {
    (nanos > 0).then(|| i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX))
}

fn logs(request: ExportLogsServiceRequest) -> Vec<Record> {
    let mut out = Vec::new();
    for resource_logs in &request.resource_logs {
        let resource = resource_logs
            .resource
            .as_ref()
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        for scope in &resource_logs.scope_logs {
            for log in &scope.log_records {
                out.push(Record {
                    name: (!log.event_name.is_empty()).then(|| log.event_name.clone()),
                    body: log.body.as_ref().and_then(|b| match &b.value {
                        Some(any_value::Value::StringValue(s)) => Some(s.clone()),
                        _ => None,
                    }),
                    attributes: attributes(&log.attributes),
                    resource: resource.clone(),
                    at_ms: millis(log.time_unix_nano)
                        .or_else(|| millis(log.observed_time_unix_nano)),
                    span_ms: None,
                    span_id: None,
                });
            }
        }
    }
    out
}

fn traces(request: ExportTraceServiceRequest) -> Vec<Record> {
    let mut out = Vec::new();
    for resource_spans in &request.resource_spans {
        let resource = resource_spans
            .resource
            .as_ref()
            .map(|r| attributes(&r.attributes))
            .unwrap_or_default();
        for scope in &resource_spans.scope_spans {
            for span in &scope.spans {
                let start = millis(span.start_time_unix_nano);
                let end = millis(span.end_time_unix_nano);
                out.push(Record {
                    name: Some(span.name.clone()),
                    body: None,
                    attributes: attributes(&span.attributes),
                    resource: resource.clone(),
                    at_ms: start,
                    span_ms: start.zip(end).map(|(s, e)| e.saturating_sub(s).max(0)),
                    span_id: (!span.trace_id.is_empty() && !span.span_id.is_empty())
                        .then(|| format!("{}/{}", hex(&span.trace_id), hex(&span.span_id))),
                });
            }
        }
    }
    out
}

fn points(request: &ExportMetricsServiceRequest) -> usize {
    use opentelemetry_proto::tonic::metrics::v1::metric::Data;
    request
        .resource_metrics
        .iter()
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .map(|m| match &m.data {
            Some(Data::Gauge(g)) => g.data_points.len(),
            Some(Data::Sum(s)) => s.data_points.len(),
            Some(Data::Histogram(h)) => h.data_points.len(),
            Some(Data::ExponentialHistogram(h)) => h.data_points.len(),
            Some(Data::Summary(s)) => s.data_points.len(),
            None => 0,
        })
        .sum()
}

/// The records of one line of a telemetry file: an OTLP JSON export request (logs or
/// traces), or one record as an SDK's file exporter writes it (`name`, `attributes` as a map
/// or OTLP's list, times as nanoseconds or `[seconds, nanoseconds]`).
pub fn line(text: &str) -> Result<Vec<Record>, Error> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| Error::invalid("line", format!("not JSON: {e}")))?;
    if value.get("resourceLogs").is_some() {
        return request(Signal::Logs, Encoding::Json, text.as_bytes()).map(|d| d.records);
    }
    if value.get("resourceSpans").is_some() {
        return request(Signal::Traces, Encoding::Json, text.as_bytes()).map(|d| d.records);
    }
    if value.get("resourceMetrics").is_some() {
        return Ok(Vec::new());
    }
    Ok(flat(&value).into_iter().collect())
}

/// Attributes as a map, or as OTLP's list of `{key, value: {stringValue: …}}`.
fn loose_attributes(value: Option<&Value>) -> Attributes {
    match value {
        Some(Value::Object(map)) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|kv| {
                let key = kv.get("key")?.as_str()?.to_owned();
                let value = kv.get("value").map_or(Value::Null, |v| {
                    v.as_object()
                        .and_then(|o| o.values().next().cloned())
                        .unwrap_or_else(|| v.clone())
                });
                Some((key, value))
            })
            .collect(),
        _ => Attributes::new(),
    }
}

/// A time as nanoseconds (a number or its text), or `[seconds, nanoseconds]`, in ms.
fn loose_time(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::Array(pair) if pair.len() == 2 => {
            let s = pair[0].as_f64()?;
            let n = pair[1].as_f64()?;
            Some((s * 1000.0 + n / 1_000_000.0) as i64)
        }
        Value::Number(n) => n.as_f64().map(|n| (n / 1_000_000.0) as i64),
        Value::String(s) => s.parse::<f64>().ok().map(|n| (n / 1_000_000.0) as i64),
        _ => None,
    }
    // No time before 1970 or after 2286 (a float that large is no time).
    .filter(|ms| *ms > 0 && *ms < 10_000_000_000_000)
}

fn flat(value: &Value) -> Option<Record> {
    let object = value.as_object()?;
    let text = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
    let start = loose_time(object.get("startTimeUnixNano"))
        .or_else(|| loose_time(object.get("startTime")))
        .or_else(|| loose_time(object.get("timeUnixNano")))
        .or_else(|| loose_time(object.get("hrTime")));
    let end =
        loose_time(object.get("endTimeUnixNano")).or_else(|| loose_time(object.get("endTime")));
    let duration = loose_time(object.get("duration"));
    let context = object.get("spanContext");
    let id = |key: &str| {
        context
            .and_then(|c| c.get(key))
            .or_else(|| object.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some(Record {
        name: text("name").or_else(|| text("eventName")),
        body: object.get("body").and_then(|b| {
            b.as_str().map(str::to_owned).or_else(|| {
                b.get("stringValue")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
        }),
        attributes: loose_attributes(object.get("attributes")),
        resource: loose_attributes(object.get("resource").and_then(|r| r.get("attributes"))),
        at_ms: start,
        span_ms: start
            .zip(end)
            .map(|(s, e)| e.saturating_sub(s).max(0))
            .or(duration),
        span_id: id("traceId")
            .zip(id("spanId"))
            .filter(|(trace, span)| !trace.is_empty() && !span.is_empty())
            .map(|(trace, span)| format!("{trace}/{span}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn otlp_json_logs_and_a_flat_span_line_are_read() {
        let body = r#"{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}}]},
            "scopeLogs":[{"logRecords":[{"timeUnixNano":"1796119200000000000","body":{"stringValue":"claude_code.api_request"},
            "attributes":[{"key":"input_tokens","value":{"intValue":"12"}},{"key":"cost_usd","value":{"doubleValue":0.5}},
            {"key":"session.id","value":{"stringValue":"s"}}]}]}]}]}"#;
        let decoded = request(Signal::Logs, Encoding::Json, body.as_bytes()).unwrap();
        let record = &decoded.records[0];
        assert_eq!(record.at_ms, Some(1_796_119_200_000));
        assert_eq!(record.body.as_deref(), Some("claude_code.api_request"));
        assert_eq!(record.attributes["input_tokens"], serde_json::json!(12));
        assert_eq!(record.resource["service.name"], "claude-code");
        let span = r#"{"name":"chat gpt-4.1","spanContext":{"traceId":"aa","spanId":"bb"},
            "startTime":[1796119200,500000000],"endTime":[1796119201,0],
            "attributes":{"gen_ai.usage.input_tokens":7,"gen_ai.usage.output_tokens":3}}"#;
        let records = line(span).unwrap();
        assert_eq!(records[0].at_ms, Some(1_796_119_200_500));
        assert_eq!(records[0].span_ms, Some(500));
        assert_eq!(records[0].span_id.as_deref(), Some("aa/bb"));
        assert!(request(Signal::Logs, Encoding::Protobuf, b"\xff\xff\xff").is_err());
        // Records are counted on the wire: a body of empty records is counted, not decoded.
        let mut many = Vec::new();
        for _ in 0..3 {
            // resource_logs { scope_logs { log_records {} log_records {} } }
            many.extend_from_slice(&[0x0a, 0x06, 0x12, 0x04, 0x12, 0x00, 0x12, 0x00]);
        }
        assert_eq!(count_protobuf(&many), Some(6));
        assert_eq!(count_protobuf(b"\xff\xff\xff"), None);
        assert!(request(Signal::Traces, Encoding::Json, b"{\"resourceSpans\": 3}").is_err());
    }
}
