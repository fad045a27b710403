//! What a person does to watch and steer sessions: pause and unpause, the timeline, the
//! workspace's attention items.

use crate::commands::answers::LifecycleAction;
use crate::commands::answers::{
    AttentionAnswer, LivenessAnswer, LivenessReport, Response, TimelineAnswer, answer,
};
use crate::commands::attention::{open_attention, picked_attention};
use crate::commands::briefing::push_health;
use crate::commands::kernel::{Context, EventBatch, Executed, live_session, not_found};
use crate::commands::params::{AttentionDoneParams, ObserveParams, PauseParams, SessionRef};
use crate::commands::trust::acting;
use crate::error::{Error, Result};
use crate::ids::{SessionId, WORKSPACE_STREAM};
use crate::ledger::activity::Activity;
use crate::ledger::activity::HealthTrigger;
use crate::ledger::event::Payload;
use crate::ledger::liveness::Liveness;
use crate::ledger::store::LedgerView;
use crate::lifecycle::timeline::timeline;
use crate::lifecycle::verdict;
use crate::lifecycle::workspace::{AttentionItem, Permission, Workspace};
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
        Payload::Activity(Activity::Paused {
            reason,
            budget: None,
        }),
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
            events: {
                let mut events = timeline(&history);
                let workspace = view.history(WORKSPACE_STREAM)?;
                events.extend(crate::lifecycle::timeline::attention_entries(
                    workspace.as_ref(),
                    id,
                ));
                // Oldest first; the session's own entries before the workspace's at a tie.
                events.sort_by_key(|entry| entry.at);
                events
            },
        }),
        refusal: None,
    })
}

/// attention
pub(super) fn attention(view: &dyn LedgerView) -> Result<Executed> {
    let items = open_attention(view)?;
    Ok(Executed {
        events: Vec::new(),
        response: Response::Attention(AttentionAnswer {
            total: items.len(),
            items,
            done: None,
        }),
        refusal: None,
    })
}

/// attention done: each picked item cleared by whoever asked, in their name; the answer is
/// what is still open.
pub(super) fn attention_done(
    view: &dyn LedgerView,
    p: &AttentionDoneParams,
    ctx: &Context,
) -> Result<Executed> {
    let picked = picked_attention(view, p, ctx.now)?;
    let note = match p.note.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        Some(note) => Some(names::free_text("note", note)?),
        None => None,
    };
    let actor = acting(ctx);
    let mut batch = EventBatch::new(ctx);
    for item in &picked {
        batch.push(
            WORKSPACE_STREAM,
            actor.clone(),
            Payload::Activity(Activity::AttentionCleared {
                raised: item.id,
                reason: match &note {
                    Some(note) => format!("Marked done by {}: {note}", actor.name),
                    None => format!("Marked done by {}", actor.name),
                },
            }),
        );
    }
    // Workspace events are ordered by time: these come after what the stream holds.
    let latest = view
        .history(WORKSPACE_STREAM)?
        .and_then(|h| h.ordered().last().map(|e| e.at));
    if let Some(latest) = latest {
        for event in &mut batch.events {
            if event.at <= latest {
                event.at = crate::time::Timestamp::from_millis(latest.millis() + 1);
            }
        }
    }
    batch.check()?;
    let cleared: std::collections::HashSet<_> = picked.iter().map(|item| item.id).collect();
    let items: Vec<AttentionItem> = open_attention(view)?
        .into_iter()
        .filter(|item| !cleared.contains(&item.id))
        .collect();
    Ok(Executed {
        events: batch.events,
        response: Response::Attention(AttentionAnswer {
            total: items.len(),
            items,
            done: Some(picked.len()),
        }),
        refusal: None,
    })
}

/// Each observed live session with its verdict and whether it is a change to record.
fn observed_verdicts(
    view: &dyn LedgerView,
    p: &ObserveParams,
) -> Result<
    Vec<(
        crate::ledger::session::Session,
        verdict::Verdict,
        bool,
        usize,
    )>,
> {
    let idle_after = p
        .idle_after_seconds
        .unwrap_or(verdict::DEFAULT_IDLE_AFTER_SECONDS);
    let mut out = Vec::with_capacity(p.observations.len());
    for (index, observation) in p.observations.iter().enumerate() {
        let id = SessionId::parse_v7("session_id", &observation.session_id)?;
        // A session that ended (or went) since the host looked is not observed.
        let Some(session) = view.session(id)? else {
            continue;
        };
        if !session.is_live() {
            continue;
        }
        let verdict = verdict::classify(&session, &observation.evidence, p.observed_at, idle_after);
        // Evidence gathered before the ledger moved on is not recorded over it.
        let current = session.liveness.as_ref().map(|l| l.at);
        let stale = observation.as_of.is_some_and(|seen| seen != current);
        let change = !stale && verdict::is_transition(&session, &verdict, &observation.evidence);
        out.push((session, verdict, change, index));
    }
    Ok(out)
}

/// Whether an observation would record anything (so the host locks only then).
pub(super) fn observe_changes(view: &dyn LedgerView, p: &ObserveParams) -> Result<bool> {
    Ok(observed_verdicts(view, p)?
        .iter()
        .any(|(_, _, change, _)| *change))
}

/// observe: classifies each observed live session, records each change as a `liveness` event
/// with its evidence, and raises an attention item for a session newly seen gone.
pub(super) fn observe(view: &dyn LedgerView, p: &ObserveParams, ctx: &Context) -> Result<Executed> {
    let baton = crate::commands::kernel::baton_actor();
    let mut batch = EventBatch::new(ctx);
    let mut sessions = Vec::new();
    let mut recorded = 0;
    let workspace = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    for (session, verdict, change, index) in observed_verdicts(view, p)? {
        let evidence = p.observations[index].evidence.clone();
        if change {
            recorded += 1;
            batch.push(
                session.session_id,
                baton.clone(),
                Payload::Activity(Activity::Liveness {
                    state: verdict.state,
                    reason: verdict.reason.clone(),
                    evidence: evidence.clone(),
                }),
            );
            let was_gone = session
                .liveness
                .as_ref()
                .is_some_and(|l| l.state == Liveness::Gone);
            if verdict.state == Liveness::Gone && !was_gone {
                batch.push(
                    WORKSPACE_STREAM,
                    baton.clone(),
                    Payload::Activity(Activity::AttentionRaised {
                        session: session.session_id,
                        level: crate::ledger::activity::AttentionLevel::Warn,
                        urgency: 60,
                        text: format!(
                            "{} looks gone: {}. `baton reap` ends it as failed; resume it if its agent is still at work.",
                            session.path,
                            verdict.reason.trim_end_matches('.')
                        ),
                        topic: Some(verdict::AGENT_GONE.to_owned()),
                    }),
                );
            }
            // Its agent is back: the item that said it was gone no longer applies.
            if was_gone && verdict.state.is_running() {
                for item in workspace.attention.iter().filter(|item| {
                    item.session_id == session.session_id
                        && item.topic.as_deref() == Some(verdict::AGENT_GONE)
                }) {
                    batch.push(
                        WORKSPACE_STREAM,
                        baton.clone(),
                        Payload::Activity(Activity::AttentionCleared {
                            raised: item.id,
                            reason: format!("{}'s agent is running again", session.path),
                        }),
                    );
                }
            }
        }
        let since = if change {
            Some(ctx.now)
        } else {
            session.liveness.as_ref().map(|l| l.at)
        };
        sessions.push(LivenessReport {
            session_id: session.session_id,
            path: session.path.clone(),
            status: session.status,
            state: verdict.state,
            reason: verdict.reason,
            last_activity_at: verdict.last_activity_at,
            since,
            recorded: change,
            evidence,
        });
    }
    batch.check()?;
    Ok(Executed {
        events: batch.events,
        response: Response::Liveness(LivenessAnswer { sessions, recorded }),
        refusal: None,
    })
}
