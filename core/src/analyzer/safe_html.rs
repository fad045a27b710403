//! A message's Markdown as HTML the page may insert as is: the reader shows what an agent or a
//! person wrote (headings, lists, tables, code, links) and nothing a transcript could use to
//! run code or reach the network. Only a fixed set of tags is written, with no attribute but
//! a link's `href` (http, https and mailto only), a list's `start` and a code block's language
//! class (letters, digits, `-`, `_`, `+`); every raw HTML tag in the text is shown as text;
//! images are shown as links, never loaded. [`render_message`] also draws the wrappers agents
//! put around what the user did not type as what they mean: a command chip, or a labelled
//! fold (the rules are [`wrappers`](crate::analyzer::wrappers)'s).

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// Every tag [`render`] can write (the tests hold the output to this list).
pub const TAGS: &[&str] = &[
    "p",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "pre",
    "code",
    "ol",
    "ul",
    "li",
    "em",
    "strong",
    "del",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "br",
    "hr",
    "span",
    "details",
    "summary",
];

/// A message as the reader shows it: [`render`]'s Markdown, with the wrappers an agent put
/// around what the user did not type turned into what they mean (see
/// [`wrappers`](crate::analyzer::wrappers)): a slash command as a chip with its arguments,
/// command output and injected context folded under a label, the text inside shown as text.
pub fn render_message(text: &str) -> String {
    use crate::analyzer::wrappers::{Part, parts};
    let mut out = String::new();
    for part in parts(text) {
        match part {
            Part::Markdown(markdown) => {
                if !markdown.trim().is_empty() {
                    out.push_str(&render(&markdown));
                }
            }
            Part::Fold { label, text } => {
                out.push_str("<details><summary>");
                escape_into(&mut out, label);
                out.push_str("</summary><pre><code>");
                escape_into(&mut out, text);
                out.push_str("</code></pre></details>\n");
            }
            Part::Command { name, args } => {
                out.push_str("<p><span class=\"chip\">");
                escape_into(&mut out, name);
                out.push_str("</span>");
                if !args.is_empty() {
                    out.push(' ');
                    escape_into(&mut out, args);
                }
                out.push_str("</p>\n");
            }
        }
    }
    out
}

/// Text as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text);
    out
}

fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A link target the page may follow: an absolute http(s) or mailto URL with no whitespace or
/// control character in it. Anything else (`javascript:`, `data:`, a relative path that
/// would navigate the page away) is not a link.
pub fn safe_url(url: &str) -> Option<&str> {
    let url = url.trim();
    let lower = url
        .get(..url.len().min(8))
        .unwrap_or_default()
        .to_ascii_lowercase();
    let scheme_ok = lower.starts_with("http://")
        || lower.starts_with("https://")
        || lower.starts_with("mailto:");
    let clean = !url.chars().any(|c| c.is_whitespace() || c.is_control());
    (scheme_ok && clean).then_some(url)
}

/// A fence's language as a class name: its first word, letters, digits, `-`, `_` and `+`
/// only; none when that leaves nothing.
fn language(info: &str) -> Option<String> {
    let word: String = info
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
        .take(32)
        .collect();
    (!word.is_empty()).then_some(word)
}

/// Headings start at `h3`: the reader's own headings are above them.
fn heading(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 => "h3",
        HeadingLevel::H2 => "h4",
        HeadingLevel::H3 => "h5",
        _ => "h6",
    }
}

/// Renders Markdown (CommonMark with tables, strikethrough and task lists) as safe HTML.
pub fn render(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut out = String::with_capacity(markdown.len() + markdown.len() / 4);
    // Whether each open link was written as a link (its end closes an `<a>`).
    let mut links: Vec<bool> = Vec::new();
    // Inside an image: its alt text is collected and written with the link.
    let mut image: Option<(Option<String>, String)> = None;
    let mut in_table_head = false;
    for event in Parser::new_ext(markdown, options) {
        if let Some((_, alt)) = image.as_mut() {
            match event {
                Event::End(TagEnd::Image) => {
                    let (url, alt) = image.take().unwrap_or_default();
                    let label = if alt.trim().is_empty() {
                        "image".to_owned()
                    } else {
                        format!("image: {}", alt.trim())
                    };
                    match url {
                        Some(url) => {
                            out.push_str("<a href=\"");
                            escape_into(&mut out, &url);
                            out.push_str(
                                "\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">[",
                            );
                            escape_into(&mut out, &label);
                            out.push_str("]</a>");
                        }
                        None => {
                            out.push('[');
                            escape_into(&mut out, &label);
                            out.push(']');
                        }
                    }
                }
                Event::Text(text) | Event::Code(text) => alt.push_str(&text),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(tag) => match tag {
                Tag::Paragraph => out.push_str("<p>"),
                Tag::Heading { level, .. } => {
                    out.push('<');
                    out.push_str(heading(level));
                    out.push('>');
                }
                Tag::BlockQuote(_) => out.push_str("<blockquote>"),
                Tag::CodeBlock(kind) => {
                    let class = match kind {
                        CodeBlockKind::Fenced(info) => language(&info),
                        CodeBlockKind::Indented => None,
                    };
                    match class {
                        Some(class) => {
                            out.push_str("<pre><code class=\"language-");
                            out.push_str(&class);
                            out.push_str("\">");
                        }
                        None => out.push_str("<pre><code>"),
                    }
                }
                Tag::List(Some(start)) if start != 1 => {
                    out.push_str(&format!("<ol start=\"{start}\">"));
                }
                Tag::List(Some(_)) => out.push_str("<ol>"),
                Tag::List(None) => out.push_str("<ul>"),
                Tag::Item => out.push_str("<li>"),
                Tag::Emphasis => out.push_str("<em>"),
                Tag::Strong => out.push_str("<strong>"),
                Tag::Strikethrough => out.push_str("<del>"),
                Tag::Link { dest_url, .. } => match safe_url(&dest_url) {
                    Some(url) => {
                        out.push_str("<a href=\"");
                        escape_into(&mut out, url);
                        out.push_str("\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">");
                        links.push(true);
                    }
                    None => links.push(false),
                },
                Tag::Image { dest_url, .. } => {
                    image = Some((safe_url(&dest_url).map(str::to_owned), String::new()));
                }
                Tag::Table(_) => out.push_str("<table>"),
                Tag::TableHead => {
                    in_table_head = true;
                    out.push_str("<thead><tr>");
                }
                Tag::TableRow => out.push_str("<tr>"),
                Tag::TableCell => out.push_str(if in_table_head { "<th>" } else { "<td>" }),
                // Footnotes, definition lists, metadata, raw HTML blocks: their text only.
                _ => {}
            },
            Event::End(tag) => match tag {
                TagEnd::Paragraph => out.push_str("</p>\n"),
                TagEnd::Heading(level) => {
                    out.push_str("</");
                    out.push_str(heading(level));
                    out.push_str(">\n");
                }
                TagEnd::BlockQuote(_) => out.push_str("</blockquote>\n"),
                TagEnd::CodeBlock => out.push_str("</code></pre>\n"),
                TagEnd::List(true) => out.push_str("</ol>\n"),
                TagEnd::List(false) => out.push_str("</ul>\n"),
                TagEnd::Item => out.push_str("</li>\n"),
                TagEnd::Emphasis => out.push_str("</em>"),
                TagEnd::Strong => out.push_str("</strong>"),
                TagEnd::Strikethrough => out.push_str("</del>"),
                TagEnd::Link if links.pop().unwrap_or(false) => out.push_str("</a>"),
                TagEnd::Table => out.push_str("</tbody></table>\n"),
                TagEnd::TableHead => {
                    in_table_head = false;
                    out.push_str("</tr></thead><tbody>");
                }
                TagEnd::TableRow => out.push_str("</tr>"),
                TagEnd::TableCell => out.push_str(if in_table_head { "</th>" } else { "</td>" }),
                _ => {}
            },
            Event::Text(text) => escape_into(&mut out, &text),
            Event::Code(text) => {
                out.push_str("<code>");
                escape_into(&mut out, &text);
                out.push_str("</code>");
            }
            // Raw HTML is shown as the text it is.
            Event::Html(html) | Event::InlineHtml(html) => escape_into(&mut out, &html),
            Event::InlineMath(math) | Event::DisplayMath(math) => {
                out.push_str("<code>");
                escape_into(&mut out, &math);
                out.push_str("</code>");
            }
            Event::FootnoteReference(name) => {
                out.push('[');
                escape_into(&mut out, &name);
                out.push(']');
            }
            Event::SoftBreak => out.push('\n'),
            Event::HardBreak => out.push_str("<br>"),
            Event::Rule => out.push_str("<hr>\n"),
            Event::TaskListMarker(done) => {
                out.push_str(if done {
                    "<span>☑</span> "
                } else {
                    "<span>☐</span> "
                });
            }
        }
    }
    // An image left open by a cut message still says what it was.
    if let Some((_, alt)) = image {
        escape_into(&mut out, &alt);
    }
    out
}
