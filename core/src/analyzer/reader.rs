//! The reader: one conversation along its active branch or the branch through any message, with
//! the alternatives at each fork; and the sessions and timelines of loaded ledgers.

use crate::analyzer::Analyzer;
use crate::analyzer::list::ConversationHead;
use crate::error::{Error, Result};
use crate::time::Timestamp;
use crate::transcripts::conversation::tree::Tree;
use crate::transcripts::conversation::{Block, Message, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// One message of the branch being read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ViewMessage {
    /// Its id (pass it to `view` as `through` to read the branch through it).
    pub id: String,
    /// Who wrote it.
    pub role: Role,
    /// When.
    pub at: Option<Timestamp>,
    /// The model that wrote it.
    pub model: Option<String>,
    /// Its content.
    pub blocks: Vec<Block>,
    /// The ids of the alternatives at this point (itself included), in file order.
    pub alternatives: Vec<String>,
    /// Which of them this is (0-based).
    pub alternative: usize,
    /// Whether it belongs to a sub-agent's thread, shown after the call that started it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub side_chain: bool,
    /// The tokens of the response it is, when the transcript records them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::tokens::TokenTotals>,
}

/// One branch of a conversation, root first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConversationView {
    /// Which conversation.
    #[serde(flatten)]
    pub head: ConversationHead,
    /// Whether this is the branch the provider marked active.
    pub active: bool,
    /// Messages in all branches.
    pub total_messages: usize,
    /// The messages of this branch.
    pub messages: Vec<ViewMessage>,
}

pub(crate) fn not_found(index: usize) -> Error {
    Error::invalid(
        "conversation",
        format!("there is no conversation number {index}"),
    )
    .with("index", index)
}

impl Analyzer {
    /// One branch of conversation `index`: the active one, or the one through message
    /// `through` (then down the active branch where it rejoins it, else the newest child).
    pub fn view(&self, index: usize, through: Option<&str>) -> Result<ConversationView> {
        let c = self
            .conversations
            .get(index)
            .ok_or_else(|| not_found(index))?;
        let tree = Tree::new(c);
        let (by_id, children) = (&tree.by_id, &tree.children);
        let active: Vec<&Message> = c.active_branch();
        let active_ids: BTreeSet<&str> = active.iter().map(|m| m.id.as_str()).collect();
        let path: Vec<&Message> = match through {
            None => active.clone(),
            Some(id) => {
                let start = *by_id.get(id).ok_or_else(|| {
                    Error::invalid(
                        "message",
                        format!("conversation {index} has no message {id}"),
                    )
                    .with("message", id)
                })?;
                let mut up = Vec::new();
                let mut seen = BTreeSet::new();
                let mut cursor = Some(start);
                while let Some(m) = cursor {
                    if !seen.insert(m.id.as_str()) {
                        break;
                    }
                    up.push(m);
                    cursor = m.parent.as_deref().and_then(|p| by_id.get(p).copied());
                }
                up.reverse();
                let mut cursor = start;
                while let Some(kids) = children.get(&Some(cursor.id.as_str())) {
                    let next = kids
                        .iter()
                        .find(|k| active_ids.contains(k.id.as_str()))
                        .or(kids.last())
                        .copied();
                    match next {
                        Some(n) if seen.insert(n.id.as_str()) => {
                            up.push(n);
                            cursor = n;
                        }
                        _ => break,
                    }
                }
                up
            }
        };
        let is_active =
            path.len() == active.len() && path.iter().zip(&active).all(|(a, b)| a.id == b.id);
        // The branch, with the side chains of tool work of each of its messages after it.
        let on_path: BTreeSet<&str> = path.iter().map(|m| m.id.as_str()).collect();
        let mut shown: Vec<&Message> = Vec::with_capacity(path.len());
        for &m in &path {
            shown.push(m);
            let mut stack: Vec<&Message> = tree
                .kids(Some(m.id.as_str()))
                .iter()
                .rev()
                .filter(|k| !on_path.contains(k.id.as_str()) && tree.side(k))
                .copied()
                .collect();
            while let Some(side) = stack.pop() {
                shown.push(side);
                stack.extend(tree.kids(Some(side.id.as_str())).iter().rev().copied());
            }
        }
        // Threads hung on no message (a sub-task read from its own file, which does not know
        // the call that started it): after the branch, each whole.
        let mut stack: Vec<&Message> = tree
            .kids(None)
            .iter()
            .rev()
            .filter(|k| k.side_chain && !on_path.contains(k.id.as_str()))
            .copied()
            .collect();
        while let Some(side) = stack.pop() {
            shown.push(side);
            stack.extend(tree.kids(Some(side.id.as_str())).iter().rev().copied());
        }
        let messages = shown
            .iter()
            .map(|m| {
                let siblings: Vec<String> = if on_path.contains(m.id.as_str()) {
                    tree.kids(tree.parent_of(m))
                        .iter()
                        .filter(|s| s.id == m.id || !tree.side(s))
                        .map(|s| s.id.clone())
                        .collect()
                } else {
                    Vec::new()
                };
                let alternative = siblings.iter().position(|s| *s == m.id).unwrap_or(0);
                ViewMessage {
                    id: m.id.clone(),
                    role: m.role,
                    at: m.at,
                    model: m.model.clone(),
                    blocks: m.blocks.clone(),
                    alternatives: if siblings.len() > 1 {
                        siblings
                    } else {
                        Vec::new()
                    },
                    alternative,
                    side_chain: m.side_chain,
                    tokens: m.tokens,
                }
            })
            .collect();
        Ok(ConversationView {
            head: ConversationHead::of(index, c),
            active: is_active,
            total_messages: c.messages.len(),
            messages,
        })
    }

    /// Every branch of conversation `index`: the active one first, then one through each
    /// other end a person could have stopped at (a fork's leaves, not tool work or a
    /// sub-agent's thread), in file order.
    pub fn branches(&self, index: usize) -> Result<Vec<ConversationView>> {
        let c = self
            .conversations
            .get(index)
            .ok_or_else(|| not_found(index))?;
        let tree = Tree::new(c);
        let active: BTreeSet<&str> = c.active_branch().iter().map(|m| m.id.as_str()).collect();
        let mut ends: Vec<&str> = Vec::new();
        let mut stack: Vec<&Message> = tree
            .kids(None)
            .iter()
            .rev()
            .filter(|m| !tree.side(m))
            .copied()
            .collect();
        let mut seen = BTreeSet::new();
        while let Some(m) = stack.pop() {
            if !seen.insert(m.id.as_str()) {
                continue;
            }
            let onward: Vec<&Message> = tree
                .kids(Some(m.id.as_str()))
                .iter()
                .filter(|k| !tree.side(k))
                .copied()
                .collect();
            if onward.is_empty() {
                if !active.contains(m.id.as_str()) {
                    ends.push(m.id.as_str());
                }
            } else {
                stack.extend(onward.into_iter().rev());
            }
        }
        let mut views = vec![self.view(index, None)?];
        for end in ends {
            views.push(self.view(index, Some(end))?);
        }
        Ok(views)
    }

    /// The work sessions of the loaded ledgers, newest first.
    pub fn sessions(&self) -> Vec<crate::ledger::session::Session> {
        let mut sessions = self.ledger.fold().sessions();
        sessions.reverse();
        sessions
    }

    /// One work session's timeline from the loaded ledgers.
    pub fn session_timeline(
        &self,
        id: &str,
    ) -> Result<Vec<crate::lifecycle::timeline::TimelineEntry>> {
        use crate::ledger::store::LedgerView;
        let session = crate::ids::SessionId::parse_v7("session_id", id)?;
        let history = self
            .ledger
            .history(session)?
            .ok_or_else(|| Error::session_not_loaded(id))?;
        Ok(crate::lifecycle::timeline::timeline(&history))
    }
}
