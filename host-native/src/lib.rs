//! The native host of Baton. All decisions are the core's; this crate does the IO around them,
//! in layers its folders show, each calling only the layers below it:
//!
//! | layer | folder | owns |
//! |---|---|---|
//! | 0 | [`os`] | the clock and ids, the person and git, zones, files and walks, the per-user folders, terminal text, the warnings sink |
//! | 1 | [`config`] | the ledger's `config.toml`, parsed once per command, one failure policy |
//! | 1 | [`store`] | the ledger's files: appends under a lock, snapshots, checkpoints, compaction, doctor |
//! | 1 | [`index`] | the transcript index's SQLite file: schema, migrations, connections, its lock |
//! | 2 | [`ops`] | one owner per operation: a core request with the steps around it, liveness, the mirror, usage, records, notes, sync |
//! | 3 | [`faces`] | the CLI, MCP server, hooks, status line, `watch`, the page's server and the demo |
//!
//! `host-native/tests` and `tests/suite/architecture.rs` hold the shape: no module names one in
//! a layer above it, no two modules of a folder name each other in a circle, and no source
//! file passes 600 lines.

/// Prints a line of the demo's narration: on stdout, or on stderr under `--json` (where stdout
/// carries only the one JSON object).
macro_rules! narrate {
    ($($arg:tt)*) => {
        $crate::faces::demo::say(&format!($($arg)*))
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

pub mod config;
pub mod faces;
pub mod index;
pub mod ops;
pub mod os;
pub mod store;
