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

/// The folder inside `provider`'s data folder where it kept its sessions as a tree of files
/// before its database (OpenCode's and Kilo CLI's `storage`), read as a database is.
pub fn tree_folder(provider: Provider) -> Option<&'static str> {
    matches!(provider, Provider::Opencode | Provider::Kilo).then_some(opencode::legacy::STORAGE)
}

/// Reads a tree of files kept at `root` (its `storage` folder; `files` its files with their
/// bytes) as the database it became. `hint` is the agent whose folder it was found in.
pub fn read_tree<'a>(
    root: &str,
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    hint: Option<Provider>,
) -> Store {
    let mut tree = opencode::legacy::Tree::default();
    for (path, bytes) in files {
        tree.add(path, bytes);
    }
    Store::from_tree(root, tree, hint)
}

/// What a database that is no agent's is said to lack.
pub const WANTED: &str = "OpenCode's session, message and part tables, or Cursor's chat tables, or cursor-agent's meta and blobs";

impl Store {
    /// The store a tree of files read so far makes (`root` its `storage` folder).
    pub fn from_tree(root: &str, tree: opencode::legacy::Tree, hint: Option<Provider>) -> Store {
        let store = tree.finish();
        let provider = match hint {
            Some(p @ (Provider::Opencode | Provider::Kilo)) => p,
            _ => opencode::legacy::provider_of(root, &store),
        };
        Store::Opencode(provider, store)
    }

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
