//! The native host of Baton: the filesystem ledger, the CLI, and (in later modules) the MCP
//! server, the transcript mirror and the wasm embedding. All decisions are the core's; this
//! crate does the IO around them.

/// Prints a line of the demo's narration: on stdout, or on stderr under `--json` (where stdout
/// carries only the one JSON object).
macro_rules! narrate {
    ($($arg:tt)*) => {
        $crate::demo::say(&format!($($arg)*))
    };
}

/// A wire enum's name as serde writes it (`in_progress`, `high`, `assistant`).
pub(crate) fn wire_name(value: &impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A size in words: bytes, KB or MB (of 1,024).
pub(crate) fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1u32 << 20)),
        b if b >= 1 << 10 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{b} bytes"),
    }
}

pub mod analyze;
pub mod cli;
pub mod demo;
pub mod engine;
pub mod files;
pub mod hook;
pub mod liveness;
pub mod mcp;
pub mod mirror;
pub mod notes;
pub mod os;
pub mod places;
pub mod records;
pub mod statusline;
pub mod store;
pub mod sync;
pub mod system;
pub mod usage;
pub mod wasm_core;
pub mod watch;
pub mod web;
pub mod work_cost;
pub mod zone;
