//! A conversation as the terminal reader shows it: one line per line of text, a heading per
//! message (who, when, model, tokens), tool calls, results and thinking folded to one line
//! each unless unfolded, a sub-agent's thread set in with a bar, and where each message
//! starts (to jump to a search hit). The page's reading rules, drawn in a terminal.

use baton_core::analyzer::ConversationView;
use baton_core::analyzer::charts::scale::compact;
use baton_core::transcripts::conversation::{Block, Role};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

pub(crate) use super::palette::Palette;

/// The reader's lines of one conversation, wrapped to the reader's width (so that scrolling
/// moves by rows on screen, and a line longer than the screen is read all through).
#[derive(Debug, Default)]
pub(crate) struct Lines {
    pub(crate) lines: Vec<Line<'static>>,
    /// Each message's id and its first line.
    pub(crate) starts: Vec<(String, usize)>,
    /// The width they are wrapped to.
    pub(crate) width: usize,
}

impl Lines {
    /// Lines wrapped to `width` columns.
    pub(crate) fn new(width: u16) -> Lines {
        Lines {
            width: usize::from(width).max(20),
            ..Lines::default()
        }
    }

    /// Adds `spans` after the gutter `first`, wrapped at a space where one is near, each
    /// further line after the gutter `rest`.
    pub(crate) fn push(&mut self, first: &str, rest: &str, mut spans: Vec<Span<'static>>) {
        use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
        // A tab has no width of its own on screen (the terminal would drop it): four spaces.
        for span in &mut spans {
            if span.content.contains('\t') {
                span.content = span.content.replace('\t', "    ").into();
            }
        }
        let fits = first.width() + spans.iter().map(|s| s.content.width()).sum::<usize>();
        if fits <= self.width {
            let mut all = Vec::with_capacity(spans.len() + 1);
            if !first.is_empty() {
                all.push(Span::raw(first.to_owned()));
            }
            all.extend(spans);
            self.lines.push(Line::from(all));
            return;
        }
        // Character by character, with the style each came in.
        let chars: Vec<(char, Style)> = spans
            .iter()
            .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
            .collect();
        let mut at = 0;
        let mut gutter = first;
        while at < chars.len() {
            let room = self.width.saturating_sub(gutter.width()).max(10);
            let mut used = 0;
            let mut end = at;
            let mut space = None;
            while end < chars.len() {
                let w = chars[end].0.width().unwrap_or(0);
                if used + w > room {
                    break;
                }
                if chars[end].0 == ' ' {
                    space = Some(end);
                }
                used += w;
                end += 1;
            }
            if end == at {
                end = at + 1;
            }
            // Break after the last space when it leaves the line at least half full.
            if end < chars.len()
                && let Some(space) = space.filter(|s| (s - at) * 2 >= room.min(end - at))
            {
                end = space + 1;
            }
            let mut line = vec![Span::raw(gutter.to_owned())];
            let mut run = String::new();
            let mut style = chars[at].1;
            for &(c, st) in &chars[at..end] {
                if st != style && !run.is_empty() {
                    line.push(Span::styled(std::mem::take(&mut run), style));
                }
                style = st;
                run.push(c);
            }
            if !run.is_empty() {
                line.push(Span::styled(run, style));
            }
            self.lines.push(Line::from(line));
            at = end;
            gutter = rest;
        }
    }

    fn blank(&mut self) {
        self.lines.push(Line::raw(""));
    }
}

fn role(role: Role) -> (&'static str, Color) {
    match role {
        Role::User => ("You", Color::Green),
        Role::Assistant => ("Assistant", Color::Cyan),
        Role::Tool => ("Tool", Color::Yellow),
        Role::System => ("System", Color::Magenta),
    }
}

/// `view` as lines `width` columns wide; `unfolded` shows tool calls, results and thinking in
/// full.
pub(crate) fn lines(
    view: &ConversationView,
    unfolded: bool,
    palette: Palette,
    width: u16,
) -> Lines {
    let mut out = Lines::new(width);
    for m in &view.messages {
        let bar = if m.side_chain { "│ " } else { "" };
        let (who, colour) = role(m.role);
        out.starts.push((m.id.clone(), out.lines.len()));
        let mut head = vec![Span::styled(
            format!("{}{}", if m.side_chain { "Sub-agent · " } else { "" }, who),
            palette.fg(colour).add_modifier(Modifier::BOLD),
        )];
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
        out.push(bar, bar, head);
        let body = format!("{bar}  ");
        let card = format!("{bar}    ");
        for block in &m.blocks {
            let folded = |out: &mut Lines, label: &str, summary: String, text: &str| {
                let count = text.lines().count();
                out.push(
                    bar,
                    &card,
                    vec![
                        Span::styled(
                            format!("{} {label} ", if unfolded { "▾" } else { "▸" }),
                            palette.fg(Color::Yellow),
                        ),
                        Span::raw(summary),
                        Span::styled(format!("  {count} line(s)"), palette.dim()),
                    ],
                );
                if unfolded {
                    for line in text.lines() {
                        out.push(
                            &card,
                            &card,
                            vec![Span::styled(line.to_owned(), palette.dim())],
                        );
                    }
                }
            };
            match block {
                Block::Text { text } => {
                    for row in super::markdown::render(text, palette) {
                        out.push(
                            &format!("{body}{}", row.first),
                            &format!("{body}{}", row.rest),
                            row.spans,
                        );
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
        out.blank();
    }
    out
}

/// Plain text (a work session's details) as reader lines `width` columns wide.
pub(crate) fn text(text: &str, palette: Palette, width: u16) -> Lines {
    let mut out = Lines::new(width);
    for line in text.lines() {
        let indent: String = line.chars().take_while(|c| *c == ' ').collect();
        let rest = line[indent.len()..].to_owned();
        let style = if indent.is_empty() && !rest.is_empty() {
            palette.bold()
        } else {
            Style::default()
        };
        let hang = format!("{indent}{}", " ".repeat(15.min(rest.chars().count())));
        out.push(&indent, &hang, vec![Span::styled(rest, style)]);
    }
    out
}
