//! What a person reads on the command line for the session commands: the session list and the
//! attention items as tables, one session as a block, the timeline and health as tables, a
//! brief's details, refusals that list their candidates with the command to retry, and what
//! the agents last said of their plans' limits (`usage blocks` and `watch`). Every other answer
//! is the core's `[ok]` line.

use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table};
use baton_core::commands::render;
use baton_core::commands::{Response, SessionList};
use baton_core::ledger::activity::Verdict;
use baton_core::ledger::session::{Session, Status};
use baton_core::lifecycle::timeline::Tone;
use baton_core::time::{Timestamp, Zone, human_duration};
use baton_core::{Error, ErrorCode, SessionId};

mod errors;
mod sessions;

pub(crate) use errors::*;
pub(crate) use sessions::*;

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
        ago(at, self.now)
    }
}

/// How long before `now` `at` was, to the minute: `5m ago`, `2d 3h ago`, `just now`.
pub(crate) fn ago(at: Timestamp, now: Timestamp) -> String {
    let seconds = at.whole_seconds_until(now);
    if seconds < 60 {
        "just now".to_owned()
    } else {
        format!("{} ago", human_duration(seconds - seconds % 60))
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

/// `at` in `zone`, as `2026-12-02 11:00`; `date` false leaves out the day.
pub(crate) fn local(at: Timestamp, zone: &dyn Zone, date: bool) -> String {
    let shifted = at.millis() + i64::from(zone.offset_seconds(at)) * 1000;
    chrono::DateTime::from_timestamp_millis(shifted)
        .map(|t| {
            t.format(if date { "%Y-%m-%d %H:%M" } else { "%H:%M" })
                .to_string()
        })
        .unwrap_or_else(|| "-".to_owned())
}

/// What an agent last said of its limits, in words (a line of its own, starting with a line
/// break).
pub(crate) fn agent_line(
    limits: &baton_core::transcripts::limits::PlanLimits,
    zone: &dyn Zone,
) -> String {
    let parts: Vec<String> = limits
        .windows()
        .map(|w| {
            let reset = w
                .resets_at
                .map(|at| format!(", resets {}", local(at, zone, true)))
                .unwrap_or_default();
            format!("{} {:.0} % used{reset}", w.label(), w.used_percent)
        })
        .collect();
    let plan = limits
        .plan_type
        .as_deref()
        .map(|p| format!(" (plan {p})"))
        .unwrap_or_default();
    format!(
        "\n{} says{plan}, at {}: {}",
        limits.provider.entry().title,
        local(limits.observed_at, zone, true),
        parts.join(" · ")
    )
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
