//! The command-line interface: argument parsing, output in the human+JSON contract, and exit
//! statuses (0 success, 1 a coded error, 2 a usage error).

use crate::engine;
use crate::store::{self, Ledger};
use baton_core::Error;
use baton_core::commands::render;
use baton_core::commands::{
    ConstitutionParams, DependParams, HealthParams, IndexParams, MissionParams, NoteParams,
    PauseParams, ReportParams, RunReport, SessionRef,
};
use baton_core::commands::{EndParams, ListParams, Request, ResumeParams, ShowParams, StartParams};
use baton_core::ledger::activity::Via;
use clap::{Args, Parser, Subcommand};
use serde::Serialize;
use serde_json::Value;
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
  baton start --project demo --agent claude --goal 'Implement search'
  baton list
  baton end --project demo --agent claude --summary 'Search done'
  baton end 019c1a2b-3c4d-7e5f-8a6b-7c8d9e0f1a2b --status failed
  baton --json list --all

Every command prints a human line and then a JSON object; with --json only the JSON.
Exit status: 0 success, 1 a coded error ([error] CODE: …), 2 a usage error.")]
pub struct Cli {
    /// The ledger directory [default: the nearest .baton/ at or above the current directory,
    /// else ./.baton, created on first write]
    #[arg(long, global = true, env = "BATON_DIR", value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Print exactly one JSON object on stdout, nothing else
    #[arg(long, global = true)]
    json: bool,

    /// Skip fsync after each append (faster; a power cut may lose the last events).
    /// Also BATON_FSYNC=0
    #[arg(long, global = true)]
    no_fsync: bool,

    /// Act as this person (roles come from .baton/config.toml) [default: BATON_ACTOR, else
    /// the OS user]
    #[arg(long = "as", global = true, value_name = "PERSON")]
    person: Option<String>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start a work session (or resume one with --session-id)
    #[command(after_help = "Examples:
  baton start --project demo --agent claude --goal 'Implement search'
  baton start --project demo --agent codex --parent <ID>     # hand off; the parent stays live
  baton start --session-id <ID> --project demo               # resume after a restart")]
    Start(StartArgs),
    /// Resume a live session after a crash or restart (keeps its original start time)
    Resume(ResumeArgs),
    /// End a session: by id, or the one live session matching the filters
    #[command(
        after_help = "Without an ID, Baton ends the session only if exactly one live session
matches --project, --client and --agent; otherwise it answers NO_ACTIVE_SESSION or
AMBIGUOUS_SESSION with the candidates. It never guesses the most recent one."
    )]
    End(EndArgs),
    /// List sessions (live ones unless --all or an ended --status)
    List(ListArgs),
    /// Show one session with every field
    Show(ShowArgs),
    /// Give a session its context: contract, constitution, commit, ambiguities, decisions,
    /// dependencies, and any pause (then its next action is to stop)
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
    Depend(DependArgs),
    /// Pause a session: delivered the next time it asks for context (pull, not push)
    Pause(PauseArgs),
    /// Lift a pause; the session's context is not current until it is briefed again
    Unpause(IdArg),
    /// A session's context health: six dimensions, the minimum, the verdict
    Health(HealthArgs),
    /// Every event of a session, with actor, time and colour (amber, red, green)
    Timeline(IdArg),
    /// Open attention items (sessions that stopped without finishing, …)
    Attention,
    /// Missions and their versioned contracts
    #[command(subcommand)]
    Mission(MissionCommand),
    /// The architecture constitution
    #[command(subcommand)]
    Constitution(ConstitutionCommand),
    /// Record the repository's current commit (`git rev-parse HEAD`) as indexed
    Index(IndexArgs),
    /// Requirement ambiguities of a mission
    #[command(subcommand)]
    Ambiguity(AmbiguityCommand),
    /// Decisions every session should know
    #[command(subcommand)]
    Decision(DecisionCommand),
    /// Token usage and estimated cost from Claude Code and Codex transcripts
    #[command(after_help = "Examples:
  baton usage                       # by day, Claude Code and Codex
  baton usage monthly --provider codex --since 2026-01-01
  baton usage model --json
  baton usage session --claude-dir ~/backup/.claude/projects

One meaning for every provider: input excludes cached input, cache_read is the cached
input, output includes reasoning and reasoning is that part of it. Days are UTC. A response
Claude Code wrote over several lines counts once; Codex's cumulative totals count as deltas.")]
    Usage(UsageArgs),
    /// What files are (by content) and what they hold: conversations, messages, tool calls,
    /// what was skipped and why
    Inspect(InspectArgs),
    /// Analyze transcripts, exports (.json or .zip) and ledgers as the web page does: overview,
    /// tokens and cost, search, charts as SVG
    #[command(after_help = "Examples:
  baton analyze ~/Downloads/chatgpt-export.zip
  baton analyze ~/.claude/projects --search \"flaky test\" --list 20
  baton analyze conversations.json --svg charts/

The figures are the web page's (`baton web`): both run the same core on the same chunks.")]
    Analyze(AnalyzeArgs),
    /// Roll the active log into monthly archives (safe while agents keep appending)
    Compact,
    /// Report the ledger's health: unreadable lines, live sessions, locks, checkpoint
    Doctor,
    /// Serve MCP on stdio, so agents drive Baton (Claude Code, Codex, Cursor, any client)
    #[command(after_help = "Register it:
  claude mcp add baton -- baton mcp
  ~/.codex/config.toml:  [mcp_servers.baton]  command = \"baton\"  args = [\"mcp\"]
  .cursor/mcp.json:      {\"mcpServers\": {\"baton\": {\"command\": \"baton\", \"args\": [\"mcp\"]}}}")]
    Mcp(McpArgs),
    /// Serve the web page (analyzes files inside your browser; binds 127.0.0.1 only)
    Web(WebArgs),
    /// Run Baton's main job on a temporary ledger, then serve the web page
    Demo(DemoArgs),
    /// Answer one JSON ABI request (as an editor extension would), natively or through a .wasm
    #[command(after_help = "Examples:
  baton abi '{\"op\":\"version\"}'
  baton abi --wasm target/wasm32-unknown-unknown/release/baton_core.wasm '{\"op\":\"version\"}'")]
    Abi(AbiArgs),
}

#[derive(Debug, Args)]
struct IdArg {
    /// The session
    id: String,
}

#[derive(Debug, Args)]
struct ReportArgs {
    /// The session
    id: String,
    /// Who reports: a client hook or the model's own call
    #[arg(long, value_parser = ["hook", "model"], default_value = "model")]
    via: String,
    /// Files changed
    #[arg(long, num_args = 1.., value_name = "FILE")]
    changed: Vec<String>,
    /// blocked or implementation-complete
    #[arg(long, value_parser = ["blocked", "implementation-complete", "implementation_complete"])]
    status: Option<String>,
    /// Why it is blocked
    #[arg(long)]
    reason: Option<String>,
    /// Self-reported progress, 0–100 (shown, never used to decide)
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    progress: Option<u8>,
    /// An AI run: PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS
    #[arg(long, value_name = "SPEC")]
    run: Option<String>,
    /// Evidence for the work
    #[arg(long)]
    evidence: Option<String>,
    /// The pull request's address
    #[arg(long = "pr", value_name = "URL")]
    pull_request: Option<String>,
    /// A new plan: the steps' titles
    #[arg(long, num_args = 1.., value_name = "STEP")]
    plan: Vec<String>,
    /// A plan step's number (with --step-state)
    #[arg(long, requires = "step_state")]
    step: Option<u32>,
    /// pending, in-progress, done or blocked
    #[arg(long, requires = "step", value_parser = ["pending", "in-progress", "in_progress", "done", "blocked"])]
    step_state: Option<String>,
    /// Ask a person to decide this
    #[arg(long, value_name = "QUESTION")]
    ask_decision: Option<String>,
    /// Mark an earlier decision request (by number) settled
    #[arg(long, value_name = "N")]
    decision_resolved: Option<u32>,
}

#[derive(Debug, Args)]
struct DependArgs {
    /// The session
    id: String,
    /// Files the work depends on
    #[arg(long = "on", num_args = 1.., required = true, value_name = "FILE")]
    files: Vec<String>,
}

#[derive(Debug, Args)]
struct PauseArgs {
    /// The session
    id: String,
    /// Why (the agent is told)
    #[arg(long, required = true)]
    reason: String,
}

#[derive(Debug, Args)]
struct HealthArgs {
    /// The session
    id: String,
    /// Recompute now and record the snapshot
    #[arg(long)]
    recheck: bool,
}

#[derive(Debug, Subcommand)]
enum MissionCommand {
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
enum ConstitutionCommand {
    /// Set a new version of the architecture constitution from a file
    Set {
        /// The constitution's text
        file: PathBuf,
    },
}

#[derive(Debug, Args)]
struct IndexArgs {
    /// The commit to record [default: `git rev-parse HEAD` here]
    #[arg(long)]
    commit: Option<String>,
}

#[derive(Debug, Subcommand)]
enum AmbiguityCommand {
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
enum DecisionCommand {
    /// Record a decision
    Record {
        /// The decision
        text: String,
    },
}

#[derive(Debug, Args)]
struct AnalyzeArgs {
    /// Files or folders: Claude Code or Codex .jsonl, ChatGPT or claude.ai conversations.json
    /// or the export's .zip, Baton ledgers (.ndjson)
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write the charts (activity, models, tokens, lengths) as SVG files into this folder
    #[arg(long, value_name = "DIR")]
    svg: Option<PathBuf>,
    /// List the conversations that contain all these words (case-insensitive)
    #[arg(long, value_name = "WORDS")]
    search: Option<String>,
    /// How many conversations to list, newest first
    #[arg(long, default_value_t = 0, value_name = "N")]
    list: usize,
}

#[derive(Debug, Args)]
struct InspectArgs {
    /// Claude Code or Codex .jsonl, ChatGPT or claude.ai conversations.json
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
struct UsageArgs {
    /// How to group rows
    #[arg(default_value = "daily", value_parser = ["daily", "weekly", "monthly", "session", "model", "project"])]
    group_by: String,
    /// Which transcripts to read
    #[arg(long, default_value = "all", value_parser = ["claude-code", "codex", "all"])]
    provider: String,
    /// First day counted (YYYY-MM-DD or YYYYMMDD, UTC)
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// Last day counted (YYYY-MM-DD or YYYYMMDD, UTC)
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// Claude Code projects folder [default: CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects
    /// and ~/.config/claude/projects]
    #[arg(long = "claude-dir", value_name = "DIR")]
    claude_dirs: Vec<PathBuf>,
    /// Codex sessions folder [default: $CODEX_HOME/sessions, else ~/.codex/sessions]
    #[arg(long = "codex-dir", value_name = "DIR")]
    codex_dirs: Vec<PathBuf>,
    /// A price table (JSON, the shape of the shipped one) to use instead of the shipped one
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct McpArgs {
    /// Print the tools' reference (docs/mcp-tools.md) from the live schemas and exit
    #[arg(long)]
    print_tools_markdown: bool,
}

#[derive(Debug, Args)]
struct WebArgs {
    /// The port on 127.0.0.1 (0 picks a free one)
    #[arg(long, default_value_t = 8377)]
    port: u16,
}

#[derive(Debug, Args)]
struct DemoArgs {
    /// The port for the web page (0 picks a free one)
    #[arg(long, default_value_t = 8377)]
    port: u16,
    /// Serve the page this many seconds, then exit (0: until Ctrl-C)
    /// [default: until Ctrl-C on a terminal, else 10]
    #[arg(long)]
    serve_seconds: Option<u64>,
}

#[derive(Debug, Args)]
struct AbiArgs {
    /// The JSON request (reads standard input when omitted)
    request: Option<String>,
    /// Run it through this core .wasm with wasmtime instead of natively
    #[arg(long, value_name = "FILE")]
    wasm: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct StartArgs {
    /// The project the work belongs to
    #[arg(long)]
    project: Option<String>,
    /// The agent doing the work (normalized: trimmed, lower-case)
    #[arg(long, env = "BATON_AGENT")]
    agent: Option<String>,
    /// The coding client, e.g. claude-code, codex, cursor
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    client: Option<String>,
    /// What the session sets out to do
    #[arg(long)]
    goal: Option<String>,
    /// The session this one follows on from (it must exist; it is not closed)
    #[arg(long = "parent", value_name = "ID")]
    parent: Option<String>,
    /// External run id (requires --work-item-id)
    #[arg(long, requires = "work_item_id")]
    run_id: Option<String>,
    /// External work item id (requires --run-id)
    #[arg(long, requires = "run_id")]
    work_item_id: Option<String>,
    /// External attempt id
    #[arg(long)]
    attempt_id: Option<String>,
    /// Resume this session instead of starting one
    #[arg(long, value_name = "ID")]
    session_id: Option<String>,
    /// The mission (its contract must be approved)
    #[arg(long, value_name = "REF")]
    mission: Option<String>,
    /// The commit the work starts from [default: `git rev-parse HEAD` here, if a repository]
    #[arg(long)]
    commit: Option<String>,
    /// Only register (status `starting`); brief later with `baton brief`
    #[arg(long)]
    no_brief: bool,
}

#[derive(Debug, Args)]
struct ResumeArgs {
    /// The session to resume
    id: String,
    /// Refuse unless the session belongs to this project
    #[arg(long)]
    project: Option<String>,
    /// The client resuming it
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    client: Option<String>,
}

#[derive(Debug, Args)]
struct EndArgs {
    /// The session to end (omit to resolve the only matching live session)
    id: Option<String>,
    /// Only consider sessions of this project
    #[arg(long)]
    project: Option<String>,
    /// Only consider sessions of this agent
    #[arg(long, env = "BATON_AGENT")]
    agent: Option<String>,
    /// Only consider sessions of this client
    #[arg(long = "client", env = "BATON_CLIENT", value_name = "NAME")]
    client: Option<String>,
    /// What was done
    #[arg(long)]
    summary: Option<String>,
    /// How it ended
    #[arg(long, default_value = "complete", value_parser = ["complete", "failed"])]
    status: String,
}

#[derive(Debug, Args)]
struct ListArgs {
    /// Only this project
    #[arg(long)]
    project: Option<String>,
    /// Only this agent
    #[arg(long)]
    agent: Option<String>,
    /// Only this status: starting, working, blocked, awaiting_review, paused, complete, failed
    #[arg(long)]
    status: Option<String>,
    /// Include ended sessions
    #[arg(long)]
    all: bool,
}

#[derive(Debug, Args)]
struct ShowArgs {
    /// The session
    id: String,
}

/// Parses arguments, runs the command, prints, and returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { 2 } else { 0 };
        }
    };
    let json_only = cli.json;
    if let Command::Mcp(args) = &cli.command {
        if args.print_tools_markdown {
            print!("{}", crate::mcp::tools_markdown());
            return 0;
        }
        return match ledger_for(&cli).and_then(crate::mcp::serve_stdio) {
            Ok(()) => 0,
            Err(err) => {
                eprintln!("{}", render::error_line(&err));
                err.code.exit_status()
            }
        };
    }
    let result = match cli.command {
        Command::Usage(args) => usage(args),
        Command::Inspect(args) => inspect(args),
        Command::Analyze(args) => crate::analyze::run(&crate::analyze::Request {
            paths: args.paths,
            svg_dir: args.svg,
            search: args.search,
            list: args.list,
        })
        .map(|(human, json)| Output { human, json }),
        Command::Abi(args) => abi(args),
        Command::Web(args) => web(args, json_only),
        Command::Demo(args) => demo(args),
        _ => run(cli),
    };
    match result {
        Ok(Output { human, json }) => {
            if !json_only && !human.is_empty() {
                println!("{human}");
            }
            println!("{json}");
            0
        }
        Err(err) => {
            if !json_only {
                println!("{}", render::error_line(&err));
            }
            println!("{}", err.to_envelope());
            err.code.exit_status()
        }
    }
}

struct Output {
    human: String,
    json: Value,
}

fn to_json(value: &impl Serialize) -> Result<Value, Error> {
    serde_json::to_value(value).map_err(|e| Error::internal(format!("encoding the answer: {e}")))
}

fn ledger_for(cli: &Cli) -> Result<Ledger, Error> {
    let dir = match &cli.dir {
        Some(dir) => dir.clone(),
        None => {
            let cwd = std::env::current_dir()
                .map_err(|e| Error::store_io("find", "the current directory", e))?;
            store::discover(&cwd)
        }
    };
    let fsync_env_off = std::env::var("BATON_FSYNC").is_ok_and(|v| v == "0" || v == "off");
    Ok(Ledger::new(dir, !(cli.no_fsync || fsync_env_off)))
}

fn run(cli: Cli) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let ledger = ledger_for(&cli)?;
    let person = cli.person.clone();
    let request = match cli.command {
        Command::Start(a) => Request::Start(StartParams {
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            goal: a.goal,
            session_id: a.session_id,
            parent_session_id: a.parent,
            run_id: a.run_id,
            work_item_id: a.work_item_id,
            attempt_id: a.attempt_id,
            mission: a.mission,
            commit: a.commit.or_else(crate::system::git_head),
            no_brief: a.no_brief,
        }),
        Command::Brief(a) => Request::Brief(SessionRef { session_id: a.id }),
        Command::Report(a) => Request::Report(report_params(a)?),
        Command::Depend(a) => Request::Depend(DependParams {
            session_id: a.id,
            files: a.files,
        }),
        Command::Pause(a) => Request::Pause(PauseParams {
            session_id: a.id,
            reason: a.reason,
        }),
        Command::Unpause(a) => Request::Unpause(SessionRef { session_id: a.id }),
        Command::Health(a) => Request::Health(HealthParams {
            session_id: a.id,
            recheck: a.recheck,
        }),
        Command::Timeline(a) => Request::Timeline(SessionRef { session_id: a.id }),
        Command::Attention => Request::Attention,
        Command::Mission(MissionCommand::Add {
            reference,
            contract,
        }) => Request::MissionAdd(MissionParams {
            reference,
            clauses: read_text(&contract)?
                .lines()
                .map(|l| {
                    l.trim()
                        .trim_start_matches(['-', '*', '+'])
                        .trim()
                        .to_owned()
                })
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect(),
        }),
        Command::Mission(MissionCommand::Approve { reference }) => {
            Request::MissionApprove(MissionParams {
                reference,
                clauses: Vec::new(),
            })
        }
        Command::Constitution(ConstitutionCommand::Set { file }) => {
            Request::ConstitutionSet(ConstitutionParams {
                text: read_text(&file)?,
            })
        }
        Command::Index(a) => Request::Index(IndexParams {
            commit: a.commit.or_else(crate::system::git_head).ok_or_else(|| {
                Error::invalid(
                    "commit",
                    "this is not a git repository (or git is missing); pass --commit",
                )
            })?,
        }),
        Command::Ambiguity(AmbiguityCommand::Open { reference, text }) => {
            Request::AmbiguityOpen(NoteParams {
                reference: Some(reference),
                text: Some(text),
                number: None,
            })
        }
        Command::Ambiguity(AmbiguityCommand::Resolve { number }) => {
            Request::AmbiguityResolve(NoteParams {
                number: Some(number),
                ..NoteParams::default()
            })
        }
        Command::Decision(DecisionCommand::Record { text }) => {
            Request::DecisionRecord(NoteParams {
                text: Some(text),
                ..NoteParams::default()
            })
        }
        Command::Resume(a) => Request::Resume(ResumeParams {
            session_id: a.id,
            project: a.project,
            client_name: a.client,
        }),
        Command::End(a) => Request::End(EndParams {
            session_id: a.id,
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            summary: a.summary,
            status: Some(a.status),
        }),
        Command::List(a) => Request::List(ListParams {
            project: a.project,
            agent: a.agent,
            status: a.status,
            include_ended: a.all,
        }),
        Command::Show(a) => Request::Show(ShowParams { session_id: a.id }),
        Command::Compact => {
            let report = ledger.compact()?;
            return Ok(Output {
                human: format!(
                    "[ok] Compacted {} log(s): {} events into {} month(s){}",
                    report.sealed_logs,
                    report.events_in,
                    report.months_written.len(),
                    report
                        .took_over_stale_lock
                        .as_ref()
                        .map(|h| format!(" (took over a stale lock: {h})"))
                        .unwrap_or_default()
                ),
                json: to_json(&report)?,
            });
        }
        Command::Web(_)
        | Command::Demo(_)
        | Command::Abi(_)
        | Command::Mcp(_)
        | Command::Usage(_)
        | Command::Analyze(_)
        | Command::Inspect(_) => {
            return Err(Error::internal("dispatched above"));
        }
        Command::Doctor => {
            let report = ledger.doctor()?;
            let mut human = format!(
                "[{}] Ledger {}: {} sessions ({} live), {} events, {} corrupt, {} foreign; checkpoint {}",
                if report.healthy { "ok" } else { "warn" },
                report.dir,
                report.sessions.total,
                report.sessions.live,
                report.stats.events,
                report.stats.corrupt_lines,
                report.stats.foreign_lines,
                report.checkpoint
            );
            for finding in &report.findings {
                human.push_str(&format!("\n  - {finding}"));
            }
            return Ok(Output {
                human,
                json: to_json(&report)?,
            });
        }
    };
    let response = engine::run_as(&ledger, &request, None, person)?;
    let mut human = render::ok_line(&response);
    human.push_str(&crate::detail::details(
        &response,
        std::io::stdout().is_terminal(),
    ));
    Ok(Output {
        human,
        json: to_json(&response)?,
    })
}

/// Reads one file through the core's ingest (the same one `baton analyze` and the page use)
/// and summarizes it.
fn inspect_file(
    path: &std::path::Path,
) -> Result<baton_core::transcripts::inspect::Inspection, Error> {
    use baton_core::transcripts::ingest::FileIngest;
    use baton_core::transcripts::inspect::Inspection;
    let mut ingest = FileIngest::new(&path.display().to_string());
    crate::files::read_in_chunks(path, |chunk| ingest.push(chunk), |_| {})?;
    Ok(Inspection::of(&ingest.finish()?))
}

fn inspect(args: InspectArgs) -> Result<Output, Error> {
    let mut human = Vec::new();
    let mut files = Vec::new();
    let mut first_error = None;
    for path in &args.files {
        let shown = path.display().to_string();
        let result = inspect_file(path);
        match result {
            Ok(report) => {
                human.push(format!(
                    "[ok] {shown}: {}, {} conversation(s), {} message(s) ({} on active branches), {} tool call(s), {} malformed line(s){}",
                    report.format_name(),
                    report.conversations,
                    report.messages,
                    report.active_branch_messages,
                    report.tool_calls,
                    report.stats.malformed,
                    if report.unknown_kinds.is_empty() {
                        String::new()
                    } else {
                        format!(", unknown kinds skipped: {:?}", report.unknown_kinds)
                    }
                ));
                let mut value = to_json(&report)?;
                value["path"] = Value::String(shown);
                files.push(value);
            }
            Err(err) => {
                human.push(render::error_line(&err).replacen(
                    "[error] ",
                    &format!("[error] {shown}: "),
                    1,
                ));
                files.push(serde_json::json!({ "path": shown, "error": err }));
                first_error.get_or_insert(err);
            }
        }
    }
    if let Some(err) = first_error {
        return Err(Error {
            details: serde_json::json!({ "files": files })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..err
        });
    }
    Ok(Output {
        human: human.join("\n"),
        json: serde_json::json!({ "files": files, "total": files.len() }),
    })
}

fn usage(args: UsageArgs) -> Result<Output, Error> {
    use baton_core::transcripts::Provider;
    let options = crate::usage::UsageOptions {
        group_by: args.group_by.parse()?,
        providers: match args.provider.as_str() {
            "claude-code" => vec![Provider::ClaudeCode],
            "codex" => vec![Provider::Codex],
            _ => Vec::new(),
        },
        since: args
            .since
            .map(|d| crate::usage::parse_day("since", &d, false))
            .transpose()?,
        until: args
            .until
            .map(|d| crate::usage::parse_day("until", &d, true))
            .transpose()?,
        claude_dirs: if args.claude_dirs.is_empty() {
            crate::usage::default_claude_dirs()
        } else {
            args.claude_dirs
        },
        codex_dirs: if args.codex_dirs.is_empty() {
            crate::usage::default_codex_dirs()
        } else {
            args.codex_dirs
        },
        prices: args.prices,
    };
    let report = crate::usage::report(&options)?;
    Ok(Output {
        human: crate::usage::render_table(&report),
        json: to_json(&report)?,
    })
}

fn read_text(path: &std::path::Path) -> Result<String, Error> {
    std::fs::read_to_string(path)
        .map_err(|e| Error::store_io("read", &path.display().to_string(), e))
}

fn report_params(a: ReportArgs) -> Result<ReportParams, Error> {
    let run = a.run.map(|spec| parse_run(&spec)).transpose()?;
    Ok(ReportParams {
        session_id: a.id,
        via: Some(if a.via == "hook" {
            Via::Hook
        } else {
            Via::Model
        }),
        changed_files: a.changed,
        status: a.status.map(|s| s.replace('-', "_")),
        reason: a.reason,
        progress: a.progress,
        plan: a.plan,
        step: a.step,
        step_state: a
            .step_state
            .map(|s| {
                serde_json::from_value(Value::String(s.replace('-', "_")))
                    .map_err(|e| Error::invalid("step_state", e.to_string()))
            })
            .transpose()?,
        decision_request: a.ask_decision,
        decision_resolved: a.decision_resolved,
        run,
        evidence: a.evidence,
        pull_request: a.pull_request,
    })
}

fn parse_run(spec: &str) -> Result<RunReport, Error> {
    let parts: Vec<&str> = spec.split(':').collect();
    let [provider, model, purpose, input, output] = parts.as_slice() else {
        return Err(Error::invalid(
            "run",
            format!("`{spec}` is not PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS"),
        ));
    };
    let count = |field: &str, text: &str| {
        text.parse::<u64>()
            .map_err(|_| Error::invalid("run", format!("{field} `{text}` is not a count")))
    };
    Ok(RunReport {
        provider: (*provider).to_owned(),
        model: (*model).to_owned(),
        purpose: (*purpose).to_owned(),
        input_tokens: count("input tokens", input)?,
        output_tokens: count("output tokens", output)?,
        prompt: None,
        output: None,
    })
}

fn abi(args: AbiArgs) -> Result<Output, Error> {
    let request = match args.request {
        Some(request) => request,
        None => std::io::read_to_string(std::io::stdin())
            .map_err(|e| Error::store_io("read", "standard input", e))?,
    };
    let answer = match args.wasm {
        Some(path) => {
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::store_io("read", &path.display().to_string(), e))?;
            crate::wasm_core::WasmCore::load(&bytes)?.call(&request)?
        }
        None => baton_core::abi::handle_json(&request),
    };
    let json: Value = serde_json::from_str(&answer)
        .map_err(|e| Error::internal(format!("the ABI answered non-JSON: {e}")))?;
    if let Some(error) = json.get("error") {
        return Err(serde_json::from_value(error.clone())
            .unwrap_or_else(|e| Error::internal(format!("undecodable ABI error: {e}"))));
    }
    Ok(Output {
        human: "[ok] ABI answer".to_owned(),
        json,
    })
}

fn web(args: WebArgs, json_only: bool) -> Result<Output, Error> {
    let listener = crate::web::bind(args.port)?;
    let url = crate::web::url(&listener)?;
    if json_only {
        println!("{}", serde_json::json!({ "serving": url }));
    } else {
        println!("[ok] Serving the Baton page at {url} (127.0.0.1 only; Ctrl-C stops it)");
    }
    use std::io::Write;
    let _ = std::io::stdout().flush();
    crate::web::serve(listener);
    Err(Error::new(
        baton_core::ErrorCode::ServeFailed,
        "the web server stopped",
    ))
}

fn demo(args: DemoArgs) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let dir =
        std::env::temp_dir().join(format!("baton-demo-{}", crate::system::new_uuid().simple()));
    let page_file = crate::demo::run(&dir.join(".baton"))?;
    let serve_seconds = args
        .serve_seconds
        .unwrap_or(if std::io::stdin().is_terminal() {
            0
        } else {
            10
        });
    println!("\n== The web page");
    if !crate::web::page_built() {
        println!(
            "  [warn] this baton was built without the page: run www/build.sh, then cargo build -p baton"
        );
        return Ok(Output {
            human: String::new(),
            json: serde_json::json!({"ledger": dir.join(".baton"), "page": null}),
        });
    }
    let listener = crate::web::bind(args.port).or_else(|_| crate::web::bind(0))?;
    let url = crate::web::url(&listener)?;
    println!("  Web page: {url}");
    println!(
        "  Open it and choose {} to see these sessions, analyzed inside the browser.",
        page_file.display()
    );
    let summary =
        serde_json::json!({ "ledger": dir.join(".baton"), "page": url, "page_file": page_file });
    std::thread::spawn(move || crate::web::serve(listener));
    if serve_seconds == 0 {
        println!("  Serving until Ctrl-C.");
        loop {
            std::thread::park();
        }
    }
    println!("  Serving for {serve_seconds} s.");
    std::thread::sleep(std::time::Duration::from_secs(serve_seconds));
    Ok(Output {
        human: String::new(),
        json: summary,
    })
}
