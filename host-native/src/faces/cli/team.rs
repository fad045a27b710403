//! `baton sync` and `baton team …`: where the team's server is, and the team views as a
//! person reads them (the local list's table with a machine and a health column) or as JSON.

use super::args::{SyncArgs, TeamCommand, TeamGroupByArg, TeamServer, TeamUsageArgs};
use super::{Cli, Output, ledger_for, present, terminal_safe, to_json};
use crate::ops::sync::connect::TeamSettings;
use crate::ops::sync::team::{MachineTag, TeamAnswer};
use baton_core::Error;
use baton_core::commands::{ListParams, Request, Response, ShowParams};
use baton_core::ids::SessionId;
use std::collections::BTreeMap;

/// The URL to read from: `--from`/`BATON_TEAM_URL`, else `[team] url`, `[sync] url`, else
/// `BATON_SYNC_URL` (as `ops::sync::budget::team_url` finds them).
fn team_url(cli: &Cli, server: &TeamServer) -> Result<String, Error> {
    if let Some(url) = &server.from {
        return Ok(url.clone());
    }
    crate::ops::sync::budget::team_url(&ledger_for(cli)?)?.ok_or_else(|| {
        Error::invalid(
            "from",
            "say which server to read: --from postgres://USER@HOST/DATABASE, BATON_TEAM_URL, or url under [team] in .baton/config.toml",
        )
    })
}

/// `baton sync`: once, or `--follow`ing the ledger until stopped.
pub(crate) fn sync(cli: &Cli, args: &SyncArgs, json_only: bool) -> Result<Output, Error> {
    let ledger = ledger_for(cli)?;
    let settings = TeamSettings::read(ledger.dir())?;
    // `--to` (or BATON_SYNC_URL), else `[sync] url`.
    let url = args.to.clone().or_else(|| settings.url(&["sync"])).ok_or_else(|| {
        Error::invalid(
            "to",
            "say where to sync: --to postgres://USER@HOST/DATABASE, BATON_SYNC_URL, or url under [sync] in .baton/config.toml",
        )
    })?;
    let options = crate::ops::sync::SyncOptions {
        usage: args.usage || settings.sends_usage(),
    };
    let describe = |report: &crate::ops::sync::SyncReport| {
        let mut text = format!(
            "[ok] Synced {} new event(s) of {} read from {} file(s) to {} (machine {}, schema v{})",
            report.inserted,
            report.read,
            report.files,
            crate::ops::sync::redacted(&url),
            report.machine,
            report.schema_version
        );
        match &report.usage {
            Some(usage) if usage.skipped.is_some() => {
                crate::os::warnings::warn(&format!(
                    "usage rows not sent: {}",
                    usage.skipped.as_deref().unwrap_or_default()
                ));
            }
            Some(usage) if usage.days == 0 => {
                text.push_str("\n[ok] Usage rows: the server already has what the mirror counts")
            }
            Some(usage) => text.push_str(&format!(
                "\n[ok] Usage rows: {} new, {} corrected, {} removed, of {} read from the mirror for {} day(s) that differed",
                usage.inserted, usage.corrected, usage.removed, usage.read, usage.days
            )),
            None => {}
        }
        text
    };
    if !args.follow {
        let report = crate::ops::sync::sync(&ledger, &url, options)?;
        return Ok(Output {
            human: describe(&report),
            json: to_json(&report)?.into(),
        });
    }
    let mut first = true;
    crate::ops::sync::follow(
        &ledger,
        &url,
        options,
        std::time::Duration::from_secs(args.every.max(1)),
        &mut |report| {
            // The first sync is always said; later ones when they sent something. A reader
            // that went away ends the follow.
            let usage_sent = report.usage.as_ref().map_or(0, |u| u.changed());
            if !first && report.inserted == 0 && usage_sent == 0 {
                return true;
            }
            first = false;
            use std::io::Write;
            let text = if json_only {
                serde_json::to_string(report).unwrap_or_default()
            } else {
                terminal_safe(&describe(report)).into_owned()
            };
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}").and_then(|()| out.flush()).is_ok()
        },
    )?;
    std::process::exit(0)
}

/// `baton team …`.
pub(crate) fn team(cli: &Cli, command: &TeamCommand) -> Result<Output, Error> {
    let (server, request) = match command {
        TeamCommand::Init(server) => {
            let url = team_url(cli, server)?;
            let version = crate::ops::sync::team::init(&url)?;
            return Ok(Output {
                human: format!(
                    "[ok] The team schema on {} is at version {version}",
                    crate::ops::sync::redacted(&url)
                ),
                json: serde_json::json!({ "schema_version": version }).into(),
            });
        }
        TeamCommand::List(args) => (
            &args.server,
            Request::List(ListParams {
                project: args.project.clone(),
                agent: args.agent.clone(),
                status: args.status.clone(),
                include_ended: args.all,
                ..ListParams::default()
            }),
        ),
        TeamCommand::Attention(server) => (server, Request::Attention),
        TeamCommand::Usage(args) => return usage(cli, args),
        TeamCommand::Budget(args) => return super::budget::team(cli, args),
        TeamCommand::Show(args) => (
            &args.server,
            Request::Show(ShowParams {
                session_id: args.id.clone(),
            }),
        ),
    };
    let url = team_url(cli, server)?;
    let answer = crate::ops::sync::team::view(&url, &request, crate::os::system::now()?)?;
    present_answer(cli, &answer)
}

/// `baton team usage`: the rows every machine sent, grouped and priced by the core as
/// `baton usage` does; by machine, each row's machine stands where its project would.
fn usage(cli: &Cli, args: &TeamUsageArgs) -> Result<Output, Error> {
    use baton_core::transcripts::usage::GroupBy;
    let url = team_url(cli, &args.server)?;
    let (zone, since, until) = args.window.resolve()?;
    let by_machine = args.group_by == TeamGroupByArg::Machine;
    let group_by = match args.group_by {
        TeamGroupByArg::Daily => GroupBy::Daily,
        TeamGroupByArg::Weekly => GroupBy::Weekly,
        TeamGroupByArg::Monthly => GroupBy::Monthly,
        TeamGroupByArg::Model => GroupBy::Model,
        TeamGroupByArg::Project | TeamGroupByArg::Machine => GroupBy::Project,
    };
    let options = crate::ops::usage::UsageOptions {
        since,
        until,
        cost_mode: args.window.cost_mode.into(),
        ..crate::ops::usage::UsageOptions::everything(group_by, zone)
    };
    let rows = crate::ops::sync::team::usage_rows(&url, options.since, options.until)?;
    let entries = rows
        .into_iter()
        .map(|row| {
            let mut entry = row.entry;
            if by_machine {
                entry.project = Some(std::sync::Arc::from(machine_names(&[row.machine]).as_str()));
            }
            entry
        })
        .collect();
    let prices = crate::ops::usage::prices(&options)?;
    let report = crate::ops::usage::report_of_entries(entries, BTreeMap::new(), &options, &prices);
    let mut json = to_json(&report)?;
    if by_machine {
        json["group_by"] = serde_json::json!("machine");
    }
    let human = if args.csv {
        let csv = report.to_csv();
        match csv.strip_prefix("project,") {
            Some(rest) if by_machine => format!("machine,{}", rest.trim_end()),
            _ => csv.trim_end().to_owned(),
        }
    } else {
        crate::faces::cli::usage::usage_table_keyed(
            &report,
            &crate::faces::table::Style::for_stdout(cli.color),
            by_machine.then_some(("machine", "MACHINE")),
        )
    };
    Ok(Output {
        human,
        json: json.into(),
    })
}

/// A session's machines as a person reads them: host names (the id's tail when a machine has
/// no name).
fn machine_names(tags: &[MachineTag]) -> String {
    tags.iter()
        .map(|t| {
            if t.name.is_empty() {
                t.machine
                    .chars()
                    .rev()
                    .take(8)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect()
            } else {
                t.name.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn present_answer(cli: &Cli, answer: &TeamAnswer) -> Result<Output, Error> {
    let zone = crate::os::zone::resolve(None)?;
    let reader = present::Reader::for_stdout(cli.color, &zone)?;
    let names: BTreeMap<SessionId, String> = answer
        .machines
        .iter()
        .map(|(id, tags)| (*id, machine_names(tags)))
        .collect();
    let mut json = to_json(&answer.response)?;
    let machines_json =
        |id: &SessionId| to_json(&answer.machines.get(id).cloned().unwrap_or_default());
    let mut human = match &answer.response {
        Response::List(list) => {
            if let Some(rows) = json["sessions"].as_array_mut() {
                for (row, session) in rows.iter_mut().zip(&list.sessions) {
                    row["machines"] = machines_json(&session.session_id)?;
                }
            }
            present::session_list(list, &reader, None, Some(&names))
        }
        Response::Show(shown) => {
            json["machines"] = machines_json(&shown.session.session_id)?;
            let mut text = present::human(&answer.response, &reader);
            text.push_str(&format!(
                "\n  machines       {}",
                names
                    .get(&shown.session.session_id)
                    .map_or("", String::as_str)
            ));
            text
        }
        Response::Attention(attention) => {
            if let Some(items) = json["items"].as_array_mut() {
                for (item, open) in items.iter_mut().zip(&attention.items) {
                    item["machines"] = machines_json(&open.session_id)?;
                }
            }
            present::human(&answer.response, &reader)
        }
        other => present::human(other, &reader),
    };
    json["unseen_collisions"] = to_json(&answer.unseen_collisions)?;
    json["events_read"] = serde_json::json!(answer.events);
    if !answer.unseen_collisions.is_empty() {
        human.push_str(&format!(
            "\n[warn] {} collision(s) across machines, which no single ledger saw:",
            answer.unseen_collisions.len()
        ));
        for collision in &answer.unseen_collisions {
            let on = |id: &SessionId| {
                format!(
                    "{} on {}",
                    id.short(),
                    names.get(id).map_or("?", String::as_str)
                )
            };
            human.push_str(&format!(
                "\n  {} {} changed by {} affects {}",
                format!("{:?}", collision.severity).to_lowercase(),
                collision.file,
                on(&collision.by_session),
                on(&collision.session_id)
            ));
        }
    }
    Ok(Output {
        human,
        json: json.into(),
    })
}
