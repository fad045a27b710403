//! Lifecycle commands beyond start and end: briefs, reports, dependencies, pause and unpause,
//! health, the timeline, attention, and the workspace's missions, constitution, index,
//! ambiguities and decisions. Pure: decided from a [`LedgerView`] and a [`Context`].

use crate::activity::{Activity, Severity, StepState, Via};
use crate::commands::{Context, Executed, Response, not_found};
use crate::error::{Error, ErrorCode, Result};
use crate::event::{Actor, ActorKind, Event, Payload};
use crate::fold::SessionHistory;
use crate::health::{self, HealthReport};
use crate::ids::{EventId, SessionId};
use crate::model::Session;
use crate::names;
use crate::store::LedgerView;
use crate::timeline::{TimelineEntry, timeline};
use crate::workspace::{
    Ambiguity, AttentionItem, Decision, Permission, WORKSPACE_STREAM, Workspace,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Names one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SessionRef {
    /// The session.
    pub session_id: String,
}

/// An AI run to record: counts only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunReport {
    /// e.g. anthropic, openai.
    pub provider: String,
    /// e.g. claude-sonnet-4.
    pub model: String,
    /// What the run was for.
    pub purpose: String,
    /// Input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens.
    #[serde(default)]
    pub output_tokens: u64,
    /// Never send this: a run carrying prompt text is refused and recorded as refused.
    #[serde(default)]
    pub prompt: Option<String>,
    /// Never send this: a run carrying output text is refused and recorded as refused.
    #[serde(default)]
    pub output: Option<String>,
}

/// What a session reports; any combination, at least one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReportParams {
    /// The reporting session.
    pub session_id: String,
    /// `hook` when a client hook reports, `model` (default) when the model calls itself.
    #[serde(default)]
    pub via: Option<Via>,
    /// Files changed (sets the session working; may open collisions with other sessions).
    #[serde(default)]
    pub changed_files: Vec<String>,
    /// `blocked` or `implementation_complete`.
    #[serde(default)]
    pub status: Option<String>,
    /// Why it is blocked.
    #[serde(default)]
    pub reason: Option<String>,
    /// Self-reported progress 0–100 (advisory; never used to decide anything).
    #[serde(default)]
    pub progress: Option<u8>,
    /// A new plan: the steps' titles.
    #[serde(default)]
    pub plan: Vec<String>,
    /// A plan step's number (1-based), with `step_state`.
    #[serde(default)]
    pub step: Option<u32>,
    /// pending, in_progress, done or blocked.
    #[serde(default)]
    pub step_state: Option<StepState>,
    /// Ask a person to decide this.
    #[serde(default)]
    pub decision_request: Option<String>,
    /// The number of an earlier decision request that is now settled.
    #[serde(default)]
    pub decision_resolved: Option<u32>,
    /// An AI run (provider, model, purpose, token counts).
    #[serde(default)]
    pub run: Option<RunReport>,
    /// Evidence for the work (a test run, a benchmark, a link).
    #[serde(default)]
    pub evidence: Option<String>,
    /// The pull request's address.
    #[serde(default)]
    pub pull_request: Option<String>,
}

/// Declare the files a session's work depends on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DependParams {
    /// The session.
    pub session_id: String,
    /// Paths, relative to the repository.
    pub files: Vec<String>,
}

/// Pause a session (delivered the next time it asks for context).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PauseParams {
    /// The session.
    pub session_id: String,
    /// Why; the agent is told.
    pub reason: String,
}

/// Context health of a session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct HealthParams {
    /// The session.
    pub session_id: String,
    /// Recompute now and record the snapshot.
    #[serde(default)]
    pub recheck: bool,
}

/// A mission's contract (a new version, draft until approved).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MissionParams {
    /// The reference, e.g. CLAIM-142.
    pub reference: String,
    /// The contract's clauses (for approval: leave empty).
    #[serde(default)]
    pub clauses: Vec<String>,
}

/// The constitution's text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ConstitutionParams {
    /// The whole text.
    pub text: String,
}

/// The commit to record as indexed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IndexParams {
    /// The commit (the CLI reads `git rev-parse HEAD`).
    pub commit: String,
}

/// Open an ambiguity, resolve one, or record a decision.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoteParams {
    /// The mission (ambiguities).
    #[serde(default)]
    pub reference: Option<String>,
    /// The text (ambiguity or decision).
    #[serde(default)]
    pub text: Option<String>,
    /// The ambiguity's number (resolve).
    #[serde(default)]
    pub number: Option<u32>,
}

/// What a brief tells the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BriefContext {
    /// `work`, or `blocked` when a person paused the session.
    pub next_action: String,
    /// The pause and its reason, when paused.
    pub pause: Option<Value>,
    /// The mission and its contract.
    pub mission: Option<Value>,
    /// The constitution's version.
    pub constitution_version: Option<u32>,
    /// The indexed commit.
    pub indexed_commit: Option<String>,
    /// Open ambiguities on the mission.
    pub open_ambiguities: Vec<Ambiguity>,
    /// Active decisions.
    pub active_decisions: Vec<Decision>,
    /// Each declared dependency and whether another session broke it.
    pub dependencies: Vec<Value>,
    /// Health after the brief.
    pub health: Option<HealthReport>,
}

/// The answer of brief, report, depend, pause and unpause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LifecycleAnswer {
    /// What happened.
    pub action: String,
    /// The session.
    pub session_id: SessionId,
    /// Its status afterwards.
    pub status: crate::Status,
    /// Self-reported progress.
    pub progress: Option<u8>,
    /// The brief, for briefs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brief: Option<BriefContext>,
    /// Collisions this call opened (reports).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub collisions_opened: Vec<Value>,
    /// A sentence for the caller.
    pub message: String,
}

/// The answer of `health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthAnswer {
    /// The session.
    pub session_id: SessionId,
    /// The report's fields, flattened.
    #[serde(flatten)]
    pub report: HealthReport,
}

/// The answer of `timeline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineAnswer {
    /// The session.
    pub session_id: SessionId,
    /// Its entries, oldest first.
    pub events: Vec<TimelineEntry>,
}

/// The answer of `attention`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttentionAnswer {
    /// Open items, most urgent first.
    pub items: Vec<AttentionItem>,
    /// How many.
    pub total: usize,
}

/// The answer of a workspace change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceAnswer {
    /// What happened.
    pub action: String,
    /// The details.
    #[serde(flatten)]
    pub details: serde_json::Map<String, Value>,
}

/// A fresh id for the `n`th event a command writes (n ≥ 1): the context's id plus `n`, so ids
/// stay unique, ascend in the order written (the fold replays equal times by id), and stay
/// valid UUIDv7 (only the random low bits change).
pub fn nth_event_id(ctx: &Context, n: u16) -> EventId {
    EventId(uuid::Uuid::from_u128(
        ctx.event_id.0.as_u128().wrapping_add(u128::from(n)),
    ))
}

/// Builds events with ids from the context, in order.
#[derive(Debug)]
pub struct EventBatch<'a> {
    ctx: &'a Context,
    /// The events so far.
    pub events: Vec<Event>,
}

impl<'a> EventBatch<'a> {
    /// An empty batch.
    pub fn new(ctx: &'a Context) -> EventBatch<'a> {
        EventBatch {
            ctx,
            events: Vec::new(),
        }
    }

    /// Adds an event for `session` by `actor`.
    pub fn push(&mut self, session: SessionId, actor: Actor, payload: Payload) {
        let n = self.events.len() as u16;
        self.events.push(Event {
            id: if n == 0 {
                self.ctx.event_id
            } else {
                nth_event_id(self.ctx, n)
            },
            session,
            at: self.ctx.now,
            actor,
            payload,
        });
    }

    /// Checks every event fits a ledger line.
    pub fn check(&self) -> Result<()> {
        for event in &self.events {
            event.encode()?;
        }
        Ok(())
    }

    /// The session as it will be once this batch is folded in.
    pub fn project(&self, view: &dyn LedgerView, id: SessionId) -> Result<Option<Session>> {
        let mut history = view.history(id)?.unwrap_or_default();
        for event in self.events.iter().filter(|e| e.session == id) {
            history.insert(event.clone());
        }
        Ok(history.session())
    }

    /// The workspace as it will be once this batch is folded in.
    pub fn workspace(&self, view: &dyn LedgerView) -> Result<Workspace> {
        let mut history = view.history(WORKSPACE_STREAM)?.unwrap_or_default();
        for event in self.events.iter().filter(|e| e.session == WORKSPACE_STREAM) {
            history.insert(event.clone());
        }
        Ok(Workspace::from_history(Some(&history)))
    }
}

fn baton_actor() -> Actor {
    Actor {
        kind: ActorKind::Baton,
        name: "baton".into(),
    }
}

fn human(ctx: &Context) -> Actor {
    Actor {
        kind: ActorKind::Human,
        name: ctx.person.clone(),
    }
}

fn agent_of(ctx: &Context, session: &Session) -> Actor {
    ctx.actor
        .clone()
        .unwrap_or_else(|| Actor::agent(&session.agent))
}

/// Loads a live session or fails with the right code.
pub fn live_session(
    view: &dyn LedgerView,
    raw_id: &str,
) -> Result<(SessionId, SessionHistory, Session)> {
    let id = SessionId::parse_v7("session_id", raw_id)?;
    let history = view.history(id)?.ok_or_else(|| not_found(id))?;
    let session = history.session().ok_or_else(|| not_found(id))?;
    if !session.is_live() {
        return Err(Error::new(
            ErrorCode::SessionNotActive,
            format!(
                "session {id} has ended ({}); nothing more can be recorded against it",
                session.status
            ),
        )
        .with("session_id", id.to_string())
        .with("status", session.status.as_str()));
    }
    Ok((id, history, session))
}

/// Adds a health snapshot for `id` as it will be after the batch.
pub fn push_health(
    batch: &mut EventBatch<'_>,
    view: &dyn LedgerView,
    id: SessionId,
    trigger: &str,
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
            trigger: trigger.into(),
        }),
    );
    Ok(Some(report))
}

/// Adds a brief (or, when paused, the pause's delivery) to the batch; returns what to tell.
pub fn push_brief(
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
            next_action: "blocked".into(),
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
    let health = push_health(batch, view, id, "brief")?;
    let broken: Vec<&str> = session
        .open_collisions
        .iter()
        .filter(|c| c.severity == Severity::High)
        .map(|c| c.file.as_str())
        .collect();
    Ok(BriefContext {
        next_action: "work".into(),
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

fn answer(action: &str, session: &Session, message: String) -> LifecycleAnswer {
    LifecycleAnswer {
        action: action.into(),
        session_id: session.session_id,
        status: session.status,
        progress: session.progress,
        brief: None,
        collisions_opened: Vec::new(),
        message,
    }
}

fn files(field: &str, raw: &[String]) -> Result<Vec<String>> {
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

/// brief
pub fn brief(view: &dyn LedgerView, p: &SessionRef, ctx: &Context) -> Result<Executed> {
    let (id, _, session) = live_session(view, &p.session_id)?;
    let mut batch = EventBatch::new(ctx);
    let context = push_brief(&mut batch, view, id, agent_of(ctx, &session))?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let message = if context.next_action == "blocked" {
        "Paused by a person: stop and wait; you will be told when to continue.".to_owned()
    } else {
        "Briefed: this is the context to work from.".to_owned()
    };
    let mut reply = answer("briefed", &after, message);
    reply.brief = Some(context);
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// report
pub fn report(view: &dyn LedgerView, p: &ReportParams, ctx: &Context) -> Result<Executed> {
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
        (Some(number), Some(state)) => push(&mut batch, Activity::Step { number, state, via }),
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
            refusal = Some(
                Error::new(ErrorCode::RunRefused, format!("run refused: {reason}"))
                    .with("session_id", id.to_string()),
            );
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
        for other in &others {
            for file in &changed {
                let severity = if other.dependencies.contains(file) {
                    Severity::High
                } else if other.changed_files.contains(file) {
                    Severity::Normal
                } else {
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
            }
        }
        push_health(&mut batch, view, id, "change")?;
        for other in &others {
            push_health(&mut batch, view, other.session_id, "change")?;
        }
    }
    if batch.events.is_empty() {
        return Err(Error::invalid(
            "report",
            "nothing to report: give changed_files, status, progress, plan, step, a decision, run, evidence or pull_request",
        ));
    }
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let mut reply = answer(
        "reported",
        &after,
        format!("Recorded {} event(s).", batch.events.len()),
    );
    reply.collisions_opened = collisions;
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal,
    })
}

/// depend
pub fn depend(view: &dyn LedgerView, p: &DependParams, ctx: &Context) -> Result<Executed> {
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
        "dependencies_declared",
        &after,
        format!("Depends on {} file(s).", after.dependencies.len()),
    );
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// pause
pub fn pause(view: &dyn LedgerView, p: &PauseParams, ctx: &Context) -> Result<Executed> {
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
        human(ctx),
        Payload::Activity(Activity::Paused { reason }),
    );
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let reply = answer("paused", &after, "Baton does not reach into another machine to stop a process; the agent learns of the pause, and your reason, on its next request for context.".into());
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// unpause
pub fn unpause(view: &dyn LedgerView, p: &SessionRef, ctx: &Context) -> Result<Executed> {
    ctx.policy
        .require(&ctx.person, Permission::SessionControl)?;
    let (id, _, session) = live_session(view, &p.session_id)?;
    if session.pause.is_none() {
        return Err(Error::new(
            ErrorCode::SessionNotPaused,
            format!("session {id} is not paused"),
        )
        .with("session_id", id.to_string()));
    }
    let mut batch = EventBatch::new(ctx);
    batch.push(id, human(ctx), Payload::Activity(Activity::Unpaused {}));
    push_health(&mut batch, view, id, "unpause")?;
    batch.check()?;
    let after = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    let reply = answer(
        "unpaused",
        &after,
        "Unpaused. Its context is not current until it is briefed again.".into(),
    );
    Ok(Executed {
        events: batch.events,
        response: Response::Lifecycle(reply),
        refusal: None,
    })
}

/// health
pub fn health(view: &dyn LedgerView, p: &HealthParams, ctx: &Context) -> Result<Executed> {
    let id = SessionId::parse_v7("session_id", &p.session_id)?;
    let session = view.session(id)?.ok_or_else(|| not_found(id))?;
    let mut batch = EventBatch::new(ctx);
    let report = if p.recheck && session.is_live() {
        push_health(&mut batch, view, id, "recheck")?.ok_or_else(|| not_found(id))?
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

/// timeline
pub fn show_timeline(view: &dyn LedgerView, p: &SessionRef) -> Result<Executed> {
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
pub fn attention(view: &dyn LedgerView) -> Result<Executed> {
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

fn workspace_change(
    ctx: &Context,
    permission: Permission,
    activity: Activity,
    details: Value,
) -> Result<Executed> {
    ctx.policy.require(&ctx.person, permission)?;
    let mut batch = EventBatch::new(ctx);
    let action = activity.kind().to_owned();
    batch.push(WORKSPACE_STREAM, human(ctx), Payload::Activity(activity));
    batch.check()?;
    let details = match details {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    Ok(Executed {
        events: batch.events,
        response: Response::Workspace(WorkspaceAnswer { action, details }),
        refusal: None,
    })
}

fn reference(raw: &str) -> Result<String> {
    names::safe_name("reference", raw)
}

/// mission add
pub fn mission_add(view: &dyn LedgerView, p: &MissionParams, ctx: &Context) -> Result<Executed> {
    let reference = reference(&p.reference)?;
    let clauses: Vec<String> = p
        .clauses
        .iter()
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    if clauses.is_empty() {
        return Err(Error::invalid(
            "clauses",
            "a contract needs at least one clause",
        ));
    }
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let version = ws.mission(&reference).map_or(1, |m| m.latest().version + 1);
    workspace_change(
        ctx,
        Permission::WorkspaceEdit,
        Activity::MissionContract {
            reference: reference.clone(),
            version,
            clauses: clauses.clone(),
        },
        json!({ "reference": reference, "version": version, "status": "draft", "clauses": clauses }),
    )
}

/// mission approve
pub fn mission_approve(
    view: &dyn LedgerView,
    p: &MissionParams,
    ctx: &Context,
) -> Result<Executed> {
    let reference = reference(&p.reference)?;
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let mission = ws
        .mission(&reference)
        .ok_or_else(|| mission_not_found(&reference))?;
    let version = mission.latest().version;
    workspace_change(
        ctx,
        Permission::WorkspaceLead,
        Activity::MissionApproved {
            reference: reference.clone(),
            version,
        },
        json!({ "reference": reference, "version": version, "status": "approved" }),
    )
}

/// The error for an unknown mission.
pub fn mission_not_found(reference: &str) -> Error {
    Error::new(
        ErrorCode::MissionNotFound,
        format!(
            "no mission `{reference}`; add it with `baton mission add {reference} --contract FILE`"
        ),
    )
    .with("reference", reference)
}

/// constitution set
pub fn constitution_set(
    view: &dyn LedgerView,
    p: &ConstitutionParams,
    ctx: &Context,
) -> Result<Executed> {
    if p.text.trim().is_empty() {
        return Err(Error::invalid("text", "the constitution is empty"));
    }
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let version = ws.constitution_version.unwrap_or(0) + 1;
    let digest = format!("{:016x}", crate::checkpoint::fnv1a64(p.text.as_bytes()));
    let lines = p.text.lines().count() as u32;
    workspace_change(
        ctx,
        Permission::WorkspaceLead,
        Activity::ConstitutionSet {
            version,
            digest: digest.clone(),
            lines,
        },
        json!({ "version": version, "digest": digest, "lines": lines }),
    )
}

/// index
pub fn index(p: &IndexParams, ctx: &Context) -> Result<Executed> {
    let commit = names::label("commit", &p.commit)?;
    workspace_change(
        ctx,
        Permission::WorkspaceLead,
        Activity::RepositoryIndexed {
            commit: commit.clone(),
        },
        json!({ "commit": commit }),
    )
}

/// ambiguity open / resolve, decision record
pub fn note(view: &dyn LedgerView, kind: &str, p: &NoteParams, ctx: &Context) -> Result<Executed> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let text = || -> Result<String> {
        let text = p.text.as_deref().map(str::trim).unwrap_or("");
        if text.is_empty() {
            Err(Error::invalid("text", "is required"))
        } else {
            names::free_text("text", text)
        }
    };
    match kind {
        "ambiguity_open" => {
            let reference = reference(p.reference.as_deref().unwrap_or(""))?;
            let text = text()?;
            let number = ws.ambiguities.len() as u32 + 1;
            workspace_change(
                ctx,
                Permission::WorkspaceEdit,
                Activity::AmbiguityOpened {
                    reference: reference.clone(),
                    text: text.clone(),
                },
                json!({ "number": number, "reference": reference, "text": text }),
            )
        }
        "ambiguity_resolve" => {
            let number = p
                .number
                .ok_or_else(|| Error::invalid("number", "is required"))?;
            if !ws.ambiguities.iter().any(|a| a.number == number && a.open) {
                return Err(Error::new(
                    ErrorCode::AmbiguityNotFound,
                    format!("no open ambiguity #{number}"),
                )
                .with("number", number));
            }
            workspace_change(
                ctx,
                Permission::WorkspaceEdit,
                Activity::AmbiguityResolved { number },
                json!({ "number": number }),
            )
        }
        _ => {
            let text = text()?;
            let number = ws.decisions.len() as u32 + 1;
            workspace_change(
                ctx,
                Permission::WorkspaceEdit,
                Activity::DecisionRecorded { text: text.clone() },
                json!({ "number": number, "text": text }),
            )
        }
    }
}
