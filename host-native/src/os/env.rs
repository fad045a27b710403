//! The environment, read in one place: every variable Baton reads is named in [`ENVIRONMENT`]
//! with what it does (the README's table lists the same), and [`var`] and [`var_os`] are the
//! only readers of the process's environment in the host. A test holds both.

use std::ffi::OsString;

/// A variable Baton reads, and what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// What it does, in a line.
    pub does: &'static str,
}

const fn v(name: &'static str, does: &'static str) -> Variable {
    Variable { name, does }
}

/// Every variable Baton reads.
pub const ENVIRONMENT: &[Variable] = &[
    v("BATON_DIR", "the ledger's folder (`--dir`)"),
    v(
        "BATON_FSYNC",
        "`0` or `off` skips the fsync after each append (`--no-fsync`)",
    ),
    v("BATON_ACTOR", "the person a command acts for (`--as`)"),
    v(
        "BATON_AGENT",
        "the coding agent this shell runs in; a start's agent (`--agent`)",
    ),
    v(
        "BATON_CLIENT",
        "a start's or end's client name (`--client`)",
    ),
    v(
        "BATON_NOW",
        "pins the clock to an ISO 8601 instant (tests and replays)",
    ),
    v(
        "BATON_IDLE_AFTER",
        "how long a live session may be silent before it reads idle (`30m`)",
    ),
    v(
        "BATON_TRUSTED_DIRS",
        "ledgers another user owns that are read anyway (`:`-separated, `*`)",
    ),
    v("BATON_INDEX", "the transcript index file (`--index`)"),
    v(
        "BATON_SHARE_PASSWORD",
        "the password `baton share --password` locks the file with (not asked)",
    ),
    v(
        "BATON_OTEL_TOKEN",
        "the token `baton otel serve` asks senders for (`--token`)",
    ),
    v(
        "BATON_NOTES",
        "`off` switches session notes off (`--no-notes`)",
    ),
    v("BATON_VAULT", "the notes' vault (`--vault`)"),
    v(
        "BATON_NOTES_QUIET_SECS",
        "how long a note must be still before Baton writes it",
    ),
    v(
        "BATON_STATUSLINE_SEGMENTS",
        "the status line's segments, in order (`--segments`)",
    ),
    v(
        "BATON_SYNC_URL",
        "the team database `baton sync` sends to (`--to`)",
    ),
    v(
        "BATON_TEAM_URL",
        "the team database the team views read (`--from`)",
    ),
    v(
        "BATON_SYNC_CHUNK_BYTES",
        "how many bytes of events one sync round sends",
    ),
    v(
        "BATON_MACHINE_NAME",
        "this machine's name in the team database",
    ),
    v(
        "BATON_MIRROR_CLAUDE_DIR",
        "Claude Code folders the mirror reads (`--claude-dir`)",
    ),
    v(
        "BATON_MIRROR_CLAUDE_ENABLED",
        "`false` leaves Claude Code out of the mirror",
    ),
    v(
        "BATON_MIRROR_CODEX_DIR",
        "Codex folders the mirror reads (`--codex-dir`)",
    ),
    v(
        "BATON_MIRROR_CODEX_ENABLED",
        "`false` leaves Codex out of the mirror",
    ),
    v(
        "BATON_MIRROR_GEMINI_DIR",
        "Gemini CLI folders the mirror reads (`--gemini-dir`)",
    ),
    v(
        "BATON_MIRROR_GEMINI_ENABLED",
        "`false` leaves Gemini CLI out of the mirror",
    ),
    v(
        "BATON_MIRROR_QWEN_DIR",
        "Qwen Code folders the mirror reads (`--qwen-dir`)",
    ),
    v(
        "BATON_MIRROR_QWEN_ENABLED",
        "`false` leaves Qwen Code out of the mirror",
    ),
    v(
        "BATON_MIRROR_OPENCODE_DIR",
        "OpenCode folders the mirror reads (`--opencode-dir`)",
    ),
    v(
        "BATON_MIRROR_OPENCODE_ENABLED",
        "`false` leaves OpenCode out of the mirror",
    ),
    v(
        "BATON_MIRROR_KILO_DIR",
        "Kilo CLI folders the mirror reads (`--kilo-dir`)",
    ),
    v(
        "BATON_MIRROR_KILO_ENABLED",
        "`false` leaves Kilo CLI out of the mirror",
    ),
    v(
        "BATON_MIRROR_COPILOT_CLI_DIR",
        "Copilot CLI folders the mirror reads (`--copilot-cli-dir`)",
    ),
    v(
        "BATON_MIRROR_COPILOT_CLI_ENABLED",
        "`false` leaves Copilot CLI out of the mirror",
    ),
    v(
        "BATON_MIRROR_COPILOT_CHAT_DIR",
        "Copilot Chat (VS Code) session folders the mirror reads (`--copilot-chat-dir`)",
    ),
    v(
        "BATON_MIRROR_COPILOT_CHAT_ENABLED",
        "`false` leaves Copilot Chat out of the mirror",
    ),
    v(
        "BATON_MIRROR_AMP_DIR",
        "Amp threads folders the mirror reads (`--amp-dir`)",
    ),
    v(
        "BATON_MIRROR_AMP_ENABLED",
        "`false` leaves Amp out of the mirror",
    ),
    v(
        "BATON_MIRROR_AIDER_DIR",
        "repositories (or folders of them) whose Aider history the mirror reads (`--aider-dir`)",
    ),
    v(
        "BATON_MIRROR_AIDER_ENABLED",
        "`false` leaves Aider out of the mirror",
    ),
    v(
        "BATON_MIRROR_CLINE_DIR",
        "Cline tasks folders the mirror reads (`--cline-dir`)",
    ),
    v(
        "BATON_MIRROR_CLINE_ENABLED",
        "`false` leaves Cline out of the mirror",
    ),
    v(
        "BATON_MIRROR_ROO_CODE_DIR",
        "Roo Code tasks folders the mirror reads (`--roo-code-dir`)",
    ),
    v(
        "BATON_MIRROR_ROO_CODE_ENABLED",
        "`false` leaves Roo Code out of the mirror",
    ),
    v(
        "BATON_MIRROR_KILO_CODE_DIR",
        "Kilo Code tasks folders the mirror reads (`--kilo-code-dir`)",
    ),
    v(
        "BATON_MIRROR_KILO_CODE_ENABLED",
        "`false` leaves Kilo Code out of the mirror",
    ),
    v(
        "BATON_MIRROR_CURSOR_DIR",
        "Cursor store folders the mirror reads (`--cursor-dir`)",
    ),
    v(
        "BATON_MIRROR_CURSOR_ENABLED",
        "`false` leaves Cursor out of the mirror",
    ),
    v(
        "BATON_MIRROR_CURSOR_TRANSCRIPTS_DIR",
        "Cursor agent transcript folders the mirror reads (`--cursor-transcripts-dir`)",
    ),
    v(
        "BATON_MIRROR_CURSOR_TRANSCRIPTS_ENABLED",
        "`false` leaves Cursor's agent transcripts out of the mirror",
    ),
    v(
        "BATON_MIRROR_CURSOR_CLI_DIR",
        "cursor-agent chat folders the mirror reads (`--cursor-cli-dir`)",
    ),
    v(
        "BATON_MIRROR_CURSOR_CLI_ENABLED",
        "`false` leaves cursor-agent's chats out of the mirror",
    ),
    v(
        "BATON_MIRROR_CHATGPT_DIR",
        "folders where ChatGPT exports are dropped (`--chatgpt-dir`)",
    ),
    v(
        "BATON_MIRROR_CHATGPT_ENABLED",
        "`false` leaves ChatGPT exports out of the mirror",
    ),
    v(
        "BATON_MIRROR_CHATGPT_MAX_BYTES",
        "the largest ChatGPT export file read",
    ),
    v(
        "BATON_MIRROR_CLAUDE_AI_DIR",
        "folders where claude.ai exports are dropped (`--claude-ai-dir`)",
    ),
    v(
        "BATON_MIRROR_CLAUDE_AI_ENABLED",
        "`false` leaves claude.ai exports out of the mirror",
    ),
    v(
        "BATON_MIRROR_CLAUDE_AI_MAX_BYTES",
        "the largest claude.ai export file read",
    ),
    v(
        "BATON_MIRROR_POLL_SECS",
        "how often `mirror --follow` looks without notifications",
    ),
    v(
        "BATON_MIRROR_BACKFILL",
        "`false` keeps only what is appended to files already there",
    ),
    v(
        "BATON_TEST_NOTE_PAUSE_MS",
        "tests only: widens the race a note write can lose",
    ),
    v(
        "HOME",
        "the home folder, where the agents' folders are found",
    ),
    v(
        "USER",
        "the person, when `--as` and `BATON_ACTOR` say nothing",
    ),
    v("LOGNAME", "the person, when `USER` says nothing either"),
    v(
        "XDG_DATA_HOME",
        "the user's data folder, where the index is kept (Linux), and where OpenCode and Kilo CLI keep their databases (every system, as they read it)",
    ),
    v(
        "XDG_CACHE_HOME",
        "the user's cache folder, where the status line keeps its lines (Linux)",
    ),
    v("TZ", "the zone of days and times"),
    v("NO_COLOR", "set and not empty: no colour"),
    v("COLUMNS", "the width human output fits"),
    v(
        "CLAUDE_CONFIG_DIR",
        "Claude Code's own folders (comma-separated), read as Claude Code reads it",
    ),
    v("CODEX_HOME", "Codex's own folder, read as Codex reads it"),
    v(
        "OPENCODE_DB",
        "the database OpenCode opens instead of its `opencode.db`, read besides its folder's",
    ),
    v(
        "GEMINI_CLI_HOME",
        "the home Gemini CLI keeps `.gemini` in, read as Gemini CLI reads it",
    ),
    v(
        "QWEN_RUNTIME_DIR",
        "where Qwen Code keeps its sessions, read as Qwen Code reads it",
    ),
    v(
        "QWEN_HOME",
        "Qwen Code's own folder, read as Qwen Code reads it",
    ),
    v(
        "COPILOT_HOME",
        "Copilot CLI's own folder, read as Copilot CLI reads it",
    ),
    v(
        "CURSOR_CONFIG_DIR",
        "cursor-agent's own folder (its `chats/`), read as cursor-agent reads it",
    ),
    v(
        "CLAUDE_PROJECT_DIR",
        "the project a Claude Code hook or status line runs for",
    ),
    v(
        "GEMINI_PROJECT_DIR",
        "the project a Gemini CLI hook runs for",
    ),
    v("QWEN_PROJECT_DIR", "the project a Qwen Code hook runs for"),
    v(
        "CLAUDECODE",
        "set by Claude Code in its shells: the CLI acts as that agent",
    ),
    v(
        "CODEX_SANDBOX",
        "set by Codex in its shells: the CLI acts as that agent",
    ),
    v(
        "CODEX_SANDBOX_NETWORK_DISABLED",
        "set by Codex in its shells: the CLI acts as that agent",
    ),
    v(
        "CURSOR_AGENT",
        "set by Cursor's agent in its shells: the CLI acts as that agent",
    ),
    v(
        "GEMINI_CLI",
        "set by Gemini CLI in its shells: the CLI acts as that agent",
    ),
    v(
        "PGSSLMODE",
        "the team database's TLS mode, as libpq reads it",
    ),
    v(
        "PGPASSWORD",
        "the team database's password, as libpq reads it",
    ),
    v(
        "PGPASSFILE",
        "the team database's password file, as libpq reads it",
    ),
];

/// A variable's value, as [`std::env::var`] gives it.
pub fn var(name: &str) -> Result<String, std::env::VarError> {
    std::env::var(name)
}

/// A variable's value as the system holds it (not necessarily Unicode).
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}
