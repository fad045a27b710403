//! Starting, resuming and ending work sessions: registration gates, the implicit "which
//! session?" rule (answered only when exactly one fits), and the closing checks of an end.

use crate::commands::answers::SessionActionKind;
use crate::commands::answers::{Response, SessionAction};
use crate::commands::briefing::{push_brief, push_health};
use crate::commands::kernel::{
    Context, EventBatch, Executed, Plan, Prepared, agent_acting, existing, not_found, opt,
    opt_label, required,
};
use crate::commands::params::{EndParams, StartParams};
use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::activity::{AttentionLevel, HealthTrigger};
use crate::ledger::event::{Ended, Outcome, Payload, Resumed, Started};
use crate::ledger::session::{Session, Status};
use crate::ledger::store::LedgerView;
use crate::names;
use serde_json::json;

pub(crate) fn prepare_start(view: &dyn LedgerView, p: &StartParams) -> Result<Prepared> {
    let project = names::safe_name("project", required("project", &p.project)?)?;
    let agent = names::normalize_agent(required("agent", &p.agent)?)?;
    let run_id = opt_label("run_id", &p.run_id)?;
    let work_item_id = opt_label("work_item_id", &p.work_item_id)?;
    if run_id.is_some() != work_item_id.is_some() {
        let (given, missing) = if run_id.is_some() {
            ("run_id", "work_item_id")
        } else {
            ("work_item_id", "run_id")
        };
        return Err(Error::invalid(
            missing,
            format!("run_id and work_item_id go together; {given} was given without {missing}"),
        ));
    }
    let parent_session_id = opt(&p.parent_session_id, |v| {
        SessionId::parse_v7("parent_session_id", v)
    })?;
    if let Some(parent) = parent_session_id
        && view.session(parent)?.is_none()
    {
        return Err(not_found(parent).with("field", "parent_session_id"));
    }
    let external = p.attempt_id.is_some() || p.provider_session_id.is_some();
    Ok(Prepared {
        // A start with an external id may reconnect to the live session that has it: starts
        // with one are decided one at a time, so two never both open a session for it.
        lock: external.then_some(crate::ids::WORKSPACE_STREAM),
        plan: Plan::Start {
            started: Box::new(Started {
                project,
                agent,
                client_name: opt_label("client_name", &p.client_name)?,
                goal: opt(&p.goal, |v| names::free_text("goal", v))?,
                parent_session_id,
                run_id,
                work_item_id,
                attempt_id: opt_label("attempt_id", &p.attempt_id)?,
                provider_session_id: opt_label("provider_session_id", &p.provider_session_id)?,
                mission: opt(&p.mission, |v| names::safe_name("mission", v))?,
                commit: opt_label("commit", &p.commit)?,
                branch: opt_label("branch", &p.branch)?,
                worktree: opt_label("worktree", &p.worktree)?,
            }),
            brief: !p.no_brief,
        },
    })
}

pub(crate) fn prepare_end(view: &dyn LedgerView, p: &EndParams) -> Result<Prepared> {
    let outcome = match p.status.as_deref().map(str::trim) {
        None | Some("complete") => Outcome::Complete,
        Some("failed") => Outcome::Failed,
        Some(other) => {
            return Err(Error::invalid(
                "status",
                format!("`{other}` is not an ending status; use complete or failed"),
            ));
        }
    };
    let summary = opt(&p.summary, |v| names::free_text("summary", v))?;
    let id = match (&p.session_id, &p.session_note) {
        (Some(raw), _) => SessionId::parse_v7("session_id", raw)?,
        // A host with a vault reads the note's session_id before the core sees the request;
        // one without cannot, and must not fall back to guessing.
        (None, Some(note)) => {
            return Err(Error::invalid(
                "session_note",
                format!("this host keeps no notes, so it cannot read {note}: pass session_id"),
            ));
        }
        (None, None) => resolve_implicit(view, p)?.session_id,
    };
    Ok(Prepared {
        lock: Some(id),
        plan: Plan::End {
            id,
            outcome,
            summary,
        },
    })
}

/// Implicit resolution: live sessions, filtered by project, then by client and agent when
/// given; exactly one survives or it is an error. Never "the most recent".
pub fn resolve_implicit(view: &dyn LedgerView, p: &EndParams) -> Result<Session> {
    let project = opt(&p.project, |v| names::safe_name("project", v))?;
    let agent = opt(&p.agent, names::normalize_agent)?;
    let client = opt_label("client_name", &p.client_name)?;
    let mut candidates: Vec<Session> = view
        .live_sessions()?
        .into_iter()
        .filter(|s| project.as_ref().is_none_or(|p| &s.project == p))
        .filter(|s| client.is_none() || s.client_name == client)
        .filter(|s| {
            agent
                .as_ref()
                .is_none_or(|a| names::same_agent(&s.agent, a))
        })
        .collect();
    let filters = json!({ "project": project, "agent": agent, "client_name": client });
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        0 => {
            // What the filters left out: the live sessions of the project (of every project
            // when none was named), so a person sees which agent or client to name instead.
            let others: Vec<_> = view
                .live_sessions()?
                .iter()
                .filter(|s| project.as_ref().is_none_or(|p| &s.project == p))
                .map(|s| {
                    json!({
                        "session_id": s.session_id,
                        "path": s.path,
                        "agent": s.agent,
                        "client_name": s.client_name,
                        "started_at": s.started_at,
                    })
                })
                .collect();
            let err =
                Error::no_active_session(&describe_filters(&project, &agent, &client), filters);
            Err(if others.is_empty() {
                err
            } else {
                err.with("other_live_sessions", others)
            })
        }
        _n => {
            let listed: Vec<_> = candidates
                .iter()
                .map(|s| {
                    json!({
                        "session_id": s.session_id,
                        "path": s.path,
                        "project": s.project,
                        "agent": s.agent,
                        "client_name": s.client_name,
                        "started_at": s.started_at,
                    })
                })
                .collect();
            Err(Error::ambiguous_session(
                &describe_filters(&project, &agent, &client),
                listed,
                filters,
            ))
        }
    }
}

fn describe_filters(
    project: &Option<String>,
    agent: &Option<String>,
    client: &Option<String>,
) -> String {
    let parts: Vec<String> = [("project", project), ("agent", agent), ("client", client)]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} `{v}`")))
        .collect();
    if parts.is_empty() {
        "(no filters)".to_owned()
    } else {
        parts.join(", ")
    }
}

/// Registration is gated in the spec's order: the person's role, the client's approval
/// (refused before anything about the workspace is disclosed), then the mission's contract.
fn gate_registration(view: &dyn LedgerView, started: &Started, ctx: &Context) -> Result<()> {
    ctx.policy.require(
        &ctx.person,
        crate::lifecycle::workspace::Permission::SessionRegister,
    )?;
    ctx.policy.require_client(started.client_name.as_deref())?;
    let ws = crate::lifecycle::workspace::Workspace::from_history(
        view.history(crate::ids::WORKSPACE_STREAM)?.as_ref(),
    );
    match &started.mission {
        Some(reference) => {
            let mission = ws
                .mission(reference)
                .ok_or_else(|| crate::commands::workspace::mission_not_found(reference))?;
            if !mission.versions.iter().any(|v| v.approved) {
                let version = mission.latest().version;
                return Err(Error::mission_not_approved(reference, version));
            }
            Ok(())
        }
        None if ctx.policy.mission_required => Err(Error::mission_required()),
        None => Ok(()),
    }
}

/// The live session of `started`'s project and agent that has its provider session id, else
/// its attempt id: the one a client reconnecting with that external id means.
fn reconnecting(view: &dyn LedgerView, started: &Started) -> Result<Option<Session>> {
    if started.provider_session_id.is_none() && started.attempt_id.is_none() {
        return Ok(None);
    }
    let live: Vec<Session> = view
        .live_sessions()?
        .into_iter()
        .filter(|s| s.project == started.project && names::same_agent(&s.agent, &started.agent))
        // An attempt id never joins sessions whose provider session ids differ.
        .filter(|s| {
            s.provider_session_id.is_none()
                || started.provider_session_id.is_none()
                || s.provider_session_id == started.provider_session_id
        })
        .collect();
    let by = |same: &dyn Fn(&Session) -> bool| live.iter().find(|s| same(s)).cloned();
    Ok(started
        .provider_session_id
        .as_ref()
        .and_then(|id| by(&|s| s.provider_session_id.as_ref() == Some(id)))
        .or_else(|| {
            started
                .attempt_id
                .as_ref()
                .and_then(|id| by(&|s| s.attempt_id.as_ref() == Some(id)))
        }))
}

pub(crate) fn start(
    view: &dyn LedgerView,
    started: &Started,
    brief: bool,
    ctx: &Context,
) -> Result<Executed> {
    // A crashed and restarted client is one session with a gap, not two.
    if let Some(live) = reconnecting(view, started)? {
        let mut executed = resume(
            view,
            live.session_id,
            Some(&started.project),
            &started.client_name,
            ctx,
        )?;
        if let Response::Action(action) = &mut executed.response {
            action.message = Some(format!(
                "Session reconnected: {} already has this {}, so it was resumed rather than a second one opened.",
                live.path,
                if started.provider_session_id.is_some()
                    && live.provider_session_id == started.provider_session_id
                {
                    "provider session id"
                } else {
                    "attempt id"
                }
            ));
        }
        return Ok(executed);
    }
    gate_registration(view, started, ctx)?;
    let actor = agent_acting(ctx, &started.agent);
    let mut batch = EventBatch::new(ctx);
    batch.push(
        ctx.session_id,
        actor.clone(),
        Payload::Started(started.clone()),
    );
    let briefing = if brief {
        crate::commands::briefing::push_budget(
            &mut batch,
            view,
            ctx.session_id,
            ctx.budget.as_ref(),
        )?;
        Some(push_brief(&mut batch, view, ctx.session_id, actor)?)
    } else {
        None
    };
    batch.check()?;
    let session = batch
        .project(view, ctx.session_id)?
        .ok_or_else(|| Error::internal("a session without its start event"))?;
    Ok(Executed {
        events: batch.events,
        response: Response::Action(SessionAction {
            action: SessionActionKind::Started,
            resumed_at: None,
            session,
            briefing,
            message: None,
            note: None,
        }),
        refusal: None,
    })
}

pub(crate) fn resume(
    view: &dyn LedgerView,
    id: SessionId,
    project: Option<&str>,
    client_name: &Option<String>,
    ctx: &Context,
) -> Result<Executed> {
    let (_, current) = existing(view, id)?;
    if let Some(project) = project
        && current.project != project
    {
        return Err(Error::session_project_mismatch(
            id,
            project,
            &current.project,
        ));
    }
    if !current.is_live() {
        return Err(Error::session_not_resumable(
            id,
            current.status.as_str(),
            current.ended_at,
        ));
    }
    ctx.policy.require(
        &ctx.person,
        crate::lifecycle::workspace::Permission::SessionRegister,
    )?;
    ctx.policy
        .require_client(client_name.as_deref().or(current.client_name.as_deref()))?;
    let mut batch = EventBatch::new(ctx);
    batch.push(
        id,
        agent_acting(ctx, &current.agent),
        Payload::Resumed(Resumed {
            client_name: client_name.clone(),
        }),
    );
    push_health(&mut batch, view, id, HealthTrigger::Resume)?;
    batch.check()?;
    let session = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    Ok(Executed {
        events: batch.events,
        response: Response::Action(SessionAction {
            action: SessionActionKind::Resumed,
            resumed_at: Some(ctx.now),
            session,
            briefing: None,
            message: None,
            note: None,
        }),
        refusal: None,
    })
}

/// Whether anything but its start and its end drove `session`: a report, a brief asked for
/// after the start's own, a pause, a declared dependency, a plan. What Baton itself records
/// (liveness, health, collisions, usage, notes) does not count.
fn lifecycle_driven(history: &crate::ledger::fold::SessionHistory, session: &Session) -> bool {
    use crate::ledger::activity::Activity;
    history
        .ordered()
        .into_iter()
        .any(|event| match &event.payload {
            Payload::Activity(activity) => match activity {
                Activity::Briefed { .. } => event.at > session.started_at,
                Activity::Liveness { .. }
                | Activity::HealthComputed { .. }
                | Activity::CollisionOpened { .. }
                | Activity::CollisionClosed { .. }
                | Activity::NoteConflict { .. } => false,
                _ => true,
            },
            _ => false,
        })
}

pub(crate) fn end(
    view: &dyn LedgerView,
    id: SessionId,
    outcome: Outcome,
    summary: &Option<String>,
    ctx: &Context,
) -> Result<Executed> {
    use crate::ledger::activity::Activity;
    let (history, current) = existing(view, id)?;
    if !current.is_live() {
        return Err(Error::session_already_closed(
            id,
            current.status.as_str(),
            current.ended_at,
        ));
    }
    let actor = agent_acting(ctx, &current.agent);
    let baton = crate::commands::kernel::baton_actor();
    let mut batch = EventBatch::new(ctx);
    batch.push(
        id,
        actor,
        Payload::Ended(Ended {
            outcome,
            summary: summary.clone(),
            pull_request: current.pull_request.clone(),
        }),
    );
    for collision in &current.open_collisions {
        batch.push(
            id,
            baton.clone(),
            Payload::Activity(Activity::CollisionClosed {
                collision: collision.id,
                reason: format!(
                    "Closed as stale: {} finished before the collision was settled.",
                    current.path
                ),
            }),
        );
    }
    // Ending before it reported its implementation complete is stopping without finishing,
    // whatever the end says: an agent that quits mid-work is noticed. Only a session the
    // lifecycle drove can be caught mid-work, though: one whose agent reports, asked for a
    // brief after its start, was blocked or paused. A session only hooks keep (started at
    // the agent's start, ended at its exit) never says where it stands, and its normal end is
    // complete.
    let driven = lifecycle_driven(&history, &current);
    let unfinished = outcome == Outcome::Failed
        || matches!(current.status, Status::Blocked | Status::Paused)
        || (driven && matches!(current.status, Status::Working | Status::Starting));
    if unfinished {
        batch.push(
            crate::ids::WORKSPACE_STREAM,
            baton,
            Payload::Activity(Activity::AttentionRaised {
                session: id,
                level: AttentionLevel::Inform,
                urgency: 30,
                text: format!(
                    "{} stopped without finishing (it was {} when it ended {})",
                    current.path,
                    current.status,
                    match outcome {
                        Outcome::Complete => "as complete",
                        Outcome::Failed => "as failed",
                    }
                ),
                topic: None,
            }),
        );
    }
    // What was said about its agent being gone no longer needs a person: the session is over.
    let ws = crate::lifecycle::workspace::Workspace::from_history(
        view.history(crate::ids::WORKSPACE_STREAM)?.as_ref(),
    );
    for item in ws.attention.iter().filter(|item| {
        item.session_id == id
            && item.topic.as_deref() == Some(crate::lifecycle::verdict::AGENT_GONE)
    }) {
        batch.push(
            crate::ids::WORKSPACE_STREAM,
            crate::commands::kernel::baton_actor(),
            Payload::Activity(Activity::AttentionCleared {
                raised: item.id,
                reason: format!("{} ended", current.path),
            }),
        );
    }
    batch.check()?;
    let session = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let verdict = match &current.pull_request {
        Some(url) => format!(" Pull request on record: {url}."),
        None => " No pull request was reported.".to_owned(),
    };
    Ok(Executed {
        events: batch.events,
        response: Response::Action(SessionAction {
            action: SessionActionKind::Ended,
            resumed_at: None,
            session,
            briefing: None,
            message: Some(format!(
                "Session closed.{verdict} Closing it does not decide whether the mission is done: that is for the evidence, the pull request and a person."
            )),
            note: None,
        }),
        refusal: None,
    })
}
