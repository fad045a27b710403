//! A share as Markdown: the same content as its HTML file (facts, timeline, hits, each
//! conversation as the Markdown export writes it), for a pull request or an issue.

use crate::analyzer::export::markdown as conversation_markdown;
use crate::share::html::Shared;
use std::fmt::Write;

/// Markdown text that a Markdown renderer shows as text, not markup: the characters that
/// start markup escaped.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.replace('\n', " ").chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `shared` as one Markdown document.
pub fn markdown(shared: &Shared) -> String {
    let one =
        shared.conversations.len() == 1 && shared.timeline.is_empty() && shared.hits.is_empty();
    if one && shared.facts.is_empty() {
        return conversation_markdown(&shared.conversations[0]);
    }
    let mut out = format!(
        "# {}\n\n*{}*\n\n",
        plain(&shared.title),
        plain(&shared.kind)
    );
    for fact in &shared.facts {
        let _ = writeln!(out, "- **{}**: {}", plain(&fact.label), plain(&fact.value));
    }
    if !shared.facts.is_empty() {
        out.push('\n');
    }
    if !shared.timeline.is_empty() {
        out.push_str("## Timeline\n\n");
        for line in &shared.timeline {
            let _ = writeln!(out, "- `{}` {}", line.at, plain(&line.text));
        }
        out.push('\n');
    }
    if !shared.hits.is_empty() {
        let _ = writeln!(out, "## {} hit(s)\n", shared.hits.len());
        for hit in &shared.hits {
            let mut meta = vec![hit.provider.clone()];
            meta.extend(hit.role.clone());
            meta.extend(hit.at.map(|at| at.to_string()));
            let _ = writeln!(
                out,
                "- **{}** ({}, `{}`)\n  > {}",
                plain(&hit.title),
                plain(&meta.join(", ")),
                hit.conversation.replace('`', ""),
                plain(&hit.snippet)
            );
        }
        out.push('\n');
    }
    for view in &shared.conversations {
        out.push_str("---\n\n");
        out.push_str(&conversation_markdown(view));
        out.push('\n');
    }
    out
}
