//! Parsed arguments into the core's params: one `From` per command, so the dispatch reads as
//! a table and a flag's meaning is decided in one place.

use crate::faces::cli::args::{
    DependArgs, EndArgs, HealthArgs, ListArgs, PauseArgs, ReportArgs, ResumeArgs, ShowArgs,
    StartArgs,
};
use baton_core::Error;
use baton_core::commands::{
    DependParams, EndParams, HealthParams, ListParams, PauseParams, ReportParams, ResumeParams,
    RunReport, ShowParams, StartParams,
};

impl From<StartArgs> for StartParams {
    fn from(a: StartArgs) -> StartParams {
        StartParams {
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            goal: a.goal,
            session_id: a.session_id,
            parent_session_id: a.parent,
            run_id: a.run_id,
            work_item_id: a.work_item_id,
            attempt_id: a.attempt_id,
            provider_session_id: a.provider_session_id,
            mission: a.mission,
            commit: a.commit,
            branch: a.branch,
            worktree: None,
            no_brief: a.no_brief,
        }
    }
}

impl From<ResumeArgs> for ResumeParams {
    fn from(a: ResumeArgs) -> ResumeParams {
        ResumeParams {
            session_id: a.id,
            project: a.project,
            client_name: a.client,
        }
    }
}

impl From<EndArgs> for EndParams {
    fn from(a: EndArgs) -> EndParams {
        EndParams {
            session_id: a.id,
            project: a.project,
            agent: a.agent,
            client_name: a.client,
            summary: a.summary,
            status: Some(a.status.as_str().to_owned()),
            session_note: a.note,
        }
    }
}

/// `baton list`'s filters; a `--since` day is read in this machine's zone (the core reads
/// a bare day in UTC), so it is handed on as the instant it starts.
pub(crate) fn list_params(a: ListArgs) -> Result<ListParams, baton_core::Error> {
    let since = a
        .since
        .as_deref()
        .map(crate::os::zone::day_or_time)
        .transpose()?;
    Ok(ListParams {
        project: a.project,
        agent: a.agent,
        status: a.status,
        include_ended: a.all,
        branch: a.branch,
        since,
    })
}

impl From<ShowArgs> for ShowParams {
    fn from(a: ShowArgs) -> ShowParams {
        ShowParams { session_id: a.id }
    }
}

impl From<DependArgs> for DependParams {
    fn from(a: DependArgs) -> DependParams {
        DependParams {
            session_id: a.id,
            files: a.files,
        }
    }
}

impl From<PauseArgs> for PauseParams {
    fn from(a: PauseArgs) -> PauseParams {
        PauseParams {
            session_id: a.id,
            reason: a.reason,
        }
    }
}

impl From<HealthArgs> for HealthParams {
    fn from(a: HealthArgs) -> HealthParams {
        HealthParams {
            session_id: a.id,
            recheck: a.recheck,
        }
    }
}

impl TryFrom<ReportArgs> for ReportParams {
    type Error = Error;

    fn try_from(a: ReportArgs) -> Result<ReportParams, Error> {
        Ok(ReportParams {
            session_id: a.id,
            via: Some(a.via.into()),
            changed_files: a.changed,
            status: a.status.map(|s| s.as_str().to_owned()),
            reason: a.reason,
            progress: a.progress,
            plan: a.plan,
            step: a.step,
            step_state: a.step_state.map(Into::into),
            decision_request: a.ask_decision,
            decision_resolved: a.decision_resolved,
            run: a.run.map(|spec| parse_run(&spec)).transpose()?,
            evidence: a.evidence,
            pull_request: a.pull_request,
        })
    }
}

/// A run report as `PROVIDER:MODEL:PURPOSE:INPUT_TOKENS:OUTPUT_TOKENS`.
fn parse_run(spec: &str) -> Result<RunReport, Error> {
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
