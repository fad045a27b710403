//! What a person does to watch and steer sessions: pause and unpause, the timeline, the
//! workspace's attention items.

use crate::commands::answers::LifecycleAction;
use crate::commands::answers::{AttentionAnswer, Response, TimelineAnswer, answer};
use crate::commands::briefing::push_health;
use crate::commands::kernel::{Context, EventBatch, Executed, live_session, not_found};
use crate::commands::params::{PauseParams, SessionRef};
use crate::commands::trust::acting;
use crate::error::{Error, Result};
use crate::ids::{SessionId, WORKSPACE_STREAM};
use crate::ledger::activity::Activity;
use crate::ledger::activity::HealthTrigger;
use crate::ledger::event::Payload;
use crate::ledger::store::LedgerView;
use crate::lifecycle::timeline::timeline;
use crate::lifecycle::workspace::{Permission, Workspace};
use crate::names;

/// pause
pub(super) fn pause(view: &dyn LedgerView, p: &PauseParams, ctx: &Context) -> Result<Executed> {
    ctx.policy
        .require(&ctx.person, Permission::SessionControl)?;
    let (id, _, _) = live_session(view, &p.session_id)?;
    let reason = names::free_text("reason", p.reason.trim())?;
    if reason.is_empty() {
        return Err(Error::invalid("reason", "say why; the agent is told"));
    }
    let mut batch = EventBatch::new(ctx);
    batch.push(
        id,
        acting(ctx),
        Payload::Activity(Activity::Paused { reason }),
    );
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let reply = answer(LifecycleAction::Paused, &after, "Baton does not reach into another machine to stop a process; the agent learns of the pause, and your reason, on its next request for context.".into());
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// unpause
pub(super) fn unpause(view: &dyn LedgerView, p: &SessionRef, ctx: &Context) -> Result<Executed> {
    ctx.policy
        .require(&ctx.person, Permission::SessionControl)?;
    let (id, _, session) = live_session(view, &p.session_id)?;
    if session.pause.is_none() {
        return Err(Error::session_not_paused(id));
    }
    let mut batch = EventBatch::new(ctx);
    batch.push(id, acting(ctx), Payload::Activity(Activity::Unpaused {}));
    push_health(&mut batch, view, id, HealthTrigger::Unpause)?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let reply = answer(
        LifecycleAction::Unpaused,
        &after,
        "Unpaused. Its context is not current until it is briefed again.".into(),
    );
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// timeline
pub(super) fn show_timeline(view: &dyn LedgerView, p: &SessionRef) -> Result<Executed> {
    let id = SessionId::parse_v7("session_id", &p.session_id)?;
    let history = view
        .history(id)?
        .filter(|h| h.session().is_some())
        .ok_or_else(|| not_found(id))?;
    Ok(Executed {
        events: Vec::new(),
        response: Response::Timeline(TimelineAnswer {
            session_id: id,
            events: timeline(&history),
        }),
        refusal: None,
    })
}

/// attention
pub(super) fn attention(view: &dyn LedgerView) -> Result<Executed> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let mut items = ws.attention;
    items.sort_by(|a, b| b.urgency.cmp(&a.urgency).then(a.number.cmp(&b.number)));
    Ok(Executed {
        events: Vec::new(),
        response: Response::Attention(AttentionAnswer {
            total: items.len(),
            items,
        }),
        refusal: None,
    })
}
