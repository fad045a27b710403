//! Budget rules measured against figures worked out by hand.

use super::*;
use crate::time::UtcZone;
use crate::transcripts::usage::summed_windows::Sum;
use crate::transcripts::usage::test_support::{at, response, unit_prices as prices};
use std::sync::Arc;

/// A response costing `dollars`.
fn spend(when: &str, session: &str, dollars: u64) -> UsageEntry {
    response(when, session, dollars * 1_000_000)
}

/// Work session `id` of `project`, started on 1 December with agent session `provider_id`.
fn session(id: &str, provider_id: &str, project: &str, extra: &str) -> Session {
    crate::transcripts::usage::test_support::work_session(
        id,
        provider_id,
        "2026-12-01T00:00:00.000Z",
        project,
        extra,
    )
}

fn policy(toml_like: &str) -> BudgetPolicy {
    serde_json::from_str(toml_like).unwrap()
}

#[test]
fn each_rule_is_measured_over_its_own_period_and_scope() {
    let app = session(
        "019c0000-0000-7000-8000-000000000001",
        "a",
        "app",
        r#","branch":"feature/x""#,
    );
    let web = session("019c0000-0000-7000-8000-000000000002", "b", "web", "");
    let entries = [
        spend("2026-11-30T23:00:00Z", "a", 7), // last month, last week (Monday 30 Nov)
        spend("2026-12-01T10:00:00Z", "a", 5), // this month, yesterday
        spend("2026-12-02T09:00:00Z", "a", 30),
        spend("2026-12-02T10:00:00Z", "b", 12),
        // Another folder's: no work session's, but all work's.
        UsageEntry {
            project: Some(Arc::from("/elsewhere")),
            ..spend("2026-12-02T10:30:00Z", "stray", 1)
        },
    ];
    let policy = policy(
        r#"{"day_usd":50,"week_usd":100,"month_usd":40,"window_usd":45,
            "project":{"app":{"day_usd":25}},"branch":{"feature/x":{"week_usd":200}}}"#,
    );
    policy.check().unwrap();
    let sums: Vec<Sum> = entries.iter().cloned().map(Sum::one).collect();
    let status = evaluate(
        &policy,
        &Measure {
            entries: &entries,
            sums: &sums,
            sessions: &[app.clone(), web.clone()],
            root: None,
            agent_limits: &[],
            prices: &prices(),
            zone: &UtcZone,
        },
        at("2026-12-02T11:00:00Z"),
    );
    let figures: Vec<(&str, f64, f64, Level)> = status
        .rules
        .iter()
        .map(|r| (r.key.as_str(), r.spent, r.used_percent, r.level))
        .collect();
    assert_eq!(
        figures,
        [
            // Today: 30 + 12 + 1.
            ("day_usd", 43.0, 86.0, Level::Warn),
            // The week from Monday 30 November: everything.
            ("week_usd", 55.0, 55.0, Level::Ok),
            // December: 5 + 30 + 12 + 1.
            ("month_usd", 48.0, 120.0, Level::Over),
            // The open window began at 09:00: 30 + 12 + 1.
            ("window_usd", 43.0, 95.56, Level::Warn),
            ("project.app.day_usd", 30.0, 120.0, Level::Over),
            ("branch.feature/x.week_usd", 42.0, 21.0, Level::Ok),
        ]
    );
    let day = &status.rules[0];
    assert_eq!(day.since, Some(at("2026-12-02T00:00:00Z")));
    assert_eq!(day.until, Some(at("2026-12-03T00:00:00Z")));
    assert_eq!(status.rules[3].since, Some(at("2026-12-02T09:00:00Z")));
    assert_eq!(status.worst(), Level::Over);
    // Both sessions are over the monthly limit for all work; the app's project rule is the
    // second that holds it.
    assert_eq!(
        status.over_for(&app).map(|r| r.key.as_str()),
        Some("month_usd")
    );
    assert_eq!(
        status.over_for(&web).map(|r| r.key.as_str()),
        Some("month_usd")
    );
    assert_eq!(
        status.rules[2].describe(),
        "$48.00 of $40.00 a month for all work (120 %)"
    );
    // A waiver of this month's rule leaves the project's for the app, nothing for the web.
    let mut waived = app.clone();
    waived.budget_waivers.push(status.rules[2].mark());
    assert_eq!(
        status.over_for(&waived).map(|r| r.key.as_str()),
        Some("project.app.day_usd")
    );
    let mut web_waived = web;
    web_waived.budget_waivers.push(status.rules[2].mark());
    assert_eq!(status.over_for(&web_waived), None);
    assert!(
        status.rules[2]
            .mark()
            .starts_with("month_usd@2026-12-01T00:00:00.000Z")
    );
}

#[test]
fn a_plan_share_comes_from_what_the_agents_reported() {
    use crate::transcripts::limits::{LimitWindow, PlanLimits};
    let reported = PlanLimits {
        provider: Provider::Codex,
        observed_at: at("2026-12-02T10:00:00Z"),
        limit_id: None,
        plan_type: None,
        primary: Some(LimitWindow {
            used_percent: 92.0,
            window_minutes: Some(300),
            resets_at: Some(at("2026-12-02T13:00:00Z")),
        }),
        secondary: None,
    };
    let policy = policy(r#"{"window_percent":90,"agent":{"claude":{"window_percent":50}}}"#);
    let measure = |now: &str| {
        evaluate(
            &policy,
            &Measure {
                entries: &[],
                sums: &[],
                sessions: &[],
                root: None,
                agent_limits: std::slice::from_ref(&reported),
                prices: &prices(),
                zone: &UtcZone,
            },
            at(now),
        )
    };
    let status = measure("2026-12-02T11:00:00Z");
    assert_eq!(status.rules[0].spent, 92.0);
    assert_eq!(status.rules[0].level, Level::Over);
    assert_eq!(status.rules[0].until, Some(at("2026-12-02T13:00:00Z")));
    // Claude's own plan reported nothing: its rule is not touched by Codex's figure.
    assert_eq!(status.rules[1].spent, 0.0);
    // Past the reset, the window is empty.
    assert_eq!(measure("2026-12-02T13:00:00Z").rules[0].level, Level::Ok);
}

#[test]
fn figures_that_are_no_limits_are_refused_by_name() {
    for (text, key) in [
        (r#"{"day_usd":0}"#, "day_usd"),
        (r#"{"window_percent":120}"#, "window_percent"),
        (r#"{"warn_percent":-1}"#, "warn_percent"),
        (
            r#"{"project":{"app":{"week_usd":-5}}}"#,
            "project.app.week_usd",
        ),
    ] {
        let err = policy(text).check().unwrap_err();
        assert!(err.message.contains(key), "{text}: {}", err.message);
    }
    assert!(serde_json::from_str::<BudgetPolicy>(r#"{"daily_usd":5}"#).is_err());
    assert!(policy("{}").is_empty());
}
