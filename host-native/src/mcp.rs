//! `baton mcp`: the Model Context Protocol server over stdio (rmcp). Each tool is a thin layer
//! over the same core requests the CLI uses; stdout carries only the protocol, logs go to
//! stderr.
//!
//! Identity comes from the connection: when a caller names no client, the client's own name
//! (`clientInfo.name`, from `initialize` or the request's `_meta`) is used, and when it names
//! no agent at start, a normalized form of that name. So an implicit end from Claude Code
//! only ever considers Claude Code's sessions.

use crate::engine;
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::render;
use baton_core::commands::{
    ConstitutionParams, DependParams, HealthParams, IndexParams, MissionParams, NoteParams,
    PauseParams, ReportParams, SessionRef,
};
use baton_core::commands::{EndParams, ListParams, Request, Response, ShowParams, StartParams};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, RequestMetaObject, ServerCapabilities,
    ServerConfig,
};
use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
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

/// The MCP server.
#[derive(Debug, Clone)]
pub struct BatonMcp {
    ledger: Ledger,
    gate: Arc<SessionGate>,
    tool_router: ToolRouter<BatonMcp>,
}

/// The calling client's name: from the request's `_meta` (newer protocol) or `initialize`.
fn client_name(peer: &Peer<RoleServer>, meta: &RequestMetaObject) -> Option<String> {
    meta.client_info()
        .map(|info| info.name)
        .or_else(|| peer.peer_info().map(|info| info.client_info.name.clone()))
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
}

/// A tool answer: the human line, then the JSON, as text; the JSON also as structured content.
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

#[tool_router]
impl BatonMcp {
    /// A server over the ledger at `ledger`.
    pub fn new(ledger: Ledger) -> BatonMcp {
        BatonMcp {
            ledger,
            gate: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    async fn run(&self, request: Request, session: Option<String>) -> CallToolResult {
        let gate = session.map(|id| self.gate.gate(&id));
        let _held = match &gate {
            Some(gate) => Some(gate.lock().await),
            None => None,
        };
        let ledger = self.ledger.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            let (result, snapshot) = engine::run_deferred(&ledger, &request, None, None);
            // The checkpoint is brought up to date after the answer has gone back.
            if let Some(snapshot) = snapshot {
                tokio::task::spawn_blocking(move || engine::refresh(&ledger, &snapshot));
            }
            result
        })
        .await
        .unwrap_or_else(|e| Err(Error::internal(format!("the tool task failed: {e}"))));
        answer(outcome)
    }

    #[tool(
        description = "Start a work session for this agent on a project, or resume one after a crash by passing its session_id. Returns the session_id to keep for later calls. The client name defaults to this MCP client's name, and the agent to a normalized form of it."
    )]
    async fn start_work_session(
        &self,
        Parameters(params): Parameters<StartParams>,
        peer: Peer<RoleServer>,
        meta: RequestMetaObject,
    ) -> Result<CallToolResult, ErrorData> {
        let session = params.session_id.clone();
        let mut request = Request::Start(params);
        engine::fill_defaults(&mut request, client_name(&peer, &meta).as_deref());
        Ok(self.run(request, session).await)
    }

    #[tool(
        description = "End a work session. Prefer passing session_id. Without it, Baton ends the one live session matching project, agent and this client; if none or several match it answers NO_ACTIVE_SESSION or AMBIGUOUS_SESSION (with the candidates) and ends nothing."
    )]
    async fn end_work_session(
        &self,
        Parameters(params): Parameters<EndParams>,
        peer: Peer<RoleServer>,
        meta: RequestMetaObject,
    ) -> Result<CallToolResult, ErrorData> {
        let session = params.session_id.clone();
        let mut request = Request::End(params);
        engine::fill_defaults(&mut request, client_name(&peer, &meta).as_deref());
        Ok(self.run(request, session).await)
    }

    #[tool(
        description = "List work sessions: live ones by default, filtered by project, agent and status; include_ended adds ended sessions."
    )]
    async fn list_work_sessions(
        &self,
        Parameters(params): Parameters<ListParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::List(params), None).await)
    }

    #[tool(
        description = "Ask for context: the mission's contract, the constitution version, the indexed commit, open ambiguities, active decisions and the state of your dependencies. If a person paused the session, the answer says so with the reason and next_action is `blocked`: stop and wait."
    )]
    async fn brief_work_session(
        &self,
        Parameters(params): Parameters<SessionRef>,
    ) -> Result<CallToolResult, ErrorData> {
        let session = Some(params.session_id.clone());
        Ok(self.run(Request::Brief(params), session).await)
    }

    #[tool(
        description = "Report what the session did: changed_files (may open collisions with sessions that depend on them), status blocked or implementation_complete, progress, a plan and step states, decision requests, AI runs (counts only: never send prompt or output text), evidence, a pull request."
    )]
    async fn report_work_session(
        &self,
        Parameters(params): Parameters<ReportParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let session = Some(params.session_id.clone());
        Ok(self.run(Request::Report(params), session).await)
    }

    #[tool(
        description = "Declare files this session's work depends on; another session changing one opens a high-severity collision."
    )]
    async fn declare_dependencies(
        &self,
        Parameters(params): Parameters<DependParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let session = Some(params.session_id.clone());
        Ok(self.run(Request::Depend(params), session).await)
    }

    #[tool(
        description = "Pause a session (a person's brake): the agent is told, with the reason, the next time it asks for context."
    )]
    async fn pause_work_session(
        &self,
        Parameters(params): Parameters<PauseParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let session = Some(params.session_id.clone());
        Ok(self.run(Request::Pause(params), session).await)
    }

    #[tool(
        description = "Lift a pause; the session's context is not current until it is briefed again."
    )]
    async fn unpause_work_session(
        &self,
        Parameters(params): Parameters<SessionRef>,
    ) -> Result<CallToolResult, ErrorData> {
        let session = Some(params.session_id.clone());
        Ok(self.run(Request::Unpause(params), session).await)
    }

    #[tool(
        description = "Context health: six dimensions (mission understanding, architecture context, repository state, requirement confidence, dependencies current, decisions current), the overall minimum, the verdict and whether to re-brief."
    )]
    async fn get_context_health(
        &self,
        Parameters(params): Parameters<HealthParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Health(params), None).await)
    }

    #[tool(description = "Every event of a session in order, with summary, actor, time and tone.")]
    async fn get_timeline(
        &self,
        Parameters(params): Parameters<SessionRef>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Timeline(params), None).await)
    }

    #[tool(description = "Open attention items, most urgent first.")]
    async fn list_attention(&self) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Attention, None).await)
    }

    #[tool(
        description = "Add a mission's contract (a new version, a draft until a lead approves it)."
    )]
    async fn add_mission(
        &self,
        Parameters(params): Parameters<MissionParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::MissionAdd(params), None).await)
    }

    #[tool(description = "Approve a mission's newest contract version (owner or admin).")]
    async fn approve_mission(
        &self,
        Parameters(params): Parameters<MissionParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::MissionApprove(params), None).await)
    }

    #[tool(description = "Set a new version of the architecture constitution.")]
    async fn set_constitution(
        &self,
        Parameters(params): Parameters<ConstitutionParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::ConstitutionSet(params), None).await)
    }

    #[tool(
        description = "Record the repository commit that is indexed (what sessions compare their start commit with)."
    )]
    async fn index_repository(
        &self,
        Parameters(params): Parameters<IndexParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Index(params), None).await)
    }

    #[tool(description = "Open a requirement ambiguity on a mission (reference and text).")]
    async fn open_ambiguity(
        &self,
        Parameters(params): Parameters<NoteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::AmbiguityOpen(params), None).await)
    }

    #[tool(description = "Resolve a requirement ambiguity by number.")]
    async fn resolve_ambiguity(
        &self,
        Parameters(params): Parameters<NoteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::AmbiguityResolve(params), None).await)
    }

    #[tool(description = "Record an active decision every session should know (text).")]
    async fn record_decision(
        &self,
        Parameters(params): Parameters<NoteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::DecisionRecord(params), None).await)
    }

    #[tool(description = "Get one work session by id, with every field of the model.")]
    async fn get_work_session(
        &self,
        Parameters(params): Parameters<ShowParams>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Show(params), None).await)
    }
}

#[tool_handler]
impl ServerHandler for BatonMcp {
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
        let schema = serde_json::Value::Object((*tool.input_schema).clone());
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
        let service = BatonMcp::new(ledger)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::internal(format!("MCP initialization failed: {e}")))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::internal(format!("MCP server stopped: {e}")))?;
        Ok(())
    })
}
