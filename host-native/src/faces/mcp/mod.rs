//! `baton mcp`: the Model Context Protocol server over stdio (rmcp). Each tool is a thin layer
//! over the same core requests the CLI uses; stdout carries only the protocol, logs go to
//! stderr.
//!
//! Every call is an agent's: the caller is the client (`clientInfo.name`, from `initialize` or
//! the request's `_meta`), whatever the environment says. It names the client and, when a
//! start names no agent, the agent (so an implicit end from Claude Code only ever considers
//! Claude Code's sessions), and it is the actor the ledger records. What only a person may do
//! (see `baton_core::commands::trust`) is refused with `ACTOR_NOT_ALLOWED`, and the tools
//! that are nothing else are left out of `tools/list`, unless the workspace's operator set
//! `agents_may_steer`.
//!
//! Arguments are read by Baton, not by rmcp: a missing parameter, an unknown one or a wrong
//! type is an `INVALID_ARGUMENT` tool error naming the parameter and what it takes, in words.

mod arguments;
pub mod frames;

use arguments::*;

use crate::ops::engine::{self, Acting};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::Caller;
use baton_core::commands::render;
use baton_core::commands::{
    ConstitutionParams, DependParams, HealthParams, IndexParams, MissionParams, NoteParams,
    PauseParams, ReportParams, SessionRef,
};
use baton_core::commands::{EndParams, ListParams, Request, Response, ShowParams, StartParams};
use rmcp::handler::server::common::{AsRequestContext, FromContextPart, schema_for_input};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
/// Serializes operations on one session id within this process; other ids run concurrently.
#[derive(Debug, Default)]
struct SessionGate {
    gates: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl SessionGate {
    fn gate(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut gates = self.gates.lock().unwrap_or_else(|p| p.into_inner());
        gates.retain(|_, g| Arc::strong_count(g) > 1);
        gates
            .entry(id.trim().to_ascii_lowercase())
            .or_default()
            .clone()
    }
}

/// The MCP tools nothing but a person's operation stands behind: left out of `tools/list`
/// unless the operator lets agents steer. (A test checks the core reserves each one.)
pub const PERSON_TOOLS: [&str; 3] = [
    "unpause_work_session",
    "approve_mission",
    "set_constitution",
];

/// The MCP server.
#[derive(Debug, Clone)]
pub struct BatonMcp {
    ledger: Ledger,
    /// The transcript index, when not the one `BATON_INDEX` or the user's data folder names.
    index: Option<std::path::PathBuf>,
    gate: Arc<SessionGate>,
    tool_router: ToolRouter<BatonMcp>,
}

/// The calling client, as named by the request's `_meta` (newer protocol) or `initialize`.
#[derive(Debug, Clone)]
struct Client(Option<String>);

impl Client {
    /// The client's name, when it gave one.
    fn name(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The agent calling: the client, or `mcp-client` when it named none.
    fn caller(&self) -> Caller {
        Caller::agent(self.name().unwrap_or("mcp-client"))
    }
}

impl<C: AsRequestContext> FromContextPart<C> for Client {
    fn from_context_part(context: &mut C) -> Result<Self, ErrorData> {
        let request = context.as_request_context();
        let name = request
            .meta
            .client_info()
            .map(|info| info.name)
            .or_else(|| {
                request
                    .peer
                    .peer_info()
                    .map(|info| info.client_info.name.clone())
            })
            .map(|name| name.trim().to_owned())
            .filter(|name| !name.is_empty());
        Ok(Client(name))
    }
}

/// A tool's answer to arguments it could not read.
fn refused(err: Error) -> Result<CallToolResult, ErrorData> {
    Ok(answer(Err(err)))
}

fn answer(result: Result<Response, Error>) -> CallToolResult {
    match result {
        Ok(response) => {
            let json = serde_json::to_value(&response).unwrap_or_default();
            let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
                "{}\n{json}",
                render::ok_line(&response)
            ))]);
            result.structured_content = Some(json);
            result
        }
        Err(err) => {
            let envelope = err.to_envelope();
            let mut result = CallToolResult::error(vec![ContentBlock::text(format!(
                "{}\n{envelope}",
                render::error_line(&err)
            ))]);
            result.structured_content = Some(envelope);
            result
        }
    }
}

/// The tools' shared tail: read the arguments, build the request, run it as the calling agent.
macro_rules! tool_body {
    ($self:ident, $params:ident, $client:ident, |$p:ident| $request:expr, $session:expr) => {{
        let $p = match $params.0 {
            Ok(p) => p,
            Err(err) => return refused(err),
        };
        let session: Option<String> = $session(&$p);
        let request = $request;
        Ok($self
            .run(
                request,
                session,
                $client.caller(),
                $client.name().map(str::to_owned),
            )
            .await)
    }};
}

mod index;
pub use index::INDEX_TOOLS;
mod sessions;

fn no_session<P>(_: &P) -> Option<String> {
    None
}

impl BatonMcp {
    /// A server over the ledger at `ledger`.
    pub fn new(ledger: Ledger) -> BatonMcp {
        BatonMcp {
            ledger,
            index: None,
            gate: Arc::default(),
            tool_router: Self::session_tools()
                + Self::attention_tools()
                + Self::store_tools()
                + Self::record_tools()
                + Self::transcript_tools(),
        }
    }

    async fn run(
        &self,
        request: Request,
        session: Option<String>,
        caller: Caller,
        client: Option<String>,
    ) -> CallToolResult {
        let gate = session.map(|id| self.gate.gate(&id));
        let _held = match &gate {
            Some(gate) => Some(gate.lock().await),
            None => None,
        };
        let ledger = self.ledger.clone();
        let index = self.index_path();
        let acting = Acting {
            caller,
            ..Acting::default()
        };
        let outcome = tokio::task::spawn_blocking(move || {
            let answered =
                crate::ops::command::run(&ledger, &index, request, &acting, client.as_deref());
            // The checkpoint is brought up to date after the answer has gone back.
            if let Some(snapshot) = answered.snapshot {
                tokio::task::spawn_blocking(move || engine::refresh(&ledger, &snapshot));
            }
            let cost: serde_json::Map<String, serde_json::Value> = answered
                .extras
                .into_fields()
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect();
            (answered.result, (!cost.is_empty()).then_some(cost))
        })
        .await
        .unwrap_or_else(|e| {
            (
                Err(Error::internal(format!("the tool task failed: {e}"))),
                None,
            )
        });
        let (outcome, cost) = outcome;
        let mut result = answer(outcome);
        if let (Some(cost), Some(Value::Object(json))) = (cost, &mut result.structured_content) {
            json.extend(cost);
            let text = format!(
                "{}\n{}",
                result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.lines().next().unwrap_or_default().to_owned())
                    .unwrap_or_default(),
                Value::Object(json.clone())
            );
            result.content = vec![ContentBlock::text(text)];
        }
        result
    }
}

impl BatonMcp {
    /// The tools offered: all of them where the operator lets agents steer, else all but
    /// [`PERSON_TOOLS`]; the transcript tools once there is an index; their schemas compacted.
    fn offered_tools(&self) -> Vec<rmcp::model::Tool> {
        let steer = engine::policy(&self.ledger).is_ok_and(|p| p.agents_may_steer);
        let indexed = self.index_path().exists();
        self.tool_router
            .list_all()
            .into_iter()
            .filter(|tool| steer || !PERSON_TOOLS.contains(&tool.name.as_ref()))
            .filter(|tool| indexed || !INDEX_TOOLS.contains(&tool.name.as_ref()))
            .map(|mut tool| {
                tool.input_schema = Arc::new(compact_schema(&tool.input_schema));
                tool
            })
            .collect()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for BatonMcp {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.offered_tools()))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("baton", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Baton records this agent's work sessions. Call start_work_session when you begin a task and keep the returned session_id; pass it to end_work_session when you finish. If you restart, resume with start_work_session(session_id=…). Never end a session that is not yours: without an id, Baton refuses to guess.",
            )
    }
}

/// The tools' live schemas as Markdown (the source of `docs/mcp-tools.md`).
pub fn tools_markdown() -> String {
    let server = BatonMcp::new(Ledger::new("/nonexistent", false));
    let mut tools = server.tool_router.list_all();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let mut text = String::from(
        "# MCP tools\n\nGenerated from the live tool schemas by `baton mcp --print-tools-markdown` \
         (a test fails when this file is out of date). Every answer's text is the human line and \
         then the JSON object, as the CLI prints them; the JSON is also the structured content. \
         A coded error is a result with `isError: true` and the `[error] CODE: …` line and \
         `{\"error\":{…}}` object.\n",
    );
    for tool in tools {
        text.push_str(&format!(
            "\n## `{}`\n\n{}\n\n| parameter | type | required | description |\n| --- | --- | --- | --- |\n",
            tool.name,
            tool.description.as_deref().unwrap_or("")
        ));
        let schema = Value::Object(compact_schema(&tool.input_schema));
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default();
        if let Some(props) = schema["properties"].as_object() {
            for (name, prop) in props {
                let kind = match &prop["type"] {
                    serde_json::Value::Array(kinds) => kinds
                        .iter()
                        .filter_map(|k| k.as_str())
                        .filter(|k| *k != "null")
                        .collect::<Vec<_>>()
                        .join(" | "),
                    serde_json::Value::String(kind) => kind.clone(),
                    _ => "any".to_owned(),
                };
                let description = prop["description"]
                    .as_str()
                    .unwrap_or("")
                    .replace('\n', " ");
                text.push_str(&format!(
                    "| `{name}` | {kind} | {} | {description} |\n",
                    if required.contains(&name.as_str()) {
                        "yes"
                    } else {
                        "no"
                    }
                ));
            }
        }
    }
    text
}

/// Serves MCP on stdin/stdout until the client disconnects.
pub fn serve_stdio(ledger: Ledger) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal(format!("starting the async runtime: {e}")))?;
    runtime.block_on(async move {
        eprintln!(
            "baton mcp: serving ledger {} on stdio",
            ledger.dir().display()
        );
        let (read, write, written) = frames::bounded(
            tokio::io::stdin(),
            tokio::io::stdout(),
            frames::MAX_REQUEST_BYTES,
        );
        // The framing bounds each request; the transport need not.
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new(read, write)
            .with_max_line_length(usize::MAX);
        // The server keeps the ledger's fold between calls, each call reading only what was
        // appended since; it is folded while the client is still starting up.
        let ledger = ledger.keeping();
        let warm = ledger.clone();
        tokio::task::spawn_blocking(move || warm.snapshot().map(drop));
        let service = BatonMcp::new(ledger)
            .serve(transport)
            .await
            .map_err(|e| Error::internal(format!("MCP initialization failed: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::internal(format!("MCP server stopped: {e}")))?;
        // What the server wrote last goes out before the process ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), written).await;
        Ok(())
    })
}
