//! The arguments of the transcript commands: the mirror and its index, search, the
//! transcripts and records, `inspect`, `analyze` and `usage`.

use super::*;

#[derive(Debug, Args)]
pub(crate) struct IndexArgs {
    /// The commit to record [default: `git rev-parse HEAD` here]
    #[arg(long)]
    pub(crate) commit: Option<String>,
    #[command(subcommand)]
    pub(crate) upkeep: Option<IndexUpkeep>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum IndexUpkeep {
    /// What the transcript index holds: bytes per table (the full-text index's shadow tables
    /// included), the WAL, free space, and its size as a share of the sources read
    Stats(IndexLocation),
    /// Give back the space removed and rewritten rows left: full-text segments merged and free
    /// pages returned in short steps (neither the mirror nor a reader waits long), the WAL
    /// folded in and truncated
    Compact(IndexLocation),
}

#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// Files or folders: Claude Code, Codex, Gemini CLI or Qwen Code transcripts (.jsonl, or
    /// Gemini's older .json), OpenCode or Kilo CLI databases (opencode.db, kilo.db), ChatGPT
    /// or claude.ai conversations.json or the export's .zip, Baton ledgers (.ndjson)
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Write the charts (activity, models, tokens, lengths) as SVG files into this folder
    #[arg(long, value_name = "DIR")]
    pub(crate) svg: Option<PathBuf>,
    /// List the conversations that contain all these words (case-insensitive)
    #[arg(long, value_name = "WORDS")]
    pub(crate) search: Option<String>,
    /// How many conversations to list, newest first
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) list: usize,
    /// Keep the messages a provider hides from its own reader (ChatGPT's hidden system
    /// messages, custom instructions and memory context)
    #[arg(long)]
    pub(crate) include_hidden: bool,
    /// One line per file read, however many (by default a line per file only up to 20 files;
    /// beyond, a count by format and the files that could not be read)
    #[arg(long, short = 'v')]
    pub(crate) verbose: bool,
    /// Print conversation number N (the `#N` a listing shows) in full, as Markdown
    #[arg(long, value_name = "N")]
    pub(crate) show: Option<usize>,
    /// Write the listed conversations (the search's matches, or --list N) to FILE: Markdown,
    /// or JSON when FILE ends in .json
    #[arg(long, value_name = "FILE")]
    pub(crate) export: Option<PathBuf>,
}

/// Where the index is, and the sources a pass reads.
#[derive(Debug, Args)]
pub(crate) struct IndexLocation {
    /// The transcript index [default: index.sqlite in your data folder, one per user
    /// (~/.local/share/baton on Linux)]
    #[arg(long = "index", env = "BATON_INDEX", value_name = "FILE")]
    pub(crate) index: Option<PathBuf>,
}

/// The index a query reads, and whether to bring it up to date first.
#[derive(Debug, Args)]
pub(crate) struct QueryIndex {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Bring the index up to date first: one mirror pass, which reads only what changed
    #[arg(long)]
    pub(crate) sync: bool,
}

/// Where each coding agent keeps its transcripts, when not where it keeps them by default:
/// one flag per agent, shared by `mirror` and `usage` (an agent added here is read by both).
#[derive(Debug, Args)]
#[group(id = "agent_dirs", multiple = true)]
pub(crate) struct AgentDirs {
    /// Claude Code projects folder [default: CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects
    /// and ~/.config/claude/projects]
    #[arg(long = "claude-dir", value_name = "DIR")]
    pub(crate) claude_dirs: Vec<PathBuf>,
    /// Codex sessions folder [default: $CODEX_HOME/sessions, else ~/.codex/sessions]
    #[arg(long = "codex-dir", value_name = "DIR")]
    pub(crate) codex_dirs: Vec<PathBuf>,
    /// Gemini CLI sessions folder [default: $GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp]
    #[arg(long = "gemini-dir", value_name = "DIR")]
    pub(crate) gemini_dirs: Vec<PathBuf>,
    /// Qwen Code projects folder [default: $QWEN_RUNTIME_DIR/projects, else
    /// $QWEN_HOME/projects, else ~/.qwen/projects]
    #[arg(long = "qwen-dir", value_name = "DIR")]
    pub(crate) qwen_dirs: Vec<PathBuf>,
    /// OpenCode folder, holding opencode.db [default: $XDG_DATA_HOME/opencode, else
    /// ~/.local/share/opencode]
    #[arg(long = "opencode-dir", value_name = "DIR")]
    pub(crate) opencode_dirs: Vec<PathBuf>,
    /// Kilo CLI folder, holding kilo.db [default: $XDG_DATA_HOME/kilo, else
    /// ~/.local/share/kilo]
    #[arg(long = "kilo-dir", value_name = "DIR")]
    pub(crate) kilo_dirs: Vec<PathBuf>,
    /// Copilot CLI sessions folder [default: $COPILOT_HOME/session-state, else
    /// ~/.copilot/session-state]
    #[arg(long = "copilot-cli-dir", value_name = "DIR")]
    pub(crate) copilot_cli_dirs: Vec<PathBuf>,
    /// Copilot Chat sessions: a VS Code workspaceStorage folder, or a chatSessions folder
    /// [default: VS Code's, Insiders' and VSCodium's workspaceStorage and
    /// emptyWindowChatSessions]
    #[arg(long = "copilot-chat-dir", value_name = "DIR")]
    pub(crate) copilot_chat_dirs: Vec<PathBuf>,
    /// Amp threads folder [default: $XDG_DATA_HOME/amp/threads, else
    /// ~/.local/share/amp/threads]
    #[arg(long = "amp-dir", value_name = "DIR")]
    pub(crate) amp_dirs: Vec<PathBuf>,
    /// Repositories holding an Aider history (.aider.chat.history.md), or folders of them
    /// [default: the repository this runs in]
    #[arg(long = "aider-dir", value_name = "DIR")]
    pub(crate) aider_dirs: Vec<PathBuf>,
    /// Cline tasks folder (globalStorage/saoudrizwan.claude-dev/tasks) [default: each
    /// editor's (VS Code, Insiders, VSCodium, Cursor, Windsurf), and ~/.cline/data/tasks]
    #[arg(long = "cline-dir", value_name = "DIR")]
    pub(crate) cline_dirs: Vec<PathBuf>,
    /// Roo Code tasks folder (globalStorage/rooveterinaryinc.roo-cline/tasks, or the custom
    /// storage path set in the editor) [default: each editor's]
    #[arg(long = "roo-code-dir", value_name = "DIR")]
    pub(crate) roo_code_dirs: Vec<PathBuf>,
    /// Kilo Code tasks folder (globalStorage/kilocode.kilo-code/tasks) [default: each
    /// editor's]
    #[arg(long = "kilo-code-dir", value_name = "DIR")]
    pub(crate) kilo_code_dirs: Vec<PathBuf>,
    /// Cursor's store folder (User/globalStorage, holding state.vscdb) [default:
    /// ~/.config/Cursor/User/globalStorage, ~/Library/Application Support/Cursor/User/globalStorage,
    /// %APPDATA%\Cursor\User\globalStorage]
    #[arg(long = "cursor-dir", value_name = "DIR")]
    pub(crate) cursor_dirs: Vec<PathBuf>,
    /// Cursor's agent transcripts folder (holding <workspace>/agent-transcripts/) [default:
    /// ~/.cursor/projects]
    #[arg(long = "cursor-transcripts-dir", value_name = "DIR")]
    pub(crate) cursor_transcripts_dirs: Vec<PathBuf>,
    /// cursor-agent's chats folder (holding <workspace>/<chat>/store.db) [default:
    /// $CURSOR_CONFIG_DIR/chats, else ~/.cursor/chats and, on Linux, ~/.config/cursor/chats]
    #[arg(long = "cursor-cli-dir", value_name = "DIR")]
    pub(crate) cursor_cli_dirs: Vec<PathBuf>,
}

impl AgentDirs {
    /// The folders the flags named, by provider.
    pub(crate) fn folders(&self) -> std::collections::BTreeMap<Provider, Vec<PathBuf>> {
        named([
            (Provider::ClaudeCode, &self.claude_dirs),
            (Provider::Codex, &self.codex_dirs),
            (Provider::Gemini, &self.gemini_dirs),
            (Provider::Qwen, &self.qwen_dirs),
            (Provider::Opencode, &self.opencode_dirs),
            (Provider::Kilo, &self.kilo_dirs),
            (Provider::CopilotCli, &self.copilot_cli_dirs),
            (Provider::CopilotChat, &self.copilot_chat_dirs),
            (Provider::Amp, &self.amp_dirs),
            (Provider::Aider, &self.aider_dirs),
            (Provider::Cline, &self.cline_dirs),
            (Provider::RooCode, &self.roo_code_dirs),
            (Provider::KiloCode, &self.kilo_code_dirs),
            (Provider::Cursor, &self.cursor_dirs),
            (Provider::CursorTranscripts, &self.cursor_transcripts_dirs),
            (Provider::CursorCli, &self.cursor_cli_dirs),
        ])
    }
}

/// The providers a flag named at least one folder for.
fn named<'a>(
    flags: impl IntoIterator<Item = (Provider, &'a Vec<PathBuf>)>,
) -> std::collections::BTreeMap<Provider, Vec<PathBuf>> {
    flags
        .into_iter()
        .filter(|(_, dirs)| !dirs.is_empty())
        .map(|(provider, dirs)| (provider, dirs.clone()))
        .collect()
}

#[derive(Debug, Args)]
pub(crate) struct MirrorArgs {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    #[command(flatten)]
    pub(crate) agents: AgentDirs,
    /// Folder where ChatGPT exports are dropped (conversations.json or the .zip as downloaded)
    /// [default: BATON_MIRROR_CHATGPT_DIR, else ~/.chatgpt/exports]
    #[arg(long = "chatgpt-dir", value_name = "DIR")]
    pub(crate) chatgpt_dirs: Vec<PathBuf>,
    /// Folder where claude.ai exports are dropped [default: BATON_MIRROR_CLAUDE_AI_DIR, else
    /// ~/.claude/exports]
    #[arg(long = "claude-ai-dir", value_name = "DIR")]
    pub(crate) claude_ai_dirs: Vec<PathBuf>,
    /// Keep watching after the first pass and keep every change as it is written (stop with
    /// Ctrl-C); file notifications where the system has them, else a look every --poll-secs
    #[arg(long)]
    pub(crate) follow: bool,
    /// With --follow: look every --poll-secs instead of waiting for notifications (for network
    /// file systems, where notifications do not arrive)
    #[arg(long, requires = "follow")]
    pub(crate) poll: bool,
    /// With --follow and no notifications: seconds between looks [default: BATON_MIRROR_POLL_SECS,
    /// else 2]
    #[arg(long, value_name = "SECS")]
    pub(crate) poll_secs: Option<u64>,
    /// Keep only what is written from now on: a file seen for the first time is followed from
    /// its end (BATON_MIRROR_BACKFILL=false says the same)
    #[arg(long)]
    pub(crate) no_backfill: bool,
}

impl MirrorArgs {
    /// The folders the flags named, by provider.
    pub(crate) fn folders(&self) -> std::collections::BTreeMap<Provider, Vec<PathBuf>> {
        let mut folders = self.agents.folders();
        folders.extend(named([
            (Provider::Chatgpt, &self.chatgpt_dirs),
            (Provider::ClaudeAi, &self.claude_ai_dirs),
        ]));
        folders
    }
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The words to look for (each must appear)
    #[arg(required = true, num_args = 1..)]
    pub(crate) words: Vec<String>,
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    /// Where to look: text, thinking, tool (calls and output), tool_input, tool_output
    /// [default: all of them]
    #[arg(long = "in", value_name = "FIELDS")]
    pub(crate) fields: Option<String>,
    #[command(flatten)]
    pub(crate) filters: TranscriptFilters,
    /// How many hits
    #[arg(long, default_value_t = 20)]
    pub(crate) limit: u32,
    /// relevance (the default: among the newest 2,000 matches, those holding the whole query
    /// as a phrase first, then by BM25) or newest
    #[arg(long, value_name = "ORDER")]
    pub(crate) order: Option<String>,
    /// all (the default: the mirrored transcripts and the records kept with `baton record
    /// store`), mirrored or stored
    #[arg(long, value_name = "WHICH")]
    pub(crate) include: Option<String>,
}

/// Filters shared by the transcript queries.
#[derive(Debug, Args)]
pub(crate) struct TranscriptFilters {
    /// Only this agent, by its key: claude_code, codex, gemini, qwen, opencode, kilo,
    /// copilot_cli, copilot_chat, amp, aider, cline, roo_code, kilo_code, cursor,
    /// cursor_transcripts, cursor_cli, chatgpt, claude_ai
    #[arg(long)]
    pub(crate) provider: Option<String>,
    /// Only conversations whose project (working directory) contains this
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// From this day (YYYY-MM-DD, this machine's time zone)
    #[arg(long, value_name = "DATE")]
    pub(crate) since: Option<String>,
    /// Up to this day, included
    #[arg(long, value_name = "DATE")]
    pub(crate) until: Option<String>,
}

impl TranscriptFilters {
    /// The filters as the core reads them.
    pub(crate) fn filter(&self) -> baton_core::transcripts::filters::TranscriptFilter {
        baton_core::transcripts::filters::TranscriptFilter {
            provider: self.provider.clone(),
            project: self.project.clone(),
            days: baton_core::transcripts::filters::DayWindow {
                since: self.since.clone(),
                until: self.until.clone(),
            },
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum TranscriptsCommand {
    /// Conversations kept, newest first
    #[command(after_help = "Examples:
  baton transcripts list
  baton transcripts list --provider codex --project webapp --limit 50 --offset 50")]
    List(TranscriptsListArgs),
    /// One kept conversation in full, rebuilt from its stored lines
    #[command(after_help = "Examples:
  baton transcripts show 3                  # the number `transcripts list --json` gives
  baton transcripts show 0191a2b3           # 8 or more characters of the provider's id
  baton transcripts show 0191a2b3 --format json > session.json")]
    Show(TranscriptsShowArgs),
    /// The tools agents called in the kept conversations: how often, how often they failed
    #[command(after_help = "Examples:
  baton transcripts tools                   # every tool, most called first
  baton transcripts tools --provider claude_code --since 2026-06-01 --limit 10")]
    Tools(TranscriptsToolsArgs),
    /// Remove a kept conversation from the index, on purpose: logged, and a later pass does not
    /// bring it back while its source is still there
    #[command(after_help = "Examples:
  baton transcripts remove 12              # asks first on a terminal
  baton transcripts remove 0191a2b3 --yes")]
    Remove(TranscriptsRemoveArgs),
    /// Put a kept Claude Code or Codex session back where its agent looks for it, byte for
    /// byte (after the agent deleted it), and say the command that resumes it
    #[command(after_help = "Examples:
  baton transcripts restore 0191a2b3        # then: claude --resume 0191a2b3-… in its folder
  baton transcripts restore 12 --force      # a file there is kept beside as NAME.before-restore

Claude Code deletes sessions after 30 days (cleanupPeriodDays); the mirror keeps every complete
line. Lines masked when kept (secrets) cannot come back as they were: the restore names them
and writes nothing unless --allow-masked. A ChatGPT or claude.ai conversation has nowhere to go
back to (the services import nothing): it is written to the current folder as HTML (or
--format markdown).")]
    Restore(TranscriptsRestoreArgs),
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptsRestoreArgs {
    /// The conversation: the index's number, the provider's id, or 8+ characters of it
    pub(crate) reference: String,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Replace a file that is there, keeping it beside as NAME.before-restore
    #[arg(long)]
    pub(crate) force: bool,
    /// Write lines that were masked when kept, as kept (they differ from the original)
    #[arg(long)]
    pub(crate) allow_masked: bool,
    /// A chat service's conversation (ChatGPT, claude.ai: no import) is written to the
    /// current folder as html or markdown
    #[arg(long, value_enum, default_value_t = super::RestoreFormat::Html)]
    pub(crate) format: super::RestoreFormat,
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptsToolsArgs {
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    #[command(flatten)]
    pub(crate) filters: TranscriptFilters,
    /// How many tools
    #[arg(long, default_value_t = 30)]
    pub(crate) limit: u32,
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptsRemoveArgs {
    /// The conversation: the index's number, the provider's id, or 8+ characters of it
    pub(crate) reference: String,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Do not ask (needed when not on a terminal)
    #[arg(long)]
    pub(crate) yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptsShowArgs {
    /// The conversation: the index's number, the provider's id, or 8+ characters of it
    pub(crate) reference: String,
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    /// What to leave out before showing it to someone: none, secrets, share (secrets, home
    /// folders and user names, e-mail addresses, phone numbers, IP addresses, internal hosts
    /// and URLs, environment variable values, listed words) or strict (share, and every host
    /// and URL); each value becomes a numbered placeholder (`<email-1>`)
    #[arg(long, value_name = "PROFILE", default_value = "none")]
    pub(crate) redact: String,
    /// A word to leave out too (again for more; `redact = [...]` under [share] in
    /// .baton/config.toml adds to them)
    #[arg(long = "redact-word", value_name = "WORD")]
    pub(crate) redact_words: Vec<String>,
    /// List what would be replaced, grouped and counted, and print nothing else
    #[arg(long)]
    pub(crate) preview: bool,
    /// markdown (the branches --branch names) or json (every branch, as read; `--json` adds
    /// the active branch's message ids)
    #[arg(long, value_enum, default_value_t = TranscriptFormat::Markdown)]
    pub(crate) format: TranscriptFormat,
    /// Which branches the Markdown holds: the active one, or every one (active first), where
    /// a question was edited or an answer regenerated
    #[arg(long, value_enum, default_value_t = BranchChoice::Active)]
    pub(crate) branch: BranchChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum BranchChoice {
    /// The branch the provider marked active.
    Active,
    /// Every branch.
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TranscriptFormat {
    /// The active branch, as Markdown.
    Markdown,
    /// The conversation as read, every branch.
    Json,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RecordCommand {
    /// Keep a record: its content from --content, --file or standard input (--file -)
    #[command(after_help = "Examples:
  baton record store --title \"PR #610 review\" --provider claude_code --content \"Looks good; two nits.\"
  baton record store --file handoff.md --tag handoff --session 0199c0de-…   # attached to a work session
  pbpaste | baton record store --file - --title \"Pasted from a chat\"

The content is kept verbatim, whatever its size: in the ledger (.baton/events.ndjson) when it fits a line, else in .baton/blobs/ under the SHA-256 of its bytes, written before the event that names it. Every given field must hold text: a blank title, provider, provider session id or tag is refused by name.")]
    Store(RecordStoreArgs),
    /// Stored records, newest first, with a total (--include adds the mirrored conversations)
    #[command(after_help = "Examples:
  baton record list
  baton record list --provider codex --limit 10 --offset 10
  baton record list --since 2026-06-01T00:00:00Z --include all   # and the mirrored conversations")]
    List(RecordListArgs),
    /// One stored record in full, with what links to it
    #[command(after_help = "Examples:
  baton record get 0199c0de                 # 8 or more hex digits of its id
  baton record get 0199c0de-1234-7abc-8def-0123456789ab --json")]
    Get(RecordGetArgs),
    /// One stored record as JSON (the default) or Markdown
    #[command(after_help = "Examples:
  baton record export 0199c0de --format markdown > review.md
  baton record export 0199c0de > review.json")]
    Export(RecordExportArgs),
}

#[derive(Debug, Args)]
pub(crate) struct RecordStoreArgs {
    /// The content, as text
    #[arg(long, conflicts_with = "file")]
    pub(crate) content: Option<String>,
    /// Read the content from this file (`-` for standard input)
    #[arg(long, value_name = "PATH")]
    pub(crate) file: Option<PathBuf>,
    /// A title
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// Where it came from: claude_code, codex, openai, …
    #[arg(long)]
    pub(crate) provider: Option<String>,
    /// The provider's own session id (links the record to the mirrored conversation)
    #[arg(long, value_name = "ID")]
    pub(crate) provider_session_id: Option<String>,
    /// A tag (repeat for more)
    #[arg(long = "tag", value_name = "TAG")]
    pub(crate) tags: Vec<String>,
    /// Attach it to this work session (its full id)
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct RecordListArgs {
    /// How many (1 to 200)
    #[arg(long, default_value_t = 20, allow_negative_numbers = true)]
    pub(crate) limit: i64,
    /// Skip this many first
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub(crate) offset: i64,
    /// Only this provider, exactly
    #[arg(long)]
    pub(crate) provider: Option<String>,
    /// Only records whose legacy agent_id is this, exactly (the agent that stored them)
    #[arg(long = "agent-id", value_name = "ID")]
    pub(crate) agent_id: Option<String>,
    /// Only those stored at or after this time (RFC 3339, like 2026-06-01T09:00:00Z)
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<String>,
    /// stored (the default), mirrored (the conversations `baton mirror` keeps) or all, in one
    /// newest-first order; each row says where it came from
    #[arg(long, value_name = "WHICH")]
    pub(crate) include: Option<String>,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct RecordGetArgs {
    /// The record: its id, or 8 or more hex digits of it
    pub(crate) id: String,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct RecordExportArgs {
    /// The record: its id, or 8 or more hex digits of it
    pub(crate) id: String,
    /// json or markdown
    #[arg(long, default_value = "json")]
    pub(crate) format: String,
    #[command(flatten)]
    pub(crate) location: IndexLocation,
}

#[derive(Debug, Args)]
pub(crate) struct TranscriptsListArgs {
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    #[command(flatten)]
    pub(crate) filters: TranscriptFilters,
    /// mirrored (the default), stored (records kept with `baton record store`) or all, in one
    /// newest-first order; each row says where it came from
    #[arg(long, value_name = "WHICH")]
    pub(crate) include: Option<String>,
    /// How many
    #[arg(long, default_value_t = 20)]
    pub(crate) limit: u32,
    /// Skip this many first
    #[arg(long, default_value_t = 0)]
    pub(crate) offset: u32,
}

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// Claude Code, Codex, Gemini CLI or Qwen Code transcripts, OpenCode or Kilo CLI databases,
    /// ChatGPT or claude.ai conversations.json
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
}
