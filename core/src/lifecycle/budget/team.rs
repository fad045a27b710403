//! The team's budget: limits over every machine's work that a person keeps in the team
//! database, measured on the sums of every machine's usage (this machine's from its own index,
//! the others' as they sent them). It limits all of the team's work per day, week, month or
//! five-hour window, in dollars; finer scopes and plan shares stay in each workspace's policy,
//! where the work sessions they name are known.

use super::{BudgetPolicy, Measure, RuleState, Scope, evaluate};
use crate::error::{Error, Result};
use crate::time::Timestamp;

/// The names a team budget takes, as `baton team budget set NAME=VALUE` writes them.
pub const SETTINGS: [&str; 5] = [
    "day_usd",
    "week_usd",
    "month_usd",
    "window_usd",
    "warn_percent",
];

impl BudgetPolicy {
    /// Checks a policy as a team budget: the figures as [`BudgetPolicy::check`] does, and
    /// nothing a team budget cannot measure (finer scopes, a share of a plan's window).
    pub fn check_team(&self) -> Result<()> {
        self.check()?;
        let finer = [
            ("project", self.project.is_empty()),
            ("agent", self.agent.is_empty()),
            ("branch", self.branch.is_empty()),
            ("mission", self.mission.is_empty()),
        ];
        if let Some((name, _)) = finer.iter().find(|(_, empty)| !empty) {
            return Err(Error::invalid(
                "budget",
                format!(
                    "a team budget limits all of the team's work; a `{name}` limit belongs in the workspace's [budget.{name}.NAME] in .baton/config.toml"
                ),
            ));
        }
        if self.window_percent.is_some() {
            return Err(Error::invalid(
                "budget",
                "a team budget is in dollars: `window_percent` is a share of one account's plan; set it in the workspace's [budget] in .baton/config.toml",
            ));
        }
        Ok(())
    }

    /// Sets (`Some`) or removes (`None`) one of the team budget's [`SETTINGS`] by name,
    /// checking the figure (a policy refused is left as it was).
    pub fn set_team(&mut self, name: &str, value: Option<f64>) -> Result<()> {
        let mut changed = self.clone();
        let slot = match setting(&mut changed, name) {
            Some(slot) => slot,
            None if name.contains('.') => {
                return Err(Error::invalid(
                    "budget",
                    format!(
                        "`{name}`: a team budget limits all of the team's work; limits for a project, agent, branch or mission belong in the workspace's [budget] in .baton/config.toml"
                    ),
                ));
            }
            None => {
                return Err(Error::invalid(
                    "budget",
                    format!(
                        "`{name}` is not a team budget setting: give one of {}",
                        SETTINGS.join(", ")
                    ),
                ));
            }
        };
        *slot = value;
        changed.check_team()?;
        *self = changed;
        Ok(())
    }
}

impl BudgetPolicy {
    /// One of the team budget's [`SETTINGS`] by name (`None` when not set).
    pub fn team_setting(&self, name: &str) -> Option<f64> {
        setting(&mut self.clone(), name).and_then(|value| *value)
    }
}

/// The field a team budget's setting names.
fn setting<'a>(policy: &'a mut BudgetPolicy, name: &str) -> Option<&'a mut Option<f64>> {
    match name {
        "day_usd" => Some(&mut policy.day_usd),
        "week_usd" => Some(&mut policy.week_usd),
        "month_usd" => Some(&mut policy.month_usd),
        "window_usd" => Some(&mut policy.window_usd),
        "warn_percent" => Some(&mut policy.warn_percent),
        _ => None,
    }
}

/// The team budget's rules measured at `now` on `measure`, whose sums are the whole team's:
/// each named `team.…` and covering every work session.
pub fn evaluate_team(
    policy: &BudgetPolicy,
    measure: &Measure<'_>,
    now: Timestamp,
) -> Vec<RuleState> {
    evaluate(policy, measure, now)
        .rules
        .into_iter()
        .filter(|rule| rule.scope == Scope::All)
        .map(|mut rule| {
            rule.scope = Scope::Team;
            rule.key = format!("team.{}", rule.key);
            rule
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_team_budget_takes_its_settings_and_refuses_what_it_cannot_measure() {
        let mut policy = BudgetPolicy::default();
        policy.set_team("day_usd", Some(50.0)).unwrap();
        policy.set_team("warn_percent", Some(70.0)).unwrap();
        assert_eq!(
            (policy.day_usd, policy.warn_percent),
            (Some(50.0), Some(70.0))
        );
        policy.set_team("day_usd", None).unwrap();
        assert_eq!(policy.day_usd, None);
        let err = policy
            .set_team("project.app.day_usd", Some(5.0))
            .unwrap_err();
        assert!(
            err.message.contains("belong in the workspace's [budget]"),
            "{}",
            err.message
        );
        let err = policy.set_team("daily_usd", Some(5.0)).unwrap_err();
        assert!(err.message.contains("day_usd, week_usd"), "{}", err.message);
        let err = policy.set_team("week_usd", Some(-1.0)).unwrap_err();
        assert!(err.message.contains("week_usd = -1"), "{}", err.message);
        assert_eq!(policy.week_usd, None, "a refused figure changes nothing");
        let mut scoped = BudgetPolicy::default();
        scoped
            .project
            .insert("app".into(), super::super::Limits::default());
        assert!(
            scoped
                .check_team()
                .unwrap_err()
                .message
                .contains("[budget.project.NAME]")
        );
        let shared = BudgetPolicy {
            window_percent: Some(90.0),
            ..BudgetPolicy::default()
        };
        assert!(
            shared
                .check_team()
                .unwrap_err()
                .message
                .contains("window_percent")
        );
    }

    #[test]
    fn team_rules_are_named_for_the_team_and_cover_every_session() {
        use crate::time::UtcZone;
        use crate::transcripts::usage::summed_windows::Sum;
        use crate::transcripts::usage::test_support::{at, response, unit_prices, work_session};
        let mine = work_session(
            "019c0000-0000-7000-8000-000000000001",
            "a",
            "2026-12-01T00:00:00.000Z",
            "app",
            "",
        );
        // This machine's $4 and another machine's $5 today; another's $9 yesterday.
        let sums: Vec<Sum> = [
            response("2026-12-01T12:00:00Z", "b", 9_000_000),
            response("2026-12-02T09:00:00Z", "a", 4_000_000),
            response("2026-12-02T09:30:00Z", "b", 5_000_000),
        ]
        .into_iter()
        .map(Sum::one)
        .collect();
        let mut policy = BudgetPolicy::default();
        policy.set_team("day_usd", Some(10.0)).unwrap();
        policy.set_team("warn_percent", Some(90.0)).unwrap();
        let rules = evaluate_team(
            &policy,
            &Measure {
                entries: &[],
                sums: &sums,
                sessions: std::slice::from_ref(&mine),
                root: None,
                agent_limits: &[],
                prices: &unit_prices(),
                zone: &UtcZone,
            },
            at("2026-12-02T10:00:00Z"),
        );
        assert_eq!(rules.len(), 1);
        let rule = &rules[0];
        assert_eq!((rule.key.as_str(), rule.spent), ("team.day_usd", 9.0));
        assert_eq!(
            rule.level,
            super::super::Level::Warn,
            "90 % is its warning share"
        );
        assert!(rule.scope.covers(&mine));
        assert_eq!(
            rule.describe(),
            "$9.00 of $10.00 a day for the whole team (90 %)"
        );
        assert!(rule.mark().starts_with("team.day_usd@2026-12-02T00:00:00"));
    }
}
