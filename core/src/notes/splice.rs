//! Splicing Baton's parts into a note: a fixed set of frontmatter keys and the regions between
//! `<!-- baton:NAME -->` and `<!-- /baton:NAME -->`. Every other byte is kept as it was: other
//! keys with their order, quoting and comments, a comment after an owned value, the line
//! endings (LF or CRLF), and every word a person wrote above, between or below the regions.
//! Splicing what is already there gives the same bytes back, so a host can tell "nothing to
//! write" and leave the file (and its mtime) alone.

/// What Baton owns in a note, as it should read now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnedParts {
    /// Frontmatter keys, in the order a new note lists them, each with its YAML value text
    /// (see [`yaml_scalar`]).
    pub keys: Vec<(String, String)>,
    /// Regions, in the order a new note holds them, each with its Markdown.
    pub regions: Vec<(String, String)>,
    /// A heading a new note opens with (the person's to change afterwards: not owned).
    pub title: Option<String>,
}

/// An owned key whose value on disk is not the one Baton would write.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct KeyDifference {
    /// The key.
    pub key: String,
    /// Its value text on disk.
    pub on_disk: String,
    /// The value text Baton would write.
    pub wanted: String,
}

/// The note after splicing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spliced {
    /// The whole note.
    pub text: String,
    /// Whether it differs from what was on disk.
    pub changed: bool,
    /// Owned keys a person changed: on disk with a value Baton never wrote there. They are
    /// kept as the person left them (not in `text`'s new values) and a host reports them.
    pub kept: Vec<KeyDifference>,
}

/// Why a note cannot be spliced; such a note is never written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpliceRefusal {
    /// The note opens a frontmatter block (`---`) that never closes.
    UnclosedFrontmatter,
    /// A region's opening marker has no closing one after it.
    UnclosedRegion(String),
}

impl std::fmt::Display for SpliceRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpliceRefusal::UnclosedFrontmatter => {
                f.write_str("its frontmatter opens with --- and never closes")
            }
            SpliceRefusal::UnclosedRegion(name) => write!(
                f,
                "<!-- baton:{name} --> has no <!-- /baton:{name} --> after it"
            ),
        }
    }
}

/// A value as a YAML scalar: plain when it cannot be read as anything else, else in double
/// quotes with `\`, `"` and control characters escaped.
pub fn yaml_scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '@' | '+'))
        && !value.starts_with(['-', '.', '@'])
        && !reads_as_number_or_date(value)
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~" | "y" | "n"
        )
        && value.parse::<f64>().is_err();
    if plain {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What a YAML scalar's text means: the inside of a double-quoted one with its escapes
/// read, of a single-quoted one with `''` read as `'`, else the text itself. Two values mean
/// the same when an editor only re-quoted one (Obsidian's property editor does).
pub fn yaml_meaning(text: &str) -> String {
    let text = text.trim();
    if text.len() >= 2 && text.starts_with('\'') && text.ends_with('\'') {
        return text[1..text.len() - 1].replace("''", "'");
    }
    if !(text.len() >= 2 && text.starts_with('"') && text.ends_with('"')) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text[1..text.len() - 1].chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(c) => out.push(c),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Whether YAML would read `value` as a number in some base or as a date: digits with
/// `_ . + -` only, `0x…`, `0o…`, `0b…`, or `YYYY-M-D` with anything after it.
fn reads_as_number_or_date(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if ["0x", "0o", "0b"].iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | '+' | '-'))
    {
        return true;
    }
    let mut parts = value.splitn(3, '-');
    let (year, month, rest) = (parts.next(), parts.next(), parts.next());
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit())
    };
    match (year, month, rest) {
        (Some(y), Some(m), Some(rest)) => {
            let day: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits(y, 4..=4) && digits(m, 1..=2) && (1..=2).contains(&day.len())
        }
        _ => false,
    }
}

/// One line with its ending (empty for a last line without one).
fn lines_of(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (line, ending, next) = match rest.find('\n') {
            Some(i) if i > 0 && rest.as_bytes()[i - 1] == b'\r' => {
                (&rest[..i - 1], &rest[i - 1..=i], &rest[i + 1..])
            }
            Some(i) => (&rest[..i], &rest[i..=i], &rest[i + 1..]),
            None => (rest, "", ""),
        };
        out.push((line, ending));
        rest = next;
    }
    out
}

/// The value text of a frontmatter line `key: value  # comment`, and the comment part kept
/// as written (with its leading space), for a plain or quoted one-line value.
fn value_and_comment(after_colon: &str) -> (&str, &str) {
    let trimmed = after_colon.trim_start();
    let lead = after_colon.len() - trimmed.len();
    let end = if trimmed.starts_with('"') || trimmed.starts_with('\'') {
        let quote = trimmed.as_bytes()[0];
        let mut i = 1;
        let bytes = trimmed.as_bytes();
        while i < bytes.len() {
            if bytes[i] == b'\\' && quote == b'"' {
                i += 2;
                continue;
            }
            // In single quotes, '' is one quote, not the end.
            if quote == b'\'' && bytes[i] == quote && bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            if bytes[i] == quote {
                i += 1;
                break;
            }
            i += 1;
        }
        i.min(bytes.len())
    } else {
        [" #", "\t#"]
            .iter()
            .filter_map(|c| trimmed.find(c))
            .min()
            .unwrap_or(trimmed.len())
    };
    let value = trimmed[..end].trim_end();
    let comment_from = lead + value.len();
    (value, &after_colon[comment_from..])
}

/// The value of `key` in a note's frontmatter, read as YAML means it (see [`yaml_meaning`]):
/// `None` when the note has no frontmatter or no such key. How a note names its session
/// (`session_id`), whatever its file is called.
pub fn frontmatter_value(note: &str, key: &str) -> Result<Option<String>, SpliceRefusal> {
    let lines = lines_of(note.strip_prefix('\u{feff}').unwrap_or(note));
    if lines.first().is_none_or(|(l, _)| l.trim_end() != "---") {
        return Ok(None);
    }
    let mut found = None;
    for (line, _) in lines.iter().skip(1) {
        if line.trim_end() == "---" {
            return Ok(found);
        }
        if found.is_none()
            && let Some(after) = line.strip_prefix(key).and_then(|r| r.strip_prefix(':'))
        {
            let (value, _) = value_and_comment(after);
            found = Some(yaml_meaning(value));
        }
    }
    // A value in a frontmatter that never closes is not read: the note is broken.
    Err(SpliceRefusal::UnclosedFrontmatter)
}

/// The keys that state what the ledger recorded (which session, its state, when it began and
/// ended, what it cost): a person cannot change those facts by editing a note, so a differing
/// value on disk (an editor re-saving a copy read before the last render, say) is always put
/// right rather than kept as an edit.
pub const LEDGER_FACTS: &[&str] = &[
    "session_id",
    "status",
    "started_at",
    "ended_at",
    "tokens",
    "cost_usd",
    "transcript",
];

/// Splices `owned` into `note` (empty for a note not yet written). `earlier` holds the keys
/// as Baton last wrote them into this note (empty when it has no record): an owned key on disk
/// with that value is only out of date and is replaced; one with a value Baton never wrote is
/// a person's edit, kept and reported in [`Spliced::kept`], unless it is one of the
/// [`LEDGER_FACTS`], which are always put right. A value that means the same as
/// the wanted one but is quoted otherwise is left as it is.
pub fn splice(
    note: &str,
    owned: &OwnedParts,
    earlier: &[(String, String)],
) -> Result<Spliced, SpliceRefusal> {
    // A byte order mark some editors save stays where it is, before everything.
    let (bom, text) = match note.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", note),
    };
    let mut spliced = splice_text(text, owned, earlier)?;
    if !bom.is_empty() {
        spliced.text.insert_str(0, bom);
        spliced.changed = spliced.text != note;
    }
    Ok(spliced)
}

/// Where `marker` stands alone on a line of `body`, from `from` on.
fn marker_line(body: &str, marker: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(found) = body[at..].find(marker) {
        let start = at + found;
        let end = start + marker.len();
        let line_start = start == 0 || body.as_bytes()[start - 1] == b'\n';
        let rest = &body[end..];
        let line_end = rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n");
        if line_start && line_end {
            return Some(start);
        }
        at = end;
    }
    None
}

/// Content as it goes between markers: a marker of Baton's inside it (a goal that quotes
/// one) is written `&lt;!-- …`, which Markdown shows as the same text and no splice reads
/// as a marker.
fn defuse_markers(content: &str) -> String {
    content
        .replace("<!-- baton:", "&lt;!-- baton:")
        .replace("<!-- /baton:", "&lt;!-- /baton:")
}

fn splice_text(
    note: &str,
    owned: &OwnedParts,
    earlier: &[(String, String)],
) -> Result<Spliced, SpliceRefusal> {
    let eol = if note.contains("\r\n") { "\r\n" } else { "\n" };
    let lines = lines_of(note);
    let opens = lines.first().is_some_and(|(l, _)| l.trim_end() == "---");
    let (front, body_from) = if opens {
        let close = lines
            .iter()
            .skip(1)
            .position(|(l, _)| l.trim_end() == "---")
            .ok_or(SpliceRefusal::UnclosedFrontmatter)?
            + 1;
        (Some((1, close)), close + 1)
    } else {
        (None, 0)
    };

    let mut out = String::with_capacity(note.len() + 256);
    let mut kept = Vec::new();
    let mut written: Vec<&str> = Vec::new();
    match front {
        Some((from, close)) => {
            out.push_str(lines[0].0);
            out.push_str(lines[0].1);
            for (line, ending) in &lines[from..close] {
                let owned_key = owned.keys.iter().find(|(key, _)| {
                    line.strip_prefix(key.as_str())
                        .is_some_and(|rest| rest.starts_with(':'))
                });
                match owned_key {
                    Some((key, wanted)) if !written.contains(&key.as_str()) => {
                        let after = &line[key.len() + 1..];
                        let (value, comment) = value_and_comment(after);
                        let meaning = yaml_meaning(value);
                        let out_of_date = LEDGER_FACTS.contains(&key.as_str())
                            || earlier
                                .iter()
                                .any(|(k, v)| k == key && yaml_meaning(v) == meaning);
                        if meaning == yaml_meaning(wanted) {
                            out.push_str(line);
                        } else if out_of_date {
                            out.push_str(&format!("{key}: {wanted}{comment}"));
                        } else {
                            kept.push(KeyDifference {
                                key: key.clone(),
                                on_disk: value.to_owned(),
                                wanted: wanted.clone(),
                            });
                            out.push_str(line);
                        }
                        out.push_str(ending);
                        written.push(key);
                    }
                    _ => {
                        out.push_str(line);
                        out.push_str(ending);
                    }
                }
            }
            // A last frontmatter line without an ending gets one before a new key follows.
            if close > from && lines[close - 1].1.is_empty() {
                out.push_str(eol);
            }
            for (key, wanted) in &owned.keys {
                if !written.contains(&key.as_str()) {
                    out.push_str(&format!("{key}: {wanted}{eol}"));
                }
            }
            out.push_str(lines[close].0);
            out.push_str(if lines[close].1.is_empty() {
                eol
            } else {
                lines[close].1
            });
        }
        None => {
            out.push_str("---");
            out.push_str(eol);
            for (key, wanted) in &owned.keys {
                out.push_str(&format!("{key}: {wanted}{eol}"));
            }
            out.push_str("---");
            out.push_str(eol);
        }
    }

    // The body: each owned region's content replaced in place; a region not there yet is
    // added at the end.
    let mut body: String = lines[body_from.min(lines.len())..]
        .iter()
        .map(|(l, e)| format!("{l}{e}"))
        .collect();
    if note.is_empty()
        && let Some(title) = &owned.title
    {
        body = format!("{eol}# {title}{eol}");
    }
    for (name, content) in &owned.regions {
        let open = format!("<!-- baton:{name} -->");
        let close = format!("<!-- /baton:{name} -->");
        let content = defuse_markers(content.trim_end_matches(['\r', '\n'])).replace("\r\n", "\n");
        let content = if eol == "\r\n" {
            content.replace('\n', "\r\n")
        } else {
            content
        };
        match marker_line(&body, &open, 0) {
            Some(at) => {
                let inner_from = at + open.len();
                let inner_to = marker_line(&body, &close, inner_from)
                    .ok_or_else(|| SpliceRefusal::UnclosedRegion(name.clone()))?;
                let replacement = format!("{eol}{content}{eol}");
                body.replace_range(inner_from..inner_to, &replacement);
            }
            None => {
                if !body.is_empty() && !body.ends_with('\n') {
                    body.push_str(eol);
                }
                if !body.is_empty() {
                    body.push_str(eol);
                }
                body.push_str(&format!("{open}{eol}{content}{eol}{close}{eol}"));
            }
        }
    }
    out.push_str(&body);
    Ok(Spliced {
        changed: out != note,
        text: out,
        kept,
    })
}
