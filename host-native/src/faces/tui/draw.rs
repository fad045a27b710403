//! How the terminal UI looks: the tabs across the top, the tab's table (or the reader) in the
//! middle, the keys and the last word at the foot, and the help over everything when asked.
//! It draws what [`App`] holds and reads nothing itself.

use super::app::{App, Tab};
use baton_core::analyzer::charts::scale::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell, Clear, Paragraph, Row, Table, TableState, Tabs, Wrap,
};

/// The body's height for a screen of `height` rows (the page keys move by it).
pub(crate) fn body_height(height: u16) -> usize {
    usize::from(height.saturating_sub(4))
}

/// Draws `app` on `frame`.
pub(crate) fn draw(frame: &mut Frame, app: &App) {
    let [top, body, foot] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let p = app.palette;
    let titles: Vec<Line> = Tab::ALL
        .iter()
        .enumerate()
        .map(|(n, t)| Line::from(format!("{} {}", n + 1, t.title())))
        .collect();
    let at = Tab::ALL.iter().position(|t| *t == app.tab).unwrap_or(0);
    frame.render_widget(
        Tabs::new(titles)
            .select(at)
            .highlight_style(p.selected())
            .divider("│"),
        top,
    );
    if let Some(reading) = &app.reading {
        reader(frame, app, reading, body);
    } else {
        match app.tab {
            Tab::Live => live(frame, app, body),
            Tab::History => history(frame, app, body),
            Tab::Search => search(frame, app, body),
            Tab::Cost => cost(frame, app, body),
        }
    }
    let keys = if app.reading.is_some() {
        "j/k scroll · n/p message · t unfold · r resume · s share · y copy id · Esc back · ?"
    } else {
        match app.tab {
            Tab::Live => "↑/↓ select · p pause · u unpause · Tab next · ? help · q quit",
            Tab::History => {
                "↑/↓ select · Enter read · s share · y copy id · Tab next · ? help · q quit"
            }
            Tab::Search => "type to search · ↑/↓ select · Enter read at the hit · Esc clear, back",
            Tab::Cost => "g group by day, model, project, session · Tab next · ? help · q quit",
        }
    };
    let foot_line = if app.status.is_empty() {
        Line::from(Span::styled(keys, p.dim()))
    } else {
        Line::from(vec![
            Span::styled(app.status.clone(), p.fg(Color::Yellow)),
            Span::styled(format!("  ·  {keys}"), p.dim()),
        ])
    };
    frame.render_widget(Paragraph::new(foot_line), foot);
    if app.help {
        help(frame, app);
    }
}

fn table_state(selected: usize, rows: usize) -> TableState {
    TableState::default().with_selected((rows > 0).then_some(selected))
}

fn live(frame: &mut Frame, app: &App, area: Rect) {
    // A figure not known yet while the prices are read, else none.
    let unknown = if app.pricing { "…" } else { "—" };
    let p = app.palette;
    let wide = area.width >= 120;
    let attention_rows = app.attention.len().min(6) as u16;
    let [table_area, attention_area] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(if attention_rows > 0 {
            attention_rows + 2
        } else {
            0
        }),
    ])
    .areas(area);
    let mut header = vec!["ID", "AGENT", "STATUS", "PROCESS", "COST", "5H"];
    if wide {
        header.extend(["HEALTH", "PROJECT", "LAST"]);
    }
    header.push("GOAL");
    let rows: Vec<Row> = app
        .live
        .iter()
        .map(|r| {
            let mut cells = vec![
                Cell::from(r.session.session_id.short()),
                Cell::from(r.session.agent.clone()),
                Cell::from(r.session.status.as_str()),
                Cell::from(Span::styled(
                    r.liveness.as_str(),
                    p.fg(match r.liveness.as_str() {
                        "live" => Color::Green,
                        "gone" => Color::Red,
                        "idle" => Color::Yellow,
                        _ => Color::Reset,
                    }),
                )),
                Cell::from(
                    r.cost_usd
                        .map_or_else(|| unknown.to_owned(), |c| format!("${c:.2}")),
                ),
                Cell::from(
                    r.window_share
                        .map_or_else(|| unknown.to_owned(), |s| format!("{s:.0}%")),
                ),
            ];
            if wide {
                cells.push(Cell::from(
                    r.health.map_or_else(|| "—".to_owned(), |h| h.to_string()),
                ));
                cells.push(Cell::from(r.session.project.clone()));
                cells.push(Cell::from(crate::faces::present::ago(
                    r.last_activity,
                    app.now,
                )));
            }
            cells.push(Cell::from(r.session.goal.clone().unwrap_or_default()));
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(8),
        Constraint::Length(10),
        Constraint::Length(11),
        Constraint::Length(7),
        Constraint::Length(8),
        Constraint::Length(4),
    ];
    if wide {
        widths.extend([
            Constraint::Length(6),
            Constraint::Length(14),
            Constraint::Length(9),
        ]);
    }
    widths.push(Constraint::Min(10));
    let title = match &app.window {
        Some(w) => format!(
            " {} live session(s) · 5-hour window: ${:.2}, {} tokens ",
            app.live.len(),
            w.cost_usd,
            thousands(w.total_tokens)
        ),
        None => format!(" {} live session(s) ", app.live.len()),
    };
    if app.live.is_empty() {
        frame.render_widget(
            Paragraph::new("No live work sessions. This view updates by itself when one starts.")
                .block(Block::default().borders(Borders::TOP).title(title))
                .wrap(Wrap { trim: true }),
            table_area,
        );
    } else {
        let table = Table::new(rows, widths)
            .header(Row::new(header).style(p.bold()))
            .row_highlight_style(p.selected())
            .block(Block::default().borders(Borders::TOP).title(title));
        frame.render_stateful_widget(
            table,
            table_area,
            &mut table_state(app.selected[0], app.live.len()),
        );
    }
    if attention_rows > 0 {
        let lines: Vec<Line> = app
            .attention
            .iter()
            .take(6)
            .map(|a| {
                Line::from(vec![
                    Span::styled(format!("#{} ", a.number), p.fg(Color::Yellow)),
                    Span::styled(format!("{} ", a.session_id.short()), p.dim()),
                    Span::raw(a.text.clone()),
                ])
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines).block(
                Block::default()
                    .borders(Borders::TOP)
                    .title(format!(" attention: {} open ", app.attention.len())),
            ),
            attention_area,
        );
    }
}

fn day(millis: Option<i64>) -> String {
    millis
        .map(|m| {
            let text = baton_core::Timestamp::from_millis(m).to_string();
            format!("{} {}", &text[..10], &text[11..16])
        })
        .unwrap_or_default()
}

fn history(frame: &mut Frame, app: &App, area: Rect) {
    let p = app.palette;
    let wide = area.width >= 120;
    let rows: Vec<Row> = app
        .history
        .iter()
        .map(|c| {
            let mut cells = vec![
                Cell::from(day(c.updated_at)),
                Cell::from(c.provider.clone()),
                Cell::from(thousands(c.messages.max(0) as u64)),
            ];
            if wide {
                cells.push(Cell::from(c.project.clone().unwrap_or_default()));
            }
            cells.push(Cell::from(
                c.title.clone().unwrap_or_else(|| "(untitled)".to_owned()),
            ));
            Row::new(cells)
        })
        .collect();
    let mut header = vec!["UPDATED", "AGENT", "MSGS"];
    let mut widths = vec![
        Constraint::Length(16),
        Constraint::Length(12),
        Constraint::Length(6),
    ];
    if wide {
        header.push("PROJECT");
        widths.push(Constraint::Length(30));
    }
    header.push("TITLE");
    widths.push(Constraint::Min(10));
    let title = format!(
        " {} of {} kept conversation(s), newest first ",
        app.history.len(),
        thousands(app.history_total.max(0) as u64)
    );
    if app.history.is_empty() {
        frame.render_widget(
            Paragraph::new(
                "No kept conversations yet: `baton mirror` keeps every agent's transcripts.",
            )
            .block(Block::default().borders(Borders::TOP).title(title))
            .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(p.bold()))
        .row_highlight_style(p.selected())
        .block(Block::default().borders(Borders::TOP).title(title));
    frame.render_stateful_widget(
        table,
        area,
        &mut table_state(app.selected[1], app.history.len()),
    );
}

fn search(frame: &mut Frame, app: &App, area: Rect) {
    let p = app.palette;
    let [input, results] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(area);
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("Search: ", p.bold()),
            Span::raw(app.query.clone()),
            Span::styled("█", p.dim()),
        ]))
        .block(Block::default().borders(Borders::BOTTOM)),
        input,
    );
    let Some(page) = &app.hits else {
        frame.render_widget(
            Paragraph::new("Type words to search every kept transcript: results come as you type.")
                .style(p.dim()),
            results,
        );
        return;
    };
    let mut lines: Vec<Line> = vec![Line::from(Span::styled(
        format!(
            "{}{} message(s) match \"{}\"",
            if page.total_capped { "more than " } else { "" },
            thousands(page.total.max(0) as u64),
            app.searched
        ),
        p.dim(),
    ))];
    let mut selected_line = 0;
    for (n, hit) in page.hits.iter().enumerate() {
        let chosen = n == app.selected[2];
        if chosen {
            selected_line = lines.len();
        }
        let head_style = if chosen { p.selected() } else { p.bold() };
        lines.push(Line::from(vec![Span::styled(
            format!(
                "{} · {} · {}",
                day(hit.at),
                hit.conversation.provider,
                hit.conversation
                    .title
                    .clone()
                    .unwrap_or_else(|| "(untitled)".to_owned())
            ),
            head_style,
        )]));
        // The snippet with its matches marked.
        let chars: Vec<char> = hit.snippet.chars().collect();
        let mut spans = vec![Span::raw("  ")];
        let mut at = 0;
        for &(from, to) in &hit.highlights {
            if from < at || to > chars.len() {
                continue;
            }
            spans.push(Span::raw(chars[at..from].iter().collect::<String>()));
            spans.push(Span::styled(
                chars[from..to].iter().collect::<String>(),
                p.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ));
            at = to;
        }
        spans.push(Span::raw(
            chars[at.min(chars.len())..].iter().collect::<String>(),
        ));
        lines.push(Line::from(spans));
    }
    let height = usize::from(results.height);
    let scroll = selected_line.saturating_sub(height.saturating_sub(2));
    frame.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), results);
}

fn cost(frame: &mut Frame, app: &App, area: Rect) {
    use baton_core::transcripts::usage::GroupBy;
    use ratatui::widgets::{Bar, BarChart, BarGroup};
    let p = app.palette;
    let budget_rows = app.budgets.len().min(6) as u16;
    let [head, chart, budgets] = Layout::vertical([
        Constraint::Length(2),
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

fn reader(frame: &mut Frame, app: &App, reading: &super::app::Reading, area: Rect) {
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
    frame.render_widget(Paragraph::new(visible).wrap(Wrap { trim: false }), text);
}

fn help(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let width = area.width.min(64);
    let height = area.height.min(20);
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
        ("Enter", "read the conversation (at the hit)"),
        ("/", "search: results as you type"),
        ("p / u", "pause / unpause a live session (as you)"),
        ("n / p", "next / previous message in the reader"),
        ("g", "cost: by day, model, project, session"),
        ("t", "reader: unfold every card"),
        ("r", "reader: leave, print the resume command"),
        ("R", "reader: restore a deleted session"),
        ("s", "share as one HTML file, redacted"),
        ("y", "copy the id (terminal clipboard)"),
        ("Esc", "back; clear the query; leave search"),
        ("q, Ctrl-C", "leave (q in the reader: back)"),
    ];
    let mut lines = vec![Line::from(Span::styled("Keys", p.bold())), Line::raw("")];
    for (key, does) in keys {
        lines.push(Line::from(vec![
            Span::styled(format!("{key:<20}"), p.fg(Color::Cyan)),
            Span::raw(does),
        ]));
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled("any key closes this", p.dim())));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .block(Block::default().borders(Borders::ALL).title(" help "))
            .style(Style::default())
            .wrap(Wrap { trim: true }),
        popup,
    );
}
