//! Full-text search's rules, the same for every host that indexes transcripts: what of a
//! message is indexed and in which field (text, thinking, tool input, tool output), how text
//! becomes terms (CJK characters one term each, so a word of two characters is findable
//! without a dictionary), and how a person's query becomes an FTS5 expression in which every
//! word is a literal term (no operator is ever read from the query, none is dropped).

use crate::transcripts::conversation::{Block, Message};

/// What a message contributes to the index, by field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedFields {
    /// What was said.
    pub text: String,
    /// Reasoning.
    pub thinking: String,
    /// Tool names and their arguments.
    pub tool_input: String,
    /// Tool output (searchable, but not by default).
    pub tool_output: String,
}

impl IndexedFields {
    /// Whether nothing of the message is searchable.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
            && self.thinking.is_empty()
            && self.tool_input.is_empty()
            && self.tool_output.is_empty()
    }
}

/// The fields a search may look in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// What was said.
    Text,
    /// Reasoning.
    Thinking,
    /// Tool calls' names and arguments.
    ToolInput,
    /// Tool output.
    ToolOutput,
}

impl Field {
    /// The FTS column.
    pub fn column(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Thinking => "thinking",
            Field::ToolInput => "tool_input",
            Field::ToolOutput => "tool_output",
        }
    }

    /// A field from its name as people type it (`text`, `thinking`, `tool`, `tool_input`,
    /// `tool_output`); `tool` means both tool fields.
    pub fn parse_list(text: &str) -> Option<Vec<Field>> {
        let mut fields = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "text" => fields.push(Field::Text),
                "thinking" => fields.push(Field::Thinking),
                "tool" | "tools" => fields.extend([Field::ToolInput, Field::ToolOutput]),
                "tool_input" => fields.push(Field::ToolInput),
                "tool_output" => fields.push(Field::ToolOutput),
                _ => return None,
            }
        }
        (!fields.is_empty()).then_some(fields)
    }

    /// What a search looks in unless told: what was said, reasoning, and tool calls; not
    /// tool output, which is mostly files and logs.
    pub const DEFAULT: [Field; 3] = [Field::Text, Field::Thinking, Field::ToolInput];
}

/// The shortest run of base64 characters treated as an encoded payload (an image, a file)
/// rather than words: such runs are left out of the index.
const BASE64_RUN: usize = 200;

/// Free text as the index takes it (a stored record's title or content): long base64 runs
/// left out, CJK characters set apart, as a message's fields are.
pub fn searchable_text(text: &str) -> String {
    index_text(&without_payloads(text))
}

/// A message's searchable fields.
pub fn indexed_fields(message: &Message) -> IndexedFields {
    let mut fields = IndexedFields::default();
    let add = |into: &mut String, text: &str| {
        let text = without_payloads(text);
        if text.trim().is_empty() {
            return;
        }
        if !into.is_empty() {
            into.push('\n');
        }
        into.push_str(&index_text(&text));
    };
    for block in &message.blocks {
        match block {
            Block::Text { text } => add(&mut fields.text, text),
            Block::Thinking { text } => add(&mut fields.thinking, text),
            Block::ToolCall { name, input, .. } => {
                add(&mut fields.tool_input, &format!("{name} {input}"))
            }
            Block::ToolResult { output, .. } => add(&mut fields.tool_output, output),
            Block::Other { .. } => {}
        }
    }
    fields
}

fn is_base64_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '-' | '_')
}

/// `text` without long runs of base64 (images, files): they are noise to search.
fn without_payloads(text: &str) -> std::borrow::Cow<'_, str> {
    let mut run = 0usize;
    let mut long = false;
    for c in text.chars() {
        if is_base64_char(c) {
            run += 1;
            if run >= BASE64_RUN {
                long = true;
                break;
            }
        } else {
            run = 0;
        }
    }
    if !long {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut pending = String::new();
    for c in text.chars() {
        if is_base64_char(c) {
            pending.push(c);
        } else {
            if pending.chars().count() < BASE64_RUN {
                out.push_str(&pending);
            }
            pending.clear();
            out.push(c);
        }
    }
    if pending.chars().count() < BASE64_RUN {
        out.push_str(&pending);
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `c` is written without spaces between words (Chinese, Japanese, Korean): each such
/// character is indexed as a term of its own.
pub fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK Extension A
        | 0x4E00..=0x9FFF   // CJK Unified Ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // CJK Extensions B–F, Compatibility Supplement
    )
}

/// Text as the index sees it: every CJK character set apart by spaces, so the tokenizer
/// (`unicode61`, which splits on spaces and punctuation) makes each a term.
pub fn index_text(text: &str) -> String {
    if !text.chars().any(is_cjk) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    for c in text.chars() {
        if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// A query as an FTS5 expression: each word a quoted literal (so `AND`, `*`, `"`, `:` or
/// `NEAR` in a query are words, never operators), all required, looked for in `fields`.
/// A word the tokenizer splits (`parse_claude_code`, `東京`, `x86-64`) is a phrase of its parts
/// in order. `None` when the query has no word.
pub fn match_expression(query: &str, fields: &[Field]) -> Option<String> {
    let columns: Vec<&str> = fields.iter().map(|f| f.column()).collect();
    match_in_columns(query, &columns)
}

/// [`match_expression`] over the named FTS columns (a stored record's `title` and `content`).
pub fn match_in_columns(query: &str, columns: &[&str]) -> Option<String> {
    let terms: Vec<String> = query
        .split_whitespace()
        .map(|word| {
            let spaced = index_text(word);
            format!("\"{}\"", spaced.trim().replace('"', "\"\""))
        })
        .filter(|term| term.chars().any(char::is_alphanumeric))
        .collect();
    if terms.is_empty() {
        return None;
    }
    Some(format!(
        "{{{}}} : ({})",
        columns.join(" "),
        terms.join(" AND ")
    ))
}

/// The words of `query` as they are matched in text (lower-cased), for snippets.
pub fn query_words(query: &str) -> Vec<String> {
    query
        .split_whitespace()
        .map(str::to_lowercase)
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect()
}

/// A short excerpt of `text` around the first of `words` it holds (case-insensitive), at most
/// `width` characters, with `…` where it was cut; the start of the text when none is there.
pub fn snippet(text: &str, words: &[String], width: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let lower = flat.to_lowercase();
    // Lower-casing can change byte lengths; find the word's character position instead.
    let chars: Vec<char> = flat.chars().collect();
    let lower_chars: Vec<char> = lower.chars().collect();
    // The first whole-word match of any word, else the first match inside a word.
    let find = |whole: bool| {
        words.iter().find_map(|word| {
            let needle: Vec<char> = word.chars().collect();
            if needle.is_empty() || needle.len() > lower_chars.len() {
                return None;
            }
            (0..=lower_chars.len() - needle.len()).find(|&i| {
                lower_chars[i..i + needle.len()] == needle[..]
                    && (!whole
                        || ((i == 0 || !lower_chars[i - 1].is_alphanumeric())
                            && lower_chars
                                .get(i + needle.len())
                                .is_none_or(|c| !c.is_alphanumeric())))
            })
        })
    };
    let found = find(true).or_else(|| find(false));
    let at = found.unwrap_or(0);
    let start = at.saturating_sub(width / 3);
    let end = (start + width).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(chars[start..end].iter());
    if end < chars.len() {
        out.push('…');
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_characters_are_terms_of_their_own() {
        assert_eq!(index_text("東京で会議"), " 東  京  で  会  議 ");
        assert_eq!(index_text("plain text"), "plain text");
    }

    #[test]
    fn every_word_is_a_literal_term_and_operators_are_words() {
        assert_eq!(
            match_expression("parse_claude_code OR x*", &Field::DEFAULT).unwrap(),
            "{text thinking tool_input} : (\"parse_claude_code\" AND \"OR\" AND \"x*\")"
        );
        assert_eq!(
            match_expression("say \"hi\"", &[Field::Text]).unwrap(),
            "{text} : (\"say\" AND \"\"\"hi\"\"\")"
        );
        assert_eq!(match_expression("  \"\" * ", &[Field::Text]), None);
        assert!(
            match_expression("東京", &[Field::Text])
                .unwrap()
                .contains("\"東  京\"")
        );
    }

    #[test]
    fn payloads_are_left_out_and_words_kept() {
        let image = "A".repeat(500);
        let fields = indexed_fields(&Message {
            id: "m".into(),
            parent: None,
            role: crate::transcripts::conversation::Role::User,
            at: None,
            blocks: vec![Block::Text {
                text: format!("look at this {image} picture"),
            }],
            model: None,
            side_chain: false,
            tokens: None,
        });
        assert_eq!(fields.text, "look at this  picture");
    }

    #[test]
    fn snippets_center_on_the_word() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        assert_eq!(
            snippet(text, &["eight".into()], 20),
            "…seven eight nine ten…"
        );
        assert_eq!(snippet("short", &["x".into()], 20), "short");
    }

    #[test]
    fn fields_are_parsed_as_people_type_them() {
        assert_eq!(
            Field::parse_list("text,tool"),
            Some(vec![Field::Text, Field::ToolInput, Field::ToolOutput])
        );
        assert_eq!(Field::parse_list("nonsense"), None);
    }
}
