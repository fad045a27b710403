//! Reading and writing `checkpoint.ndjson`: one session looked up by binary search over byte
//! offsets, so a command's cost does not grow with the ledger's history.
//!
//! Layout: the body (one `<session-id> <events>` line per session, sorted by id), then the
//! trailer line (a sealed [`CheckpointHeader`]), then a 20-digit line giving the trailer's
//! length. The trailer is written last because it counts what the body holds.

use super::io_err;
use baton_core::ledger::checkpoint::{
    CheckpointHeader, decode_session_line, encode_session_line, session_line_id,
};
use baton_core::ledger::fold::SessionHistory;
use baton_core::{Error, SessionId};
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Width of the final length line, without its newline.
const LENGTH_WIDTH: u64 = 20;
/// Below this span, binary search turns into a scan.
const SCAN_SPAN: u64 = 16 * 1024;
/// After this many lookups in one checkpoint (a command asking about every live session), the
/// body is read into memory once and every later lookup is a search in memory.
const LOOKUPS_BEFORE_LOADING: usize = 32;

/// An open, validated checkpoint.
#[derive(Debug)]
pub struct CheckpointFile {
    path: PathBuf,
    file: File,
    /// The trailer.
    pub header: CheckpointHeader,
    body_end: u64,
    /// How many lookups this checkpoint has answered.
    lookups: std::sync::atomic::AtomicUsize,
    /// The body in memory, once many lookups asked for it.
    loaded: std::sync::OnceLock<Loaded>,
}

/// A checkpoint's body in memory, with each line's session id and place.
#[derive(Debug)]
struct Loaded {
    body: Vec<u8>,
    lines: Vec<(SessionId, std::ops::Range<usize>)>,
}

/// The error for a checkpoint whose body does not read back: marked so the engine drops the
/// checkpoint (a cache) and answers from the logs instead.
pub(crate) fn damaged_checkpoint(path: &Path) -> Error {
    Error::internal(format!(
        "checkpoint {} is damaged; it is dropped and rebuilt",
        path.display()
    ))
    .with(DAMAGED_CHECKPOINT, path.display().to_string())
}

/// The detail that marks a damaged-checkpoint error.
pub(crate) const DAMAGED_CHECKPOINT: &str = "damaged_checkpoint";

impl CheckpointFile {
    /// Opens and checks a checkpoint; `Ok(Err(reason))` when it is missing or damaged.
    pub fn open(path: &Path) -> Result<std::result::Result<CheckpointFile, String>, Error> {
        let file = match super::own::open_read(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Err("missing".into()));
            }
            Err(e) => return Err(super::own::open_error("open", path, e)),
        };
        let len = file.metadata().map_err(|e| io_err("stat", path, e))?.len();
        if len < LENGTH_WIDTH + 1 {
            return Ok(Err("damaged: too short".into()));
        }
        let mut digits = [0u8; LENGTH_WIDTH as usize];
        file.read_exact_at(&mut digits, len - LENGTH_WIDTH - 1)
            .map_err(|e| io_err("read", path, e))?;
        let Some(trailer_len) = std::str::from_utf8(&digits)
            .ok()
            .and_then(|d| d.parse::<u64>().ok())
        else {
            return Ok(Err("damaged: no length line".into()));
        };
        let Some(trailer_start) = len.checked_sub(LENGTH_WIDTH + 2 + trailer_len) else {
            return Ok(Err("damaged: bad trailer length".into()));
        };
        let mut trailer = vec![0u8; trailer_len as usize];
        file.read_exact_at(&mut trailer, trailer_start)
            .map_err(|e| io_err("read", path, e))?;
        let Some(header) = CheckpointHeader::open(&trailer) else {
            return Ok(Err("damaged: trailer checksum".into()));
        };
        if header.body_bytes != trailer_start {
            return Ok(Err("damaged: body length".into()));
        }
        Ok(Ok(CheckpointFile {
            path: path.to_owned(),
            file,
            body_end: trailer_start,
            header,
            lookups: Default::default(),
            loaded: Default::default(),
        }))
    }

    /// Scans from `pos` to the next newline (or the body's end); returns the bytes before it
    /// when `keep` is set, and the offset just past it.
    fn scan_line(&self, pos: u64, keep: bool) -> Result<(Vec<u8>, u64), Error> {
        let mut line = Vec::new();
        let mut at = pos;
        let mut chunk = [0u8; 4096];
        while at < self.body_end {
            let want = chunk.len().min((self.body_end - at) as usize);
            let n = self
                .file
                .read_at(&mut chunk[..want], at)
                .map_err(|e| io_err("read", &self.path, e))?;
            if n == 0 {
                break;
            }
            let newline = chunk[..n].iter().position(|&b| b == b'\n');
            if keep {
                line.extend_from_slice(&chunk[..newline.unwrap_or(n)]);
            }
            if let Some(nl) = newline {
                return Ok((line, at + nl as u64 + 1));
            }
            at += n as u64;
        }
        Ok((line, self.body_end))
    }

    fn read_line(&self, pos: u64) -> Result<Vec<u8>, Error> {
        Ok(self.scan_line(pos, true)?.0)
    }

    /// The first line start at or after `pos` (`pos` must be past the body's start).
    fn next_line_start(&self, pos: u64) -> Result<u64, Error> {
        Ok(self.scan_line(pos - 1, false)?.1)
    }

    fn damaged(&self) -> Error {
        damaged_checkpoint(&self.path)
    }

    /// The checkpoint's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Reads `[from, to)` of the body with one `pread` (shorter at the body's end).
    fn read_span(&self, from: u64, to: u64) -> Result<Vec<u8>, Error> {
        let to = to.min(self.body_end);
        let mut bytes = vec![0u8; to.saturating_sub(from) as usize];
        self.file
            .read_exact_at(&mut bytes, from)
            .map_err(|e| io_err("read", &self.path, e))?;
        Ok(bytes)
    }

    /// The first whole line starting after `pos` (`pos` > 0): its start and bytes. One read
    /// of a window serves most probes; a line longer than the window is read in full.
    fn line_after(&self, pos: u64) -> Result<(u64, Vec<u8>), Error> {
        const WINDOW: u64 = 8 * 1024;
        let window = self.read_span(pos - 1, pos - 1 + WINDOW)?;
        if let Some(nl) = window.iter().position(|&b| b == b'\n') {
            let start = pos + nl as u64;
            let rest = &window[nl + 1..];
            if let Some(end) = rest.iter().position(|&b| b == b'\n') {
                return Ok((start, rest[..end].to_vec()));
            }
            if start + rest.len() as u64 >= self.body_end {
                return Ok((start, rest.to_vec()));
            }
            return Ok((start, self.read_line(start)?));
        }
        let start = self.next_line_start(pos)?;
        Ok((start, self.read_line(start)?))
    }

    /// One session's history at the checkpoint: binary search over byte offsets, then one
    /// read of the remaining span.
    pub fn lookup(&self, id: SessionId) -> Result<Option<SessionHistory>, Error> {
        use std::sync::atomic::Ordering::Relaxed;
        if self.lookups.fetch_add(1, Relaxed) == LOOKUPS_BEFORE_LOADING {
            let loaded = self.load()?;
            let _ = self.loaded.set(loaded);
        }
        if let Some(loaded) = self.loaded.get() {
            return match loaded.lines.binary_search_by(|(key, _)| key.cmp(&id)) {
                Ok(at) => self
                    .decode(&loaded.body[loaded.lines[at].1.clone()])
                    .map(Some),
                Err(_) => Ok(None),
            };
        }
        let (mut lo, mut hi) = (0u64, self.body_end);
        while hi - lo > SCAN_SPAN {
            let mid = lo + (hi - lo) / 2;
            let (start, line) = self.line_after(mid)?;
            if start >= hi {
                break;
            }
            let key = session_line_id(&line).ok_or_else(|| self.damaged())?;
            match key.cmp(&id) {
                std::cmp::Ordering::Less => lo = start,
                std::cmp::Ordering::Equal => return self.decode(&line).map(Some),
                std::cmp::Ordering::Greater => hi = start,
            }
        }
        let span = self.read_span(lo, hi)?;
        for line in span.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let key = session_line_id(line).ok_or_else(|| self.damaged())?;
            match key.cmp(&id) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => return self.decode(line).map(Some),
                std::cmp::Ordering::Greater => break,
            }
        }
        Ok(None)
    }

    /// Reads the whole body and finds where each session's line is.
    fn load(&self) -> Result<Loaded, Error> {
        let body = self.read_span(0, self.body_end)?;
        let mut lines = Vec::new();
        let mut start = 0;
        for line in body.split_inclusive(|&b| b == b'\n') {
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            if !text.is_empty() {
                let id = session_line_id(text).ok_or_else(|| self.damaged())?;
                if lines.last().is_some_and(|(last, _)| *last >= id) {
                    return Err(self.damaged());
                }
                lines.push((id, start..start + text.len()));
            }
            start += line.len();
        }
        Ok(Loaded { body, lines })
    }

    fn decode(&self, line: &[u8]) -> Result<SessionHistory, Error> {
        decode_session_line(line)
            .map(|(_, history)| history)
            .ok_or_else(|| self.damaged())
    }

    /// Streams every session of the checkpoint in id order.
    pub fn for_each(
        &self,
        mut visit: impl FnMut(SessionId, SessionHistory) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.for_each_raw(|id, line| {
            let (_, history) = decode_session_line(line).ok_or_else(|| self.damaged())?;
            visit(id, history)
        })
    }

    /// Streams every body line (undecoded) with its session id, in id order.
    pub fn for_each_raw(
        &self,
        mut visit: impl FnMut(SessionId, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let mut file = self
            .file
            .try_clone()
            .map_err(|e| io_err("read", &self.path, e))?;
        file.seek(SeekFrom::Start(0))
            .map_err(|e| io_err("read", &self.path, e))?;
        let mut reader = BufReader::with_capacity(1 << 20, file.take(self.body_end));
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| io_err("read", &self.path, e))?;
            if n == 0 {
                return Ok(());
            }
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            let id = session_line_id(body).ok_or_else(|| self.damaged())?;
            visit(id, body)?;
        }
    }
}

/// Writes a checkpoint atomically from sessions given in id order.
pub struct CheckpointWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    body_bytes: u64,
    sessions: u64,
    live: Vec<SessionId>,
}

impl CheckpointWriter {
    /// Starts writing a new checkpoint that will replace `path`.
    pub fn create(path: &Path) -> Result<CheckpointWriter, Error> {
        let tmp = path.with_extension(format!("tmp-{}", crate::os::system::new_uuid().simple()));
        let file =
            super::own::create_new(&tmp).map_err(|e| super::own::open_error("create", &tmp, e))?;
        Ok(CheckpointWriter {
            path: path.to_owned(),
            tmp,
            out: BufWriter::with_capacity(1 << 20, file),
            body_bytes: 0,
            sessions: 0,
            live: Vec::new(),
        })
    }

    /// Adds the next session (ids must ascend).
    pub fn push(&mut self, id: SessionId, history: &SessionHistory) -> Result<(), Error> {
        if history.session().is_some_and(|s| s.is_live()) {
            self.live.push(id);
        }
        let line = encode_session_line(id, history)?;
        self.out
            .write_all(line.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|e| io_err("write", &self.tmp, e))?;
        self.body_bytes += line.len() as u64 + 1;
        self.sessions += 1;
        Ok(())
    }

    /// Copies an unchanged session line from an older checkpoint without decoding it.
    pub fn push_raw(&mut self, id: SessionId, line: &[u8], live: bool) -> Result<(), Error> {
        if live {
            self.live.push(id);
        }
        self.out
            .write_all(line)
            .and_then(|()| self.out.write_all(b"\n"))
            .map_err(|e| io_err("write", &self.tmp, e))?;
        self.body_bytes += line.len() as u64 + 1;
        self.sessions += 1;
        Ok(())
    }

    /// Seals the trailer and atomically replaces the old checkpoint.
    pub fn finish(mut self, mut header: CheckpointHeader) -> Result<(), Error> {
        header.live = std::mem::take(&mut self.live);
        header.sessions = self.sessions;
        header.body_bytes = self.body_bytes;
        let trailer = header.seal()?;
        let tail = format!("{trailer}\n{:020}\n", trailer.len());
        let result = (|| {
            self.out
                .write_all(tail.as_bytes())
                .map_err(|e| io_err("write", &self.tmp, e))?;
            // No fsync: a checkpoint is a cache, validated on every read and rebuilt if a crash
            // left it short or stale.
            self.out
                .into_inner()
                .map_err(|e| io_err("write", &self.tmp, e.error()))?;
            std::fs::rename(&self.tmp, &self.path).map_err(|e| io_err("rename", &self.path, e))
        })();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        result
    }
}
