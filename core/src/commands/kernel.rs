//! The kernel every operation shares: the host's [`Context`] (time, fresh ids, policy, person),
//! a [`Prepared`] request, the [`Executed`] result, and the [`EventBatch`] an operation builds its
//! events in (ids counted from the context's, the session's state projected as it would be).

use crate::commands::answers::Response;
use crate::commands::request::Request;
use crate::error::{Error, Result};
use crate::ids::{EventId, SessionId, WORKSPACE_STREAM};
use crate::ledger::event::{Actor, ActorKind, Event, Outcome, Payload, Started};
use crate::ledger::fold::SessionHistory;
use crate::ledger::session::{Session, Status};
use crate::ledger::store::LedgerView;
use crate::lifecycle::workspace::Workspace;
use crate::names;
use crate::time::Timestamp;

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
    pub policy: crate::lifecycle::workspace::Policy,
    /// The person on whose behalf this runs (`--as`, `BATON_ACTOR`, or the OS user).
    pub person: String,
    /// Who is calling: a person, or a coding agent (over MCP, or the CLI inside an agent).
    pub caller: Caller,
    /// The workspace's budgets as measured for this command, when it has any and the host
    /// measured them (a brief or report applies them: see [`crate::lifecycle::budget`]).
    pub budget: Option<crate::lifecycle::budget::BudgetStatus>,
}

/// Who is on the other end of a command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Caller {
    /// A person at a terminal or in the page.
    #[default]
    Person,
    /// A coding agent, named by its client (lower-case): an MCP client, or the agent whose
    /// shell runs the CLI.
    Agent(String),
}

impl Caller {
    /// An agent caller, its name trimmed and lower-cased as session agents are.
    pub fn agent(name: &str) -> Caller {
        Caller::Agent(name.trim().to_lowercase())
    }

    /// The agent's name, when an agent is calling.
    pub fn agent_name(&self) -> Option<&str> {
        match self {
            Caller::Agent(name) => Some(name),
            Caller::Person => None,
        }
    }
}

impl Context {
    /// A context with the default policy, acting as `local`.
    pub fn new(now: Timestamp, event_id: EventId, session_id: SessionId) -> Context {
        Context {
            now,
            event_id,
            session_id,
            actor: None,
            policy: crate::lifecycle::workspace::Policy::default(),
            person: "local".to_owned(),
            caller: crate::commands::Caller::Person,
            budget: None,
        }
    }
}

/// A validated request, with the session a host must serialize on.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Take this session's cross-process lock before refreshing and executing.
    pub lock: Option<SessionId>,
    pub(crate) plan: Plan,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    Start {
        started: Box<Started>,
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
        branch: Option<String>,
        since: Option<crate::time::Timestamp>,
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

/// A fresh id for the `n`th event a command writes (n ≥ 1): the context's id plus `n`, so ids
/// stay unique, ascend in the order written (the fold replays equal times by id), and stay
/// valid UUIDv7 (only the random low bits change).
pub(super) fn nth_event_id(ctx: &Context, n: u16) -> EventId {
    EventId(uuid::Uuid::from_u128(
        ctx.event_id.0.as_u128().wrapping_add(u128::from(n)),
    ))
}

/// Builds events with ids from the context, in order.
#[derive(Debug)]
pub(super) struct EventBatch<'a> {
    ctx: &'a Context,
    /// The events so far.
    pub events: Vec<Event>,
}

impl<'a> EventBatch<'a> {
    /// An empty batch.
    pub(super) fn new(ctx: &'a Context) -> EventBatch<'a> {
        EventBatch {
            ctx,
            events: Vec::new(),
        }
    }

    /// Adds an event for `session` by `actor`.
    pub(super) fn push(&mut self, session: SessionId, actor: Actor, payload: Payload) {
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
    pub(super) fn check(&self) -> Result<()> {
        for event in &self.events {
            event.encode()?;
        }
        Ok(())
    }

    /// The session as it will be once this batch is folded in.
    pub(super) fn project(&self, view: &dyn LedgerView, id: SessionId) -> Result<Option<Session>> {
        let mut history = view.history(id)?.unwrap_or_default();
        for event in self.events.iter().filter(|e| e.session == id) {
            history.insert(event.clone());
        }
        Ok(history.session())
    }

    /// The workspace as it will be once this batch is folded in.
    pub(super) fn workspace(&self, view: &dyn LedgerView) -> Result<Workspace> {
        let mut history = view.history(WORKSPACE_STREAM)?.unwrap_or_default();
        for event in self.events.iter().filter(|e| e.session == WORKSPACE_STREAM) {
            history.insert(event.clone());
        }
        Ok(Workspace::from_history(Some(&history)))
    }
}

pub(crate) fn baton_actor() -> Actor {
    Actor {
        kind: ActorKind::Baton,
        name: "baton".into(),
    }
}

/// Who acts for a session's agent: the host's actor, else the calling agent, else the
/// session's own agent.
pub(crate) fn agent_of(ctx: &Context, session: &Session) -> Actor {
    agent_acting(ctx, &session.agent)
}

/// Who acts for the agent named `agent`: the host's actor, else the calling agent (what an
/// agent does is recorded under its own name), else `agent`.
pub(crate) fn agent_acting(ctx: &Context, agent: &str) -> Actor {
    ctx.actor
        .clone()
        .unwrap_or_else(|| Actor::agent(ctx.caller.agent_name().unwrap_or(agent)))
}

/// Loads a live session or fails with the right code.
pub(super) fn live_session(
    view: &dyn LedgerView,
    raw_id: &str,
) -> Result<(SessionId, SessionHistory, Session)> {
    let id = SessionId::parse_v7("session_id", raw_id)?;
    let history = view.history(id)?.ok_or_else(|| not_found(id))?;
    let session = history.session().ok_or_else(|| not_found(id))?;
    if !session.is_live() {
        return Err(Error::session_not_active(id, session.status.as_str()));
    }
    Ok((id, history, session))
}

pub(crate) fn not_found(id: SessionId) -> Error {
    Error::session_not_found(id)
}

pub(crate) fn existing(view: &dyn LedgerView, id: SessionId) -> Result<(SessionHistory, Session)> {
    let history = view.history(id)?.ok_or_else(|| not_found(id))?;
    let session = history.session().ok_or_else(|| not_found(id))?;
    Ok((history, session))
}

pub(crate) fn answered(response: Response) -> Executed {
    Executed {
        events: Vec::new(),
        response,
        refusal: None,
    }
}

pub(crate) fn opt<T>(
    value: &Option<String>,
    check: impl Fn(&str) -> Result<T>,
) -> Result<Option<T>> {
    value.as_deref().map(check).transpose()
}

pub(crate) fn opt_label(field: &'static str, value: &Option<String>) -> Result<Option<String>> {
    opt(value, |v| names::label(field, v))
}

pub(crate) fn required<'a>(field: &str, value: &'a Option<String>) -> Result<&'a str> {
    value
        .as_deref()
        .ok_or_else(|| Error::invalid(field, "is required to start a session"))
}
