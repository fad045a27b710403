//! Usage windows: the spans a plan's limits are metered in. A window opens at the hour of the
//! first response after the previous window closed and lasts a fixed length (five hours, or
//! seven days for the weekly view); the next response at or after its end opens the next one.
//! For each window: its tokens and cost, its burn rate, and for the window still open at `now`
//! the projected total at its end and when a token limit runs out at this pace; who used it
//! (work sessions, else agent sessions); and the idle time before it. Integer arithmetic, as
//! the rest of the usage reports.

use super::prices::FEMTO_PER_MICRO;
use super::work::Linker;
use super::{ReportOptions, costs_of};
use crate::ids::SessionId;
use crate::ledger::session::Session;
use crate::time::Timestamp;
use crate::tokens::TokenTotals;
use crate::transcripts::{Provider, UsageEntry};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One hour, in milliseconds.
pub const HOUR_MS: i64 = 3_600_000;
/// The five-hour window Claude and Codex plans meter.
pub const FIVE_HOURS_MS: i64 = 5 * HOUR_MS;
/// The seven-day window both also meter.
pub const SEVEN_DAYS_MS: i64 = 7 * 24 * HOUR_MS;
/// The shortest span a burn rate is taken over: a window one minute old would otherwise
/// promise a thousand times its use.
pub const MIN_RATE_SPAN_MS: i64 = 5 * 60_000;

/// A token limit to measure windows against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    /// This many tokens.
    Tokens(u64),
    /// The most any window that has ended used.
    HighestPast,
}

/// How windows are made.
#[derive(Debug, Clone, Copy)]
pub struct WindowOptions {
    /// How long a window lasts, in milliseconds.
    pub length_ms: i64,
    /// The instant the report is made at: the window holding it is the active one.
    pub now: Timestamp,
    /// The limit projections run out against, when one is asked for.
    pub token_limit: Option<TokenLimit>,
    /// Whether each window says who used it.
    pub by_session: bool,
    /// Which windows the report keeps (every window is worked out: each opens where the one
    /// before it closed).
    pub keep: Keep,
}

/// Which windows a report keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "only")]
pub enum Keep {
    /// Every one.
    All,
    /// Those still open at this instant or later (and opened by `now`).
    EndingAfter {
        /// The instant.
        at: Timestamp,
    },
    /// The one open now.
    Active,
}

/// Usage by window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WindowsReport {
    /// How long each window lasts, in minutes.
    pub length_minutes: u64,
    /// When the report was made.
    pub now: Timestamp,
    /// The token limit windows are measured against, when one was asked for and is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_limit: Option<u64>,
    /// Where the limit asked for comes from: `given`, or `highest_past_window` (then
    /// `token_limit` is absent while no window has ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_limit_source: Option<String>,
    /// Which windows were kept.
    pub kept: Keep,
    /// The windows, the latest (the active one, when there is one) first.
    pub windows: Vec<UsageWindow>,
    /// What the agents themselves last said of their plans' limits (filled by the host that
    /// looked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agent_limits: Vec<crate::transcripts::limits::PlanLimits>,
}

impl WindowsReport {
    /// The window open at the report's `now`, if any.
    pub fn active(&self) -> Option<&UsageWindow> {
        self.windows.iter().find(|w| w.active)
    }
}

/// One window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UsageWindow {
    /// When it opened: the hour of its first response.
    pub start: Timestamp,
    /// When it closes (or closed): `start` plus the length.
    pub end: Timestamp,
    /// Its first response.
    pub first_at: Timestamp,
    /// Its last response.
    pub last_at: Timestamp,
    /// Whether `now` falls inside it.
    pub active: bool,
    /// Idle time between the previous window's end and this one's start, in minutes (absent
    /// for the first window and for a window that opened as the previous one closed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_before_minutes: Option<u64>,
    /// Counted responses.
    pub responses: u64,
    /// Its tokens.
    #[serde(flatten)]
    pub tokens: TokenTotals,
    /// input + output + cache creation + cache read.
    pub total_tokens: u64,
    /// Its cost in US dollars.
    pub cost_usd: f64,
    /// Models used in it.
    pub models: Vec<String>,
    /// How fast it was used.
    pub burn: BurnRate,
    /// The active window at its end, at its pace so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub projection: Option<Projection>,
    /// The window against the token limit, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<LimitState>,
    /// Who used it, the largest share first (with `by_session`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<WindowShare>,
    #[serde(skip)]
    cost_femto: u128,
}

/// Tokens and dollars per hour.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BurnRate {
    /// Tokens per hour from the window's first response to now (the active window) or to its
    /// last response, over at least five minutes.
    pub tokens_per_hour: u64,
    /// Dollars per hour over the same span.
    pub usd_per_hour: f64,
    /// The active window: tokens used in the hour before now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hour_tokens: Option<u64>,
    /// The active window: dollars spent in the hour before now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_hour_usd: Option<f64>,
}

/// Where the active window ends up at its pace so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Projection {
    /// Tokens at the window's end.
    pub total_tokens: u64,
    /// Dollars at the window's end.
    pub cost_usd: f64,
    /// Minutes left in the window.
    pub minutes_left: u64,
}

/// A window against the token limit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LimitState {
    /// The limit, in tokens.
    pub limit_tokens: u64,
    /// The share of it used, in percent (above 100 when it was passed).
    pub used_percent: f64,
    /// When the window's use reached the limit, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reached_at: Option<Timestamp>,
    /// The active window, not at the limit yet: when it reaches it at this pace, if that is
    /// before the window ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_out_at: Option<Timestamp>,
}

/// Whose use a share is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ShareOf {
    /// A work session of the ledger.
    WorkSession,
    /// An agent session no work session links.
    AgentSession,
}

/// One user's part of a window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WindowShare {
    /// A work session or an agent session.
    pub of: ShareOf,
    /// The work session's path, or the agent's session id.
    pub key: String,
    /// The work session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<SessionId>,
    /// The agent (an agent session's, or the first a work session's responses came from).
    pub provider: Provider,
    /// Counted responses.
    pub responses: u64,
    /// Tokens (input + output + cache creation + cache read).
    pub total_tokens: u64,
    /// Dollars.
    pub cost_usd: f64,
    /// Its part of the window's cost, in percent (of its tokens when the window cost nothing).
    pub share_percent: f64,
    #[serde(skip)]
    cost_femto: u128,
}

/// A window being filled.
struct Open {
    window: UsageWindow,
    models: BTreeSet<String>,
    /// Running totals at each response (time, tokens so far), for when a limit was reached.
    steps: Vec<(Timestamp, u64)>,
    /// Tokens and cost in the hour before now.
    last_hour: (u64, u128),
    shares: BTreeMap<String, WindowShare>,
}

fn usd(femto: u128) -> f64 {
    (femto / FEMTO_PER_MICRO) as f64 / 1_000_000.0
}

/// `amount` per hour over `span_ms`.
fn per_hour(amount: u128, span_ms: i64) -> u128 {
    let span = u128::try_from(span_ms.max(MIN_RATE_SPAN_MS)).unwrap_or(1);
    amount * u128::try_from(HOUR_MS).unwrap_or(1) / span
}

fn percent(part: u128, whole: u128) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    // Hundredths of a percent, rounded half up.
    let hundredths = (part * 20_000 / whole).div_ceil(2);
    hundredths as f64 / 100.0
}

/// The hour `at` falls in (UTC).
fn hour_of(at: Timestamp) -> Timestamp {
    Timestamp::from_millis(at.millis().div_euclid(HOUR_MS) * HOUR_MS)
}

/// The entries (in time order; within the options' days and providers) in windows, the latest
/// first. With `sessions`, a window's use goes to the work session each response belongs to
/// (by the rules of [`super::work`]), else to its agent session; `root` is the ledger's
/// project folder.
pub fn windows(
    entries: &[UsageEntry],
    report: &ReportOptions<'_>,
    options: &WindowOptions,
    sessions: Option<(&[Session], Option<&str>)>,
) -> WindowsReport {
    let admitted: Vec<&UsageEntry> = entries.iter().filter(|e| report.admits(e)).collect();
    let costs = costs_of(admitted.iter().copied(), report.prices, report.cost_mode);
    let pieces: Vec<Piece<'_>> = admitted
        .into_iter()
        .zip(costs)
        .map(|(entry, cost)| Piece::one(entry, cost))
        .collect();
    fill(&pieces, options, sessions)
}

/// Use placed in a window: one response, or a sum of several a host added up ahead (all in
/// one hour: see [`super::summed_windows`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Piece<'e> {
    /// The response, or the sum (its `at` in the hour its responses were in).
    pub(super) entry: &'e UsageEntry,
    /// How many responses it holds.
    pub(super) responses: u64,
    /// Its first response.
    pub(super) first_at: Timestamp,
    /// Its last response.
    pub(super) last_at: Timestamp,
    /// Its cost, in femto-dollars.
    pub(super) cost: u128,
}

impl<'e> Piece<'e> {
    /// One response.
    pub(super) fn one(entry: &'e UsageEntry, cost: u128) -> Self {
        Piece {
            entry,
            responses: 1,
            first_at: entry.at,
            last_at: entry.at,
            cost,
        }
    }

    fn exact(&self) -> bool {
        self.responses == 1 && self.first_at == self.last_at
    }
}

/// Where a window opens and closes as times come in order: the one rule of the schedule.
#[derive(Debug, Default)]
struct Schedule {
    length_ms: i64,
    current: Option<(Timestamp, Timestamp)>,
}

impl Schedule {
    fn new(length_ms: i64) -> Self {
        Schedule {
            length_ms: length_ms.max(HOUR_MS),
            current: None,
        }
    }

    /// The window `at` (no earlier than any time placed before) falls in, and whether it
    /// opened with it.
    fn place(&mut self, at: Timestamp) -> ((Timestamp, Timestamp), bool) {
        match self.current {
            Some(span) if at < span.1 => (span, false),
            _ => {
                let start = hour_of(at);
                let span = (
                    start,
                    Timestamp::from_millis(start.millis() + self.length_ms),
                );
                self.current = Some(span);
                (span, true)
            }
        }
    }
}

/// Whether a report keeping `keep` keeps the window `w` at `now`.
pub(super) fn keeps(keep: Keep, w: &UsageWindow, now: Timestamp) -> bool {
    match keep {
        Keep::All => true,
        Keep::EndingAfter { at } => w.end > at && w.start <= now,
        Keep::Active => w.active,
    }
}

/// The pieces (in time order, each admitted) in windows: see [`windows`].
pub(super) fn fill(
    pieces: &[Piece<'_>],
    options: &WindowOptions,
    sessions: Option<(&[Session], Option<&str>)>,
) -> WindowsReport {
    let length = options.length_ms.max(HOUR_MS);
    let linker = sessions.map(|(list, root)| (list, Linker::new(list, root)));
    let mut schedule = Schedule::new(length);
    let mut done: Vec<Open> = Vec::new();
    let mut open: Option<Open> = None;
    for piece in pieces {
        let cost = piece.cost;
        let entry = piece.entry;
        let ((start, end), opened) = schedule.place(piece.first_at);
        if opened {
            done.extend(open.take());
        }
        let current = open.get_or_insert_with(|| Open {
            window: UsageWindow {
                start,
                end,
                first_at: piece.first_at,
                last_at: piece.last_at,
                active: false,
                gap_before_minutes: None,
                responses: 0,
                tokens: TokenTotals::default(),
                total_tokens: 0,
                cost_usd: 0.0,
                models: Vec::new(),
                burn: BurnRate::default(),
                projection: None,
                limit: None,
                sessions: Vec::new(),
                cost_femto: 0,
            },
            models: BTreeSet::new(),
            steps: Vec::new(),
            last_hour: (0, 0),
            shares: BTreeMap::new(),
        });
        let w = &mut current.window;
        w.first_at = w.first_at.min(piece.first_at);
        w.last_at = w.last_at.max(piece.last_at);
        w.responses += piece.responses;
        w.tokens.add(&entry.tokens);
        w.total_tokens = w.tokens.total();
        w.cost_femto = w.cost_femto.saturating_add(cost);
        current.steps.push((piece.last_at, w.total_tokens));
        let model = entry.model.as_deref().unwrap_or("unknown");
        if !current.models.contains(model) {
            current.models.insert(model.to_owned());
        }
        if piece.exact()
            && entry.at > Timestamp::from_millis(options.now.millis() - HOUR_MS)
            && entry.at <= options.now
        {
            current.last_hour.0 += entry.tokens.total();
            current.last_hour.1 = current.last_hour.1.saturating_add(cost);
        }
        if options.by_session && piece.exact() {
            let linked = linker
                .as_ref()
                .and_then(|(list, linker)| linker.link(entry).map(|(i, _)| &list[i]));
            let (of, key, session_id) = match linked {
                Some(session) => (
                    ShareOf::WorkSession,
                    session.path.clone(),
                    Some(session.session_id),
                ),
                None => (ShareOf::AgentSession, entry.session.to_string(), None),
            };
            let share = current
                .shares
                .entry(key.clone())
                .or_insert_with(|| WindowShare {
                    of,
                    key,
                    session_id,
                    provider: entry.provider,
                    responses: 0,
                    total_tokens: 0,
                    cost_usd: 0.0,
                    share_percent: 0.0,
                    cost_femto: 0,
                });
            share.responses += 1;
            share.total_tokens += entry.tokens.total();
            share.cost_femto = share.cost_femto.saturating_add(cost);
        }
    }
    done.extend(open);
    // The limit the windows are measured against.
    let (token_limit, token_limit_source) = match options.token_limit {
        Some(TokenLimit::Tokens(n)) => (Some(n), Some("given")),
        Some(TokenLimit::HighestPast) => (
            done.iter()
                .filter(|o| o.window.end <= options.now)
                .map(|o| o.window.total_tokens)
                .max()
                .filter(|&n| n > 0),
            Some("highest_past_window"),
        ),
        None => (None, None),
    };
    let mut previous_end: Option<Timestamp> = None;
    let mut sealed: Vec<UsageWindow> = Vec::with_capacity(done.len());
    for open in done {
        let mut w = seal(open, options, token_limit);
        w.gap_before_minutes = previous_end
            .filter(|&end| w.start > end)
            .map(|end| u64::try_from((w.start.millis() - end.millis()) / 60_000).unwrap_or(0));
        previous_end = Some(w.end);
        sealed.push(w);
    }
    sealed.retain(|w| keeps(options.keep, w, options.now));
    sealed.reverse();
    WindowsReport {
        length_minutes: u64::try_from(length / 60_000).unwrap_or(0),
        now: options.now,
        token_limit,
        token_limit_source: token_limit_source.map(str::to_owned),
        kept: options.keep,
        windows: sealed,
        agent_limits: Vec::new(),
    }
}

/// A filled window with its rates, projection, limit and shares worked out.
fn seal(open: Open, options: &WindowOptions, token_limit: Option<u64>) -> UsageWindow {
    let Open {
        mut window,
        models,
        steps,
        last_hour,
        shares,
    } = open;
    let now = options.now;
    window.active = window.start <= now && now < window.end;
    window.cost_usd = usd(window.cost_femto);
    window.models = models.into_iter().collect();
    let until = if window.active { now } else { window.last_at };
    let span = until.millis() - window.first_at.millis();
    let tokens = u128::from(window.total_tokens);
    let token_rate = per_hour(tokens, span);
    let cost_rate = per_hour(window.cost_femto, span);
    window.burn = BurnRate {
        tokens_per_hour: u64::try_from(token_rate).unwrap_or(u64::MAX),
        usd_per_hour: usd(cost_rate),
        last_hour_tokens: window.active.then_some(last_hour.0),
        last_hour_usd: window.active.then(|| usd(last_hour.1)),
    };
    let left_ms = (window.end.millis() - now.millis()).max(0);
    let left = u128::try_from(left_ms).unwrap_or(0);
    let hour = u128::try_from(HOUR_MS).unwrap_or(1);
    if window.active {
        window.projection = Some(Projection {
            total_tokens: u64::try_from(tokens + token_rate * left / hour).unwrap_or(u64::MAX),
            cost_usd: usd(window.cost_femto + cost_rate * left / hour),
            minutes_left: u64::try_from(left_ms / 60_000).unwrap_or(0),
        });
    }
    window.limit = token_limit.map(|limit| {
        let reached_at = steps
            .iter()
            .find(|(_, total)| *total >= limit)
            .map(|(at, _)| *at);
        let runs_out_at = (window.active && reached_at.is_none() && token_rate > 0)
            .then(|| {
                let needed = u128::from(limit - window.total_tokens);
                // Rounded up to the millisecond: the limit is not reached before it.
                let ms = (needed * hour).div_ceil(token_rate);
                i64::try_from(ms)
                    .ok()
                    .map(|ms| Timestamp::from_millis(now.millis().saturating_add(ms)))
            })
            .flatten()
            .filter(|&at| at < window.end);
        LimitState {
            limit_tokens: limit,
            used_percent: percent(tokens, u128::from(limit)),
            reached_at,
            runs_out_at,
        }
    });
    let by_cost = window.cost_femto > 0;
    let mut shares: Vec<WindowShare> = shares
        .into_values()
        .map(|mut share| {
            share.cost_usd = usd(share.cost_femto);
            share.share_percent = if by_cost {
                percent(share.cost_femto, window.cost_femto)
            } else {
                percent(u128::from(share.total_tokens), tokens)
            };
            share
        })
        .collect();
    shares.sort_by(|a, b| {
        b.cost_femto
            .cmp(&a.cost_femto)
            .then(b.total_tokens.cmp(&a.total_tokens))
            .then_with(|| a.key.cmp(&b.key))
    });
    window.sessions = shares;
    window
}

#[cfg(test)]
#[path = "windows_tests.rs"]
mod tests;
