//! The commands every host offers — start, resume, end, list, show — as one request/response
//! surface, decided purely from a [`LedgerView`] and a [`Context`].
//!
//! The order a host follows is fixed:
//! 1. [`prepare`] validates the raw request and resolves which session it targets (an implicit
//!    end is resolved here). Bad input fails now, before any lock is taken or byte written.
//! 2. The host serializes on [`Prepared::lock`] when it is `Some` (across processes), then
//!    refreshes its view so it sees every event appended before the lock was taken.
//! 3. [`execute`] decides against the fresh view and returns the events to append and the
//!    response. The host appends the events (each one whole) and only then answers.

use crate::error::{Error, ErrorCode, Result};
use crate::event::{Actor, Ended, Event, Outcome, Payload, Resumed, Started};
use crate::fold::SessionHistory;
use crate::ids::{EventId, SessionId};
use crate::model::{Session, Status};
use crate::names;
use crate::store::LedgerView;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// What only the host can supply: the time and fresh ids. The core never invents them.
#[derive(Debug, Clone)]
pub struct Context {
    /// The current time.
    pub now: Timestamp,
    /// An unused event id for the first event this command writes; its n-th event takes this
    /// id plus n (in the low, random bits). Random UUIDv7s never come that close to each other;
    /// a host that counts ids must leave gaps of 65,536.
    pub event_id: EventId,
    /// An unused session id, used if the command starts a session.
    pub session_id: SessionId,
    /// Who acts, when the host knows better than the default (the session's agent).
    pub actor: Option<Actor>,
    /// The workspace policy (`.baton/config.toml`; the default lets everyone do everything).
    pub policy: crate::workspace::Policy,
    /// The person on whose behalf this runs (`--as`, `BATON_ACTOR`, or the OS user).
    pub person: String,
}

impl Context {
    /// A context with the default policy, acting as `local`.
    pub fn new(now: Timestamp, event_id: EventId, session_id: SessionId) -> Context {
        Context {
            now,
            event_id,
            session_id,
            actor: None,
            policy: crate::workspace::Policy::default(),
            person: "local".to_owned(),
        }
    }
}

/// Start a session, or resume one when `session_id` is given.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StartParams {
    /// The project (required for a new session; optional check on resume).
    #[serde(default)]
    pub project: Option<String>,
    /// The agent (required for a new session).
    #[serde(default)]
    pub agent: Option<String>,
    /// The coding client.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What the session is for.
    #[serde(default)]
    pub goal: Option<String>,
    /// Resume this session instead of starting a new one.
    #[serde(default)]
    pub session_id: Option<String>,
    /// The session this one follows on from; it must exist and is left as it is.
    #[serde(default)]
    pub parent_session_id: Option<String>,
    /// External run id (only together with `work_item_id`).
    #[serde(default)]
    pub run_id: Option<String>,
    /// External work item id (only together with `run_id`).
    #[serde(default)]
    pub work_item_id: Option<String>,
    /// External attempt id.
    #[serde(default)]
    pub attempt_id: Option<String>,
    /// The mission (its contract must be approved).
    #[serde(default)]
    pub mission: Option<String>,
    /// The repository commit the work starts from (the CLI fills in `git rev-parse HEAD`).
    #[serde(default)]
    pub commit: Option<String>,
    /// Only register (status `starting`) without briefing; for a client's session-start hook.
    #[serde(default)]
    pub no_brief: bool,
}

/// Resume a live session by id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResumeParams {
    /// The session to resume.
    pub session_id: String,
    /// When given, must be the session's project.
    #[serde(default)]
    pub project: Option<String>,
    /// The client resuming it.
    #[serde(default)]
    pub client_name: Option<String>,
}

/// End a session: by id, or the only live one matching the filters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EndParams {
    /// The session to end; without it, implicit resolution applies.
    #[serde(default)]
    pub session_id: Option<String>,
    /// Filter for implicit resolution.
    #[serde(default)]
    pub project: Option<String>,
    /// Filter for implicit resolution (normalized).
    #[serde(default)]
    pub agent: Option<String>,
    /// Filter for implicit resolution.
    #[serde(default)]
    pub client_name: Option<String>,
    /// What was done.
    #[serde(default)]
    pub summary: Option<String>,
    /// `complete` (default) or `failed`.
    #[serde(default)]
    pub status: Option<String>,
}

/// List sessions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// Only this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Only this agent (normalized).
    #[serde(default)]
    pub agent: Option<String>,
    /// Only this status (an ended status includes ended sessions).
    #[serde(default)]
    pub status: Option<String>,
    /// Include ended sessions (live ones only by default).
    #[serde(default, alias = "all")]
    pub include_ended: bool,
}

/// Show one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShowParams {
    /// The session.
    pub session_id: String,
}

/// Every request, tagged by `op` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Request {
    /// See [`StartParams`].
    Start(StartParams),
    /// See [`ResumeParams`].
    Resume(ResumeParams),
    /// See [`EndParams`].
    End(EndParams),
    /// See [`ListParams`].
    List(ListParams),
    /// See [`ShowParams`].
    Show(ShowParams),
    /// Give a session its context (or deliver its pause).
    Brief(crate::lifecycle::SessionRef),
    /// See [`crate::lifecycle::ReportParams`].
    Report(crate::lifecycle::ReportParams),
    /// See [`crate::lifecycle::DependParams`].
    Depend(crate::lifecycle::DependParams),
    /// See [`crate::lifecycle::PauseParams`].
    Pause(crate::lifecycle::PauseParams),
    /// Lift a pause.
    Unpause(crate::lifecycle::SessionRef),
    /// See [`crate::lifecycle::HealthParams`].
    Health(crate::lifecycle::HealthParams),
    /// Every event of a session.
    Timeline(crate::lifecycle::SessionRef),
    /// Open attention items.
    Attention,
    /// A mission's contract, as a new draft version.
    MissionAdd(crate::lifecycle::MissionParams),
    /// Approve a mission's newest contract version.
    MissionApprove(crate::lifecycle::MissionParams),
    /// A new constitution version.
    ConstitutionSet(crate::lifecycle::ConstitutionParams),
    /// Record the indexed commit.
    Index(crate::lifecycle::IndexParams),
    /// Open a requirement ambiguity.
    AmbiguityOpen(crate::lifecycle::NoteParams),
    /// Resolve one.
    AmbiguityResolve(crate::lifecycle::NoteParams),
    /// Record an active decision.
    DecisionRecord(crate::lifecycle::NoteParams),
}

/// A session together with what a command did to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionAction {
    /// `started`, `resumed` or `ended`.
    pub action: String,
    /// When the resume marker was recorded (resumes only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumed_at: Option<Timestamp>,
    /// The session after the command.
    #[serde(flatten)]
    pub session: Session,
    /// What the session was briefed with (starts that brief).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub briefing: Option<crate::lifecycle::BriefContext>,
    /// A sentence for the caller.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The answer to a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionList {
    /// The matching sessions, oldest first.
    pub sessions: Vec<Session>,
    /// How many matched.
    pub total: usize,
}

/// The answer to a show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionShow {
    /// The session with every field of the model.
    pub session: Session,
}

/// Every response. Serializes as the bare object of its variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
// One response is built per command and serialized at once: boxing would buy nothing.
#[allow(clippy::large_enum_variant)]
pub enum Response {
    /// start, resume, end.
    Action(SessionAction),
    /// list.
    List(SessionList),
    /// show.
    Show(SessionShow),
    /// brief, report, depend, pause, unpause.
    Lifecycle(crate::lifecycle::LifecycleAnswer),
    /// health.
    Health(crate::lifecycle::HealthAnswer),
    /// timeline.
    Timeline(crate::lifecycle::TimelineAnswer),
    /// attention.
    Attention(crate::lifecycle::AttentionAnswer),
    /// workspace changes.
    Workspace(crate::lifecycle::WorkspaceAnswer),
}

/// A validated request, with the session a host must serialize on.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Take this session's cross-process lock before refreshing and executing.
    pub lock: Option<SessionId>,
    plan: Plan,
}

#[derive(Debug, Clone, PartialEq)]
enum Plan {
    Start {
        started: Started,
        brief: bool,
    },
    Resume {
        id: SessionId,
        project: Option<String>,
        client_name: Option<String>,
    },
    End {
        id: SessionId,
        outcome: Outcome,
        summary: Option<String>,
    },
    List {
        project: Option<String>,
        agent: Option<String>,
        status: Option<Status>,
        all: bool,
    },
    Show(SessionId),
    Lifecycle(Box<Request>),
}

/// Events to append and the answer to give once they are durable.
#[derive(Debug, Clone, PartialEq)]
pub struct Executed {
    /// Append these, in order, each whole.
    pub events: Vec<Event>,
    /// Answer this after the appends succeed.
    pub response: Response,
    /// Append the events, then answer this error instead (a refused run is recorded as such).
    pub refusal: Option<Error>,
}

fn opt<T>(value: &Option<String>, check: impl Fn(&str) -> Result<T>) -> Result<Option<T>> {
    value.as_deref().map(check).transpose()
}

fn opt_label(field: &'static str, value: &Option<String>) -> Result<Option<String>> {
    opt(value, |v| names::label(field, v))
}

/// Step 1: validates a request and resolves its target. Reads the view only to resolve.
pub fn prepare(view: &dyn LedgerView, request: &Request) -> Result<Prepared> {
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
            },
        }),
        Request::Show(p) => Ok(Prepared {
            lock: None,
            plan: Plan::Show(SessionId::parse_v7("session_id", &p.session_id)?),
        }),
        other => {
            let target = match other {
                Request::Brief(r) | Request::Unpause(r) => Some(&r.session_id),
                Request::Report(r) => Some(&r.session_id),
                Request::Depend(r) => Some(&r.session_id),
                Request::Pause(r) => Some(&r.session_id),
                _ => None,
            };
            Ok(Prepared {
                lock: target
                    .map(|id| SessionId::parse_v7("session_id", id))
                    .transpose()?,
                plan: Plan::Lifecycle(Box::new(other.clone())),
            })
        }
    }
}

fn required<'a>(field: &str, value: &'a Option<String>) -> Result<&'a str> {
    value
        .as_deref()
        .ok_or_else(|| Error::invalid(field, "is required to start a session"))
}

fn prepare_start(view: &dyn LedgerView, p: &StartParams) -> Result<Prepared> {
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
    Ok(Prepared {
        lock: None,
        plan: Plan::Start {
            started: Started {
                project,
                agent,
                client_name: opt_label("client_name", &p.client_name)?,
                goal: opt(&p.goal, |v| names::free_text("goal", v))?,
                parent_session_id,
                run_id,
                work_item_id,
                attempt_id: opt_label("attempt_id", &p.attempt_id)?,
                mission: opt(&p.mission, |v| names::safe_name("mission", v))?,
                commit: opt_label("commit", &p.commit)?,
            },
            brief: !p.no_brief,
        },
    })
}

fn prepare_end(view: &dyn LedgerView, p: &EndParams) -> Result<Prepared> {
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
    let id = match &p.session_id {
        Some(raw) => SessionId::parse_v7("session_id", raw)?,
        None => resolve_implicit(view, p)?.session_id,
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
        .filter(|s| agent.as_ref().is_none_or(|a| &s.agent == a))
        .collect();
    let filters = json!({ "project": project, "agent": agent, "client_name": client });
    match candidates.len() {
        1 => Ok(candidates.remove(0)),
        0 => Err(Error::new(
            ErrorCode::NoActiveSession,
            format!(
                "no live work session matches {}; start one, or pass a session id",
                describe_filters(&project, &agent, &client)
            ),
        )
        .with("filters", filters)),
        n => {
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
            Err(Error::new(
                ErrorCode::AmbiguousSession,
                format!(
                    "{n} live work sessions match {}; none was ended. Retry with one of the candidates' session_id",
                    describe_filters(&project, &agent, &client)
                ),
            )
            .with("candidates", listed)
            .with("filters", filters))
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

pub(crate) fn not_found(id: SessionId) -> Error {
    Error::new(
        ErrorCode::SessionNotFound,
        format!("no work session {id} in this ledger; `baton list --all` shows the known ones"),
    )
    .with("session_id", id.to_string())
}

fn existing(view: &dyn LedgerView, id: SessionId) -> Result<(SessionHistory, Session)> {
    let history = view.history(id)?.ok_or_else(|| not_found(id))?;
    let session = history.session().ok_or_else(|| not_found(id))?;
    Ok((history, session))
}

/// Step 3: decides against a view refreshed under the lock.
pub fn execute(view: &dyn LedgerView, prepared: &Prepared, ctx: &Context) -> Result<Executed> {
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
        } => {
            let pool = if *all || status.is_some_and(|s| !s.is_live()) {
                view.all_sessions()?
            } else {
                view.live_sessions()?
            };
            let sessions: Vec<Session> = pool
                .into_iter()
                .filter(|s| project.as_ref().is_none_or(|p| &s.project == p))
                .filter(|s| agent.as_ref().is_none_or(|a| &s.agent == a))
                .filter(|s| status.is_none_or(|st| s.status == st))
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

fn answered(response: Response) -> Executed {
    Executed {
        events: Vec::new(),
        response,
        refusal: None,
    }
}

fn lifecycle_request(view: &dyn LedgerView, request: &Request, ctx: &Context) -> Result<Executed> {
    use crate::lifecycle as l;
    match request {
        Request::Brief(p) => l::brief(view, p, ctx),
        Request::Report(p) => l::report(view, p, ctx),
        Request::Depend(p) => l::depend(view, p, ctx),
        Request::Pause(p) => l::pause(view, p, ctx),
        Request::Unpause(p) => l::unpause(view, p, ctx),
        Request::Health(p) => l::health(view, p, ctx),
        Request::Timeline(p) => l::show_timeline(view, p),
        Request::Attention => l::attention(view),
        Request::MissionAdd(p) => l::mission_add(view, p, ctx),
        Request::MissionApprove(p) => l::mission_approve(view, p, ctx),
        Request::ConstitutionSet(p) => l::constitution_set(view, p, ctx),
        Request::Index(p) => l::index(p, ctx),
        Request::AmbiguityOpen(p) => l::note(view, "ambiguity_open", p, ctx),
        Request::AmbiguityResolve(p) => l::note(view, "ambiguity_resolve", p, ctx),
        Request::DecisionRecord(p) => l::note(view, "decision_record", p, ctx),
        Request::Start(_)
        | Request::Resume(_)
        | Request::End(_)
        | Request::List(_)
        | Request::Show(_) => Err(Error::internal(
            "a core request reached the lifecycle dispatcher",
        )),
    }
}

/// Registration is gated in the spec's order: the person's role, the client's approval
/// (refused before anything about the workspace is disclosed), then the mission's contract.
fn gate_registration(view: &dyn LedgerView, started: &Started, ctx: &Context) -> Result<()> {
    ctx.policy
        .require(&ctx.person, crate::workspace::Permission::SessionRegister)?;
    ctx.policy.require_client(started.client_name.as_deref())?;
    let ws = crate::workspace::Workspace::from_history(
        view.history(crate::workspace::WORKSPACE_STREAM)?.as_ref(),
    );
    match &started.mission {
        Some(reference) => {
            let mission = ws
                .mission(reference)
                .ok_or_else(|| crate::lifecycle::mission_not_found(reference))?;
            if !mission.versions.iter().any(|v| v.approved) {
                let version = mission.latest().version;
                return Err(Error::new(
                    ErrorCode::MissionNotApproved,
                    format!(
                        "{reference} is still a draft (contract v{version}); a lead must approve it (`baton mission approve {reference}`) before an agent can start on it"
                    ),
                )
                .with("reference", reference.clone())
                .with("version", version));
            }
            Ok(())
        }
        None if ctx.policy.mission_required => Err(Error::new(
            ErrorCode::MissionRequired,
            "this workspace requires a mission: pass --mission REF",
        )),
        None => Ok(()),
    }
}

fn start(view: &dyn LedgerView, started: &Started, brief: bool, ctx: &Context) -> Result<Executed> {
    gate_registration(view, started, ctx)?;
    let actor = ctx
        .actor
        .clone()
        .unwrap_or_else(|| Actor::agent(&started.agent));
    let mut batch = crate::lifecycle::EventBatch::new(ctx);
    batch.push(
        ctx.session_id,
        actor.clone(),
        Payload::Started(started.clone()),
    );
    let briefing = if brief {
        Some(crate::lifecycle::push_brief(
            &mut batch,
            view,
            ctx.session_id,
            actor,
        )?)
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
            action: "started".into(),
            resumed_at: None,
            session,
            briefing,
            message: None,
        }),
        refusal: None,
    })
}

fn resume(
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
        return Err(Error::new(
            ErrorCode::SessionProjectMismatch,
            format!(
                "session {id} belongs to project `{}`, not `{project}`",
                current.project
            ),
        )
        .with("session_id", id.to_string())
        .with("expected_project", project)
        .with("actual_project", current.project.clone()));
    }
    if !current.is_live() {
        return Err(Error::new(
            ErrorCode::SessionNotActive,
            format!(
                "session {id} ended ({}) at {}; start a new session with --parent {id} to continue its work",
                current.status,
                current.ended_at.map(|t| t.to_string()).unwrap_or_default()
            ),
        )
        .with("session_id", id.to_string())
        .with("status", current.status.as_str()));
    }
    ctx.policy
        .require(&ctx.person, crate::workspace::Permission::SessionRegister)?;
    ctx.policy
        .require_client(client_name.as_deref().or(current.client_name.as_deref()))?;
    let mut batch = crate::lifecycle::EventBatch::new(ctx);
    batch.push(
        id,
        ctx.actor
            .clone()
            .unwrap_or_else(|| Actor::agent(&current.agent)),
        Payload::Resumed(Resumed {
            client_name: client_name.clone(),
        }),
    );
    crate::lifecycle::push_health(&mut batch, view, id, "resume")?;
    batch.check()?;
    let session = batch.project(view, id)?.ok_or_else(|| not_found(id))?;
    Ok(Executed {
        events: batch.events,
        response: Response::Action(SessionAction {
            action: "resumed".into(),
            resumed_at: Some(ctx.now),
            session,
            briefing: None,
            message: None,
        }),
        refusal: None,
    })
}

fn end(
    view: &dyn LedgerView,
    id: SessionId,
    outcome: Outcome,
    summary: &Option<String>,
    ctx: &Context,
) -> Result<Executed> {
    use crate::activity::Activity;
    let (_, current) = existing(view, id)?;
    if !current.is_live() {
        return Err(Error::new(
            ErrorCode::SessionAlreadyClosed,
            format!(
                "session {id} was already ended ({}) at {}; nothing was recorded",
                current.status,
                current.ended_at.map(|t| t.to_string()).unwrap_or_default()
            ),
        )
        .with("session_id", id.to_string())
        .with("status", current.status.as_str())
        .with("ended_at", json!(current.ended_at)));
    }
    let actor = ctx
        .actor
        .clone()
        .unwrap_or_else(|| Actor::agent(&current.agent));
    let baton = Actor {
        kind: crate::event::ActorKind::Baton,
        name: "baton".into(),
    };
    let mut batch = crate::lifecycle::EventBatch::new(ctx);
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
    let unfinished = outcome == Outcome::Failed
        || matches!(
            current.status,
            Status::Blocked | Status::Paused | Status::Starting
        );
    if unfinished {
        batch.push(
            crate::workspace::WORKSPACE_STREAM,
            baton,
            Payload::Activity(Activity::AttentionRaised {
                session: id,
                level: "inform".into(),
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
            action: "ended".into(),
            resumed_at: None,
            session,
            briefing: None,
            message: Some(format!(
                "Session closed.{verdict} Closing it does not decide whether the mission is done: that is for the evidence, the pull request and a person."
            )),
        }),
        refusal: None,
    })
}

/// Prepares and executes in one step, for hosts with no cross-process concerns (memory, wasm).
pub fn run(
    ledger: &mut (impl LedgerView + crate::store::EventLog),
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
