//! The `usage blocks` report around its windows, whichever way they were made (from the
//! responses read from files or the index, or from the index's sums): what the agents last
//! said of their plans' limits, and the rows by model of the windows kept.

use super::UsageOptions;
use baton_core::transcripts::usage::windows::{Keep, WindowsReport};
use baton_core::transcripts::usage::{GroupBy, ReportOptions, UsageReport, aggregate};
use baton_core::transcripts::{Provider, UsageEntry};

/// The report of `windows`, with rows by model over the windows kept, from `entries` (the
/// responses, or sums of them, in time order).
pub fn report(
    entries: &[UsageEntry],
    mut windows: WindowsReport,
    skipped: std::collections::BTreeMap<String, u64>,
    options: &UsageOptions,
    report_options: &ReportOptions<'_>,
) -> UsageReport {
    let wanted = |p: Provider| options.providers.is_empty() || options.providers.contains(&p);
    let dirs = |p: Provider| options.folders.get(&p).map_or(&[][..], Vec::as_slice);
    windows.agent_limits = crate::ops::limits::agents_latest(
        dirs(Provider::ClaudeCode),
        dirs(Provider::Codex),
        windows.now,
    )
    .into_iter()
    .filter(|limits| wanted(limits.provider))
    .collect();
    // The models and totals of the windows kept.
    let since = match windows.kept {
        Keep::All => report_options.since,
        _ => Some(windows.windows.last().map_or(windows.now, |w| w.start)),
    };
    let mut report = aggregate(
        entries,
        &ReportOptions {
            group_by: GroupBy::Model,
            since: since.max(report_options.since),
            ..*report_options
        },
        skipped,
    );
    report.windows = Some(windows);
    report
}
