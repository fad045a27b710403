//! Compaction's pure half: sealed log segments and old archives in, monthly rollups out.
//!
//! A rollup line holds every distinct event of one session that happened in one month:
//! `{"v":1,"kind":"rollup","session":…,"month":"YYYY-MM","events":[…]}`. Because the fold is a
//! set union, a rollup folds to exactly what its events folded to, and folding a rollup next
//! to the same events (a retried compaction, a re-appended event) counts them once. Lines that
//! are not events — corrupt or of a foreign schema — are never dropped: they are carried,
//! byte for byte and once each, into the `preserved` file.

use crate::error::{Error, Result};
use crate::ids::EventId;
use crate::ids::SessionId;
use crate::ledger::event::{Event, Line, decode_line};
use crate::ledger::fold::{Fold, SessionHistory};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One line of an archive file.
#[derive(Debug)]
pub enum ArchiveLine {
    /// A rollup of one session's events in one month.
    Rollup {
        /// The session.
        session: SessionId,
        /// `YYYY-MM`.
        month: String,
        /// Its events that month (malformed members are counted as corrupt).
        events: Vec<Event>,
        /// Members that could not be read.
        unreadable: Vec<String>,
    },
    /// Anything else, classified as a ledger line.
    Plain(Line),
}

#[derive(Deserialize)]
struct RollupWire<'a> {
    v: u64,
    kind: &'a str,
    session: SessionId,
    month: String,
    #[serde(borrow)]
    events: Vec<&'a RawValue>,
}

/// Classifies one archive line. Never panics, never fails.
pub fn decode_archive_line(bytes: &[u8]) -> ArchiveLine {
    if let Ok(wire) = serde_json::from_slice::<RollupWire<'_>>(bytes)
        && wire.v == 1
        && wire.kind == "rollup"
    {
        {
            let mut events = Vec::with_capacity(wire.events.len());
            let mut unreadable = Vec::new();
            for raw in wire.events {
                match decode_line(raw.get().as_bytes()) {
                    Line::Event(e) if e.session == wire.session => events.push(*e),
                    _ => unreadable.push(raw.get().to_owned()),
                }
            }
            return ArchiveLine::Rollup {
                session: wire.session,
                month: wire.month,
                events,
                unreadable,
            };
        }
    }
    ArchiveLine::Plain(decode_line(bytes))
}

/// Folds an archive file's text into `fold`, counting unreadable members as corrupt lines.
pub fn fold_archive(fold: &mut Fold, bytes: &[u8], source: &str) {
    let mut offset = 0u64;
    for chunk in bytes.split_inclusive(|&b| b == b'\n') {
        let line = chunk.strip_suffix(b"\n").unwrap_or(chunk);
        match decode_archive_line(line) {
            ArchiveLine::Rollup {
                session,
                events,
                unreadable,
                ..
            } => {
                fold.stats.lines += 1;
                let mut history = SessionHistory::default();
                for event in events {
                    fold.stats.events += 1;
                    if !history.insert(event) {
                        fold.stats.duplicate_events += 1;
                    }
                }
                fold.join_history(session, history);
                for member in unreadable {
                    fold.apply_line(member.as_bytes(), source, offset);
                }
            }
            ArchiveLine::Plain(_) => {
                fold.apply_line(line, source, offset);
            }
        }
        offset += chunk.len() as u64;
    }
}

/// Encodes one rollup line. An event whose line as written is in `as_written` keeps it byte
/// for byte (fields a newer Baton added survive an older one's compaction); others are
/// encoded.
pub(crate) fn encode_rollup(
    session: SessionId,
    month: &str,
    events: &[&Event],
    as_written: &HashMap<EventId, String>,
) -> Result<String> {
    let mut members = Vec::with_capacity(events.len());
    for event in events {
        let text = match as_written.get(&event.id) {
            Some(text) => text.clone(),
            None => event.encode_unbounded()?,
        };
        members.push(
            RawValue::from_string(text)
                .map_err(|e| Error::internal(format!("rollup member: {e}")))?,
        );
    }
    serde_json::to_string(&serde_json::json!({
        "v": 1,
        "kind": "rollup",
        "session": session,
        "month": month,
        "events": members,
    }))
    .map_err(|e| Error::internal(format!("rollup: {e}")))
}

/// What compaction reads.
#[derive(Debug, Default)]
pub struct CompactionInput<'a> {
    /// Sealed log segments (renamed away from the active log), as bytes.
    pub sealed: Vec<&'a [u8]>,
    /// Existing monthly archives, `YYYY-MM` → bytes.
    pub archives: BTreeMap<String, &'a [u8]>,
    /// The existing preserved-lines file.
    pub preserved: &'a [u8],
}

/// What compaction writes: only the files whose content changed.
#[derive(Debug, Default, PartialEq)]
pub struct CompactionOutput {
    /// `YYYY-MM` → the whole new archive text, for each month that gained events.
    pub archives: BTreeMap<String, String>,
    /// The whole new preserved file (raw bytes), when it gained lines.
    pub preserved: Option<Vec<u8>>,
    /// Events moved out of the sealed segments (duplicates included).
    pub events_in: u64,
    /// Distinct events now in the rewritten months.
    pub events_out: u64,
    /// Corrupt and foreign lines carried into `preserved`.
    pub preserved_lines: u64,
}

/// Records the text of every event member of an archive's rollup lines.
fn remember_members(archive: &[u8], as_written: &mut HashMap<EventId, String>) {
    for line in archive.split(|&b| b == b'\n') {
        let Ok(wire) = serde_json::from_slice::<RollupWire<'_>>(line) else {
            continue;
        };
        for member in wire.events {
            if let Line::Event(event) = decode_line(member.get().as_bytes()) {
                as_written
                    .entry(event.id)
                    .or_insert_with(|| member.get().to_owned());
            }
        }
    }
}

/// Rolls sealed segments into monthly archives. Pure and deterministic; idempotent when the
/// same sealed segment is compacted twice.
pub fn compact(input: &CompactionInput<'_>) -> Result<CompactionOutput> {
    let mut new_events: BTreeMap<String, Fold> = BTreeMap::new();
    let mut preserved: BTreeSet<Vec<u8>> = input
        .preserved
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let preserved_before = preserved.len();
    let mut events_in = 0u64;
    // Each event's text as written, so the rollup copies it instead of re-encoding it.
    let mut as_written: HashMap<EventId, String> = HashMap::new();
    for segment in &input.sealed {
        for line in segment.split(|&b| b == b'\n') {
            match decode_line(line) {
                Line::Event(event) => {
                    events_in += 1;
                    if let Ok(text) = std::str::from_utf8(line) {
                        as_written
                            .entry(event.id)
                            .or_insert_with(|| text.trim().to_owned());
                    }
                    new_events
                        .entry(event.at.month_key())
                        .or_default()
                        .apply(*event);
                }
                Line::Corrupt { .. } | Line::Foreign { .. } => {
                    preserved.insert(line.to_vec());
                }
                Line::Blank | Line::Header { .. } => {}
            }
        }
    }
    let mut output = CompactionOutput {
        events_in,
        preserved_lines: (preserved.len() - preserved_before) as u64,
        ..CompactionOutput::default()
    };
    for (month, fresh) in new_events {
        let mut fold = Fold::new();
        if let Some(old) = input.archives.get(&month) {
            fold_archive(&mut fold, old, &month);
            remember_members(old, &mut as_written);
            // Unreadable lines of an old archive move to `preserved` instead of vanishing.
            for line in old.split(|&b| b == b'\n') {
                if let ArchiveLine::Plain(Line::Corrupt { .. } | Line::Foreign { .. }) =
                    decode_archive_line(line)
                {
                    preserved.insert(line.to_vec());
                }
            }
        }
        fold.join(fresh);
        let mut text = String::new();
        for (id, history) in fold.histories() {
            let events = history.ordered();
            output.events_out += events.len() as u64;
            text.push_str(&encode_rollup(*id, &month, &events, &as_written)?);
            text.push('\n');
        }
        output.archives.insert(month, text);
    }
    if preserved.len() != preserved_before {
        let mut text = Vec::new();
        for line in &preserved {
            text.extend_from_slice(line);
            text.push(b'\n');
        }
        output.preserved = Some(text);
        output.preserved_lines = (preserved.len() - preserved_before) as u64;
    }
    Ok(output)
}
