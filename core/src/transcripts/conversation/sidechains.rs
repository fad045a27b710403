//! Sub-agent threads written inline in a Claude Code session (1.0.x and 2.0.x wrote each Task
//! sub-agent's lines into the main file with `isSidechain: true`, its first line with
//! `parentUuid: null`): each thread is hung off the Task tool call that started it, so the
//! tree shows it as that call's side chain — never as an alternative of the person's prompt.

use crate::transcripts::conversation::{Block, Conversation};
use serde_json::Value;

/// The tools whose calls start a sub-agent (Claude Code named it `Task`, later `Agent`).
const AGENT_TOOLS: &[&str] = &["Task", "Agent"];

/// A call that starts a sub-agent: where it is in the file, its message, and its prompt.
struct AgentCall {
    position: usize,
    message: String,
    prompt: String,
}

fn agent_calls(conversation: &Conversation) -> Vec<AgentCall> {
    let mut calls = Vec::new();
    for (position, message) in conversation.messages.iter().enumerate() {
        if message.side_chain {
            continue;
        }
        for block in &message.blocks {
            if let Block::ToolCall { name, input, .. } = block
                && AGENT_TOOLS.contains(&name.as_str())
            {
                let input: Value = serde_json::from_str(input).unwrap_or(Value::Null);
                calls.push(AgentCall {
                    position,
                    message: message.id.clone(),
                    prompt: input["prompt"].as_str().unwrap_or("").trim().to_owned(),
                });
            }
        }
    }
    calls
}

fn text_of_blocks(blocks: &[Block]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// Hangs every inline sub-agent thread (a side-chain message without a parent) off the agent
/// call that started it: the first unused call, in file order, whose prompt is the thread's
/// first text; else the nearest unused call before the thread; else the nearest call before
/// it. A thread with no call before it stays a root of its own. The active leaf is kept on
/// the main conversation when there is one.
pub(crate) fn attach_side_chains(conversation: &mut Conversation) {
    let roots: Vec<usize> = (0..conversation.messages.len())
        .filter(|&i| {
            let m = &conversation.messages[i];
            m.side_chain && m.parent.is_none()
        })
        .collect();
    let has_main = conversation.messages.iter().any(|m| !m.side_chain);
    if roots.is_empty() || !has_main {
        return;
    }
    let calls = agent_calls(conversation);
    let mut used = vec![false; calls.len()];
    for root in roots {
        let text = text_of_blocks(&conversation.messages[root].blocks);
        let same_prompt = |k: usize| !used[k] && !text.is_empty() && calls[k].prompt == text;
        let before = |k: usize| calls[k].position < root;
        let chosen = (0..calls.len())
            .find(|&k| same_prompt(k) && before(k))
            .or_else(|| (0..calls.len()).find(|&k| same_prompt(k)))
            .or_else(|| (0..calls.len()).rev().find(|&k| !used[k] && before(k)))
            .or_else(|| (0..calls.len()).rev().find(|&k| before(k)));
        if let Some(k) = chosen {
            used[k] = true;
            conversation.messages[root].parent = Some(calls[k].message.clone());
        }
    }
    let leaf_is_side = conversation.active_leaf.as_ref().is_some_and(|leaf| {
        conversation
            .messages
            .iter()
            .any(|m| &m.id == leaf && m.side_chain)
    });
    if leaf_is_side {
        conversation.active_leaf = conversation
            .messages
            .iter()
            .rev()
            .find(|m| !m.side_chain)
            .map(|m| m.id.clone());
    }
}
