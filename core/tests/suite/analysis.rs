//! The overview figures and the SVG charts, from real fixtures and small hand-made inputs.

use crate::fixture;
use baton_core::analyzer::charts::{calendar_heatmap_svg, length_histogram_svg, overview};
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
fn heatmap_places_days_by_week_and_weekday_and_shades_by_quartile() {
    let per_day = BTreeMap::from([
        ("2026-01-05".to_owned(), 1), // a Monday
        ("2026-01-07".to_owned(), 8),
        ("2026-01-18".to_owned(), 4), // a Sunday, two weeks on
    ]);
    let svg = calendar_heatmap_svg(&per_day);
    assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    assert!(
        svg.contains(r#"<rect x="2" y="2" "#),
        "Monday of the first week"
    );
    assert!(
        svg.contains(r#"<rect x="2" y="30" "#),
        "Wednesday of the first week"
    );
    assert!(
        svg.contains(r#"<rect x="16" y="86" "#),
        "Sunday of the second week"
    );
    assert!(svg.contains("#216e39"), "the busiest day is darkest");
    assert!(svg.contains("2026-01-07: 8 message(s)"));
    assert_eq!(svg, calendar_heatmap_svg(&per_day), "deterministic");
    assert!(calendar_heatmap_svg(&BTreeMap::new()).contains("no activity"));
}

#[test]
fn histogram_labels_power_of_two_buckets() {
    let svg = length_histogram_svg(&BTreeMap::from([(1, 3), (3, 6)]));
    assert!(svg.contains(">1</text>") && svg.contains(">4–7</text>"));
    assert!(
        svg.contains(r#"height="120""#),
        "the largest bucket is full height"
    );
}

#[test]
fn a_nonsense_date_range_is_clamped() {
    let per_day = BTreeMap::from([("1970-01-01".to_owned(), 1), ("9999-12-31".to_owned(), 1)]);
    let svg = calendar_heatmap_svg(&per_day);
    assert!(svg.matches("<rect").count() <= 3661 + 7);
}
