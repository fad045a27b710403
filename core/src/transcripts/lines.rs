//! The one line splitter: JSONL arrives in chunks of any size and leaves as whole lines, the
//! same way for every reader and every host.

/// The longest line any reader takes (32 MiB): a longer one is passed over whole and
/// counted ([`LineSplitter::too_long`]), so no line holds more memory than this and the lines
/// after it are read. The mirror keeps to the same bound.
pub const MAX_LINE_BYTES: usize = 32 << 20;

/// The largest document read whole (an agent's session it rewrites as one JSON value, often
/// on one line: a Cline task, a compacted Copilot Chat log, an Amp thread).
pub const DOCUMENT_BYTES: usize = 256 << 20;

/// Anything that reads a transcript one line at a time: each agent's conversation reader and
/// usage reader, fed by one [`LineSplitter`] however the bytes arrive.
pub trait LineReader {
    /// Reads one whole line (without its newline).
    fn push_line(&mut self, line: &[u8]);
}

/// Feeds `chunk`'s whole lines to `readers`, in order (a line split across chunks waits for
/// its end).
pub fn feed(lines: &mut LineSplitter, chunk: &[u8], readers: &mut [&mut dyn LineReader]) {
    lines.push(chunk, |line| {
        for reader in readers.iter_mut() {
            reader.push_line(line);
        }
    });
}

/// Splits bytes arriving in chunks into lines. A `\r` before the newline and a UTF-8 byte order
/// mark at the start of a line (an editor's, or one per file of files joined together) are
/// dropped, and a line that is empty or only whitespace is skipped: it holds nothing, so no
/// reader counts it (not as a line read, not as a malformed one). The last line needs no
/// newline. A line over [`MAX_LINE_BYTES`] is passed over.
#[derive(Debug, Default, Clone)]
pub struct LineSplitter {
    /// The longest line taken, when not [`MAX_LINE_BYTES`].
    limit: Option<usize>,
    carry: Vec<u8>,
    /// Inside a line already over the limit: its bytes are dropped up to its newline.
    dropping: bool,
    too_long: u64,
}

/// Whether a line holds nothing but whitespace.
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// The UTF-8 byte order mark.
pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A line (without its newline) as every reader takes it: without a trailing `\r` and a
/// leading byte order mark; `None` when it holds nothing.
pub fn whole_line(line: &[u8]) -> Option<&[u8]> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(BOM).unwrap_or(line);
    (!is_blank(line)).then_some(line)
}

/// Whether the bytes after a file's last newline, still waiting for theirs, are already a
/// whole line: one JSON object, as an agent leaves a session it wrote on one line with no
/// newline after it (Gemini CLI's older documents may be). A line cut mid-write never is
/// one: an object's closing brace is its last byte. A reader of a growing file may take
/// such a line now; the newline that may follow it later is a blank line, read as nothing.
pub fn whole_unterminated(rest: &[u8]) -> bool {
    let Some(line) = whole_line(rest) else {
        return false;
    };
    let trimmed = line.trim_ascii();
    trimmed.first() == Some(&b'{')
        && trimmed.last() == Some(&b'}')
        && serde_json::from_slice::<serde::de::IgnoredAny>(trimmed).is_ok()
}

fn emit(line: &[u8], on_line: &mut impl FnMut(&[u8])) {
    if let Some(line) = whole_line(line) {
        on_line(line);
    }
}

impl LineSplitter {
    /// A splitter with nothing carried over.
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// A splitter taking lines of up to `limit` bytes (a document an agent writes on one
    /// line, read whole: [`DOCUMENT_BYTES`]).
    pub fn with_limit(limit: usize) -> LineSplitter {
        LineSplitter {
            limit: Some(limit),
            ..LineSplitter::default()
        }
    }

    fn limit(&self) -> usize {
        self.limit.unwrap_or(MAX_LINE_BYTES)
    }

    /// Hands every whole line of `chunk` (after what is carried from the last chunk) to
    /// `on_line`, and keeps the unfinished last line.
    pub fn push(&mut self, chunk: &[u8], mut on_line: impl FnMut(&[u8])) {
        let mut rest = chunk;
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            if self.dropping {
                self.dropping = false;
            } else if self.carry.is_empty() {
                if nl > self.limit() {
                    self.too_long += 1;
                } else {
                    emit(&rest[..nl], &mut on_line);
                }
            } else if self.carry.len() + nl > self.limit() {
                self.too_long += 1;
                self.carry = Vec::new();
            } else {
                self.carry.extend_from_slice(&rest[..nl]);
                emit(&self.carry, &mut on_line);
                self.carry.clear();
            }
            rest = &rest[nl + 1..];
        }
        if self.dropping {
            return;
        }
        if self.carry.len() + rest.len() > self.limit() {
            self.too_long += 1;
            self.dropping = true;
            self.carry = Vec::new();
        } else {
            self.carry.extend_from_slice(rest);
        }
    }

    /// Hands over the last line when the input did not end with a newline.
    pub fn finish(&mut self, mut on_line: impl FnMut(&[u8])) {
        let last = std::mem::take(&mut self.carry);
        emit(&last, &mut on_line);
    }

    /// Lines passed over for being longer than [`MAX_LINE_BYTES`].
    pub fn too_long(&self) -> u64 {
        self.too_long
    }
}

/// The first line of `bytes` that is not blank, without its `\r` and byte order mark.
pub(crate) fn first_line(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let line = bytes
        .split(|&b| b == b'\n')
        .find(|l| !is_blank(l))
        .unwrap_or(&[]);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// An agent transcript's chunk to its usage reader and, when conversations are read too, to
/// its conversation reader.
pub(crate) fn feed_agent(
    lines: &mut LineSplitter,
    chunk: &[u8],
    conversations: Option<&mut dyn LineReader>,
    usage: &mut dyn LineReader,
) {
    match conversations {
        Some(reader) => feed(lines, chunk, &mut [reader, usage]),
        None => feed(lines, chunk, &mut [usage]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_over_the_limit_is_passed_over_and_the_next_lines_read() {
        for chunk in [1 << 20, MAX_LINE_BYTES + 7, usize::MAX] {
            let mut input = b"first\n".to_vec();
            input.resize(input.len() + MAX_LINE_BYTES + 1, b'x');
            input.extend_from_slice(b"\nafter\n");
            input.resize(input.len() + MAX_LINE_BYTES, b'y');
            input.extend_from_slice(b"\nlast");
            let mut splitter = LineSplitter::new();
            let mut lines = Vec::new();
            for part in input.chunks(chunk.min(input.len())) {
                splitter.push(part, |l| lines.push(l.len()));
            }
            splitter.finish(|l| lines.push(l.len()));
            assert_eq!(lines, [5, 5, MAX_LINE_BYTES, 4], "chunks of {chunk}");
            assert_eq!(splitter.too_long(), 1);
        }
    }

    #[test]
    fn an_unterminated_line_is_whole_only_as_a_whole_object() {
        assert!(whole_unterminated(br#"{"sessionId":"s","messages":[]}"#));
        assert!(whole_unterminated(b"\xEF\xBB\xBF{\"a\":1}\r"));
        // Cut mid-write, the closing brace of a value inside, a pretty document's last line.
        assert!(!whole_unterminated(
            br#"{"sessionId":"s","messages":[{"a":1}"#
        ));
        assert!(!whole_unterminated(br#"{"a":"}"#));
        assert!(!whole_unterminated(b"}"));
        assert!(!whole_unterminated(b"[1,2]"));
        assert!(!whole_unterminated(b"  "));
    }

    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut lines = Vec::new();
        let mut splitter = LineSplitter::new();
        for chunk in chunks {
            splitter.push(chunk, |l| {
                lines.push(String::from_utf8_lossy(l).into_owned())
            });
        }
        splitter.finish(|l| lines.push(String::from_utf8_lossy(l).into_owned()));
        lines
    }

    #[test]
    fn lines_cross_chunks_and_blank_lines_are_skipped() {
        assert_eq!(
            split(&[b"a\r\n\n  \r\nb", b"c\n", b"\t\nd"]),
            vec!["a", "bc", "d"]
        );
        assert_eq!(split(&[b"", b"\n\n"]), Vec::<String>::new());
        assert_eq!(split(&[b"\xEF\xBB", b"\xBF{}\n{}"]), vec!["{}", "{}"]);
    }
}
