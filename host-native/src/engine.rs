//! Runs core commands against the filesystem ledger: the one place the native hosts (CLI and,
//! later, MCP) turn a request into locked reads, appends and an answer.

use crate::store::Ledger;
use crate::system;
use baton_core::Error;
use baton_core::commands::{self, Request, Response};
use baton_core::event::Actor;
use baton_core::store::LedgerView;

/// Executes one request: prepare, lock the target session if any, refresh, execute, append.
pub fn run(ledger: &Ledger, request: &Request, actor: Option<Actor>) -> Result<Response, Error> {
    let snapshot = ledger.snapshot()?;
    let prepared = commands::prepare(&snapshot, request)?;
    // An unknown session needs no lock: execute answers SESSION_NOT_FOUND without writing,
    // and no lock file is left behind for it.
    let known = match prepared.lock {
        Some(id) => snapshot.history(id)?.is_some(),
        None => false,
    };
    let (snapshot, _guard) = match prepared.lock {
        Some(id) if known => {
            let guard = ledger.lock_session(id)?;
            (ledger.snapshot()?, Some(guard))
        }
        _ => (snapshot, None),
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
