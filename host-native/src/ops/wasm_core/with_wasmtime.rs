//! The wasmtime embedding itself (built with the `wasm-runtime` feature, on by default).

use super::{DEFAULT_FUEL_PER_CALL, wasm_err};
use baton_core::Error;
use wasmtime::{Config, Engine, Instance, Memory, Module, Store, TypedFunc};

/// A loaded instance of the core's `.wasm`. A call that traps or runs out of fuel answers
/// `INTERNAL`, and the next call gets a fresh instance of the same module.
pub struct WasmCore {
    module: Module,
    fuel_per_call: u64,
    store: Store<()>,
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    call: TypedFunc<(u32, u32), u64>,
}

/// One instance's store and exports.
type Instantiated = (
    Store<()>,
    Memory,
    TypedFunc<u32, u32>,
    TypedFunc<(u32, u32), ()>,
    TypedFunc<(u32, u32), u64>,
);

fn instantiate(module: &Module) -> Result<Instantiated, Error> {
    let mut store = Store::new(module.engine(), ());
    let instance = Instance::new(&mut store, module, &[])
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
    Ok((store, memory, alloc, free, call))
}

impl std::fmt::Debug for WasmCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WasmCore").finish_non_exhaustive()
    }
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
        let mut config = Config::new();
        config.consume_fuel(true);
        let engine = Engine::new(&config).map_err(|e| wasm_err("engine", e))?;
        let module = Module::new(&engine, wasm).map_err(|e| wasm_err("not a wasm module", e))?;
        let (store, memory, alloc, free, call) = instantiate(&module)?;
        Ok(WasmCore {
            module,
            fuel_per_call: DEFAULT_FUEL_PER_CALL,
            store,
            memory,
            alloc,
            free,
            call,
        })
    }

    /// Sets the fuel each call may burn (tests use a little to see a runaway stopped).
    pub fn set_fuel_per_call(&mut self, fuel: u64) {
        self.fuel_per_call = fuel;
    }

    /// Replaces a trapped instance with a fresh one of the same module.
    fn reset(&mut self) -> Result<(), Error> {
        let (store, memory, alloc, free, call) = instantiate(&self.module)?;
        self.store = store;
        self.memory = memory;
        self.alloc = alloc;
        self.free = free;
        self.call = call;
        Ok(())
    }

    /// Sends one JSON request through the ABI and returns the JSON answer. A trap or running
    /// out of fuel inside the module is an `INTERNAL` error, and the instance is replaced.
    pub fn call(&mut self, request: &str) -> Result<String, Error> {
        self.store
            .set_fuel(self.fuel_per_call)
            .map_err(|e| wasm_err("fuel", e))?;
        match self.call_once(request) {
            Ok(answer) => Ok(answer),
            Err(trapped) => {
                self.reset()?;
                Err(Error::internal(format!(
                    "the core's wasm stopped: {trapped}"
                )))
            }
        }
    }

    fn call_once(&mut self, request: &str) -> Result<String, Error> {
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
