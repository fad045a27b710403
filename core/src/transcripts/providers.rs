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

mod files;

pub use files::{agent_of_transcript, passed_over, skipped_files};

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
}

/// Any file with one of the provider's endings.
const ANY_NAME: Names = Names {
    within: None,
    not_ending: &[],
    own_folder: None,
    only_named: None,
    or_session_named: false,
};

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

const CLAUDE_HOME: &[Place] = &[
    Place {
        base: Base::Home,
        path: ".claude/projects",
    },
    Place {
        base: Base::Home,
        path: ".config/claude/projects",
    },
];

const CODEX_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".codex/sessions",
}];

const GEMINI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".gemini/tmp",
}];

const QWEN_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".qwen/projects",
}];

const OPENCODE_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/opencode",
}];

const KILO_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/kilo",
}];

const COPILOT_CLI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".copilot/session-state",
}];

const AMP_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/amp/threads",
}];

const AIDER_HOME: &[Place] = &[Place {
    base: Base::Repository,
    path: "",
}];

const CHATGPT_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".chatgpt/exports",
}];

const CLAUDE_AI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".claude/exports",
}];

/// What an agent's transcripts give.
const AGENT: Gives = Gives {
    tokens: true,
    every_timestamp: true,
    appended: true,
    first_line_sets_state: false,
    file_prefix: None,
    project_from_clues: false,
    replaced_by_id: false,
};

/// What an agent's database gives: every message has its time, and rows are rewritten in
/// place rather than appended.
const DATABASE: Gives = Gives {
    appended: false,
    ..AGENT
};

/// What an export gives.
const EXPORT: Gives = Gives {
    tokens: false,
    every_timestamp: false,
    appended: false,
    first_line_sets_state: false,
    file_prefix: None,
    project_from_clues: false,
    replaced_by_id: false,
};

/// Every provider, in the order reports list them.
pub const REGISTRY: [Entry; 11] = [
    Entry {
        provider: Provider::ClaudeCode,
        key: "claude_code",
        title: "Claude Code",
        kind: Kind::Agent,
        extensions: &["jsonl"],
        homes: Homes {
            linux: CLAUDE_HOME,
            macos: CLAUDE_HOME,
            windows: CLAUDE_HOME,
            moved: &[Moved {
                variable: "CLAUDE_CONFIG_DIR",
                list: true,
                below: "projects",
            }],
        },
        setting: "CLAUDE",
        gives: Gives {
            project_from_clues: true,
            ..AGENT
        },
        names: ANY_NAME,
        agent_names: &["claude"],
    },
    Entry {
        provider: Provider::Codex,
        key: "codex",
        title: "Codex",
        kind: Kind::Agent,
        extensions: &["jsonl"],
        homes: Homes {
            linux: CODEX_HOME,
            macos: CODEX_HOME,
            windows: CODEX_HOME,
            moved: &[Moved {
                variable: "CODEX_HOME",
                list: false,
                below: "sessions",
            }],
        },
        setting: "CODEX",
        gives: Gives {
            first_line_sets_state: true,
            file_prefix: Some("rollout-"),
            ..AGENT
        },
        names: ANY_NAME,
        agent_names: &["codex"],
    },
    Entry {
        provider: Provider::Gemini,
        key: "gemini",
        title: "Gemini CLI",
        kind: Kind::Agent,
        extensions: &["jsonl", "json"],
        homes: Homes {
            linux: GEMINI_HOME,
            macos: GEMINI_HOME,
            windows: GEMINI_HOME,
            moved: &[Moved {
                variable: "GEMINI_CLI_HOME",
                list: false,
                below: ".gemini/tmp",
            }],
        },
        setting: "GEMINI",
        gives: Gives {
            first_line_sets_state: true,
            replaced_by_id: true,
            ..AGENT
        },
        names: Names {
            within: Some("chats"),
            not_ending: &[],
            own_folder: Some(".gemini"),
            only_named: None,
            or_session_named: false,
        },
        agent_names: &["gemini"],
    },
    Entry {
        provider: Provider::Qwen,
        key: "qwen",
        title: "Qwen Code",
        kind: Kind::Agent,
        extensions: &["jsonl"],
        homes: Homes {
            linux: QWEN_HOME,
            macos: QWEN_HOME,
            windows: QWEN_HOME,
            moved: &[
                Moved {
                    variable: "QWEN_RUNTIME_DIR",
                    list: false,
                    below: "projects",
                },
                Moved {
                    variable: "QWEN_HOME",
                    list: false,
                    below: "projects",
                },
            ],
        },
        setting: "QWEN",
        gives: AGENT,
        names: Names {
            within: None,
            not_ending: &[".ledger.jsonl", ".runtime.json"],
            own_folder: Some(".qwen"),
            only_named: None,
            or_session_named: false,
        },
        agent_names: &["qwen"],
    },
    Entry {
        provider: Provider::Opencode,
        key: "opencode",
        title: "OpenCode",
        kind: Kind::Database,
        extensions: &["db"],
        // OpenCode keeps its data under the XDG folder on every system, Windows included.
        homes: Homes {
            linux: OPENCODE_HOME,
            macos: OPENCODE_HOME,
            windows: OPENCODE_HOME,
            moved: &[Moved {
                variable: "XDG_DATA_HOME",
                list: false,
                below: "opencode",
            }],
        },
        setting: "OPENCODE",
        gives: DATABASE,
        names: ANY_NAME,
        agent_names: &["opencode"],
    },
    Entry {
        provider: Provider::Kilo,
        key: "kilo",
        title: "Kilo CLI",
        kind: Kind::Database,
        extensions: &["db"],
        homes: Homes {
            linux: KILO_HOME,
            macos: KILO_HOME,
            windows: KILO_HOME,
            moved: &[Moved {
                variable: "XDG_DATA_HOME",
                list: false,
                below: "kilo",
            }],
        },
        setting: "KILO",
        gives: DATABASE,
        names: ANY_NAME,
        agent_names: &["kilo"],
    },
    Entry {
        provider: Provider::CopilotCli,
        key: "copilot_cli",
        title: "Copilot CLI",
        kind: Kind::Agent,
        extensions: &["jsonl"],
        homes: Homes {
            linux: COPILOT_CLI_HOME,
            macos: COPILOT_CLI_HOME,
            windows: COPILOT_CLI_HOME,
            moved: &[Moved {
                variable: "COPILOT_HOME",
                list: false,
                below: "session-state",
            }],
        },
        setting: "COPILOT_CLI",
        gives: Gives {
            first_line_sets_state: true,
            ..AGENT
        },
        names: Names {
            within: None,
            not_ending: &[],
            own_folder: Some(".copilot"),
            only_named: Some("events.jsonl"),
            or_session_named: true,
        },
        agent_names: &["copilot"],
    },
    Entry {
        provider: Provider::Amp,
        key: "amp",
        title: "Amp",
        kind: Kind::Document,
        extensions: &["json"],
        // Amp keeps its data under the XDG folder on macOS too.
        homes: Homes {
            linux: AMP_HOME,
            macos: AMP_HOME,
            windows: AMP_HOME,
            moved: &[Moved {
                variable: "XDG_DATA_HOME",
                list: false,
                below: "amp/threads",
            }],
        },
        setting: "AMP",
        gives: Gives {
            appended: false,
            file_prefix: Some("T-"),
            ..AGENT
        },
        names: ANY_NAME,
        agent_names: &["amp"],
    },
    Entry {
        provider: Provider::Aider,
        key: "aider",
        title: "Aider",
        kind: Kind::Agent,
        extensions: &["md"],
        // Aider writes its history at the root of the repository it runs in.
        homes: Homes {
            linux: AIDER_HOME,
            macos: AIDER_HOME,
            windows: AIDER_HOME,
            moved: &[],
        },
        setting: "AIDER",
        gives: Gives {
            every_timestamp: false,
            ..AGENT
        },
        names: Names {
            within: None,
            not_ending: &[],
            own_folder: None,
            only_named: Some(".aider.chat.history.md"),
            or_session_named: false,
        },
        agent_names: &["aider"],
    },
    Entry {
        provider: Provider::Chatgpt,
        key: "chatgpt",
        title: "ChatGPT export",
        kind: Kind::Export,
        extensions: &["json", "zip"],
        homes: Homes {
            linux: CHATGPT_HOME,
            macos: CHATGPT_HOME,
            windows: CHATGPT_HOME,
            moved: &[],
        },
        setting: "CHATGPT",
        gives: EXPORT,
        names: ANY_NAME,
        agent_names: &[],
    },
    Entry {
        provider: Provider::ClaudeAi,
        key: "claude_ai",
        title: "claude.ai export",
        kind: Kind::Export,
        extensions: &["json", "zip"],
        homes: Homes {
            linux: CLAUDE_AI_HOME,
            macos: CLAUDE_AI_HOME,
            windows: CLAUDE_AI_HOME,
            moved: &[],
        },
        setting: "CLAUDE_AI",
        gives: EXPORT,
        names: ANY_NAME,
        agent_names: &[],
    },
];

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
