//! What a window's lines hold, worked out apart from the index: the lines masked, the usage
//! rows each records, the conversations they carry. The writer stores a digest; for files no
//! pass has read, a second thread digests the next ones while the writer stores this one.

use super::*;
use baton_core::transcripts::conversation::Parsed;
use baton_core::transcripts::follow::{AppendedUsage, Row};

/// A window's lines, read.
pub(super) struct Digest {
    /// The whole lines, secrets masked: all that is kept of them.
    pub lines: Vec<Vec<u8>>,
    /// Each line's usage rows, at its offset.
    pub line_rows: Vec<(i64, Vec<Row>)>,
    /// Responses held until the window's end that can count ([`AppendedUsage::take_held`]).
    pub held: Vec<(i64, Row)>,
    /// The unfinished last line read as it stands: its rows, and what it held (JSON).
    pub provisional: Option<(Vec<Row>, String)>,
    /// What the source's lines held so far, and where its usage reader stopped (JSON).
    pub usage: (Option<String>, Option<String>),
    /// The conversations the lines carry, and where the reader stopped.
    pub parsed: Parsed,
    pub reader_state: Option<String>,
}

/// Where a window starts and what came before it.
pub(super) struct Start<'a> {
    /// The offset of the window's first line.
    pub cursor: i64,
    /// The usage read before (its stats and state, JSON), `None` from the file's start.
    pub usage: (Option<&'a str>, Option<&'a str>),
    /// The conversation reader's state before, `None` from the file's start.
    pub reader_state: Option<&'a str>,
}

/// Reads the whole lines `taken` (from `start.cursor`), and `unfinished`, the file's last
/// line still without its newline, as it stands.
pub(super) fn digest(
    source: &Source,
    shown: &str,
    masker: &Masker,
    start: &Start,
    taken: &[u8],
    unfinished: Option<&[u8]>,
    companions: &[(String, Vec<u8>)],
) -> Digest {
    let mut usage = AppendedUsage::continuing(
        source.provider,
        shown,
        start.usage.0,
        start.usage.1,
        companions.to_vec(),
    );
    let mut offset = start.cursor;
    let mut lines = Vec::new();
    let mut line_rows = Vec::new();
    for line in taken.split_inclusive(|b| *b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        if let Some(body) = baton_core::transcripts::lines::whole_line(body) {
            let rows = usage.push_line(offset, body);
            if !rows.is_empty() {
                line_rows.push((offset, rows));
            }
            lines.push(masker.mask_bytes(body).into_owned());
        }
        offset += line.len() as i64;
    }
    let held = usage.take_held();
    let provisional = unfinished
        .and_then(baton_core::transcripts::lines::whole_line)
        .map(|line| {
            let (rows, stats) = usage.provisional(line);
            (rows, stats_json(&stats))
        });
    let (stats, state) = usage.finish();
    let (parsed, reader_state) = baton_core::transcripts::follow::read_appended(
        source.provider,
        shown,
        start.reader_state,
        &lines,
        companions,
    );
    Digest {
        lines,
        line_rows,
        held,
        provisional,
        usage: (Some(stats_json(&stats)), state),
        parsed,
        reader_state,
    }
}

/// A file no pass had read, read and digested ahead of the writer (at most one window).
pub(super) struct Prefetched {
    /// The file's identity when it was looked at, before it was read.
    pub identity: Identity,
    pub chunk: Vec<u8>,
    pub bytes_read: u64,
    pub digest: Digest,
}

/// Reads and digests `source` as its first window would be (`None` when it is not a
/// transcript of whole lines that fits in one window: the writer reads it itself).
pub(super) fn prefetch(source: &Source, masker: &Masker) -> Option<Prefetched> {
    if source.provider.entry().kind != Kind::Agent {
        return None;
    }
    let (shown, meta) = looked_at(source).ok()?;
    if !meta.is_file() || meta.size() >= WINDOW_BYTES {
        return None;
    }
    let mut file = crate::os::files::open_regular(&source.path).ok()?;
    let mut stats = PassStats::default();
    let (chunk, long_line_end) = read_window(&mut file, 0, &mut stats).ok()?;
    if long_line_end.is_some() || chunk.len() as u64 >= WINDOW_BYTES {
        return None;
    }
    let size = meta.size() as i64;
    let complete = complete_of(&chunk, 0, size, None);
    let at_end = chunk.len() as u64 >= size as u64;
    let unfinished = (at_end && complete < chunk.len()).then(|| &chunk[complete..]);
    let companions = crate::os::files::companions_of(source.provider, &source.path);
    let start = Start {
        cursor: 0,
        usage: (None, None),
        reader_state: None,
    };
    let digest = digest(
        source,
        &shown,
        masker,
        &start,
        &chunk[..complete],
        unfinished,
        &companions,
    );
    Some(Prefetched {
        identity: identity_of(&meta),
        chunk,
        bytes_read: stats.bytes_read,
        digest,
    })
}
