//! A table's B-tree walked leaf by leaf in rowid order: interior pages give their children,
//! leaves their cells, and a payload too large for its leaf is gathered from its overflow
//! pages. Each page is visited at most once per walk, so a cycle ends in an error.

use super::{Database, damaged};
use crate::error::Result;
use std::ops::ControlFlow;

/// Interior page of a table tree.
const TABLE_INTERIOR: u8 = 0x05;
/// Leaf page of a table tree.
const TABLE_LEAF: u8 = 0x0d;

/// The pages a walk has met, one bit each.
struct Seen(Vec<u64>);

impl Seen {
    /// Marks `page`; false when it was already marked.
    fn first_time(&mut self, page: u32) -> bool {
        let (word, bit) = ((page / 64) as usize, page % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        let fresh = self.0[word] & (1 << bit) == 0;
        self.0[word] |= 1 << bit;
        fresh
    }
}

fn u16_at(page: &[u8], at: usize) -> Result<usize> {
    page.get(at..at + 2)
        .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
        .ok_or_else(|| damaged("a page header cut short"))
}

pub(super) fn u32_at(bytes: &[u8], at: usize) -> Result<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| damaged("a page pointer cut short"))
}

/// A varint at `at`: its value and the bytes it took.
pub(super) fn varint(bytes: &[u8], at: usize) -> Result<(u64, usize)> {
    let byte = |i: usize| {
        bytes
            .get(at + i)
            .copied()
            .ok_or_else(|| damaged("a number cut short"))
    };
    let mut value = 0u64;
    for i in 0..8 {
        let b = byte(i)?;
        value = (value << 7) | u64::from(b & 0x7f);
        if b & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Ok(((value << 8) | u64::from(byte(8)?), 9))
}

/// Calls `visit` with the rowid and whole payload of every cell of the table tree rooted at
/// `root`, in rowid order, until it says stop.
pub(super) fn walk(
    db: &Database<'_>,
    root: u32,
    visit: &mut dyn FnMut(i64, Vec<u8>) -> Result<ControlFlow<()>>,
) -> Result<()> {
    let mut seen = Seen(Vec::new());
    let mut stack = vec![root];
    while let Some(number) = stack.pop() {
        if !seen.first_time(number) {
            return Err(damaged(format!("page {number} is reached twice (a cycle)")));
        }
        let page = db.page(number)?;
        let start = if number == 1 { 100 } else { 0 };
        let kind = *page.get(start).ok_or_else(|| damaged("an empty page"))?;
        let cells = u16_at(&page, start + 3)?;
        match kind {
            TABLE_INTERIOR => {
                let right = u32_at(&page, start + 8)?;
                let mut children = Vec::with_capacity(cells + 1);
                for i in 0..cells {
                    let at = u16_at(&page, start + 12 + 2 * i)?;
                    children.push(u32_at(&page, at)?);
                }
                children.push(right);
                stack.extend(children.into_iter().rev());
            }
            TABLE_LEAF => {
                for i in 0..cells {
                    let at = u16_at(&page, start + 8 + 2 * i)?;
                    let (size, n) = varint(&page, at)?;
                    let (rowid, m) = varint(&page, at + n)?;
                    let payload = payload(db, &page, at + n + m, size, &mut seen)?;
                    if visit(rowid as i64, payload)?.is_break() {
                        return Ok(());
                    }
                }
            }
            other => {
                return Err(damaged(format!(
                    "page {number} is of kind {other:#04x} where a table page belongs"
                )));
            }
        }
    }
    Ok(())
}

/// A leaf cell's payload of `size` bytes starting at `at`, followed into its overflow pages
/// when it does not fit.
fn payload(
    db: &Database<'_>,
    page: &[u8],
    at: usize,
    size: u64,
    seen: &mut Seen,
) -> Result<Vec<u8>> {
    let usable = u64::from(db.usable);
    if size > u64::from(db.pages) * usable {
        return Err(damaged(format!(
            "a row of {size} bytes, more than the file"
        )));
    }
    let most_local = usable - 35;
    let least_local = ((usable - 12) * 32 / 255) - 23;
    let local = if size <= most_local {
        size
    } else {
        let k = least_local + (size - least_local) % (usable - 4);
        if k <= most_local { k } else { least_local }
    } as usize;
    let size = size as usize;
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(
        page.get(at..at + local)
            .ok_or_else(|| damaged("a row runs past its page"))?,
    );
    if local < size {
        let mut next = u32_at(page, at + local)?;
        while out.len() < size {
            if next == 0 {
                return Err(damaged("a row's overflow chain ends early"));
            }
            if !seen.first_time(next) {
                return Err(damaged(format!("overflow page {next} is reached twice")));
            }
            let overflow = db.page(next)?;
            next = u32_at(&overflow, 0)?;
            let take = (size - out.len()).min(db.usable as usize - 4);
            out.extend_from_slice(
                overflow
                    .get(4..4 + take)
                    .ok_or_else(|| damaged("an overflow page cut short"))?,
            );
        }
    }
    Ok(out)
}
