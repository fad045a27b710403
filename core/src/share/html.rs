//! What a share holds and how it reads as HTML: a conversation, a work session (its facts,
//! timeline and linked conversations) or a set of search hits, drawn with the reader's look
//! (Markdown through the core's safe renderer, tool calls and results as folded cards,
//! sub-agent threads nested, tokens per response) as plain HTML that reads with scripts off.

use crate::analyzer::charts::scale::{compact, thousands};
use crate::analyzer::safe_html::{escape, render_message};
use crate::analyzer::{ConversationView, ViewMessage};
use crate::share::redact::Redactor;
use crate::time::Timestamp;
use crate::transcripts::conversation::{Block, Role};
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// One labelled fact shown under a share's title (`Status: active`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact {
    /// What it is.
    pub label: String,
    /// Its value, as text.
    pub value: String,
}

/// One line of a work session's timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineLine {
    /// When.
    pub at: Timestamp,
    /// What happened, in a line.
    pub text: String,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    /// The conversation's title.
    pub title: String,
    /// Whose transcript (the provider's name).
    pub provider: String,
    /// The provider's id of the conversation.
    pub conversation: String,
    /// When the message was written.
    pub at: Option<Timestamp>,
    /// Who wrote it.
    pub role: Option<String>,
    /// The words around the match.
    pub snippet: String,
}

/// Everything one share shows, in reading order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Shared {
    /// Its title.
    pub title: String,
    /// What kind of thing is shared, in a few words (`Conversation`, `Work session`).
    pub kind: String,
    /// Facts under the title.
    pub facts: Vec<Fact>,
    /// A work session's timeline.
    pub timeline: Vec<TimelineLine>,
    /// Search hits.
    pub hits: Vec<Hit>,
    /// Conversations, each one branch.
    pub conversations: Vec<ConversationView>,
}

impl Shared {
    /// A share of one conversation's branch.
    pub fn conversation(view: ConversationView) -> Shared {
        Shared {
            title: view.head.title.clone(),
            kind: "Conversation".to_owned(),
            facts: Vec::new(),
            timeline: Vec::new(),
            hits: Vec::new(),
            conversations: vec![view],
        }
    }

    /// Every message the share holds.
    pub fn messages(&self) -> usize {
        self.conversations.iter().map(|c| c.messages.len()).sum()
    }

    /// Every string a reader sees, passed through `redactor` (ids, times and token counts
    /// are kept).
    pub fn redact(&mut self, redactor: &mut Redactor) {
        let title = std::mem::take(&mut self.title);
        self.title = redactor.redact(&title);
        for fact in &mut self.facts {
            fact.value = redactor.redact(&fact.value);
        }
        for line in &mut self.timeline {
            line.text = redactor.redact(&line.text);
        }
        for hit in &mut self.hits {
            hit.title = redactor.redact(&hit.title);
            hit.snippet = redactor.redact(&hit.snippet);
        }
        for view in &mut self.conversations {
            // A conversation's title shown as the share's is counted once in the preview.
            view.head.title = if view.head.title == title {
                self.title.clone()
            } else {
                redactor.redact(&view.head.title)
            };
            view.head.project = view.head.project.as_deref().map(|p| redactor.redact(p));
            for message in &mut view.messages {
                for block in &mut message.blocks {
                    match block {
                        Block::Text { text } | Block::Thinking { text } => {
                            *text = redactor.redact(text);
                        }
                        Block::ToolCall { input, .. } => {
                            *input = redactor.redact_json_text(input);
                        }
                        Block::ToolResult { output, .. } => *output = redactor.redact(output),
                        Block::Other { raw, .. } => *raw = redactor.redact_json_text(raw),
                    }
                }
            }
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "You",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool",
        Role::System => "System",
    }
}

fn role_class(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
    }
}

/// A time as a person reads it in a file with no clock of its own: `2026-07-12 10:04 UTC`.
pub fn when(at: Timestamp) -> String {
    let text = at.to_string();
    format!("{} {} UTC", &text[..10], &text[11..16])
}

/// A line cut to fit a card's title, marked when cut.
fn clip(line: &str, max: usize) -> String {
    if line.chars().count() > max {
        let cut: String = line.chars().take(max - 1).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// A tool call's arguments as they are best read: pretty-printed when they are JSON.
fn pretty(input: &str) -> String {
    serde_json::from_str::<serde_json::Value>(input)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| input.to_owned())
}

/// The argument a person recognizes a call by: a command, a path, a pattern, a query (the
/// first line of it, cut at 90 characters). The terminal reader names its cards by it too.
pub fn gist(input: &str) -> Option<String> {
    let args: serde_json::Value = serde_json::from_str(input).ok()?;
    for key in [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "url",
        "query",
        "description",
        "prompt",
    ] {
        let shown = match args.get(key) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            _ => continue,
        };
        let first = shown.trim().lines().next().unwrap_or_default().to_owned();
        if !first.is_empty() {
            return Some(clip(&first, 90));
        }
    }
    None
}

fn card(out: &mut String, class: &str, summary: &str, body: &str) {
    let _ = writeln!(
        out,
        "<details class=\"{class}\"><summary>{summary}</summary><pre>{}</pre></details>",
        escape(body)
    );
}

fn block_html(out: &mut String, block: &Block) {
    match block {
        Block::Text { text } => {
            let _ = writeln!(
                out,
                "<div class=\"text markdown\">{}</div>",
                render_message(text)
            );
        }
        Block::Thinking { text } => card(
            out,
            "thinking",
            "<span class=\"card-kind\">Thinking</span>",
            text,
        ),
        Block::ToolCall { name, input, .. } => {
            let mut summary = format!(
                "<span class=\"card-kind\">Tool</span><strong>{}</strong>",
                escape(name)
            );
            if let Some(gist) = gist(input) {
                let _ = write!(summary, "<code class=\"gist\">{}</code>", escape(&gist));
            }
            card(out, "tool tool-call", &summary, &pretty(input));
        }
        Block::ToolResult {
            output, is_error, ..
        } => {
            let first = output
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| clip(l, 90))
                .unwrap_or_else(|| "(empty)".to_owned());
            let lines = output.lines().count();
            let summary = format!(
                "<span class=\"card-kind\">{}</span><code class=\"gist\">{}</code><span class=\"muted small\">{} line(s)</span>",
                if *is_error { "Error" } else { "Result" },
                escape(&first),
                thousands(lines as u64)
            );
            let class = if *is_error {
                "tool tool-result error"
            } else {
                "tool tool-result"
            };
            card(out, class, &summary, output);
        }
        Block::Other { kind, raw } => card(
            out,
            "other",
            &format!("<span class=\"card-kind\">{}</span>", escape(kind)),
            raw,
        ),
    }
}

fn message_html(out: &mut String, m: &ViewMessage, number: usize) {
    let _ = write!(
        out,
        "<li class=\"message role-{}\" id=\"m{number}\"><div class=\"message-head\"><strong class=\"who\">{}</strong>",
        role_class(m.role),
        role_name(m.role)
    );
    let meta: Vec<String> = m.model.iter().cloned().chain(m.at.map(when)).collect();
    if !meta.is_empty() {
        let _ = write!(
            out,
            "<span class=\"muted small\">{}</span>",
            escape(&meta.join(" · "))
        );
    }
    if let Some(t) = &m.tokens {
        let mut parts = vec![
            format!("{} in", compact(t.input_tokens)),
            format!("{} out", compact(t.output_tokens)),
        ];
        let cached = t.cache_read_tokens + t.cache_creation_tokens;
        if cached > 0 {
            parts.push(format!("{} cache", compact(cached)));
        }
        let _ = write!(
            out,
            "<span class=\"tokens\" title=\"input {}, output {}, cache write {}, cache read {}\">{}</span>",
            thousands(t.input_tokens),
            thousands(t.output_tokens),
            thousands(t.cache_creation_tokens),
            thousands(t.cache_read_tokens),
            parts.join(" · ")
        );
    }
    if m.alternatives.len() > 1 {
        let _ = write!(
            out,
            "<span class=\"muted small\">branch {} of {}</span>",
            m.alternative + 1,
            m.alternatives.len()
        );
    }
    out.push_str("</div>\n");
    for block in &m.blocks {
        block_html(out, block);
    }
    out.push_str("</li>\n");
}

/// A branch's messages, each sub-agent thread folded into one nested item after the call
/// that started it.
fn messages_html(out: &mut String, messages: &[ViewMessage], first: usize) {
    out.push_str("<ol class=\"messages\">\n");
    let mut i = 0;
    while i < messages.len() {
        if !messages[i].side_chain {
            message_html(out, &messages[i], first + i);
            i += 1;
            continue;
        }
        let start = i;
        while i < messages.len() && messages[i].side_chain {
            i += 1;
        }
        let thread = &messages[start..i];
        let calls: usize = thread
            .iter()
            .flat_map(|m| &m.blocks)
            .filter(|b| matches!(b, Block::ToolCall { .. }))
            .count();
        let _ = writeln!(
            out,
            "<li class=\"message thread\"><details><summary>Sub-agent thread · {} message(s){}</summary><ol class=\"messages nested\">",
            thread.len(),
            if calls > 0 {
                format!(", {calls} tool call(s)")
            } else {
                String::new()
            }
        );
        for (n, m) in thread.iter().enumerate() {
            message_html(out, m, first + start + n);
        }
        out.push_str("</ol></details></li>\n");
    }
    out.push_str("</ol>\n");
}

fn facts_html(out: &mut String, facts: &[Fact]) {
    if facts.is_empty() {
        return;
    }
    out.push_str("<dl class=\"facts\">");
    for fact in facts {
        let _ = write!(
            out,
            "<div><dt>{}</dt><dd>{}</dd></div>",
            escape(&fact.label),
            escape(&fact.value)
        );
    }
    out.push_str("</dl>\n");
}

fn conversation_facts(view: &ConversationView) -> Vec<Fact> {
    let provider = serde_json::to_value(view.head.provider)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut facts = vec![Fact {
        label: "Agent".to_owned(),
        value: provider,
    }];
    if let Some(project) = &view.head.project {
        facts.push(Fact {
            label: "Project".to_owned(),
            value: project.clone(),
        });
    }
    if let Some(at) = view.head.started_at {
        facts.push(Fact {
            label: "Started".to_owned(),
            value: when(at),
        });
    }
    let tokens = view
        .messages
        .iter()
        .filter_map(|m| m.tokens.as_ref())
        .fold(0u64, |sum, t| {
            sum + t.input_tokens + t.output_tokens + t.cache_creation_tokens + t.cache_read_tokens
        });
    facts.push(Fact {
        label: "Messages".to_owned(),
        value: if view.messages.len() == view.total_messages {
            thousands(view.messages.len() as u64)
        } else {
            format!(
                "{} on this branch of {}",
                thousands(view.messages.len() as u64),
                thousands(view.total_messages as u64)
            )
        },
    });
    if tokens > 0 {
        facts.push(Fact {
            label: "Tokens".to_owned(),
            value: thousands(tokens),
        });
    }
    facts.push(Fact {
        label: "Id".to_owned(),
        value: view.head.id.clone(),
    });
    facts
}

/// The share's content as HTML (what a password locks): its header, then the timeline, the
/// hits and the conversations. Everything from a transcript is escaped or rendered by the
/// core's safe Markdown renderer.
pub fn body(shared: &Shared) -> String {
    let mut out = String::with_capacity(shared.messages() * 600 + 4096);
    let _ = writeln!(
        out,
        "<header><p class=\"kind\">{}</p><h1>{}</h1>",
        escape(&shared.kind),
        escape(&shared.title)
    );
    let one = shared.conversations.len() == 1 && shared.timeline.is_empty();
    if one {
        let mut facts = shared.facts.clone();
        facts.extend(conversation_facts(&shared.conversations[0]));
        facts_html(&mut out, &facts);
    } else {
        facts_html(&mut out, &shared.facts);
    }
    out.push_str("</header>\n<main>\n");
    if !shared.timeline.is_empty() {
        out.push_str("<section><h2>Timeline</h2><ol class=\"timeline\">\n");
        for line in &shared.timeline {
            let _ = writeln!(
                out,
                "<li><span class=\"muted small\">{}</span> {}</li>",
                when(line.at),
                escape(&line.text)
            );
        }
        out.push_str("</ol></section>\n");
    }
    if !shared.hits.is_empty() {
        let _ = writeln!(
            out,
            "<section><h2>{} hit(s)</h2><ol class=\"hits\">",
            thousands(shared.hits.len() as u64)
        );
        for hit in &shared.hits {
            let mut meta = vec![hit.provider.clone()];
            meta.extend(hit.role.clone());
            meta.extend(hit.at.map(when));
            meta.push(hit.conversation.clone());
            let _ = writeln!(
                out,
                "<li><strong>{}</strong> <span class=\"muted small\">{}</span><p class=\"snippet\">{}</p></li>",
                escape(&hit.title),
                escape(&meta.join(" · ")),
                escape(&hit.snippet)
            );
        }
        out.push_str("</ol></section>\n");
    }
    let mut first = 0;
    for view in &shared.conversations {
        if !one {
            let _ = writeln!(
                out,
                "<section class=\"conversation\"><h2>{}</h2>",
                escape(&view.head.title)
            );
            facts_html(&mut out, &conversation_facts(view));
        } else {
            out.push_str("<section class=\"conversation\">\n");
        }
        messages_html(&mut out, &view.messages, first);
        first += view.messages.len();
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n");
    out
}
