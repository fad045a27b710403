//! `baton demo`: Baton's main job on a temporary ledger, with no user data — agents start,
//! collide, crash and resume, hand off and end, eight processes write at once, the ledger is
//! compacted and checked — then the web page is served so the same ledger can be opened there.

/// Whether the narration goes to stderr (`baton --json demo`).
static NARRATE_TO_STDERR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sends the narration to stderr from now on (for `--json`).
pub fn narrate_to_stderr() {
    NARRATE_TO_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// One line of narration, where it belongs; a closed pipe is not an error.
pub fn say(text: &str) {
    use std::io::Write;
    let line = crate::os::terminal::terminal_safe(text);
    let _ = if NARRATE_TO_STDERR.load(std::sync::atomic::Ordering::Relaxed) {
        writeln!(std::io::stderr().lock(), "{line}")
    } else {
        writeln!(std::io::stdout().lock(), "{line}")
    };
}

use crate::ops::engine;
use crate::store::Ledger;
use baton_core::Error;
use baton_core::commands::render;
use baton_core::commands::{EndParams, ListParams, Request, Response, StartParams};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn start(
    ledger: &Ledger,
    project: &str,
    agent: &str,
    client: &str,
    goal: &str,
    parent: Option<&str>,
) -> Result<String, Error> {
    let response = engine::run(
        ledger,
        &Request::Start(StartParams {
            project: Some(project.into()),
            agent: Some(agent.into()),
            client_name: Some(client.into()),
            goal: Some(goal.into()),
            parent_session_id: parent.map(Into::into),
            ..StartParams::default()
        }),
        None,
    )?;
    narrate!("  {}", render::ok_line(&response));
    match response {
        Response::Action(a) => Ok(a.session.session_id.to_string()),
        _ => Err(Error::internal("start answered something else")),
    }
}

fn step(title: &str) {
    narrate!("\n== {title}");
}

/// Runs the demo in `dir` (created if needed) and returns the ledger file to open in the page.
pub fn run(dir: &Path) -> Result<PathBuf, Error> {
    let ledger = Ledger::new(dir, true);
    narrate!("Demo ledger: {}", dir.display());

    step("Two agents start work on the same project");
    let claude = start(
        &ledger,
        "demo",
        "Claude",
        "claude-code",
        "Implement the search feature",
        None,
    )?;
    start(
        &ledger,
        "demo",
        "codex",
        "codex-cli",
        "Write the API docs",
        None,
    )?;
    start(
        &ledger,
        "website",
        "cursor",
        "cursor",
        "Fix the landing page",
        None,
    )?;

    step("An end without an id must not guess: two live sessions match project `demo`");
    let ambiguous = engine::run(
        &ledger,
        &Request::End(EndParams {
            project: Some("demo".into()),
            ..EndParams::default()
        }),
        None,
    );
    match ambiguous {
        Err(err) => {
            narrate!("  {}", render::error_line(&err));
            for c in err.details["candidates"].as_array().into_iter().flatten() {
                narrate!(
                    "    candidate {} ({} via {})",
                    c["session_id"].as_str().unwrap_or(""),
                    c["agent"].as_str().unwrap_or(""),
                    c["client_name"].as_str().unwrap_or("-")
                );
            }
        }
        Ok(_) => return Err(Error::internal("the demo expected an ambiguity")),
    }

    step("Claude's process crashes and restarts: it resumes its session by id");
    let resumed = engine::run(
        &ledger,
        &Request::Start(StartParams {
            session_id: Some(claude.clone()),
            project: Some("demo".into()),
            ..StartParams::default()
        }),
        None,
    )?;
    narrate!("  {}", render::ok_line(&resumed));

    step("Claude hands off to a reviewer (the parent stays live until it ends itself)");
    start(
        &ledger,
        "demo",
        "codex",
        "codex-cli",
        "Review Claude's search implementation",
        Some(&claude),
    )?;

    step("Claude ends its own session; the filters leave exactly one candidate");
    let ended = engine::run(
        &ledger,
        &Request::End(EndParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            client_name: Some("claude-code".into()),
            summary: Some("Search implemented and tested".into()),
            ..EndParams::default()
        }),
        None,
    )?;
    narrate!("  {}", render::ok_line(&ended));
    if let Response::Action(action) = &ended
        && let Some(note) = &action.note
    {
        step(
            "Each session keeps a Markdown note a person can read and edit (Baton keeps your words)",
        );
        narrate!("  {}", crate::ops::notes::human_line(note));
    }

    lifecycle_tour(&ledger)?;

    step("Eight agent processes start sessions at the same moment (no daemon, no lock)");
    let exe =
        std::env::current_exe().map_err(|e| Error::store_io("find", "the baton binary", e))?;
    let children: Vec<_> = (0..8)
        .map(|i| {
            Command::new(&exe)
                .arg("--dir")
                .arg(dir)
                .args([
                    "--json",
                    "start",
                    "--project",
                    "load",
                    "--agent",
                    &format!("worker-{i}"),
                ])
                .stdout(Stdio::null())
                .spawn()
        })
        .collect::<Result<_, _>>()
        .map_err(|e| Error::store_io("spawn", "baton", e))?;
    let mut ok = 0;
    for mut child in children {
        if child.wait().is_ok_and(|s| s.success()) {
            ok += 1;
        }
    }
    narrate!("  [ok] {ok} of 8 concurrent starts succeeded, each with its own session id");

    step("Compaction rolls the log into monthly archives; the doctor checks the store");
    let report = ledger.compact()?;
    narrate!(
        "  [ok] compacted {} events into {} month(s)",
        report.events_in,
        report.months_written.len()
    );
    let doctor = ledger.doctor()?;
    narrate!(
        "  [{}] {} sessions ({} live), {} corrupt lines, checkpoint {}",
        if doctor.healthy { "ok" } else { "warn" },
        doctor.sessions.total,
        doctor.sessions.live,
        doctor.stats.corrupt_lines,
        doctor.checkpoint
    );

    step("All sessions");
    let list = engine::run(
        &ledger,
        &Request::List(ListParams {
            include_ended: true,
            ..ListParams::default()
        }),
        None,
    )?;
    narrate!("{}", render::ok_line(&list));
    // The page folds raw event lines: hand it the archive the compaction just wrote.
    let month = report.months_written.first().cloned().unwrap_or_default();
    Ok(dir.join("archive").join(format!("{month}.ndjson")))
}

fn codex_sessions(ledger: &Ledger) -> Result<Vec<baton_core::Session>, Error> {
    let listed = engine::run(
        ledger,
        &Request::List(ListParams {
            agent: Some("codex".into()),
            ..ListParams::default()
        }),
        None,
    )?;
    match listed {
        Response::List(list) => Ok(list.sessions),
        _ => Err(Error::internal("list answered something else")),
    }
}

/// Pause by pull, a collision on a declared dependency, and the health it costs.
fn lifecycle_tour(ledger: &Ledger) -> Result<(), Error> {
    use baton_core::commands::{DependParams, HealthParams, PauseParams, ReportParams, SessionRef};
    let codex = codex_sessions(ledger)?;
    let reviewer = codex
        .iter()
        .find(|s| s.parent_session_id.is_some())
        .map(|s| s.session_id.to_string())
        .ok_or_else(|| Error::internal("the reviewer session is missing"))?;
    let docs = codex
        .iter()
        .find(|s| s.parent_session_id.is_none())
        .map(|s| s.session_id.to_string())
        .ok_or_else(|| Error::internal("the docs session is missing"))?;
    step("A lead pauses the reviewer; the pause reaches it when it next asks for context");
    for request in [
        Request::Depend(DependParams {
            session_id: reviewer.clone(),
            files: vec!["src/search.rs".into()],
        }),
        Request::Pause(PauseParams {
            session_id: reviewer.clone(),
            reason: "Wait for the API freeze".into(),
        }),
        Request::Brief(SessionRef {
            session_id: reviewer.clone(),
        }),
        Request::Unpause(SessionRef {
            session_id: reviewer.clone(),
        }),
        Request::Brief(SessionRef {
            session_id: reviewer.clone(),
        }),
    ] {
        narrate!(
            "  {}",
            render::ok_line(&engine::run(ledger, &request, None)?)
        );
    }
    step("Another agent changes a file the reviewer depends on: a collision, and stale health");
    let report = engine::run(
        ledger,
        &Request::Report(ReportParams {
            session_id: docs,
            changed_files: vec!["src/search.rs".into()],
            ..ReportParams::default()
        }),
        None,
    )?;
    narrate!("  {}", render::ok_line(&report));
    let health = engine::run(
        ledger,
        &Request::Health(HealthParams {
            session_id: reviewer,
            recheck: false,
        }),
        None,
    )?;
    let reader = crate::faces::present::Reader {
        style: crate::faces::table::Style::PLAIN,
        now: crate::os::system::now()?,
        zone: &baton_core::time::UtcZone,
    };
    narrate!(
        "  {}",
        crate::faces::present::human(&health, &reader).replace('\n', "\n  ")
    );
    Ok(())
}
