//! The wasmtime embedding: runs the core's `.wasm` through its JSON ABI, exactly as an editor
//! extension would, so native and wasm answers can be compared byte for byte. A build without
//! the `wasm-runtime` feature (a smaller, quicker one) answers every use with an error saying
//! how to get it.

use baton_core::Error;

#[cfg(feature = "wasm-runtime")]
mod with_wasmtime;
#[cfg(feature = "wasm-runtime")]
pub use with_wasmtime::*;

#[cfg(not(feature = "wasm-runtime"))]
mod without_wasmtime;
#[cfg(not(feature = "wasm-runtime"))]
pub use without_wasmtime::*;

/// The fuel one call may burn before it is stopped: far more than folding a ledger of a
/// million events takes, so only a runaway loop meets it.
pub const DEFAULT_FUEL_PER_CALL: u64 = 1 << 40;

fn wasm_err(what: &str, err: impl std::fmt::Display) -> Error {
    Error::invalid("wasm", format!("{what}: {err}"))
}
