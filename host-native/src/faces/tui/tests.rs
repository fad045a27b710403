//! The terminal UI's screens, drawn on ratatui's test backend at 80×24 and 160×48 and pinned
//! by snapshot: live (with attention), history, search (hits with their matches), the reader
//! (folded and unfolded, at a hit), cost and help; and the keys that move between them.

use super::app::{App, Next, Tab};
use super::data::Data;
use super::lines::Palette;
use baton_core::Timestamp;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const NOW: &str = "2026-07-18T12:00:00Z";

fn session(n: u8, agent: &str, status: &str, goal: &str) -> baton_core::ledger::session::Session {
    serde_json::from_value(serde_json::json!({
        "session_id": format!("0198{n:04x}-0000-7000-8000-00000000000{n}"),
        "path": format!("app/2026-07-18-1000-{agent}-0000000{n}"),
        "project": "app", "agent": agent, "client_name": null, "goal": goal,
        "status": status, "started_at": "2026-07-18T10:00:00Z", "ended_at": null,
        "duration_seconds": null, "summary": null, "parent_session_id": null, "run_id": null,
        "work_item_id": null, "attempt_id": null, "resumes": [],
        "usage": {"input_tokens": 0, "output_tokens": 0, "cache_creation_tokens": 0,
                  "cache_read_tokens": 0, "reasoning_tokens": 0},
        "last_event_at": "2026-07-18T11:55:00Z", "event_count": 3, "mission": null,
        "start_commit": null, "progress": null, "pause": null, "brief": null,
        "reports_via": null, "dependencies": [], "changed_files": [], "open_collisions": [],
        "plan": [], "decisions": [], "runs": {"recorded": 0, "refused": 0, "input_tokens": 0,
        "output_tokens": 0}, "evidence": [], "pull_request": null, "health": null
    }))
    .unwrap()
}

fn row(n: i64, provider: &str, title: &str) -> crate::ops::mirror::query::ConversationRow {
    crate::ops::mirror::query::ConversationRow {
        id: n,
        provider: provider.to_owned(),
        provider_id: format!("conv-{n}"),
        title: Some(title.to_owned()),
        project: Some("/work/app".to_owned()),
        started_at: Some(1_784_000_000_000 + n * 3_600_000),
        updated_at: Some(1_784_000_000_000 + n * 3_700_000),
        messages: 10 * n,
    }
}

fn app(colour: bool) -> App {
    use baton_core::ledger::liveness::Liveness;
    let now = Timestamp::parse(NOW).unwrap();
    let mut app = App::new(Palette { colour }, now);
    app.live = vec![
        crate::ops::live::LiveRow {
            session: session(1, "claude", "working", "Fix the flaky login test"),
            liveness: Liveness::Live,
            last_activity: Timestamp::parse("2026-07-18T11:58:00Z").unwrap(),
            health: Some(92),
            cost_usd: Some(3.4),
            window_share: Some(61.0),
        },
        crate::ops::live::LiveRow {
            session: session(2, "codex", "blocked", "Index the search results by project"),
            liveness: Liveness::Gone,
            last_activity: Timestamp::parse("2026-07-18T09:12:00Z").unwrap(),
            health: Some(55),
            cost_usd: None,
            window_share: Some(39.0),
        },
    ];
    app.history = (1..=3)
        .map(|n| {
            row(
                n,
                if n == 2 { "codex" } else { "claude_code" },
                &format!("Conversation number {n}"),
            )
        })
        .collect();
    app.history_total = 3;
    app
}

fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| super::draw::draw(f, app)).unwrap();
    terminal.backend().to_string()
}

fn reading(app: &mut App, unfolded: bool) {
    let bytes = include_bytes!(
        "../../../../tests/fixtures/claude-code/handmade-v1.0.x-inline-subagents.jsonl"
    );
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    analyzer.add_file("s.jsonl", bytes).unwrap();
    let view = analyzer.view(0, None).unwrap();
    let lines = super::lines::lines(&view, unfolded, app.palette, app.reader_width());
    app.reading = Some(super::app::Reading {
        view,
        row: row(1, "claude_code", "Find where the config is loaded"),
        lines,
        top: 0,
        unfolded,
        resume: Some(crate::ops::mirror::restore::Resume {
            command: Some("cd /work/app && claude --resume conv-1".to_owned()),
            why_not: None,
        }),
    });
}

/// Usage from real Claude Code transcripts (the page's analyzer reads them), and a budget.
fn cost(app: &mut App, group: baton_core::transcripts::usage::GroupBy) {
    let mut analyzer = baton_core::analyzer::Analyzer::new();
    for (name, bytes) in [
        (
            "a.jsonl",
            &include_bytes!(
                "../../../../tests/fixtures/claude-code/spotter-v2.1.38-tool_heavy.jsonl"
            )[..],
        ),
        (
            "b.jsonl",
            &include_bytes!(
                "../../../../tests/fixtures/claude-code/sniffly-v1.0.17-ba79134d-b6e9-4867-af0c-6941038c9e4b.jsonl"
            )[..],
        ),
    ] {
        analyzer.add_file(name, bytes).unwrap();
    }
    app.cost_group = group;
    app.cost = Some(analyzer.usage(group));
    let days = analyzer.usage(baton_core::transcripts::usage::GroupBy::Daily);
    app.cost_days = super::app::every_day(days.rows.iter().map(|r| (r.key.as_str(), r.cost_usd)));
    use baton_core::lifecycle::budget::{Level, Period, RuleState, Scope, Unit};
    app.budgets = vec![RuleState {
        key: "day_usd".to_owned(),
        scope: Scope::All,
        period: Period::Day,
        unit: Unit::Usd,
        limit: 50.0,
        spent: 41.5,
        used_percent: 83.0,
        level: Level::Warn,
        warn_percent: 80.0,
        ..serde_json::from_value(serde_json::json!({
            "key": "", "scope": {"kind": "all"}, "period": "day", "unit": "usd", "limit": 0.0,
            "spent": 0.0, "used_percent": 0.0, "level": "ok"
        }))
        .unwrap()
    }];
}

fn attention(app: &mut App) {
    app.attention = (1..=2)
        .map(|n| {
            serde_json::from_value(serde_json::json!({
                "number": n, "id": format!("0198{n:04x}-0000-7000-8000-0000000000a{n}"),
                "session_id": format!("0198{n:04x}-0000-7000-8000-00000000000{n}"),
                "level": "act", "urgency": 80,
                "text": if n == 1 { "The agent asks which database to migrate first" }
                        else { "codex stopped answering 40 minutes ago" },
                "at": "2026-07-18T11:50:00Z"
            }))
            .unwrap()
        })
        .collect();
}

/// History's work sessions: the live two and an ended one on a branch.
fn work_sessions(app: &mut App) {
    let mut ended = session(3, "claude", "complete", "Ship the release notes");
    ended.branch = Some("release/2.4".to_owned());
    ended.last_event_at = Timestamp::parse("2026-07-17T18:00:00Z").unwrap();
    app.sessions = vec![
        session(1, "claude", "working", "Fix the flaky login test"),
        session(2, "codex", "blocked", "Index the search results by project"),
        ended,
    ];
    app.listing = super::app::Listing::Sessions;
    app.filter = "project:app since:2026-07-01".to_owned();
}

fn detail(app: &mut App) {
    let text = "Session 0198-0001 · claude · working\n  project        app\n  goal           Fix the flaky login test, which fails one run in five on the CI machines and never on a laptop\n  started        2026-07-18 10:00 (2h ago)\n  cost           $3.40 · 1.2M tokens\n  resume         cd /work/app && claude --resume 4f1c";
    app.detail = Some(super::app::Detail {
        session_id: "01980001-0000-7000-8000-000000000001".to_owned(),
        text: text.to_owned(),
        lines: super::lines::text(text, app.palette, app.reader_width()),
        top: 0,
        resume: Some(crate::ops::mirror::restore::Resume {
            command: Some("cd /work/app && claude --resume 4f1c".to_owned()),
            why_not: None,
        }),
    });
}

#[test]
fn every_screen_at_80_by_24_and_160_by_48() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = app(false);
        app.resize((width, height));
        insta::assert_snapshot!(
            format!("live_{width}x{height}"),
            screen(&app, width, height)
        );
        attention(&mut app);
        app.attention_focus = true;
        app.attention_selected = 1;
        insta::assert_snapshot!(
            format!("live_attention_{width}x{height}"),
            screen(&app, width, height)
        );
        detail(&mut app);
        insta::assert_snapshot!(
            format!("session_detail_{width}x{height}"),
            screen(&app, width, height)
        );
        app.detail = None;
        app.attention.clear();
        app.attention_focus = false;
        app.tab = Tab::History;
        work_sessions(&mut app);
        insta::assert_snapshot!(
            format!("history_sessions_{width}x{height}"),
            screen(&app, width, height)
        );
        app.filter_edit = Some("agent:codex bra".to_owned());
        insta::assert_snapshot!(
            format!("history_filter_{width}x{height}"),
            screen(&app, width, height)
        );
        app.filter_edit = None;
        app.filter.clear();
        app.listing = super::app::Listing::Conversations;
        insta::assert_snapshot!(
            format!("history_{width}x{height}"),
            screen(&app, width, height)
        );
        app.tab = Tab::Cost;
        insta::assert_snapshot!(
            format!("cost_{width}x{height}"),
            screen(&app, width, height)
        );
        cost(&mut app, baton_core::transcripts::usage::GroupBy::Daily);
        insta::assert_snapshot!(
            format!("cost_daily_{width}x{height}"),
            screen(&app, width, height)
        );
        cost(&mut app, baton_core::transcripts::usage::GroupBy::Model);
        insta::assert_snapshot!(
            format!("cost_model_{width}x{height}"),
            screen(&app, width, height)
        );
        app.cost = None;
        app.budgets.clear();
        app.tab = Tab::Live;
        app.help = true;
        insta::assert_snapshot!(
            format!("help_{width}x{height}"),
            screen(&app, width, height)
        );
        app.help = false;
        reading(&mut app, false);
        insta::assert_snapshot!(
            format!("reader_{width}x{height}"),
            screen(&app, width, height)
        );
        reading(&mut app, true);
        insta::assert_snapshot!(
            format!("reader_unfolded_{width}x{height}"),
            screen(&app, width, height)
        );
    }
}

#[test]
fn the_search_screen_marks_each_match_and_the_selected_hit() {
    let mut app = app(false);
    app.tab = Tab::Search;
    app.query = "flaky".to_owned();
    app.searched = "flaky".to_owned();
    let hit =
        |n: i64, snippet: &str, highlights: Vec<(usize, usize)>| crate::ops::mirror::query::Hit {
            conversation: row(n, "claude_code", &format!("Conversation number {n}")),
            message_id: format!("m{n}"),
            role: "assistant".to_owned(),
            at: Some(1_784_000_000_000),
            field: "text",
            exact: true,
            snippet: snippet.to_owned(),
            highlights,
        };
    app.hits = Some(crate::ops::mirror::query::HitPage {
        expression: "\"flaky\"".to_owned(),
        order: "relevance",
        total: 2,
        total_capped: false,
        ranked_newest: None,
        hits: vec![
            hit(1, "the flaky login test fails on CI", vec![(4, 9)]),
            hit(2, "retry the flaky one", vec![(10, 15)]),
        ],
    });
    app.selected[2] = 1;
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        insta::assert_snapshot!(
            format!("search_{width}x{height}"),
            screen(&app, width, height)
        );
    }
}

#[test]
fn keys_move_between_tabs_scroll_the_reader_and_leave() {
    let data = Data {
        ledger: crate::store::Ledger::new(std::path::PathBuf::from("/nonexistent/.baton"), false),
        index: std::path::PathBuf::from("/nonexistent/index.sqlite"),
    };
    let press = |code| KeyEvent::new(code, KeyModifiers::NONE);
    let mut app = app(true);
    assert_eq!(app.key(press(KeyCode::Tab), &data, 20), Next::Draw);
    assert_eq!(app.tab, Tab::History);
    assert_eq!(app.key(press(KeyCode::Char('j')), &data, 20), Next::Draw);
    assert_eq!(app.selected[1], 1);
    assert_eq!(app.key(press(KeyCode::Char('4')), &data, 20), Next::Draw);
    assert_eq!(app.tab, Tab::Cost);
    // Typing in search is typing, not keys.
    app.key(press(KeyCode::Char('/')), &data, 20);
    for c in "q1j".chars() {
        app.key(press(KeyCode::Char(c)), &data, 20);
    }
    assert_eq!(
        (app.tab, app.query.as_str(), app.search_due),
        (Tab::Search, "q1j", true)
    );
    assert_eq!(app.key(press(KeyCode::Esc), &data, 20), Next::Draw);
    assert!(app.query.is_empty());
    assert_eq!(app.key(press(KeyCode::Esc), &data, 20), Next::Draw);
    assert_eq!(app.tab, Tab::Live, "a second Esc leaves the search");
    assert_eq!(
        app.key(press(KeyCode::Esc), &data, 20),
        Next::Stay,
        "Esc never quits"
    );
    app.tab = Tab::Search;
    // The reader: page down, next message, unfold keeping the message in view, back.
    reading(&mut app, false);
    app.key(press(KeyCode::PageDown), &data, 20);
    assert_eq!(app.reading.as_ref().unwrap().top, 20);
    app.key(press(KeyCode::Char('n')), &data, 20);
    let reading_now = app.reading.as_ref().unwrap();
    let message = reading_now
        .lines
        .starts
        .iter()
        .find(|(_, l)| *l == reading_now.top)
        .map(|(id, _)| id.clone())
        .expect("n stops at a message's first line");
    app.key(press(KeyCode::Char('t')), &data, 20);
    let unfolded = app.reading.as_ref().unwrap();
    assert!(unfolded.unfolded);
    assert_eq!(
        unfolded
            .lines
            .starts
            .iter()
            .find(|(id, _)| *id == message)
            .map(|(_, l)| *l),
        Some(unfolded.top)
    );
    // y puts the conversation's id on the clipboard.
    app.key(press(KeyCode::Char('y')), &data, 20);
    assert_eq!(app.clipboard.as_deref(), Some("conv-1"));
    // r leaves with the command that resumes it.
    assert_eq!(app.key(press(KeyCode::Char('r')), &data, 20), Next::Quit);
    assert_eq!(
        app.on_exit.as_deref(),
        Some("cd /work/app && claude --resume conv-1")
    );
    app.reading = None;
    // In search, q is a letter of the query; elsewhere it leaves.
    assert_eq!(app.key(press(KeyCode::Char('q')), &data, 20), Next::Draw);
    app.tab = Tab::Live;
    assert_eq!(app.key(press(KeyCode::Char('q')), &data, 20), Next::Quit);
    // A Ctrl chord is no key of the UI's (Ctrl-P does not pause).
    let ctrl_p = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL);
    assert_eq!(app.key(ctrl_p, &data, 20), Next::Stay);
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(app.key(ctrl_c, &data, 20), Next::Quit);
}

#[test]
fn the_filter_line_the_listing_and_the_mouse() {
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let data = Data {
        ledger: crate::store::Ledger::new(std::path::PathBuf::from("/nonexistent/.baton"), false),
        index: std::path::PathBuf::from("/nonexistent/index.sqlite"),
    };
    let press = |code| KeyEvent::new(code, KeyModifiers::NONE);
    let mut app = app(false);
    app.resize((80, 24));
    app.tab = Tab::History;
    // f opens the filter line; what is typed is the line's, Enter applies it.
    app.key(press(KeyCode::Char('f')), &data, 20);
    for c in "agent:codex since:2026-07-01".chars() {
        app.key(press(KeyCode::Char(c)), &data, 20);
    }
    assert_eq!(
        app.tab,
        Tab::History,
        "digits typed in the filter are no tab keys"
    );
    app.key(press(KeyCode::Enter), &data, 20);
    assert_eq!(
        (app.filter.as_str(), app.filter_edit.is_none()),
        ("agent:codex since:2026-07-01", true)
    );
    assert_eq!(app.filters.provider.as_deref(), Some("codex"));
    assert!(app.filters.since.is_some());
    // Ctrl-U empties the line; Esc leaves it as it was.
    app.key(press(KeyCode::Char('f')), &data, 20);
    app.key(
        KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL),
        &data,
        20,
    );
    assert_eq!(app.filter_edit.as_deref(), Some(""));
    app.key(press(KeyCode::Esc), &data, 20);
    assert_eq!(
        (app.filter.as_str(), app.filter_edit.is_none()),
        ("agent:codex since:2026-07-01", true)
    );
    // A word that is no filter is said, and the list stays as it was.
    app.key(press(KeyCode::Char('f')), &data, 20);
    for c in " colour:red".chars() {
        app.key(press(KeyCode::Char(c)), &data, 20);
    }
    app.key(press(KeyCode::Enter), &data, 20);
    assert!(
        app.status.contains("`colour` is no filter"),
        "{}",
        app.status
    );
    // w lists work sessions; a branch filter is theirs, and said to be when back on
    // conversations.
    app.filter = "branch:main".to_owned();
    app.key(press(KeyCode::Char('w')), &data, 20);
    assert_eq!(app.listing, super::app::Listing::Sessions);
    assert!(app.status.is_empty(), "{}", app.status);
    app.key(press(KeyCode::Char('w')), &data, 20);
    assert!(
        app.status.starts_with("branch filters work sessions"),
        "{}",
        app.status
    );

    // The mouse: a tab by its title, a row by a click, a second click opens it.
    let click = |column, row| MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    assert_eq!(super::draw::tab_at(3), Some(Tab::Live));
    assert_eq!(super::draw::tab_at(12), Some(Tab::History));
    assert_eq!(super::draw::tab_at(25), Some(Tab::Search));
    assert_eq!(super::draw::tab_at(35), Some(Tab::Cost));
    assert_eq!(super::draw::tab_at(60), None);
    app.mouse(click(2, 0), &data);
    assert_eq!(app.tab, Tab::Live);
    // Row 3 is the first session (after the tabs, the rule and the header); one click on the
    // row already selected only selects it.
    app.status.clear();
    app.mouse(click(10, 3), &data);
    assert!(app.status.is_empty(), "one click opened it: {}", app.status);
    app.mouse(click(10, 4), &data);
    assert_eq!(app.selected[0], 1);
    app.mouse(click(10, 3), &data);
    assert_eq!(app.selected[0], 0);
    assert_eq!(
        app.mouse(click(10, 20), &data),
        Next::Stay,
        "below the rows"
    );
    app.mouse(click(10, 3), &data);
    assert!(
        app.status.starts_with("could not show it"),
        "a second click opens the session: {}",
        app.status
    );
    // With the help open a click closes it, and a typed filter keeps the mouse away.
    app.help = true;
    assert_eq!(app.mouse(click(12, 0), &data), Next::Draw);
    assert!(!app.help);
    assert_eq!(
        app.tab,
        Tab::Live,
        "the click that closes the help does nothing else"
    );
    app.filter_edit = Some("x".to_owned());
    assert_eq!(app.mouse(click(12, 0), &data), Next::Stay);
    app.filter_edit = None;
    // Alt-y on a search hit copies its id while the letters go to the query.
    app.tab = Tab::Search;
    app.query = "flaky".to_owned();
    app.hits = Some(crate::ops::mirror::query::HitPage {
        expression: "\"flaky\"".to_owned(),
        order: "relevance",
        total: 1,
        total_capped: false,
        ranked_newest: None,
        hits: vec![crate::ops::mirror::query::Hit {
            conversation: row(7, "codex", "Seven"),
            message_id: "m7".to_owned(),
            role: "user".to_owned(),
            at: None,
            field: "text",
            exact: true,
            snippet: "flaky".to_owned(),
            highlights: vec![],
        }],
    });
    app.key(
        KeyEvent::new(KeyCode::Char('y'), KeyModifiers::ALT),
        &data,
        20,
    );
    assert_eq!(
        (app.query.as_str(), app.clipboard.as_deref()),
        ("flaky", Some("conv-7"))
    );
    app.tab = Tab::Live;
    // The wheel scrolls the reader three rows at a time.
    reading(&mut app, false);
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 10,
        row: 10,
        modifiers: KeyModifiers::NONE,
    };
    app.mouse(wheel, &data);
    assert_eq!(app.reading.as_ref().unwrap().top, 3);
}

#[test]
fn a_long_line_wraps_so_that_all_of_it_can_be_read() {
    let long = format!("start {} end", "word ".repeat(60));
    let mut lines = super::lines::Lines::new(40);
    lines.push("│ ", "│   ", vec![ratatui::text::Span::raw(long.clone())]);
    let rows: Vec<String> = lines
        .lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert!(rows.len() >= 8, "{rows:?}");
    assert!(
        rows.iter()
            .all(|r| unicode_width::UnicodeWidthStr::width(r.as_str()) <= 40)
    );
    assert!(rows[0].starts_with("│ start"));
    assert!(rows[1..].iter().all(|r| r.starts_with("│   ")));
    let text: String = rows
        .iter()
        .enumerate()
        .map(|(n, r)| r[if n == 0 { "│ ".len() } else { "│   ".len() }..].to_owned())
        .collect();
    assert_eq!(text, long, "nothing is lost in the wrapping");
    // A word longer than the line is cut, not lost.
    let mut lines = super::lines::Lines::new(20);
    lines.push("", "", vec![ratatui::text::Span::raw("x".repeat(50))]);
    assert_eq!(lines.lines.len(), 3);
}
