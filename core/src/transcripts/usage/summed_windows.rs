//! Windows made from sums a host added up ahead (an index's 15-minute tallies) rather than from
//! every response: a window's start, end, responses, tokens and cost need only which hours
//! were used and what each hour used, since windows open on the hour and last whole hours. What
//! sums cannot tell — a window's first and last response, its last hour, when it reached a
//! limit, who used it — the host answers for just the windows that need it, through
//! [`Responses`]. The result equals [`super::windows::windows`] over every response.

use super::windows::{Piece, WindowOptions, WindowsReport, fill, keeps};
use super::{ReportOptions, costs_of};
use crate::ledger::session::Session;
use crate::time::Timestamp;
use crate::transcripts::UsageEntry;

/// A first and a last instant.
type Span = (Timestamp, Timestamp);

/// Responses added up ahead: every one in one hour, of one provider, model and price tier.
#[derive(Debug, Clone, PartialEq)]
pub struct Sum {
    /// The sum (its tokens, its recorded cost when each response recorded one, the context
    /// that sets its price tier); `at` is any instant of the hour its responses were in (a
    /// tally's slot start), and its `session` is not read.
    pub entry: UsageEntry,
    /// How many responses it adds up.
    pub responses: u64,
}

impl Sum {
    /// A sum of no response at `at` (of Claude Code, by no model): it costs nothing and adds
    /// nothing, but a window opens at its hour as at a response's, so a host that sums only
    /// recent use can still place the windows as all use would.
    pub fn nothing_at(at: Timestamp) -> Self {
        Sum {
            entry: UsageEntry {
                provider: crate::transcripts::Provider::ClaudeCode,
                at,
                session: std::sync::Arc::from(""),
                project: None,
                model: None,
                tokens: Default::default(),
                cache_creation_1h_tokens: 0,
                request_context_tokens: None,
                recorded_cost_micro_usd: None,
                fast: false,
                web_searches: 0,
                delegated: false,
            },
            responses: 0,
        }
    }

    /// A sum of one response.
    pub fn one(entry: UsageEntry) -> Self {
        Sum {
            entry,
            responses: 1,
        }
    }

    /// Adds `other` (of the same provider, model and price tier) into this sum.
    pub fn add(&mut self, other: &Sum) {
        let entry = &mut self.entry;
        entry.tokens.add(&other.entry.tokens);
        entry.cache_creation_1h_tokens += other.entry.cache_creation_1h_tokens;
        entry.web_searches += other.entry.web_searches;
        entry.recorded_cost_micro_usd = entry
            .recorded_cost_micro_usd
            .zip(other.entry.recorded_cost_micro_usd)
            .map(|(a, b)| a + b);
        self.responses += other.responses;
    }
}

/// What only the responses themselves can tell, asked of the host for a few windows.
pub trait Responses {
    /// Why the host could not answer.
    type Error;
    /// The first and last counted response in `[start, end)` of the providers asked for.
    fn bounds(
        &mut self,
        start: Timestamp,
        end: Timestamp,
    ) -> Result<Option<(Timestamp, Timestamp)>, Self::Error>;
    /// Every counted response in `[start, end)` of the providers asked for, in time order,
    /// each with its session and its session's project.
    fn within(&mut self, start: Timestamp, end: Timestamp) -> Result<Vec<UsageEntry>, Self::Error>;
}

/// The windows from sums alone (in time order): starts, ends, gaps, responses, tokens, cost
/// and models exact; first and last responses, burn rates, the last hour, limit times and
/// shares only as exact as the sums. Enough for a budget, which reads a window's cost.
pub fn rough(sums: &[Sum], report: &ReportOptions<'_>, options: &WindowOptions) -> WindowsReport {
    let admitted: Vec<&Sum> = sums.iter().filter(|s| report.admits(&s.entry)).collect();
    let costs = costs_of(
        admitted.iter().map(|s| &s.entry),
        report.prices,
        report.cost_mode,
    );
    fill(&pieces_of(&admitted, &costs), options, None)
}

/// The windows from sums (in time order), exact: each window kept that is open at `now`,
/// reaches the token limit, or is split by session is made from its responses; every other
/// window kept asks only for its first and last response.
pub fn windows_from_sums<R: Responses>(
    sums: &[Sum],
    report: &ReportOptions<'_>,
    options: &WindowOptions,
    sessions: Option<(&[Session], Option<&str>)>,
    responses: &mut R,
) -> Result<WindowsReport, R::Error> {
    let admitted: Vec<&Sum> = sums.iter().filter(|s| report.admits(&s.entry)).collect();
    let costs = costs_of(
        admitted.iter().map(|s| &s.entry),
        report.prices,
        report.cost_mode,
    );
    // Every window, roughly: where each starts and ends, and its totals.
    let draft = fill(
        &pieces_of(&admitted, &costs),
        &WindowOptions {
            keep: super::windows::Keep::All,
            by_session: false,
            ..*options
        },
        None,
    );
    let clamp = |start: Timestamp, end: Timestamp| {
        let start = report.since.map_or(start, |s| start.max(s));
        let end = report
            .until
            .map_or(end, |u| end.min(Timestamp::from_millis(u.millis() + 1)));
        (start, end)
    };
    // What each window kept needs beyond its sums, oldest first as the sums come: its
    // responses (`None`), or its first and last response.
    let mut exact: Vec<UsageEntry> = Vec::new();
    let mut plans: Vec<(Timestamp, Timestamp, Option<Span>)> = Vec::new();
    for w in draft.windows.iter().rev() {
        if !keeps(options.keep, w, options.now) {
            continue;
        }
        let reaches_limit = draft
            .token_limit
            .is_some_and(|limit| w.total_tokens >= limit);
        let (start, end) = clamp(w.start, w.end);
        if w.active || reaches_limit || options.by_session {
            exact.extend(
                responses
                    .within(start, end)?
                    .into_iter()
                    .filter(|e| report.admits(e)),
            );
            plans.push((w.start, w.end, None));
        } else if let Some(found) = responses.bounds(start, end)? {
            plans.push((w.start, w.end, Some(found)));
        }
    }
    let exact_costs = costs_of(exact.iter(), report.prices, report.cost_mode);
    let mut pieces: Vec<Piece<'_>> = Vec::with_capacity(admitted.len() + exact.len());
    let mut exact_at = exact.iter().zip(exact_costs).peekable();
    // Sums and plans both come in time order: one walk pairs them.
    let mut plan = plans.iter().peekable();
    for (sum, &cost) in admitted.iter().zip(&costs) {
        let at = sum.entry.at;
        while plan.next_if(|(_, end, _)| *end <= at).is_some() {}
        let here = plan.peek().filter(|(start, _, _)| *start <= at);
        let mut piece = Piece {
            entry: &sum.entry,
            responses: sum.responses,
            first_at: at,
            last_at: at,
            cost,
        };
        match here {
            Some((_, end, None)) => {
                // The window's responses go in its place, once.
                while let Some((entry, cost)) = exact_at.next_if(|(e, _)| e.at < *end) {
                    pieces.push(Piece::one(entry, cost));
                }
                continue;
            }
            Some((_, _, Some((first, last)))) => {
                piece.first_at = *first;
                piece.last_at = *last;
            }
            None => {}
        }
        pieces.push(piece);
    }
    pieces.extend(exact_at.map(|(entry, cost)| Piece::one(entry, cost)));
    Ok(fill(&pieces, options, sessions))
}

/// Each sum as it stands (its first and last response taken as its own time), with its cost.
fn pieces_of<'s>(sums: &[&'s Sum], costs: &[u128]) -> Vec<Piece<'s>> {
    sums.iter()
        .zip(costs)
        .map(|(s, &cost)| Piece {
            entry: &s.entry,
            responses: s.responses,
            first_at: s.entry.at,
            last_at: s.entry.at,
            cost,
        })
        .collect()
}

#[cfg(test)]
#[path = "summed_windows_tests.rs"]
mod tests;
