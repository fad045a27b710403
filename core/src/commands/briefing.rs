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

/// Applies the budgets measured for this command to session `id`: one attention item per rule
/// and period past its warning share (raised once); a pause when a rule covering the session
/// is at its limit and no person waived it; and, for a session a budget paused, the pause lifted
/// once no rule holds it (the limit was raised, or a new period began).
pub(super) fn push_budget(
    batch: &mut EventBatch<'_>,
    view: &dyn LedgerView,
    id: SessionId,
    status: Option<&crate::lifecycle::budget::BudgetStatus>,
) -> Result<()> {
    use crate::lifecycle::budget::Level;
    let Some(status) = status else {
        return Ok(());
    };
    let Some(session) = batch.project(view, id)? else {
        return Ok(());
    };
    if !session.is_live() {
        return Ok(());
    }
    let ws = batch.workspace(view)?;
    for rule in status.warnings_for(&session) {
        let over = rule.level == Level::Over;
        let topic = format!(
            "budget:{}:{}",
            rule.mark(),
            if over { "limit" } else { "warning" }
        );
        if ws.raised_topics.contains(&topic) {
            continue;
        }
        batch.push(
            WORKSPACE_STREAM,
            baton_actor(),
            Payload::Activity(Activity::AttentionRaised {
                session: id,
                level: if over {
                    crate::ledger::activity::AttentionLevel::Act
                } else {
                    crate::ledger::activity::AttentionLevel::Warn
                },
                urgency: if over { 80 } else { 50 },
                text: format!(
                    "Budget `{}`: {}. {}",
                    rule.key,
                    rule.describe(),
                    if over {
                        "The live sessions it covers pause at their next brief or report; raise the limit in .baton/config.toml, or `baton unpause` a session to let it go on this period."
                    } else {
                        "At its limit the live sessions it covers pause."
                    }
                ),
                topic: Some(topic),
            }),
        );
    }
    match (&session.pause, status.over_for(&session)) {
        (None, Some(rule)) => batch.push(
            id,
            baton_actor(),
            Payload::Activity(Activity::Paused {
                reason: format!("budget reached: {}", rule.describe()),
                budget: Some(rule.mark()),
            }),
        ),
        (Some(pause), None) if pause.budget.is_some() => {
            batch.push(id, baton_actor(), Payload::Activity(Activity::Unpaused {}));
        }
        _ => {}
    }
    Ok(())
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
        let mut told = json!({ "reason": pause.reason, "by": pause.by, "at": pause.at });
        if let Some(mark) = &pause.budget {
            told["budget"] = json!(mark);
        }
        batch.push(
            id,
            actor,
            Payload::Activity(Activity::PauseDelivered {
                reason: pause.reason.clone(),
            }),
        );
        return Ok(BriefContext {
            next_action: NextAction::Blocked,
            pause: Some(told),
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
    push_budget(&mut batch, view, id, ctx.budget.as_ref())?;
    let context = push_brief(&mut batch, view, id, agent_of(ctx, &session))?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let message = if let Some(pause) = after.pause.as_ref().filter(|p| p.budget.is_some()) {
        format!(
            "Paused: {}. Stop and wait: a person raises the budget or lifts the pause.",
            pause.reason
        )
    } else if context.next_action == NextAction::Blocked {
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
