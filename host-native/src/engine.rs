//! Runs core commands against the filesystem ledger: the one place the native hosts (CLI and,
//! later, MCP) turn a request into locked reads, appends and an answer.

use crate::store::Ledger;
use crate::system;
use baton_core::commands::{self, Request, Response};
use baton_core::event::Actor;
use baton_core::Error;

/// Executes one request: prepare, lock the target session if any, refresh, execute, append.
pub fn run(ledger: &Ledger, request: &Request, actor: Option<Actor>) -> Result<Response, Error> {
    let snapshot = ledger.snapshot()?;
    let prepared = commands::prepare(&snapshot, request)?;
    let (snapshot, _guard) = match prepared.lock {
        Some(id) => {
            let guard = ledger.lock_session(id)?;
            (ledger.snapshot()?, Some(guard))
        }
        None => (snapshot, None),
    };
    let ctx = system::context(actor)?;
    let executed = commands::execute(&snapshot, &prepared, &ctx)?;
    for event in &executed.events {
        ledger.append(&event.encode()?)?;
    }
    if let Err(err) = ledger.refresh_checkpoint(&snapshot) {
        eprintln!("baton: warning: could not refresh the checkpoint: {err}");
    }
    Ok(executed.response)
}
