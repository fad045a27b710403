//! Analysis of parsed conversations: the overview figures, activity per day, and the charts a
//! person would rather look at than read — drawn here, as SVG text, with integer arithmetic,
//! so the browser, the CLI and the tests all get the same bytes.

use crate::time::Timestamp;
use crate::transcripts::conversation::Conversation;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The headline figures of a set of conversations.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` key.
fn day_number(key: &str) -> Option<i64> {
    Timestamp::parse(&format!("{key}T00:00:00.000Z"))
        .ok()
        .map(|t| t.millis().div_euclid(86_400_000))
}

/// The most days a heatmap draws (about ten years).
pub const MAX_HEATMAP_DAYS: i64 = 3660;

/// A calendar heatmap of messages per day: one column per week (Monday first), one square per
/// day, five shades by quartile of the busiest day.
pub fn calendar_heatmap_svg(per_day: &BTreeMap<String, u64>) -> String {
    let days: Vec<(i64, u64, &str)> = per_day
        .iter()
        .filter_map(|(k, v)| day_number(k).map(|d| (d, *v, k.as_str())))
        .collect();
    let (Some(first), Some(last)) = (days.first(), days.last()) else {
        return r#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" role="img" aria-label="no activity"></svg>"#.to_owned();
    };
    // 1970-01-01 was a Thursday: weekday 0 = Monday.
    let weekday = |d: i64| (d + 3).rem_euclid(7);
    let first_drawn = first.0.max(last.0 - MAX_HEATMAP_DAYS);
    let start = first_drawn - weekday(first_drawn);
    let weeks = (last.0 - start) / 7 + 1;
    let max = days.iter().map(|d| d.1).max().unwrap_or(1).max(1);
    let (cell, gap) = (12i64, 2i64);
    let width = weeks * (cell + gap) + gap;
    let height = 7 * (cell + gap) + gap;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="messages per day from {} to {}">"#,
        first.2, last.2
    );
    const SHADES: [&str; 5] = ["#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39"];
    // Every day in the range gets a square, quiet days in the lightest shade. At most the
    // last ten years are drawn, so a nonsense timestamp cannot blow the chart up.
    let counts: BTreeMap<i64, (u64, &str)> = days.iter().map(|(d, c, k)| (*d, (*c, *k))).collect();
    let from = first.0.max(last.0 - MAX_HEATMAP_DAYS);
    let all: Vec<(i64, u64, String)> = (from..=last.0)
        .map(|d| match counts.get(&d) {
            Some((c, k)) => (d, *c, (*k).to_owned()),
            None => (
                d,
                0,
                crate::time::Timestamp::from_millis(d * 86_400_000).to_string()[..10].to_owned(),
            ),
        })
        .collect();
    for (d, count, key) in &all {
        let week = (d - start) / 7;
        let shade = if *count == 0 {
            0
        } else {
            1 + ((count * 4 - 1) / max).min(3) as usize
        };
        let _ = write!(
            svg,
            r#"<rect x="{}" y="{}" width="{cell}" height="{cell}" rx="2" fill="{}"><title>{}: {} message(s)</title></rect>"#,
            gap + week * (cell + gap),
            gap + weekday(*d) * (cell + gap),
            SHADES[shade],
            escape(key),
            count
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A bar chart of conversation lengths (messages, in powers of two).
pub fn length_histogram_svg(buckets: &BTreeMap<u32, u64>) -> String {
    let max = buckets.values().copied().max().unwrap_or(1).max(1);
    let (bar, gap, height) = (28i64, 6i64, 120i64);
    let width = buckets.len() as i64 * (bar + gap) + gap;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" viewBox="0 0 {width} {}" role="img" aria-label="conversation length distribution">"#,
        height + 20,
        height + 20
    );
    for (i, (bucket, count)) in buckets.iter().enumerate() {
        let h = (*count as i64 * height / max as i64).max(1);
        let x = gap + i as i64 * (bar + gap);
        let label = match bucket {
            0 => "0".to_owned(),
            1 => "1".to_owned(),
            b => format!("{}–{}", 1u64 << (b - 1), (1u64 << b) - 1),
        };
        let _ = write!(
            svg,
            "<rect x=\"{x}\" y=\"{}\" width=\"{bar}\" height=\"{h}\" fill=\"#0a5dc2\"><title>{label} messages: {count} conversation(s)</title></rect><text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{label}</text>",
            height - h,
            x + bar / 2,
            height + 14
        );
    }
    svg.push_str("</svg>");
    svg
}

/// Groups dated counts by label into periods: days when everything falls within about three
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

/// How many series a stacked chart names; the rest are drawn together as "other".
pub const MAX_SERIES: usize = 8;

/// A stacked bar chart: one bar per period, one colour per label (the largest
/// [`MAX_SERIES`] by total, the rest as "other"), a legend, and a tooltip on every segment.
pub(crate) fn stacked_bars_svg(
    series: &BTreeMap<String, BTreeMap<String, u64>>,
    unit: &str,
) -> String {
    const COLOURS: [&str; MAX_SERIES + 1] = [
        "#0a5dc2", "#e36209", "#1a7f37", "#8250df", "#cf222e", "#9a6700", "#1b7c83", "#bf3989",
        "#6e7781",
    ];
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for labels in series.values() {
        for (label, n) in labels {
            let total = totals.entry(label).or_default();
            *total = total.saturating_add(*n);
        }
    }
    let mut ranked: Vec<(&str, u64)> = totals.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<&str> = ranked.iter().take(MAX_SERIES).map(|r| r.0).collect();
    let has_other = ranked.len() > MAX_SERIES;
    let slot = |label: &str| named.iter().position(|n| *n == label).unwrap_or(MAX_SERIES);
    let max = series
        .values()
        .map(|l| l.values().fold(0u64, |sum, n| sum.saturating_add(*n)))
        .max()
        .unwrap_or(0)
        .max(1);
    let (bar, gap, plot) = (14i64, 4i64, 140i64);
    let left = 56i64;
    let legend_rows = (named.len() + usize::from(has_other)) as i64;
    let width = (left + series.len() as i64 * (bar + gap) + gap).max(320);
    let labels = 56i64;
    let height = plot + labels + legend_rows * 16 + 8;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{} per model over time">"#,
        escape(unit)
    );
    let _ = write!(
        svg,
        r##"<text x="{}" y="10" font-size="9" text-anchor="end" fill="#57606a">{max}</text><text x="{}" y="{plot}" font-size="9" text-anchor="end" fill="#57606a">0</text><line x1="{left}" y1="{plot}" x2="{width}" y2="{plot}" stroke="#d0d7de"/>"##,
        left - 4,
        left - 4
    );
    let periods: Vec<&String> = series.keys().collect();
    for (i, (period, labels)) in series.iter().enumerate() {
        let x = left + gap + i as i64 * (bar + gap);
        let mut stacked = [0u64; MAX_SERIES + 1];
        for (label, n) in labels {
            stacked[slot(label)] = stacked[slot(label)].saturating_add(*n);
        }
        let mut below = 0u64;
        for (s, n) in stacked.iter().enumerate().filter(|(_, n)| **n > 0) {
            // In 128 bits: token counts near u64::MAX must not overflow the scaling.
            let scaled = |v: u64| (u128::from(v) * plot as u128 / u128::from(max)) as i64;
            let y0 = plot - scaled(below);
            below = below.saturating_add(*n);
            let y1 = plot - scaled(below);
            let name = named.get(s).copied().unwrap_or("other");
            let _ = write!(
                svg,
                r#"<rect x="{x}" y="{y1}" width="{bar}" height="{}" fill="{}"><title>{}: {} {n} {}</title></rect>"#,
                (y0 - y1).max(1),
                COLOURS[s],
                escape(period),
                escape(name),
                escape(unit)
            );
        }
    }
    // Period labels: every bar's when they fit (up to 40 periods), else about 12 evenly.
    let every = if periods.len() > 40 {
        periods.len().div_ceil(12)
    } else {
        1
    };
    for (i, period) in periods.iter().enumerate() {
        if i % every != 0 && i + 1 != periods.len() {
            continue;
        }
        let x = left + gap + i as i64 * (bar + gap) + bar / 2;
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{}" font-size="9" text-anchor="end" transform="rotate(-45 {x} {})" fill="#57606a">{}</text>"##,
            plot + 10,
            plot + 10,
            escape(period)
        );
    }
    let legend: Vec<&str> = named
        .iter()
        .copied()
        .chain(has_other.then_some("other"))
        .collect();
    for (i, name) in legend.iter().enumerate() {
        let y = plot + labels + i as i64 * 16;
        let _ = write!(
            svg,
            r#"<rect x="{left}" y="{y}" width="10" height="10" fill="{}"/><text x="{}" y="{}" font-size="11">{}</text>"#,
            COLOURS[if *name == "other" && i == named.len() {
                MAX_SERIES
            } else {
                i
            }],
            left + 14,
            y + 9,
            escape(name)
        );
    }
    svg.push_str("</svg>");
    svg
}
