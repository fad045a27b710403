//! A row's record (a header of serial types, then the values) decoded into values, and a
//! table's column names read from the `CREATE TABLE` statement the schema keeps.

use super::btree::varint;
use super::damaged;
use crate::error::Result;

/// One value of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL (and every column not asked for).
    Null,
    /// An integer.
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text (made UTF-8; bytes that are not become U+FFFD).
    Text(String),
    /// A blob.
    Blob(Vec<u8>),
}

impl SqlValue {
    /// The text, when it is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SqlValue::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The integer, when it is one (a whole real counts; text does not).
    pub fn as_integer(&self) -> Option<i64> {
        match self {
            SqlValue::Integer(n) => Some(*n),
            SqlValue::Real(r) if r.fract() == 0.0 && r.abs() < 9.0e15 => Some(*r as i64),
            _ => None,
        }
    }

    /// The bytes of text or a blob.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            SqlValue::Text(t) => Some(t.as_bytes()),
            SqlValue::Blob(b) => Some(b),
            _ => None,
        }
    }
}

/// Every value of a record.
pub(super) fn decode(payload: &[u8], utf16: Option<bool>) -> Result<Vec<SqlValue>> {
    decode_some(payload, utf16, None)
}

/// The values of a record; those whose position `wanted` does not list read as `Null`.
pub(super) fn decode_some(
    payload: &[u8],
    utf16: Option<bool>,
    wanted: Option<&[usize]>,
) -> Result<Vec<SqlValue>> {
    let (header_len, mut at) = varint(payload, 0)?;
    let header_len = usize::try_from(header_len)
        .ok()
        .filter(|&n| n <= payload.len() && n >= at)
        .ok_or_else(|| damaged("a record header longer than its record"))?;
    let mut body = header_len;
    let mut values = Vec::new();
    while at < header_len {
        let (serial, n) = varint(payload, at)?;
        at += n;
        let size = match serial {
            0 | 8 | 9 | 10 | 11 => 0,
            1..=4 => serial as usize,
            5 => 6,
            6 | 7 => 8,
            n => ((n - 12) / 2) as usize,
        };
        let bytes = body
            .checked_add(size)
            .and_then(|end| payload.get(body..end))
            .ok_or_else(|| damaged("a value runs past its record"))?;
        body += size;
        let keep = wanted.is_none_or(|w| w.contains(&values.len()));
        values.push(if keep {
            value(serial, bytes, utf16)?
        } else {
            SqlValue::Null
        });
    }
    Ok(values)
}

fn value(serial: u64, bytes: &[u8], utf16: Option<bool>) -> Result<SqlValue> {
    Ok(match serial {
        0 => SqlValue::Null,
        1..=6 => {
            // Big-endian two's complement of 1, 2, 3, 4, 6 or 8 bytes.
            let mut n = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
                -1i64
            } else {
                0
            };
            for &b in bytes {
                n = (n << 8) | i64::from(b);
            }
            SqlValue::Integer(n)
        }
        7 => SqlValue::Real(f64::from_be_bytes(
            bytes.try_into().map_err(|_| damaged("a real cut short"))?,
        )),
        8 => SqlValue::Integer(0),
        9 => SqlValue::Integer(1),
        10 | 11 => return Err(damaged(format!("serial type {serial}, reserved"))),
        n if n % 2 == 0 => SqlValue::Blob(bytes.to_vec()),
        _ => SqlValue::Text(match utf16 {
            None => String::from_utf8_lossy(bytes).into_owned(),
            Some(big) => {
                let units = bytes.chunks_exact(2).map(|c| {
                    if big {
                        u16::from_be_bytes([c[0], c[1]])
                    } else {
                        u16::from_le_bytes([c[0], c[1]])
                    }
                });
                char::decode_utf16(units)
                    .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                    .collect()
            }
        }),
    })
}

/// The column names a `CREATE TABLE` statement declares, and which of them (an `INTEGER
/// PRIMARY KEY`) is the rowid. Constraints are skipped; names lose their quotes.
pub(super) fn columns_of(sql: &str) -> (Vec<String>, Option<usize>) {
    let Some(open) = sql.find('(') else {
        return (Vec::new(), None);
    };
    let body = &sql[open + 1..];
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0usize, None::<char>, 0usize);
    for (i, c) in body.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q || (q == '[' && c == ']') => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`' | '[') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') if depth == 0 => {
                parts.push(&body[start..i]);
                break;
            }
            (None, ')') => depth -= 1,
            (None, ',') if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    let mut columns = Vec::new();
    let mut rowid = None;
    for part in parts {
        let part = part.trim();
        let upper = part.to_ascii_uppercase();
        let first = upper.split_whitespace().next().unwrap_or_default();
        if matches!(
            first,
            "CONSTRAINT" | "PRIMARY" | "UNIQUE" | "CHECK" | "FOREIGN" | ""
        ) {
            continue;
        }
        let name = unquote(part);
        let rest: Vec<&str> = upper.split_whitespace().skip(1).collect();
        if rest.first() == Some(&"INTEGER") && upper.contains("PRIMARY KEY") {
            rowid = Some(columns.len());
        }
        columns.push(name);
    }
    (columns, rowid)
}

/// A column definition's name without its quotes.
fn unquote(definition: &str) -> String {
    let mut chars = definition.chars();
    match chars.next() {
        Some(q @ ('"' | '`' | '[' | '\'')) => {
            let close = if q == '[' { ']' } else { q };
            chars.take_while(|&c| c != close).collect()
        }
        _ => definition
            .split(|c: char| c.is_whitespace())
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}
