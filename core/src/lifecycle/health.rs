//! Context health: six dimensions, each a comparison against something recorded, scored in
//! integers so native and wasm agree. The overall is the minimum (health is a floor), a
//! dimension that cannot be computed is blank with its reason, and a re-brief is recommended
//! when the session is stale or any dependency it declared was broken.

use crate::ledger::activity::{Dimension, HealthReport, Severity, Verdict};
use crate::ledger::session::Session;
use crate::lifecycle::workspace::Workspace;

/// At or above this, healthy.
pub const HEALTHY_FROM: u32 = 85;
/// Below this, stale.
pub const STALE_BELOW: u32 = 60;

fn scored(name: &str, score: i64, reason: String) -> Dimension {
    Dimension {
        name: name.to_owned(),
        score: Some(score.clamp(0, 100) as u32),
        reason,
    }
}

fn blank(name: &str, reason: &str) -> Dimension {
    Dimension {
        name: name.to_owned(),
        score: None,
        reason: reason.to_owned(),
    }
}

const NO_MISSION: &str =
    "No mission is attached to this session, so there is no contract to compare with.";
const NO_MISSION_REQUIREMENTS: &str =
    "No mission is attached to this session, so there are no requirements to be unsure of.";
const NO_CONSTITUTION: &str = "The workspace has no architecture constitution yet; write one from the indexed repository and set it with `baton constitution set`.";
const NEVER_BRIEFED: &str = "Never briefed (or the brief was cleared by an unpause).";

fn mission_understanding(session: &Session, ws: &Workspace) -> Dimension {
    const NAME: &str = "mission_understanding";
    let Some(reference) = &session.mission else {
        return blank(NAME, NO_MISSION);
    };
    let Some(mission) = ws.mission(reference) else {
        return blank(
            NAME,
            &format!("Mission {reference} has no contract in this workspace."),
        );
    };
    let Some(brief) = &session.brief else {
        return scored(NAME, 0, NEVER_BRIEFED.to_owned());
    };
    let current = mission.current();
    let briefed = brief.contract_version.unwrap_or(0);
    if current.version == briefed {
        return scored(
            NAME,
            100,
            format!("Briefed on the current contract (v{briefed})."),
        );
    }
    let before = mission
        .version(briefed)
        .map(|v| v.clauses.as_slice())
        .unwrap_or(&[]);
    let added = current
        .clauses
        .iter()
        .filter(|c| !before.contains(c))
        .count() as i64;
    scored(
        NAME,
        (100 - 10 * added).min(50),
        format!(
            "The contract moved from v{briefed} to v{} since the brief ({added} clause(s) added); a version bump caps this at 50.",
            current.version
        ),
    )
}

fn architecture_context(session: &Session, ws: &Workspace) -> Dimension {
    const NAME: &str = "architecture_context";
    let Some(current) = ws.constitution_version else {
        return blank(NAME, NO_CONSTITUTION);
    };
    let Some(brief) = &session.brief else {
        return scored(NAME, 0, NEVER_BRIEFED.to_owned());
    };
    let drift = i64::from(current.saturating_sub(brief.constitution_version.unwrap_or(0)));
    scored(
        NAME,
        100 - 35 * drift,
        format!("Constitution v{current}; {drift} version(s) of drift since the brief (−35 each)."),
    )
}

fn repository_state(session: &Session, ws: &Workspace) -> Dimension {
    const NAME: &str = "repository_state";
    let Some(indexed) = &ws.indexed_commit else {
        return blank(NAME, "No repository commit is indexed; run `baton index`.");
    };
    let Some(start) = &session.start_commit else {
        return blank(
            NAME,
            "The session did not record the commit it started from.",
        );
    };
    if start == indexed {
        scored(
            NAME,
            100,
            format!("Started from the indexed commit {indexed}."),
        )
    } else {
        scored(
            NAME,
            55,
            format!(
                "Started from {start}, but {indexed} is indexed: not current (by how much is unknown without walking history)."
            ),
        )
    }
}

fn requirement_confidence(session: &Session, ws: &Workspace) -> Dimension {
    const NAME: &str = "requirement_confidence";
    let Some(reference) = &session.mission else {
        return blank(NAME, NO_MISSION_REQUIREMENTS);
    };
    let open = ws.open_ambiguities(reference) as i64;
    scored(
        NAME,
        100 - 30 * open,
        format!(
            "{open} open requirement ambiguit{} on {reference} (−30 each).",
            if open == 1 { "y" } else { "ies" }
        ),
    )
}

fn dependencies_current(session: &Session) -> Dimension {
    let high = session
        .open_collisions
        .iter()
        .filter(|c| c.severity == Severity::High)
        .count() as i64;
    let normal = session.open_collisions.len() as i64 - high;
    scored(
        "dependencies_current",
        100 - 45 * high - 15 * normal,
        format!(
            "{high} high and {normal} other open collision(s) where this session is affected (−45 / −15)."
        ),
    )
}

fn decisions_current(session: &Session, ws: &Workspace) -> Dimension {
    const NAME: &str = "decisions_current";
    let Some(brief) = &session.brief else {
        return scored(NAME, 0, NEVER_BRIEFED.to_owned());
    };
    let newer = ws.decisions.iter().filter(|d| d.at > brief.at).count() as i64;
    scored(
        NAME,
        100 - 40 * newer,
        format!("{newer} active decision(s) recorded after the brief (−40 each)."),
    )
}

/// The verdict for an overall score.
pub fn verdict(overall: Option<u32>) -> Verdict {
    match overall {
        None => Verdict::Healthy,
        Some(s) if s < STALE_BELOW => Verdict::Stale,
        Some(s) if s < HEALTHY_FROM => Verdict::Degraded,
        Some(_) => Verdict::Healthy,
    }
}

/// Scores a session against the workspace.
pub fn assess(session: &Session, ws: &Workspace) -> HealthReport {
    let dimensions = vec![
        mission_understanding(session, ws),
        architecture_context(session, ws),
        repository_state(session, ws),
        requirement_confidence(session, ws),
        dependencies_current(session),
        decisions_current(session, ws),
    ];
    let overall = dimensions.iter().filter_map(|d| d.score).min();
    let verdict = verdict(overall);
    let mut rebrief_reasons = Vec::new();
    if verdict == Verdict::Stale {
        rebrief_reasons.push(format!(
            "Overall {} is below {STALE_BELOW}: stale.",
            overall.unwrap_or(0)
        ));
    }
    for c in session
        .open_collisions
        .iter()
        .filter(|c| c.severity == Severity::High)
    {
        rebrief_reasons.push(format!(
            "{} changed {}, which this session depends on: its work is built on something that moved.",
            c.by_session, c.file
        ));
    }
    HealthReport {
        overall,
        verdict,
        dimensions,
        recommend_rebrief: !rebrief_reasons.is_empty(),
        rebrief_reasons,
    }
}
