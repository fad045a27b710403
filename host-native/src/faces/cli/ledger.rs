//! The ledger's commands on the command line: sessions, the lifecycle and the workspace, each
//! run through `ops::command::run` against the filesystem ledger.

use crate::faces::cli::args::{
    AmbiguityCommand, Cli, Command, ConstitutionCommand, DecisionCommand, MissionCommand,
};
use crate::faces::cli::{Json, Output, ledger_for, to_json};
use crate::ops::engine;
use baton_core::Error;
use baton_core::commands::Caller;
use baton_core::commands::{
    ConstitutionParams, IndexParams, MissionParams, NoteParams, SessionRef,
};
use baton_core::commands::{Request, Response};

pub(crate) fn run(cli: Cli) -> Result<Output, Error> {
    let ledger = ledger_for(&cli)?;
    let cli_color = cli.color;
    let wants_json = cli.json;
    let person = cli.person.clone();
    let store_summary = matches!(&cli.command, Command::End(a) if a.store_summary);
    let list_cost = matches!(&cli.command, Command::List(a) if a.cost);
    let index = crate::index::path_for(ledger.dir());
    // What a person reads about live sessions says whether their agents still run: look first
    // (recording what changed), and say so when looking fails.
    let check_liveness = || {
        crate::ops::agents::check(&ledger)
            .map_err(|err| {
                crate::os::warnings::warn(&format!(
                    "could not check whether agents still run: {err}"
                ));
            })
            .ok()
    };
    let request = match cli.command {
        Command::Reap(a) => return reap(&ledger, &a, person),
        Command::Start(a) => Request::Start(a.into()),
        Command::Brief(a) => Request::Brief(SessionRef { session_id: a.id }),
        Command::Report(a) => Request::Report(a.try_into()?),
        Command::Depend(a) => Request::Depend(a.into()),
        Command::Pause(a) => Request::Pause(a.into()),
        Command::Unpause(a) => Request::Unpause(SessionRef { session_id: a.id }),
        Command::Health(a) => Request::Health(a.into()),
        Command::Timeline(a) => Request::Timeline(SessionRef { session_id: a.id }),
        Command::Correct(a) => Request::Correct(baton_core::commands::CorrectParams {
            session_id: a.id,
            goal: a.goal,
            summary: a.summary,
        }),
        Command::Attention(a) => match a.done {
            None => Request::Attention,
            Some(crate::faces::cli::args::AttentionCommand::Done(d)) => {
                Request::AttentionDone(baton_core::commands::AttentionDoneParams {
                    numbers: d.numbers,
                    all: d.all,
                    older_than_seconds: d.older_than,
                    note: d.note,
                })
            }
        },
        Command::Mission(MissionCommand::Add {
            reference,
            contract,
        }) => Request::MissionAdd(MissionParams {
            reference,
            clauses: baton_core::lifecycle::workspace::contract_clauses(&read_text(&contract)?),
        }),
        Command::Mission(MissionCommand::Approve { reference }) => {
            Request::MissionApprove(MissionParams {
                reference,
                clauses: Vec::new(),
            })
        }
        Command::Constitution(ConstitutionCommand::Set { file }) => {
            Request::ConstitutionSet(ConstitutionParams {
                text: read_text(&file)?,
            })
        }
        Command::Index(a) => Request::Index(IndexParams {
            commit: a
                .commit
                .or_else(crate::os::system::git_head)
                .ok_or_else(|| {
                    Error::invalid(
                        "commit",
                        "this is not a git repository (or git is missing); pass --commit",
                    )
                })?,
        }),
        Command::Ambiguity(AmbiguityCommand::Open { reference, text }) => {
            Request::AmbiguityOpen(NoteParams {
                reference: Some(reference),
                text: Some(text),
                number: None,
            })
        }
        Command::Ambiguity(AmbiguityCommand::Resolve { number }) => {
            Request::AmbiguityResolve(NoteParams {
                number: Some(number),
                ..NoteParams::default()
            })
        }
        Command::Decision(DecisionCommand::Record { text }) => {
            Request::DecisionRecord(NoteParams {
                text: Some(text),
                ..NoteParams::default()
            })
        }
        Command::Resume(a) => Request::Resume(a.into()),
        Command::End(a) => Request::End(a.into()),
        Command::List(a) => Request::List(super::params::list_params(a)?),
        Command::Show(a) => Request::Show(a.into()),
        Command::Compact => {
            let report = ledger.compact()?;
            return Ok(Output {
                human: format!(
                    "[ok] Compacted {} log(s): {} events into {} month(s){}",
                    report.sealed_logs,
                    report.events_in,
                    report.months_written.len(),
                    report
                        .took_over_stale_lock
                        .as_ref()
                        .map(|h| format!(" (took over a stale lock: {h})"))
                        .unwrap_or_default()
                ),
                json: to_json(&report)?.into(),
            });
        }
        Command::Web(_)
        | Command::Sync(_)
        | Command::Team(_)
        | Command::Demo(_)
        | Command::Abi(_)
        | Command::Completions(_)
        | Command::Mirror(_)
        | Command::Search(_)
        | Command::Share(_)
        | Command::Tui
        | Command::Transcripts(_)
        | Command::Record(_)
        | Command::Hook(_)
        | Command::Statusline(_)
        | Command::Watch(_)
        | Command::Man(_)
        | Command::Mcp(_)
        | Command::Usage(_)
        | Command::Analyze(_)
        | Command::Notes(_)
        | Command::Budget(_)
        | Command::Otel(_)
        | Command::Inspect(_) => {
            return Err(Error::internal("dispatched above"));
        }
        Command::Doctor => {
            // The ledger as found first; then the agents (a check may write, and rebuilds the
            // checkpoint).
            let mut report = ledger.doctor()?;
            // What the store cannot see: the records' blobs against their names, and the
            // transcript index's own check.
            report
                .findings
                .extend(crate::ops::records::check_blobs(&ledger));
            let index = crate::index::path_for(ledger.dir());
            if index.is_file() {
                let checked = crate::index::open_existing(&index)
                    .and_then(|connection| crate::index::check(&connection, &index));
                if let Err(e) = checked {
                    report.findings.push(e.message);
                }
            }
            report.healthy = report.findings.is_empty();
            let liveness = check_liveness();
            let mut human = format!(
                "[{}] Ledger {}: {} sessions ({} live), {} events, {} corrupt, {} foreign; checkpoint {}",
                if report.healthy { "ok" } else { "warn" },
                report.dir,
                report.sessions.total,
                report.sessions.live,
                report.stats.events,
                report.stats.corrupt_lines,
                report.stats.foreign_lines,
                report.checkpoint
            );
            for finding in &report.findings {
                human.push_str(&format!("\n  - {finding}"));
            }
            // Not the ledger's health, but history about to be lost: said, never failed on.
            let advice = crate::ops::mirror::retention_advice();
            for line in &advice {
                human.push_str(&format!("\n[warn] {line}"));
            }
            let mut json = to_json(&report)?;
            json["advice"] = serde_json::json!(advice);
            if let Some(answer) = &liveness {
                for line in liveness_findings(answer)? {
                    human.push_str(&format!("\n[warn] {line}"));
                }
                json["liveness"] = to_json(answer)?;
            }
            return Ok(Output {
                human,
                json: json.into(),
            });
        }
    };
    // The CLI run from inside a coding agent's shell is that agent.
    let agent = crate::os::system::calling_agent();
    let acting = engine::Acting {
        actor: None,
        person,
        caller: agent.as_deref().map_or(Caller::Person, Caller::agent),
    };
    let answered = crate::ops::command::run(&ledger, &index, request, &acting, agent.as_deref());
    if let Some(snapshot) = &answered.snapshot {
        engine::refresh(&ledger, snapshot);
    }
    let (extras, snapshot) = (answered.extras, answered.snapshot);
    let response = answered.result?;
    let zone = crate::os::zone::resolve(None)?;
    let reader = crate::faces::present::Reader::for_stdout(cli_color, &zone)?;
    // Only what will be printed is built (a list of 2,000 sessions is 1.7 MB of JSON): the
    // JSON with `--json` or when there is no human text, else the human text.
    let human = if wants_json {
        String::new()
    } else {
        crate::faces::present::human(&response, &reader)
    };
    // Answers that get more fields below start as a tree; the rest are encoded at once.
    let added_to = store_summary || list_cost || matches!(response, Response::Show(_));
    let json = if !(wants_json || human.is_empty()) {
        serde_json::Value::Null.into()
    } else if added_to {
        to_json(&response)?.into()
    } else {
        Json::encode(&response)?
    };
    let mut output = Output { human, json };
    if let Response::Action(action) = &response
        && let Some(note) = &action.note
    {
        output.human.push('\n');
        output.human.push_str(&crate::ops::notes::human_line(note));
    }
    match &response {
        Response::Action(ended) if store_summary => {
            let session = &ended.session;
            // The session is ended whatever happens here: a summary that cannot be stored
            // is a warning, and the end is still reported.
            let stored = crate::ops::records::store(
                &ledger,
                &index,
                baton_core::records::StoreRequest {
                    content: session.summary.clone(),
                    title: Some(match &session.goal {
                        Some(goal) => format!("Summary: {goal}"),
                        None => format!("Summary of the session {}", session.session_id),
                    }),
                    provider: session
                        .client_name
                        .as_deref()
                        .map(|c| c.trim().to_ascii_lowercase().replace('-', "_")),
                    provider_session_id: session.provider_session_id.clone(),
                    tags: vec!["summary".to_owned()],
                },
                Some(&session.session_id.to_string()),
                &acting,
            );
            match stored {
                Ok(record) => {
                    output.human.push_str(&format!(
                        "\n[ok] Stored the summary as the record {}",
                        record.id
                    ));
                    output.json.tree()["stored_summary"] = serde_json::json!(record.id.to_string());
                }
                Err(err) => crate::os::warnings::warn(&format!(
                    "the session is ended, but its summary was not stored: {err}"
                )),
            }
        }
        Response::List(list) if list_cost => {
            use baton_core::ledger::store::LedgerView;
            // The view the list was answered from, not a second read of the ledger.
            let all = match &snapshot {
                Some(snapshot) => snapshot.all_sessions()?,
                None => ledger.snapshot()?.all_sessions()?,
            };
            let ids: Vec<_> = list.sessions.iter().map(|s| s.session_id).collect();
            let costs = crate::ops::work_cost::of_sessions(&ledger, &index, &all, &ids)?;
            output.human = crate::faces::present::session_list(list, &reader, Some(&costs), None);
            if let Some(rows) = output.json.tree()["sessions"].as_array_mut() {
                for (row, session) in rows.iter_mut().zip(&list.sessions) {
                    row["cost"] = to_json(&costs.of(session.session_id))?;
                }
            }
        }
        Response::Show(shown) => {
            // What it cost, and its hand-off chain's (left out when they cannot be read).
            output
                .human
                .push_str(&crate::faces::present::show_extras(&extras));
            for (key, value) in extras.into_fields() {
                output.json.tree()[key] = value;
            }
            // The session is the answer; what links to it is extra, and an index that cannot
            // be read (a colleague's read-only ledger, a newer schema) only leaves it out.
            let opened =
                crate::ops::records::open_synced_if_any(&ledger, &index).unwrap_or_else(|err| {
                    crate::os::warnings::warn(&format!("links to stored records left out: {err}"));
                    None
                });
            if let Some((_, connection)) = opened {
                let (records, mirrored) = crate::ops::records::linked_to_session(
                    &connection,
                    &index,
                    ledger.dir(),
                    &shown.session,
                )?;
                if !records.is_empty() || !mirrored.is_empty() {
                    output.human.push_str("\nLinked:");
                    for record in &records {
                        output.human.push_str(&format!(
                            "\n  record {} {} ({})",
                            record.id,
                            record.about.title.as_deref().unwrap_or("(untitled)"),
                            reader.clock(record.created_at)
                        ));
                    }
                    for conversation in &mirrored {
                        output.human.push_str(&format!(
                            "\n  mirrored #{} {} {}",
                            conversation.id,
                            conversation.provider,
                            conversation.title.as_deref().unwrap_or("(untitled)")
                        ));
                    }
                }
                let summaries: Vec<serde_json::Value> =
                    records.iter().map(crate::ops::records::summary).collect();
                output.json.tree()["linked"] = serde_json::json!({
                    "records": summaries,
                    "mirrored": to_json(&mirrored)?,
                });
            }
        }
        _ => {}
    }
    Ok(output)
}

/// How long a session with no process tied to it may stay silent before `doctor` mentions it.
const SILENT_FOR_DOCTOR: u64 = 7 * 86_400;

/// What `doctor` says about live sessions' agents: each gone one, and how many nothing ties to
/// a process that have been silent for a week.
fn liveness_findings(answer: &baton_core::commands::LivenessAnswer) -> Result<Vec<String>, Error> {
    use baton_core::ledger::liveness::Liveness;
    let now = crate::os::system::now()?;
    let mut lines: Vec<String> = answer
        .sessions
        .iter()
        .filter(|s| s.state == Liveness::Gone)
        .map(|s| {
            format!(
                "{} is {} but looks gone: {} (`baton reap` ends it as failed)",
                s.path, s.status, s.reason
            )
        })
        .collect();
    let silent = answer
        .sessions
        .iter()
        .filter(|s| s.state == Liveness::Unknown)
        .filter(|s| {
            baton_core::lifecycle::verdict::reapable(
                s.state,
                s.last_activity_at,
                now,
                Some(SILENT_FOR_DOCTOR),
            )
        })
        .count();
    if silent > 0 {
        lines.push(format!(
            "{silent} live session(s) have been silent for over 7 days and no process is tied to them: `baton reap --older-than 7d --dry-run` lists them"
        ));
    }
    Ok(lines)
}

/// `baton reap`: ends the live sessions whose agent is gone (and, with `--older-than`, the
/// ones silent that long that nothing ties to a process), as failed, the evidence in the
/// summary. A dry run records nothing at all; a real one looks at each session again just
/// before ending it, and goes on past a session it cannot end (saying why).
fn reap(
    ledger: &crate::store::Ledger,
    args: &crate::faces::cli::args::ReapArgs,
    person: Option<String>,
) -> Result<Output, Error> {
    use baton_core::commands::EndParams;
    use baton_core::lifecycle::verdict::{reapable, reaped_summary};
    let older_than = args.older_than;
    let answer = if args.dry_run {
        crate::ops::agents::assess(ledger)?
    } else {
        crate::ops::agents::check(ledger)?
    };
    let now = crate::os::system::now()?;
    let chosen: Vec<_> = answer
        .sessions
        .iter()
        .filter(|s| reapable(s.state, s.last_activity_at, now, older_than))
        .collect();
    let agent = crate::os::system::calling_agent();
    let acting = engine::Acting {
        actor: None,
        person,
        caller: agent.map_or(Caller::Person, |name| Caller::agent(&name)),
    };
    let snapshot = ledger.snapshot()?;
    let mut ended = Vec::new();
    let mut kept = Vec::new();
    let mut human = Vec::new();
    for chosen in &chosen {
        // The agent may have come back since the look: look again, just before ending.
        let mut reason = chosen.reason.clone();
        if !args.dry_run {
            use baton_core::ledger::store::LedgerView;
            let Some(session) = snapshot
                .history(chosen.session_id)?
                .and_then(|h| h.session())
            else {
                continue;
            };
            let fresh = crate::ops::agents::verdict_now(&session)?;
            if !reapable(fresh.state, fresh.last_activity_at, now, older_than) {
                human.push(format!("  {} kept: {}", chosen.path, fresh.reason));
                kept.push(serde_json::json!({
                    "session_id": chosen.session_id,
                    "path": chosen.path,
                    "reason": fresh.reason,
                }));
                continue;
            }
            reason = fresh.reason;
        }
        let summary = reaped_summary(&reason);
        if !args.dry_run
            && let Err(err) = crate::ops::command::run_now(
                ledger,
                Request::End(EndParams {
                    session_id: Some(chosen.session_id.to_string()),
                    summary: Some(summary.clone()),
                    status: Some("failed".to_owned()),
                    ..EndParams::default()
                }),
                &acting,
            )
        {
            human.push(format!("  {} not ended: {err}", chosen.path));
            kept.push(serde_json::json!({
                "session_id": chosen.session_id,
                "path": chosen.path,
                "error": err,
            }));
            continue;
        }
        human.push(format!(
            "  {} ({}, agent {}): {}",
            chosen.path, chosen.status, chosen.state, reason
        ));
        ended.push(serde_json::json!({
            "session_id": chosen.session_id,
            "path": chosen.path,
            "state": chosen.state,
            "reason": reason,
            "summary": summary,
        }));
    }
    let verb = if args.dry_run { "Would end" } else { "Ended" };
    let head = if chosen.is_empty() {
        format!(
            "[ok] Nothing to reap: {} live session(s) checked, none {}",
            answer.sessions.len(),
            match older_than {
                Some(_) => "gone or silent that long",
                None => "gone (`--older-than 7d` also takes silent sessions no process is tied to)",
            }
        )
    } else {
        format!(
            "[ok] {verb} {} session(s) as failed{}{}",
            ended.len(),
            if args.dry_run {
                " (dry run: nothing written)"
            } else {
                ""
            },
            if kept.is_empty() {
                String::new()
            } else {
                format!("; {} left as they are", kept.len())
            }
        )
    };
    Ok(Output {
        human: std::iter::once(head)
            .chain(human)
            .collect::<Vec<_>>()
            .join("\n"),
        json: serde_json::json!({
            "dry_run": args.dry_run,
            "checked": answer.sessions.len(),
            "ended": ended,
            "kept": kept,
        })
        .into(),
    })
}

/// The most of a contract or constitution file read: far more than any real one, far less
/// than `/dev/zero` would give.
const MAX_TEXT_FILE: u64 = 1 << 20;

/// Reads a contract or constitution file: a regular file (a FIFO or device is refused at
/// once), at most [`MAX_TEXT_FILE`] bytes, UTF-8.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, Error> {
    use std::io::Read;
    let shown = path.display().to_string();
    let file = crate::os::files::open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_TEXT_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::store_io("read", &shown, e))?;
    if bytes.len() as u64 > MAX_TEXT_FILE {
        return Err(Error::invalid(
            "file",
            format!(
                "{shown} is over {} KiB; a contract or constitution is text a person reads",
                MAX_TEXT_FILE >> 10
            ),
        )
        .with("path", shown)
        .with("limit", MAX_TEXT_FILE));
    }
    String::from_utf8(bytes).map_err(|_| {
        Error::invalid("file", format!("{shown} is not UTF-8 text")).with("path", shown)
    })
}
