//! The work-session tools: start, end, list and show; briefs, reports, dependencies, pauses,
//! health, the timeline and attention; the workspace's missions, constitution, ambiguities and
//! decisions. Each is the core request the CLI makes, through [`BatonMcp::run`].

use super::*;

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

#[tool_router(router = session_tools, vis = "pub(super)")]
impl BatonMcp {
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
        Ok(self
            .run(
                Request::Attention,
                None,
                client.caller(),
                client.name().map(str::to_owned),
            )
            .await)
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
}
