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

/// Each session tool in one row: its name and arguments, what it says and promises, the
/// request it makes and the session it serializes on. Each runs through [`BatonMcp::run`]
/// (by `tool_body!`). rmcp's router must see every `#[tool]` fn, so the whole impl is
/// written here.
macro_rules! session_tools {
    ($(
        $name:ident($params:ty) [$($annotations:tt)*]
            $description:tt
            => |$p:ident| $request:expr, $session:expr;
    )*) => {
        #[tool_router(router = session_tools, vis = "pub(super)")]
        impl BatonMcp {
            $(
                #[tool(description = $description, annotations($($annotations)*))]
                async fn $name(
                    &self,
                    params: Parameters<$params>,
                    client: Client,
                ) -> Result<CallToolResult, ErrorData> {
                    tool_body!(self, params, client, |$p| $request, $session)
                }
            )*
        }
    };
}

session_tools! {
    start_work_session(StartParams) [destructive_hint = false]
        "Start a work session for a task (keep its session_id), or resume yours by session_id."
        => |p| Request::Start(p), |p: &StartParams| p.session_id.clone();
    end_work_session(EndParams) [destructive_hint = true]
        "End your work session by session_id, or the one live session of yours the filters pick."
        => |p| Request::End(p), |p: &EndParams| p.session_id.clone();
    list_work_sessions(ListParams) [read_only_hint = true]
        "List work sessions (live ones unless include_ended)."
        => |p| Request::List(p), no_session;
    brief_work_session(SessionRef) [destructive_hint = false]
        "Your context: contract, constitution, commit, ambiguities, decisions, dependencies. next_action `blocked`: paused, stop."
        => |p| Request::Brief(p), |p: &SessionRef| Some(p.session_id.clone());
    report_work_session(ReportParams) [destructive_hint = false]
        "Report work: files changed, status, progress, plan, questions, AI runs (counts only), evidence, PR."
        => |p| Request::Report(p), |p: &ReportParams| Some(p.session_id.clone());
    declare_dependencies(DependParams) [destructive_hint = false, idempotent_hint = true]
        "Declare files your work depends on; another session changing one opens a collision."
        => |p| Request::Depend(p), |p: &DependParams| Some(p.session_id.clone());
    pause_work_session(PauseParams) [destructive_hint = false]
        "Pause your own session to wait for a person."
        => |p| Request::Pause(p), |p: &PauseParams| Some(p.session_id.clone());
    unpause_work_session(SessionRef) [destructive_hint = false]
        "Lift a pause (where agents may steer)."
        => |p| Request::Unpause(p), |p: &SessionRef| Some(p.session_id.clone());
    get_context_health(HealthParams) [destructive_hint = false, idempotent_hint = true]
        "A session's context health and whether to re-brief."
        => |p| Request::Health(p), no_session;
    get_timeline(SessionRef) [read_only_hint = true]
        "A session's events in order."
        => |p| Request::Timeline(p), no_session;
    mark_attention_done(MarkAttentionDone) [destructive_hint = false]
        "Mark your sessions' attention items done."
        => |p| Request::AttentionDone(baton_core::commands::AttentionDoneParams {
            numbers: p.numbers,
            all: p.all,
            older_than_seconds: p.older_than_seconds,
            note: None,
        }), no_session;
    add_mission(AddMission) [destructive_hint = false]
        "Add a mission's contract as a draft; a person approves it."
        => |p| Request::MissionAdd(MissionParams {
            reference: p.reference,
            clauses: p.clauses,
        }), no_session;
    approve_mission(ApproveMission) [destructive_hint = false]
        "Approve a mission's newest contract (where agents may steer)."
        => |p| Request::MissionApprove(MissionParams {
            reference: p.reference,
            clauses: Vec::new(),
        }), no_session;
    set_constitution(ConstitutionParams) [destructive_hint = false]
        "Set the architecture constitution (where agents may steer)."
        => |p| Request::ConstitutionSet(p), no_session;
    index_repository(IndexParams) [destructive_hint = false]
        "Record the indexed repository commit."
        => |p| Request::Index(p), no_session;
    open_ambiguity(OpenAmbiguity) [destructive_hint = false]
        "Open a requirement ambiguity on a mission."
        => |p| Request::AmbiguityOpen(NoteParams {
            reference: Some(p.reference),
            text: Some(p.text),
            number: None,
        }), no_session;
    resolve_ambiguity(ResolveAmbiguity) [destructive_hint = false]
        "Resolve an open ambiguity by number."
        => |p| Request::AmbiguityResolve(NoteParams {
            reference: None,
            text: None,
            number: Some(p.number),
        }), no_session;
    record_decision(RecordDecision) [destructive_hint = false]
        "Record a decision every session should know."
        => |p| Request::DecisionRecord(NoteParams {
            reference: None,
            text: Some(p.text),
            number: None,
        }), no_session;
    get_work_session(ShowParams) [read_only_hint = true]
        "One work session, every field, and what it cost (with its hand-off chain)."
        => |p| Request::Show(p), no_session;
}

#[tool_router(router = attention_tools, vis = "pub(super)")]
impl BatonMcp {
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
}
