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
    /// Matching messages in all.
    pub total: i64,
    /// This page, best first.
    pub hits: Vec<Hit>,
}

/// Messages matching `query` in `fields`, best first, with how many match in all (see
/// [`baton_core::transcripts::search::plan`]: quoted phrases and rare words required, stop
/// words not one by one). Messages holding the whole query as a phrase come first, then the
/// others by rank; each hit says where it matched and carries a snippet of at most `width`
/// characters centred on the match, with the matches' offsets.
pub fn search(
    connection: &Connection,
    path: &Path,
    query: &str,
    fields: &[Field],
    filters: &Filters,
    limit: i64,
    width: usize,
) -> Result<HitPage, Error> {
    let columns: Vec<&str> = fields.iter().map(|f| f.column()).collect();
    let plan = baton_core::transcripts::search::plan(query, &columns)?;
    let filter = "(?2 IS NULL OR c.provider = ?2) AND (?3 IS NULL OR instr(c.project, ?3) > 0)
         AND (?4 IS NULL OR m.at >= ?4) AND (?5 IS NULL OR m.at <= ?5)";
    let total: i64 = connection
        .query_row(
            &format!(
                "SELECT count(*) FROM messages_fts f
                 JOIN messages m ON m.id = f.rowid JOIN conversations c ON c.id = m.conversation
                 WHERE messages_fts MATCH ?1 AND {filter}"
            ),
            params![
                plan.required,
                filters.provider,
                filters.project,
                filters.since,
                filters.until
            ],
            |r| r.get(0),
        )
        .map_err(sql(path))?;
    // The page, ranked: the whole phrase's matches first, then the other matches.
    let ranked = |expression: &str, want: i64| -> Result<Vec<i64>, Error> {
        let mut statement = connection
            .prepare_cached(&format!(
                "SELECT f.rowid FROM messages_fts f
                 JOIN messages m ON m.id = f.rowid JOIN conversations c ON c.id = m.conversation
                 WHERE messages_fts MATCH ?1 AND {filter}
                 ORDER BY f.rank LIMIT ?6"
            ))
            .map_err(sql(path))?;
        statement
            .query_map(
                params![
                    expression,
                    filters.provider,
                    filters.project,
                    filters.since,
                    filters.until,
                    want
                ],
                |r| r.get::<_, i64>(0),
            )
            .map_err(sql(path))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(sql(path))
    };
    let mut page: Vec<(i64, bool)> = Vec::new();
    if let Some(phrase) = &plan.phrase {
        page.extend(ranked(phrase, limit)?.into_iter().map(|id| (id, true)));
    }
    if (page.len() as i64) < limit {
        let exact: std::collections::HashSet<i64> = page.iter().map(|(id, _)| *id).collect();
        let more = ranked(&plan.required, limit + exact.len() as i64)?;
        page.extend(
            more.into_iter()
                .filter(|id| !exact.contains(id))
                .take(
                    usize::try_from(limit)
                        .unwrap_or(0)
                        .saturating_sub(page.len()),
                )
                .map(|id| (id, plan.phrase.is_none())),
        );
    }
    // Where each hit matched: the first field, in the order given, that holds the query.
    let ids: Vec<String> = page.iter().map(|(id, _)| id.to_string()).collect();
    let mut found_in: std::collections::HashMap<i64, Field> = std::collections::HashMap::new();
    if !ids.is_empty() {
        for field in fields {
            let scoped = baton_core::transcripts::search::plan(query, &[field.column()])?;
            let mut statement = connection
                .prepare(&format!(
                    "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
                     AND rowid IN ({})",
                    ids.join(",")
                ))
                .map_err(sql(path))?;
            let rows = statement
                .query_map([&scoped.required], |r| r.get::<_, i64>(0))
                .map_err(sql(path))?;
            for id in rows {
                found_in.entry(id.map_err(sql(path))?).or_insert(*field);
            }
        }
    }
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
    for (id, exact) in page {
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
                    field: found_in.get(&id).map_or("text", |f| f.wire()),
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
        total,
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
