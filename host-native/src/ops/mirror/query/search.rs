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

use baton_core::transcripts::search::{COUNTED_AT_MOST, Order, RANKED_NEWEST};

/// The first message number of the slots by time (2000-01-01's first minute): a smaller one
/// is a message with no time, or one an index made before numbers were slotted numbered 1,
/// 2, 3… (see the mirror's `time_ordered_id`).
const FIRST_SLOTTED: i64 = 15_778_080 * crate::ops::mirror::pass::SLOT_SIZE;

/// Messages matching `query` in `fields`, in `order`, with how many match (see
/// [`baton_core::transcripts::search::plan`]: quoted phrases and rare words required, stop
/// words not one by one). By relevance, messages holding the whole query as a phrase come
/// first, then the others by rank, among the newest [`RANKED_NEWEST`] matches; newest first,
/// by when each was written. Each hit says where it matched and carries a snippet of at most
/// `width` characters centred on the match, with the matches' offsets. The full-text index
/// drives every query and stops at what a page needs: a message's number says when it was
/// written, so the newest matches are the index's last.
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
    let counted = scope
        .count(connection, &plan.required, COUNTED_AT_MOST + 1)
        .map_err(sql(path))?;
    let (total, total_capped) = if counted > COUNTED_AT_MOST {
        (COUNTED_AT_MOST, true)
    } else {
        (counted, false)
    };
    let mut ranked_newest = None;
    let mut page: Vec<(i64, bool)> = Vec::new();
    match order {
        Order::Newest => {
            let ids = scope
                .newest(connection, &plan.required, limit)
                .map_err(sql(path))?;
            // Which of them hold the whole phrase.
            let exact = match &plan.phrase {
                Some(phrase) => among(connection, phrase, &ids).map_err(sql(path))?,
                None => ids.iter().copied().collect(),
            };
            page.extend(ids.into_iter().map(|id| (id, exact.contains(&id))));
        }
        Order::Relevance => {
            if let Some(phrase) = &plan.phrase {
                let (ids, bounded) = scope.ranked(connection, phrase, limit).map_err(sql(path))?;
                ranked_newest = bounded.then_some(RANKED_NEWEST);
                page.extend(ids.into_iter().map(|id| (id, true)));
            }
            if (page.len() as i64) < limit {
                let exact: std::collections::HashSet<i64> =
                    page.iter().map(|(id, _)| *id).collect();
                let (more, bounded) = scope
                    .ranked(connection, &plan.required, limit + exact.len() as i64)
                    .map_err(sql(path))?;
                if bounded {
                    ranked_newest = Some(RANKED_NEWEST);
                }
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
        }
    }
    // Where each hit matched: the first field, in the order given, that holds the query.
    let ids: Vec<i64> = page.iter().map(|(id, _)| *id).collect();
    let mut found_in: std::collections::HashMap<i64, Field> = std::collections::HashMap::new();
    if !ids.is_empty() {
        for field in fields {
            let scoped = baton_core::transcripts::search::plan(query, &[field.column()])?;
            for id in among(connection, &scoped.required, &ids).map_err(sql(path))? {
                found_in.entry(id).or_insert(*field);
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
        order: order.wire(),
        total,
        total_capped,
        ranked_newest,
        hits,
    })
}

/// Which of `ids` match `expression`: one look at the span of numbers they cover, not one
/// per number (a prefix merges the lists of every word it begins each time it is looked up).
fn among(
    connection: &Connection,
    expression: &str,
    ids: &[i64],
) -> rusqlite::Result<std::collections::HashSet<i64>> {
    let (Some(low), Some(high)) = (ids.iter().min(), ids.iter().max()) else {
        return Ok(std::collections::HashSet::new());
    };
    let wanted: std::collections::HashSet<i64> = ids.iter().copied().collect();
    let mut found = std::collections::HashSet::new();
    let mut statement = connection.prepare_cached(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
         AND rowid >= ?2 AND rowid <= ?3",
    )?;
    let mut rows = statement.query(params![expression, low, high])?;
    while let Some(row) = rows.next()? {
        let id: i64 = row.get(0)?;
        if wanted.contains(&id) {
            found.insert(id);
            if found.len() == wanted.len() {
                break;
            }
        }
    }
    Ok(found)
}

/// Where a search looks: the filters, and the span of message numbers their dates allow.
struct Scope<'a> {
    filters: &'a Filters,
    /// Whether any filter needs the message's or its conversation's row.
    joined: bool,
    /// The numbers of the messages the dates allow, among those slotted by time.
    from: i64,
    to: i64,
    /// Whether the index holds numbers below the slots (see [`FIRST_SLOTTED`]).
    unslotted: bool,
}

/// The query's rows with the filters applied (`?1` the expression; `?2`…`?5` the filters;
/// `?6`, `?7` the span of message numbers).
const FILTERED: &str = "FROM messages_fts f
     JOIN messages m ON m.id = f.rowid JOIN conversations c ON c.id = m.conversation
     WHERE messages_fts MATCH ?1
       AND (?2 IS NULL OR c.provider = ?2) AND (?3 IS NULL OR instr(c.project, ?3) > 0)
       AND (?4 IS NULL OR m.at >= ?4) AND (?5 IS NULL OR m.at <= ?5)
       AND f.rowid >= ?6 AND f.rowid <= ?7";

/// The same rows when no filter is set: the full-text index alone.
const UNFILTERED: &str = "FROM messages_fts f
     WHERE messages_fts MATCH ?1
       AND ?2 IS NULL AND ?3 IS NULL AND ?4 IS NULL AND ?5 IS NULL
       AND f.rowid >= ?6 AND f.rowid <= ?7";

/// A region of message numbers: those slotted by time, newest first by number, and those
/// below the slots (no time, or an index made before), newest first by their time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    Slotted,
    Unslotted,
}

impl<'a> Scope<'a> {
    fn of(connection: &Connection, filters: &'a Filters) -> rusqlite::Result<Scope<'a>> {
        use crate::ops::mirror::pass::{SLOT_SIZE, SPILL_MINUTES, slot_start};
        // A message's number is in its minute's slot or in one of those its minute may spill
        // into: the span covers them, and the message's own time decides.
        let from = filters
            .since
            .map_or(FIRST_SLOTTED, |at| FIRST_SLOTTED.max(slot_start(at)));
        let to = filters.until.map_or(i64::MAX, |at| {
            slot_start(at).saturating_add(SPILL_MINUTES * SLOT_SIZE - 1)
        });
        let unslotted = connection
            .prepare_cached("SELECT 1 FROM messages WHERE id < ?1 LIMIT 1")?
            .exists([FIRST_SLOTTED])?;
        Ok(Scope {
            filters,
            joined: filters.provider.is_some()
                || filters.project.is_some()
                || filters.since.is_some()
                || filters.until.is_some(),
            from,
            to,
            unslotted,
        })
    }

    /// The regions to look in, newest first.
    fn regions(&self) -> Vec<Region> {
        let mut regions = vec![Region::Slotted];
        if self.unslotted {
            regions.push(Region::Unslotted);
        }
        regions
    }

    /// The statement `select … {rows} {tail}` for `region`, and its span.
    fn statement(&self, region: Region, select: &str, tail: &str) -> (String, i64, i64) {
        match region {
            Region::Slotted => {
                let rows = if self.joined { FILTERED } else { UNFILTERED };
                (format!("{select} {rows} {tail}"), self.from, self.to)
            }
            // Below the slots a number says nothing of time: the message's row does.
            Region::Unslotted => (
                format!(
                    "{select} {FILTERED} {}",
                    tail.replace("f.rowid DESC", "m.at DESC, f.rowid DESC")
                ),
                i64::MIN,
                FIRST_SLOTTED - 1,
            ),
        }
    }

    /// Runs `statement` over `region` with `expression`, at most `want` rows.
    fn rows<T>(
        &self,
        connection: &Connection,
        region: Region,
        (select, tail): (&str, &str),
        expression: &str,
        want: i64,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        let (sql, from, to) = self.statement(region, select, tail);
        let f = self.filters;
        connection
            .prepare_cached(&sql)?
            .query_map(
                params![
                    expression, f.provider, f.project, f.since, f.until, from, to, want
                ],
                row,
            )?
            .collect()
    }

    /// How many messages match, counted up to `most`.
    fn count(&self, connection: &Connection, expression: &str, most: i64) -> rusqlite::Result<i64> {
        let mut counted = 0;
        for region in self.regions() {
            if counted >= most {
                break;
            }
            let (sql, from, to) = self.statement(region, "SELECT 1", "LIMIT ?8");
            let f = self.filters;
            counted += connection
                .prepare_cached(&format!("SELECT count(*) FROM ({sql})"))?
                .query_row(
                    params![
                        expression,
                        f.provider,
                        f.project,
                        f.since,
                        f.until,
                        from,
                        to,
                        most - counted
                    ],
                    |r| r.get::<_, i64>(0),
                )?;
        }
        Ok(counted)
    }

    /// The newest `want` matches.
    fn newest(
        &self,
        connection: &Connection,
        expression: &str,
        want: i64,
    ) -> rusqlite::Result<Vec<i64>> {
        let mut ids = Vec::new();
        for region in self.regions() {
            let more = want - ids.len() as i64;
            if more <= 0 {
                break;
            }
            ids.extend(self.rows(
                connection,
                region,
                ("SELECT f.rowid", "ORDER BY f.rowid DESC LIMIT ?8"),
                expression,
                more,
                |r| r.get::<_, i64>(0),
            )?);
        }
        Ok(ids)
    }

    /// The best `want` by relevance among the newest [`RANKED_NEWEST`] matches, and whether
    /// there were that many (more may match).
    fn ranked(
        &self,
        connection: &Connection,
        expression: &str,
        want: i64,
    ) -> rusqlite::Result<(Vec<i64>, bool)> {
        let mut scored: Vec<(f64, i64)> = Vec::new();
        for region in self.regions() {
            let more = RANKED_NEWEST - scored.len() as i64;
            if more <= 0 {
                break;
            }
            scored.extend(self.rows(
                connection,
                region,
                ("SELECT f.rank, f.rowid", "ORDER BY f.rowid DESC LIMIT ?8"),
                expression,
                more,
                |r| Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)?)),
            )?);
        }
        let bounded = scored.len() as i64 >= RANKED_NEWEST;
        // BM25 as FTS5 gives it: the lower, the better; a tie goes to the newer.
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        let best = scored
            .into_iter()
            .take(usize::try_from(want).unwrap_or(0))
            .map(|(_, id)| id)
            .collect();
        Ok((best, bounded))
    }
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
    use super::*;

    const DAY: i64 = 86_400_000;
    const START: i64 = 1_780_000_000_000;

    /// An index at `dir` with one source and two conversations.
    fn index(dir: &Path) -> (Connection, std::path::PathBuf) {
        let path = dir.join("index.sqlite");
        let connection = crate::index::open(&path, true).unwrap();
        connection
            .execute_batch(
                "INSERT INTO sources (id, path, path_key, provider) VALUES (1, '/t/a.jsonl', 0, 'claude_code');
                 INSERT INTO conversations (id, provider, provider_id, project) VALUES
                     (1, 'claude_code', 'c1', '/w/app'), (2, 'codex', 'c2', '/w/site');",
            )
            .unwrap();
        (connection, path)
    }

    /// Adds messages saying `text`, one a day from `START` (each numbered by its time, as the
    /// mirror numbers them), in conversation 1 or 2 alternately.
    fn add(connection: &mut Connection, from: usize, texts: &[&str]) {
        let transaction = connection.transaction().unwrap();
        for (n, text) in texts.iter().enumerate() {
            let at = START + (from + n) as i64 * DAY;
            let id = crate::ops::mirror::pass::time_ordered_id(&transaction, Some(at)).unwrap();
            transaction
                .execute(
                    "INSERT INTO messages (id, conversation, source, message_id, role, at)
                     VALUES (?1, ?2, 1, ?3, 'user', ?4)",
                    params![
                        id,
                        (1 + (from + n) % 2) as i64,
                        format!("m{}", from + n),
                        at
                    ],
                )
                .unwrap();
            transaction
                .execute(
                    "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                     VALUES (?1, ?2, '', '', '')",
                    params![id, text],
                )
                .unwrap();
        }
        transaction.commit().unwrap();
    }

    fn find(
        connection: &Connection,
        path: &Path,
        query: &str,
        filters: &Filters,
        order: Order,
    ) -> HitPage {
        search(
            connection,
            path,
            query,
            &Field::DEFAULT,
            filters,
            order,
            5,
            80,
        )
        .unwrap()
    }

    fn ids(page: &HitPage) -> Vec<&str> {
        page.hits.iter().map(|h| h.message_id.as_str()).collect()
    }

    #[test]
    fn the_newest_come_first_and_relevance_puts_the_phrase_first() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, path) = index(tmp.path());
        add(
            &mut connection,
            0,
            &[
                "flaky login test",
                "the login is flaky and the test too",
                "flaky",
                "login test flaky login test flaky",
                "nothing here",
                "flaky login test again",
            ],
        );
        let none = Filters::default();
        let newest = find(&connection, &path, "flaky login", &none, Order::Newest);
        assert_eq!(ids(&newest), ["m5", "m3", "m1", "m0"]);
        assert_eq!((newest.total, newest.total_capped), (4, false));
        assert_eq!(newest.order, "newest");
        let exact: Vec<bool> = newest.hits.iter().map(|h| h.exact).collect();
        assert_eq!(exact, [true, true, false, true]);
        let ranked = find(&connection, &path, "flaky login", &none, Order::Relevance);
        assert!(
            ranked.hits[..3].iter().all(|h| h.exact),
            "{:?}",
            ids(&ranked)
        );
        assert_eq!(ranked.hits[3].message_id, "m1");
        assert_eq!(ranked.ranked_newest, None);
        // Filters: a provider, a project, a span of days.
        let codex = Filters {
            provider: Some("codex".into()),
            ..Filters::default()
        };
        assert_eq!(
            ids(&find(&connection, &path, "flaky", &codex, Order::Newest)),
            ["m5", "m3", "m1"]
        );
        let days = Filters {
            since: Some(START + DAY),
            until: Some(START + 3 * DAY),
            ..Filters::default()
        };
        assert_eq!(
            ids(&find(&connection, &path, "flaky", &days, Order::Newest)),
            ["m3", "m2", "m1"]
        );
        assert_eq!(
            find(&connection, &path, "flaky", &days, Order::Relevance).total,
            3
        );
        // A prefix, and a word in no message.
        assert_eq!(
            find(&connection, &path, "fla*", &none, Order::Newest).total,
            5
        );
        let nothing = find(&connection, &path, "zanzibar", &none, Order::Relevance);
        assert_eq!((nothing.total, nothing.hits.len()), (0, 0));
    }

    #[test]
    fn a_count_stops_at_its_bound_and_ranking_at_the_newest() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, path) = index(tmp.path());
        let many = vec!["common word"; (RANKED_NEWEST + 5) as usize];
        add(&mut connection, 0, &many);
        let none = Filters::default();
        let page = find(&connection, &path, "common", &none, Order::Relevance);
        assert_eq!((page.total, page.total_capped), (COUNTED_AT_MOST, true));
        assert_eq!(page.ranked_newest, Some(RANKED_NEWEST));
        // Every match scores alike: the newest win the tie.
        let last = format!("m{}", RANKED_NEWEST + 4);
        assert_eq!(page.hits[0].message_id, last);
        let newest = find(&connection, &path, "common", &none, Order::Newest);
        assert_eq!(newest.hits[0].message_id, last);
    }

    #[test]
    fn messages_numbered_before_the_slots_come_after_by_their_time() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, path) = index(tmp.path());
        // An index made before numbers were slotted: 1, 2, 3 in the order read, not of time.
        connection
            .execute_batch(&format!(
                "INSERT INTO messages (id, conversation, source, message_id, role, at) VALUES
                     (1, 1, 1, 'old-b', 'user', {b}), (2, 1, 1, 'old-a', 'user', {a}),
                     (3, 1, 1, 'old-none', 'user', NULL);
                 INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output) VALUES
                     (1, 'kept word', '', '', ''), (2, 'kept word', '', '', ''),
                     (3, 'kept word', '', '', '');",
                a = START - 2 * DAY,
                b = START - 3 * DAY
            ))
            .unwrap();
        add(&mut connection, 0, &["kept word", "kept word"]);
        let page = find(
            &connection,
            &path,
            "kept",
            &Filters::default(),
            Order::Newest,
        );
        assert_eq!(ids(&page), ["m1", "m0", "old-a", "old-b", "old-none"]);
        assert_eq!(page.total, 5);
        let ranked = find(
            &connection,
            &path,
            "kept",
            &Filters::default(),
            Order::Relevance,
        );
        assert_eq!(ranked.hits.len(), 5);
    }

    #[test]
    fn a_full_minute_spills_into_the_next_and_no_number_is_taken_twice() {
        use crate::ops::mirror::pass::{SLOT_SIZE, slot_start};
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, _) = index(tmp.path());
        let transaction = connection.transaction().unwrap();
        let mut numbers = Vec::new();
        for n in 0..SLOT_SIZE + 3 {
            let id = crate::ops::mirror::pass::time_ordered_id(&transaction, Some(START)).unwrap();
            transaction
                .execute(
                    "INSERT INTO messages (id, conversation, source, message_id, role, at)
                     VALUES (?1, 1, 1, ?2, 'user', ?3)",
                    params![id, format!("m{n}"), START],
                )
                .unwrap();
            transaction
                .execute(
                    "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                     VALUES (?1, 'spilled', '', '', '')",
                    [id],
                )
                .unwrap();
            numbers.push(id);
        }
        let first = slot_start(START);
        assert_eq!(numbers[0], first);
        assert_eq!(numbers[SLOT_SIZE as usize - 1], first + SLOT_SIZE - 1);
        // The minute after, whose own messages then follow these.
        assert_eq!(numbers[SLOT_SIZE as usize], first + SLOT_SIZE);
        let later =
            crate::ops::mirror::pass::time_ordered_id(&transaction, Some(START + 60_000)).unwrap();
        assert_eq!(later, first + SLOT_SIZE + 3);
        // An earlier minute still gets its own place, before them.
        let earlier =
            crate::ops::mirror::pass::time_ordered_id(&transaction, Some(START - 60_000)).unwrap();
        assert_eq!(earlier, first - SLOT_SIZE);
        // No time at all: the first slot, below every dated message.
        let dateless = crate::ops::mirror::pass::time_ordered_id(&transaction, None).unwrap();
        assert_eq!(dateless, 0);
        transaction.commit().unwrap();
        // A span of days ending at that minute still finds the messages that spilled past it.
        let until = Filters {
            until: Some(START),
            ..Filters::default()
        };
        let path = tmp.path().join("index.sqlite");
        let page = find(&connection, &path, "spilled", &until, Order::Newest);
        assert_eq!(page.total, SLOT_SIZE + 3);
    }

    /// The full-text index drives every statement a search runs over the slotted numbers,
    /// and the newest come out of it in order: no statement sorts its matches (SQLite's plan
    /// would say `USE TEMP B-TREE FOR ORDER BY`), so each stops at what it needs.
    #[test]
    fn the_full_text_index_drives_each_query_and_nothing_sorts_the_matches() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, _) = index(tmp.path());
        add(&mut connection, 0, &["a word", "another word"]);
        for joined in [false, true] {
            let filters = Filters::default();
            let scope = Scope {
                filters: &filters,
                joined,
                from: FIRST_SLOTTED,
                to: i64::MAX,
                unslotted: false,
            };
            for (select, tail) in [
                ("SELECT 1", "LIMIT ?8"),
                ("SELECT f.rowid", "ORDER BY f.rowid DESC LIMIT ?8"),
                ("SELECT f.rank, f.rowid", "ORDER BY f.rowid DESC LIMIT ?8"),
            ] {
                let (sql, ..) = scope.statement(Region::Slotted, select, tail);
                let plan: Vec<String> = connection
                    .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                    .unwrap()
                    .query_map(
                        params![
                            "word",
                            None::<String>,
                            None::<String>,
                            None::<i64>,
                            None::<i64>,
                            0,
                            i64::MAX,
                            20
                        ],
                        |r| r.get::<_, String>(3),
                    )
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap();
                assert!(
                    plan[0].starts_with("SCAN f VIRTUAL TABLE"),
                    "{select} {tail} (joined: {joined}): {plan:?}"
                );
                assert!(
                    !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                    "{select} {tail} (joined: {joined}): {plan:?}"
                );
            }
        }
        // Below the slots, by contrast, the matches are sorted by their time: the check sees it.
        let filters = Filters::default();
        let scope = Scope {
            filters: &filters,
            joined: false,
            from: FIRST_SLOTTED,
            to: i64::MAX,
            unslotted: true,
        };
        let (sql, ..) = scope.statement(
            Region::Unslotted,
            "SELECT f.rowid",
            "ORDER BY f.rowid DESC LIMIT ?8",
        );
        let plan: Vec<String> = connection
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(
                params![
                    "word",
                    None::<String>,
                    None::<String>,
                    None::<i64>,
                    None::<i64>,
                    0,
                    1,
                    20
                ],
                |r| r.get::<_, String>(3),
            )
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }
}
