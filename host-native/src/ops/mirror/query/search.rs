//! Ranked full-text hits over the index with snippets made for the returned page only, and a
//! line's readable text.

use super::*;

/// One search hit: a message.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// The conversation.
    pub conversation: ConversationRow,
    /// The message's provider id.
    pub message_id: String,
    /// Who wrote it.
    pub role: String,
    /// When (ms).
    pub at: Option<i64>,
    /// Where it matched: `text`, `thinking`, `tool_call` or `tool_output`.
    pub field: &'static str,
    /// Whether it holds the whole query as a phrase (such hits come first).
    pub exact: bool,
    /// An excerpt centred on the match.
    pub snippet: String,
    /// Each match inside the snippet, `[start, end)` in characters.
    pub highlights: Vec<(usize, usize)>,
}

/// Ranked hits and how many messages match in all.
#[derive(Debug, Clone, Serialize)]
pub struct HitPage {
    /// The query's FTS5 expression (every word a literal term).
    pub expression: String,
    /// How the hits are ordered: `relevance` or `newest`.
    pub order: &'static str,
    /// Matching messages in all, counted up to [`COUNTED_AT_MOST`] (see `total_capped`).
    pub total: i64,
    /// Whether more messages match than `total` says (counting stopped there).
    pub total_capped: bool,
    /// When relevance ranked only the newest matches: how many it ranked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranked_newest: Option<i64>,
    /// This page, best first.
    pub hits: Vec<Hit>,
}

use super::scope::{Scope, term_docs};
use crate::index::hits::{Ask, Reading};
use baton_core::transcripts::ranking::{Ranked, by_relevance};
use baton_core::transcripts::search::{COUNTED_AT_MOST, Order, RANKED_NEWEST};

/// Messages matching `query` in `fields`, in `order`, with how many match (see
/// [`baton_core::transcripts::search::plan`]: quoted phrases and rare words required, stop
/// words not one by one). By relevance, among the newest [`RANKED_NEWEST`] matches, those
/// holding the whole query as a phrase come first, then the others by BM25 (see
/// [`baton_core::transcripts::ranking`]); newest first, by when each was written. Each hit
/// says where it matched and carries a snippet of at most `width` characters centred on the
/// match, with the matches' offsets. The full-text index drives one walk of the newest
/// matches that stops at what the page and the count need (a message's number says when it
/// was written, so the newest matches are the index's last), and `baton_hit` reads each
/// match's field, phrase and score on the way.
#[allow(clippy::too_many_arguments)]
pub fn search(
    connection: &Connection,
    path: &Path,
    query: &str,
    fields: &[Field],
    filters: &Filters,
    order: Order,
    limit: i64,
    width: usize,
) -> Result<HitPage, Error> {
    let columns: Vec<&str> = fields.iter().map(|f| f.column()).collect();
    let plan = baton_core::transcripts::search::plan(query, &columns)?;
    let scope = Scope::of(connection, filters).map_err(sql(path))?;
    // Only a search reads rows through `baton_hit`: registered here, not by every opener.
    crate::index::hits::register(connection).map_err(sql(path))?;
    // One walk of the newest matches answers the page, the count, where each hit matched and
    // whether it holds the whole phrase; a prefix is walked as the words it begins.
    let words: Vec<Option<Vec<String>>> = plan
        .terms
        .iter()
        .map(|term| match &term.stem {
            Some(stem) => crate::ops::mirror::vocabulary::words_beginning(connection, stem),
            None => Ok(None),
        })
        .collect::<rusqlite::Result<_>>()
        .map_err(sql(path))?;
    let walk = plan.walk(&words);
    let ask = Ask {
        fields: fields.iter().map(|f| f.index()).collect(),
        terms: walk.phrases.clone(),
        score: order == Order::Relevance,
        docs: match order {
            Order::Relevance => term_docs(connection, &plan, &words).map_err(sql(path))?,
            Order::Newest => Vec::new(),
        },
    };
    let want = match order {
        Order::Relevance => RANKED_NEWEST.max(limit),
        Order::Newest => limit.max(COUNTED_AT_MOST + 1),
    };
    let mut found = scope
        .matches(connection, &walk.expression, &ask, want)
        .map_err(sql(path))?;
    let counted = found.len() as i64;
    let (total, total_capped) = if counted > COUNTED_AT_MOST {
        (COUNTED_AT_MOST, true)
    } else {
        (counted, false)
    };
    let mut ranked_newest = None;
    if order == Order::Relevance {
        ranked_newest = (counted >= want).then_some(want);
        // More matches than were ranked, and too few of them hold the whole phrase: the
        // phrase's own newest matches, older than those ranked, still come first (an error a
        // person pastes whole is found however far back it is).
        if let Some(phrase) = plan.phrase.as_ref().filter(|_| ranked_newest.is_some()) {
            let exact = found.iter().filter(|(_, r)| r.exact).count() as i64;
            if exact < limit {
                let alone = Ask {
                    terms: vec![1],
                    docs: Vec::new(),
                    ..ask.clone()
                };
                let seen: std::collections::HashSet<i64> =
                    found.iter().map(|(id, _)| *id).collect();
                let older = scope
                    .matches(connection, phrase, &alone, limit)
                    .map_err(sql(path))?;
                found.extend(
                    older
                        .into_iter()
                        .filter(|(id, _)| !seen.contains(id))
                        // After the ranked ones that hold it, newest first (a score below any).
                        .map(|(id, reading)| {
                            let older = Reading {
                                exact: true,
                                score: -1.0,
                                ..reading
                            };
                            (id, older)
                        }),
                );
            }
        }
        let exact_first = plan.phrase.is_some();
        found.sort_by(|a, b| {
            let ranked = |(number, reading): &(i64, Reading)| Ranked {
                exact: exact_first && reading.exact,
                score: reading.score,
                number: *number,
            };
            by_relevance(&ranked(a), &ranked(b))
        });
    }
    found.truncate(usize::try_from(limit).unwrap_or(0));
    // Without a phrase apart from the terms, every hit holds the whole query.
    let page: Vec<(i64, bool, Field)> = found
        .into_iter()
        .map(|(id, reading)| {
            let field = reading
                .field
                .and_then(|n| fields.get(n).copied())
                .unwrap_or(Field::Text);
            (id, plan.phrase.is_none() || reading.exact, field)
        })
        .collect();
    let mut statement = connection
        .prepare_cached(
            "SELECT c.id, c.provider, c.provider_id, c.title, c.project, c.started_at,
                    c.updated_at, c.messages, m.message_id, m.role, m.at, m.excerpt, m.source
             FROM messages m JOIN conversations c ON c.id = m.conversation
             WHERE m.id = ?1",
        )
        .map_err(sql(path))?;
    let mut inflater = crate::ops::mirror::packing::Inflater::new();
    let mut hits = Vec::with_capacity(page.len());
    for (id, exact, field) in page {
        let hit = statement
            .query_row([id], |r| {
                // A blob is compressed; a short excerpt is kept as text.
                let text = match r.get_ref(11)? {
                    rusqlite::types::ValueRef::Blob(frame) => inflater
                        .inflate(connection, frame)
                        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                        .unwrap_or_default(),
                    rusqlite::types::ValueRef::Text(text) => {
                        String::from_utf8_lossy(text).into_owned()
                    }
                    _ => String::new(),
                };
                let mut cut =
                    baton_core::transcripts::snippets::snippet_of(&text, &plan.needles, width);
                // The match is past what the excerpt keeps (deep in a long tool output): the
                // message's own line, from the kept lines.
                if cut.highlights.is_empty() {
                    let message_id: String = r.get(8)?;
                    if let Some(whole) =
                        line_text(connection, &mut inflater, r.get(12)?, &message_id)
                    {
                        let again = baton_core::transcripts::snippets::snippet_of(
                            &whole,
                            &plan.needles,
                            width,
                        );
                        if !again.highlights.is_empty() {
                            cut = again;
                        }
                    }
                }
                Ok(Hit {
                    conversation: ConversationRow::read(r)?,
                    message_id: r.get(8)?,
                    role: r.get(9)?,
                    at: r.get(10)?,
                    field: field.wire(),
                    exact,
                    snippet: cut.text,
                    highlights: cut.highlights,
                })
            })
            .map_err(sql(path))?;
        hits.push(hit);
    }
    Ok(HitPage {
        expression: plan.required,
        order: order.wire(),
        total,
        total_capped,
        ranked_newest,
        hits,
    })
}

/// Every string of the kept line that names `message_id` in source `source` (its text, tool
/// input and output), one per line: what a snippet is cut from when the excerpt missed the
/// match. Reads that source's kept lines until the line is found; none when it is not.
fn line_text(
    connection: &Connection,
    inflater: &mut crate::ops::mirror::packing::Inflater,
    source: i64,
    message_id: &str,
) -> Option<String> {
    let needle = serde_json::to_string(message_id).ok()?;
    let mut statement = connection
        .prepare_cached("SELECT raw FROM lines WHERE source = ?1 ORDER BY offset")
        .ok()?;
    let mut rows = statement.query([source]).ok()?;
    while let Ok(Some(row)) = rows.next() {
        let bytes = match row.get_ref(0) {
            Ok(rusqlite::types::ValueRef::Blob(frame)) => match inflater.inflate(connection, frame)
            {
                Ok(bytes) => bytes,
                Err(_) => continue,
            },
            Ok(rusqlite::types::ValueRef::Text(text)) => text.to_vec(),
            _ => continue,
        };
        let Some(at) = bytes
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
        else {
            continue;
        };
        let start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let end = bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| at + n);
        let value: serde_json::Value = serde_json::from_slice(&bytes[start..end]).ok()?;
        let mut out = String::new();
        strings_of(&value, &mut out);
        return Some(out);
    }
    None
}

/// Every string inside `value`, each on its own line.
fn strings_of(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::String(text) => {
            out.push_str(text);
            out.push('\n');
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings_of(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings_of(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::super::scope::tests::{add, find, ids, index};
    use super::*;

    #[test]
    fn the_whole_phrase_is_found_older_than_the_matches_ranked() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, path) = index(tmp.path());
        add(
            &mut connection,
            0,
            &["the flaky login test", "a flaky login"],
        );
        let newer = vec!["login then flaky"; (RANKED_NEWEST + 5) as usize];
        add(&mut connection, 2, &newer);
        let page = find(
            &connection,
            &path,
            "flaky login",
            &Filters::default(),
            Order::Relevance,
        );
        assert_eq!(page.ranked_newest, Some(RANKED_NEWEST));
        assert_eq!(ids(&page)[..2], ["m1", "m0"]);
        assert!(page.hits[0].exact && page.hits[1].exact && !page.hits[2].exact);
    }

    #[test]
    fn a_prefix_finds_the_same_as_its_words_as_fts5s_own_prefix_search() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, path) = index(tmp.path());
        add(
            &mut connection,
            0,
            &[
                "parse the config",
                "the parser failed",
                "parsing timeout in the parser",
                "nothing here",
                "a parsnip and a parse tree",
                "spars and parsecs",
            ],
        );
        let none = Filters::default();
        let mut pages = Vec::new();
        for _ in 0..2 {
            for order in [Order::Newest, Order::Relevance] {
                let page = find(&connection, &path, "pars*", &none, order);
                let mut hits: Vec<String> =
                    page.hits.iter().map(|h| h.message_id.clone()).collect();
                hits.sort();
                pages.push((hits, page.total));
                let page = find(&connection, &path, "pars* timeout", &none, order);
                pages.push((vec![page.hits[0].message_id.clone()], page.total));
            }
            // Then without the list of words: FTS5's own prefix search.
            connection.execute("DELETE FROM vocabulary", []).unwrap();
        }
        assert_eq!(pages[0].0, ["m0", "m1", "m2", "m4", "m5"]);
        assert_eq!(pages[1], (vec!["m2".to_string()], 1));
        assert_eq!(pages[..4], pages[4..]);
        assert_eq!(pages[0], pages[2]);
    }
}
