//! The usage report as a table a person reads on a terminal: one row per group, the totals
//! last, thousands separated, the models no price was known for or priced through an alias,
//! and where the cost and the days come from.

use crate::transcripts::usage::{CostMode, UsageReport};

/// A table a person can read.
pub fn render_table(report: &UsageReport) -> String {
    let n = |v: u64| {
        let s = v.to_string();
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let header = format!(
        "{:<26} {:>14} {:>12} {:>14} {:>16} {:>12} {:>16} {:>10}  models",
        format!("{:?}", report.group_by).to_lowercase(),
        "input",
        "output",
        "cache create",
        "cache read",
        "reasoning",
        "total",
        "cost USD"
    );
    let mut out = format!(
        "[ok] Usage by {}: {} row(s)\n{header}",
        format!("{:?}", report.group_by).to_lowercase(),
        report.rows.len()
    );
    for row in report.rows.iter().chain(std::iter::once(&report.totals)) {
        out.push_str(&format!(
            "\n{:<26} {:>14} {:>12} {:>14} {:>16} {:>12} {:>16} {:>10.2}  {}",
            row.key.chars().take(26).collect::<String>(),
            n(row.tokens.input_tokens),
            n(row.tokens.output_tokens),
            n(row.tokens.cache_creation_tokens),
            n(row.tokens.cache_read_tokens),
            n(row.tokens.reasoning_tokens),
            n(row.total_tokens),
            row.cost_usd,
            row.models.join(", ")
        ));
    }
    if !report.unpriced_models.is_empty() {
        out.push_str(&format!(
            "\nno price for: {} (counted as $0; give prices with --prices FILE)",
            report.unpriced_models.join(", ")
        ));
    }
    for source in &report.missing_sources {
        out.push_str(&format!("\nnot counted: {}", source.describe()));
    }
    for (model, key) in &report.priced_as {
        out.push_str(&format!("\n{model} priced as {key}"));
    }
    let dated = if report.prices.date.is_empty() {
        String::new()
    } else {
        format!(" of {}", report.prices.date)
    };
    let how = match report.cost_mode {
        CostMode::Auto => "recorded costs where lines have them, else the price table",
        CostMode::Calculate => "the price table",
        CostMode::Display => "recorded costs only",
    };
    out.push_str(&format!(
        "\ncost: {how}{}; days in {}",
        if report.cost_mode == CostMode::Display {
            String::new()
        } else {
            dated
        },
        report.timezone
    ));
    out
}
