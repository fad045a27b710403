//! The wasmtime embedding: runs the core's `.wasm` through its JSON ABI, exactly as an editor
//! extension would, so native and wasm answers can be compared byte for byte.

use baton_core::Error;
use wasmtime::{Engine, Instance, Memory, Module, Store, TypedFunc};

/// A loaded instance of the core's `.wasm`.
pub struct WasmCore {
    store: Store<()>,
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    call: TypedFunc<(u32, u32), u64>,
}

impl std::fmt::Debug for WasmCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmCore").finish_non_exhaustive()
    }
}

fn wasm_err(what: &str, err: impl std::fmt::Display) -> Error {
    Error::invalid("wasm", format!("{what}: {err}"))
}

/// The names (`module.field`) a `.wasm` imports; the core's must import nothing.
pub fn imports(wasm: &[u8]) -> Result<Vec<String>, Error> {
    let engine = Engine::default();
    let module = Module::new(&engine, wasm).map_err(|e| wasm_err("not a wasm module", e))?;
    Ok(module
        .imports()
        .map(|i| format!("{}.{}", i.module(), i.name()))
        .collect())
}

impl WasmCore {
    /// Compiles and instantiates the module with no imports at all.
    pub fn load(wasm: &[u8]) -> Result<WasmCore, Error> {
        let engine = Engine::default();
        let module = Module::new(&engine, wasm).map_err(|e| wasm_err("not a wasm module", e))?;
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[])
            .map_err(|e| wasm_err("instantiating (does it import anything?)", e))?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| wasm_err("exports", "no `memory`"))?;
        let alloc = instance
            .get_typed_func(&mut store, "baton_alloc")
            .map_err(|e| wasm_err("export baton_alloc", e))?;
        let free = instance
            .get_typed_func(&mut store, "baton_free")
            .map_err(|e| wasm_err("export baton_free", e))?;
        let call = instance
            .get_typed_func(&mut store, "baton_call")
            .map_err(|e| wasm_err("export baton_call", e))?;
        Ok(WasmCore {
            store,
            memory,
            alloc,
            free,
            call,
        })
    }

    /// Sends one JSON request through the ABI and returns the JSON answer.
    pub fn call(&mut self, request: &str) -> Result<String, Error> {
        let len = u32::try_from(request.len()).map_err(|e| wasm_err("request size", e))?;
        let ptr = self
            .alloc
            .call(&mut self.store, len)
            .map_err(|e| wasm_err("baton_alloc", e))?;
        self.memory
            .write(&mut self.store, ptr as usize, request.as_bytes())
            .map_err(|e| wasm_err("writing the request", e))?;
        let packed = self
            .call
            .call(&mut self.store, (ptr, len))
            .map_err(|e| wasm_err("baton_call", e))?;
        self.free
            .call(&mut self.store, (ptr, len))
            .map_err(|e| wasm_err("baton_free", e))?;
        let (out_ptr, out_len) = ((packed >> 32) as u32, packed as u32);
        let mut answer = vec![0u8; out_len as usize];
        self.memory
            .read(&self.store, out_ptr as usize, &mut answer)
            .map_err(|e| wasm_err("reading the answer", e))?;
        self.free
            .call(&mut self.store, (out_ptr, out_len))
            .map_err(|e| wasm_err("baton_free", e))?;
        String::from_utf8(answer).map_err(|e| wasm_err("answer", e))
    }
}
