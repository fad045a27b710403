//! What a person reads on the command line for the session commands: the session list and the
//! attention items as tables, one session as a block, the timeline and health as tables, a
//! brief's details, and refusals that list their candidates with the command to retry. Every
//! other answer is the core's `[ok]` line.

use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table};
use baton_core::commands::render;
use baton_core::commands::{Response, SessionList};
use baton_core::ledger::activity::Verdict;
use baton_core::ledger::session::{Session, Status};
use baton_core::lifecycle::timeline::Tone;
use baton_core::time::{Timestamp, Zone, human_duration};
use baton_core::{Error, ErrorCode, SessionId};

/// Where and when a page of output is read: its style, the time now, the reader's zone.
pub(crate) struct Reader<'a> {
    pub(crate) style: Style,
    pub(crate) now: Timestamp,
    pub(crate) zone: &'a dyn Zone,
}

impl<'a> Reader<'a> {
    /// A reader of stdout, now, in `zone`.
    pub(crate) fn for_stdout(
        color: crate::faces::table::ColorChoice,
        zone: &'a dyn Zone,
    ) -> Result<Reader<'a>, Error> {
        Ok(Reader {
            style: Style::for_stdout(color),
            now: crate::os::system::now()?,
            zone,
        })
    }

    /// `at` on the reader's clock, to the minute: `2026-07-18 20:00`.
    pub(crate) fn clock(&self, at: Timestamp) -> String {
        let shifted = at.millis() + i64::from(self.zone.offset_seconds(at)) * 1000;
        chrono::DateTime::from_timestamp_millis(shifted)
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default()
    }

    /// How long ago `at` was: `5m ago`, `2d 3h ago`, `just now`.
    pub(crate) fn ago(&self, at: Timestamp) -> String {
        let seconds = at.whole_seconds_until(self.now);
        if seconds < 60 {
            "just now".to_owned()
        } else {
            format!("{} ago", human_duration(seconds - seconds % 60))
        }
    }
}

/// The human text of an answer.
pub(crate) fn human(response: &Response, reader: &Reader) -> String {
    match response {
        Response::List(list) => session_list(list, reader, None, None),
        Response::Show(show) => session_block(&show.session, reader),
        Response::Attention(attention) => {
            let mut text = render::ok_line(response);
            let mut table = Table::new(vec![
                Column::number("#"),
                Column::text("LEVEL"),
                Column::number("URGENCY"),
                Column::text("SESSION"),
                Column::text("RAISED").droppable(0),
                Column::text("WHAT").cut(Fit::End).comfortable(24),
            ]);
            for item in &attention.items {
                table.row(vec![
                    item.number.to_string().into(),
                    Cell::painted(item.level.to_string(), Some(Paint::Amber)),
                    item.urgency.to_string().into(),
                    item.session_id.short().into(),
                    reader.ago(item.at).into(),
                    item.text.clone().into(),
                ]);
            }
            table.append_to(&mut text, &reader.style);
            text
        }
        Response::Timeline(timeline) => {
            let mut text = render::ok_line(response);
            let mut table = Table::new(vec![
                Column::text("TIME"),
                Column::text("EVENT"),
                Column::text("BY"),
                Column::text("WHAT").cut(Fit::End),
            ]);
            for event in &timeline.events {
                let paint = tone_paint(event.tone);
                table.row(vec![
                    reader.clock(event.at).into(),
                    Cell::painted(event.kind.clone(), paint),
                    actor_words(event.actor, &event.actor_name).into(),
                    Cell::painted(event.summary.clone(), paint),
                ]);
            }
            text.push('\n');
            text.push_str(&table.render(&reader.style));
            text
        }
        Response::Health(health) => {
            let mut text = render::ok_line(response);
            let mut table = Table::new(vec![
                Column::text("DIMENSION"),
                Column::number("SCORE"),
                Column::text("WHY").cut(Fit::End),
            ]);
            for d in &health.report.dimensions {
                let paint = d.score.map(score_paint);
                table.row(vec![
                    d.name.clone().into(),
                    Cell::painted(d.score.map_or("—".to_owned(), |s| s.to_string()), paint),
                    d.reason.clone().into(),
                ]);
            }
            text.push('\n');
            text.push_str(&table.render(&reader.style));
            for reason in &health.report.rebrief_reasons {
                text.push('\n');
                text.push_str(
                    &reader
                        .style
                        .paint(&format!("re-brief: {reason}"), Paint::Amber),
                );
            }
            text
        }
        Response::Lifecycle(answer) => {
            let mut text = render::ok_line(response);
            if let Some(brief) = &answer.brief {
                if let Some(pause) = &brief.pause {
                    text.push('\n');
                    text.push_str(&reader.style.paint(
                        &format!(
                            "  PAUSED: {} — next action: blocked",
                            pause["reason"].as_str().unwrap_or("")
                        ),
                        Paint::Amber,
                    ));
                }
                if let Some(mission) = &brief.mission {
                    text.push_str(&format!(
                        "\n  mission {} contract v{}",
                        mission["reference"].as_str().unwrap_or(""),
                        mission["contract_version"]
                    ));
                    for clause in mission["clauses"].as_array().into_iter().flatten() {
                        text.push_str(&format!("\n    - {}", clause.as_str().unwrap_or("")));
                    }
                }
                for d in &brief.active_decisions {
                    text.push_str(&format!("\n  decision #{}: {}", d.number, d.text));
                }
                for a in &brief.open_ambiguities {
                    text.push_str(&format!("\n  open ambiguity #{}: {}", a.number, a.text));
                }
            }
            text
        }
        _ => render::ok_line(response),
    }
}

/// Who did it: `agent claude`, `human alice`, `baton`.
fn actor_words(kind: baton_core::ledger::event::ActorKind, name: &str) -> String {
    let kind = crate::wire_name(&kind);
    if kind == name {
        kind
    } else {
        format!("{kind} {name}")
    }
}

fn tone_paint(tone: Tone) -> Option<Paint> {
    match tone {
        Tone::Plain => None,
        Tone::Amber => Some(Paint::Amber),
        Tone::Red => Some(Paint::Red),
        Tone::Green => Some(Paint::Green),
    }
}

fn score_paint(score: u32) -> Paint {
    match score {
        85.. => Paint::Green,
        60.. => Paint::Amber,
        _ => Paint::Red,
    }
}

fn status_paint(status: Status) -> Option<Paint> {
    match status {
        Status::Working | Status::AwaitingReview | Status::Complete => Some(Paint::Green),
        Status::Blocked | Status::Paused => Some(Paint::Amber),
        Status::Failed => Some(Paint::Red),
        Status::Starting => None,
    }
}

/// The shortest id suffixes, 8 hex digits or more, that tell these sessions apart.
pub(crate) fn short_ids(ids: &[SessionId]) -> Vec<String> {
    let hex: Vec<String> = ids.iter().map(|id| id.0.simple().to_string()).collect();
    let length = (8..32)
        .find(|&n| {
            let mut seen = std::collections::HashSet::new();
            hex.iter().all(|h| seen.insert(&h[32 - n..]))
        })
        .unwrap_or(32);
    hex.iter().map(|h| h[32 - length..].to_owned()).collect()
}

/// The session list as a table; with `costs`, a COST and a TOKENS column.
pub(crate) fn session_list(
    list: &SessionList,
    reader: &Reader,
    costs: Option<&crate::ops::work_cost::WorkCosts>,
    machines: Option<&std::collections::BTreeMap<SessionId, String>>,
) -> String {
    let live = list.sessions.iter().filter(|s| s.is_live()).count();
    let noun = |n: usize| if n == 1 { "session" } else { "sessions" };
    if list.sessions.is_empty() {
        return "[ok] No work sessions match. Start one with `baton start --project NAME --agent NAME`; `baton list --all` includes ended ones.".to_owned();
    }
    let mut text = if live == list.total {
        format!("[ok] {} live work {}", list.total, noun(list.total))
    } else {
        format!(
            "[ok] {} work {} ({live} live)",
            list.total,
            noun(list.total)
        )
    };
    let ids: Vec<SessionId> = list.sessions.iter().map(|s| s.session_id).collect();
    let mut columns = vec![Column::text("ID")];
    if machines.is_some() {
        columns.push(Column::text("MACHINE").cut(Fit::End));
    }
    columns.extend([
        Column::text("AGENT").cut(Fit::End),
        Column::text("PROJECT").cut(Fit::End),
        Column::text("STATUS"),
    ]);
    if machines.is_some() {
        columns.push(Column::text("HEALTH"));
    }
    columns.extend([
        Column::text("PROCESS").droppable(2),
        Column::text("STARTED").droppable(0),
        Column::text("LAST EVENT").droppable(1),
    ]);
    if costs.is_some() {
        columns.push(Column::number("TOKENS").droppable(3));
        columns.push(Column::number("COST USD"));
    }
    columns.push(Column::text("GOAL").cut(Fit::End).comfortable(20));
    let mut table = Table::new(columns);
    for (session, id) in list.sessions.iter().zip(short_ids(&ids)) {
        let mut row = vec![Cell::painted(id, Some(Paint::Dim))];
        if let Some(machines) = machines {
            row.push(
                machines
                    .get(&session.session_id)
                    .cloned()
                    .unwrap_or_default()
                    .into(),
            );
        }
        row.extend([
            session.agent.clone().into(),
            session.project.clone().into(),
            Cell::painted(session.status.as_str(), status_paint(session.status)),
        ]);
        if machines.is_some() {
            row.push(health_cell(session));
        }
        row.extend([
            liveness_cell(session),
            reader.clock(session.started_at).into(),
            reader.ago(session.last_event_at).into(),
        ]);
        if let Some(costs) = costs {
            let figures = costs.of(session.session_id);
            row.push(
                figures
                    .map_or_else(String::new, |f| {
                        baton_core::analyzer::charts::scale::thousands(f.total_tokens)
                    })
                    .into(),
            );
            row.push(
                figures
                    .and_then(|f| f.cost_usd)
                    .map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"))
                    .into(),
            );
        }
        row.push(session.goal.clone().unwrap_or_default().into());
        table.row(row);
    }
    text.push('\n');
    text.push_str(&table.render(&reader.style));
    text
}

/// A session's last health score and verdict, coloured by the verdict; blank when none.
fn health_cell(session: &Session) -> Cell {
    let Some(health) = &session.health else {
        return "".into();
    };
    let verdict = format!("{:?}", health.verdict).to_lowercase();
    let text = match health.overall {
        Some(score) => format!("{score} {verdict}"),
        None => verdict,
    };
    Cell::painted(&text, Some(verdict_paint(health.verdict)))
}

fn verdict_paint(verdict: Verdict) -> Paint {
    match verdict {
        Verdict::Healthy => Paint::Green,
        Verdict::Degraded => Paint::Amber,
        Verdict::Stale => Paint::Red,
    }
}

/// A live session's liveness in the list: its state, `unknown` when none was recorded, and
/// nothing for an ended session.
fn liveness_cell(session: &Session) -> Cell {
    if !session.is_live() {
        return "".into();
    }
    let state = session
        .liveness
        .as_ref()
        .map_or(baton_core::ledger::liveness::Liveness::Unknown, |l| l.state);
    Cell::painted(state.as_str(), liveness_paint(state))
}

pub(crate) fn liveness_paint(state: baton_core::ledger::liveness::Liveness) -> Option<Paint> {
    use baton_core::ledger::liveness::Liveness;
    match state {
        Liveness::Live => Some(Paint::Green),
        Liveness::Idle => Some(Paint::Amber),
        Liveness::Gone => Some(Paint::Red),
        Liveness::Unknown | Liveness::Other => Some(Paint::Dim),
    }
}

fn session_block(s: &Session, reader: &Reader) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("id", s.session_id.to_string()),
        (
            "status",
            match &s.pause {
                Some(pause) => format!(
                    "{} by {} ({}){}",
                    reader.style.paint(s.status.as_str(), Paint::Amber),
                    pause.by,
                    pause.reason,
                    if pause.delivered {
                        ""
                    } else {
                        ", not yet delivered"
                    }
                ),
                None => match status_paint(s.status) {
                    Some(paint) => reader.style.paint(s.status.as_str(), paint),
                    None => s.status.as_str().to_owned(),
                },
            },
        ),
        ("project", s.project.clone()),
        (
            "agent",
            match &s.client_name {
                Some(client) => format!("{} (client {client})", s.agent),
                None => s.agent.clone(),
            },
        ),
    ];
    let mut optional = |label, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            rows.push((label, value));
        }
    };
    optional("goal", s.goal.clone());
    optional("mission", s.mission.clone());
    if s.is_live() {
        optional(
            "agent process",
            Some(match &s.liveness {
                Some(seen) => format!(
                    "{} since {}: {}",
                    match liveness_paint(seen.state) {
                        Some(paint) => reader.style.paint(seen.state.as_str(), paint),
                        None => seen.state.as_str().to_owned(),
                    },
                    reader.clock(seen.at),
                    seen.reason
                ),
                None => "unknown: no process is tied to it (a hook or the MCP server records one)"
                    .to_owned(),
            }),
        );
    }
    optional(
        "started",
        Some(format!(
            "{} ({})",
            reader.clock(s.started_at),
            reader.ago(s.started_at)
        )),
    );
    optional(
        "ended",
        s.ended_at.map(|at| {
            format!(
                "{} after {}",
                reader.clock(at),
                human_duration(s.duration_seconds.unwrap_or(0))
            )
        }),
    );
    optional(
        "last event",
        Some(format!(
            "{} ({} events)",
            reader.ago(s.last_event_at),
            s.event_count
        )),
    );
    optional(
        "resumed",
        (!s.resumes.is_empty()).then(|| format!("{} time(s)", s.resumes.len())),
    );
    optional("summary", s.summary.clone());
    optional(
        "progress",
        s.progress.map(|p| format!("{p}% (self-reported)")),
    );
    optional(
        "health",
        s.health.as_ref().map(|h| {
            let verdict = format!("{:?}", h.verdict).to_lowercase();
            let paint = verdict_paint(h.verdict);
            let overall = h.overall.map_or("—".to_owned(), |o| o.to_string());
            format!(
                "{} {}{}",
                overall,
                reader.style.paint(&verdict, paint),
                if h.recommend_rebrief {
                    "; re-brief recommended"
                } else {
                    ""
                }
            )
        }),
    );
    optional(
        "plan",
        (!s.plan.is_empty()).then(|| {
            s.plan
                .iter()
                .enumerate()
                .map(|(i, step)| {
                    format!(
                        "{}. {} [{}]",
                        i + 1,
                        step.title,
                        crate::wire_name(&step.state)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }),
    );
    optional(
        "changed",
        (!s.changed_files.is_empty()).then(|| s.changed_files.join(", ")),
    );
    optional(
        "depends on",
        (!s.dependencies.is_empty()).then(|| s.dependencies.join(", ")),
    );
    optional(
        "collisions",
        (!s.open_collisions.is_empty()).then(|| {
            s.open_collisions
                .iter()
                .map(|c| {
                    format!(
                        "{} ({}, by {})",
                        c.file,
                        crate::wire_name(&c.severity),
                        c.by_session.short()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        }),
    );
    optional(
        "decisions",
        (!s.decisions.is_empty()).then(|| {
            s.decisions
                .iter()
                .map(|d| {
                    format!(
                        "{}{}",
                        d.text,
                        if d.resolved { " (settled)" } else { " (open)" }
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }),
    );
    optional(
        "AI runs",
        (s.runs.recorded + s.runs.refused > 0).then(|| {
            format!(
                "{} recorded ({} in, {} out), {} refused",
                s.runs.recorded, s.runs.input_tokens, s.runs.output_tokens, s.runs.refused
            )
        }),
    );
    optional(
        "evidence",
        (!s.evidence.is_empty()).then(|| s.evidence.join("; ")),
    );
    optional("pull request", s.pull_request.clone());
    optional("parent", s.parent_session_id.map(|p| p.to_string()));
    optional("start commit", s.start_commit.clone());
    let width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0);
    let mut text = format!("[ok] Work session {}", s.path);
    for (label, value) in rows {
        let value = crate::os::terminal::terminal_safe(&value.replace('\n', " ")).into_owned();
        text.push_str(&format!("\n  {label:<width$}  {value}"));
    }
    text
}

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
    fn with_id(&self, id: &str) -> String {
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
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_ids_grow_until_they_tell_sessions_apart() {
        let a = SessionId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-00aa33a39086").unwrap());
        let b = SessionId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-00bb33a39086").unwrap());
        let c = SessionId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-00bb11111111").unwrap());
        assert_eq!(short_ids(&[a, c]), ["33a39086", "11111111"]);
        assert_eq!(short_ids(&[a, b]), ["a33a39086", "b33a39086"]);
    }

    #[test]
    fn retry_hints_quote_what_a_shell_would_split() {
        let hint = RetryHint {
            command: vec!["baton".into(), "end".into()],
            rest: vec!["--summary".into(), "it's done".into()],
        };
        assert_eq!(
            hint.with_id("33a39086"),
            r"baton end 33a39086 --summary 'it'\''s done'"
        );
    }
}
