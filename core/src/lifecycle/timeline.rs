//! The timeline: every event of a session in order, with a summary, its actor and the tone the
//! spec groups it by — amber for blocks, pauses and staleness; red for failures, collisions and
//! refused runs; green for completion.

use crate::ledger::activity::Activity;
use crate::ledger::activity::Verdict;
use crate::ledger::event::{ActorKind, Event, Outcome, Payload};
use crate::ledger::fold::SessionHistory;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// How an entry should be marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Tone {
    /// Nothing to flag.
    Plain,
    /// A block, deviation, staleness or pause.
    Amber,
    /// A failure, collision or refused run.
    Red,
    /// Completion.
    Green,
}

/// One line of the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TimelineEntry {
    /// When.
    pub at: Timestamp,
    /// The timeline kind (e.g. `started`, `step_done`, `completed`).
    pub kind: String,
    /// What happened, in words.
    pub summary: String,
    /// `agent`, `baton` or `human`.
    pub actor: ActorKind,
    /// Who, by name.
    pub actor_name: String,
    /// plain, amber, red, green.
    pub tone: Tone,
}

fn entry(event: &Event) -> (String, String, Tone) {
    use Tone::{Amber, Green, Plain, Red};
    let (kind, summary, tone): (String, String, Tone) = match &event.payload {
        Payload::Started(s) => (
            "started".into(),
            format!(
                "Started by {} on {}{}",
                s.agent,
                s.project,
                s.goal
                    .as_ref()
                    .map(|g| format!(": {g}"))
                    .unwrap_or_default()
            ),
            Plain,
        ),
        Payload::Resumed(r) => (
            "resumed".into(),
            format!(
                "Session reconnected{}",
                r.client_name
                    .as_ref()
                    .map(|c| format!(" from {c}"))
                    .unwrap_or_default()
            ),
            Plain,
        ),
        Payload::Ended(e) if e.outcome == Outcome::Failed => (
            "failed".into(),
            format!(
                "Ended as failed{}",
                e.summary
                    .as_ref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            ),
            Red,
        ),
        Payload::Ended(e) => (
            "completed".into(),
            format!(
                "Ended as complete{}",
                e.summary
                    .as_ref()
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default()
            ),
            Green,
        ),
        Payload::Corrected(_) => (
            "corrected".into(),
            "A description was corrected".into(),
            Plain,
        ),
        Payload::Usage(u) => (
            "usage".into(),
            format!("Usage from {} up to byte {}", u.source, u.offset),
            Plain,
        ),
        Payload::RecordStored(r) => (
            crate::ledger::record::RECORD_STORED.into(),
            format!(
                "Stored the record {}",
                r.about.title.as_deref().unwrap_or("(untitled)")
            ),
            Plain,
        ),
        Payload::Unknown { kind, .. } => (
            kind.clone(),
            format!("An event of a newer kind ({kind})"),
            Plain,
        ),
        Payload::Activity(a) => match a {
            Activity::Briefed {
                mission,
                contract_version,
                ..
            } => (
                "briefed".into(),
                match (mission, contract_version) {
                    (Some(m), Some(v)) => format!("Briefed on {m} contract v{v}"),
                    _ => "Briefed".into(),
                },
                Plain,
            ),
            Activity::PauseDelivered { reason } => (
                "pause_delivered".into(),
                format!("Told it is paused: {reason}"),
                Amber,
            ),
            Activity::ChangedFiles { files, .. } => (
                "changed_files".into(),
                format!("Changed {}", files.join(", ")),
                Plain,
            ),
            Activity::Blocked { reason, .. } => (
                "blocked".into(),
                format!(
                    "Blocked{}",
                    reason
                        .as_ref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                ),
                Amber,
            ),
            Activity::ImplementationComplete { .. } => (
                "implementation_complete".into(),
                "Implementation complete; awaiting review".into(),
                Green,
            ),
            Activity::Progress { percent, .. } => (
                "progress".into(),
                format!("Progress {percent}% (self-reported)"),
                Plain,
            ),
            Activity::PlanCreated { steps, .. } => (
                "plan_created".into(),
                format!("Plan of {} step(s)", steps.len()),
                Plain,
            ),
            Activity::Step { number, state, .. } => (
                format!("step_{}", state.as_str()),
                format!("Step {number} is {}", state.as_str().replace('_', " ")),
                if *state == crate::ledger::activity::StepState::Blocked {
                    Amber
                } else {
                    Plain
                },
            ),
            Activity::DecisionRequested { text, .. } => (
                "decision_requested".into(),
                format!("Asked for a decision: {text}"),
                Plain,
            ),
            Activity::DecisionResolved { number, .. } => (
                "decision_resolved".into(),
                format!("Decision {number} resolved"),
                Plain,
            ),
            Activity::RunRecorded {
                provider,
                model,
                purpose,
                input_tokens,
                output_tokens,
                ..
            } => (
                "run_recorded".into(),
                format!("{provider}/{model} for {purpose}: {input_tokens} in, {output_tokens} out"),
                Plain,
            ),
            Activity::RunRefused { reason, .. } => {
                ("run_refused".into(), format!("Run refused: {reason}"), Red)
            }
            Activity::Evidence { text, .. } => {
                ("evidence".into(), format!("Evidence: {text}"), Plain)
            }
            Activity::PullRequestReported { url, .. } => (
                "pull_request_reported".into(),
                format!("Pull request {url}"),
                Plain,
            ),
            Activity::DependenciesDeclared { files } => (
                "dependencies_declared".into(),
                format!("Depends on {}", files.join(", ")),
                Plain,
            ),
            Activity::Paused { reason, .. } => (
                "paused".into(),
                format!("Paused by {}: {reason}", event.actor.name),
                Amber,
            ),
            Activity::Unpaused {} => (
                "unpaused".into(),
                "Unpaused; its context is not current until the next brief".into(),
                Plain,
            ),
            Activity::CollisionOpened {
                by_session,
                file,
                severity,
            } => (
                "collision".into(),
                format!(
                    "{} collision: {by_session} changed {file}",
                    if *severity == crate::ledger::activity::Severity::High {
                        "High-severity"
                    } else {
                        "Normal"
                    }
                ),
                Red,
            ),
            Activity::CollisionClosed { reason, .. } => {
                ("collision_closed".into(), reason.clone(), Plain)
            }
            Activity::HealthComputed { report, trigger } => (
                "health".into(),
                format!(
                    "Context health {} ({:?}) after {}",
                    report.overall.map_or("—".to_owned(), |s| s.to_string()),
                    report.verdict,
                    trigger.as_str()
                )
                .to_lowercase(),
                if report.verdict == Verdict::Healthy {
                    Plain
                } else {
                    Amber
                },
            ),
            Activity::Liveness { state, reason, .. } => (
                format!("liveness_{}", state.as_str()),
                format!("Agent {}: {reason}", state.as_str()),
                match state {
                    crate::ledger::liveness::Liveness::Gone => Red,
                    crate::ledger::liveness::Liveness::Idle => Amber,
                    _ => Plain,
                },
            ),
            Activity::NoteConflict { path, copy } => (
                "note_conflict".into(),
                format!("Its note {path} kept changing; Baton's update is in {copy}"),
                Amber,
            ),
            other => (other.kind().into(), other.kind().replace('_', " "), Plain),
        },
    };
    (kind, summary, tone)
}

/// What the workspace stream says a person should look at about `session`, as timeline
/// entries: each attention item raised about it, and each one cleared (by Baton when its
/// cause went away, or by whoever marked it done).
pub fn attention_entries(
    workspace: Option<&SessionHistory>,
    session: crate::ids::SessionId,
) -> Vec<TimelineEntry> {
    let Some(workspace) = workspace else {
        return Vec::new();
    };
    let mut raised_here = std::collections::HashSet::new();
    let mut out = Vec::new();
    for event in workspace.ordered() {
        let Payload::Activity(activity) = &event.payload else {
            continue;
        };
        let (kind, summary, tone) = match activity {
            Activity::AttentionRaised {
                session: about,
                text,
                ..
            } if *about == session => {
                raised_here.insert(event.id);
                (
                    "attention_raised",
                    format!("Needs a person: {text}"),
                    Tone::Amber,
                )
            }
            Activity::AttentionCleared { raised, reason } if raised_here.contains(raised) => (
                "attention_cleared",
                format!("Attention cleared: {reason}"),
                Tone::Plain,
            ),
            _ => continue,
        };
        out.push(TimelineEntry {
            at: event.at,
            kind: kind.into(),
            summary,
            actor: event.actor.kind,
            actor_name: event.actor.name.clone(),
            tone,
        });
    }
    out
}

/// A session's timeline, oldest first. A brief after the first is shown as `rebriefed`.
pub fn timeline(history: &SessionHistory) -> Vec<TimelineEntry> {
    let mut briefed_before = false;
    history
        .ordered()
        .into_iter()
        .map(|event| {
            let (mut kind, summary, tone) = entry(event);
            if kind == "briefed" {
                if briefed_before {
                    kind = "rebriefed".into();
                }
                briefed_before = true;
            }
            TimelineEntry {
                at: event.at,
                kind,
                summary,
                actor: event.actor.kind,
                actor_name: event.actor.name.clone(),
                tone,
            }
        })
        .collect()
}
