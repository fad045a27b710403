//! Full-text search's rules, the same for every host that indexes transcripts: what of a
//! message is indexed and in which field (text, thinking, tool input, tool output), how text
//! becomes terms (CJK characters one term each, so a word of two characters is findable
//! without a dictionary), and how a person's query becomes an FTS5 expression in which every
//! word is a literal term (no operator is ever read from the query, none is dropped).

use crate::transcripts::conversation::{Block, Message};

mod walk;
pub use walk::Walk;

/// What a message contributes to the index, by field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedFields {
    /// What was said.
    pub text: String,
    /// Reasoning.
    pub thinking: String,
    /// Tool names and their arguments.
    pub tool_input: String,
    /// Tool output.
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

    /// The FTS column's place in the index's table, whose columns are in the order of
    /// [`Field::DEFAULT`].
    pub fn index(self) -> usize {
        match self {
            Field::Text => 0,
            Field::Thinking => 1,
            Field::ToolInput => 2,
            Field::ToolOutput => 3,
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
}

/// How a search orders its hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// Messages holding the whole query as a phrase first, then by relevance (BM25); when
    /// more than [`RANKED_NEWEST`] messages match, the newest that many are ranked.
    #[default]
    Relevance,
    /// The newest first.
    Newest,
}

/// How many of the newest matches a ranked search ranks: ranking every match of a word in
/// most messages costs time in proportion to them, and a person searching a year of history
/// for a common word wants the best of what is recent.
pub const RANKED_NEWEST: i64 = 2_000;

/// How far a search counts its matches: past this many it says "more than".
pub const COUNTED_AT_MOST: i64 = 1_000;

impl Order {
    /// The order as people type it: `relevance` (or `rank`) or `newest`.
    pub fn parse(text: &str) -> Option<Order> {
        match text.trim() {
            "relevance" | "rank" | "ranked" => Some(Order::Relevance),
            "newest" | "new" | "recent" => Some(Order::Newest),
            _ => None,
        }
    }

    /// The order a search was asked for: `relevance` unless `text` names another.
    pub fn asked(text: Option<&str>) -> crate::error::Result<Order> {
        match text {
            None => Ok(Order::Relevance),
            Some(text) => Order::parse(text).ok_or_else(|| {
                crate::error::Error::invalid(
                    "order",
                    format!("`{text}` is not an order: use relevance or newest"),
                )
            }),
        }
    }

    /// The order as JSON says it.
    pub fn wire(self) -> &'static str {
        match self {
            Order::Relevance => "relevance",
            Order::Newest => "newest",
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
    /// Each term of `required` on its own, in its order (each over the columns searched): a
    /// term's weight is estimated from its own matches.
    pub terms: Vec<Term>,
    /// The columns searched, as FTS5 names a set of them (`{text thinking}`).
    pub columns: String,
    /// The query as one phrase, when it has two words or more: its hits come first.
    pub phrase: Option<String>,
    /// What a snippet centres on and highlights, the whole phrase first (lower-cased; a
    /// prefix ends in `*`).
    pub needles: Vec<String>,
}

/// One required term of a [`SearchPlan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The term alone, over the columns searched (an FTS5 expression).
    pub expression: String,
    /// The term as it stands inside `required` (a phrase, a word, or a prefix `"pars" *`).
    pub bare: String,
    /// For a prefix, its start as typed (`pars`): it stands for every word it begins.
    pub stem: Option<String>,
}

/// Reads `query` for a search over `columns`. Quoted text is a phrase (`"is not a function"`);
/// other words are required unless they are stop words; the whole query is also a phrase
/// ranked first. A query of stop words alone is looked for as its phrase; a single stop word is
/// refused (it is in nearly every message). A word ending in `*` is a prefix (`pars*` finds
/// `parser` and `parsing`); every other word is a literal term, never an operator.
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
    // A word ending in `*` (two letters or more before it) stands for every word it begins.
    let word_term = |word: &str| match prefix_of(word) {
        Some(stem) => format!("{} *", term(stem)),
        None => term(word),
    };
    let mut required: Vec<String> = phrases.iter().map(|p| term(&p.join(" "))).collect();
    let mut stems: Vec<Option<String>> = vec![None; required.len()];
    for word in words.iter().filter(|w| !is_stop_word(w)) {
        required.push(word_term(word));
        stems.push(prefix_of(word).map(str::to_owned));
    }
    let whole = (all.len() > 1).then(|| term(&all.join(" ")));
    if required.is_empty() {
        match &whole {
            Some(phrase) => {
                required.push(phrase.clone());
                stems.push(None);
            }
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
    let colset = format!("{{{}}}", columns.join(" "));
    let scope = |expression: &str| format!("{colset} : ({expression})");
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
            .map(|w| match prefix_of(w) {
                // A snippet marks a prefix where a word begins with it.
                Some(stem) => format!("{}*", stem.to_lowercase()),
                None => w.to_lowercase(),
            }),
    );
    needles.dedup();
    Ok(SearchPlan {
        required: scope(&required.join(" AND ")),
        terms: required
            .iter()
            .zip(stems)
            .map(|(term, stem)| Term {
                expression: scope(term),
                bare: term.clone(),
                stem,
            })
            .collect(),
        columns: colset.clone(),
        phrase: whole
            .filter(|phrase| required.len() > 1 || required[0] != *phrase)
            .map(|phrase| scope(&phrase)),
        needles,
    })
}

/// The start a prefix word stands for (`pars*` → `pars`): two letters or digits or more
/// before one final `*`.
fn prefix_of(word: &str) -> Option<&str> {
    let stem = word.strip_suffix('*')?;
    (stem.chars().filter(|c| c.is_alphanumeric()).count() >= 2 && !stem.ends_with('*'))
        .then_some(stem)
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
        let columns: Vec<&str> = Field::DEFAULT.iter().map(|f| f.column()).collect();
        assert_eq!(
            plan("parse_claude_code OR x*", &columns).unwrap().required,
            "{text thinking tool_input tool_output} : (\"parse_claude_code\" AND \"x*\")"
        );
        assert_eq!(
            plan("say \"hi\"", &["text"]).unwrap().required,
            "{text} : (\"hi\" AND \"say\")"
        );
        assert!(plan("  \"\" * ", &["text"]).is_err());
        assert!(
            plan("東京", &["text"])
                .unwrap()
                .required
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

    #[test]
    fn a_word_ending_in_a_star_is_a_prefix() {
        let prefix = plan_of("pars* timeout");
        assert_eq!(prefix.required, "{text} : (\"pars\" * AND \"timeout\")");
        assert_eq!(prefix.needles, ["pars* timeout", "pars*", "timeout"]);
        // Too short to be a prefix, or quoted: literal.
        assert_eq!(plan_of("x*").required, "{text} : (\"x*\")");
        assert_eq!(plan_of("\"pars*\"").required, "{text} : (\"pars*\")");
    }

    #[test]
    fn orders_are_read_as_people_type_them() {
        assert_eq!(Order::parse("newest"), Some(Order::Newest));
        assert_eq!(Order::parse("relevance"), Some(Order::Relevance));
        assert_eq!(Order::parse("oldest"), None);
        assert_eq!(Order::default().wire(), "relevance");
        assert_eq!(Order::asked(None).unwrap(), Order::Relevance);
        assert_eq!(Order::asked(Some("newest")).unwrap(), Order::Newest);
        let err = Order::asked(Some("oldest")).unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidArgument);
    }

    fn plan_of(query: &str) -> SearchPlan {
        plan(query, &["text"]).unwrap()
    }

    #[test]
    fn each_required_term_stands_alone_in_order() {
        let plan = plan_of("\"not a function\" the pars* login");
        let stems: Vec<Option<&str>> = plan.terms.iter().map(|t| t.stem.as_deref()).collect();
        assert_eq!(stems, [None, Some("pars"), None]);
        let terms: Vec<&str> = plan.terms.iter().map(|t| t.expression.as_str()).collect();
        assert_eq!(
            terms,
            [
                "{text} : (\"not a function\")",
                "{text} : (\"pars\" *)",
                "{text} : (\"login\")"
            ]
        );
        assert_eq!(
            plan.required,
            format!(
                "{{text}} : ({})",
                ["\"not a function\"", "\"pars\" *", "\"login\""].join(" AND ")
            )
        );
        // Stop words alone: the phrase is the one term.
        assert_eq!(
            plan_of("is not").terms,
            [Term {
                expression: "{text} : (\"is not\")".into(),
                bare: "\"is not\"".into(),
                stem: None
            }]
        );
        // One walk: a prefix as the words it stands for, the whole phrase or-ed in after.
        let walk = plan.walk(&[None, Some(vec!["parse".into(), "parser".into()]), None]);
        assert_eq!(
            walk.expression,
            "({text} : (\"not a function\" AND (\"parse\" OR \"parser\") AND \"login\")) OR ({text} : (\"not a function the pars* login\"))"
        );
        assert_eq!(walk.phrases, [1, 2, 1]);
        // No words known, or none given: the prefix stays one; no phrase, nothing or-ed.
        let alone = plan_of("pars*");
        let walk = alone.walk(&[Some(vec![])]);
        assert_eq!(walk.expression, "{text} : (\"pars\" *)");
        assert_eq!(walk.expression, alone.required);
        assert_eq!(walk.phrases, [1]);
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
