//! The spec's work-session scenarios, run against the in-memory ledger with a pinned clock.

use baton_core::commands::Caller;
use baton_core::commands::{
    self, AttentionDoneParams, Context, EndParams, ListParams, ReportParams, Request, Response,
    ResumeParams, SessionRef, ShowParams, StartParams,
};
use baton_core::ledger::store::{LedgerView, MemoryLedger};
use baton_core::{ErrorCode, EventId, SessionId, Status, Timestamp};
use uuid::Uuid;

/// A deterministic host: a clock that only moves when told, ids from a counter.
struct Host {
    ledger: MemoryLedger,
    now: Timestamp,
    counter: u128,
}

impl Host {
    fn new() -> Host {
        Host {
            ledger: MemoryLedger::new(),
            now: Timestamp::parse("2026-07-18T20:00:00.000Z").unwrap(),
            counter: 0,
        }
    }

    fn id(&mut self) -> Uuid {
        // Far apart: a command's later events take the ids just above its event id.
        self.counter += 0x1_0000;
        // A valid UUIDv7 layout: version nibble 7, variant bits 10.
        Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0000 | self.counter)
    }

    fn run(&mut self, request: Request) -> Result<Response, baton_core::Error> {
        let ctx = Context::new(self.now, EventId(self.id()), SessionId(self.id()));
        commands::run(&mut self.ledger, &request, &ctx)
    }

    fn start(&mut self, project: &str, agent: &str, client: Option<&str>) -> SessionId {
        match self.run(Request::Start(StartParams {
            project: Some(project.into()),
            agent: Some(agent.into()),
            client_name: client.map(Into::into),
            ..Default::default()
        })) {
            Ok(Response::Action(a)) => a.session.session_id,
            other => panic!("start failed: {other:?}"),
        }
    }

    fn end(&mut self, params: EndParams) -> Result<Response, baton_core::Error> {
        self.run(Request::End(params))
    }

    fn status(&self, id: SessionId) -> Status {
        self.ledger.session(id).unwrap().unwrap().status
    }
}

#[test]
fn implicit_end_with_two_agents_live_is_ambiguous_and_closes_nothing() {
    let mut host = Host::new();
    let claude = host.start("demo", "claude", Some("claude-code"));
    let codex = host.start("demo", "codex", Some("codex-cli"));
    let lines_before = host.ledger.lines().len();
    let err = host
        .end(EndParams {
            project: Some("demo".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousSession);
    let candidates = err.details["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2);
    for (candidate, id) in candidates.iter().zip([claude, codex]) {
        assert_eq!(candidate["session_id"], id.to_string());
        for key in ["path", "project", "agent", "client_name", "started_at"] {
            assert!(candidate.get(key).is_some(), "candidate lacks {key}");
        }
    }
    assert_eq!(host.ledger.lines().len(), lines_before, "nothing written");
    assert_eq!(host.status(claude), Status::Working);
    assert_eq!(host.status(codex), Status::Working);

    // With the agent named, only that agent's session closes.
    let ended = host
        .end(EndParams {
            project: Some("demo".into()),
            agent: Some(" Claude ".into()),
            ..Default::default()
        })
        .unwrap();
    let Response::Action(action) = ended else {
        panic!()
    };
    assert_eq!(action.session.session_id, claude);
    assert_eq!(host.status(claude), Status::Complete);
    assert_eq!(host.status(codex), Status::Working);
}

#[test]
fn implicit_end_filters_by_client_and_refuses_when_none_match() {
    let mut host = Host::new();
    let a = host.start("demo", "claude", Some("claude-code"));
    host.start("demo", "claude", Some("cursor"));
    let ended = host
        .end(EndParams {
            client_name: Some("claude-code".into()),
            ..Default::default()
        })
        .unwrap();
    let Response::Action(action) = ended else {
        panic!()
    };
    assert_eq!(action.session.session_id, a);
    let err = host
        .end(EndParams {
            project: Some("other".into()),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::NoActiveSession);
    assert_eq!(err.details["filters"]["project"], "other");
}

#[test]
fn never_resolves_to_the_most_recent() {
    let mut host = Host::new();
    host.start("demo", "claude", None);
    host.now = Timestamp::from_millis(host.now.millis() + 60_000);
    host.start("demo", "claude", None);
    let err = host.end(EndParams::default()).unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousSession);
}

#[test]
fn resume_keeps_started_at_and_records_a_marker() {
    let mut host = Host::new();
    let id = host.start("demo", "claude", Some("claude-code"));
    let started = host.ledger.session(id).unwrap().unwrap().started_at;
    host.now = Timestamp::from_millis(host.now.millis() + 3_600_000);
    let resumed = host
        .run(Request::Start(StartParams {
            session_id: Some(id.to_string()),
            project: Some("demo".into()),
            ..Default::default()
        }))
        .unwrap();
    let Response::Action(action) = resumed else {
        panic!()
    };
    assert_eq!(
        action.action,
        baton_core::commands::SessionActionKind::Resumed
    );
    assert_eq!(action.resumed_at, Some(host.now));
    let session = host.ledger.session(id).unwrap().unwrap();
    assert_eq!(session.started_at, started);
    assert_eq!(session.resumes.len(), 1);
    assert_eq!(session.resumes[0].at, host.now);
    // Resume by the dedicated request too.
    host.run(Request::Resume(ResumeParams {
        session_id: id.to_string(),
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(host.ledger.session(id).unwrap().unwrap().resumes.len(), 2);
}

#[test]
fn resume_refuses_project_mismatch_and_ended_sessions() {
    let mut host = Host::new();
    let id = host.start("demo", "claude", None);
    let err = host
        .run(Request::Resume(ResumeParams {
            session_id: id.to_string(),
            project: Some("other".into()),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionProjectMismatch);
    assert_eq!(err.details["actual_project"], "demo");
    host.end(EndParams {
        session_id: Some(id.to_string()),
        ..Default::default()
    })
    .unwrap();
    let err = host
        .run(Request::Resume(ResumeParams {
            session_id: id.to_string(),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotActive);
}

#[test]
fn duration_comes_from_the_persisted_start() {
    let mut host = Host::new();
    let id = host.start("demo", "claude", None);
    host.now = Timestamp::parse("2026-07-18T21:30:00.000Z").unwrap();
    let ended = host
        .end(EndParams {
            session_id: Some(id.to_string()),
            summary: Some("Implemented and tested the search feature.".into()),
            ..Default::default()
        })
        .unwrap();
    let Response::Action(action) = ended else {
        panic!()
    };
    assert_eq!(action.session.duration_seconds, Some(5_400));
    assert_eq!(action.session.ended_at, Some(host.now));
    let json = serde_json::to_value(&action).unwrap();
    assert_eq!(json["action"], "ended");
    assert_eq!(json["duration_seconds"], 5400);
}

#[test]
fn a_second_end_is_refused_and_not_recorded() {
    let mut host = Host::new();
    let id = host.start("demo", "claude", None);
    let end = EndParams {
        session_id: Some(id.to_string()),
        ..Default::default()
    };
    host.end(end.clone()).unwrap();
    let lines = host.ledger.lines().len();
    let err = host.end(end).unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionAlreadyClosed);
    assert_eq!(host.ledger.lines().len(), lines);
}

#[test]
fn handoff_records_the_parent_and_leaves_it_live() {
    let mut host = Host::new();
    let parent = host.start("demo", "claude", None);
    let child = match host
        .run(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("codex".into()),
            parent_session_id: Some(parent.to_string()),
            goal: Some("Review and optimize Claude's implementation".into()),
            ..Default::default()
        }))
        .unwrap()
    {
        Response::Action(a) => a.session,
        other => panic!("{other:?}"),
    };
    assert_eq!(child.parent_session_id, Some(parent));
    assert_eq!(host.status(parent), Status::Working);

    let unknown = "019c0000-0000-7000-8000-00000000ffff";
    let err = host
        .run(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("codex".into()),
            parent_session_id: Some(unknown.into()),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound);
    assert_eq!(err.details["field"], "parent_session_id");
}

#[test]
fn run_and_work_item_go_together() {
    let mut host = Host::new();
    let err = host
        .run(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            run_id: Some("run-01".into()),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(err.details["field"], "work_item_id");
    let ok = host.run(Request::Start(StartParams {
        project: Some("demo".into()),
        agent: Some("claude".into()),
        run_id: Some("run-01".into()),
        work_item_id: Some("work-01".into()),
        attempt_id: Some("attempt-01".into()),
        ..Default::default()
    }));
    let Ok(Response::Action(a)) = ok else {
        panic!("{ok:?}")
    };
    assert_eq!(a.session.run_id.as_deref(), Some("run-01"));
    assert_eq!(a.session.attempt_id.as_deref(), Some("attempt-01"));
}

#[test]
fn bad_input_gets_the_right_code_and_writes_nothing() {
    let mut host = Host::new();
    let cases: Vec<(Request, ErrorCode)> = vec![
        (
            Request::Show(ShowParams {
                session_id: "not-a-uuid".into(),
            }),
            ErrorCode::InvalidArgument,
        ),
        (
            Request::Show(ShowParams {
                session_id: "019c0000-0000-7000-8000-00000000abcd".into(),
            }),
            ErrorCode::SessionNotFound,
        ),
        (
            Request::Start(StartParams {
                project: Some("../etc".into()),
                agent: Some("claude".into()),
                ..Default::default()
            }),
            ErrorCode::InvalidArgument,
        ),
        (
            Request::Start(StartParams {
                project: Some("demo".into()),
                agent: Some("cla\0ude".into()),
                ..Default::default()
            }),
            ErrorCode::InvalidArgument,
        ),
        (
            Request::Start(StartParams {
                project: Some("demo".into()),
                ..Default::default()
            }),
            ErrorCode::InvalidArgument,
        ),
        (
            Request::Start(StartParams {
                project: Some("demo".into()),
                agent: Some("claude".into()),
                goal: Some("x".repeat(5000)),
                ..Default::default()
            }),
            ErrorCode::EventTooLarge,
        ),
        (
            Request::End(EndParams {
                session_id: Some("019c0000-0000-7000-8000-00000000abcd".into()),
                ..Default::default()
            }),
            ErrorCode::SessionNotFound,
        ),
        (
            Request::End(EndParams {
                status: Some("done".into()),
                ..Default::default()
            }),
            ErrorCode::InvalidArgument,
        ),
        (
            Request::List(ListParams {
                status: Some("sleeping".into()),
                ..Default::default()
            }),
            ErrorCode::InvalidArgument,
        ),
    ];
    for (request, code) in cases {
        let err = host.run(request.clone()).unwrap_err();
        assert_eq!(err.code, code, "{request:?}");
        assert!(!err.message.is_empty());
    }
    assert!(host.ledger.lines().is_empty());
}

#[test]
fn list_filters_live_by_default() {
    let mut host = Host::new();
    let a = host.start("demo", "claude", None);
    host.start("demo", "codex", None);
    host.start("other", "claude", None);
    host.end(EndParams {
        session_id: Some(a.to_string()),
        ..Default::default()
    })
    .unwrap();
    let list = |host: &mut Host, params: ListParams| match host.run(Request::List(params)) {
        Ok(Response::List(l)) => l.total,
        other => panic!("{other:?}"),
    };
    assert_eq!(list(&mut host, ListParams::default()), 2);
    assert_eq!(
        list(
            &mut host,
            ListParams {
                include_ended: true,
                ..Default::default()
            }
        ),
        3
    );
    assert_eq!(
        list(
            &mut host,
            ListParams {
                project: Some("demo".into()),
                ..Default::default()
            }
        ),
        1
    );
    assert_eq!(
        list(
            &mut host,
            ListParams {
                status: Some("complete".into()),
                ..Default::default()
            }
        ),
        1
    );
    assert_eq!(
        list(
            &mut host,
            ListParams {
                agent: Some("CLAUDE".into()),
                include_ended: true,
                ..Default::default()
            }
        ),
        2
    );
}

#[test]
fn a_start_with_a_live_sessions_external_id_reconnects_to_it() {
    let mut host = Host::new();
    let start = |provider: Option<&str>, attempt: Option<&str>, project: &str| {
        Request::Start(StartParams {
            project: Some(project.into()),
            agent: Some("claude".into()),
            client_name: Some("claude-code".into()),
            provider_session_id: provider.map(Into::into),
            attempt_id: attempt.map(Into::into),
            ..Default::default()
        })
    };
    let Ok(Response::Action(first)) = host.run(start(Some("claude-abc"), None, "demo")) else {
        panic!("first start")
    };
    assert_eq!(
        first.session.provider_session_id.as_deref(),
        Some("claude-abc")
    );
    host.now = Timestamp::parse("2026-07-18T20:30:00.000Z").unwrap();
    let Ok(Response::Action(again)) = host.run(start(Some("claude-abc"), None, "demo")) else {
        panic!("second start")
    };
    // One session with a gap, not two: resumed, its start time kept, the reconnect said.
    assert_eq!(again.session.session_id, first.session.session_id);
    assert_eq!(
        again.action,
        baton_core::commands::SessionActionKind::Resumed
    );
    assert_eq!(again.session.started_at, first.session.started_at);
    assert!(
        again
            .message
            .as_deref()
            .unwrap()
            .starts_with("Session reconnected")
    );
    let live = host.ledger.live_sessions().unwrap();
    assert_eq!(live.len(), 1);
    let timeline = baton_core::lifecycle::timeline::timeline(
        &host
            .ledger
            .history(first.session.session_id)
            .unwrap()
            .unwrap(),
    );
    assert!(
        timeline
            .iter()
            .any(|e| e.summary.starts_with("Session reconnected")),
        "{timeline:?}"
    );
    // The attempt id works the same way; another project's or an ended session's does not.
    let Ok(Response::Action(attempt)) = host.run(start(None, Some("ci-7"), "demo")) else {
        panic!()
    };
    let Ok(Response::Action(same)) = host.run(start(None, Some("ci-7"), "demo")) else {
        panic!()
    };
    assert_eq!(same.session.session_id, attempt.session.session_id);
    let Ok(Response::Action(elsewhere)) = host.run(start(None, Some("ci-7"), "other")) else {
        panic!()
    };
    assert_ne!(elsewhere.session.session_id, attempt.session.session_id);
    host.end(EndParams {
        session_id: Some(first.session.session_id.to_string()),
        ..Default::default()
    })
    .unwrap();
    let Ok(Response::Action(fresh)) = host.run(start(Some("claude-abc"), None, "demo")) else {
        panic!()
    };
    assert_ne!(fresh.session.session_id, first.session.session_id);
    assert_eq!(
        fresh.action,
        baton_core::commands::SessionActionKind::Started
    );
}

#[test]
fn ending_a_working_session_says_it_stopped_without_finishing() {
    let mut host = Host::new();
    let id = host.start("demo", "claude", None);
    // Its agent reports: the lifecycle drives it, so an end mid-work is noticed.
    host.run(Request::Report(ReportParams {
        session_id: id.to_string(),
        progress: Some(40),
        ..Default::default()
    }))
    .unwrap();
    assert_eq!(host.status(id), Status::Working);
    host.end(EndParams {
        session_id: Some(id.to_string()),
        ..Default::default()
    })
    .unwrap();
    let Ok(Response::Attention(attention)) = host.run(Request::Attention) else {
        panic!()
    };
    let item = attention
        .items
        .iter()
        .find(|i| i.session_id == id)
        .expect("an attention item for the session");
    assert_eq!((item.level.as_str(), item.urgency), ("inform", 30));
    assert!(
        item.text.contains("stopped without finishing"),
        "{}",
        item.text
    );
}

#[test]
fn a_sessions_note_follows_its_life_and_keeps_a_persons_words() {
    use baton_core::notes::{NoteLinks, owned_parts, splice};
    let mut host = Host::new();
    let id = match host.run(Request::Start(StartParams {
        project: Some("demo".into()),
        agent: Some("claude".into()),
        client_name: Some("claude-code".into()),
        goal: Some("Implement the search feature".into()),
        ..Default::default()
    })) {
        Ok(Response::Action(a)) => a.session.session_id,
        other => panic!("start failed: {other:?}"),
    };
    // What Baton last wrote into the note, as a host keeps it.
    let written = std::cell::RefCell::new(Vec::new());
    let note_of = |host: &Host, before: &str, links: &NoteLinks<'_>| {
        let session = host.ledger.session(id).unwrap().unwrap();
        let owned = owned_parts(&session, links);
        let spliced = splice(before, &owned, &written.borrow()).unwrap();
        assert!(spliced.kept.is_empty(), "{:?}", spliced.kept);
        *written.borrow_mut() = owned.keys;
        spliced
    };
    let children = vec!["Projects/demo/sessions/2026-07-18-2100-codex.md".to_owned()];
    let fresh = note_of(&host, "", &NoteLinks::default());
    assert!(fresh.text.starts_with(&format!("---\nsession_id: {id}\nproject: demo\nproject_link: \"[[Projects/demo]]\"\nagent: claude\nclient_name: claude-code\nstatus: ")), "{}", fresh.text);
    assert!(
        fresh
            .text
            .contains("started_at: \"2026-07-18T20:00:00.000Z\"\n---\n")
    );
    assert!(
        fresh
            .text
            .contains("---\n\n# claude on demo, 2026-07-18 20:00 UTC\n\n<!-- baton:goal -->\n## Goal\n\nImplement the search feature\n<!-- /baton:goal -->\n"),
        "{}",
        fresh.text
    );
    assert!(!fresh.text.contains("ended_at"));

    // A person adds a key and a paragraph; the session resumes, hands off, and ends.
    let edited =
        fresh.text.replacen("---\n", "---\nrating: 4 # mine\n", 1) + "\nMy review: looks right.\n";
    host.now = Timestamp::from_millis(host.now.millis() + 3_600_000);
    host.run(Request::Resume(ResumeParams {
        session_id: id.to_string(),
        ..Default::default()
    }))
    .unwrap();
    let links = NoteLinks {
        children: &children,
        touched: &["Projects/demo/design.md".to_owned()],
        ..Default::default()
    };
    let resumed = note_of(&host, &edited, &links);
    assert!(
        resumed.text.contains("- Resumed 2026-07-18T21:00:00.000Z"),
        "{}",
        resumed.text
    );
    assert!(
        resumed
            .text
            .contains("- Handed on to [[Projects/demo/sessions/2026-07-18-2100-codex]]")
    );
    host.now = Timestamp::from_millis(host.now.millis() + 1_800_000);
    host.end(EndParams {
        session_id: Some(id.to_string()),
        summary: Some("Implemented and tested.".into()),
        ..Default::default()
    })
    .unwrap();
    let ended = note_of(&host, &resumed.text, &links);
    assert!(
        ended
            .text
            .contains("ended_at: \"2026-07-18T21:30:00.000Z\"\n"),
        "{}",
        ended.text
    );
    assert!(ended.text.contains("<!-- baton:end -->\n## Ended\n\nEnded 2026-07-18T21:30:00.000Z as complete after 1h 30m.\n\nImplemented and tested.\n\nNotes changed meanwhile:\n- [[Projects/demo/design]]\n<!-- /baton:end -->"), "{}", ended.text);
    for kept in ["rating: 4 # mine\n", "\nMy review: looks right.\n"] {
        assert!(ended.text.contains(kept), "{kept:?} kept in {}", ended.text);
    }
    assert!(
        !note_of(&host, &ended.text, &links).changed,
        "nothing new: nothing to write"
    );
}

fn attention(host: &mut Host) -> baton_core::commands::AttentionAnswer {
    match host.run(Request::Attention) {
        Ok(Response::Attention(answer)) => answer,
        other => panic!("attention failed: {other:?}"),
    }
}

#[test]
fn sessions_only_hooks_keep_end_without_raising_anything() {
    // Six agent sessions as hooks keep them: started when the agent starts, ended when it
    // exits, never a report. Each normal exit is a complete session, not a stopped one.
    let mut host = Host::new();
    for n in 0..6 {
        let id = host.start("demo", "claude-code", Some("claude-code"));
        host.now = Timestamp::from_millis(host.now.millis() + 60_000 * (n + 1));
        host.end(EndParams {
            session_id: Some(id.to_string()),
            summary: Some("Claude Code session ended (prompt_input_exit)".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(host.status(id), Status::Complete);
    }
    assert_eq!(attention(&mut host).total, 0);
    // One that asked for a brief after its start is driven by the lifecycle: its end while
    // working is noticed.
    let driven = host.start("demo", "claude-code", Some("claude-code"));
    host.now = Timestamp::from_millis(host.now.millis() + 1_000);
    host.run(Request::Brief(SessionRef {
        session_id: driven.to_string(),
    }))
    .unwrap();
    host.end(EndParams {
        session_id: Some(driven.to_string()),
        ..Default::default()
    })
    .unwrap();
    let open = attention(&mut host);
    assert_eq!(open.total, 1);
    assert_eq!(open.items[0].session_id, driven);
}

#[test]
fn attention_items_are_marked_done_by_number_all_or_age_and_the_timeline_says_who() {
    let mut host = Host::new();
    let mut sessions = Vec::new();
    for n in 0..4 {
        let id = host.start("demo", "claude-code", Some("claude-code"));
        host.run(Request::Report(ReportParams {
            session_id: id.to_string(),
            progress: Some(10),
            ..Default::default()
        }))
        .unwrap();
        host.end(EndParams {
            session_id: Some(id.to_string()),
            status: (n == 3).then(|| "failed".into()),
            ..Default::default()
        })
        .unwrap();
        sessions.push(id);
        // Two hours apart.
        host.now = Timestamp::from_millis(host.now.millis() + 2 * 3_600_000);
    }
    let open = attention(&mut host);
    assert_eq!(open.total, 4);
    let number_of = |answer: &baton_core::commands::AttentionAnswer, id: SessionId| {
        answer
            .items
            .iter()
            .find(|i| i.session_id == id)
            .map(|i| i.number)
            .unwrap()
    };
    // A number no open item has is refused, naming the open ones; nothing is written.
    let lines = host.ledger.lines().len();
    let err = host
        .run(Request::AttentionDone(AttentionDoneParams {
            numbers: vec![99],
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(err.details["open"].as_array().unwrap().len(), 4);
    // Nothing named: refused too.
    let err = host
        .run(Request::AttentionDone(AttentionDoneParams::default()))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArgument);
    assert_eq!(host.ledger.lines().len(), lines);
    // An agent may not clear what is said about another agent's session.
    let mut ctx = Context::new(host.now, EventId(host.id()), SessionId(host.id()));
    ctx.caller = Caller::agent("codex");
    let err = commands::run(
        &mut host.ledger,
        &Request::AttentionDone(AttentionDoneParams {
            numbers: vec![number_of(&open, sessions[0])],
            ..Default::default()
        }),
        &ctx,
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::ActorNotAllowed);
    // By number, with a note.
    let Ok(Response::Attention(after)) = host.run(Request::AttentionDone(AttentionDoneParams {
        numbers: vec![number_of(&open, sessions[0])],
        note: Some("seen, fine".into()),
        ..Default::default()
    })) else {
        panic!()
    };
    assert_eq!((after.done, after.total), (Some(1), 3));
    // The cleared item's session timeline says who marked it done.
    let Ok(Response::Timeline(timeline)) = host.run(Request::Timeline(SessionRef {
        session_id: sessions[0].to_string(),
    })) else {
        panic!()
    };
    let cleared = timeline
        .events
        .iter()
        .find(|e| e.kind == "attention_cleared")
        .expect("the acknowledgement in the timeline");
    assert_eq!(cleared.actor, baton_core::ledger::event::ActorKind::Human);
    assert!(
        cleared.summary.contains("seen, fine"),
        "{}",
        cleared.summary
    );
    assert!(timeline.events.iter().any(|e| e.kind == "attention_raised"));
    // By age: items raised at least 3 h ago (the two oldest left), not the newest.
    let Ok(Response::Attention(after)) = host.run(Request::AttentionDone(AttentionDoneParams {
        older_than_seconds: Some(3 * 3600),
        ..Default::default()
    })) else {
        panic!()
    };
    assert_eq!((after.done, after.total), (Some(2), 1));
    assert_eq!(after.items[0].session_id, sessions[3]);
    // All.
    let Ok(Response::Attention(after)) = host.run(Request::AttentionDone(AttentionDoneParams {
        all: true,
        ..Default::default()
    })) else {
        panic!()
    };
    assert_eq!((after.done, after.total), (Some(1), 0));
    assert_eq!(attention(&mut host).total, 0);
}
