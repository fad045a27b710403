//! Sessions as people read them: the list as a table (health, liveness and status painted),
//! and one session as a block.

use super::*;

/// The shortest id suffixes, 8 hex digits or more, that tell these sessions apart.
pub(crate) fn short_ids(ids: &[SessionId]) -> Vec<String> {
    let hex: Vec<String> = ids.iter().map(|id| id.0.simple().to_string()).collect();
    let length = (8..32)
        .find(|&n| {
            let mut seen = std::collections::HashSet::new();
            hex.iter().all(|h| seen.insert(&h[32 - n..]))
        })
        .unwrap_or(32);
    hex.iter().map(|h| h[32 - length..].to_owned()).collect()
}

/// The session list as a table; with `costs`, a COST and a TOKENS column.
pub(crate) fn session_list(
    list: &SessionList,
    reader: &Reader,
    costs: Option<&crate::ops::work_cost::WorkCosts>,
    machines: Option<&std::collections::BTreeMap<SessionId, String>>,
) -> String {
    let live = list.sessions.iter().filter(|s| s.is_live()).count();
    let noun = |n: usize| if n == 1 { "session" } else { "sessions" };
    if list.sessions.is_empty() {
        return "[ok] No work sessions match. Start one with `baton start --project NAME --agent NAME`; `baton list --all` includes ended ones.".to_owned();
    }
    let mut text = if live == list.total {
        format!("[ok] {} live work {}", list.total, noun(list.total))
    } else {
        format!(
            "[ok] {} work {} ({live} live)",
            list.total,
            noun(list.total)
        )
    };
    let ids: Vec<SessionId> = list.sessions.iter().map(|s| s.session_id).collect();
    let mut columns = vec![Column::text("ID")];
    if machines.is_some() {
        columns.push(Column::text("MACHINE").cut(Fit::End));
    }
    columns.extend([
        Column::text("AGENT").cut(Fit::End),
        Column::text("PROJECT").cut(Fit::End),
        Column::text("STATUS"),
    ]);
    if machines.is_some() {
        columns.push(Column::text("HEALTH"));
    }
    columns.extend([
        Column::text("PROCESS").droppable(2),
        Column::text("STARTED").droppable(0),
        Column::text("LAST EVENT").droppable(1),
    ]);
    if costs.is_some() {
        columns.push(Column::number("TOKENS").droppable(3));
        columns.push(Column::number("COST USD"));
    }
    columns.push(Column::text("GOAL").cut(Fit::End).comfortable(20));
    let mut table = Table::new(columns);
    for (session, id) in list.sessions.iter().zip(short_ids(&ids)) {
        let mut row = vec![Cell::painted(id, Some(Paint::Dim))];
        if let Some(machines) = machines {
            row.push(
                machines
                    .get(&session.session_id)
                    .cloned()
                    .unwrap_or_default()
                    .into(),
            );
        }
        row.extend([
            session.agent.clone().into(),
            session.project.clone().into(),
            Cell::painted(session.status.as_str(), status_paint(session.status)),
        ]);
        if machines.is_some() {
            row.push(health_cell(session));
        }
        row.extend([
            liveness_cell(session),
            reader.clock(session.started_at).into(),
            reader.ago(session.last_event_at).into(),
        ]);
        if let Some(costs) = costs {
            let figures = costs.of(session.session_id);
            row.push(
                figures
                    .map_or_else(String::new, |f| {
                        baton_core::analyzer::charts::scale::thousands(f.total_tokens)
                    })
                    .into(),
            );
            row.push(
                figures
                    .and_then(|f| f.cost_usd)
                    .map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"))
                    .into(),
            );
        }
        row.push(session.goal.clone().unwrap_or_default().into());
        table.row(row);
    }
    text.push('\n');
    text.push_str(&table.render(&reader.style));
    text
}

/// A session's last health score and verdict, coloured by the verdict; blank when none.
pub(super) fn health_cell(session: &Session) -> Cell {
    let Some(health) = &session.health else {
        return "".into();
    };
    let verdict = format!("{:?}", health.verdict).to_lowercase();
    let text = match health.overall {
        Some(score) => format!("{score} {verdict}"),
        None => verdict,
    };
    Cell::painted(&text, Some(verdict_paint(health.verdict)))
}

pub(super) fn verdict_paint(verdict: Verdict) -> Paint {
    match verdict {
        Verdict::Healthy => Paint::Green,
        Verdict::Degraded => Paint::Amber,
        Verdict::Stale => Paint::Red,
    }
}

/// A live session's liveness in the list: its state, `unknown` when none was recorded, and
/// nothing for an ended session.
pub(super) fn liveness_cell(session: &Session) -> Cell {
    if !session.is_live() {
        return "".into();
    }
    let state = session
        .liveness
        .as_ref()
        .map_or(baton_core::ledger::liveness::Liveness::Unknown, |l| l.state);
    Cell::painted(state.as_str(), liveness_paint(state))
}

pub(crate) fn liveness_paint(state: baton_core::ledger::liveness::Liveness) -> Option<Paint> {
    use baton_core::ledger::liveness::Liveness;
    match state {
        Liveness::Live => Some(Paint::Green),
        Liveness::Idle => Some(Paint::Amber),
        Liveness::Gone => Some(Paint::Red),
        Liveness::Unknown | Liveness::Other => Some(Paint::Dim),
    }
}

pub(super) fn session_block(s: &Session, reader: &Reader) -> String {
    let mut rows: Vec<(&str, String)> = vec![
        ("id", s.session_id.to_string()),
        (
            "status",
            match &s.pause {
                Some(pause) => format!(
                    "{} by {} ({}){}",
                    reader.style.paint(s.status.as_str(), Paint::Amber),
                    pause.by,
                    pause.reason,
                    if pause.delivered {
                        ""
                    } else {
                        ", not yet delivered"
                    }
                ),
                None => match status_paint(s.status) {
                    Some(paint) => reader.style.paint(s.status.as_str(), paint),
                    None => s.status.as_str().to_owned(),
                },
            },
        ),
        ("project", s.project.clone()),
        (
            "agent",
            match &s.client_name {
                Some(client) => format!("{} (client {client})", s.agent),
                None => s.agent.clone(),
            },
        ),
    ];
    let mut optional = |label, value: Option<String>| {
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            rows.push((label, value));
        }
    };
    optional("goal", s.goal.clone());
    optional("mission", s.mission.clone());
    if s.is_live() {
        optional(
            "agent process",
            Some(match &s.liveness {
                Some(seen) => format!(
                    "{} since {}: {}",
                    match liveness_paint(seen.state) {
                        Some(paint) => reader.style.paint(seen.state.as_str(), paint),
                        None => seen.state.as_str().to_owned(),
                    },
                    reader.clock(seen.at),
                    seen.reason
                ),
                None => "unknown: no process is tied to it (a hook or the MCP server records one)"
                    .to_owned(),
            }),
        );
    }
    optional(
        "started",
        Some(format!(
            "{} ({})",
            reader.clock(s.started_at),
            reader.ago(s.started_at)
        )),
    );
    optional(
        "ended",
        s.ended_at.map(|at| {
            format!(
                "{} after {}",
                reader.clock(at),
                human_duration(s.duration_seconds.unwrap_or(0))
            )
        }),
    );
    optional(
        "last event",
        Some(format!(
            "{} ({} events)",
            reader.ago(s.last_event_at),
            s.event_count
        )),
    );
    optional(
        "resumed",
        (!s.resumes.is_empty()).then(|| format!("{} time(s)", s.resumes.len())),
    );
    optional("summary", s.summary.clone());
    optional(
        "progress",
        s.progress.map(|p| format!("{p}% (self-reported)")),
    );
    optional(
        "health",
        s.health.as_ref().map(|h| {
            let verdict = format!("{:?}", h.verdict).to_lowercase();
            let paint = verdict_paint(h.verdict);
            let overall = h.overall.map_or("—".to_owned(), |o| o.to_string());
            format!(
                "{} {}{}",
                overall,
                reader.style.paint(&verdict, paint),
                if h.recommend_rebrief {
                    "; re-brief recommended"
                } else {
                    ""
                }
            )
        }),
    );
    optional(
        "plan",
        (!s.plan.is_empty()).then(|| {
            s.plan
                .iter()
                .enumerate()
                .map(|(i, step)| {
                    format!(
                        "{}. {} [{}]",
                        i + 1,
                        step.title,
                        crate::wire_name(&step.state)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }),
    );
    optional(
        "changed",
        (!s.changed_files.is_empty()).then(|| s.changed_files.join(", ")),
    );
    optional(
        "depends on",
        (!s.dependencies.is_empty()).then(|| s.dependencies.join(", ")),
    );
    optional(
        "collisions",
        (!s.open_collisions.is_empty()).then(|| {
            s.open_collisions
                .iter()
                .map(|c| {
                    format!(
                        "{} ({}, by {})",
                        c.file,
                        crate::wire_name(&c.severity),
                        c.by_session.short()
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        }),
    );
    optional(
        "decisions",
        (!s.decisions.is_empty()).then(|| {
            s.decisions
                .iter()
                .map(|d| {
                    format!(
                        "{}{}",
                        d.text,
                        if d.resolved { " (settled)" } else { " (open)" }
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        }),
    );
    optional(
        "AI runs",
        (s.runs.recorded + s.runs.refused > 0).then(|| {
            format!(
                "{} recorded ({} in, {} out), {} refused",
                s.runs.recorded, s.runs.input_tokens, s.runs.output_tokens, s.runs.refused
            )
        }),
    );
    optional(
        "evidence",
        (!s.evidence.is_empty()).then(|| s.evidence.join("; ")),
    );
    optional("pull request", s.pull_request.clone());
    optional("parent", s.parent_session_id.map(|p| p.to_string()));
    optional("start commit", s.start_commit.clone());
    optional("branch", s.branch.clone());
    optional("worktree", s.worktree.clone());
    let width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0);
    let mut text = format!("[ok] Work session {}", s.path);
    for (label, value) in rows {
        let value = crate::os::terminal::terminal_safe(&value.replace('\n', " ")).into_owned();
        text.push_str(&format!("\n  {label:<width$}  {value}"));
    }
    text
}

/// The lines `show` adds under a session from what the host knows besides the ledger: its
/// cost, its hand-off chain's and its branch's, its share of the five-hour window, how to
/// resume it (each line starts with a line break; none when nothing is known).
pub(crate) fn show_extras(extras: &crate::ops::command::Extras) -> String {
    use baton_core::analyzer::charts::scale::thousands;
    let dollars = |v: &serde_json::Value| {
        v["cost_usd"]
            .as_f64()
            .map_or_else(|| "cost unknown".to_owned(), |c| format!("${c:.2}"))
    };
    let mut out = String::new();
    if let Some(figures) = &extras.cost {
        out.push_str(&format!(
            "\n  cost           {}",
            crate::ops::work_cost::describe(figures)
        ));
    }
    if let Some(reported) = &extras.reported_cost {
        out.push_str(&format!(
            "\n  reported cost  {} · {} tokens, as its agent reported them over OpenTelemetry",
            dollars(reported),
            thousands(reported["total_tokens"].as_u64().unwrap_or(0)),
        ));
    }
    if let Some(chain) = &extras.chain_cost {
        out.push_str(&format!(
            "\n  chain cost     {} · {} tokens over {} handed-off sessions",
            dollars(chain),
            thousands(chain["total_tokens"].as_u64().unwrap_or(0)),
            chain["sessions"].as_array().map_or(0, Vec::len)
        ));
    }
    if let Some(branch) = &extras.branch_cost {
        out.push_str(&format!(
            "\n  branch cost    {} · {} tokens over {} sessions on {}",
            dollars(branch),
            thousands(branch["total_tokens"].as_u64().unwrap_or(0)),
            branch["sessions"].as_array().map_or(0, Vec::len),
            branch["branch"].as_str().unwrap_or("its branch")
        ));
    }
    if let Some(share) = &extras.window_share {
        out.push_str(&format!(
            "\n  window share   {}% of the five-hour window open until {} (${:.2} of ${:.2})",
            share["share_percent"].as_f64().unwrap_or(0.0),
            share["window_end"].as_str().unwrap_or("?"),
            share["cost_usd"].as_f64().unwrap_or(0.0),
            share["window_cost_usd"].as_f64().unwrap_or(0.0),
        ));
    }
    if let Some(resume) = &extras.resume {
        out.push_str(&match resume["command"].as_str() {
            Some(command) => format!("\n  resume         {command}"),
            None => format!(
                "\n  resume         not as it is: {}",
                resume["why_not"].as_str().unwrap_or("?")
            ),
        });
    }
    out
}
