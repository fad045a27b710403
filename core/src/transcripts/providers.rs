//! The one registry of the providers Baton reads: for each, its name, its one spelling on the
//! wire and in the index, how its files are recognised, where they live by default on Linux,
//! macOS and Windows and which variable moves them, the words of its settings, and what it
//! cannot give. Hosts iterate [`REGISTRY`] (through [`Provider::entry`]) rather than naming
//! providers; the readers themselves are the core's, dispatched on [`Provider`] by the ingest.
//!
//! Adding an agent is one folder of readers under `transcripts/` (a conversation reader and a
//! usage reader, fed whole lines, able to stop and go on), one [`Provider`] variant, one entry
//! here, one arm in [`crate::transcripts::readers::readers`], and its fixtures.

use crate::transcripts::Provider;

mod editors;
mod files;
mod homes;
mod registry;

pub use files::{
    above_levels, agent_of_transcript, is_companion, is_database_extension, passed_over,
    skipped_files, takes_companions, without_tokens,
};
pub use registry::REGISTRY;

/// What kind of source a provider's files are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A coding agent's transcripts, appended to as it works, in folders it keeps.
    Agent,
    /// A coding agent's sessions in a SQLite database it rewrites in place (OpenCode, Kilo
    /// CLI): read whole, with its write-ahead log, when either changes.
    Database,
    /// A coding agent's sessions each kept in one JSON document it rewrites whole as it
    /// changes (Amp's threads): read whole, through the agent's readers, when it changes.
    Document,
    /// A data export a person downloads (one `conversations.json`, zipped or not), read whole.
    Export,
}

/// A folder a path is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// The user's home folder (`~`, `%USERPROFILE%`).
    Home,
    /// The user's data folder (`~/.local/share`, `~/Library/Application Support`,
    /// `%APPDATA%`).
    Data,
    /// The root of the git repository the host runs in (Aider keeps its history there).
    Repository,
    /// The user's configuration folder (`~/.config`, `~/Library/Application Support`,
    /// `%APPDATA%`).
    Config,
    /// The user folder of each of these editors (VS Code and the editors built on it): one
    /// place per editor.
    Editors(&'static [Editor]),
}

/// An editor built on VS Code, by its user folder (`settings.json`, `globalStorage/`,
/// `workspaceStorage/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Editor {
    /// What its user folder is relative to.
    pub base: Base,
    /// Its user folder below it, `/`-separated.
    pub user: &'static str,
}

/// One default place: `path` below `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// What it is relative to.
    pub base: Base,
    /// The folders below it, `/`-separated.
    pub path: &'static str,
}

/// A variable the provider itself reads to move its folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Moved {
    /// Its name (`CLAUDE_CONFIG_DIR`).
    pub variable: &'static str,
    /// Whether it may list several folders, comma-separated.
    pub list: bool,
    /// The folder below each that holds the transcripts (`projects`).
    pub below: &'static str,
    /// Whether it names one of the agent's files rather than a folder that replaces its
    /// home (OpenCode's `OPENCODE_DB`, its database): that file is read as well as the
    /// home's, and a relative one is inside the home.
    pub file: bool,
}

/// Where a provider's files live when nothing says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Homes {
    /// On Linux (and other Unix systems).
    pub linux: &'static [Place],
    /// On macOS.
    pub macos: &'static [Place],
    /// On Windows.
    pub windows: &'static [Place],
    /// The variables that move them, the first set winning (none when the provider reads
    /// none).
    pub moved: &'static [Moved],
}

/// The operating systems a host may run on, for [`Homes::on`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    /// Linux and other Unix systems.
    Linux,
    /// macOS.
    Macos,
    /// Windows.
    Windows,
}

impl Homes {
    /// The default places on `system`.
    pub fn on(&self, system: System) -> &'static [Place] {
        match system {
            System::Linux => self.linux,
            System::Macos => self.macos,
            System::Windows => self.windows,
        }
    }
}

/// What a provider's files cannot give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gives {
    /// Token usage per response (the exports keep none).
    pub tokens: bool,
    /// A time on every message (some exports leave messages without one).
    pub every_timestamp: bool,
    /// Appended to while the agent works (read by what was added), rather than replaced whole.
    pub appended: bool,
    /// Its first line sets what every later line means (Codex's session line): a transcript
    /// followed from its end reads it first.
    pub first_line_sets_state: bool,
    /// The start of its transcripts' file names, when they have one (`rollout-`).
    pub file_prefix: Option<&'static str>,
    /// A session's project is settled from clues spread over its lines (working folders and
    /// the folder its transcript sits in), not read from one line (Claude Code).
    pub project_from_clues: bool,
    /// A message is written again whole whenever it changes, with the same id: the last copy
    /// replaces the earlier ones (Gemini CLI).
    pub replaced_by_id: bool,
}

/// Which files under a provider's folders are its transcripts, beyond their endings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Names {
    /// A folder every transcript sits in, at any depth (Gemini CLI keeps logs of its own
    /// beside its sessions, which are all under `chats/`).
    pub within: Option<&'static str>,
    /// Endings of files that are not transcripts though they sit beside them and end like
    /// one or like an export (Qwen Code's `<session>.ledger.jsonl` and `.runtime.json`).
    pub not_ending: &'static [&'static str],
    /// The agent's own folder (`.gemini`), which holds its settings, credentials and logs as
    /// well as its transcripts: a file found under it is read only when it is one of the
    /// transcripts under its default places.
    pub own_folder: Option<&'static str>,
    /// The one name its transcripts have (Copilot CLI's `events.jsonl`: a session's folder
    /// also keeps files the agent worked on), else a session id's, a UUID (its early flat
    /// layout, `<session>.jsonl`).
    pub only_named: Option<&'static str>,
    /// Whether a file named by a session id (a UUID) is one too, whatever `only_named` says
    /// (Copilot CLI's early flat layout).
    pub or_session_named: bool,
    /// Files beside each transcript that its readers are given too, read whole (a Cline
    /// task's folder keeps its model and workspace beside the panel's file).
    pub companions: &'static [&'static str],
    /// Whether its databases sit in folders below its home, one per session (`cursor-agent`'s
    /// `<workspace>/<chat>/store.db`): the home is walked, where an agent's one database sits
    /// at its top beside folders that are not walked.
    pub in_folders: bool,
    /// Files the agent keeps beside its transcripts that are none (exact names): a host
    /// walking a folder passes them over (VS Code's `workspace.json`, a Cline task's
    /// `context_history.json`).
    pub beside: &'static [&'static str],
    /// Files the agent keeps in a folder above its transcripts that say where they were made
    /// (VS Code's `workspace.json`, Gemini CLI's `projects.json`): a host finds the nearest
    /// and gives it to the readers with each transcript below it.
    pub above: &'static [Above],
}

/// A file an agent keeps in a transcript's folder or one above it that says where the
/// transcript was made or what it is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Above {
    /// Its name.
    pub name: &'static str,
    /// How far above the transcript's own folder it may be: 0 is that folder (Copilot CLI's
    /// `<session>/workspace.yaml` beside `events.jsonl`), 1 the folder holding it
    /// (`<workspace>/` for `<workspace>/chatSessions/<chat>.jsonl`).
    pub levels: usize,
}

/// One provider's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The provider.
    pub provider: Provider,
    /// Its one spelling on the wire, in the index and in a team's database (`claude_code`).
    pub key: &'static str,
    /// Its name for people (`Claude Code`).
    pub title: &'static str,
    /// Agent transcripts or an export.
    pub kind: Kind,
    /// The file name endings its files have (without the dot).
    pub extensions: &'static [&'static str],
    /// Where its files live by default.
    pub homes: Homes,
    /// The word of its settings: `BATON_MIRROR_<WORD>_DIR`, `BATON_MIRROR_<WORD>_ENABLED` and,
    /// lower-cased, `<word>_dirs` in `config.toml`'s `[mirror]` table and `--<word>-dir`.
    pub setting: &'static str,
    /// What its files hold.
    pub gives: Gives,
    /// Which files are its transcripts.
    pub names: Names,
    /// The starts of the agent names a work session records for it (`baton start --agent`,
    /// the hooks): a transcript is tied to a work session of a fitting agent.
    pub agent_names: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lists_every_provider_once_in_declaration_order() {
        assert_eq!(REGISTRY.len(), Provider::ALL.len());
        for (at, provider) in Provider::ALL.into_iter().enumerate() {
            assert_eq!(REGISTRY[at].provider, provider);
            assert_eq!(provider.entry().provider, provider);
        }
    }

    #[test]
    fn keys_and_settings_are_distinct() {
        for (i, a) in REGISTRY.iter().enumerate() {
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.key, b.key);
                assert_ne!(a.setting, b.setting);
            }
            assert_eq!(Provider::named(a.key), Some(a.provider));
        }
    }
}
