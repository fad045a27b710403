//! Windows from sums equal windows from every response, whatever the schedule and the asking.

use super::*;
use crate::time::UtcZone;
use crate::transcripts::usage::CostMode;
use crate::transcripts::usage::test_support::{response, unit_prices, work_session};
use crate::transcripts::usage::windows::{Keep, TokenLimit, windows};
use std::collections::BTreeMap;
use std::convert::Infallible;

/// A host that answers from every response, counting what it was asked.
struct AllOf<'a> {
    entries: &'a [UsageEntry],
    asked_within: usize,
}

impl Responses for AllOf<'_> {
    type Error = Infallible;
    fn bounds(
        &mut self,
        start: Timestamp,
        end: Timestamp,
    ) -> Result<Option<(Timestamp, Timestamp)>, Infallible> {
        let mut inside = self.entries.iter().filter(|e| e.at >= start && e.at < end);
        let first = inside.next().map(|e| e.at);
        Ok(first.map(|first| (first, inside.next_back().map_or(first, |e| e.at))))
    }
    fn within(&mut self, start: Timestamp, end: Timestamp) -> Result<Vec<UsageEntry>, Infallible> {
        self.asked_within += 1;
        Ok(self
            .entries
            .iter()
            .filter(|e| e.at >= start && e.at < end)
            .cloned()
            .collect())
    }
}

/// The entries added up per 15 minutes and model, as an index's tallies keep them.
fn sums_of(entries: &[UsageEntry]) -> Vec<Sum> {
    let slot = 15 * 60_000;
    let mut by_slot: BTreeMap<(i64, String), Sum> = BTreeMap::new();
    for e in entries {
        let start = e.at.millis().div_euclid(slot) * slot;
        let model = e.model.as_deref().unwrap_or("").to_owned();
        let sum = by_slot.entry((start, model)).or_insert_with(|| {
            let mut entry = e.clone();
            entry.at = Timestamp::from_millis(start);
            entry.session = std::sync::Arc::from("");
            entry.tokens = Default::default();
            Sum {
                entry,
                responses: 0,
            }
        });
        sum.entry.tokens.add(&e.tokens);
        sum.responses += 1;
    }
    by_slot.into_values().collect()
}

/// 15-minute sums added up per hour and model with [`Sum::add`], as a host that reads its
/// tallies an hour at a time gives them.
fn hourly(sums: &[Sum]) -> Vec<Sum> {
    let hour = 3_600_000;
    let mut by_hour: BTreeMap<(i64, String), Sum> = BTreeMap::new();
    for sum in sums {
        let start = sum.entry.at.millis().div_euclid(hour) * hour;
        let model = sum.entry.model.as_deref().unwrap_or("").to_owned();
        match by_hour.get_mut(&(start, model.clone())) {
            Some(into) => into.add(sum),
            None => {
                let mut first = sum.clone();
                first.entry.at = Timestamp::from_millis(start);
                by_hour.insert((start, model), first);
            }
        }
    }
    by_hour.into_values().collect()
}

/// A report over every day and provider, each response priced.
fn every_day(prices: &crate::transcripts::usage::PriceTable) -> ReportOptions<'_> {
    ReportOptions {
        group_by: super::super::GroupBy::Daily,
        since: None,
        until: None,
        providers: &[],
        prices,
        cost_mode: CostMode::Calculate,
        zone: &UtcZone,
    }
}

fn schedule(gaps: &[(i64, u64, bool)]) -> Vec<UsageEntry> {
    let mut minute = 0i64;
    gaps.iter()
        .map(|&(gap, tokens, other)| {
            minute += gap;
            let mut e = response(
                "2026-12-01T00:00:00Z",
                if other { "agent-two" } else { "agent-one" },
                tokens,
            );
            if other {
                e.model = Some(std::sync::Arc::from("other-model"));
            }
            e.at = Timestamp::from_millis(e.at.millis() + minute * 60_000);
            e
        })
        .collect()
}

proptest::proptest! {
    #[test]
    fn windows_from_sums_equal_windows_from_responses(
        gaps in proptest::collection::vec((0i64..200, 1u64..5_000, proptest::bool::ANY), 1..60),
        now_minute in 0i64..12_000,
        keep in 0u8..3,
        limit in proptest::option::of(prop_oneof_limit()),
        by_session in proptest::bool::ANY,
    ) {
        let entries = schedule(&gaps);
        let prices = unit_prices();
        let report = every_day(&prices);
        let now = Timestamp::from_millis(
            Timestamp::parse("2026-12-01T00:00:00Z").unwrap().millis() + now_minute * 60_000,
        );
        let options = WindowOptions {
            length_ms: super::super::windows::FIVE_HOURS_MS,
            now,
            token_limit: limit,
            by_session,
            keep: match keep {
                0 => Keep::All,
                1 => Keep::Active,
                _ => Keep::EndingAfter { at: Timestamp::from_millis(now.millis() - 3 * 3_600_000) },
            },
        };
        let sessions = [work_session(
            "01970000-0000-7000-8000-000000000001",
            "agent-one",
            "2026-11-30T00:00:00Z",
            "/work/app",
            "",
        )];
        let linked = Some((&sessions[..], None));
        let expected = windows(&entries, &report, &options, linked);
        let mut host = AllOf { entries: &entries, asked_within: 0 };
        let got = windows_from_sums(&sums_of(&entries), &report, &options, linked, &mut host).unwrap();
        proptest::prop_assert_eq!(&got, &expected);
        // Sums of whole hours serve as well.
        let mut by_hour = AllOf { entries: &entries, asked_within: 0 };
        let got = windows_from_sums(&hourly(&sums_of(&entries)), &report, &options, linked, &mut by_hour).unwrap();
        proptest::prop_assert_eq!(&got, &expected);
        // Keeping only windows that end after an instant, and with no limit taken from past
        // windows, the sums from a window's length before it will do, after sums of nothing
        // at each hour used earlier (as a host that reads only recent sums gives them).
        let after = match options.keep {
            Keep::All => None,
            Keep::Active => Some(now),
            Keep::EndingAfter { at } => Some(at.min(now)),
        };
        if let Some(after) = after.filter(|_| limit != Some(TokenLimit::HighestPast)) {
            let bound = after.millis() - options.length_ms;
            let hour = 3_600_000;
            let mut hours: Vec<i64> = entries
                .iter()
                .map(|e| e.at.millis().div_euclid(hour) * hour)
                .filter(|&h| h < bound.div_euclid(15 * 60_000) * 15 * 60_000)
                .collect();
            hours.dedup();
            let mut bounded: Vec<Sum> = hours
                .into_iter()
                .map(|h| Sum::nothing_at(Timestamp::from_millis(h)))
                .collect();
            let recent: Vec<UsageEntry> = entries
                .iter()
                .filter(|e| e.at.millis() >= bound.div_euclid(15 * 60_000) * 15 * 60_000)
                .cloned()
                .collect();
            bounded.extend(sums_of(&recent));
            let mut host = AllOf { entries: &entries, asked_within: 0 };
            let got = windows_from_sums(&bounded, &report, &options, linked, &mut host).unwrap();
            proptest::prop_assert_eq!(&got.windows, &expected.windows);
        }
        // Only the windows that need their responses are read whole.
        if !by_session && limit.is_none() {
            proptest::prop_assert!(host.asked_within <= 1);
        }
    }
}

fn prop_oneof_limit() -> impl proptest::strategy::Strategy<Value = TokenLimit> {
    use proptest::strategy::Strategy;
    proptest::prop_oneof![
        (1u64..40_000).prop_map(TokenLimit::Tokens),
        proptest::strategy::Just(TokenLimit::HighestPast),
    ]
}

#[test]
fn rough_windows_give_each_window_its_cost() {
    let entries = schedule(&[(10, 1_000, false), (50, 2_000, false), (400, 4_000, true)]);
    let prices = unit_prices();
    let report = every_day(&prices);
    let options = WindowOptions {
        length_ms: super::super::windows::FIVE_HOURS_MS,
        now: Timestamp::parse("2026-12-01T08:00:00Z").unwrap(),
        token_limit: None,
        by_session: false,
        keep: Keep::All,
    };
    let rough = rough(&sums_of(&entries), &report, &options);
    let exact = windows(&entries, &report, &options, None);
    let totals = |r: &WindowsReport| -> Vec<(Timestamp, Timestamp, u64, u64)> {
        r.windows
            .iter()
            .map(|w| (w.start, w.end, w.total_tokens, w.responses))
            .collect()
    };
    assert_eq!(totals(&rough), totals(&exact));
    assert_eq!(rough.windows[1].cost_usd, 0.003);
    // The other model has no price here.
    assert_eq!(rough.windows[0].cost_usd, 0.0);
    assert_eq!(rough.windows[0].models, ["other-model"]);
}
