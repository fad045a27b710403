//! A streaming splitter of a JSON array of conversations: each item is handed over as soon as
//! it closes, so a whole export is never one tree in memory.

/// Splits a JSON array arriving in chunks into its elements, so an export of any size is
/// parsed one conversation at a time. A top-level object is kept whole instead.
#[derive(Debug, Default)]
pub(crate) struct ArraySplitter {
    pub(crate) mode: SplitMode,
    pub(crate) depth: u32,
    pub(crate) in_string: bool,
    pub(crate) escaped: bool,
    pub(crate) scalar: bool,
    pub(crate) item: Vec<u8>,
    pub(crate) whole: Vec<u8>,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) enum SplitMode {
    #[default]
    Start,
    Between,
    InItem,
    Whole,
    Done,
}

impl ArraySplitter {
    pub(crate) fn push(&mut self, chunk: &[u8], on_item: &mut dyn FnMut(&[u8])) {
        let mut i = 0;
        let mut item_start = None;
        while i < chunk.len() {
            let b = chunk[i];
            match self.mode {
                SplitMode::Start => {
                    if b == b'[' {
                        self.mode = SplitMode::Between;
                    } else if !b.is_ascii_whitespace() && b != 0xEF && b != 0xBB && b != 0xBF {
                        self.mode = SplitMode::Whole;
                        continue;
                    }
                }
                SplitMode::Whole => {
                    self.whole.extend_from_slice(&chunk[i..]);
                    return;
                }
                SplitMode::Done => return,
                SplitMode::Between => {
                    if b == b']' {
                        self.mode = SplitMode::Done;
                    } else if !b.is_ascii_whitespace() && b != b',' {
                        self.mode = SplitMode::InItem;
                        item_start = Some(i);
                        self.scalar = b != b'{' && b != b'[';
                        self.depth = 0;
                        self.in_string = false;
                        self.escaped = false;
                        continue;
                    }
                }
                SplitMode::InItem => {
                    let start = *item_start.get_or_insert(i);
                    let mut end = None;
                    // Skip to the next byte that can change the state: inside a string a quote
                    // or a backslash, outside one a quote, a bracket or a comma.
                    let skip = if self.in_string && !self.escaped {
                        memchr::memchr2(b'"', b'\\', &chunk[i..])
                    } else if !self.in_string {
                        chunk[i..]
                            .iter()
                            .position(|&b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']' | b','))
                    } else {
                        Some(0)
                    };
                    let Some(skip) = skip else {
                        i = chunk.len();
                        continue;
                    };
                    i += skip;
                    let b = chunk[i];
                    if self.in_string {
                        if self.escaped {
                            self.escaped = false;
                        } else if b == b'\\' {
                            self.escaped = true;
                        } else if b == b'"' {
                            self.in_string = false;
                        }
                    } else {
                        match b {
                            b'"' => self.in_string = true,
                            b'{' | b'[' => self.depth += 1,
                            b'}' | b']' if self.depth > 0 => {
                                self.depth -= 1;
                                if self.depth == 0 && !self.scalar {
                                    end = Some(i + 1);
                                }
                            }
                            b',' | b']' if self.scalar && self.depth == 0 => end = Some(i),
                            _ => {}
                        }
                    }
                    if let Some(end) = end {
                        if self.item.is_empty() {
                            on_item(&chunk[start..end]);
                        } else {
                            self.item.extend_from_slice(&chunk[start..end]);
                            on_item(&self.item);
                            self.item.clear();
                        }
                        item_start = None;
                        self.mode = SplitMode::Between;
                        i = end;
                        continue;
                    }
                }
            }
            i += 1;
        }
        if let (SplitMode::InItem, Some(start)) = (&self.mode, item_start) {
            self.item.extend_from_slice(&chunk[start..]);
        }
    }
}
