//! The arguments of the other faces: `watch`, the status line, the hooks, the MCP server, the
//! page's server, the demo, the ABI, completions and the manual.

use super::*;

/// `baton watch`.
#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    /// Print one frame and exit
    #[arg(long)]
    pub(crate) once: bool,
}

/// `baton statusline`.
#[derive(Debug, Args)]
pub(crate) struct StatuslineArgs {
    /// Segments to show, comma-separated [default: BATON_STATUSLINE_SEGMENTS, else
    /// session,health,cost,today,context,limits,codex]
    #[arg(long, value_name = "LIST")]
    pub(crate) segments: Option<String>,
    /// The widest the line may be [default: COLUMNS, else 120]
    #[arg(long, value_name = "CHARS")]
    pub(crate) width: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write baton.1 and one page per command (baton-start.1, …) into this folder
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum HookCommand {
    /// Claude Code's SessionStart, SessionEnd, Stop and UserPromptSubmit hooks (JSON on stdin)
    #[command(after_help = "In .claude/settings.json:
  {\"hooks\": {
    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook claude-code\"}]}],
    \"Stop\":         [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook claude-code\"}]}],
    \"SessionEnd\":   [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook claude-code\"}]}]}}

A start (startup or resume) opens the project's work session for Claude's session id, or reconnects to it when it is live, and ties Claude Code's process to it (so `baton list` can tell when it is gone); a compaction changes nothing; after /clear the new session takes over from the one /clear ended. Each Stop records the transcript's usage in the ledger, reading only what was added since the last one. An end ends it. The ledger is the project's (CLAUDE_PROJECT_DIR's nearest .baton/), never a new one in a sub-folder. Nothing is printed on stdout (Claude Code would read it as context); a problem goes to stderr and .baton/hook.log, and the exit status is always 0.")]
    ClaudeCode,
    /// Codex's notify program (its JSON as the last argument) or lifecycle hooks (JSON on stdin)
    #[command(after_help = "In ~/.codex/config.toml:
  notify = [\"baton\", \"hook\", \"codex\"]

After each turn Codex runs it with the turn's JSON: the thread's work session is opened on its first turn (project from the turn's cwd) and Codex's process is tied to it. Codex has no end notification: when Codex exits, `baton list` shows the session gone (its process and writer lock are gone), and `baton reap` ends it. Nothing is printed on stdout; a problem goes to stderr and .baton/hook.log, and the exit status is always 0.")]
    Codex {
        /// The notification JSON Codex appends (without it, a lifecycle hook's JSON is read
        /// from stdin)
        payload: Option<String>,
    },
    /// Gemini CLI's SessionStart, AfterAgent and SessionEnd hooks (JSON on stdin)
    #[command(
        after_help = "In ~/.gemini/settings.json (or the project's .gemini/settings.json):
  {\"hooks\": {
    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook gemini\"}]}],
    \"AfterAgent\":   [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook gemini\"}]}],
    \"SessionEnd\":   [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook gemini\"}]}]}}

A start (startup or resume) opens the project's work session for Gemini CLI's session id, or reconnects to it when it is live, and ties Gemini CLI's process to it (so `baton list` can tell when it is gone); after /clear the new session takes over from the one /clear ended. Each AfterAgent (a turn's end) records the session's usage so far in the ledger (its transcript read whole: Gemini CLI writes a response again as it changes). An end ends it. The ledger is the project's (GEMINI_PROJECT_DIR's nearest .baton/). Nothing is printed on stdout; a problem goes to stderr (which Gemini CLI shows) and .baton/hook.log, and the exit status is always 0."
    )]
    Gemini,
    /// Qwen Code's SessionStart, Stop and SessionEnd hooks (JSON on stdin)
    #[command(
        after_help = "In ~/.qwen/settings.json (or the project's .qwen/settings.json):
  {\"hooks\": {
    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook qwen\"}]}],
    \"Stop\":         [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook qwen\"}]}],
    \"SessionEnd\":   [{\"hooks\": [{\"type\": \"command\", \"command\": \"baton hook qwen\"}]}]}}

Qwen Code's hooks are Claude Code's events with the same JSON: a start (startup or resume) opens the project's work session for Qwen Code's session id, or reconnects to it, and ties Qwen Code's process to it; a compaction changes nothing; after /clear the new session takes over from the one /clear ended. Each Stop records the session's usage so far (its transcript read whole, each response once). An end ends it. The ledger is the project's (QWEN_PROJECT_DIR's nearest .baton/). Nothing is printed on stdout; a problem goes to stderr and .baton/hook.log, and the exit status is always 0."
    )]
    Qwen,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Print the tools' reference (docs/mcp-tools.md) from the live schemas and exit
    #[arg(long)]
    pub(crate) print_tools_markdown: bool,
}

#[derive(Debug, Args)]
pub(crate) struct WebArgs {
    /// The port on 127.0.0.1 (0 picks a free one)
    #[arg(long, default_value_t = 8377)]
    pub(crate) port: u16,
}

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// The port for the web page (0 picks a free one)
    #[arg(long, default_value_t = 8377)]
    pub(crate) port: u16,
    /// Serve the page this many seconds, then exit (0: until Ctrl-C)
    /// [default: until Ctrl-C on a terminal, else 10]
    #[arg(long)]
    pub(crate) serve_seconds: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct AbiArgs {
    /// The JSON request (reads standard input when omitted)
    pub(crate) request: Option<String>,
    /// Run it through this core .wasm with wasmtime instead of natively
    #[arg(long, value_name = "FILE")]
    pub(crate) wasm: Option<PathBuf>,
    /// One request per line, answered in turn by one core (analyzers opened by one line are
    /// there for the next), each answer on its own line as the core gives it, until standard
    /// input ends: a program can keep `baton abi --lines` open as its core
    #[arg(long)]
    pub(crate) lines: bool,
}

/// `baton tui --help`: its keys, and what it reads.
pub(crate) const TUI_HELP: &str = "Keys:
  1 2 3 4, Tab    Live, History, Search, Cost
  Up Down j k     move; in the reader, scroll (PgUp PgDn, g G, n p between messages)
  Enter           open: a session's details, a conversation (a search hit: at the hit)
  / f w           search as you type; History's filter line; work sessions or conversations
  p u a d         pause, unpause (as you); the attention items, mark one done
  t               unfold every tool call, result and thinking in the reader
  r R s y         resume (leaves, printing the command), restore, share as HTML, copy the id
  F5 ? Esc q      read again, help, back, leave; the mouse scrolls, clicks, double-clicks

It reads what `baton list`, `baton show`, `baton attention`, `baton transcripts`, `baton search` and `baton usage` read. It wakes on a key, a resize or a file that changed (the ledger, the index, the live sessions' transcripts): at rest it draws nothing. The terminal is given back as it was on q, Ctrl-C, SIGTERM and a panic.";
