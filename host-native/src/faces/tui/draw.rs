//! How the terminal UI looks: the tabs across the top, the tab's list (or the reader, or a
//! session's details) in the middle, the keys and the last word at the foot, and the help over
//! everything when asked; and where on screen each row is, for the mouse. It draws what
//! [`App`] holds and reads nothing itself.

use super::app::{App, Hit, Listing, Tab};
use baton_core::analyzer::charts::scale::thousands;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Tabs, Wrap};

/// The body's height for a screen of `height` rows (the page keys move by it).
pub(crate) fn body_height(height: u16) -> usize {
    usize::from(height.saturating_sub(4))
}

/// The body of a screen `size` big: between the tabs and the foot.
fn body(size: (u16, u16)) -> Rect {
    Rect {
        x: 0,
        y: 1,
        width: size.0,
        height: size.1.saturating_sub(2),
    }
}

/// The tab whose title is at `column` of the top row.
pub(crate) fn tab_at(column: u16) -> Option<Tab> {
    // Each title is padded by a space each side, and a divider follows it.
    let mut x = 0u16;
    for (n, tab) in Tab::ALL.iter().enumerate() {
        let width = format!("{} {}", n + 1, tab.title()).chars().count() as u16 + 2;
        if column < x + width {
            return Some(*tab);
        }
        x += width + 1;
    }
    None
}

/// The first row of a table drawn in `area` (after its rule and its header) that shows row
/// `selected` of `rows`: ratatui scrolls a table just enough to show the selected row.
fn table_row_at(area: Rect, selected: usize, rows: usize, y: u16) -> Option<usize> {
    let top = area.y + 2;
    let visible = usize::from(area.height.saturating_sub(2));
    if y < top || y >= area.y + area.height || visible == 0 {
        return None;
    }
    let offset = (selected + 1).saturating_sub(visible);
    let n = offset + usize::from(y - top);
    (n < rows).then_some(n)
}

/// What a click on screen row `y` hits.
pub(crate) fn row_at(app: &App, y: u16) -> Option<Hit> {
    let area = body(app.size);
    match app.tab {
        Tab::Live => {
            let [table, attention] = live_split(app, area);
            if y > attention.y && y < attention.y + attention.height {
                // The items shown are those around the one selected (see `live`).
                let fit = usize::from(attention.height.saturating_sub(1)).max(1);
                let from = (app.attention_selected + 1).saturating_sub(fit);
                let n = from + usize::from(y - attention.y - 1);
                return (n < app.attention.len()).then_some(Hit::Attention(n));
            }
            // With the attention items in focus the table is drawn with nothing selected.
            let selected = if app.attention_focus {
                0
            } else {
                app.selected[0]
            };
            table_row_at(table, selected, app.live.len(), y).map(Hit::Row)
        }
        Tab::History => {
            let [_, table] = history_split(app, area);
            table_row_at(table, app.selected[1], app.rows(), y).map(Hit::Row)
        }
        // Two lines a hit, after the query and the count.
        Tab::Search => {
            let height = area.height.saturating_sub(2);
            if y < area.y + 2 || y >= area.y + area.height {
                return None;
            }
            let selected_line = 1 + 2 * app.selected[2];
            let scroll = selected_line.saturating_sub(usize::from(height).saturating_sub(2));
            let line = usize::from(y - area.y - 2) + scroll;
            let n = line.checked_sub(1)? / 2;
            (n < app.rows()).then_some(Hit::Row(n))
        }
        Tab::Cost => None,
    }
}

/// An empty list: its title, and what to do about it.
fn nothing(frame: &mut Frame, area: Rect, title: String, said: &str) {
    frame.render_widget(
        Paragraph::new(said.to_owned())
            .block(Block::default().borders(Borders::TOP).title(title))
            .wrap(Wrap { trim: true }),
        area,
    );
}

fn live_split(app: &App, area: Rect) -> [Rect; 2] {
    let attention_rows = app.attention.len().min(6) as u16;
    Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(if attention_rows > 0 {
            attention_rows + 1
        } else {
            0
        }),
    ])
    .areas(area)
}

fn history_split(app: &App, area: Rect) -> [Rect; 2] {
    let line = app.filter_edit.is_some() || !app.filter.is_empty();
    Layout::vertical([Constraint::Length(u16::from(line)), Constraint::Min(1)]).areas(area)
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
        super::panes::reader(frame, app, reading, body);
    } else if let Some(detail) = &app.detail {
        super::panes::detail(frame, app, detail, body);
    } else {
        match app.tab {
            Tab::Live => live(frame, app, body),
            Tab::History => history(frame, app, body),
            Tab::Search => search(frame, app, body),
            Tab::Cost => super::panes::cost(frame, app, body),
        }
    }
    let keys = if app.reading.is_some() {
        "j/k n/p move · t unfold · r resume · R restore · s share · y copy id · Esc back"
    } else if app.detail.is_some() {
        "j/k scroll · r resume · p pause · u unpause · s share · y copy id · Esc back"
    } else if app.filter_edit.is_some() {
        "key:value words: project agent branch since until status · Enter apply · Esc"
    } else {
        match app.tab {
            Tab::Live if app.attention_focus => {
                "↑/↓ item · Enter its session · d done · a/Esc back to sessions · ? help"
            }
            Tab::Live => {
                "↑/↓ select · Enter details · p pause · u unpause · a attention · ? help · q quit"
            }
            Tab::History => {
                "↑/↓ · Enter open · w sessions/conversations · f filter · r resume · s share · ?"
            }
            Tab::Search => "type to search · ↑/↓ · Enter read at the hit · Alt-r/s/y/R on it · Esc",
            Tab::Cost => "g group by day, model, project, session · F5 refresh · ? help · q quit",
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
        super::panes::help(frame, app);
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
    let [table_area, attention_area] = live_split(app, area);
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
        nothing(
            frame,
            table_area,
            title,
            "No live work sessions. This view updates by itself when one starts.",
        );
    } else {
        let table = Table::new(rows, widths)
            .header(Row::new(header).style(p.bold()))
            .row_highlight_style(p.selected())
            .block(Block::default().borders(Borders::TOP).title(title));
        let selected = (!app.attention_focus).then_some(app.selected[0]);
        frame.render_stateful_widget(
            table,
            table_area,
            &mut TableState::default().with_selected(selected.filter(|_| !app.live.is_empty())),
        );
    }
    if attention_area.height > 0 {
        // The items around the one selected, as many as fit.
        let fit = usize::from(attention_area.height.saturating_sub(1)).max(1);
        let from = (app.attention_selected + 1).saturating_sub(fit);
        let lines: Vec<Line> = app
            .attention
            .iter()
            .enumerate()
            .skip(from)
            .take(fit)
            .map(|(n, a)| {
                let line = Line::from(vec![
                    Span::styled(format!("#{} ", a.number), p.fg(Color::Yellow)),
                    Span::styled(format!("{} ", a.session_id.short()), p.dim()),
                    Span::raw(a.text.clone()),
                ]);
                if app.attention_focus && n == app.attention_selected {
                    line.style(p.selected())
                } else {
                    line
                }
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
    let [filter_area, area] = history_split(app, area);
    if let Some(line) = &app.filter_edit {
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("Filter: ", p.bold()),
                Span::raw(line.clone()),
                Span::styled("█", p.dim()),
            ])),
            filter_area,
        );
    } else if !app.filter.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("Filter: ", p.bold()),
                Span::raw(app.filter.clone()),
                Span::styled("   f to change", p.dim()),
            ])),
            filter_area,
        );
    }
    if app.listing == Listing::Sessions {
        return work_sessions(frame, app, area);
    }
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
        " {} of {} kept conversation(s), newest first · w: work sessions ",
        app.history.len(),
        thousands(app.history_total.max(0) as u64)
    );
    if app.history.is_empty() {
        let empty = if app.filter.is_empty() {
            "No kept conversations yet: `baton mirror` keeps every agent's transcripts."
        } else {
            "No kept conversation matches the filter (f changes it)."
        };
        nothing(frame, area, title, empty);
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

/// History's work sessions: the ledger's, ended ones too, latest activity first.
fn work_sessions(frame: &mut Frame, app: &App, area: Rect) {
    let p = app.palette;
    let wide = area.width >= 120;
    let title = format!(
        " {} work session(s), latest activity first · w: conversations ",
        app.sessions.len()
    );
    if app.sessions.is_empty() {
        let empty = if app.filter.is_empty() {
            "No work sessions in this ledger yet: `baton start` opens one (hooks do it for you)."
        } else {
            "No work session matches the filter (f changes it)."
        };
        nothing(frame, area, title, empty);
        return;
    }
    let rows: Vec<Row> = app
        .sessions
        .iter()
        .map(|s| {
            let mut cells = vec![
                Cell::from(day(Some(s.last_event_at.millis()))),
                Cell::from(s.session_id.short()),
                Cell::from(s.agent.clone()),
                Cell::from(s.status.as_str()),
            ];
            if wide {
                cells.push(Cell::from(s.project.clone()));
                cells.push(Cell::from(s.branch.clone().unwrap_or_default()));
            }
            cells.push(Cell::from(s.goal.clone().unwrap_or_default()));
            Row::new(cells)
        })
        .collect();
    let mut header = vec!["ACTIVE", "ID", "AGENT", "STATUS"];
    let mut widths = vec![
        Constraint::Length(16),
        Constraint::Length(8),
        Constraint::Length(10),
        Constraint::Length(14),
    ];
    if wide {
        header.extend(["PROJECT", "BRANCH"]);
        widths.extend([Constraint::Length(16), Constraint::Length(18)]);
    }
    header.push("GOAL");
    widths.push(Constraint::Min(10));
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(p.bold()))
        .row_highlight_style(p.selected())
        .block(Block::default().borders(Borders::TOP).title(title));
    frame.render_stateful_widget(
        table,
        area,
        &mut table_state(app.selected[1], app.sessions.len()),
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
            "{}{} message(s) match \"{}\"{}",
            if page.total_capped { "more than " } else { "" },
            thousands(page.total.max(0) as u64),
            app.searched,
            if app.filter.is_empty() {
                String::new()
            } else {
                format!(" · filter: {}", app.filter)
            }
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
