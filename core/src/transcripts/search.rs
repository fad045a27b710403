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

    /// What a search looks in unless told: everything, tool output included (an error a
    /// person pastes is most often in what a command printed).
    pub const DEFAULT: [Field; 4] = [
        Field::Text,
        Field::Thinking,
        Field::ToolInput,
        Field::ToolOutput,
    ];

    /// Where a hit is, as JSON says it: `text`, `thinking`, `tool_call`, `tool_output`.
    pub fn wire(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Thinking => "thinking",
            Field::ToolInput => "tool_call",
            Field::ToolOutput => "tool_output",
        }
    }

    /// Where a hit is, in words a person reads: `text`, `thinking`, `tool call`, `tool output`.
    pub fn place(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::Thinking => "thinking",
            Field::ToolInput => "tool call",
            Field::ToolOutput => "tool output",
        }
    }
}

/// Words so common in English that alone they match nearly every message: a query keeps them
/// in its phrase (ranked first) but does not require them one by one.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "do", "for", "from", "has", "have",
    "he", "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or",
    "our", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "to", "was", "we", "were", "what", "when", "which", "who", "will", "with", "you", "your",
];

/// Whether `word` (as typed) is a [`STOP_WORDS`] entry.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word.to_lowercase().as_str())
}

/// A person's query, made ready for the full-text index: what every hit must hold, the whole
/// query as one phrase (its hits are ranked first), and what a snippet looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchPlan {
    /// Every hit holds all of these: each quoted phrase, and each other word that is not a
    /// stop word (an FTS5 expression over the columns searched).
    pub required: String,
    /// The query as one phrase, when it has two words or more: its hits come first.
    pub phrase: Option<String>,
    /// What a snippet centres on and highlights, the whole phrase first (lower-cased).
    pub needles: Vec<String>,
}

/// Reads `query` for a search over `columns`. Quoted text is a phrase (`"is not a function"`);
/// other words are required unless they are stop words; the whole query is also a phrase
/// ranked first. A query of stop words alone is looked for as its phrase; a single stop word is
/// refused (it is in nearly every message). Every word is a literal term, never an operator.
pub fn plan(query: &str, columns: &[&str]) -> crate::error::Result<SearchPlan> {
    use crate::error::Error;
    let mut phrases: Vec<Vec<String>> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut all: Vec<String> = Vec::new();
    for (n, part) in query.split('"').enumerate() {
        let part_words: Vec<String> = part
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .map(str::to_owned)
            .collect();
        all.extend(part_words.iter().cloned());
        // Odd parts are inside quotes (an unclosed quote runs to the end).
        if n % 2 == 1 {
            if !part_words.is_empty() {
                phrases.push(part_words);
            }
        } else {
            words.extend(part_words);
        }
    }
    if all.is_empty() {
        return Err(Error::invalid(
            "query",
            "give at least one word to look for",
        ));
    }
    let term = |text: &str| format!("\"{}\"", index_text(text).trim().replace('"', "\"\""));
    let mut required: Vec<String> = phrases.iter().map(|p| term(&p.join(" "))).collect();
    required.extend(words.iter().filter(|w| !is_stop_word(w)).map(|w| term(w)));
    let whole = (all.len() > 1).then(|| term(&all.join(" ")));
    if required.is_empty() {
        match &whole {
            Some(phrase) => required.push(phrase.clone()),
            None => {
                return Err(Error::invalid(
                    "query",
                    format!(
                        "`{}` is in nearly every message: add a rarer word, or quote a phrase (\"is not a function\")",
                        all[0]
                    ),
                )
                .with("stop_word", all[0].clone()));
            }
        }
    }
    let scope = |expression: &str| format!("{{{}}} : ({expression})", columns.join(" "));
    let mut needles = Vec::new();
    if all.len() > 1 {
        needles.push(all.join(" ").to_lowercase());
    }
    for phrase in &phrases {
        needles.push(phrase.join(" ").to_lowercase());
    }
    needles.extend(
        words
            .iter()
            .filter(|w| !is_stop_word(w) || all.len() == 1)
            .map(|w| w.to_lowercase()),
    );
    needles.dedup();
    Ok(SearchPlan {
        required: scope(&required.join(" AND ")),
        phrase: whole
            .filter(|phrase| required.len() > 1 || required[0] != *phrase)
            .map(|phrase| scope(&phrase)),
        needles,
    })
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

/// An excerpt of a hit, centred on what matched, with where the matches are.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Snippet {
    /// The excerpt: one line, escapes, tags and spacing the index added taken out, `…` where
    /// it was cut.
    pub text: String,
    /// Each match inside `text`, as `[start, end)` in characters (Unicode scalar values).
    pub highlights: Vec<(usize, usize)>,
}

/// Text as a person reads it in a snippet: the spaces the index set around CJK characters
/// taken out again, JSON escapes (`\n`, `\t`, `\"`) read, markup tags (`<system-reminder>`,
/// `</command-name>`) dropped, every run of whitespace one space.
pub fn readable(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // ` 東 ` as the index writes it: the character alone.
        if c == ' '
            && chars.get(i + 1).is_some_and(|n| is_cjk(*n))
            && chars.get(i + 2) == Some(&' ')
        {
            out.push(chars[i + 1]);
            i += 3;
            continue;
        }
        if c == '\\' {
            match chars.get(i + 1) {
                Some('n' | 't' | 'r') => {
                    out.push(' ');
                    i += 2;
                    continue;
                }
                Some('"') => {
                    out.push('"');
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        if c == '<' {
            // A tag: `<name …>` or `</name>`, a letter first; its content is kept.
            let start = i + 1 + usize::from(chars.get(i + 1) == Some(&'/'));
            if chars.get(start).is_some_and(char::is_ascii_alphabetic) {
                let end = chars[start..]
                    .iter()
                    .take(200)
                    .position(|c| *c == '>' || *c == '<' || *c == '\n');
                if let Some(end) = end.filter(|e| chars[start + e] == '>') {
                    let name_ok = chars[start..start + end]
                        .iter()
                        .take_while(|c| !c.is_whitespace())
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
                    if name_ok {
                        out.push(' ');
                        i = start + end + 1;
                        continue;
                    }
                }
            }
        }
        out.push(if c.is_whitespace() { ' ' } else { c });
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The excerpt of `text` a hit shows, at most `width` characters: centred on the first of
/// `needles` it holds (the whole phrase before single words; a whole word before a part of
/// one), every needle inside it highlighted. The start of the text when none is there.
pub fn snippet_of(text: &str, needles: &[String], width: usize) -> Snippet {
    let flat = readable(text);
    let chars: Vec<char> = flat.chars().collect();
    // Lower-casing can change lengths: positions are found on a per-character lower-case.
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    let occurrences = |needle: &[char], whole: bool| -> Vec<usize> {
        if needle.is_empty() || needle.len() > lower.len() {
            return Vec::new();
        }
        (0..=lower.len() - needle.len())
            .filter(|&i| {
                lower[i..i + needle.len()] == needle[..]
                    && (!whole
                        || ((i == 0 || !lower[i - 1].is_alphanumeric())
                            && lower
                                .get(i + needle.len())
                                .is_none_or(|c| !c.is_alphanumeric())))
            })
            .collect()
    };
    let needles: Vec<Vec<char>> = needles
        .iter()
        .map(|n| readable(n).to_lowercase().chars().collect())
        .collect();
    let first = needles
        .iter()
        .find_map(|n| occurrences(n, true).first().map(|at| (*at, n.len())))
        .or_else(|| {
            needles
                .iter()
                .find_map(|n| occurrences(n, false).first().map(|at| (*at, n.len())))
        });
    let width = width.max(16);
    let (start, end) = match first {
        None => (0, chars.len().min(width)),
        Some((at, len)) => {
            let room = width.saturating_sub(len) / 2;
            let start = at
                .saturating_sub(room)
                .min(chars.len().saturating_sub(width));
            (start, (start + width).min(chars.len()))
        }
    };
    // The cut marks take a character each.
    let lead = usize::from(start > 0);
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    text.extend(&chars[start..end]);
    if end < chars.len() {
        text.push('…');
    }
    let mut highlights: Vec<(usize, usize)> = Vec::new();
    for needle in &needles {
        for at in occurrences(needle, false) {
            let (from, to) = (at, at + needle.len());
            if from < start || to > end {
                continue;
            }
            let span = (from - start + lead, to - start + lead);
            if !highlights.iter().any(|h| h.0 < span.1 && span.0 < h.1) {
                highlights.push(span);
            }
        }
    }
    highlights.sort_unstable();
    Snippet { text, highlights }
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
            "{text thinking tool_input tool_output} : (\"parse_claude_code\" AND \"OR\" AND \"x*\")"
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
    fn a_pasted_message_requires_its_rare_words_and_ranks_its_phrase_first() {
        let pasted = plan("generate is not a function", &["text", "tool_output"]).unwrap();
        assert_eq!(
            pasted.required,
            "{text tool_output} : (\"generate\" AND \"function\")"
        );
        assert_eq!(
            pasted.phrase.as_deref(),
            Some("{text tool_output} : (\"generate is not a function\")")
        );
        assert_eq!(pasted.needles[0], "generate is not a function");
        // Quoted: the phrase is required.
        let quoted = plan_of("\"is not a function\" generate");
        assert_eq!(
            quoted.required,
            "{text} : (\"is not a function\" AND \"generate\")"
        );
        // Stop words alone: looked for as their phrase; one alone is refused.
        let common = plan_of("is not a");
        assert_eq!(common.required, "{text} : (\"is not a\")");
        assert_eq!(common.phrase, None);
        let err = plan("the", &["text"]).unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidArgument);
        assert!(
            err.message.contains("nearly every message"),
            "{}",
            err.message
        );
        // One word: no phrase.
        assert_eq!(plan_of("flaky").phrase, None);
        // Operators are words (`OR` a stop word, kept in the phrase).
        let operators = plan_of("NEAR OR x*");
        assert_eq!(operators.required, "{text} : (\"NEAR\" AND \"x*\")");
        assert_eq!(
            operators.phrase.as_deref(),
            Some("{text} : (\"NEAR OR x*\")")
        );
    }

    fn plan_of(query: &str) -> SearchPlan {
        plan(query, &["text"]).unwrap()
    }

    #[test]
    fn snippets_centre_on_the_phrase_and_say_where_it_is() {
        let text = format!(
            "{} TypeError: client.generate is not a function\\n    at Object.<anonymous> (src/api.ts:12) {}",
            "word ".repeat(60),
            "tail ".repeat(60)
        );
        let words = vec!["generate is not a function".to_owned(), "generate".into()];
        let cut = snippet_of(&text, &words, 60);
        assert!(cut.text.chars().count() <= 62, "{}", cut.text);
        assert!(
            cut.text.contains("generate is not a function"),
            "{}",
            cut.text
        );
        assert!(!cut.text.contains("\\n"), "escapes read: {}", cut.text);
        let (from, to) = cut.highlights[0];
        let marked: String = cut.text.chars().skip(from).take(to - from).collect();
        assert_eq!(marked.to_lowercase(), "generate is not a function");
        // Tags out, CJK as written.
        let tagged = snippet_of(
            "<system-reminder>keep</system-reminder> 東  京 で会議",
            &["keep".into()],
            80,
        );
        assert_eq!(tagged.text, "keep 東京で会議");
        assert_eq!(tagged.highlights, vec![(0, 4)]);
        // Not there: the start, nothing marked.
        let none = snippet_of("short text", &["zzz".into()], 40);
        assert_eq!(
            (none.text.as_str(), none.highlights.len()),
            ("short text", 0)
        );
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
