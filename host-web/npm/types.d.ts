// The Baton core's JSON ABI (docs/embedding.md) as TypeScript types.
// Generated from the core's request and answer types by `BATON_UPDATE_DOCS=1 cargo test -p baton-tests --test suite typescript`: do not edit.

/** The ABI version these types describe. */
export type AbiVersion = 1;

/** Every request the core answers. */
export type Request = AbiRequest | AnalyzerRequest;

/** Which answer each op's `ok` holds. */
export interface Answers {
  version: VersionAnswer;
  fold: FoldAnswer;
  query: QueryAnswer;
  execute: ExecuteAnswer;
  analyzer_open: OpenedAnswer;
  analyzer_begin: BegunAnswer;
  analyzer_push: PushedAnswer;
  analyzer_finish: FileSummary;
  analyzer_files: FilesAnswer;
  analyzer_usage: UsageAnswer;
  analyzer_overview: OverviewAnswer;
  analyzer_list: ConversationList;
  analyzer_view: ViewAnswer;
  analyzer_work: WorkOverview;
  analyzer_close: ClosedAnswer;
}

/** An error code from docs/errors.md. */
export type ErrorCode =
  | "INVALID_ARGUMENT"
  | "SESSION_NOT_FOUND"
  | "SESSION_PROJECT_MISMATCH"
  | "SESSION_NOT_ACTIVE"
  | "SESSION_ALREADY_CLOSED"
  | "NO_ACTIVE_SESSION"
  | "AMBIGUOUS_SESSION"
  | "PERMISSION_DENIED"
  | "ACTOR_NOT_ALLOWED"
  | "CLIENT_NOT_APPROVED"
  | "MISSION_NOT_FOUND"
  | "MISSION_NOT_APPROVED"
  | "MISSION_REQUIRED"
  | "SESSION_NOT_PAUSED"
  | "BUDGET_EXCEEDED"
  | "AMBIGUITY_NOT_FOUND"
  | "RECORD_NOT_FOUND"
  | "AMBIGUOUS_RECORD"
  | "RECORD_CONTENT_DAMAGED"
  | "NOT_A_RECORD"
  | "RUN_REFUSED"
  | "UNKNOWN_FORMAT"
  | "FORMAT_TOO_NEW"
  | "ARCHIVE_DAMAGED"
  | "ARCHIVE_UNSUPPORTED"
  | "ARCHIVE_TOO_LARGE"
  | "DATABASE_DAMAGED"
  | "NO_CONVERSATIONS_IN_ARCHIVE"
  | "FILE_UNREADABLE"
  | "NO_TRANSCRIPTS"
  | "EVENT_TOO_LARGE"
  | "STORE_IO"
  | "STORE_UNSAFE"
  | "STORE_BUSY"
  | "INDEX_DAMAGED"
  | "PAGE_NOT_BUILT"
  | "SERVE_FAILED"
  | "INTERNAL"
;

/** A refusal: the code, a message a person can act on, and structured details. */
export interface AbiError {
  code: ErrorCode;
  message: string;
  details: { [key: string]: unknown };
}

/** What the core answers to a request of op `Op`. */
export type Envelope<Op extends keyof Answers> = { ok: Answers[Op] } | { error: AbiError };

/** A request to the core's stateless ops. */
export type AbiRequest =
/** What this core is: its crate version, `abi_version`, the ops it answers, the ledger schema version and every error code. Ask it first; a host built for ABI 1 works with any core whose `abi_version` is 1. */
{
  op: "version";
} |
/** Folds a ledger's text (NDJSON, as `events.ndjson` and the archives hold it, concatenated) into every session with its status, health and usage, and the counts of what was read (corrupt and foreign lines included). Read-only; needs no clock. */
{
  op: "fold";
  /** The ledger's lines, `\n` between them. */
  ledger: string;
} |
/** Runs any command request against a ledger's text and answers with the response and the lines to append (the host appends them, whole lines, in order; the core never writes). Time and fresh ids come from the host. */
{
  op: "execute";
  /** The ledger's lines (empty: a new ledger). */
  ledger?: string;
  /** A command request with its own `op`. */
  request: CommandRequest;
  /** The current time, RFC 3339. */
  now: string;
  /** A fresh UUIDv7 for the first event written (the n-th takes this plus n). */
  event_id: string;
  /** A fresh UUIDv7, used if the request starts a session. */
  session_id: string;
  /** Who the events are recorded as (`{"kind":"agent","name":…}`); absent: the session's agent. */
  actor?: Actor | null;
  /** The workspace policy, as for `query`. */
  policy?: Policy | null;
  /** The person on whose behalf it runs (roles come from the policy). */
  person?: string | null;
  /** The coding agent making the call (an MCP client, an agent's shell), by name; absent: a person. Unless the policy lets agents steer, an agent may not lift a pause, approve a contract, set the constitution, or pause or end another agent's session. */
  caller_agent?: string | null;
  /** `true` adds `human`, the CLI's `[ok] …` line for the response. */
  human?: boolean;
} |
/** Answers a request that only reads (`list`, `show`, `timeline`, `attention`, `health`) against a ledger's text, as the CLI and MCP answer it. A request that would write is refused with `INVALID_ARGUMENT`: send it with `execute`. */
{
  op: "query";
  /** The ledger's lines (empty: a new ledger). */
  ledger?: string;
  /** A command request, as the MCP tools take it, with its own `op` (`list`, `show`, `timeline`, `attention`, …). */
  request: CommandRequest;
  /** The current time, RFC 3339 (the core has no clock). */
  now: string;
  /** The workspace policy (`.baton/config.toml` as JSON); absent: one person, everything allowed. */
  policy?: Policy | null;
  /** `true` adds `human`: the `[ok] …` line the CLI prints for the answer. */
  human?: boolean;
};

/** Who caused an event. */
export type Actor = {
  /** `agent`, `baton` or `human`. */
  kind: ActorKind;
  /** The agent's normalized name, the person's login, or `baton`. */
  name: string;
};

/** The three kinds of actor the timeline distinguishes. */
export type ActorKind =
/** A coding agent acting through the CLI or MCP. */
"agent" |
/** Baton itself (compaction, automatic transitions). */
"baton" |
/** A person. */
"human";

/** A request to an analyzer; every one names it with `analyzer`. */
export type AnalyzerRequest =
/** Opens an analyzer under a name the host picks (opening the name again starts it afresh). Transcripts and exports pushed into it stay until `analyzer_close`, so later calls can ask about them; at most 64 are open at once. */
{
  op: "analyzer_open";
  /** A name for it, unique among the open ones. */
  analyzer: string;
  /** `true` keeps the messages a provider hides from its own reader (ChatGPT's system and memory nodes). */
  include_hidden?: boolean;
} |
/** Starts a file in the analyzer: a Claude Code or Codex session, a ChatGPT or claude.ai export (JSON or its `.zip`), or a `.baton` ledger, told apart by content. A file begun before and not finished is dropped. */
{
  op: "analyzer_begin";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** The file's name, as shown in `analyzer_files` and the usage rows. */
  name: string;
} |
/** Feeds the next chunk of the file begun last, in order. Chunks may split lines and characters anywhere; the page pushes 4 MiB at a time. On an error the file is dropped and nothing of it is kept. */
{
  op: "analyzer_push";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** The chunk as text (a transcript is UTF-8). */
  text?: string | null;
  /** The chunk as base64, for bytes that are not text (a `.zip`). Give exactly one of `text` and `base64`. */
  base64?: string | null;
} |
/** Finishes the file begun last (unpacking an archive if it is one) and answers what it added: format, conversations, messages, ledger lines, and the counts of what was read and passed over. */
{
  op: "analyzer_finish";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
} |
/** Closes the analyzer and frees all it held. */
{
  op: "analyzer_close";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
} |
/** The files the analyzer holds, in the order they were finished. */
{
  op: "analyzer_files";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
} |
/** The headline figures of everything loaded: conversations, messages, providers, models, messages per day and the length histogram. `charts_width` adds the charts as SVG text drawn that many pixels wide. */
{
  op: "analyzer_overview";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** Also draw the charts, this wide in pixels (200 to 4000). */
  charts_width?: number | null;
} |
/** Usage rows from the transcripts pushed in: tokens by kind and cost, each assistant response counted once however often it was logged, grouped by `daily`, `weekly`, `monthly`, `session`, `model` or `project` (days in UTC), with totals. `csv: true` answers the same report as CSV text. */
{
  op: "analyzer_usage";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** `daily`, `weekly`, `monthly`, `session`, `model` or `project`. */
  group_by: GroupBy;
  /** `true` answers `{"csv": …}` instead of rows. */
  csv?: boolean;
} |
/** A page of the conversation list, searched, filtered and sorted: `query.search` keeps the conversations where every word appears (title, project or any message, case-insensitive) and gives each row a snippet of where it matched. */
{
  op: "analyzer_list";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** `{search, provider, model, sort, ascending, offset, limit}`, all optional; `limit` defaults to 100. */
  query?: ListQuery;
} |
/** One conversation as a person reads it: the active branch (or the one through the message `through` names), messages in order with their tool calls and results. `markdown: true` answers it as Markdown text. */
{
  op: "analyzer_view";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
  /** The conversation's `index` from the list. */
  index: number;
  /** A message id: show the branch that holds it. */
  through?: string | null;
  /** `true` answers `{"markdown": …}`. */
  markdown?: boolean;
} |
/** The work sessions of the ledgers pushed in (`.baton/events.ndjson`), in hand-off order with health, liveness and the cost of the transcripts tied to them, and the workspace's missions, decisions and open attention items. */
{
  op: "analyzer_work";
  /** The name the host gave the analyzer at `analyzer_open`. */
  analyzer: string;
};

/** The `[budget]` table: limits for all work, the warning share, and finer scopes. */
export type BudgetPolicy = {
  /** Dollars a day, all work. */
  day_usd?: number | null;
  /** Dollars a week, all work. */
  week_usd?: number | null;
  /** Dollars a month, all work. */
  month_usd?: number | null;
  /** Dollars in the open five-hour window, all work. */
  window_usd?: number | null;
  /** Percent of a plan's five-hour window. */
  window_percent?: number | null;
  /** The share of a limit that asks for attention (default 80). */
  warn_percent?: number | null;
  /** By project name. */
  project?: {
    [key: string]: Limits;
  };
  /** By agent (`claude`, `codex`, …). */
  agent?: {
    [key: string]: Limits;
  };
  /** By git branch. */
  branch?: {
    [key: string]: Limits;
  };
  /** By mission reference. */
  mission?: {
    [key: string]: Limits;
  };
};

/** Every request, tagged by `op` on the wire. */
export type CommandRequest =
/** See [`StartParams`]. */
{
  op: "start";
  /** The project; required to start. */
  project?: string | null;
  /** The agent; required to start. */
  agent?: string | null;
  /** The coding client. */
  client_name?: string | null;
  /** What the work is for. */
  goal?: string | null;
  /** Resume this session instead. */
  session_id?: string | null;
  /** The session this one takes over from. */
  parent_session_id?: string | null;
  /** External run id. */
  run_id?: string | null;
  /** External work item id. */
  work_item_id?: string | null;
  /** External attempt id; a start with a live session's resumes it. */
  attempt_id?: string | null;
  /** The agent's own session id; a start with a live session's resumes it. */
  provider_session_id?: string | null;
  /** The mission (approved contract). */
  mission?: string | null;
  /** The commit the work starts from. */
  commit?: string | null;
  /** Register only, without a brief. */
  no_brief?: boolean;
} |
/** See [`ResumeParams`]. */
{
  op: "resume";
  /** The session to resume. */
  session_id: string;
  /** When given, must be the session's project. */
  project?: string | null;
  /** The client resuming it. */
  client_name?: string | null;
} |
/** See [`EndParams`]. */
{
  op: "end";
  /** Without it, the filters pick the one live session. */
  session_id?: string | null;
  /** Filter: project. */
  project?: string | null;
  /** Filter: agent. */
  agent?: string | null;
  /** Filter: client. */
  client_name?: string | null;
  /** What was done. */
  summary?: string | null;
  /** complete (default) or failed. */
  status?: string | null;
  /** A note's path: its session_id decides. */
  session_note?: string | null;
} |
/** See [`ListParams`]. */
{
  op: "list";
  /** Only this project. */
  project?: string | null;
  /** Only this agent. */
  agent?: string | null;
  /** Only this status. */
  status?: string | null;
  /** Include ended sessions. */
  include_ended?: boolean;
} |
/** See [`ShowParams`]. */
{
  op: "show";
  /** The session. */
  session_id: string;
} |
/** Give a session its context (or deliver its pause). */
{
  op: "brief";
  /** The session. */
  session_id: string;
} |
/** See [`ReportParams`]. */
{
  op: "report";
  /** The reporting session. */
  session_id: string;
  /** hook, or model (default). */
  via?: Via | null;
  /** Files changed (may open collisions). */
  changed_files?: string[];
  /** blocked or implementation_complete. */
  status?: string | null;
  /** Why it is blocked. */
  reason?: string | null;
  /** Self-reported progress, 0–100. */
  progress?: number | null;
  /** A new plan: its steps' titles. */
  plan?: string[];
  /** A plan step's number, with step_state. */
  step?: number | null;
  /** The step's new state. */
  step_state?: StepState | null;
  /** A question for a person. */
  decision_request?: string | null;
  /** A settled decision request's number. */
  decision_resolved?: number | null;
  /** An AI run: counts only. */
  run?: RunReport | null;
  /** Evidence: a test run, a link. */
  evidence?: string | null;
  /** The pull request's URL. */
  pull_request?: string | null;
} |
/** See [`DependParams`]. */
{
  op: "depend";
  /** The session. */
  session_id: string;
  /** Paths, relative to the repository. */
  files: string[];
} |
/** See [`PauseParams`]. */
{
  op: "pause";
  /** The session. */
  session_id: string;
  /** Why; the agent is told. */
  reason: string;
} |
/** Lift a pause. */
{
  op: "unpause";
  /** The session. */
  session_id: string;
} |
/** See [`HealthParams`]. */
{
  op: "health";
  /** The session. */
  session_id: string;
  /** Recompute and record now. */
  recheck?: boolean;
} |
/** Every event of a session. */
{
  op: "timeline";
  /** The session. */
  session_id: string;
} |
/** Open attention items. */
{
  op: "attention";
} |
/** Mark attention items done (a person saw them). */
{
  op: "attention_done";
  /** The items' numbers, as `attention` lists them. */
  numbers?: number[];
  /** Every open item. */
  all?: boolean;
  /** Only items raised at least this many seconds ago. */
  older_than_seconds?: number | null;
  /** Why, kept with the acknowledgement. */
  note?: string | null;
} |
/** A mission's contract, as a new draft version. */
{
  op: "mission_add";
  /** The reference, e.g. CLAIM-142. */
  reference: string;
  /** The contract's clauses (for approval: leave empty). */
  clauses?: string[];
} |
/** Approve a mission's newest contract version. */
{
  op: "mission_approve";
  /** The reference, e.g. CLAIM-142. */
  reference: string;
  /** The contract's clauses (for approval: leave empty). */
  clauses?: string[];
} |
/** A new constitution version. */
{
  op: "constitution_set";
  /** The whole text. */
  text: string;
} |
/** Record the indexed commit. */
{
  op: "index";
  /** The commit hash. */
  commit: string;
} |
/** Open a requirement ambiguity. */
{
  op: "ambiguity_open";
  /** The mission (ambiguities). */
  reference?: string | null;
  /** The text (ambiguity or decision). */
  text?: string | null;
  /** The ambiguity's number (resolve). */
  number?: number | null;
} |
/** Resolve one. */
{
  op: "ambiguity_resolve";
  /** The mission (ambiguities). */
  reference?: string | null;
  /** The text (ambiguity or decision). */
  text?: string | null;
  /** The ambiguity's number (resolve). */
  number?: number | null;
} |
/** Record an active decision. */
{
  op: "decision_record";
  /** The mission (ambiguities). */
  reference?: string | null;
  /** The text (ambiguity or decision). */
  text?: string | null;
  /** The ambiguity's number (resolve). */
  number?: number | null;
} |
/** Classify live sessions' liveness from what a host saw; record what changed. */
{
  op: "observe";
  /** When the evidence was gathered. */
  observed_at: Timestamp;
  /** One entry per session to classify; sessions not named are left alone. */
  observations: Observation[];
  /** How long a running agent may do nothing before it is idle (default 15 minutes). */
  idle_after_seconds?: number | null;
} |
/** See [`UsageParams`]. */
{
  op: "record_usage";
  /** The session. */
  session_id: string;
  /** The transcript (its path, or the provider's session id). */
  source: string;
  /** The byte offset the totals cover. */
  offset: number;
  /** Every token of the transcript up to `offset`. */
  totals: TokenTotalsInput;
  /** What they cost, in micro-dollars, when priced. */
  cost_micro_usd?: number | null;
} |
/** See [`CorrectParams`]. */
{
  op: "correct";
  /** The session. */
  session_id: string;
  /** Its goal, in place of the one it has (or has not). */
  goal?: string | null;
  /** Its summary, in place of the one it has. */
  summary?: string | null;
};

/**
 * One fact a host saw about a session's agent. Process start times are the kernel's
 * (`/proc/<pid>/stat`, field 22, in clock ticks since boot): a pid whose start time differs
 * from the one recorded is another process that reused the number.
 */
export type Evidence =
/** Claude Code's per-process registry (`~/.claude/sessions/<pid>.json`) names the session. */
{
  source: "registry";
  /** The registry file, as the host found it. */
  file: string;
  /** The pid it names. */
  pid: number;
  /** The start time it recorded for that pid (`procStart`). */
  registered_start?: number | null;
  /** The start time of the process running under that pid now; none when none runs. */
  running_start?: number | null;
  /** When Claude Code last updated the file. */
  updated_at?: Timestamp | null;
} |
/**
 * The agent's process, as recorded when it started the session (a hook or the MCP
 * server names its agent's pid).
 */
{
  source: "process";
  /** The pid. */
  pid: number;
  /** Its start time when recorded. */
  recorded_start?: number | null;
  /** The start time of the process running under that pid now; none when none runs. */
  running_start?: number | null;
} |
/** Codex's per-thread writer lock (`~/.codex/thread-writer-locks/<thread>.lock`). */
{
  source: "writer_lock";
  /** The lock file. */
  file: string;
  /** Whether a process holds it. */
  held: boolean;
} |
/**
 * Copilot CLI's in-use lock (`<session-state>/<session>/inuse.<pid>.lock`), which a run
 * makes when it opens the session and removes when it ends cleanly.
 */
{
  source: "in_use_lock";
  /** The lock file. */
  file: string;
  /** The pid its name carries. */
  pid: number;
  /** Whether that pid runs Copilot CLI now. */
  running: boolean;
} |
/** The agent's transcript and when it was last written. */
{
  source: "transcript";
  /** The transcript file. */
  file: string;
  /** Its modification time. */
  modified_at: Timestamp;
} |
/** A kind of evidence a newer Baton wrote. */
{
  source: "other";
};

/** How rows are keyed. */
export type GroupBy =
/** `YYYY-MM-DD` in the report's zone. */
"daily" |
/** The Monday that starts the week, `YYYY-MM-DD` in the report's zone. */
"weekly" |
/** `YYYY-MM` in the report's zone. */
"monthly" |
/** The provider's session id. */
"session" |
/** The model. */
"model" |
/** The session's project: its first working directory. */
"project" |
/** The git branch the work session a response belongs to started on. */
"branch" |
/** The mission of the work session a response belongs to. */
"mission" |
/** The pull request the work session a response belongs to reported. */
"pull_request" |
/**
 * The hand-off chain of the work session a response belongs to (its first session's
 * path).
 */
"chain";

/** Limits for one scope. */
export type Limits = {
  /** Dollars a day. */
  day_usd?: number | null;
  /** Dollars a week (Monday first). */
  week_usd?: number | null;
  /** Dollars a month. */
  month_usd?: number | null;
  /** Dollars in the open five-hour window. */
  window_usd?: number | null;
  /** Percent of a plan's five-hour window, as the agents report it. */
  window_percent?: number | null;
};

/** How the conversation list is asked for. */
export type ListQuery = {
  /** Words that must all appear (case-insensitive) in the title, project or any message. */
  search?: string;
  /** Only this provider. */
  provider?: Provider | null;
  /** Only conversations where this model wrote. */
  model?: string | null;
  /** The order of the rows. */
  sort?: ListSort;
  /**
   * Oldest, shortest or A first; by default titles sort A first, the rest newest or
   * longest first.
   */
  ascending?: boolean | null;
  /** Rows to skip. */
  offset?: number;
  /** Rows to return (default 100). */
  limit?: number;
};

/** The order of the conversation list. */
export type ListSort =
/** Last updated first (the default). */
"updated" |
/** Last started first. */
"started" |
/** Longest first. */
"messages" |
/** By title, A first. */
"title";

/** The evidence about one session's agent. */
export type Observation = {
  /** The session. */
  session_id: string;
  /** What was seen (possibly nothing). */
  evidence?: Evidence[];
  /**
   * When the evidence was gathered against what the ledger said: the time of the liveness
   * it held then (`null`: none). If the ledger has recorded another since (a hook tied a
   * new process meanwhile), this evidence is stale and nothing is recorded from it. Absent:
   * no such check (a deliberate tie).
   */
  as_of?: Timestamp | null;
};

/**
 * `.baton/config.toml`. With no file (or no `[members]`), whoever runs Baton is the owner,
 * every client is approved and missions are optional: one person on one machine.
 */
export type Policy = {
  /** Members and their roles; when empty, everyone acting is an owner. */
  members?: {
    [key: string]: RoleInput;
  };
  /** Coding clients allowed to register sessions; absent means all. */
  approved_clients?: string[] | null;
  /** Whether every session must name an approved mission. */
  mission_required?: boolean;
  /**
   * Whether coding agents may steer (lift pauses, approve contracts, set the constitution,
   * pause or end other agents' sessions). Off: those are a person's.
   */
  agents_may_steer?: boolean;
  /** Spending limits (`[budget]`): see [`crate::lifecycle::budget`]. */
  budget?: BudgetPolicy | null;
};

/** The providers Baton reads (each described by one entry of the registry in `providers`). */
export type Provider =
/** Claude Code CLI JSONL transcripts. */
"claude-code" |
/** OpenAI Codex CLI rollouts. */
"codex" |
/** Google Gemini CLI session logs. */
"gemini" |
/** Qwen Code session transcripts. */
"qwen" |
/** OpenCode's session database. */
"opencode" |
/** Kilo CLI's session database (OpenCode's, under Kilo's name). */
"kilo" |
/** GitHub Copilot CLI session event logs. */
"copilot-cli" |
/** GitHub Copilot Chat's sessions in VS Code. */
"copilot-chat" |
/** Amp's thread documents. */
"amp" |
/** Aider's Markdown chat histories. */
"aider" |
/** Cline's tasks (the VS Code extension). */
"cline" |
/** Roo Code's tasks (the VS Code extension). */
"roo-code" |
/** Kilo Code's tasks (the VS Code extension, before Kilo's CLI). */
"kilo-code" |
/** Cursor's chats, in its editor's SQLite store. */
"cursor" |
/** The transcripts Cursor's agents leave (copies of its chats, read as Cursor's). */
"cursor-transcripts" |
/** `cursor-agent`'s chats, a SQLite store each (read as Cursor's). */
"cursor-cli" |
/** ChatGPT data export `conversations.json`. */
"chatgpt" |
/** claude.ai data export `conversations.json`. */
"claude-ai";

/** A member's role. */
export type RoleInput =
/** Everything. */
"owner" |
/** Everything but ownership. */
"admin" |
/** Registers and controls sessions, edits missions, ambiguities and decisions. */
"member" |
/** Reads only. */
"viewer";

/** An AI run to record: counts only. */
export type RunReport = {
  /** e.g. anthropic, openai. */
  provider: string;
  /** e.g. claude-sonnet-4. */
  model: string;
  /** What the run was for. */
  purpose: string;
  /** Input tokens. */
  input_tokens?: number;
  /** Output tokens. */
  output_tokens?: number;
  /** Never send: a run with text is refused. */
  prompt?: string | null;
  /** Never send: a run with text is refused. */
  output?: string | null;
};

/** The state of one plan step. */
export type StepState =
/** Not started. */
"pending" |
/** Being worked on. */
"in_progress" |
/** Finished. */
"done" |
/** Stuck. */
"blocked";

/** RFC 3339 in UTC with milliseconds, e.g. `2026-07-18T20:00:00.000Z`. */
export type Timestamp = string;

/** Token counts: the five fields every provider's numbers are mapped to. */
export type TokenTotalsInput = {
  /** Input tokens, excluding cached input. */
  input_tokens?: number;
  /** Output tokens, including reasoning. */
  output_tokens?: number;
  /** Tokens written to the prompt cache. */
  cache_creation_tokens?: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens?: number;
  /** The reasoning part of the output. */
  reasoning_tokens?: number;
};

/** Where a report came from: a client hook, or the model's own tool call. */
export type Via =
/** A client hook (SessionStart, PostToolUse, …). */
"hook" |
/** The model called the tool itself. */
"model";

/** An open or resolved requirement ambiguity. */
export type Ambiguity = {
  /** 1-based, in the order they were opened. */
  number: number;
  /** The mission. */
  reference: string;
  /** The question. */
  text: string;
  /** Still open? */
  open: boolean;
};

/** The overview of everything loaded. */
export type AnalysisOverview = {
  /** Files loaded. */
  files: number;
  /** Formats seen, with how many files of each. */
  formats: {
    [key: string]: number;
  };
  /** Conversations. */
  conversations: number;
  /** Messages, branches included. */
  messages: number;
  /** Conversations per provider. */
  providers: {
    [key: string]: number;
  };
  /** Messages per model. */
  models: {
    [key: string]: number;
  };
  /** First message time. */
  first_at: Timestamp | null;
  /** Last message time. */
  last_at: Timestamp | null;
  /** Messages per UTC day (`YYYY-MM-DD`). */
  messages_per_day: {
    [key: string]: number;
  };
  /** How many conversations have 1, 2–3, 4–7, 8–15, … messages (powers of two). */
  length_buckets: Record<string, never>;
  /** Token totals and estimated cost, when the files record usage (Claude Code, Codex). */
  usage: UsageRow | null;
  /** Models without a price (their cost counts as 0). */
  unpriced_models: string[];
  /** Agents loaded whose files keep no token counts (Cursor): not counted, never as zero. */
  without_tokens?: string[];
  /** Work sessions in the loaded ledgers. */
  sessions: number;
  /** Ledger lines that were unreadable or of another schema. */
  ledger_problems: number;
};

/** The answer of `attention`. */
export type AttentionAnswer = {
  /** Open items, most urgent first. */
  items: AttentionItem[];
  /** How many. */
  total: number;
  /** How many items this command marked done (`attention done` only). */
  done?: number | null;
};

/** Something a person should look at. */
export type AttentionItem = {
  /** 1-based, in the order raised (a cleared item keeps its number from the others). */
  number: number;
  /** The event that raised it. */
  id: EventId;
  /** What kind of item, when Baton may clear it itself. */
  topic?: string | null;
  /** The session concerned. */
  session_id: SessionId;
  /** How loudly it asks for a person. */
  level: AttentionLevel;
  /** 0–100. */
  urgency: number;
  /** What. */
  text: string;
  /** When. */
  at: Timestamp;
};

/** How loudly an attention item asks for a person. */
export type AttentionLevel =
/** For the record. */
"inform" |
/** Worth a look. */
"warn" |
/** Needs a decision. */
"act" |
/**
 * A level a newer Baton wrote: the event stays readable, the log and archives keep its line
 * as written (this build shows it as `other`).
 */
"other";

/** `analyzer_begin`. */
export type BegunAnswer = {
  /** The analyzer's name. */
  analyzer: string;
  /** The file begun. */
  file: string;
};

/** A piece of a message. */
export type Block =
/** Visible text. */
{
  type: "text";
  /** The text. */
  text: string;
} |
/** Reasoning, kept apart from the answer. */
{
  type: "thinking";
  /** The reasoning text (may be empty when only a signature was kept). */
  text: string;
} |
/** A tool call. */
{
  type: "tool_call";
  /** The call id that joins it to its result. */
  id: string;
  /** The tool. */
  name: string;
  /** The arguments, as JSON text. */
  input: string;
} |
/** A tool's result. */
{
  type: "tool_result";
  /** The call it answers. */
  call_id: string;
  /** The output, as text. */
  output: string;
  /** Whether the tool reported an error. */
  is_error: boolean;
} |
/** A block of a kind this build does not render. */
{
  type: "other";
  /** Its kind. */
  kind: string;
  /** The block as written (JSON), for a consumer that understands it. */
  raw: string;
};

/** What a brief tells the agent. */
export type BriefContext = {
  /** Work on, or stop: a person paused the session. */
  next_action: NextAction;
  /** The pause and its reason, when paused. */
  pause: unknown;
  /** The mission and its contract. */
  mission: unknown;
  /** The constitution's version. */
  constitution_version: number | null;
  /** The indexed commit. */
  indexed_commit: string | null;
  /** Open ambiguities on the mission. */
  open_ambiguities: Ambiguity[];
  /** Active decisions. */
  active_decisions: Decision[];
  /** Each declared dependency and whether another session broke it. */
  dependencies: unknown[];
  /** Health after the brief. */
  health: HealthReport | null;
};

/** What a session was briefed on. */
export type BriefStamp = {
  /** When. */
  at: Timestamp;
  /** The mission's contract version. */
  contract_version: number | null;
  /** The constitution version. */
  constitution_version: number | null;
  /** The indexed commit. */
  indexed_commit: string | null;
};

/** Tokens and dollars per hour. */
export type BurnRate = {
  /**
   * Tokens per hour from the window's first response to now (the active window) or to its
   * last response, over at least five minutes.
   */
  tokens_per_hour: number;
  /** Dollars per hour over the same span. */
  usd_per_hour: number;
  /** The active window: tokens used in the hour before now. */
  last_hour_tokens?: number | null;
  /** The active window: dollars spent in the hour before now. */
  last_hour_usd?: number | null;
};

/** The charts, as SVG text. */
export type Charts = {
  /** Messages per day, as a calendar. */
  activity: string;
  /** Assistant messages per model over time. */
  models: string;
  /** Tokens per model over time (empty when no file records usage). */
  tokens: string;
  /** Estimated cost per model over time (empty when no file records usage). */
  cost: string;
  /** Conversation lengths. */
  lengths: string;
};

/** `analyzer_close`. */
export type ClosedAnswer = {
  /** The analyzer's name. */
  analyzer: string;
  /** Always `true`. */
  closed: boolean;
};

/** An open collision. */
export type Collision = {
  /** The `collision_opened` event's id. */
  id: EventId;
  /** Whose change caused it. */
  by_session: SessionId;
  /** The file. */
  file: string;
  /** high or normal. */
  severity: Severity;
  /** When. */
  at: Timestamp;
};

/** A page of the conversation list. */
export type ConversationList = {
  /** Conversations that match. */
  total: number;
  /** The rows asked for. */
  rows: ConversationRow[];
};

/** One row of the conversation list. */
export type ConversationRow = {
  /** Its number, for `view`. */
  index: number;
  /** Whose format. */
  provider: Provider;
  /** The provider's id. */
  id: string;
  /** Its title (or the first words of its first message). */
  title: string;
  /** The working directory, for coding agents. */
  project: string | null;
  /** First message time. */
  started_at: Timestamp | null;
  /** Last message time. */
  updated_at: Timestamp | null;
  /** Messages, branches included. */
  messages: number;
  /** Forks a person would call alternatives (side chains of only tool work are not forks). */
  forks: number;
  /** Tool calls, every branch included. */
  tool_calls: number;
  /** Tool results, every branch included. */
  tool_results: number;
  /** Models that wrote in it. */
  models: string[];
  /** Where the search matched, with some context. */
  snippet: string | null;
};

/** One branch of a conversation, root first. */
export type ConversationView = {
  /** Its number, for `view`. */
  index: number;
  /** Whose format. */
  provider: Provider;
  /** The provider's id. */
  id: string;
  /** Its title (or the first words of its first message). */
  title: string;
  /** The working directory, for coding agents. */
  project: string | null;
  /** First message time. */
  started_at: Timestamp | null;
  /** Last message time. */
  updated_at: Timestamp | null;
  /** Whether this is the branch the provider marked active. */
  active: boolean;
  /** Messages in all branches. */
  total_messages: number;
  /** The messages of this branch. */
  messages: ViewMessage[];
};

/** Which cost a report shows (as ccusage's `--mode`). */
export type CostMode =
/** The cost a line records (`costUSD`, old Claude Code) where it has one, else calculated. */
"auto" |
/** Always calculated from the tokens and the price table. */
"calculate" |
/** Only the cost lines record; nothing is calculated. */
"display";

/** Where a session's cost comes from. */
export type CostSource =
/** The loaded transcripts, tied to the session by the core's rule. */
"transcripts" |
/** What the session's hooks recorded in the ledger. */
"ledger";

/** An active decision. */
export type Decision = {
  /** 1-based. */
  number: number;
  /** The decision. */
  text: string;
  /** When it was recorded. */
  at: Timestamp;
};

/** A decision the session asked for. */
export type DecisionRequest = {
  /** The question. */
  text: string;
  /** Settled? */
  resolved: boolean;
  /** The answer. */
  resolution: string | null;
};

/** One dimension's score (0–100) or blank, with why. */
export type Dimension = {
  /** The dimension's name. */
  name: string;
  /** The score, or `null` when it cannot be computed. */
  score: number | null;
  /** What it was compared against, or why it is blank. */
  reason: string;
};

/** A event id: a UUID (UUIDv7 when Baton minted it). */
export type EventId = string;

/** `execute`: the response and the lines the host appends. */
export type ExecuteAnswer = {
  /** The command's answer, as the CLI's `--json` and the MCP tools give it. */
  response: Response;
  /** Whole NDJSON lines to append to the ledger, in order. */
  append: string[];
  /** The CLI's `[ok] …` line, when the request asked for it. */
  human?: string | null;
};

/** What a file turned out to be: a provider's key (its transcript or export) or `baton_ledger`. */
export type FileFormat = "claude_code" | "codex" | "gemini" | "qwen" | "opencode" | "kilo" | "copilot_cli" | "copilot_chat" | "amp" | "aider" | "cline" | "roo_code" | "kilo_code" | "cursor" | "cursor_transcripts" | "cursor_cli" | "chatgpt" | "claude_ai" | "baton_ledger";

/** What one finished file added. */
export type FileSummary = {
  /** The name the host gave. */
  name: string;
  /** Its format (of the entries, for an archive). */
  format: FileFormat;
  /** "zip" when it was an archive. */
  archive: string | null;
  /** Entries read from the archive. */
  entries: string[];
  /** Bytes fed. */
  bytes: number;
  /** Conversations it added. */
  conversations: number;
  /** Messages it added. */
  messages: number;
  /** Ledger lines it held (ledgers only). */
  ledger_lines: number;
  /** Lines read, malformed, repaired. */
  stats: ReadStats;
  /** Record kinds skipped because this build does not know them. */
  unknown_kinds: {
    [key: string]: number;
  };
};

/** `analyzer_files`. */
export type FilesAnswer = {
  /** The files finished, in order. */
  files: FileSummary[];
};

/** `fold`: every session of a ledger, and what was read. */
export type FoldAnswer = {
  /** Every session with a known start, oldest first. */
  sessions: Session[];
  /** The lines read, by what they were. */
  stats: FoldStats;
};

/** What the fold saw, line by line. */
export type FoldStats = {
  /** Lines read (blank lines included). */
  lines: number;
  /** Well-formed events read, duplicates included. */
  events: number;
  /** Events whose id had already been folded. */
  duplicate_events: number;
  /** Events of a kind this build does not know (kept, not applied). */
  unknown_kind_events: number;
  /** Unreadable lines: not UTF-8, not JSON, or malformed schema-1 events. */
  corrupt_lines: number;
  /** Valid JSON of another schema. */
  foreign_lines: number;
  /** The first few problems, with where they were. */
  problems: LineProblem[];
};

/** The answer of `health`. */
export type HealthAnswer = {
  /** The session. */
  session_id: SessionId;
  /** The lowest computable score, or `null` when none is computable. */
  overall: number | null;
  /** healthy, degraded or stale. */
  verdict: Verdict;
  /** The six dimensions, in the spec's order. */
  dimensions: Dimension[];
  /** Whether the session should be briefed again. */
  recommend_rebrief: boolean;
  /** Why a re-brief is recommended. */
  rebrief_reasons: string[];
};

/** A session's context health. */
export type HealthReport = {
  /** The lowest computable score, or `null` when none is computable. */
  overall: number | null;
  /** healthy, degraded or stale. */
  verdict: Verdict;
  /** The six dimensions, in the spec's order. */
  dimensions: Dimension[];
  /** Whether the session should be briefed again. */
  recommend_rebrief: boolean;
  /** Why a re-brief is recommended. */
  rebrief_reasons: string[];
};

/** Which windows a report keeps. */
export type Keep =
/** Every one. */
{
  only: "all";
} |
/** Those still open at this instant or later (and opened by `now`). */
{
  only: "ending_after";
  /** The instant. */
  at: Timestamp;
} |
/** The one open now. */
{
  only: "active";
};

/** An owned key whose value on disk is not the one Baton would write. */
export type KeyDifference = {
  /** The key. */
  key: string;
  /** Its value text on disk. */
  on_disk: string;
  /** The value text Baton would write. */
  wanted: string;
};

/** What a lifecycle command did. */
export type LifecycleAction =
/** The session was given its context (or its pause). */
"briefed" |
/** A report was recorded. */
"reported" |
/** The files the session depends on were recorded. */
"dependencies_declared" |
/** A person paused the session. */
"paused" |
/** A person lifted the pause. */
"unpaused" |
/** A transcript's usage was recorded (or was already, up to that offset). */
"usage_recorded" |
/** The session's goal or summary was corrected. */
"corrected";

/** The answer of brief, report, depend, pause and unpause. */
export type LifecycleAnswer = {
  /** What happened. */
  action: LifecycleAction;
  /** The session. */
  session_id: SessionId;
  /** Its status afterwards. */
  status: Status;
  /** Self-reported progress. */
  progress: number | null;
  /** The brief, for briefs. */
  brief?: BriefContext | null;
  /** Collisions this call opened (reports). */
  collisions_opened?: unknown[];
  /** A sentence for the caller. */
  message: string;
};

/** A window against the token limit. */
export type LimitState = {
  /** The limit, in tokens. */
  limit_tokens: number;
  /** The share of it used, in percent (above 100 when it was passed). */
  used_percent: number;
  /** When the window's use reached the limit, if it did. */
  reached_at?: Timestamp | null;
  /**
   * The active window, not at the limit yet: when it reaches it at this pace, if that is
   * before the window ends.
   */
  runs_out_at?: Timestamp | null;
};

/** One metered window as the agent reported it. */
export type LimitWindow = {
  /** The share of the window's limit used, in percent. */
  used_percent: number;
  /** The window's length in minutes, when said. */
  window_minutes?: number | null;
  /** When it resets, when said. */
  resets_at?: Timestamp | null;
};

/** One unreadable line, for reports. */
export type LineProblem = {
  /** The file or stream it was in. */
  source: string;
  /** The byte offset where the line starts. */
  offset: number;
  /** `corrupt` or `foreign`. */
  kind: string;
  /** Why. */
  reason: string;
};

/** How a transcript's responses were tied to a work session. */
export type LinkRule =
/** The transcript's session id is the one the work session recorded at its start. */
"provider_session_id" |
/**
 * Same project and agent, and the response fell within the work session's span (the only
 * such session).
 */
"project_agent_time";

/** What the evidence says about a live work session's agent. */
export type Liveness =
/** Its process runs and it did something recently. */
"live" |
/** Its process runs, but nothing happened for longer than the idle threshold. */
"idle" |
/** Its process is gone: not running, or its pid now belongs to another process. */
"gone" |
/** Nothing says either way (no process was ever tied to it). */
"unknown" |
/** A state a newer Baton wrote (shown as `other`). */
"other";

/** The answer of `observe`: each observed live session's liveness, worked out now. */
export type LivenessAnswer = {
  /** One per observed live session, in the order observed. */
  sessions: LivenessReport[];
  /** How many changes this observation recorded in the ledger. */
  recorded: number;
};

/** One session's liveness. */
export type LivenessReport = {
  /** The session. */
  session_id: SessionId;
  /** Its readable handle. */
  path: string;
  /** Its status. */
  status: Status;
  /** What the evidence says. */
  state: Liveness;
  /** Why, in a sentence. */
  reason: string;
  /** The latest sign of activity. */
  last_activity_at: Timestamp;
  /**
   * Since when the ledger has it in this state (now, when this observation recorded it;
   * none for `unknown` never recorded).
   */
  since: Timestamp | null;
  /** Whether this observation recorded a change. */
  recorded: boolean;
  /** The evidence. */
  evidence: Evidence[];
};

/** The latest liveness recorded for a session. */
export type LivenessSeen = {
  /** The state. */
  state: Liveness;
  /** When it was recorded. */
  at: Timestamp;
  /** Why, in a sentence. */
  reason: string;
  /** The evidence behind it. */
  evidence: Evidence[];
  /**
   * The agent's process to check next time, with its start time, when one is known (the
   * latest evidence that named one).
   */
  process?: [number, number | null] | null;
};

/** A transcript folder that gave nothing. */
export type MissingSource = {
  /** Whose transcripts were looked for. */
  provider: Provider;
  /** The folder. */
  path: string;
  /**
   * `not_found` (no such folder or file), `no_transcripts` (no transcript file in it) or
   * `no_usage` (its files hold no usage of this provider: another tool's folder?).
   */
  reason: string;
};

/** A mission's newest contract. */
export type MissionLine = {
  /** Its reference (e.g. CLAIM-142). */
  reference: string;
  /** The newest version. */
  version: number;
  /** Whether that version is approved. */
  approved: boolean;
  /** Its clauses. */
  clauses: string[];
  /** Ambiguities still open on it. */
  open_ambiguities: number;
};

/** What a brief tells the agent to do next. */
export type NextAction =
/** Work on. */
"work" |
/** Stop: a person paused the session. */
"blocked";

/** What became of a session's note when a host brought it up to date. */
export type NoteOutcome =
/** Written for the first time. */
"created" |
/** Baton's parts were out of date and were rewritten. */
"updated" |
/** Already up to date: nothing was written. */
"unchanged" |
/** A person changed it seconds ago; Baton leaves it for a later run. */
"deferred" |
/** It kept changing under Baton; the update went to a copy beside it. */
"conflict" |
/** Its frontmatter or a region of Baton's cannot be read; it is left alone. */
"refused" |
/** The vault could not be written (the reason is in `problem`). */
"failed";

/** A session's note after a command: where it is and what became of it. */
export type NoteReport = {
  /** The note's path inside the vault (`Projects/<project>/sessions/….md`). */
  path: string;
  /** The note's file on this machine. */
  file: string;
  /** What became of it. */
  outcome: NoteOutcome;
  /** Keys of Baton's a person changed, kept as they are. */
  kept_edits?: KeyDifference[];
  /** Where Baton's update went instead, after a conflict. */
  conflict_copy?: string | null;
  /** Why it was refused or failed, for a person. */
  problem?: string | null;
};

/** `analyzer_open`. */
export type OpenedAnswer = {
  /** The analyzer's name. */
  analyzer: string;
  /** Whether an analyzer of that name was open and has been started afresh. */
  replaced: boolean;
};

/** `analyzer_overview`. */
export type OverviewAnswer = {
  /** The headline figures. */
  overview: AnalysisOverview;
  /** The charts as SVG text, when `charts_width` was given. */
  charts?: Charts | null;
};

/** A pause a person set. */
export type PauseInfo = {
  /** Why. */
  reason: string;
  /** When. */
  at: Timestamp;
  /** Who. */
  by: string;
  /** Whether a brief has told the agent yet. */
  delivered: boolean;
  /** The budget rule and period that paused it (`day_usd@…`), when a budget did. */
  budget?: string | null;
};

/** An agent's latest word on its plan's limits. */
export type PlanLimits = {
  /** Whose word it is. */
  provider: Provider;
  /** When the agent wrote it. */
  observed_at: Timestamp;
  /** Which limit (Codex's `limit_id`), when said. */
  limit_id?: string | null;
  /** The plan (`plus`, `pro`, …), when said. */
  plan_type?: string | null;
  /** The shorter window (five hours). */
  primary?: LimitWindow | null;
  /** The longer window (seven days). */
  secondary?: LimitWindow | null;
};

/** One step of a plan. */
export type PlanStep = {
  /** What. */
  title: string;
  /** pending, in_progress, done, blocked. */
  state: StepState;
};

/** Where a report's prices come from. */
export type PriceTableInfo = {
  /** The table's source. */
  source: string;
  /** The day its prices were taken. */
  date: string;
};

/** Where the active window ends up at its pace so far. */
export type Projection = {
  /** Tokens at the window's end. */
  total_tokens: number;
  /** Dollars at the window's end. */
  cost_usd: number;
  /** Minutes left in the window. */
  minutes_left: number;
};

/** `analyzer_push`. */
export type PushedAnswer = {
  /** The analyzer's name. */
  analyzer: string;
  /** The chunk's size in bytes (decoded, for base64). */
  bytes: number;
};

/** `query`: the response of a request that only reads. */
export type QueryAnswer = {
  /** The command's answer. */
  response: Response;
  /** The CLI's `[ok] …` line, when the request asked for it. */
  human?: string | null;
};

/** What a reader met, line by line (a count left out of its JSON is zero). */
export type ReadStats = {
  /** Lines read. */
  lines: number;
  /** Lines skipped before JSON parsing because they cannot carry usage. */
  without_usage: number;
  /** Lines that were not JSON even after repairing lone UTF-16 surrogate escapes. */
  malformed: number;
  /**
   * Lines that parsed only after repair: lone surrogate escapes or invalid UTF-8 bytes
   * replaced with U+FFFD (the rest of the line, its message included, is kept).
   */
  repaired_surrogates: number;
  /** Usage lines that repeated a response already counted. */
  duplicates: number;
  /** Locally generated pseudo-responses (`<synthetic>`), not billed. */
  synthetic: number;
  /** Lines passed over for being longer than the longest a reader takes (32 MiB). */
  too_long?: number;
};

/**
 * How a session's reports arrived: from a client hook, from the model's own tool calls, or
 * both.
 */
export type ReportsVia =
/** Only from a hook. */
"hook" |
/** Only from the model. */
"model" |
/** From both. */
"both";

/** Every response. Serializes as the bare object of its variant. */
export type Response =
/** start, resume, end. */
SessionAction |
/** list. */
SessionList |
/** show. */
SessionShow |
/** brief, report, depend, pause, unpause. */
LifecycleAnswer |
/** health. */
HealthAnswer |
/** timeline. */
TimelineAnswer |
/** attention. */
AttentionAnswer |
/** workspace changes. */
WorkspaceAnswer |
/** observe: each session's liveness. */
LivenessAnswer;

/** A marker left each time a session is resumed. */
export type ResumeMarker = {
  /** When it was resumed. */
  at: Timestamp;
  /** The client that resumed it, when known. */
  client_name: string | null;
};

/** Who wrote a message. */
export type Role =
/** The person. */
"user" |
/** The model. */
"assistant" |
/** System or developer instructions. */
"system" |
/** A tool's output. */
"tool";

/** AI runs, counted. */
export type RunCounts = {
  /** Recorded runs. */
  recorded: number;
  /** Refused runs (they carried prompt or output text). */
  refused: number;
  /** Input tokens over recorded runs. */
  input_tokens: number;
  /** Output tokens over recorded runs. */
  output_tokens: number;
};

/**
 * A work session as the fold of its events presents it. Every field is always present in
 * JSON (`null` when unknown), so consumers can rely on the shape.
 */
export type Session = {
  /** The only identity (UUIDv7). */
  session_id: SessionId;
  /** A readable handle, `project/YYYY-MM-DD-HHMM-agent-id8`; presentation only, never identity. */
  path: string;
  /** The project. */
  project: string;
  /** The normalized agent. */
  agent: string;
  /** The coding client that started it. */
  client_name: string | null;
  /** What it set out to do (the latest correction wins). */
  goal: string | null;
  /** Where it stands. */
  status: Status;
  /** When it started (never changed by a resume). */
  started_at: Timestamp;
  /** When it ended. */
  ended_at: Timestamp | null;
  /** Whole seconds from `started_at` to `ended_at`. */
  duration_seconds: number | null;
  /** What was done. */
  summary: string | null;
  /** The session it follows on from. */
  parent_session_id: SessionId | null;
  /** External run id. */
  run_id: string | null;
  /** External work item id. */
  work_item_id: string | null;
  /** External attempt id. */
  attempt_id: string | null;
  /** The agent's own session id, when the start gave it. */
  provider_session_id?: string | null;
  /** Every resume, oldest first. */
  resumes: ResumeMarker[];
  /** Token usage: for each transcript the highest cumulative totals, summed. */
  usage: TokenTotals;
  /** What that usage cost, in micro-dollars, when its writers priced it. */
  usage_cost_micro_usd?: number | null;
  /** Each transcript's usage is recorded up to this byte offset (a hook reads on from it). */
  usage_sources?: UsageSource[];
  /** The time of its latest event. */
  last_event_at: Timestamp;
  /** How many distinct events it has. */
  event_count: number;
  /** The mission worked on. */
  mission: string | null;
  /** The repository commit it started from. */
  start_commit: string | null;
  /** The git branch it started on, when it started in a repository on one. */
  branch?: string | null;
  /** The git worktree it started in (the working copy's top folder). */
  worktree?: string | null;
  /** Self-reported progress, 0–100: shown, never used to decide anything. */
  progress: number | null;
  /** The pause a person set, until it is lifted. */
  pause: PauseInfo | null;
  /** Budget rules a person waived for it by lifting their pause (`rule@period`). */
  budget_waivers?: string[];
  /** The latest brief's stamp (cleared by an unpause). */
  brief: BriefStamp | null;
  /** How its reports arrived, from what actually arrived. */
  reports_via: ReportsVia | null;
  /** Files its work stands on. */
  dependencies: string[];
  /** Files it changed, first report first. */
  changed_files: string[];
  /** Open collisions where it is the affected side. */
  open_collisions: Collision[];
  /** Its plan. */
  plan: PlanStep[];
  /** Decisions it asked for. */
  decisions: DecisionRequest[];
  /** AI runs recorded and refused. */
  runs: RunCounts;
  /** What it can show for its work. */
  evidence: string[];
  /** Where the work landed. */
  pull_request: string | null;
  /** The latest context-health snapshot. */
  health: HealthReport | null;
  /**
   * Whether its agent is still running, as last recorded (absent until Baton has seen
   * evidence either way).
   */
  liveness?: LivenessSeen | null;
};

/** A session together with what a command did to it. */
export type SessionAction = {
  /** What the command did to the session. */
  action: SessionActionKind;
  /** When the resume marker was recorded (resumes only). */
  resumed_at?: Timestamp | null;
  /** The only identity (UUIDv7). */
  session_id: SessionId;
  /** A readable handle, `project/YYYY-MM-DD-HHMM-agent-id8`; presentation only, never identity. */
  path: string;
  /** The project. */
  project: string;
  /** The normalized agent. */
  agent: string;
  /** The coding client that started it. */
  client_name: string | null;
  /** What it set out to do (the latest correction wins). */
  goal: string | null;
  /** Where it stands. */
  status: Status;
  /** When it started (never changed by a resume). */
  started_at: Timestamp;
  /** When it ended. */
  ended_at: Timestamp | null;
  /** Whole seconds from `started_at` to `ended_at`. */
  duration_seconds: number | null;
  /** What was done. */
  summary: string | null;
  /** The session it follows on from. */
  parent_session_id: SessionId | null;
  /** External run id. */
  run_id: string | null;
  /** External work item id. */
  work_item_id: string | null;
  /** External attempt id. */
  attempt_id: string | null;
  /** The agent's own session id, when the start gave it. */
  provider_session_id?: string | null;
  /** Every resume, oldest first. */
  resumes: ResumeMarker[];
  /** Token usage: for each transcript the highest cumulative totals, summed. */
  usage: TokenTotals;
  /** What that usage cost, in micro-dollars, when its writers priced it. */
  usage_cost_micro_usd?: number | null;
  /** Each transcript's usage is recorded up to this byte offset (a hook reads on from it). */
  usage_sources?: UsageSource[];
  /** The time of its latest event. */
  last_event_at: Timestamp;
  /** How many distinct events it has. */
  event_count: number;
  /** The mission worked on. */
  mission: string | null;
  /** The repository commit it started from. */
  start_commit: string | null;
  /** The git branch it started on, when it started in a repository on one. */
  branch?: string | null;
  /** The git worktree it started in (the working copy's top folder). */
  worktree?: string | null;
  /** Self-reported progress, 0–100: shown, never used to decide anything. */
  progress: number | null;
  /** The pause a person set, until it is lifted. */
  pause: PauseInfo | null;
  /** Budget rules a person waived for it by lifting their pause (`rule@period`). */
  budget_waivers?: string[];
  /** The latest brief's stamp (cleared by an unpause). */
  brief: BriefStamp | null;
  /** How its reports arrived, from what actually arrived. */
  reports_via: ReportsVia | null;
  /** Files its work stands on. */
  dependencies: string[];
  /** Files it changed, first report first. */
  changed_files: string[];
  /** Open collisions where it is the affected side. */
  open_collisions: Collision[];
  /** Its plan. */
  plan: PlanStep[];
  /** Decisions it asked for. */
  decisions: DecisionRequest[];
  /** AI runs recorded and refused. */
  runs: RunCounts;
  /** What it can show for its work. */
  evidence: string[];
  /** Where the work landed. */
  pull_request: string | null;
  /** The latest context-health snapshot. */
  health: HealthReport | null;
  /**
   * Whether its agent is still running, as last recorded (absent until Baton has seen
   * evidence either way).
   */
  liveness?: LivenessSeen | null;
  /** What the session was briefed with (starts that brief). */
  briefing?: BriefContext | null;
  /** A sentence for the caller. */
  message?: string | null;
  /** What became of the session's note (a host with a vault fills it in). */
  note?: NoteReport | null;
};

/** What a start, resume or end did to its session. */
export type SessionActionKind =
/** A new session. */
"started" |
/** A session picked up again. */
"resumed" |
/** A session closed. */
"ended";

/** A session id: a UUID (UUIDv7 when Baton minted it). */
export type SessionId = string;

/** The answer to a list. */
export type SessionList = {
  /** The matching sessions, oldest first. */
  sessions: Session[];
  /** How many matched. */
  total: number;
};

/** The answer to a show. */
export type SessionShow = {
  /** The session with every field of the model. */
  session: Session;
};

/** Collision severity. */
export type Severity =
/** The change overlaps the affected session's own changes. */
"normal" |
/** The change breaks a dependency the affected session declared. */
"high";

/** Whose use a share is. */
export type ShareOf =
/** A work session of the ledger. */
"work_session" |
/** An agent session no work session links. */
"agent_session";

/** Where a session stands. The first five are live; `complete` and `failed` are ended. */
export type Status =
/** Registered, not yet briefed. */
"starting" |
/** Briefed, or reporting changes. */
"working" |
/** The agent said it is stuck. */
"blocked" |
/** Implementation reported complete; waiting for a person. */
"awaiting_review" |
/** A person pulled the brake. */
"paused" |
/** Ended, the work done. */
"complete" |
/** Ended without finishing. */
"failed";

/** The answer of `timeline`. */
export type TimelineAnswer = {
  /** The session. */
  session_id: SessionId;
  /** Its entries, oldest first. */
  events: TimelineEntry[];
};

/** One line of the timeline. */
export type TimelineEntry = {
  /** When. */
  at: Timestamp;
  /** The timeline kind (e.g. `started`, `step_done`, `completed`). */
  kind: string;
  /** What happened, in words. */
  summary: string;
  /** `agent`, `baton` or `human`. */
  actor: ActorKind;
  /** Who, by name. */
  actor_name: string;
  /** plain, amber, red, green. */
  tone: Tone;
};

/** Token counts: the five fields every provider's numbers are mapped to. */
export type TokenTotals = {
  /** Input tokens, excluding cached input. */
  input_tokens: number;
  /** Output tokens, including reasoning. */
  output_tokens: number;
  /** Tokens written to the prompt cache. */
  cache_creation_tokens: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens: number;
  /** The reasoning part of the output. */
  reasoning_tokens: number;
};

/** How an entry should be marked. */
export type Tone =
/** Nothing to flag. */
"plain" |
/** A block, deviation, staleness or pause. */
"amber" |
/** A failure, collision or refused run. */
"red" |
/** Completion. */
"green";

/** One transcript's part in a work session. */
export type TranscriptLink = {
  /** Whose transcript. */
  provider: Provider;
  /** Its session id. */
  provider_session_id: string;
  /** How it was tied. */
  rule: LinkRule;
  /** How many of its counted responses fell to this work session. */
  responses: number;
};

/** `analyzer_usage`: the report, or the same as CSV. */
export type UsageAnswer =
/** Rows and totals. */
UsageReport |
/** `csv: true`. */
{
  /** The report as CSV text, a header row first. */
  csv: string;
};

/** A usage report. */
export type UsageReport = {
  /** How rows are keyed. */
  group_by: GroupBy;
  /** The rows, by key. */
  rows: UsageRow[];
  /** Everything together. */
  totals: UsageRow;
  /** Models without a price (their cost counts as 0). */
  unpriced_models: string[];
  /** Models priced through an alias rule, and the table key each was priced as. */
  priced_as: {
    [key: string]: string;
  };
  /** Which cost is shown. */
  cost_mode: CostMode;
  /** The price table's source and date. */
  prices: PriceTableInfo;
  /** The zone days, weeks and months are taken in. */
  timezone: string;
  /** Sources asked for that gave nothing (filled by the host that looked). */
  missing_sources: MissingSource[];
  /** What the readers skipped, and why. */
  skipped: {
    [key: string]: number;
  };
  /**
   * Agents whose sessions were found but whose files keep no token counts (Cursor): not
   * counted, and never counted as zero (filled by the host that looked).
   */
  without_tokens?: string[];
  /** When rows are work sessions: each row's work session and the transcripts tied to it. */
  work_sessions?: WorkSessions | null;
  /** Usage by metered window (`usage blocks`), when asked for. */
  windows?: WindowsReport | null;
};

/** One row of a report. */
export type UsageRow = {
  /** The group's key (a date, session, model or project). */
  key: string;
  /** Input tokens, excluding cached input. */
  input_tokens: number;
  /** Output tokens, including reasoning. */
  output_tokens: number;
  /** Tokens written to the prompt cache. */
  cache_creation_tokens: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens: number;
  /** The reasoning part of the output. */
  reasoning_tokens: number;
  /** input + output + cache creation + cache read. */
  total_tokens: number;
  /** Estimated cost in US dollars. */
  cost_usd: number;
  /** Models seen in the group. */
  models: string[];
  /** A session's row: when its first counted response was written. */
  first_at?: Timestamp | null;
  /** A session's row: when its last counted response was written (rows are in this order). */
  last_at?: Timestamp | null;
  /** A session's row: whose transcript it is. */
  provider?: Provider | null;
  /** A session's row: its project (its first working folder). */
  project?: string | null;
  /**
   * Of `total_tokens`, what sub-agents used (Claude Code's sidechains, Codex's sub-agent
   * rollouts): the rest is the sessions' own.
   */
  delegated_tokens?: number;
  /** Of `cost_usd`, what sub-agents' responses cost. */
  delegated_cost_usd?: number;
};

/** How far one transcript's usage is recorded. */
export type UsageSource = {
  /** The transcript (a path or a provider session id). */
  source: string;
  /** The byte offset its totals cover. */
  offset: number;
  /** Its totals up to `offset`. */
  totals: TokenTotals;
  /** Their cost, when priced. */
  cost_micro_usd?: number | null;
};

/** One window. */
export type UsageWindow = {
  /** When it opened: the hour of its first response. */
  start: Timestamp;
  /** When it closes (or closed): `start` plus the length. */
  end: Timestamp;
  /** Its first response. */
  first_at: Timestamp;
  /** Its last response. */
  last_at: Timestamp;
  /** Whether `now` falls inside it. */
  active: boolean;
  /**
   * Idle time between the previous window's end and this one's start, in minutes (absent
   * for the first window and for a window that opened as the previous one closed).
   */
  gap_before_minutes?: number | null;
  /** Counted responses. */
  responses: number;
  /** Input tokens, excluding cached input. */
  input_tokens: number;
  /** Output tokens, including reasoning. */
  output_tokens: number;
  /** Tokens written to the prompt cache. */
  cache_creation_tokens: number;
  /** Input tokens read from the prompt cache. */
  cache_read_tokens: number;
  /** The reasoning part of the output. */
  reasoning_tokens: number;
  /** input + output + cache creation + cache read. */
  total_tokens: number;
  /** Its cost in US dollars. */
  cost_usd: number;
  /** Models used in it. */
  models: string[];
  /** How fast it was used. */
  burn: BurnRate;
  /** The active window at its end, at its pace so far. */
  projection?: Projection | null;
  /** The window against the token limit, when there is one. */
  limit?: LimitState | null;
  /** Who used it, the largest share first (with `by_session`). */
  sessions?: WindowShare[];
};

/** The verdict on the overall score. */
export type Verdict =
/** 85 or above, or nothing computable. */
"healthy" |
/** Below 85. */
"degraded" |
/** Below 60. */
"stale";

/** `version`: what this core is. */
export type VersionAnswer = {
  /** The crate's version. */
  version: string;
  /** The ABI's major version; a host built for it works with any core that answers it. */
  abi_version: number;
  /** Every op this core answers. */
  ops: string[];
  /** The ledger schema version it reads and writes. */
  schema: number;
  /** Every error code it can answer with. */
  error_codes: string[];
};

/** `analyzer_view`: one branch, or the same as Markdown. */
export type ViewAnswer =
/** The branch's messages. */
ConversationView |
/** `markdown: true`. */
{
  /** The branch as Markdown. */
  markdown: string;
};

/** One message of the branch being read. */
export type ViewMessage = {
  /** Its id (pass it to `view` as `through` to read the branch through it). */
  id: string;
  /** Who wrote it. */
  role: Role;
  /** When. */
  at: Timestamp | null;
  /** The model that wrote it. */
  model: string | null;
  /** Its content. */
  blocks: Block[];
  /** The ids of the alternatives at this point (itself included), in file order. */
  alternatives: string[];
  /** Which of them this is (0-based). */
  alternative: number;
  /** Whether it belongs to a sub-agent's thread, shown after the call that started it. */
  side_chain?: boolean;
  /** The tokens of the response it is, when the transcript records them. */
  tokens?: TokenTotals | null;
};

/** One user's part of a window. */
export type WindowShare = {
  /** A work session or an agent session. */
  of: ShareOf;
  /** The work session's path, or the agent's session id. */
  key: string;
  /** The work session. */
  session_id?: SessionId | null;
  /** The agent (an agent session's, or the first a work session's responses came from). */
  provider: Provider;
  /** Counted responses. */
  responses: number;
  /** Tokens (input + output + cache creation + cache read). */
  total_tokens: number;
  /** Dollars. */
  cost_usd: number;
  /** Its part of the window's cost, in percent (of its tokens when the window cost nothing). */
  share_percent: number;
};

/** Usage by window. */
export type WindowsReport = {
  /** How long each window lasts, in minutes. */
  length_minutes: number;
  /** When the report was made. */
  now: Timestamp;
  /** The token limit windows are measured against, when one was asked for and is known. */
  token_limit?: number | null;
  /**
   * Where the limit asked for comes from: `given`, or `highest_past_window` (then
   * `token_limit` is absent while no window has ended).
   */
  token_limit_source?: string | null;
  /** Which windows were kept. */
  kept: Keep;
  /** The windows, the latest (the active one, when there is one) first. */
  windows: UsageWindow[];
  /**
   * What the agents themselves last said of their plans' limits (filled by the host that
   * looked).
   */
  agent_limits?: PlanLimits[];
};

/** The work sessions and the workspace of everything loaded. */
export type WorkOverview = {
  /**
   * Every session, in hand-off order: chains newest first, each session followed by the
   * ones it handed to, oldest first.
   */
  sessions: WorkSessionCard[];
  /** The missions. */
  missions: MissionLine[];
  /** The decisions in force. */
  decisions: Decision[];
  /** The attention items still open, most urgent first. */
  attention: AttentionItem[];
  /** Responses in the loaded transcripts that no work session fits. */
  unlinked_responses: number;
};

/** One work session as the overview shows it. */
export type WorkSessionCard = {
  /** The only identity (UUIDv7). */
  session_id: SessionId;
  /** A readable handle, `project/YYYY-MM-DD-HHMM-agent-id8`; presentation only, never identity. */
  path: string;
  /** The project. */
  project: string;
  /** The normalized agent. */
  agent: string;
  /** The coding client that started it. */
  client_name: string | null;
  /** What it set out to do (the latest correction wins). */
  goal: string | null;
  /** Where it stands. */
  status: Status;
  /** When it started (never changed by a resume). */
  started_at: Timestamp;
  /** When it ended. */
  ended_at: Timestamp | null;
  /** Whole seconds from `started_at` to `ended_at`. */
  duration_seconds: number | null;
  /** What was done. */
  summary: string | null;
  /** The session it follows on from. */
  parent_session_id: SessionId | null;
  /** External run id. */
  run_id: string | null;
  /** External work item id. */
  work_item_id: string | null;
  /** External attempt id. */
  attempt_id: string | null;
  /** The agent's own session id, when the start gave it. */
  provider_session_id?: string | null;
  /** Every resume, oldest first. */
  resumes: ResumeMarker[];
  /** Token usage: for each transcript the highest cumulative totals, summed. */
  usage: TokenTotals;
  /** What that usage cost, in micro-dollars, when its writers priced it. */
  usage_cost_micro_usd?: number | null;
  /** Each transcript's usage is recorded up to this byte offset (a hook reads on from it). */
  usage_sources?: UsageSource[];
  /** The time of its latest event. */
  last_event_at: Timestamp;
  /** How many distinct events it has. */
  event_count: number;
  /** The mission worked on. */
  mission: string | null;
  /** The repository commit it started from. */
  start_commit: string | null;
  /** The git branch it started on, when it started in a repository on one. */
  branch?: string | null;
  /** The git worktree it started in (the working copy's top folder). */
  worktree?: string | null;
  /** Self-reported progress, 0–100: shown, never used to decide anything. */
  progress: number | null;
  /** The pause a person set, until it is lifted. */
  pause: PauseInfo | null;
  /** Budget rules a person waived for it by lifting their pause (`rule@period`). */
  budget_waivers?: string[];
  /** The latest brief's stamp (cleared by an unpause). */
  brief: BriefStamp | null;
  /** How its reports arrived, from what actually arrived. */
  reports_via: ReportsVia | null;
  /** Files its work stands on. */
  dependencies: string[];
  /** Files it changed, first report first. */
  changed_files: string[];
  /** Open collisions where it is the affected side. */
  open_collisions: Collision[];
  /** Its plan. */
  plan: PlanStep[];
  /** Decisions it asked for. */
  decisions: DecisionRequest[];
  /** AI runs recorded and refused. */
  runs: RunCounts;
  /** What it can show for its work. */
  evidence: string[];
  /** Where the work landed. */
  pull_request: string | null;
  /** The latest context-health snapshot. */
  health: HealthReport | null;
  /**
   * Whether its agent is still running, as last recorded (absent until Baton has seen
   * evidence either way).
   */
  liveness?: LivenessSeen | null;
  /** How deep it sits in its hand-off chain (0 for a session that follows no other). */
  depth: number;
  /** The sessions that follow on from it. */
  handed_to: SessionId[];
  /** Its estimated cost in US dollars, when anything priced it. */
  cost_usd: number | null;
  /** Where that cost comes from. */
  cost_source: CostSource | null;
};

/** One work session's transcripts. */
export type WorkSessionLinks = {
  /** The work session. */
  session_id: SessionId;
  /** Its transcripts, with the rule that tied each. */
  transcripts: TranscriptLink[];
};

/** A report by work session: what each row's transcripts are, and what fitted no session. */
export type WorkSessions = {
  /** Per row key (the work session's path): its id and its transcripts with their rule. */
  links: {
    [key: string]: WorkSessionLinks;
  };
  /** Counted responses in the window that no work session fits (left out of the rows). */
  unlinked_responses: number;
};

/** The answer of a workspace change. */
export type WorkspaceAnswer = {
  /** What happened. */
  action: string;
  [key: string]: unknown;
};
