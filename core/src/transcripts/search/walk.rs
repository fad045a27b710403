//! How one search walks the index's matches: the plan's required terms, a prefix as the
//! index's words that begin with it, and the whole query's phrase or-ed in after them.

use super::SearchPlan;

/// Any of `words`, each a literal term (`"parse" OR "parser"`).
fn any_of(words: &[String]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    quoted.join(" OR ")
}

/// The expression one walk of a search's matches uses (see [`SearchPlan::walk`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    /// The FTS5 expression.
    pub expression: String,
    /// How many FTS5 phrases each required term became, in order; the whole query's phrase,
    /// when there is one, is the phrase after them.
    pub phrases: Vec<usize>,
}

impl SearchPlan {
    /// Any of `words` in the columns searched: a prefix term alone, as the words it stands
    /// for.
    pub fn any_word(&self, words: &[String]) -> String {
        format!("{} : ({})", self.columns, any_of(words))
    }

    /// The expression that finds this plan's matches in one walk: the required terms, each
    /// prefix whose words are given (`words[i]` for term `i`: the index's words that begin
    /// with its stem) looked for as those words (FTS5 then walks their lists newest first
    /// rather than merging them all), and the whole query's phrase or-ed in after them: it
    /// implies them, and what the index reads of each row then says whether it holds it.
    pub fn walk(&self, words: &[Option<Vec<String>>]) -> Walk {
        let mut phrases = Vec::with_capacity(self.terms.len());
        let mut parts = Vec::with_capacity(self.terms.len());
        for (n, term) in self.terms.iter().enumerate() {
            match words
                .get(n)
                .and_then(Option::as_ref)
                .filter(|w| !w.is_empty())
            {
                Some(list) if term.stem.is_some() => {
                    parts.push(format!("({})", any_of(list)));
                    phrases.push(list.len());
                }
                _ => {
                    parts.push(term.bare.clone());
                    phrases.push(1);
                }
            }
        }
        let required = format!("{} : ({})", self.columns, parts.join(" AND "));
        let expression = match &self.phrase {
            Some(phrase) => format!("({required}) OR ({phrase})"),
            None => required,
        };
        Walk {
            expression,
            phrases,
        }
    }
}
