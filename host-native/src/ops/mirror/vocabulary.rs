//! The index's list of the words it holds (`vocabulary`): what a pass adds, noted as it
//! stores messages and written before it commits, and the words a prefix stands for.

use std::collections::HashSet;

use rusqlite::{Connection, params};

use crate::index::fts5::Tokenizer;
use baton_core::transcripts::search::IndexedFields;

/// The most words a prefix is looked for as: past this, FTS5's own prefix search (which
/// merges every word's list) costs less than walking so many lists.
pub const WORDS_AT_MOST: usize = 64;

/// The words a pass's transaction stored, written to `vocabulary` before it commits.
#[derive(Debug, Default)]
pub struct Pending {
    tokenizer: Option<Tokenizer>,
    words: HashSet<String>,
}

impl Pending {
    /// Notes every word of a message's indexed fields (cut as the full-text index cuts them).
    pub fn note(
        &mut self,
        connection: &Connection,
        fields: &IndexedFields,
    ) -> rusqlite::Result<()> {
        if self.tokenizer.is_none() {
            self.tokenizer = Some(Tokenizer::new(connection)?);
        }
        let Some(tokenizer) = self.tokenizer.as_mut() else {
            return Ok(());
        };
        let words = &mut self.words;
        for text in [
            &fields.text,
            &fields.thinking,
            &fields.tool_input,
            &fields.tool_output,
        ] {
            tokenizer.terms(text, &mut |term| {
                if !words.contains(term) {
                    words.insert(term.to_owned());
                }
            })?;
        }
        Ok(())
    }

    /// Writes the noted words (in the transaction about to commit).
    pub fn settle(&mut self, connection: &Connection) -> rusqlite::Result<()> {
        if self.words.is_empty() {
            return Ok(());
        }
        let mut statement =
            connection.prepare_cached("INSERT OR IGNORE INTO vocabulary (term) VALUES (?1)")?;
        for word in self.words.drain() {
            statement.execute([word])?;
        }
        Ok(())
    }

    /// Forgets the noted words (their transaction was rolled back).
    pub fn clear(&mut self) {
        self.words.clear();
    }
}

/// Fills the list from the full-text index's own vocabulary when it is not whole yet (an
/// index made before the list: once, by the writer, before its pass stores anything).
pub fn fill_once(connection: &Connection) -> rusqlite::Result<()> {
    if is_whole(connection)? {
        return Ok(());
    }
    connection
        .execute_batch(
            "BEGIN IMMEDIATE;
             CREATE VIRTUAL TABLE temp.vocabulary_now USING fts5vocab(main, messages_fts, row);
             INSERT OR IGNORE INTO vocabulary (term) SELECT term FROM temp.vocabulary_now;
             DROP TABLE temp.vocabulary_now;
             UPDATE vocabulary_state SET whole = 1;
             COMMIT;",
        )
        .inspect_err(|_| {
            let _ = connection.execute_batch("ROLLBACK");
        })
}

/// Whether the list holds every word of the full-text index.
fn is_whole(connection: &Connection) -> rusqlite::Result<bool> {
    connection
        .prepare_cached("SELECT whole FROM vocabulary_state")?
        .query_row([], |r| r.get::<_, bool>(0))
}

/// The words of the index that begin with `stem`, when the list is whole, `stem` is one word
/// as the index cuts it and at most [`WORDS_AT_MOST`] begin with it; `None` otherwise (FTS5's
/// own prefix search then looks). An empty list: no word begins with it.
pub fn words_beginning(
    connection: &Connection,
    stem: &str,
) -> rusqlite::Result<Option<Vec<String>>> {
    if !is_whole(connection)? {
        return Ok(None);
    }
    let mut cut = Vec::new();
    // As the index takes text (CJK characters set apart), then cut by its tokenizer.
    let stem = baton_core::transcripts::search::index_text(stem);
    Tokenizer::new(connection)?.terms(&stem, &mut |term| cut.push(term.to_owned()))?;
    let [start] = cut.as_slice() else {
        return Ok(None);
    };
    let mut statement = connection
        .prepare_cached("SELECT term FROM vocabulary WHERE term >= ?1 ORDER BY term LIMIT ?2")?;
    let mut rows = statement.query(params![start, WORDS_AT_MOST as i64 + 1])?;
    let mut words = Vec::new();
    while let Some(row) = rows.next()? {
        let word: String = row.get(0)?;
        if !word.starts_with(start.as_str()) {
            break;
        }
        words.push(word);
    }
    Ok((words.len() <= WORDS_AT_MOST).then_some(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, output: &str) -> IndexedFields {
        IndexedFields {
            text: text.into(),
            tool_output: output.into(),
            ..IndexedFields::default()
        }
    }

    #[test]
    fn a_pass_keeps_its_words_and_a_prefix_finds_them() {
        let tmp = tempfile::tempdir().unwrap();
        let mut connection = crate::index::open(&tmp.path().join("index.sqlite"), true).unwrap();
        // Not whole yet: FTS5's own prefix search.
        assert_eq!(words_beginning(&connection, "pars").unwrap(), None);
        fill_once(&connection).unwrap();
        let mut pending = Pending::default();
        let transaction = connection.transaction().unwrap();
        pending
            .note(
                &transaction,
                &fields("Parsing the PARSER's output", "parsé: ok"),
            )
            .unwrap();
        pending.settle(&transaction).unwrap();
        transaction.commit().unwrap();
        let words = words_beginning(&connection, "Pars").unwrap().unwrap();
        // Cut and folded as the full-text index cuts them (case, diacritics).
        assert_eq!(words, ["parse", "parser", "parsing"]);
        assert_eq!(words_beginning(&connection, "zz").unwrap(), Some(vec![]));
        // A stem of two words: FTS5's own prefix search looks.
        assert_eq!(words_beginning(&connection, "the.pa").unwrap(), None);
        // A rolled-back transaction's words are forgotten, not written later.
        let transaction = connection.transaction().unwrap();
        pending.note(&transaction, &fields("parsnip", "")).unwrap();
        drop(transaction);
        pending.clear();
        let transaction = connection.transaction().unwrap();
        pending.settle(&transaction).unwrap();
        transaction.commit().unwrap();
        assert_eq!(words_beginning(&connection, "parsn").unwrap(), Some(vec![]));
        // Too many words: FTS5's prefix search instead.
        let transaction = connection.transaction().unwrap();
        let many: Vec<String> = (0..=WORDS_AT_MOST).map(|n| format!("word{n}")).collect();
        pending
            .note(&transaction, &fields(&many.join(" "), ""))
            .unwrap();
        pending.settle(&transaction).unwrap();
        transaction.commit().unwrap();
        assert_eq!(words_beginning(&connection, "word").unwrap(), None);
        // word6, word60 … word64.
        assert_eq!(
            words_beginning(&connection, "word6")
                .unwrap()
                .unwrap()
                .len(),
            6
        );
    }

    #[test]
    fn an_index_made_before_the_list_gets_it_from_its_full_text_index_once() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.sqlite");
        let connection = crate::index::open(&path, true).unwrap();
        // Messages stored before the list was kept.
        connection
            .execute_batch(
                "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                 VALUES (1, 'Parsing errors', '', 'cargo build', '');",
            )
            .unwrap();
        assert_eq!(words_beginning(&connection, "pars").unwrap(), None);
        fill_once(&connection).unwrap();
        let words: Vec<String> = connection
            .prepare("SELECT term FROM vocabulary ORDER BY term")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(words, ["build", "cargo", "errors", "parsing"]);
        assert_eq!(
            words_beginning(&connection, "pars").unwrap(),
            Some(vec!["parsing".to_string()])
        );
        // Once: a word removed from the list is not brought back by a second call.
        connection
            .execute("DELETE FROM vocabulary WHERE term = 'cargo'", [])
            .unwrap();
        fill_once(&connection).unwrap();
        assert_eq!(words_beginning(&connection, "car").unwrap(), Some(vec![]));
    }
}
