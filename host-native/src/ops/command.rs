//! One core request from any face, with the steps every face takes around it alike: whether
//! the agents of live sessions still run (before a list, a show or the attention items), what
//! only the host knows filled in, a start or end from inside an agent's session pointed at the
//! work session its hook opened, the run itself (notes brought up to date after), the calling
//! agent's process tied to a session it started, and what one shown session cost. The CLI and
//! the MCP server both call [`run`]; neither reaches the engine or the store another way.

use crate::ops::engine::{self, Acting};
use crate::ops::work_cost::SessionCost;
use crate::os::warnings::warn;
use crate::store::{Ledger, Snapshot};
use baton_core::Error;
use baton_core::commands::{Caller, Request, Response};
use serde_json::Value;
use std::path::Path;

/// What an answer carries besides the core's response.
#[derive(Debug, Default)]
pub struct Extras {
    /// A shown session's cost, when the index or the usage its hooks recorded can say.
    pub cost: Option<SessionCost>,
    /// The cost of a shown session's hand-off chain.
    pub chain_cost: Option<Value>,
    /// The cost of the work sessions on a shown session's branch.
    pub branch_cost: Option<Value>,
    /// A shown session's share of the five-hour window open now.
    pub window_share: Option<Value>,
    /// How to resume a shown session's agent session (Claude Code, Codex), or why it cannot be.
    pub resume: Option<Value>,
    /// What its agent reported over OpenTelemetry for its requests (`baton otel serve`).
    pub reported_cost: Option<Value>,
}

impl Extras {
    /// The extras as the answers' JSON carries them, by key, in order.
    pub fn into_fields(self) -> Vec<(&'static str, Value)> {
        let cost = self.cost.and_then(|c| serde_json::to_value(c).ok());
        [
            ("cost", cost),
            ("reported_cost", self.reported_cost),
            ("chain_cost", self.chain_cost),
            ("branch_cost", self.branch_cost),
            ("window_share", self.window_share),
            ("resume", self.resume),
        ]
        .into_iter()
        .filter_map(|(key, value)| Some((key, value?)))
        .collect()
    }
}

/// A request's outcome: the core's answer, the extras, and the view it read, with which the
/// face refreshes the checkpoint once it has answered ([`engine::refresh`]).
#[derive(Debug)]
pub struct Answered {
    /// The core's answer.
    pub result: Result<Response, Error>,
    /// What the host adds to it.
    pub extras: Extras,
    /// The view the request read, for the checkpoint's refresh.
    pub snapshot: Option<Snapshot>,
}

/// Runs `request` for `acting` against the ledger (and the transcript index at `index`, for
/// costs), `client` being the calling agent's name when there is one.
pub fn run(
    ledger: &Ledger,
    index: &Path,
    mut request: Request,
    acting: &Acting,
    client: Option<&str>,
) -> Answered {
    // A config that cannot be read refuses the command once, before any step says it too.
    if let Err(err) = crate::config::ConfigFile::read(ledger.dir()) {
        return Answered {
            result: Err(err),
            extras: Extras::default(),
            snapshot: None,
        };
    }
    // Sessions are read with whether their agents still run; when that check recorded nothing,
    // the command answers from the view it read.
    let mut view = None;
    if matches!(
        request,
        Request::List(_) | Request::Show(_) | Request::Attention | Request::AttentionDone(_)
    ) {
        match crate::ops::agents::check_keeping_view(ledger) {
            Ok(read) => view = read,
            Err(err) => warn(&format!("could not check whether agents still run: {err}")),
        }
    }
    engine::fill_defaults(&mut request, client);
    let agent = matches!(acting.caller, Caller::Agent(_));
    // A start or end from inside an agent session a hook already opened is about that work
    // session (one per agent session, whichever door it came in by).
    if agent {
        engine::join_calling_agents_session(ledger, &mut request);
    }
    let (result, snapshot) = engine::run_deferred_on(ledger, &request, acting, view);
    // The agent that started a session runs it: its process is tied to it, so Baton can tell
    // later when it is gone.
    if agent
        && let (Request::Start(_), Ok(Response::Action(action))) = (&request, &result)
        && let Some(process) = crate::os::processes::agent_process()
        && let Err(err) =
            crate::ops::agents::tie_process(ledger, &action.session.session_id.to_string(), process)
    {
        warn(&format!(
            "could not tie the agent's process to its session: {err}"
        ));
    }
    let extras = match (&result, &snapshot) {
        (Ok(Response::Show(shown)), Some(snapshot)) => {
            costs(ledger, index, snapshot, shown.session.session_id)
        }
        _ => Extras::default(),
    };
    Answered {
        result,
        extras,
        snapshot,
    }
}

/// One session's cost and its hand-off chain's; left out, with a warning, when they cannot be
/// read (the session is the answer, its cost is extra).
fn costs(ledger: &Ledger, index: &Path, snapshot: &Snapshot, id: baton_core::SessionId) -> Extras {
    use baton_core::ledger::store::LedgerView;
    let costed = snapshot.all_sessions().and_then(|all| {
        let costs = crate::ops::work_cost::of_sessions(ledger, index, &all, &[id])?;
        Ok((all, costs))
    });
    match costed {
        Ok((all, costs)) => Extras {
            cost: costs.of(id).cloned(),
            chain_cost: costs.chain_total(&all, id),
            branch_cost: costs.branch_total(&all, id),
            window_share: window_share(ledger, index, &all, id),
            resume: resume(index, &all, id, costs.of(id)),
            reported_cost: crate::ops::otel::compare::of_work_session(
                index,
                ledger.dir().parent().map(|root| root.display().to_string()),
                &all,
                id,
            )
            .unwrap_or_else(|err| {
                warn(&format!("what its agent reported is left out: {err}"));
                None
            }),
        },
        Err(err) => {
            warn(&format!("its cost is left out: {err}"));
            Extras::default()
        }
    }
}

/// How to resume `id`'s agent session: its own provider session id first, then the Claude
/// Code and Codex transcripts tied to it, the first the index knows (see
/// [`resume_of`](crate::ops::mirror::restore::resume_of)).
fn resume(
    index: &Path,
    sessions: &[baton_core::ledger::session::Session],
    id: baton_core::SessionId,
    cost: Option<&crate::ops::work_cost::SessionCost>,
) -> Option<Value> {
    use baton_core::transcripts::Provider;
    let session = sessions.iter().find(|s| s.session_id == id)?;
    let mut ids: Vec<&str> = session.provider_session_id.as_deref().into_iter().collect();
    ids.extend(
        cost.into_iter()
            .flat_map(|c| &c.transcripts)
            .filter(|t| matches!(t.provider, Provider::ClaudeCode | Provider::Codex))
            .map(|t| t.provider_session_id.as_str()),
    );
    if ids.is_empty() || !index.exists() {
        return None;
    }
    let connection = crate::ops::mirror::open_for_query(index, false, None).ok()?;
    ids.into_iter().find_map(|provider_id| {
        let row = crate::ops::mirror::query::resolve(&connection, index, provider_id).ok()?;
        let resume = crate::ops::mirror::restore::resume_of(&connection, index, &row).ok()??;
        let mut value = serde_json::to_value(resume).ok()?;
        value["provider_session_id"] = Value::from(provider_id);
        Some(value)
    })
}

/// `id`'s share of the five-hour window open now (its work session's responses against all
/// of the window's), when it has one; left out, with a warning, when the index cannot say.
fn window_share(
    ledger: &Ledger,
    index: &Path,
    sessions: &[baton_core::ledger::session::Session],
    id: baton_core::SessionId,
) -> Option<Value> {
    let root = ledger.dir().parent().map(|p| p.display().to_string());
    let open = crate::os::system::now().and_then(|now| {
        crate::ops::mirror::windows::open_window(index, Some((sessions, root.as_deref())), now)
    });
    let window = match open {
        Ok(window) => window?,
        Err(err) => {
            warn(&format!("its share of the open window is left out: {err}"));
            return None;
        }
    };
    let share = window.sessions.iter().find(|s| s.session_id == Some(id))?;
    Some(serde_json::json!({
        "window_start": window.start,
        "window_end": window.end,
        "share_percent": share.share_percent,
        "cost_usd": share.cost_usd,
        "total_tokens": share.total_tokens,
        "window_cost_usd": window.cost_usd,
        "window_tokens": window.total_tokens,
    }))
}

/// [`run`] for a face that answers afterwards: the checkpoint is refreshed before returning,
/// and only the core's answer is kept.
pub fn run_now(ledger: &Ledger, request: Request, acting: &Acting) -> Result<Response, Error> {
    let index = crate::index::path_for(ledger.dir());
    let answered = run(ledger, &index, request, acting, None);
    if let Some(snapshot) = &answered.snapshot {
        engine::refresh(ledger, snapshot);
    }
    answered.result
}
