//! Briefs and health: what a session is told when it starts or asks again, and the
//! context-health snapshots recorded beside it.

use crate::commands::answers::{BriefContext, HealthAnswer, Response, answer};
use crate::commands::answers::{LifecycleAction, NextAction};
use crate::commands::kernel::{
    Context, EventBatch, Executed, agent_of, baton_actor, live_session, not_found,
};
use crate::commands::params::{HealthParams, SessionRef};
use crate::error::Result;
use crate::ids::{SessionId, WORKSPACE_STREAM};
use crate::ledger::activity::HealthTrigger;
use crate::ledger::activity::{Activity, HealthReport, Severity};
use crate::ledger::event::{Actor, Payload};
use crate::ledger::store::LedgerView;
use crate::lifecycle::health;
use crate::lifecycle::workspace::Workspace;
use serde_json::json;

/// Adds a health snapshot for `id` as it will be after the batch.
pub(super) fn push_health(
    batch: &mut EventBatch<'_>,
    view: &dyn LedgerView,
    id: SessionId,
    trigger: HealthTrigger,
) -> Result<Option<HealthReport>> {
    let Some(session) = batch.project(view, id)? else {
        return Ok(None);
    };
    let report = health::assess(&session, &batch.workspace(view)?);
    batch.push(
        id,
        baton_actor(),
        Payload::Activity(Activity::HealthComputed {
            report: report.clone(),
            trigger,
        }),
    );
    Ok(Some(report))
}

/// Adds a brief (or, when paused, the pause's delivery) to the batch; returns what to tell.
pub(super) fn push_brief(
    batch: &mut EventBatch<'_>,
    view: &dyn LedgerView,
    id: SessionId,
    actor: Actor,
) -> Result<BriefContext> {
    let session = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let ws = batch.workspace(view)?;
    if let Some(pause) = &session.pause {
        batch.push(
            id,
            actor,
            Payload::Activity(Activity::PauseDelivered {
                reason: pause.reason.clone(),
            }),
        );
        return Ok(BriefContext {
            next_action: NextAction::Blocked,
            pause: Some(json!({ "reason": pause.reason, "by": pause.by, "at": pause.at })),
            mission: None,
            constitution_version: ws.constitution_version,
            indexed_commit: ws.indexed_commit.clone(),
            open_ambiguities: Vec::new(),
            active_decisions: Vec::new(),
            dependencies: Vec::new(),
            health: session.health.clone(),
        });
    }
    let mission = session.mission.as_ref().and_then(|r| ws.mission(r));
    let current = mission.map(|m| m.current());
    batch.push(
        id,
        actor,
        Payload::Activity(Activity::Briefed {
            mission: session.mission.clone(),
            contract_version: current.map(|c| c.version),
            constitution_version: ws.constitution_version,
            indexed_commit: ws.indexed_commit.clone(),
        }),
    );
    let health = push_health(batch, view, id, HealthTrigger::Brief)?;
    let broken: Vec<&str> = session
        .open_collisions
        .iter()
        .filter(|c| c.severity == Severity::High)
        .map(|c| c.file.as_str())
        .collect();
    Ok(BriefContext {
        next_action: NextAction::Work,
        pause: None,
        mission: mission.zip(current).map(|(m, c)| json!({ "reference": m.reference, "contract_version": c.version, "approved": c.approved, "clauses": c.clauses })),
        constitution_version: ws.constitution_version,
        indexed_commit: ws.indexed_commit.clone(),
        open_ambiguities: ws.ambiguities.iter().filter(|a| a.open && Some(&a.reference) == session.mission.as_ref()).cloned().collect(),
        active_decisions: ws.decisions.clone(),
        dependencies: session.dependencies.iter().map(|f| json!({ "file": f, "state": if broken.contains(&f.as_str()) { "broken" } else { "current" } })).collect(),
        health,
    })
}

/// brief
pub(super) fn brief(view: &dyn LedgerView, p: &SessionRef, ctx: &Context) -> Result<Executed> {
    let (id, _, session) = live_session(view, &p.session_id)?;
    let mut batch = EventBatch::new(ctx);
    let context = push_brief(&mut batch, view, id, agent_of(ctx, &session))?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let message = if context.next_action == NextAction::Blocked {
        "Paused by a person: stop and wait; you will be told when to continue.".to_owned()
    } else {
        "Briefed: this is the context to work from.".to_owned()
    };
    let mut reply = answer(LifecycleAction::Briefed, &after, message);
    reply.brief = Some(context);
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// health
pub(super) fn health(view: &dyn LedgerView, p: &HealthParams, ctx: &Context) -> Result<Executed> {
    let id = SessionId::parse_v7("session_id", &p.session_id)?;
    let session = view.session(id)?.ok_or_else(|| not_found(id))?;
    let mut batch = EventBatch::new(ctx);
    let report = if p.recheck && session.is_live() {
        push_health(&mut batch, view, id, HealthTrigger::Recheck)?.ok_or_else(|| not_found(id))?
    } else {
        health::assess(
            &session,
            &Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref()),
        )
    };
    batch.check()?;
    Ok(Executed {
        events: batch.events,
        response: Response::Health(HealthAnswer {
            session_id: id,
            report,
        }),
        refusal: None,
    })
}
