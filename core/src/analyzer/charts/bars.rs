//! Bar charts drawn to the width they are shown at: stacked bars on a y axis of round ticks
//! with gridlines, bar labels that never crowd each other, a legend with each series' total,
//! and a hover title on every bar and segment. Colours are mid-tones and text takes
//! `currentColor`, so one drawing reads on a light page, a dark page and in a standalone file.

use crate::analyzer::charts::scale::{Unit, nice_scale};
use crate::analyzer::safe_html::escape;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How many series a stacked chart names; the rest are drawn together as "other".
pub const MAX_SERIES: usize = 8;

/// The series colours, the last for "other".
const COLOURS: [&str; MAX_SERIES + 1] = [
    "#3b7dd8", "#e36209", "#2da44e", "#8250df", "#d1242f", "#bf8700", "#1b9aa5", "#bf3989",
    "#8c959f",
];

/// Narrowest and widest drawing, in pixels.
pub const MIN_WIDTH: u32 = 240;
/// See [`MIN_WIDTH`].
pub const MAX_WIDTH: u32 = 4096;

const FONT: i64 = 11;
/// A generous average advance of one character at [`FONT`] pixels.
const CHAR: i64 = 7;
const PLOT_HEIGHT: i64 = 160;
const WIDEST_BAR: i64 = 48;

/// One bar: its key (said in titles), its axis label, and its parts by series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar {
    /// What the bar is, in full (`2026-03-14`).
    pub key: String,
    /// Its label under the axis (`Mar 14`).
    pub label: String,
    /// Its value per series.
    pub parts: BTreeMap<String, u64>,
}

/// A bar chart to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarChart<'a> {
    /// The bars, left to right.
    pub bars: Vec<Bar>,
    /// How values are worded.
    pub unit: Unit,
    /// What is counted, in the plural (`tokens`, `assistant messages`).
    pub noun: &'a str,
    /// What the chart shows, for assistive technology.
    pub title: &'a str,
}

fn text_width(text: &str) -> i64 {
    text.chars().count() as i64 * CHAR
}

/// The chart as SVG text, `width` pixels wide (clamped to [`MIN_WIDTH`]..=[`MAX_WIDTH`]).
pub fn bar_chart_svg(chart: &BarChart<'_>, width: u32) -> String {
    let width = i64::from(width.clamp(MIN_WIDTH, MAX_WIDTH));
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    for bar in &chart.bars {
        for (series, n) in &bar.parts {
            let total = totals.entry(series).or_default();
            *total = total.saturating_add(*n);
        }
    }
    let mut ranked: Vec<(&str, u64)> = totals.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let named: Vec<&str> = ranked.iter().take(MAX_SERIES).map(|r| r.0).collect();
    let other_total = ranked
        .iter()
        .skip(MAX_SERIES)
        .fold(0u64, |sum, r| sum.saturating_add(r.1));
    let has_other = ranked.len() > MAX_SERIES;
    let slot_of = |series: &str| {
        named
            .iter()
            .position(|n| *n == series)
            .unwrap_or(MAX_SERIES)
    };

    // Each named series' colour comes from its name (the next free one when taken, names in
    // order), not its rank: a model keeps its colour across the charts that name it.
    let colours: Vec<usize> = {
        let mut by_name: Vec<(usize, &str)> = named.iter().copied().enumerate().collect();
        by_name.sort_by(|a, b| a.1.cmp(b.1));
        let mut taken = [false; MAX_SERIES];
        let mut out = vec![MAX_SERIES; named.len()];
        for (slot, name) in by_name {
            let hash = crate::ledger::checkpoint::fnv1a64(name.as_bytes());
            let mut colour = (hash % MAX_SERIES as u64) as usize;
            while taken[colour] {
                colour = (colour + 1) % MAX_SERIES;
            }
            taken[colour] = true;
            out[slot] = colour;
        }
        out
    };
    let colour_of = |slot: usize| COLOURS[colours.get(slot).copied().unwrap_or(MAX_SERIES)];

    // The legend, wrapped to the width; none for a single series.
    let mut legend: Vec<(usize, String)> = ranked
        .iter()
        .take(MAX_SERIES)
        .enumerate()
        .map(|(i, (name, total))| (i, format!("{name} · {}", chart.unit.legend(*total))))
        .collect();
    if has_other {
        legend.push((
            MAX_SERIES,
            format!(
                "{} more · {}",
                ranked.len() - MAX_SERIES,
                chart.unit.legend(other_total)
            ),
        ));
    }
    if legend.len() < 2 {
        legend.clear();
    }
    let mut placed: Vec<(i64, i64, usize, &str)> = Vec::new();
    let (mut x, mut row) = (0i64, 0i64);
    for (colour, label) in &legend {
        let item = 14 + text_width(label) + 16;
        if x > 0 && x + item > width {
            x = 0;
            row += 1;
        }
        placed.push((x, row, *colour, label));
        x += item;
    }
    let legend_height = if placed.is_empty() {
        0
    } else {
        (row + 1) * 18 + 6
    };

    let max = chart
        .bars
        .iter()
        .map(|b| b.parts.values().fold(0u64, |sum, n| sum.saturating_add(*n)))
        .max()
        .unwrap_or(0);
    let (step, top) = nice_scale(max, 4);
    let ticks: Vec<u64> = (0..=top / step).map(|k| k * step).collect();
    let left = ticks
        .iter()
        .map(|t| text_width(&chart.unit.tick(*t, step)))
        .max()
        .unwrap_or(0)
        + 10;
    let right = 8i64;
    let plot_top = legend_height + 8;
    let plot_width = (width - left - right).max(1);
    let height = plot_top + PLOT_HEIGHT + 24;
    let y_of = |v: u64| {
        plot_top + PLOT_HEIGHT
            - (u128::from(v) * PLOT_HEIGHT as u128 / u128::from(top.max(1))) as i64
    };

    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="bar-chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="{}" font-family="system-ui, sans-serif" font-size="{FONT}">"#,
        escape(chart.title)
    );
    for (x, row, colour, label) in &placed {
        let y = 4 + row * 18;
        let _ = write!(
            svg,
            r#"<rect x="{x}" y="{y}" width="10" height="10" rx="2" fill="{}"/><text x="{}" y="{}" fill="currentColor">{}</text>"#,
            colour_of(*colour),
            x + 14,
            y + 9,
            escape(label)
        );
    }
    for tick in &ticks {
        let y = y_of(*tick);
        let opacity = if *tick == 0 { ".45" } else { ".15" };
        let _ = write!(
            svg,
            r#"<line x1="{left}" y1="{y}" x2="{}" y2="{y}" stroke="currentColor" stroke-opacity="{opacity}"/><text x="{}" y="{}" text-anchor="end" fill="currentColor" fill-opacity=".7">{}</text>"#,
            width - right,
            left - 6,
            y + 4,
            chart.unit.tick(*tick, step)
        );
    }

    let n = chart.bars.len().max(1) as i64;
    let widest_label = chart
        .bars
        .iter()
        .map(|b| text_width(&b.label))
        .max()
        .unwrap_or(0)
        + 10;
    let fitting = (plot_width / widest_label.max(1)).max(1);
    let every = (n + fitting - 1) / fitting;
    for (i, bar) in chart.bars.iter().enumerate() {
        let i = i as i64;
        let x0 = left + i * plot_width / n;
        let slot = left + (i + 1) * plot_width / n - x0;
        let bar_width = if slot >= 4 {
            (slot * 3 / 4).min(WIDEST_BAR)
        } else {
            slot.max(1)
        };
        let x = x0 + (slot - bar_width) / 2;
        let total = bar.parts.values().fold(0u64, |s, n| s.saturating_add(*n));
        // The whole column answers a hover, even where its bar is short.
        let _ = write!(
            svg,
            r#"<rect x="{x0}" y="{plot_top}" width="{slot}" height="{PLOT_HEIGHT}" fill="currentColor" fill-opacity="0"><title>{}: {} {}</title></rect>"#,
            escape(&bar.key),
            chart.unit.full(total),
            escape(chart.noun)
        );
        let mut stacked = [0u64; MAX_SERIES + 1];
        for (series, value) in &bar.parts {
            let slot = slot_of(series);
            stacked[slot] = stacked[slot].saturating_add(*value);
        }
        let mut below = 0u64;
        for (s, value) in stacked.iter().enumerate().filter(|(_, v)| **v > 0) {
            let y0 = y_of(below);
            below = below.saturating_add(*value);
            let y1 = y_of(below);
            let name = named.get(s).copied().unwrap_or("other");
            let _ = write!(
                svg,
                r#"<rect x="{x}" y="{y1}" width="{bar_width}" height="{}" fill="{}"><title>{} · {}: {} {}</title></rect>"#,
                (y0 - y1).max(1),
                colour_of(s),
                escape(&bar.key),
                escape(name),
                chart.unit.full(*value),
                escape(chart.noun)
            );
        }
        if i % every == 0 {
            let half = text_width(&bar.label) / 2;
            let centre = (x0 + slot / 2).clamp(half + 2, width - half - 2);
            let _ = write!(
                svg,
                r#"<text x="{centre}" y="{}" text-anchor="middle" fill="currentColor" fill-opacity=".7">{}</text>"#,
                plot_top + PLOT_HEIGHT + 16,
                escape(&bar.label)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(parts: &[(&str, u64)]) -> String {
        let bar = Bar {
            key: "2026-03-14".into(),
            label: "Mar 14".into(),
            parts: parts.iter().map(|(n, v)| ((*n).to_owned(), *v)).collect(),
        };
        let chart = BarChart {
            bars: vec![bar],
            unit: Unit::Count,
            noun: "tokens",
            title: "t",
        };
        bar_chart_svg(&chart, 600)
    }

    /// The colour of `series`' segment in `svg`.
    fn colour(svg: &str, series: &str) -> String {
        let marker = format!("· {series}:");
        let at = svg.find(&marker).expect(series);
        let rect = &svg[svg[..at].rfind("<rect").unwrap()..at];
        let fill = &rect[rect.find("fill=\"").unwrap() + 6..];
        fill[..fill.find('"').unwrap()].to_owned()
    }

    #[test]
    fn a_series_keeps_its_colour_whatever_its_rank() {
        // Tokens rank sonnet first; dollars rank opus first.
        let tokens = chart(&[("sonnet-4.5", 900), ("opus-4.1", 100), ("haiku-3.5", 50)]);
        let dollars = chart(&[("sonnet-4.5", 10), ("opus-4.1", 90), ("haiku-3.5", 1)]);
        for model in ["sonnet-4.5", "opus-4.1", "haiku-3.5"] {
            assert_eq!(colour(&tokens, model), colour(&dollars, model), "{model}");
        }
        let all: std::collections::BTreeSet<String> = ["sonnet-4.5", "opus-4.1", "haiku-3.5"]
            .iter()
            .map(|m| colour(&tokens, m))
            .collect();
        assert_eq!(all.len(), 3, "three series, three colours");
    }
}
