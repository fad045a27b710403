//! The ledger's commands on the command line: sessions, the lifecycle and the workspace, run
//! through the engine against the filesystem ledger.

use crate::cli::args::{
    AmbiguityCommand, Cli, Command, ConstitutionCommand, DecisionCommand, MissionCommand,
    ReportArgs,
};
use crate::cli::{Output, ledger_for, to_json};
use crate::engine;
use baton_core::Error;
use baton_core::commands::render;
use baton_core::commands::{
    ConstitutionParams, DependParams, HealthParams, IndexParams, MissionParams, NoteParams,
    PauseParams, ReportParams, RunReport, SessionRef,
};
use baton_core::commands::{EndParams, ListParams, Request, ResumeParams, ShowParams, StartParams};
use baton_core::ledger::activity::Via;
use serde_json::Value;

pub(crate) fn run(cli: Cli) -> Result<Output, Error> {
    use std::io::IsTerminal;
    let ledger = ledger_for(&cli)?;
    let person = cli.person.clone();
    let mut request = match cli.command {
        Command::Start(a) => Request::Start(StartParams {
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            goal: a.goal,
            session_id: a.session_id,
            parent_session_id: a.parent,
            run_id: a.run_id,
            work_item_id: a.work_item_id,
            attempt_id: a.attempt_id,
            mission: a.mission,
            commit: a.commit,
            no_brief: a.no_brief,
        }),
        Command::Brief(a) => Request::Brief(SessionRef { session_id: a.id }),
        Command::Report(a) => Request::Report(report_params(a)?),
        Command::Depend(a) => Request::Depend(DependParams {
            session_id: a.id,
            files: a.files,
        }),
        Command::Pause(a) => Request::Pause(PauseParams {
            session_id: a.id,
            reason: a.reason,
        }),
        Command::Unpause(a) => Request::Unpause(SessionRef { session_id: a.id }),
        Command::Health(a) => Request::Health(HealthParams {
            session_id: a.id,
            recheck: a.recheck,
        }),
        Command::Timeline(a) => Request::Timeline(SessionRef { session_id: a.id }),
        Command::Attention => Request::Attention,
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
            commit: a.commit.or_else(crate::system::git_head).ok_or_else(|| {
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
        Command::Resume(a) => Request::Resume(ResumeParams {
            session_id: a.id,
            project: a.project,
            client_name: a.client,
        }),
        Command::End(a) => Request::End(EndParams {
            session_id: a.id,
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            summary: a.summary,
            status: Some(a.status),
        }),
        Command::List(a) => Request::List(ListParams {
            project: a.project,
            agent: a.agent,
            status: a.status,
            include_ended: a.all,
        }),
        Command::Show(a) => Request::Show(ShowParams { session_id: a.id }),
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
                json: to_json(&report)?,
            });
        }
        Command::Web(_)
        | Command::Demo(_)
        | Command::Abi(_)
        | Command::Mcp(_)
        | Command::Usage(_)
        | Command::Analyze(_)
        | Command::Inspect(_) => {
            return Err(Error::internal("dispatched above"));
        }
        Command::Doctor => {
            let report = ledger.doctor()?;
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
            return Ok(Output {
                human,
                json: to_json(&report)?,
            });
        }
    };
    engine::fill_defaults(&mut request, None);
    let response = engine::run_as(&ledger, &request, None, person)?;
    let mut human = render::ok_line(&response);
    human.push_str(&crate::detail::details(
        &response,
        std::io::stdout().is_terminal(),
    ));
    Ok(Output {
        human,
        json: to_json(&response)?,
    })
}

pub(crate) fn read_text(path: &std::path::Path) -> Result<String, Error> {
    std::fs::read_to_string(path)
        .map_err(|e| Error::store_io("read", &path.display().to_string(), e))
}

pub(crate) fn report_params(a: ReportArgs) -> Result<ReportParams, Error> {
    let run = a.run.map(|spec| parse_run(&spec)).transpose()?;
    Ok(ReportParams {
        session_id: a.id,
        via: Some(if a.via == "hook" {
            Via::Hook
        } else {
            Via::Model
        }),
        changed_files: a.changed,
        status: a.status.map(|s| s.replace('-', "_")),
        reason: a.reason,
        progress: a.progress,
        plan: a.plan,
        step: a.step,
        step_state: a
            .step_state
            .map(|s| {
                serde_json::from_value(Value::String(s.replace('-', "_")))
                    .map_err(|e| Error::invalid("step_state", e.to_string()))
            })
            .transpose()?,
        decision_request: a.ask_decision,
        decision_resolved: a.decision_resolved,
        run,
        evidence: a.evidence,
        pull_request: a.pull_request,
    })
}

pub(crate) fn parse_run(spec: &str) -> Result<RunReport, Error> {
    let parts: Vec<&str> = spec.split(':').collect();
    let [provider, model, purpose, input, output] = parts.as_slice() else {
        return Err(Error::invalid(
            "run",
            format!("`{spec}` is not PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS"),
        ));
    };
    let count = |field: &str, text: &str| {
        text.parse::<u64>()
            .map_err(|_| Error::invalid("run", format!("{field} `{text}` is not a count")))
    };
    Ok(RunReport {
        provider: (*provider).to_owned(),
        model: (*model).to_owned(),
        purpose: (*purpose).to_owned(),
        input_tokens: count("input tokens", input)?,
        output_tokens: count("output tokens", output)?,
        prompt: None,
        output: None,
    })
}
