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

/// The `analyzer` field every analyzer op takes.
const ANALYZER: AbiField = field(
    "analyzer",
    true,
    "The name the host gave the analyzer at `analyzer_open`.",
);

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
                "caller_agent",
                false,
                "The coding agent making the call (an MCP client, an agent's shell), by name; absent: a person. Unless the policy lets agents steer, an agent may not lift a pause, approve a contract, set the constitution, or pause or end another agent's session.",
            ),
            field(
                "human",
                false,
                "`true` adds `human`, the CLI's `[ok] …` line for the response.",
            ),
        ],
        example: r#"{"op":"execute","ledger":"","now":"2026-07-18T20:00:00.000Z","event_id":"019c0000-0000-7000-8000-000000000001","session_id":"019c0000-0000-7000-8000-000000000002","human":true,"request":{"op":"start","project":"demo","agent":"claude","client_name":"claude-code","goal":"Implement search"}}"#,
    },
    AbiOp {
        name: "analyzer_open",
        summary: "Opens an analyzer under a name the host picks (opening the name again starts it afresh). Transcripts and exports pushed into it stay until `analyzer_close`, so later calls can ask about them; at most 64 are open at once.",
        fields: &[
            field(
                "analyzer",
                true,
                "A name for it, unique among the open ones.",
            ),
            field(
                "include_hidden",
                false,
                "`true` keeps the messages a provider hides from its own reader (ChatGPT's system and memory nodes).",
            ),
        ],
        example: r#"{"op":"analyzer_open","analyzer":"editor"}"#,
    },
    AbiOp {
        name: "analyzer_begin",
        summary: "Starts a file in the analyzer: a Claude Code or Codex session, a ChatGPT or claude.ai export (JSON or its `.zip`), or a `.baton` ledger, told apart by content. A file begun before and not finished is dropped.",
        fields: &[
            ANALYZER,
            field(
                "name",
                true,
                "The file's name, as shown in `analyzer_files` and the usage rows.",
            ),
        ],
        example: r#"{"op":"analyzer_begin","analyzer":"editor","name":"s1.jsonl"}"#,
    },
    AbiOp {
        name: "analyzer_push",
        summary: "Feeds the next chunk of the file begun last, in order. Chunks may split lines and characters anywhere; the page pushes 4 MiB at a time. On an error the file is dropped and nothing of it is kept.",
        fields: &[
            ANALYZER,
            field("text", false, "The chunk as text (a transcript is UTF-8)."),
            field(
                "base64",
                false,
                "The chunk as base64, for bytes that are not text (a `.zip`). Give exactly one of `text` and `base64`.",
            ),
        ],
        example: r#"{"op":"analyzer_push","analyzer":"editor","text":"{\"type\":\"user\",\"sessionId\":\"s1\",\"uuid\":\"u1\",\"timestamp\":\"2026-07-18T20:00:00.000Z\",\"cwd\":\"/work/demo\",\"message\":{\"role\":\"user\",\"content\":\"Add search to the list\"}}\n{\"type\":\"assistant\",\"sessionId\":\"s1\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"timestamp\":\"2026-07-18T20:00:05.000Z\",\"cwd\":\"/work/demo\",\"requestId\":\"r1\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-20250514\",\"content\":[{\"type\":\"text\",\"text\":\"Search is added.\"}],\"usage\":{\"input_tokens\":1200,\"output_tokens\":300,\"cache_read_input_tokens\":5000}}}\n"}"#,
    },
    AbiOp {
        name: "analyzer_finish",
        summary: "Finishes the file begun last (unpacking an archive if it is one) and answers what it added: format, conversations, messages, ledger lines, and the counts of what was read and passed over.",
        fields: &[ANALYZER],
        example: r#"{"op":"analyzer_finish","analyzer":"editor"}"#,
    },
    AbiOp {
        name: "analyzer_files",
        summary: "The files the analyzer holds, in the order they were finished.",
        fields: &[ANALYZER],
        example: r#"{"op":"analyzer_files","analyzer":"editor"}"#,
    },
    AbiOp {
        name: "analyzer_usage",
        summary: "Usage rows from the transcripts pushed in: tokens by kind and cost, each assistant response counted once however often it was logged, grouped by `daily`, `weekly`, `monthly`, `session`, `model` or `project` (days in UTC), with totals. `csv: true` answers the same report as CSV text.",
        fields: &[
            ANALYZER,
            field(
                "group_by",
                true,
                "`daily`, `weekly`, `monthly`, `session`, `model` or `project`.",
            ),
            field(
                "csv",
                false,
                "`true` answers `{\"csv\": …}` instead of rows.",
            ),
        ],
        example: r#"{"op":"analyzer_usage","analyzer":"editor","group_by":"model"}"#,
    },
    AbiOp {
        name: "analyzer_overview",
        summary: "The headline figures of everything loaded: conversations, messages, providers, models, messages per day and the length histogram. `charts_width` adds the charts as SVG text drawn that many pixels wide.",
        fields: &[
            ANALYZER,
            field(
                "charts_width",
                false,
                "Also draw the charts, this wide in pixels (200 to 4000).",
            ),
        ],
        example: r#"{"op":"analyzer_overview","analyzer":"editor"}"#,
    },
    AbiOp {
        name: "analyzer_list",
        summary: "A page of the conversation list, searched, filtered and sorted: `query.search` keeps the conversations where every word appears (title, project or any message, case-insensitive) and gives each row a snippet of where it matched.",
        fields: &[
            ANALYZER,
            field(
                "query",
                false,
                "`{search, provider, model, sort, ascending, offset, limit}`, all optional; `limit` defaults to 100.",
            ),
        ],
        example: r#"{"op":"analyzer_list","analyzer":"editor","query":{"search":"search"}}"#,
    },
    AbiOp {
        name: "analyzer_view",
        summary: "One conversation as a person reads it: the active branch (or the one through the message `through` names), messages in order with their tool calls and results. `markdown: true` answers it as Markdown text.",
        fields: &[
            ANALYZER,
            field("index", true, "The conversation's `index` from the list."),
            field(
                "through",
                false,
                "A message id: show the branch that holds it.",
            ),
            field("markdown", false, "`true` answers `{\"markdown\": …}`."),
        ],
        example: r#"{"op":"analyzer_view","analyzer":"editor","index":0}"#,
    },
    AbiOp {
        name: "analyzer_work",
        summary: "The work sessions of the ledgers pushed in (`.baton/events.ndjson`), in hand-off order with health, liveness and the cost of the transcripts tied to them, and the workspace's missions, decisions and open attention items.",
        fields: &[ANALYZER],
        example: r#"{"op":"analyzer_work","analyzer":"editor"}"#,
    },
    AbiOp {
        name: "analyzer_close",
        summary: "Closes the analyzer and frees all it held.",
        fields: &[ANALYZER],
        example: r#"{"op":"analyzer_close","analyzer":"editor"}"#,
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
    out.push_str("- **From Rust**: `baton_core::abi::Embedding::new().handle_json(&str) -> String`, or `baton_core::abi::handle_json`, which answers with one embedding per thread.\n");
    out.push_str("- **From JavaScript**: the `baton-core` npm package (built from `host-web/` by `host-web/npm/build.sh`), for Node 18+ and for browsers and workers: `request(req)` returns `ok` typed by op (TypeScript declarations generated from the core's types) or throws a `BatonError` with the code; `handleJson(text)` gives the answer's text as is.\n\n");
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
    // The examples run in order on one embedding, so the analyzer ops show one story.
    let mut embedding = super::Embedding::new();
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
            serde_json::from_str(&embedding.handle_json(op.example)).unwrap_or_default();
        out.push_str(&format!(
            "Request:\n\n```json\n{}\n```\n\nAnswer:\n\n```json\n{}\n```\n",
            serde_json::to_string_pretty(&request).unwrap_or_default(),
            serde_json::to_string_pretty(&answer).unwrap_or_default()
        ));
    }
    out
}
