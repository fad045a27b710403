//! The terminal UI's state and what it can do: four tabs (live sessions with attention,
//! history of conversations and work sessions, search, cost), a reader over a conversation, a
//! work session's details, a help overlay; what to load or change is asked of [`Data`], the
//! keys and the mouse are read in `keys`, and nothing here draws (see `draw`).

use super::data::Data;
use super::lines::{Lines, Palette};
use crate::ops::mirror::query::{ConversationRow, Filters, HitPage};
use baton_core::Timestamp;
use baton_core::analyzer::ConversationView;

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

/// What the History tab lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Listing {
    /// Every agent's kept conversations (the index).
    Conversations,
    /// The work sessions of the ledger, ended ones too.
    Sessions,
}

/// A work session's details open over the tab.
pub(crate) struct Detail {
    pub(crate) session_id: String,
    pub(crate) text: String,
    pub(crate) lines: Lines,
    pub(crate) top: usize,
    pub(crate) resume: Option<crate::ops::mirror::restore::Resume>,
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
    /// What History lists.
    pub(crate) listing: Listing,
    /// The work sessions History lists.
    pub(crate) sessions: Vec<baton_core::ledger::session::Session>,
    /// History's filter line as applied, and as being typed (`f`).
    pub(crate) filter: String,
    pub(crate) filter_edit: Option<String>,
    /// The filters search uses (History's filter line, for conversations).
    pub(crate) filters: Filters,
    /// Whether ↑ ↓ move in the live tab's attention items rather than its sessions.
    pub(crate) attention_focus: bool,
    pub(crate) attention_selected: usize,
    pub(crate) detail: Option<Detail>,
    /// The screen's size, for wrapping the reader and finding what a click hit.
    pub(crate) size: (u16, u16),
    /// The last click on a row: its tab, what it hit and when (two make a double click).
    pub(crate) last_click: Option<(Tab, super::draw::Hit, std::time::Instant)>,
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
    /// Each day's cost over the same days, for the sparkline.
    pub(crate) cost_days: Vec<(String, f64)>,
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
            listing: Listing::Conversations,
            sessions: Vec::new(),
            filter: String::new(),
            filter_edit: None,
            filters: Filters::default(),
            attention_focus: false,
            attention_selected: 0,
            detail: None,
            size: (80, 24),
            last_click: None,
            query: String::new(),
            hits: None,
            searched: String::new(),
            search_due: false,
            selected: [0; 4],
            reading: None,
            cost_group: baton_core::transcripts::usage::GroupBy::Daily,
            cost: None,
            cost_days: Vec::new(),
            cost_all_time: false,
            budgets: Vec::new(),
            help: false,
            status: String::new(),
            on_exit: None,
            clipboard: None,
            pricing: false,
        }
    }

    pub(crate) fn index(&self) -> usize {
        Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0)
    }

    /// How many rows the current tab lists.
    pub(crate) fn rows(&self) -> usize {
        match self.tab {
            Tab::Live => self.live.len(),
            Tab::History => match self.listing {
                Listing::Conversations => self.history.len(),
                Listing::Sessions => self.sessions.len(),
            },
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

    /// Loads the history with the filter line applied: the words a listing cannot use are
    /// said at the foot.
    pub(crate) fn load_history(&mut self, data: &Data) {
        let filter = match super::filter::Filter::read(&self.filter) {
            Ok(filter) => filter,
            Err(err) => {
                self.status = err.message;
                return;
            }
        };
        let unused = match self.listing {
            Listing::Conversations => {
                let (asked, unused) = filter.conversations();
                let read = Filters::read(&asked).and_then(|filters| {
                    let page = data.history(&filters, 500)?;
                    self.filters = filters;
                    Ok(page)
                });
                match read {
                    Ok(page) => {
                        self.history = page.conversations;
                        self.history_total = page.total;
                    }
                    Err(err) => self.status = err.message,
                }
                unused
            }
            Listing::Sessions => {
                // Search takes the conversations' side of the line whichever list shows.
                if let Ok(filters) = Filters::read(&filter.conversations().0) {
                    self.filters = filters;
                }
                match filter.sessions().and_then(|(asked, unused)| {
                    data.sessions(asked).map(|sessions| (sessions, unused))
                }) {
                    Ok((sessions, unused)) => {
                        self.sessions = sessions;
                        unused
                    }
                    Err(err) => {
                        self.status = err.message;
                        Vec::new()
                    }
                }
            }
        };
        if !unused.is_empty() {
            self.status = format!(
                "{} filter{} {} only",
                unused.join(" and "),
                if unused.len() > 1 { "" } else { "s" },
                match self.listing {
                    Listing::Conversations => "work sessions (w lists them)",
                    Listing::Sessions => "conversations (w lists them)",
                }
            );
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
        use baton_core::transcripts::usage::GroupBy;
        let days = if self.cost_group == GroupBy::Daily {
            Ok(self.cost.clone())
        } else {
            data.usage(GroupBy::Daily, (!self.cost_all_time).then_some(since))
        };
        self.cost_days = days
            .ok()
            .flatten()
            .map(|r| every_day(r.rows.iter().map(|r| (r.key.as_str(), r.cost_usd))))
            .unwrap_or_default();
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

    pub(crate) fn clamp(&mut self) {
        // Every tab's selection: a list read again behind another tab may have shrunk.
        let history = match self.listing {
            Listing::Conversations => self.history.len(),
            Listing::Sessions => self.sessions.len(),
        };
        let hits = self.hits.as_ref().map_or(0, |h| h.hits.len());
        for (n, rows) in [self.live.len(), history, hits, 0].into_iter().enumerate() {
            self.selected[n] = self.selected[n].min(rows.saturating_sub(1));
        }
        self.attention_selected = self
            .attention_selected
            .min(self.attention.len().saturating_sub(1));
        if self.attention.is_empty() {
            self.attention_focus = false;
        }
    }

    /// Reads again what the tab shows (F5, Ctrl-L).
    pub(crate) fn refresh(&mut self, data: &Data) {
        self.status.clear();
        match self.tab {
            Tab::Live => self.load_live(data, crate::os::system::now().unwrap_or(self.now)),
            Tab::History => self.load_history(data),
            Tab::Search => self.search_due = true,
            Tab::Cost => self.load_cost(data),
        }
    }

    /// The reader's width for a screen `width` columns wide.
    pub(crate) fn reader_width(&self) -> u16 {
        self.size.0.saturating_sub(1)
    }

    /// The screen is now `size`: the reader and the details are wrapped again, the line at
    /// the top kept in view.
    pub(crate) fn resize(&mut self, size: (u16, u16)) {
        if size == self.size {
            return;
        }
        self.size = size;
        let width = self.reader_width();
        let palette = self.palette;
        if let Some(reading) = self.reading.as_mut() {
            let message = reading.message_at_top();
            reading.lines = super::lines::lines(&reading.view, reading.unfolded, palette, width);
            reading.top = reading.line_of(message.as_deref());
        }
        if let Some(detail) = self.detail.as_mut() {
            let fraction = detail.top as f64 / detail.lines.lines.len().max(1) as f64;
            detail.lines = super::lines::text(&detail.text, palette, width);
            detail.top = (fraction * detail.lines.lines.len() as f64) as usize;
        }
    }

    /// Opens work session `id`'s details.
    pub(crate) fn open_session(&mut self, data: &Data, id: &str) {
        match data.show(id, self.reader_width()) {
            Ok((text, resume)) => {
                self.detail = Some(Detail {
                    session_id: id.to_owned(),
                    lines: super::lines::text(&text, self.palette, self.reader_width()),
                    text,
                    top: 0,
                    resume,
                });
            }
            Err(err) => self.status = format!("could not show it: {}", err.message),
        }
    }

    /// Marks the selected attention item done, as the person at the terminal.
    pub(crate) fn attention_done(&mut self, data: &Data) {
        let Some(item) = self.attention.get(self.attention_selected) else {
            return;
        };
        let number = item.number;
        let request = baton_core::commands::Request::AttentionDone(
            baton_core::commands::AttentionDoneParams {
                numbers: vec![number],
                note: Some("done from baton tui".to_owned()),
                ..Default::default()
            },
        );
        self.status = match data.act(request) {
            Ok(_) => format!("attention #{number} done"),
            Err(err) => err.message,
        };
        self.attention = data.attention().unwrap_or_default();
        self.clamp();
    }

    pub(crate) fn open(&mut self, data: &Data, row: &ConversationRow, at_message: Option<&str>) {
        match data.open(row) {
            Ok((view, resume)) => {
                let lines = super::lines::lines(&view, false, self.palette, self.reader_width());
                let mut reading = Reading {
                    view,
                    row: row.clone(),
                    lines,
                    top: 0,
                    unfolded: false,
                    resume,
                };
                reading.top = reading.line_of(at_message);
                if at_message.is_some() {
                    reading.top = reading.hit_line(&self.searched, self.size.1);
                }
                self.reading = Some(reading);
            }
            Err(err) => self.status = format!("could not open it: {err}"),
        }
    }

    pub(crate) fn share(&mut self, data: &Data, subject: crate::ops::share::Subject) {
        self.status = match data.share(&subject) {
            Ok((path, redacted)) => format!(
                "shared as {path} ({redacted} value(s) redacted; `baton share` has every option)"
            ),
            Err(err) => format!("not shared: {}", err.message),
        };
    }

    pub(crate) fn restore(&mut self, data: &Data, row: &ConversationRow) {
        match data.restore(row) {
            Ok(restored) => {
                self.status = format!("restored {} file(s); r resumes it", restored.files.len());
                if let Some(reading) = self.reading.as_mut() {
                    reading.resume = data.resume(row).ok().flatten();
                }
            }
            Err(err) => self.status = format!("not restored: {}", err.message),
        }
    }

    pub(crate) fn copy(&mut self, id: String) {
        self.status = format!("copied {id}");
        self.clipboard = Some(id);
    }

    /// Shows `tab`, loading what it lists the first time.
    pub(crate) fn show(&mut self, tab: Tab, data: &Data) {
        self.tab = tab;
        match tab {
            Tab::History if self.history.is_empty() => self.load_history(data),
            Tab::Cost if self.cost.is_none() => self.load_cost(data),
            _ => {}
        }
    }

    pub(crate) fn enter(&mut self, data: &Data) {
        match self.tab {
            Tab::Live => {
                let id = if self.attention_focus {
                    self.attention
                        .get(self.attention_selected)
                        .map(|a| a.session_id.to_string())
                } else {
                    self.live
                        .get(self.selected[0])
                        .map(|r| r.session.session_id.to_string())
                };
                if let Some(id) = id {
                    self.open_session(data, &id);
                }
            }
            Tab::History if self.listing == Listing::Sessions => {
                if let Some(id) = self
                    .sessions
                    .get(self.selected[1])
                    .map(|s| s.session_id.to_string())
                {
                    self.open_session(data, &id);
                }
            }
            Tab::History => {
                if let Some(row) = self.history.get(self.selected[1]).cloned() {
                    self.open(data, &row, None);
                }
            }
            Tab::Search => {
                if let Some((row, message)) = self.hit() {
                    self.open(data, &row, Some(&message));
                }
            }
            Tab::Cost => {}
        }
    }

    /// The selected search hit: its conversation and message.
    pub(crate) fn hit(&self) -> Option<(ConversationRow, String)> {
        self.hits
            .as_ref()
            .and_then(|h| h.hits.get(self.selected[2]))
            .map(|h| (h.conversation.clone(), h.message_id.clone()))
    }

    /// The conversation the selected row is (History's conversations, a search hit), or the
    /// one being read.
    pub(crate) fn conversation(&self) -> Option<ConversationRow> {
        if let Some(reading) = &self.reading {
            return Some(reading.row.clone());
        }
        match self.tab {
            Tab::History if self.listing == Listing::Conversations => {
                self.history.get(self.selected[1]).cloned()
            }
            Tab::Search => self.hit().map(|(row, _)| row),
            _ => None,
        }
    }

    /// The work session the selected row is (live, History's sessions, an attention item),
    /// or the one whose details are open.
    pub(crate) fn session_id(&self) -> Option<String> {
        if let Some(detail) = &self.detail {
            return Some(detail.session_id.clone());
        }
        match self.tab {
            Tab::Live if self.attention_focus => self
                .attention
                .get(self.attention_selected)
                .map(|a| a.session_id.to_string()),
            Tab::Live => self
                .live
                .get(self.selected[0])
                .map(|r| r.session.session_id.to_string()),
            Tab::History if self.listing == Listing::Sessions => self
                .sessions
                .get(self.selected[1])
                .map(|s| s.session_id.to_string()),
            _ => None,
        }
    }

    /// Pauses or unpauses the selected live session, as the person at the terminal.
    pub(crate) fn pause(&mut self, data: &Data, pause: bool) {
        let Some(id) = self.session_id() else {
            return;
        };
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
                id.get(id.len().saturating_sub(8)..).unwrap_or(&id)
            ),
            Err(err) => err.message,
        };
        self.load_live(data, crate::os::system::now().unwrap_or(self.now));
        if let Some(detail) = &self.detail {
            let id = detail.session_id.clone();
            self.open_session(data, &id);
        }
    }

    /// Leaves with the resume command of what is read or selected printed (a conversation's,
    /// or a work session's agent session), or says why it cannot be resumed.
    pub(crate) fn resume(&mut self, data: &Data) -> super::app::Next {
        let resume = if let Some(reading) = &self.reading {
            reading.resume.clone()
        } else if let Some(detail) = &self.detail {
            detail.resume.clone()
        } else if let Some(row) = self.conversation() {
            data.resume(&row).ok().flatten()
        } else if let Some(id) = self.session_id() {
            data.show(&id, self.reader_width())
                .ok()
                .and_then(|(_, resume)| resume)
        } else {
            None
        };
        match resume {
            Some(crate::ops::mirror::restore::Resume {
                command: Some(command),
                ..
            }) => {
                self.on_exit = Some(command);
                Next::Quit
            }
            Some(crate::ops::mirror::restore::Resume {
                why_not: Some(why), ..
            }) => {
                self.status = format!("cannot be resumed as it is: {why}");
                Next::Draw
            }
            _ => {
                self.status =
                    "only a Claude Code or Codex session can be resumed from here".to_owned();
                Next::Draw
            }
        }
    }
}

/// Days (`YYYY-MM-DD`, in order) and their costs, with the days between them that had none
/// put in at zero.
pub(crate) fn every_day<'a>(days: impl Iterator<Item = (&'a str, f64)>) -> Vec<(String, f64)> {
    use chrono::NaiveDate;
    let mut out: Vec<(String, f64)> = Vec::new();
    for (key, cost) in days {
        let next = NaiveDate::parse_from_str(key, "%Y-%m-%d").ok();
        if let (Some(next), Some(last)) = (
            next,
            out.last()
                .and_then(|(d, _)| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()),
        ) {
            let mut day = last.succ_opt();
            // At most a year of empty days between two (a gap longer than that is drawn short).
            let mut room = 366;
            while let Some(d) = day.filter(|d| *d < next && room > 0) {
                out.push((d.format("%Y-%m-%d").to_string(), 0.0));
                day = d.succ_opt();
                room -= 1;
            }
        }
        out.push((key.to_owned(), cost));
    }
    out
}

impl Reading {
    /// The message whose lines are at the top of the reader.
    pub(crate) fn message_at_top(&self) -> Option<String> {
        self.lines
            .starts
            .iter()
            .rev()
            .find(|(_, l)| *l <= self.top)
            .map(|(id, _)| id.clone())
    }

    /// Where to put the top so that the first line of the message at the top holding a word
    /// of `query` shows, with the message's heading when the screen (`rows` high) has room.
    pub(crate) fn hit_line(&self, query: &str, rows: u16) -> usize {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 2)
            .map(str::to_lowercase)
            .collect();
        let start = self.top;
        let end = self
            .lines
            .starts
            .iter()
            .map(|(_, l)| *l)
            .find(|l| *l > start)
            .unwrap_or(self.lines.lines.len());
        let found = (start..end).find(|&n| {
            let text: String = self.lines.lines[n]
                .spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .to_lowercase();
            words.iter().any(|w| text.contains(w.as_str()))
        });
        let room = usize::from(rows.saturating_sub(8)).max(1);
        match found {
            Some(line) if line >= start + room => line.saturating_sub(2),
            _ => start,
        }
    }

    /// The first line of `message` (the top when there is none).
    pub(crate) fn line_of(&self, message: Option<&str>) -> usize {
        message
            .and_then(|id| self.lines.starts.iter().find(|(m, _)| m == id))
            .map_or(0, |(_, line)| *line)
    }
}
