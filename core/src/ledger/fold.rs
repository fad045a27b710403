//! The fold: events in, sessions out. Order-independent, idempotent and tolerant.
//!
//! A session's state is the *set* of its distinct events; the view is derived by replaying
//! that set in `(at, id)` order. Because the state is a set, folding any permutation or any
//! duplication of the same events gives the same sessions, and two partial folds join into
//! the fold of their union (the checkpoint and compaction rely on that). Unreadable lines are
//! counted in [`FoldStats`], never fatal.

use crate::ids::{EventId, SessionId};
use crate::ledger::activity::{Activity, StepState};
use crate::ledger::event::{Event, Line, Payload, TokenTotals, decode_line};
use crate::ledger::session::{
    BriefStamp, Collision, DecisionRequest, PauseInfo, PlanStep, ReportsVia, ResumeMarker, Session,
    Status, presentation_path,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

/// How many unreadable lines keep their reason for reports such as `baton doctor`.
pub const MAX_REPORTED_PROBLEMS: usize = 20;

/// The distinct events of one session.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionHistory {
    events: BTreeMap<EventId, Event>,
}

impl SessionHistory {
    /// Adds an event; returns false when its id was already there (a duplicate).
    pub fn insert(&mut self, event: Event) -> bool {
        match self.events.entry(event.id) {
            Entry::Vacant(slot) => {
                slot.insert(event);
                true
            }
            Entry::Occupied(mut slot) => {
                // Two different events under one id can only come from a buggy or hostile
                // writer. Keep the one with the larger encoding so the outcome is the same in
                // any order.
                if slot.get() != &event && encoded_key(&event) > encoded_key(slot.get()) {
                    slot.insert(event);
                }
                false
            }
        }
    }

    /// Joins another history of the same session into this one.
    pub fn join(&mut self, other: SessionHistory) -> u64 {
        other
            .events
            .into_values()
            .map(|e| u64::from(!self.insert(e)))
            .sum()
    }

    /// The distinct events, in `(at, id)` order.
    pub fn ordered(&self) -> Vec<&Event> {
        let mut events: Vec<&Event> = self.events.values().collect();
        events.sort_by_key(|e| (e.at, e.id));
        events
    }

    /// How many distinct events.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Derives the session view; `None` while no `started` event is known.
    pub fn session(&self) -> Option<Session> {
        derive(self)
    }
}

fn encoded_key(event: &Event) -> String {
    event.encode().unwrap_or_default()
}

fn derive(history: &SessionHistory) -> Option<Session> {
    let ordered = history.ordered();
    // The earliest `started` defines the session, even if skewed clocks put other events first.
    let (start_event, start) = ordered.iter().find_map(|e| match &e.payload {
        Payload::Started(s) => Some((*e, s)),
        _ => None,
    })?;
    let mut session = Session {
        session_id: start_event.session,
        path: presentation_path(
            &start.project,
            start_event.at,
            &start.agent,
            start_event.session,
        ),
        project: start.project.clone(),
        agent: start.agent.clone(),
        client_name: start.client_name.clone(),
        goal: start.goal.clone(),
        status: Status::Starting,
        started_at: start_event.at,
        ended_at: None,
        duration_seconds: None,
        summary: None,
        parent_session_id: start.parent_session_id,
        run_id: start.run_id.clone(),
        work_item_id: start.work_item_id.clone(),
        attempt_id: start.attempt_id.clone(),
        provider_session_id: start.provider_session_id.clone(),
        resumes: Vec::new(),
        usage: TokenTotals::default(),
        usage_cost_micro_usd: None,
        usage_sources: Vec::new(),
        last_event_at: start_event.at,
        event_count: ordered.len() as u64,
        mission: start.mission.clone(),
        start_commit: start.commit.clone(),
        branch: start.branch.clone(),
        worktree: start.worktree.clone(),
        progress: None,
        pause: None,
        budget_waivers: Vec::new(),
        brief: None,
        reports_via: None,
        dependencies: Vec::new(),
        changed_files: Vec::new(),
        open_collisions: Vec::new(),
        plan: Vec::new(),
        decisions: Vec::new(),
        runs: crate::ledger::session::RunCounts::default(),
        evidence: Vec::new(),
        pull_request: None,
        health: None,
        liveness: None,
    };
    // The status an agent's own reports set; a person's pause overrides it while it lasts.
    let mut activity_status = Status::Starting;
    let mut ended = false;
    let (mut via_hook, mut via_model) = (false, false);
    let mut usage_by_source: BTreeMap<&str, (u64, TokenTotals, Option<u64>)> = BTreeMap::new();
    for event in &ordered {
        // Baton's own observations of the agent are not the session's activity.
        if !matches!(
            event.payload,
            Payload::Activity(Activity::Liveness { .. } | Activity::NoteConflict { .. })
        ) {
            session.last_event_at = session.last_event_at.max(event.at);
        }
        match &event.payload {
            Payload::Started(_) | Payload::RecordStored(_) | Payload::Unknown { .. } => {}
            Payload::Resumed(r) => session.resumes.push(ResumeMarker {
                at: event.at,
                client_name: r.client_name.clone(),
            }),
            Payload::Activity(activity) if !ended => {
                match activity.via() {
                    Some(crate::ledger::activity::Via::Hook) => via_hook = true,
                    Some(crate::ledger::activity::Via::Model) => via_model = true,
                    None => {}
                }
                apply_activity(&mut session, &mut activity_status, event, activity);
            }
            // Ending closes collisions in the same breath; nothing else changes an ended session.
            Payload::Activity(a @ Activity::CollisionClosed { .. }) => {
                apply_activity(&mut session, &mut activity_status, event, a);
            }
            Payload::Activity(_) => {}
            Payload::Ended(end) if !ended => {
                ended = true;
                session.pause = None;
                // Whether its agent still runs says nothing about an ended session: no surface
                // shows an ended session as live, idle or gone.
                session.liveness = None;
                session.status = match end.outcome {
                    crate::ledger::event::Outcome::Complete => Status::Complete,
                    crate::ledger::event::Outcome::Failed => Status::Failed,
                };
                session.ended_at = Some(event.at);
                session.duration_seconds = Some(session.started_at.whole_seconds_until(event.at));
                if end.summary.is_some() {
                    session.summary.clone_from(&end.summary);
                }
            }
            Payload::Ended(_) => {}
            Payload::Corrected(c) => {
                if c.goal.is_some() {
                    session.goal.clone_from(&c.goal);
                }
                if c.summary.is_some() {
                    session.summary.clone_from(&c.summary);
                }
            }
            Payload::Usage(u) => {
                let candidate = (u.offset, u.totals, u.cost_micro_usd);
                let slot = usage_by_source
                    .entry(u.source.as_str())
                    .or_insert(candidate);
                if usage_key(&candidate) > usage_key(slot) {
                    *slot = candidate;
                }
            }
        }
    }
    for (source, (offset, totals, cost)) in &usage_by_source {
        session.usage.add(totals);
        if let Some(cost) = cost {
            session.usage_cost_micro_usd = Some(
                session
                    .usage_cost_micro_usd
                    .unwrap_or(0)
                    .saturating_add(*cost),
            );
        }
        session
            .usage_sources
            .push(crate::ledger::session::UsageSource {
                source: (*source).to_owned(),
                offset: *offset,
                totals: *totals,
                cost_micro_usd: *cost,
            });
    }
    if !ended {
        session.status = if session.pause.is_some() {
            Status::Paused
        } else {
            activity_status
        };
    }
    session.reports_via = match (via_hook, via_model) {
        (true, true) => Some(ReportsVia::Both),
        (true, false) => Some(ReportsVia::Hook),
        (false, true) => Some(ReportsVia::Model),
        (false, false) => None,
    };
    Some(session)
}

fn push_unique(list: &mut Vec<String>, items: &[String]) {
    for item in items {
        if !list.contains(item) {
            list.push(item.clone());
        }
    }
}

/// Applies one lifecycle event to a live session's view.
fn apply_activity(session: &mut Session, status: &mut Status, event: &Event, activity: &Activity) {
    match activity {
        Activity::Briefed {
            contract_version,
            constitution_version,
            indexed_commit,
            ..
        } => {
            session.brief = Some(BriefStamp {
                at: event.at,
                contract_version: *contract_version,
                constitution_version: *constitution_version,
                indexed_commit: indexed_commit.clone(),
            });
            if *status == Status::Starting {
                *status = Status::Working;
            }
        }
        Activity::PauseDelivered { .. } => {
            if let Some(pause) = &mut session.pause {
                pause.delivered = true;
            }
        }
        Activity::ChangedFiles { files, .. } => {
            push_unique(&mut session.changed_files, files);
            *status = Status::Working;
        }
        Activity::Blocked { .. } => *status = Status::Blocked,
        Activity::ImplementationComplete { .. } => {
            *status = Status::AwaitingReview;
            session.progress = Some(100);
        }
        // Completion forced progress to 100; later self-reports do not lower it.
        Activity::Progress { percent, .. } if *status != Status::AwaitingReview => {
            session.progress = Some((*percent).min(100));
        }
        Activity::PlanCreated { steps, .. } => {
            session.plan = steps
                .iter()
                .map(|title| PlanStep {
                    title: title.clone(),
                    state: StepState::Pending,
                })
                .collect();
        }
        Activity::Step { number, state, .. } => {
            if let Some(step) = session.plan.get_mut((*number as usize).wrapping_sub(1)) {
                step.state = *state;
            }
        }
        Activity::DecisionRequested { text, .. } => session.decisions.push(DecisionRequest {
            text: text.clone(),
            resolved: false,
            resolution: None,
        }),
        Activity::DecisionResolved {
            number, resolution, ..
        } => {
            if let Some(d) = session
                .decisions
                .get_mut((*number as usize).wrapping_sub(1))
            {
                d.resolved = true;
                d.resolution.clone_from(resolution);
            }
        }
        Activity::RunRecorded {
            input_tokens,
            output_tokens,
            ..
        } => {
            session.runs.recorded += 1;
            session.runs.input_tokens = session.runs.input_tokens.saturating_add(*input_tokens);
            session.runs.output_tokens = session.runs.output_tokens.saturating_add(*output_tokens);
        }
        Activity::RunRefused { .. } => session.runs.refused += 1,
        Activity::Evidence { text, .. } => session.evidence.push(text.clone()),
        Activity::PullRequestReported { url, .. } => session.pull_request = Some(url.clone()),
        Activity::DependenciesDeclared { files } => push_unique(&mut session.dependencies, files),
        Activity::Paused { reason, budget } => {
            session.pause = Some(PauseInfo {
                reason: reason.clone(),
                at: event.at,
                by: event.actor.name.clone(),
                delivered: false,
                budget: budget.clone(),
            });
        }
        Activity::Unpaused {} => {
            session.lift_pause(event.actor.kind != crate::ledger::event::ActorKind::Baton);
        }
        Activity::CollisionOpened {
            by_session,
            file,
            severity,
        } => session.open_collisions.push(Collision {
            id: event.id,
            by_session: *by_session,
            file: file.clone(),
            severity: *severity,
            at: event.at,
        }),
        Activity::CollisionClosed { collision, .. } => {
            session.open_collisions.retain(|c| c.id != *collision);
        }
        Activity::HealthComputed { report, .. } => session.health = Some(report.clone()),
        Activity::Liveness {
            state,
            reason,
            evidence,
        } => {
            let named = crate::ledger::liveness::tied_process(evidence);
            let process = named.or_else(|| session.liveness.as_ref().and_then(|l| l.process));
            session.liveness = Some(crate::ledger::liveness::LivenessSeen {
                state: *state,
                at: event.at,
                reason: reason.clone(),
                evidence: evidence.clone(),
                process,
            });
        }
        _ => {}
    }
}

fn usage_key(entry: &(u64, TokenTotals, Option<u64>)) -> (u64, [u64; 5]) {
    let t = &entry.1;
    (
        entry.0,
        [
            t.input_tokens,
            t.output_tokens,
            t.cache_creation_tokens,
            t.cache_read_tokens,
            t.reasoning_tokens,
        ],
    )
}

/// What the fold saw, line by line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FoldStats {
    /// Lines read (blank lines included).
    pub lines: u64,
    /// Well-formed events read, duplicates included.
    pub events: u64,
    /// Events whose id had already been folded.
    pub duplicate_events: u64,
    /// Events of a kind this build does not know (kept, not applied).
    pub unknown_kind_events: u64,
    /// Unreadable lines: not UTF-8, not JSON, or malformed schema-1 events.
    pub corrupt_lines: u64,
    /// Valid JSON of another schema.
    pub foreign_lines: u64,
    /// The first few problems, with where they were.
    pub problems: Vec<LineProblem>,
}

/// One unreadable line, for reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LineProblem {
    /// The file or stream it was in.
    pub source: String,
    /// The byte offset where the line starts.
    pub offset: u64,
    /// `corrupt` or `foreign`.
    pub kind: String,
    /// Why.
    pub reason: String,
}

impl FoldStats {
    /// Adds another set of counts to this one.
    pub fn absorb(&mut self, other: FoldStats) {
        self.lines += other.lines;
        self.events += other.events;
        self.duplicate_events += other.duplicate_events;
        self.unknown_kind_events += other.unknown_kind_events;
        self.corrupt_lines += other.corrupt_lines;
        self.foreign_lines += other.foreign_lines;
        for p in other.problems {
            self.note_problem(p);
        }
    }

    fn note_problem(&mut self, problem: LineProblem) {
        if self.problems.len() < MAX_REPORTED_PROBLEMS {
            self.problems.push(problem);
        }
    }
}

/// What [`Fold::apply_line`] found, without the event itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineClass {
    /// An event, now folded.
    Event,
    /// A log header with its generation.
    Header(String),
    /// A blank line.
    Blank,
    /// An unreadable line (counted).
    Corrupt,
    /// A line of another schema (counted).
    Foreign,
}

/// The fold of a whole ledger (or of a part of one).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fold {
    sessions: BTreeMap<SessionId, SessionHistory>,
    /// Counts of what was read.
    pub stats: FoldStats,
}

impl Fold {
    /// An empty fold.
    pub fn new() -> Fold {
        Fold::default()
    }

    /// Folds one event in; returns false when it was a duplicate.
    pub fn apply(&mut self, event: Event) -> bool {
        self.stats.events += 1;
        if matches!(event.payload, Payload::Unknown { .. }) {
            self.stats.unknown_kind_events += 1;
        }
        let fresh = self
            .sessions
            .entry(event.session)
            .or_default()
            .insert(event);
        if !fresh {
            self.stats.duplicate_events += 1;
        }
        fresh
    }

    /// Folds one line of a ledger file. `source` and `offset` locate it in reports.
    pub fn apply_line(&mut self, bytes: &[u8], source: &str, offset: u64) -> LineClass {
        self.stats.lines += 1;
        match decode_line(bytes) {
            Line::Event(event) => {
                self.apply(*event);
                LineClass::Event
            }
            Line::Corrupt { reason } => {
                self.stats.corrupt_lines += 1;
                self.stats.note_problem(LineProblem {
                    source: source.to_owned(),
                    offset,
                    kind: "corrupt".into(),
                    reason,
                });
                LineClass::Corrupt
            }
            Line::Foreign { reason } => {
                self.stats.foreign_lines += 1;
                self.stats.note_problem(LineProblem {
                    source: source.to_owned(),
                    offset,
                    kind: "foreign".into(),
                    reason,
                });
                LineClass::Foreign
            }
            Line::Header { generation } => LineClass::Header(generation),
            Line::Blank => LineClass::Blank,
        }
    }

    /// Folds a whole NDJSON text. A last line without a newline is folded too (a torn line is
    /// simply counted as corrupt).
    pub fn apply_text(&mut self, bytes: &[u8], source: &str) {
        let mut offset = 0u64;
        for chunk in bytes.split_inclusive(|&b| b == b'\n') {
            let line = chunk.strip_suffix(b"\n").unwrap_or(chunk);
            self.apply_line(line, source, offset);
            offset += chunk.len() as u64;
        }
    }

    /// Joins another fold into this one (the fold of the union of their events).
    pub fn join(&mut self, other: Fold) {
        for (id, history) in other.sessions {
            self.join_history(id, history);
        }
        self.stats.absorb(other.stats);
    }

    /// Adds a whole session history (from a checkpoint or a rollup).
    pub fn join_history(&mut self, id: SessionId, history: SessionHistory) {
        let dupes = self.sessions.entry(id).or_default().join(history);
        self.stats.duplicate_events += dupes;
    }

    /// The history of one session.
    pub fn history(&self, id: SessionId) -> Option<&SessionHistory> {
        self.sessions.get(&id)
    }

    /// Every session history, by id.
    pub fn histories(&self) -> impl Iterator<Item = (&SessionId, &SessionHistory)> {
        self.sessions.iter()
    }

    /// Consumes the fold into its histories.
    pub fn into_histories(self) -> BTreeMap<SessionId, SessionHistory> {
        self.sessions
    }

    /// One session's view.
    pub fn session(&self, id: SessionId) -> Option<Session> {
        self.sessions.get(&id).and_then(SessionHistory::session)
    }

    /// Every session with a known start, oldest id first (ids are time-ordered).
    pub fn sessions(&self) -> Vec<Session> {
        self.sessions
            .values()
            .filter_map(SessionHistory::session)
            .collect()
    }

    /// Ids with events but no `started` event (their start was lost or not yet seen).
    pub fn orphan_ids(&self) -> Vec<SessionId> {
        self.sessions
            .iter()
            .filter(|(id, h)| is_orphan(**id, h))
            .map(|(id, _)| *id)
            .collect()
    }

    /// How many distinct events are folded.
    pub fn distinct_events(&self) -> usize {
        self.sessions.values().map(SessionHistory::len).sum()
    }
}

/// The one orphan rule: a stream with events but no `started` event lost its start (or has not
/// seen it yet), except the workspace and records streams, which never have one.
pub fn is_orphan(id: SessionId, history: &SessionHistory) -> bool {
    id != crate::ids::WORKSPACE_STREAM
        && id != crate::ids::RECORDS_STREAM
        && history.session().is_none()
}
