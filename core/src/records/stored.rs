//! How a record is stored in the ledger and read back: one `record_stored` event on the
//! records stream, its content inline when the whole line fits the ledger's cap, else in a
//! content-addressed blob (named by the SHA-256 of its bytes) that the host writes before the
//! event.

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{EventId, RECORDS_STREAM};
use crate::ledger::event::{Actor, Event, MAX_EVENT_BYTES, Payload};
use crate::ledger::record::{BlobRef, RecordStored};
use crate::records::Record;

/// A record as the ledger holds it: everything but a blob's bytes, which the host reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// The record, its `content` empty when it is in a blob.
    pub record: Record,
    /// The blob holding the content, when the event does not.
    pub blob: Option<BlobRef>,
    /// The event that stored it.
    pub event: EventId,
}

impl StoredRecord {
    /// The record with its content: inline, or `blob_bytes` once they are checked against
    /// the reference.
    pub fn with_content(self, blob_bytes: Option<&[u8]>) -> Result<Record> {
        let mut record = self.record;
        if let Some(blob) = &self.blob {
            let bytes = blob_bytes.ok_or_else(|| {
                Error::record_content_damaged(
                    &record.id.to_string(),
                    &blob.sha256,
                    "the blob is missing",
                )
            })?;
            blob.check(record.id, bytes)?;
            record.content = String::from_utf8(bytes.to_vec()).map_err(|_| {
                Error::record_content_damaged(
                    &record.id.to_string(),
                    &blob.sha256,
                    "the blob is not UTF-8 text",
                )
            })?;
        }
        Ok(record)
    }
}

/// What storing a record takes: the event to append and, when the content did not fit the
/// line, the blob to write (whole and durable) before it.
#[derive(Debug, Clone, PartialEq)]
pub struct StorePlan {
    /// The `record_stored` event.
    pub event: Event,
    /// The content's blob, when it is not inline.
    pub blob: Option<BlobRef>,
}

/// Plans the storing of `record` by `actor` under `event_id` (the event's time is the
/// record's creation): inline when the encoded line fits [`MAX_EVENT_BYTES`], else the content
/// goes to a blob. Refused with `EVENT_TOO_LARGE` only when the line is too long without its
/// content (a very long title or many tags).
pub fn plan_store(record: &Record, event_id: EventId, actor: Actor) -> Result<StorePlan> {
    let data = RecordStored {
        record_id: record.id,
        about: record.about.clone(),
        content: Some(record.content.clone()),
        content_blob: None,
    };
    let event = |data: RecordStored| Event {
        id: event_id,
        session: RECORDS_STREAM,
        at: record.created_at,
        actor: actor.clone(),
        payload: Payload::RecordStored(data),
    };
    let inline = event(data.clone());
    if inline.encode_unbounded()?.len() <= MAX_EVENT_BYTES {
        return Ok(StorePlan {
            event: inline,
            blob: None,
        });
    }
    let blob = BlobRef::of(record.content.as_bytes());
    let by_reference = event(RecordStored {
        content: None,
        content_blob: Some(blob.clone()),
        ..data
    });
    by_reference.encode().map_err(|err| {
        if err.code == ErrorCode::EventTooLarge {
            Error::invalid(
                "title",
                format!(
                    "the record's title and tags take more than a ledger line ({MAX_EVENT_BYTES} bytes) without its content: shorten them"
                ),
            )
            .with("limit", MAX_EVENT_BYTES)
        } else {
            err
        }
    })?;
    Ok(StorePlan {
        event: by_reference,
        blob: Some(blob),
    })
}

/// The record an event stores, if it is a `record_stored` event.
pub fn stored_record(event: &Event) -> Option<StoredRecord> {
    let Payload::RecordStored(data) = &event.payload else {
        return None;
    };
    Some(StoredRecord {
        record: Record {
            id: data.record_id,
            about: data.about.clone(),
            created_at: event.at,
            updated_at: event.at,
            content: data.content.clone().unwrap_or_default(),
        },
        blob: data.content_blob.clone(),
        event: event.id,
    })
}

/// Every record a history of the records stream holds, oldest first. Should two events
/// store one record id (a replayed or hand-edited log), the earliest wins, so every reader
/// agrees.
pub fn stored_records(history: &crate::ledger::fold::SessionHistory) -> Vec<StoredRecord> {
    let mut seen = std::collections::HashSet::new();
    history
        .ordered()
        .into_iter()
        .filter_map(stored_record)
        .filter(|stored| seen.insert(stored.record.id))
        .collect()
}
