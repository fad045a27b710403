//! The outside world the core may not touch: the clock and fresh ids.
//!
//! `BATON_NOW` pins the clock (ISO 8601) for tests and replays; without it the system clock is
//! used. Ids are UUIDv7 from the system clock and the OS random source.

use baton_core::commands::Context;
use baton_core::event::Actor;
use baton_core::{EventId, SessionId, Timestamp};

/// The current time, or `BATON_NOW` when set.
pub fn now() -> Result<Timestamp, baton_core::Error> {
    match std::env::var("BATON_NOW") {
        Ok(pinned) if !pinned.trim().is_empty() => Timestamp::parse(pinned.trim()),
        _ => Ok(Timestamp::from_millis(
            chrono::Utc::now().timestamp_millis(),
        )),
    }
}

/// A fresh UUIDv7.
pub fn new_uuid() -> uuid::Uuid {
    uuid::Uuid::now_v7()
}

/// A context with the current time and fresh ids.
pub fn context(actor: Option<Actor>) -> Result<Context, baton_core::Error> {
    Ok(Context {
        now: now()?,
        event_id: EventId(new_uuid()),
        session_id: SessionId(new_uuid()),
        actor,
    })
}
