//! `baton inspect` and `baton usage` on the command line, with the usage tables (shared with
//! `baton team usage`).

use crate::faces::cli::args::{GroupByArg, InspectArgs, UsageArgs};
use crate::faces::cli::args::{IndexLocation, QueryIndex};
use crate::faces::cli::{Output, index_path, open_query, to_json};
use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table};
use baton_core::Error;
use baton_core::analyzer::charts::scale::thousands;
use baton_core::transcripts::usage::{CostMode, GroupBy, UsageReport, UsageRow};
use serde_json::Value;
use std::path::PathBuf;

/// Reads one file through the core's ingest (the same one `baton analyze` and the page use)
/// and summarizes it.
pub(crate) fn inspect_file(
    path: &std::path::Path,
) -> Result<baton_core::transcripts::inspect::Inspection, Error> {
    use baton_core::transcripts::inspect::Inspector;
    let mut inspector = Inspector::new(&path.display().to_string());
    if let Some(log) = crate::os::files::log_beside(path) {
        inspector.set_log(log);
    }
    crate::os::files::read_in_chunks(path, |chunk| inspector.push(chunk), |_| {})?;
    inspector.finish()
}

pub(crate) fn inspect(args: InspectArgs) -> Result<Output, Error> {
    let mut human = Vec::new();
    let mut files = Vec::new();
    let mut first_error = None;
    for path in &args.files {
        let shown = path.display().to_string();
        let result = inspect_file(path);
        match result {
            Ok(report) => {
                human.push(report.human_line(&shown));
                let mut value = to_json(&report)?;
                value["path"] = Value::String(shown);
                files.push(value);
            }
            Err(err) => {
                human.push(baton_core::analyzer::text::file_error_line(&shown, &err));
                files.push(serde_json::json!({ "path": shown, "error": err }));
                first_error.get_or_insert(err);
            }
        }
    }
    if let Some(err) = first_error {
        return Err(Error {
            details: serde_json::json!({ "files": files })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..err
        });
    }
    Ok(Output {
        human: human.join("\n"),
        json: serde_json::json!({ "files": files, "total": files.len() }).into(),
    })
}

/// What `baton usage` was asked, as the report's options: its zone, and whether it asks for
/// the five-hour windows.
pub(crate) fn options_of(
    cli: &crate::faces::cli::Cli,
    args: &UsageArgs,
) -> Result<
    (
        crate::ops::usage::UsageOptions,
        crate::os::zone::HostZone,
        bool,
    ),
    Error,
> {
    let (zone, since, until) = args.window.resolve()?;
    let blocks = args.group_by == GroupByArg::Blocks;
    if !blocks && let Some(flag) = args.blocks.any_given() {
        return Err(Error::invalid(
            "group_by",
            format!("{flag} belongs to the windows report: use `baton usage blocks {flag}`"),
        ));
    }
    if blocks && args.own_only {
        return Err(Error::invalid(
            "own_only",
            "a plan's window meters every response, a sub-agent's included: `--own-only` belongs to the other reports",
        ));
    }
    if blocks && args.work {
        return Err(Error::invalid(
            "work",
            "windows go to work sessions with --by-session: use `baton usage blocks --by-session`",
        ));
    }
    // Rows by branch, mission, pull request or chain are work sessions' rows, rolled up.
    let work = args.work || GroupBy::from(args.group_by).is_by_work();
    let mut options = crate::ops::usage::UsageOptions {
        group_by: args.group_by.into(),
        providers: args.provider.providers(),
        since,
        until,
        explicit: args.folders().into_keys().collect(),
        // Every agent's: those whose files keep no tokens are named, not counted.
        folders: baton_core::transcripts::providers::REGISTRY
            .iter()
            .filter(|entry| entry.kind != baton_core::transcripts::providers::Kind::Export)
            .map(|entry| {
                let named = args.folders().remove(&entry.provider);
                let dirs =
                    named.unwrap_or_else(|| crate::os::places::provider_dirs(entry.provider));
                (entry.provider, dirs)
            })
            .collect(),
        prices: args.prices.clone(),
        cost_mode: args.window.cost_mode.into(),
        zone: zone.clone(),
        work_sessions: None,
        work_focus: None,
        windows: None,
        work_root: None,
        own_only: args.own_only,
    };
    if args.work && GroupBy::from(args.group_by) != GroupBy::Session {
        return Err(Error::invalid(
            "work",
            "--work gives one row per work session: use `baton usage session --work`",
        ));
    }
    if work {
        crate::ops::usage::by_work_sessions(&mut options, &crate::faces::cli::ledger_for(cli)?)?;
    }
    if blocks {
        // Each window's use goes to this ledger's work sessions when asked who used it.
        let ask = super::windows::ask(&args.blocks);
        options.windows = Some(ask.options(crate::os::system::now()?));
        if ask.by_session {
            crate::ops::usage::by_work_sessions(
                &mut options,
                &crate::faces::cli::ledger_for(cli)?,
            )?;
        }
    }
    Ok((options, zone, blocks))
}

/// `baton usage`: the transcripts' report (`--source telemetry|both` and `--check` are the
/// OpenTelemetry face's, [`super::otel::usage_reported`]).
pub(crate) fn usage(cli: &crate::faces::cli::Cli, args: &UsageArgs) -> Result<Output, Error> {
    let (options, zone, _) = options_of(cli, args)?;
    let report = match &args.index {
        Some(path) => {
            let index = QueryIndex {
                location: IndexLocation {
                    index: (!path.is_empty()).then(|| PathBuf::from(path)),
                },
                sync: args.sync,
            };
            let (path, connection) = open_query(cli, &index)?;
            crate::ops::mirror::usage::report(&connection, &path, &options)?
        }
        None => crate::ops::usage::report(&options)?,
    };
    let style = Style::for_stdout(cli.color);
    Ok(Output {
        human: if let Some(windows) = &report.windows {
            if args.csv {
                windows.to_csv().trim_end().to_owned()
            } else {
                super::windows::table(windows, &style, &zone, &usage_notes(&report))
            }
        } else if args.csv {
            report.to_csv().trim_end().to_owned()
        } else if report.group_by == GroupBy::Session && report.work_sessions.is_none() {
            let index = index_path(cli, &IndexLocation { index: None }).ok();
            session_usage_table(&report, &style, &zone, index.as_deref())
        } else {
            usage_table(&report, &style)
        },
        json: to_json(&report)?.into(),
    })
}

/// `baton usage session` as a person reads it: each agent session when it was last active, whose
/// it is, its project and title (the mirror's, when an index has it), then its tokens and cost;
/// the latest last. The totals and notes as [`usage_table`] has them.
fn session_usage_table(
    report: &UsageReport,
    style: &Style,
    zone: &crate::os::zone::HostZone,
    index: Option<&std::path::Path>,
) -> String {
    let titles = index
        .filter(|p| p.is_file())
        .and_then(|p| crate::index::open_existing(p).ok())
        .map(|connection| {
            let mut titles = std::collections::HashMap::new();
            if let Ok(mut statement) =
                connection.prepare("SELECT title FROM conversations WHERE provider_id = ?1 LIMIT 1")
            {
                for row in &report.rows {
                    if let Ok(title) =
                        statement.query_row([&row.key], |r| r.get::<_, Option<String>>(0))
                        && let Some(title) = title
                    {
                        titles.insert(row.key.clone(), title);
                    }
                }
            }
            titles
        })
        .unwrap_or_default();
    let rows = report.rows.len();
    let mut out = format!(
        "[ok] Usage by session: {rows} session{}, the latest last",
        if rows == 1 { "" } else { "s" }
    );
    let mut table = Table::new(vec![
        Column::text("LAST ACTIVE"),
        Column::text("PROVIDER").droppable(2),
        Column::text("PROJECT").cut(Fit::Start).droppable(1),
        Column::text("SESSION").cut(Fit::Start).droppable(3),
        Column::text("TITLE")
            .cut(Fit::End)
            .comfortable(16)
            .droppable(0),
        Column::number("TOTAL"),
        Column::number("COST USD"),
    ]);
    // Sub-agents' part of the cost, when any sub-agent worked.
    let delegated = shows_delegated(report);
    if delegated {
        table.push(Column::number("SUB-AGENTS").droppable(4));
    }
    let when = |at: Option<baton_core::Timestamp>| {
        use baton_core::time::Zone;
        at.and_then(|at| {
            let shifted = at.millis() + i64::from(zone.offset_seconds(at)) * 1000;
            chrono::DateTime::from_timestamp_millis(shifted)
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        })
        .unwrap_or_else(|| "-".to_owned())
    };
    for row in &report.rows {
        let mut cells: Vec<Cell> = vec![
            when(row.last_at).into(),
            row.provider
                .map(|p| crate::wire_name(&p))
                .unwrap_or_default()
                .into(),
            row.project.clone().unwrap_or_default().into(),
            row.key.clone().into(),
            titles
                .get(&row.key)
                .cloned()
                .unwrap_or_else(|| "-".to_owned())
                .into(),
            thousands(row.total_tokens).into(),
            format!("{:.2}", row.cost_usd).into(),
        ];
        if delegated {
            cells.push(format!("{:.2}", row.delegated_cost_usd).into());
        }
        table.row(cells);
    }
    let mut cells: Vec<Cell> = vec![
        Cell::painted("total", Some(Paint::Bold)),
        "".into(),
        "".into(),
        "".into(),
        "".into(),
        thousands(report.totals.total_tokens).into(),
        format!("{:.2}", report.totals.cost_usd).into(),
    ];
    if delegated {
        cells.push(format!("{:.2}", report.totals.delegated_cost_usd).into());
    }
    table.row(cells);
    out.push('\n');
    out.push_str(&table.render(style));
    out.push_str(&usage_notes(report));
    out
}

/// The usage report as a person reads it: one row per group and the totals, fitted to the
/// width; then the models with no price or priced through an alias, what was not counted,
/// and where the cost and the days come from.
pub(crate) fn usage_table(report: &UsageReport, style: &Style) -> String {
    usage_table_keyed(report, style, None)
}

/// [`usage_table`], its rows keyed by something the core's grouping does not name (the team's
/// machines): `(noun, header)`.
pub(crate) fn usage_table_keyed(
    report: &UsageReport,
    style: &Style,
    key: Option<(&str, &'static str)>,
) -> String {
    let (noun, key_header) = key.unwrap_or(match report.group_by {
        GroupBy::Daily => ("day", "DAY"),
        GroupBy::Weekly => ("week", "WEEK"),
        GroupBy::Monthly => ("month", "MONTH"),
        GroupBy::Session if report.work_sessions.is_some() => ("work session", "WORK SESSION"),
        GroupBy::Session => ("session", "SESSION"),
        GroupBy::Model => ("model", "MODEL"),
        GroupBy::Project => ("project", "PROJECT"),
        GroupBy::Branch => ("branch", "BRANCH"),
        GroupBy::Mission => ("mission", "MISSION"),
        GroupBy::PullRequest => ("pull request", "PULL REQUEST"),
        GroupBy::Chain => ("hand-off chain", "CHAIN"),
    });
    let rows = report.rows.len();
    let plural = if rows == 1 {
        ""
    } else if noun.ends_with("ch") {
        "es"
    } else {
        "s"
    };
    let mut out = format!("[ok] Usage by {noun}: {rows} {noun}{plural}");
    let by_model = report.group_by == GroupBy::Model && key.is_none();
    let short = baton_core::transcripts::usage::short_model_name;
    // Sub-agents' part of the cost, when any sub-agent worked.
    let delegated = shows_delegated(report);
    let mut columns = vec![
        // Session and project keys are paths: their tail tells them apart. A model's name is
        // shown short (`sonnet-4.5`; JSON keeps the full id), its start first.
        Column::text(key_header).cut(if by_model { Fit::End } else { Fit::Start }),
        Column::number("INPUT"),
        Column::number("OUTPUT"),
        Column::number("CACHE WRITE").droppable(1),
        Column::number("CACHE READ").droppable(2),
        Column::number("TOTAL"),
        Column::number("COST USD"),
    ];
    if delegated {
        columns.push(Column::number("SUB-AGENTS").droppable(3));
    }
    columns.push(Column::text("MODELS").cut(Fit::End).droppable(0));
    let mut table = Table::new(columns);
    let cells = |row: &UsageRow, key: Cell, models: String| -> Vec<Cell> {
        let mut cells = vec![
            key,
            thousands(row.tokens.input_tokens).into(),
            thousands(row.tokens.output_tokens).into(),
            thousands(row.tokens.cache_creation_tokens).into(),
            thousands(row.tokens.cache_read_tokens).into(),
            thousands(row.total_tokens).into(),
            cost_cell(row, &report.unpriced_models).into(),
        ];
        if delegated {
            cells.push(format!("{:.2}", row.delegated_cost_usd).into());
        }
        cells.push(models.into());
        cells
    };
    // A short name two models share (`claude-sonnet-4` and `claude-sonnet-4-20250514`) is
    // no name: those models keep their ids.
    let mut shared: std::collections::HashMap<String, std::collections::BTreeSet<&str>> =
        std::collections::HashMap::new();
    for model in report.rows.iter().flat_map(|r| &r.models) {
        shared.entry(short(model)).or_default().insert(model);
    }
    let name = |model: &str| {
        let brief = short(model);
        if shared.get(&brief).is_some_and(|ids| ids.len() > 1) {
            model.to_owned()
        } else {
            brief
        }
    };
    for row in &report.rows {
        let key = if by_model {
            name(&row.key)
        } else {
            row.key.clone()
        };
        // By model, the row is its model: no list beside it.
        let models: Vec<String> = if by_model {
            Vec::new()
        } else {
            row.models.iter().map(|m| name(m)).collect()
        };
        table.row(cells(row, key.into(), models.join(", ")));
    }
    let models = report.totals.models.len();
    table.row(cells(
        &report.totals,
        Cell::painted("total", Some(Paint::Bold)),
        format!("{models} model{}", if models == 1 { "" } else { "s" }),
    ));
    out.push('\n');
    out.push_str(&table.render(style));
    out.push_str(&usage_notes(report));
    out
}

/// Whether sub-agents' part of the cost is shown: when it is a cent or more.
fn shows_delegated(report: &UsageReport) -> bool {
    report.totals.delegated_cost_usd >= 0.005
}

/// A row's cost as the table shows it: no zero where no price is known. A row of models the
/// price table does not know says `unpriced`; a row that holds one beside priced models
/// marks its cost `*` (the note under the table names them).
fn cost_cell(row: &UsageRow, unpriced: &[String]) -> String {
    let is_unpriced = |model: &String| unpriced.contains(model);
    let cost = format!("{:.2}", row.cost_usd);
    if row.models.is_empty() || !row.models.iter().any(is_unpriced) {
        cost
    } else if row.models.iter().all(is_unpriced) && row.cost_usd == 0.0 {
        "unpriced".to_owned()
    } else {
        format!("{cost}*")
    }
}

/// What a usage report says under its table, each on its own line: the models with no price or
/// priced through an alias, what was not counted, how work sessions were tied, whose costs.
pub(crate) fn usage_notes(report: &UsageReport) -> String {
    let mut out = String::new();
    if !report.unpriced_models.is_empty() {
        out.push_str(&format!(
            "\nno price for: {} (* a cost without them; give prices with --prices FILE)",
            report.unpriced_models.join(", ")
        ));
    }
    for source in &report.missing_sources {
        out.push_str(&format!("\nnot counted: {}", source.describe()));
    }
    if let Some(work) = &report.work_sessions {
        use baton_core::transcripts::usage::work::LinkRule;
        let by_rule = |rule: LinkRule| {
            work.links
                .values()
                .flat_map(|l| &l.transcripts)
                .filter(|t| t.rule == rule)
                .count()
        };
        out.push_str(&format!(
            "\ntranscripts tied: {} by {}, {} by {}",
            by_rule(LinkRule::ProviderSessionId),
            LinkRule::ProviderSessionId.describe(),
            by_rule(LinkRule::ProjectAgentTime),
            LinkRule::ProjectAgentTime.describe()
        ));
        if work.unlinked_responses > 0 {
            out.push_str(&format!(
                "\nnot in any work session: {} response(s) (no session recorded their id, and none or several of the same project and agent were open then)",
                thousands(work.unlinked_responses)
            ));
        }
    }
    if shows_delegated(report) {
        let share =
            report.totals.delegated_cost_usd / report.totals.cost_usd.max(f64::MIN_POSITIVE);
        out.push_str(&format!(
            "\nsub-agents: ${:.2} of ${:.2} ({:.0} %); --own-only leaves them out",
            report.totals.delegated_cost_usd,
            report.totals.cost_usd,
            share * 100.0
        ));
    }
    if crate::ops::usage::tier::codex_priority_since().is_some()
        && report
            .totals
            .models
            .iter()
            .any(|m| m.starts_with("gpt") || m.contains("codex"))
    {
        out.push_str("\nCodex at its priority rates since its config.toml set service_tier = \"priority\" (its rollouts do not say which tier served a turn)");
    }
    for (model, key) in &report.priced_as {
        out.push_str(&format!("\n{model} priced as {key}"));
    }
    if !report.without_tokens.is_empty() {
        // One line for them all (Cursor's three sources say the same thing).
        let titles: Vec<&str> = report
            .without_tokens
            .iter()
            .map(|key| {
                baton_core::transcripts::Provider::named(key)
                    .map_or(key.as_str(), |p| p.entry().title)
            })
            .collect();
        let their = if titles.len() == 1 { "its" } else { "their" };
        out.push_str(&format!(
            "\n{}: no token counts on disk ({their} chats are searchable after `baton mirror`)",
            baton_core::transcripts::filters::spoken_list(&titles)
        ));
    }
    let dated = if report.prices.date.is_empty() || report.cost_mode == CostMode::Display {
        String::new()
    } else {
        format!(" of {}", report.prices.date)
    };
    let how = match report.cost_mode {
        CostMode::Auto => "recorded costs where lines have them, else the price table",
        CostMode::Calculate => "the price table",
        CostMode::Display => "recorded costs only",
    };
    out.push_str(&format!(
        "\ncost: {how}{dated}; days in {}",
        report.timezone
    ));
    out
}
