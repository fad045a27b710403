//! The overview figures and the SVG charts, from real fixtures and small hand-made inputs.

use crate::fixture;
use baton_core::analyzer::charts::{calendar_svg, length_histogram_svg, overview};
use baton_core::transcripts::inspect::parse;
use std::collections::BTreeMap;

#[test]
fn overview_counts_conversations_messages_models_and_days() {
    let (_, parsed) = parse(&fixture(
        "chatgpt/pkuppens-real-2023-06-export-subset3.json",
    ))
    .unwrap();
    let o = overview(&parsed.conversations);
    assert_eq!((o.conversations, o.messages), (3, 31));
    assert_eq!(o.providers.get("chatgpt"), Some(&3));
    assert_eq!(o.models.get("gpt-4-browsing"), Some(&10));
    assert_eq!(o.models.get("text-davinci-002-render-sha"), Some(&8));
    assert_eq!(
        o.messages_per_day.values().sum::<u64>(),
        31,
        "every message has a time"
    );
    assert!(o.first_at <= o.last_at);
    // 16 and 13 messages fall in the 8–15 and 16–31 buckets; 2 in the 2–3 bucket.
    assert_eq!(o.length_buckets, BTreeMap::from([(2, 1), (4, 1), (5, 1)]));
}

#[test]
fn calendar_ends_at_the_latest_day_and_fills_the_width() {
    let per_day = BTreeMap::from([
        ("2026-01-05".to_owned(), 1), // a Monday
        ("2026-01-07".to_owned(), 8),
        ("2026-01-18".to_owned(), 4), // a Sunday, two weeks on
    ]);
    let svg = calendar_svg(&per_day, 600);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(svg.contains(r#"width="600""#));
    // (600 - 30 - 4) / 14 = 40 weeks, the last ending on Sunday 2026-01-18 in the last column.
    let last_column = 30 + 39 * 14;
    let sunday = 18 + 6 * 14;
    assert!(
        svg.contains(&format!(r#"<rect x="{last_column}" y="{sunday}" "#)),
        "the latest day sits in the last column: {svg}"
    );
    let monday = format!(r#"<rect x="{}" y="18" "#, last_column - 14);
    assert!(svg.contains(&monday), "Monday 5 January, a week before");
    assert!(svg.contains("2026-01-07 (Wed): 8 messages"));
    assert!(
        svg.contains(r##"fill="#2da44e" fill-opacity="1"><title>2026-01-07"##),
        "the busiest day is darkest"
    );
    for label in [
        ">Jan<", ">Dec<", ">Mon<", ">Wed<", ">Fri<", ">Less<", ">More<",
    ] {
        assert!(svg.contains(label), "{label} labelled");
    }
    assert!(svg.contains("13 messages on 3 days"));
    assert_eq!(svg, calendar_svg(&per_day, 600), "deterministic");
    assert!(calendar_svg(&BTreeMap::new(), 600).contains("no activity"));
    // Narrow: fewer weeks, still ending at the latest day, and the caption says so.
    let narrow = calendar_svg(&per_day, 240);
    assert!(narrow.contains(r#"width="240""#));
    assert!(narrow.contains("2026-01-18 (Sun)"));
}

#[test]
fn histogram_labels_power_of_two_buckets_on_a_round_axis() {
    let svg = length_histogram_svg(&BTreeMap::from([(1, 3), (3, 6)]), 480);
    assert!(svg.contains(">1</text>") && svg.contains(">4–7</text>"));
    assert!(svg.contains(r#"width="480""#));
    // Six at most: ticks 0, 2, 4, 6, the top bar reaching the top gridline.
    for tick in [">0</text>", ">2</text>", ">4</text>", ">6</text>"] {
        assert!(svg.contains(tick), "{tick}");
    }
    assert!(
        svg.contains(r#"y="8" width="#),
        "the largest bucket is full height: {svg}"
    );
    assert!(svg.contains("4–7 messages: 6 conversations"));
}

#[test]
fn over_time_charts_word_their_ticks_and_never_crowd_labels() {
    use baton_core::analyzer::charts::{Bar, BarChart, Unit, bar_chart_svg};
    let bars: Vec<Bar> = (1..=90)
        .map(|d| Bar {
            key: format!("2026-01-{d:02}"),
            label: format!("Jan {d}"),
            parts: BTreeMap::from([
                ("opus".to_owned(), 25_000_000 + d),
                ("sonnet".to_owned(), 1_000),
            ]),
        })
        .collect();
    let chart = BarChart {
        bars,
        unit: Unit::Count,
        noun: "tokens",
        title: "tokens per model",
    };
    let svg = bar_chart_svg(&chart, 400);
    assert!(
        svg.contains(">30M</text>") && svg.contains(">10M</text>"),
        "{svg}"
    );
    assert!(svg.contains("opus · 2.3B"), "legend with totals");
    let labels = svg.matches("text-anchor=\"middle\"").count();
    assert!((2..=12).contains(&labels), "{labels} bar labels in 400 px");
    assert!(svg.contains("2026-01-05 · opus: 25,000,005 tokens"));
    let dollars = bar_chart_svg(
        &BarChart {
            unit: Unit::NanoUsd,
            ..chart.clone()
        },
        400,
    );
    assert!(dollars.contains(">$0.03</text>"), "{dollars}");
}

#[test]
fn a_nonsense_date_range_is_clamped() {
    let per_day = BTreeMap::from([("1970-01-01".to_owned(), 1), ("9999-12-31".to_owned(), 1)]);
    let svg = calendar_svg(&per_day, 4096);
    assert!(svg.matches("<rect").count() <= 3661 + 7 + 5);
}
