//! What a person reads of an analysis on a terminal: a line per file, the overview, and the
//! listed conversations. `baton analyze` prints these; any host may.

use crate::analyzer::{AnalysisOverview, ConversationList, FileSummary};
use crate::commands::render::error_line;
use crate::error::Error;

/// The line for one file: what it was and what it held (`shown` is how the host names it).
pub fn file_line(shown: &str, summary: &FileSummary) -> String {
    format!(
        "[ok] {shown}: {}{}, {} conversation(s), {} message(s){}",
        summary.format.as_str(),
        summary
            .archive
            .as_ref()
            .map(|a| format!(" in a {a} archive"))
            .unwrap_or_default(),
        summary.conversations,
        summary.messages,
        if summary.stats.malformed > 0 {
            format!(", {} unreadable record(s) skipped", summary.stats.malformed)
        } else {
            String::new()
        }
    )
}

/// The line for a file that could not be read.
pub fn file_error_line(shown: &str, error: &Error) -> String {
    error_line(error).replacen("[error] ", &format!("[error] {shown}: "), 1)
}

/// The overview: files, conversations and their span, tokens and cost, models, sessions.
pub fn overview_lines(overview: &AnalysisOverview) -> Vec<String> {
    let o = &overview.figures;
    let mut lines = vec![format!(
        "{} file(s): {} conversation(s), {} message(s){}",
        overview.files,
        o.conversations,
        o.messages,
        match (o.first_at, o.last_at) {
            (Some(a), Some(b)) =>
                format!(" from {} to {}", &a.to_string()[..10], &b.to_string()[..10]),
            _ => String::new(),
        }
    )];
    if let Some(usage) = &overview.usage {
        lines.push(format!(
            "Tokens: {} (input {}, output {}, cache read {}, cache write {}); estimated cost ${:.2}",
            usage.total_tokens,
            usage.tokens.input_tokens,
            usage.tokens.output_tokens,
            usage.tokens.cache_read_tokens,
            usage.tokens.cache_creation_tokens,
            usage.cost_usd
        ));
    }
    if !o.models.is_empty() {
        let mut models: Vec<(&String, &u64)> = o.models.iter().collect();
        models.sort_by(|a, b| b.1.cmp(a.1));
        lines.push(format!(
            "Models: {}",
            models
                .iter()
                .take(8)
                .map(|(m, n)| format!("{m} ({n})"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if overview.sessions > 0 {
        lines.push(format!("Work sessions in ledgers: {}", overview.sessions));
    }
    lines
}

/// The listed conversations under a heading that says what was searched for.
pub fn list_lines(list: &ConversationList, search: Option<&str>) -> Vec<String> {
    let mut lines = vec![format!(
        "{} conversation(s){}:",
        list.total,
        search.map(|s| format!(" match {s:?}")).unwrap_or_default()
    )];
    for row in &list.rows {
        lines.push(format!(
            "  #{:<5} {}  {}  ({} messages){}",
            row.head.index,
            row.head
                .updated_at
                .or(row.head.started_at)
                .map(|t| t.to_string()[..10].to_owned())
                .unwrap_or_else(|| "----------".into()),
            row.head.title,
            row.messages,
            row.snippet
                .as_ref()
                .map(|s| format!("\n         {s}"))
                .unwrap_or_default()
        ));
    }
    lines
}
