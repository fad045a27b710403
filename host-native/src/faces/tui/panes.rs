//! The panes of the terminal UI that are not lists: the Cost tab's charts (a sparkline of the
//! days, bars by the grouping chosen, the budgets), the reader of a conversation, a work
//! session's details, and the help over everything.

use super::app::App;
use baton_core::analyzer::charts::scale::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

pub(crate) fn cost(frame: &mut Frame, app: &App, area: Rect) {
    use baton_core::transcripts::usage::GroupBy;
    use ratatui::widgets::{Bar, BarChart, BarGroup};
    let p = app.palette;
    let budget_rows = app.budgets.len().min(6) as u16;
    let [head, spark, chart, budgets] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(u16::from(app.cost_days.len() > 1)),
        Constraint::Min(3),
        Constraint::Length(if budget_rows > 0 { budget_rows + 1 } else { 0 }),
    ])
    .areas(area);
    let by = match app.cost_group {
        GroupBy::Daily => "day",
        GroupBy::Model => "model",
        GroupBy::Project => "project",
        _ => "agent session",
    };
    let window = match &app.window {
        Some(w) => format!(
            "five-hour window open until {}: ${:.2}, {} tokens",
            &w.end.to_string()[11..16],
            w.cost_usd,
            thousands(w.total_tokens)
        ),
        None => "no five-hour window open".to_owned(),
    };
    let total = app.cost.as_ref().map_or(0.0, |r| r.totals.cost_usd);
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(vec![
                Span::styled(
                    format!(
                        "{} by {by}: ${total:.2}",
                        if app.cost_all_time {
                            "All time"
                        } else {
                            "Last 30 days"
                        }
                    ),
                    p.bold(),
                ),
                Span::styled("   g: by day, model, project, session", p.dim()),
            ]),
            Line::from(Span::styled(window, p.dim())),
        ]),
        head,
    );
    if app.cost_days.len() > 1 {
        // The days of the period, as many of the latest as fit, as one line of bars.
        let label_width = "2026-01-01 … 2026-01-31 ".chars().count() as u16;
        let [name, line] =
            Layout::horizontal([Constraint::Length(label_width), Constraint::Min(1)]).areas(spark);
        let fit = usize::from(line.width).max(1);
        let days = &app.cost_days[app.cost_days.len().saturating_sub(fit)..];
        let label = format!(
            "{} … {} ",
            days.first().map_or("", |d| d.0.as_str()),
            days.last().map_or("", |d| d.0.as_str())
        );
        frame.render_widget(Paragraph::new(Span::styled(label, p.dim())), name);
        let values: Vec<u64> = days
            .iter()
            .map(|(_, c)| (c * 100.0).round().max(0.0) as u64)
            .collect();
        // Scaled to the dearest day of the whole period, not only of the days shown.
        let most = app
            .cost_days
            .iter()
            .map(|(_, c)| (c * 100.0).round().max(0.0) as u64)
            .max()
            .unwrap_or(0);
        frame.render_widget(
            ratatui::widgets::Sparkline::default()
                .data(&values)
                .max(most)
                .style(p.fg(Color::Cyan)),
            line,
        );
    }
    let Some(report) = app.cost.as_ref().filter(|r| !r.rows.is_empty()) else {
        frame.render_widget(
            Paragraph::new("No usage in the index yet (`baton mirror` keeps every agent's).")
                .style(p.dim()),
            chart,
        );
        return;
    };
    if app.cost_group == GroupBy::Daily {
        // One bar a day, as many of the latest as fit.
        let fit = usize::from(chart.width / 6).max(1);
        let rows = &report.rows[report.rows.len().saturating_sub(fit)..];
        let bars: Vec<Bar> = rows
            .iter()
            .map(|r| {
                Bar::default()
                    .value((r.cost_usd * 100.0).round().max(0.0) as u64)
                    .label(Line::from(r.key.get(5..).unwrap_or(&r.key).to_owned()))
                    .text_value(if r.cost_usd >= 100.0 {
                        format!("{:.0}", r.cost_usd)
                    } else {
                        format!("{:.1}", r.cost_usd)
                    })
            })
            .collect();
        frame.render_widget(
            BarChart::default()
                .block(Block::default().borders(Borders::TOP).title(" $ a day "))
                .data(BarGroup::default().bars(&bars))
                .bar_width(5)
                .bar_gap(1)
                .bar_style(p.fg(Color::Cyan))
                .value_style(p.bold()),
            chart,
        );
    } else {
        // A bar per row, longest first, scaled to the largest.
        let mut rows: Vec<_> = report.rows.iter().collect();
        rows.sort_by(|a, b| b.cost_usd.total_cmp(&a.cost_usd));
        let most = rows.first().map_or(0.0, |r| r.cost_usd).max(0.01);
        let key_width = usize::from(chart.width / 3).clamp(10, 40);
        let bar_width = usize::from(chart.width)
            .saturating_sub(key_width + 24)
            .max(4);
        let lines: Vec<Line> = rows
            .iter()
            .take(usize::from(chart.height))
            .map(|r| {
                let key: String = r.key.chars().take(key_width).collect();
                let filled = ((r.cost_usd / most) * bar_width as f64).round() as usize;
                Line::from(vec![
                    Span::raw(format!("{key:<key_width$} ")),
                    Span::styled("█".repeat(filled.max(1)), p.fg(Color::Cyan)),
                    Span::raw(format!(
                        " ${:.2} · {} tok",
                        r.cost_usd,
                        baton_core::analyzer::charts::scale::compact(r.total_tokens)
                    )),
                ])
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines).block(Block::default().borders(Borders::TOP)),
            chart,
        );
    }
    if budget_rows > 0 {
        let lines: Vec<Line> = app
            .budgets
            .iter()
            .take(6)
            .map(|b| {
                let colour = match b.used_percent {
                    u if u >= 100.0 => Color::Red,
                    u if u >= b.warn_percent => Color::Yellow,
                    _ => Color::Green,
                };
                let filled = ((b.used_percent.clamp(0.0, 100.0) / 100.0) * 20.0).round() as usize;
                Line::from(vec![
                    Span::raw(format!("{:<22} ", b.key)),
                    Span::styled("█".repeat(filled), p.fg(colour)),
                    Span::styled("░".repeat(20 - filled), p.dim()),
                    Span::raw(format!(
                        " {:.0}% · {:.2} of {:.2}",
                        b.used_percent, b.spent, b.limit
                    )),
                ])
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines).block(Block::default().borders(Borders::TOP).title(" budgets ")),
            budgets,
        );
    }
}

pub(crate) fn reader(frame: &mut Frame, app: &App, reading: &super::app::Reading, area: Rect) {
    let p = app.palette;
    let [head, text] = Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(area);
    let view = &reading.view;
    let resume = match &reading.resume {
        Some(r) => match (&r.command, &r.why_not) {
            (Some(c), _) => format!(" · r: {c}"),
            (None, Some(_)) => " · cannot be resumed as it is".to_owned(),
            _ => String::new(),
        },
        None => String::new(),
    };
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::styled(view.head.title.clone(), p.bold())),
            Line::from(Span::styled(
                format!(
                    "{} message(s) · line {} of {}{resume}",
                    view.messages.len(),
                    reading.top + 1,
                    reading.lines.lines.len()
                ),
                p.dim(),
            )),
        ]),
        head,
    );
    let height = usize::from(text.height);
    let end = (reading.top + height).min(reading.lines.lines.len());
    let visible = reading.lines.lines[reading.top.min(end)..end].to_vec();
    frame.render_widget(Paragraph::new(visible), text);
}

/// A work session's details, as `baton show` tells them.
pub(crate) fn detail(frame: &mut Frame, app: &App, detail: &super::app::Detail, area: Rect) {
    let p = app.palette;
    let [head, text] = Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(area);
    let resume = match &detail.resume {
        Some(r) => match (&r.command, &r.why_not) {
            (Some(c), _) => format!(" · r: {c}"),
            (None, Some(_)) => " · its agent session cannot be resumed as it is".to_owned(),
            _ => String::new(),
        },
        None => String::new(),
    };
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::styled(
                format!("Work session {}", detail.session_id),
                p.bold(),
            )),
            Line::from(Span::styled(
                format!(
                    "line {} of {}{resume}",
                    detail.top + 1,
                    detail.lines.lines.len()
                ),
                p.dim(),
            )),
        ]),
        head,
    );
    let height = usize::from(text.height);
    let end = (detail.top + height).min(detail.lines.lines.len());
    let visible = detail.lines.lines[detail.top.min(end)..end].to_vec();
    frame.render_widget(Paragraph::new(visible), text);
}

pub(crate) fn help(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let width = area.width.min(64);
    let height = area.height.min(23);
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let p = app.palette;
    let keys = [
        ("1 2 3 4, Tab", "Live, History, Search, Cost"),
        ("↑ ↓ j k, PgUp PgDn", "move; in the reader, scroll"),
        ("Enter", "open: conversation (at the hit), session"),
        ("/", "search: results as you type"),
        ("p / u", "pause / unpause a work session (as you)"),
        ("a, d", "live: attention items; d marks one done"),
        ("w, f", "history: sessions/conversations; filter"),
        ("n / p, t", "reader: next/previous message; unfold"),
        ("g", "cost: by day, model, project, session"),
        ("r", "leave and print the resume command"),
        ("R", "restore a deleted conversation's files"),
        ("s", "share as one HTML file, redacted"),
        ("y", "copy the id (terminal clipboard)"),
        ("F5, Ctrl-L", "read the tab again"),
        ("Esc", "back; clear the query; leave search"),
        ("q, Ctrl-C", "leave (q in the reader: back)"),
        ("mouse", "wheel scrolls; click selects, again opens"),
    ];
    let mut lines = vec![Line::from(Span::styled("Keys", p.bold())), Line::raw("")];
    for (key, does) in keys {
        lines.push(Line::from(vec![
            Span::styled(format!("{key:<20}"), p.fg(Color::Cyan)),
            Span::raw(does),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(
        "any key closes this · Shift+drag selects text",
        p.dim(),
    )));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::default().borders(Borders::ALL).title(" help "))
            .style(Style::default())
            .wrap(Wrap { trim: true }),
        popup,
    );
}
