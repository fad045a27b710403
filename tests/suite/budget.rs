//! Budgets that govern: two agents work under a `[budget]`; past its warning share one
//! attention item asks for a person; at its limit both sessions' next brief or report says
//! they are paused, with the figures; an agent cannot lift that pause; a person raising the
//! limit lets the next brief go on, and a person lifting one session's pause waives the rule
//! for it this period. `budget check` fails for scripts. Each command is its own process.

use baton_tests::{baton, claude_response, json_of};
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Day {
    _tmp: tempfile::TempDir,
    ledger: PathBuf,
    projects: PathBuf,
}

impl Day {
    fn new(config: &str) -> Day {
        let tmp = tempfile::tempdir().unwrap();
        let ledger = tmp.path().join("app/.baton");
        std::fs::create_dir_all(&ledger).unwrap();
        std::fs::write(ledger.join("config.toml"), config).unwrap();
        let projects = tmp.path().join("projects");
        std::fs::create_dir_all(projects.join("-work-app")).unwrap();
        Day {
            _tmp: tmp,
            ledger,
            projects,
        }
    }

    /// `baton --json ARGS` at `now`, as a person (or, with `agent`, from inside that agent).
    fn run(&self, now: &str, agent: Option<&str>, args: &[&str]) -> (i32, Value) {
        let mut command = baton(&self.ledger);
        command.env("BATON_NOW", now).arg("--json").args(args);
        match agent {
            Some("claude") => {
                command.env("CLAUDECODE", "1");
            }
            Some("codex") => {
                command.env("CODEX_SANDBOX", "seatbelt");
            }
            _ => {}
        }
        let out = command.output().unwrap();
        (out.status.code().unwrap_or(-1), json_of(&out))
    }

    /// Appends responses to the agent session's transcript and brings the index up to date.
    fn spend(&self, now: &str, lines: &[String]) {
        use std::io::Write;
        for line in lines {
            let session = line.split("\"sessionId\":\"").nth(1).unwrap();
            let session = &session[..session.find('"').unwrap()];
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(
                    self.projects
                        .join("-work-app")
                        .join(format!("{session}.jsonl")),
                )
                .unwrap();
            writeln!(file, "{line}").unwrap();
        }
        let (status, out) = self.run(
            now,
            None,
            &["mirror", "--claude-dir", self.projects.to_str().unwrap()],
        );
        assert_eq!(status, 0, "{out}");
    }
}

fn start(day: &Day, agent: &str, provider_id: &str) -> String {
    let (status, out) = day.run(
        "2026-12-02T09:00:00Z",
        Some(agent),
        &[
            "start",
            "--project",
            "app",
            "--agent",
            agent,
            "--provider-session-id",
            provider_id,
        ],
    );
    assert_eq!(status, 0, "{out}");
    out["session_id"].as_str().unwrap().to_owned()
}

fn attention(day: &Day, now: &str) -> Vec<String> {
    let (_, out) = day.run(now, None, &["attention"]);
    out["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_budget_warns_then_pauses_both_agents_until_a_person_raises_it() {
    let day = Day::new("[budget]\nday_usd = 10\n");
    let claude = start(&day, "claude", "one");
    let codex = start(&day, "codex", "two");
    let _ = Path::new(".");

    // $9 of $10: one warning, whoever asks first; the work goes on.
    day.spend(
        "2026-12-02T10:00:00Z",
        &[
            claude_response("one", "2026-12-02T09:30:00Z", "1", 400_000),
            claude_response("two", "2026-12-02T09:40:00Z", "2", 200_000),
        ],
    );
    let (_, brief) = day.run("2026-12-02T10:00:00Z", Some("claude"), &["brief", &claude]);
    assert_eq!(brief["brief"]["next_action"], "work", "{brief}");
    let (_, brief) = day.run("2026-12-02T10:01:00Z", Some("codex"), &["brief", &codex]);
    assert_eq!(brief["brief"]["next_action"], "work", "{brief}");
    let items = attention(&day, "2026-12-02T10:02:00Z");
    assert_eq!(items.len(), 1, "{items:?}");
    assert!(
        items[0].contains("$9.00 of $10.00 a day for all work (90 %)"),
        "{items:?}"
    );
    let (status, check) = day.run("2026-12-02T10:02:00Z", None, &["budget", "check"]);
    assert_eq!(status, 0, "{check}");
    let (status, check) = day.run(
        "2026-12-02T10:02:00Z",
        None,
        &["budget", "check", "--fail-at", "warn"],
    );
    assert_eq!(status, 1);
    assert_eq!(check["error"]["code"], "BUDGET_EXCEEDED");

    // $10.50: both sessions' next pull says paused, with the figures.
    day.spend(
        "2026-12-02T10:30:00Z",
        &[claude_response("one", "2026-12-02T10:20:00Z", "3", 100_000)],
    );
    let (status, brief) = day.run("2026-12-02T10:30:00Z", Some("claude"), &["brief", &claude]);
    assert_eq!(status, 0, "{brief}");
    assert_eq!(brief["brief"]["next_action"], "blocked", "{brief}");
    let reason = brief["brief"]["pause"]["reason"].as_str().unwrap();
    assert_eq!(
        reason,
        "budget reached: $10.50 of $10.00 a day for all work (105 %)"
    );
    assert!(
        brief["brief"]["pause"]["budget"]
            .as_str()
            .unwrap()
            .starts_with("day_usd@2026-12-02T00:00:00.000Z")
    );
    let (status, report) = day.run(
        "2026-12-02T10:31:00Z",
        Some("codex"),
        &["report", &codex, "--progress", "40"],
    );
    assert_eq!(status, 0, "{report}");
    assert_eq!(report["status"], "paused", "{report}");
    assert!(
        report["message"]
            .as_str()
            .unwrap()
            .contains("Paused: budget reached: $10.50 of $10.00"),
        "{report}"
    );
    let items = attention(&day, "2026-12-02T10:32:00Z");
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(items.iter().any(|t| t.contains("(105 %)")), "{items:?}");
    let (status, check) = day.run("2026-12-02T10:32:00Z", None, &["budget", "check"]);
    assert_eq!(status, 1);
    assert_eq!(check["error"]["details"]["rules"][0]["key"], "day_usd");

    // An agent cannot lift the pause.
    let (status, refused) = day.run(
        "2026-12-02T10:33:00Z",
        Some("claude"),
        &["unpause", &claude],
    );
    assert_eq!(status, 1);
    assert_eq!(refused["error"]["code"], "ACTOR_NOT_ALLOWED");

    // A person lifts the Codex session's pause: it goes on this day; Claude's stays paused.
    let (status, _) = day.run("2026-12-02T10:34:00Z", None, &["unpause", &codex]);
    assert_eq!(status, 0);
    let (_, brief) = day.run("2026-12-02T10:35:00Z", Some("codex"), &["brief", &codex]);
    assert_eq!(brief["brief"]["next_action"], "work", "{brief}");
    let (_, brief) = day.run("2026-12-02T10:35:00Z", Some("claude"), &["brief", &claude]);
    assert_eq!(brief["brief"]["next_action"], "blocked", "{brief}");

    // A person raises the budget: Claude's next brief goes on.
    std::fs::write(day.ledger.join("config.toml"), "[budget]\nday_usd = 20\n").unwrap();
    let (_, brief) = day.run("2026-12-02T10:40:00Z", Some("claude"), &["brief", &claude]);
    assert_eq!(brief["brief"]["next_action"], "work", "{brief}");
    let (_, status_now) = day.run("2026-12-02T10:41:00Z", None, &["budget", "status"]);
    assert_eq!(status_now["rules"][0]["used_percent"], 52.5);
    assert_eq!(status_now["source"], "index");

    // The next day the waiver is gone with the period; a new day's spend starts at zero.
    let (_, brief) = day.run("2026-12-03T09:00:00Z", Some("codex"), &["brief", &codex]);
    assert_eq!(brief["brief"]["next_action"], "work", "{brief}");
}

#[test]
fn a_budget_that_makes_no_sense_is_refused_by_name() {
    let day = Day::new("[budget]\nday_usd = -5\n");
    let (status, out) = day.run("2026-12-02T10:00:00Z", None, &["budget", "status"]);
    assert_eq!(status, 1);
    assert_eq!(out["error"]["code"], "INVALID_ARGUMENT");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("day_usd") && message.contains("config.toml"),
        "{message}"
    );
    let day = Day::new("[budget]\ndaily_usd = 5\n");
    let (status, out) = day.run("2026-12-02T10:00:00Z", None, &["budget", "status"]);
    assert_eq!(status, 1, "{out}");
    assert!(
        out["error"]["message"]
            .as_str()
            .unwrap()
            .contains("daily_usd"),
        "{out}"
    );
    let day = Day::new("");
    let (status, out) = day.run("2026-12-02T10:00:00Z", None, &["budget", "check"]);
    assert_eq!(status, 0);
    assert_eq!(out["configured"], false);
}
