//! SQLite database files read without SQLite: the header, the schema, and every row of a
//! rowid table, with a write-ahead log's committed pages laid over the main file. Agents that
//! keep their sessions in SQLite (OpenCode, Kilo, Cursor) are read through this, by the page
//! as by the CLI, and reading takes no lock, so the agent writing the file never waits.
//!
//! It reads, never writes; it does not run SQL. Bytes come through [`PageSource`], so a host
//! reads pages from a file as they are needed and the page hands over the bytes it holds.
//! Every offset, pointer and length is checked against the bytes present: a cut, altered or
//! hostile file is a `DATABASE_DAMAGED` error, never a panic, and a page met twice in one walk
//! (a cycle) is an error too. A file being written while it is read can look damaged; the
//! host reads it again.

mod btree;
mod record;
mod wal;

pub use record::SqlValue;
pub use wal::Wal;

use crate::error::{Error, Result};
use std::ops::ControlFlow;

/// The 16 bytes every SQLite database starts with.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Where the bytes of a database file come from.
pub trait PageSource {
    /// The file's size in bytes.
    fn size(&self) -> u64;
    /// Fills `buf` with the bytes at `offset`; an error when they are not all there.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
}

/// Bytes held in memory (the page's dropped file, a test's).
fn read_from(bytes: &[u8], offset: u64, buf: &mut [u8]) -> Result<()> {
    let start = usize::try_from(offset).map_err(|_| damaged("an offset past the file"))?;
    let found = start
        .checked_add(buf.len())
        .and_then(|end| bytes.get(start..end))
        .ok_or_else(|| {
            damaged(format!(
                "{} bytes wanted at {offset}, past the end",
                buf.len()
            ))
        })?;
    buf.copy_from_slice(found);
    Ok(())
}

impl PageSource for &[u8] {
    fn size(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        read_from(self, offset, buf)
    }
}

impl PageSource for Vec<u8> {
    fn size(&self) -> u64 {
        Vec::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        read_from(self, offset, buf)
    }
}

/// Whether `bytes` start like a SQLite database.
pub fn is_sqlite(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

pub(crate) fn damaged(problem: impl Into<String>) -> Error {
    Error::database_damaged(&problem.into())
}

/// One table of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Its name.
    pub name: String,
    /// Its columns, in order (as its `CREATE TABLE` lists them).
    pub columns: Vec<String>,
    /// The column that is the rowid itself (an `INTEGER PRIMARY KEY`), if one is.
    pub rowid_column: Option<usize>,
    /// Its root page.
    root: u32,
    /// A `WITHOUT ROWID` table (kept in an index tree, which this reader does not walk).
    without_rowid: bool,
}

impl Table {
    /// The position of column `name` (case-insensitive), if the table has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
    }
}

/// One row: its rowid and its values, in column order (a column added to the table after the
/// row was written reads as `Null`).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The rowid.
    pub rowid: i64,
    /// The values.
    pub values: Vec<SqlValue>,
}

impl Row {
    /// The value in column `at`; `Null` past the end.
    pub fn get(&self, at: usize) -> &SqlValue {
        self.values.get(at).unwrap_or(&SqlValue::Null)
    }
}

/// An open database: its main file and, when there is one, its write-ahead log.
pub struct Database<'a> {
    source: &'a dyn PageSource,
    wal: Option<&'a Wal>,
    page_size: u32,
    usable: u32,
    pages: u32,
    utf16: Option<bool>,
}

impl std::fmt::Debug for Database<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("page_size", &self.page_size)
            .field("pages", &self.pages)
            .field("wal_pages", &self.wal.map_or(0, Wal::committed_pages))
            .finish()
    }
}

impl<'a> Database<'a> {
    /// Opens a database from its main file and the committed part of its log (`wal`, from
    /// [`Wal::parse`] of the `-wal` file beside it, when there is one).
    pub fn open(source: &'a dyn PageSource, wal: Option<&'a Wal>) -> Result<Database<'a>> {
        let mut header = [0u8; 100];
        let in_file = source.size() >= 100;
        if in_file {
            source.read_at(0, &mut header)?;
        } else if let Some(page) = wal.and_then(|w| w.page(1)) {
            // A database created and never checkpointed: its first page lives only in the log.
            header.copy_from_slice(
                page.get(..100)
                    .ok_or_else(|| damaged("a short first page"))?,
            );
        } else {
            return Err(damaged("the file is shorter than a database header"));
        }
        if !header.starts_with(MAGIC) {
            return Err(damaged("the file does not start with SQLite's header"));
        }
        let page_size = match u16::from_be_bytes([header[16], header[17]]) {
            1 => 65_536,
            n if n >= 512 && n.is_power_of_two() => u32::from(n),
            n => return Err(damaged(format!("a page size of {n}"))),
        };
        if let Some(w) = wal
            && w.committed_pages() > 0
            && w.page_size() != page_size
        {
            return Err(damaged("the log's page size is not the database's"));
        }
        let reserved = u32::from(header[20]);
        let usable = page_size.saturating_sub(reserved);
        if usable < 480 {
            return Err(damaged(format!("{usable} usable bytes a page")));
        }
        let counted = u32::from_be_bytes(header[28..32].try_into().unwrap_or_default());
        let valid_for = u32::from_be_bytes(header[92..96].try_into().unwrap_or_default());
        let changes = u32::from_be_bytes(header[24..28].try_into().unwrap_or_default());
        let by_length = u32::try_from(source.size() / u64::from(page_size)).unwrap_or(u32::MAX);
        let mut pages = if counted > 0 && valid_for == changes {
            counted
        } else {
            by_length
        };
        if let Some(size) = wal.and_then(Wal::pages) {
            pages = size;
        }
        let utf16 = match u32::from_be_bytes(header[56..60].try_into().unwrap_or_default()) {
            0 | 1 => None,
            2 => Some(false),
            3 => Some(true),
            n => return Err(damaged(format!("text encoding {n}"))),
        };
        Ok(Database {
            source,
            wal,
            page_size,
            usable,
            pages,
            utf16,
        })
    }

    /// The database's pages (its size once the log is laid over it).
    pub fn page_count(&self) -> u32 {
        self.pages
    }

    /// Page `number` (from 1), as the log has it if it does, else as the file does.
    fn page(&self, number: u32) -> Result<std::borrow::Cow<'a, [u8]>> {
        if number == 0 || number > self.pages {
            return Err(damaged(format!(
                "page {number} of a database of {} pages",
                self.pages
            )));
        }
        if let Some(page) = self.wal.and_then(|w| w.page(number)) {
            return Ok(std::borrow::Cow::Borrowed(page));
        }
        let mut buf = vec![0u8; self.page_size as usize];
        self.source
            .read_at(u64::from(number - 1) * u64::from(self.page_size), &mut buf)?;
        Ok(std::borrow::Cow::Owned(buf))
    }

    /// The tables the schema lists.
    pub fn tables(&self) -> Result<Vec<Table>> {
        let mut tables = Vec::new();
        btree::walk(self, 1, &mut |_, payload| {
            let values = record::decode(&payload, self.utf16)?;
            let text = |at: usize| match values.get(at) {
                Some(SqlValue::Text(t)) => Some(t.as_str()),
                _ => None,
            };
            if text(0) == Some("table") {
                let name = text(1).unwrap_or_default().to_owned();
                let root = match values.get(3) {
                    Some(SqlValue::Integer(n)) => u32::try_from(*n).unwrap_or(0),
                    _ => 0,
                };
                let sql = text(4).unwrap_or_default();
                let (columns, rowid_column) = record::columns_of(sql);
                tables.push(Table {
                    name,
                    columns,
                    rowid_column,
                    root,
                    without_rowid: sql.to_ascii_uppercase().contains("WITHOUT ROWID"),
                });
            }
            Ok(ControlFlow::Continue(()))
        })?;
        Ok(tables)
    }

    /// The table called `name` (case-insensitive), if the schema has it.
    pub fn table(&self, name: &str) -> Result<Option<Table>> {
        Ok(self
            .tables()?
            .into_iter()
            .find(|t| t.name.eq_ignore_ascii_case(name)))
    }

    /// Calls `visit` with every row of `table`, in rowid order, until it says stop. `wanted`
    /// says which columns to decode (the others read as `Null`); `None` decodes them all.
    pub fn scan(
        &self,
        table: &Table,
        wanted: Option<&[usize]>,
        visit: &mut dyn FnMut(Row) -> Result<ControlFlow<()>>,
    ) -> Result<()> {
        if table.without_rowid {
            return Err(damaged(format!(
                "table {} is WITHOUT ROWID, which Baton does not read",
                table.name
            )));
        }
        btree::walk(self, table.root, &mut |rowid, payload| {
            let mut values = record::decode_some(&payload, self.utf16, wanted)?;
            if let Some(at) = table.rowid_column {
                if values.len() <= at {
                    values.resize(at + 1, SqlValue::Null);
                }
                values[at] = SqlValue::Integer(rowid);
            }
            visit(Row { rowid, values })
        })
    }
}
