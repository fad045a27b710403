//! A JSON line walked in place, for readers that want a handful of fields out of long lines:
//! values nobody asked for are stepped over (checked as strictly as `serde_json` checks what it
//! ignores), the fields asked for are read without building a document, and anything this
//! walker is not sure of answers [`Unsure`], so the caller asks `serde_json` instead.
//!
//! The contract that makes it safe to put in front of `serde_json`: when a walk succeeds,
//! `serde_json` would have read the same line without error and to the same values. A walk
//! may give up where `serde_json` would succeed (an escape in a key, a deep nesting, a number
//! that is not a plain integer where one is asked): that costs time, never an answer.

use std::borrow::Cow;

/// The walker cannot vouch for this line: ask `serde_json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsure;

/// A walk's result.
pub type Walked<T> = Result<T, Unsure>;

/// Deeper nestings than this in a value stepped over are left to `serde_json`.
const MAX_DEPTH: u32 = 128;

/// A position in a JSON text.
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, at: 0 }
    }

    /// Skips JSON whitespace and answers the next byte, if any.
    pub fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes.get(self.at) {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    /// Skips whitespace and takes `byte`.
    fn expect(&mut self, byte: u8) -> Walked<()> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// Nothing but whitespace is left.
    pub fn end(&mut self) -> Walked<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Unsure),
        }
    }

    /// Walks an object, handing each key (its bytes, valid UTF-8 without escapes) to `field`,
    /// which must take the key's value.
    pub fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, &'a [u8]) -> Walked<()>,
    ) -> Walked<()> {
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.expect(b'"')?;
            let key = self.plain_string_body()?;
            self.expect(b':')?;
            field(self, key)?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(Unsure),
            }
        }
    }

    /// Walks an object of a struct's fields: `names` are the fields read (by their place in
    /// it, handed to `field`, which must take the value), others are stepped over, and a field
    /// given twice (an error to `serde_json`) gives up.
    pub fn fields(
        &mut self,
        names: &[&[u8]],
        mut field: impl FnMut(&mut Self, usize) -> Walked<()>,
    ) -> Walked<()> {
        let mut seen = 0u64;
        self.object(|c, key| {
            let Some(at) = names.iter().position(|name| *name == key) else {
                return c.skip();
            };
            if seen & (1 << at) != 0 {
                return Err(Unsure);
            }
            seen |= 1 << at;
            field(c, at)
        })
    }

    /// `null` (taken: true) or something else (left where it is: false).
    pub fn null(&mut self) -> Walked<bool> {
        if self.peek() != Some(b'n') {
            return Ok(false);
        }
        self.literal(b"null")?;
        Ok(true)
    }

    fn literal(&mut self, word: &[u8]) -> Walked<()> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// A string or `null`; a string's simple escapes are undone (a `\u` escape is left to
    /// `serde_json`).
    pub fn string(&mut self) -> Walked<Option<Cow<'a, str>>> {
        if self.null()? {
            return Ok(None);
        }
        self.expect(b'"')?;
        let start = self.at;
        self.at += special_at(&self.bytes[start..]);
        match self.bytes.get(self.at) {
            Some(b'"') => {
                let text = std::str::from_utf8(&self.bytes[start..self.at]).map_err(|_| Unsure)?;
                self.at += 1;
                Ok(Some(Cow::Borrowed(text)))
            }
            Some(b'\\') => self.escaped_string(start).map(|s| Some(Cow::Owned(s))),
            _ => Err(Unsure),
        }
    }

    /// The rest of a string holding escapes, from `start` (just after its opening quote).
    fn escaped_string(&mut self, start: usize) -> Walked<String> {
        let mut out = Vec::with_capacity(self.at - start + 16);
        let mut from = start;
        loop {
            self.at += special_at(&self.bytes[self.at..]);
            out.extend_from_slice(&self.bytes[from..self.at]);
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return String::from_utf8(out).map_err(|_| Unsure);
                }
                Some(b'\\') => {
                    let plain = match self.bytes.get(self.at + 1) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'n') => b'\n',
                        Some(b'r') => b'\r',
                        Some(b't') => b'\t',
                        _ => return Err(Unsure),
                    };
                    out.push(plain);
                    self.at += 2;
                    from = self.at;
                }
                _ => return Err(Unsure),
            }
        }
    }

    /// A string's body after its opening quote, without escapes, as valid UTF-8 bytes.
    fn plain_string_body(&mut self) -> Walked<&'a [u8]> {
        let start = self.at;
        self.at += special_at(&self.bytes[start..]);
        if self.bytes.get(self.at) != Some(&b'"') {
            return Err(Unsure);
        }
        let body = &self.bytes[start..self.at];
        self.at += 1;
        if !body.is_ascii() {
            std::str::from_utf8(body).map_err(|_| Unsure)?;
        }
        Ok(body)
    }

    /// `true`, `false` or `null`.
    pub fn bool(&mut self) -> Walked<Option<bool>> {
        match self.peek() {
            Some(b't') => self.literal(b"true").map(|_| Some(true)),
            Some(b'f') => self.literal(b"false").map(|_| Some(false)),
            Some(b'n') => self.literal(b"null").map(|_| None),
            _ => Err(Unsure),
        }
    }

    /// A plain non-negative integer that fits in 64 bits, or `null`.
    pub fn u64(&mut self) -> Walked<Option<u64>> {
        if self.null()? {
            return Ok(None);
        }
        let start = self.at;
        let mut n: u64 = 0;
        while let Some(&b @ b'0'..=b'9') = self.bytes.get(self.at) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(b - b'0')))
                .ok_or(Unsure)?;
            self.at += 1;
        }
        let digits = self.at - start;
        let leading_zero = digits > 1 && self.bytes[start] == b'0';
        let fraction = matches!(self.bytes.get(self.at), Some(b'.' | b'e' | b'E'));
        if digits == 0 || leading_zero || fraction {
            return Err(Unsure);
        }
        Ok(Some(n))
    }

    /// Steps over one value of any kind, checking it as `serde_json` checks a value it ignores.
    pub fn skip(&mut self) -> Walked<()> {
        // One bit per open container: set for an object.
        let mut frames: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            // A value.
            match self.peek().ok_or(Unsure)? {
                b'"' => {
                    self.at += 1;
                    self.skip_string_body()?;
                }
                b'n' => self.literal(b"null")?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'-' | b'0'..=b'9' => self.skip_number()?,
                open @ (b'[' | b'{') => {
                    self.at += 1;
                    if depth == MAX_DEPTH {
                        return Err(Unsure);
                    }
                    frames = (frames << 1) | u128::from(open == b'{');
                    depth += 1;
                    // An empty container closes at once; else its first member follows.
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                        frames >>= 1;
                        depth -= 1;
                    } else {
                        if open == b'{' {
                            self.key()?;
                        }
                        continue;
                    }
                }
                _ => return Err(Unsure),
            }
            // After a value: the next member, or the end of containers.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                let in_object = frames & 1 == 1;
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if in_object {
                            self.key()?;
                        }
                        break;
                    }
                    Some(b'}') if in_object => {}
                    Some(b']') if !in_object => {}
                    _ => return Err(Unsure),
                }
                self.at += 1;
                frames >>= 1;
                depth -= 1;
            }
        }
    }

    /// An object's key stepped over, and its colon.
    fn key(&mut self) -> Walked<()> {
        self.expect(b'"')?;
        self.skip_string_body()?;
        self.expect(b':')
    }

    /// A string's body after its opening quote, checked as `serde_json` checks one it
    /// ignores: no control characters, escapes well formed (UTF-8 is not checked).
    fn skip_string_body(&mut self) -> Walked<()> {
        loop {
            self.at += special_at(&self.bytes[self.at..]);
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.bytes.get(self.at + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.at += 2,
                    Some(b'u') => {
                        let hex = self.bytes.get(self.at + 2..self.at + 6).ok_or(Unsure)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(Unsure);
                        }
                        self.at += 6;
                    }
                    _ => return Err(Unsure),
                },
                _ => return Err(Unsure),
            }
        }
    }

    /// A number, by JSON's grammar.
    fn skip_number(&mut self) -> Walked<()> {
        let digits = |c: &mut Self| {
            let start = c.at;
            while c.bytes.get(c.at).is_some_and(u8::is_ascii_digit) {
                c.at += 1;
            }
            c.at - start
        };
        if self.bytes.get(self.at) == Some(&b'-') {
            self.at += 1;
        }
        match self.bytes.get(self.at) {
            Some(b'0') => {
                self.at += 1;
                if self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                    return Err(Unsure);
                }
            }
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(Unsure),
        }
        if self.bytes.get(self.at) == Some(&b'.') {
            self.at += 1;
            if digits(self) == 0 {
                return Err(Unsure);
            }
        }
        if matches!(self.bytes.get(self.at), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.bytes.get(self.at), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if digits(self) == 0 {
                return Err(Unsure);
            }
        }
        Ok(())
    }
}

/// Where the first quote, backslash or control character of `bytes` is (`bytes.len()` when
/// there is none): eight bytes at a time.
fn special_at(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let control = v.wrapping_sub(ONES * 0x20) & !v;
        let q = v ^ (ONES * u64::from(b'"'));
        let quote = q.wrapping_sub(ONES) & !q;
        let s = v ^ (ONES * u64::from(b'\\'));
        let slash = s.wrapping_sub(ONES) & !s;
        let found = (control | quote | slash) & HIGH;
        if found != 0 {
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    at + chunks
        .remainder()
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .unwrap_or(chunks.remainder().len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn skips(text: &[u8]) -> bool {
        let mut c = Cursor::new(text);
        c.skip().and_then(|_| c.end()).is_ok()
    }

    fn serde_takes(text: &[u8]) -> bool {
        serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok()
    }

    #[test]
    fn what_it_steps_over_serde_takes() {
        for text in [
            &br#"{"a":[1,2.5,-0,1e9,-1.5E-3,true,false,null,"x\n\u00e9"],"b":{}}"#[..],
            br#"  [ { "k" : [ ] } , "" ]  "#,
            br#""plain""#,
            br#"0"#,
        ] {
            assert!(skips(text), "{}", String::from_utf8_lossy(text));
            assert!(serde_takes(text));
        }
    }

    #[test]
    fn what_serde_refuses_it_refuses() {
        for text in [
            &br#"{"a":01}"#[..],
            br#"{"a":1.}"#,
            br#"{"a":1e}"#,
            br#"{"a":-}"#,
            br#"{"a":"\x"}"#,
            br#"{"a":"\u12g4"}"#,
            b"{\"a\":\"tab\there\"}",
            br#"{"a":1,}"#,
            br#"[1,]"#,
            br#"{"a" 1}"#,
            br#"{a:1}"#,
            br#"{"a":tru}"#,
            br#"{"a":[1}"#,
            br#"{"a":1}}"#,
            br#"{"a":1} x"#,
            br#"{"a":"#,
            br#""#,
        ] {
            assert!(!skips(text), "{}", String::from_utf8_lossy(text));
            assert!(!serde_takes(text));
        }
    }

    #[test]
    fn special_bytes_are_found_wherever_they_are() {
        for len in 0..40 {
            for at in 0..len {
                for special in [b'"', b'\\', 0x00, 0x1f] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = special;
                    if at + 1 < len {
                        bytes[at + 1] = 0xff;
                    }
                    assert_eq!(special_at(&bytes), at);
                }
            }
            assert_eq!(special_at(&vec![0x7f; len]), len);
            assert_eq!(special_at(&vec![0xe9; len]), len);
        }
    }

    #[test]
    fn strings_and_numbers_read_as_serde_reads_them() {
        let mut c = Cursor::new(b"\"a\\\"b\\\\c\\/d\\n\\t\" \"caf\xc3\xa9\" null 42 0 null");
        assert_eq!(c.string().unwrap().as_deref(), Some("a\"b\\c/d\n\t"));
        assert_eq!(c.string().unwrap().as_deref(), Some("café"));
        assert_eq!(c.string().unwrap(), None);
        assert_eq!(c.u64().unwrap(), Some(42));
        assert_eq!(c.u64().unwrap(), Some(0));
        assert_eq!(c.u64().unwrap(), None);
        for text in [&br#""\u00e9""#[..], b"\"\xff\"", b"7", b"\"tab\there\""] {
            assert_eq!(Cursor::new(text).string(), Err(Unsure));
        }
        for number in [
            &b"-1"[..],
            b"1.0",
            b"1e3",
            b"007",
            b"18446744073709551616",
            b"\"1\"",
        ] {
            assert_eq!(Cursor::new(number).u64(), Err(Unsure));
        }
        assert_eq!(
            Cursor::new(b"18446744073709551615").u64(),
            Ok(Some(u64::MAX))
        );
    }

    /// JSON-ish texts: valid ones, and the same with bytes changed, cut or doubled.
    fn texts() -> impl Strategy<Value = Vec<u8>> {
        let leaf = prop_oneof![
            Just("null".to_string()),
            Just("true".to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(|f| f.to_string()),
            "[ -~é\\t\\n\"\\\\]{0,12}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        ];
        let value = leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(("[a-z\"\\\\]{0,4}", inner), 0..5).prop_map(|v| {
                    let members: Vec<String> = v
                        .into_iter()
                        .map(|(k, v)| format!("{}:{v}", serde_json::to_string(&k).unwrap()))
                        .collect();
                    format!("{{{}}}", members.join(" , "))
                }),
            ]
        });
        (value, any::<u16>(), any::<u8>(), 0u8..4).prop_map(|(text, at, byte, how)| {
            let mut bytes = text.into_bytes();
            let at = usize::from(at) % (bytes.len() + 1);
            match how {
                0 => {}
                1 => bytes.insert(at, byte),
                2 => bytes.truncate(at),
                _ if at < bytes.len() => {
                    let pick = b"{}[]\",:\\0-.e";
                    bytes[at] = pick[usize::from(byte) % pick.len()];
                }
                _ => {}
            }
            bytes
        })
    }

    proptest! {
        #[test]
        fn it_steps_over_exactly_what_serde_takes(text in texts()) {
            // Deep texts aside (given up on), the two agree both ways.
            prop_assert_eq!(skips(&text), serde_takes(&text), "{}", String::from_utf8_lossy(&text));
        }
    }
}
