//! Where each agent keeps its files by default, below the user's folders: the places the
//! registry's entries name (the editors' own in `editors`).

use super::{Base, Place};

pub(super) const CLAUDE_HOME: &[Place] = &[
    Place {
        base: Base::Home,
        path: ".claude/projects",
    },
    Place {
        base: Base::Home,
        path: ".config/claude/projects",
    },
];

pub(super) const CODEX_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".codex/sessions",
}];

pub(super) const GEMINI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".gemini/tmp",
}];

pub(super) const QWEN_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".qwen/projects",
}];

pub(super) const OPENCODE_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/opencode",
}];

pub(super) const KILO_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/kilo",
}];

pub(super) const COPILOT_CLI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".copilot/session-state",
}];

pub(super) const AMP_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".local/share/amp/threads",
}];

pub(super) const AIDER_HOME: &[Place] = &[Place {
    base: Base::Repository,
    path: "",
}];

/// Where Cursor's agents (the editor's and `cursor-agent`) leave their transcripts, one
/// folder per workspace.
pub(super) const CURSOR_PROJECTS: &[Place] = &[Place {
    base: Base::Home,
    path: ".cursor/projects",
}];

/// Where `cursor-agent` keeps its chats (`<md5 of the workspace>/<chat>/store.db`).
pub(super) const CURSOR_CLI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".cursor/chats",
}];

/// On Linux, also under the configuration folder (`$XDG_CONFIG_HOME/cursor`), where newer
/// builds keep it.
pub(super) const CURSOR_CLI_LINUX: &[Place] = &[
    Place {
        base: Base::Home,
        path: ".cursor/chats",
    },
    Place {
        base: Base::Config,
        path: "cursor/chats",
    },
];

pub(super) const CHATGPT_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".chatgpt/exports",
}];

pub(super) const CLAUDE_AI_HOME: &[Place] = &[Place {
    base: Base::Home,
    path: ".claude/exports",
}];

/// Cline's own folder when it runs outside an editor (its CLI, JetBrains).
pub(super) const CLINE_STANDALONE: Place = Place {
    base: Base::Home,
    path: ".cline/data/tasks",
};
