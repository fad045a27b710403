//! Liveness evidence on this machine: Claude Code's per-process registry
//! (`<claude config>/sessions/<pid>.json`), the process table (`/proc/<pid>/stat`), Codex's
//! per-thread writer locks (`<codex home>/thread-writer-locks/<thread>.lock`, held or not as
//! `/proc/locks` says) and the transcripts' last writes. It gathers the facts and asks the core
//! (`Request::Observe`) what they mean; the core records what changed.

use crate::engine;
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::{LivenessAnswer, Observation, ObserveParams, Request, Response};
use baton_core::ledger::liveness::Evidence;
use baton_core::ledger::session::Session;
use baton_core::ledger::store::LedgerView;
use baton_core::time::Timestamp;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// One live entry of Claude Code's process registry.
#[derive(Debug, Clone)]
struct Registered {
    file: PathBuf,
    pid: u32,
    proc_start: Option<u64>,
    updated_at: Option<Timestamp>,
}

/// Claude Code's configuration folders (`CLAUDE_CONFIG_DIR`, else `~/.claude` and
/// `~/.config/claude`).
fn claude_homes() -> Vec<PathBuf> {
    crate::usage::default_claude_dirs()
        .into_iter()
        .filter_map(|projects| projects.parent().map(Path::to_path_buf))
        .collect()
}

/// Codex's home (`CODEX_HOME`, else `~/.codex`).
fn codex_home() -> Option<PathBuf> {
    crate::usage::default_codex_dirs()
        .into_iter()
        .next()
        .and_then(|sessions| sessions.parent().map(Path::to_path_buf))
}

/// A JSON number or numeric string as an integer (`procStart` has been written both ways).
fn integer(value: Option<&serde_json::Value>) -> Option<u64> {
    match value? {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The latest instant a ledger line can carry (9999-12-31T23:59:59.999Z).
const LAST_WRITABLE_MILLIS: i64 = 253_402_300_799_999;

/// A time from another program, when it is one a ledger line can carry (1970 to 9999).
fn writable(at: Timestamp) -> Option<Timestamp> {
    (0..=LAST_WRITABLE_MILLIS)
        .contains(&at.millis())
        .then_some(at)
}

/// A registry time: milliseconds since the epoch, or an ISO 8601 string.
fn instant(value: Option<&serde_json::Value>) -> Option<Timestamp> {
    match value? {
        serde_json::Value::Number(n) => n.as_i64().map(Timestamp::from_millis),
        serde_json::Value::String(s) => Timestamp::parse(s).ok(),
        _ => None,
    }
    .and_then(writable)
}

/// Claude Code's registry, by Claude session id: one `<pid>.json` per running process. The
/// older `pid-<n>.json` generation is left behind by Claude Code itself and ignored. When a
/// crash left another file naming the same session, the one whose process runs (with its
/// recorded start time) wins, else the most recently updated.
fn claude_registry() -> HashMap<String, Registered> {
    let mut found: HashMap<String, Registered> = HashMap::new();
    let runs = |r: &Registered| {
        process_start(r.pid).is_some_and(|now| r.proc_start.is_some_and(|then| then == now))
    };
    for home in claude_homes() {
        let Ok(entries) = std::fs::read_dir(home.join("sessions")) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let path = entry.path();
            // Planted there by anyone: a regular file only (a FIFO would block the read), at
            // most what a registry entry needs.
            let Ok(text) = crate::files::read_regular_text(&path, 64 << 10) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            let (Some(session_id), Some(pid)) = (
                json.get("sessionId").and_then(|v| v.as_str()),
                integer(json.get("pid")).and_then(|p| u32::try_from(p).ok()),
            ) else {
                continue;
            };
            let entry = Registered {
                file: path,
                pid,
                proc_start: integer(json.get("procStart")),
                updated_at: instant(json.get("statusUpdatedAt"))
                    .or_else(|| instant(json.get("updatedAt"))),
            };
            let better = match found.get(session_id) {
                None => true,
                Some(kept) => {
                    let (new_runs, kept_runs) = (runs(&entry), runs(kept));
                    new_runs && !kept_runs
                        || (new_runs == kept_runs && entry.updated_at > kept.updated_at)
                }
            };
            if better {
                found.insert(session_id.to_owned(), entry);
            }
        }
    }
    found
}

/// The process Claude Code's registry names for a Claude session id, with its start time.
pub fn registered_process(claude_session_id: &str) -> Option<(u32, Option<u64>)> {
    claude_registry()
        .get(claude_session_id)
        .map(|entry| (entry.pid, entry.proc_start))
}

/// The Claude session id Claude Code's registry gives the process `pid` (started at `start`,
/// when known): the agent session that process runs.
pub fn registered_session_of(pid: u32, start: Option<u64>) -> Option<String> {
    claude_registry()
        .into_iter()
        .find(|(_, entry)| {
            // Bound by the start time: an entry without one could name any process.
            entry.pid == pid && entry.proc_start.is_some() && entry.proc_start == start
        })
        .map(|(session, _)| session)
}

/// The start time of the process running under `pid` (`/proc/<pid>/stat`, field 22, clock
/// ticks since boot); none when no process has that pid, or when another user runs it (this
/// user's agents are the only ones whose life is evidence here).
pub fn process_start(pid: u32) -> Option<u64> {
    if !ours(pid) {
        return None;
    }
    stat_fields(pid).and_then(|f| f.get(19).and_then(|v| v.parse().ok()))
}

/// Whether the process `pid` runs as the user this one runs as (the owner of its `/proc`
/// folder, compared with this process's own).
fn ours(pid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    static MINE: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let owner = |path: &str| std::fs::metadata(path).ok().map(|m| m.uid());
    match (
        owner(&format!("/proc/{pid}")),
        *MINE.get_or_init(|| owner("/proc/self")),
    ) {
        (Some(theirs), Some(mine)) => theirs == mine,
        _ => false,
    }
}

/// The fields of `/proc/<pid>/stat` after the command name (field 3 onward).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    if pid == 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// The files someone holds a lock on (`/proc/locks`), as (device major, minor, inode).
fn locked_files() -> HashSet<(u64, u64, u64)> {
    let Ok(text) = std::fs::read_to_string("/proc/locks") else {
        return HashSet::new();
    };
    text.lines()
        .filter(|line| !line.contains("->"))
        .filter_map(|line| {
            // `1: FLOCK  ADVISORY  WRITE 4242 08:01:1234 0 EOF` (major and minor in hex); a
            // lock still waited for is `1: -> FLOCK …` and holds nothing.
            let fields: Vec<&str> = line.split_whitespace().collect();
            let file = fields.iter().find(|f| f.matches(':').count() == 2)?;
            let mut parts = file.split(':');
            let major = u64::from_str_radix(parts.next()?, 16).ok()?;
            let minor = u64::from_str_radix(parts.next()?, 16).ok()?;
            let inode = parts.next()?.parse().ok()?;
            Some((major, minor, inode))
        })
        .collect()
}

/// A file's device as /proc/locks writes it (major, minor).
fn device_numbers(dev: u64) -> (u64, u64) {
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0x0000_0fff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0x0000_00ff);
    (major, minor)
}

/// The process that runs this one's agent: the parent, past any shell the agent ran the
/// command through. With the start time that tells it from a later process with its pid.
pub fn agent_process() -> Option<(u32, Option<u64>)> {
    const SHELLS: &[&str] = &[
        "sh", "bash", "dash", "zsh", "fish", "env", "timeout", "nice",
    ];
    let mut pid = std::os::unix::process::parent_id();
    for _ in 0..4 {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
        if !SHELLS.contains(&comm.trim()) {
            return Some((pid, process_start(pid)));
        }
        pid = stat_fields(pid)?.get(1)?.parse().ok()?;
        if pid <= 1 {
            return None;
        }
    }
    None
}

/// A Claude Code transcript's path for a Claude session id, when one is on this machine.
fn claude_transcript(session_id: &str) -> Option<PathBuf> {
    if session_id.contains('/') || session_id.contains("..") {
        return None;
    }
    let file = format!("{session_id}.jsonl");
    for projects in crate::usage::default_claude_dirs() {
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

fn modified(path: &Path) -> Option<Timestamp> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let millis = modified
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_millis();
    writable(Timestamp::from_millis(i64::try_from(millis).ok()?))
}

/// Whether this system shows its processes under `/proc` (without it, a pid cannot be checked,
/// and nothing is concluded from one).
fn process_table() -> bool {
    Path::new("/proc/self/stat").is_file()
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
                && !id.contains('/')
                && !id.contains("..")
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
            if let Some(id) = provider_id
                && session.agent.starts_with("claude")
                && let Some(path) = claude_transcript(id)
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
    let text = std::env::var("BATON_IDLE_AFTER").ok()?;
    baton_core::time::parse_duration_seconds("BATON_IDLE_AFTER", &text).ok()
}

/// Looks at every live session's agent, records what changed, and answers each one's state.
/// The answer is worked out on one view of the ledger; only when something changed does the
/// observation go through the engine (its lock, a fresh view, the append) to be recorded.
pub fn check(ledger: &Ledger) -> Result<LivenessAnswer, Error> {
    match classify_all(ledger)? {
        Some((request, prepared, _)) if prepared.lock.is_some() => {
            match engine::run(ledger, &request, None)? {
                Response::Liveness(answer) => Ok(answer),
                _ => Err(Error::internal("an observation answered something else")),
            }
        }
        Some((_, _, answer)) => Ok(answer),
        None => Ok(nothing_live()),
    }
}

/// What the core makes of every live session's evidence now, recording nothing (what
/// `reap --dry-run` shows).
pub fn assess(ledger: &Ledger) -> Result<LivenessAnswer, Error> {
    Ok(classify_all(ledger)?.map_or_else(nothing_live, |(_, _, answer)| answer))
}

fn nothing_live() -> LivenessAnswer {
    LivenessAnswer {
        sessions: Vec::new(),
        recorded: 0,
    }
}

/// Gathers every live session's evidence and has the core classify it on one view of the
/// ledger, writing nothing: the request, as prepared (its lock is set when it would record a
/// change), and the answer. None without a ledger.
fn classify_all(
    ledger: &Ledger,
) -> Result<Option<(Request, baton_core::commands::Prepared, LivenessAnswer)>, Error> {
    if !ledger.dir().is_dir() {
        return Ok(None);
    }
    let snapshot = ledger.snapshot()?;
    let live = snapshot.live_sessions()?;
    let request = Request::Observe(ObserveParams {
        observed_at: crate::system::now()?,
        observations: gather(&live),
        idle_after_seconds: idle_after_seconds(),
    });
    let prepared = baton_core::commands::prepare(&snapshot, &request)?;
    let ctx = engine::context(&engine::Acting::default(), engine::policy(ledger)?)?;
    match baton_core::commands::execute(&snapshot, &prepared, &ctx)?.response {
        Response::Liveness(answer) => Ok(Some((request, prepared, answer))),
        _ => Err(Error::internal("an observation answered something else")),
    }
}

/// One session's liveness as the evidence says now, recording nothing.
pub fn verdict_now(session: &Session) -> Result<baton_core::lifecycle::liveness::Verdict, Error> {
    let observation = gather(std::slice::from_ref(session));
    let evidence = observation
        .into_iter()
        .next()
        .map(|o| o.evidence)
        .unwrap_or_default();
    Ok(baton_core::lifecycle::liveness::classify(
        session,
        &evidence,
        crate::system::now()?,
        idle_after_seconds().unwrap_or(baton_core::lifecycle::liveness::DEFAULT_IDLE_AFTER_SECONDS),
    ))
}

/// Sends observations to the core and records what it decides.
pub fn observe(ledger: &Ledger, observations: Vec<Observation>) -> Result<LivenessAnswer, Error> {
    if observations.is_empty() {
        return Ok(nothing_live());
    }
    let request = Request::Observe(ObserveParams {
        observed_at: crate::system::now()?,
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
