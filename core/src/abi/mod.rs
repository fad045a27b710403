//! The JSON ABI for embedding the core's `.wasm` (editor extensions, wasmtime, any runtime).
//!
//! One entry point, [`handle_json`]: a JSON request in, a JSON answer out, `{"ok":…}` or
//! `{"error":{"code","message","details"}}`. The module imports nothing; the host passes the
//! ledger text, the time and fresh ids. On wasm32 three exports move bytes across:
//! `baton_alloc(len) -> ptr`, `baton_call(ptr, len) -> u64` (the answer's `ptr << 32 | len`)
//! and `baton_free(ptr, len)`. The host frees both the request and the answer buffers.
//! What each op takes and answers is in [`ops`], which `docs/embedding.md` is generated from.

mod analyzers;
pub mod answers;
pub mod ops;
#[cfg(feature = "schema")]
pub mod typescript;

pub use analyzers::MAX_OPEN_ANALYZERS;
pub use ops::{ABI_VERSION, OPS, embedding_markdown};

use crate::commands::{self, Context, Request};
use crate::error::{Error, ErrorCode};
use crate::ids::{EventId, SessionId};
use crate::ledger::event::{Actor, SCHEMA_VERSION};
use crate::ledger::store::MemoryLedger;
use crate::time::Timestamp;
use serde::Deserialize;

/// A request to the core's stateless ops.
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum AbiRequest {
    Version,
    Fold {
        ledger: String,
    },
    Execute {
        #[serde(default)]
        ledger: String,
        request: Box<Request>,
        now: String,
        event_id: String,
        session_id: String,
        #[serde(default)]
        actor: Option<Actor>,
        #[serde(default)]
        policy: Option<crate::lifecycle::workspace::Policy>,
        #[serde(default)]
        person: Option<String>,
        #[serde(default)]
        caller_agent: Option<String>,
        #[serde(default)]
        human: bool,
    },
    Query {
        #[serde(default)]
        ledger: String,
        request: Box<Request>,
        now: String,
        #[serde(default)]
        policy: Option<crate::lifecycle::workspace::Policy>,
        #[serde(default)]
        human: bool,
    },
}

/// One embedding of the core: what lives between calls (the analyzers a host opened, by the
/// names it gave them). Every other op is answered from its request alone.
#[derive(Debug, Default)]
pub struct Embedding {
    analyzers: analyzers::Analyzers,
}

impl Embedding {
    /// An embedding with no analyzer open.
    pub fn new() -> Embedding {
        Embedding::default()
    }

    /// Handles one JSON request; never panics on any input.
    pub fn handle_json(&mut self, input: &str) -> String {
        match self.answer(input) {
            Ok(ok) => format!("{{\"ok\":{}}}", ok.get()),
            Err(err) => err.to_envelope().to_string(),
        }
    }

    fn answer(&mut self, input: &str) -> Result<Answer, Error> {
        let not_valid = |e: serde_json::Error| {
            Error::invalid("request", format!("not a valid ABI request: {e}"))
        };
        // The op first (a scan, nothing kept), then the request read once into its own type.
        #[derive(Deserialize)]
        struct OpOnly {
            op: Option<String>,
        }
        let op = serde_json::from_str::<OpOnly>(input).map_err(not_valid)?.op;
        if op.is_some_and(|op| op.starts_with("analyzer_")) {
            self.analyzers
                .answer(serde_json::from_str(input).map_err(not_valid)?)
        } else {
            dispatch(serde_json::from_str(input).map_err(not_valid)?)
        }
    }
}

thread_local! {
    /// The embedding [`handle_json`] answers with: one per thread natively, one per instance
    /// in wasm (which has one thread). Shared by `Rc` so a call holds its own handle: a call
    /// that never returned (a panic, which aborts in wasm) leaves its handle borrowed, and
    /// the next call starts a fresh embedding instead of failing for ever.
    static EMBEDDING: std::cell::RefCell<std::rc::Rc<std::cell::RefCell<Embedding>>> =
        std::cell::RefCell::new(std::rc::Rc::new(std::cell::RefCell::new(Embedding::new())));
}

/// Handles one JSON request with this thread's [`Embedding`] (in wasm: the instance's), so an
/// analyzer opened by one call is there for the next; never panics on any input.
pub fn handle_json(input: &str) -> String {
    let current = EMBEDDING.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.try_borrow_mut().is_err() {
            // The last call died inside the core: what it held (open analyzers) is gone.
            *slot = std::rc::Rc::new(std::cell::RefCell::new(Embedding::new()));
        }
        std::rc::Rc::clone(&slot)
    });
    let mut embedding = current.borrow_mut();
    embedding.handle_json(input)
}

fn dispatch(request: AbiRequest) -> Result<Answer, Error> {
    match request {
        AbiRequest::Version => to_json(&answers::VersionAnswer {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            abi_version: ABI_VERSION,
            ops: OPS.iter().map(|op| op.name.to_owned()).collect(),
            schema: SCHEMA_VERSION,
            error_codes: ErrorCode::ALL
                .iter()
                .map(|c| c.as_str().to_owned())
                .collect(),
        }),
        AbiRequest::Fold { ledger } => {
            let ledger = MemoryLedger::from_ndjson(ledger.as_bytes());
            to_json(&answers::FoldAnswer {
                sessions: ledger.fold().sessions(),
                stats: ledger.fold().stats.clone(),
            })
        }
        AbiRequest::Execute {
            ledger,
            request,
            now,
            event_id,
            session_id,
            actor,
            policy,
            person,
            caller_agent,
            human,
        } => {
            let mut ledger = MemoryLedger::from_ndjson(ledger.as_bytes());
            let before = ledger.lines().len();
            let mut ctx = Context::new(
                Timestamp::parse(&now)?,
                EventId::parse_v7("event_id", &event_id)?,
                SessionId::parse_v7("session_id", &session_id)?,
            );
            ctx.actor = actor;
            if let Some(policy) = policy {
                ctx.policy = policy;
            }
            if let Some(person) = person {
                ctx.person = person;
            }
            if let Some(agent) = caller_agent {
                ctx.caller = crate::commands::Caller::agent(&agent);
            }
            let response = commands::run(&mut ledger, &request, &ctx)?;
            let human = human.then(|| crate::commands::render::ok_line(&response));
            to_json(&answers::ExecuteAnswer {
                response,
                append: ledger.lines()[before..].to_vec(),
                human,
            })
        }
        AbiRequest::Query {
            ledger,
            request,
            now,
            policy,
            human,
        } => {
            let mut ledger = MemoryLedger::from_ndjson(ledger.as_bytes());
            let before = ledger.lines().len();
            let now = Timestamp::parse(&now)?;
            // No event is written, so no id is asked for: the context's are never used.
            let unused = uuid::Builder::from_unix_timestamp_millis(
                u64::try_from(now.millis()).unwrap_or(0),
                &[0; 10],
            )
            .into_uuid();
            let mut ctx = Context::new(now, EventId(unused), SessionId(unused));
            if let Some(policy) = policy {
                ctx.policy = policy;
            }
            let response = commands::run(&mut ledger, &request, &ctx)?;
            if ledger.lines().len() != before {
                return Err(Error::invalid(
                    "request",
                    "this request writes to the ledger: send it with the `execute` op, which returns the lines to append",
                ));
            }
            let human = human.then(|| crate::commands::render::ok_line(&response));
            to_json(&answers::QueryAnswer { response, human })
        }
    }
}

/// What `ok` holds, encoded once (never through a `Value` tree).
pub(crate) type Answer = Box<serde_json::value::RawValue>;

/// An answer as the JSON text `ok` holds.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<Answer, Error> {
    serde_json::value::to_raw_value(value)
        .map_err(|e| Error::internal(format!("could not encode an answer: {e}")))
}

/// The only `unsafe` code of the core: the three exports a wasm host calls.
#[cfg(target_arch = "wasm32")]
// Exported by symbol name (no_mangle), not by path: `pub` is what a reader expects here.
#[allow(unsafe_code, unreachable_pub)]
mod exports {
    /// Allocates `len` bytes for the host to write a request into.
    #[unsafe(no_mangle)]
    pub extern "C" fn baton_alloc(len: u32) -> u32 {
        let mut buf = Vec::<u8>::with_capacity(len as usize);
        let ptr = buf.as_mut_ptr();
        std::mem::forget(buf);
        ptr as u32
    }

    /// Frees a buffer from `baton_alloc` or an answer from `baton_call`.
    ///
    /// # Safety
    /// `ptr` and `len` must describe a buffer this module handed out and not yet freed.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn baton_free(ptr: u32, len: u32) {
        // SAFETY: the caller passes back a (ptr, capacity) pair this module allocated.
        unsafe { drop(Vec::from_raw_parts(ptr as *mut u8, 0, len as usize)) };
    }

    /// Handles the JSON request in `ptr..ptr+len`; returns the answer as `ptr << 32 | len`.
    ///
    /// # Safety
    /// `ptr..ptr+len` must be initialized memory from `baton_alloc`.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn baton_call(ptr: u32, len: u32) -> u64 {
        // SAFETY: the caller wrote `len` bytes at `ptr`, inside a buffer from `baton_alloc`.
        let input = unsafe { std::slice::from_raw_parts(ptr as *const u8, len as usize) };
        let answer = match std::str::from_utf8(input) {
            Ok(text) => super::handle_json(text),
            Err(_) => crate::Error::invalid("request", "not UTF-8")
                .to_envelope()
                .to_string(),
        };
        let mut bytes = answer.into_bytes().into_boxed_slice();
        let out = bytes.as_mut_ptr() as u64;
        let out_len = bytes.len() as u64;
        std::mem::forget(bytes);
        (out << 32) | out_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn execute_start_then_fold() {
        let start = r#"{"op":"execute","ledger":"","request":{"op":"start","project":"demo","agent":"Claude"},
            "now":"2026-07-18T20:00:00.000Z","event_id":"019c0000-0000-7000-8000-000000000001",
            "session_id":"019c0000-0000-7000-8000-000000000002"}"#;
        let answer: Value = serde_json::from_str(&handle_json(start)).unwrap();
        assert_eq!(answer["ok"]["response"]["action"], "started");
        assert_eq!(answer["ok"]["response"]["agent"], "claude");
        let lines: Vec<&str> = answer["ok"]["append"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert_eq!(lines.len(), 3, "started, briefed, health_computed");
        let fold = json!({"op":"fold","ledger": lines.join("\n")}).to_string();
        let folded: Value = serde_json::from_str(&handle_json(&fold)).unwrap();
        assert_eq!(folded["ok"]["sessions"][0]["status"], "working");
    }

    #[test]
    fn bad_requests_are_coded_errors() {
        for bad in ["", "{", r#"{"op":"nope"}"#, r#"{"op":"execute"}"#] {
            let answer: Value = serde_json::from_str(&handle_json(bad)).unwrap();
            assert_eq!(answer["error"]["code"], "INVALID_ARGUMENT", "{bad}");
        }
    }
}
