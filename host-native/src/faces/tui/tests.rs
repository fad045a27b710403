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
    let lines = super::lines::lines(&view, unfolded, app.palette);
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

#[test]
fn every_screen_at_80_by_24_and_160_by_48() {
    for (width, height) in [(80u16, 24u16), (160, 48)] {
        let mut app = app(false);
        insta::assert_snapshot!(
            format!("live_{width}x{height}"),
            screen(&app, width, height)
        );
        app.tab = Tab::History;
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
