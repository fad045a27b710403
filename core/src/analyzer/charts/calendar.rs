//! The activity calendar: one square per day, a column per week (Monday on top), as many
//! weeks as the width holds, ending at the latest day so recent work is always in view; month
//! and weekday labels, a caption of what is drawn, and a less-to-more legend. Shades are one
//! green at rising opacity, so the calendar reads on light and dark pages alike.

use crate::analyzer::charts::scale::thousands;
use chrono::{Datelike, NaiveDate};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The most days a calendar draws (about ten years).
pub const MAX_HEATMAP_DAYS: i64 = 3660;

const CELL: i64 = 11;
const PITCH: i64 = 14;
const LEFT: i64 = 30;
const TOP: i64 = 18;
const GREEN: &str = "#2da44e";
/// Opacity of the shades, quiet days first (those are drawn in `currentColor`).
const SHADES: [&str; 5] = [".1", ".35", ".6", ".8", "1"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

fn date_of(day: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(day).ok()?)
}

/// Shade 0 for a quiet day, else 1–4 by quartile of the busiest day.
fn shade(count: u64, max: u64) -> usize {
    if count == 0 {
        0
    } else {
        1 + ((u128::from(count) * 4 - 1) / u128::from(max.max(1))).min(3) as usize
    }
}

/// Messages per day (`YYYY-MM-DD` keys) as a calendar `width` pixels wide.
pub fn calendar_svg(per_day: &BTreeMap<String, u64>, width: u32) -> String {
    let days: BTreeMap<i64, u64> = per_day
        .iter()
        .filter_map(|(k, v)| {
            let date = NaiveDate::parse_from_str(k, "%Y-%m-%d").ok()?;
            Some((i64::from(date.num_days_from_ce()), *v))
        })
        .collect();
    let (Some((&first, _)), Some((&last, _))) = (days.first_key_value(), days.last_key_value())
    else {
        return r#"<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" role="img" aria-label="no activity"></svg>"#.to_owned();
    };
    let width = i64::from(width.clamp(super::bars::MIN_WIDTH, super::bars::MAX_WIDTH));
    let weekday =
        |d: i64| date_of(d).map_or(0, |date| i64::from(date.weekday().num_days_from_monday()));
    let weeks = ((width - LEFT - 4) / PITCH).clamp(1, MAX_HEATMAP_DAYS / 7 + 1);
    let start = last - weekday(last) - (weeks - 1) * 7;
    let max = days.range(start..).map(|(_, c)| *c).max().unwrap_or(1);
    let height = TOP + 7 * PITCH + 26;
    let (Some(from), Some(to)) = (date_of(start), date_of(last)) else {
        return String::new();
    };
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="calendar" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="messages per day from {from} to {to}" font-family="system-ui, sans-serif" font-size="10">"#
    );
    // Month labels where a month's first Monday opens a column; none closer than three
    // columns to the one before (the first, partial month gives way).
    let mut months: Vec<(i64, u32)> = Vec::new();
    for week in 0..weeks {
        let Some(monday) = date_of(start + week * 7) else {
            continue;
        };
        if week == 0 || monday.day() <= 7 {
            months.push((week, monday.month0()));
        }
    }
    if months.len() > 1 && months[1].0 - months[0].0 < 3 {
        months.remove(0);
    }
    let mut last_label: Option<i64> = None;
    for (week, month) in months {
        if last_label.is_some_and(|before| week - before < 3) {
            continue;
        }
        last_label = Some(week);
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" fill="currentColor" fill-opacity=".7">{}</text>"#,
            LEFT + week * PITCH,
            TOP - 6,
            MONTHS[month as usize % 12]
        );
    }
    for row in [0, 2, 4] {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end" fill="currentColor" fill-opacity=".7">{}</text>"#,
            LEFT - 5,
            TOP + row * PITCH + 9,
            WEEKDAYS[row as usize]
        );
    }
    let (mut messages, mut active) = (0u64, 0u64);
    for day in start..=last {
        let Some(date) = date_of(day) else {
            continue;
        };
        let count = days.get(&day).copied().unwrap_or(0);
        messages = messages.saturating_add(count);
        active += u64::from(count > 0);
        let s = shade(count, max);
        let fill = if s == 0 { "currentColor" } else { GREEN };
        let _ = write!(
            svg,
            r#"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" rx="2" fill="{fill}" fill-opacity="{}"><title>{date} ({}): {} message{}</title></rect>"#,
            LEFT + (day - start) / 7 * PITCH,
            TOP + weekday(day) * PITCH,
            SHADES[s],
            WEEKDAYS[weekday(day) as usize],
            thousands(count),
            if count == 1 { "" } else { "s" }
        );
    }
    let caption_y = TOP + 7 * PITCH + 14;
    let earlier = if first < start {
        format!(", the last {weeks} weeks")
    } else {
        String::new()
    };
    let _ = write!(
        svg,
        r#"<text x="{LEFT}" y="{caption_y}" fill="currentColor" fill-opacity=".7">{} message{} on {} day{} ({from} to {to}{earlier})</text>"#,
        thousands(messages),
        if messages == 1 { "" } else { "s" },
        thousands(active),
        if active == 1 { "" } else { "s" },
    );
    // The legend, right-aligned: Less ■■■■■ More.
    let legend_x = width - 4 - 5 * PITCH - 30;
    if legend_x > LEFT + 260 {
        let _ = write!(
            svg,
            r#"<text x="{}" y="{caption_y}" text-anchor="end" fill="currentColor" fill-opacity=".7">Less</text>"#,
            legend_x - 4
        );
        for (i, opacity) in SHADES.iter().enumerate() {
            let fill = if i == 0 { "currentColor" } else { GREEN };
            let _ = write!(
                svg,
                r#"<rect x="{}" y="{}" width="{CELL}" height="{CELL}" rx="2" fill="{fill}" fill-opacity="{opacity}"/>"#,
                legend_x + i as i64 * PITCH,
                caption_y - 9
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{}" y="{caption_y}" fill="currentColor" fill-opacity=".7">More</text>"#,
            legend_x + 5 * PITCH + 2
        );
    }
    svg.push_str("</svg>");
    svg
}
