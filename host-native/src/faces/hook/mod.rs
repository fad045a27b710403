//! `baton hook claude-code`, `codex`, `gemini` and `qwen`: an agent's hooks in one command.
//! Claude Code's (`SessionStart`, `SessionEnd`, `Stop`, `UserPromptSubmit`), Qwen Code's (the
//! same events and JSON), Gemini CLI's (the same JSON, its turn's end named `AfterAgent`) and
//! Codex's lifecycle hooks pass JSON on stdin; Codex's `notify` program gets its turn-complete
//! JSON as the last argument. It keeps one work session per agent session id, ties the agent's process to it,
//! records the transcript's usage at each turn's end (Claude Code), finds the project's ledger
//! (never a second `.baton/` in a sub-folder), and never fails the agent's turn: whatever goes
//! wrong is written to stderr and to `.baton/hook.log`, and the exit status is 0.

use crate::ops::engine::{self, Acting};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::Caller;
use baton_core::commands::{EndParams, Request, Response, StartParams};
use baton_core::ledger::store::LedgerView;
use baton_core::transcripts::Provider;
use serde::Deserialize;
use std::path::{Path, PathBuf};

mod transcript;

use transcript::*;

/// The fields of Claude Code's hook input Baton reads (the rest is ignored).
#[derive(Debug, Default, Deserialize)]
struct HookInput {
    /// Claude's session id.
    #[serde(default)]
    session_id: Option<String>,
    /// `SessionStart`, `SessionEnd`, `Stop`, `UserPromptSubmit`, …
    #[serde(default)]
    hook_event_name: Option<String>,
    /// For `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    #[serde(default)]
    source: Option<String>,
    /// For `SessionEnd`: why (`clear`, `logout`, `prompt_input_exit`, `other`).
    #[serde(default)]
    reason: Option<String>,
    /// The session's working directory.
    #[serde(default)]
    cwd: Option<String>,
    /// The session's transcript.
    #[serde(default)]
    transcript_path: Option<String>,
}

/// What one hook call did, in a line for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A work session was started (or reconnected to) for the Claude session.
    Started(String),
    /// The Claude session's work session was ended.
    Ended(String),
    /// Nothing to do (a compaction, a turn, an end with no session).
    Nothing(String),
}

/// Whose hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code.
    ClaudeCode,
    /// OpenAI Codex.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Qwen Code.
    Qwen,
}

impl Agent {
    /// The agent name its work sessions carry.
    fn agent(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Qwen => "qwen",
        }
    }

    /// Its client name.
    fn client(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini-cli",
            Agent::Qwen => "qwen-code",
        }
    }

    /// How its session is named in messages.
    fn session_word(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude session",
            Agent::Codex => "Codex thread",
            Agent::Gemini => "Gemini CLI session",
            Agent::Qwen => "Qwen Code session",
        }
    }

    /// Its name in a session's summary.
    fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Qwen => "Qwen Code",
        }
    }

    /// Whose transcript it writes, when a turn's usage is read whole from it (an agent that
    /// writes a response again as it changes); `None` for Claude Code's, read on from where
    /// the last record stopped.
    fn rewritten_transcript(self) -> Option<Provider> {
        match self {
            Agent::Gemini => Some(Provider::Gemini),
            Agent::Qwen => Some(Provider::Qwen),
            Agent::ClaudeCode | Agent::Codex => None,
        }
    }
}

/// The fields of Codex's `notify` JSON Baton reads.
#[derive(Debug, Default, Deserialize)]
struct CodexNotify {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default, rename = "thread-id")]
    thread_id: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
}

/// The project folder: `$CLAUDE_PROJECT_DIR` (Claude Code), `$GEMINI_PROJECT_DIR` (Gemini CLI)
/// or `$QWEN_PROJECT_DIR` (Qwen Code), else the hook's `cwd`, else here.
fn project_dir(agent: Agent, input: &HookInput) -> PathBuf {
    let pinned = match agent {
        Agent::ClaudeCode => crate::os::env::var_os("CLAUDE_PROJECT_DIR"),
        Agent::Gemini => crate::os::env::var_os("GEMINI_PROJECT_DIR"),
        Agent::Qwen => crate::os::env::var_os("QWEN_PROJECT_DIR"),
        Agent::Codex => None,
    };
    pinned
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| input.cwd.as_ref().map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The ledger of a project folder: `BATON_DIR` when set, else the nearest `.baton/` at or
/// above it (so a session started in a sub-folder uses the project's), else one made in it.
fn ledger_of(project: &Path) -> Ledger {
    let dir = crate::os::env::var_os("BATON_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::store::discover(project));
    let fsync_off = crate::os::env::var("BATON_FSYNC").is_ok_and(|v| v == "0" || v == "off");
    Ledger::new(dir, !fsync_off)
}

/// The project's name: the folder the ledger is in (the project root), as Baton names go.
fn project_name(ledger: &Ledger, project: &Path) -> String {
    let root = ledger.dir().parent().unwrap_or(project);
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| "project".to_owned())
}

/// Runs one Claude Code hook from its JSON input; what it did, or why it could not.
pub fn claude_code(stdin: &str) -> (Result<Outcome, Error>, Option<Ledger>) {
    from_json(Agent::ClaudeCode, stdin, "Claude Code's hook JSON")
}

/// Runs one Gemini CLI hook from its JSON input (Claude Code's fields, Gemini's event names).
pub fn gemini(stdin: &str) -> (Result<Outcome, Error>, Option<Ledger>) {
    from_json(Agent::Gemini, stdin, "Gemini CLI's hook JSON")
}

/// Runs one Qwen Code hook from its JSON input (Claude Code's events and fields).
pub fn qwen(stdin: &str) -> (Result<Outcome, Error>, Option<Ledger>) {
    from_json(Agent::Qwen, stdin, "Qwen Code's hook JSON")
}

/// Runs one Codex hook: its `notify` JSON (the last argument) when given, else a lifecycle
/// hook's JSON on stdin.
pub fn codex(notify: Option<&str>, stdin: &str) -> (Result<Outcome, Error>, Option<Ledger>) {
    let Some(payload) = notify else {
        return from_json(Agent::Codex, stdin, "Codex's hook JSON");
    };
    let parsed = serde_json::from_str::<CodexNotify>(payload);
    let notified = parsed.as_ref().ok();
    let input = HookInput {
        session_id: notified.and_then(|n| n.thread_id.clone()),
        hook_event_name: Some("TurnComplete".to_owned()),
        cwd: notified.and_then(|n| n.cwd.clone()),
        ..HookInput::default()
    };
    let project = project_dir(Agent::Codex, &input);
    let ledger = ledger_of(&project);
    let result = match notified {
        Some(n) if n.kind.as_deref() == Some("agent-turn-complete") => {
            run(Agent::Codex, &ledger, &project, &input)
        }
        Some(n) => Ok(Outcome::Nothing(format!(
            "Codex notification `{}`: nothing to record",
            n.kind.as_deref().unwrap_or("(no type)")
        ))),
        None => Err(Error::invalid(
            "notify",
            format!(
                "the argument is not Codex's notify JSON: {}",
                parsed.err().map(|e| e.to_string()).unwrap_or_default()
            ),
        )),
    };
    (result, Some(ledger))
}

fn from_json(agent: Agent, stdin: &str, what: &str) -> (Result<Outcome, Error>, Option<Ledger>) {
    // The ledger is found even when the input is not JSON, so the log says what came in.
    let parsed = serde_json::from_str::<HookInput>(stdin);
    let input = parsed.as_ref().ok();
    let project = project_dir(agent, input.unwrap_or(&HookInput::default()));
    let ledger = ledger_of(&project);
    let result = match input {
        Some(input) => run(agent, &ledger, &project, input),
        None => Err(Error::invalid(
            "stdin",
            format!(
                "the hook input is not {what}: {}",
                parsed.err().map(|e| e.to_string()).unwrap_or_default()
            ),
        )),
    };
    (result, Some(ledger))
}

/// The live work session of an agent session, when there is one.
fn live_session_of(
    ledger: &Ledger,
    agent_id: &str,
) -> Result<Option<baton_core::ledger::session::Session>, Error> {
    Ok(ledger
        .snapshot()?
        .live_sessions()?
        .into_iter()
        .find(|s| s.provider_session_id.as_deref() == Some(agent_id)))
}

fn run(agent: Agent, ledger: &Ledger, project: &Path, input: &HookInput) -> Result<Outcome, Error> {
    let Some(agent_id) = input
        .session_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    else {
        return Err(Error::invalid(
            "session_id",
            "the hook input names no session_id",
        ));
    };
    let acting = Acting {
        actor: None,
        person: None,
        caller: Caller::agent(agent.client()),
    };
    let named = format!("{} {agent_id}", agent.session_word());
    let start = |source: &str| -> Result<Outcome, Error> {
        // After /clear Claude names a new session: a new work session, handed off from the
        // one it replaced when that is clear.
        let parent = if source == "clear" {
            handed_off_from(ledger, &project_name(ledger, project), agent)?
        } else {
            None
        };
        // Where the agent works: its folder's commit, branch and worktree.
        let git = crate::os::system::git_state_in(project).unwrap_or_default();
        let request = Request::Start(StartParams {
            project: Some(project_name(ledger, project)),
            agent: Some(agent.agent().to_owned()),
            client_name: Some(agent.client().to_owned()),
            provider_session_id: Some(agent_id.to_owned()),
            parent_session_id: parent,
            commit: git.commit,
            branch: git.branch,
            worktree: git.worktree,
            ..StartParams::default()
        });
        let Response::Action(action) = engine::run_as(ledger, &request, &acting)? else {
            return Err(Error::internal("a start answered something else"));
        };
        // The agent's process runs this session now: Claude Code's registry names it, else
        // it is the process that ran this hook.
        let tied = tie(ledger, &action.session, agent_id);
        Ok(Outcome::Started(format!(
            "{} {} for {named} ({source}){tied}",
            action.action.as_str(),
            action.session.session_id
        )))
    };
    match input.hook_event_name.as_deref().unwrap_or("") {
        "SessionStart" => match input.source.as_deref().unwrap_or("startup") {
            // A compaction keeps the conversation going: the work session goes on too.
            "compact" => Ok(Outcome::Nothing(format!(
                "compaction of {named}: the work session goes on"
            ))),
            // startup, resume and clear: a start with the agent's id reconnects to a live
            // work session that has it, else opens one.
            source => start(source),
        },
        // Codex's notify after each turn: the thread's work session, opened on its first turn
        // (and again after it was ended); a live one is only checked for its process.
        "TurnComplete" => {
            let (said, session) = match live_session_of(ledger, agent_id)? {
                Some(session) => {
                    let tied = tie(ledger, &session, agent_id);
                    (
                        Outcome::Nothing(format!("turn of {named} done{tied}")),
                        Some(session),
                    )
                }
                None => (start("turn")?, live_session_of(ledger, agent_id)?),
            };
            // The turn's usage, from the thread's rollout, as a Stop hook records Claude's.
            let usage = match &session {
                Some(session) => record_codex_usage(ledger, session, agent_id, &acting)
                    .unwrap_or_else(|err| format!("; usage not recorded: {err}")),
                None => String::new(),
            };
            Ok(match said {
                Outcome::Nothing(text) => Outcome::Nothing(text + &usage),
                Outcome::Started(text) => Outcome::Started(text + &usage),
                other => other,
            })
        }
        "SessionEnd" => {
            let Some(session) = live_session_of(ledger, agent_id)? else {
                return Ok(Outcome::Nothing(format!(
                    "no live work session has {named}"
                )));
            };
            // The last turns' usage first: an ended session takes no more.
            let usage = match (agent, input.transcript_path.as_deref()) {
                (Agent::ClaudeCode, Some(path)) => record_usage(ledger, &session, path, &acting)
                    .unwrap_or_else(|err| format!("; usage not recorded: {err}")),
                (_, Some(path)) => match agent.rewritten_transcript() {
                    Some(provider) => record_whole_usage(ledger, &session, provider, path, &acting)
                        .unwrap_or_else(|err| format!("; usage not recorded: {err}")),
                    None => String::new(),
                },
                _ => String::new(),
            };
            let reason = input.reason.as_deref().unwrap_or("other");
            engine::run_as(
                ledger,
                &Request::End(EndParams {
                    session_id: Some(session.session_id.to_string()),
                    summary: Some(format!("{} session ended ({reason})", agent.title())),
                    ..EndParams::default()
                }),
                &acting,
            )?;
            Ok(Outcome::Ended(format!(
                "ended {} for {named} ({reason}){usage}",
                session.session_id
            )))
        }
        // The end of a turn (Gemini CLI's `AfterAgent`): the turn's usage goes to the ledger.
        "Stop" | "AfterAgent" => match (
            live_session_of(ledger, agent_id)?,
            input.transcript_path.as_deref(),
        ) {
            (Some(session), Some(path)) if agent != Agent::Codex => {
                let usage = match agent.rewritten_transcript() {
                    // Gemini CLI and Qwen Code write a response again as it changes: read whole.
                    Some(provider) => {
                        record_whole_usage(ledger, &session, provider, path, &acting)?
                    }
                    None => record_usage(ledger, &session, path, &acting)?,
                };
                let goal = goal_from_transcript(ledger, &session, path, agent_id, &acting);
                Ok(Outcome::Nothing(format!(
                    "turn of {named} ended{usage}{goal}"
                )))
            }
            (None, _) => Ok(Outcome::Nothing(format!(
                "no live work session has {named}"
            ))),
            (Some(_), _) => Ok(Outcome::Nothing(format!(
                "turn of {named} ended; no usage to count here"
            ))),
        },
        other => Ok(Outcome::Nothing(format!(
            "{} for {named}: nothing to record",
            if other.is_empty() {
                "an unnamed hook"
            } else {
                other
            }
        ))),
    }
}

/// Ties the agent's process to its work session (Claude Code's registry entry for it, else the
/// process that ran this hook), unless that process is tied already; a few words for the log.
fn tie(ledger: &Ledger, session: &baton_core::ledger::session::Session, agent_id: &str) -> String {
    let Some(process) = crate::os::processes::registered_process(agent_id)
        .or_else(crate::os::processes::agent_process)
    else {
        return "; no process found to tie to it".to_owned();
    };
    if session.liveness.as_ref().and_then(|l| l.process) == Some(process) {
        return String::new();
    }
    crate::ops::agents::tie_process(ledger, &session.session_id.to_string(), process).map_or_else(
        |err| format!("; its process is not tied: {err}"),
        |()| format!("; process {} tied to it", process.0),
    )
}

/// After `/clear`, the work session the new one takes over from: the project's session of the
/// same agent that `/clear` ended in the last minute (its `SessionEnd` summary says so), when
/// there is exactly one.
fn handed_off_from(ledger: &Ledger, project: &str, agent: Agent) -> Result<Option<String>, Error> {
    let now = crate::os::system::now()?;
    let cleared_summary = format!("{} session ended (clear)", agent.title());
    let cleared: Vec<_> = ledger
        .snapshot()?
        .sessions()?
        .into_iter()
        .filter(|s| s.project == project && s.client_name.as_deref() == Some(agent.client()))
        .filter(|s| s.summary.as_deref() == Some(cleared_summary.as_str()))
        .filter(|s| {
            s.ended_at
                .is_some_and(|at| at.whole_seconds_until(now) <= 60)
        })
        .collect();
    Ok(match cleared.as_slice() {
        [only] => Some(only.session_id.to_string()),
        _ => None,
    })
}

/// Appends a line to `.baton/hook.log` (when the ledger folder exists); a failure to log is
/// not worth failing a hook over.
pub fn log(ledger: &Ledger, line: &str) {
    use std::io::Write;
    if !ledger.dir().is_dir() {
        return;
    }
    let now = crate::os::system::now().unwrap_or_default();
    use std::os::unix::fs::OpenOptionsExt;
    // Never through a link someone planted in the ledger.
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(ledger.dir().join("hook.log"))
    {
        let _ = writeln!(file, "{now} {line}");
    }
}
