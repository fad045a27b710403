//! A usage report as CSV (RFC 4180): one row per group, then the totals, with the same
//! figures `baton usage` shows. Cells a spreadsheet would run as a formula are defused.

use crate::transcripts::usage::windows::WindowsReport;
use crate::transcripts::usage::{GroupBy, UsageReport, UsageRow};

/// One CSV cell: quoted when it holds a comma, quote or line break; a leading `=`, `+`, `-`,
/// `@`, tab or carriage return gets a `'` first, so a model or project name taken from a file
/// cannot become a formula.
fn cell(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

impl GroupBy {
    /// What a row's key is, as a column name (`day`, `week`, `model`, …).
    pub fn key_name(self) -> &'static str {
        match self {
            GroupBy::Daily => "day",
            GroupBy::Weekly => "week",
            GroupBy::Monthly => "month",
            GroupBy::Session => "session",
            GroupBy::Model => "model",
            GroupBy::Project => "project",
            GroupBy::Branch => "branch",
            GroupBy::Mission => "mission",
            GroupBy::PullRequest => "pull_request",
            GroupBy::Chain => "chain",
        }
    }
}

impl UsageReport {
    /// The report as CSV text: a header, a line per row, and a last line keyed `total`.
    pub fn to_csv(&self) -> String {
        let key = if self.work_sessions.is_some() {
            "work_session"
        } else {
            self.group_by.key_name()
        };
        let mut out = format!(
            "{key},input_tokens,output_tokens,cache_creation_tokens,cache_read_tokens,total_tokens,cost_usd,models\n"
        );
        let line = |out: &mut String, row: &UsageRow| {
            let t = &row.tokens;
            out.push_str(&format!(
                "{},{},{},{},{},{},{:.6},{}\n",
                cell(&row.key),
                t.input_tokens,
                t.output_tokens,
                t.cache_creation_tokens,
                t.cache_read_tokens,
                row.total_tokens,
                row.cost_usd,
                cell(&row.models.join("; "))
            ));
        };
        for row in &self.rows {
            line(&mut out, row);
        }
        line(&mut out, &self.totals);
        out
    }
}

impl WindowsReport {
    /// The windows as CSV text, oldest first (times in UTC, RFC 3339): a header and a line per
    /// window.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "start,end,active,responses,input_tokens,output_tokens,cache_creation_tokens,cache_read_tokens,total_tokens,cost_usd,tokens_per_hour,usd_per_hour,models\n",
        );
        for w in self.windows.iter().rev() {
            let t = &w.tokens;
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{:.6},{},{:.6},{}\n",
                w.start,
                w.end,
                w.active,
                w.responses,
                t.input_tokens,
                t.output_tokens,
                t.cache_creation_tokens,
                t.cache_read_tokens,
                w.total_tokens,
                w.cost_usd,
                w.burn.tokens_per_hour,
                w.burn.usd_per_hour,
                cell(&w.models.join("; "))
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn cells_are_quoted_and_formulas_defused() {
        assert_eq!(cell("claude-opus-4"), "claude-opus-4");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("-1"), "'-1");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"");
    }
}
