//! Windows against figures worked out by hand.

use super::*;
use crate::time::UtcZone;
use crate::transcripts::usage::CostMode;
use crate::transcripts::usage::test_support::{at, response, unit_prices};

fn make(
    entries: &[UsageEntry],
    now: &str,
    limit: Option<TokenLimit>,
    sessions: Option<&[Session]>,
) -> WindowsReport {
    let prices = unit_prices();
    let report = ReportOptions {
        group_by: super::super::GroupBy::Daily,
        since: None,
        until: None,
        providers: &[],
        prices: &prices,
        cost_mode: CostMode::Calculate,
        zone: &UtcZone,
    };
    let options = WindowOptions {
        length_ms: FIVE_HOURS_MS,
        now: at(now),
        token_limit: limit,
        by_session: true,
        keep: Keep::All,
    };
    windows(entries, &report, &options, sessions.map(|s| (s, None)))
}

#[test]
fn a_window_opens_at_the_hour_of_the_first_response_and_lasts_five_hours() {
    // 22:40 opens 22:00–03:00 (across midnight); 02:59 falls in it; 03:00 opens the next,
    // 03:00–08:00; after three idle hours, 11:05 opens 11:00–16:00.
    let entries = [
        response("2026-12-01T22:40:00Z", "a", 1000),
        response("2026-12-02T02:59:00Z", "a", 2000),
        response("2026-12-02T03:00:00Z", "a", 4000),
        response("2026-12-02T05:00:00Z", "a", 8000),
        response("2026-12-02T11:05:00Z", "a", 16000),
    ];
    let report = make(&entries, "2026-12-02T12:05:00Z", None, None);
    let spans: Vec<(Timestamp, Timestamp, u64, Option<u64>)> = report
        .windows
        .iter()
        .map(|w| (w.start, w.end, w.total_tokens, w.gap_before_minutes))
        .collect();
    assert_eq!(
        spans,
        [
            (
                at("2026-12-02T11:00:00Z"),
                at("2026-12-02T16:00:00Z"),
                16000,
                Some(180)
            ),
            (
                at("2026-12-02T03:00:00Z"),
                at("2026-12-02T08:00:00Z"),
                12000,
                None
            ),
            (
                at("2026-12-01T22:00:00Z"),
                at("2026-12-02T03:00:00Z"),
                3000,
                None
            ),
        ]
    );
    assert_eq!(report.length_minutes, 300);
    assert!(report.windows[0].active);
    assert!(!report.windows[1].active && !report.windows[2].active);
    assert_eq!(
        report.active().map(|w| w.start),
        Some(report.windows[0].start)
    );
    assert_eq!(report.windows[1].responses, 2);
    assert_eq!(report.windows[1].first_at, at("2026-12-02T03:00:00Z"));
    assert_eq!(report.windows[1].last_at, at("2026-12-02T05:00:00Z"));
}

#[test]
fn the_zone_changes_nothing_a_window_is_an_instant_span() {
    // The same responses written with offsets: one window, whatever the zone says of days.
    let entries = [
        response("2026-12-01T23:30:00-05:00", "a", 10),
        response("2026-12-02T09:10:00+05:30", "a", 10),
    ];
    // 04:30Z and 03:40Z: not in time order as written, so sorted first as the hosts do.
    let mut sorted = entries.to_vec();
    super::super::sort_by_time(&mut sorted);
    let report = make(&sorted, "2026-12-02T05:00:00Z", None, None);
    assert_eq!(report.windows.len(), 1);
    assert_eq!(report.windows[0].start, at("2026-12-02T03:00:00Z"));
    assert_eq!(report.windows[0].total_tokens, 20);
}

#[test]
fn burn_rate_projection_and_run_out_on_a_known_schedule() {
    // 600,000 tokens from 10:15 to 12:15 (now): 300,000 an hour over the window; 12:00's
    // 200,000 is the last hour's. At that pace the 2h 45m left add 825,000: 1,425,000 at
    // 15:00. Against a limit of 1,000,000 the 400,000 left take 1h 20m: out at 13:35.
    let entries = [
        response("2026-12-02T10:15:00Z", "a", 100_000),
        response("2026-12-02T11:00:00Z", "a", 300_000),
        response("2026-12-02T12:00:00Z", "a", 200_000),
    ];
    let report = make(
        &entries,
        "2026-12-02T12:15:00Z",
        Some(TokenLimit::Tokens(1_000_000)),
        None,
    );
    let w = &report.windows[0];
    assert!(w.active);
    assert_eq!(w.start, at("2026-12-02T10:00:00Z"));
    assert_eq!(w.burn.tokens_per_hour, 300_000);
    assert_eq!(w.burn.usd_per_hour, 0.3);
    assert_eq!(w.burn.last_hour_tokens, Some(200_000));
    assert_eq!(w.burn.last_hour_usd, Some(0.2));
    let projection = w.projection.expect("a projection");
    assert_eq!(projection.total_tokens, 1_425_000);
    assert_eq!(projection.cost_usd, 1.425);
    assert_eq!(projection.minutes_left, 165);
    let limit = w.limit.expect("a limit");
    assert_eq!(limit.limit_tokens, 1_000_000);
    assert_eq!(limit.used_percent, 60.0);
    assert_eq!(limit.reached_at, None);
    assert_eq!(limit.runs_out_at, Some(at("2026-12-02T13:35:00Z")));
    assert_eq!(report.token_limit_source.as_deref(), Some("given"));
}

#[test]
fn a_limit_reached_says_when_and_one_that_lasts_the_window_says_nothing() {
    let entries = [
        response("2026-12-02T10:15:00Z", "a", 600),
        response("2026-12-02T10:30:00Z", "a", 600),
        response("2026-12-02T10:45:00Z", "a", 600),
    ];
    let reached = make(
        &entries,
        "2026-12-02T11:00:00Z",
        Some(TokenLimit::Tokens(1000)),
        None,
    );
    let limit = reached.windows[0].limit.expect("a limit");
    assert_eq!(limit.reached_at, Some(at("2026-12-02T10:30:00Z")));
    assert_eq!(limit.runs_out_at, None);
    assert_eq!(limit.used_percent, 180.0);
    // 1,800 in 45 minutes is 2,400 an hour: 4 hours left would need 9,600; a limit of
    // 100,000 lasts the window.
    let lasting = make(
        &entries,
        "2026-12-02T11:00:00Z",
        Some(TokenLimit::Tokens(100_000)),
        None,
    );
    assert_eq!(lasting.windows[0].limit.and_then(|l| l.runs_out_at), None);
    assert_eq!(lasting.windows[0].burn.tokens_per_hour, 2400);
}

#[test]
fn max_is_the_highest_window_that_has_ended() {
    let entries = [
        response("2026-12-01T01:00:00Z", "a", 500),
        response("2026-12-01T08:00:00Z", "a", 900),
        response("2026-12-01T14:00:00Z", "a", 700),
        // The active window, larger than any: not its own limit.
        response("2026-12-02T10:00:00Z", "a", 5000),
    ];
    let report = make(
        &entries,
        "2026-12-02T10:30:00Z",
        Some(TokenLimit::HighestPast),
        None,
    );
    assert_eq!(report.token_limit, Some(900));
    assert_eq!(
        report.token_limit_source.as_deref(),
        Some("highest_past_window")
    );
    // No past window: no limit, though one was asked for.
    let alone = make(
        &entries[3..],
        "2026-12-02T10:30:00Z",
        Some(TokenLimit::HighestPast),
        None,
    );
    assert_eq!(alone.token_limit, None);
    assert_eq!(
        alone.token_limit_source.as_deref(),
        Some("highest_past_window")
    );
    assert!(alone.windows[0].limit.is_none());
}

#[test]
fn two_work_sessions_interleaved_in_one_window_get_exactly_their_own_shares() {
    let work_session = |id: &str, provider_id: &str, started: &str| {
        crate::transcripts::usage::test_support::work_session(
            id,
            provider_id,
            started,
            "app",
            r#","client_name":"claude-code""#,
        )
    };
    let one = work_session(
        "019c0000-0000-7000-8000-000000000001",
        "agent-one",
        "2026-12-02T09:00:00.000Z",
    );
    let two = work_session(
        "019c0000-0000-7000-8000-000000000002",
        "agent-two",
        "2026-12-02T09:00:00.000Z",
    );
    let entries = [
        response("2026-12-02T10:00:00Z", "agent-one", 300_000),
        response("2026-12-02T10:01:00Z", "agent-two", 100_000),
        response("2026-12-02T10:02:00Z", "agent-one", 300_000),
        response("2026-12-02T10:03:00Z", "stray", 50_000),
        response("2026-12-02T10:04:00Z", "agent-two", 250_000),
    ];
    let sessions = [one.clone(), two.clone()];
    let report = make(&entries, "2026-12-02T10:30:00Z", None, Some(&sessions));
    let shares: Vec<(ShareOf, &str, u64, u64, f64)> = report.windows[0]
        .sessions
        .iter()
        .map(|s| {
            (
                s.of,
                s.key.as_str(),
                s.responses,
                s.total_tokens,
                s.share_percent,
            )
        })
        .collect();
    assert_eq!(
        shares,
        [
            (ShareOf::WorkSession, one.path.as_str(), 2, 600_000, 60.0),
            (ShareOf::WorkSession, two.path.as_str(), 2, 350_000, 35.0),
            (ShareOf::AgentSession, "stray", 1, 50_000, 5.0),
        ]
    );
    assert_eq!(
        report.windows[0].sessions[0].session_id,
        Some(one.session_id)
    );
    assert_eq!(report.windows[0].sessions[2].session_id, None);
    // Without a ledger every share is an agent session's.
    let plain = make(&entries, "2026-12-02T10:30:00Z", None, None);
    assert!(
        plain.windows[0]
            .sessions
            .iter()
            .all(|s| s.of == ShareOf::AgentSession)
    );
    assert_eq!(plain.windows[0].sessions[0].key, "agent-one");
}

#[test]
fn nothing_gives_no_windows() {
    let report = make(
        &[],
        "2026-12-02T10:30:00Z",
        Some(TokenLimit::HighestPast),
        None,
    );
    assert!(report.windows.is_empty());
    assert!(report.active().is_none());
}

proptest::proptest! {
    /// Whatever the schedule: every response falls in exactly one window, inside its span;
    /// windows start on the hour, do not overlap, and a new one opens only at or after the
    /// previous one's end; the windows' tokens add up to all of them.
    #[test]
    fn windows_split_any_schedule_whole(gaps in proptest::collection::vec(0i64..400, 1..80)) {
        let mut minute = 0i64;
        let entries: Vec<UsageEntry> = gaps
            .iter()
            .map(|gap| {
                minute += gap;
                let mut e = response("2026-12-01T00:00:00Z", "a", 7);
                e.at = Timestamp::from_millis(e.at.millis() + minute * 60_000);
                e
            })
            .collect();
        let report = make(&entries, "2027-01-01T00:00:00Z", None, None);
        let mut oldest_first = report.windows.clone();
        oldest_first.reverse();
        let total: u64 = oldest_first.iter().map(|w| w.total_tokens).sum();
        proptest::prop_assert_eq!(total, 7 * entries.len() as u64);
        for pair in oldest_first.windows(2) {
            proptest::prop_assert!(pair[1].start >= pair[0].end);
            proptest::prop_assert!(pair[1].first_at >= pair[0].end);
        }
        for w in &oldest_first {
            proptest::prop_assert_eq!(w.start.millis() % HOUR_MS, 0);
            proptest::prop_assert_eq!(w.end.millis() - w.start.millis(), FIVE_HOURS_MS);
            proptest::prop_assert!(w.first_at >= w.start && w.last_at < w.end);
            let inside = entries.iter().filter(|e| e.at >= w.start && e.at < w.end).count();
            proptest::prop_assert_eq!(inside as u64, w.responses);
        }
    }
}
