//! How a search scores a match: BM25 over a message's fields, each required term weighted by
//! how many messages hold it (a count the index estimates from its newest matches), and the
//! order a ranked page takes (whole-phrase hits first, then by score, then the newer).

use std::cmp::Ordering;

/// BM25's term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25's length normalisation.
pub const B: f64 = 0.75;

/// How many of a term's newest matches an index reads to estimate how many messages hold it.
pub const SAMPLED: i64 = 256;

/// A term's weight when `docs` of `rows` messages hold it: rarer terms weigh more; a term in
/// more than half the messages still weighs a little (never nothing, never less).
pub fn idf(rows: f64, docs: f64) -> f64 {
    let docs = docs.clamp(0.0, rows.max(0.0));
    let weight = ((rows - docs + 0.5) / (docs + 0.5)).ln();
    if weight.is_finite() && weight > 1e-6 {
        weight
    } else {
        1e-6
    }
}

/// How many messages hold a term, from its newest matches: `sampled` of them were read (all
/// there were when fewer than [`SAMPLED`]), the oldest numbered `oldest`; message numbers run
/// from `first` to `last` and grow with time, so the share of the numbers since `oldest` that
/// the sample covers, spread over all of them, estimates the whole.
pub fn estimated_docs(sampled: i64, oldest: i64, first: i64, last: i64) -> f64 {
    if sampled < SAMPLED {
        return sampled.max(0) as f64;
    }
    let recent = last.saturating_sub(oldest).saturating_add(1).max(1) as f64;
    let whole = last.saturating_sub(first).saturating_add(1).max(1) as f64;
    sampled as f64 * (whole / recent).max(1.0)
}

/// Each required term's weight among `rows` messages, from how many hold it (`None` where
/// unknown: a prefix, which stands for many words). A query of one term needs no weight (it
/// scales every score alike): each is 1. An unknown one weighs as the commonest known term
/// (a prefix is most often a common word's start), or 1 when none is known.
pub fn weights(docs: &[Option<f64>], rows: f64) -> Vec<f64> {
    if docs.len() < 2 {
        return vec![1.0; docs.len()];
    }
    let known: Vec<f64> = docs.iter().flatten().map(|d| idf(rows, *d)).collect();
    let commonest = known.iter().copied().fold(f64::INFINITY, f64::min);
    let fallback = if commonest.is_finite() {
        commonest
    } else {
        1.0
    };
    docs.iter()
        .map(|d| d.map_or(fallback, |d| idf(rows, d)))
        .collect()
}

/// A message's BM25 score (the higher, the better): each term's `(weight, occurrences)` in
/// the message, the message's length in tokens and the average length.
pub fn bm25(terms: impl IntoIterator<Item = (f64, f64)>, length: f64, average: f64) -> f64 {
    let norm = 1.0 - B + B * (length / if average > 0.0 { average } else { 1.0 });
    terms
        .into_iter()
        .map(|(weight, found)| weight * (found * (K1 + 1.0)) / (found + K1 * norm))
        .sum()
}

/// A ranked hit as the order sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Whether it holds the whole query as a phrase.
    pub exact: bool,
    /// Its [`bm25`] score.
    pub score: f64,
    /// Its message number (the greater, the newer).
    pub number: i64,
}

/// The order of a ranked page: whole-phrase hits first, then the higher score, then the newer.
pub fn by_relevance(a: &Ranked, b: &Ranked) -> Ordering {
    b.exact
        .cmp(&a.exact)
        .then(b.score.total_cmp(&a.score))
        .then(b.number.cmp(&a.number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarer_terms_weigh_more_and_none_weighs_nothing() {
        let rows = 1_000_000.0;
        assert!(idf(rows, 10.0) > idf(rows, 10_000.0));
        assert!(idf(rows, 10_000.0) > idf(rows, 900_000.0));
        assert_eq!(idf(rows, 900_000.0), 1e-6);
        assert_eq!(idf(rows, 5e9), 1e-6);
        assert!(idf(0.0, 0.0) > 0.0);
        // One term: every score scales alike, so no weight is asked for.
        assert_eq!(weights(&[Some(10.0)], rows), [1.0]);
        // A prefix weighs as the commonest known term.
        let w = weights(&[Some(10.0), None, Some(10_000.0)], rows);
        assert_eq!(w[1], w[2]);
        assert!(w[0] > w[2]);
        assert_eq!(weights(&[None, None], rows), [1.0, 1.0]);
    }

    #[test]
    fn a_sample_estimates_the_whole_from_the_share_of_numbers_it_covers() {
        // Fewer than a sample: the count is exact.
        assert_eq!(estimated_docs(12, 500, 0, 999), 12.0);
        // A full sample over the newest tenth of the numbers: ten times as many in all.
        assert_eq!(estimated_docs(SAMPLED, 900, 0, 999), SAMPLED as f64 * 10.0);
        // Over all of them: the sample is the whole.
        assert_eq!(estimated_docs(SAMPLED, 0, 0, 999), SAMPLED as f64);
        // Odd spans never divide by nothing nor shrink the sample.
        assert_eq!(
            estimated_docs(SAMPLED, 2_000, 0, 999),
            SAMPLED as f64 * 1000.0
        );
        assert_eq!(estimated_docs(SAMPLED, -5, 0, 999), SAMPLED as f64);
    }

    #[test]
    fn more_occurrences_score_higher_and_long_messages_lower() {
        let one = bm25([(2.0, 1.0)], 100.0, 100.0);
        let three = bm25([(2.0, 3.0)], 100.0, 100.0);
        let long = bm25([(2.0, 1.0)], 1_000.0, 100.0);
        assert!(three > one && one > long && long > 0.0);
        // Saturation: never above weight × (k1 + 1).
        assert!(bm25([(2.0, 1e9)], 100.0, 100.0) < 2.0 * (K1 + 1.0) + 1e-9);
        // A rare term's one occurrence beats a common term's many.
        assert!(
            bm25([(5.0, 1.0), (0.1, 0.0)], 50.0, 50.0) > bm25([(5.0, 0.0), (0.1, 9.0)], 50.0, 50.0)
        );
        assert!(bm25([(2.0, 1.0)], 0.0, 0.0).is_finite());
    }

    #[test]
    fn the_phrase_comes_first_then_the_score_then_the_newer() {
        let mut hits = [
            Ranked {
                exact: false,
                score: 9.0,
                number: 1,
            },
            Ranked {
                exact: true,
                score: 1.0,
                number: 2,
            },
            Ranked {
                exact: false,
                score: 9.0,
                number: 3,
            },
            Ranked {
                exact: false,
                score: 12.0,
                number: 0,
            },
        ];
        hits.sort_by(by_relevance);
        let order: Vec<i64> = hits.iter().map(|h| h.number).collect();
        assert_eq!(order, [2, 0, 3, 1]);
    }
}
