//! Where a search looks and how it asks the full-text index: the filters, the span of
//! message numbers a span of days allows (a message's number says its minute), the numbers
//! below the slots (no time, or an index made before), and the statements that stop at what
//! a page needs.

use super::*;
use crate::index::hits::{Ask, Reading};
use baton_core::transcripts::ranking::{SAMPLED, estimated_docs};

/// The first message number of the slots by time (2000-01-01's first minute): a smaller one
/// is a message with no time, or one an index made before numbers were slotted numbered 1,
/// 2, 3… (see the mirror's `time_ordered_id`).
pub(super) const FIRST_SLOTTED: i64 = 15_778_080 * crate::ops::mirror::pass::SLOT_SIZE;

/// How many messages hold each of `plan`'s terms, estimated from each term's newest
/// [`SAMPLED`] matches (see [`estimated_docs`]): a prefix as the `words` it stands for, when
/// known (else unknown: FTS5 would merge every word's list to sample it); not asked for when
/// there is one term (its weight changes no order).
pub(super) fn term_docs(
    connection: &Connection,
    plan: &baton_core::transcripts::search::SearchPlan,
    words: &[Option<Vec<String>>],
) -> rusqlite::Result<Vec<Option<f64>>> {
    if plan.terms.len() < 2 {
        return Ok(vec![None; plan.terms.len()]);
    }
    // One aggregate a statement: SQLite then reads one end of the table, not all of it.
    let first: Option<i64> = connection
        .prepare_cached("SELECT min(id) FROM messages WHERE id >= ?1")?
        .query_row([FIRST_SLOTTED], |r| r.get(0))?;
    let last: Option<i64> = connection
        .prepare_cached("SELECT max(id) FROM messages")?
        .query_row([], |r| r.get(0))?;
    let (first, last) = (first.unwrap_or(0), last.unwrap_or(0));
    let mut statement = connection.prepare_cached(
        "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1
         ORDER BY rowid DESC LIMIT ?2",
    )?;
    let mut docs = Vec::with_capacity(plan.terms.len());
    for (n, term) in plan.terms.iter().enumerate() {
        let expression = match (&term.stem, words.get(n).and_then(Option::as_ref)) {
            (None, _) => term.expression.clone(),
            (Some(_), Some(list)) if !list.is_empty() => plan.any_word(list),
            (Some(_), _) => {
                docs.push(None);
                continue;
            }
        };
        let numbers: Vec<i64> = statement
            .query_map(params![expression, SAMPLED], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let oldest = numbers.last().copied().unwrap_or(last);
        docs.push(Some(estimated_docs(
            numbers.len() as i64,
            oldest,
            first,
            last,
        )));
    }
    Ok(docs)
}

/// Where a search looks: the filters, and the span of message numbers their dates allow.
pub(super) struct Scope<'a> {
    filters: &'a Filters,
    /// Whether any filter needs the message's or its conversation's row.
    joined: bool,
    /// The numbers of the messages the dates allow, among those slotted by time.
    from: i64,
    to: i64,
    /// Whether the index holds numbers below the slots (see [`FIRST_SLOTTED`]).
    unslotted: bool,
}

/// What a search reads of each match: its number, and `baton_hit`'s reading of it for the
/// ask (`?9`).
const MATCHES: &str = "SELECT f.rowid, baton_hit(messages_fts, ?9)";

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
    pub(super) fn of(connection: &Connection, filters: &'a Filters) -> rusqlite::Result<Scope<'a>> {
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

    /// Runs `statement` over `region` with `expression` and the ask, at most `want` rows.
    fn rows<T>(
        &self,
        connection: &Connection,
        region: Region,
        (select, tail): (&str, &str),
        (expression, ask): (&str, &str),
        want: i64,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<Vec<T>> {
        let (sql, from, to) = self.statement(region, select, tail);
        let f = self.filters;
        connection
            .prepare_cached(&sql)?
            .query_map(
                params![
                    expression, f.provider, f.project, f.since, f.until, from, to, want, ask
                ],
                row,
            )?
            .collect()
    }

    /// Up to `want` matches of `expression`, newest first, region after region, each with
    /// what `baton_hit` reads of it for `ask`.
    pub(super) fn matches(
        &self,
        connection: &Connection,
        expression: &str,
        ask: &Ask,
        want: i64,
    ) -> rusqlite::Result<Vec<(i64, Reading)>> {
        let ask = ask.encode();
        let mut found = Vec::new();
        for region in self.regions() {
            let more = want - found.len() as i64;
            if more <= 0 {
                break;
            }
            found.extend(self.rows(
                connection,
                region,
                (MATCHES, "ORDER BY f.rowid DESC LIMIT ?8"),
                (expression, &ask),
                more,
                |r| {
                    let reading = match r.get_ref(1)? {
                        rusqlite::types::ValueRef::Blob(bytes) => Reading::decode(bytes),
                        _ => None,
                    };
                    Ok((
                        r.get::<_, i64>(0)?,
                        reading.unwrap_or(Reading {
                            score: 0.0,
                            field: None,
                            exact: false,
                        }),
                    ))
                },
            )?);
        }
        Ok(found)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use baton_core::transcripts::search::{COUNTED_AT_MOST, Order, RANKED_NEWEST};

    pub(in crate::ops::mirror::query) const DAY: i64 = 86_400_000;
    pub(in crate::ops::mirror::query) const START: i64 = 1_780_000_000_000;

    /// An index at `dir` with one source and two conversations.
    pub(in crate::ops::mirror::query) fn index(dir: &Path) -> (Connection, std::path::PathBuf) {
        let path = dir.join("index.sqlite");
        let connection = crate::index::open(&path, true).unwrap();
        crate::ops::mirror::vocabulary::fill_once(&connection).unwrap();
        // As a search registers it before its walk.
        crate::index::hits::register(&connection).unwrap();
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
    pub(in crate::ops::mirror::query) fn add(
        connection: &mut Connection,
        from: usize,
        texts: &[&str],
    ) {
        let transaction = connection.transaction().unwrap();
        let mut words = crate::ops::mirror::vocabulary::Pending::default();
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
            let fields = baton_core::transcripts::search::IndexedFields {
                text: text.to_string(),
                ..Default::default()
            };
            words.note(&transaction, &fields).unwrap();
        }
        words.settle(&transaction).unwrap();
        transaction.commit().unwrap();
    }

    pub(in crate::ops::mirror::query) fn find(
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

    pub(in crate::ops::mirror::query) fn ids(page: &HitPage) -> Vec<&str> {
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

    /// SQLite's plan for `sql`, a step a line, its span of numbers ending at `to`.
    fn query_plan(connection: &Connection, sql: &str, to: i64) -> Vec<String> {
        let none = None::<String>;
        connection
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(
                params![
                    "word",
                    none,
                    none,
                    None::<i64>,
                    None::<i64>,
                    0,
                    to,
                    20,
                    "0123|1|1|"
                ],
                |r| r.get::<_, String>(3),
            )
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    /// The full-text index drives every statement a search runs over the slotted numbers,
    /// and the newest come out of it in order: no statement sorts its matches (SQLite's plan
    /// would say `USE TEMP B-TREE FOR ORDER BY`), so each stops at what it needs.
    #[test]
    fn the_full_text_index_drives_each_query_and_nothing_sorts_the_matches() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut connection, _) = index(tmp.path());
        add(&mut connection, 0, &["a word", "another word"]);
        let days = |from: i64, to: i64| Filters {
            since: Some(from),
            until: Some(to),
            ..Filters::default()
        };
        // Each shape of query a person types: a word, a phrase, a prefix, none found (the
        // same statement, the words bound), and each filter beside them.
        let shapes = [
            ("word, phrase, prefix, nothing", Filters::default()),
            (
                "word + provider",
                Filters {
                    provider: Some("codex".into()),
                    ..Filters::default()
                },
            ),
            (
                "word + project",
                Filters {
                    project: Some("app".into()),
                    ..Filters::default()
                },
            ),
            ("word + days", days(START, START + DAY)),
        ];
        for (shape, filters) in &shapes {
            let scope = Scope::of(&connection, filters).unwrap();
            let (sql, ..) =
                scope.statement(Region::Slotted, MATCHES, "ORDER BY f.rowid DESC LIMIT ?8");
            let plan = query_plan(&connection, &sql, i64::MAX);
            assert!(
                plan[0].starts_with("SCAN f VIRTUAL TABLE"),
                "{shape}: {plan:?}"
            );
            assert!(
                !plan.iter().any(|step| step.contains("TEMP B-TREE")),
                "{shape}: {plan:?}"
            );
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
        let (sql, ..) =
            scope.statement(Region::Unslotted, MATCHES, "ORDER BY f.rowid DESC LIMIT ?8");
        let plan = query_plan(&connection, &sql, 1);
        assert!(
            plan.iter().any(|step| step.contains("TEMP B-TREE")),
            "{plan:?}"
        );
    }
}
