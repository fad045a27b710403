//! Changes to the workspace's shared context: missions and their contracts, the constitution,
//! the indexed commit, ambiguities and decisions.

use crate::commands::answers::{Response, WorkspaceAnswer};
use crate::commands::kernel::{Context, EventBatch, Executed};
use crate::commands::params::{ConstitutionParams, IndexParams, MissionParams, NoteParams};
use crate::commands::trust::acting;
use crate::error::{Error, Result};
use crate::ids::WORKSPACE_STREAM;
use crate::ledger::activity::Activity;
use crate::ledger::event::Payload;
use crate::ledger::store::LedgerView;
use crate::lifecycle::workspace::{Permission, Workspace};
use crate::names;
use serde_json::{Value, json};

/// Records one change to the workspace stream. Hosts run workspace changes under the
/// workspace's lock (`Prepared::lock` is [`WORKSPACE_STREAM`]), so the version or number a
/// change was told is the one the fold gives it: the event is also dated after every earlier
/// workspace event (a millisecond later when the clock has not moved on), so the fold's
/// `(at, id)` order is the order the lock granted.
fn workspace_change(
    view: &dyn LedgerView,
    ctx: &Context,
    permission: Permission,
    activity: Activity,
    details: Value,
) -> Result<Executed> {
    ctx.policy.require(&ctx.person, permission)?;
    let mut batch = EventBatch::new(ctx);
    let action = activity.kind().to_owned();
    batch.push(WORKSPACE_STREAM, acting(ctx), Payload::Activity(activity));
    let latest = view
        .history(WORKSPACE_STREAM)?
        .and_then(|h| h.ordered().last().map(|e| e.at));
    if let (Some(latest), Some(event)) = (latest, batch.events.first_mut())
        && event.at <= latest
    {
        event.at = crate::time::Timestamp::from_millis(latest.millis() + 1);
    }
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

pub(crate) fn reference(raw: &str) -> Result<String> {
    names::safe_name("reference", raw)
}

/// mission add
pub(super) fn mission_add(
    view: &dyn LedgerView,
    p: &MissionParams,
    ctx: &Context,
) -> Result<Executed> {
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
        view,
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
pub(super) fn mission_approve(
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
        view,
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
pub(super) fn mission_not_found(reference: &str) -> Error {
    Error::mission_not_found(reference)
}

/// constitution set
pub(super) fn constitution_set(
    view: &dyn LedgerView,
    p: &ConstitutionParams,
    ctx: &Context,
) -> Result<Executed> {
    if p.text.trim().is_empty() {
        return Err(Error::invalid("text", "the constitution is empty"));
    }
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let version = ws.constitution_version.unwrap_or(0) + 1;
    let digest = format!(
        "{:016x}",
        crate::ledger::checkpoint::fnv1a64(p.text.as_bytes())
    );
    let lines = p.text.lines().count() as u32;
    workspace_change(
        view,
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
pub(super) fn index(view: &dyn LedgerView, p: &IndexParams, ctx: &Context) -> Result<Executed> {
    let commit = names::label("commit", &p.commit)?;
    workspace_change(
        view,
        ctx,
        Permission::WorkspaceLead,
        Activity::RepositoryIndexed {
            commit: commit.clone(),
        },
        json!({ "commit": commit }),
    )
}

/// The text a note carries: required, trimmed, checked as free text.
fn note_text(p: &NoteParams) -> Result<String> {
    let text = p.text.as_deref().map(str::trim).unwrap_or("");
    if text.is_empty() {
        Err(Error::invalid("text", "is required"))
    } else {
        names::free_text("text", text)
    }
}

/// Opens a requirement ambiguity against a mission reference.
pub(super) fn ambiguity_open(
    view: &dyn LedgerView,
    p: &NoteParams,
    ctx: &Context,
) -> Result<Executed> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let reference = reference(p.reference.as_deref().unwrap_or(""))?;
    let text = note_text(p)?;
    let number = ws.ambiguities.len() as u32 + 1;
    workspace_change(
        view,
        ctx,
        Permission::WorkspaceEdit,
        Activity::AmbiguityOpened {
            reference: reference.clone(),
            text: text.clone(),
        },
        json!({ "number": number, "reference": reference, "text": text }),
    )
}

/// Resolves an open ambiguity by its number.
pub(super) fn ambiguity_resolve(
    view: &dyn LedgerView,
    p: &NoteParams,
    ctx: &Context,
) -> Result<Executed> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let number = p
        .number
        .ok_or_else(|| Error::invalid("number", "is required"))?;
    if !ws.ambiguities.iter().any(|a| a.number == number && a.open) {
        return Err(Error::ambiguity_not_found(number));
    }
    workspace_change(
        view,
        ctx,
        Permission::WorkspaceEdit,
        Activity::AmbiguityResolved { number },
        json!({ "number": number }),
    )
}

/// Records an active decision.
pub(super) fn decision_record(
    view: &dyn LedgerView,
    p: &NoteParams,
    ctx: &Context,
) -> Result<Executed> {
    let ws = Workspace::from_history(view.history(WORKSPACE_STREAM)?.as_ref());
    let text = note_text(p)?;
    let number = ws.decisions.len() as u32 + 1;
    workspace_change(
        view,
        ctx,
        Permission::WorkspaceEdit,
        Activity::DecisionRecorded { text: text.clone() },
        json!({ "number": number, "text": text }),
    )
}
