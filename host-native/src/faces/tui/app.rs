//! The terminal UI's state and what each key does: four tabs (live sessions, history, search,
//! cost), a reader over any of them, a help overlay; what to load is asked of [`Data`] and
//! nothing here draws (see `draw`).

use super::data::Data;
use super::lines::{Lines, Palette};
use crate::ops::mirror::query::{ConversationRow, Filters, HitPage};
use baton_core::Timestamp;
use baton_core::analyzer::ConversationView;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The tabs, in their order on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tab {
    Live,
    History,
    Search,
    Cost,
}

impl Tab {
    pub(crate) const ALL: [Tab; 4] = [Tab::Live, Tab::History, Tab::Search, Tab::Cost];

    pub(crate) fn title(self) -> &'static str {
        match self {
            Tab::Live => "Live",
            Tab::History => "History",
            Tab::Search => "Search",
            Tab::Cost => "Cost",
        }
    }
}

/// A conversation open in the reader.
pub(crate) struct Reading {
    pub(crate) view: ConversationView,
    pub(crate) row: ConversationRow,
    pub(crate) lines: Lines,
    pub(crate) top: usize,
    pub(crate) unfolded: bool,
    pub(crate) resume: Option<crate::ops::mirror::restore::Resume>,
}

/// What the next event loop turn should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Draw again.
    Draw,
    /// Nothing changed.
    Stay,
    /// Leave.
    Quit,
}

/// Everything on screen.
pub(crate) struct App {
    pub(crate) tab: Tab,
    pub(crate) palette: Palette,
    pub(crate) now: Timestamp,
    pub(crate) live: Vec<crate::ops::live::LiveRow>,
    /// The files whose change can change the live view, as its last read found them.
    pub(crate) watched: std::collections::BTreeSet<std::path::PathBuf>,
    pub(crate) window: Option<baton_core::transcripts::usage::windows::UsageWindow>,
    pub(crate) attention: Vec<baton_core::lifecycle::workspace::AttentionItem>,
    pub(crate) history: Vec<ConversationRow>,
    pub(crate) history_total: i64,
    pub(crate) filters: Filters,
    pub(crate) query: String,
    pub(crate) hits: Option<HitPage>,
    /// The query `hits` answer.
    pub(crate) searched: String,
    /// When the query last changed and was not yet searched.
    pub(crate) search_due: bool,
    pub(crate) selected: [usize; 4],
    pub(crate) reading: Option<Reading>,
    /// How the Cost tab groups usage.
    pub(crate) cost_group: baton_core::transcripts::usage::GroupBy,
    pub(crate) cost: Option<baton_core::transcripts::usage::UsageReport>,
    /// Whether the usage shown is all of it (the last 30 days held nothing).
    pub(crate) cost_all_time: bool,
    pub(crate) budgets: Vec<baton_core::lifecycle::budget::RuleState>,
    pub(crate) help: bool,
    /// A line for the foot of the screen: what was done, or what went wrong.
    pub(crate) status: String,
    /// What to print after the screen is left (a resume command asked for).
    pub(crate) on_exit: Option<String>,
    /// Text to put on the terminal's clipboard (OSC 52) at the next draw.
    pub(crate) clipboard: Option<String>,
    /// Whether the live sessions' prices are being read.
    pub(crate) pricing: bool,
}

impl App {
    pub(crate) fn new(palette: Palette, now: Timestamp) -> App {
        App {
            tab: Tab::Live,
            palette,
            now,
            live: Vec::new(),
            watched: Default::default(),
            window: None,
            attention: Vec::new(),
            history: Vec::new(),
            history_total: 0,
            filters: Filters::default(),
            query: String::new(),
            hits: None,
            searched: String::new(),
            search_due: false,
            selected: [0; 4],
            reading: None,
            cost_group: baton_core::transcripts::usage::GroupBy::Daily,
            cost: None,
            cost_all_time: false,
            budgets: Vec::new(),
            help: false,
            status: String::new(),
            on_exit: None,
            clipboard: None,
            pricing: false,
        }
    }

    fn index(&self) -> usize {
        Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0)
    }

    /// How many rows the current tab lists.
    pub(crate) fn rows(&self) -> usize {
        match self.tab {
            Tab::Live => self.live.len(),
            Tab::History => self.history.len(),
            Tab::Search => self.hits.as_ref().map_or(0, |h| h.hits.len()),
            Tab::Cost => 0,
        }
    }

    /// Loads the live sessions and attention at once; their prices follow
    /// ([`App::priced`]), the figures known before kept until then.
    pub(crate) fn load_live(&mut self, data: &Data, now: Timestamp) {
        self.now = now;
        match data.live() {
            Ok(live) => {
                let before = std::mem::take(&mut self.live);
                self.live = live.rows;
                self.watched = live.watched;
                for row in &mut self.live {
                    if let Some(old) = before
                        .iter()
                        .find(|o| o.session.session_id == row.session.session_id)
                    {
                        row.cost_usd = old.cost_usd;
                        row.window_share = old.window_share;
                    }
                }
                self.pricing = true;
            }
            Err(err) => self.status = format!("could not read the live sessions: {err}"),
        }
        self.attention = data.attention().unwrap_or_default();
        self.clamp();
    }

    /// The live sessions' prices, read off the drawing thread.
    pub(crate) fn priced(&mut self, live: crate::ops::live::Live) {
        for row in &mut self.live {
            if let Some(priced) = live
                .rows
                .iter()
                .find(|p| p.session.session_id == row.session.session_id)
            {
                row.cost_usd = priced.cost_usd;
                row.window_share = priced.window_share;
            }
        }
        self.window = live.window;
    }

    /// Loads the history with the filters set.
    pub(crate) fn load_history(&mut self, data: &Data) {
        match data.history(&self.filters, 500) {
            Ok(page) => {
                self.history = page.conversations;
                self.history_total = page.total;
            }
            Err(err) => self.status = format!("could not read the index: {err}"),
        }
        self.clamp();
    }

    /// The groupings the Cost tab cycles through with `g`.
    pub(crate) const COST_GROUPS: [baton_core::transcripts::usage::GroupBy; 4] = [
        baton_core::transcripts::usage::GroupBy::Daily,
        baton_core::transcripts::usage::GroupBy::Model,
        baton_core::transcripts::usage::GroupBy::Project,
        baton_core::transcripts::usage::GroupBy::Session,
    ];

    /// Loads usage (the last 30 days) as the Cost tab groups it, and the budgets.
    pub(crate) fn load_cost(&mut self, data: &Data) {
        let since = Timestamp::from_millis(self.now.millis() - 30 * 86_400_000);
        // The last 30 days; all of it when they hold nothing (an index of older work).
        let read = data.usage(self.cost_group, Some(since)).and_then(|recent| {
            self.cost_all_time = recent.as_ref().is_none_or(|r| r.rows.is_empty());
            if self.cost_all_time {
                data.usage(self.cost_group, None)
            } else {
                Ok(recent)
            }
        });
        match read {
            Ok(report) => self.cost = report,
            Err(err) => self.status = format!("could not read usage: {err}"),
        }
        match data.budgets() {
            Ok(budgets) => self.budgets = budgets,
            Err(err) => self.status = format!("could not read the budgets: {err}"),
        }
    }

    /// Runs the query typed (after the debounce).
    pub(crate) fn run_search(&mut self, data: &Data) {
        self.search_due = false;
        if self.query.trim().is_empty() {
            self.hits = None;
            return;
        }
        match data.search(&self.query, &self.filters) {
            Ok(page) => {
                self.hits = Some(page);
                self.searched = self.query.clone();
                self.status.clear();
            }
            Err(err) => {
                self.hits = None;
                self.status = err.message.clone();
            }
        }
        self.selected[2] = 0;
    }

    fn clamp(&mut self) {
        let rows = self.rows();
        let at = self.index();
        self.selected[at] = self.selected[at].min(rows.saturating_sub(1));
    }

    fn open(&mut self, data: &Data, row: &ConversationRow, at_message: Option<&str>) {
        match data.open(row) {
            Ok((view, resume)) => {
                let lines = super::lines::lines(&view, false, self.palette);
                let top = at_message
                    .and_then(|id| lines.starts.iter().find(|(m, _)| m == id))
                    .map_or(0, |(_, line)| *line);
                self.reading = Some(Reading {
                    view,
                    row: row.clone(),
                    lines,
                    top,
                    unfolded: false,
                    resume,
                });
            }
            Err(err) => self.status = format!("could not open it: {err}"),
        }
    }

    /// What `key` does; `height` is the body's height (for page keys).
    pub(crate) fn key(&mut self, key: KeyEvent, data: &Data, height: usize) -> Next {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c')) {
            return Next::Quit;
        }
        // No other Ctrl chord is a key here (Ctrl-P must not pause a session).
        if ctrl {
            return Next::Stay;
        }
        if self.help {
            self.help = false;
            return Next::Draw;
        }
        // Typing a query.
        if self.tab == Tab::Search && self.reading.is_none() {
            match key.code {
                KeyCode::Char(c) if !ctrl => {
                    self.query.push(c);
                    self.search_due = true;
                    return Next::Draw;
                }
                KeyCode::Backspace => {
                    self.query.pop();
                    self.search_due = true;
                    return Next::Draw;
                }
                _ => {}
            }
        }
        if let Some(reading) = self.reading.as_mut() {
            let last = reading.lines.lines.len().saturating_sub(1);
            match key.code {
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Left => self.reading = None,
                KeyCode::Down | KeyCode::Char('j') => reading.top = (reading.top + 1).min(last),
                KeyCode::Up | KeyCode::Char('k') => reading.top = reading.top.saturating_sub(1),
                KeyCode::PageDown | KeyCode::Char(' ') => {
                    reading.top = (reading.top + height.max(1)).min(last);
                }
                KeyCode::PageUp => reading.top = reading.top.saturating_sub(height.max(1)),
                KeyCode::Home | KeyCode::Char('g') => reading.top = 0,
                KeyCode::End | KeyCode::Char('G') => reading.top = last,
                KeyCode::Char('n') => {
                    reading.top = reading
                        .lines
                        .starts
                        .iter()
                        .map(|(_, l)| *l)
                        .find(|l| *l > reading.top)
                        .unwrap_or(reading.top);
                }
                KeyCode::Char('p') => {
                    reading.top = reading
                        .lines
                        .starts
                        .iter()
                        .map(|(_, l)| *l)
                        .rev()
                        .find(|l| *l < reading.top)
                        .unwrap_or(0);
                }
                KeyCode::Char('t') => {
                    // Unfold or fold every card, keeping the message at the top in place.
                    let message = reading
                        .lines
                        .starts
                        .iter()
                        .rev()
                        .find(|(_, l)| *l <= reading.top)
                        .map(|(id, _)| id.clone());
                    reading.unfolded = !reading.unfolded;
                    reading.lines =
                        super::lines::lines(&reading.view, reading.unfolded, self.palette);
                    reading.top = message
                        .and_then(|id| reading.lines.starts.iter().find(|(m, _)| *m == id))
                        .map_or(0, |(_, l)| *l);
                }
                KeyCode::Char('r') => return self.resume(),
                KeyCode::Char('?') => self.help = true,
                KeyCode::Char('s') => {
                    let row = reading.row.clone();
                    self.share(data, &row);
                }
                KeyCode::Char('R') => {
                    let row = reading.row.clone();
                    self.restore(data, &row);
                }
                KeyCode::Char('y') => {
                    let id = reading.row.provider_id.clone();
                    self.copy(id);
                }
                _ => return Next::Stay,
            }
            return Next::Draw;
        }
        let at = self.index();
        let rows = self.rows();
        match key.code {
            KeyCode::Char('q') => return Next::Quit,
            // Esc clears the query, then leaves the search; it never quits.
            KeyCode::Esc if self.tab == Tab::Search && !self.query.is_empty() => {
                self.query.clear();
                self.hits = None;
            }
            KeyCode::Esc if self.tab == Tab::Search => self.tab = Tab::Live,
            KeyCode::Esc => return Next::Stay,
            KeyCode::Char('?') => self.help = true,
            // In the search, ← → belong to the query line: Tab moves on.
            KeyCode::Right | KeyCode::Left if self.tab == Tab::Search => return Next::Stay,
            KeyCode::Tab | KeyCode::Right => {
                self.show(Tab::ALL[(at + 1) % Tab::ALL.len()], data);
            }
            KeyCode::BackTab | KeyCode::Left => {
                self.show(Tab::ALL[(at + Tab::ALL.len() - 1) % Tab::ALL.len()], data);
            }
            KeyCode::Char(c @ '1'..='4') => {
                self.show(Tab::ALL[(c as usize) - ('1' as usize)], data);
            }
            KeyCode::Char('g') if self.tab == Tab::Cost => {
                let next = Self::COST_GROUPS
                    .iter()
                    .position(|g| *g == self.cost_group)
                    .map_or(0, |n| (n + 1) % Self::COST_GROUPS.len());
                self.cost_group = Self::COST_GROUPS[next];
                self.load_cost(data);
            }
            KeyCode::Char('/') => self.tab = Tab::Search,
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected[at] = (self.selected[at] + 1).min(rows.saturating_sub(1));
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.selected[at] = self.selected[at].saturating_sub(1);
            }
            KeyCode::PageDown => {
                self.selected[at] = (self.selected[at] + height).min(rows.saturating_sub(1));
            }
            KeyCode::PageUp => self.selected[at] = self.selected[at].saturating_sub(height),
            KeyCode::Enter => {
                // The hits of what is typed, not of what was typed before.
                if self.search_due {
                    self.run_search(data);
                }
                self.enter(data);
            }
            KeyCode::Char('p') if self.tab == Tab::Live => self.pause(data, true),
            KeyCode::Char('u') if self.tab == Tab::Live => self.pause(data, false),
            KeyCode::Char('r') => return self.resume(),
            KeyCode::Char('s') if self.tab == Tab::History => {
                if let Some(row) = self.history.get(self.selected[1]).cloned() {
                    self.share(data, &row);
                }
            }
            KeyCode::Char('y') => {
                let id = match self.tab {
                    Tab::Live => self
                        .live
                        .get(self.selected[0])
                        .map(|r| r.session.session_id.to_string()),
                    Tab::History => self
                        .history
                        .get(self.selected[1])
                        .map(|r| r.provider_id.clone()),
                    Tab::Search => self
                        .hits
                        .as_ref()
                        .and_then(|h| h.hits.get(self.selected[2]))
                        .map(|h| h.conversation.provider_id.clone()),
                    Tab::Cost => None,
                };
                match id {
                    Some(id) => self.copy(id),
                    None => return Next::Stay,
                }
            }
            _ => return Next::Stay,
        }
        Next::Draw
    }

    fn share(&mut self, data: &Data, row: &ConversationRow) {
        self.status = match data.share(row) {
            Ok((path, redacted)) => format!(
                "shared as {path} ({redacted} value(s) redacted; `baton share` has every option)"
            ),
            Err(err) => format!("not shared: {}", err.message),
        };
    }

    fn restore(&mut self, data: &Data, row: &ConversationRow) {
        match data.restore(row) {
            Ok(restored) => {
                self.status = format!("restored {} file(s); r resumes it", restored.files.len());
                if let Some(reading) = self.reading.as_mut() {
                    reading.resume = data.open(row).ok().and_then(|(_, resume)| resume);
                }
            }
            Err(err) => self.status = format!("not restored: {}", err.message),
        }
    }

    fn copy(&mut self, id: String) {
        self.status = format!("copied {id}");
        self.clipboard = Some(id);
    }

    /// Shows `tab`, loading what it lists the first time.
    fn show(&mut self, tab: Tab, data: &Data) {
        self.tab = tab;
        match tab {
            Tab::History if self.history.is_empty() => self.load_history(data),
            Tab::Cost if self.cost.is_none() => self.load_cost(data),
            _ => {}
        }
    }

    fn enter(&mut self, data: &Data) {
        match self.tab {
            Tab::History => {
                if let Some(row) = self.history.get(self.selected[1]).cloned() {
                    self.open(data, &row, None);
                }
            }
            Tab::Search => {
                let hit = self
                    .hits
                    .as_ref()
                    .and_then(|h| h.hits.get(self.selected[2]))
                    .map(|h| (h.conversation.clone(), h.message_id.clone()));
                if let Some((row, message)) = hit {
                    self.open(data, &row, Some(&message));
                }
            }
            _ => {}
        }
    }

    /// Pauses or unpauses the selected live session, as the person at the terminal.
    fn pause(&mut self, data: &Data, pause: bool) {
        let Some(row) = self.live.get(self.selected[0]) else {
            return;
        };
        let id = row.session.session_id.to_string();
        let request = if pause {
            baton_core::commands::Request::Pause(baton_core::commands::PauseParams {
                session_id: id.clone(),
                reason: "paused from baton tui".to_owned(),
            })
        } else {
            baton_core::commands::Request::Unpause(baton_core::commands::SessionRef {
                session_id: id.clone(),
            })
        };
        self.status = match data.act(request) {
            Ok(_) => format!(
                "{} {}",
                if pause { "paused" } else { "unpaused" },
                row.session.session_id.short()
            ),
            Err(err) => err.message,
        };
        self.load_live(data, self.now);
    }

    /// Leaves with the resume command of the conversation read (or selected) printed.
    fn resume(&mut self) -> Next {
        let said = self
            .reading
            .as_ref()
            .and_then(|r| r.resume.as_ref())
            .map(|r| match (&r.command, &r.why_not) {
                (Some(command), _) => command.clone(),
                (None, Some(why)) => format!("# {why}"),
                (None, None) => String::new(),
            });
        match said.filter(|s| !s.is_empty()) {
            Some(command) => {
                self.on_exit = Some(command);
                Next::Quit
            }
            None => {
                self.status = "open a Claude Code or Codex conversation to resume it".to_owned();
                Next::Draw
            }
        }
    }
}
