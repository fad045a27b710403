//! A conversation's message tree: children by parent, and which side chains are only tool
//! work (parallel tool calls, results, thinking) or a sub-agent's thread rather than
//! alternatives a person would call forks.

use crate::transcripts::conversation::{Block, Conversation, Message};
use std::collections::{BTreeSet, HashMap};
/// A conversation's message tree, with what is a real fork and what is only tool work.
///
/// Coding agents run tools in parallel: Claude Code writes each call and result as its own
/// line, so one turn fans out into side chains that hold nothing but tool calls, results and
/// thinking, while the conversation goes on from one of them. Those side chains are part of
/// the turn, not alternatives; a fork is a sibling subtree with words in it (an edited
/// question, a regenerated answer). A sub-agent's thread (side-chain messages hung off the
/// call that started it) is a side chain too, whatever it holds.
pub(crate) struct Tree<'a> {
    pub(crate) by_id: HashMap<&'a str, &'a Message>,
    pub(crate) children: HashMap<Option<&'a str>, Vec<&'a Message>>,
    pub(crate) work_only: HashMap<&'a str, bool>,
}

fn is_work(m: &Message) -> bool {
    m.blocks.iter().all(|b| {
        matches!(
            b,
            Block::ToolCall { .. } | Block::ToolResult { .. } | Block::Thinking { .. }
        )
    })
}

/// Whether `m` starts a sub-agent's thread under `parent`.
fn starts_side_chain(m: &Message, parent: &Message) -> bool {
    m.side_chain && !parent.side_chain
}

impl<'a> Tree<'a> {
    pub(crate) fn new(c: &'a Conversation) -> Tree<'a> {
        let by_id: HashMap<&str, &Message> =
            c.messages.iter().map(|m| (m.id.as_str(), m)).collect();
        let mut children: HashMap<Option<&str>, Vec<&Message>> = HashMap::new();
        for m in &c.messages {
            let parent = m.parent.as_deref().filter(|p| by_id.contains_key(p));
            children.entry(parent).or_default().push(m);
        }
        // Whether each subtree is tool work only, children before parents (no recursion).
        let mut order: Vec<&Message> = Vec::with_capacity(c.messages.len());
        let mut stack: Vec<&Message> = children.get(&None).cloned().unwrap_or_default();
        let mut visited = BTreeSet::new();
        while let Some(m) = stack.pop() {
            if !visited.insert(m.id.as_str()) {
                continue;
            }
            order.push(m);
            if let Some(kids) = children.get(&Some(m.id.as_str())) {
                stack.extend(kids.iter().copied());
            }
        }
        let mut work_only: HashMap<&str, bool> = HashMap::new();
        for m in order.iter().rev() {
            let kids_ok = children.get(&Some(m.id.as_str())).is_none_or(|kids| {
                kids.iter()
                    .all(|k| work_only.get(k.id.as_str()) == Some(&true) || starts_side_chain(k, m))
            });
            work_only.insert(m.id.as_str(), kids_ok && is_work(m));
        }
        Tree {
            by_id,
            children,
            work_only,
        }
    }

    pub(crate) fn parent_of(&self, m: &Message) -> Option<&'a str> {
        m.parent
            .as_deref()
            .and_then(|p| self.by_id.get_key_value(p).map(|(k, _)| *k))
    }

    pub(crate) fn kids(&self, id: Option<&'a str>) -> &[&'a Message] {
        self.children.get(&id).map_or(&[], Vec::as_slice)
    }

    /// Whether `m` hangs off its parent as a side chain: tool work, or a sub-agent's thread
    /// (a thread's first message; at the root, one that nothing started).
    pub(crate) fn side(&self, m: &Message) -> bool {
        let thread_start = m.side_chain
            && self
                .parent_of(m)
                .and_then(|p| self.by_id.get(p))
                .is_none_or(|p| !p.side_chain);
        thread_start || self.work_only.get(m.id.as_str()) == Some(&true)
    }

    /// Places with two or more children, side chains included.
    pub(crate) fn branch_points(&self) -> usize {
        self.children.values().filter(|kids| kids.len() > 1).count()
    }

    /// Places with two or more children that are not side chains.
    pub(crate) fn forks(&self) -> usize {
        self.children
            .values()
            .filter(|kids| kids.iter().filter(|k| !self.side(k)).count() > 1)
            .count()
    }
}
