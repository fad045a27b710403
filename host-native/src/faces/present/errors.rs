//! An error as a person reads it: the `[error]` line, the candidates a refusal lists, and the
//! command to retry with.

use super::*;

/// The `[error]` text a person reads: the core's line, and for a refusal with candidates, the
/// candidates as a table and the command to retry with.
pub(crate) fn error_text(error: &Error, reader: &Reader, retry: Option<&RetryHint>) -> String {
    if error.code == ErrorCode::AmbiguousRecord
        && let Some(candidates) = error.details.get("candidates").and_then(|c| c.as_array())
    {
        let mut text = format!("[error] {}: {}", error.code, error.message);
        for candidate in candidates.iter().filter_map(|c| c.as_str()) {
            text.push_str(&format!("\n  {candidate}"));
        }
        return text;
    }
    let listed = match error.code {
        ErrorCode::AmbiguousSession => error.details.get("candidates"),
        ErrorCode::NoActiveSession => error.details.get("other_live_sessions"),
        _ => None,
    };
    let Some(sessions) = listed.and_then(|c| c.as_array()).filter(|c| !c.is_empty()) else {
        return render::error_line(error);
    };
    let mut text = format!("[error] {}: {}", error.code, error.message);
    if error.code == ErrorCode::NoActiveSession {
        text.push_str("\nLive sessions the filters left out:");
    }
    let ids: Vec<SessionId> = sessions
        .iter()
        .filter_map(|s| s["session_id"].as_str())
        .filter_map(|id| SessionId::parse_v7("session_id", id).ok())
        .collect();
    let shorts = short_ids(&ids);
    let mut table = Table::new(vec![
        Column::text("ID"),
        Column::text("AGENT"),
        Column::text("CLIENT"),
        Column::text("STARTED").droppable(1),
        Column::text("PATH").cut(Fit::Start).droppable(0),
    ]);
    for (session, short) in sessions.iter().zip(&shorts) {
        let field = |name: &str| session[name].as_str().unwrap_or("-").to_owned();
        let started = Timestamp::parse(&field("started_at"))
            .map(|at| reader.clock(at))
            .unwrap_or_else(|_| field("started_at"));
        table.row(vec![
            short.clone().into(),
            field("agent").into(),
            field("client_name").into(),
            started.into(),
            field("path").into(),
        ]);
    }
    text.push('\n');
    text.push_str(&table.render(&reader.style));
    if let Some(first) = shorts.first() {
        match retry {
            Some(retry) => text.push_str(&format!(
                "\nRetry with one of them: {}",
                retry.with_id(first)
            )),
            None => text.push_str(&format!(
                "\nName one by its id (first column), e.g. {first}"
            )),
        }
    }
    text
}

/// The command a person ran, to show again with a session id in it.
#[derive(Debug, Clone)]
pub(crate) struct RetryHint {
    /// The words before the id: `baton end`.
    pub(crate) command: Vec<String>,
    /// The words after it: `--project demo`.
    pub(crate) rest: Vec<String>,
}

impl RetryHint {
    pub(super) fn with_id(&self, id: &str) -> String {
        self.command
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(id))
            .chain(self.rest.iter().map(String::as_str))
            .map(shell_word)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A word as a POSIX shell reads it back: quoted when it holds anything but safe characters.
pub(super) fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
