//! Lifecycle and context health through the core's commands on the in-memory ledger: one test
//! per scoring rule, the thresholds' edges, the recommendations, and a state-machine property.

use baton_core::commands::Caller;
use baton_core::commands::NextAction;
use baton_core::commands::{self, Context, EndParams, Request, Response, StartParams};
use baton_core::commands::{
    ConstitutionParams, DependParams, HealthParams, IndexParams, MissionParams, NoteParams,
    PauseParams, ReportParams, RunReport, SessionRef,
};
use baton_core::ledger::activity::StepState;
use baton_core::ledger::activity::Verdict;
use baton_core::ledger::session::ReportsVia;
use baton_core::ledger::store::{LedgerView, MemoryLedger};
use baton_core::lifecycle::health::verdict;
use baton_core::lifecycle::workspace::{Policy, Role};
use baton_core::{ErrorCode, EventId, SessionId, Status, Timestamp};
use proptest::prelude::*;
use uuid::Uuid;

struct Host {
    ledger: MemoryLedger,
    now: i64,
    counter: u128,
    policy: Policy,
    person: String,
    caller: Caller,
}

impl Host {
    fn new() -> Host {
        Host {
            ledger: MemoryLedger::new(),
            now: 1_784_404_800_000,
            counter: 0,
            policy: Policy::default(),
            person: "lead".into(),
            caller: Caller::Person,
        }
    }

    fn run(&mut self, request: Request) -> Result<Response, baton_core::Error> {
        self.now += 1000;
        self.counter += 0x1_0000;
        let id = |n: u128| Uuid::from_u128(0x019c_0000_0000_7000_8000_0000_0000_0000 | n);
        let mut ctx = Context::new(
            Timestamp::from_millis(self.now),
            EventId(id(self.counter)),
            SessionId(id(self.counter + 0x8000)),
        );
        ctx.policy = self.policy.clone();
        ctx.person = self.person.clone();
        ctx.caller = self.caller.clone();
        commands::run(&mut self.ledger, &request, &ctx)
    }

    fn ok(&mut self, request: Request) -> Response {
        self.run(request.clone())
            .unwrap_or_else(|e| panic!("{request:?}: {e}"))
    }

    fn start(&mut self, agent: &str, mission: Option<&str>, commit: Option<&str>) -> String {
        match self.ok(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some(agent.into()),
            client_name: Some("claude-code".into()),
            mission: mission.map(Into::into),
            commit: commit.map(Into::into),
            ..Default::default()
        })) {
            Response::Action(a) => a.session.session_id.to_string(),
            other => panic!("{other:?}"),
        }
    }

    fn mission(&mut self, reference: &str, clauses: &[&str], approve: bool) {
        self.ok(Request::MissionAdd(MissionParams {
            reference: reference.into(),
            clauses: clauses.iter().map(|c| c.to_string()).collect(),
        }));
        if approve {
            self.ok(Request::MissionApprove(MissionParams {
                reference: reference.into(),
                clauses: vec![],
            }));
        }
    }

    fn health(&mut self, id: &str) -> baton_core::ledger::activity::HealthReport {
        match self.ok(Request::Health(HealthParams {
            session_id: id.into(),
            recheck: false,
        })) {
            Response::Health(h) => h.report,
            other => panic!("{other:?}"),
        }
    }

    fn score(&mut self, id: &str, dimension: &str) -> Option<u32> {
        let report = self.health(id);
        report
            .dimensions
            .iter()
            .find(|d| d.name == dimension)
            .unwrap_or_else(|| panic!("no {dimension}"))
            .score
    }

    fn reason(&mut self, id: &str, dimension: &str) -> String {
        let report = self.health(id);
        report
            .dimensions
            .into_iter()
            .find(|d| d.name == dimension)
            .unwrap()
            .reason
    }

    fn brief(&mut self, id: &str) -> Response {
        self.ok(Request::Brief(SessionRef {
            session_id: id.into(),
        }))
    }

    fn report(&mut self, params: ReportParams) -> Result<Response, baton_core::Error> {
        self.run(Request::Report(params))
    }

    fn status(&self, id: &str) -> Status {
        self.session(id).status
    }

    fn session(&self, id: &str) -> baton_core::Session {
        let id = SessionId::parse_v7("id", id).unwrap();
        self.ledger.session(id).unwrap().unwrap()
    }
}

fn changed(id: &str, files: &[&str]) -> ReportParams {
    ReportParams {
        session_id: id.into(),
        changed_files: files.iter().map(|f| f.to_string()).collect(),
        ..Default::default()
    }
}

// --- Mission understanding -------------------------------------------------------------------

#[test]
fn mission_understanding_is_blank_without_a_mission() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    assert_eq!(h.score(&s, "mission_understanding"), None);
    assert!(
        h.reason(&s, "mission_understanding")
            .contains("No mission is attached")
    );
}

#[test]
fn mission_understanding_is_100_on_the_current_contract_and_capped_at_50_after_a_bump() {
    let mut h = Host::new();
    h.mission("CLAIM-142", &["a", "b"], true);
    let s = h.start("claude", Some("CLAIM-142"), None);
    assert_eq!(h.score(&s, "mission_understanding"), Some(100));
    h.mission("CLAIM-142", &["a", "b", "c"], true);
    assert_eq!(
        h.score(&s, "mission_understanding"),
        Some(50),
        "one clause added, version bumped"
    );
    h.mission("CLAIM-142", &["a", "b", "c", "d", "e", "f", "g", "h"], true);
    assert_eq!(
        h.score(&s, "mission_understanding"),
        Some(40),
        "six clauses added: 100 − 60"
    );
    h.brief(&s);
    assert_eq!(h.score(&s, "mission_understanding"), Some(100));
}

#[test]
fn a_draft_version_does_not_move_the_contract_sessions_work_from() {
    let mut h = Host::new();
    h.mission("CLAIM-7", &["a"], true);
    let s = h.start("claude", Some("CLAIM-7"), None);
    h.mission("CLAIM-7", &["a", "b"], false);
    assert_eq!(h.score(&s, "mission_understanding"), Some(100));
}

// --- Architecture context ----------------------------------------------------------------------

#[test]
fn architecture_context_blank_without_constitution_then_minus_35_per_version() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    assert_eq!(h.score(&s, "architecture_context"), None);
    assert!(
        h.reason(&s, "architecture_context")
            .contains("no architecture constitution")
    );
    h.ok(Request::ConstitutionSet(ConstitutionParams {
        text: "v1".into(),
    }));
    assert_eq!(
        h.score(&s, "architecture_context"),
        Some(65),
        "briefed before any constitution"
    );
    h.brief(&s);
    assert_eq!(h.score(&s, "architecture_context"), Some(100));
    h.ok(Request::ConstitutionSet(ConstitutionParams {
        text: "v2".into(),
    }));
    h.ok(Request::ConstitutionSet(ConstitutionParams {
        text: "v3".into(),
    }));
    assert_eq!(h.score(&s, "architecture_context"), Some(30));
    h.ok(Request::ConstitutionSet(ConstitutionParams {
        text: "v4".into(),
    }));
    assert_eq!(
        h.score(&s, "architecture_context"),
        Some(0),
        "three versions of drift floor at 0"
    );
}

#[test]
fn never_briefed_scores_0_on_briefed_dimensions() {
    let mut h = Host::new();
    h.ok(Request::ConstitutionSet(ConstitutionParams {
        text: "v1".into(),
    }));
    let s = match h.ok(Request::Start(StartParams {
        project: Some("demo".into()),
        agent: Some("claude".into()),
        no_brief: true,
        ..Default::default()
    })) {
        Response::Action(a) => a.session.session_id.to_string(),
        _ => unreachable!(),
    };
    assert_eq!(h.status(&s), Status::Starting);
    assert_eq!(h.score(&s, "architecture_context"), Some(0));
    assert_eq!(h.score(&s, "decisions_current"), Some(0));
    let report = h.health(&s);
    assert_eq!(report.verdict, Verdict::Stale);
    assert!(report.recommend_rebrief);
    h.brief(&s);
    assert_eq!(h.status(&s), Status::Working);
}

// --- Repository state ------------------------------------------------------------------------

#[test]
fn repository_state_is_100_when_equal_exactly_55_when_different_blank_when_unknown() {
    let mut h = Host::new();
    let s = h.start("claude", None, Some("abc"));
    assert_eq!(h.score(&s, "repository_state"), None, "nothing indexed");
    h.ok(Request::Index(IndexParams {
        commit: "abc".into(),
    }));
    assert_eq!(h.score(&s, "repository_state"), Some(100));
    h.ok(Request::Index(IndexParams {
        commit: "def".into(),
    }));
    assert_eq!(h.score(&s, "repository_state"), Some(55));
    let unknown = h.start("codex", None, None);
    assert_eq!(h.score(&unknown, "repository_state"), None);
    assert!(
        h.reason(&unknown, "repository_state")
            .contains("did not record the commit")
    );
}

// --- Requirement confidence ------------------------------------------------------------------

#[test]
fn requirement_confidence_loses_30_per_open_ambiguity_of_its_mission() {
    let mut h = Host::new();
    h.mission("CLAIM-1", &["a"], true);
    let s = h.start("claude", Some("CLAIM-1"), None);
    let open = |h: &mut Host, reference: &str| {
        h.ok(Request::AmbiguityOpen(NoteParams {
            reference: Some(reference.into()),
            text: Some("which order?".into()),
            number: None,
        }))
    };
    open(&mut h, "CLAIM-1");
    open(&mut h, "CLAIM-1");
    open(&mut h, "OTHER-2");
    assert_eq!(h.score(&s, "requirement_confidence"), Some(40));
    h.ok(Request::AmbiguityResolve(NoteParams {
        number: Some(1),
        ..Default::default()
    }));
    assert_eq!(h.score(&s, "requirement_confidence"), Some(70));
    let err = h
        .run(Request::AmbiguityResolve(NoteParams {
            number: Some(1),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguityNotFound);
    let none = h.start("codex", None, None);
    assert_eq!(h.score(&none, "requirement_confidence"), None);
}

// --- Dependencies current --------------------------------------------------------------------

#[test]
fn dependencies_lose_45_per_high_and_15_per_normal_collision() {
    let mut h = Host::new();
    let affected = h.start("claude", None, None);
    let other = h.start("codex", None, None);
    h.ok(Request::Depend(DependParams {
        session_id: affected.clone(),
        files: vec!["api.rs".into()],
    }));
    h.report(changed(&affected, &["ui.rs"])).unwrap();
    assert_eq!(h.score(&affected, "dependencies_current"), Some(100));
    h.report(changed(&other, &["ui.rs"])).unwrap();
    assert_eq!(
        h.score(&affected, "dependencies_current"),
        Some(85),
        "overlap: normal"
    );
    h.report(changed(&other, &["api.rs"])).unwrap();
    assert_eq!(
        h.score(&affected, "dependencies_current"),
        Some(40),
        "plus a broken dependency: high"
    );
    let session = h.session(&affected);
    assert_eq!(session.open_collisions.len(), 2);
    assert_eq!(
        h.score(&other, "dependencies_current"),
        Some(100),
        "the changer is not affected"
    );
}

// --- Decisions current -----------------------------------------------------------------------

#[test]
fn decisions_recorded_after_the_brief_cost_40_each() {
    let mut h = Host::new();
    h.ok(Request::DecisionRecord(NoteParams {
        text: Some("use sqlite".into()),
        ..Default::default()
    }));
    let s = h.start("claude", None, None);
    assert_eq!(
        h.score(&s, "decisions_current"),
        Some(100),
        "recorded before the brief"
    );
    h.ok(Request::DecisionRecord(NoteParams {
        text: Some("no ORMs".into()),
        ..Default::default()
    }));
    assert_eq!(h.score(&s, "decisions_current"), Some(60));
    h.ok(Request::DecisionRecord(NoteParams {
        text: Some("tabs".into()),
        ..Default::default()
    }));
    h.ok(Request::DecisionRecord(NoteParams {
        text: Some("utc".into()),
        ..Default::default()
    }));
    assert_eq!(h.score(&s, "decisions_current"), Some(0));
}

// --- Overall, verdicts, recommendations ------------------------------------------------------

#[test]
fn overall_is_the_minimum_and_nothing_computable_is_healthy() {
    let mut h = Host::new();
    let s = h.start("claude", None, Some("abc"));
    let report = h.health(&s);
    // Only dependencies (100) and decisions (100) are computable.
    assert_eq!(report.overall, Some(100));
    h.ok(Request::Index(IndexParams {
        commit: "def".into(),
    }));
    h.ok(Request::DecisionRecord(NoteParams {
        text: Some("x".into()),
        ..Default::default()
    }));
    let report = h.health(&s);
    assert_eq!(report.overall, Some(55), "min(55 repository, 60 decisions)");
    assert_eq!(report.verdict, Verdict::Stale);
    assert_eq!(verdict(None), Verdict::Healthy);
}

#[test]
fn verdict_thresholds_are_exact() {
    assert_eq!(verdict(Some(100)), Verdict::Healthy);
    assert_eq!(verdict(Some(85)), Verdict::Healthy);
    assert_eq!(verdict(Some(84)), Verdict::Degraded);
    assert_eq!(verdict(Some(60)), Verdict::Degraded);
    assert_eq!(verdict(Some(59)), Verdict::Stale);
    assert_eq!(verdict(Some(0)), Verdict::Stale);
    // Through real scores: one normal collision → 85 (healthy); two → 70 (degraded).
    let mut h = Host::new();
    let a = h.start("claude", None, None);
    let b = h.start("codex", None, None);
    h.report(changed(&a, &["x.rs", "y.rs"])).unwrap();
    h.report(changed(&b, &["x.rs"])).unwrap();
    let report = h.health(&a);
    assert_eq!(
        (report.overall, report.verdict, report.recommend_rebrief),
        (Some(85), Verdict::Healthy, false)
    );
    h.report(changed(&b, &["y.rs"])).unwrap();
    let report = h.health(&a);
    assert_eq!(
        (report.overall, report.verdict, report.recommend_rebrief),
        (Some(70), Verdict::Degraded, false)
    );
}

#[test]
fn rebrief_is_recommended_on_stale_and_on_any_broken_dependency() {
    let mut h = Host::new();
    let a = h.start("claude", None, None);
    let b = h.start("codex", None, None);
    h.ok(Request::Depend(DependParams {
        session_id: a.clone(),
        files: vec!["api.rs".into()],
    }));
    h.report(changed(&b, &["api.rs"])).unwrap();
    let report = h.health(&a);
    assert!(report.recommend_rebrief);
    assert!(
        report.rebrief_reasons.iter().any(|r| r.contains("api.rs")),
        "{report:?}"
    );
    assert!(report.rebrief_reasons.iter().any(|r| r.contains("stale")));
}

#[test]
fn health_is_recomputed_for_every_live_session_after_a_change() {
    let mut h = Host::new();
    let a = h.start("claude", None, None);
    let b = h.start("codex", None, None);
    h.ok(Request::Depend(DependParams {
        session_id: a.clone(),
        files: vec!["api.rs".into()],
    }));
    h.report(changed(&b, &["api.rs"])).unwrap();
    let stored = h.session(&a).health.expect("a snapshot after the change");
    assert_eq!(stored.overall, Some(55));
    assert!(h.session(&b).health.is_some());
}

// --- Reports, runs, pause by pull, ending ----------------------------------------------------

#[test]
fn a_run_with_text_is_refused_and_recorded_as_refused() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    let err = h
        .report(ReportParams {
            session_id: s.clone(),
            run: Some(RunReport {
                provider: "anthropic".into(),
                model: "claude".into(),
                purpose: "review".into(),
                prompt: Some("secret".into()),
                ..Default::default()
            }),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::RunRefused);
    assert_eq!(h.session(&s).runs.refused, 1);
    assert!(!h.ledger.lines().iter().any(|l| l.contains("secret")));
    h.report(ReportParams {
        session_id: s.clone(),
        run: Some(RunReport {
            provider: "anthropic".into(),
            model: "claude".into(),
            purpose: "review".into(),
            input_tokens: 10,
            output_tokens: 5,
            ..Default::default()
        }),
        via: Some(baton_core::ledger::activity::Via::Hook),
        ..Default::default()
    })
    .unwrap();
    let session = h.session(&s);
    assert_eq!((session.runs.recorded, session.runs.input_tokens), (1, 10));
    assert_eq!(session.reports_via, Some(ReportsVia::Both));
}

#[test]
fn statuses_follow_reports_and_progress_is_forced_to_100_on_completion() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    assert_eq!(h.status(&s), Status::Working, "a plain start briefs");
    h.report(ReportParams {
        session_id: s.clone(),
        status: Some("blocked".into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(h.status(&s), Status::Blocked);
    h.report(changed(&s, &["a.rs"])).unwrap();
    assert_eq!(
        h.status(&s),
        Status::Working,
        "a change report means working, whatever it said"
    );
    h.report(ReportParams {
        session_id: s.clone(),
        progress: Some(40),
        plan: vec!["one".into(), "two".into()],
        ..Default::default()
    })
    .unwrap();
    h.report(ReportParams {
        session_id: s.clone(),
        step: Some(1),
        step_state: Some(StepState::Done),
        ..Default::default()
    })
    .unwrap();
    // A step the plan does not have is refused, not recorded.
    let err = h
        .report(ReportParams {
            session_id: s.clone(),
            step: Some(3),
            step_state: Some(StepState::Done),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(
        (err.code, err.details["steps"].clone()),
        (ErrorCode::InvalidArgument, 2.into())
    );
    let planless = h.start("claude", None, None);
    let err = h
        .report(ReportParams {
            session_id: planless,
            step: Some(1),
            step_state: Some(StepState::Done),
            ..Default::default()
        })
        .unwrap_err();
    assert!(err.message.contains("no plan"), "{}", err.message);
    h.report(ReportParams {
        session_id: s.clone(),
        status: Some("implementation_complete".into()),
        ..Default::default()
    })
    .unwrap();
    let session = h.session(&s);
    assert_eq!(
        (session.status, session.progress),
        (Status::AwaitingReview, Some(100))
    );
    assert_eq!(session.plan[0].state, StepState::Done);
    assert_eq!(session.reports_via, Some(ReportsVia::Model));
}

#[test]
fn a_pause_is_delivered_on_the_next_brief_and_unpause_forces_a_rebrief() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    h.ok(Request::Pause(PauseParams {
        session_id: s.clone(),
        reason: "wrong branch".into(),
    }));
    let session = h.session(&s);
    assert_eq!(session.status, Status::Paused);
    assert!(
        !session.pause.as_ref().unwrap().delivered,
        "not delivered before the agent asks"
    );
    // A change report does not lift a person's pause.
    h.report(changed(&s, &["a.rs"])).unwrap();
    assert_eq!(h.status(&s), Status::Paused);
    let Response::Lifecycle(brief) = h.brief(&s) else {
        panic!()
    };
    let context = brief.brief.unwrap();
    assert_eq!(context.next_action, NextAction::Blocked);
    assert_eq!(context.pause.unwrap()["reason"], "wrong branch");
    assert!(h.session(&s).pause.unwrap().delivered);
    h.ok(Request::Unpause(SessionRef {
        session_id: s.clone(),
    }));
    let session = h.session(&s);
    assert_eq!(session.status, Status::Working);
    assert!(session.brief.is_none(), "the brief stamp is cleared");
    assert_eq!(h.score(&s, "decisions_current"), Some(0));
    let err = h
        .run(Request::Unpause(SessionRef {
            session_id: s.clone(),
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotPaused);
    h.brief(&s);
    assert_eq!(h.score(&s, "decisions_current"), Some(100));
}

#[test]
fn ending_closes_collisions_as_stale_and_raises_attention_when_unfinished() {
    let mut h = Host::new();
    let a = h.start("claude", None, None);
    let b = h.start("codex", None, None);
    h.ok(Request::Depend(DependParams {
        session_id: a.clone(),
        files: vec!["api.rs".into()],
    }));
    h.report(changed(&b, &["api.rs"])).unwrap();
    assert_eq!(h.session(&a).open_collisions.len(), 1);
    h.report(ReportParams {
        session_id: a.clone(),
        status: Some("blocked".into()),
        ..Default::default()
    })
    .unwrap();
    let Response::Action(ended) = h.ok(Request::End(EndParams {
        session_id: Some(a.clone()),
        ..Default::default()
    })) else {
        panic!()
    };
    assert!(
        ended
            .message
            .unwrap()
            .contains("does not decide whether the mission is done")
    );
    assert!(ended.session.open_collisions.is_empty());
    let timeline = match h.ok(Request::Timeline(SessionRef {
        session_id: a.clone(),
    })) {
        Response::Timeline(t) => t.events,
        _ => unreachable!(),
    };
    let closed = timeline
        .iter()
        .find(|e| e.kind == "collision_closed")
        .expect("closed");
    assert!(
        closed
            .summary
            .contains("finished before the collision was settled")
    );
    let Response::Attention(attention) = h.ok(Request::Attention) else {
        panic!()
    };
    assert_eq!(attention.total, 1);
    assert_eq!(
        (
            attention.items[0].level.as_str(),
            attention.items[0].urgency
        ),
        ("inform", 30)
    );
    // A clean finish raises nothing.
    h.report(ReportParams {
        session_id: b.clone(),
        status: Some("implementation_complete".into()),
        ..Default::default()
    })
    .unwrap();
    h.ok(Request::End(EndParams {
        session_id: Some(b),
        ..Default::default()
    }));
    let Response::Attention(attention) = h.ok(Request::Attention) else {
        panic!()
    };
    assert_eq!(attention.total, 1);
}

#[test]
fn timeline_marks_tones_and_actors() {
    let mut h = Host::new();
    let s = h.start("claude", None, None);
    h.ok(Request::Pause(PauseParams {
        session_id: s.clone(),
        reason: "hold".into(),
    }));
    h.ok(Request::Unpause(SessionRef {
        session_id: s.clone(),
    }));
    h.brief(&s);
    h.ok(Request::End(EndParams {
        session_id: Some(s.clone()),
        ..Default::default()
    }));
    let Response::Timeline(t) = h.ok(Request::Timeline(SessionRef { session_id: s })) else {
        panic!()
    };
    let kinds: Vec<&str> = t.events.iter().map(|e| e.kind.as_str()).collect();
    assert!(
        kinds.contains(&"briefed") && kinds.contains(&"rebriefed"),
        "{kinds:?}"
    );
    assert_eq!(kinds.first(), Some(&"started"));
    // Briefed again after its start, it was driven by the lifecycle: ended while working,
    // what a person should see follows the session's own last entry.
    assert_eq!(kinds.last(), Some(&"attention_raised"));
    let own: Vec<&&str> = kinds
        .iter()
        .filter(|k| !k.starts_with("attention_"))
        .collect();
    assert_eq!(own.last(), Some(&&"completed"));
    let paused = t.events.iter().find(|e| e.kind == "paused").unwrap();
    assert_eq!(paused.tone, baton_core::lifecycle::timeline::Tone::Amber);
    assert_eq!(paused.actor, baton_core::ledger::event::ActorKind::Human);
    assert_eq!(
        t.events
            .iter()
            .rfind(|e| e.kind == "completed")
            .unwrap()
            .tone,
        baton_core::lifecycle::timeline::Tone::Green
    );
}

// --- Gating ----------------------------------------------------------------------------------

#[test]
fn gating_runs_in_order_role_then_client_then_mission() {
    let mut h = Host::new();
    h.mission("CLAIM-9", &["a"], false);
    h.policy.members.insert("lead".into(), Role::Owner);
    h.policy.members.insert("viewer".into(), Role::Viewer);
    h.policy.members.insert("dev".into(), Role::Member);
    h.policy.approved_clients = Some(vec!["codex".into()]);
    let start = |client: &str| {
        Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            client_name: Some(client.into()),
            mission: Some("CLAIM-9".into()),
            ..Default::default()
        })
    };
    h.person = "viewer".into();
    assert_eq!(
        h.run(start("claude-code")).unwrap_err().code,
        ErrorCode::PermissionDenied
    );
    h.person = "stranger".into();
    assert_eq!(
        h.run(start("claude-code")).unwrap_err().code,
        ErrorCode::PermissionDenied
    );
    h.person = "dev".into();
    let refused = h.run(start("claude-code")).unwrap_err();
    assert_eq!(refused.code, ErrorCode::ClientNotApproved);
    assert!(
        !refused.message.contains("CLAIM-9"),
        "an unapproved client learns nothing"
    );
    let draft = h.run(start("codex")).unwrap_err();
    assert_eq!(draft.code, ErrorCode::MissionNotApproved);
    assert!(draft.message.contains("CLAIM-9") && draft.message.contains("v1"));
    assert_eq!(
        h.run(Request::MissionApprove(MissionParams {
            reference: "CLAIM-9".into(),
            clauses: vec![]
        }))
        .unwrap_err()
        .code,
        ErrorCode::PermissionDenied,
        "a member is not a lead"
    );
    h.person = "lead".into();
    h.ok(Request::MissionApprove(MissionParams {
        reference: "CLAIM-9".into(),
        clauses: vec![],
    }));
    h.person = "dev".into();
    h.ok(start("codex"));
    h.policy.mission_required = true;
    let err = h
        .run(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            client_name: Some("codex".into()),
            ..Default::default()
        }))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::MissionRequired);
}

/// The trust rule, in the core every host asks: an agent caller may not steer, and what it
/// does is recorded under its name; a session is its own when its agent or client has its
/// name; the operator's `agents_may_steer` lets it.
#[test]
fn agents_may_not_steer_unless_the_workspace_lets_them() {
    let mut h = Host::new();
    let own = h.start("codex", None, None);
    let other = h.start("claude", None, None);
    h.caller = Caller::agent("Codex");
    let pause = |id: &str| {
        Request::Pause(PauseParams {
            session_id: id.into(),
            reason: "hold".into(),
        })
    };
    h.ok(pause(&own));
    let count = |h: &Host| -> u64 {
        h.ledger
            .all_sessions()
            .unwrap()
            .iter()
            .map(|s| s.event_count)
            .sum()
    };
    let events = count(&h);
    for request in [
        Request::Unpause(SessionRef {
            session_id: own.clone(),
        }),
        pause(&other),
        Request::End(EndParams {
            session_id: Some(other.clone()),
            ..Default::default()
        }),
        Request::ConstitutionSet(ConstitutionParams { text: "x".into() }),
        Request::MissionApprove(MissionParams {
            reference: "M".into(),
            clauses: vec![],
        }),
        // Another's session is not to be reported on, resumed or briefed either.
        Request::Report(ReportParams {
            session_id: other.clone(),
            status: Some("blocked".into()),
            ..Default::default()
        }),
        Request::Depend(DependParams {
            session_id: other.clone(),
            files: vec!["src/a.rs".into()],
        }),
        Request::Resume(commands::ResumeParams {
            session_id: other.clone(),
            ..Default::default()
        }),
        Request::Brief(SessionRef {
            session_id: other.clone(),
        }),
    ] {
        let err = h.run(request.clone()).unwrap_err();
        assert_eq!(err.code, ErrorCode::ActorNotAllowed, "{request:?}");
        assert_eq!(err.details["actor"], "codex");
    }
    assert_eq!(count(&h), events, "a refusal writes nothing");
    let timeline = match h.ok(Request::Timeline(SessionRef {
        session_id: own.clone(),
    })) {
        Response::Timeline(t) => t,
        other => panic!("{other:?}"),
    };
    let paused = timeline.events.iter().find(|e| e.kind == "paused").unwrap();
    assert_eq!(
        (paused.actor, paused.actor_name.as_str()),
        (baton_core::ledger::event::ActorKind::Agent, "codex")
    );
    // A session whose client is the caller is its own too (started by a hook as `claude`).
    h.caller = Caller::agent("claude-code");
    h.ok(pause(&other));

    h.policy.agents_may_steer = true;
    h.caller = Caller::agent("codex");
    h.ok(Request::Unpause(SessionRef { session_id: other }));
}

// --- The state machine -----------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Brief,
    Changed,
    Blocked,
    Complete,
    Progress(u8),
    Pause,
    Unpause,
    Resume,
    End,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Brief),
        Just(Op::Changed),
        Just(Op::Blocked),
        Just(Op::Complete),
        (0..=100u8).prop_map(Op::Progress),
        Just(Op::Pause),
        Just(Op::Unpause),
        Just(Op::Resume),
        Just(Op::End),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn no_sequence_leaves_a_status_the_spec_forbids(register_only in any::<bool>(), ops in proptest::collection::vec(op(), 1..25)) {
        let mut h = Host::new();
        let s = match h.ok(Request::Start(StartParams {
            project: Some("demo".into()),
            agent: Some("claude".into()),
            no_brief: register_only,
            ..Default::default()
        })) {
            Response::Action(a) => a.session.session_id.to_string(),
            _ => unreachable!(),
        };
        prop_assert_eq!(h.status(&s), if register_only { Status::Starting } else { Status::Working });
        let mut ended = false;
        for op in ops {
            let before = h.session(&s);
            let result = match &op {
                Op::Brief => h.run(Request::Brief(SessionRef { session_id: s.clone() })),
                Op::Changed => h.report(changed(&s, &["f.rs"])),
                Op::Blocked => h.report(ReportParams { session_id: s.clone(), status: Some("blocked".into()), ..Default::default() }),
                Op::Complete => h.report(ReportParams { session_id: s.clone(), status: Some("implementation_complete".into()), ..Default::default() }),
                Op::Progress(p) => h.report(ReportParams { session_id: s.clone(), progress: Some(*p), ..Default::default() }),
                Op::Pause => h.run(Request::Pause(PauseParams { session_id: s.clone(), reason: "r".into() })),
                Op::Unpause => h.run(Request::Unpause(SessionRef { session_id: s.clone() })),
                Op::Resume => h.run(Request::Resume(commands::ResumeParams { session_id: s.clone(), ..Default::default() })),
                Op::End => h.run(Request::End(EndParams { session_id: Some(s.clone()), ..Default::default() })),
            };
            let after = h.session(&s);
            if ended {
                prop_assert!(result.is_err(), "{:?} changed an ended session", op);
                prop_assert_eq!(&after.status, &before.status);
                continue;
            }
            let paused = after.pause.is_some();
            match (&op, result.is_ok()) {
                (Op::Changed, true) if !paused => prop_assert_eq!(after.status, Status::Working),
                (Op::Blocked, true) if !paused => prop_assert_eq!(after.status, Status::Blocked),
                (Op::Complete, true) if !paused => {
                    prop_assert_eq!(after.status, Status::AwaitingReview);
                    prop_assert_eq!(after.progress, Some(100));
                }
                (Op::Pause, true) => prop_assert_eq!(after.status, Status::Paused),
                (Op::Brief, true) if before.status == Status::Starting && !paused => prop_assert_eq!(after.status, Status::Working),
                (Op::Progress(_), true) => prop_assert_eq!(after.status, before.status, "progress never decides"),
                (Op::End, true) => { prop_assert_eq!(after.status, Status::Complete); ended = true; }
                _ => {}
            }
            if paused {
                prop_assert_eq!(after.status, Status::Paused, "only an unpause lifts a pause");
            }
            prop_assert!(Status::ALL.contains(&after.status));
        }
    }
}

// ---- liveness: evidence in, a state and (on a change) a ledger event out ----

mod liveness {
    use super::*;
    use baton_core::commands::{Observation, ObserveParams};
    use baton_core::ledger::liveness::{Evidence, Liveness};

    fn registry(pid: u32, registered: u64, running: Option<u64>) -> Evidence {
        Evidence::Registry {
            file: format!("sessions/{pid}.json"),
            pid,
            registered_start: Some(registered),
            running_start: running,
            updated_at: None,
        }
    }

    fn observe(h: &mut Host, session: &str, evidence: Vec<Evidence>) -> (Liveness, bool, String) {
        let observed_at = Timestamp::from_millis(h.now + 500);
        let Response::Liveness(answer) = h.ok(Request::Observe(ObserveParams {
            observed_at,
            observations: vec![Observation {
                session_id: session.to_owned(),
                evidence,
                as_of: None,
            }],
            idle_after_seconds: Some(600),
        })) else {
            panic!("observe answered something else")
        };
        let report = &answer.sessions[0];
        (report.state, report.recorded, report.reason.clone())
    }

    fn attention_total(h: &mut Host) -> usize {
        let Response::Attention(attention) = h.ok(Request::Attention) else {
            panic!()
        };
        attention.total
    }

    fn session(h: &mut Host, id: &str) -> baton_core::ledger::session::Session {
        let Response::Show(show) = h.ok(Request::Show(baton_core::commands::ShowParams {
            session_id: id.to_owned(),
        })) else {
            panic!()
        };
        show.session
    }

    #[test]
    fn a_registered_running_process_is_live_and_recorded_once() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        let (state, recorded, reason) = observe(&mut h, &s, vec![registry(4242, 777, Some(777))]);
        assert_eq!((state, recorded), (Liveness::Live, true));
        assert!(reason.contains("pid 4242"), "{reason}");
        // The same evidence again changes nothing: nothing more is written.
        let (state, recorded, _) = observe(&mut h, &s, vec![registry(4242, 777, Some(777))]);
        assert_eq!((state, recorded), (Liveness::Live, false));
        let seen = session(&mut h, &s).liveness.expect("recorded");
        assert_eq!(
            (seen.state, seen.process),
            (Liveness::Live, Some((4242, Some(777))))
        );
        assert_eq!(attention_total(&mut h), 0);
    }

    #[test]
    fn a_reused_pid_is_gone_and_raises_one_attention_item_without_ending() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        let before = session(&mut h, &s).last_event_at;
        let (state, recorded, reason) = observe(&mut h, &s, vec![registry(4242, 777, Some(999))]);
        assert_eq!((state, recorded), (Liveness::Gone, true));
        assert!(reason.contains("another process"), "{reason}");
        assert_eq!(attention_total(&mut h), 1);
        let (_, recorded, _) = observe(&mut h, &s, vec![registry(4242, 777, Some(999))]);
        assert!(!recorded);
        assert_eq!(attention_total(&mut h), 1, "seen gone twice, told once");
        let after = session(&mut h, &s);
        assert!(after.is_live(), "an observation never ends a session");
        assert_eq!(
            after.last_event_at, before,
            "Baton's observation is not activity"
        );
        let Response::Timeline(t) = h.ok(Request::Timeline(SessionRef { session_id: s })) else {
            panic!()
        };
        assert!(t.events.iter().any(|e| e.kind == "liveness_gone"));
    }

    #[test]
    fn a_dead_recorded_process_is_gone_and_a_dead_registry_pid_too() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        let dead = Evidence::Process {
            pid: 31337,
            recorded_start: Some(5),
            running_start: None,
        };
        assert_eq!(observe(&mut h, &s, vec![dead]).0, Liveness::Gone);
        let t = h.start("claude", None, None);
        assert_eq!(
            observe(&mut h, &t, vec![registry(7, 1, None)]).0,
            Liveness::Gone
        );
    }

    #[test]
    fn no_evidence_is_unknown_and_writes_nothing() {
        let mut h = Host::new();
        let s = h.start("codex", None, None);
        let (state, recorded, reason) = observe(&mut h, &s, Vec::new());
        assert_eq!((state, recorded), (Liveness::Unknown, false));
        assert!(reason.starts_with("no process is tied"), "{reason}");
        assert!(session(&mut h, &s).liveness.is_none());
    }

    #[test]
    fn running_but_quiet_past_the_threshold_is_idle_and_a_held_lock_beats_a_dead_pid() {
        let mut h = Host::new();
        let s = h.start("codex", None, None);
        h.now += 3_600_000;
        let lock = Evidence::WriterLock {
            file: "thread-writer-locks/t.lock".into(),
            held: true,
        };
        let dead = Evidence::Process {
            pid: 9,
            recorded_start: None,
            running_start: None,
        };
        let (state, _, reason) = observe(&mut h, &s, vec![dead, lock]);
        assert_eq!(state, Liveness::Idle, "{reason}");
        assert!(reason.contains("nothing happened for 1h"), "{reason}");
        // A fresh transcript write is activity: the same agent is live again.
        let transcript = Evidence::Transcript {
            file: "rollout.jsonl".into(),
            modified_at: Timestamp::from_millis(h.now),
        };
        let lock = Evidence::WriterLock {
            file: "thread-writer-locks/t.lock".into(),
            held: true,
        };
        assert_eq!(
            observe(&mut h, &s, vec![lock, transcript]).0,
            Liveness::Live
        );
    }

    #[test]
    fn an_ended_session_is_not_observed_and_a_bad_id_is_refused() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        h.ok(Request::End(EndParams {
            session_id: Some(s.clone()),
            ..Default::default()
        }));
        let Response::Liveness(answer) = h.ok(Request::Observe(ObserveParams {
            observed_at: Timestamp::from_millis(h.now),
            observations: vec![Observation {
                session_id: s,
                evidence: vec![registry(1, 1, None)],
                as_of: None,
            }],
            idle_after_seconds: None,
        })) else {
            panic!()
        };
        assert!(answer.sessions.is_empty());
        let err = h
            .run(Request::Observe(ObserveParams {
                observed_at: Timestamp::from_millis(h.now),
                observations: vec![Observation {
                    session_id: "nope".into(),
                    evidence: Vec::new(),
                    as_of: None,
                }],
                idle_after_seconds: None,
            }))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn the_gone_item_is_cleared_when_the_agent_comes_back_or_the_session_ends() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        observe(&mut h, &s, vec![registry(7, 1, None)]);
        assert_eq!(attention_total(&mut h), 1);
        // The agent is back (a reconnect tied a new process): the item goes.
        let (state, recorded, _) = observe(&mut h, &s, vec![registry(8, 2, Some(2))]);
        assert_eq!((state, recorded), (Liveness::Live, true));
        assert_eq!(attention_total(&mut h), 0);
        // Gone again, then ended: the gone item goes, "stopped without finishing" stays.
        observe(&mut h, &s, vec![registry(8, 2, None)]);
        assert_eq!(attention_total(&mut h), 1);
        h.ok(Request::End(EndParams {
            session_id: Some(s),
            status: Some("failed".into()),
            ..Default::default()
        }));
        let Response::Attention(attention) = h.ok(Request::Attention) else {
            panic!()
        };
        assert_eq!(attention.total, 1, "{attention:?}");
        assert!(
            attention.items[0]
                .text
                .contains("stopped without finishing")
        );
        // Numbers stay as raised: the remaining item is the third raised.
        assert_eq!(attention.items[0].number, 3);
    }

    #[test]
    fn evidence_gathered_before_the_ledger_moved_on_is_not_recorded() {
        let mut h = Host::new();
        let s = h.start("claude", None, None);
        // A hook ties a live process…
        observe(&mut h, &s, vec![registry(8, 2, Some(2))]);
        // …while a check that looked before it (nothing recorded then) says gone.
        let Response::Liveness(answer) = h.ok(Request::Observe(ObserveParams {
            observed_at: Timestamp::from_millis(h.now),
            observations: vec![Observation {
                session_id: s.clone(),
                evidence: vec![registry(7, 1, None)],
                as_of: Some(None),
            }],
            idle_after_seconds: None,
        })) else {
            panic!()
        };
        assert_eq!(answer.recorded, 0, "{answer:?}");
        let seen = session(&mut h, &s).liveness.unwrap();
        assert_eq!(
            (seen.state, seen.process),
            (Liveness::Live, Some((8, Some(2))))
        );
        assert_eq!(attention_total(&mut h), 0);
    }
}
