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

/// What a click on a row of the screen hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hit {
    /// The n-th row of the tab's list.
    Row(usize),
    /// The n-th attention item.
    Attention(usize),
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
    pub(crate) last_click: Option<(Tab, Hit, std::time::Instant)>,
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
