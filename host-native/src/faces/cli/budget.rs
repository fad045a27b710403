//! `baton budget status|check` on the command line: the workspace's budget rules measured now,
//! as a table (spent, limit, share, period) and as JSON; `check` fails with BUDGET_EXCEEDED for
//! scripts.

use crate::faces::cli::args::{BudgetCommand, FailAt};
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
                "[ok] No budget: add a [budget] table to {} (baton budget --help shows one)",
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
    let mut out = format!(
        "[{}] Budgets: {} rule{}, {over} at the limit, {warn} past {:.0} %",
        match status.worst() {
            Level::Over => "error",
            Level::Warn => "warn",
            Level::Ok => "ok",
        },
        status.rules.len(),
        if status.rules.len() == 1 { "" } else { "s" },
        status.warn_percent
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
    out.push_str(&format!(
        "\ndays in {}; spend from the index, prices as `baton usage`",
        budgets.timezone
    ));
    out
}
