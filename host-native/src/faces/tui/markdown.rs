//! A message's Markdown as terminal lines: headings, emphasis, inline code and code blocks,
//! lists (numbered, nested, task boxes), quotes, rules, links with their address, and tables
//! laid out in columns. Each block says its gutter (the indent, a list's marker, a quote's
//! bar) so that wrapping can repeat it; nothing of the text is interpreted beyond Markdown.

use super::palette::Palette;
use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

/// One line of output before wrapping: its gutter on the first line and on the lines it wraps
/// to, and its text.
#[derive(Debug, Default)]
pub(crate) struct Row {
    pub(crate) first: String,
    pub(crate) rest: String,
    pub(crate) spans: Vec<Span<'static>>,
}

/// The widest a table's column is drawn (a longer cell ends with `…`).
const CELL: usize = 32;

#[derive(Default)]
struct State {
    rows: Vec<Row>,
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    quotes: usize,
    /// Each open list's next number (`None`: bullets).
    lists: Vec<Option<u64>>,
    /// The marker of the item whose first line is not written yet.
    marker: Option<String>,
    code: Option<String>,
    link: Vec<String>,
    table: Option<Table>,
}

#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    head: usize,
}

impl State {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, add: impl FnOnce(Style) -> Style) {
        let next = add(self.style());
        self.styles.push(next);
    }

    fn base(&self) -> String {
        let mut gutter = "│ ".repeat(self.quotes);
        gutter.push_str(&"   ".repeat(self.lists.len().saturating_sub(1)));
        gutter
    }

    fn gutters(&mut self) -> (String, String) {
        let base = self.base();
        match self.marker.take() {
            Some(marker) => {
                let rest = format!("{base}{}", " ".repeat(marker.chars().count()));
                (format!("{base}{marker}"), rest)
            }
            None if !self.lists.is_empty() => {
                let rest = format!("{base}   ");
                (rest.clone(), rest)
            }
            None => (base.clone(), base),
        }
    }

    /// Ends the line being written, if it holds anything.
    fn flush(&mut self) {
        if self.spans.is_empty() && self.marker.is_none() {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        let (first, rest) = self.gutters();
        self.rows.push(Row { first, rest, spans });
    }

    fn gap(&mut self) {
        if self.rows.last().is_some_and(|r| !r.spans.is_empty()) && self.lists.is_empty() {
            self.rows.push(Row::default());
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(table) = self.table.as_mut() {
            if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                cell.push_str(text);
            }
            return;
        }
        let style = self.style();
        self.spans.push(Span::styled(text.to_owned(), style));
    }
}

/// `text`, read as Markdown, in rows to wrap.
pub(crate) fn render(text: &str, p: Palette) -> Vec<Row> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut s = State::default();
    for event in Parser::new_ext(text, options) {
        match event {
            Event::Start(tag) => start(&mut s, tag, p),
            Event::End(tag) => end(&mut s, tag, p),
            // A code block's text comes in pieces (a line break may start one): it is
            // gathered, and split into lines when the block ends.
            Event::Text(t) => match s.code.as_mut() {
                Some(code) => code.push_str(&t),
                None => s.text(&t),
            },
            Event::Code(t) => {
                if let Some(table) = s.table.as_mut() {
                    if let Some(cell) = table.rows.last_mut().and_then(|r| r.last_mut()) {
                        cell.push_str(&t);
                    }
                } else {
                    s.spans
                        .push(Span::styled(t.to_string(), p.fg(Color::Magenta)));
                }
            }
            // HTML is shown as the text it is; a block's lines stay lines.
            Event::Html(t) | Event::InlineHtml(t) if s.table.is_none() => {
                for piece in t.split_inclusive('\n') {
                    let line = piece.trim_end_matches(['\n', '\r']);
                    if !line.is_empty() {
                        s.spans.push(Span::styled(line.to_owned(), p.dim()));
                    }
                    if piece.ends_with('\n') {
                        s.flush();
                    }
                }
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                let text = if t.trim().eq_ignore_ascii_case("<br>") || t.trim() == "<br/>" {
                    " "
                } else {
                    &t
                };
                s.text(text);
            }
            Event::InlineMath(t) | Event::DisplayMath(t) | Event::FootnoteReference(t) => {
                s.text(&t)
            }
            Event::SoftBreak => s.text(" "),
            Event::HardBreak => s.flush(),
            Event::Rule => {
                s.flush();
                let (first, rest) = s.gutters();
                s.rows.push(Row {
                    first,
                    rest,
                    spans: vec![Span::styled("─".repeat(40), p.dim())],
                });
            }
            Event::TaskListMarker(done) => {
                s.spans.push(Span::styled(
                    if done { "[x] " } else { "[ ] " },
                    p.fg(Color::Green),
                ));
            }
        }
    }
    s.flush();
    while s.rows.last().is_some_and(|r| r.spans.is_empty()) {
        s.rows.pop();
    }
    s.rows
}

fn start(s: &mut State, tag: Tag, p: Palette) {
    match tag {
        Tag::Heading { level, .. } => {
            s.flush();
            let colour = match level {
                HeadingLevel::H1 | HeadingLevel::H2 => Color::Magenta,
                _ => Color::Reset,
            };
            s.push_style(|st| {
                let st = st.add_modifier(Modifier::BOLD).patch(p.fg(colour));
                if level == HeadingLevel::H1 {
                    st.add_modifier(Modifier::UNDERLINED)
                } else {
                    st
                }
            });
        }
        Tag::BlockQuote(_) => {
            s.flush();
            s.quotes += 1;
        }
        Tag::CodeBlock(kind) => {
            s.flush();
            let language = match kind {
                CodeBlockKind::Fenced(l) => l.to_string(),
                CodeBlockKind::Indented => String::new(),
            };
            if !language.is_empty() {
                let base = s.base();
                s.rows.push(Row {
                    first: base.clone(),
                    rest: base,
                    spans: vec![Span::styled(language.clone(), p.dim())],
                });
            }
            s.code = Some(String::new());
        }
        Tag::List(first) => {
            s.flush();
            s.lists.push(first);
        }
        Tag::Item => {
            s.flush();
            let marker = match s.lists.last_mut() {
                Some(Some(n)) => {
                    let m = format!("{n}. ");
                    *n += 1;
                    m
                }
                _ => "• ".to_owned(),
            };
            s.marker = Some(marker);
        }
        Tag::Emphasis => s.push_style(|st| st.add_modifier(Modifier::ITALIC)),
        Tag::Strong => s.push_style(|st| st.add_modifier(Modifier::BOLD)),
        Tag::Strikethrough => s.push_style(|st| st.add_modifier(Modifier::CROSSED_OUT)),
        Tag::Link { dest_url, .. } => {
            s.link.push(dest_url.to_string());
            s.push_style(|st| {
                st.add_modifier(Modifier::UNDERLINED)
                    .patch(p.fg(Color::Cyan))
            });
        }
        Tag::Image { dest_url, .. } => {
            s.link.push(dest_url.to_string());
            s.text("[image: ");
            s.push_style(|st| st);
        }
        Tag::Table(_) => {
            s.flush();
            s.table = Some(Table::default());
        }
        Tag::TableHead | Tag::TableRow => {
            if let Some(t) = s.table.as_mut() {
                t.rows.push(Vec::new());
            }
        }
        Tag::TableCell => {
            if let Some(row) = s.table.as_mut().and_then(|t| t.rows.last_mut()) {
                row.push(String::new());
            }
        }
        _ => {}
    }
}

fn end(s: &mut State, tag: TagEnd, p: Palette) {
    match tag {
        TagEnd::Paragraph => {
            s.flush();
            s.gap();
        }
        TagEnd::Heading(_) => {
            s.flush();
            s.styles.pop();
            s.gap();
        }
        TagEnd::BlockQuote(_) => {
            s.flush();
            s.quotes = s.quotes.saturating_sub(1);
            s.gap();
        }
        TagEnd::CodeBlock => {
            let code = s.code.take().unwrap_or_default();
            let base = s.base();
            for line in code.lines() {
                s.rows.push(Row {
                    first: format!("{base}  "),
                    rest: format!("{base}  "),
                    spans: vec![Span::styled(line.to_owned(), p.fg(Color::Blue))],
                });
            }
            s.gap();
        }
        TagEnd::HtmlBlock => {
            s.flush();
            s.gap();
        }
        TagEnd::List(_) => {
            s.flush();
            s.lists.pop();
            s.gap();
        }
        TagEnd::Item => s.flush(),
        TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
            s.styles.pop();
        }
        TagEnd::Link => {
            s.styles.pop();
            if let Some(url) = s.link.pop() {
                let shown: String = s
                    .spans
                    .last()
                    .map(|x| x.content.to_string())
                    .unwrap_or_default();
                if !url.is_empty() && shown != url && s.table.is_none() {
                    s.spans.push(Span::styled(format!(" ({url})"), p.dim()));
                }
            }
        }
        TagEnd::Image => {
            s.styles.pop();
            s.link.pop();
            s.text("]");
        }
        TagEnd::TableHead => {
            if let Some(t) = s.table.as_mut() {
                t.head = t.rows.len();
            }
        }
        TagEnd::Table => {
            if let Some(table) = s.table.take() {
                lay_out(s, table, p);
                s.gap();
            }
        }
        _ => {}
    }
}

/// A table's rows in columns as wide as their widest cell (up to [`CELL`]).
fn lay_out(s: &mut State, table: Table, p: Palette) {
    use unicode_width::UnicodeWidthStr;
    let clip = |cell: &str| -> String {
        let cell = cell.trim();
        if cell.width() <= CELL {
            return cell.to_owned();
        }
        let mut out = String::new();
        for c in cell.chars() {
            if out.width() + 2 > CELL {
                break;
            }
            out.push(c);
        }
        out.push('…');
        out
    };
    let rows: Vec<Vec<String>> = table
        .rows
        .iter()
        .map(|r| r.iter().map(|c| clip(c)).collect())
        .collect();
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|t| t.width())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let base = s.base();
    for (n, row) in rows.iter().enumerate() {
        let mut spans = Vec::new();
        for (c, width) in widths.iter().enumerate() {
            if c > 0 {
                spans.push(Span::styled(" │ ", p.dim()));
            }
            let cell = row.get(c).map_or("", String::as_str);
            let pad = width.saturating_sub(cell.width());
            let style = if n < table.head {
                Style::default().add_modifier(Modifier::BOLD)
            } else {
                Style::default()
            };
            spans.push(Span::styled(format!("{cell}{}", " ".repeat(pad)), style));
        }
        s.rows.push(Row {
            first: base.clone(),
            rest: base.clone(),
            spans,
        });
        if n + 1 == table.head {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            s.rows.push(Row {
                first: base.clone(),
                rest: base.clone(),
                spans: vec![Span::styled(rule.join("─┼─"), p.dim())],
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Vec<String> {
        render(text, Palette { colour: false })
            .into_iter()
            .map(|r| {
                let body: String = r.spans.iter().map(|s| s.content.as_ref()).collect();
                format!("{}{}", r.first, body)
            })
            .collect()
    }

    #[test]
    fn lists_tables_quotes_and_code_are_laid_out() {
        let lines = plain(
            "# Plan\n\nDo **this** then `that`:\n\n1. first\n2. second\n   - nested\n\n> quoted\n\n```rust\nfn main() {}\n```\n\n| a | bee |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\nSee [docs](https://x.dev).",
        );
        assert_eq!(
            lines,
            [
                "Plan",
                "",
                "Do this then that:",
                "",
                "1. first",
                "2. second",
                "   • nested",
                "",
                "│ quoted",
                "",
                "rust",
                "  fn main() {}",
                "",
                "a │ bee",
                "──┼────",
                "1 │ 2  ",
                "",
                "• [x] done",
                "",
                "See docs (https://x.dev).",
            ]
        );
    }

    #[test]
    fn windows_line_ends_html_blocks_and_cells_keep_their_lines() {
        assert_eq!(
            plain("```\r\nl1\r\nl2\r\n```\r\n"),
            ["  l1", "  l2"],
            "no empty row between the lines of a CRLF code block"
        );
        assert_eq!(
            plain("<details>\n<summary>x</summary>\n\nBody"),
            ["<details>", "<summary>x</summary>", "", "Body"]
        );
        assert_eq!(
            plain("| a<br>b | c |\n|---|---|\n\nafter"),
            ["a b │ c", "────┼──", "", "after"]
        );
    }

    #[test]
    fn any_text_renders_without_a_panic() {
        for text in [
            "",
            "*",
            "```",
            "| a |\n|",
            "> > >",
            "1.\n\n\n-",
            "<b>x</b>\n\n<div>",
        ] {
            let _ = plain(text);
        }
    }
}
