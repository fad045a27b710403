//! The agents' own figures set against the transcripts': each reported request paired with
//! the transcript response it describes, and what disagrees said with its likely cause. A
//! pair is the same session's response with the request's own id when both sides keep it;
//! else the one whose input side (input, cache reads, cache writes) is the request's, nearest
//! in time.
//! Responses outside the time a session reported anything are not asked about (the receiver
//! was not running then).

use crate::tokens::TokenTotals;
use serde::Serialize;

use super::Reported;

/// One transcript response, as the check sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// The agent's session id.
    pub session: String,
    /// When the transcript wrote it (ms).
    pub at_ms: i64,
    /// The model.
    pub model: Option<String>,
    /// Its tokens.
    pub tokens: TokenTotals,
    /// What Baton prices it at (or the cost its line records), in US dollars.
    pub cost_usd: Option<f64>,
    /// The provider's id of the request, when the transcript keeps it (Claude Code's
    /// `requestId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// What kind of disagreement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The agent reported a request no transcript holds.
    MissingInTranscripts,
    /// A transcript holds a response the agent did not report.
    MissingInTelemetry,
    /// Both have it, with different token counts.
    TokensDiffer,
    /// Both have it, at different costs.
    CostDiffers,
}

/// One disagreement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// What kind.
    pub kind: Kind,
    /// The agent's session.
    pub session: String,
    /// When (the report's time, else the response's).
    pub at_ms: i64,
    /// The model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// What the agent reported, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reported: Option<Reported>,
    /// The transcript's response, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Response>,
    /// The difference in words.
    pub detail: String,
    /// Its likely cause.
    pub likely: String,
}

/// The check's answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Check {
    /// Requests reported.
    pub reported: usize,
    /// Of them, paired with a transcript response.
    pub matched: usize,
    /// Transcript responses asked about (those within the time their session reported).
    pub responses: usize,
    /// What disagrees, in time order.
    pub differences: Vec<Difference>,
}

/// The largest gap between a report and its response (a long response is written when it
/// starts and reported when it ends).
const NEAR_MS: i64 = 10 * 60 * 1000;
/// The margin around a session's reports within which its responses are asked about.
const MARGIN_MS: i64 = 60 * 1000;

fn input_side(t: &TokenTotals) -> (u64, u64, u64) {
    (t.input_tokens, t.cache_read_tokens, t.cache_creation_tokens)
}

/// Two costs that differ by more than rounding: a hundredth of a cent, or half a percent.
fn costs_differ(a: f64, b: f64) -> bool {
    let gap = (a - b).abs();
    gap > 0.0001 && gap > 0.005 * a.abs().max(b.abs())
}

fn dollars(v: f64) -> String {
    format!("${v:.4}")
}

/// Pairs `reported` with `responses` and lists what disagrees.
pub fn check(reported: &[Reported], responses: &[Response]) -> Check {
    use std::collections::BTreeMap;
    let mut out = Check {
        reported: reported.len(),
        ..Check::default()
    };
    // By session, in time order.
    let mut sessions: BTreeMap<&str, (Vec<&Reported>, Vec<&Response>)> = BTreeMap::new();
    for r in reported {
        let session = r.session_id.as_deref().unwrap_or("");
        sessions.entry(session).or_default().0.push(r);
    }
    for r in responses {
        if let Some(entry) = sessions.get_mut(r.session.as_str()) {
            entry.1.push(r);
        }
    }
    for (session, (mut reports, mut answers)) in sessions {
        reports.sort_by_key(|r| r.at_ms);
        answers.sort_by_key(|r| r.at_ms);
        let first = reports.first().map_or(0, |r| r.at_ms);
        let last = reports.last().map_or(0, |r| r.at_ms);
        // A pair may be ten minutes apart; only those within a minute of the reports are
        // asked about when unpaired.
        answers.retain(|r| {
            r.at_ms >= first.saturating_sub(NEAR_MS) && r.at_ms <= last.saturating_add(NEAR_MS)
        });
        let asked = |r: &Response| {
            r.at_ms >= first.saturating_sub(MARGIN_MS) && r.at_ms <= last.saturating_add(MARGIN_MS)
        };
        out.responses += answers.iter().filter(|r| asked(r)).count();
        let mut taken = vec![false; answers.len()];
        // First by the request's own id where both sides have it (Claude Code's `requestId`),
        // then the rest by input side and time.
        let mut by_id: Vec<Option<usize>> = vec![None; reports.len()];
        for (i, report) in reports.iter().enumerate() {
            let Some(id) = report.request_id.as_deref() else {
                continue;
            };
            if let Some(n) = (0..answers.len())
                .find(|n| !taken[*n] && answers[*n].request_id.as_deref() == Some(id))
            {
                taken[n] = true;
                by_id[i] = Some(n);
            }
        }
        for (report, by_id) in reports.into_iter().zip(by_id) {
            let nearest = |pick: &dyn Fn(&Response) -> bool, within: i64, taken: &[bool]| {
                answers
                    .iter()
                    .enumerate()
                    .filter(|(n, r)| !taken[*n] && pick(r))
                    .map(|(n, r)| (n, r.at_ms.saturating_sub(report.at_ms).saturating_abs()))
                    .filter(|(_, gap)| *gap <= within)
                    .min_by_key(|(_, gap)| *gap)
                    .map(|(n, _)| n)
            };
            let same_input = |r: &Response| input_side(&r.tokens) == input_side(&report.tokens);
            let found = by_id.or_else(|| nearest(&same_input, NEAR_MS, &taken));
            let Some(n) = found else {
                out.differences.push(Difference {
                    kind: Kind::MissingInTranscripts,
                    session: session.to_owned(),
                    at_ms: report.at_ms,
                    model: report.model.clone(),
                    reported: Some(report.clone()),
                    transcript: None,
                    detail: format!(
                        "reported: {} tokens{}; no transcript response",
                        report.tokens.total(),
                        report.cost_usd.map(|c| format!(", {}", dollars(c))).unwrap_or_default()
                    ),
                    likely: "its transcript is not in the index (not mirrored yet, or deleted), or the request failed before the agent wrote a response".to_owned(),
                });
                continue;
            };
            taken[n] = true;
            out.matched += 1;
            let answer = answers[n];
            if answer.tokens != report.tokens {
                let (t, r) = (&answer.tokens, &report.tokens);
                let likely = if t.output_tokens < r.output_tokens {
                    "the transcript kept a line written while the response was still streaming: its output count is partial"
                } else {
                    "the agent and its transcript count a token class differently"
                };
                out.differences.push(Difference {
                    kind: Kind::TokensDiffer,
                    session: session.to_owned(),
                    at_ms: report.at_ms,
                    model: report.model.clone(),
                    reported: Some(report.clone()),
                    transcript: Some(answer.clone()),
                    detail: format!(
                        "reported in/out/cache read/cache write {}/{}/{}/{}, transcript {}/{}/{}/{}",
                        r.input_tokens,
                        r.output_tokens,
                        r.cache_read_tokens,
                        r.cache_creation_tokens,
                        t.input_tokens,
                        t.output_tokens,
                        t.cache_read_tokens,
                        t.cache_creation_tokens
                    ),
                    likely: likely.to_owned(),
                });
            } else if let (Some(said), Some(priced)) = (report.cost_usd, answer.cost_usd)
                && costs_differ(said, priced)
            {
                out.differences.push(Difference {
                    kind: Kind::CostDiffers,
                    session: session.to_owned(),
                    at_ms: report.at_ms,
                    model: report.model.clone(),
                    reported: Some(report.clone()),
                    transcript: Some(answer.clone()),
                    detail: format!(
                        "reported {}, Baton prices it at {} ({:+.4})",
                        dollars(said),
                        dollars(priced),
                        priced - said
                    ),
                    likely: format!(
                        "the same tokens priced differently: Baton's price of {} is not the agent's (a newer price, a discount, a tier)",
                        report.model.as_deref().unwrap_or("this model")
                    ),
                });
            }
        }
        for (n, answer) in answers.iter().enumerate() {
            if !taken[n] && asked(answer) {
                out.differences.push(Difference {
                    kind: Kind::MissingInTelemetry,
                    session: session.to_owned(),
                    at_ms: answer.at_ms,
                    model: answer.model.clone(),
                    reported: None,
                    transcript: Some((*answer).clone()),
                    detail: format!(
                        "transcript: {} tokens{}; not reported",
                        answer.tokens.total(),
                        answer.cost_usd.map(|c| format!(", {}", dollars(c))).unwrap_or_default()
                    ),
                    likely: "the agent's telemetry did not reach the receiver (an export failed, or it was off for a moment), or the response was replayed into the transcript".to_owned(),
                });
            }
        }
    }
    out.differences.sort_by(|a, b| {
        a.at_ms
            .cmp(&b.at_ms)
            .then_with(|| a.session.cmp(&b.session))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64, read: u64) -> TokenTotals {
        TokenTotals {
            input_tokens: input,
            output_tokens: output,
            cache_read_tokens: read,
            ..TokenTotals::default()
        }
    }

    fn reported(at: i64, t: TokenTotals, cost: f64) -> Reported {
        Reported {
            source: "claude_code".to_owned(),
            session_id: Some("s".to_owned()),
            prompt_id: None,
            request_id: None,
            model: Some("m".to_owned()),
            at_ms: at,
            tokens: t,
            cost_usd: Some(cost),
            duration_ms: None,
            key: format!("k{at}"),
        }
    }

    fn response(at: i64, t: TokenTotals, cost: f64) -> Response {
        Response {
            session: "s".to_owned(),
            at_ms: at,
            model: Some("m".to_owned()),
            tokens: t,
            cost_usd: Some(cost),
            request_id: None,
        }
    }

    #[test]
    fn the_request_id_pairs_before_time_and_tokens_do() {
        // Two requests with the same input side a few seconds apart; the transcript wrote the
        // second's response first. By time alone they would cross; their ids keep them apart.
        let mut first = reported(1_000_000, tokens(10, 5, 100), 0.01);
        first.request_id = Some("req_a".to_owned());
        let mut second = reported(1_004_000, tokens(10, 50, 100), 0.02);
        second.request_id = Some("req_b".to_owned());
        let mut answer_b = response(1_000_500, tokens(10, 50, 100), 0.02);
        answer_b.request_id = Some("req_b".to_owned());
        let mut answer_a = response(1_003_900, tokens(10, 5, 100), 0.01);
        answer_a.request_id = Some("req_a".to_owned());
        let check = check(&[first, second], &[answer_b, answer_a]);
        assert_eq!(check.matched, 2);
        assert!(check.differences.is_empty(), "{:?}", check.differences);
        // An id the transcripts do not hold falls back to time and tokens.
        let mut lone = reported(1_000_000, tokens(10, 5, 100), 0.01);
        lone.request_id = Some("req_x".to_owned());
        let check = super::check(&[lone], &[response(1_000_100, tokens(10, 5, 100), 0.01)]);
        assert_eq!((check.matched, check.differences.len()), (1, 0));
    }

    #[test]
    fn planted_differences_are_found_and_nothing_else() {
        let reports = vec![
            reported(1_000_000, tokens(10, 5, 100), 0.01),
            reported(1_060_000, tokens(20, 9, 200), 0.02),
            reported(1_120_000, tokens(30, 7, 300), 0.03),
            reported(1_180_000, tokens(40, 7, 400), 0.04),
        ];
        let responses = vec![
            response(998_000, tokens(10, 5, 100), 0.01),
            // Partial output in the transcript.
            response(1_058_000, tokens(20, 3, 200), 0.02),
            // The cost off by a known amount.
            response(1_119_000, tokens(30, 7, 300), 0.05),
            // The fourth is missing from the transcripts; one more is missing from telemetry.
            response(1_200_000, tokens(99, 1, 0), 0.5),
            // Long before the session reported anything: not asked about.
            response(100_000, tokens(1, 1, 1), 0.001),
        ];
        let check = check(&reports, &responses);
        let kinds: Vec<Kind> = check.differences.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::TokensDiffer,
                Kind::CostDiffers,
                Kind::MissingInTranscripts,
                Kind::MissingInTelemetry
            ]
        );
        assert_eq!((check.reported, check.matched, check.responses), (4, 3, 4));
        assert!(check.differences[0].likely.contains("partial"));
        assert!(
            check.differences[1].detail.contains("+0.0200"),
            "{}",
            check.differences[1].detail
        );
        // Rounding is no difference.
        let same = check_one(0.0100004, 0.01);
        assert!(same.differences.is_empty());
    }

    #[test]
    fn a_long_request_is_paired_across_minutes() {
        // Written when it started, reported five minutes later when it ended.
        let check = check(
            &[reported(400_000, tokens(5, 5, 5), 0.01)],
            &[response(100_000, tokens(5, 9, 5), 0.01)],
        );
        assert_eq!(check.matched, 1);
        let kinds: Vec<Kind> = check.differences.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [Kind::TokensDiffer]);
    }

    fn check_one(said: f64, priced: f64) -> Check {
        check(
            &[reported(0, tokens(1, 1, 1), said)],
            &[response(0, tokens(1, 1, 1), priced)],
        )
    }
}
