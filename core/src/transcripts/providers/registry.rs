//! The registry's entries: each provider's name, files, default places, settings and what
//! its files give, in [`crate::transcripts::Provider`]'s declaration order (a test holds it).

use super::editors::{
    CURSOR_HOME, EXTENSION_EDITORS, EXTENSION_EDITORS_AND_SERVER, VS_CODES, VS_CODES_AND_SERVER,
};
use super::homes::*;
use super::{Above, Base, Entry, Gives, Homes, Kind, Moved, Names, Place};
use crate::transcripts::Provider;

/// Any file with one of the provider's endings.
const ANY_NAME: Names = Names {
    within: None,
    not_ending: &[],
    own_folder: None,
    only_named: None,
    or_session_named: false,
    companions: &[],
    in_folders: false,
    beside: &[],
    above: &[],
};

/// The homes of an editor extension's tasks (`globalStorage/<extension>/tasks` in each
/// editor's user folder), with `more` places of its own.
macro_rules! extension_homes {
    ($extension:literal $(, $more:expr)*) => {
        Homes {
            linux: &[
                Place {
                    base: Base::Editors(EXTENSION_EDITORS_AND_SERVER),
                    path: concat!("globalStorage/", $extension, "/tasks"),
                },
                $($more,)*
            ],
            macos: &[
                Place {
                    base: Base::Editors(EXTENSION_EDITORS),
                    path: concat!("globalStorage/", $extension, "/tasks"),
                },
                $($more,)*
            ],
            windows: &[
                Place {
                    base: Base::Editors(EXTENSION_EDITORS),
                    path: concat!("globalStorage/", $extension, "/tasks"),
                },
                $($more,)*
            ],
            moved: &[],
        }
    };
}

/// What an editor extension's task folder holds: the panel's file, read whole as it is
/// rewritten, with the files beside it that give its model and workspace.
const TASK_NAMES: Names = Names {
    within: None,
    not_ending: &[],
    own_folder: None,
    only_named: Some("ui_messages.json"),
    or_session_named: false,
    companions: &crate::transcripts::cline::COMPANIONS,
    in_folders: false,
    // Cline's context tracking and task settings.
    beside: &["context_history.json", "settings.json"],
    above: &[],
};

/// What a task's panel file gives.
const TASK: Gives = Gives {
    appended: false,
    ..AGENT
};

/// Where VS Code keeps each window's chat sessions (`workspaceStorage/<workspace>/chatSessions`,
/// and `globalStorage/emptyWindowChatSessions` for a window with no folder), in each of
/// `editors`.
macro_rules! chat_sessions {
    ($editors:expr) => {
        &[
            Place {
                base: Base::Editors($editors),
                path: "workspaceStorage",
            },
            Place {
                base: Base::Editors($editors),
                path: "globalStorage/emptyWindowChatSessions",
            },
        ]
    };
}

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
pub const REGISTRY: [Entry; 18] = [
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
                file: false,
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
                file: false,
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
                file: false,
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
            companions: &[],
            in_folders: false,
            beside: &[],
            // Which folder each project's short name (or the SHA-256 of its path) stands
            // for: `.gemini/projects.json`, above `tmp/<project>/chats/` (a sub-agent's file
            // one folder deeper).
            above: &[Above {
                name: "projects.json",
                levels: 4,
            }],
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
                    file: false,
                },
                Moved {
                    variable: "QWEN_HOME",
                    list: false,
                    below: "projects",
                    file: false,
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
            companions: &[],
            in_folders: false,
            beside: &[],
            above: &[],
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
            moved: &[
                Moved {
                    variable: "XDG_DATA_HOME",
                    list: false,
                    below: "opencode",
                    file: false,
                },
                // The database OpenCode opens instead of `opencode.db` (`:memory:` keeps none).
                Moved {
                    variable: "OPENCODE_DB",
                    list: false,
                    below: "",
                    file: true,
                },
            ],
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
                file: false,
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
                file: false,
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
            companions: &[],
            in_folders: false,
            beside: &[],
            // The session's name and folder, beside its events.
            above: &[Above {
                name: "workspace.yaml",
                levels: 0,
            }],
        },
        agent_names: &["copilot"],
    },
    Entry {
        provider: Provider::CopilotChat,
        key: "copilot_chat",
        title: "Copilot Chat",
        kind: Kind::Document,
        extensions: &["jsonl", "json"],
        homes: Homes {
            linux: chat_sessions!(VS_CODES_AND_SERVER),
            macos: chat_sessions!(VS_CODES),
            windows: chat_sessions!(VS_CODES),
            moved: &[],
        },
        setting: "COPILOT_CHAT",
        gives: Gives {
            appended: false,
            ..AGENT
        },
        names: Names {
            // `chatSessions`, and `emptyWindowChatSessions`: a workspace's folder also keeps
            // other extensions' files.
            within: Some("chatSessions"),
            not_ending: &[],
            own_folder: None,
            only_named: None,
            or_session_named: false,
            companions: &[],
            in_folders: false,
            beside: &[],
            // The folder a workspace's window had open, beside its `chatSessions`.
            above: &[Above {
                name: "workspace.json",
                levels: 1,
            }],
        },
        agent_names: &["copilot-chat", "vscode"],
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
                file: false,
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
            companions: &[],
            in_folders: false,
            beside: &[],
            above: &[],
        },
        agent_names: &["aider"],
    },
    Entry {
        provider: Provider::Cline,
        key: "cline",
        title: "Cline",
        kind: Kind::Document,
        extensions: &["json"],
        homes: extension_homes!("saoudrizwan.claude-dev", CLINE_STANDALONE),
        setting: "CLINE",
        gives: TASK,
        names: TASK_NAMES,
        agent_names: &["cline"],
    },
    Entry {
        provider: Provider::RooCode,
        key: "roo_code",
        title: "Roo Code",
        kind: Kind::Document,
        extensions: &["json"],
        homes: extension_homes!("rooveterinaryinc.roo-cline"),
        setting: "ROO_CODE",
        gives: TASK,
        names: TASK_NAMES,
        agent_names: &["roo"],
    },
    Entry {
        provider: Provider::KiloCode,
        key: "kilo_code",
        title: "Kilo Code",
        kind: Kind::Document,
        extensions: &["json"],
        homes: extension_homes!("kilocode.kilo-code"),
        setting: "KILO_CODE",
        gives: TASK,
        names: TASK_NAMES,
        agent_names: &["kilo-code", "kilocode"],
    },
    Entry {
        provider: Provider::Cursor,
        key: "cursor",
        title: "Cursor",
        kind: Kind::Database,
        extensions: &["vscdb"],
        homes: Homes {
            linux: CURSOR_HOME,
            macos: CURSOR_HOME,
            windows: CURSOR_HOME,
            moved: &[],
        },
        setting: "CURSOR",
        gives: Gives {
            tokens: false,
            ..DATABASE
        },
        names: Names {
            only_named: Some("state.vscdb"),
            ..ANY_NAME
        },
        agent_names: &["cursor", "cursor-agent"],
    },
    Entry {
        provider: Provider::CursorTranscripts,
        key: "cursor_transcripts",
        title: "Cursor agent transcripts",
        kind: Kind::Document,
        extensions: &["jsonl", "txt"],
        homes: Homes {
            linux: CURSOR_PROJECTS,
            macos: CURSOR_PROJECTS,
            windows: CURSOR_PROJECTS,
            moved: &[],
        },
        setting: "CURSOR_TRANSCRIPTS",
        gives: Gives {
            tokens: false,
            every_timestamp: false,
            ..TASK
        },
        names: Names {
            within: Some("agent-transcripts"),
            own_folder: Some(".cursor"),
            ..ANY_NAME
        },
        agent_names: &["cursor", "cursor-agent"],
    },
    Entry {
        provider: Provider::CursorCli,
        key: "cursor_cli",
        title: "Cursor CLI",
        kind: Kind::Database,
        extensions: &["db"],
        homes: Homes {
            linux: CURSOR_CLI_LINUX,
            macos: CURSOR_CLI_HOME,
            windows: CURSOR_CLI_HOME,
            moved: &[Moved {
                variable: "CURSOR_CONFIG_DIR",
                list: false,
                below: "chats",
                file: false,
            }],
        },
        setting: "CURSOR_CLI",
        gives: Gives {
            tokens: false,
            every_timestamp: false,
            ..DATABASE
        },
        names: Names {
            only_named: Some("store.db"),
            in_folders: true,
            ..ANY_NAME
        },
        agent_names: &["cursor-agent"],
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
