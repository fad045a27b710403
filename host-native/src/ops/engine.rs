//! Runs core commands against the filesystem ledger: a request turned into locked reads,
//! appends and an answer. Faces reach it through [`crate::ops::command`], which takes the steps
//! around it.

use crate::os::system;
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::Caller;
use baton_core::commands::{self, Context, Request, Response};
use baton_core::ledger::event::Actor;
use baton_core::ledger::store::LedgerView;
use baton_core::lifecycle::workspace::Policy;
use baton_core::{EventId, SessionId};
use serde::Deserialize;

/// Reads `.baton/config.toml` (absent: the one-person defaults). The host's own tables
/// ([`crate::config::HOST_TABLES`]) are set aside; everything else is the policy, and an unknown key in it
/// is an error (a misspelt `[members]` must not silently leave a workspace open).
pub fn policy(ledger: &Ledger) -> Result<Policy, Error> {
    let config = crate::config::ConfigFile::read(ledger.dir())?;
    Policy::deserialize(config.policy_part())
        .map_err(|e| crate::config::ConfigFile::invalid(config.path(), &e))
}

/// Fills in what a request leaves out and only the host knows, the same way for every native
/// host: the calling client's name (MCP's `clientInfo`; the CLI has none), a new session's
/// agent from it, and the repository's HEAD as a new session's commit.
pub fn fill_defaults(request: &mut Request, client: Option<&str>) {
    match request {
        Request::Start(p) => {
            if p.client_name.is_none() {
                p.client_name = client.map(str::to_owned);
            }
            if p.session_id.is_none() {
                if p.agent.is_none() {
                    p.agent = client.map(baton_core::names::canonical_agent);
                }
                if p.commit.is_none() || p.branch.is_none() || p.worktree.is_none() {
                    let git = system::git_state().unwrap_or_default();
                    p.commit = p.commit.take().or(git.commit);
                    // A branch given names where the work is, wherever it runs: the folder's
                    // worktree goes with the folder's branch only.
                    if p.branch.is_none() {
                        p.branch = git.branch;
                        p.worktree = p.worktree.take().or(git.worktree);
                    }
                }
            }
        }
        Request::End(p) if p.session_id.is_none() && p.client_name.is_none() => {
            p.client_name = client.map(str::to_owned);
        }
        _ => {}
    }
}

/// Points a request from inside an agent's session at the work session that agent session
/// already has, when a hook opened it: a start (without an id of its own) resumes it rather
/// than opening a second work session, and an end (without an id) ends it even when other
/// sessions of the same filters are live. The agent is this process's client (its parent past
/// any shell); its work session is the one live session tied to that very process (pid and
/// start time), else the one with the agent session id Claude Code's registry gives that
/// process. Only sessions opened with an agent session id (as hooks open them) are joined.
/// Nothing changes when no session, or more than one, fits.
pub fn join_calling_agents_session(ledger: &Ledger, request: &mut Request) {
    let wants = match request {
        Request::Start(p) => {
            p.session_id.is_none() && p.provider_session_id.is_none() && p.attempt_id.is_none()
        }
        Request::End(p) => p.session_id.is_none(),
        _ => false,
    };
    if !wants {
        return;
    }
    let Some(found) = calling_agents_session(ledger) else {
        return;
    };
    match request {
        Request::Start(p) => {
            // The project is the session's own: the agent's guess at a name must not refuse
            // the resume.
            p.session_id = Some(found.session_id.to_string());
            p.project = None;
        }
        Request::End(p) => {
            let fits = p.project.as_ref().is_none_or(|v| *v == found.project);
            if fits {
                p.session_id = Some(found.session_id.to_string());
            }
        }
        _ => {}
    }
}

/// The one live work session whose agent is this process's client (see
/// [`join_calling_agents_session`]).
fn calling_agents_session(ledger: &Ledger) -> Option<baton_core::ledger::session::Session> {
    let (pid, start) = crate::os::processes::agent_process()?;
    // Only a session that stands for a whole agent session (a hook opened it with the agent's
    // session id) is joined: one process may run several sessions it started itself.
    let live: Vec<_> = ledger
        .snapshot()
        .ok()?
        .live_sessions()
        .ok()?
        .into_iter()
        .filter(|s| s.provider_session_id.is_some())
        .collect();
    let tied: Vec<_> = live
        .iter()
        .filter(|s| {
            s.liveness
                .as_ref()
                .and_then(|seen| seen.process)
                .is_some_and(|(p, recorded)| p == pid && (recorded.is_none() || recorded == start))
        })
        .collect();
    if let [one] = tied.as_slice() {
        return Some((*one).clone());
    }
    if !tied.is_empty() {
        return None;
    }
    let agent_session = crate::os::processes::registered_session_of(pid, start)?;
    let named: Vec<_> = live
        .iter()
        .filter(|s| s.provider_session_id.as_deref() == Some(agent_session.as_str()))
        .collect();
    match named.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// Who a command runs for: the actor to record when the host knows better than the core, the
/// person (`--as`; else `BATON_ACTOR` or the OS user), and who is calling (a person, or an
/// agent: over MCP, or the CLI inside one).
#[derive(Debug, Clone, Default)]
pub struct Acting {
    /// Recorded as the actor of every event, when set.
    pub actor: Option<Actor>,
    /// The person on whose behalf this runs; `None` reads the environment.
    pub person: Option<String>,
    /// Who is calling.
    pub caller: Caller,
}

/// A context with the current time, fresh ids, the ledger's policy and the acting person.
pub fn context(
    acting: &Acting,
    policy: baton_core::lifecycle::workspace::Policy,
) -> Result<Context, baton_core::Error> {
    let mut ctx = Context::new(
        system::now()?,
        EventId(system::new_uuid()),
        SessionId(system::new_uuid()),
    );
    ctx.actor = acting.actor.clone();
    ctx.person = acting.person.clone().unwrap_or_else(system::person);
    ctx.caller = acting.caller.clone();
    ctx.policy = policy;
    Ok(ctx)
}

/// Executes one request as a person from the environment, recording `actor` when given.
pub fn run(ledger: &Ledger, request: &Request, actor: Option<Actor>) -> Result<Response, Error> {
    run_as(
        ledger,
        request,
        &Acting {
            actor,
            ..Acting::default()
        },
    )
}

/// Executes one request: prepare, lock the target session if any, refresh, execute, append,
/// then bring the checkpoint up to date. A refusal (a run report with text) is recorded, then
/// answered as its error.
pub fn run_as(ledger: &Ledger, request: &Request, acting: &Acting) -> Result<Response, Error> {
    let (result, snapshot) = run_deferred(ledger, request, acting);
    if let Some(snapshot) = snapshot {
        refresh(ledger, &snapshot);
    }
    result
}

/// Brings the checkpoint up to date after a command; a failure costs only speed.
pub fn refresh(ledger: &Ledger, snapshot: &crate::store::Snapshot) {
    if let Err(err) = ledger.refresh_checkpoint(snapshot) {
        crate::os::warnings::warn(&format!("could not refresh the checkpoint: {err}"));
    }
}

/// Executes one request and returns its answer at once, with the view it read so the caller
/// can refresh the checkpoint after answering (the MCP server does it off the reply path).
pub fn run_deferred(
    ledger: &Ledger,
    request: &Request,
    acting: &Acting,
) -> (Result<Response, Error>, Option<crate::store::Snapshot>) {
    run_deferred_on(ledger, request, acting, None)
}

/// [`run_deferred`], starting from `view` when the caller has just read one (a command that
/// locks a session still reads the ledger again under its lock).
pub fn run_deferred_on(
    ledger: &Ledger,
    request: &Request,
    acting: &Acting,
    view: Option<crate::store::Snapshot>,
) -> (Result<Response, Error>, Option<crate::store::Snapshot>) {
    // The legacy selector: a note names its session in its frontmatter.
    let resolved;
    let request = match request {
        Request::End(p) if p.session_id.is_none() && p.session_note.is_some() => {
            let note = p.session_note.as_deref().unwrap_or_default();
            match crate::ops::notes::session_of_note(ledger, note) {
                Ok(id) => {
                    let mut p = p.clone();
                    p.session_id = Some(id);
                    resolved = Request::End(p);
                    &resolved
                }
                Err(err) => return (Err(err), None),
            }
        }
        other => other,
    };
    let first = run_once(ledger, request, acting, view);
    let (mut result, snapshot) = match &first.0 {
        // A damaged checkpoint (a flipped byte in its body) is a cache gone bad: drop it and
        // answer from the logs; the refresh after this command rebuilds it.
        Err(err) if ledger.drop_damaged_checkpoint(err) => run_once(ledger, request, acting, None),
        _ => first,
    };
    if let Ok(response) = &mut result {
        crate::ops::notes::after_command(ledger, response);
    }
    (result, snapshot)
}

fn run_once(
    ledger: &Ledger,
    request: &Request,
    acting: &Acting,
    view: Option<crate::store::Snapshot>,
) -> (Result<Response, Error>, Option<crate::store::Snapshot>) {
    let mut kept = None;
    let result = (|| {
        let policy = policy(ledger)?;
        let snapshot = match view {
            Some(view) => view,
            None => ledger.snapshot()?,
        };
        let prepared = commands::prepare(&snapshot, request)?;
        // An unknown session needs no lock: execute answers SESSION_NOT_FOUND without
        // writing, and no lock file is left behind for it.
        let known = match prepared.lock {
            // The workspace stream is locked even before its first event: that first
            // `mission add` must be serialized too.
            Some(id) if id == baton_core::ids::WORKSPACE_STREAM => true,
            Some(id) => snapshot.history(id)?.is_some(),
            None => false,
        };
        // The budgets govern a pull: measured before the lock (they may wait a moment on
        // the team database), on the sessions as they stand.
        let budget = if request.pulls() {
            let now = crate::os::system::now()?;
            crate::ops::budget::for_pull(ledger, &policy, &snapshot, now)
        } else {
            None
        };
        let (snapshot, _guard) = match prepared.lock {
            Some(id) if known => {
                // The view before the lock is done with: let go of it first, so a kept fold
                // can take in what the view under the lock reads.
                drop(snapshot);
                let guard = ledger.lock_session(id)?;
                (ledger.snapshot()?, Some(guard))
            }
            _ => (snapshot, None),
        };
        let mut ctx = context(acting, policy)?;
        ctx.budget = budget;
        let executed = commands::execute(&snapshot, &prepared, &ctx);
        kept = Some(snapshot);
        let executed = executed?;
        let lines = executed
            .events
            .iter()
            .map(|event| event.encode())
            .collect::<Result<Vec<_>, _>>()?;
        ledger.append_lines(&lines)?;
        match executed.refusal {
            Some(refusal) => Err(refusal),
            None => Ok(executed.response),
        }
    })();
    (result, kept)
}
