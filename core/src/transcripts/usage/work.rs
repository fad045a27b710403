//! Usage per work session: which work session each counted response belongs to, and by what
//! rule. A response whose provider session id is a work session's (the id a hook or MCP start
//! recorded) is that session's; otherwise it is the one work session of the same project and
//! agent whose span holds the response's time, when exactly one does. The same project means
//! the response's working directory is at or under the ledger's project folder when the host
//! names it, else that its last folder is the session's project name. Everything else stays
//! unlinked: a response is never guessed onto a session. Also the hand-off chain a session
//! belongs to, for a chain's total.

use crate::ids::SessionId;
use crate::ledger::session::Session;
use crate::time::Timestamp;
use crate::transcripts::{Provider, UsageEntry};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// How a transcript's responses were tied to a work session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum LinkRule {
    /// The transcript's session id is the one the work session recorded at its start.
    ProviderSessionId,
    /// Same project and agent, and the response fell within the work session's span (the only
    /// such session).
    ProjectAgentTime,
}

impl LinkRule {
    /// The rule in words, for people.
    pub fn describe(self) -> &'static str {
        match self {
            LinkRule::ProviderSessionId => "its provider session id",
            LinkRule::ProjectAgentTime => "same project and agent, within the session's time",
        }
    }
}

/// One transcript's part in a work session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TranscriptLink {
    /// Whose transcript.
    pub provider: Provider,
    /// Its session id.
    pub provider_session_id: String,
    /// How it was tied.
    pub rule: LinkRule,
    /// How many of its counted responses fell to this work session.
    pub responses: u64,
}

/// The agent names a provider's transcripts can belong to.
fn agent_fits(provider: Provider, agent: &str) -> bool {
    provider
        .entry()
        .agent_names
        .iter()
        .any(|name| agent.starts_with(name))
}

/// The last folder of a working directory: the project name a work session records.
fn project_name(cwd: &str) -> &str {
    cwd.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(cwd)
}

/// Whether `at` falls within a session's span (an open session runs until now).
fn spans(session: &Session, at: Timestamp) -> bool {
    at >= session.started_at && session.ended_at.is_none_or(|end| at <= end)
}

/// Whether a working directory is `root` or inside it.
fn under(cwd: &str, root: &str) -> bool {
    let root = root.trim_end_matches(['/', '\\']);
    let cwd = cwd.trim_end_matches(['/', '\\']);
    cwd == root
        || cwd
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with(['/', '\\']))
}

/// Ties responses to work sessions.
#[derive(Debug)]
pub struct Linker<'a> {
    sessions: &'a [Session],
    by_provider_id: HashMap<&'a str, Vec<usize>>,
    root: Option<&'a str>,
}

impl<'a> Linker<'a> {
    /// A linker over these work sessions, the ledger's project folder `root` when known.
    pub fn new(sessions: &'a [Session], root: Option<&'a str>) -> Linker<'a> {
        let mut by_provider_id: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, session) in sessions.iter().enumerate() {
            for id in [&session.provider_session_id, &session.attempt_id]
                .into_iter()
                .flatten()
            {
                by_provider_id.entry(id.as_str()).or_default().push(i);
            }
        }
        Linker {
            sessions,
            by_provider_id,
            root,
        }
    }

    /// The work session (its index) a response belongs to, and by what rule.
    pub fn link(&self, entry: &UsageEntry) -> Option<(usize, LinkRule)> {
        if let Some(candidates) = self.by_provider_id.get(entry.session.as_ref()) {
            // One Claude session can span several work sessions (ended, then resumed with
            // `--resume`): the one whose span holds the response, else the latest that started
            // before it, else the first.
            let chosen = candidates
                .iter()
                .copied()
                .find(|&i| spans(&self.sessions[i], entry.at))
                .or_else(|| {
                    candidates
                        .iter()
                        .copied()
                        .filter(|&i| self.sessions[i].started_at <= entry.at)
                        .max_by_key(|&i| self.sessions[i].started_at)
                })
                .or_else(|| candidates.first().copied())?;
            return Some((chosen, LinkRule::ProviderSessionId));
        }
        let cwd = entry.project.as_deref()?;
        let same_project = |s: &Session| match self.root {
            Some(root) => under(cwd, root),
            None => s.project == project_name(cwd),
        };
        let mut fitting = self.sessions.iter().enumerate().filter(|(_, s)| {
            same_project(s) && agent_fits(entry.provider, &s.agent) && spans(s, entry.at)
        });
        match (fitting.next(), fitting.next()) {
            (Some((i, _)), None) => Some((i, LinkRule::ProjectAgentTime)),
            _ => None,
        }
    }
}

/// Entries re-keyed by work session (each linked entry's `session` becomes its work session's
/// path, the rest are dropped), with each work session's transcript links.
#[derive(Debug, Clone, Default)]
pub struct ByWorkSession {
    /// The linked entries, keyed by work-session path.
    pub entries: Vec<UsageEntry>,
    /// Per work-session path: its id and its transcripts.
    pub links: BTreeMap<String, (SessionId, Vec<TranscriptLink>)>,
    /// Responses no work session fits.
    pub unlinked: u64,
}

/// Re-keys counted entries by the work session each belongs to.
pub fn by_work_session(
    entries: Vec<UsageEntry>,
    sessions: &[Session],
    root: Option<&str>,
) -> ByWorkSession {
    let linker = Linker::new(sessions, root);
    let paths: Vec<Arc<str>> = sessions
        .iter()
        .map(|s| Arc::from(s.path.as_str()))
        .collect();
    let mut out = ByWorkSession::default();
    let mut counts: BTreeMap<(usize, Provider, Arc<str>, LinkRule), u64> = BTreeMap::new();
    for mut entry in entries {
        match linker.link(&entry) {
            Some((i, rule)) => {
                *counts
                    .entry((i, entry.provider, entry.session.clone(), rule))
                    .or_default() += 1;
                entry.session = paths[i].clone();
                out.entries.push(entry);
            }
            None => out.unlinked += 1,
        }
    }
    for ((i, provider, id, rule), responses) in counts {
        out.links
            .entry(sessions[i].path.clone())
            .or_insert_with(|| (sessions[i].session_id, Vec::new()))
            .1
            .push(TranscriptLink {
                provider,
                provider_session_id: id.to_string(),
                rule,
                responses,
            });
    }
    out
}

/// The hand-off chain a session belongs to: its first ancestor and every session handed off
/// from it, directly or not, oldest first. For many sessions, build [`Chains`] once.
pub fn chain(sessions: &[Session], id: SessionId) -> Vec<SessionId> {
    Chains::of(sessions).chain(id)
}

/// A ledger's hand-off links, read once: each session's parent, the sessions handed off from
/// it (in the ledger's order) and when each started.
#[derive(Debug, Clone, Default)]
pub struct Chains {
    parent: HashMap<SessionId, SessionId>,
    children: HashMap<SessionId, Vec<SessionId>>,
    started: HashMap<SessionId, Timestamp>,
    sessions: usize,
}

impl Chains {
    /// The links of `sessions`.
    pub fn of(sessions: &[Session]) -> Chains {
        let mut chains = Chains {
            sessions: sessions.len(),
            ..Chains::default()
        };
        for s in sessions {
            chains.started.insert(s.session_id, s.started_at);
            if let Some(p) = s.parent_session_id {
                chains.parent.insert(s.session_id, p);
                chains.children.entry(p).or_default().push(s.session_id);
            }
        }
        chains
    }

    /// The chain `id` belongs to (see [`chain`]).
    pub fn chain(&self, id: SessionId) -> Vec<SessionId> {
        let mut root = id;
        let mut steps = 0;
        while let Some(&up) = self.parent.get(&root) {
            root = up;
            steps += 1;
            if steps > self.sessions {
                break;
            }
        }
        let mut members = vec![root];
        let mut seen: std::collections::HashSet<SessionId> = [root].into_iter().collect();
        let mut next = 0;
        while next < members.len() {
            let current = members[next];
            for child in self.children.get(&current).into_iter().flatten() {
                if seen.insert(*child) {
                    members.push(*child);
                }
            }
            next += 1;
        }
        members.sort_by_key(|m| (self.started.get(m).copied(), *m));
        members
    }
}
