//! FTS5's C interface as the index reaches it: the API a connection hands over, and the
//! tokenizer the index's full-text tables use, so Rust sees the very terms they hold.

use std::ffi::{c_char, c_int, c_void};
use std::ptr::null_mut;

use rusqlite::Connection;
use rusqlite::ffi;

/// How the index's full-text tables cut text into terms: the schema says
/// `tokenize = 'unicode61 remove_diacritics 2'`, and [`Tokenizer`] is made with these.
pub const TOKENIZER: (&std::ffi::CStr, [&std::ffi::CStr; 2]) =
    (c"unicode61", [c"remove_diacritics", c"2"]);

fn failure(code: c_int, what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(code), Some(what.to_owned()))
}

/// The FTS5 API of `connection` (handed over through a bound pointer); valid while it lives.
#[allow(unsafe_code)]
pub fn api(connection: &Connection) -> rusqlite::Result<*mut ffi::fts5_api> {
    // SAFETY: the handle is the connection's own, used on this thread while it lives; the
    // statement is finalized before returning and the pointer bound to it outlives it.
    unsafe {
        let db = connection.handle();
        let mut statement: *mut ffi::sqlite3_stmt = null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut statement,
            null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "FTS5 is not available"));
        }
        let mut api: *mut ffi::fts5_api = null_mut();
        ffi::sqlite3_bind_pointer(
            statement,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(statement);
        ffi::sqlite3_finalize(statement);
        if api.is_null() || (*api).iVersion < 2 {
            return Err(failure(ffi::SQLITE_ERROR, "FTS5's API is not available"));
        }
        Ok(api)
    }
}

/// The index's tokenizer ([`TOKENIZER`]), to cut text as the full-text tables do.
pub struct Tokenizer {
    methods: ffi::fts5_tokenizer,
    instance: *mut ffi::Fts5Tokenizer,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokenizer")
    }
}

impl Tokenizer {
    /// The tokenizer, from `connection`'s FTS5. It keeps no tie to the connection after:
    /// `unicode61` is one of FTS5's own, whose instance holds only its settings.
    #[allow(unsafe_code)]
    pub fn new(connection: &Connection) -> rusqlite::Result<Tokenizer> {
        let api = api(connection)?;
        // SAFETY: `api` is valid while the connection lives (now); out-pointers are locals;
        // the arguments are C strings that outlive the call.
        unsafe {
            let Some(find) = (*api).xFindTokenizer else {
                return Err(failure(ffi::SQLITE_ERROR, "FTS5 cannot find tokenizers"));
            };
            let mut user: *mut c_void = null_mut();
            let mut methods: ffi::fts5_tokenizer = std::mem::zeroed();
            let rc = find(api, TOKENIZER.0.as_ptr(), &mut user, &mut methods);
            if rc != ffi::SQLITE_OK {
                return Err(failure(rc, "FTS5 has no unicode61 tokenizer"));
            }
            let (Some(create), Some(_), Some(_)) =
                (methods.xCreate, methods.xDelete, methods.xTokenize)
            else {
                return Err(failure(ffi::SQLITE_ERROR, "the tokenizer lacks a method"));
            };
            let mut args: [*const c_char; 2] = [TOKENIZER.1[0].as_ptr(), TOKENIZER.1[1].as_ptr()];
            let mut instance: *mut ffi::Fts5Tokenizer = null_mut();
            let rc = create(user, args.as_mut_ptr(), 2, &mut instance);
            if rc != ffi::SQLITE_OK || instance.is_null() {
                return Err(failure(rc, "could not make the tokenizer"));
            }
            Ok(Tokenizer { methods, instance })
        }
    }

    /// Calls `each` with every term of `text`, in order (a term may come more than once); an
    /// error when the tokenizer fails (out of memory), so no term goes missing unsaid.
    #[allow(unsafe_code)]
    pub fn terms(&mut self, text: &str, each: &mut dyn FnMut(&str)) -> rusqlite::Result<()> {
        let Ok(length) = c_int::try_from(text.len()) else {
            // Past 2 GB: FTS5 would not take it either; cut at a character.
            let mut end = c_int::MAX as usize;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            return self.terms(&text[..end], each);
        };
        unsafe extern "C" fn token(
            context: *mut c_void,
            _flags: c_int,
            bytes: *const c_char,
            length: c_int,
            _start: c_int,
            _end: c_int,
        ) -> c_int {
            // SAFETY: `context` is the `&mut &mut dyn FnMut` passed below, alive for the call;
            // FTS5 gives `length` bytes at `bytes`.
            unsafe {
                let each = &mut *context.cast::<&mut dyn FnMut(&str)>();
                let bytes = std::slice::from_raw_parts(
                    bytes.cast::<u8>(),
                    usize::try_from(length).unwrap_or(0),
                );
                if let Ok(term) = std::str::from_utf8(bytes) {
                    each(term);
                }
            }
            ffi::SQLITE_OK
        }
        let Some(tokenize) = self.methods.xTokenize else {
            return Err(failure(ffi::SQLITE_ERROR, "the tokenizer lacks a method"));
        };
        let mut each = each;
        // SAFETY: the instance is live until drop; the text and the closure outlive the call.
        let rc = unsafe {
            tokenize(
                self.instance,
                (&mut each as *mut &mut dyn FnMut(&str)).cast::<c_void>(),
                ffi::FTS5_TOKENIZE_DOCUMENT,
                text.as_ptr().cast(),
                length,
                Some(token),
            )
        };
        if rc == ffi::SQLITE_OK {
            Ok(())
        } else {
            Err(failure(rc, "the tokenizer failed"))
        }
    }
}

impl Drop for Tokenizer {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        if let Some(delete) = self.methods.xDelete {
            // SAFETY: made by this tokenizer's xCreate, deleted once.
            unsafe { delete(self.instance) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokenizer_cuts_as_the_tables_do() {
        let connection = Connection::open_in_memory().unwrap();
        // The index's own spelling of its tokenizer.
        let spec = format!(
            "tokenize = '{} {} {}'",
            TOKENIZER.0.to_str().unwrap(),
            TOKENIZER.1[0].to_str().unwrap(),
            TOKENIZER.1[1].to_str().unwrap()
        );
        assert!(crate::index::schema_text().contains(&spec), "{spec}");
        connection
            .execute_batch(&format!(
                "CREATE VIRTUAL TABLE t USING fts5(body, content = '', {spec});
                 CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, t, row);"
            ))
            .unwrap();
        let text = "Crème BRÛLÉE, parse_error 42x fooBar 日本 naïve-résumé";
        connection
            .execute("INSERT INTO t (rowid, body) VALUES (1, ?1)", [text])
            .unwrap();
        let mut held: Vec<String> = connection
            .prepare("SELECT term FROM v ORDER BY term")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let mut tokenizer = Tokenizer::new(&connection).unwrap();
        let mut seen = Vec::new();
        tokenizer
            .terms(text, &mut |t| seen.push(t.to_owned()))
            .unwrap();
        assert!(seen.contains(&"creme".to_owned()), "{seen:?}");
        seen.sort();
        seen.dedup();
        held.sort();
        assert_eq!(seen, held);
    }
}
