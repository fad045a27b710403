//! The wire form of liveness: whether a live work session's agent is still running (`live`,
//! `idle`, `gone`, `unknown`), and the evidence an observation rests on. The rules that turn
//! evidence into a state are `lifecycle::verdict`; this module only names the facts.

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// What the evidence says about a live work session's agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Liveness {
    /// Its process runs and it did something recently.
    Live,
    /// Its process runs, but nothing happened for longer than the idle threshold.
    Idle,
    /// Its process is gone: not running, or its pid now belongs to another process.
    Gone,
    /// Nothing says either way (no process was ever tied to it).
    #[default]
    Unknown,
    /// A state a newer Baton wrote (shown as `other`).
    #[serde(other)]
    Other,
}

impl Liveness {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Liveness::Live => "live",
            Liveness::Idle => "idle",
            Liveness::Gone => "gone",
            Liveness::Unknown => "unknown",
            Liveness::Other => "other",
        }
    }

    /// Whether the agent's process was seen running.
    pub fn is_running(self) -> bool {
        matches!(self, Liveness::Live | Liveness::Idle)
    }
}

impl std::fmt::Display for Liveness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One fact a host saw about a session's agent. Process start times are the kernel's
/// (`/proc/<pid>/stat`, field 22, in clock ticks since boot): a pid whose start time differs
/// from the one recorded is another process that reused the number.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum Evidence {
    /// Claude Code's per-process registry (`~/.claude/sessions/<pid>.json`) names the session.
    Registry {
        /// The registry file, as the host found it.
        file: String,
        /// The pid it names.
        pid: u32,
        /// The start time it recorded for that pid (`procStart`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        registered_start: Option<u64>,
        /// The start time of the process running under that pid now; none when none runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        running_start: Option<u64>,
        /// When Claude Code last updated the file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        updated_at: Option<Timestamp>,
    },
    /// The agent's process, as recorded when it started the session (a hook or the MCP
    /// server names its agent's pid).
    Process {
        /// The pid.
        pid: u32,
        /// Its start time when recorded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recorded_start: Option<u64>,
        /// The start time of the process running under that pid now; none when none runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        running_start: Option<u64>,
    },
    /// Codex's per-thread writer lock (`~/.codex/thread-writer-locks/<thread>.lock`).
    WriterLock {
        /// The lock file.
        file: String,
        /// Whether a process holds it.
        held: bool,
    },
    /// Copilot CLI's in-use lock (`<session-state>/<session>/inuse.<pid>.lock`), which a run
    /// makes when it opens the session and removes when it ends cleanly.
    InUseLock {
        /// The lock file.
        file: String,
        /// The pid its name carries.
        pid: u32,
        /// Whether that pid runs Copilot CLI now.
        running: bool,
    },
    /// The agent's transcript and when it was last written.
    Transcript {
        /// The transcript file.
        file: String,
        /// Its modification time.
        modified_at: Timestamp,
    },
    /// A kind of evidence a newer Baton wrote.
    #[serde(other)]
    Other,
}

/// The process a set of evidence ties to a session: the first that shows one running, else the
/// first that names one.
pub fn tied_process(evidence: &[Evidence]) -> Option<(u32, Option<u64>)> {
    evidence
        .iter()
        .filter(|e| e.shows_running())
        .find_map(Evidence::process)
        .or_else(|| evidence.iter().find_map(Evidence::process))
}

impl Evidence {
    /// Whether this evidence shows the agent running: its pid runs with the start time on
    /// record (or none was recorded), or its writer lock is held.
    pub fn shows_running(&self) -> bool {
        match self {
            Evidence::Registry {
                registered_start: recorded,
                running_start: running,
                ..
            }
            | Evidence::Process {
                recorded_start: recorded,
                running_start: running,
                ..
            } => running.is_some() && (recorded.is_none() || recorded == running),
            Evidence::WriterLock { held, .. } => *held,
            Evidence::InUseLock { running, .. } => *running,
            Evidence::Transcript { .. } | Evidence::Other => false,
        }
    }

    /// The process this evidence ties to the session, with the start time that identifies it.
    pub fn process(&self) -> Option<(u32, Option<u64>)> {
        match self {
            Evidence::Registry {
                pid,
                registered_start,
                ..
            } => Some((*pid, *registered_start)),
            Evidence::Process {
                pid,
                recorded_start,
                ..
            } => Some((*pid, *recorded_start)),
            Evidence::InUseLock { pid, .. } => Some((*pid, None)),
            _ => None,
        }
    }
}

/// The latest liveness recorded for a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LivenessSeen {
    /// The state.
    pub state: Liveness,
    /// When it was recorded.
    pub at: Timestamp,
    /// Why, in a sentence.
    pub reason: String,
    /// The evidence behind it.
    pub evidence: Vec<Evidence>,
    /// The agent's process to check next time, with its start time, when one is known (the
    /// latest evidence that named one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<(u32, Option<u64>)>,
}
