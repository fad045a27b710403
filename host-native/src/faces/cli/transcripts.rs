//! Other tools' transcripts on the command line: `baton inspect`, `baton usage` with its
//! table, and the mirror's commands (`mirror`, `search`, `transcripts list|show`).

use crate::faces::cli::args::{
    IndexLocation, IndexUpkeep, MirrorArgs, QueryIndex, SearchArgs, TranscriptFilters,
    TranscriptFormat, TranscriptsListArgs, TranscriptsRemoveArgs, TranscriptsShowArgs,
    TranscriptsToolsArgs,
};
use crate::faces::cli::args::{InspectArgs, UsageArgs};
use crate::faces::cli::{Output, index_path, open_query, to_json};
use crate::faces::present::Reader;
use crate::faces::table::{Cell, Column, Fit, Paint, Style, Table, shorten};
use crate::human_bytes;
use crate::ops::mirror::query::Filters;
use baton_core::Error;
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
        json: serde_json::json!({ "files": files, "total": files.len() }),
    })
}

pub(crate) fn usage(cli: &crate::faces::cli::Cli, args: &UsageArgs) -> Result<Output, Error> {
    let (zone, since, until) = args.window.resolve()?;
    let options = crate::ops::usage::UsageOptions {
        group_by: args.group_by.into(),
        providers: args.provider.providers(),
        since,
        until,
        explicit_claude_dirs: !args.claude_dirs.is_empty(),
        explicit_codex_dirs: !args.codex_dirs.is_empty(),
        claude_dirs: if args.claude_dirs.is_empty() {
            crate::os::places::default_claude_dirs()
        } else {
            args.claude_dirs.clone()
        },
        codex_dirs: if args.codex_dirs.is_empty() {
            crate::os::places::default_codex_dirs()
        } else {
            args.codex_dirs.clone()
        },
        prices: args.prices.clone(),
        cost_mode: args.window.cost_mode.into(),
        zone: zone.clone(),
        work_sessions: if args.work {
            if GroupBy::from(args.group_by) != GroupBy::Session {
                return Err(Error::invalid(
                    "work",
                    "--work gives one row per work session: use `baton usage session --work`",
                ));
            }
            use baton_core::ledger::store::LedgerView;
            Some(
                crate::faces::cli::ledger_for(cli)?
                    .snapshot()?
                    .all_sessions()?,
            )
        } else {
            None
        },
        work_focus: None,
        work_root: if args.work {
            crate::faces::cli::ledger_for(cli)?
                .dir()
                .parent()
                .map(|root| root.display().to_string())
        } else {
            None
        },
    };
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
        human: if args.csv {
            report.to_csv().trim_end().to_owned()
        } else if report.group_by == GroupBy::Session && report.work_sessions.is_none() {
            let index = index_path(cli, &IndexLocation { index: None }).ok();
            session_usage_table(&report, &style, &zone, index.as_deref())
        } else {
            usage_table(&report, &style)
        },
        json: to_json(&report)?,
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
        table.row(vec![
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
        ]);
    }
    table.row(vec![
        Cell::painted("total", Some(Paint::Bold)),
        "".into(),
        "".into(),
        "".into(),
        "".into(),
        thousands(report.totals.total_tokens).into(),
        format!("{:.2}", report.totals.cost_usd).into(),
    ]);
    out.push('\n');
    out.push_str(&table.render(style));
    out.push_str(&usage_notes(report));
    out
}

/// A count with thousands separated: `1,234,567` (the core's wording, as the page's).
pub(crate) use baton_core::analyzer::charts::scale::thousands;

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
    });
    let rows = report.rows.len();
    let mut out = format!(
        "[ok] Usage by {noun}: {rows} {noun}{}",
        if rows == 1 { "" } else { "s" }
    );
    let by_model = report.group_by == GroupBy::Model && key.is_none();
    let short = baton_core::transcripts::usage::short_model_name;
    let mut table = Table::new(vec![
        // Session and project keys are paths: their tail tells them apart. A model's name is
        // shown short (`sonnet-4.5`; JSON keeps the full id), its start first.
        Column::text(key_header).cut(if by_model { Fit::End } else { Fit::Start }),
        Column::number("INPUT"),
        Column::number("OUTPUT"),
        Column::number("CACHE WRITE").droppable(1),
        Column::number("CACHE READ").droppable(2),
        Column::number("TOTAL"),
        Column::number("COST USD"),
        Column::text("MODELS").cut(Fit::End).droppable(0),
    ]);
    let cells = |row: &UsageRow, key: Cell, models: String| -> Vec<Cell> {
        vec![
            key,
            thousands(row.tokens.input_tokens).into(),
            thousands(row.tokens.output_tokens).into(),
            thousands(row.tokens.cache_creation_tokens).into(),
            thousands(row.tokens.cache_read_tokens).into(),
            thousands(row.total_tokens).into(),
            format!("{:.2}", row.cost_usd).into(),
            models.into(),
        ]
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

/// What a usage report says under its table, each on its own line: the models with no price or
/// priced through an alias, what was not counted, how work sessions were tied, whose costs.
fn usage_notes(report: &UsageReport) -> String {
    let mut out = String::new();
    if !report.unpriced_models.is_empty() {
        out.push_str(&format!(
            "\nno price for: {} (counted as $0; give prices with --prices FILE)",
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
    for (model, key) in &report.priced_as {
        out.push_str(&format!("\n{model} priced as {key}"));
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

fn query_filters(filters: &TranscriptFilters) -> Result<Filters, Error> {
    let zone = crate::os::zone::resolve(None)?;
    Filters::from_words(
        filters.provider.as_deref(),
        filters.project.as_deref(),
        filters.since.as_deref(),
        filters.until.as_deref(),
        &zone,
    )
}

/// `millis` on this machine's clock, or `-`.
fn clock(reader: &Reader, millis: Option<i64>) -> String {
    millis.map_or_else(
        || "-".to_owned(),
        |millis| reader.clock(baton_core::Timestamp::from_millis(millis)),
    )
}

/// `baton mirror`: one pass over the sources, or (`--follow`) a pass whenever they change.
pub(crate) fn mirror(cli: &crate::faces::cli::Cli, args: &MirrorArgs) -> Result<Output, Error> {
    use crate::ops::mirror::{Mirror, follow, settings};
    let path = index_path(cli, &args.location)?;
    let flags = settings::Flags {
        claude_dirs: args.claude_dirs.clone(),
        codex_dirs: args.codex_dirs.clone(),
        chatgpt_dirs: args.chatgpt_dirs.clone(),
        claude_ai_dirs: args.claude_ai_dirs.clone(),
        poll_secs: args.poll_secs,
        no_backfill: args.no_backfill,
    };
    let settings = crate::ops::mirror::settings::resolved(
        &flags,
        crate::faces::cli::ledger_dir(cli).as_deref(),
    );
    let mut mirror = Mirror::open(&path)?;
    if args.follow {
        let watch = if args.poll {
            follow::Watch::Poll
        } else {
            follow::Watch::Notify
        };
        let human = !cli.json;
        if human {
            crate::faces::cli::eprint_line(&format!(
                "Following {} folder(s) into {} (Ctrl-C stops; nothing is lost when it does)",
                settings.roots().count(),
                path.display()
            ));
        }
        follow::follow(&mut mirror, &settings, watch, &mut |batch| {
            // One line per batch (with --json, one JSON object per line); a reader that went
            // away ends the follow, quietly: every pass has already been kept.
            let line = if human {
                crate::faces::cli::terminal_safe(&format!(
                    "{} {}",
                    chrono::Local::now().format("%H:%M:%S"),
                    pass_summary(batch.stats, &path)
                ))
                .into_owned()
            } else {
                serde_json::json!({
                    "index": path.display().to_string(),
                    "pass": batch.stats,
                    "full": batch.full,
                    "took_ms": batch.took.as_millis() as u64,
                })
                .to_string()
            };
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                std::process::exit(0);
            }
        })?;
        unreachable_follow()
    } else {
        let sources = settings.sources();
        let options = settings.pass_options(settings.backfill, true);
        let mut bar = Progress::for_pass(&mirror, &sources);
        let stats = mirror.pass(&sources, options, &mut |stats| bar.update(stats))?;
        bar.finish();
        Ok(Output {
            human: pass_summary(&stats, &path),
            json: serde_json::json!({ "index": path.display().to_string(), "pass": stats }),
        })
    }
}

/// `follow` returns only on an error; the `Ok` it never gives.
fn unreachable_follow() -> Result<Output, Error> {
    Err(Error::internal("the follow stopped without an error"))
}

/// A pass in one line.
fn pass_summary(stats: &crate::ops::mirror::pass::PassStats, path: &std::path::Path) -> String {
    let mut extra = String::new();
    if stats.export_conversations > 0 {
        extra += &format!(
            ", {} conversation(s) from exports",
            stats.export_conversations
        );
    }
    if stats.rereads > 0 {
        extra += &format!(", {} file(s) read again from the start", stats.rereads);
    }
    if stats.missing > 0 {
        extra += &format!(", {} source(s) gone (their rows kept)", stats.missing);
    }
    if stats.skipped_backlog > 0 {
        extra += &format!(
            ", {} file(s) followed from their end (no backfill)",
            stats.skipped_backlog
        );
    }
    if stats.failed > 0 {
        extra += &format!(", {} file(s) not read (see the warnings)", stats.failed);
    }
    if stats.skipped_lines > 0 {
        extra += &format!(
            ", {} line(s) over {} MiB passed over (`baton index stats` lists them)",
            stats.skipped_lines,
            crate::ops::mirror::pass::MAX_LINE_BYTES >> 20
        );
    }
    format!(
        "[ok] Mirrored {} file(s) into {}: {} read, {} line(s), {} new message(s){extra}",
        stats.files,
        path.display(),
        human_bytes(stats.bytes_read),
        stats.lines,
        stats.messages,
    )
}

/// A backfill's progress bar on a terminal: files, MB, rate and time left.
struct Progress {
    total_files: usize,
    total_bytes: u64,
    started: std::time::Instant,
    last_drawn: Option<std::time::Instant>,
    shown: bool,
}

impl Progress {
    /// A bar when stderr is a terminal and the pass has more than 32 MB to read.
    fn for_pass(
        mirror: &crate::ops::mirror::Mirror,
        sources: &[crate::ops::mirror::pass::Source],
    ) -> Progress {
        use std::io::IsTerminal;
        let wanted = std::io::stderr().is_terminal();
        let total_bytes = if wanted {
            crate::ops::mirror::pass::unread_bytes(mirror.connection(), sources)
        } else {
            0
        };
        Progress {
            total_files: sources.len(),
            total_bytes,
            started: std::time::Instant::now(),
            last_drawn: None,
            shown: wanted && total_bytes > 32 << 20,
        }
    }

    fn update(&mut self, stats: &crate::ops::mirror::pass::PassStats) {
        if !self.shown
            || self
                .last_drawn
                .is_some_and(|at| at.elapsed() < std::time::Duration::from_millis(120))
        {
            return;
        }
        self.last_drawn = Some(std::time::Instant::now());
        let seconds = self.started.elapsed().as_secs_f64().max(0.001);
        let rate = stats.bytes_read as f64 / seconds;
        let left = self.total_bytes.saturating_sub(stats.bytes_read) as f64 / rate.max(1.0);
        crate::os::files::draw_progress(
            "Mirroring",
            &format!(
                "{}/{} files, {:.1} MB/s, {:.0} s left, ",
                stats.files,
                self.total_files,
                rate / 1e6,
                left
            ),
            stats.bytes_read,
            self.total_bytes,
        );
    }

    fn finish(&self) {
        if self.shown && self.last_drawn.is_some() {
            crate::os::files::clear_progress();
        }
    }
}

/// What a table shows for a conversation that has no title and said nothing to make one of.
const UNTITLED: &str = "(untitled)";

/// `baton search`: ranked hits from the index: the stored records' (their own section)
/// and the mirrored messages'.
pub(crate) fn search(cli: &crate::faces::cli::Cli, args: &SearchArgs) -> Result<Output, Error> {
    use crate::ops::mirror::query::Include;
    let fields = crate::ops::mirror::query::fields_named(args.fields.as_deref())?;
    let include: Include = match args.include.as_deref() {
        Some(word) => word.parse()?,
        None => Include::All,
    };
    let query = args.words.join(" ");
    // A provider only records use (`openai`) leaves the mirrored side out rather than refused.
    let mirrored_provider = args
        .filters
        .provider
        .as_deref()
        .is_none_or(|name| baton_core::transcripts::Provider::named(name).is_some());
    let mut stored = None;
    // Whether any transcript was ever mirrored: searching records makes an index of its own,
    // which must not pass for one that holds transcripts and found none.
    let mut no_transcripts = None;
    if include.stored() && fields.contains(&baton_core::transcripts::search::Field::Text) {
        let ledger = crate::faces::cli::ledger_for(cli)?;
        let index = index_path(cli, &args.index.location)?;
        if args.index.sync {
            open_query(cli, &args.index)?;
        }
        if include.mirrored() && !index.exists() {
            no_transcripts = Some(index.clone());
        }
        let opened =
            crate::ops::records::open_synced_if_any(&ledger, &index).unwrap_or_else(|err| {
                crate::os::warnings::warn(&format!("stored records not searched: {err}"));
                None
            });
        if let Some((_, connection)) = opened {
            let zone = crate::os::zone::resolve(None)?;
            let filters = Filters::from_words(
                None,
                args.filters.project.as_deref(),
                args.filters.since.as_deref(),
                args.filters.until.as_deref(),
                &zone,
            )?;
            let listing = crate::ops::mirror::query::ListingQuery {
                include,
                limit: i64::from(args.limit),
                offset: 0,
                provider: args.filters.provider.clone(),
                agent_id: None,
                project: filters.project,
                since: filters.since,
                until: filters.until,
                ledger: crate::ops::records::ledger_key(ledger.dir()),
            };
            stored = Some(crate::ops::records::search(
                &connection,
                &index,
                &query,
                &listing,
                i64::from(args.limit),
            )?);
        }
    }
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    // A snippet fills the line under its hit's heading (four columns in), else 160 characters.
    let width = reader
        .style
        .width
        .map_or(160, |w| w.saturating_sub(4))
        .clamp(40, 400);
    let page = if let Some(index) = &no_transcripts {
        crate::os::warnings::warn(&format!(
            "there is no transcript index at {}, so only stored records were searched: run `baton mirror` to make it",
            index.display()
        ));
        None
    } else if include.mirrored() && (mirrored_provider || stored.is_none()) {
        let (path, connection) = open_query(cli, &args.index)?;
        let sources: i64 = connection
            .query_row("SELECT count(*) FROM sources", [], |r| r.get(0))
            .map_err(|e| crate::index::failure("read the index", &path, e))?;
        if sources == 0 {
            crate::os::warnings::warn(&format!(
                "the transcript index at {} holds no transcripts yet: run `baton mirror` to fill it",
                path.display()
            ));
        }
        Some(crate::ops::mirror::query::search(
            &connection,
            &path,
            &query,
            &fields,
            &query_filters(&args.filters)?,
            i64::from(args.limit),
            width,
        )?)
    } else {
        None
    };
    let mut human = String::new();
    // No stored record matching is said only when the messages are not shown either.
    let said = stored
        .as_ref()
        .filter(|(total, _)| *total > 0 || page.is_none());
    if let Some((total, hits)) = said {
        human.push_str(&format!(
            "[ok] {total} stored record(s) match {query:?}{}",
            if *total > hits.len() as i64 {
                format!("; the best {}", hits.len())
            } else {
                String::new()
            }
        ));
        let mut table = Table::new(vec![
            Column::text("RECORD"),
            Column::text("STORED").droppable(1),
            Column::text("PROVIDER").droppable(0),
            Column::text("TITLE").cut(Fit::End).comfortable(16),
            Column::text("SNIPPET").cut(Fit::End).comfortable(30),
        ]);
        for hit in hits {
            table.row(vec![
                hit.id.clone().into(),
                reader.clock(hit.created_at).into(),
                hit.provider.clone().unwrap_or_default().into(),
                hit.title
                    .clone()
                    .unwrap_or_else(|| UNTITLED.to_owned())
                    .into(),
                hit.snippet.clone().into(),
            ]);
        }
        if !hits.is_empty() {
            table.append_to(&mut human, &reader.style);
        }
    }
    let mut json = match &page {
        Some(page) => to_json(page)?,
        None => serde_json::json!({}),
    };
    if let Some((total, hits)) = &stored {
        json["stored_total"] = serde_json::json!(total);
        json["stored_hits"] = to_json(hits)?;
    }
    let Some(page) = page else {
        return Ok(Output { human, json });
    };
    if !human.is_empty() {
        human.push_str("\n\n");
    }
    let exact = page.hits.iter().filter(|h| h.exact).count();
    human.push_str(&format!(
        "[ok] {} message(s) match {query:?}{}{}",
        page.total,
        if page.total > page.hits.len() as i64 {
            format!("; the best {}", page.hits.len())
        } else {
            String::new()
        },
        if exact > 0 && query.split_whitespace().nth(1).is_some() {
            format!(" ({exact} shown with the exact phrase, first)")
        } else {
            String::new()
        }
    ));
    // Each hit: a heading line (the conversation's number for `transcripts show`, when, who,
    // which conversation, where in the message), then its snippet with the matches marked.
    let mut table = Table::new(vec![
        Column::number("#"),
        Column::text("WHEN").droppable(1),
        Column::text("PROVIDER").droppable(0),
        Column::text("ROLE").droppable(2),
        Column::text("IN"),
        Column::text("CONVERSATION").cut(Fit::End).comfortable(16),
    ]);
    for hit in &page.hits {
        table.row(vec![
            hit.conversation.id.to_string().into(),
            clock(&reader, hit.at).into(),
            hit.conversation.provider.clone().into(),
            hit.role.clone().into(),
            hit.field.replace('_', " ").into(),
            hit.conversation
                .title
                .clone()
                .unwrap_or_else(|| UNTITLED.to_owned())
                .into(),
        ]);
    }
    let rendered = if page.hits.is_empty() {
        String::new()
    } else {
        table.render(&reader.style)
    };
    let mut lines = rendered.lines();
    if let Some(header) = lines.next() {
        human.push('\n');
        human.push_str(header);
    }
    for (line, hit) in lines.zip(&page.hits) {
        human.push('\n');
        human.push_str(line);
        human.push_str("\n    ");
        human.push_str(&marked(&hit.snippet, &hit.highlights, &reader.style));
    }
    Ok(Output { human, json })
}

/// `snippet` with each highlighted span painted (on a terminal with colour; plain otherwise).
fn marked(
    snippet: &str,
    highlights: &[(usize, usize)],
    style: &crate::faces::table::Style,
) -> String {
    let chars: Vec<char> = snippet.chars().collect();
    let mut out = String::new();
    let mut at = 0;
    for &(from, to) in highlights {
        if from < at || to > chars.len() {
            continue;
        }
        out.extend(&chars[at..from]);
        let word: String = chars[from..to].iter().collect();
        out.push_str(&style.paint(&word, crate::faces::table::Paint::Amber));
        at = to;
    }
    out.extend(&chars[at.min(chars.len())..]);
    out
}

/// `baton transcripts list`: conversations, newest first.
pub(crate) fn list(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsListArgs,
) -> Result<Output, Error> {
    let include = match args.include.as_deref() {
        Some(word) => word.parse()?,
        None => crate::ops::mirror::query::Include::Mirrored,
    };
    if include != crate::ops::mirror::query::Include::Mirrored {
        return super::records::transcripts_listing(cli, args, include);
    }
    let (path, connection) = open_query(cli, &args.index)?;
    let page = crate::ops::mirror::query::list(
        &connection,
        &path,
        &query_filters(&args.filters)?,
        i64::from(args.limit),
        i64::from(args.offset),
    )?;
    let shown = page.conversations.len() as i64;
    let mut human = format!(
        "[ok] {} conversation(s){} (read one with `baton transcripts show #`)",
        page.total,
        if shown < page.total {
            format!(
                "; {}–{} shown (--offset {} for more)",
                i64::from(args.offset) + 1,
                i64::from(args.offset) + shown,
                i64::from(args.offset) + shown
            )
        } else {
            String::new()
        }
    );
    let mut table = Table::new(vec![
        Column::number("#"),
        Column::text("UPDATED"),
        Column::text("PROVIDER").droppable(1),
        Column::number("MESSAGES"),
        Column::text("PROJECT").cut(Fit::Start).droppable(0),
        Column::text("TITLE").cut(Fit::End).comfortable(20),
    ]);
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    for row in &page.conversations {
        table.row(vec![
            row.id.to_string().into(),
            clock(&reader, row.updated_at).into(),
            row.provider.clone().into(),
            row.messages.to_string().into(),
            row.project.clone().unwrap_or_default().into(),
            row.title
                .clone()
                .unwrap_or_else(|| UNTITLED.to_owned())
                .into(),
        ]);
    }
    table.append_to(&mut human, &reader.style);
    Ok(Output {
        human,
        json: to_json(&page)?,
    })
}

/// `baton transcripts show`: one conversation, rebuilt from the index.
pub(crate) fn show(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsShowArgs,
) -> Result<Output, Error> {
    let (path, connection) = open_query(cli, &args.index)?;
    let branches = match args.branch {
        crate::faces::cli::args::BranchChoice::Active => {
            crate::ops::mirror::query::Branches::Active
        }
        crate::faces::cli::args::BranchChoice::All => crate::ops::mirror::query::Branches::All,
    };
    let shown = crate::ops::mirror::query::show(&connection, &path, &args.reference, branches)?;
    let human = match args.format {
        TranscriptFormat::Markdown => {
            let mut text = shown
                .markdown
                .trim_end()
                .trim_end_matches("---")
                .trim_end()
                .to_owned();
            if branches == crate::ops::mirror::query::Branches::Active && shown.branches > 1 {
                text.push_str(&format!(
                    "\n\n_This is the active branch of {}: `--branch all` shows every one._",
                    shown.branches
                ));
            }
            text
        }
        TranscriptFormat::Json => serde_json::to_string_pretty(&shown.json).unwrap_or_default(),
    };
    Ok(Output {
        human,
        json: serde_json::json!({
            "conversation": to_json(&shown.row)?,
            "branches": shown.branches,
            "active_branch": shown.active_branch,
            "transcript": shown.json,
        }),
    })
}

/// `baton transcripts tools`: the tools called, most first.
pub(crate) fn tools(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsToolsArgs,
) -> Result<Output, Error> {
    let (path, connection) = open_query(cli, &args.index)?;
    let page = crate::ops::mirror::query::tools(
        &connection,
        &path,
        &query_filters(&args.filters)?,
        i64::from(args.limit),
    )?;
    let mut human = format!(
        "[ok] {} tool(s), {} call(s){}",
        page.total,
        thousands(page.calls.max(0) as u64),
        if page.tools.len() < page.total as usize {
            format!("; the {} most called:", page.tools.len())
        } else {
            String::new()
        }
    );
    let mut table = Table::new(vec![
        Column::text("TOOL").cut(Fit::End).comfortable(16),
        Column::number("CALLS"),
        Column::number("ERRORS"),
        Column::number("FAILED"),
        Column::number("CONVERSATIONS").droppable(1),
        Column::text("LAST USED").droppable(0),
    ]);
    let zone = crate::os::zone::resolve(None)?;
    let reader = Reader::for_stdout(cli.color, &zone)?;
    for tool in &page.tools {
        table.row(vec![
            tool.name.clone().into(),
            thousands(tool.calls.max(0) as u64).into(),
            thousands(tool.errors.max(0) as u64).into(),
            format!(
                "{:.1}%",
                tool.errors as f64 * 100.0 / tool.calls.max(1) as f64
            )
            .into(),
            thousands(tool.conversations.max(0) as u64).into(),
            clock(&reader, tool.last_at).into(),
        ]);
    }
    table.append_to(&mut human, &reader.style);
    Ok(Output {
        human,
        json: to_json(&page)?,
    })
}

/// `baton transcripts remove`: one conversation out of the index, on purpose.
pub(crate) fn remove(
    cli: &crate::faces::cli::Cli,
    args: &TranscriptsRemoveArgs,
) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let path = index_path(cli, &args.location)?;
    let row = {
        let connection = crate::index::open_existing(&path)?;
        crate::ops::mirror::query::resolve(&connection, &path, &args.reference)?
    };
    let described = format!(
        "#{} {} {} ({} message(s)){}",
        row.id,
        row.provider,
        row.provider_id,
        row.messages,
        row.title
            .as_deref()
            .map(|t| format!(": {}", shorten(t, 60, Fit::End)))
            .unwrap_or_default()
    );
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::invalid(
                "yes",
                format!("removing {described} cannot be undone: add --yes to remove it"),
            ));
        }
        crate::faces::cli::eprint_line(&format!(
            "Remove {described} from the index? It stays out even while its source is there. [y/N]"
        ));
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            return Err(Error::invalid("yes", "nothing was removed"));
        }
    }
    let mut mirror = crate::ops::mirror::Mirror::open(&path)?;
    let now = crate::os::system::now()?.millis();
    let by = std::env::var("USER").ok();
    let removal = crate::ops::mirror::upkeep::remove(&mut mirror, row.id, now, by.as_deref())?;
    Ok(Output {
        human: format!(
            "[ok] Removed {described}; logged in the index (`baton index stats` counts removals)"
        ),
        json: serde_json::json!({ "index": path.display().to_string(), "removed": to_json(&removal)? }),
    })
}

/// `baton index stats|compact`.
pub(crate) fn index_upkeep(
    cli: &crate::faces::cli::Cli,
    upkeep: &IndexUpkeep,
) -> Result<Output, Error> {
    match upkeep {
        IndexUpkeep::Stats(location) => {
            let path = index_path(cli, location)?;
            let connection = crate::index::open_existing(&path)?;
            let stats = crate::ops::mirror::upkeep::stats(&connection, &path)?;
            let style = Style::for_stdout(cli.color);
            let mut human = format!(
                "[ok] {}: {} on disk ({} file, {} WAL, {} free), {:.0}% of the {} of sources read\n{} source(s), {} gone (rows kept), {} set aside; {} conversation(s) removed on purpose; schema {}",
                stats.path,
                human_bytes(stats.file_bytes + stats.wal_bytes),
                human_bytes(stats.file_bytes),
                human_bytes(stats.wal_bytes),
                human_bytes(stats.free_bytes),
                stats.share_of_sources * 100.0,
                human_bytes(stats.source_bytes),
                stats.sources,
                stats.sources_missing,
                stats.sources_set_aside,
                stats.removed,
                stats.schema_version,
            );
            let mut table = Table::new(vec![
                Column::text("TABLE"),
                Column::number("ROWS"),
                Column::number("BYTES"),
                Column::number("SHARE"),
            ]);
            let total: u64 = stats.tables.iter().map(|t| t.bytes).sum();
            for t in &stats.tables {
                table.row(vec![
                    t.name.clone().into(),
                    thousands(t.rows).into(),
                    human_bytes(t.bytes).into(),
                    format!("{:.0}%", t.bytes as f64 * 100.0 / total.max(1) as f64).into(),
                ]);
            }
            table.append_to(&mut human, &style);
            if !stats.skipped_lines.is_empty() {
                human += &format!(
                    "\nLines passed over for being longer than {} MiB (the index does not hold them):",
                    crate::ops::mirror::pass::MAX_LINE_BYTES >> 20
                );
                for line in &stats.skipped_lines {
                    human += &format!(
                        "\n  {} at byte {}: {}",
                        line.path,
                        line.offset,
                        human_bytes(line.bytes)
                    );
                }
            }
            Ok(Output {
                human,
                json: to_json(&stats)?,
            })
        }
        IndexUpkeep::Compact(location) => {
            let path = index_path(cli, location)?;
            crate::index::open_existing(&path)?;
            let mut mirror = crate::ops::mirror::Mirror::open(&path)?;
            let done = crate::ops::mirror::upkeep::compact(&mut mirror)?;
            Ok(Output {
                human: format!(
                    "[ok] Compacted {} in {} short step(s): {} → {}{}",
                    path.display(),
                    done.steps,
                    human_bytes(done.bytes_before),
                    human_bytes(done.bytes_after),
                    if done.rewrote {
                        " (rewritten once in full, so later compactions go in steps)"
                    } else {
                        ""
                    }
                ),
                json: serde_json::json!({ "index": path.display().to_string(), "compacted": done }),
            })
        }
    }
}
