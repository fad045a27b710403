//! The checkpoint format: the fold at a byte offset of the active log, laid out so a host can
//! look one session up without reading the rest.
//!
//! The file is NDJSON. Line 1 is a [`CheckpointHeader`]; every later line is
//! `<session-id> <checksum> <JSON array of that session's events>`, sorted by id, so a host
//! finds one session by binary search over byte offsets, and the line's checksum (FNV-1a of the
//! array) catches a damaged line when it is read. The header names what it was computed from
//! (log generation and offset, the archive stamp) and carries a checksum of itself and the
//! body's length, so a stale or damaged checkpoint is detected and rebuilt, never trusted.

use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::event::{Line, decode_line};
use crate::ledger::fold::{FoldStats, SessionHistory};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The checkpoint format version.
pub const CHECKPOINT_FORMAT: u32 = 2;

/// What a checkpoint covers and how to validate it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CheckpointHeader {
    /// Always [`CHECKPOINT_FORMAT`].
    pub baton_checkpoint: u32,
    /// The active log's generation (from its header line) the offset refers to.
    pub generation: String,
    /// Bytes of the active log folded in; always just after a newline.
    pub offset: u64,
    /// Identifies the archives folded in; changes whenever compaction rewrites them.
    pub archive_stamp: String,
    /// Sessions live at the offset.
    pub live: Vec<SessionId>,
    /// How many session lines follow.
    pub sessions: u64,
    /// Bytes after the header line.
    pub body_bytes: u64,
    /// Counts of what the fold read.
    pub stats: FoldStats,
    /// FNV-1a 64 of this header with `check` empty, in hex.
    pub check: String,
}

impl CheckpointHeader {
    /// Seals the header: computes `check` and returns the encoded line (without newline).
    pub fn seal(mut self) -> Result<String> {
        self.check = String::new();
        let unsealed = serde_json::to_string(&self)
            .map_err(|e| Error::internal(format!("checkpoint header: {e}")))?;
        self.check = format!("{:016x}", fnv1a64(unsealed.as_bytes()));
        serde_json::to_string(&self).map_err(|e| Error::internal(format!("checkpoint header: {e}")))
    }

    /// Parses and verifies a header line; `None` if it is damaged or of another format.
    pub fn open(line: &[u8]) -> Option<CheckpointHeader> {
        let header: CheckpointHeader = serde_json::from_slice(line).ok()?;
        if header.baton_checkpoint != CHECKPOINT_FORMAT {
            return None;
        }
        let mut copy = header.clone();
        copy.check = String::new();
        let unsealed = serde_json::to_string(&copy).ok()?;
        (format!("{:016x}", fnv1a64(unsealed.as_bytes())) == header.check).then_some(header)
    }
}

/// Encodes one body line for a session.
pub fn encode_session_line(id: SessionId, history: &SessionHistory) -> Result<String> {
    let mut members = Vec::with_capacity(history.len());
    for event in history.ordered() {
        members.push(
            RawValue::from_string(event.encode_unbounded()?)
                .map_err(|e| Error::internal(format!("checkpoint line: {e}")))?,
        );
    }
    let events = serde_json::to_string(&members)
        .map_err(|e| Error::internal(format!("checkpoint line: {e}")))?;
    Ok(format!("{id} {:016x} {events}", fnv1a64(events.as_bytes())))
}

/// The session id a body line starts with, for binary search.
pub fn session_line_id(line: &[u8]) -> Option<SessionId> {
    let text = std::str::from_utf8(line.get(..36)?).ok()?;
    uuid::Uuid::try_parse(text).ok().map(SessionId)
}

/// Decodes a body line; `None` if it is damaged: each line carries the checksum of its events,
/// so a flipped byte that still reads as JSON (a digit of a count) is caught, not believed.
pub fn decode_session_line(line: &[u8]) -> Option<(SessionId, SessionHistory)> {
    let id = session_line_id(line)?;
    let check = std::str::from_utf8(line.get(37..53)?).ok()?;
    let events = line.get(54..)?;
    if line.get(36) != Some(&b' ') || line.get(53) != Some(&b' ') {
        return None;
    }
    if format!("{:016x}", fnv1a64(events)) != check {
        return None;
    }
    let members: Vec<&RawValue> = serde_json::from_slice(events).ok()?;
    let mut history = SessionHistory::default();
    for member in members {
        match decode_line(member.get().as_bytes()) {
            Line::Event(event) if event.session == id => {
                history.insert(*event);
            }
            _ => return None,
        }
    }
    Some((id, history))
}

/// FNV-1a, 64 bit: a small, dependency-free checksum, identical on every target.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_seal_detects_tampering() {
        let header = CheckpointHeader {
            baton_checkpoint: CHECKPOINT_FORMAT,
            generation: "g".into(),
            offset: 120,
            archive_stamp: "a".into(),
            live: vec![],
            sessions: 0,
            body_bytes: 0,
            stats: FoldStats::default(),
            check: String::new(),
        };
        let line = header.clone().seal().unwrap();
        let opened = CheckpointHeader::open(line.as_bytes()).unwrap();
        assert_eq!(opened.offset, 120);
        let tampered = line.replace("\"offset\":120", "\"offset\":121");
        assert!(CheckpointHeader::open(tampered.as_bytes()).is_none());
        assert!(CheckpointHeader::open(b"garbage").is_none());
    }
}
