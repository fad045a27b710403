//! What people read: the one-line human summaries every host prints above the JSON answer.

use crate::commands::Response;
use crate::error::Error;

/// A duration in whole seconds as `1h 30m`, `45s`, `2d 3h`.
pub fn human_duration(seconds: i64) -> String {
    let s = seconds.max(0);
    let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    let parts: Vec<String> = [(d, "d"), (h, "h"), (m, "m"), (sec, "s")]
        .into_iter()
        .skip_while(|(n, _)| *n == 0)
        .filter(|(n, _)| *n != 0)
        .take(2)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if parts.is_empty() {
        "0s".to_owned()
    } else {
        parts.join(" ")
    }
}

/// The `[ok] …` line for a response.
pub fn ok_line(response: &Response) -> String {
    match response {
        Response::Action(a) => {
            let s = &a.session;
            match a.action.as_str() {
                "started" => format!("[ok] Work session started: {} ({})", s.path, s.session_id),
                "resumed" => format!(
                    "[ok] Work session resumed: {} ({}), started {}, resume #{}",
                    s.path,
                    s.session_id,
                    s.started_at,
                    s.resumes.len()
                ),
                "ended" => format!(
                    "[ok] Work session ended: {} ({}) {} after {}",
                    s.path,
                    s.session_id,
                    s.status,
                    human_duration(s.duration_seconds.unwrap_or(0))
                ),
                other => format!("[ok] Work session {other}: {} ({})", s.path, s.session_id),
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
            a.action.replace('_', " "),
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
        Response::Attention(a) => format!("[ok] {} open attention item(s)", a.total),
        Response::Workspace(w) => format!("[ok] {}", w.action.replace('_', " ")),
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
    format!("[error] {}: {}", error.code, error.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(5400), "1h 30m");
        assert_eq!(human_duration(45), "45s");
        assert_eq!(human_duration(0), "0s");
        assert_eq!(human_duration(86_400 * 2 + 3600 * 3 + 5), "2d 3h");
        assert_eq!(human_duration(3601), "1h 1s");
    }
}
