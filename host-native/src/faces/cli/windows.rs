//! `baton usage blocks` on the command line: the flags made into the core's window options,
//! and the windows as a person reads them (the open one first, its burn rate, projection and
//! limit under the table, and who used each window when asked).

use crate::faces::cli::args::BlocksArgs;
use crate::faces::present::{agent_line, local};
use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table};
use baton_core::analyzer::charts::scale::thousands;
use baton_core::time::{Zone, human_duration};
use baton_core::transcripts::usage::windows::{Keep, ShareOf, UsageWindow, WindowsReport};

/// The windows the flags ask for.
pub(crate) fn ask(args: &BlocksArgs) -> crate::ops::limits::WindowAsk {
    use crate::ops::limits::{Only, WindowAsk};
    WindowAsk {
        week: args.week,
        only: if args.active {
            Some(Only::Active)
        } else if args.recent {
            Some(Only::Recent)
        } else {
            None
        },
        token_limit: args.token_limit,
        by_session: args.by_session,
    }
}

/// A window's span: `2026-12-02 11:00 – 16:00`, the end's day given when it is another.
fn span(w: &UsageWindow, zone: &dyn Zone) -> String {
    let start = local(w.start, zone, true);
    let end = local(w.end, zone, true);
    let end = if start.get(..10) == end.get(..10) {
        local(w.end, zone, false)
    } else {
        end.get(5..).unwrap_or(&end).to_owned()
    };
    format!("{start} – {end}")
}

fn minutes(m: u64) -> String {
    human_duration(i64::try_from(m).unwrap_or(i64::MAX).saturating_mul(60))
}

/// The windows report as a person reads it.
pub(crate) fn table(
    windows: &WindowsReport,
    style: &Style,
    zone: &crate::os::zone::HostZone,
    notes: &str,
) -> String {
    let length = if windows.length_minutes == 7 * 24 * 60 {
        "7-day"
    } else {
        "5-hour"
    };
    let count = windows.windows.len();
    if count == 0 {
        let none = match windows.kept {
            Keep::Active => "no window is open now",
            Keep::EndingAfter { .. } => "no window in the last three days",
            Keep::All => "no window: no response counted",
        };
        let mut out = format!("[ok] Usage by {length} window: {none}");
        for limits in &windows.agent_limits {
            out.push_str(&agent_line(limits, zone));
        }
        out.push_str(&times(notes));
        return out;
    }
    let mut out = format!(
        "[ok] Usage by {length} window: {count} window{}{}",
        if count == 1 { "" } else { "s" },
        if windows.active().is_some() {
            ", the open one first"
        } else {
            ", the latest first"
        }
    );
    let limited = windows.token_limit.is_some();
    let mut table = Table::new(vec![
        Column::text("WINDOW").cut(Fit::End),
        Column::text("STATUS"),
        Column::number("RESPONSES").droppable(2),
        Column::number("TOTAL"),
        Column::number("COST USD"),
        Column::number(if limited { "OF LIMIT" } else { "TOKENS/H" }).droppable(1),
        Column::text("MODELS").cut(Fit::End).droppable(0),
    ]);
    let short = baton_core::transcripts::usage::short_model_name;
    for w in &windows.windows {
        let status = if w.active {
            Cell::painted(
                format!(
                    "open, {} left",
                    minutes(w.projection.map_or(0, |p| p.minutes_left))
                ),
                Some(Paint::Green),
            )
        } else {
            Cell::painted("ended", Some(Paint::Dim))
        };
        let measure = match w.limit {
            Some(limit) => Cell::painted(
                format!("{:.1} %", limit.used_percent),
                (limit.used_percent >= 100.0)
                    .then_some(Paint::Red)
                    .or((limit.used_percent >= 80.0).then_some(Paint::Amber)),
            ),
            None => thousands(w.burn.tokens_per_hour).into(),
        };
        let models: Vec<String> = w.models.iter().map(|m| short(m)).collect();
        table.row(vec![
            span(w, zone).into(),
            status,
            thousands(w.responses).into(),
            thousands(w.total_tokens).into(),
            format!("{:.2}", w.cost_usd).into(),
            measure,
            models.join(", ").into(),
        ]);
        for share in &w.sessions {
            let who = match share.of {
                ShareOf::WorkSession => share.key.clone(),
                ShareOf::AgentSession => {
                    format!("{} {}", crate::wire_name(&share.provider), share.key)
                }
            };
            table.row(vec![
                Cell::painted(
                    format!("  {}", crate::faces::table::shorten(&who, 50, Fit::Start)),
                    Some(Paint::Dim),
                ),
                format!("{:.1} % of it", share.share_percent).into(),
                thousands(share.responses).into(),
                thousands(share.total_tokens).into(),
                format!("{:.2}", share.cost_usd).into(),
                "".into(),
                "".into(),
            ]);
        }
        if let Some(gap) = w.gap_before_minutes {
            table.row(vec![
                Cell::painted(format!("  idle {}", minutes(gap)), Some(Paint::Dim)),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
                "".into(),
            ]);
        }
    }
    out.push('\n');
    out.push_str(&table.render(style));
    match windows.active() {
        Some(w) => out.push_str(&active_lines(w, windows, zone)),
        None => {
            if let Some(last) = windows.windows.first() {
                out.push_str(&format!(
                    "\nno window is open now: the latest closed at {}",
                    local(last.end, zone, true)
                ));
            }
        }
    }
    for limits in &windows.agent_limits {
        out.push_str(&agent_line(limits, zone));
    }
    out.push_str(&times(notes));
    out
}

/// The usage notes, times (not days) in the zone.
fn times(notes: &str) -> String {
    notes.replace("; days in ", "; times in ")
}

/// The open window in words: so far, the pace, where it ends up, and the limit.
fn active_lines(w: &UsageWindow, windows: &WindowsReport, zone: &dyn Zone) -> String {
    let mut out = format!(
        "\nopen window {}: {} tokens (${:.2}) so far; {} tokens/h (${:.2}/h)",
        span(w, zone),
        thousands(w.total_tokens),
        w.cost_usd,
        thousands(w.burn.tokens_per_hour),
        w.burn.usd_per_hour,
    );
    if let Some(last) = w.burn.last_hour_tokens {
        out.push_str(&format!(", {} in the last hour", thousands(last)));
    }
    if let Some(p) = w.projection {
        out.push_str(&format!(
            "; at this pace {} tokens (${:.2}) by {}",
            thousands(p.total_tokens),
            p.cost_usd,
            local(w.end, zone, false)
        ));
    }
    match (w.limit, windows.token_limit_source.as_deref()) {
        (Some(limit), source) => {
            let whose = if source == Some("highest_past_window") {
                " (the most a past window used)"
            } else {
                ""
            };
            out.push_str(&format!(
                "\nlimit {} tokens{whose}: {:.1} % used; ",
                thousands(limit.limit_tokens),
                limit.used_percent
            ));
            out.push_str(&match (limit.reached_at, limit.runs_out_at) {
                (Some(at), _) => format!("reached at {}", local(at, zone, false)),
                (None, Some(at)) => format!("runs out at {} at this pace", local(at, zone, false)),
                (None, None) => "lasts the window at this pace".to_owned(),
            });
        }
        (None, Some(_)) => {
            out.push_str("\nno limit to measure against: no window has ended yet");
        }
        (None, None) => {}
    }
    out
}
