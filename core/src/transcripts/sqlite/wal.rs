//! A write-ahead log (`<db>-wal`) read as SQLite's own recovery reads it: frames whose salts
//! match the header and whose running checksum holds, up to the last frame that commits a
//! transaction. What follows (a transaction being written, or frames of an older log the
//! writer has begun to overwrite) is left out, so a reader sees the last committed state.

use super::btree::u32_at;
use super::damaged;
use crate::error::Result;
use std::collections::HashMap;

const HEADER: usize = 32;
const FRAME_HEADER: usize = 24;

/// The committed frames of a log: the newest copy of each page they hold.
#[derive(Debug, Default)]
pub struct Wal {
    page_size: u32,
    /// The database's size in pages after the last commit, when a commit was found.
    pages: Option<u32>,
    /// Each page's newest committed copy.
    newest: HashMap<u32, Vec<u8>>,
    /// The header's salts and checkpoint count: they change when the log is restarted.
    generation: [u32; 3],
}

impl Wal {
    /// Reads a log's bytes. An empty or headerless log holds nothing (SQLite leaves one so
    /// after a checkpoint); a header SQLite would not accept is an error.
    pub fn parse(bytes: &[u8]) -> Result<Wal> {
        if bytes.len() < HEADER {
            return Ok(Wal::default());
        }
        let magic = u32_at(bytes, 0)?;
        let big_endian = match magic {
            0x377f_0682 => false,
            0x377f_0683 => true,
            _ => return Err(damaged("the -wal file does not start with a log's header")),
        };
        let page_size = match u32_at(bytes, 8)? {
            n if (512..=65_536).contains(&n) && n.is_power_of_two() => n,
            n => return Err(damaged(format!("a log page size of {n}"))),
        };
        let salts = [u32_at(bytes, 16)?, u32_at(bytes, 20)?];
        let mut sums = checksum((0, 0), &bytes[..24], big_endian);
        if sums != (u32_at(bytes, 24)?, u32_at(bytes, 28)?) {
            return Ok(Wal::default());
        }
        let frame = FRAME_HEADER + page_size as usize;
        let mut wal = Wal {
            page_size,
            generation: [salts[0], salts[1], u32_at(bytes, 12)?],
            ..Wal::default()
        };
        let mut pending: Vec<(u32, &[u8])> = Vec::new();
        let mut at = HEADER;
        while let Some(bytes) = bytes.get(at..at + frame) {
            let (page, commit) = (u32_at(bytes, 0)?, u32_at(bytes, 4)?);
            if [u32_at(bytes, 8)?, u32_at(bytes, 12)?] != salts || page == 0 {
                break;
            }
            sums = checksum(sums, &bytes[..8], big_endian);
            sums = checksum(sums, &bytes[FRAME_HEADER..], big_endian);
            if sums != (u32_at(bytes, 16)?, u32_at(bytes, 20)?) {
                break;
            }
            pending.push((page, &bytes[FRAME_HEADER..]));
            if commit > 0 {
                for (page, data) in pending.drain(..) {
                    wal.newest.insert(page, data.to_vec());
                }
                wal.pages = Some(commit);
            }
            at += frame;
        }
        Ok(wal)
    }

    /// The page size the log was written with.
    pub(super) fn page_size(&self) -> u32 {
        self.page_size
    }

    /// The database's size in pages after the last committed transaction.
    pub(super) fn pages(&self) -> Option<u32> {
        self.pages
    }

    /// The newest committed copy of `page`, if the log holds one.
    pub(super) fn page(&self, page: u32) -> Option<&[u8]> {
        self.newest.get(&page).map(Vec::as_slice)
    }

    /// What identifies this log's contents: a host that reads the log again after reading the
    /// database and finds another generation read while a checkpoint restarted it.
    pub fn generation(&self) -> [u32; 3] {
        self.generation
    }

    /// How many committed pages it holds.
    pub fn committed_pages(&self) -> usize {
        self.newest.len()
    }
}

/// SQLite's running checksum over `bytes` (a multiple of 8), from `sums`.
fn checksum(mut sums: (u32, u32), bytes: &[u8], big_endian: bool) -> (u32, u32) {
    for pair in bytes.chunks_exact(8) {
        let word = |b: &[u8]| {
            let b = [b[0], b[1], b[2], b[3]];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        sums.0 = sums.0.wrapping_add(word(&pair[..4])).wrapping_add(sums.1);
        sums.1 = sums.1.wrapping_add(word(&pair[4..])).wrapping_add(sums.0);
    }
    sums
}
