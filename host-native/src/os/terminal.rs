//! Text fit for a terminal: what comes from a ledger line, a transcript or a file name shown
//! so that none of it can act on the terminal, and the writers of lines and JSON answers that
//! survive a reader going away.

use serde_json::Value;

/// Text fit for a terminal whatever it holds: control characters (but newline and tab) and
/// invisible or direction-changing characters ([`is_invisible_format`]) from a ledger line, a
/// transcript or a file name are shown as `\u{…}` escapes, so none can move the cursor, write
/// the clipboard (`ESC ] 52`) or reorder what a person reads. Baton's own styles (SGR 0, 1,
/// 2 and 31–33, see `table.rs`) are kept.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    use baton_core::names::is_invisible_format;
    const OWN_COLOURS: [&str; 6] = [
        "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[31m", "\x1b[32m", "\x1b[33m",
    ];
    let unsafe_char =
        |c: char| (c.is_control() && c != '\n' && c != '\t') || is_invisible_format(c);
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some(colour) = OWN_COLOURS.iter().find(|code| rest.starts_with(**code)) {
            out.push_str(colour);
            rest = &rest[colour.len()..];
            continue;
        }
        if unsafe_char(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// Writes a line to stderr, made [`terminal_safe`].
pub fn eprint_line(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{}", terminal_safe(text));
}

/// Writes a line to stdout, made [`terminal_safe`]; a reader that went away (`baton … |
/// head -1`) is not an error and never a panic.
pub fn print_line(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", terminal_safe(text)).and_then(|()| out.flush());
}

/// Writes a JSON answer as one line on stdout. serde_json escapes control characters; the
/// invisible and direction-changing ones are escaped here too (`\u202e`), which leaves the
/// value the same for a program and harmless on a terminal.
pub fn print_json(value: &Value) {
    print_json_text(value.to_string());
}

/// [`print_json`] for an answer already encoded.
pub fn print_json_text(text: String) {
    use baton_core::names::is_invisible_format;
    use std::io::Write;
    // The characters escaped here are all beyond ASCII: most answers are checked at once.
    let text = if !text.is_ascii() && text.chars().any(is_invisible_format) {
        let mut escaped = String::with_capacity(text.len() + 64);
        for c in text.chars() {
            if is_invisible_format(c) {
                escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
            } else {
                escaped.push(c);
            }
        }
        escaped
    } else {
        text
    };
    let mut out = std::io::stdout().lock();
    let _ = out
        .write_all(text.as_bytes())
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
}
