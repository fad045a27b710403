//! ZIP archives held in memory (ChatGPT and claude.ai mail their exports zipped): the central
//! directory (ZIP64 included), and entries inflated a slice at a time so a host can show
//! progress and cancel between slices. Every size and offset is checked against the bytes
//! present, so a truncated or hostile archive is an `ARCHIVE_DAMAGED` error, never a panic.

use crate::error::{Error, ErrorCode, Result};
use miniz_oxide::inflate::stream::{InflateState, inflate};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

/// One file in an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZipEntry {
    /// Its path inside the archive.
    pub name: String,
    /// 0 stored, 8 deflate.
    pub method: u16,
    /// Bytes in the archive.
    pub compressed_size: u64,
    /// Bytes once inflated.
    pub size: u64,
    /// CRC-32 of the inflated bytes.
    pub crc32: u32,
    /// Whether the entry is encrypted.
    pub encrypted: bool,
    local_header: u64,
}

/// Whether `bytes` start like a ZIP archive.
pub(crate) fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

fn damaged(problem: impl Into<String>) -> Error {
    let problem = problem.into();
    Error::archive_damaged(&problem)
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

const EOCD: u32 = 0x0605_4b50;
const ZIP64_LOCATOR: u32 = 0x0706_4b50;
const ZIP64_EOCD: u32 = 0x0606_4b50;
const CENTRAL: u32 = 0x0201_4b50;
const LOCAL: u32 = 0x0403_4b50;

/// Reads the central directory.
pub fn entries(bytes: &[u8]) -> Result<Vec<ZipEntry>> {
    // The end record sits in the last 22 + 65,535 (comment) bytes.
    let lowest = bytes.len().saturating_sub(22 + 0xFFFF);
    let eocd = (lowest..=bytes.len().saturating_sub(22))
        .rev()
        .find(|&at| u32_at(bytes, at) == Some(EOCD))
        .ok_or_else(|| damaged("no end-of-archive record (the file was cut short)"))?;
    let mut count = u64::from(u16_at(bytes, eocd + 10).unwrap_or(0));
    let mut dir_size = u64::from(u32_at(bytes, eocd + 12).unwrap_or(0));
    let mut dir_at = u64::from(u32_at(bytes, eocd + 16).unwrap_or(0));
    if (count == 0xFFFF || dir_size == 0xFFFF_FFFF || dir_at == 0xFFFF_FFFF)
        && eocd >= 20
        && u32_at(bytes, eocd - 20) == Some(ZIP64_LOCATOR)
    {
        let record = u64_at(bytes, eocd - 20 + 8).ok_or_else(|| damaged("ZIP64 locator"))?;
        let record = usize::try_from(record).map_err(|_| damaged("ZIP64 record offset"))?;
        if u32_at(bytes, record) != Some(ZIP64_EOCD) {
            return Err(damaged("ZIP64 end record missing"));
        }
        count = u64_at(bytes, record + 32).ok_or_else(|| damaged("ZIP64 end record"))?;
        dir_size = u64_at(bytes, record + 40).ok_or_else(|| damaged("ZIP64 end record"))?;
        dir_at = u64_at(bytes, record + 48).ok_or_else(|| damaged("ZIP64 end record"))?;
    }
    let dir_end = dir_at
        .checked_add(dir_size)
        .filter(|end| *end <= bytes.len() as u64)
        .ok_or_else(|| damaged("the central directory runs past the end of the file"))?;
    let mut at = dir_at as usize;
    let mut found = Vec::new();
    for _ in 0..count {
        if at as u64 >= dir_end || u32_at(bytes, at) != Some(CENTRAL) {
            return Err(damaged("a central directory entry is missing"));
        }
        let field = |off: usize| u16_at(bytes, at + off).map(usize::from);
        let (Some(name_len), Some(extra_len), Some(comment_len)) =
            (field(28), field(30), field(32))
        else {
            return Err(damaged("a central directory entry is cut short"));
        };
        let flags = u16_at(bytes, at + 8).unwrap_or(0);
        let method = u16_at(bytes, at + 10).unwrap_or(0);
        let crc32 = u32_at(bytes, at + 16).unwrap_or(0);
        let mut compressed_size = u64::from(u32_at(bytes, at + 20).unwrap_or(0));
        let mut size = u64::from(u32_at(bytes, at + 24).unwrap_or(0));
        let mut local_header = u64::from(u32_at(bytes, at + 42).unwrap_or(0));
        let name_at = at + 46;
        let name = bytes
            .get(name_at..name_at + name_len)
            .ok_or_else(|| damaged("an entry name is cut short"))?;
        let extra = bytes
            .get(name_at + name_len..name_at + name_len + extra_len)
            .ok_or_else(|| damaged("an entry's extra field is cut short"))?;
        // ZIP64 extra field: the 64-bit values of the fields saturated above, in order.
        let mut e = 0;
        while e + 4 <= extra.len() {
            let id = u16_at(extra, e).unwrap_or(0);
            let len = usize::from(u16_at(extra, e + 2).unwrap_or(0));
            if id == 1 {
                let mut v = e + 4;
                for slot in [&mut size, &mut compressed_size, &mut local_header] {
                    if *slot == 0xFFFF_FFFF
                        && let Some(value) = u64_at(extra, v)
                    {
                        *slot = value;
                        v += 8;
                    }
                }
            }
            e += 4 + len;
        }
        found.push(ZipEntry {
            name: String::from_utf8_lossy(name).into_owned(),
            method,
            compressed_size,
            size,
            crc32,
            encrypted: flags & 1 == 1,
            local_header,
        });
        at = name_at + name_len + extra_len + comment_len;
    }
    Ok(found)
}

/// Inflates one entry a slice at a time, checking its length and CRC at the end.
/// It keeps offsets, not a borrow, so a host can hold it beside the archive bytes.
pub struct EntryReader {
    entry: ZipEntry,
    start: usize,
    end: usize,
    consumed: usize,
    produced: u64,
    crc: u32,
    state: Option<Box<InflateState>>,
    done: bool,
}

impl std::fmt::Debug for EntryReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.entry.name)
            .field("produced", &self.produced)
            .finish_non_exhaustive()
    }
}

/// The largest entry inflated: bigger than any real export's conversations file.
pub const MAX_ENTRY_BYTES: u64 = 4 << 30;

/// The most an entry over a mebibyte may inflate per compressed byte: JSON compresses about
/// 5–20 times, a zip bomb a thousand and more.
pub const MAX_RATIO: u64 = 200;

/// Refuses an entry a zip bomb would be: too large, or too many times its compressed size.
fn within_bounds(entry: &ZipEntry) -> Result<()> {
    let limit = if entry.size > MAX_ENTRY_BYTES {
        Some(format!("over the {} GiB limit", MAX_ENTRY_BYTES >> 30))
    } else if entry.size > 1 << 20 && entry.size / entry.compressed_size.max(1) > MAX_RATIO {
        Some(format!("over {MAX_RATIO} times its compressed size"))
    } else {
        None
    };
    match limit {
        Some(limit) => Err(Error::archive_too_large(
            &entry.name,
            entry.size,
            entry.compressed_size,
            &limit,
        )),
        None => Ok(()),
    }
}

impl EntryReader {
    /// Opens `entry` of the archive `bytes`; an entry past [`MAX_ENTRY_BYTES`] or
    /// [`MAX_RATIO`] is refused before anything is inflated.
    pub fn open(bytes: &[u8], entry: &ZipEntry) -> Result<EntryReader> {
        within_bounds(entry)?;
        if entry.encrypted {
            return Err(unsupported(entry, "it is encrypted"));
        }
        if entry.method != 0 && entry.method != 8 {
            return Err(unsupported(
                entry,
                &format!("compression method {}", entry.method),
            ));
        }
        let local = usize::try_from(entry.local_header).unwrap_or(usize::MAX);
        if u32_at(bytes, local) != Some(LOCAL) {
            return Err(damaged(format!("{}: local header missing", entry.name)));
        }
        let (Some(name_len), Some(extra_len)) =
            (u16_at(bytes, local + 26), u16_at(bytes, local + 28))
        else {
            return Err(damaged(format!("{}: local header cut short", entry.name)));
        };
        let start = local + 30 + usize::from(name_len) + usize::from(extra_len);
        let end = u64::try_from(start)
            .ok()
            .and_then(|s| s.checked_add(entry.compressed_size))
            .filter(|e| *e <= bytes.len() as u64)
            .ok_or_else(|| damaged(format!("{}: its data runs past the end", entry.name)))?;
        Ok(EntryReader {
            entry: entry.clone(),
            start,
            end: end as usize,
            consumed: 0,
            produced: 0,
            crc: 0,
            state: (entry.method == 8).then(|| InflateState::new_boxed(DataFormat::Raw)),
            done: false,
        })
    }

    /// Inflated bytes so far.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// The entry being read.
    pub fn entry(&self) -> &ZipEntry {
        &self.entry
    }

    /// Inflates up to `out.len()` bytes of the entry into `out`; `archive` is the same bytes
    /// it was opened on. Returns how many, 0 at the end (after the length and CRC were
    /// checked).
    pub fn read(&mut self, archive: &[u8], out: &mut [u8]) -> Result<usize> {
        if self.done || out.is_empty() {
            return Ok(0);
        }
        let input = archive
            .get(self.start..self.end)
            .ok_or_else(|| damaged("the archive changed while it was read"))?;
        let written = match &mut self.state {
            None => {
                let n = out.len().min(input.len() - self.consumed);
                out[..n].copy_from_slice(&input[self.consumed..self.consumed + n]);
                self.consumed += n;
                n
            }
            Some(state) => {
                let result = inflate(state, &input[self.consumed..], out, MZFlush::None);
                self.consumed += result.bytes_consumed;
                match result.status {
                    Ok(MZStatus::Ok | MZStatus::StreamEnd) => {}
                    Err(MZError::Buf) if result.bytes_written > 0 => {}
                    Err(MZError::Buf) => {
                        return Err(damaged(format!("{}: its data ends early", self.entry.name)));
                    }
                    Ok(MZStatus::NeedDict) | Err(_) => {
                        return Err(damaged(format!(
                            "{}: its compressed data is corrupt",
                            self.entry.name
                        )));
                    }
                }
                result.bytes_written
            }
        };
        self.crc = crc32_update(self.crc, &out[..written]);
        self.produced += written as u64;
        if self.produced > self.entry.size {
            // A directory that understates the size would let a bomb past the bounds.
            return Err(damaged(format!(
                "{}: it inflates past the {} bytes the directory says",
                self.entry.name, self.entry.size
            )));
        }
        if written == 0 {
            self.done = true;
            if self.produced != self.entry.size || self.crc != self.entry.crc32 {
                return Err(damaged(format!(
                    "{}: {} bytes inflated with CRC {:08x}, the directory says {} bytes with CRC {:08x}",
                    self.entry.name, self.produced, self.crc, self.entry.size, self.entry.crc32
                )));
            }
        }
        Ok(written)
    }
}

fn unsupported(entry: &ZipEntry, why: &str) -> Error {
    Error::new(
        ErrorCode::ArchiveUnsupported,
        format!(
            "{} cannot be read from the archive: {why}; unzip the export and open the file itself",
            entry.name
        ),
    )
    .with("entry", entry.name.clone())
}

const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

/// Continues a CRC-32 (IEEE) over `bytes`.
pub fn crc32_update(crc: u32, bytes: &[u8]) -> u32 {
    let mut c = !crc;
    for &b in bytes {
        c = CRC_TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

pub use crate::transcripts::export_files::is_conversations_entry;

/// Builds a ZIP archive of `files` (stored when `deflate` is false). For tests and fixtures
/// only (feature `test-support`): hosts only read archives.
#[cfg(any(test, feature = "test-support"))]
pub fn write_zip(files: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let packed = if deflate {
            miniz_oxide::deflate::compress_to_vec(data, 6)
        } else {
            data.to_vec()
        };
        let method: u16 = if deflate { 8 } else { 0 };
        let crc = crc32_update(0, data);
        let offset = out.len() as u32;
        let header = |sig: u32, central_entry: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central_entry {
                h.extend_from_slice(&20u16.to_le_bytes());
            }
            h.extend_from_slice(&20u16.to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            h.extend_from_slice(&method.to_le_bytes());
            h.extend_from_slice(&[0, 0, 0x21, 0]);
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(packed.len() as u32).to_le_bytes());
            h.extend_from_slice(&(data.len() as u32).to_le_bytes());
            h.extend_from_slice(&(name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes());
            if central_entry {
                // Comment length, disk, internal and external attributes.
                h.extend_from_slice(&[0u8; 10]);
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(name.as_bytes());
            h
        };
        out.extend(header(LOCAL, false));
        out.extend_from_slice(&packed);
        central.extend(header(CENTRAL, true));
    }
    let dir_at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&EOCD.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(files.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&dir_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}
