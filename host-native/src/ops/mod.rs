//! The host's operations, one owner each, that every face calls: a core request with the
//! steps around it (`command`, over `engine`), whether agents still run (`agents`), the
//! transcript mirror, usage and what work cost, records, notes, team sync, the analyzer on the
//! command line and the wasm embedding. Warnings go to the sink the faces own; the only
//! drawing here is the progress bar of a long read.

pub mod agents;
pub mod analyze;
pub mod budget;
pub mod command;
pub mod engine;
pub mod limits;
pub mod live;
pub mod mirror;
pub mod notes;
pub mod otel;
pub mod records;
pub mod share;
pub mod sync;
pub mod usage;
pub mod wasm_core;
pub mod work_cost;
