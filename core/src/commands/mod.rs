//! Decisions that write facts: every command hosts offer (start, resume, end, list, show, and
//! the lifecycle's briefs, reports, pauses, health, timeline and workspace changes) as one
//! request/response surface, decided purely from a [`LedgerView`](crate::ledger::store::LedgerView)
//! and a [`Context`].
//!
//! The order a host follows is fixed:
//! 1. [`prepare`] validates the raw request and resolves which session it targets (an implicit
//!    end is resolved here). Bad input fails now, before any lock is taken or byte written.
//! 2. The host serializes on [`Prepared::lock`] when it is `Some` (across processes), then
//!    refreshes its view so it sees every event appended before the lock was taken.
//! 3. [`execute`] decides against the fresh view and returns the events to append and the
//!    response. The host appends the events (each one whole) and only then answers.
//!
//! Inside: `kernel` (what every operation shares), `params` and `answers` (the wire types),
//! `dispatch` (the three steps), one file per group of operations (`sessions`, `briefing`,
//! `reports`, `oversight`, `workspace`), `trust` (what agents may not do, and who is recorded
//! as acting), and `render` (the lines people read).

mod answers;
pub(crate) mod attention;
mod briefing;
mod dispatch;
mod kernel;
pub(crate) mod oversight;
mod params;
mod refs;
mod request;
pub use refs::resolve_session;
pub mod render;
mod reports;
mod sessions;
pub mod trust;
mod workspace;

pub use answers::{
    AttentionAnswer, BriefContext, HealthAnswer, LifecycleAction, LifecycleAnswer, LivenessAnswer,
    LivenessReport, NextAction, Response, SessionAction, SessionActionKind, SessionList,
    SessionShow, TimelineAnswer, WorkspaceAnswer,
};
pub use dispatch::{execute, prepare, run};
pub use kernel::{Caller, Context, Executed, Prepared};
pub use params::{
    AttentionDoneParams, ConstitutionParams, CorrectParams, DependParams, EndParams, HealthParams,
    IndexParams, ListParams, MissionParams, NoteParams, Observation, ObserveParams, PauseParams,
    ReportParams, ResumeParams, RunReport, SessionRef, ShowParams, StartParams, UsageParams,
};
pub use request::Request;
pub use sessions::resolve_implicit;
