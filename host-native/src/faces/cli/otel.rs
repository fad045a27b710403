//! `baton otel`: the receiver (`serve`), a telemetry file kept (`import`), what the index
//! keeps of the agents' reports (`status`), work sessions sent out (`export`), and `baton
//! usage --source telemetry|both` and `--check`. Keeping, sending and pairing are the
//! owners' (`ops::otel`); this face reads the arguments and says what happened.

use crate::faces::cli::args::otel::{OtelCommand, OtelExportArgs, OtelImportArgs, OtelServeArgs};
use crate::faces::cli::args::{IndexLocation, SourceArg, UsageArgs};
use crate::faces::cli::usage::usage_table;
use crate::faces::cli::{Cli, Output, index_path, to_json};
use crate::faces::table::{Column, Style, Table};
use crate::ops::otel::Kept;
use baton_core::Error;
use baton_core::transcripts::usage::UsageReport;
use std::path::PathBuf;

/// Runs `command`.
pub(crate) fn run(cli: &Cli, command: &OtelCommand) -> Result<Output, Error> {
    match command {
        OtelCommand::Serve(args) => serve(cli, args),
        OtelCommand::Import(args) => import(cli, args),
        OtelCommand::Status(location) => status(cli, &index_path(cli, location)?),
        OtelCommand::Export(args) => export(cli, args),
    }
}

/// The endpoint `--endpoint` names, else `endpoint` under [otel] in .baton/config.toml.
fn endpoint(ledger: &crate::store::Ledger, given: Option<&str>) -> Result<String, Error> {
    if let Some(given) = given {
        return Ok(given.to_owned());
    }
    let config = crate::config::ConfigFile::read(ledger.dir())?;
    match config.table("otel").and_then(|t| t.get("endpoint")) {
        Some(value) => value.as_str().map(str::to_owned).ok_or_else(|| {
            Error::invalid(
                "config",
                "`endpoint` under [otel] in .baton/config.toml must be text: endpoint = \"http://127.0.0.1:4318\"",
            )
        }),
        None => Err(Error::invalid(
            "endpoint",
            "name where to send: --endpoint http://127.0.0.1:4318, or endpoint = \"…\" under [otel] in .baton/config.toml",
        )),
    }
}

fn export(cli: &Cli, args: &OtelExportArgs) -> Result<Output, Error> {
    let ledger = crate::faces::cli::ledger_for(cli)?;
    let index = index_path(cli, &args.index)?;
    let endpoint = endpoint(&ledger, args.endpoint.as_deref())?;
    let token = args.token.clone().or_else(|| {
        crate::os::env::var("BATON_OTEL_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
    });
    let said = |e: &crate::ops::otel::export::Exported| {
        format!(
            "{} work session(s) sent ({} span(s)); {} sent before; {} still live (sent once they end){}",
            e.sessions,
            e.spans,
            e.already,
            e.live,
            if e.waiting > 0 {
                format!(
                    "; {} waiting for the index to count their responses (`baton mirror`)",
                    e.waiting
                )
            } else {
                String::new()
            }
        )
    };
    if !args.follow {
        let exported =
            crate::ops::otel::export::export(&ledger, &index, &endpoint, token.as_deref())?;
        return Ok(Output {
            human: format!("[ok] {}", said(&exported)),
            json: to_json(&exported)?.into(),
        });
    }
    // Until stopped: each pass sends what ended since; a failure waits longer each time.
    let every = std::time::Duration::from_secs(args.every);
    let mut wait = every;
    loop {
        match crate::ops::otel::export::export(&ledger, &index, &endpoint, token.as_deref()) {
            Ok(exported) => {
                if exported.sessions > 0 {
                    crate::faces::cli::print_line(&said(&exported));
                }
                wait = every;
            }
            Err(err) => {
                crate::os::warnings::warn(&format!(
                    "{}; trying again in {} s",
                    err.message,
                    wait.as_secs()
                ));
                std::thread::sleep(wait);
                wait = (wait * 2).min(std::time::Duration::from_secs(300).max(every));
                continue;
            }
        }
        std::thread::sleep(wait);
    }
}

fn kept_json(kept: &Kept, index: &std::path::Path) -> Result<serde_json::Value, Error> {
    let mut json = to_json(kept)?;
    json["index"] = serde_json::Value::from(index.display().to_string());
    Ok(json)
}

fn serve(cli: &Cli, args: &OtelServeArgs) -> Result<Output, Error> {
    let listen: std::net::SocketAddr = args.listen.parse().map_err(|_| {
        Error::invalid(
            "listen",
            format!(
                "`{}` is not ADDRESS:PORT (127.0.0.1:4318, [::1]:4318)",
                args.listen
            ),
        )
    })?;
    if !listen.ip().is_loopback() && !args.allow_remote {
        return Err(Error::invalid(
            "listen",
            format!(
                "{listen} can be reached from other machines: pass --allow-remote to mean it (with --token, so that only your agents are heard)"
            ),
        ));
    }
    let token = args.token.clone().or_else(|| {
        crate::os::env::var("BATON_OTEL_TOKEN")
            .ok()
            .filter(|t| !t.is_empty())
    });
    let index = index_path(cli, &args.index)?;
    let json_only = cli.json;
    let shown = index.display().to_string();
    let with_token = token.is_some();
    let kept = crate::faces::otel::serve(
        crate::faces::otel::Options {
            listen,
            token,
            index: index.clone(),
        },
        !json_only,
        |address| {
            let line = format!(
                "[ok] Receiving OTLP over HTTP on http://{address} (/v1/logs, /v1/traces, /v1/metrics; protobuf or JSON){}; keeping the requests agents report in {shown}. Ctrl-C stops.",
                if with_token {
                    ", for senders with the token"
                } else {
                    ""
                }
            );
            // The one JSON object is the totals at the end: the address goes to stderr then.
            if json_only {
                crate::faces::cli::eprint_line(&line);
            } else {
                crate::faces::cli::print_line(&line);
            }
        },
    )?;
    Ok(Output {
        human: format!(
            "[ok] Stopped: {} record(s) received, {} request(s), {} new",
            kept.records, kept.requests, kept.new
        ),
        json: kept_json(&kept, &index)?.into(),
    })
}

fn import(cli: &Cli, args: &OtelImportArgs) -> Result<Output, Error> {
    use std::io::BufRead;
    let index = index_path(cli, &args.index)?;
    let mut connection = crate::index::open(&index, true)?;
    let now = crate::os::system::now()?.millis();
    let mut kept = Kept::default();
    // Lines that are no telemetry: the file, the line's number, why.
    let mut unread: Vec<(String, usize, String)> = Vec::new();
    for file in &args.files {
        let shown = file.display().to_string();
        let reader: Box<dyn BufRead> = if shown == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            let opened =
                std::fs::File::open(file).map_err(|e| Error::store_io("read", &shown, e))?;
            Box::new(std::io::BufReader::new(opened))
        };
        let mut batch = Vec::new();
        for (n, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| Error::store_io("read", &shown, e))?;
            if line.trim().is_empty() {
                continue;
            }
            match crate::ops::otel::decode::line(&line) {
                Ok(records) => batch.extend(records),
                Err(err) => unread.push((shown.clone(), n + 1, err.message)),
            }
            if batch.len() >= 1000 {
                kept.add(crate::ops::otel::keep(
                    &mut connection,
                    &index,
                    &batch,
                    now,
                )?);
                batch.clear();
            }
        }
        kept.add(crate::ops::otel::keep(
            &mut connection,
            &index,
            &batch,
            now,
        )?);
    }
    let what = match args.files.as_slice() {
        [one] => one.display().to_string(),
        many => format!("{} files", many.len()),
    };
    let mut human = format!(
        "[ok] Imported {what}: {} record(s), {} request(s), {} new",
        kept.records, kept.requests, kept.new
    );
    if let Some((file, line, why)) = unread.first() {
        human.push_str(&format!(
            "\n{} line(s) not read (skipped); the first, {file} line {line}: {why}",
            unread.len()
        ));
    }
    let mut json = kept_json(&kept, &index)?;
    json["unread_lines"] = serde_json::Value::from(
        unread
            .iter()
            .map(|(file, line, _)| serde_json::json!({"file": file, "line": line}))
            .collect::<Vec<_>>(),
    );
    Ok(Output {
        human,
        json: json.into(),
    })
}

fn status(cli: &Cli, index: &std::path::Path) -> Result<Output, Error> {
    let rows = if index.is_file() {
        let connection = crate::ops::mirror::open_for_query(index, false, None)?;
        crate::ops::otel::status(&connection, index)?
    } else {
        Vec::new()
    };
    let zone = crate::os::zone::resolve(None)?;
    let mut human = if rows.is_empty() {
        format!(
            "[ok] No reported requests in {} yet: `baton otel serve`, then point an agent at it (`baton otel --help`)",
            index.display()
        )
    } else {
        format!(
            "[ok] {} reported request(s) in {}",
            rows.iter().map(|r| r.requests).sum::<i64>(),
            index.display()
        )
    };
    if !rows.is_empty() {
        let mut table = Table::new(vec![
            Column::text("AGENT"),
            Column::text("MODEL"),
            Column::number("REQUESTS"),
            Column::number("TOKENS"),
            Column::number("COST USD"),
            Column::text("FIRST"),
            Column::text("LAST"),
        ]);
        for r in &rows {
            table.row(vec![
                r.source.clone().into(),
                r.model.clone().unwrap_or_else(|| "—".to_owned()).into(),
                baton_core::analyzer::charts::scale::thousands(r.requests.max(0) as u64).into(),
                baton_core::analyzer::charts::scale::thousands(r.total_tokens.max(0) as u64).into(),
                format!("{:.2}", r.cost_usd).into(),
                crate::faces::present::local(
                    baton_core::Timestamp::from_millis(r.first_ms),
                    &zone,
                    true,
                )
                .into(),
                crate::faces::present::local(
                    baton_core::Timestamp::from_millis(r.last_ms),
                    &zone,
                    true,
                )
                .into(),
            ]);
        }
        human.push('\n');
        human.push_str(&table.render(&Style::for_stdout(cli.color)));
    }
    Ok(Output {
        human,
        json: serde_json::json!({ "index": index.display().to_string(), "rows": to_json(&rows)? })
            .into(),
    })
}

/// `usage --source telemetry|both` and `usage --check`: what the agents reported over
/// OpenTelemetry, alone, beside the transcripts' report, or paired with it.
pub(crate) fn usage_reported(cli: &Cli, args: &UsageArgs) -> Result<Output, Error> {
    let (options, zone, blocks) = crate::faces::cli::usage::options_of(cli, args)?;
    if blocks {
        return Err(Error::invalid(
            "source",
            "the agents' reports go by day, week, month, model, project, agent or work session: the five-hour windows are the transcripts'",
        ));
    }
    let index = index_path(
        cli,
        &IndexLocation {
            index: args
                .index
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        },
    )?;
    if !index.is_file() {
        return Err(Error::invalid(
            "source",
            format!(
                "no transcript index at {}: `baton mirror` keeps the transcripts and `baton otel serve` what the agents report",
                index.display()
            ),
        ));
    }
    let connection = crate::ops::mirror::open_for_query(&index, false, None)?;
    if args.check {
        let check = crate::ops::otel::compare::check(&connection, &index, &options)?;
        return Ok(Output {
            human: check_text(&check, &zone),
            json: to_json(&check)?.into(),
        });
    }
    let reported = crate::ops::otel::compare::report(&connection, &index, &options)?;
    if args.source == SourceArg::Telemetry {
        return Ok(Output {
            human: if args.csv {
                reported.to_csv().trim_end().to_owned()
            } else {
                format!(
                    "As the agents reported it over OpenTelemetry:\n{}",
                    usage_table(&reported, &Style::for_stdout(cli.color))
                )
            },
            json: to_json(&reported)?.into(),
        });
    }
    let read = crate::ops::mirror::usage::report(&connection, &index, &options)?;
    let style = Style::for_stdout(cli.color);
    Ok(Output {
        human: if args.csv {
            both_csv(&read, &reported)
        } else {
            format!(
                "As the transcripts say:\n{}\n\nAs the agents reported it over OpenTelemetry:\n{}",
                usage_table(&read, &style),
                usage_table(&reported, &style)
            )
        },
        json:
            serde_json::json!({ "transcripts": to_json(&read)?, "telemetry": to_json(&reported)? })
                .into(),
    })
}

/// `usage --source both --csv`: one table, the transcripts' rows then the agents', each line
/// led by whose figures it holds (`source`), each report's header once.
fn both_csv(read: &UsageReport, reported: &UsageReport) -> String {
    let mut out = String::new();
    for (n, (source, report)) in [("transcripts", read), ("telemetry", reported)]
        .into_iter()
        .enumerate()
    {
        for (line_number, line) in report.to_csv().lines().enumerate() {
            match line_number {
                0 if n == 0 => out.push_str(&format!("source,{line}\n")),
                0 => {}
                _ => out.push_str(&format!("{source},{line}\n")),
            }
        }
    }
    out.trim_end().to_owned()
}

/// `usage --check` as a person reads it: how many reports were paired, then each difference
/// with its figures and its likely cause, in time order.
fn check_text(
    check: &baton_core::telemetry::reconcile::Check,
    zone: &crate::os::zone::HostZone,
) -> String {
    use baton_core::telemetry::reconcile::Kind;
    let mut out = format!(
        "[ok] {} reported request(s), {} paired with a transcript response; {} transcript response(s) in the time they cover; {} difference(s)",
        check.reported,
        check.matched,
        check.responses,
        check.differences.len()
    );
    if check.reported == 0 {
        out.push_str("\nnothing reported yet: `baton otel serve`, then point an agent at it (`baton otel --help`)");
    }
    for d in &check.differences {
        let what = match d.kind {
            Kind::MissingInTranscripts => "missing in the transcripts",
            Kind::MissingInTelemetry => "missing in the telemetry",
            Kind::TokensDiffer => "tokens differ",
            Kind::CostDiffers => "cost differs",
        };
        let session: String = d.session.chars().take(8).collect();
        out.push_str(&format!(
            "\n\n{}  {what}  session {session}  {}\n  {}\n  likely: {}",
            crate::faces::present::local(baton_core::Timestamp::from_millis(d.at_ms), zone, true),
            d.model.as_deref().unwrap_or(""),
            d.detail,
            d.likely
        ));
    }
    out
}
