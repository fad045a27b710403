//! The lifecycle end to end through the real `baton` binary: gating order from
//! `.baton/config.toml`, pause delivered on the next brief (not before), unpause forcing a
//! re-brief, and ending closing collisions as stale.

use baton_tests::{baton, json_of};
use serde_json::Value;
use std::path::Path;

fn run(dir: &Path, args: &[&str]) -> (i32, Value) {
    let out = baton(dir).arg("--json").args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), json_of(&out))
}

fn ok(dir: &Path, args: &[&str]) -> Value {
    let (code, json) = run(dir, args);
    assert_eq!(code, 0, "{args:?}: {json}");
    json
}

/// The id of a new session of the project `p` by `agent`.
fn started(dir: &Path, agent: &str) -> String {
    ok(dir, &["start", "--project", "p", "--agent", agent])["session_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A start on the mission `CLAIM-142` of project `p`, by `who` with `client`.
fn mission_start<'a>(who: &'a str, client: &'a str) -> [&'a str; 11] {
    [
        "--as",
        who,
        "start",
        "--project",
        "p",
        "--agent",
        "a",
        "--client",
        client,
        "--mission",
        "CLAIM-142",
    ]
}

fn code_of(dir: &Path, args: &[&str]) -> String {
    let (code, json) = run(dir, args);
    assert_eq!(code, 1, "{args:?}: {json}");
    json["error"]["code"].as_str().unwrap().to_owned()
}

#[test]
fn gating_goes_role_then_client_then_mission() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        "approved_clients = [\"codex\"]\n[members]\nlead = \"owner\"\ndev = \"member\"\nguest = \"viewer\"\n",
    )
    .unwrap();
    let contract = tmp.path().join("contract.md");
    std::fs::write(
        &contract,
        "# CLAIM-142\n- Search is case-insensitive\n- Results by recency\n",
    )
    .unwrap();
    let added = ok(
        &dir,
        &[
            "--as",
            "dev",
            "mission",
            "add",
            "CLAIM-142",
            "--contract",
            contract.to_str().unwrap(),
        ],
    );
    assert_eq!(added["clauses"].as_array().unwrap().len(), 2);
    let start = |who: &str, client: &str| code_of(&dir, &mission_start(who, client));
    assert_eq!(start("guest", "cursor"), "PERMISSION_DENIED");
    assert_eq!(start("nobody", "cursor"), "PERMISSION_DENIED");
    assert_eq!(start("dev", "cursor"), "CLIENT_NOT_APPROVED");
    assert_eq!(start("dev", "codex"), "MISSION_NOT_APPROVED");
    assert_eq!(
        code_of(&dir, &["--as", "dev", "mission", "approve", "CLAIM-142"]),
        "PERMISSION_DENIED"
    );
    ok(&dir, &["--as", "lead", "mission", "approve", "CLAIM-142"]);
    let started = ok(&dir, &mission_start("dev", "codex"));
    assert_eq!(started["status"], "working");
    assert_eq!(
        started["briefing"]["mission"]["clauses"][0],
        "Search is case-insensitive"
    );
    // The host's own tables sit beside the policy without upsetting it; a misspelt policy
    // key and a broken config are clear errors, not silent defaults.
    std::fs::write(
        dir.join("config.toml"),
        "mission_required = false\n[mirror]\npoll_secs = 5\n[notes]\nenabled = false\n",
    )
    .unwrap();
    ok(&dir, &["list"]);
    std::fs::write(dir.join("config.toml"), "mision_required = true\n").unwrap();
    assert_eq!(code_of(&dir, &["list"]), "INVALID_ARGUMENT");
    std::fs::write(dir.join("config.toml"), "members = 3\n").unwrap();
    assert_eq!(code_of(&dir, &["list"]), "INVALID_ARGUMENT");
}

#[test]
fn pause_is_pulled_on_the_next_brief_and_unpause_forces_a_rebrief() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let id = started(&dir, "a");
    ok(&dir, &["pause", &id, "--reason", "stop: wrong branch"]);
    let shown = ok(&dir, &["show", &id]);
    assert_eq!(shown["session"]["status"], "paused");
    assert_eq!(
        shown["session"]["pause"]["delivered"], false,
        "not before the agent asks"
    );
    let brief = ok(&dir, &["brief", &id]);
    assert_eq!(brief["brief"]["next_action"], "blocked");
    assert_eq!(brief["brief"]["pause"]["reason"], "stop: wrong branch");
    assert_eq!(
        ok(&dir, &["show", &id])["session"]["pause"]["delivered"],
        true
    );
    let unpaused = ok(&dir, &["unpause", &id]);
    assert!(
        unpaused["message"]
            .as_str()
            .unwrap()
            .contains("briefed again")
    );
    let health = ok(&dir, &["health", &id]);
    let decisions = health["dimensions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "decisions_current")
        .unwrap();
    assert_eq!(decisions["score"], 0, "the brief stamp was cleared");
    assert_eq!(health["recommend_rebrief"], true);
    ok(&dir, &["brief", &id]);
    let health = ok(&dir, &["health", &id, "--recheck"]);
    assert_eq!(health["verdict"], "healthy");
    assert_eq!(code_of(&dir, &["unpause", &id]), "SESSION_NOT_PAUSED");
}

#[test]
fn ending_closes_collisions_as_stale_and_the_timeline_shows_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let a = started(&dir, "claude");
    let b = started(&dir, "codex");
    ok(&dir, &["depend", &a, "--on", "src/api.rs"]);
    let report = ok(
        &dir,
        &["report", &b, "--changed", "src/api.rs", "--via", "hook"],
    );
    assert_eq!(report["collisions_opened"][0]["severity"], "high");
    let health = ok(&dir, &["health", &a]);
    assert_eq!(health["verdict"], "stale");
    assert_eq!(health["recommend_rebrief"], true);
    let ended = ok(&dir, &["end", &a, "--status", "failed"]);
    assert!(
        ended["message"]
            .as_str()
            .unwrap()
            .contains("does not decide")
    );
    assert_eq!(ended["open_collisions"].as_array().unwrap().len(), 0);
    let timeline = ok(&dir, &["timeline", &a]);
    let events = timeline["events"].as_array().unwrap();
    let tones: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["tone"].as_str().unwrap()))
        .collect();
    assert!(tones.contains(&("collision", "red")), "{tones:?}");
    assert!(tones.contains(&("failed", "red")));
    assert!(tones.iter().any(|(k, _)| *k == "collision_closed"));
    let attention = ok(&dir, &["attention"]);
    assert_eq!(attention["total"], 1);
    assert_eq!(ok(&dir, &["show", &b])["session"]["reports_via"], "hook");
}

/// Workspace events (missions, decisions, attention items) live in the workspace stream, which
/// has no start event by design: `doctor` must not call it an orphaned session.
#[test]
fn doctor_is_healthy_after_workspace_events() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let contract = tmp.path().join("contract.md");
    std::fs::write(&contract, "# CLAIM-7\n- One clause\n").unwrap();
    ok(
        &dir,
        &[
            "mission",
            "add",
            "CLAIM-7",
            "--contract",
            contract.to_str().unwrap(),
        ],
    );
    ok(&dir, &["decision", "record", "Use UTC days everywhere"]);
    let a = started(&dir, "claude");
    let b = started(&dir, "codex");
    ok(&dir, &["depend", &a, "--on", "src/api.rs"]);
    ok(
        &dir,
        &["report", &b, "--changed", "src/api.rs", "--via", "hook"],
    );
    ok(&dir, &["end", &a, "--status", "failed"]);
    assert_eq!(
        ok(&dir, &["attention"])["total"],
        1,
        "an attention item was raised"
    );
    let doctor = ok(&dir, &["doctor"]);
    assert_eq!(
        doctor["sessions"]["orphaned_ids"],
        serde_json::json!([]),
        "{doctor}"
    );
    assert_eq!(doctor["healthy"], true, "{doctor}");
}

#[test]
fn reports_and_their_refusals_through_the_cli() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let id = ok(
        &dir,
        &["start", "--project", "p", "--agent", "a", "--no-brief"],
    )["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(ok(&dir, &["show", &id])["session"]["status"], "starting");
    ok(
        &dir,
        &[
            "report",
            &id,
            "--run",
            "anthropic:claude-sonnet-4:review:1200:340",
        ],
    );
    assert_eq!(
        code_of(&dir, &["report", &id, "--run", "bad-spec"]),
        "INVALID_ARGUMENT"
    );
    ok(
        &dir,
        &[
            "report",
            &id,
            "--plan",
            "Parse",
            "Index",
            "--progress",
            "30",
        ],
    );
    ok(
        &dir,
        &["report", &id, "--step", "1", "--step-state", "in-progress"],
    );
    ok(
        &dir,
        &[
            "report",
            &id,
            "--status",
            "implementation-complete",
            "--pr",
            "https://example.invalid/pr/7",
            "--evidence",
            "tests pass",
        ],
    );
    let session = ok(&dir, &["show", &id])["session"].clone();
    assert_eq!(session["status"], "awaiting_review");
    assert_eq!(session["progress"], 100);
    assert_eq!(session["runs"]["recorded"], 1);
    assert_eq!(session["plan"][0]["state"], "in_progress");
    assert_eq!(session["pull_request"], "https://example.invalid/pr/7");
    assert_eq!(code_of(&dir, &["report", &id]), "INVALID_ARGUMENT");
}

#[test]
fn list_filters_by_branch_and_by_latest_activity() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".baton");
    let on = |branch: &str| {
        ok(
            &dir,
            &[
                "start",
                "--project",
                "p",
                "--agent",
                "a",
                "--branch",
                branch,
            ],
        )["session_id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let feature = on("feature/search");
    let main = on("main");
    ok(&dir, &["end", &main, "--summary", "done"]);
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["list"];
        all.extend_from_slice(args);
        ok(&dir, &all)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&["--branch", "feature/search"]), [feature]);
    assert_eq!(ids(&["--branch", "main"]), Vec::<String>::new(), "ended");
    assert_eq!(ids(&["--all", "--branch", "main"]), [main]);
    assert_eq!(ids(&["--all", "--since", "2000-01-01"]).len(), 2);
    assert_eq!(ids(&["--all", "--since", "2999-01-01"]).len(), 0);
    assert_eq!(ids(&["--all", "--since", "2999-01-01T00:00:00Z"]).len(), 0);
    assert_eq!(
        code_of(&dir, &["list", "--since", "last week"]),
        "INVALID_ARGUMENT"
    );
}
