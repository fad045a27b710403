//! A team budget across two machines through the private PostgreSQL: a person sets it on the
//! server (an agent cannot); each machine's pulls measure its own usage from its index and the
//! other's as `baton sync --usage` sent it. Past the warning share the machine that asks gets
//! one attention item; at the limit the sessions on both machines pause at their next brief,
//! with the figures, as soon as the usage that crossed it has reached the server; an agent's
//! unpause is refused; a person raising the team budget lets the next brief go on. With the
//! server stopped, a pull uses what it last said and does not wait.

use crate::sync::{fresh_database, server_control, take_server};
use baton_tests::{baton, claude_response, json_of};
use serde_json::Value;
use std::path::PathBuf;

/// One machine: its ledger (of project `app`) and its Claude Code projects folder.
struct Machine {
    ledger: PathBuf,
    projects: PathBuf,
}

impl Machine {
    fn new(root: &std::path::Path, name: &str, url: &str) -> Machine {
        let ledger = root.join(name).join("app/.baton");
        std::fs::create_dir_all(&ledger).unwrap();
        std::fs::write(
            ledger.join("config.toml"),
            format!("[sync]\nurl = \"{url}\"\nusage = true\n"),
        )
        .unwrap();
        let projects = root.join(name).join("projects");
        std::fs::create_dir_all(projects.join("-work-app")).unwrap();
        Machine { ledger, projects }
    }

    /// `baton --json ARGS` at `now`, as a person or from inside Claude Code.
    fn run(&self, now: &str, agent: bool, args: &[&str]) -> (i32, Value) {
        let mut command = baton(&self.ledger);
        command.env("BATON_NOW", now).arg("--json").args(args);
        if agent {
            command.env("CLAUDECODE", "1");
        }
        let out = command.output().unwrap();
        (out.status.code().unwrap_or(-1), json_of(&out))
    }

    fn ok(&self, now: &str, agent: bool, args: &[&str]) -> Value {
        let (status, out) = self.run(now, agent, args);
        assert_eq!(status, 0, "{args:?}: {out}");
        out
    }

    /// Appends a response to the session's transcript and brings the index up to date.
    fn spend(&self, now: &str, line: String) {
        use std::io::Write;
        let session = line.split("\"sessionId\":\"").nth(1).unwrap();
        let session = &session[..session.find('"').unwrap()];
        let path = self
            .projects
            .join("-work-app")
            .join(format!("{session}.jsonl"));
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        writeln!(file, "{line}").unwrap();
        let projects = self.projects.to_str().unwrap();
        self.ok(now, false, &["mirror", "--claude-dir", projects]);
    }

    /// Sends the ledger and the usage rows to the team database.
    fn sync(&self, now: &str) {
        let out = self.ok(now, false, &["sync"]);
        assert!(out["usage"]["skipped"].is_null(), "{out}");
    }

    fn start(&self, provider_id: &str) -> String {
        let out = self.ok(
            "2026-12-02T09:00:00Z",
            true,
            &[
                "start",
                "--project",
                "app",
                "--agent",
                "claude",
                "--provider-session-id",
                provider_id,
            ],
        );
        out["session_id"].as_str().unwrap().to_owned()
    }

    fn next_action(&self, now: &str, session: &str) -> (String, Value) {
        let brief = self.ok(now, true, &["brief", session]);
        (
            brief["brief"]["next_action"].as_str().unwrap().to_owned(),
            brief,
        )
    }
}

#[test]
#[ignore = "needs PostgreSQL: tests/pg/with-postgres.sh cargo test -p baton-tests --test suite sync -- --ignored"]
fn a_team_budget_counts_every_machines_usage_and_pauses_both() {
    let _server = take_server();
    let url = fresh_database("team_budget");
    let tmp = tempfile::tempdir().unwrap();
    let ana = Machine::new(tmp.path(), "ana", &url);
    let ben = Machine::new(tmp.path(), "ben", &url);
    let on_ana = ana.start("one");
    let on_ben = ben.start("two");

    // An agent cannot set the team budget; a person can.
    let (status, refused) = ana.run(
        "2026-12-02T09:01:00Z",
        true,
        &["team", "budget", "set", "day_usd=1000"],
    );
    assert_eq!(status, 1, "{refused}");
    assert_eq!(refused["error"]["code"], "ACTOR_NOT_ALLOWED");
    let set = ana.ok(
        "2026-12-02T09:01:00Z",
        false,
        &["team", "budget", "set", "day_usd=10", "window_usd=$500"],
    );
    assert_eq!(set["budget"]["policy"]["day_usd"], 10.0, "{set}");
    assert_eq!(set["budget"]["policy"]["window_usd"], 500.0, "{set}");
    let (status, wrong) = ana.run(
        "2026-12-02T09:01:00Z",
        false,
        &["team", "budget", "set", "project.app.day_usd=5"],
    );
    assert_eq!(status, 1);
    assert_eq!(wrong["error"]["code"], "INVALID_ARGUMENT", "{wrong}");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .unwrap()
            .contains(".baton/config.toml"),
        "{wrong}"
    );

    // $6 on Ana's machine, $3 on Ben's, both sent: $9 of $10 for the whole team. Ben's
    // brief goes on, and his machine asks a person's attention once.
    ana.spend(
        "2026-12-02T09:50:00Z",
        claude_response("one", "2026-12-02T09:30:00Z", "1", 400_000),
    );
    ben.spend(
        "2026-12-02T09:51:00Z",
        claude_response("two", "2026-12-02T09:40:00Z", "2", 200_000),
    );
    ana.sync("2026-12-02T09:52:00Z");
    ben.sync("2026-12-02T09:52:00Z");
    // A second workspace on Ana's machine sends the same index's rows under its own id:
    // each response still counts once, on either machine.
    let other = Machine::new(tmp.path(), "ana-other", &url);
    let index = baton_tests::default_index(&ana.ledger);
    let sent = baton(&other.ledger)
        .env("BATON_NOW", "2026-12-02T09:53:00Z")
        .env("BATON_INDEX", &index)
        .args(["--json", "sync"])
        .output()
        .unwrap();
    baton_tests::assert_success(&sent, format_args!("sync from the second workspace"));
    assert!(json_of(&sent)["usage"]["inserted"].as_u64().unwrap() > 0);
    let team = ben.ok("2026-12-02T09:54:00Z", false, &["team", "usage"]);
    assert_eq!(
        team["totals"]["cost_usd"], 9.0,
        "each response once: {team}"
    );
    let (next, brief) = ben.next_action("2026-12-02T10:00:00Z", &on_ben);
    assert_eq!(next, "work", "{brief}");
    let items = ben.ok("2026-12-02T10:01:00Z", false, &["attention"]);
    let texts: Vec<&str> = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(
        texts[0].contains("$9.00 of $10.00 a day for the whole team (90 %)"),
        "{texts:?}"
    );
    let status = ana.ok("2026-12-02T10:01:00Z", false, &["budget", "status"]);
    assert_eq!(status["rules"][0]["key"], "team.day_usd", "{status}");
    assert_eq!(status["rules"][0]["spent"], 9.0, "{status}");
    assert_eq!(status["team"]["machines"], 1, "{status}");
    let status = ben.ok("2026-12-02T10:01:00Z", false, &["budget", "status"]);
    assert_eq!(status["rules"][0]["spent"], 9.0, "{status}");
    assert_eq!(status["team"]["from"], "server", "{status}");

    // Ana spends $1.50 more: her own machine knows at once ($7.50 + Ben's $3).
    ana.spend(
        "2026-12-02T10:10:00Z",
        claude_response("one", "2026-12-02T10:05:00Z", "3", 100_000),
    );
    let (next, brief) = ana.next_action("2026-12-02T10:11:00Z", &on_ana);
    assert_eq!(next, "blocked", "{brief}");
    assert_eq!(
        brief["brief"]["pause"]["reason"],
        "budget reached: $10.50 of $10.00 a day for the whole team (105 %)"
    );
    // Ben's machine knows once Ana's usage reaches the server.
    let (next, _) = ben.next_action("2026-12-02T10:12:00Z", &on_ben);
    assert_eq!(next, "work", "Ana's last $1.50 is not on the server yet");
    ana.sync("2026-12-02T10:13:00Z");
    let (next, brief) = ben.next_action("2026-12-02T10:14:00Z", &on_ben);
    assert_eq!(next, "blocked", "{brief}");
    assert!(
        brief["brief"]["pause"]["budget"]
            .as_str()
            .unwrap()
            .starts_with("team.day_usd@2026-12-02T00:00:00.000Z"),
        "{brief}"
    );
    let (status, check) = ben.run("2026-12-02T10:15:00Z", false, &["budget", "check"]);
    assert_eq!(status, 1, "{check}");
    assert_eq!(check["error"]["code"], "BUDGET_EXCEEDED");

    // An agent cannot lift the pause.
    let (status, refused) = ben.run("2026-12-02T10:16:00Z", true, &["unpause", &on_ben]);
    assert_eq!(status, 1);
    assert_eq!(refused["error"]["code"], "ACTOR_NOT_ALLOWED");

    // A person raises the team budget on Ben's machine: Ana's next brief goes on.
    let raised = ben.ok(
        "2026-12-02T10:20:00Z",
        false,
        &["team", "budget", "set", "day_usd=20"],
    );
    assert_eq!(raised["budget"]["policy"]["window_usd"], 500.0, "kept");
    let (next, brief) = ana.next_action("2026-12-02T10:21:00Z", &on_ana);
    assert_eq!(next, "work", "{brief}");

    // The server stops: a pull uses what it said last, and says nothing to the agent.
    let pg_ctl = server_control();
    pg_ctl("stop");
    let started = std::time::Instant::now();
    let out = baton(&ana.ledger)
        .env("BATON_NOW", "2026-12-02T10:30:00Z")
        .env("CLAUDECODE", "1")
        .args(["--json", "brief", &on_ana])
        .output()
        .unwrap();
    let waited = started.elapsed();
    let status = ana.run("2026-12-02T10:31:00Z", false, &["budget", "status"]);
    pg_ctl("start");
    assert!(out.status.success());
    assert_eq!(json_of(&out)["brief"]["next_action"], "work");
    assert!(
        waited < std::time::Duration::from_secs(5),
        "a pull does not wait on the server: {waited:?}"
    );
    let status = status.1;
    assert_eq!(status["team"]["from"], "cache", "{status}");
    assert!(status["team"]["unreachable"].is_string(), "{status}");
    assert_eq!(status["rules"][0]["spent"], 10.5, "{status}");

    // The budget cleared: no team rule is left.
    ana.ok("2026-12-02T10:40:00Z", false, &["team", "budget", "clear"]);
    let status = ana.ok("2026-12-02T10:41:00Z", false, &["budget", "status"]);
    assert_eq!(status["configured"], false, "{status}");
}
