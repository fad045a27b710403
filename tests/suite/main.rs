//! The cross-host tests, one binary (one link of wasmtime, not eight): each module names what
//! it proves (see `tests/README.md`).

mod agents;
mod architecture;
mod branches;
mod budget;
mod ccusage;
mod cli;
mod concurrency;
mod cursor;
mod cursor_cli;
mod environment;
mod faces;
mod hook;
mod hostile;
mod human;
mod lifecycle_cli;
mod liveness;
mod mcp_raw;
mod mirror;
mod mirror_exports;
mod notes;
mod opencode;
mod output;
mod pricing;
mod real_day;
mod records;
mod sqlite;
mod statusline;
mod store;
mod sync;
mod typescript;
mod usage;
mod wasm;
mod watch;
mod windows;
mod work_cost;
