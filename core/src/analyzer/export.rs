//! Exports of what is loaded: one conversation or all, as Markdown or JSON.

use crate::analyzer::Analyzer;
use crate::analyzer::reader::{ConversationView, not_found};
use crate::error::{Error, Result};
use crate::transcripts::conversation::{Block, Role};

fn role_heading(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    }
}

fn fence(text: &str) -> String {
    let mut ticks = "```".to_owned();
    while text.contains(&ticks) {
        ticks.push('`');
    }
    ticks
}

/// A tool call's arguments as they are best read: pretty-printed when they are JSON.
fn pretty_arguments(input: &str) -> String {
    serde_json::from_str::<serde_json::Value>(input)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| input.to_owned())
}

/// A message's text as the reader shows it (see [`wrappers`](crate::analyzer::wrappers)): a
/// slash command as inline code with its arguments, context the user did not type folded
/// under its label, the rest as written.
fn text_markdown(out: &mut String, text: &str) {
    use crate::analyzer::wrappers::{Part, parts};
    for part in parts(text) {
        match part {
            Part::Markdown(markdown) => {
                out.push_str(markdown.trim_start_matches('\n').trim_end());
                out.push_str("\n\n");
            }
            Part::Command { name, args } => {
                let f = "`".repeat(if name.contains('`') { 2 } else { 1 });
                out.push_str(&format!("{f}{name}{f}"));
                if !args.is_empty() {
                    out.push(' ');
                    out.push_str(args);
                }
                out.push_str("\n\n");
            }
            Part::Fold { label, text } => {
                let f = fence(text);
                out.push_str(&format!(
                    "<details><summary>{label}</summary>\n\n{f}\n{text}\n{f}\n\n</details>\n\n"
                ));
            }
        }
    }
}

/// One branch as Markdown: a heading per message (with its tokens when recorded), text with
/// the reader's wrapper rules, tool calls (arguments pretty-printed) and results as code
/// blocks, thinking as a quote.
pub fn markdown(view: &ConversationView) -> String {
    use std::fmt::Write;
    let head = &view.head;
    let mut out = format!("# {}\n\n", head.title.replace('\n', " "));
    let provider = serde_json::to_value(head.provider)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let _ = writeln!(out, "- Source: {provider}, id `{}`", head.id);
    if let Some(project) = &head.project {
        let _ = writeln!(out, "- Project: `{project}`");
    }
    if let Some(at) = head.started_at {
        let _ = writeln!(out, "- Started: {at}");
    }
    let _ = writeln!(
        out,
        "- Branch: {} ({} of {} messages)\n",
        if view.active { "active" } else { "alternative" },
        view.messages.len(),
        view.total_messages
    );
    for m in &view.messages {
        let _ = write!(out, "## {}", role_heading(m.role));
        if let Some(model) = &m.model {
            let _ = write!(out, " ({model})");
        }
        if let Some(at) = m.at {
            let _ = write!(out, " — {at}");
        }
        out.push_str("\n\n");
        if let Some(t) = &m.tokens {
            use crate::analyzer::charts::scale::thousands;
            let _ = writeln!(
                out,
                "*Tokens: {} in · {} out · {} cache write · {} cache read*\n",
                thousands(t.input_tokens),
                thousands(t.output_tokens),
                thousands(t.cache_creation_tokens),
                thousands(t.cache_read_tokens)
            );
        }
        for block in &m.blocks {
            match block {
                Block::Text { text } => text_markdown(&mut out, text),
                Block::Thinking { text } => {
                    out.push_str("> **Thinking**\n>\n");
                    for line in text.lines() {
                        let _ = writeln!(out, "> {line}");
                    }
                    out.push('\n');
                }
                Block::ToolCall { name, input, .. } => {
                    let input = pretty_arguments(input);
                    let f = fence(&input);
                    let _ = write!(out, "**Tool call** `{name}`\n\n{f}json\n{input}\n{f}\n\n");
                }
                Block::ToolResult {
                    output, is_error, ..
                } => {
                    let f = fence(output);
                    let label = if *is_error {
                        "Tool error"
                    } else {
                        "Tool result"
                    };
                    let _ = write!(out, "**{label}**\n\n{f}\n{output}\n{f}\n\n");
                }
                Block::Other { kind, raw } => {
                    let f = fence(raw);
                    let _ = write!(out, "**{kind}**\n\n{f}json\n{raw}\n{f}\n\n");
                }
            }
        }
    }
    out
}

impl Analyzer {
    /// Conversation `index` as written, every branch included, as JSON.
    pub fn conversation_json(&self, index: usize) -> Result<String> {
        let c = self
            .conversations
            .get(index)
            .ok_or_else(|| not_found(index))?;
        serde_json::to_string_pretty(c).map_err(|e| Error::internal(e.to_string()))
    }

    /// Every conversation as one JSON array.
    pub fn all_json(&self) -> String {
        serde_json::to_string(&self.conversations).unwrap_or_else(|_| "[]".to_owned())
    }

    /// Every conversation's active branch as Markdown.
    pub fn all_markdown(&self) -> String {
        let mut out = String::new();
        for index in 0..self.conversations.len() {
            if let Ok(view) = self.view(index, None) {
                out.push_str(&markdown(&view));
                out.push_str("\n---\n\n");
            }
        }
        out
    }
}
