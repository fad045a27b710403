//! The one entry for every request: [`prepare`] (validate and resolve the target, before any
//! lock), [`execute`] (decide against the view refreshed under the lock), and [`run`] for hosts
//! with no cross-process concerns.

use crate::commands::answers::{Response, SessionList, SessionShow};
use crate::commands::kernel::{
    Context, Executed, Plan, Prepared, answered, existing, opt, opt_label,
};
use crate::commands::params::ResumeParams;
use crate::commands::request::Request;
use crate::commands::sessions::{end, prepare_end, prepare_start, resume, start};
use crate::commands::{briefing, oversight, reports, workspace};
use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::session::Session;
use crate::ledger::store::LedgerView;
use crate::names;

/// Step 1: validates a request and resolves its target. Reads the view only to resolve.
pub fn prepare(view: &dyn LedgerView, request: &Request) -> Result<Prepared> {
    let resolved = crate::commands::refs::resolve_references(view, request)?;
    prepare_resolved(view, &resolved)
}

fn prepare_resolved(view: &dyn LedgerView, request: &Request) -> Result<Prepared> {
    match request {
        Request::Start(p) if p.session_id.is_some() => prepare(
            view,
            &Request::Resume(ResumeParams {
                session_id: p.session_id.clone().unwrap_or_default(),
                project: p.project.clone(),
                client_name: p.client_name.clone(),
            }),
        ),
        Request::Start(p) => prepare_start(view, p),
        Request::Resume(p) => {
            let id = SessionId::parse_v7("session_id", &p.session_id)?;
            Ok(Prepared {
                lock: Some(id),
                plan: Plan::Resume {
                    id,
                    project: opt(&p.project, |v| names::safe_name("project", v))?,
                    client_name: opt_label("client_name", &p.client_name)?,
                },
            })
        }
        Request::End(p) => prepare_end(view, p),
        Request::List(p) => Ok(Prepared {
            lock: None,
            plan: Plan::List {
                project: opt(&p.project, |v| names::safe_name("project", v))?,
                agent: opt(&p.agent, names::normalize_agent)?,
                status: opt(&p.status, str::parse)?,
                all: p.include_ended,
                branch: p
                    .branch
                    .as_deref()
                    .map(str::trim)
                    .filter(|b| !b.is_empty())
                    .map(str::to_owned),
                since: opt(&p.since, |text| {
                    crate::time::Timestamp::parse(text)
                        .or_else(|_| {
                            crate::time::parse_day_in("since", text, false, &crate::time::UtcZone)
                        })
                        .map_err(|_| {
                            crate::error::Error::invalid(
                                "since",
                                format!(
                                    "`{text}` is neither a day (YYYY-MM-DD) nor an RFC 3339 time"
                                ),
                            )
                        })
                })?,
            },
        }),
        Request::Show(p) => Ok(Prepared {
            lock: None,
            plan: Plan::Show(SessionId::parse_v7("session_id", &p.session_id)?),
        }),
        // Changes are recorded one observer at a time (the attention items they raise are
        // numbered from the workspace stream); an observation that changes nothing takes no lock.
        Request::Observe(p) => Ok(Prepared {
            lock: oversight::observe_changes(view, p)?.then_some(crate::ids::WORKSPACE_STREAM),
            plan: Plan::Lifecycle(Box::new(request.clone())),
        }),
        other => {
            let target = match other {
                Request::Brief(r) | Request::Unpause(r) => Some(&r.session_id),
                Request::Report(r) => Some(&r.session_id),
                Request::Depend(r) => Some(&r.session_id),
                Request::Pause(r) => Some(&r.session_id),
                Request::RecordUsage(r) => Some(&r.session_id),
                Request::Correct(r) => Some(&r.session_id),
                _ => None,
            };
            let workspace = matches!(
                other,
                Request::MissionAdd(_)
                    | Request::MissionApprove(_)
                    | Request::ConstitutionSet(_)
                    | Request::Index(_)
                    | Request::AmbiguityOpen(_)
                    | Request::AmbiguityResolve(_)
                    | Request::DecisionRecord(_)
                    | Request::AttentionDone(_)
            );
            let lock = match target {
                Some(id) => Some(SessionId::parse_v7("session_id", id)?),
                // Versions and numbers are assigned from what the stream holds: one writer
                // at a time.
                None if workspace => Some(crate::ids::WORKSPACE_STREAM),
                None => None,
            };
            Ok(Prepared {
                lock,
                plan: Plan::Lifecycle(Box::new(other.clone())),
            })
        }
    }
}

/// Step 3: decides against a view refreshed under the lock.
pub fn execute(view: &dyn LedgerView, prepared: &Prepared, ctx: &Context) -> Result<Executed> {
    crate::commands::trust::admit(view, prepared, ctx)?;
    match &prepared.plan {
        Plan::Start { started, brief } => start(view, started, *brief, ctx),
        Plan::Resume {
            id,
            project,
            client_name,
        } => resume(view, *id, project.as_deref(), client_name, ctx),
        Plan::End {
            id,
            outcome,
            summary,
        } => end(view, *id, *outcome, summary, ctx),
        Plan::List {
            project,
            agent,
            status,
            all,
            branch,
            since,
        } => {
            let pool = if *all || status.is_some_and(|s| !s.is_live()) {
                view.all_sessions()?
            } else {
                view.live_sessions()?
            };
            let sessions: Vec<Session> = pool
                .into_iter()
                .filter(|s| project.as_ref().is_none_or(|p| &s.project == p))
                .filter(|s| {
                    agent
                        .as_ref()
                        .is_none_or(|a| names::same_agent(&s.agent, a))
                })
                .filter(|s| status.is_none_or(|st| s.status == st))
                .filter(|s| branch.is_none() || s.branch == *branch)
                .filter(|s| since.is_none_or(|at| s.last_event_at >= at))
                .collect();
            Ok(answered(Response::List(SessionList {
                total: sessions.len(),
                sessions,
            })))
        }
        Plan::Show(id) => Ok(answered(Response::Show(SessionShow {
            session: existing(view, *id)?.1,
        }))),
        Plan::Lifecycle(request) => lifecycle_request(view, request, ctx),
    }
}

fn lifecycle_request(view: &dyn LedgerView, request: &Request, ctx: &Context) -> Result<Executed> {
    match request {
        Request::Brief(p) => briefing::brief(view, p, ctx),
        Request::Report(p) => reports::report(view, p, ctx),
        Request::Depend(p) => reports::depend(view, p, ctx),
        Request::Pause(p) => oversight::pause(view, p, ctx),
        Request::Unpause(p) => oversight::unpause(view, p, ctx),
        Request::Health(p) => briefing::health(view, p, ctx),
        Request::Timeline(p) => oversight::show_timeline(view, p),
        Request::Attention => oversight::attention(view),
        Request::AttentionDone(p) => oversight::attention_done(view, p, ctx),
        Request::MissionAdd(p) => workspace::mission_add(view, p, ctx),
        Request::MissionApprove(p) => workspace::mission_approve(view, p, ctx),
        Request::ConstitutionSet(p) => workspace::constitution_set(view, p, ctx),
        Request::Index(p) => workspace::index(view, p, ctx),
        Request::AmbiguityOpen(p) => workspace::ambiguity_open(view, p, ctx),
        Request::AmbiguityResolve(p) => workspace::ambiguity_resolve(view, p, ctx),
        Request::DecisionRecord(p) => workspace::decision_record(view, p, ctx),
        Request::Observe(p) => oversight::observe(view, p, ctx),
        Request::RecordUsage(p) => reports::record_usage(view, p, ctx),
        Request::Correct(p) => reports::correct(view, p, ctx),
        Request::Start(_)
        | Request::Resume(_)
        | Request::End(_)
        | Request::List(_)
        | Request::Show(_) => Err(Error::internal(
            "a core request reached the lifecycle dispatcher",
        )),
    }
}

/// Prepares and executes in one step, for hosts with no cross-process concerns (memory, wasm).
pub fn run(
    ledger: &mut (impl LedgerView + crate::ledger::store::EventLog),
    request: &Request,
    ctx: &Context,
) -> Result<Response> {
    let prepared = prepare(ledger, request)?;
    let executed = execute(ledger, &prepared, ctx)?;
    for event in &executed.events {
        ledger.append(&event.encode()?)?;
    }
    match executed.refusal {
        Some(refusal) => Err(refusal),
        None => Ok(executed.response),
    }
}
