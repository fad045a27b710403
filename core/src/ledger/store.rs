//! The storage traits every host implements, and the in-memory ledger the core's tests use.
//!
//! A host provides two doors: [`LedgerView`] answers questions about folded state, and
//! [`EventLog`] durably appends encoded lines. The native host backs them with files and a
//! checkpoint; the wasm ABI and the tests back them with [`MemoryLedger`].

use crate::error::Result;
use crate::ids::SessionId;
use crate::ledger::fold::{Fold, SessionHistory};
use crate::ledger::session::Session;

/// Read access to a ledger's folded state.
pub trait LedgerView {
    /// The distinct events of one session, if any are known.
    fn history(&self, id: SessionId) -> Result<Option<SessionHistory>>;

    /// One session, if its start is known.
    fn session(&self, id: SessionId) -> Result<Option<Session>> {
        Ok(self.history(id)?.and_then(|h| h.session()))
    }

    /// Every live session.
    fn live_sessions(&self) -> Result<Vec<Session>>;
    /// Every session, live or ended.
    fn all_sessions(&self) -> Result<Vec<Session>>;
}

/// Durable, whole-line appends.
pub trait EventLog {
    /// Appends one encoded event line (without newline). It happens whole or not at all.
    fn append(&mut self, line: &str) -> Result<()>;
}

/// A ledger held in memory: the lines as written and their fold.
#[derive(Debug, Default, Clone)]
pub struct MemoryLedger {
    lines: Vec<String>,
    bytes: u64,
    fold: Fold,
}

impl MemoryLedger {
    /// An empty ledger.
    pub fn new() -> MemoryLedger {
        MemoryLedger::default()
    }

    /// A ledger loaded from NDJSON text: event lines, and rollup lines from archives
    /// (unreadable lines are counted, not fatal).
    pub fn from_ndjson(text: &[u8]) -> MemoryLedger {
        let mut fold = Fold::new();
        crate::ledger::compaction::fold_archive(&mut fold, text, "memory");
        let lines = String::from_utf8_lossy(text)
            .lines()
            .map(str::to_owned)
            .collect();
        MemoryLedger {
            lines,
            bytes: text.len() as u64,
            fold,
        }
    }

    /// A ledger over events folded elsewhere (a team's server): no lines of its own.
    pub fn from_fold(fold: Fold) -> MemoryLedger {
        MemoryLedger {
            lines: Vec::new(),
            bytes: 0,
            fold,
        }
    }

    /// The lines appended so far (and any loaded).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The fold of everything in the ledger.
    pub fn fold(&self) -> &Fold {
        &self.fold
    }
}

impl LedgerView for MemoryLedger {
    fn history(&self, id: SessionId) -> Result<Option<SessionHistory>> {
        Ok(self.fold.history(id).cloned())
    }

    fn live_sessions(&self) -> Result<Vec<Session>> {
        Ok(self
            .fold
            .sessions()
            .into_iter()
            .filter(Session::is_live)
            .collect())
    }

    fn all_sessions(&self) -> Result<Vec<Session>> {
        Ok(self.fold.sessions())
    }
}

impl LedgerView for Fold {
    fn history(&self, id: SessionId) -> Result<Option<SessionHistory>> {
        Ok(Fold::history(self, id).cloned())
    }

    fn live_sessions(&self) -> Result<Vec<Session>> {
        Ok(self
            .sessions()
            .into_iter()
            .filter(Session::is_live)
            .collect())
    }

    fn all_sessions(&self) -> Result<Vec<Session>> {
        Ok(self.sessions())
    }
}

impl EventLog for MemoryLedger {
    fn append(&mut self, line: &str) -> Result<()> {
        self.fold.apply_line(line.as_bytes(), "memory", self.bytes);
        self.bytes += line.len() as u64 + 1;
        self.lines.push(line.to_owned());
        Ok(())
    }
}
