//! The ledger's wire format: one self-contained JSON line per event, and its decoding.
//!
//! Schema version 1 has a closed envelope — `v`, `id`, `session`, `kind`, `at`, `actor`,
//! `data` — and an open set of kinds: a kind this build does not know is kept whole (its `data`
//! verbatim) so a newer writer's events survive an older reader and its compaction. New
//! information goes into `data` or a new kind; a change to the envelope bumps `v`.
//! Decoding never fails: every line is classified as an event, a log header, a blank, a
//! corrupt line or a foreign (unknown-schema) line, and the fold counts the last two.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{EventId, SessionId};
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The schema version this build writes and understands.
pub const SCHEMA_VERSION: u64 = 1;

/// The largest encoded event line, in bytes without its newline. Appends of at most this size
/// are one `write` each, so concurrent writers never interleave within a line.
pub const MAX_EVENT_BYTES: usize = 4000;

/// Who caused an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Actor {
    /// `agent`, `baton` or `human`.
    pub kind: ActorKind,
    /// The agent's normalized name, the person's login, or `baton`.
    pub name: String,
}

/// The three kinds of actor the timeline distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ActorKind {
    /// A coding agent acting through the CLI or MCP.
    Agent,
    /// Baton itself (compaction, automatic transitions).
    Baton,
    /// A person.
    Human,
}

impl Actor {
    /// An agent actor.
    pub fn agent(name: impl Into<String>) -> Actor {
        Actor {
            kind: ActorKind::Agent,
            name: name.into(),
        }
    }
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The work was finished.
    #[default]
    Complete,
    /// The work stopped without finishing.
    Failed,
}

pub use crate::tokens::TokenTotals;

/// `started`: a new work session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Started {
    /// The project the work belongs to.
    pub project: String,
    /// The normalized agent identity.
    pub agent: String,
    /// The coding client (e.g. `claude-code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// What the session sets out to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// The session this one follows on from (provenance only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<SessionId>,
    /// An external run this session belongs to (always with `work_item_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// An external work item (always with `run_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_item_id: Option<String>,
    /// An external attempt id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt_id: Option<String>,
    /// The agent's own session id (Claude Code's `session_id`, Codex's thread id): the
    /// continuity anchor that links the work session to its transcripts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_session_id: Option<String>,
    /// The mission worked on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mission: Option<String>,
    /// The repository commit the session started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The git branch it started on (absent on a detached HEAD or outside git).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// The git worktree it started in: the top folder of the working copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
}

impl Started {
    /// A start with only the project and agent; every optional field empty.
    pub fn new(project: impl Into<String>, agent: impl Into<String>) -> Started {
        Started {
            project: project.into(),
            agent: agent.into(),
            client_name: None,
            goal: None,
            parent_session_id: None,
            run_id: None,
            work_item_id: None,
            attempt_id: None,
            provider_session_id: None,
            mission: None,
            commit: None,
            branch: None,
            worktree: None,
        }
    }
}

/// `resumed`: a marker that the session was picked up again (after a crash or restart).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Resumed {
    /// The client that resumed it, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
}

/// `ended`: the session is over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ended {
    /// Complete or failed.
    #[serde(default)]
    pub outcome: Outcome,
    /// What was done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The pull request the work landed in, as known at the end (the verdict's subject).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_request: Option<String>,
}

/// `corrected`: a later event that replaces a descriptive field; the latest correction wins.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Corrected {
    /// A replacement goal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    /// A replacement summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// `usage`: cumulative totals of one transcript up to a byte offset; the fold keeps the highest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Usage {
    /// Which transcript the totals come from (a path or a provider session id).
    pub source: String,
    /// The transcript byte offset the totals cover.
    pub offset: u64,
    /// The totals up to `offset`.
    pub totals: TokenTotals,
    /// What those tokens cost up to `offset`, in micro-dollars, by the price table of the
    /// writer (absent when it did not price them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_micro_usd: Option<u64>,
}

/// The payload of an event, by kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Payload {
    /// See [`Started`].
    Started(Started),
    /// See [`Resumed`].
    Resumed(Resumed),
    /// See [`Ended`].
    Ended(Ended),
    /// See [`Corrected`].
    Corrected(Corrected),
    /// See [`Usage`].
    Usage(Usage),
    /// A record kept on purpose: see [`crate::ledger::record::RecordStored`].
    RecordStored(crate::ledger::record::RecordStored),
    /// Lifecycle and workspace events: see [`crate::ledger::activity::Activity`].
    Activity(crate::ledger::activity::Activity),
    /// A kind this build does not know, kept verbatim.
    Unknown {
        /// The kind as written.
        kind: String,
        /// The data as written.
        data: RawData,
    },
}

/// JSON kept verbatim (an unknown kind's `data`).
#[derive(Debug, Clone)]
pub struct RawData(pub Box<RawValue>);

impl PartialEq for RawData {
    fn eq(&self, other: &RawData) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Payload {
    /// The wire name of the kind.
    pub fn kind(&self) -> &str {
        match self {
            Payload::Started(_) => "started",
            Payload::Resumed(_) => "resumed",
            Payload::Ended(_) => "ended",
            Payload::Corrected(_) => "corrected",
            Payload::Usage(_) => "usage",
            Payload::RecordStored(_) => crate::ledger::record::RECORD_STORED,
            Payload::Activity(a) => a.kind(),
            Payload::Unknown { kind, .. } => kind,
        }
    }

    fn decode(kind: &str, data: Option<&RawValue>) -> std::result::Result<Payload, String> {
        let text = data.map_or("{}", RawValue::get);
        fn typed<T: for<'a> Deserialize<'a>>(text: &str) -> std::result::Result<T, String> {
            serde_json::from_str(text).map_err(|e| format!("bad data: {e}"))
        }
        Ok(match kind {
            "started" => Payload::Started(typed(text)?),
            "resumed" => Payload::Resumed(typed(text)?),
            "ended" => Payload::Ended(typed(text)?),
            "corrected" => Payload::Corrected(typed(text)?),
            "usage" => Payload::Usage(typed(text)?),
            crate::ledger::record::RECORD_STORED => Payload::RecordStored(typed(text)?),
            other => match crate::ledger::activity::Activity::decode(other, text) {
                Some(activity) => Payload::Activity(activity?),
                None => Payload::Unknown {
                    kind: other.to_owned(),
                    data: RawData(
                        RawValue::from_string(text.to_owned()).map_err(|e| e.to_string())?,
                    ),
                },
            },
        })
    }

    fn data_json(&self) -> Result<Cow<'_, RawValue>> {
        let text = match self {
            Payload::Started(p) => serde_json::to_string(p),
            Payload::Resumed(p) => serde_json::to_string(p),
            Payload::Ended(p) => serde_json::to_string(p),
            Payload::Corrected(p) => serde_json::to_string(p),
            Payload::Usage(p) => serde_json::to_string(p),
            Payload::RecordStored(p) => serde_json::to_string(p),
            Payload::Activity(a) => a.data_json(),
            Payload::Unknown { data, .. } => return Ok(Cow::Borrowed(&data.0)),
        }
        .map_err(|e| Error::internal(format!("encoding event data: {e}")))?;
        RawValue::from_string(text)
            .map(Cow::Owned)
            .map_err(|e| Error::internal(format!("encoding event data: {e}")))
    }
}

/// One event of the ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Unique per event; the fold counts an id once however often it is seen.
    pub id: EventId,
    /// The session the event belongs to.
    pub session: SessionId,
    /// When it happened (UTC).
    pub at: Timestamp,
    /// Who caused it.
    pub actor: Actor,
    /// What happened.
    pub payload: Payload,
}

#[derive(Serialize)]
struct WireOut<'a> {
    v: u64,
    id: EventId,
    session: SessionId,
    kind: &'a str,
    at: Timestamp,
    actor: &'a Actor,
    data: &'a RawValue,
}

#[derive(Deserialize)]
struct WireIn<'a> {
    #[serde(default)]
    v: Option<u64>,
    #[serde(default)]
    id: Option<EventId>,
    #[serde(default)]
    session: Option<SessionId>,
    #[serde(default, borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    at: Option<Timestamp>,
    #[serde(default)]
    actor: Option<Actor>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    baton_log: Option<u64>,
    #[serde(default, borrow)]
    generation: Option<Cow<'a, str>>,
}

/// What one line of a ledger file turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A well-formed event of this schema.
    Event(Box<Event>),
    /// The header a store writes as the first line of a fresh log: its generation id.
    Header {
        /// An opaque id that changes each time compaction starts a new log.
        generation: String,
    },
    /// An empty or all-whitespace line (ignored).
    Blank,
    /// Not JSON, not UTF-8, or a schema-1 line with missing or malformed fields.
    Corrupt {
        /// Why it could not be read.
        reason: String,
    },
    /// Valid JSON of another schema (a future version or another tool): kept, counted, skipped.
    Foreign {
        /// What was seen.
        reason: String,
    },
}

impl Event {
    /// Encodes the event without the size check, for rollups and checkpoints, which are
    /// written whole to a new file rather than appended.
    pub fn encode_unbounded(&self) -> Result<String> {
        let data = self.payload.data_json()?;
        serde_json::to_string(&WireOut {
            v: SCHEMA_VERSION,
            id: self.id,
            session: self.session,
            kind: self.payload.kind(),
            at: self.at,
            actor: &self.actor,
            data: &data,
        })
        .map_err(|e| Error::internal(format!("encoding event: {e}")))
    }

    /// Encodes the event as one line (without the newline), refusing lines over the limit.
    pub fn encode(&self) -> Result<String> {
        let line = self.encode_unbounded()?;
        if line.len() > MAX_EVENT_BYTES {
            return Err(Error::new(
                ErrorCode::EventTooLarge,
                format!(
                    "the `{}` event would be {} bytes; one ledger line holds at most {MAX_EVENT_BYTES} bytes (shorten the goal or summary)",
                    self.payload.kind(),
                    line.len()
                ),
            )
            .with("limit", MAX_EVENT_BYTES)
            .with("size", line.len())
            .with("kind", self.payload.kind())
            .with("session_id", self.session.to_string()));
        }
        Ok(line)
    }
}

/// Encodes the header line that opens a fresh log.
pub fn encode_header(generation: &str) -> String {
    serde_json::json!({ "baton_log": 1, "generation": generation }).to_string()
}

/// Classifies one line (without its newline). Never panics, never fails.
pub fn decode_line(bytes: &[u8]) -> Line {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Line::Blank;
    }
    match serde_json::from_slice::<WireIn<'_>>(bytes) {
        Ok(wire) => classify(wire),
        Err(err) => classify_unreadable(bytes, &err),
    }
}

fn classify(wire: WireIn<'_>) -> Line {
    if wire.v.is_none()
        && wire.baton_log == Some(1)
        && let Some(generation) = wire.generation
    {
        return Line::Header {
            generation: generation.into_owned(),
        };
    }
    match wire.v {
        Some(SCHEMA_VERSION) => {}
        Some(other) => {
            return Line::Foreign {
                reason: format!("schema version {other} (this build reads {SCHEMA_VERSION})"),
            };
        }
        None => {
            return Line::Foreign {
                reason: "JSON without a schema version `v`".to_owned(),
            };
        }
    }
    let missing = [
        ("id", wire.id.is_none()),
        ("session", wire.session.is_none()),
        ("kind", wire.kind.is_none()),
        ("at", wire.at.is_none()),
        ("actor", wire.actor.is_none()),
    ];
    if let Some((field, _)) = missing.iter().find(|(_, absent)| *absent) {
        return Line::Corrupt {
            reason: format!("schema-1 event without `{field}`"),
        };
    }
    let (Some(id), Some(session), Some(kind), Some(at), Some(actor)) =
        (wire.id, wire.session, wire.kind, wire.at, wire.actor)
    else {
        return Line::Corrupt {
            reason: "schema-1 event with missing fields".to_owned(),
        };
    };
    match Payload::decode(&kind, wire.data) {
        Ok(payload) => Line::Event(Box::new(Event {
            id,
            session,
            at,
            actor,
            payload,
        })),
        Err(reason) => Line::Corrupt {
            reason: format!("`{kind}` event: {reason}"),
        },
    }
}

fn classify_unreadable(bytes: &[u8], err: &serde_json::Error) -> Line {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        let reason = if std::str::from_utf8(bytes).is_err() {
            "not UTF-8".to_owned()
        } else {
            format!("not JSON ({err})")
        };
        return Line::Corrupt { reason };
    };
    match value.get("v").and_then(serde_json::Value::as_u64) {
        Some(SCHEMA_VERSION) => Line::Corrupt {
            reason: format!("malformed schema-1 event: {err}"),
        },
        Some(other) => Line::Foreign {
            reason: format!("schema version {other} (this build reads {SCHEMA_VERSION})"),
        },
        None => Line::Foreign {
            reason: if value.is_object() {
                "JSON without a schema version `v`".to_owned()
            } else {
                "JSON that is not an object".to_owned()
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use uuid::Uuid;

    fn sample() -> Event {
        Event {
            id: EventId(Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0001)),
            session: SessionId(Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0002)),
            at: Timestamp::parse("2026-07-18T20:00:00.000Z").unwrap(),
            actor: Actor::agent("claude"),
            payload: Payload::Started(Started {
                client_name: Some("claude-code".into()),
                goal: Some("Implement \"search\"".into()),
                ..Started::new("demo", "claude")
            }),
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        let event = sample();
        let line = event.encode().unwrap();
        assert_eq!(decode_line(line.as_bytes()), Line::Event(Box::new(event)));
        insta::assert_snapshot!(line);
    }

    #[test]
    fn oversized_event_is_refused_with_the_limit() {
        let mut event = sample();
        if let Payload::Started(s) = &mut event.payload {
            s.goal = Some("g".repeat(MAX_EVENT_BYTES));
        }
        let err = event.encode().unwrap_err();
        assert_eq!(err.code, ErrorCode::EventTooLarge);
        assert_eq!(err.details["limit"], 4000);
    }

    #[test]
    fn lines_are_classified_never_failed() {
        assert_eq!(decode_line(b"   "), Line::Blank);
        assert!(matches!(decode_line(b"{not json"), Line::Corrupt { .. }));
        assert!(matches!(decode_line(&[0xff, 0xfe]), Line::Corrupt { .. }));
        assert!(matches!(
            decode_line(br#"{"v":2,"x":1}"#),
            Line::Foreign { .. }
        ));
        assert!(matches!(
            decode_line(br#"{"hello":"world"}"#),
            Line::Foreign { .. }
        ));
        assert!(matches!(decode_line(b"[1,2]"), Line::Foreign { .. }));
        assert!(matches!(
            decode_line(br#"{"v":1,"id":"x"}"#),
            Line::Corrupt { .. }
        ));
        let torn = &sample().encode().unwrap()[..60];
        assert!(matches!(decode_line(torn.as_bytes()), Line::Corrupt { .. }));
        assert_eq!(
            decode_line(encode_header("g1").as_bytes()),
            Line::Header {
                generation: "g1".into()
            }
        );
    }

    #[test]
    fn unknown_kinds_survive_verbatim() {
        let line = r#"{"v":1,"id":"019c0000-0000-7000-8000-000000000001","session":"019c0000-0000-7000-8000-000000000002","kind":"future_kind","at":"2026-07-18T20:00:00.000Z","actor":{"kind":"agent","name":"claude"},"data":{"contract":3}}"#;
        let Line::Event(event) = decode_line(line.as_bytes()) else {
            panic!("not an event")
        };
        assert_eq!(event.payload.kind(), "future_kind");
        assert_eq!(event.encode().unwrap(), line);
    }
}
