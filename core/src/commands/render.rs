//! What people read: the one-line human summaries every host prints above the JSON answer.

use crate::commands::Response;
use crate::commands::answers::SessionActionKind;
use crate::error::Error;
use crate::time::human_duration;

/// The `[ok] …` line for a response.
pub fn ok_line(response: &Response) -> String {
    match response {
        Response::Action(a) => {
            let s = &a.session;
            match a.action {
                SessionActionKind::Started => {
                    format!("[ok] Work session started: {} ({})", s.path, s.session_id)
                }
                SessionActionKind::Resumed => format!(
                    "[ok] Work session resumed: {} ({}), started {}, resume #{}",
                    s.path,
                    s.session_id,
                    s.started_at,
                    s.resumes.len()
                ),
                SessionActionKind::Ended => format!(
                    "[ok] Work session ended: {} ({}) {} after {}",
                    s.path,
                    s.session_id,
                    s.status,
                    human_duration(s.duration_seconds.unwrap_or(0))
                ),
            }
            .to_string()
                + &a.message
                    .as_ref()
                    .map(|m| format!(" {m}"))
                    .unwrap_or_default()
        }
        Response::List(list) => {
            // One line, like every answer: the JSON on the next line has the details.
            let noun = if list.total == 1 {
                "session"
            } else {
                "sessions"
            };
            let shown: Vec<String> = list
                .sessions
                .iter()
                .take(5)
                .map(|s| {
                    format!(
                        "{} on {} ({}, {})",
                        truncate(&s.agent, 24),
                        truncate(&s.project, 24),
                        s.status,
                        s.session_id.short()
                    )
                })
                .collect();
            let mut line = format!("[ok] {} work {noun}", list.total);
            if !shown.is_empty() {
                line.push_str(": ");
                line.push_str(&shown.join(", "));
            }
            if list.total > shown.len() {
                line.push_str(&format!(", and {} more", list.total - shown.len()));
            }
            line
        }
        Response::Show(show) => {
            let s = &show.session;
            format!(
                "[ok] Work session {} ({}): {}, agent {}, started {}",
                s.path, s.session_id, s.status, s.agent, s.started_at
            )
        }
        Response::Lifecycle(a) => format!(
            "[ok] {} {}: {}. {}",
            a.action.as_str().replace('_', " "),
            a.session_id,
            a.status,
            a.message
        ),
        Response::Health(h) => format!(
            "[ok] Context health of {}: {} ({}){}",
            h.session_id,
            h.report
                .overall
                .map_or("nothing computable".to_owned(), |s| s.to_string()),
            format!("{:?}", h.report.verdict).to_lowercase(),
            if h.report.recommend_rebrief {
                "; re-brief recommended"
            } else {
                ""
            }
        ),
        Response::Timeline(t) => format!(
            "[ok] {} event(s) on the timeline of {}",
            t.events.len(),
            t.session_id
        ),
        Response::Attention(a) => match a.done {
            Some(done) => format!(
                "[ok] {done} attention item(s) marked done; {} still open",
                a.total
            ),
            None => format!("[ok] {} open attention item(s)", a.total),
        },
        Response::Workspace(w) => format!("[ok] {}", w.action.replace('_', " ")),
        Response::Liveness(l) => format!(
            "[ok] {} session(s) observed, {} change(s) recorded",
            l.sessions.len(),
            l.recorded
        ),
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}

/// The `[error] CODE: message` line.
pub fn error_line(error: &Error) -> String {
    let mut text = format!("[error] {}: {}", error.code, error.message);
    // An ambiguity shows its candidates, and a filter that left nothing shows the live
    // sessions it left out, so a person can pick one without reading JSON.
    let listed = match error.code {
        crate::error::ErrorCode::AmbiguousSession => error.details.get("candidates"),
        crate::error::ErrorCode::NoActiveSession => error.details.get("other_live_sessions"),
        _ => None,
    };
    if let Some(sessions) = listed.and_then(|c| c.as_array()) {
        if error.code == crate::error::ErrorCode::NoActiveSession {
            text.push_str("\nLive sessions the filters left out:");
        }
        for session in sessions {
            let field = |name: &str| session[name].as_str().unwrap_or("-").to_owned();
            let id = field("session_id");
            let short = id
                .get(id.len().saturating_sub(8)..)
                .unwrap_or(&id)
                .to_owned();
            text.push_str(&format!(
                "\n  {short}  {:<12} {:<14} started {}  {}",
                field("agent"),
                field("client_name"),
                field("started_at"),
                field("path")
            ));
        }
        if let Some(first) = sessions.first().and_then(|c| c["session_id"].as_str()) {
            let short = first.get(first.len().saturating_sub(8)..).unwrap_or(first);
            text.push_str(&format!(
                "\nName one by its short id (first column), e.g. {short}"
            ));
        }
    }
    text
}
