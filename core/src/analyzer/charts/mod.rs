//! Analysis of parsed conversations: the overview figures, activity per day, and the charts a
//! person would rather look at than read. Drawn here as SVG text, to the width they are shown
//! at, with integer arithmetic, so the browser, the CLI and the tests all get the same bytes.

use crate::time::Timestamp;
use crate::transcripts::conversation::Conversation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub mod bars;
pub mod calendar;
pub mod scale;

pub use bars::{Bar, BarChart, MAX_SERIES, bar_chart_svg};
pub use calendar::{MAX_HEATMAP_DAYS, calendar_svg};
pub use scale::Unit;

/// The width charts are drawn at when the host does not say (a wide page column).
pub const DEFAULT_WIDTH: u32 = 960;

/// The headline figures of a set of conversations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Overview {
    /// Conversations.
    pub conversations: u64,
    /// Messages, branches included.
    pub messages: u64,
    /// Conversations per provider.
    pub providers: BTreeMap<String, u64>,
    /// Messages per model.
    pub models: BTreeMap<String, u64>,
    /// First message time.
    pub first_at: Option<Timestamp>,
    /// Last message time.
    pub last_at: Option<Timestamp>,
    /// Messages per UTC day (`YYYY-MM-DD`).
    pub messages_per_day: BTreeMap<String, u64>,
    /// How many conversations have 1, 2–3, 4–7, 8–15, … messages (powers of two).
    pub length_buckets: BTreeMap<u32, u64>,
}

fn day(at: Timestamp) -> String {
    at.to_string()[..10].to_owned()
}

/// Summarizes conversations.
pub fn overview(conversations: &[Conversation]) -> Overview {
    let mut o = Overview::default();
    for c in conversations {
        o.conversations += 1;
        let provider = serde_json::to_value(c.provider)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        *o.providers.entry(provider).or_default() += 1;
        let n = c.messages.len() as u64;
        o.messages += n;
        let bucket = if n == 0 { 0 } else { 64 - n.leading_zeros() };
        *o.length_buckets.entry(bucket).or_default() += 1;
        for m in &c.messages {
            if let Some(model) = &m.model {
                *o.models.entry(model.clone()).or_default() += 1;
            }
            if let Some(at) = m.at {
                *o.messages_per_day.entry(day(at)).or_default() += 1;
            }
        }
        if let Some((first, last)) = c.message_span() {
            o.first_at = Some(o.first_at.map_or(first, |f| f.min(first)));
            o.last_at = Some(o.last_at.map_or(last, |l| l.max(last)));
        }
    }
    o
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A period key as an axis label: `2026-03-14` → `Mar 14`, `2026-03` → `Mar 2026`.
pub fn period_label(key: &str) -> String {
    let month = key
        .get(5..7)
        .and_then(|m| m.parse::<usize>().ok())
        .and_then(|m| MONTHS.get(m.wrapping_sub(1)));
    match (month, key.len()) {
        (Some(month), 10) => format!("{month} {}", key[8..].trim_start_matches('0')),
        (Some(month), 7) => format!("{month} {}", &key[..4]),
        _ => key.to_owned(),
    }
}

/// A bar chart of conversation lengths (messages, in powers of two).
pub fn length_histogram_svg(buckets: &BTreeMap<u32, u64>, width: u32) -> String {
    let bars = buckets
        .iter()
        .map(|(bucket, count)| {
            let label = match bucket {
                0 => "0".to_owned(),
                1 => "1".to_owned(),
                b => format!("{}–{}", 1u64 << (b - 1), (1u64 << b) - 1),
            };
            Bar {
                key: format!("{label} messages"),
                label,
                parts: BTreeMap::from([("conversations".to_owned(), *count)]),
            }
        })
        .collect();
    bar_chart_svg(
        &BarChart {
            bars,
            unit: Unit::Count,
            noun: "conversations",
            title: "conversations by length in messages",
        },
        width,
    )
}

/// Groups dated values by series into periods: days when everything falls within about three
/// months, else months (`YYYY-MM-DD` or `YYYY-MM` keys).
pub(crate) fn by_period(
    dated: &[(Timestamp, &str, u64)],
) -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    let (Some(first), Some(last)) = (
        dated.iter().map(|d| d.0).min(),
        dated.iter().map(|d| d.0).max(),
    ) else {
        return out;
    };
    let by_day = last.millis() - first.millis() <= 92 * 86_400_000;
    let width = if by_day { 10 } else { 7 };
    // Every period between the first and the last gets a bar, empty ones too, so the axis
    // keeps time (up to about twenty years of months; a wilder range keeps only its periods).
    if by_day {
        let (from, to) = (
            first.millis().div_euclid(86_400_000),
            last.millis().div_euclid(86_400_000),
        );
        for d in from..=to {
            out.entry(Timestamp::from_millis(d * 86_400_000).to_string()[..10].to_owned())
                .or_default();
        }
    } else if let (Some(from), Some(to)) = (month_number(first), month_number(last))
        && to - from <= 240
    {
        for m in from..=to {
            out.entry(format!("{:04}-{:02}", m / 12, m % 12 + 1))
                .or_default();
        }
    }
    for (at, label, n) in dated {
        let key = at.to_string()[..width].to_owned();
        let slot = out
            .entry(key)
            .or_default()
            .entry((*label).to_owned())
            .or_default();
        *slot = slot.saturating_add(*n);
    }
    out
}

/// Months since year 0 of an instant's `YYYY-MM`.
fn month_number(at: Timestamp) -> Option<i64> {
    let key = at.month_key();
    let (year, month) = key.split_once('-')?;
    Some(year.parse::<i64>().ok()? * 12 + month.parse::<i64>().ok()? - 1)
}

/// Values per period and series (from [`by_period`]) as stacked bars, one per period.
pub(crate) fn over_time_svg(
    series: BTreeMap<String, BTreeMap<String, u64>>,
    unit: Unit,
    noun: &str,
    title: &str,
    width: u32,
) -> String {
    let bars = series
        .into_iter()
        .map(|(key, parts)| Bar {
            label: period_label(&key),
            key,
            parts,
        })
        .collect();
    bar_chart_svg(
        &BarChart {
            bars,
            unit,
            noun,
            title,
        },
        width,
    )
}
