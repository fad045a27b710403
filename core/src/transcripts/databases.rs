//! An agent's SQLite database, whichever agent keeps one (OpenCode and Kilo CLI; Cursor's
//! editor store and `cursor-agent`'s): known by its tables, read whole, and asked for each session's mark (what
//! says it changed), its conversations and its usage rows. The ingest and the host's mirror
//! ask this, and never name the agents.

use crate::error::Result;
use crate::transcripts::conversation::Parsed;
use crate::transcripts::sqlite::Database;
use crate::transcripts::{Provider, ReadStats, UsageEntry, cursor, opencode};
use std::collections::{HashMap, HashSet};

pub use crate::transcripts::mark::Mark;

/// What an agent's database holds.
#[derive(Debug, Clone)]
pub enum Store {
    /// OpenCode's or Kilo CLI's sessions, messages and parts.
    Opencode(Provider, opencode::Store),
    /// Cursor's chats.
    Cursor(cursor::Store),
    /// One `cursor-agent` chat.
    CursorCli(cursor::CliChat),
}

/// Reads the database `db` (named `name`) when it is an agent's, `None` when its tables are
/// none the agents keep. `hint` is the agent whose folder it was found in, if any: OpenCode's
/// tables in Kilo's folder are Kilo's.
pub fn read(name: &str, db: &Database<'_>, hint: Option<Provider>) -> Result<Option<Store>> {
    if let Some(tables) = opencode::tables(db)? {
        let store = opencode::read(db, &tables)?;
        let provider = match hint {
            Some(p @ (Provider::Opencode | Provider::Kilo)) => p,
            _ => opencode::provider_of(name, &store),
        };
        return Ok(Some(Store::Opencode(provider, store)));
    }
    if let Some(tables) = cursor::tables(db)? {
        return Ok(Some(Store::Cursor(cursor::read(db, &tables)?)));
    }
    if let Some(tables) = cursor::cli_tables(db)? {
        return Ok(Some(Store::CursorCli(cursor::read_cli(name, db, &tables)?)));
    }
    Ok(None)
}

/// What a database that is no agent's is said to lack.
pub const WANTED: &str = "OpenCode's session, message and part tables, or Cursor's chat tables, or cursor-agent's meta and blobs";

impl Store {
    /// The agent whose database it is.
    pub fn provider(&self) -> Provider {
        match self {
            Store::Opencode(provider, _) => *provider,
            Store::Cursor(_) => Provider::Cursor,
            Store::CursorCli(_) => Provider::CursorCli,
        }
    }

    /// Each top session's mark: a session whose mark moved is read again.
    pub fn marks(&self) -> HashMap<String, Mark> {
        match self {
            Store::Opencode(_, store) => store.marks(),
            Store::Cursor(store) => store.marks(),
            Store::CursorCli(chat) => HashMap::from([(chat.id.clone(), chat.mark)]),
        }
    }

    /// Keeps only the top sessions `ids` and what is theirs.
    pub fn keep_only(&mut self, ids: &HashSet<String>) {
        match self {
            Store::Opencode(_, store) => store.keep_only(ids),
            Store::Cursor(store) => store.keep_only(ids),
            Store::CursorCli(chat) => {
                if !ids.contains(&chat.id) {
                    chat.messages.clear();
                }
            }
        }
    }

    /// The conversations it holds.
    pub fn conversations(&self) -> Parsed {
        match self {
            Store::Opencode(provider, store) => opencode::conversations(*provider, store),
            Store::Cursor(store) => cursor::conversations(store),
            Store::CursorCli(chat) => {
                let mut parsed = Parsed {
                    stats: chat.stats.clone(),
                    ..Parsed::default()
                };
                cursor::cli_conversation(chat, &mut parsed);
                parsed
            }
        }
    }

    /// Its usage rows, each with its response's key (none for Cursor, which keeps no tokens).
    pub fn usage_rows(&self) -> Vec<(UsageEntry, u128)> {
        match self {
            Store::Opencode(provider, store) => opencode::usage_rows(*provider, store),
            Store::Cursor(_) | Store::CursorCli(_) => Vec::new(),
        }
    }

    /// What reading it met.
    pub fn stats(&self) -> &ReadStats {
        match self {
            Store::Opencode(_, store) => &store.stats,
            Store::Cursor(store) => &store.stats,
            Store::CursorCli(chat) => &chat.stats,
        }
    }
}
