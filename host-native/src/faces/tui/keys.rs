//! What a key or the mouse does in the terminal UI: moving between tabs and rows, typing a
//! query or History's filter line, scrolling the reader and a session's details, and the
//! actions (read, resume, restore, share, copy an id, pause, unpause, mark attention done).

use super::app::{App, Hit, Listing, Next, Tab};
use super::data::Data;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// How many rows a turn of the wheel scrolls the reader.
const WHEEL: usize = 3;

/// The longest between two clicks on a row that open it.
const DOUBLE_CLICK: std::time::Duration = std::time::Duration::from_millis(600);

/// Moves a scroll position by a key; `None` when the key is not one that scrolls.
fn scrolled(code: KeyCode, top: usize, last: usize, height: usize) -> Option<usize> {
    let page = height.max(1);
    Some(match code {
        KeyCode::Down | KeyCode::Char('j') => (top + 1).min(last),
        KeyCode::Up | KeyCode::Char('k') => top.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => (top + page).min(last),
        KeyCode::PageUp => top.saturating_sub(page),
        KeyCode::Home | KeyCode::Char('g') => 0,
        KeyCode::End | KeyCode::Char('G') => last,
        _ => return None,
    })
}

impl App {
    /// What `key` does; `height` is the body's height (for page keys).
    pub(crate) fn key(&mut self, key: KeyEvent, data: &Data, height: usize) -> Next {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Ctrl-U empties the line being typed (the filter, the query), as in a shell.
        if ctrl && key.code == KeyCode::Char('u') {
            if let Some(line) = self.filter_edit.as_mut() {
                line.clear();
                return Next::Draw;
            }
            if self.tab == Tab::Search && self.reading.is_none() && self.detail.is_none() {
                self.query.clear();
                self.search_due = true;
                return Next::Draw;
            }
        }
        // Alt with r, R, s or y acts on the row selected wherever letters are typed (a search
        // hit, while the query line has the keys).
        if key.modifiers.contains(KeyModifiers::ALT) && !ctrl && self.filter_edit.is_none() {
            return match key.code {
                KeyCode::Char(c @ ('r' | 'R' | 's' | 'y')) => self.act(KeyCode::Char(c), data),
                _ => Next::Stay,
            };
        }
        match key.code {
            KeyCode::Char('c') if ctrl => return Next::Quit,
            KeyCode::Char('l') if ctrl => {
                self.refresh(data);
                return Next::Draw;
            }
            KeyCode::F(5) => {
                self.refresh(data);
                return Next::Draw;
            }
            // No other Ctrl chord is a key here (Ctrl-P must not pause a session).
            _ if ctrl => return Next::Stay,
            _ => {}
        }
        if self.help {
            self.help = false;
            return Next::Draw;
        }
        if let Some(line) = self.filter_edit.as_mut() {
            match key.code {
                KeyCode::Char(c) => line.push(c),
                KeyCode::Backspace => {
                    line.pop();
                }
                KeyCode::Enter => {
                    self.filter = self.filter_edit.take().unwrap_or_default();
                    self.status.clear();
                    self.selected[1] = 0;
                    self.load_history(data);
                }
                KeyCode::Esc => self.filter_edit = None,
                _ => return Next::Stay,
            }
            return Next::Draw;
        }
        if self.tab == Tab::Search && self.reading.is_none() && self.detail.is_none() {
            match key.code {
                KeyCode::Char(c) => {
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
        if self.reading.is_some() {
            return self.reader_key(key.code, data, height);
        }
        if self.detail.is_some() {
            return self.detail_key(key.code, data, height);
        }
        self.list_key(key.code, data, height)
    }

    fn reader_key(&mut self, code: KeyCode, data: &Data, height: usize) -> Next {
        let Some(reading) = self.reading.as_mut() else {
            return Next::Stay;
        };
        let last = reading.lines.lines.len().saturating_sub(1);
        if let Some(top) = scrolled(code, reading.top, last, height) {
            reading.top = top;
            return Next::Draw;
        }
        match code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Left => self.reading = None,
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
                let message = reading.message_at_top();
                reading.unfolded = !reading.unfolded;
                reading.lines = super::lines::lines(
                    &reading.view,
                    reading.unfolded,
                    self.palette,
                    self.size.0.saturating_sub(1),
                );
                reading.top = reading.line_of(message.as_deref());
            }
            _ => return self.act(code, data),
        }
        Next::Draw
    }

    fn detail_key(&mut self, code: KeyCode, data: &Data, height: usize) -> Next {
        let Some(detail) = self.detail.as_mut() else {
            return Next::Stay;
        };
        let last = detail.lines.lines.len().saturating_sub(1);
        if let Some(top) = scrolled(code, detail.top, last, height) {
            detail.top = top;
            return Next::Draw;
        }
        match code {
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Left => self.detail = None,
            KeyCode::Char('p') => self.pause(data, true),
            KeyCode::Char('u') => self.pause(data, false),
            _ => return self.act(code, data),
        }
        Next::Draw
    }

    /// The actions that work on whatever is selected or open: help, resume, restore, share,
    /// copy its id.
    fn act(&mut self, code: KeyCode, data: &Data) -> Next {
        match code {
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('r') => return self.resume(data),
            KeyCode::Char('R') => match self.conversation() {
                Some(row) => self.restore(data, &row),
                None => self.status = "only a kept conversation can be restored".to_owned(),
            },
            KeyCode::Char('s') => {
                use crate::ops::share::Subject;
                let subject = match (self.conversation(), self.session_id()) {
                    (Some(row), _) => Subject::Conversation(row.provider_id),
                    (None, Some(id)) => Subject::Session(id),
                    (None, None) => return Next::Stay,
                };
                self.share(data, subject);
            }
            KeyCode::Char('y') => {
                let id = self
                    .conversation()
                    .map(|row| row.provider_id)
                    .or_else(|| self.session_id());
                match id {
                    Some(id) => self.copy(id),
                    None => return Next::Stay,
                }
            }
            _ => return Next::Stay,
        }
        Next::Draw
    }

    fn list_key(&mut self, code: KeyCode, data: &Data, height: usize) -> Next {
        let at = self.index();
        let rows = self.rows();
        match code {
            KeyCode::Char('q') => return Next::Quit,
            // Esc clears the query, then leaves the search; it never quits.
            KeyCode::Esc if self.tab == Tab::Search && !self.query.is_empty() => {
                self.query.clear();
                self.hits = None;
            }
            KeyCode::Esc if self.tab == Tab::Search => self.tab = Tab::Live,
            KeyCode::Esc if self.attention_focus => self.attention_focus = false,
            KeyCode::Esc => return Next::Stay,
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
            KeyCode::Down
            | KeyCode::Char('j')
            | KeyCode::Up
            | KeyCode::Char('k')
            | KeyCode::PageDown
            | KeyCode::PageUp => {
                let step = match code {
                    KeyCode::PageDown | KeyCode::PageUp => height.max(1),
                    _ => 1,
                };
                let down = matches!(code, KeyCode::Down | KeyCode::Char('j') | KeyCode::PageDown);
                self.move_by(step, down);
            }
            KeyCode::Enter => {
                // The hits of what is typed, not of what was typed before.
                if self.search_due {
                    self.run_search(data);
                }
                self.enter(data);
            }
            KeyCode::Char('p') if self.tab == Tab::Live => self.pause(data, true),
            KeyCode::Char('u') if self.tab == Tab::Live => self.pause(data, false),
            KeyCode::Char('a') if self.tab == Tab::Live => {
                self.attention_focus = !self.attention_focus && !self.attention.is_empty();
                if self.attention.is_empty() {
                    self.status = "nothing needs your attention".to_owned();
                }
            }
            KeyCode::Char('d') if self.tab == Tab::Live && self.attention_focus => {
                self.attention_done(data);
            }
            KeyCode::Char('w') if self.tab == Tab::History => {
                self.listing = match self.listing {
                    Listing::Conversations => Listing::Sessions,
                    Listing::Sessions => Listing::Conversations,
                };
                self.status.clear();
                self.selected[1] = 0;
                self.load_history(data);
            }
            KeyCode::Char('f') if self.tab == Tab::History => {
                self.filter_edit = Some(self.filter.clone());
            }
            _ if rows == 0 && !self.attention_focus && !matches!(code, KeyCode::Char('?')) => {
                return Next::Stay;
            }
            _ => return self.act(code, data),
        }
        Next::Draw
    }

    /// Moves the selection `step` rows down or up (in the attention items when they have the
    /// focus).
    fn move_by(&mut self, step: usize, down: bool) {
        let (selected, rows) = if self.tab == Tab::Live && self.attention_focus {
            (&mut self.attention_selected, self.attention.len())
        } else {
            let at = self.index();
            let rows = self.rows();
            (&mut self.selected[at], rows)
        };
        *selected = if down {
            (*selected + step).min(rows.saturating_sub(1))
        } else {
            selected.saturating_sub(step)
        };
    }

    /// What the mouse does: the wheel scrolls (the reader, the details, a list), a click on
    /// a tab shows it, a click on a row selects it and a second click opens it.
    pub(crate) fn mouse(&mut self, event: MouseEvent, data: &Data) -> Next {
        let (column, row) = (event.column, event.row);
        // The help closes on a click; while a filter is typed, the mouse waits.
        if self.help || self.filter_edit.is_some() {
            if self.help && matches!(event.kind, MouseEventKind::Down(_)) {
                self.help = false;
                return Next::Draw;
            }
            return Next::Stay;
        }
        match event.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = event.kind == MouseEventKind::ScrollDown;
                let scroll = |top: &mut usize, last: usize| {
                    *top = if down {
                        (*top + WHEEL).min(last)
                    } else {
                        top.saturating_sub(WHEEL)
                    };
                };
                if let Some(reading) = self.reading.as_mut() {
                    scroll(
                        &mut reading.top,
                        reading.lines.lines.len().saturating_sub(1),
                    );
                } else if let Some(detail) = self.detail.as_mut() {
                    scroll(&mut detail.top, detail.lines.lines.len().saturating_sub(1));
                } else {
                    self.move_by(1, down);
                }
                Next::Draw
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if row == 0 {
                    return match super::draw::tab_at(column) {
                        Some(tab) => {
                            self.reading = None;
                            self.detail = None;
                            self.show(tab, data);
                            Next::Draw
                        }
                        None => Next::Stay,
                    };
                }
                if self.reading.is_some() || self.detail.is_some() {
                    return Next::Stay;
                }
                let Some(hit) = super::draw::row_at(self, row) else {
                    return Next::Stay;
                };
                // A second click on the same row soon after the first opens it.
                let now = std::time::Instant::now();
                let again = self.last_click.is_some_and(|(tab, was, at)| {
                    tab == self.tab && was == hit && now.duration_since(at) <= DOUBLE_CLICK
                });
                self.last_click = Some((self.tab, hit, now));
                match hit {
                    Hit::Row(n) => {
                        let at = self.index();
                        self.attention_focus = false;
                        self.selected[at] = n;
                    }
                    Hit::Attention(n) => {
                        self.attention_focus = true;
                        self.attention_selected = n;
                    }
                }
                if again {
                    self.last_click = None;
                    self.enter(data);
                }
                Next::Draw
            }
            _ => Next::Stay,
        }
    }
}
