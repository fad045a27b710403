//! `baton statusline`: the one line Claude Code shows under its prompt (its `statusLine`
//! command), from the session JSON it passes on stdin. The line says which work session this
//! is and where it stands, its context health, what the session and the day cost, how full the
//! context is, and the five-hour and seven-day limits against the time gone in each window.
//!
//! Claude Code runs the command on every update, so it must be cheap and must never blank the
//! line: it answers from the index's tallies and the transcript's unread tail (never a full
//! scan), starts no child process, and keeps the last good line per session in a private cache
//! folder. Invocations for one session compute one at a time (an advisory lock the kernel drops
//! when a process dies); the others, and any that fails, print the last good line marked
//! stale. The exit status is always 0.

use crate::store::Ledger;
use baton_core::Error;
use baton_core::ledger::session::Session;
use baton_core::ledger::store::LedgerView;
use baton_core::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

mod cache;

use cache::*;

/// The segments shown when none are asked for, in order.
pub const DEFAULT_SEGMENTS: &str = "session,health,cost,today,context,limits,share,codex";

/// The most of a transcript's tail read for the context's size.
const TAIL_BYTES: u64 = 256 * 1024;

/// What to show, and how wide.
#[derive(Debug, Clone)]
pub struct Options {
    /// Segment names, in order.
    pub segments: Vec<String>,
    /// The widest the line may be, in characters.
    pub width: usize,
    /// Whether to colour it.
    pub colour: bool,
}

/// The fields of Claude Code's status-line input Baton reads.
#[derive(Debug, Default, Deserialize)]
struct Input {
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    transcript_path: Option<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    workspace: Option<Workspace>,
    #[serde(default)]
    cost: Option<CostInput>,
    #[serde(default)]
    context_window: Option<ContextWindow>,
    #[serde(default)]
    rate_limits: Option<RateLimits>,
}

#[derive(Debug, Default, Deserialize)]
struct Workspace {
    #[serde(default)]
    project_dir: Option<String>,
    #[serde(default)]
    current_dir: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct CostInput {
    #[serde(default)]
    total_cost_usd: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
struct ContextWindow {
    #[serde(default)]
    used_percentage: Option<f64>,
    #[serde(default)]
    context_window_size: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
struct RateLimits {
    #[serde(default)]
    five_hour: Option<Window>,
    #[serde(default)]
    seven_day: Option<Window>,
}

#[derive(Debug, Default, Deserialize)]
struct Window {
    #[serde(default)]
    used_percentage: Option<f64>,
    /// Seconds since the epoch, milliseconds, or an ISO 8601 time.
    #[serde(default)]
    resets_at: Option<serde_json::Value>,
}

/// A running sum over the part of a transcript past the index's cursor, so each computation
/// reads only what was appended since the last.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct TailSum {
    path: String,
    /// The index's cursor the sum starts at.
    from: u64,
    /// Where the sum stops (the end of the last whole line read).
    to: u64,
    /// The day it counts, `YYYY-MM-DD`.
    day: String,
    /// Today's cost of the responses in `from..to`, micro-dollars.
    micro: u64,
}

/// Runs the status line: reads stdin, prints one line, returns the exit status (always 0).
pub fn run(stdin: &str, options: &Options) -> i32 {
    let now = crate::os::system::now().unwrap_or_default();
    let folder = cache_folder();
    let parsed = serde_json::from_str::<Input>(stdin);
    let key = parsed
        .as_ref()
        .ok()
        .and_then(|i| i.session_id.as_deref())
        .map(cache_key);
    let line = match (&parsed, &key, &folder) {
        (Ok(input), Some(key), Some(folder)) => single_flight(folder, key, input, options, now)
            .unwrap_or_else(|err| stale_line(folder, Some(key), &err.message, options)),
        (Ok(input), _, _) => compute(input, options, now, None)
            .map(|(line, _)| line)
            .unwrap_or_else(|err| fallback(&err.message)),
        (Err(err), _, Some(folder)) => stale_line(
            folder,
            None,
            &format!("the input is not Claude Code's status JSON: {err}"),
            options,
        ),
        (Err(err), _, None) => fallback(&format!("the input is not JSON: {err}")),
    };
    crate::os::terminal::print_line(&line);
    0
}

/// A line when there is nothing better: Baton's name and the problem, short.
fn fallback(problem: &str) -> String {
    let mut text = format!("baton: {problem}");
    text.truncate(text.floor_char_boundary(80));
    text
}

/// The project's ledger, when it has one (never made here): `BATON_DIR`, else the nearest
/// `.baton/` at or above the project folder.
fn ledger_of(input: &Input) -> Option<Ledger> {
    if let Some(dir) = crate::os::env::var_os("BATON_DIR").filter(|v| !v.is_empty()) {
        return Some(Ledger::new(PathBuf::from(dir), false));
    }
    let start = crate::os::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            input
                .workspace
                .as_ref()
                .and_then(|w| w.project_dir.clone().or_else(|| w.current_dir.clone()))
                .map(PathBuf::from)
        })
        .or_else(|| input.cwd.clone().map(PathBuf::from))?;
    let dir = crate::store::discover(&start);
    dir.is_dir().then(|| Ledger::new(dir, false))
}

#[derive(Debug, Clone, Copy)]
enum Tone {
    Green,
    Amber,
    Red,
    Dim,
}

fn paint(text: &str, tone: Tone, colour: bool) -> String {
    if !colour {
        return text.to_owned();
    }
    let code = match tone {
        Tone::Green => "32",
        Tone::Amber => "33",
        Tone::Red => "31",
        Tone::Dim => "2",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// Dollars as people read them: `$0.42`, `$12.30`.
fn dollars(value: f64) -> String {
    format!("${value:.2}")
}

/// A reset time as milliseconds since the epoch.
fn reset_millis(value: &serde_json::Value) -> Option<i64> {
    match value {
        serde_json::Value::Number(n) => {
            let n = n.as_f64()?;
            // Seconds until the 2280s; milliseconds after.
            Some(if n < 1e11 {
                (n * 1000.0) as i64
            } else {
                n as i64
            })
        }
        serde_json::Value::String(s) => Timestamp::parse(s).ok().map(Timestamp::millis),
        _ => None,
    }
}

/// `5h 42% (time 60%)`: the share of the window's limit used against the share of the window
/// gone; amber when use runs ahead of time, red above 90 %.
fn window(
    label: &str,
    window: &Window,
    span_ms: i64,
    now: Timestamp,
    colour: bool,
) -> Option<String> {
    let used = window.used_percentage?;
    let elapsed = window
        .resets_at
        .as_ref()
        .and_then(reset_millis)
        .map(|reset| {
            let left = reset.saturating_sub(now.millis()).clamp(0, span_ms);
            100.0 * (span_ms - left) as f64 / span_ms as f64
        });
    let tone = if used >= 90.0 {
        Tone::Red
    } else if elapsed.is_some_and(|e| used > e + 5.0) {
        Tone::Amber
    } else {
        Tone::Green
    };
    let pace = elapsed.map_or_else(String::new, |e| format!(" (time {e:.0}%)"));
    Some(format!(
        "{label} {}{pace}",
        paint(&format!("{used:.0}%"), tone, colour)
    ))
}

/// Claude Code's limits as it reported them, for `usage blocks` to show.
fn claude_limits(
    limits: Option<&RateLimits>,
    now: Timestamp,
) -> Option<baton_core::transcripts::limits::PlanLimits> {
    use baton_core::transcripts::limits::{LimitWindow, PlanLimits};
    let read = |w: Option<&Window>, minutes: u64| {
        let w = w?;
        Some(LimitWindow {
            used_percent: w.used_percentage.filter(|p| p.is_finite() && *p >= 0.0)?,
            window_minutes: Some(minutes),
            resets_at: w
                .resets_at
                .as_ref()
                .and_then(reset_millis)
                .map(Timestamp::from_millis),
        })
    };
    let limits = limits?;
    let primary = read(limits.five_hour.as_ref(), 300);
    let secondary = read(limits.seven_day.as_ref(), 10_080);
    (primary.is_some() || secondary.is_some()).then_some(PlanLimits {
        provider: baton_core::transcripts::Provider::ClaudeCode,
        observed_at: now,
        limit_id: None,
        plan_type: None,
        primary,
        secondary,
    })
}

/// Works the line out; with the segments it has, in order.
fn compute(
    input: &Input,
    options: &Options,
    now: Timestamp,
    previous_tail: Option<TailSum>,
) -> Result<(String, Option<TailSum>), Error> {
    let mut tail = None;
    let ledger = ledger_of(input);
    let session: Option<Session> = match (&ledger, input.session_id.as_deref()) {
        (Some(ledger), Some(id)) => ledger
            .snapshot()?
            .live_sessions()?
            .into_iter()
            .find(|s| s.provider_session_id.as_deref() == Some(id)),
        _ => None,
    };
    let mut segments: Vec<String> = Vec::new();
    for name in &options.segments {
        let segment = match name.as_str() {
            "session" => Some(match &session {
                Some(s) => format!(
                    "{} {}",
                    s.session_id.short(),
                    paint(
                        s.status.as_str(),
                        match s.status.as_str() {
                            "blocked" | "paused" => Tone::Amber,
                            "failed" => Tone::Red,
                            _ => Tone::Green,
                        },
                        options.colour
                    )
                ),
                None => paint("no work session", Tone::Dim, options.colour),
            }),
            "health" => session
                .as_ref()
                .and_then(|s| s.health.as_ref())
                .and_then(|h| {
                    let score = h.overall?;
                    let tone = match score {
                        85.. => Tone::Green,
                        60..=84 => Tone::Amber,
                        _ => Tone::Red,
                    };
                    Some(format!(
                        "health {}",
                        paint(&score.to_string(), tone, options.colour)
                    ))
                }),
            "cost" => input
                .cost
                .as_ref()
                .and_then(|c| c.total_cost_usd)
                .map(|c| format!("{} session", dollars(c)))
                .or_else(|| {
                    session
                        .as_ref()
                        .and_then(|s| s.usage_cost_micro_usd)
                        .map(|m| format!("{} session", dollars(m as f64 / 1e6)))
                }),
            "today" => match &ledger {
                Some(ledger) => {
                    let (cost, sum) = today_cost(
                        ledger,
                        input.transcript_path.as_deref(),
                        now,
                        previous_tail.as_ref(),
                    )?;
                    tail = sum;
                    cost.map(|c| format!("{} today", dollars(c)))
                }
                None => None,
            },
            "context" => context_use(input).map(|pct| {
                let tone = if pct >= 80.0 {
                    Tone::Red
                } else if pct >= 50.0 {
                    Tone::Amber
                } else {
                    Tone::Green
                };
                format!("ctx {}", paint(&format!("{pct:.0}%"), tone, options.colour))
            }),
            "share" => match (&ledger, input.session_id.as_deref()) {
                (Some(ledger), Some(id)) => {
                    let index = crate::index::path_for(ledger.dir());
                    crate::ops::mirror::windows::open_window(&index, None, now)?.and_then(
                        |window| {
                            let share = window.sessions.iter().find(|s| s.key == id)?;
                            Some(format!(
                                "this session {}",
                                paint(
                                    &match share.share_percent {
                                        p if p > 0.0 && p < 0.5 => {
                                            "<1% of the 5h window".to_owned()
                                        }
                                        p => format!("{p:.0}% of the 5h window"),
                                    },
                                    Tone::Dim,
                                    options.colour
                                )
                            ))
                        },
                    )
                }
                _ => None,
            },
            "codex" => {
                let dirs =
                    crate::os::places::provider_dirs(baton_core::transcripts::Provider::Codex);
                crate::ops::limits::codex_latest(&dirs, now).and_then(|limits| {
                    let parts: Vec<String> = limits
                        .windows()
                        .filter_map(|w| {
                            let span = w.window_minutes.map_or(0, |m| m as i64 * 60_000);
                            let reported = Window {
                                used_percentage: Some(w.used_percent),
                                resets_at: w.resets_at.map(|at| at.millis().into()),
                            };
                            window(&w.label(), &reported, span.max(60_000), now, options.colour)
                        })
                        .collect();
                    (!parts.is_empty()).then(|| format!("codex {}", parts.join(" · ")))
                })
            }
            "limits" => {
                let limits = input.rate_limits.as_ref();
                if let Some(reported) = claude_limits(limits, now) {
                    crate::ops::limits::keep_reported(&reported);
                }
                let parts: Vec<String> = [
                    limits
                        .and_then(|r| r.five_hour.as_ref())
                        .and_then(|w| window("5h", w, 5 * 3_600_000, now, options.colour)),
                    limits
                        .and_then(|r| r.seven_day.as_ref())
                        .and_then(|w| window("7d", w, 7 * 86_400_000, now, options.colour)),
                ]
                .into_iter()
                .flatten()
                .collect();
                (!parts.is_empty()).then(|| parts.join(" · "))
            }
            _ => None,
        };
        segments.extend(segment);
    }
    Ok((fit(&segments, options.width), tail))
}

/// The segments joined, dropping whole segments from the end while the line is too wide (the
/// first is cut if it alone is).
fn fit(segments: &[String], width: usize) -> String {
    let visible = |s: &str| strip_ansi(s).chars().count();
    let mut kept: Vec<&String> = segments.iter().collect();
    loop {
        let line = kept
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(" · ");
        if visible(&line) <= width || kept.len() <= 1 {
            if visible(&line) <= width {
                return line;
            }
            let plain: String = strip_ansi(&line)
                .chars()
                .take(width.saturating_sub(1))
                .collect();
            return format!("{plain}…");
        }
        kept.pop();
    }
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// How full the context is: Claude Code's own figure, else the last response's input (with
/// cache reads and writes) in the transcript's tail against the window's size.
fn context_use(input: &Input) -> Option<f64> {
    if let Some(pct) = input
        .context_window
        .as_ref()
        .and_then(|c| c.used_percentage)
    {
        return Some(pct);
    }
    let size = input
        .context_window
        .as_ref()
        .and_then(|c| c.context_window_size)
        .unwrap_or(200_000);
    let path = input.transcript_path.as_deref()?;
    let mut file = crate::os::files::open_regular_io(std::path::Path::new(path)).ok()?;
    let length = file.metadata().ok()?.len();
    let from = length.saturating_sub(TAIL_BYTES);
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut tail = Vec::new();
    file.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let used = tail
        .split(|&b| b == b'\n')
        .rev()
        .filter(|line| line.windows(7).any(|w| w == b"\"usage\""))
        .find_map(|line| {
            let value: serde_json::Value = serde_json::from_slice(line).ok()?;
            if value["isSidechain"].as_bool() == Some(true) {
                return None;
            }
            let usage = &value["message"]["usage"];
            let n = |k: &str| usage[k].as_u64().unwrap_or(0);
            let total = n("input_tokens")
                .saturating_add(n("cache_read_input_tokens"))
                .saturating_add(n("cache_creation_input_tokens"));
            (total > 0).then_some(total)
        })?;
    Some(100.0 * used as f64 / size.max(1) as f64)
}

/// Today's cost: the index's tallies for today (as of its last mirror pass) plus what the
/// current transcript holds past the index's cursor, read on from where the last computation
/// stopped (`previous`); none without an index. With the running sum to keep.
fn today_cost(
    ledger: &Ledger,
    transcript: Option<&str>,
    now: Timestamp,
    previous: Option<&TailSum>,
) -> Result<(Option<f64>, Option<TailSum>), Error> {
    let index = crate::index::path_for(ledger.dir());
    if !index.is_file() {
        return Ok((None, None));
    }
    // A status line cannot wait on a busy index: the last good line is better.
    let connection =
        crate::index::open_existing_waiting(&index, std::time::Duration::from_millis(200))?;
    let zone = crate::os::zone::resolve(None)?;
    let today = baton_core::time::local_date(now, &zone);
    let day = today.format("%Y-%m-%d").to_string();
    let since = baton_core::time::parse_day_in("since", &day, false, &zone)?;
    let options = crate::ops::usage::UsageOptions {
        since: Some(since),
        ..crate::ops::usage::UsageOptions::everything(
            baton_core::transcripts::usage::GroupBy::Daily,
            zone,
        )
    };
    let report = crate::ops::mirror::usage::report(&connection, &index, &options)?;
    let mut total = report.totals.cost_usd;
    let Some(path) = transcript else {
        return Ok((Some(total), None));
    };
    // The transcript's lines the index has not read yet, from where the sum stopped when it
    // still starts at the index's cursor, on the same day.
    let cursor: u64 = connection
        .query_row(
            "SELECT cursor FROM sources WHERE path = ?1",
            [path],
            |row| row.get::<_, i64>(0),
        )
        .map_or(0, |c| c.max(0) as u64);
    let mut sum = match previous {
        Some(p) if p.path == path && p.from == cursor && p.day == day => p.clone(),
        _ => TailSum {
            path: path.to_owned(),
            from: cursor,
            to: cursor,
            day,
            micro: 0,
        },
    };
    // At most 8 MiB a computation: a long unread tail is summed over several.
    if let Ok(mut tail) = crate::ops::usage::claude_tail(path, sum.to, 8 << 20) {
        if tail.size < sum.to {
            // Rewritten: count again from the cursor.
            sum.to = sum.from;
            sum.micro = 0;
            tail = crate::ops::usage::claude_tail(path, sum.to, 8 << 20).unwrap_or_default();
        }
        let fresh: Vec<_> = tail.entries.into_iter().filter(|e| e.at >= since).collect();
        let (_, micro) = baton_core::transcripts::usage::totals_and_cost(
            &fresh,
            &baton_core::transcripts::usage::PriceTable::shipped(),
        );
        sum.micro = sum.micro.saturating_add(micro);
        sum.to = tail.end;
    }
    total += sum.micro as f64 / 1e6;
    Ok((Some(total), Some(sum)))
}
