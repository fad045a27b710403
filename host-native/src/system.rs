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

/// The person acting: `BATON_ACTOR`, else the OS user, else `local`.
pub fn person() -> String {
    ["BATON_ACTOR", "USER", "LOGNAME"]
        .iter()
        .find_map(|var| std::env::var(var).ok().filter(|v| !v.trim().is_empty()))
        .map_or_else(|| "local".to_owned(), |v| v.trim().to_owned())
}

/// The repository commit of the working directory (`git rev-parse HEAD`), if any.
pub fn git_head() -> Option<String> {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let commit = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !commit.is_empty()).then_some(commit)
}

/// A context with the current time, fresh ids, the ledger's policy and the acting person.
pub fn context(
    actor: Option<Actor>,
    person: Option<String>,
    policy: baton_core::workspace::Policy,
) -> Result<Context, baton_core::Error> {
    let mut ctx = Context::new(now()?, EventId(new_uuid()), SessionId(new_uuid()));
    ctx.actor = actor;
    ctx.person = person.unwrap_or_else(self::person);
    ctx.policy = policy;
    Ok(ctx)
}
