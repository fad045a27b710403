//! The line between people and coding agents: who is calling, which operations only a person
//! may do, when a session is the calling agent's own, and whom the ledger records as acting.
//!
//! A host says who is calling ([`Caller`]): the CLI at a person's terminal is a person; a call
//! over MCP, or the CLI run inside an agent, is that agent. An agent may not steer: lift a
//! pause, approve a contract, set the constitution, or act on a session that is not its own
//! (another agent's or a person's: pause, end, resume, report on, brief, correct it, or mark
//! done what is said about it) (`ACTOR_NOT_ALLOWED`), unless the workspace's operator set
//! `agents_may_steer`. Whatever an agent does is recorded under its own name, never as a
//! person.
//!
//! On one user account this is advice, not enforcement: a process that lies about what it is
//! can pass for a person. The enforced boundary is the team database's roles.

use crate::commands::kernel::{Caller, Context, Plan, Prepared};
use crate::commands::request::Request;
use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::event::{Actor, ActorKind};
use crate::ledger::session::Session;
use crate::ledger::store::LedgerView;

/// An operation kept for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// Lifting a pause.
    Unpause,
    /// Approving a mission's contract.
    ApproveMission,
    /// Setting the architecture constitution.
    SetConstitution,
    /// Pausing a session another agent runs.
    PauseOthers,
    /// Ending a session another agent runs.
    EndOthers,
    /// Marking done an attention item about a session another agent runs (or none).
    DismissOthers,
    /// Correcting the goal or summary of a session another agent runs.
    CorrectOthers,
    /// Resuming a session another agent (or a person) runs.
    ResumeOthers,
    /// Reporting on a session another agent (or a person) runs: status, progress, plan,
    /// steps, runs, evidence, changed files, dependencies.
    ReportOthers,
    /// Taking the brief of a session another agent (or a person) runs (it marks a pause
    /// delivered and the context current).
    BriefOthers,
}

impl Reserved {
    /// The operation's wire name, in `details.operation`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reserved::Unpause => "unpause",
            Reserved::ApproveMission => "mission_approve",
            Reserved::SetConstitution => "constitution_set",
            Reserved::PauseOthers => "pause_other_agents_session",
            Reserved::EndOthers => "end_other_agents_session",
            Reserved::DismissOthers => "dismiss_other_agents_attention",
            Reserved::CorrectOthers => "correct_other_agents_session",
            Reserved::ResumeOthers => "resume_other_agents_session",
            Reserved::ReportOthers => "report_on_other_agents_session",
            Reserved::BriefOthers => "brief_other_agents_session",
        }
    }

    /// The operation in words, as the subject of a sentence.
    pub fn in_words(self) -> &'static str {
        match self {
            Reserved::Unpause => "lifting a pause",
            Reserved::ApproveMission => "approving a mission's contract",
            Reserved::SetConstitution => "setting the constitution",
            Reserved::PauseOthers => "pausing another agent's session",
            Reserved::EndOthers => "ending another agent's session",
            Reserved::DismissOthers => {
                "marking done what needs a person about another agent's session"
            }
            Reserved::CorrectOthers => "correcting another agent's session",
            Reserved::ResumeOthers => "resuming a session that is not this agent's own",
            Reserved::ReportOthers => "reporting on a session that is not this agent's own",
            Reserved::BriefOthers => "taking the brief of a session that is not this agent's own",
        }
    }

    /// The operation an agent may never do on its own authority, whatever the session: the
    /// ones a host leaves out of the tools it offers agents. Pausing and ending are reserved
    /// only for other agents' sessions, so they are not listed here.
    pub fn always_for(request: &Request) -> Option<Reserved> {
        match request {
            Request::Unpause(_) => Some(Reserved::Unpause),
            Request::MissionApprove(_) => Some(Reserved::ApproveMission),
            Request::ConstitutionSet(_) => Some(Reserved::SetConstitution),
            _ => None,
        }
    }
}

/// Whether `session` is run by the agent named `agent`: its agent or its client has that
/// name.
pub fn runs(session: &Session, agent: &str) -> bool {
    crate::names::same_agent(&session.agent.to_lowercase(), &agent.to_lowercase())
        || session
            .client_name
            .as_deref()
            .is_some_and(|client| client.trim().eq_ignore_ascii_case(agent))
}

/// Refuses a prepared request its caller may not make. Runs under the lock, against the view
/// the operation decides on, before anything is written.
pub(crate) fn admit(view: &dyn LedgerView, prepared: &Prepared, ctx: &Context) -> Result<()> {
    let Caller::Agent(agent) = &ctx.caller else {
        return Ok(());
    };
    if ctx.policy.agents_may_steer {
        return Ok(());
    }
    let refuse = |operation: Reserved, session: Option<&Session>| {
        Err(Error::actor_not_allowed(
            agent,
            operation.as_str(),
            operation.in_words(),
            session.map(|s| (&s.session_id as &dyn std::fmt::Display, s.agent.as_str())),
        ))
    };
    let others = |id: SessionId| -> Result<Option<Session>> {
        let session = view.session(id)?;
        Ok(session.filter(|s| !runs(s, agent)))
    };
    // An operation on a session: refused when the session is not the caller's.
    let if_others = |operation: Reserved, id: SessionId| match others(id)? {
        Some(session) => refuse(operation, Some(&session)),
        None => Ok(()),
    };
    // The same by the id a request gives (a malformed one is the operation's own error).
    let on_others = |operation: Reserved, raw_id: &str| {
        SessionId::parse_v7("session_id", raw_id).map_or(Ok(()), |id| if_others(operation, id))
    };
    match &prepared.plan {
        Plan::End { id, .. } => if_others(Reserved::EndOthers, *id),
        Plan::Resume { id, .. } => if_others(Reserved::ResumeOthers, *id),
        Plan::Lifecycle(request) => {
            if let Some(operation) = Reserved::always_for(request) {
                let session = match request.as_ref() {
                    Request::Unpause(p) => SessionId::parse_v7("session_id", &p.session_id)
                        .ok()
                        .and_then(|id| view.history(id).ok().flatten())
                        .and_then(|h| h.session()),
                    _ => None,
                };
                return refuse(operation, session.as_ref());
            }
            match request.as_ref() {
                Request::Pause(p) => on_others(Reserved::PauseOthers, &p.session_id),
                Request::Correct(p) => on_others(Reserved::CorrectOthers, &p.session_id),
                Request::Report(p) => on_others(Reserved::ReportOthers, &p.session_id),
                Request::Depend(p) => on_others(Reserved::ReportOthers, &p.session_id),
                Request::Brief(p) => on_others(Reserved::BriefOthers, &p.session_id),
                // An agent may clear what is said about its own sessions, nothing else: the
                // attention list is for people.
                Request::AttentionDone(p) => {
                    let picked = crate::commands::attention::picked_attention(view, p, ctx.now)
                        .unwrap_or_default();
                    for item in picked {
                        let session = view.session(item.session_id)?;
                        match session {
                            Some(session) if runs(&session, agent) => {}
                            other => return refuse(Reserved::DismissOthers, other.as_ref()),
                        }
                    }
                    Ok(())
                }
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

/// Whom the ledger records as doing what the caller asked: the calling agent, or the person.
pub(crate) fn acting(ctx: &Context) -> Actor {
    match &ctx.caller {
        Caller::Agent(name) => Actor::agent(name.clone()),
        Caller::Person => Actor {
            kind: ActorKind::Human,
            name: ctx.person.clone(),
        },
    }
}
