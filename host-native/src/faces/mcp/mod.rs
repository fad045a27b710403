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

/// `mark_attention_done`'s arguments (`attention done`'s, without the note).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MarkAttentionDone {
    /// Item numbers.
    #[serde(default)]
    numbers: Vec<u32>,
    /// Every open item.
    #[serde(default)]
    all: bool,
    /// Only items this old.
    older_than_seconds: Option<u64>,
}

/// `add_mission`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddMission {
    /// The mission's reference, e.g. CLAIM-142.
    reference: String,
    /// The contract's clauses, one requirement each.
    clauses: Vec<String>,
}

/// `approve_mission`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ApproveMission {
    /// The mission's reference, e.g. CLAIM-142.
    reference: String,
}

/// `open_ambiguity`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenAmbiguity {
    /// The mission's reference.
    reference: String,
    /// What is unclear.
    text: String,
}

/// `resolve_ambiguity`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ResolveAmbiguity {
    /// The ambiguity's number.
    number: u32,
}

/// `record_decision`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RecordDecision {
    /// The decision.
    text: String,
}

/// `search_transcripts`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchTranscripts {
    /// Words (rare ones required; "quoted" a phrase); exact phrase first.
    query: String,
    /// Comma-separated: text, thinking, tool_input, tool_output, tool [all].
    #[serde(default, rename = "in")]
    fields: Option<String>,
    #[serde(flatten)]
    filters: TranscriptFilters,
    /// Most hits (default 20).
    #[serde(default)]
    limit: Option<u32>,
}

/// Filters shared by the transcript tools.
#[derive(Debug, Deserialize, JsonSchema)]
struct TranscriptFilters {
    /// claude_code, codex, chatgpt or claude_ai.
    #[serde(default)]
    provider: Option<String>,
    /// Part of the project's path.
    #[serde(default)]
    project: Option<String>,
    /// First day, YYYY-MM-DD.
    #[serde(default)]
    since: Option<String>,
    /// Last day, YYYY-MM-DD.
    #[serde(default)]
    until: Option<String>,
}

/// `list_transcripts`' arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListTranscripts {
    #[serde(flatten)]
    filters: TranscriptFilters,
    /// Most rows (default 20).
    #[serde(default)]
    limit: Option<u32>,
    /// Rows to skip.
    #[serde(default)]
    offset: Option<u32>,
}

/// `get_transcript`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetTranscript {
    /// The number list_transcripts gives, the provider's id, or 8+ characters of it.
    reference: String,
    /// Every branch instead of the active one only.
    #[serde(default)]
    all_branches: bool,
}

/// `get_usage`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetUsage {
    /// daily (default), weekly, monthly, session, model or project.
    #[serde(default)]
    group_by: Option<String>,
    /// claude_code or codex.
    #[serde(default)]
    provider: Option<String>,
    /// First day, YYYY-MM-DD.
    #[serde(default)]
    since: Option<String>,
    /// Last day, YYYY-MM-DD.
    #[serde(default)]
    until: Option<String>,
}

/// `session_store`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionStore {
    /// Verbatim text, not blank.
    content: String,
    /// Not blank when given.
    #[serde(default)]
    title: Option<String>,
    /// E.g. claude_code, codex; not blank.
    #[serde(default)]
    provider: Option<String>,
    /// The provider's session id; not blank.
    #[serde(default)]
    provider_session_id: Option<String>,
    /// None blank.
    #[serde(default)]
    tags: Vec<String>,
    /// A work session to attach it to.
    #[serde(default)]
    session_id: Option<String>,
}

/// `session_list`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionList {
    /// 1-200, default 20.
    #[serde(default)]
    limit: Option<i64>,
    /// Rows to skip.
    #[serde(default)]
    offset: Option<i64>,
    /// Exact provider.
    #[serde(default)]
    provider: Option<String>,
    /// Exact legacy agent_id.
    #[serde(default)]
    agent_id: Option<String>,
    /// RFC 3339, inclusive.
    #[serde(default)]
    since: Option<String>,
    /// stored (default), mirrored or all.
    #[serde(default)]
    include: Option<String>,
}

/// `session_resume`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionResume {
    /// Record id, or 8+ hex digits of either end.
    id: String,
}

/// `session_export`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SessionExport {
    /// Record id, or 8+ hex digits of either end.
    id: String,
    /// json (default) or markdown.
    #[serde(default)]
    format: Option<String>,
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

/// A tool answer: the human line, then the JSON, as text; the JSON also as structured content.
/// A work session's `cost` and `chain_cost`, when it has any (a failure to read the index
/// only leaves them out).
fn work_session_cost(
    ledger: &Ledger,
    index: &std::path::Path,
    snapshot: &crate::store::Snapshot,
    id: baton_core::SessionId,
) -> Option<serde_json::Map<String, Value>> {
    use baton_core::ledger::store::LedgerView;
    let all = snapshot.all_sessions().ok()?;
    let costs = crate::ops::work_cost::of_sessions(ledger, index, &all, &[id]).ok()?;
    let mut extra = serde_json::Map::new();
    if let Some(figures) = costs.of(id) {
        extra.insert("cost".into(), serde_json::to_value(figures).ok()?);
    }
    if let Some(chain) = costs.chain_total(&all, id) {
        extra.insert("chain_cost".into(), chain);
    }
    (!extra.is_empty()).then_some(extra)
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
        let mut request = $request;
        engine::fill_defaults(&mut request, $client.name());
        Ok($self.run(request, session, $client.caller()).await)
    }};
}

fn no_session<P>(_: &P) -> Option<String> {
    None
}

#[tool_router]
impl BatonMcp {
    /// A server over the ledger at `ledger`.
    pub fn new(ledger: Ledger) -> BatonMcp {
        BatonMcp {
            ledger,
            index: None,
            gate: Arc::default(),
            tool_router: Self::tool_router(),
        }
    }

    async fn run(
        &self,
        request: Request,
        session: Option<String>,
        caller: Caller,
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
            // Sessions are read with whether their agents still run (as the CLI does).
            if matches!(
                request,
                Request::List(_) | Request::Show(_) | Request::Attention
            ) && let Err(err) = crate::ops::liveness::check(&ledger)
            {
                crate::os::warnings::warn(&format!(
                    "could not check whether agents still run: {err}"
                ));
            }
            // A start or end from inside an agent session a hook already opened is about
            // that work session (one per agent session, whichever door it came in by).
            let mut request = request;
            engine::join_calling_agents_session(&ledger, &mut request);
            let (result, snapshot) = engine::run_deferred(&ledger, &request, &acting);
            // The agent on the other end of this server runs the session it started: tie its
            // process to it, so Baton can tell later when it is gone.
            if let (Request::Start(_), Ok(baton_core::commands::Response::Action(action))) =
                (&request, &result)
                && let Some(process) = crate::os::processes::agent_process()
                && let Err(err) = crate::ops::liveness::tie_process(
                    &ledger,
                    &action.session.session_id.to_string(),
                    process,
                )
            {
                crate::os::warnings::warn(&format!(
                    "could not tie the agent's process to its session: {err}"
                ));
            }
            // One session's answer says what it cost, and its hand-off chain.
            let cost = match (&result, &snapshot) {
                (Ok(baton_core::commands::Response::Show(shown)), Some(snapshot)) => {
                    work_session_cost(&ledger, &index, snapshot, shown.session.session_id)
                }
                _ => None,
            };
            // The checkpoint is brought up to date after the answer has gone back.
            if let Some(snapshot) = snapshot {
                tokio::task::spawn_blocking(move || engine::refresh(&ledger, &snapshot));
            }
            (result, cost)
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

    #[tool(
        description = "Start a work session for a task (keep its session_id), or resume yours by session_id.",
        annotations(destructive_hint = false)
    )]
    async fn start_work_session(
        &self,
        params: Parameters<StartParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Start(p),
            |p: &StartParams| p.session_id.clone()
        )
    }

    #[tool(
        description = "End your work session by session_id, or the one live session of yours the filters pick.",
        annotations(destructive_hint = true)
    )]
    async fn end_work_session(
        &self,
        params: Parameters<EndParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::End(p),
            |p: &EndParams| p.session_id.clone()
        )
    }

    #[tool(
        description = "List work sessions (live ones unless include_ended).",
        annotations(read_only_hint = true)
    )]
    async fn list_work_sessions(
        &self,
        params: Parameters<ListParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(self, params, client, |p| Request::List(p), no_session)
    }

    #[tool(
        description = "Your context: contract, constitution, commit, ambiguities, decisions, dependencies. next_action `blocked`: paused, stop.",
        annotations(destructive_hint = false)
    )]
    async fn brief_work_session(
        &self,
        params: Parameters<SessionRef>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Brief(p),
            |p: &SessionRef| Some(p.session_id.clone())
        )
    }

    #[tool(
        description = "Report work: files changed, status, progress, plan, questions, AI runs (counts only), evidence, PR.",
        annotations(destructive_hint = false)
    )]
    async fn report_work_session(
        &self,
        params: Parameters<ReportParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Report(p),
            |p: &ReportParams| Some(p.session_id.clone())
        )
    }

    #[tool(
        description = "Declare files your work depends on; another session changing one opens a collision.",
        annotations(destructive_hint = false, idempotent_hint = true)
    )]
    async fn declare_dependencies(
        &self,
        params: Parameters<DependParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Depend(p),
            |p: &DependParams| Some(p.session_id.clone())
        )
    }

    #[tool(
        description = "Pause your own session to wait for a person.",
        annotations(destructive_hint = false)
    )]
    async fn pause_work_session(
        &self,
        params: Parameters<PauseParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Pause(p),
            |p: &PauseParams| Some(p.session_id.clone())
        )
    }

    #[tool(
        description = "Lift a pause (where agents may steer).",
        annotations(destructive_hint = false)
    )]
    async fn unpause_work_session(
        &self,
        params: Parameters<SessionRef>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::Unpause(p),
            |p: &SessionRef| Some(p.session_id.clone())
        )
    }

    #[tool(
        description = "A session's context health and whether to re-brief.",
        annotations(destructive_hint = false, idempotent_hint = true)
    )]
    async fn get_context_health(
        &self,
        params: Parameters<HealthParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(self, params, client, |p| Request::Health(p), no_session)
    }

    #[tool(
        description = "A session's events in order.",
        annotations(read_only_hint = true)
    )]
    async fn get_timeline(
        &self,
        params: Parameters<SessionRef>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(self, params, client, |p| Request::Timeline(p), no_session)
    }

    #[tool(
        description = "Open attention items, most urgent first.",
        annotations(read_only_hint = true)
    )]
    async fn list_attention(&self, client: Client) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(Request::Attention, None, client.caller()).await)
    }

    #[tool(
        description = "Mark your sessions' attention items done.",
        annotations(destructive_hint = false)
    )]
    async fn mark_attention_done(
        &self,
        params: Parameters<MarkAttentionDone>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::AttentionDone(baton_core::commands::AttentionDoneParams {
                numbers: p.numbers,
                all: p.all,
                older_than_seconds: p.older_than_seconds,
                note: None,
            }),
            no_session
        )
    }

    #[tool(
        description = "Add a mission's contract as a draft; a person approves it.",
        annotations(destructive_hint = false)
    )]
    async fn add_mission(
        &self,
        params: Parameters<AddMission>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::MissionAdd(MissionParams {
                reference: p.reference,
                clauses: p.clauses
            }),
            no_session
        )
    }

    #[tool(
        description = "Approve a mission's newest contract (where agents may steer).",
        annotations(destructive_hint = false)
    )]
    async fn approve_mission(
        &self,
        params: Parameters<ApproveMission>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::MissionApprove(MissionParams {
                reference: p.reference,
                clauses: Vec::new()
            }),
            no_session
        )
    }

    #[tool(
        description = "Set the architecture constitution (where agents may steer).",
        annotations(destructive_hint = false)
    )]
    async fn set_constitution(
        &self,
        params: Parameters<ConstitutionParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::ConstitutionSet(p),
            no_session
        )
    }

    #[tool(
        description = "Record the indexed repository commit.",
        annotations(destructive_hint = false)
    )]
    async fn index_repository(
        &self,
        params: Parameters<IndexParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(self, params, client, |p| Request::Index(p), no_session)
    }

    #[tool(
        description = "Open a requirement ambiguity on a mission.",
        annotations(destructive_hint = false)
    )]
    async fn open_ambiguity(
        &self,
        params: Parameters<OpenAmbiguity>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::AmbiguityOpen(NoteParams {
                reference: Some(p.reference),
                text: Some(p.text),
                number: None
            }),
            no_session
        )
    }

    #[tool(
        description = "Resolve an open ambiguity by number.",
        annotations(destructive_hint = false)
    )]
    async fn resolve_ambiguity(
        &self,
        params: Parameters<ResolveAmbiguity>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::AmbiguityResolve(NoteParams {
                reference: None,
                text: None,
                number: Some(p.number)
            }),
            no_session
        )
    }

    #[tool(
        description = "Record a decision every session should know.",
        annotations(destructive_hint = false)
    )]
    async fn record_decision(
        &self,
        params: Parameters<RecordDecision>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(
            self,
            params,
            client,
            |p| Request::DecisionRecord(NoteParams {
                reference: None,
                text: Some(p.text),
                number: None
            }),
            no_session
        )
    }

    #[tool(
        description = "One work session, every field, and what it cost (with its hand-off chain).",
        annotations(read_only_hint = true)
    )]
    async fn get_work_session(
        &self,
        params: Parameters<ShowParams>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        tool_body!(self, params, client, |p| Request::Show(p), no_session)
    }

    #[tool(
        description = "Keep a session record (summary, review, hand-off, transcript) verbatim.",
        annotations(destructive_hint = false, idempotent_hint = false)
    )]
    async fn session_store(
        &self,
        params: Parameters<SessionStore>,
        client: Client,
    ) -> Result<CallToolResult, ErrorData> {
        let ledger = self.ledger.clone();
        let index = self.index_path();
        Ok(self
            .records_call(params, move |p| {
                let acting = engine::Acting {
                    actor: None,
                    person: None,
                    caller: client.caller(),
                };
                let record = crate::ops::records::store(
                    &ledger,
                    &index,
                    baton_core::records::StoreRequest {
                        content: Some(p.content),
                        title: p.title,
                        provider: p.provider,
                        provider_session_id: p.provider_session_id,
                        tags: p.tags,
                    },
                    p.session_id.as_deref(),
                    &acting,
                )?;
                let mut summary = crate::ops::records::summary(&record);
                summary["content_bytes"] = Value::from(record.content.len());
                Ok((
                    format!("[ok] stored the record {}", record.id),
                    serde_json::json!({ "record": summary }),
                ))
            })
            .await)
    }

    #[tool(
        description = "Stored records, newest first, with a total.",
        annotations(read_only_hint = true)
    )]
    async fn session_list(
        &self,
        params: Parameters<SessionList>,
    ) -> Result<CallToolResult, ErrorData> {
        let ledger = self.ledger.clone();
        let index = self.index_path();
        Ok(self
            .records_call(params, move |p| {
                let query = baton_core::records::ListQuery::parse(
                    p.limit,
                    p.offset,
                    p.provider,
                    p.agent_id,
                    p.since.as_deref(),
                )?;
                let include = crate::ops::records::include_of(
                    p.include.as_deref(),
                    baton_core::records::Include::Stored,
                )?;
                let listing = crate::ops::records::list_records(&ledger, &index, query, include)?;
                Ok((
                    format!("[ok] {} of {} row(s)", listing.items.len(), listing.total),
                    serde_json::to_value(&listing).unwrap_or_default(),
                ))
            })
            .await)
    }

    #[tool(
        description = "One stored record in full, with its links.",
        annotations(read_only_hint = true)
    )]
    async fn session_resume(
        &self,
        params: Parameters<SessionResume>,
    ) -> Result<CallToolResult, ErrorData> {
        let ledger = self.ledger.clone();
        let index = self.index_path();
        Ok(self
            .records_call(params, move |p| {
                let query = baton_core::records::IdQuery::parse(&p.id)?;
                let (snapshot, connection) = crate::ops::records::open_synced(&ledger, &index)?;
                let record = crate::ops::records::resolve(
                    &connection,
                    &index,
                    &snapshot,
                    ledger.dir(),
                    &query,
                )?;
                let links = crate::ops::records::links_of(
                    &connection,
                    &index,
                    &snapshot,
                    ledger.dir(),
                    &record,
                )?;
                let mut json = serde_json::to_value(&record).unwrap_or_default();
                json["links"] = serde_json::to_value(&links).unwrap_or_default();
                Ok((
                    format!(
                        "[ok] the record {} ({} bytes)",
                        record.id,
                        record.content.len()
                    ),
                    serde_json::json!({ "record": json }),
                ))
            })
            .await)
    }

    #[tool(
        description = "One stored record as json or markdown.",
        annotations(read_only_hint = true)
    )]
    async fn session_export(
        &self,
        params: Parameters<SessionExport>,
    ) -> Result<CallToolResult, ErrorData> {
        let ledger = self.ledger.clone();
        let index = self.index_path();
        Ok(self
            .records_call(params, move |p| {
                // The format is checked before the id is looked up.
                let format = baton_core::records::ExportFormat::parse(p.format.as_deref())?;
                let query = baton_core::records::IdQuery::parse(&p.id)?;
                let (snapshot, connection) = crate::ops::records::open_synced(&ledger, &index)?;
                let record = crate::ops::records::resolve(
                    &connection,
                    &index,
                    &snapshot,
                    ledger.dir(),
                    &query,
                )?;
                let document = crate::ops::records::export_document(&record, format);
                Ok((
                    document.clone(),
                    serde_json::json!({
                        "id": record.id.to_string(),
                        "format": format,
                        "document": document,
                    }),
                ))
            })
            .await)
    }

    #[tool(
        description = "Search the kept transcripts (baton mirror keeps them): ranked messages with snippets.",
        annotations(read_only_hint = true)
    )]
    async fn search_transcripts(
        &self,
        params: Parameters<SearchTranscripts>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .read_index(params, |p, connection, path| {
                let fields = crate::ops::mirror::query::fields_named(p.fields.as_deref())?;
                let filters = transcript_filters(&p.filters)?;
                let page = crate::ops::mirror::query::search(
                    connection,
                    path,
                    &p.query,
                    &fields,
                    &filters,
                    i64::from(p.limit.unwrap_or(20).clamp(1, 200)),
                    160,
                )?;
                Ok((
                    format!(
                        "[ok] {} of {} matching message(s)",
                        page.hits.len(),
                        page.total
                    ),
                    serde_json::to_value(&page).unwrap_or_default(),
                ))
            })
            .await)
    }

    #[tool(
        description = "The kept transcripts, newest first, with a total for paging.",
        annotations(read_only_hint = true)
    )]
    async fn list_transcripts(
        &self,
        params: Parameters<ListTranscripts>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .read_index(params, |p, connection, path| {
                let filters = transcript_filters(&p.filters)?;
                let page = crate::ops::mirror::query::list(
                    connection,
                    path,
                    &filters,
                    i64::from(p.limit.unwrap_or(20).clamp(1, 500)),
                    i64::from(p.offset.unwrap_or(0)),
                )?;
                Ok((
                    format!(
                        "[ok] {} of {} conversation(s)",
                        page.conversations.len(),
                        page.total
                    ),
                    serde_json::to_value(&page).unwrap_or_default(),
                ))
            })
            .await)
    }

    #[tool(
        description = "One kept transcript as Markdown (the active branch unless all_branches).",
        annotations(read_only_hint = true)
    )]
    async fn get_transcript(
        &self,
        params: Parameters<GetTranscript>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .read_index(params, |p, connection, path| {
                use crate::ops::mirror::query::Branches;
                let branches = if p.all_branches {
                    Branches::All
                } else {
                    Branches::Active
                };
                let shown =
                    crate::ops::mirror::query::show(connection, path, &p.reference, branches)?;
                Ok((
                    shown.markdown.trim_end().to_owned(),
                    serde_json::json!({
                        "conversation": serde_json::to_value(&shown.row).unwrap_or_default(),
                        "branches": shown.branches,
                    }),
                ))
            })
            .await)
    }

    #[tool(
        description = "Token usage and cost from the kept transcripts, by day, week, month, session, model or project.",
        annotations(read_only_hint = true)
    )]
    async fn get_usage(&self, params: Parameters<GetUsage>) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .read_index(params, |p, connection, path| {
                use baton_core::transcripts::Provider;
                let zone = crate::os::zone::resolve(None)?;
                let day = |field: &str, text: &Option<String>, end: bool| {
                    text.as_deref()
                        .map(|d| baton_core::time::parse_day_in(field, d, end, &zone))
                        .transpose()
                };
                let providers = match p.provider.as_deref() {
                    None => Vec::new(),
                    Some(name) => match Provider::named(name).filter(|p| p.has_usage()) {
                        Some(provider) => vec![provider],
                        None => {
                            return Err(Error::invalid(
                                "provider",
                                format!("`{name}`: usage is kept for claude_code and codex"),
                            ));
                        }
                    },
                };
                let options = crate::ops::usage::UsageOptions {
                    providers,
                    since: day("since", &p.since, false)?,
                    until: day("until", &p.until, true)?,
                    ..crate::ops::usage::UsageOptions::everything(
                        p.group_by.as_deref().unwrap_or("daily").parse()?,
                        zone.clone(),
                    )
                };
                let report = crate::ops::mirror::usage::report(connection, path, &options)?;
                let json = serde_json::to_value(&report).unwrap_or_default();
                Ok((
                    format!(
                        "[ok] usage from the index: {} row(s), ${:.2} in all",
                        json["rows"].as_array().map_or(0, Vec::len),
                        json["totals"]["cost_usd"].as_f64().unwrap_or(0.0)
                    ),
                    json,
                ))
            })
            .await)
    }
}

/// The transcript tools' filters, checked.
fn transcript_filters(
    filters: &TranscriptFilters,
) -> Result<crate::ops::mirror::query::Filters, Error> {
    let zone = crate::os::zone::resolve(None)?;
    crate::ops::mirror::query::Filters::from_words(
        filters.provider.as_deref(),
        filters.project.as_deref(),
        filters.since.as_deref(),
        filters.until.as_deref(),
        &zone,
    )
}

/// A transcript tool's answer: its text (a human line, or the Markdown asked for), then its
/// JSON, which is also the structured content; an error as every tool's.
fn index_answer(result: Result<(String, Value), Error>) -> CallToolResult {
    match result {
        Ok((text, json)) => {
            let mut result =
                CallToolResult::success(vec![ContentBlock::text(format!("{text}\n{json}"))]);
            result.structured_content = Some(json);
            result
        }
        Err(err) => answer(Err(err)),
    }
}

/// The tools over the transcript index: offered once `baton mirror` has made one.
pub const INDEX_TOOLS: [&str; 4] = [
    "search_transcripts",
    "list_transcripts",
    "get_transcript",
    "get_usage",
];

impl BatonMcp {
    /// The transcript index this server reads.
    fn index_path(&self) -> std::path::PathBuf {
        self.index
            .clone()
            .unwrap_or_else(|| crate::index::path_for(self.ledger.dir()))
    }

    /// A server over `ledger` that reads the transcript index at `index` (an embedding
    /// host's own, or a test's).
    pub fn with_index(ledger: Ledger, index: std::path::PathBuf) -> BatonMcp {
        BatonMcp {
            index: Some(index),
            ..BatonMcp::new(ledger)
        }
    }

    /// Runs a read of the transcript index off the async threads, with the tool's arguments
    /// (arguments it could not read are answered as every tool answers them).
    async fn read_index<P, F>(&self, params: Parameters<P>, work: F) -> CallToolResult
    where
        P: Send + 'static,
        F: FnOnce(P, &rusqlite::Connection, &std::path::Path) -> Result<(String, Value), Error>
            + Send
            + 'static,
    {
        let p = match params.0 {
            Ok(p) => p,
            Err(err) => return answer(Err(err)),
        };
        let path = self.index_path();
        let outcome = tokio::task::spawn_blocking(move || {
            let connection = crate::index::open_existing(&path)?;
            work(p, &connection, &path)
        })
        .await
        .unwrap_or_else(|e| Err(Error::internal(format!("the tool task failed: {e}"))));
        index_answer(outcome)
    }

    /// Runs a records tool off the async threads, with its arguments (arguments it could not
    /// read are answered as every tool answers them).
    async fn records_call<P, F>(&self, params: Parameters<P>, work: F) -> CallToolResult
    where
        P: Send + 'static,
        F: FnOnce(P) -> Result<(String, Value), Error> + Send + 'static,
    {
        let p = match params.0 {
            Ok(p) => p,
            Err(err) => return answer(Err(err)),
        };
        let outcome = tokio::task::spawn_blocking(move || work(p))
            .await
            .unwrap_or_else(|e| Err(Error::internal(format!("the tool task failed: {e}"))));
        index_answer(outcome)
    }

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
