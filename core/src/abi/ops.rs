//! What the JSON ABI offers: each op with what it is for, its fields and a worked example, the
//! version rule, and `docs/embedding.md` generated from them (a test keeps the file in step).

/// The ABI's version. Within one major version requests and answers only grow: a new op, a
/// new optional field, a new field in an answer a host asked for. A request that worked keeps
/// getting the same answer (the golden vectors in `tests/vectors/` hold the proof); anything
/// else is a new major version.
pub const ABI_VERSION: u32 = 1;

/// One field of an op's request.
#[derive(Debug, Clone, Copy)]
pub struct AbiField {
    /// Its name in the request object.
    pub name: &'static str,
    /// Whether a request must have it.
    pub required: bool,
    /// What it holds.
    pub meaning: &'static str,
}

/// One op of the ABI.
#[derive(Debug, Clone, Copy)]
pub struct AbiOp {
    /// The request's `op`.
    pub name: &'static str,
    /// What it is for, in a sentence or two.
    pub summary: &'static str,
    /// Its fields besides `op`.
    pub fields: &'static [AbiField],
    /// A request that shows it (the docs show the answer the core gives to it).
    pub example: &'static str,
}

const fn field(name: &'static str, required: bool, meaning: &'static str) -> AbiField {
    AbiField {
        name,
        required,
        meaning,
    }
}

/// Every op, in the order the docs list them.
pub const OPS: &[AbiOp] = &[
    AbiOp {
        name: "version",
        summary: "What this core is: its crate version, `abi_version`, the ops it answers, the ledger schema version and every error code. Ask it first; a host built for ABI 1 works with any core whose `abi_version` is 1.",
        fields: &[],
        example: r#"{"op":"version"}"#,
    },
    AbiOp {
        name: "fold",
        summary: "Folds a ledger's text (NDJSON, as `events.ndjson` and the archives hold it, concatenated) into every session with its status, health and usage, and the counts of what was read (corrupt and foreign lines included). Read-only; needs no clock.",
        fields: &[field(
            "ledger",
            true,
            "The ledger's lines, `\\n` between them.",
        )],
        example: concat!(
            r#"{"op":"fold","ledger":""#,
            r#"{\"v\":1,\"id\":\"019c0000-0000-7000-8000-000000000001\",\"session\":\"019c0000-0000-7000-8000-000000000002\",\"kind\":\"started\",\"at\":\"2026-07-18T20:00:00.000Z\",\"actor\":{\"kind\":\"agent\",\"name\":\"claude\"},\"data\":{\"project\":\"demo\",\"agent\":\"claude\",\"client_name\":\"claude-code\"}}"#,
            r#""}"#
        ),
    },
    AbiOp {
        name: "query",
        summary: "Answers a request that only reads (`list`, `show`, `timeline`, `attention`, `health`) against a ledger's text, as the CLI and MCP answer it. A request that would write is refused with `INVALID_ARGUMENT`: send it with `execute`.",
        fields: &[
            field("ledger", false, "The ledger's lines (empty: a new ledger)."),
            field(
                "request",
                true,
                "A command request, as the MCP tools take it, with its own `op` (`list`, `show`, `timeline`, `attention`, …).",
            ),
            field(
                "now",
                true,
                "The current time, RFC 3339 (the core has no clock).",
            ),
            field(
                "policy",
                false,
                "The workspace policy (`.baton/config.toml` as JSON); absent: one person, everything allowed.",
            ),
            field(
                "human",
                false,
                "`true` adds `human`: the `[ok] …` line the CLI prints for the answer.",
            ),
        ],
        example: concat!(
            r#"{"op":"query","now":"2026-07-18T21:00:00.000Z","human":true,"request":{"op":"list"},"ledger":""#,
            r#"{\"v\":1,\"id\":\"019c0000-0000-7000-8000-000000000001\",\"session\":\"019c0000-0000-7000-8000-000000000002\",\"kind\":\"started\",\"at\":\"2026-07-18T20:00:00.000Z\",\"actor\":{\"kind\":\"agent\",\"name\":\"claude\"},\"data\":{\"project\":\"demo\",\"agent\":\"claude\",\"client_name\":\"claude-code\"}}"#,
            r#""}"#
        ),
    },
    AbiOp {
        name: "execute",
        summary: "Runs any command request against a ledger's text and answers with the response and the lines to append (the host appends them, whole lines, in order; the core never writes). Time and fresh ids come from the host.",
        fields: &[
            field("ledger", false, "The ledger's lines (empty: a new ledger)."),
            field("request", true, "A command request with its own `op`."),
            field("now", true, "The current time, RFC 3339."),
            field(
                "event_id",
                true,
                "A fresh UUIDv7 for the first event written (the n-th takes this plus n).",
            ),
            field(
                "session_id",
                true,
                "A fresh UUIDv7, used if the request starts a session.",
            ),
            field(
                "actor",
                false,
                "Who the events are recorded as (`{\"kind\":\"agent\",\"name\":…}`); absent: the session's agent.",
            ),
            field("policy", false, "The workspace policy, as for `query`."),
            field(
                "person",
                false,
                "The person on whose behalf it runs (roles come from the policy).",
            ),
            field(
                "human",
                false,
                "`true` adds `human`, the CLI's `[ok] …` line for the response.",
            ),
        ],
        example: r#"{"op":"execute","ledger":"","now":"2026-07-18T20:00:00.000Z","event_id":"019c0000-0000-7000-8000-000000000001","session_id":"019c0000-0000-7000-8000-000000000002","human":true,"request":{"op":"start","project":"demo","agent":"claude","client_name":"claude-code","goal":"Implement search"}}"#,
    },
];

/// `docs/embedding.md`: the ABI as a host author reads it, every op with an example request
/// and the answer this core gives to it.
pub fn embedding_markdown() -> String {
    let mut out = String::new();
    out.push_str("# Embedding the core: the JSON ABI\n\n");
    out.push_str("<!-- Generated from core/src/abi/ops.rs by `BATON_UPDATE_DOCS=1 cargo test -p baton-core --test suite docs`: edit that file, not this one. -->\n\n");
    out.push_str(&format!(
        "ABI version **{ABI_VERSION}**. One entry point takes a JSON request and gives a JSON answer: `{{\"ok\": …}}`, or `{{\"error\": {{\"code\", \"message\", \"details\"}}}}` with a code from [errors.md](errors.md). The core reads no file, clock or random source: the host passes the ledger's text, the time and fresh ids, and appends what `execute` returns.\n\n"
    ));
    out.push_str("- **From wasm** (`baton_core.wasm`, which imports nothing): `baton_alloc(len) -> ptr`, write the request's UTF-8 there, `baton_call(ptr, len) -> u64` (the answer's `ptr << 32 | len`), read it, then `baton_free` both buffers. A trap or running out of fuel inside the module is the host's to turn into an `INTERNAL` error.\n");
    out.push_str("- **From Rust**: `baton_core::abi::handle_json(&str) -> String`.\n");
    out.push_str("- **From JavaScript**: `call(request)` in the `baton-web` bindings.\n\n");
    out.push_str(&format!(
        "**Versions.** `version` answers `abi_version`. Within ABI {ABI_VERSION} requests and answers only grow (a new op, a new optional field, a field a host opts into): a request that worked keeps getting the same answer, which the golden vectors in `tests/vectors/` check on every engine. Anything else would be ABI {}.\n\n",
        ABI_VERSION + 1
    ));
    out.push_str("| op | what it is for |\n| --- | --- |\n");
    for op in OPS {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} |\n",
            op.name,
            op.name,
            op.summary.split(". ").next().unwrap_or(op.summary)
        ));
    }
    for op in OPS {
        out.push_str(&format!("\n## {}\n\n{}\n\n", op.name, op.summary));
        if !op.fields.is_empty() {
            out.push_str("| field | required | meaning |\n| --- | --- | --- |\n");
            for f in op.fields {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    f.name,
                    if f.required { "yes" } else { "no" },
                    f.meaning
                ));
            }
            out.push('\n');
        }
        let request: serde_json::Value =
            serde_json::from_str(op.example).unwrap_or(serde_json::Value::Null);
        let answer: serde_json::Value =
            serde_json::from_str(&super::handle_json(op.example)).unwrap_or_default();
        out.push_str(&format!(
            "Request:\n\n```json\n{}\n```\n\nAnswer:\n\n```json\n{}\n```\n",
            serde_json::to_string_pretty(&request).unwrap_or_default(),
            serde_json::to_string_pretty(&answer).unwrap_or_default()
        ));
    }
    out
}
