//! What a session reports while it works: runs, changed files and their collisions, the
//! dependencies it declares.

use crate::commands::answers::LifecycleAction;
use crate::commands::answers::{Response, answer};
use crate::commands::briefing::push_health;
use crate::commands::kernel::{
    Context, EventBatch, Executed, agent_of, baton_actor, live_session, not_found,
};
use crate::commands::params::{DependParams, ReportParams};
use crate::error::{Error, Result};
use crate::ledger::activity::Activity;
use crate::ledger::activity::HealthTrigger;
use crate::ledger::event::Payload;
use crate::ledger::session::Session;
use crate::ledger::store::LedgerView;
use crate::names;
use serde_json::json;

pub(crate) fn files(field: &str, raw: &[String]) -> Result<Vec<String>> {
    raw.iter()
        .map(|f| {
            let f = f.trim();
            if f.is_empty() || f.contains('\0') || f.len() > 512 {
                Err(Error::invalid(field, format!("`{f}` is not a usable path")))
            } else {
                Ok(f.to_owned())
            }
        })
        .collect()
}

/// report
pub(super) fn report(view: &dyn LedgerView, p: &ReportParams, ctx: &Context) -> Result<Executed> {
    let (id, _, session) = live_session(view, &p.session_id)?;
    let via = p.via.unwrap_or_default();
    let actor = agent_of(ctx, &session);
    let mut batch = EventBatch::new(ctx);
    let mut refusal = None;
    let push = |batch: &mut EventBatch<'_>, a: Activity| {
        batch.push(id, actor.clone(), Payload::Activity(a))
    };
    let changed = files("changed_files", &p.changed_files)?;
    if !p.plan.is_empty() {
        let steps = p
            .plan
            .iter()
            .map(|s| names::free_text("plan", s))
            .collect::<Result<Vec<_>>>()?;
        push(&mut batch, Activity::PlanCreated { steps, via });
    }
    match (p.step, p.step_state) {
        (Some(number), Some(state)) => {
            // The plan this report sets, else the one the session has.
            let steps = if p.plan.is_empty() {
                session.plan.len()
            } else {
                p.plan.len()
            };
            if number == 0 || number as usize > steps {
                let problem = if steps == 0 {
                    "names a step, but the session has no plan: report the plan first (plan: the steps, in order)".to_owned()
                } else {
                    format!("must be a step of the plan, 1 to {steps}")
                };
                return Err(Error::invalid("step", problem)
                    .with("steps", steps)
                    .with("step", number));
            }
            push(&mut batch, Activity::Step { number, state, via })
        }
        (None, None) => {}
        _ => return Err(Error::invalid("step", "step and step_state go together")),
    }
    if let Some(text) = &p.decision_request {
        push(
            &mut batch,
            Activity::DecisionRequested {
                text: names::free_text("decision_request", text)?,
                via,
            },
        );
    }
    if let Some(number) = p.decision_resolved {
        if number == 0 || number as usize > session.decisions.len() {
            return Err(Error::invalid(
                "decision_resolved",
                format!(
                    "session has {} decision request(s)",
                    session.decisions.len()
                ),
            ));
        }
        push(
            &mut batch,
            Activity::DecisionResolved {
                number,
                resolution: None,
                via,
            },
        );
    }
    if let Some(run) = &p.run {
        if run.prompt.is_some() || run.output.is_some() {
            let reason = "the report carried prompt or output text; only provider, model, purpose and counts are recorded".to_owned();
            push(
                &mut batch,
                Activity::RunRefused {
                    provider: run.provider.clone(),
                    model: run.model.clone(),
                    reason: reason.clone(),
                    via,
                },
            );
            refusal = Some(Error::run_refused(id, &reason));
        } else {
            push(
                &mut batch,
                Activity::RunRecorded {
                    provider: names::label("provider", &run.provider)?,
                    model: names::label("model", &run.model)?,
                    purpose: names::free_text("purpose", &run.purpose)?,
                    input_tokens: run.input_tokens,
                    output_tokens: run.output_tokens,
                    via,
                },
            );
        }
    }
    if let Some(text) = &p.evidence {
        push(
            &mut batch,
            Activity::Evidence {
                text: names::free_text("evidence", text)?,
                via,
            },
        );
    }
    if let Some(url) = &p.pull_request {
        push(
            &mut batch,
            Activity::PullRequestReported {
                url: names::label("pull_request", url)?,
                via,
            },
        );
    }
    if let Some(percent) = p.progress {
        if percent > 100 {
            return Err(Error::invalid("progress", "is a percentage, 0 to 100"));
        }
        push(&mut batch, Activity::Progress { percent, via });
    }
    match p.status.as_deref().map(str::trim) {
        None => {}
        Some("blocked") => push(
            &mut batch,
            Activity::Blocked {
                reason: p.reason.clone(),
                via,
            },
        ),
        Some("implementation_complete" | "implementation-complete") => {
            push(&mut batch, Activity::ImplementationComplete { via })
        }
        Some(other) => {
            return Err(Error::invalid(
                "status",
                format!("`{other}` is not reportable; use blocked or implementation_complete"),
            ));
        }
    }
    let mut collisions = Vec::new();
    if !changed.is_empty() {
        push(
            &mut batch,
            Activity::ChangedFiles {
                files: changed.clone(),
                via,
            },
        );
        let others: Vec<Session> = view
            .live_sessions()?
            .into_iter()
            .filter(|s| s.session_id != id)
            .collect();
        // Only a session a collision opens on has its health changed by this report: only
        // those get a health snapshot (not every live session, on every report).
        let mut affected: Vec<crate::ids::SessionId> = Vec::new();
        for other in &others {
            for file in &changed {
                let Some(severity) = crate::lifecycle::collisions::severity(
                    other.dependencies.contains(file),
                    other.changed_files.contains(file),
                ) else {
                    continue;
                };
                batch.push(
                    other.session_id,
                    baton_actor(),
                    Payload::Activity(Activity::CollisionOpened {
                        by_session: id,
                        file: file.clone(),
                        severity,
                    }),
                );
                collisions.push(json!({ "affected_session_id": other.session_id, "file": file, "severity": severity }));
                if !affected.contains(&other.session_id) {
                    affected.push(other.session_id);
                }
            }
        }
        push_health(&mut batch, view, id, HealthTrigger::Change)?;
        for other in affected {
            push_health(&mut batch, view, other, HealthTrigger::Change)?;
        }
    }
    if batch.events.is_empty() {
        return Err(Error::invalid(
            "report",
            "nothing to report: give changed_files, status, progress, plan, step, a decision, run, evidence or pull_request",
        ));
    }
    let reported = batch.events.len();
    // A report is a pull too: a budget at its limit pauses the session here.
    crate::commands::briefing::push_budget(&mut batch, view, id, ctx.budget.as_ref())?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let mut message = format!("Recorded {reported} event(s).");
    if let Some(pause) = &after.pause {
        message.push_str(&format!(
            " Paused: {}. Stop and wait: {}.",
            pause.reason,
            if pause.budget.is_some() {
                "a person raises the budget or lifts the pause"
            } else {
                "you will be told when to continue"
            }
        ));
    }
    let mut reply = answer(LifecycleAction::Reported, &after, message);
    reply.collisions_opened = collisions;
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal,
    })
}

/// depend
pub(super) fn depend(view: &dyn LedgerView, p: &DependParams, ctx: &Context) -> Result<Executed> {
    let (id, _, session) = live_session(view, &p.session_id)?;
    let files = files("files", &p.files)?;
    if files.is_empty() {
        return Err(Error::invalid("files", "name at least one file"));
    }
    let mut batch = EventBatch::new(ctx);
    batch.push(
        id,
        agent_of(ctx, &session),
        Payload::Activity(Activity::DependenciesDeclared { files }),
    );
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let reply = answer(
        LifecycleAction::DependenciesDeclared,
        &after,
        format!("Depends on {} file(s).", after.dependencies.len()),
    );
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// record_usage: a transcript's cumulative usage up to a byte offset, recorded when it goes
/// further than what the session holds for that transcript (a hook that fires twice, or late,
/// writes nothing the second time).
/// correct: a new goal or summary for a session, live or ended, in the name of whoever asked.
pub(super) fn correct(
    view: &dyn LedgerView,
    p: &crate::commands::params::CorrectParams,
    ctx: &Context,
) -> Result<Executed> {
    let id = crate::ids::SessionId::parse_v7("session_id", &p.session_id)?;
    crate::commands::kernel::existing(view, id)?;
    let text = |field: &str, value: &Option<String>| -> Result<Option<String>> {
        match value.as_deref().map(str::trim) {
            None => Ok(None),
            Some("") => Err(Error::invalid(field, "must not be blank")),
            Some(text) => names::free_text(field, text).map(Some),
        }
    };
    let goal = text("goal", &p.goal)?;
    let summary = text("summary", &p.summary)?;
    if goal.is_none() && summary.is_none() {
        return Err(Error::invalid(
            "goal",
            "give the new goal, the new summary, or both",
        ));
    }
    let mut batch = EventBatch::new(ctx);
    batch.push(
        id,
        crate::commands::trust::acting(ctx),
        Payload::Corrected(crate::ledger::event::Corrected {
            goal: goal.clone(),
            summary: summary.clone(),
        }),
    );
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let message = match (&goal, &summary) {
        (Some(goal), None) => format!("Goal corrected: {goal}"),
        (None, Some(_)) => "Summary corrected.".to_owned(),
        _ => format!("Goal and summary corrected: {}", goal.unwrap_or_default()),
    };
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(answer(LifecycleAction::Corrected, &after, message)),
        refusal: None,
    })
}

pub(super) fn record_usage(
    view: &dyn LedgerView,
    p: &crate::commands::params::UsageParams,
    ctx: &Context,
) -> Result<Executed> {
    let (id, _, session) = live_session(view, &p.session_id)?;
    let source = p.source.trim();
    if source.is_empty() || source.len() > 1024 || source.contains('\0') {
        return Err(Error::invalid(
            "source",
            "name the transcript by its path or its provider session id (at most 1,024 bytes)",
        ));
    }
    let recorded = session.usage_sources.iter().find(|s| s.source == source);
    let further = recorded.is_none_or(|r| p.offset > r.offset);
    let mut batch = EventBatch::new(ctx);
    if further {
        batch.push(
            id,
            agent_of(ctx, &session),
            Payload::Usage(crate::ledger::event::Usage {
                source: source.to_owned(),
                offset: p.offset,
                totals: p.totals,
                cost_micro_usd: p.cost_micro_usd,
            }),
        );
    }
    batch.check()?;
    let message = if further {
        format!(
            "Recorded {} tokens of {source} up to byte {}.",
            p.totals.total(),
            p.offset
        )
    } else {
        format!(
            "Already recorded up to byte {}: nothing new.",
            recorded.map_or(0, |r| r.offset)
        )
    };
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(answer(LifecycleAction::UsageRecorded, &session, message)),
        refusal: None,
    })
}
