//! Usage by work session, and rolled up by what the work sessions name: their branch,
//! mission, pull request or hand-off chain (the rows of `usage session --work`, `usage branch`
//! and the rest).

use super::{GroupBy, ReportOptions, UsageReport, UsageRow, aggregate, work};
use crate::transcripts::UsageEntry;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A report by work session: what each row's transcripts are, and what fitted no session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkSessions {
    /// Per row key (the work session's path): its id and its transcripts with their rule.
    pub links: BTreeMap<String, WorkSessionLinks>,
    /// Counted responses in the window that no work session fits (left out of the rows).
    pub unlinked_responses: u64,
}

/// One work session's transcripts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkSessionLinks {
    /// The work session.
    pub session_id: crate::ids::SessionId,
    /// Its transcripts, with the rule that tied each.
    pub transcripts: Vec<work::TranscriptLink>,
}

/// Groups entries by the work session each belongs to (see [`work`]): one row per work session,
/// keyed by its path, with the transcripts and rules behind it; entries no session fits are
/// counted, not shown.
pub fn aggregate_by_work_session(
    entries: Vec<UsageEntry>,
    sessions: &[crate::ledger::session::Session],
    root: Option<&str>,
    options: &ReportOptions<'_>,
    skipped: BTreeMap<String, u64>,
) -> UsageReport {
    let windowed: Vec<UsageEntry> = entries.into_iter().filter(|e| options.admits(e)).collect();
    let keyed = work::by_work_session(windowed, sessions, root);
    let mut report = aggregate(
        &keyed.entries,
        &ReportOptions {
            group_by: GroupBy::Session,
            ..*options
        },
        skipped,
    );
    report.work_sessions = Some(WorkSessions {
        links: keyed
            .links
            .into_iter()
            .map(|(path, (session_id, transcripts))| {
                (
                    path,
                    WorkSessionLinks {
                        session_id,
                        transcripts,
                    },
                )
            })
            .collect(),
        unlinked_responses: keyed.unlinked,
    });
    report
}

/// Groups entries by something of the work session each belongs to (see [`work`]): its
/// branch, mission, pull request or hand-off chain; a session without one counts under
/// `(none)`. Entries no work session fits are counted, not shown.
pub fn aggregate_by_work_key(
    entries: Vec<UsageEntry>,
    sessions: &[crate::ledger::session::Session],
    root: Option<&str>,
    options: &ReportOptions<'_>,
    skipped: BTreeMap<String, u64>,
) -> UsageReport {
    let mut report = aggregate_by_work_session(entries, sessions, root, options, skipped);
    // The rows are per work session: each goes to its key.
    let by_path: HashMap<&str, &crate::ledger::session::Session> =
        sessions.iter().map(|s| (s.path.as_str(), s)).collect();
    let none = "(none)";
    let chains = (options.group_by == GroupBy::Chain).then(|| work::Chains::of(sessions));
    let by_id: HashMap<crate::SessionId, &crate::ledger::session::Session> =
        sessions.iter().map(|s| (s.session_id, s)).collect();
    let key_of = |path: &str| -> String {
        let Some(session) = by_path.get(path) else {
            return none.to_owned();
        };
        let key = match options.group_by {
            GroupBy::Branch => session.branch.clone(),
            GroupBy::Mission => session.mission.clone(),
            GroupBy::PullRequest => session.pull_request.clone(),
            GroupBy::Chain => chains
                .as_ref()
                .and_then(|c| c.chain(session.session_id).first().copied())
                .and_then(|first| by_id.get(&first))
                .map(|s| s.path.clone()),
            _ => Some(path.to_owned()),
        };
        key.unwrap_or_else(|| none.to_owned())
    };
    let mut rows: BTreeMap<String, UsageRow> = BTreeMap::new();
    let mut models: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in std::mem::take(&mut report.rows) {
        let key = key_of(&row.key);
        models
            .entry(key.clone())
            .or_default()
            .extend(row.models.iter().cloned());
        let into = rows.entry(key.clone()).or_insert_with(|| UsageRow {
            key,
            ..UsageRow::default()
        });
        into.tokens.add(&row.tokens);
        into.total_tokens = into.tokens.total();
        into.cost_femto = into.cost_femto.saturating_add(row.cost_femto);
        into.delegated_tokens = into.delegated_tokens.saturating_add(row.delegated_tokens);
        into.delegated_femto = into.delegated_femto.saturating_add(row.delegated_femto);
        into.first_at = into.first_at.min(row.first_at).or(row.first_at);
        into.last_at = into.last_at.max(row.last_at);
    }
    report.rows = rows
        .into_iter()
        .map(|(key, mut row)| {
            row.seal(models.remove(&key).unwrap_or_default());
            row
        })
        .collect();
    report.group_by = options.group_by;
    report
}
