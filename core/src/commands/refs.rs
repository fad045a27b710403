//! Session references as people type them: the full id, a unique run of 8 or more hex digits
//! from its start or its end (Baton shows the last 8, `(working, 33a39086)`), or the session's
//! path (`demo/2026-07-18-2000-claude-33a39086`). Resolved to the full id before anything else
//! reads the request, so every command and every host accepts the same forms.

use crate::commands::request::Request;
use crate::error::{Error, ErrorCode, Result};
use crate::ledger::session::Session;
use crate::ledger::store::LedgerView;
use serde_json::json;

/// The fewest hex digits a short reference may have.
pub(crate) const MIN_SHORT_ID: usize = 8;

/// `request` with every session reference it holds written as a full id.
pub(crate) fn resolve_references(view: &dyn LedgerView, request: &Request) -> Result<Request> {
    let mut request = request.clone();
    let mut sessions: Option<Vec<Session>> = None;
    let mut resolve = |field: &str, text: &mut String| -> Result<()> {
        let Some(full) = resolve_one(view, &mut sessions, field, text)? else {
            return Ok(());
        };
        *text = full;
        Ok(())
    };
    match &mut request {
        Request::Start(p) => {
            if let Some(id) = &mut p.session_id {
                resolve("session_id", id)?;
            }
            if let Some(id) = &mut p.parent_session_id {
                resolve("parent_session_id", id)?;
            }
        }
        Request::End(p) => {
            if let Some(id) = &mut p.session_id {
                resolve("session_id", id)?;
            }
        }
        Request::Resume(p) => resolve("session_id", &mut p.session_id)?,
        Request::Show(p) => resolve("session_id", &mut p.session_id)?,
        Request::Brief(r) | Request::Unpause(r) | Request::Timeline(r) => {
            resolve("session_id", &mut r.session_id)?
        }
        Request::Report(p) => resolve("session_id", &mut p.session_id)?,
        Request::Depend(p) => resolve("session_id", &mut p.session_id)?,
        Request::Pause(p) => resolve("session_id", &mut p.session_id)?,
        Request::Health(p) => resolve("session_id", &mut p.session_id)?,
        Request::Correct(p) => resolve("session_id", &mut p.session_id)?,
        _ => {}
    }
    Ok(request)
}

/// The full id of the session `text` names (a full id, 8 or more hex digits from its start or
/// end, or its path), by the rule every command uses; `field` names it in errors. For hosts
/// that take a session outside a [`Request`] (a stored record's work session).
pub fn resolve_session(view: &dyn LedgerView, field: &str, text: &str) -> Result<String> {
    let mut sessions = None;
    Ok(resolve_one(view, &mut sessions, field, text)?.unwrap_or_else(|| text.trim().to_owned()))
}

/// The full id `text` names, or `None` when it is already a full id (or not a short form: the
/// id parser then says what is wrong with it).
fn resolve_one(
    view: &dyn LedgerView,
    sessions: &mut Option<Vec<Session>>,
    field: &str,
    text: &str,
) -> Result<Option<String>> {
    let text = text.trim();
    if uuid::Uuid::try_parse(text).is_ok() {
        return Ok(None);
    }
    let hex: String = text
        .chars()
        .filter(|c| *c != '-')
        .collect::<String>()
        .to_ascii_lowercase();
    let is_short =
        hex.len() >= MIN_SHORT_ID && hex.len() < 32 && hex.chars().all(|c| c.is_ascii_hexdigit());
    let is_path = text.contains('/');
    if !is_short && !is_path {
        // Not a full id, a short one or a path: say what would do, not just what this is not.
        let looks_short = !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit());
        let problem = if text.is_empty() {
            format!(
                "is empty: give the session's id, {MIN_SHORT_ID} or more hex digits of it, or its path"
            )
        } else if looks_short && hex.len() < MIN_SHORT_ID {
            format!(
                "`{text}` is too short to name a session: give {MIN_SHORT_ID} or more hex digits of its id (as `baton list` shows them), the whole id, or its path"
            )
        } else {
            format!(
                "`{text}` names no session: give its id, {MIN_SHORT_ID} or more hex digits of it (as `baton list` shows them), or its path (project/date-time-agent-id)"
            )
        };
        return Err(Error::invalid(field, problem).with("value", text));
    }
    if sessions.is_none() {
        *sessions = Some(view.all_sessions()?);
    }
    let known = sessions.as_deref().unwrap_or_default();
    let matches: Vec<&Session> = known
        .iter()
        .filter(|s| {
            if is_path {
                s.path == text
            } else {
                let simple = s.session_id.0.simple().to_string();
                simple.starts_with(&hex) || simple.ends_with(&hex)
            }
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(Some(one.session_id.to_string())),
        [] => Err(Error::new(
            ErrorCode::SessionNotFound,
            format!("no work session matches `{text}`; `baton list --all` shows the known ones"),
        )
        .with("field", field)
        .with("reference", text)),
        several => {
            let candidates: Vec<serde_json::Value> = several
                .iter()
                .map(|s| {
                    json!({
                        "session_id": s.session_id.to_string(),
                        "path": s.path,
                        "agent": s.agent,
                        "status": s.status,
                        "started_at": s.started_at,
                    })
                })
                .collect();
            Err(Error::new(
                ErrorCode::AmbiguousSession,
                format!(
                    "{} work sessions match `{text}`; give more of the id: {}",
                    several.len(),
                    several
                        .iter()
                        .map(|s| s.session_id.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .with("field", field)
            .with("reference", text)
            .with("candidates", candidates))
        }
    }
}
