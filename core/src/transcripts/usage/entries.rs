//! Many usage entries moved and put in order without holding them twice: a year of
//! transcripts is hundreds of thousands of them.

use crate::time::Timestamp;
use crate::transcripts::UsageEntry;

/// Puts entries in time order, those at the same instant as they were (a stable sort), with
/// a small list of (time, place) sorted instead of the entries: a stable sort of the entries
/// themselves borrows half their size again.
pub fn sort_by_time(entries: &mut [UsageEntry]) {
    let Ok(count) = u32::try_from(entries.len()) else {
        entries.sort_by_key(|e| e.at);
        return;
    };
    if entries.is_sorted_by_key(|e| e.at) {
        return;
    }
    let mut order: Vec<(Timestamp, u32)> =
        (0..count).map(|i| (entries[i as usize].at, i)).collect();
    order.sort_unstable();
    // Place k takes the entry at `order[k]`: each cycle of places followed by swaps.
    let mut from: Vec<u32> = order.into_iter().map(|(_, i)| i).collect();
    const DONE: u32 = u32::MAX;
    for start in 0..from.len() {
        let mut k = start;
        while from[k] != DONE {
            let source = from[k] as usize;
            from[k] = DONE;
            if source == start {
                break;
            }
            entries.swap(k, source);
            k = source;
        }
    }
}

/// Hands each of `from`'s items to `take`, in order, giving `from`'s memory back as it
/// empties (with an allocator that returns a shrunk block's pages, as glibc's does for large
/// ones): hundreds of thousands of entries moved from one vector to another are not resident
/// twice.
pub(crate) fn drain_in_order<T>(mut from: Vec<T>, mut take: impl FnMut(T)) {
    /// Items handed over between two returns of memory.
    const STEP: usize = 16_384;
    // Taken from the end, so the vector shrinks as it goes: reversed first to keep the order.
    from.reverse();
    while !from.is_empty() {
        let keep = from.len().saturating_sub(STEP);
        from.drain(keep..).rev().for_each(&mut take);
        from.shrink_to_fit();
    }
}

/// Moves `from`'s items onto the end of `into`, in order, each made over by `make` (those it
/// makes nothing of are left out), as [`drain_in_order`] does.
pub(crate) fn move_onto<T, U>(
    from: Vec<T>,
    into: &mut Vec<U>,
    mut make: impl FnMut(T) -> Option<U>,
) {
    into.reserve_exact(from.len());
    drain_in_order(from, |item| into.extend(make(item)));
}

#[cfg(test)]
mod tests {
    use super::{move_onto, sort_by_time};
    use crate::time::Timestamp;
    use crate::transcripts::UsageEntry;
    use proptest::prelude::*;

    fn entry(at: i64, tag: u64) -> UsageEntry {
        UsageEntry {
            provider: crate::transcripts::Provider::Codex,
            at: Timestamp::from_millis(at),
            session: "s".into(),
            project: None,
            model: None,
            tokens: crate::tokens::TokenTotals {
                input_tokens: tag,
                ..Default::default()
            },
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: None,
            fast: false,
            web_searches: 0,
            delegated: false,
        }
    }

    proptest! {
        #[test]
        fn sorting_by_time_is_the_stable_sort(times in prop::collection::vec(0i64..20, 0..300)) {
            let mut ours: Vec<UsageEntry> =
                times.iter().enumerate().map(|(i, &t)| entry(t, i as u64)).collect();
            let mut stable = ours.clone();
            stable.sort_by_key(|e| e.at);
            sort_by_time(&mut ours);
            prop_assert_eq!(ours, stable);
        }
    }

    #[test]
    fn moving_keeps_the_order_and_leaves_out_what_makes_nothing() {
        let mut into = vec![0u32, 1];
        move_onto((2..50_000u32).collect(), &mut into, |n| {
            (n % 7 != 0).then_some(n)
        });
        let expected: Vec<u32> = (0..2).chain((2..50_000).filter(|n| n % 7 != 0)).collect();
        assert_eq!(into, expected);
    }
}
