//! The command line's shape: every command, flag and help text, parsed by clap.

use crate::faces::table::ColorChoice;
use baton_core::ledger::activity::{StepState, Via};
use baton_core::transcripts::Provider;
use baton_core::transcripts::usage::GroupBy;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
  baton usage                         # tokens and cost from Claude Code and Codex
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
    ("Live", &["watch", "statusline", "reap"]),
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
            "mirror",
            "search",
            "transcripts",
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
    /// Token usage and estimated cost from Claude Code and Codex transcripts
    #[command(after_help = "Examples:
  baton usage                       # by day, Claude Code and Codex
  baton usage monthly --provider codex --since 2026-01-01
  baton usage model --json
  baton usage session --claude-dir ~/backup/.claude/projects
  baton usage daily --timezone UTC --cost-mode calculate
  baton usage monthly --csv > usage.csv   # for a spreadsheet

One meaning for every provider: input excludes cached input, cache_read is the cached input, output includes reasoning and reasoning is that part of it. Days are this machine's unless --timezone says otherwise. A response Claude Code wrote over several lines counts once; Codex's cumulative totals count as deltas. Prices: LiteLLM's table, shipped (see its date in --json); a model it does not list is named under the table and costs nothing.")]
    Usage(UsageArgs),
    /// Keep agents' transcripts in the index (.baton/index.sqlite), reading only what was appended
    #[command(after_help = "Examples:
  baton mirror                              # Claude Code, Codex and dropped exports, one pass
  baton mirror --follow                     # and keep every change as it is written
  baton mirror --claude-dir ~/backup/.claude/projects --index /tmp/index.sqlite
  baton mirror --chatgpt-dir ~/Downloads/chatgpt   # the export .zip as downloaded, or unzipped
  baton search \"flaky login test\"          # then search what was kept

A file is checked by its identity (device, inode, size, mtime) and a hash of the 4 KiB before its cursor; a grown file is read from its cursor, only its complete lines. A file that shrank, was replaced or had its start rewritten is read again. A file deleted by its tool (Claude Code removes sessions after cleanupPeriodDays) keeps its rows. An export is read whole when it changes (at most 256 MiB unless BATON_MIRROR_CHATGPT_MAX_BYTES or BATON_MIRROR_CLAUDE_AI_MAX_BYTES says more); a conversation a newer export no longer holds is kept. A file that cannot be read is set aside, and tried again only once it changes.

Settings: a flag, else BATON_MIRROR_* in the environment, else the [mirror] table of .baton/config.toml (claude_dirs, codex_dirs, chatgpt_dirs, claude_ai_dirs, claude|codex|chatgpt|claude_ai = false, poll_secs, backfill, chatgpt_max_bytes, claude_ai_max_bytes).")]
    Mirror(MirrorArgs),
    /// Search the kept transcripts: every word must appear (text, thinking, tool calls)
    #[command(after_help = "Examples:
  baton search parse_claude_code            # identifiers, as typed
  baton search 東京 会議                      # CJK too
  baton search timeout --in tool            # tool calls and their output
  baton search \"rate limit\" --provider codex --since 2026-06-01 --limit 50
  baton search handoff --include stored     # only the records kept with `baton record store`

Stored records are searched too (their title and content), and listed before the messages. Every word is a literal term: AND, OR, *, quotes and colons are searched for, never obeyed. The index is read alone: run `baton mirror` (or pass --sync) to bring it up to date.")]
    Search(SearchArgs),
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

#[derive(Debug, Args)]
pub(crate) struct SyncArgs {
    /// The server: postgres://USER@HOST[:PORT]/DATABASE
    #[arg(long = "to", env = "BATON_SYNC_URL", value_name = "URL")]
    pub(crate) to: Option<String>,
    /// Keep syncing as the ledger grows, until stopped; a server out of reach is tried again
    #[arg(long)]
    pub(crate) follow: bool,
    /// Send the mirror's usage rows too (tokens, models, costs, projects; never message
    /// text), for `baton team usage`: only the days whose rows differ from the server's
    /// [default: `usage = true` under [sync] in config.toml]
    #[arg(long)]
    pub(crate) usage: bool,
    /// With --follow: the longest wait between syncs when nothing changes
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 30,
        requires = "follow"
    )]
    pub(crate) every: u64,
}

/// Where a team view reads from.
#[derive(Debug, Args)]
pub(crate) struct TeamServer {
    /// The server: postgres://USER@HOST[:PORT]/DATABASE [default: BATON_TEAM_URL, else
    /// `url` under [team] or [sync] in .baton/config.toml, else BATON_SYNC_URL]
    #[arg(long = "from", env = "BATON_TEAM_URL", value_name = "URL")]
    pub(crate) from: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TeamCommand {
    /// Live sessions on every machine (--all adds ended ones), with machine and health
    #[command(after_help = "Examples:
  baton team list --from postgres://baton_reader@db.internal/baton
  baton team list --all --project shop
  baton --json team list | jq '.sessions[] | {goal, machines}'")]
    List(TeamListArgs),
    /// What needs a person, on every machine, and collisions only the team sees
    #[command(after_help = "Examples:
  baton team attention
  BATON_TEAM_URL=postgres://baton_reader@db.internal/baton baton team attention")]
    Attention(TeamServer),
    /// One session, whichever machine it ran on
    #[command(after_help = "Examples:
  baton team show 3f9c2a1e
  baton --json team show 01a2389c-30cd-7797-90e9-1ee4909ebc53")]
    Show(TeamShowArgs),
    /// Every machine's tokens and cost (what `baton sync --usage` sent), by day, model, project
    /// or machine
    #[command(after_help = "Examples:
  baton team usage                             # by day
  baton team usage machine --since 2026-11-01
  baton team usage model --timezone Europe/Paris --csv > team.csv

Costs are priced by the same table and rules as `baton usage`.")]
    Usage(TeamUsageArgs),
    /// Create or update the team schema on the server (once, as the role that owns it)
    #[command(after_help = "Examples:
  baton team init --from postgres://owner@db.internal/baton

Then give each machine a role of its own and the lead a read-only one: the README's
\"Least privilege\" section has the SQL.")]
    Init(TeamServer),
}

#[derive(Debug, Args)]
pub(crate) struct TeamListArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    /// Only this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Only this agent
    #[arg(long)]
    pub(crate) agent: Option<String>,
    /// Only this status: starting, working, blocked, awaiting_review, paused, complete, failed
    #[arg(long)]
    pub(crate) status: Option<String>,
    /// Include ended sessions
    #[arg(long)]
    pub(crate) all: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TeamUsageArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    /// How to group rows
    #[arg(value_enum, default_value_t = TeamGroupByArg::Daily)]
    pub(crate) group_by: TeamGroupByArg,
    #[command(flatten)]
    pub(crate) window: UsageWindow,
    /// Print the rows as CSV; `--json` still gives the one JSON object
    #[arg(long)]
    pub(crate) csv: bool,
}

/// How `baton team usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TeamGroupByArg {
    /// One row per day (in --timezone)
    Daily,
    /// One row per week, Monday first (in --timezone)
    Weekly,
    /// One row per month (in --timezone)
    Monthly,
    /// One row per model
    Model,
    /// One row per project (each session's first working folder)
    Project,
    /// One row per machine
    Machine,
}

#[derive(Debug, Args)]
pub(crate) struct TeamShowArgs {
    #[command(flatten)]
    pub(crate) server: TeamServer,
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct IdArg {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Who reports: a client hook or the model's own call
    #[arg(long, value_enum, default_value_t = ViaArg::Model)]
    pub(crate) via: ViaArg,
    /// Files changed
    #[arg(long, num_args = 1.., value_name = "FILE")]
    pub(crate) changed: Vec<String>,
    /// blocked or implementation-complete
    #[arg(long, value_enum)]
    pub(crate) status: Option<ReportStatusArg>,
    /// Why it is blocked
    #[arg(long)]
    pub(crate) reason: Option<String>,
    /// Self-reported progress, 0–100 (shown, never used to decide)
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub(crate) progress: Option<u8>,
    /// An AI run: PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS
    #[arg(long, value_name = "SPEC")]
    pub(crate) run: Option<String>,
    /// Evidence for the work
    #[arg(long)]
    pub(crate) evidence: Option<String>,
    /// The pull request's address
    #[arg(long = "pr", value_name = "URL")]
    pub(crate) pull_request: Option<String>,
    /// A new plan: the steps' titles
    #[arg(long, num_args = 1.., value_name = "STEP")]
    pub(crate) plan: Vec<String>,
    /// A plan step's number (with --step-state)
    #[arg(long, requires = "step_state")]
    pub(crate) step: Option<u32>,
    /// pending, in-progress, done or blocked
    #[arg(long, requires = "step", value_enum)]
    pub(crate) step_state: Option<StepStateArg>,
    /// Ask a person to decide this
    #[arg(long, value_name = "QUESTION")]
    pub(crate) ask_decision: Option<String>,
    /// Mark an earlier decision request (by number) settled
    #[arg(long, value_name = "N")]
    pub(crate) decision_resolved: Option<u32>,
}

#[derive(Debug, Args)]
pub(crate) struct DependArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Files the work depends on
    #[arg(long = "on", num_args = 1.., required = true, value_name = "FILE")]
    pub(crate) files: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct PauseArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Why (the agent is told)
    #[arg(long, required = true)]
    pub(crate) reason: String,
}

#[derive(Debug, Args)]
pub(crate) struct HealthArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
    /// Recompute now and record the snapshot
    #[arg(long)]
    pub(crate) recheck: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum MissionCommand {
    /// Add a mission, or a new version of its contract (a draft until approved)
    Add {
        /// The reference, e.g. CLAIM-142
        reference: String,
        /// The contract: one clause per non-empty line (Markdown list markers are dropped)
        #[arg(long, value_name = "FILE")]
        contract: PathBuf,
    },
    /// Approve the newest contract version (needs a lead: owner or admin)
    Approve {
        /// The reference
        reference: String,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum ConstitutionCommand {
    /// Set a new version of the architecture constitution from a file
    Set {
        /// The constitution's text
        file: PathBuf,
    },
}

#[derive(Debug, Args)]
pub(crate) struct IndexArgs {
    /// The commit to record [default: `git rev-parse HEAD` here]
    #[arg(long)]
    pub(crate) commit: Option<String>,
    #[command(subcommand)]
    pub(crate) upkeep: Option<IndexUpkeep>,
}

/// Looking after the transcript index.
#[derive(Debug, Subcommand)]
pub(crate) enum NotesCommand {
    /// Render every session's note from the ledger again (a deleted vault loses nothing Baton
    /// owns; a person's words in the notes are kept)
    Rebuild,
    /// Report session notes Baton cannot read (never written until mended), notes of unknown
    /// sessions, conflict copies, and sessions without a note
    Check,
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

#[derive(Debug, Subcommand)]
pub(crate) enum AmbiguityCommand {
    /// Open an ambiguity on a mission's requirements
    Open {
        /// The mission
        reference: String,
        /// The question
        text: String,
    },
    /// Resolve an ambiguity by number
    Resolve {
        /// Its number
        number: u32,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum DecisionCommand {
    /// Record a decision
    Record {
        /// The decision
        text: String,
    },
}

#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// Files or folders: Claude Code or Codex .jsonl, ChatGPT or claude.ai conversations.json
    /// or the export's .zip, Baton ledgers (.ndjson)
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
    /// The transcript index [default: index.sqlite in the ledger folder]
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

#[derive(Debug, Args)]
pub(crate) struct MirrorArgs {
    #[command(flatten)]
    pub(crate) location: IndexLocation,
    /// Claude Code projects folder [default: BATON_MIRROR_CLAUDE_DIR, else CLAUDE_CONFIG_DIR/projects,
    /// else ~/.claude/projects and ~/.config/claude/projects]
    #[arg(long = "claude-dir", value_name = "DIR")]
    pub(crate) claude_dirs: Vec<PathBuf>,
    /// Codex sessions folder [default: BATON_MIRROR_CODEX_DIR, else $CODEX_HOME/sessions, else
    /// ~/.codex/sessions]
    #[arg(long = "codex-dir", value_name = "DIR")]
    pub(crate) codex_dirs: Vec<PathBuf>,
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

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// The words to look for (each must appear)
    #[arg(required = true, num_args = 1..)]
    pub(crate) words: Vec<String>,
    #[command(flatten)]
    pub(crate) index: QueryIndex,
    /// Where to look: text, thinking, tool (calls and output), tool_input, tool_output
    /// [default: text,thinking,tool_input]
    #[arg(long = "in", value_name = "FIELDS")]
    pub(crate) fields: Option<String>,
    #[command(flatten)]
    pub(crate) filters: TranscriptFilters,
    /// How many hits
    #[arg(long, default_value_t = 20)]
    pub(crate) limit: u32,
    /// all (the default: the mirrored transcripts and the records kept with `baton record
    /// store`), mirrored or stored
    #[arg(long, value_name = "WHICH")]
    pub(crate) include: Option<String>,
}

/// Filters shared by the transcript queries.
#[derive(Debug, Args)]
pub(crate) struct TranscriptFilters {
    /// Only this provider: claude_code, codex, chatgpt, claude_ai
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

/// `baton correct`.
#[derive(Debug, Args)]
pub(crate) struct CorrectArgs {
    /// The session: its id, 8+ hex digits of either end, or its path
    pub(crate) id: String,
    /// Its new goal
    #[arg(long, required_unless_present = "summary")]
    pub(crate) goal: Option<String>,
    /// Its new summary
    #[arg(long)]
    pub(crate) summary: Option<String>,
}

/// `baton attention [done …]`.
#[derive(Debug, Args)]
pub(crate) struct AttentionArgs {
    #[command(subcommand)]
    pub(crate) done: Option<AttentionCommand>,
}

/// What `baton attention` does besides listing.
#[derive(Debug, Subcommand)]
pub(crate) enum AttentionCommand {
    /// Mark attention items done (you saw them): by number, every one, or the old ones
    #[command(after_help = "Examples:
  baton attention done 3 5
  baton attention done --all
  baton attention done --older-than 2d --note \"stale after the weekend\"")]
    Done(AttentionDoneArgs),
}

/// `baton attention done`.
#[derive(Debug, Args)]
pub(crate) struct AttentionDoneArgs {
    /// The items' numbers, as `baton attention` lists them
    #[arg(value_name = "N", required_unless_present_any = ["all", "older_than"])]
    pub(crate) numbers: Vec<u32>,
    /// Every open item
    #[arg(long, conflicts_with = "numbers")]
    pub(crate) all: bool,
    /// Only items raised at least this long ago (`90m`, `2h`, `7d`)
    #[arg(long, value_name = "SPAN", value_parser = span_seconds)]
    pub(crate) older_than: Option<u64>,
    /// Why, kept with the acknowledgement
    #[arg(long, value_name = "TEXT")]
    pub(crate) note: Option<String>,
}

/// A span on the command line (`90s`, `20m`, `2h`, `7d`), in seconds.
fn span_seconds(text: &str) -> Result<u64, String> {
    baton_core::time::parse_duration_seconds("span", text)
        .map_err(|e| e.message.trim_start_matches("span: ").to_owned())
}

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
    /// session,health,cost,today,context,limits]
    #[arg(long, value_name = "LIST")]
    pub(crate) segments: Option<String>,
    /// The widest the line may be [default: COLUMNS, else 120]
    #[arg(long, value_name = "CHARS")]
    pub(crate) width: Option<usize>,
}

/// `baton reap`.
#[derive(Debug, Args)]
pub(crate) struct ReapArgs {
    /// Only sessions silent for at least this long (90m, 12h, 7d); then also the ones no
    /// process is tied to
    #[arg(long, value_name = "SPAN", value_parser = span_seconds)]
    pub(crate) older_than: Option<u64>,
    /// Say what would be ended, end nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
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
    /// Claude Code or Codex .jsonl, ChatGPT or claude.ai conversations.json
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
}

/// The days and costs of a usage report: `baton usage` and `baton team usage` alike.
#[derive(Debug, Args)]
pub(crate) struct UsageWindow {
    /// First day counted (YYYY-MM-DD or YYYYMMDD, in --timezone)
    #[arg(long, value_name = "DATE")]
    pub(crate) since: Option<String>,
    /// Last day counted (YYYY-MM-DD or YYYYMMDD, in --timezone)
    #[arg(long, value_name = "DATE")]
    pub(crate) until: Option<String>,
    /// The zone of days, weeks and months: an IANA name (Europe/Paris) or UTC [default: this
    /// machine's zone, from TZ or /etc/localtime]
    #[arg(long, value_name = "ZONE")]
    pub(crate) timezone: Option<String>,
    /// Which cost to show: `auto` uses the cost a line records (old Claude Code `costUSD`)
    /// and calculates the rest, `calculate` always prices the tokens, `display` shows only
    /// recorded costs
    #[arg(long, value_enum, default_value_t = CostModeArg::Auto)]
    pub(crate) cost_mode: CostModeArg,
}

impl UsageWindow {
    /// The zone, and the first and last instants counted, as given.
    pub(crate) fn resolve(
        &self,
    ) -> Result<
        (
            crate::os::zone::HostZone,
            Option<baton_core::Timestamp>,
            Option<baton_core::Timestamp>,
        ),
        baton_core::Error,
    > {
        let zone = crate::os::zone::resolve(self.timezone.as_deref())?;
        let day = |field: &str, text: &Option<String>, end: bool| {
            text.as_deref()
                .map(|d| baton_core::time::parse_day_in(field, d, end, &zone))
                .transpose()
        };
        let since = day("since", &self.since, false)?;
        let until = day("until", &self.until, true)?;
        Ok((zone, since, until))
    }
}

#[derive(Debug, Args)]
pub(crate) struct UsageArgs {
    /// How to group rows
    #[arg(value_enum, default_value_t = GroupByArg::Daily)]
    pub(crate) group_by: GroupByArg,
    /// Which transcripts to read
    #[arg(long, value_enum, default_value_t = ProviderArg::All)]
    pub(crate) provider: ProviderArg,
    #[command(flatten)]
    pub(crate) window: UsageWindow,
    /// Claude Code projects folder [default: CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects
    /// and ~/.config/claude/projects]
    #[arg(long = "claude-dir", value_name = "DIR")]
    pub(crate) claude_dirs: Vec<PathBuf>,
    /// Codex sessions folder [default: $CODEX_HOME/sessions, else ~/.codex/sessions]
    #[arg(long = "codex-dir", value_name = "DIR")]
    pub(crate) codex_dirs: Vec<PathBuf>,
    /// A price table (JSON, the shape of the shipped one) to use instead of the shipped one
    #[arg(long, value_name = "FILE")]
    pub(crate) prices: Option<PathBuf>,
    /// Count from the transcript index (`baton mirror` keeps it) instead of reading the
    /// folders: fast, and it remembers transcripts whose files are gone. `--index=FILE` names
    /// another index [default: BATON_INDEX, else index.sqlite in the ledger folder]
    #[arg(
        long = "index",
        value_name = "FILE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "",
        conflicts_with_all = ["claude_dirs", "codex_dirs"]
    )]
    pub(crate) index: Option<String>,
    /// With --index: bring the index up to date first (one mirror pass, reading only what
    /// changed)
    #[arg(long, requires = "index")]
    pub(crate) sync: bool,
    /// With `session`: one row per work session of this ledger instead of per agent session,
    /// each transcript tied by its provider session id, else by project, agent and time
    #[arg(long)]
    pub(crate) work: bool,
    /// Print the rows as CSV (a header, a line per row, then `total`) for a spreadsheet;
    /// `--json` still gives the one JSON object
    #[arg(long)]
    pub(crate) csv: bool,
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

#[derive(Debug, Args)]
pub(crate) struct StartArgs {
    /// The project the work belongs to
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// The agent doing the work (normalized: trimmed, lower-case)
    #[arg(long, env = "BATON_AGENT")]
    pub(crate) agent: Option<String>,
    /// The coding client, e.g. claude-code, codex, cursor
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
    /// What the session sets out to do
    #[arg(long)]
    pub(crate) goal: Option<String>,
    /// The session this one follows on from (it must exist; it is not closed)
    #[arg(long = "parent", value_name = "ID")]
    pub(crate) parent: Option<String>,
    /// External run id (requires --work-item-id)
    #[arg(long, requires = "work_item_id")]
    pub(crate) run_id: Option<String>,
    /// External work item id (requires --run-id)
    #[arg(long, requires = "run_id")]
    pub(crate) work_item_id: Option<String>,
    /// External attempt id (a start with a live session's id resumes it)
    #[arg(long)]
    pub(crate) attempt_id: Option<String>,
    /// The agent's own session id: Claude Code's session_id, Codex's thread id (links the
    /// session to its transcripts; a start with a live session's id resumes it)
    #[arg(long, value_name = "ID")]
    pub(crate) provider_session_id: Option<String>,
    /// Resume this session instead of starting one
    #[arg(long, value_name = "ID")]
    pub(crate) session_id: Option<String>,
    /// The mission (its contract must be approved)
    #[arg(long, value_name = "REF")]
    pub(crate) mission: Option<String>,
    /// The commit the work starts from [default: `git rev-parse HEAD` here, if a repository]
    #[arg(long)]
    pub(crate) commit: Option<String>,
    /// Only register (status `starting`); brief later with `baton brief`
    #[arg(long)]
    pub(crate) no_brief: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The session to resume (its id, its last 8+ hex digits, or its path)
    pub(crate) id: String,
    /// Refuse unless the session belongs to this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// The client resuming it
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct EndArgs {
    /// The session to end: its id, its last 8+ hex digits or its path (omit to resolve the only matching live session)
    pub(crate) id: Option<String>,
    /// Only consider sessions of this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Only consider sessions of this agent
    #[arg(long, env = "BATON_AGENT")]
    pub(crate) agent: Option<String>,
    /// Only consider sessions of this client
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    pub(crate) client: Option<String>,
    /// What was done
    #[arg(long)]
    pub(crate) summary: Option<String>,
    /// How it ended
    #[arg(long, value_enum, default_value_t = OutcomeArg::Complete)]
    pub(crate) status: OutcomeArg,
    /// Also keep the summary as a stored record attached to the session (`baton record
    /// list` finds it; `baton show` lists it)
    #[arg(long, requires = "summary")]
    pub(crate) store_summary: bool,
    /// End the session this note belongs to: the `session_id` in its frontmatter decides,
    /// never its file name or time (a path in the vault, or on disk)
    #[arg(long, value_name = "PATH", conflicts_with = "id")]
    pub(crate) note: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only this project
    #[arg(long)]
    pub(crate) project: Option<String>,
    /// Only this agent
    #[arg(long)]
    pub(crate) agent: Option<String>,
    /// Only this status: starting, working, blocked, awaiting_review, paused, complete, failed
    #[arg(long)]
    pub(crate) status: Option<String>,
    /// Include ended sessions
    #[arg(long)]
    pub(crate) all: bool,
    /// Add each session's tokens and cost (from the mirror's index when there is one, else
    /// from the usage its hooks recorded)
    #[arg(long)]
    pub(crate) cost: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The session: its id, the last 8 (or more) hex digits Baton shows, or its path
    pub(crate) id: String,
}

/// Who sent a report (`--via`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ViaArg {
    /// A client hook reported it
    Hook,
    /// The model reported it itself
    Model,
}

impl From<ViaArg> for Via {
    fn from(v: ViaArg) -> Via {
        match v {
            ViaArg::Hook => Via::Hook,
            ViaArg::Model => Via::Model,
        }
    }
}

/// What a report says of the session (`report --status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportStatusArg {
    /// It cannot go on (say why with --reason)
    Blocked,
    /// The work is done and awaits review
    #[value(alias = "implementation_complete")]
    ImplementationComplete,
}

impl ReportStatusArg {
    /// The core's word for it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ReportStatusArg::Blocked => "blocked",
            ReportStatusArg::ImplementationComplete => "implementation_complete",
        }
    }
}

/// A plan step's state (`report --step-state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum StepStateArg {
    /// Not started
    Pending,
    /// Being worked on
    #[value(alias = "in_progress")]
    InProgress,
    /// Finished
    Done,
    /// Cannot go on
    Blocked,
}

impl From<StepStateArg> for StepState {
    fn from(s: StepStateArg) -> StepState {
        match s {
            StepStateArg::Pending => StepState::Pending,
            StepStateArg::InProgress => StepState::InProgress,
            StepStateArg::Done => StepState::Done,
            StepStateArg::Blocked => StepState::Blocked,
        }
    }
}

/// How a session ended (`end --status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum OutcomeArg {
    /// The work is finished
    Complete,
    /// The work stopped without finishing
    Failed,
}

impl OutcomeArg {
    /// The core's word for it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OutcomeArg::Complete => "complete",
            OutcomeArg::Failed => "failed",
        }
    }
}

/// How `baton usage` groups its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum GroupByArg {
    /// One row per day (in --timezone)
    Daily,
    /// One row per week, Monday first (in --timezone)
    Weekly,
    /// One row per month (in --timezone)
    Monthly,
    /// One row per provider session
    Session,
    /// One row per model
    Model,
    /// One row per project (each session's first working folder)
    Project,
}

/// Which cost `baton usage` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CostModeArg {
    /// Recorded cost where a line has one, else calculated
    Auto,
    /// Always calculated from tokens and prices
    Calculate,
    /// Only recorded costs
    Display,
}

impl From<CostModeArg> for baton_core::transcripts::usage::CostMode {
    fn from(mode: CostModeArg) -> Self {
        use baton_core::transcripts::usage::CostMode;
        match mode {
            CostModeArg::Auto => CostMode::Auto,
            CostModeArg::Calculate => CostMode::Calculate,
            CostModeArg::Display => CostMode::Display,
        }
    }
}

impl From<GroupByArg> for GroupBy {
    fn from(g: GroupByArg) -> GroupBy {
        match g {
            GroupByArg::Daily => GroupBy::Daily,
            GroupByArg::Weekly => GroupBy::Weekly,
            GroupByArg::Monthly => GroupBy::Monthly,
            GroupByArg::Session => GroupBy::Session,
            GroupByArg::Model => GroupBy::Model,
            GroupByArg::Project => GroupBy::Project,
        }
    }
}

/// Which transcripts `baton usage` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProviderArg {
    /// Claude Code only (also spelt claude_code, as the index and JSON spell it)
    #[value(alias = "claude_code")]
    ClaudeCode,
    /// Codex only
    Codex,
    /// Both
    All,
}

impl ProviderArg {
    /// The providers it names (empty: all).
    pub(crate) fn providers(self) -> Vec<Provider> {
        match self {
            ProviderArg::ClaudeCode => vec![Provider::ClaudeCode],
            ProviderArg::Codex => vec![Provider::Codex],
            ProviderArg::All => Vec::new(),
        }
    }
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
