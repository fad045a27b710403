//! Liveness evidence on this machine: Claude Code's per-process registry
//! (`<claude config>/sessions/<pid>.json`), the process table (`/proc/<pid>/stat`), Codex's
//! per-thread writer locks (`<codex home>/thread-writer-locks/<thread>.lock`, held or not as
//! `/proc/locks` says), Copilot CLI's in-use locks (`<session>/inuse.<pid>.lock`, whose pid
//! runs Copilot CLI or not) and the transcripts' last writes (Claude Code's by its session id, any
//! other agent's where a hook recorded usage from it). It gathers the facts and asks the core
//! (`Request::Observe`) what they mean; the core records what changed.

use crate::ops::engine;
use crate::os::processes::{
    claude_registry, codex_home, copilot_in_use, device_numbers, locked_files, process_start,
    process_table, writable,
};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::{LivenessAnswer, Observation, ObserveParams, Request, Response};
use baton_core::ledger::liveness::Evidence;
use baton_core::ledger::session::Session;
use baton_core::ledger::store::LedgerView;
use baton_core::time::Timestamp;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A Claude Code transcript's path for a Claude session id, when one is on this machine.
fn claude_transcript(session_id: &str) -> Option<PathBuf> {
    if !safe_name(session_id) {
        return None;
    }
    let file = format!("{session_id}.jsonl");
    for projects in crate::os::places::provider_dirs(baton_core::transcripts::Provider::ClaudeCode)
    {
        let Ok(entries) = std::fs::read_dir(&projects) else {
            continue;
        };
        for entry in entries.flatten() {
            let candidate = entry.path().join(&file);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Whether an agent's session id can name a file in its folder (no separator, no `..`).
fn safe_name(id: &str) -> bool {
    !id.is_empty() && !id.contains(['/', '\\']) && !id.contains("..")
}

fn modified(path: &Path) -> Option<Timestamp> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let millis = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis();
    writable(Timestamp::from_millis(i64::try_from(millis).ok()?))
}

/// What this machine shows about each live session's agent.
pub fn gather(sessions: &[Session]) -> Vec<Observation> {
    if !process_table() {
        return sessions
            .iter()
            .map(|s| Observation {
                session_id: s.session_id.to_string(),
                evidence: Vec::new(),
                as_of: Some(s.liveness.as_ref().map(|l| l.at)),
            })
            .collect();
    }
    let needs_registry = sessions.iter().any(|s| s.provider_session_id.is_some());
    let registry = if needs_registry {
        claude_registry()
    } else {
        HashMap::new()
    };
    let locks_folder = codex_home().map(|h| h.join("thread-writer-locks"));
    let copilot_folders =
        crate::os::places::provider_dirs(baton_core::transcripts::Provider::CopilotCli);
    let mut held: Option<HashSet<(u64, u64, u64)>> = None;
    sessions
        .iter()
        .map(|session| {
            let mut evidence = Vec::new();
            let provider_id = session.provider_session_id.as_deref();
            let registered = provider_id.and_then(|id| registry.get(id));
            if let Some(entry) = registered {
                evidence.push(Evidence::Registry {
                    file: entry.file.display().to_string(),
                    pid: entry.pid,
                    registered_start: entry.proc_start,
                    running_start: process_start(entry.pid),
                    updated_at: entry.updated_at,
                });
            }
            // The process recorded for it, unless the registry just named that same process.
            if let Some((pid, start)) = session.liveness.as_ref().and_then(|l| l.process)
                && registered.is_none_or(|r| r.pid != pid)
            {
                evidence.push(Evidence::Process {
                    pid,
                    recorded_start: start,
                    running_start: process_start(pid),
                });
            }
            if let (Some(id), Some(folder)) = (provider_id, &locks_folder)
                && safe_name(id)
            {
                let file = folder.join(format!("{id}.lock"));
                if let Ok(meta) = std::fs::metadata(&file) {
                    use std::os::unix::fs::MetadataExt;
                    let held = held.get_or_insert_with(locked_files);
                    let (major, minor) = device_numbers(meta.dev());
                    evidence.push(Evidence::WriterLock {
                        file: file.display().to_string(),
                        held: held.contains(&(major, minor, meta.ino())),
                    });
                }
            }
            // Copilot CLI's in-use locks in its session's folder, and its events.
            let mut copilot_events = None;
            if let Some(id) = provider_id.filter(|id| safe_name(id))
                && matches!(
                    session.agent.as_str(),
                    "copilot" | "copilot-cli" | "copilot_cli"
                )
            {
                for folder in &copilot_folders {
                    let folder = folder.join(id);
                    for (file, pid, running) in copilot_in_use(&folder) {
                        evidence.push(Evidence::InUseLock {
                            file: file.display().to_string(),
                            pid,
                            running,
                        });
                    }
                    let events = folder.join("events.jsonl");
                    if copilot_events.is_none() && events.is_file() {
                        copilot_events = Some(events);
                    }
                }
            }
            // The agent's transcript: Claude Code's or Copilot CLI's by its session id, else
            // the one a hook recorded usage from (Gemini CLI's, Codex's rollout).
            let transcript = provider_id
                .filter(|_| session.agent.starts_with("claude"))
                .and_then(claude_transcript)
                .or(copilot_events)
                .or_else(|| {
                    session
                        .usage_sources
                        .last()
                        .map(|s| PathBuf::from(&s.source))
                        .filter(|p| p.is_absolute())
                });
            if let Some(path) = transcript
                && let Some(at) = modified(&path)
            {
                evidence.push(Evidence::Transcript {
                    file: path.display().to_string(),
                    modified_at: at,
                });
            }
            Observation {
                session_id: session.session_id.to_string(),
                evidence,
                as_of: Some(session.liveness.as_ref().map(|l| l.at)),
            }
        })
        .collect()
}

/// The idle threshold: `BATON_IDLE_AFTER` (`90s`, `20m`, `2h`), else the core's default.
pub fn idle_after_seconds() -> Option<u64> {
    let text = crate::os::env::var("BATON_IDLE_AFTER").ok()?;
    baton_core::time::parse_duration_seconds("BATON_IDLE_AFTER", &text).ok()
}

/// Looks at every live session's agent, records what changed, and answers each one's state.
/// The answer is worked out on one view of the ledger; only when something changed does the
/// observation go through the engine (its lock, a fresh view, the append) to be recorded.
pub fn check(ledger: &Ledger) -> Result<LivenessAnswer, Error> {
    match classify_all(ledger)? {
        Some((request, prepared, _, _)) if prepared.lock.is_some() => {
            match engine::run(ledger, &request, None)? {
                Response::Liveness(answer) => Ok(answer),
                _ => Err(Error::internal("an observation answered something else")),
            }
        }
        Some((_, _, answer, _)) => Ok(answer),
        None => Ok(nothing_live()),
    }
}

/// [`check`] for a command that reads sessions next, without the answer: records what
/// changed, else gives back the view it read (still the ledger as it is), so the command can
/// answer from it rather than read every live session again.
pub fn check_keeping_view(ledger: &Ledger) -> Result<Option<crate::store::Snapshot>, Error> {
    let Some((request, prepared, snapshot)) = prepare_all(ledger)? else {
        return Ok(None);
    };
    if prepared.lock.is_some() {
        engine::run(ledger, &request, None)?;
        return Ok(None);
    }
    // Nothing to record: the answer is not needed, only the view.
    Ok(Some(snapshot))
}

/// What the core makes of every live session's evidence now, recording nothing (what
/// `reap --dry-run` shows).
pub fn assess(ledger: &Ledger) -> Result<LivenessAnswer, Error> {
    Ok(classify_all(ledger)?.map_or_else(nothing_live, |(_, _, answer, _)| answer))
}

/// What [`classify_all`] works out: the observation, as prepared, its answer, the view read.
type Classified = (
    Request,
    baton_core::commands::Prepared,
    LivenessAnswer,
    crate::store::Snapshot,
);

fn nothing_live() -> LivenessAnswer {
    LivenessAnswer {
        sessions: Vec::new(),
        recorded: 0,
    }
}

/// Gathers every live session's evidence and has the core classify it on one view of the
/// ledger, writing nothing: the request, as prepared (its lock is set when it would record a
/// change), the answer and the view. None without a ledger.
fn classify_all(ledger: &Ledger) -> Result<Option<Classified>, Error> {
    let Some((request, prepared, snapshot)) = prepare_all(ledger)? else {
        return Ok(None);
    };
    let ctx = engine::context(&engine::Acting::default(), engine::policy(ledger)?)?;
    match baton_core::commands::execute(&snapshot, &prepared, &ctx)?.response {
        Response::Liveness(answer) => Ok(Some((request, prepared, answer, snapshot))),
        _ => Err(Error::internal("an observation answered something else")),
    }
}

/// Every live session's evidence, as an observation the core has prepared on one view of the
/// ledger (its lock set when it would record a change), with that view. None without a ledger.
fn prepare_all(
    ledger: &Ledger,
) -> Result<
    Option<(
        Request,
        baton_core::commands::Prepared,
        crate::store::Snapshot,
    )>,
    Error,
> {
    if !ledger.dir().is_dir() {
        return Ok(None);
    }
    let snapshot = ledger.snapshot()?;
    let live = snapshot.live_sessions()?;
    let request = Request::Observe(ObserveParams {
        observed_at: crate::os::system::now()?,
        observations: gather(&live),
        idle_after_seconds: idle_after_seconds(),
    });
    let prepared = baton_core::commands::prepare(&snapshot, &request)?;
    Ok(Some((request, prepared, snapshot)))
}

/// One session's liveness as the evidence says now, recording nothing.
pub fn verdict_now(session: &Session) -> Result<baton_core::lifecycle::verdict::Verdict, Error> {
    let observation = gather(std::slice::from_ref(session));
    let evidence = observation
        .into_iter()
        .next()
        .map(|o| o.evidence)
        .unwrap_or_default();
    Ok(baton_core::lifecycle::verdict::classify(
        session,
        &evidence,
        crate::os::system::now()?,
        idle_after_seconds().unwrap_or(baton_core::lifecycle::verdict::DEFAULT_IDLE_AFTER_SECONDS),
    ))
}

/// Sends observations to the core and records what it decides.
pub fn observe(ledger: &Ledger, observations: Vec<Observation>) -> Result<LivenessAnswer, Error> {
    if observations.is_empty() {
        return Ok(nothing_live());
    }
    let request = Request::Observe(ObserveParams {
        observed_at: crate::os::system::now()?,
        observations,
        idle_after_seconds: idle_after_seconds(),
    });
    match engine::run(ledger, &request, None)? {
        Response::Liveness(answer) => Ok(answer),
        _ => Err(Error::internal("an observation answered something else")),
    }
}

/// Ties a process to a session (the agent that ran a hook, or the MCP server's client), so a
/// later check can tell when it is gone.
pub fn tie_process(
    ledger: &Ledger,
    session_id: &str,
    process: (u32, Option<u64>),
) -> Result<(), Error> {
    // Without a process table a pid cannot be checked later: nothing to tie.
    if !process_table() {
        return Ok(());
    }
    observe(
        ledger,
        vec![Observation {
            session_id: session_id.to_owned(),
            evidence: vec![Evidence::Process {
                pid: process.0,
                recorded_start: process.1,
                running_start: process_start(process.0),
            }],
            as_of: None,
        }],
    )
    .map(|_| ())
}
