//! The full-text index's own reading of a match, as an FTS5 auxiliary function
//! `baton_hit(messages_fts, ask)`: in which field the query matched, whether the row holds the
//! whole phrase, and its BM25 score (the core's formula) with each term's weight from an
//! estimate rather than FTS5's `bm25()`, which counts every match of every term first.

use std::ffi::{c_int, c_void};
use std::ptr::null_mut;

use rusqlite::Connection;
use rusqlite::ffi;

/// What a search asks of each row, as the text the function's second argument carries:
/// `fields|terms|score|docs`, e.g. `0123|1,3|1|5120.5,`: the columns searched in the order
/// a hit's field is chosen, how many of the expression's first phrases each required term is
/// (a prefix may stand as several words; a phrase after them is the whole query, or-ed in to
/// learn which rows hold it), whether to score, and how many messages hold each required
/// term (empty where unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// FTS columns in the order a hit's field is chosen.
    pub fields: Vec<usize>,
    /// How many of the expression's first phrases each required term is, in order.
    pub terms: Vec<usize>,
    /// Whether to compute the score (it reads each row's length).
    pub score: bool,
    /// How many messages hold each required term, where estimated.
    pub docs: Vec<Option<f64>>,
}

impl Ask {
    /// The text the SQL function reads.
    pub fn encode(&self) -> String {
        let fields: String = self.fields.iter().map(|c| c.to_string()).collect();
        let docs: Vec<String> = self
            .docs
            .iter()
            .map(|d| d.map(|d| d.to_string()).unwrap_or_default())
            .collect();
        let terms: Vec<String> = self.terms.iter().map(|n| n.to_string()).collect();
        format!(
            "{fields}|{}|{}|{}",
            terms.join(","),
            u8::from(self.score),
            docs.join(",")
        )
    }

    /// [`encode`](Self::encode) read back; `None` when malformed.
    pub fn decode(text: &str) -> Option<Ask> {
        let mut parts = text.split('|');
        let fields = parts
            .next()?
            .chars()
            .map(|c| c.to_digit(10).map(|d| d as usize))
            .collect::<Option<Vec<_>>>()?;
        let terms = match parts.next()? {
            "" => Vec::new(),
            list => list
                .split(',')
                .map(|n| n.parse().ok())
                .collect::<Option<Vec<usize>>>()?,
        };
        let score = parts.next()? == "1";
        let docs = match parts.next()? {
            "" => Vec::new(),
            list => list
                .split(',')
                .map(|d| {
                    if d.is_empty() {
                        Some(None)
                    } else {
                        d.parse().ok().map(Some)
                    }
                })
                .collect::<Option<Vec<_>>>()?,
        };
        Some(Ask {
            fields,
            terms,
            score,
            docs,
        })
    }
}

/// What the function answers for a row (decoded from its 10-byte blob).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// The BM25 score (0 when not asked).
    pub score: f64,
    /// The index into [`Ask::fields`] of the first field holding every required term, if one
    /// does (the terms may be spread over several).
    pub field: Option<usize>,
    /// Whether the row holds the phrase after the required terms.
    pub exact: bool,
}

impl Reading {
    /// From the function's blob; `None` when it is not one.
    pub fn decode(bytes: &[u8]) -> Option<Reading> {
        let score = f64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let field = *bytes.get(8)?;
        let exact = *bytes.get(9)? == 1;
        Some(Reading {
            score,
            field: (field != u8::MAX).then_some(usize::from(field)),
            exact,
        })
    }

    fn encode(&self) -> [u8; 10] {
        let mut out = [0u8; 10];
        out[..8].copy_from_slice(&self.score.to_le_bytes());
        out[8] = self
            .field
            .and_then(|f| u8::try_from(f).ok())
            .unwrap_or(u8::MAX);
        out[9] = u8::from(self.exact);
        out
    }
}

/// Registers `baton_hit` on `connection`.
#[allow(unsafe_code)]
pub fn register(connection: &Connection) -> rusqlite::Result<()> {
    let api = super::fts5::api(connection)?;
    // SAFETY: `api` is valid while the connection lives; the name is a C string that outlives
    // the call, and the function is a plain `extern "C"` one.
    unsafe {
        let Some(create) = (*api).xCreateFunction else {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(ffi::SQLITE_ERROR),
                Some("FTS5 cannot take a function".into()),
            ));
        };
        let rc = create(
            api,
            c"baton_hit".as_ptr(),
            null_mut(),
            Some(baton_hit),
            None,
        );
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(rc),
                Some("could not register baton_hit".into()),
            ));
        }
    }
    Ok(())
}

/// What one query asked, read once and kept with the query (FTS5's aux data).
struct Kept {
    ask: Ask,
    /// Each required term's weight.
    weights: Vec<f64>,
    /// The average message length in tokens.
    average: f64,
}

#[allow(unsafe_code)]
unsafe extern "C" fn drop_kept(kept: *mut c_void) {
    // SAFETY: made by `Box::into_raw` in `baton_hit`, dropped once by FTS5.
    drop(unsafe { Box::from_raw(kept.cast::<Kept>()) });
}

/// The FTS5 entry point: never unwinds into SQLite; a malformed ask is an SQL error.
#[allow(unsafe_code)]
unsafe extern "C" fn baton_hit(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    context: *mut ffi::sqlite3_context,
    count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) {
    let read = std::panic::catch_unwind(|| {
        // SAFETY: FTS5 passes its API, its context and `count` values for this call.
        unsafe { read_row(&*api, fts, count, values) }
    });
    // SAFETY: the context is the one this call was given.
    unsafe {
        match read {
            Ok(Ok(reading)) => {
                let bytes = reading.encode();
                ffi::sqlite3_result_blob(
                    context,
                    bytes.as_ptr().cast(),
                    bytes.len() as c_int,
                    ffi::SQLITE_TRANSIENT(),
                );
            }
            Ok(Err((code, message))) => {
                ffi::sqlite3_result_error(context, message.as_ptr(), -1);
                ffi::sqlite3_result_error_code(context, code);
            }
            Err(_) => ffi::sqlite3_result_error(context, c"baton_hit failed".as_ptr(), -1),
        }
    }
}

type Failed = (c_int, &'static std::ffi::CStr);

/// Reads the row FTS5 is on.
#[allow(unsafe_code)]
unsafe fn read_row(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    count: c_int,
    values: *mut *mut ffi::sqlite3_value,
) -> Result<Reading, Failed> {
    let missing = (ffi::SQLITE_ERROR, c"FTS5 lacks a function baton_hit needs");
    let (
        Some(get_aux),
        Some(set_aux),
        Some(inst_count),
        Some(inst),
        Some(phrase_count),
        Some(column_count),
        Some(column_size),
        Some(row_count),
        Some(total_size),
    ) = (
        api.xGetAuxdata,
        api.xSetAuxdata,
        api.xInstCount,
        api.xInst,
        api.xPhraseCount,
        api.xColumnCount,
        api.xColumnSize,
        api.xRowCount,
        api.xColumnTotalSize,
    )
    else {
        return Err(missing);
    };
    let ok = |rc: c_int| {
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err((rc, c"baton_hit could not read the row"))
        }
    };
    // SAFETY (whole body): FTS5's functions are called with the context it gave, on its
    // thread, during this call; out-pointers are to locals.
    unsafe {
        let mut kept = get_aux(fts, 0).cast::<Kept>();
        if kept.is_null() {
            if count < 1 {
                return Err((
                    ffi::SQLITE_MISUSE,
                    c"baton_hit(table, ask): the ask is missing",
                ));
            }
            let text = ffi::sqlite3_value_text(*values);
            let ask = (!text.is_null())
                .then(|| std::ffi::CStr::from_ptr(text.cast()).to_str().ok())
                .flatten()
                .and_then(Ask::decode)
                .ok_or((ffi::SQLITE_MISUSE, c"baton_hit: the ask is malformed"))?;
            let mut rows: i64 = 0;
            ok(row_count(fts, &mut rows))?;
            let mut tokens: i64 = 0;
            ok(total_size(fts, -1, &mut tokens))?;
            let weights = baton_core::transcripts::ranking::weights(&ask.docs, rows as f64);
            let average = if rows > 0 {
                tokens as f64 / rows as f64
            } else {
                0.0
            };
            kept = Box::into_raw(Box::new(Kept {
                ask,
                weights,
                average,
            }));
            let rc = set_aux(fts, kept.cast(), Some(drop_kept));
            if rc != ffi::SQLITE_OK {
                // FTS5 dropped it already.
                return Err((rc, c"baton_hit could not keep its ask"));
            }
        }
        let kept = &*kept;
        let phrases = usize::try_from(phrase_count(fts)).unwrap_or(0);
        let columns = usize::try_from(column_count(fts)).unwrap_or(0);
        // Occurrences by phrase and column.
        let mut found = vec![0u32; phrases * columns];
        let mut instances: c_int = 0;
        ok(inst_count(fts, &mut instances))?;
        for i in 0..instances {
            let (mut phrase, mut column, mut offset): (c_int, c_int, c_int) = (0, 0, 0);
            ok(inst(fts, i, &mut phrase, &mut column, &mut offset))?;
            if let (Ok(p), Ok(c)) = (usize::try_from(phrase), usize::try_from(column))
                && p < phrases
                && c < columns
            {
                found[p * columns + c] += 1;
            }
        }
        // Each term's phrases, in order; the one after them is the whole query's.
        let mut spans = Vec::with_capacity(kept.ask.terms.len());
        let mut next = 0usize;
        for &n in &kept.ask.terms {
            let end = (next + n).min(phrases);
            spans.push(next..end);
            next = end;
        }
        let held = |span: &std::ops::Range<usize>, c: usize| {
            span.clone().any(|p| found[p * columns + c] > 0)
        };
        let field = kept
            .ask
            .fields
            .iter()
            .position(|&c| c < columns && spans.iter().all(|span| held(span, c)));
        let exact = phrases > next && (0..columns).any(|c| found[next * columns + c] > 0);
        let mut score = 0.0;
        if kept.ask.score {
            let mut length: c_int = 0;
            ok(column_size(fts, -1, &mut length))?;
            let terms = spans.iter().enumerate().map(|(t, span)| {
                let occurrences: u32 = found[span.start * columns..span.end * columns].iter().sum();
                (
                    kept.weights.get(t).copied().unwrap_or(1.0),
                    f64::from(occurrences),
                )
            });
            score = baton_core::transcripts::ranking::bm25(terms, f64::from(length), kept.average);
        }
        Ok(Reading {
            score,
            field,
            exact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_reads_back_as_written() {
        let ask = Ask {
            fields: vec![0, 3, 1],
            terms: vec![1, 3],
            score: true,
            docs: vec![Some(5120.5), None],
        };
        assert_eq!(Ask::decode(&ask.encode()), Some(ask));
        let bare = Ask {
            fields: vec![2],
            terms: vec![1],
            score: false,
            docs: vec![],
        };
        assert_eq!(Ask::decode(&bare.encode()), Some(bare));
        assert_eq!(Ask::decode("0x|1|0|"), None);
        assert_eq!(Ask::decode("01|one|0|"), None);
        assert_eq!(Ask::decode("01"), None);
    }

    /// A table shaped as the index's, its rows' text by column.
    fn table(rows: &[[&str; 4]]) -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        register(&connection).unwrap();
        connection
            .execute_batch(
                "CREATE VIRTUAL TABLE messages_fts USING fts5(
                     text, thinking, tool_input, tool_output, content = '', contentless_delete = 1)",
            )
            .unwrap();
        for (n, row) in rows.iter().enumerate() {
            connection
                .execute(
                    "INSERT INTO messages_fts (rowid, text, thinking, tool_input, tool_output)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    rusqlite::params![n as i64 + 1, row[0], row[1], row[2], row[3]],
                )
                .unwrap();
        }
        connection
    }

    fn read(connection: &Connection, expression: &str, ask: &Ask) -> Vec<(i64, Reading)> {
        connection
            .prepare("SELECT rowid, baton_hit(messages_fts, ?2) FROM messages_fts WHERE messages_fts MATCH ?1 ORDER BY rowid")
            .unwrap()
            .query_map(rusqlite::params![expression, ask.encode()], |r| {
                Ok((r.get(0)?, Reading::decode(&r.get::<_, Vec<u8>>(1)?).unwrap()))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_row_says_its_field_its_phrase_and_its_score() {
        let connection = table(&[
            ["flaky login test", "", "", ""],
            ["", "the login", "", "flaky"],
            ["", "", "login flaky flaky flaky", "login flaky"],
            [
                "a very long message about a flaky login that goes on and on and on and on",
                "",
                "",
                "",
            ],
        ]);
        let ask = Ask {
            fields: vec![3, 2, 0, 1],
            terms: vec![1, 1],
            score: true,
            docs: vec![Some(1.0), Some(3.0)],
        };
        let rows = read(
            &connection,
            r#"({text thinking tool_input tool_output} : ("flaky" AND "login")) OR ({text thinking tool_input tool_output} : ("flaky login"))"#,
            &ask,
        );
        let ids: Vec<i64> = rows.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
        let field = |n: usize| rows[n].1.field;
        // The first field in the order asked holding both terms (tool output comes first).
        assert_eq!(
            (field(0), field(1), field(2), field(3)),
            (Some(2), None, Some(0), Some(2))
        );
        let exact: Vec<bool> = rows.iter().map(|(_, r)| r.exact).collect();
        assert_eq!(exact, [true, false, false, true]);
        // Row 3 holds "flaky" four times in a short message: it scores highest; the long one
        // with each once, lowest.
        let scores: Vec<f64> = rows.iter().map(|(_, r)| r.score).collect();
        assert!(scores[2] > scores[0], "{scores:?}");
        assert!(scores[0] > scores[3], "{scores:?}");
        assert!(scores.iter().all(|s| *s > 0.0));
        // Not asked to score: no score.
        let plain = Ask {
            score: false,
            ..ask
        };
        let rows = read(&connection, r#""flaky" AND "login""#, &plain);
        assert!(rows.iter().all(|(_, r)| r.score == 0.0 && !r.exact));
    }

    #[test]
    fn a_term_of_several_words_is_held_where_any_of_them_is() {
        let connection = table(&[
            ["parser", "", "", "login"],
            ["parsing login", "", "", ""],
            ["login", "", "parse", ""],
        ]);
        let ask = Ask {
            fields: vec![0, 1, 2, 3],
            terms: vec![3, 1],
            score: true,
            docs: vec![None, None],
        };
        let rows = read(
            &connection,
            r#"("parse" OR "parser" OR "parsing") AND "login""#,
            &ask,
        );
        let fields: Vec<Option<usize>> = rows.iter().map(|(_, r)| r.field).collect();
        assert_eq!(fields, [None, Some(0), None]);
        assert!(rows.iter().all(|(_, r)| !r.exact && r.score > 0.0));
        // With the whole phrase or-ed in after the terms, it is the phrase after their four.
        let rows = read(
            &connection,
            r#"(("parse" OR "parser" OR "parsing") AND "login") OR "parsing login""#,
            &ask,
        );
        let exact: Vec<bool> = rows.iter().map(|(_, r)| r.exact).collect();
        assert_eq!(exact, [false, true, false]);
    }

    #[test]
    fn a_malformed_ask_is_an_error_not_a_crash() {
        let connection = table(&[["word", "", "", ""]]);
        let err = connection
            .query_row(
                "SELECT baton_hit(messages_fts, 'nonsense') FROM messages_fts WHERE messages_fts MATCH 'word'",
                [],
                |r| r.get::<_, Vec<u8>>(0),
            )
            .unwrap_err();
        assert!(err.to_string().contains("malformed"), "{err}");
    }
}
