//! A conversation as the terminal reader shows it: one line per line of text, a heading per
//! message (who, when, model, tokens), tool calls, results and thinking folded to one line
//! each unless unfolded, a sub-agent's thread set in with a bar, and where each message
//! starts (to jump to a search hit). The page's reading rules, drawn in a terminal.

use baton_core::analyzer::ConversationView;
use baton_core::analyzer::charts::scale::compact;
use baton_core::transcripts::conversation::{Block, Role};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Colours, or none (`NO_COLOR`, a pipe).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Palette {
    pub(crate) colour: bool,
}

impl Palette {
    pub(crate) fn fg(self, colour: Color) -> Style {
        if self.colour {
            Style::default().fg(colour)
        } else {
            Style::default()
        }
    }

    pub(crate) fn bold(self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }

    pub(crate) fn dim(self) -> Style {
        if self.colour {
            Style::default().fg(Color::DarkGray)
        } else {
            Style::default()
        }
    }

    pub(crate) fn selected(self) -> Style {
        if self.colour {
            Style::default().bg(Color::Blue).fg(Color::White)
        } else {
            Style::default().add_modifier(Modifier::REVERSED)
        }
    }
}

/// The reader's lines of one conversation.
#[derive(Debug, Default)]
pub(crate) struct Lines {
    pub(crate) lines: Vec<Line<'static>>,
    /// Each message's id and its first line.
    pub(crate) starts: Vec<(String, usize)>,
}

fn role(role: Role) -> (&'static str, Color) {
    match role {
        Role::User => ("You", Color::Green),
        Role::Assistant => ("Assistant", Color::Cyan),
        Role::Tool => ("Tool", Color::Yellow),
        Role::System => ("System", Color::Magenta),
    }
}

/// `view` as lines; `unfolded` shows tool calls, results and thinking in full.
pub(crate) fn lines(view: &ConversationView, unfolded: bool, palette: Palette) -> Lines {
    let mut out = Lines::default();
    for m in &view.messages {
        let bar = if m.side_chain { "│ " } else { "" };
        let (who, colour) = role(m.role);
        out.starts.push((m.id.clone(), out.lines.len()));
        let mut head = vec![
            Span::raw(bar.to_owned()),
            Span::styled(
                format!("{}{}", if m.side_chain { "Sub-agent · " } else { "" }, who),
                palette.fg(colour).add_modifier(Modifier::BOLD),
            ),
        ];
        let mut meta: Vec<String> = Vec::new();
        if let Some(at) = m.at {
            let text = at.to_string();
            meta.push(format!("{} {}", &text[..10], &text[11..16]));
        }
        meta.extend(m.model.clone());
        if let Some(t) = &m.tokens {
            meta.push(format!(
                "{} in · {} out · {} cache",
                compact(t.input_tokens),
                compact(t.output_tokens),
                compact(t.cache_read_tokens + t.cache_creation_tokens)
            ));
        }
        if !meta.is_empty() {
            head.push(Span::styled(
                format!("  {}", meta.join(" · ")),
                palette.dim(),
            ));
        }
        out.lines.push(Line::from(head));
        for block in &m.blocks {
            let folded = |out: &mut Lines, label: &str, summary: String, body: &str| {
                let count = body.lines().count();
                out.lines.push(Line::from(vec![
                    Span::raw(bar.to_owned()),
                    Span::styled(
                        format!("{} {label} ", if unfolded { "▾" } else { "▸" }),
                        palette.fg(Color::Yellow),
                    ),
                    Span::raw(summary),
                    Span::styled(format!("  {count} line(s)"), palette.dim()),
                ]));
                if unfolded {
                    for line in body.lines() {
                        out.lines.push(Line::from(vec![
                            Span::raw(format!("{bar}    ")),
                            Span::styled(line.to_owned(), palette.dim()),
                        ]));
                    }
                }
            };
            match block {
                Block::Text { text } => {
                    let mut code = false;
                    for line in text.lines() {
                        if line.trim_start().starts_with("```") {
                            code = !code;
                        }
                        let style = if code || line.trim_start().starts_with("```") {
                            palette.fg(Color::Blue)
                        } else if line.starts_with('#') {
                            palette.bold()
                        } else {
                            Style::default()
                        };
                        out.lines.push(Line::from(vec![
                            Span::raw(format!("{bar}  ")),
                            Span::styled(line.to_owned(), style),
                        ]));
                    }
                }
                Block::Thinking { text } => {
                    folded(&mut out, "Thinking", String::new(), text);
                }
                Block::ToolCall { name, input, .. } => {
                    let pretty = serde_json::from_str::<serde_json::Value>(input)
                        .ok()
                        .and_then(|v| serde_json::to_string_pretty(&v).ok())
                        .unwrap_or_else(|| input.clone());
                    folded(
                        &mut out,
                        &format!("Tool {name}:"),
                        baton_core::share::html::gist(input).unwrap_or_default(),
                        &pretty,
                    );
                }
                Block::ToolResult {
                    output, is_error, ..
                } => {
                    let first: String = output
                        .lines()
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                        .unwrap_or("(empty)")
                        .chars()
                        .take(90)
                        .collect();
                    folded(
                        &mut out,
                        if *is_error { "Error:" } else { "Result:" },
                        first,
                        output,
                    );
                }
                Block::Other { kind, raw } => folded(&mut out, kind, String::new(), raw),
            }
        }
        out.lines.push(Line::raw(""));
    }
    out
}
