//! What a build without the `wasm-runtime` feature offers in the embedding's place: the same
//! names, each answering that this build cannot run a `.wasm` and how to get one that can.

use super::wasm_err;
use baton_core::Error;

/// Stands where the loaded module would: never made, as loading always answers an error.
#[derive(Debug)]
pub struct WasmCore {
    _never: std::convert::Infallible,
}

fn left_out() -> Error {
    wasm_err(
        "this baton was built without the wasm runtime",
        "reinstall with the default features (`cargo install --path host-native`) to run a .wasm",
    )
}

/// Always the error above: this build cannot read a module.
pub fn imports(_wasm: &[u8]) -> Result<Vec<String>, Error> {
    Err(left_out())
}

impl WasmCore {
    /// Always the error above: this build cannot load a module.
    pub fn load(_wasm: &[u8]) -> Result<WasmCore, Error> {
        Err(left_out())
    }

    /// Unreachable: no value of this type exists.
    pub fn set_fuel_per_call(&mut self, _fuel: u64) {
        match self._never {}
    }

    /// Unreachable: no value of this type exists.
    pub fn call(&mut self, _request: &str) -> Result<String, Error> {
        match self._never {}
    }
}
