//! A search hit's snippet: the text a person reads around a match (escapes, tags and the
//! index's spacing taken out), cut to a width and centred on the match, with where each match
//! is, so a terminal can mark it and JSON can say it.

use crate::transcripts::search::is_cjk;

/// An excerpt of a hit, centred on what matched, with where the matches are.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Snippet {
    /// The excerpt: one line, escapes, tags and spacing the index added taken out, `…` where
    /// it was cut.
    pub text: String,
    /// Each match inside `text`, as `[start, end)` in characters (Unicode scalar values).
    pub highlights: Vec<(usize, usize)>,
}

/// Text as a person reads it in a snippet: the spaces the index set around CJK characters
/// taken out again, JSON escapes (`\n`, `\t`, `\"`) read, markup tags (`<system-reminder>`,
/// `</command-name>`) dropped, every run of whitespace one space.
pub fn readable(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // ` 東 ` as the index writes it: the character alone.
        if c == ' '
            && chars.get(i + 1).is_some_and(|n| is_cjk(*n))
            && chars.get(i + 2) == Some(&' ')
        {
            out.push(chars[i + 1]);
            i += 3;
            continue;
        }
        if c == '\\' {
            match chars.get(i + 1) {
                Some('n' | 't' | 'r') => {
                    out.push(' ');
                    i += 2;
                    continue;
                }
                Some('"') => {
                    out.push('"');
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        if c == '<' {
            // A tag: `<name …>` or `</name>`, a letter first; its content is kept.
            let start = i + 1 + usize::from(chars.get(i + 1) == Some(&'/'));
            if chars.get(start).is_some_and(char::is_ascii_alphabetic) {
                let end = chars[start..]
                    .iter()
                    .take(200)
                    .position(|c| *c == '>' || *c == '<' || *c == '\n');
                if let Some(end) = end.filter(|e| chars[start + e] == '>') {
                    let name_ok = chars[start..start + end]
                        .iter()
                        .take_while(|c| !c.is_whitespace())
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'));
                    if name_ok {
                        out.push(' ');
                        i = start + end + 1;
                        continue;
                    }
                }
            }
        }
        out.push(if c.is_whitespace() { ' ' } else { c });
        i += 1;
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The excerpt of `text` a hit shows, at most `width` characters: centred on the first of
/// `needles` it holds (the whole phrase before single words; a whole word before a part of
/// one), every needle inside it highlighted. The start of the text when none is there.
pub fn snippet_of(text: &str, needles: &[String], width: usize) -> Snippet {
    let flat = readable(text);
    let chars: Vec<char> = flat.chars().collect();
    // Lower-casing can change lengths: positions are found on a per-character lower-case.
    let lower: Vec<char> = chars
        .iter()
        .map(|c| c.to_lowercase().next().unwrap_or(*c))
        .collect();
    // A needle ending in `*` is a prefix: whole where a word begins with it.
    let prefixes: std::collections::HashSet<Vec<char>> = needles
        .iter()
        .filter_map(|n| n.strip_suffix('*').filter(|stem| !stem.is_empty()))
        .map(|stem| readable(stem).to_lowercase().chars().collect())
        .collect();
    let occurrences = |needle: &[char], whole: bool| -> Vec<usize> {
        if needle.is_empty() || needle.len() > lower.len() {
            return Vec::new();
        }
        let prefix = prefixes.contains(needle);
        (0..=lower.len() - needle.len())
            .filter(|&i| {
                lower[i..i + needle.len()] == needle[..]
                    && (!whole
                        || ((i == 0 || !lower[i - 1].is_alphanumeric())
                            && (prefix
                                || lower
                                    .get(i + needle.len())
                                    .is_none_or(|c| !c.is_alphanumeric()))))
            })
            .collect()
    };
    let needles: Vec<Vec<char>> = needles
        .iter()
        .map(|n| {
            let n: &str = n
                .strip_suffix('*')
                .filter(|stem| !stem.is_empty())
                .unwrap_or(n);
            readable(n).to_lowercase().chars().collect()
        })
        .collect();
    let first = needles
        .iter()
        .find_map(|n| occurrences(n, true).first().map(|at| (*at, n.len())))
        .or_else(|| {
            needles
                .iter()
                .find_map(|n| occurrences(n, false).first().map(|at| (*at, n.len())))
        });
    let width = width.max(16);
    let (start, end) = match first {
        None => (0, chars.len().min(width)),
        Some((at, len)) => {
            let room = width.saturating_sub(len) / 2;
            let start = at
                .saturating_sub(room)
                .min(chars.len().saturating_sub(width));
            (start, (start + width).min(chars.len()))
        }
    };
    // The cut marks take a character each.
    let lead = usize::from(start > 0);
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    text.extend(&chars[start..end]);
    if end < chars.len() {
        text.push('…');
    }
    let mut highlights: Vec<(usize, usize)> = Vec::new();
    // Whole words are marked (`server`, not the start of `servers`); parts of words only
    // when no needle is there whole.
    let whole = needles.iter().any(|n| {
        occurrences(n, true)
            .iter()
            .any(|&at| at >= start && at + n.len() <= end)
    });
    for needle in &needles {
        for at in occurrences(needle, whole) {
            let (from, to) = (at, at + needle.len());
            if from < start || to > end {
                continue;
            }
            let span = (from - start + lead, to - start + lead);
            if !highlights.iter().any(|h| h.0 < span.1 && span.0 < h.1) {
                highlights.push(span);
            }
        }
    }
    highlights.sort_unstable();
    Snippet { text, highlights }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_is_marked_where_a_word_begins_with_it() {
        let cut = snippet_of(
            "the parser and a timeout in sparse code",
            &["pars*".to_owned(), "timeout".into()],
            80,
        );
        let marked: Vec<String> = cut
            .highlights
            .iter()
            .map(|(a, b)| cut.text.chars().skip(*a).take(b - a).collect())
            .collect();
        assert_eq!(marked, ["pars", "timeout"]);
    }

    #[test]
    fn snippets_centre_on_the_phrase_and_say_where_it_is() {
        let text = format!(
            "{} TypeError: client.generate is not a function\\n    at Object.<anonymous> (src/api.ts:12) {}",
            "word ".repeat(60),
            "tail ".repeat(60)
        );
        let words = vec!["generate is not a function".to_owned(), "generate".into()];
        let cut = snippet_of(&text, &words, 60);
        assert!(cut.text.chars().count() <= 62, "{}", cut.text);
        assert!(
            cut.text.contains("generate is not a function"),
            "{}",
            cut.text
        );
        assert!(!cut.text.contains("\\n"), "escapes read: {}", cut.text);
        let (from, to) = cut.highlights[0];
        let marked: String = cut.text.chars().skip(from).take(to - from).collect();
        assert_eq!(marked.to_lowercase(), "generate is not a function");
        // Tags out, CJK as written.
        let tagged = snippet_of(
            "<system-reminder>keep</system-reminder> 東  京 で会議",
            &["keep".into()],
            80,
        );
        assert_eq!(tagged.text, "keep 東京で会議");
        assert_eq!(tagged.highlights, vec![(0, 4)]);
        // Not there: the start, nothing marked.
        let none = snippet_of("short text", &["zzz".into()], 40);
        assert_eq!(
            (none.text.as_str(), none.highlights.len()),
            ("short text", 0)
        );
    }
}
