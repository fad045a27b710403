//! Aider's chat history (`.aider.chat.history.md` at a repository's root): Markdown Aider
//! appends to as it works, never rewrites. Each run of Aider opens with `# aider chat started
//! at <local time>` and is one conversation: the person's prompts (every line `#### `), the
//! replies (plain Markdown, written whole after each), and Aider's own notes (`> ` lines: the
//! model announced at the start, edits applied, commits, questions and answers). Lines Aider
//! writes itself end with two spaces, which tells them from a reply's own `####` or `>` lines.
//! After each reply Aider writes `> Tokens: 2.3k sent, 1.1k cache write, 5.6k cache hit, 120
//! received. Cost: $0.01 message, $0.05 session.`: rounded counts (`k` above a thousand) and
//! the cost it computed, which is kept as recorded. The file keeps no time per message, only
//! each run's start, in local time without a zone (read as UTC); a report names no model (the
//! run's announced main model is taken; an architect's editor calls count under it); calls for
//! commit messages and summaries write no report and are not on disk.

mod conversation;
mod usage;

pub use conversation::{AiderReader, AiderState};
pub use usage::{AiderUsage, AiderUsageState};

use crate::tokens::TokenTotals;
use crate::transcripts::Timestamp;

/// A line Aider wrote itself ends with two spaces (a reply's lines keep their own).
fn aider_wrote(line: &str) -> bool {
    line.ends_with("  ")
}

/// The start of a run, from its header line.
pub(crate) fn run_start(line: &str) -> Option<Timestamp> {
    let rest = line.strip_prefix("# aider chat started at ")?.trim();
    let iso = format!("{}T{}Z", rest.get(..10)?, rest.get(11..19)?);
    Timestamp::parse(&iso).ok()
}

/// What one line of the file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Line<'a> {
    /// A run's header, with its start.
    Run(Timestamp),
    /// A line of the person's prompt (its text, trailing spaces off).
    Prompt(&'a str),
    /// One of Aider's notes (`> …`, its text).
    Note(&'a str),
    /// Anything else: a reply's line, a blank, the second line of a note.
    Other(&'a str),
}

/// Reads one line.
pub(crate) fn classify(line: &str) -> Line<'_> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if let Some(start) = run_start(line) {
        return Line::Run(start);
    }
    if let Some(text) = line.strip_prefix("####")
        && aider_wrote(line)
        && (text.is_empty() || text.starts_with(' '))
    {
        let text = text.strip_prefix(' ').unwrap_or(text).trim_end();
        return Line::Prompt(if text == "<blank>" { "" } else { text });
    }
    if let Some(text) = line.strip_prefix('>')
        && (aider_wrote(line) || text.trim_start().starts_with("Tokens: "))
    {
        return Line::Note(text.trim());
    }
    Line::Other(line)
}

/// The model a note announces (`Model: X with …`, `Main model: X with …`, and the older
/// `Models: X with …, weak model Y`).
pub(crate) fn announced_model(note: &str) -> Option<&str> {
    let rest = note
        .strip_prefix("Main model: ")
        .or_else(|| note.strip_prefix("Model: "))
        .or_else(|| note.strip_prefix("Models: "))?;
    let model = rest.split(" with ").next()?.trim();
    (!model.is_empty()).then_some(model)
}

/// A count as Aider rounds it (`2.3k`, `12k`, `1,234`, `999`).
fn count(text: &str) -> Option<u64> {
    let text = text.trim().replace(',', "");
    match text.strip_suffix('k') {
        Some(thousands) => thousands
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| (n * 1000.0).round() as u64),
        None => text.parse().ok(),
    }
}

/// One reply's report, as written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Report {
    pub sent: u64,
    pub cache_write: u64,
    pub cache_hit: u64,
    pub received: u64,
    /// The message's cost, in micro-dollars, when Aider priced it.
    pub cost_micro_usd: Option<u64>,
}

/// Reads a `Tokens: …` note (its `Cost: …` may follow on the next line: `cost_line`).
pub(crate) fn report(note: &str) -> Option<Report> {
    let rest = note.strip_prefix("Tokens: ")?;
    let (tokens, cost) = match rest.split_once(". Cost: ") {
        Some((tokens, cost)) => (tokens, Some(cost)),
        None => (rest.trim_end_matches('.'), None),
    };
    let mut report = Report::default();
    for part in tokens.split(", ") {
        let (number, what) = part.trim().split_once(' ')?;
        let n = count(number)?;
        match what.trim_end_matches('.') {
            "sent" => report.sent = n,
            "cache write" => report.cache_write = n,
            "cache hit" => report.cache_hit = n,
            "received" => report.received = n,
            // The short-lived `cached` of 0.51: read as hits.
            "cached" => report.cache_hit = n,
            _ => {}
        }
    }
    report.cost_micro_usd = cost.and_then(message_cost);
    Some(report)
}

/// The message's cost of `$0.01 message, $0.05 session.` (or the older `request`).
pub(crate) fn message_cost(cost: &str) -> Option<u64> {
    let dollars = cost.trim().strip_prefix("Cost: ").unwrap_or(cost.trim());
    let first = dollars.split(',').next()?.trim();
    let number = first
        .strip_prefix('$')?
        .split_whitespace()
        .next()?
        .parse::<f64>()
        .ok()?;
    (number.is_finite() && number >= 0.0).then(|| (number * 1e6).round() as u64)
}

/// The repository a history file sits in, by its folder's name (what a person calls it, and
/// the same whether a host names the file by its whole path or, as the page, from the folder
/// chosen).
pub(crate) fn project_of(path: &str) -> Option<String> {
    let mut folders = path.rsplit(['/', '\\']).skip(1).filter(|f| !f.is_empty());
    folders
        .next()
        .filter(|f| *f != "." && *f != "..")
        .map(str::to_owned)
}

/// A run's id: its start and its repository (a history has many runs; runs of several
/// repositories may start in the same second).
pub fn run_id(start: Option<Timestamp>, project: Option<&str>) -> String {
    let hash = crate::transcripts::fingerprint(&[project.unwrap_or("").as_bytes()]);
    let when = start.map_or_else(String::new, |t| {
        t.to_string()
            .chars()
            .filter(char::is_ascii_digit)
            .take(14)
            .collect()
    });
    format!("aider-{when}-{:08x}", (hash >> 96) as u32)
}

/// A report's counts in Baton's one meaning: what was sent holds the cache's reads and writes.
pub(crate) fn report_tokens(report: Report) -> TokenTotals {
    TokenTotals {
        input_tokens: report
            .sent
            .saturating_sub(report.cache_write)
            .saturating_sub(report.cache_hit),
        output_tokens: report.received,
        cache_creation_tokens: report.cache_write,
        cache_read_tokens: report.cache_hit,
        reasoning_tokens: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_told_apart_by_what_aider_writes() {
        assert!(matches!(
            classify("# aider chat started at 2026-08-20 09:00:00"),
            Line::Run(_)
        ));
        assert_eq!(classify("#### fix the bug  "), Line::Prompt("fix the bug"));
        assert_eq!(classify("#### <blank>  "), Line::Prompt(""));
        assert_eq!(classify("####   "), Line::Prompt(""));
        // A reply's own heading and quote.
        assert_eq!(classify("#### Steps"), Line::Other("#### Steps"));
        assert_eq!(classify("> a quote"), Line::Other("> a quote"));
        assert_eq!(
            classify("> Applied edit to a.py  "),
            Line::Note("Applied edit to a.py")
        );
        assert_eq!(
            classify("> Tokens: 16k sent, 900 cache write, 11k cache hit, 98 received."),
            Line::Note("Tokens: 16k sent, 900 cache write, 11k cache hit, 98 received.")
        );
        assert_eq!(
            announced_model("Main model: anthropic/claude-sonnet-4-5 with diff edit format"),
            Some("anthropic/claude-sonnet-4-5")
        );
        assert_eq!(
            announced_model(
                "Models: claude-3-5-sonnet-20240620 with diff edit format, weak model x"
            ),
            Some("claude-3-5-sonnet-20240620")
        );
    }

    #[test]
    fn reports_read_as_aider_rounds_them() {
        let r = report("Tokens: 2.3k sent, 1.1k cache write, 5.6k cache hit, 120 received. Cost: $0.01 message, $0.05 session.").unwrap();
        assert_eq!(
            (r.sent, r.cache_write, r.cache_hit, r.received),
            (2300, 1100, 5600, 120)
        );
        assert_eq!(r.cost_micro_usd, Some(10_000));
        let old = report("Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.02 session.")
            .unwrap();
        assert_eq!(
            (old.sent, old.received, old.cost_micro_usd),
            (5244, 604, Some(20_000))
        );
        let unpriced = report("Tokens: 5.2k sent, 88 received.").unwrap();
        assert_eq!((unpriced.sent, unpriced.cost_micro_usd), (5200, None));
        assert_eq!(
            message_cost("Cost: $0.0087 message, $0.02 session.  "),
            Some(8700)
        );
        assert_eq!(report("Tokens: lots sent"), None);
        assert_eq!(count("1235k"), Some(1_235_000));
    }
}
