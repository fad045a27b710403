//! The conversation list: rows worked out once per conversation at load, search with snippets,
//! filters, sorts and paging.

use crate::analyzer::Analyzer;
use crate::time::Timestamp;
use crate::transcripts::Provider;
use crate::transcripts::conversation::tree::Tree;
use crate::transcripts::conversation::{Block, Conversation};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The order of the conversation list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ListSort {
    /// Last updated first (the default).
    #[default]
    Updated,
    /// Last started first.
    Started,
    /// Longest first.
    Messages,
    /// By title, A first.
    Title,
}

/// How the conversation list is asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct ListQuery {
    /// Words that must all appear (case-insensitive) in the title, project or any message.
    pub search: String,
    /// Only this provider.
    pub provider: Option<Provider>,
    /// Only conversations where this model wrote.
    pub model: Option<String>,
    /// The order of the rows.
    pub sort: ListSort,
    /// Oldest, shortest or A first; by default titles sort A first, the rest newest or
    /// longest first.
    pub ascending: Option<bool>,
    /// Rows to skip.
    pub offset: usize,
    /// Rows to return (default 100).
    pub limit: usize,
}

/// What names a conversation, in the list and in the reader.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConversationHead {
    /// Its number, for `view`.
    pub index: usize,
    /// Whose format.
    pub provider: Provider,
    /// The provider's id.
    pub id: String,
    /// Its title (or the first words of its first message).
    pub title: String,
    /// The working directory, for coding agents.
    pub project: Option<String>,
    /// First message time.
    pub started_at: Option<Timestamp>,
    /// Last message time.
    pub updated_at: Option<Timestamp>,
}

impl ConversationHead {
    pub(crate) fn of(index: usize, c: &Conversation) -> ConversationHead {
        ConversationHead {
            index,
            provider: c.provider,
            id: c.id.clone(),
            title: c.display_title(),
            project: c.project.clone(),
            started_at: c.started_at,
            updated_at: c.updated_at,
        }
    }
}

/// One row of the conversation list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConversationRow {
    /// Which conversation.
    #[serde(flatten)]
    pub head: ConversationHead,
    /// Messages, branches included.
    pub messages: usize,
    /// Forks a person would call alternatives (side chains of only tool work are not forks).
    pub forks: usize,
    /// Tool calls, every branch included.
    pub tool_calls: usize,
    /// Tool results, every branch included.
    pub tool_results: usize,
    /// Models that wrote in it.
    pub models: Vec<String>,
    /// Where the search matched, with some context.
    pub snippet: Option<String>,
}

/// A page of the conversation list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConversationList {
    /// Conversations that match.
    pub total: usize,
    /// The rows asked for.
    pub rows: Vec<ConversationRow>,
}

fn block_text(block: &Block) -> &str {
    match block {
        Block::Text { text } | Block::Thinking { text } => text,
        Block::ToolCall { input, .. } => input,
        Block::ToolResult { output, .. } => output,
        Block::Other { raw, .. } => raw,
    }
}

/// Case-insensitive search; `needle` is already lowercase. Returns the byte offset.
fn find_folded(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.is_ascii() {
        let (h, n) = (haystack.as_bytes(), needle.as_bytes());
        if n.len() > h.len() {
            return None;
        }
        let first = n[0];
        return (0..=h.len() - n.len()).find(|&i| {
            h[i].to_ascii_lowercase() == first && h[i..i + n.len()].eq_ignore_ascii_case(n)
        });
    }
    let lower = haystack.to_lowercase();
    // Map back approximately: lowercase rarely changes byte lengths in practice.
    lower.find(needle).map(|i| i.min(haystack.len()))
}

fn snippet(text: &str, at: usize) -> String {
    let mut start = at.saturating_sub(60);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + 100).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.push_str(&text[start..end].replace(['\n', '\r'], " "));
    if end < text.len() {
        s.push('…');
    }
    s
}

/// A conversation's list row, without a search snippet.
pub(crate) fn row_of(index: usize, c: &Conversation) -> ConversationRow {
    let models: BTreeSet<&str> = c
        .messages
        .iter()
        .filter_map(|m| m.model.as_deref())
        .collect();
    let (tool_calls, tool_results) = c.tool_counts();
    ConversationRow {
        head: ConversationHead::of(index, c),
        messages: c.messages.len(),
        forks: Tree::new(c).forks(),
        tool_calls,
        tool_results,
        models: models.into_iter().map(str::to_owned).collect(),
        snippet: None,
    }
}

impl Analyzer {
    /// A page of the conversation list: searched, filtered, sorted.
    pub fn list(&self, query: &ListQuery) -> ConversationList {
        let terms: Vec<String> = query
            .search
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        // Matches by reference, with their snippets; only the page asked for is copied out.
        let mut rows: Vec<(&ConversationRow, Option<String>)> = Vec::new();
        for (c, row) in self.conversations.iter().zip(&self.rows) {
            if query.provider.is_some_and(|p| p != c.provider) {
                continue;
            }
            if let Some(model) = &query.model
                && !row.models.contains(model)
            {
                continue;
            }
            let title = &row.head.title;
            let mut snippet_text = None;
            let matches = terms.iter().all(|term| {
                if find_folded(title, term).is_some()
                    || c.project
                        .as_deref()
                        .is_some_and(|p| find_folded(p, term).is_some())
                {
                    return true;
                }
                c.messages.iter().flat_map(|m| m.blocks.iter()).any(|b| {
                    let text = block_text(b);
                    match find_folded(text, term) {
                        Some(at) => {
                            snippet_text.get_or_insert_with(|| snippet(text, at));
                            true
                        }
                        None => false,
                    }
                })
            });
            if !matches {
                continue;
            }
            rows.push((row, snippet_text));
        }
        match query.sort {
            ListSort::Started => rows.sort_by_key(|(r, _)| (r.head.started_at, r.head.index)),
            ListSort::Messages => rows.sort_by_key(|(r, _)| (r.messages, r.head.index)),
            ListSort::Title => {
                rows.sort_by_cached_key(|(r, _)| (r.head.title.to_lowercase(), r.head.index));
            }
            ListSort::Updated => {
                rows.sort_by_key(|(r, _)| (r.head.updated_at.or(r.head.started_at), r.head.index))
            }
        }
        // Titles read A to Z by default; dates and lengths newest and longest first.
        if !query.ascending.unwrap_or(query.sort == ListSort::Title) {
            rows.reverse();
        }
        let total = rows.len();
        let limit = if query.limit == 0 { 100 } else { query.limit };
        let rows = rows
            .into_iter()
            .skip(query.offset)
            .take(limit)
            .map(|(row, snippet)| ConversationRow {
                snippet,
                ..row.clone()
            })
            .collect();
        ConversationList { total, rows }
    }
}
