//! What the terminal UI does when asked: open a conversation (at a search hit's line) or a
//! work session's details, mark an attention item done, pause and unpause as the person at the
//! terminal, resume, restore, share, copy an id; and which conversation or session the rows
//! and panes stand for. Each action is a host operation's, through [`Data`].

use super::app::{App, Detail, Listing, Next, Reading, Tab};
use super::data::Data;
use crate::ops::mirror::query::ConversationRow;

impl App {
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
