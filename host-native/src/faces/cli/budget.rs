//! `baton budget status|check` and `baton team budget` on the command line: the workspace's and
//! the team's budget rules measured now, as a table (spent, limit, share, period) and as JSON;
//! `check` fails with BUDGET_EXCEEDED for scripts; the team's budget set and cleared by a
//! person.

use crate::faces::cli::args::{BudgetCommand, FailAt, TeamBudgetAction, TeamBudgetArgs};
use crate::faces::cli::{Cli, Output, ledger_for, to_json};
use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table};
use baton_core::Error;
use baton_core::lifecycle::budget::{Level, Period, RuleState, Unit};

pub(crate) fn run(cli: &Cli, command: &BudgetCommand) -> Result<Output, Error> {
    let ledger = ledger_for(cli)?;
    let policy = crate::ops::engine::policy(&ledger)?;
    let Some(budgets) = crate::ops::budget::status(&ledger, &policy)? else {
        let none = serde_json::json!({ "rules": [], "configured": false });
        return Ok(Output {
            human: format!(
                "[ok] No budget: add a [budget] table to {} (baton budget --help shows one), or set the team's with `baton team budget set`",
                ledger.dir().join(crate::config::FILE).display()
            ),
            json: none.into(),
        });
    };
    let json = to_json(&budgets)?;
    if let BudgetCommand::Check { fail_at } = command {
        let failing = match fail_at {
            FailAt::Warn => Level::Warn,
            FailAt::Over => Level::Over,
        };
        let failed: Vec<&RuleState> = budgets
            .status
            .rules
            .iter()
            .filter(|r| r.level >= failing)
            .collect();
        if !failed.is_empty() {
            let described: Vec<String> = failed
                .iter()
                .map(|r| format!("`{}` {}", r.key, r.describe()))
                .collect();
            return Err(Error::budget_exceeded(
                &described,
                serde_json::to_value(&failed).unwrap_or_default(),
            ));
        }
    }
    let style = Style::for_stdout(cli.color);
    Ok(Output {
        human: table(&budgets, &style),
        json: json.into(),
    })
}

/// The rules as a person reads them.
fn table(budgets: &crate::ops::budget::Budgets, style: &Style) -> String {
    let status = &budgets.status;
    let over = status
        .rules
        .iter()
        .filter(|r| r.level == Level::Over)
        .count();
    let warn = status
        .rules
        .iter()
        .filter(|r| r.level == Level::Warn)
        .count();
    // The team's budget has a warning share of its own.
    let shares: std::collections::BTreeSet<String> = status
        .rules
        .iter()
        .map(|r| format!("{:.0} %", r.warn_percent))
        .collect();
    let mut out = format!(
        "[{}] Budgets: {} rule{}, {over} at the limit, {warn} past {}",
        match status.worst() {
            Level::Over => "error",
            Level::Warn => "warn",
            Level::Ok => "ok",
        },
        status.rules.len(),
        if status.rules.len() == 1 { "" } else { "s" },
        if shares.len() == 1 {
            shares.into_iter().next().unwrap_or_default()
        } else {
            "its warning share".to_owned()
        }
    );
    let mut table = Table::new(vec![
        Column::text("RULE").cut(Fit::Start),
        Column::text("FOR").cut(Fit::End).droppable(1),
        Column::text("PERIOD").droppable(0),
        Column::number("SPENT"),
        Column::number("LIMIT"),
        Column::number("USED"),
        Column::text("STATE"),
    ]);
    for rule in &status.rules {
        let amount = |v: f64| match rule.unit {
            Unit::Usd => format!("${v:.2}"),
            Unit::Percent => format!("{v:.0} %"),
        };
        let period = match rule.period {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
            Period::Window => "5h window",
        };
        let (state, paint) = match rule.level {
            Level::Over => ("at limit", Paint::Red),
            Level::Warn => ("warning", Paint::Amber),
            Level::Ok => ("ok", Paint::Green),
        };
        table.row(vec![
            rule.key.clone().into(),
            rule.scope.describe().into(),
            period.into(),
            amount(rule.spent).into(),
            amount(rule.limit).into(),
            format!("{:.1} %", rule.used_percent).into(),
            Cell::painted(state, Some(paint)),
        ]);
    }
    out.push('\n');
    out.push_str(&table.render(style));
    if budgets.source == crate::ops::budget::SpendSource::None {
        out.push_str(&format!(
            "\nno transcript index at {}: dollars read 0 until `baton mirror` keeps one",
            budgets.index
        ));
    }
    if over > 0 {
        out.push_str("\nsessions a rule at its limit covers pause at their next brief, report or start; raise the limit, or `baton unpause ID`");
    }
    if let Some(team) = &budgets.team
        && team.budget
    {
        let server = &team.server;
        if budgets.source == crate::ops::budget::SpendSource::None {
            out.push_str(
                "\nthis machine's own usage is not in the team rules: it has no transcript index yet (`baton mirror`)",
            );
        }
        out.push_str(&match team.machines {
            0 => format!(
                "\nteam rules count this machine's usage; no other machine has sent any for these periods to {server} (`baton sync --usage` sends it)"
            ),
            n => format!(
                "\nteam rules count this machine's usage and what {n} other machine{} sent to {server} (`baton sync --usage`)",
                if n == 1 { "" } else { "s" }
            ),
        });
        if let Some(why) = &team.unreachable {
            out.push_str(&format!(
                "\n{server} does not answer now ({why}): its figures of {} are used",
                team.fetched_at
            ));
        }
    }
    out.push_str(&format!(
        "\ndays in {}; spend from the index, prices as `baton usage`",
        budgets.timezone
    ));
    out
}

/// `baton team budget [show|set|clear]`.
pub(crate) fn team(cli: &Cli, args: &TeamBudgetArgs) -> Result<Output, Error> {
    let url = match &args.server.from {
        Some(url) => url.clone(),
        None => crate::ops::sync::budget::team_url(&ledger_for(cli)?)?.ok_or_else(|| {
            Error::invalid(
                "from",
                "say where the team's budget is kept: --from postgres://USER@HOST/DATABASE, BATON_TEAM_URL, or url under [team] or [sync] in .baton/config.toml",
            )
        })?,
    };
    let server = crate::ops::sync::redacted(&url);
    let written = match &args.action {
        None | Some(TeamBudgetAction::Show) => None,
        Some(action) => {
            // The trust boundary: a limit is a person's to raise or remove.
            if let Some(agent) = crate::os::system::calling_agent() {
                return Err(Error::new(
                    baton_core::ErrorCode::ActorNotAllowed,
                    format!(
                        "`{agent}` is a coding agent, and the team budget is a person's to set; ask the person to run this from their own terminal"
                    ),
                )
                .with("actor", agent.as_str())
                .with("actor_kind", "agent")
                .with("operation", "team_budget"));
            }
            let policy = match action {
                TeamBudgetAction::Set { settings } => {
                    let mut policy = crate::ops::sync::budget::read(&url)?
                        .map(|b| b.policy)
                        .unwrap_or_default();
                    for setting in settings {
                        let (name, value) = parse_setting(setting)?;
                        policy.set_team(name, value)?;
                    }
                    Some(policy)
                }
                _ => None,
            };
            Some(crate::ops::sync::budget::write(&url, policy.as_ref())?)
        }
    };
    let held = match written {
        Some(held) => {
            if let Ok(ledger) = ledger_for(cli) {
                crate::ops::sync::budget::forget(&ledger);
            }
            held
        }
        None => crate::ops::sync::budget::read(&url)?,
    };
    let Some(held) = held else {
        return Ok(Output {
            human: format!(
                "[ok] The team on {server} has no budget: `baton team budget set day_usd=200` sets one"
            ),
            json: serde_json::json!({ "server": server, "budget": null }).into(),
        });
    };
    // Where it stands, measured as a pull here would (when this workspace reads that server).
    let ledger = ledger_for(cli)?;
    let reads_it = crate::ops::sync::budget::team_url(&ledger)?
        .is_some_and(|own| crate::ops::sync::redacted(&own) == server);
    let measured = if reads_it {
        let policy = crate::ops::engine::policy(&ledger)?;
        crate::ops::budget::status(&ledger, &policy)?.map(|mut b| {
            b.status
                .rules
                .retain(|r| r.scope == baton_core::lifecycle::budget::Scope::Team);
            b
        })
    } else {
        None
    };
    let limits: Vec<String> = baton_core::lifecycle::budget::team::SETTINGS
        .iter()
        .filter_map(|name| {
            let value = held.policy.team_setting(name)?;
            Some(format!("{name} = {value}"))
        })
        .collect();
    let mut human = format!(
        "[ok] Team budget on {server}: {}; set by {} at {}",
        limits.join(", "),
        held.set_by,
        held.set_at
    );
    match &measured {
        Some(budgets) => {
            human.push('\n');
            human.push_str(&table(budgets, &Style::for_stdout(cli.color)));
        }
        None => human.push_str(&format!(
            "\nthis workspace does not read {server}: add `url` under [team] or [sync] in .baton/config.toml for its pulls to follow the team budget"
        )),
    }
    let json = serde_json::json!({
        "server": server,
        "budget": held,
        "status": measured,
    });
    Ok(Output {
        human,
        json: json.into(),
    })
}

/// `day_usd=200`, `week_usd=$800`, `warn_percent=90`, `month_usd=none`.
fn parse_setting(setting: &str) -> Result<(&str, Option<f64>), Error> {
    let bad = || {
        Error::invalid(
            "settings",
            format!(
                "`{setting}` is not NAME=VALUE: give one of {} with a number, or `none` to remove it (day_usd=200)",
                baton_core::lifecycle::budget::team::SETTINGS.join(", ")
            ),
        )
    };
    let (name, value) = setting.split_once('=').ok_or_else(bad)?;
    let value = value.trim().trim_start_matches('$');
    let value = match value {
        "none" | "off" => None,
        number => Some(number.parse::<f64>().map_err(|_| bad())?),
    };
    Ok((name.trim(), value))
}
