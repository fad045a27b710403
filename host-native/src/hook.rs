//! `baton hook claude-code`: Claude Code's hooks (`SessionStart`, `SessionEnd`, `Stop`,
//! `UserPromptSubmit`) in one command that reads the hook's JSON on stdin. It keeps one work
//! session per Claude session id, finds the project's ledger (never a second `.baton/` in a
//! sub-folder), and never fails the agent's turn: whatever goes wrong is written to stderr and
//! to `.baton/hook.log`, and the exit status is 0.

use crate::engine::{self, Acting};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::trust::Caller;
use baton_core::commands::{EndParams, Request, Response, StartParams};
use baton_core::ledger::store::LedgerView;
use serde::Deserialize;
use std::path::{Path, PathBuf};

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

/// The project folder: `$CLAUDE_PROJECT_DIR`, else the hook's `cwd`, else here.
fn project_dir(input: &HookInput) -> PathBuf {
    std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| input.cwd.as_ref().map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The ledger of a project folder: `BATON_DIR` when set, else the nearest `.baton/` at or
/// above it (so a session started in a sub-folder uses the project's), else one made in it.
fn ledger_of(project: &Path) -> Ledger {
    let dir = std::env::var_os("BATON_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::store::discover(project));
    let fsync_off = std::env::var("BATON_FSYNC").is_ok_and(|v| v == "0" || v == "off");
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
    // The ledger is found even when the input is not JSON, so the log says what came in.
    let parsed = serde_json::from_str::<HookInput>(stdin);
    let input = parsed.as_ref().ok();
    let project = project_dir(input.unwrap_or(&HookInput::default()));
    let ledger = ledger_of(&project);
    let result = match input {
        Some(input) => run(&ledger, &project, input),
        None => Err(Error::invalid(
            "stdin",
            format!(
                "the hook input is not Claude Code's hook JSON: {}",
                parsed.err().map(|e| e.to_string()).unwrap_or_default()
            ),
        )),
    };
    (result, Some(ledger))
}

fn run(ledger: &Ledger, project: &Path, input: &HookInput) -> Result<Outcome, Error> {
    let Some(claude_id) = input
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
        caller: Caller::agent("claude-code"),
    };
    match input.hook_event_name.as_deref().unwrap_or("") {
        "SessionStart" => match input.source.as_deref().unwrap_or("startup") {
            // A compaction keeps the conversation going: the work session goes on too.
            "compact" => Ok(Outcome::Nothing(format!(
                "compaction of {claude_id}: the work session goes on"
            ))),
            // startup, resume and clear: a start with Claude's id reconnects to a live work
            // session that has it, else opens one (after /clear Claude names a new session:
            // a new work session, handed off from the one it replaced when that is clear).
            source => {
                let parent = if source == "clear" {
                    handed_off_from(ledger, &project_name(ledger, project))?
                } else {
                    None
                };
                let request = Request::Start(StartParams {
                    project: Some(project_name(ledger, project)),
                    agent: Some("claude".to_owned()),
                    client_name: Some("claude-code".to_owned()),
                    provider_session_id: Some(claude_id.to_owned()),
                    parent_session_id: parent,
                    commit: crate::system::git_head(),
                    ..StartParams::default()
                });
                let Response::Action(action) = engine::run_as(ledger, &request, &acting)? else {
                    return Err(Error::internal("a start answered something else"));
                };
                // Claude Code's process runs this session now: its registry entry names it,
                // else it is the process that ran this hook.
                let tied = match crate::liveness::registered_process(claude_id)
                    .or_else(crate::liveness::agent_process)
                {
                    Some(process) => crate::liveness::tie_process(
                        ledger,
                        &action.session.session_id.to_string(),
                        process,
                    )
                    .map_or_else(
                        |err| format!("; its process is not tied: {err}"),
                        |()| format!("; process {} tied to it", process.0),
                    ),
                    None => "; no process found to tie to it".to_owned(),
                };
                Ok(Outcome::Started(format!(
                    "{} {} for Claude session {claude_id} ({source}){tied}",
                    action.action.as_str(),
                    action.session.session_id
                )))
            }
        },
        "SessionEnd" => {
            let snapshot = ledger.snapshot()?;
            let live = snapshot
                .live_sessions()?
                .into_iter()
                .find(|s| s.provider_session_id.as_deref() == Some(claude_id));
            let Some(session) = live else {
                return Ok(Outcome::Nothing(format!(
                    "no live work session has Claude session {claude_id}"
                )));
            };
            // The last turns' usage first: an ended session takes no more.
            let usage = match input.transcript_path.as_deref() {
                Some(path) => record_usage(ledger, &session, path, &acting)
                    .unwrap_or_else(|err| format!("; usage not recorded: {err}")),
                None => String::new(),
            };
            let reason = input.reason.as_deref().unwrap_or("other");
            engine::run_as(
                ledger,
                &Request::End(EndParams {
                    session_id: Some(session.session_id.to_string()),
                    summary: Some(format!("Claude Code session ended ({reason})")),
                    ..EndParams::default()
                }),
                &acting,
            )?;
            Ok(Outcome::Ended(format!(
                "ended {} for Claude session {claude_id} ({reason}){usage}",
                session.session_id
            )))
        }
        // The end of a turn: the turn's usage goes to the ledger.
        "Stop" => {
            let live = ledger
                .snapshot()?
                .live_sessions()?
                .into_iter()
                .find(|s| s.provider_session_id.as_deref() == Some(claude_id));
            match (live, input.transcript_path.as_deref()) {
                (Some(session), Some(path)) => Ok(Outcome::Nothing(format!(
                    "turn of Claude session {claude_id} ended{}",
                    record_usage(ledger, &session, path, &acting)?
                ))),
                (None, _) => Ok(Outcome::Nothing(format!(
                    "no live work session has Claude session {claude_id}"
                ))),
                (Some(_), None) => Ok(Outcome::Nothing(format!(
                    "turn of Claude session {claude_id} ended; no transcript_path to count"
                ))),
            }
        }
        other => Ok(Outcome::Nothing(format!(
            "{} for Claude session {claude_id}: nothing to record",
            if other.is_empty() {
                "an unnamed hook"
            } else {
                other
            }
        ))),
    }
}

/// Records a transcript's usage for a work session: the totals recorded so far for that
/// transcript plus what its complete lines after that offset hold, counted by the core's
/// Claude Code reader and priced by the shipped table. Only the new bytes are read.
fn record_usage(
    ledger: &Ledger,
    session: &baton_core::ledger::session::Session,
    transcript: &str,
    acting: &Acting,
) -> Result<String, Error> {
    use baton_core::transcripts::usage::claude_code::ClaudeCodeUsage;
    use std::io::{Read, Seek, SeekFrom};
    let recorded = session
        .usage_sources
        .iter()
        .find(|s| s.source == transcript);
    let from = recorded.map_or(0, |r| r.offset);
    let mut file = match std::fs::File::open(transcript) {
        Ok(file) => file,
        // Nothing written yet (or moved away): nothing to count.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(format!("; no transcript at {transcript} to count"));
        }
        Err(e) => return Err(Error::store_io("read the transcript", transcript, e)),
    };
    let size = file
        .metadata()
        .map_err(|e| Error::store_io("read the transcript", transcript, e))?
        .len();
    if size <= from {
        return Ok(String::new());
    }
    file.seek(SeekFrom::Start(from))
        .map_err(|e| Error::store_io("read the transcript", transcript, e))?;
    let mut chunk = Vec::new();
    file.take(size - from)
        .read_to_end(&mut chunk)
        .map_err(|e| Error::store_io("read the transcript", transcript, e))?;
    // Only whole lines: a line still being written is counted next time.
    let Some(last_newline) = chunk.iter().rposition(|&b| b == b'\n') else {
        return Ok(String::new());
    };
    chunk.truncate(last_newline + 1);
    let mut reader = ClaudeCodeUsage::new();
    reader.push_bytes(&chunk);
    let (entries, _) = reader.finish();
    let (delta, cost) = baton_core::transcripts::usage::totals_and_cost(
        &entries,
        &baton_core::transcripts::usage::PriceTable::shipped(),
    );
    let mut totals = recorded.map(|r| r.totals).unwrap_or_default();
    totals.add(&delta);
    let cost = recorded
        .map_or(Some(0), |r| r.cost_micro_usd)
        .map(|before| before.saturating_add(cost));
    let offset = from + chunk.len() as u64;
    engine::run_as(
        ledger,
        &Request::RecordUsage(baton_core::commands::UsageParams {
            session_id: session.session_id.to_string(),
            source: transcript.to_owned(),
            offset,
            totals,
            cost_micro_usd: cost,
        }),
        acting,
    )?;
    Ok(format!(
        "; usage recorded: {} tokens to byte {offset}",
        totals.total()
    ))
}

/// What a `SessionEnd` hook writes as the summary when `/clear` ended the session.
const CLEARED: &str = "Claude Code session ended (clear)";

/// After `/clear`, the work session the new one takes over from: the project's Claude Code
/// session that `/clear` ended in the last minute, when there is exactly one.
fn handed_off_from(ledger: &Ledger, project: &str) -> Result<Option<String>, Error> {
    let now = crate::system::now()?;
    let cleared: Vec<_> = ledger
        .snapshot()?
        .sessions()?
        .into_iter()
        .filter(|s| s.project == project && s.client_name.as_deref() == Some("claude-code"))
        .filter(|s| s.summary.as_deref() == Some(CLEARED))
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
    let now = crate::system::now().unwrap_or_default();
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
