//! Work sessions at a glance, from the loaded ledgers: each session with its goal, status,
//! liveness, health and cost, in hand-off order (a session under the one it follows on from);
//! and the workspace's missions, decisions and open attention items. What the page's
//! work-session view draws; every rule it applies is the one the CLI asks.

use crate::analyzer::Analyzer;
use crate::ids::{SessionId, WORKSPACE_STREAM};
use crate::ledger::session::Session;
use crate::ledger::store::LedgerView;
use crate::lifecycle::workspace::{AttentionItem, Decision, Workspace};
use crate::transcripts::usage::{GroupBy, aggregate_by_work_session};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Where a session's cost comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// The loaded transcripts, tied to the session by the core's rule.
    Transcripts,
    /// What the session's hooks recorded in the ledger.
    Ledger,
}

/// One work session as the overview shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkSessionCard {
    /// The session, as the ledger folds it.
    #[serde(flatten)]
    pub session: Session,
    /// How deep it sits in its hand-off chain (0 for a session that follows no other).
    pub depth: usize,
    /// The sessions that follow on from it.
    pub handed_to: Vec<SessionId>,
    /// Its estimated cost in US dollars, when anything priced it.
    pub cost_usd: Option<f64>,
    /// Where that cost comes from.
    pub cost_source: Option<CostSource>,
}

/// A mission's newest contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MissionLine {
    /// Its reference (e.g. CLAIM-142).
    pub reference: String,
    /// The newest version.
    pub version: u32,
    /// Whether that version is approved.
    pub approved: bool,
    /// Its clauses.
    pub clauses: Vec<String>,
    /// Ambiguities still open on it.
    pub open_ambiguities: usize,
}

/// The work sessions and the workspace of everything loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkOverview {
    /// Every session, in hand-off order: chains newest first, each session followed by the
    /// ones it handed to, oldest first.
    pub sessions: Vec<WorkSessionCard>,
    /// The missions.
    pub missions: Vec<MissionLine>,
    /// The decisions in force.
    pub decisions: Vec<Decision>,
    /// The attention items still open, most urgent first.
    pub attention: Vec<AttentionItem>,
    /// Responses in the loaded transcripts that no work session fits.
    pub unlinked_responses: u64,
}

impl Analyzer {
    /// The work sessions and workspace of the loaded ledgers, costed from the loaded
    /// transcripts where they tie to a session, else from what the ledger recorded.
    pub fn work_overview(&self) -> crate::error::Result<WorkOverview> {
        let sessions = self.ledger.fold().sessions();
        let entries = self.usage_entries();
        let (costs, unlinked) = if entries.is_empty() || sessions.is_empty() {
            (BTreeMap::new(), 0)
        } else {
            let options = self.report_options(GroupBy::Session);
            let report =
                aggregate_by_work_session(entries, &sessions, None, &options, BTreeMap::new());
            let work = report.work_sessions.unwrap_or_default();
            let by_path: BTreeMap<&str, f64> = report
                .rows
                .iter()
                .map(|r| (r.key.as_str(), r.cost_usd))
                .collect();
            let costs: BTreeMap<SessionId, f64> = work
                .links
                .iter()
                .filter_map(|(path, link)| Some((link.session_id, *by_path.get(path.as_str())?)))
                .collect();
            (costs, work.unlinked_responses)
        };

        let known: BTreeSet<SessionId> = sessions.iter().map(|s| s.session_id).collect();
        let mut children: BTreeMap<SessionId, Vec<&Session>> = BTreeMap::new();
        let mut roots: Vec<&Session> = Vec::new();
        for s in &sessions {
            match s
                .parent_session_id
                .filter(|p| known.contains(p) && *p != s.session_id)
            {
                Some(parent) => children.entry(parent).or_default().push(s),
                None => roots.push(s),
            }
        }
        for kids in children.values_mut() {
            kids.sort_by_key(|s| (s.started_at, s.session_id));
        }
        // Newest chain first: by the latest activity anywhere in it.
        let latest = |root: &Session| {
            let mut latest = root.last_event_at;
            let mut stack = vec![root.session_id];
            let mut seen = BTreeSet::new();
            while let Some(id) = stack.pop() {
                if !seen.insert(id) {
                    continue;
                }
                for kid in children.get(&id).into_iter().flatten() {
                    latest = latest.max(kid.last_event_at);
                    stack.push(kid.session_id);
                }
            }
            latest
        };
        roots.sort_by_key(|s| std::cmp::Reverse((latest(s), s.session_id)));
        let mut ordered = Vec::with_capacity(sessions.len());
        let mut placed = BTreeSet::new();
        let mut stack: Vec<(&Session, usize)> = roots.iter().rev().map(|s| (*s, 0)).collect();
        while let Some((s, depth)) = stack.pop() {
            if !placed.insert(s.session_id) {
                continue;
            }
            let kids = children.get(&s.session_id).cloned().unwrap_or_default();
            stack.extend(kids.iter().rev().map(|k| (*k, depth + 1)));
            ordered.push(self.card(s, depth, &kids, &costs));
        }
        // A parent loop has no root: its sessions still show, at the top level.
        for s in &sessions {
            if !placed.contains(&s.session_id) {
                let kids = children.get(&s.session_id).cloned().unwrap_or_default();
                ordered.push(self.card(s, 0, &kids, &costs));
            }
        }

        let ws = Workspace::from_history(self.ledger.history(WORKSPACE_STREAM)?.as_ref());
        let missions = ws
            .missions
            .values()
            .map(|m| {
                let latest = m.latest();
                MissionLine {
                    reference: m.reference.clone(),
                    version: latest.version,
                    approved: latest.approved,
                    clauses: latest.clauses.clone(),
                    open_ambiguities: ws.open_ambiguities(&m.reference),
                }
            })
            .collect();
        Ok(WorkOverview {
            sessions: ordered,
            missions,
            decisions: ws.decisions.clone(),
            attention: crate::commands::attention::open_attention(&self.ledger)?,
            unlinked_responses: unlinked,
        })
    }

    fn card(
        &self,
        s: &Session,
        depth: usize,
        kids: &[&Session],
        costs: &BTreeMap<SessionId, f64>,
    ) -> WorkSessionCard {
        let (cost_usd, cost_source) = match (costs.get(&s.session_id), s.usage_cost_micro_usd) {
            (Some(cost), _) => (Some(*cost), Some(CostSource::Transcripts)),
            (None, Some(micro)) => (Some(micro as f64 / 1_000_000.0), Some(CostSource::Ledger)),
            (None, None) => (None, None),
        };
        WorkSessionCard {
            session: s.clone(),
            depth,
            handed_to: kids.iter().map(|k| k.session_id).collect(),
            cost_usd,
            cost_source,
        }
    }
}
