//! What each work session cost: from the mirror's index when there is one (each transcript
//! tied to its work session by the core's rules: its provider session id, else project, agent
//! and time), else from the usage the hooks recorded in the ledger. And a hand-off chain's
//! total.

use crate::store::Ledger;
use baton_core::Error;
use baton_core::SessionId;
use baton_core::ledger::session::Session;
use baton_core::tokens::TokenTotals;
use baton_core::transcripts::usage::work::TranscriptLink;
use serde::Serialize;
use std::collections::HashMap;

/// Where a session's figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// The mirror's index: every transcript tied to the session.
    Index,
    /// The `usage` events hooks recorded in the ledger.
    Ledger,
}

/// One work session's tokens and cost.
#[derive(Debug, Clone, Serialize)]
pub struct SessionCost {
    /// Its tokens.
    #[serde(flatten)]
    pub tokens: TokenTotals,
    /// input + output + cache creation + cache read.
    pub total_tokens: u64,
    /// In US dollars (none when nothing priced them).
    pub cost_usd: Option<f64>,
    /// Of `cost_usd`, what its sub-agents' responses cost (from the index, when any).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegated_cost_usd: Option<f64>,
    /// Its transcripts and the rule that tied each (from the index).
    pub transcripts: Vec<TranscriptLink>,
    /// Where the figures come from.
    pub source: CostSource,
}

/// The cost of each of a ledger's work sessions that has any.
#[derive(Debug, Clone, Default)]
pub struct WorkCosts {
    /// By session.
    pub by_session: HashMap<SessionId, SessionCost>,
}

impl WorkCosts {
    /// The figures of `id`, when it has any.
    pub fn of(&self, id: SessionId) -> Option<&SessionCost> {
        self.by_session.get(&id)
    }

    /// The total of the hand-off chain `id` belongs to, with its members, when it has more
    /// than one.
    pub fn chain_total(&self, sessions: &[Session], id: SessionId) -> Option<serde_json::Value> {
        let members = baton_core::transcripts::usage::work::chain(sessions, id);
        self.total_of(members)
    }

    /// The total of the work sessions of `id`'s project that started on its branch, with its
    /// members, when it has more than one.
    pub fn branch_total(&self, sessions: &[Session], id: SessionId) -> Option<serde_json::Value> {
        let mut total = self.total_of(branch_members(sessions, id))?;
        let branch = sessions
            .iter()
            .find(|s| s.session_id == id)
            .and_then(|s| s.branch.clone());
        total["branch"] = serde_json::Value::from(branch);
        Some(total)
    }

    /// The figures of `members` together, when there are two or more and one has any.
    fn total_of(&self, members: Vec<SessionId>) -> Option<serde_json::Value> {
        if members.len() < 2 {
            return None;
        }
        if members.iter().all(|m| self.of(*m).is_none()) {
            return None;
        }
        let mut tokens = TokenTotals::default();
        let mut cost: Option<f64> = None;
        for member in &members {
            if let Some(figures) = self.of(*member) {
                tokens.add(&figures.tokens);
                if let Some(c) = figures.cost_usd {
                    cost = Some(cost.unwrap_or(0.0) + c);
                }
            }
        }
        Some(serde_json::json!({
            "sessions": members,
            "total_tokens": tokens.total(),
            "tokens": tokens,
            "cost_usd": cost.map(|c| (c * 1_000_000.0).round() / 1_000_000.0),
        }))
    }
}

/// The work sessions of `id`'s project that started on its branch (none without one), oldest
/// first.
pub fn branch_members(sessions: &[Session], id: SessionId) -> Vec<SessionId> {
    let Some(of) = sessions.iter().find(|s| s.session_id == id) else {
        return Vec::new();
    };
    Branches::of(sessions).members(of)
}

/// A ledger's sessions by project and branch, oldest first, read once.
struct Branches<'a> {
    by: HashMap<(&'a str, &'a str), Vec<SessionId>>,
}

impl<'a> Branches<'a> {
    fn of(sessions: &'a [Session]) -> Branches<'a> {
        let mut ordered: Vec<&Session> = sessions.iter().filter(|s| s.branch.is_some()).collect();
        ordered.sort_by_key(|s| (s.started_at, s.session_id));
        let mut by: HashMap<(&str, &str), Vec<SessionId>> = HashMap::new();
        for s in ordered {
            if let Some(branch) = &s.branch {
                by.entry((s.project.as_str(), branch.as_str()))
                    .or_default()
                    .push(s.session_id);
            }
        }
        Branches { by }
    }

    /// The sessions of `of`'s project that started on its branch (none without one).
    fn members(&self, of: &Session) -> Vec<SessionId> {
        of.branch
            .as_deref()
            .and_then(|b| self.by.get(&(of.project.as_str(), b)))
            .cloned()
            .unwrap_or_default()
    }
}

/// The figures of the `focus` sessions (with their hand-off chains and branches) among all of a ledger's
/// `sessions`: from the index beside the ledger when there is one (the figures as of its last
/// mirror pass; every session is known to the linker, so a response two could own stays
/// unlinked), else from the ledger's usage events.
pub fn of_sessions(
    ledger: &Ledger,
    index: &std::path::Path,
    sessions: &[Session],
    focus: &[SessionId],
) -> Result<WorkCosts, Error> {
    let chains = baton_core::transcripts::usage::work::Chains::of(sessions);
    let branches = Branches::of(sessions);
    let by_id: HashMap<SessionId, &Session> = sessions.iter().map(|s| (s.session_id, s)).collect();
    let mut wanted: std::collections::HashSet<SessionId> = std::collections::HashSet::new();
    for id in focus {
        let on_branch = by_id
            .get(id)
            .map(|s| branches.members(s))
            .unwrap_or_default();
        wanted.extend(chains.chain(*id).into_iter().chain(on_branch));
    }
    let focused: Vec<&Session> = sessions
        .iter()
        .filter(|s| wanted.contains(&s.session_id))
        .collect();
    let mut costs = WorkCosts::default();
    if index.is_file() && !focused.is_empty() {
        let connection = crate::index::open_existing(index)?;
        catch_up(&connection, index, &focused);
        let options = crate::ops::usage::UsageOptions {
            work_sessions: Some(sessions.to_vec()),
            work_focus: crate::ops::usage::WorkFocus::of(&focused),
            work_root: ledger.dir().parent().map(|root| root.display().to_string()),
            ..crate::ops::usage::UsageOptions::everything(
                baton_core::transcripts::usage::GroupBy::Session,
                crate::os::zone::resolve(Some("UTC"))?,
            )
        };
        let report = crate::ops::mirror::usage::report(&connection, index, &options)?;
        let links = report.work_sessions.unwrap_or_default().links;
        for row in report.rows {
            if let Some(linked) = links
                .get(&row.key)
                .filter(|l| wanted.contains(&l.session_id))
            {
                costs.by_session.insert(
                    linked.session_id,
                    SessionCost {
                        tokens: row.tokens,
                        total_tokens: row.total_tokens,
                        cost_usd: Some(row.cost_usd),
                        delegated_cost_usd: (row.delegated_tokens > 0)
                            .then_some(row.delegated_cost_usd),
                        transcripts: linked.transcripts.clone(),
                        source: CostSource::Index,
                    },
                );
            }
        }
    }
    for session in focused {
        if session.usage.total() == 0 {
            continue;
        }
        // Never less than the ledger holds: an index that could not catch up (read-only,
        // locked) gives way to what the hooks recorded when that went further.
        if costs
            .by_session
            .get(&session.session_id)
            .is_some_and(|kept| kept.total_tokens >= session.usage.total())
        {
            continue;
        }
        costs.by_session.insert(
            session.session_id,
            SessionCost {
                tokens: session.usage,
                total_tokens: session.usage.total(),
                cost_usd: session
                    .usage_cost_micro_usd
                    .map(|micro| micro as f64 / 1_000_000.0),
                delegated_cost_usd: None,
                transcripts: Vec::new(),
                source: CostSource::Ledger,
            },
        );
    }
    Ok(costs)
}

/// Brings the index up to date with the transcripts the `sessions`' hooks have read further
/// than it (a Stop hook records usage after the last mirror pass), so a session's figures are
/// never older than its ledger's. Only those files are read, from the index's cursor on; a
/// failure leaves the index as it was (the ledger's figures then stand in).
fn catch_up(connection: &rusqlite::Connection, index: &std::path::Path, sessions: &[&Session]) {
    let mut behind: Vec<crate::ops::mirror::pass::Source> = Vec::new();
    for source in sessions.iter().flat_map(|s| &s.usage_sources) {
        let cursor: Option<i64> = connection
            .query_row(
                "SELECT cursor FROM sources WHERE path = ?1 AND missing = 0",
                [&source.source],
                |r| r.get(0),
            )
            .ok();
        if cursor.is_some_and(|c| u64::try_from(c).unwrap_or(0) >= source.offset) {
            continue;
        }
        let path = std::path::PathBuf::from(&source.source);
        // Whose transcript a hook counted, by its name (Codex's `rollout-…`, else Claude Code's).
        let name = crate::os::files::name_of(&path);
        let Some(provider) = baton_core::transcripts::providers::agent_of_transcript(&name) else {
            continue;
        };
        if !crate::ops::mirror::pass::wanted(provider, &path) {
            continue;
        }
        if !behind.iter().any(|b| b.path == path) {
            behind.push(crate::ops::mirror::pass::Source {
                path,
                provider,
                seen: None,
            });
        }
    }
    if behind.is_empty() {
        return;
    }
    let options = crate::ops::mirror::pass::PassOptions {
        sweep_missing: false,
        ..crate::ops::mirror::pass::PassOptions::default()
    };
    let caught = crate::ops::mirror::Mirror::open(index)
        .and_then(|mut mirror| mirror.pass(&behind, options, &mut |_| {}));
    if let Err(err) = caught {
        crate::os::warnings::warn(&format!(
            "the transcript index could not catch up with what the hooks recorded ({err}); their figures are shown where they went further"
        ));
    }
}

/// A session's cost in a few words: `$1.23 (sub-agents $0.40) · 45,678 tokens · 2 transcripts`.
pub fn describe(cost: &SessionCost) -> String {
    let mut dollars = cost
        .cost_usd
        .map_or_else(|| "cost unknown".to_owned(), |c| format!("${c:.2}"));
    if let Some(delegated) = cost.delegated_cost_usd {
        dollars.push_str(&format!(" (sub-agents ${delegated:.2})"));
    }
    let from = match cost.source {
        CostSource::Index => {
            let n = cost.transcripts.len();
            let rules: std::collections::BTreeSet<&str> =
                cost.transcripts.iter().map(|t| t.rule.describe()).collect();
            format!(
                "{n} transcript{} tied by {}",
                if n == 1 { "" } else { "s" },
                rules.into_iter().collect::<Vec<_>>().join(" / ")
            )
        }
        CostSource::Ledger => "as its hooks recorded it".to_owned(),
    };
    format!(
        "{dollars} · {} tokens · {from}",
        baton_core::analyzer::charts::scale::thousands(cost.total_tokens)
    )
}
