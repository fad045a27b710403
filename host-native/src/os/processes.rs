//! The processes on this machine, read from `/proc`: a process's start time and owner, the
//! parent chain to the agent that runs this one, the files someone holds a lock on, Copilot
//! CLI's in-use locks, and Claude Code's per-process registry (`<claude config>/sessions/<pid>.json`). Facts only; what they
//! mean for a work session is the core's to say.

use baton_core::time::Timestamp;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// One live entry of Claude Code's process registry.
#[derive(Debug, Clone)]
pub struct Registered {
    pub file: PathBuf,
    pub pid: u32,
    pub proc_start: Option<u64>,
    pub updated_at: Option<Timestamp>,
}

/// Claude Code's configuration folders (`CLAUDE_CONFIG_DIR`, else `~/.claude` and
/// `~/.config/claude`).
pub fn claude_homes() -> Vec<PathBuf> {
    crate::os::places::provider_dirs(baton_core::transcripts::Provider::ClaudeCode)
        .into_iter()
        .filter_map(|projects| projects.parent().map(Path::to_path_buf))
        .collect()
}

/// Codex's home (`CODEX_HOME`, else `~/.codex`).
pub fn codex_home() -> Option<PathBuf> {
    crate::os::places::provider_dirs(baton_core::transcripts::Provider::Codex)
        .into_iter()
        .next()
        .and_then(|sessions| sessions.parent().map(Path::to_path_buf))
}

/// A JSON number or numeric string as an integer (`procStart` has been written both ways).
pub fn integer(value: Option<&serde_json::Value>) -> Option<u64> {
    match value? {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The latest instant a ledger line can carry (9999-12-31T23:59:59.999Z).
const LAST_WRITABLE_MILLIS: i64 = 253_402_300_799_999;

/// A time from another program, when it is one a ledger line can carry (1970 to 9999).
pub fn writable(at: Timestamp) -> Option<Timestamp> {
    (0..=LAST_WRITABLE_MILLIS)
        .contains(&at.millis())
        .then_some(at)
}

/// A registry time: milliseconds since the epoch, or an ISO 8601 string.
pub fn instant(value: Option<&serde_json::Value>) -> Option<Timestamp> {
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
pub fn claude_registry() -> HashMap<String, Registered> {
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
            let Ok(text) = crate::os::files::read_regular_text(&path, 64 << 10) else {
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
pub fn ours(pid: u32) -> bool {
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
pub fn stat_fields(pid: u32) -> Option<Vec<String>> {
    if pid == 0 {
        return None;
    }
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may itself hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(str::to_owned).collect())
}

/// Copilot CLI's in-use locks in a session's folder (`inuse.<pid>.lock`), each with the pid
/// its name carries and whether that pid runs Copilot CLI as this user now (a pid reused by
/// another program does not).
pub fn copilot_in_use(session_folder: &Path) -> Vec<(PathBuf, u32, bool)> {
    let Ok(entries) = std::fs::read_dir(session_folder) else {
        return Vec::new();
    };
    let mut locks: Vec<(PathBuf, u32, bool)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let pid: u32 = name
                .to_str()?
                .strip_prefix("inuse.")?
                .strip_suffix(".lock")?
                .parse()
                .ok()?;
            Some((entry.path(), pid, runs_copilot(pid)))
        })
        .collect();
    locks.sort();
    locks
}

/// Whether `pid` runs as this user with `copilot` in its command line (the CLI's own binary,
/// or Node running its package).
fn runs_copilot(pid: u32) -> bool {
    pid != 0
        && ours(pid)
        && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|line| {
            line.split(|b| *b == 0)
                .take(3)
                .any(|arg| arg.windows(7).any(|w| w.eq_ignore_ascii_case(b"copilot")))
        })
}

/// The files someone holds a lock on (`/proc/locks`), as (device major, minor, inode).
pub fn locked_files() -> HashSet<(u64, u64, u64)> {
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
pub fn device_numbers(dev: u64) -> (u64, u64) {
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

/// Whether this system shows its processes under `/proc` (without it, a pid cannot be checked,
/// and nothing is concluded from one).
pub fn process_table() -> bool {
    Path::new("/proc/self/stat").is_file()
}
