//! What a host may ask of the core: every request, tagged by `op` on the wire. Kept apart
//! from [`dispatch`](super::dispatch), which runs them, so the commands it calls can name a
//! request without depending on what dispatches it.

use crate::commands::params::{
    AttentionDoneParams, ConstitutionParams, CorrectParams, DependParams, EndParams, HealthParams,
    IndexParams, ListParams, MissionParams, NoteParams, ObserveParams, PauseParams, ReportParams,
    ResumeParams, SessionRef, ShowParams, StartParams, UsageParams,
};
use serde::{Deserialize, Serialize};

/// Every request, tagged by `op` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case")]
#[non_exhaustive]
#[cfg_attr(feature = "schema", schemars(rename = "CommandRequest"))]
pub enum Request {
    /// See [`StartParams`].
    Start(StartParams),
    /// See [`ResumeParams`].
    Resume(ResumeParams),
    /// See [`EndParams`].
    End(EndParams),
    /// See [`ListParams`].
    List(ListParams),
    /// See [`ShowParams`].
    Show(ShowParams),
    /// Give a session its context (or deliver its pause).
    Brief(SessionRef),
    /// See [`ReportParams`].
    Report(ReportParams),
    /// See [`DependParams`].
    Depend(DependParams),
    /// See [`PauseParams`].
    Pause(PauseParams),
    /// Lift a pause.
    Unpause(SessionRef),
    /// See [`HealthParams`].
    Health(HealthParams),
    /// Every event of a session.
    Timeline(SessionRef),
    /// Open attention items.
    Attention,
    /// Mark attention items done (a person saw them).
    AttentionDone(AttentionDoneParams),
    /// A mission's contract, as a new draft version.
    MissionAdd(MissionParams),
    /// Approve a mission's newest contract version.
    MissionApprove(MissionParams),
    /// A new constitution version.
    ConstitutionSet(ConstitutionParams),
    /// Record the indexed commit.
    Index(IndexParams),
    /// Open a requirement ambiguity.
    AmbiguityOpen(NoteParams),
    /// Resolve one.
    AmbiguityResolve(NoteParams),
    /// Record an active decision.
    DecisionRecord(NoteParams),
    /// Classify live sessions' liveness from what a host saw; record what changed.
    Observe(ObserveParams),
    /// See [`UsageParams`].
    RecordUsage(UsageParams),
    /// See [`CorrectParams`].
    Correct(CorrectParams),
}

impl Request {
    /// Whether the request is a pull: an agent asking for its context (a brief, a report, a
    /// start with its brief), where the workspace's budgets govern (see
    /// [`crate::lifecycle::budget`]). A host measures the budgets for these only.
    pub fn pulls(&self) -> bool {
        match self {
            Request::Brief(_) | Request::Report(_) => true,
            Request::Start(p) => !p.no_brief,
            _ => false,
        }
    }
}
