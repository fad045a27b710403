//! The command line's shape: every command, flag and help text, parsed by clap. Here the
//! top level and the command list; each area's arguments in its own file.

use crate::faces::table::ColorChoice;
use baton_core::ledger::activity::{StepState, Via};
use baton_core::transcripts::Provider;
use baton_core::transcripts::usage::GroupBy;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod faces;
pub(crate) mod otel;
mod sessions;
mod share;
mod team;
mod transcripts;
mod usage;

pub(crate) use faces::*;
pub(crate) use sessions::*;
pub(crate) use share::*;
pub(crate) use team::*;
pub(crate) use transcripts::*;
pub(crate) use usage::*;

/// Baton: the local-first ledger of coding agents' work sessions.
///
/// Every agent that works on a project starts a session, resumes it after a crash, hands off
/// to another (--parent) and ends it; none can close another's by accident. Sessions live in
/// an append-only NDJSON ledger in `.baton/` (found by walking up from the current directory,
/// like git), safe for any number of processes at once.
#[derive(Debug, Parser)]
#[command(
    name = "baton",
    version,
    propagate_version = true,
    max_term_width = 100
)]
#[command(after_help = "Examples:
  baton demo                          # try it: sample sessions, then the web page
  baton start --project demo --agent claude --goal 'Implement search'
  baton list                          # live sessions; --all adds ended ones
  baton end 33a39086 --summary 'Search done'   # the short id `list` shows
  baton usage                         # tokens and cost from every agent's transcripts
  baton --json list --all             # exactly one JSON object, for programs

Human text on a terminal (tables, colour unless NO_COLOR or --color never), the same text without colour into a pipe, exactly one JSON object with --json; errors and warnings on stderr.

Exit status: 0 success, 1 a coded error ([error] CODE: …), 2 a usage error, 255 an internal error (a bug in Baton: please report it).

`baton <command> --help` shows examples for each command.")]
pub struct Cli {
    /// The ledger directory [default: the nearest .baton/ at or above the current directory,
    /// up to your home folder and on the same filesystem, else ./.baton, created on first write]
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "BATON_DIR",
        value_name = "DIR"
    )]
    pub(crate) dir: Option<PathBuf>,

    /// Print exactly one JSON object on stdout, nothing else
    #[arg(long, global = true, help_heading = "Global options")]
    pub(crate) json: bool,

    /// Colour human output: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_enum,
        default_value_t = ColorChoice::Auto,
        value_name = "WHEN"
    )]
    pub(crate) color: ColorChoice,

    /// Skip fsync after each append (faster; a power cut may lose the last events).
    /// Also BATON_FSYNC=0
    #[arg(long, global = true, help_heading = "Global options")]
    pub(crate) no_fsync: bool,

    /// Act as this person (roles come from .baton/config.toml) [default: BATON_ACTOR, else
    /// the OS user]
    #[arg(
        long = "as",
        global = true,
        help_heading = "Global options",
        value_name = "PERSON"
    )]
    pub(crate) person: Option<String>,

    /// Keep session notes in this folder (an Obsidian vault, say) [default: BATON_VAULT, else
    /// `vault` in the [notes] table of .baton/config.toml, else .baton/vault]
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        value_name = "DIR"
    )]
    pub(crate) vault: Option<PathBuf>,

    /// Write no session notes this time (BATON_NOTES=off, or `enabled = false` under [notes]
    /// in .baton/config.toml, switches them off for good)
    #[arg(long, global = true, help_heading = "Global options")]
    pub(crate) no_notes: bool,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The commands as `baton --help` lists them: by what a person came to do.
pub(crate) const COMMAND_GROUPS: [(&str, &[&str]); 7] = [
    (
        "Sessions",
        &[
            "start", "resume", "end", "correct", "list", "show", "record",
        ],
    ),
    ("Live", &["tui", "watch", "statusline", "reap"]),
    (
        "Lifecycle and governance",
        &[
            "brief",
            "report",
            "depend",
            "pause",
            "unpause",
            "health",
            "timeline",
            "attention",
            "mission",
            "constitution",
            "index",
            "ambiguity",
            "decision",
        ],
    ),
    (
        "Transcripts and usage",
        &[
            "usage",
            "budget",
            "mirror",
            "search",
            "share",
            "transcripts",
            "otel",
            "inspect",
            "analyze",
        ],
    ),
    ("Serving", &["mcp", "hook", "web", "demo", "abi"]),
    ("Team", &["sync", "team"]),
    (
        "Upkeep",
        &["notes", "doctor", "compact", "completions", "man"],
    ),
];

/// The command line as parsed and documented: the derived one, with `--help` listing the
/// commands in [`COMMAND_GROUPS`].
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let width = cmd
        .get_subcommands()
        .map(|s| s.get_name().len())
        .max()
        .unwrap_or(0);
    let help_width = crate::faces::table::help_width();
    let mut listing = String::new();
    for (group, names) in COMMAND_GROUPS {
        listing.push_str(&format!("{group}:\n"));
        for name in names {
            let about = cmd
                .find_subcommand(name)
                .and_then(|s| s.get_about())
                .map(|a| a.to_string())
                .unwrap_or_default();
            let about = about.lines().next().unwrap_or("");
            // One line each, within the help's width (the terminal's, at most 100 columns).
            let about = crate::faces::table::shorten(
                about,
                help_width.saturating_sub(width + 4),
                crate::faces::table::Fit::End,
            );
            listing.push_str(&format!("  {name:<width$}  {about}\n"));
        }
        listing.push('\n');
    }
    let template = format!(
        "{{about-with-newline}}\n{{usage-heading}} {{usage}}\n\n{listing}Options:\n{{options}}{{after-help}}"
    );
    cmd.help_template(template)
}

impl Cli {
    /// The session reference typed on the command line, for commands that take one.
    pub(crate) fn session_reference(&self) -> Option<&str> {
        match &self.command {
            Command::Brief(a) | Command::Unpause(a) | Command::Timeline(a) => Some(&a.id),
            Command::Show(a) => Some(&a.id),
            Command::Report(a) => Some(&a.id),
            Command::Depend(a) => Some(&a.id),
            Command::Pause(a) => Some(&a.id),
            Command::Health(a) => Some(&a.id),
            Command::Correct(a) => Some(&a.id),
            Command::Resume(a) => Some(&a.id),
            Command::End(a) => a.id.as_deref(),
            Command::Start(a) => a.session_id.as_deref(),
            _ => None,
        }
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Start a work session (or resume one with --session-id)
    #[command(after_help = "Examples:
  baton start --project demo --agent claude --goal 'Implement search'
  baton start --project demo --agent codex --parent <ID>     # hand off; the parent stays live
  baton start --session-id <ID> --project demo               # resume after a restart")]
    Start(StartArgs),
    /// Resume a live session after a crash or restart (keeps its original start time)
    #[command(after_help = "Examples:
  baton resume 33a39086                  # after a crash; keeps the start time
  baton resume 33a39086 --project demo   # refuse if it is another project's")]
    Resume(ResumeArgs),
    /// End a session: by id, or the one live session matching the filters
    #[command(after_help = "Examples:
  baton end 33a39086 --summary 'Search done'
  baton end 33a39086 --status failed --summary 'Gave up: the API is gone'
  baton end --project demo --agent claude        # only if exactly one live session matches

Without an ID, Baton ends the session only if exactly one live session matches --project, --client and --agent; otherwise it answers NO_ACTIVE_SESSION or AMBIGUOUS_SESSION with the candidates. It never guesses the most recent one.")]
    End(EndArgs),
    /// List sessions (live ones unless --all or an ended --status)
    #[command(after_help = "Examples:
  baton list                              # live sessions
  baton list --project demo --agent claude
  baton list --all                        # ended ones too
  baton list --status blocked
  baton list --all --cost                 # what each one cost

PROCESS says whether the session's agent still runs (live, idle, gone, unknown): see `baton reap --help`.")]
    List(ListArgs),
    /// Show one session with every field
    #[command(after_help = "Examples:
  baton show 33a39086                     # the short id `baton list` shows
  baton show demo/2026-07-18-2000-claude-33a39086
  baton --json show 33a39086              # every field, for programs")]
    Show(ShowArgs),
    /// Give a session its context (contract, constitution, decisions, …) or its pause
    ///
    /// The context: the mission's contract, the constitution version, the indexed commit, open
    /// ambiguities, active decisions and dependencies. A paused session gets its pause instead,
    /// and its next action is to stop.
    #[command(after_help = "Examples:
  baton brief 33a39086")]
    Brief(IdArg),
    /// Report what a session did: changed files, status, progress, plan, runs, evidence, PR
    #[command(after_help = "Examples:
  baton report <ID> --changed src/search.rs src/index.rs
  baton report <ID> --status blocked --reason 'waiting for the schema'
  baton report <ID> --status implementation-complete --pr https://example.com/pr/7
  baton report <ID> --run anthropic:claude-sonnet-4:review:1200:340 --via hook
  baton report <ID> --plan 'Parse' 'Index' 'Test' ; baton report <ID> --step 2 --step-state done")]
    Report(ReportArgs),
    /// Declare the files a session's work depends on (changes to them open collisions)
    #[command(after_help = "Examples:
  baton depend 33a39086 --on src/api.rs src/schema.sql")]
    Depend(DependArgs),
    /// Pause a session: delivered the next time it asks for context (pull, not push)
    #[command(after_help = "Examples:
  baton pause 33a39086 --reason \"wrong branch: rebase on main first\"")]
    Pause(PauseArgs),
    /// Lift a pause; the session's context is not current until it is briefed again
    #[command(after_help = "Examples:
  baton unpause 33a39086                  # then the agent asks for a brief")]
    Unpause(IdArg),
    /// A session's context health: six dimensions, the minimum, the verdict
    #[command(after_help = "Examples:
  baton health 33a39086
  baton health 33a39086 --recheck         # recompute now and keep the snapshot")]
    Health(HealthArgs),
    /// Correct a session's goal or summary (live or ended); the timeline keeps both versions
    #[command(after_help = "Examples:
  baton correct 33a39086 --goal \"Fix the flaky login test\"
  baton correct 33a39086 --summary \"Done; the retry was the bug\"

Hook-driven sessions are given their goal from the transcript's first prompt as soon as there is one; this changes it. An agent may correct only its own sessions.")]
    Correct(CorrectArgs),
    /// Every event of a session, with actor, time and colour (amber, red, green)
    #[command(after_help = "Examples:
  baton timeline 33a39086
  baton --json timeline 33a39086 | jq '.events[] | select(.tone == \"red\")'")]
    Timeline(IdArg),
    /// Open attention items (sessions that stopped without finishing, agents gone, …); `done`
    /// marks items seen
    #[command(after_help = "Examples:
  baton attention
  baton attention done 3 5                # you saw items 3 and 5: they leave the list
  baton attention done --older-than 7d    # clear out what is a week old
  baton attention done --all --note \"checked after the release\"
  baton --json attention | jq '.items[0]'

Before answering, Baton looks at every live session's agent (as `baton list` does) and raises an item for one newly seen gone. An item also clears itself when its cause goes away (an agent seen gone whose session ended). Marking an item done is recorded in the ledger under your name and shows in its session's timeline.")]
    Attention(AttentionArgs),
    /// End live sessions whose agent is gone, as failed, with the evidence in the summary
    #[command(after_help = "Examples:
  baton reap --dry-run                    # what would be ended, and why
  baton reap                              # end every session whose agent is gone
  baton reap --older-than 7d              # only those silent for a week, and also those
                                          # nothing ties to a process (CLI starts)

How Baton knows: a hook or the MCP server ties the agent's process to its session; Claude Code's registry (~/.claude/sessions/<pid>.json) names running sessions; Codex holds a lock file per thread while it writes. A pid that no longer runs, or now belongs to a process started at another time, is gone. Nothing is ended without this command.")]
    Reap(ReapArgs),
    /// Missions and their versioned contracts
    #[command(subcommand)]
    #[command(after_help = "Examples:
  baton mission add CLAIM-142 --contract contract.md   # a draft: one clause per line
  baton mission approve CLAIM-142                      # a lead approves it")]
    Mission(MissionCommand),
    /// The architecture constitution
    #[command(subcommand)]
    #[command(after_help = "Examples:
  baton constitution set docs/architecture.md")]
    Constitution(ConstitutionCommand),
    /// Record the repository's current commit as indexed; `stats` and `compact` look after the
    /// transcript index
    #[command(after_help = "Examples:
  baton index                             # the current `git rev-parse HEAD`, as indexed
  baton index --commit 4f2a9c1e0b7d3a5f6e8c9b0a1d2e3f4a5b6c7d8e
  baton index stats                       # bytes per table of the transcript index, and its WAL
  baton index compact                     # give back space, in short steps")]
    #[command(args_conflicts_with_subcommands = true)]
    Index(IndexArgs),
    /// Requirement ambiguities of a mission
    #[command(subcommand)]
    #[command(after_help = "Examples:
  baton ambiguity open CLAIM-142 \"Page size: 20 or 50?\"
  baton ambiguity resolve 1")]
    Ambiguity(AmbiguityCommand),
    /// Decisions every session should know
    #[command(subcommand)]
    #[command(after_help = "Examples:
  baton decision record \"No ORMs: plain SQL with rusqlite\"")]
    Decision(DecisionCommand),
    /// Token usage and estimated cost from every agent's transcripts
    #[command(after_help = "Examples:
  baton usage                       # by day, every agent found
  baton usage monthly --provider codex --since 2026-01-01
  baton usage model --json
  baton usage session --claude-dir ~/backup/.claude/projects
  baton usage daily --timezone UTC --cost-mode calculate
  baton usage monthly --csv > usage.csv   # for a spreadsheet
  baton usage blocks --recent --token-limit max   # five-hour windows: burn rate, run-out
  baton usage blocks --active --by-session        # who is using the open window

One meaning for every provider: input excludes cached input, cache_read is the cached input, output includes reasoning and reasoning is that part of it. Days are this machine's unless --timezone says otherwise. A response Claude Code wrote over several lines counts once; Codex's cumulative totals count as deltas; a Gemini CLI message written again counts once, as does a Qwen Code response written in its telemetry and in its transcript; Copilot CLI's tokens are its runs' totals, at each run's end (its credits are shown in the session, not as dollars). Prices: LiteLLM's table, shipped (see its date in --json); a model it does not list is named under the table and costs nothing.")]
    Usage(UsageArgs),
    /// Keep agents' transcripts in the index (.baton/index.sqlite), reading only what was appended
    #[command(after_help = "Examples:
  baton mirror                              # every agent's transcripts and dropped exports
  baton mirror --follow                     # and keep every change as it is written
  baton mirror --claude-dir ~/backup/.claude/projects --index /tmp/index.sqlite
  baton mirror --chatgpt-dir ~/Downloads/chatgpt   # the export .zip as downloaded, or unzipped
  baton search \"flaky login test\"          # then search what was kept

A file is checked by its identity (device, inode, size, mtime) and a hash of the 4 KiB before its cursor; a grown file is read from its cursor, only its complete lines. A file that shrank, was replaced or had its start rewritten is read again. A file deleted by its tool (Claude Code removes sessions after cleanupPeriodDays) keeps its rows. An export is read whole when it changes (at most 256 MiB unless BATON_MIRROR_CHATGPT_MAX_BYTES or BATON_MIRROR_CLAUDE_AI_MAX_BYTES says more); a conversation a newer export no longer holds is kept. A file that cannot be read is set aside, and tried again only once it changes.

Settings: a flag, else BATON_MIRROR_* in the environment (BATON_MIRROR_CLAUDE_DIR, _CODEX_DIR, _GEMINI_DIR, _QWEN_DIR, _OPENCODE_DIR, _KILO_DIR, _COPILOT_CLI_DIR, _COPILOT_CHAT_DIR, _AMP_DIR, _AIDER_DIR, _CLINE_DIR, _ROO_CODE_DIR, _KILO_CODE_DIR, _CURSOR_DIR, _CURSOR_TRANSCRIPTS_DIR, _CURSOR_CLI_DIR, _CHATGPT_DIR, _CLAUDE_AI_DIR, _POLL_SECS, _BACKFILL), else the [mirror] table of .baton/config.toml (claude_dirs, codex_dirs, gemini_dirs, qwen_dirs, opencode_dirs, kilo_dirs, copilot_cli_dirs, copilot_chat_dirs, amp_dirs, aider_dirs, cline_dirs, roo_code_dirs, kilo_code_dirs, cursor_dirs, cursor_transcripts_dirs, cursor_cli_dirs, chatgpt_dirs, claude_ai_dirs, claude|codex|gemini|qwen|opencode|kilo|copilot_cli|copilot_chat|amp|aider|cline|roo_code|kilo_code|cursor|cursor_transcripts|cursor_cli|chatgpt|claude_ai = false, poll_secs, backfill, chatgpt_max_bytes, claude_ai_max_bytes).")]
    Mirror(MirrorArgs),
    /// Search the kept transcripts: every word must appear
    ///
    /// Looks in text, thinking, tool calls and their output. `pars*` is a prefix, "quoted
    /// words" a phrase; every other word is literal (AND, NEAR and the like are searched for).
    /// The commonest English words (the, is, a…) are not required one by one: they rank the
    /// messages holding the whole query as a phrase first.
    #[command(after_help = "Examples:
  baton search parse_claude_code            # identifiers, as typed
  baton search 東京 会議                      # CJK too
  baton search timeout --in tool            # tool calls and their output
  baton search \"rate limit\" --provider codex --since 2026-06-01 --limit 50
  baton search handoff --include stored     # only the records kept with `baton record store`

Stored records are searched too (their title and content), and listed before the messages. Every word is a literal term: AND, OR, *, quotes and colons are searched for, never obeyed. The index is read alone: run `baton mirror` (or pass --sync) to bring it up to date.")]
    Search(SearchArgs),
    /// Share a conversation, a work session or a search's hits as one file: HTML that opens
    /// offline (optionally locked with a password), Markdown or JSON, redacted first
    #[command(after_help = "Examples:
  baton share 0191a2b3                      # a kept conversation -> ./<its title>.html
  baton share 0191a2b3 --preview            # what the redaction replaces; nothing is written
  baton share 0191a2b3 --password           # locked: the password is asked twice
  baton share 0191a2b3 --keep build01.corp --redact-word Zephyr
  baton share --session 33a39086 -o review.html   # a work session: timeline, cost, transcripts
  baton share --search \"flaky login\" --format markdown -o hits.md

Redaction (--redact share, the default) masks secrets and keys, user names in home folders,
e-mail addresses, phone numbers, IP addresses, internal hosts and URLs, environment variable
values and the words listed under [share] redact in .baton/config.toml; each value becomes a
numbered placeholder (<email-1>), the same one throughout. The HTML file makes no request:
its policy allows only its own style and script, and it reads with scripts off. A locked file
holds only the content encrypted (AES-256-GCM, key from PBKDF2-SHA-256, 600,000 rounds); the
browser opens it with the password and nothing else.")]
    Share(ShareArgs),
    /// The kept transcripts: list, read, tools called, remove
    #[command(subcommand)]
    Transcripts(TranscriptsCommand),
    /// Records kept on purpose (a summary, a review, a hand-off, a pasted transcript): store,
    /// list, get, export
    #[command(subcommand)]
    Record(RecordCommand),
    /// What files are (by content) and what they hold, and what was skipped and why
    #[command(after_help = "Examples:
  baton inspect ~/.claude/projects/-home-me-app/*.jsonl
  baton inspect conversations.json --json")]
    Inspect(InspectArgs),
    /// Analyze transcripts, exports and ledgers as the web page does: usage, search, charts
    ///
    /// Transcripts, exports (.json or .zip) and ledgers: an overview, tokens and cost, search,
    /// charts as SVG.
    #[command(after_help = "Examples:
  baton analyze ~/Downloads/chatgpt-export.zip
  baton analyze ~/.claude/projects --search \"flaky test\" --list 20
  baton analyze ~/.claude/projects --search \"flaky test\" --show 42     # read match #42
  baton analyze export.zip --search invoice --export invoices.md         # or .json
  baton analyze conversations.json --svg charts/

The figures are the web page's (`baton web`): both run the same core on the same chunks.")]
    Analyze(AnalyzeArgs),
    /// Budgets: the `[budget]` limits of .baton/config.toml measured now
    #[command(subcommand)]
    #[command(after_help = "Examples:
  baton budget status                     # every rule: spent, limit, share, period
  baton budget check && run-the-agents    # exit 1 (BUDGET_EXCEEDED) when a rule is at its limit
  baton budget check --fail-at warn       # fail at the warning share too

In .baton/config.toml:
  [budget]
  day_usd = 50              # also week_usd, month_usd, window_usd (the open five-hour window)
  window_percent = 90       # of a plan's five-hour window, as Claude Code and Codex report it
  warn_percent = 80         # an attention item from here (the default)
  [budget.project.webapp]   # finer scopes: project, agent, branch, mission
  week_usd = 100

At a rule's limit, the live sessions it covers are paused at their next brief, report or start (the agent is told why, with the figures); raise the limit and the next brief lifts the pause, or `baton unpause ID` lets one session go on this period. An agent cannot lift it. Spend is read from the transcript index (`baton mirror` keeps it).")]
    Budget(BudgetCommand),
    /// Session notes: every session as a Markdown note you can read and edit
    #[command(subcommand)]
    #[command(
        after_help = "Each work session gets a note at <vault>/Projects/<project>/sessions/YYYY-MM-DD-HHMM-<agent>.md, written when it starts and brought up to date when it resumes, pauses and ends. The vault is .baton/vault unless --vault, BATON_VAULT or `vault` under [notes] in .baton/config.toml points elsewhere (an Obsidian vault, say); --no-notes, BATON_NOTES=off or `enabled = false` switch notes off.

Baton owns only its frontmatter keys (session_id, project, agent, status, started_at, ended_at, …) and the text between its <!-- baton:… --> markers. Everything else is yours and kept byte for byte; a key of Baton's you change is kept and reported. A note edited in the last few seconds is left for the next run; one that keeps changing while Baton writes gets Baton's update in a `(baton conflict …)` copy beside it.

Examples:
  baton notes rebuild                     # every note again from the ledger
  baton notes check                       # notes Baton cannot read or will not touch
  baton end --note Projects/demo/sessions/2026-07-18-2000-claude.md"
    )]
    Notes(NotesCommand),
    /// Roll the active log into monthly archives (safe while agents keep appending)
    #[command(after_help = "Examples:
  baton compact
  baton doctor                            # then check what it left")]
    Compact,
    /// Report the ledger's health: unreadable lines, live sessions, locks, checkpoint
    #[command(after_help = "Examples:
  baton doctor
  baton --json doctor | jq .findings")]
    Doctor,
    /// Serve MCP on stdio, so agents drive Baton (Claude Code, Codex, Cursor, any client)
    #[command(after_help = "Register it:
  claude mcp add baton -- baton mcp
  ~/.codex/config.toml:  [mcp_servers.baton]  command = \"baton\"  args = [\"mcp\"]
  .cursor/mcp.json:      {\"mcpServers\": {\"baton\": {\"command\": \"baton\", \"args\": [\"mcp\"]}}}")]
    Mcp(McpArgs),
    /// Run as a coding agent's hook: one work session per agent session, never failing its turn
    #[command(subcommand)]
    Hook(HookCommand),
    /// OpenTelemetry: receive what agents report of their requests, beside their transcripts
    #[command(subcommand, after_help = otel::OTEL_HELP)]
    Otel(otel::OtelCommand),
    /// A terminal home: live sessions, history, search and cost, with a reader (keys: `?`)
    #[command(after_help = faces::TUI_HELP)]
    Tui,
    /// A live view of running sessions: status, agent process, health, cost, last activity
    #[command(after_help = "Examples:
  baton watch                             # redraws as sessions change; Ctrl-C to stop
  baton watch --once                      # one frame, then exit
  baton --json watch                      # one frame as JSON

It waits on file notifications (the ledger, the index, Claude Code's process registry, the live sessions' transcripts), redraws at most once a second, and otherwise sleeps: it costs nothing while nothing happens.")]
    Watch(WatchArgs),
    /// Print Claude Code's status line: work session, health, cost, context and limits
    #[command(
        after_help = "In ~/.claude/settings.json (or the project's .claude/settings.json):
  \"statusLine\": { \"type\": \"command\", \"command\": \"baton statusline\", \"padding\": 0 }

Segments (--segments, or BATON_STATUSLINE_SEGMENTS), in the order given:
  session   the work session this Claude session belongs to, and its status
  health    its context-health score
  cost      what this session cost (Claude Code's own figure, else what the hooks recorded)
  today     what today cost, from the index (`baton mirror`) and this transcript's unread tail
  context   how full the context window is
  limits    the 5-hour and 7-day limits used, against the time gone in each window

Examples:
  baton statusline < input.json
  baton statusline --segments session,context,limits --width 80

It reads no transcript whole and starts no process; invocations for one session compute one at a time and the others reuse the last line. On any problem it prints the last good line marked (stale) and exits 0."
    )]
    Statusline(StatuslineArgs),
    /// Serve the web page (analyzes files inside your browser; binds 127.0.0.1 only)
    #[command(after_help = "Examples:
  baton web                               # http://127.0.0.1:8377
  baton web --port 0                      # any free port")]
    Web(WebArgs),
    /// Run Baton's main job on a temporary ledger, then serve the web page
    #[command(after_help = "Examples:
  baton demo                              # a temporary ledger, then the page
  baton demo --serve-seconds 0            # the sessions only, no page")]
    Demo(DemoArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    #[command(after_help = "Install one:
  baton completions bash > ~/.local/share/bash-completion/completions/baton
  baton completions zsh > ~/.zfunc/_baton      # with fpath+=(~/.zfunc) before compinit
  baton completions fish > ~/.config/fish/completions/baton.fish")]
    Completions(CompletionsArgs),
    /// Print the manual page (roff), or write one page per command with --dir
    #[command(after_help = "Examples:
  baton man | man -l -
  baton man --dir ~/.local/share/man/man1      # then: man baton-end")]
    Man(ManArgs),
    /// Answer one JSON ABI request as an editor would, natively or through a .wasm
    #[command(after_help = "Examples:
  baton abi '{\"op\":\"version\"}'
  baton abi --wasm target/wasm32-unknown-unknown/release/baton_core.wasm '{\"op\":\"version\"}'")]
    Abi(AbiArgs),
    /// Send this machine's ledger events to a team's PostgreSQL (only what is new)
    #[command(after_help = "Examples:
  baton sync --to postgres://baton_laptop@db.internal/baton
  BATON_SYNC_URL=postgres://… baton sync        # or [sync] url = \"…\" in .baton/config.toml

  baton sync --follow                          # keep sending as the ledger grows

Each event is stored once, keyed by this machine's id (.baton/machine-id) and the event's id:
a re-run, a crash mid-sync or two syncs at once never duplicate or lose a row. The password
comes from the URL, PGPASSWORD or ~/.pgpass and is never written anywhere. A server out of
reach stops no local command; the next sync (or --follow) catches up.")]
    Sync(SyncArgs),
    /// Every machine's sessions, read from the team's PostgreSQL (what `baton sync` sent)
    #[command(
        subcommand,
        after_help = "Examples:
  baton team list --from postgres://baton_reader@db.internal/baton
  baton team attention                         # the URL from BATON_TEAM_URL or [team] url
  baton team show 3f9c2a1e
  baton team init --from postgres://owner@db.internal/baton   # once, as the schema's owner

The events of every machine fold as one ledger would fold them, by the same rules, and a change
reported on one machine to a file a session on another depends on opens a collision here."
    )]
    Team(TeamCommand),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_is_listed_in_exactly_one_help_group() {
        use clap::CommandFactory;
        let mut grouped: Vec<&str> = COMMAND_GROUPS
            .iter()
            .flat_map(|(_, names)| names.iter().copied())
            .collect();
        grouped.sort();
        let mut commands: Vec<String> = Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_owned())
            .filter(|name| name != "help")
            .collect();
        commands.sort();
        assert_eq!(grouped, commands);
    }
}
