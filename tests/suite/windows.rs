//! `baton usage blocks`: five-hour windows from the transcripts as the command line and the
//! index give them, equal to figures worked out by hand; who used each window (work sessions
//! of the ledger where they link); the flags refused outside the windows report.

use baton_tests::{assert_success, baton, claude_response, json_of};
use serde_json::Value;
use std::path::Path;

/// Two agent sessions, interleaved: a window from 22:00 that crosses midnight, then after a
/// gap a window from 09:00 still open at the pinned now (10:30).
fn write_tree(projects: &Path) {
    let dir = projects.join("-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    let one = [
        claude_response("one", "2026-12-01T22:10:00Z", "1", 100_000),
        claude_response("one", "2026-12-02T01:00:00Z", "2", 50_000),
        claude_response("one", "2026-12-02T09:15:00Z", "3", 300_000),
        claude_response("one", "2026-12-02T10:00:00Z", "4", 300_000),
    ];
    let two = [
        claude_response("two", "2026-12-02T09:30:00Z", "5", 100_000),
        claude_response("two", "2026-12-02T10:15:00Z", "6", 200_000),
    ];
    std::fs::write(dir.join("one.jsonl"), one.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("two.jsonl"), two.join("\n") + "\n").unwrap();
}

const NOW: &str = "2026-12-02T10:30:00Z";

fn blocks(ledger: &Path, args: &[&str]) -> (i32, Value, String, String) {
    let out = baton(ledger)
        .env("BATON_NOW", NOW)
        .args(["usage", "blocks"])
        .args(args)
        .output()
        .unwrap();
    let json = if args.contains(&"--json") {
        json_of(&out)
    } else {
        Value::Null
    };
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn windows_burn_rate_projection_and_shares_equal_the_hand_computed_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let projects = tmp.path().join("projects");
    write_tree(&projects);
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let claude = projects.to_str().unwrap();
    let files = [
        "--provider",
        "claude-code",
        "--claude-dir",
        claude,
        "--json",
    ];
    let (status, report, _, stderr) = blocks(&ledger, &files);
    assert_eq!(status, 0, "{stderr}");
    let windows = report["windows"]["windows"].as_array().unwrap();
    let spans: Vec<(&str, &str, u64, bool)> = windows
        .iter()
        .map(|w| {
            (
                w["start"].as_str().unwrap(),
                w["end"].as_str().unwrap(),
                w["total_tokens"].as_u64().unwrap(),
                w["active"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        spans,
        [
            (
                "2026-12-02T09:00:00.000Z",
                "2026-12-02T14:00:00.000Z",
                900_000,
                true
            ),
            (
                "2026-12-01T22:00:00.000Z",
                "2026-12-02T03:00:00.000Z",
                150_000,
                false
            ),
        ]
    );
    let open = &windows[0];
    // 900,000 tokens from 09:15 to 10:30: 720,000 an hour ($10.80); 10:00 and 10:15 are the
    // last hour's 500,000. 3h 30m left at that pace: 900,000 + 2,520,000.
    assert_eq!(open["burn"]["tokens_per_hour"], 720_000);
    assert_eq!(open["burn"]["usd_per_hour"], 10.8);
    assert_eq!(open["burn"]["last_hour_tokens"], 500_000);
    assert_eq!(open["projection"]["total_tokens"], 3_420_000);
    assert_eq!(open["projection"]["minutes_left"], 210);
    assert_eq!(open["cost_usd"], 13.5);
    // 09:00 starts 360 minutes after the first window closed at 03:00.
    assert_eq!(open["gap_before_minutes"], 360);
    // The model rows are the kept windows'.
    assert_eq!(report["totals"]["total_tokens"], 1_050_000);

    // Against a limit of 1,500,000: 60 % used, the 600,000 left at 720,000 an hour run out
    // 50 minutes from now.
    let (_, limited, _, _) = blocks(
        &ledger,
        &[&files[..], &["--token-limit", "1,500,000"]].concat(),
    );
    let limit = &limited["windows"]["windows"][0]["limit"];
    assert_eq!(limit["used_percent"], 60.0);
    assert_eq!(limit["runs_out_at"], "2026-12-02T11:20:00.000Z");
    // `max`: the most an ended window used (150,000), which the open one passed at 09:15.
    let (_, highest, _, _) = blocks(&ledger, &[&files[..], &["--token-limit", "max"]].concat());
    assert_eq!(highest["windows"]["token_limit"], 150_000);
    assert_eq!(
        highest["windows"]["windows"][0]["limit"]["reached_at"],
        "2026-12-02T09:15:00.000Z"
    );

    // Only the open window.
    let (_, active, _, _) = blocks(&ledger, &[&files[..], &["--active"]].concat());
    assert_eq!(active["windows"]["windows"].as_array().unwrap().len(), 1);
    assert_eq!(active["totals"]["total_tokens"], 900_000);

    // Who used it: session one's work session (its id recorded at the start), and agent
    // session two, which no work session links.
    let started = baton(&ledger)
        .env("BATON_NOW", "2026-12-02T09:00:00Z")
        .args(["--json", "start", "--project", "app", "--agent", "claude"])
        .args(["--provider-session-id", "one"])
        .output()
        .unwrap();
    assert_success(&started, format_args!("start"));
    let path = json_of(&started)["path"].as_str().unwrap().to_owned();
    let (_, shared, _, _) = blocks(&ledger, &[&files[..], &["--by-session"]].concat());
    let shares: Vec<(String, String, u64, f64)> = shared["windows"]["windows"][0]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["of"].as_str().unwrap().to_owned(),
                s["key"].as_str().unwrap().to_owned(),
                s["total_tokens"].as_u64().unwrap(),
                s["share_percent"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        shares,
        [
            ("work_session".to_owned(), path.clone(), 600_000, 66.67),
            ("agent_session".to_owned(), "two".to_owned(), 300_000, 33.33),
        ]
    );
    // The closed window began before the work session: session one's responses there are
    // still its own (its provider session id ties them).
    assert_eq!(
        shared["windows"]["windows"][1]["sessions"][0]["key"],
        path.as_str()
    );

    // The index gives the same windows.
    let index = tmp.path().join("index.sqlite");
    let index_arg = format!("--index={}", index.display());
    let mirrored = baton(&ledger)
        .args(["mirror", "--claude-dir", claude, "--index"])
        .arg(&index)
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let (status, from_index, _, stderr) = blocks(
        &ledger,
        &[&index_arg, "--by-session", "--token-limit", "max", "--json"],
    );
    assert_eq!(status, 0, "{stderr}");
    let (_, from_files, _, _) = blocks(
        &ledger,
        &[&files[..], &["--by-session", "--token-limit", "max"]].concat(),
    );
    assert_eq!(from_index["windows"], from_files["windows"]);
    // `show` gives the work session's share of the open window (600,000 of the window's
    // 900,000 tokens, by cost 66.67 %), as do its MCP answer and the status line for the
    // agent session.
    let shown = baton(&ledger)
        .env("BATON_NOW", NOW)
        .env("BATON_INDEX", &index)
        .args(["--json", "show", &path])
        .output()
        .unwrap();
    assert_success(&shown, format_args!("show"));
    let share = &json_of(&shown)["window_share"];
    assert_eq!(share["share_percent"], 66.67, "{share}");
    assert_eq!(share["window_start"], "2026-12-02T09:00:00.000Z");
    assert_eq!(share["window_end"], "2026-12-02T14:00:00.000Z");
    assert_eq!(share["total_tokens"], 600_000);
    let human = baton(&ledger)
        .env("BATON_NOW", NOW)
        .env("BATON_INDEX", &index)
        .args(["show", &path])
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(
        human.contains(
            "window share   66.67% of the five-hour window open until 2026-12-02T14:00:00.000Z"
        ),
        "{human}"
    );
    // `watch` gives each live session's share beside its cost.
    let watched = baton(&ledger)
        .env("BATON_NOW", NOW)
        .env("BATON_INDEX", &index)
        .args(["--json", "watch"])
        .output()
        .unwrap();
    assert_success(&watched, format_args!("watch"));
    let watched = json_of(&watched);
    let shares: Vec<&Value> = watched["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["window_share_percent"])
        .collect();
    assert!(shares.contains(&&Value::from(66.67)), "{watched}");
    assert_eq!(watched["window"]["start"], "2026-12-02T09:00:00.000Z");
    let line = |session: &str| {
        let mut child = baton(&ledger)
            .env("BATON_NOW", NOW)
            .env("BATON_INDEX", &index)
            .env("NO_COLOR", "1")
            .args(["statusline", "--segments", "share", "--width", "200"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let input = serde_json::json!({"session_id": session, "cwd": tmp.path()});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    assert_eq!(line("two"), "this session 33% of the 5h window");
    assert_eq!(line("one"), "this session 67% of the 5h window");
    // From the index's sums (only the open window read response by response), every way of
    // asking gives what the files give: the same windows, and the same totals by model.
    for asked in [
        &[][..],
        &["--active"][..],
        &["--recent", "--token-limit", "250000"][..],
        &["--week"][..],
    ] {
        let (status, from_index, _, stderr) =
            blocks(&ledger, &[&[&index_arg[..], "--json"][..], asked].concat());
        assert_eq!(status, 0, "{stderr}");
        let (_, from_files, _, _) = blocks(&ledger, &[&files[..], asked].concat());
        assert_eq!(from_index["windows"], from_files["windows"], "{asked:?}");
        assert!(
            !from_index["windows"]["windows"]
                .as_array()
                .unwrap()
                .is_empty()
        );
        let totals = |report: &serde_json::Value| -> Vec<(String, u64, f64)> {
            report["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["key"].as_str().unwrap().to_owned(),
                        r["total_tokens"].as_u64().unwrap(),
                        r["cost_usd"].as_f64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(totals(&from_index), totals(&from_files), "{asked:?}");
    }

    // As a person reads it: the open window first, then the closed one, the idle time
    // between, and the open window's pace and limit in words.
    let (status, _, human, stderr) = blocks(
        &ledger,
        &[
            "--provider",
            "claude-code",
            "--claude-dir",
            claude,
            "--timezone",
            "UTC",
            "--token-limit",
            "1500000",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    assert!(
        human.starts_with("[ok] Usage by 5-hour window: 2 windows, the open one first"),
        "{human}"
    );
    for expected in [
        "2026-12-02 09:00 – 14:00",
        "open, 3h 30m left",
        "2026-12-01 22:00 – 12-02 03:00",
        "idle 6h",
        "open window 2026-12-02 09:00 – 14:00: 900,000 tokens ($13.50) so far; 720,000 tokens/h ($10.80/h), 500,000 in the last hour; at this pace 3,420,000 tokens ($51.30) by 14:00",
        "limit 1,500,000 tokens: 60.0 % used; runs out at 11:20 at this pace",
        "times in UTC",
    ] {
        assert!(human.contains(expected), "{expected}\n{human}");
    }

    // CSV: one line per window, oldest first.
    let (_, _, csv, _) = blocks(
        &ledger,
        &["--provider", "claude-code", "--claude-dir", claude, "--csv"],
    );
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].starts_with("2026-12-01T22:00:00.000Z,2026-12-02T03:00:00.000Z,false,2,"));
}

#[test]
fn window_flags_belong_to_blocks_and_a_bad_limit_says_what_to_give() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("app/.baton");
    let out = baton(&ledger)
        .args(["--json", "usage", "daily", "--active"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = json_of(&out);
    assert_eq!(error["error"]["code"], "INVALID_ARGUMENT");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("baton usage blocks --active"),
        "{error}"
    );
    let out = baton(&ledger)
        .args(["usage", "blocks", "--token-limit", "lots"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a token limit"), "{stderr}");
}

/// The Codex home of the limits fixtures: rollouts in its `sessions/` report both windows.
fn codex_home() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/codex-limits")
}

#[test]
fn codex_limits_come_from_its_newest_rollout_and_claudes_from_the_status_line() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let sessions = codex_home().join("sessions");
    let sessions = sessions.to_str().unwrap();

    // The newest report (10:00:02 on 2 December) of the two rollouts: both windows, the
    // reset instants as written, the plan.
    let (status, report, _, stderr) = blocks(
        &ledger,
        &["--provider", "codex", "--codex-dir", sessions, "--json"],
    );
    assert_eq!(status, 0, "{stderr}");
    let said = &report["windows"]["agent_limits"];
    assert_eq!(said.as_array().unwrap().len(), 1, "{said}");
    let codex = &said[0];
    assert_eq!(codex["provider"], "codex");
    assert_eq!(codex["observed_at"], "2026-12-02T10:00:02.000Z");
    assert_eq!(codex["plan_type"], "plus");
    assert_eq!(codex["primary"]["used_percent"], 25.0);
    assert_eq!(codex["primary"]["window_minutes"], 300);
    assert_eq!(codex["primary"]["resets_at"], "2026-12-02T13:00:00.000Z");
    assert_eq!(codex["secondary"]["used_percent"], 41.0);
    assert_eq!(codex["secondary"]["resets_at"], "2026-12-06T10:00:00.000Z");
    // The windows from its token counts: 20,100 tokens since 09:00 (the rollout's deltas).
    assert_eq!(report["windows"]["windows"][0]["total_tokens"], 20_100);

    // After the five-hour reset, that window reads empty; the weekly one stands.
    let later = baton(&ledger)
        .env("BATON_NOW", "2026-12-02T13:30:00Z")
        .args(["--json", "usage", "blocks", "--provider", "codex"])
        .args(["--codex-dir", sessions])
        .output()
        .unwrap();
    let later = json_of(&later);
    let codex = &later["windows"]["agent_limits"][0];
    assert_eq!(codex["primary"]["used_percent"], 0.0);
    assert!(codex["primary"].get("resets_at").is_none(), "{codex}");
    assert_eq!(codex["secondary"]["used_percent"], 41.0);

    // In words, under the windows.
    let (_, _, human, _) = blocks(
        &ledger,
        &[
            "--provider",
            "codex",
            "--codex-dir",
            sessions,
            "--timezone",
            "UTC",
        ],
    );
    assert!(
        human.contains(
            "Codex says (plan plus), at 2026-12-02 10:00: 5h 25 % used, resets 2026-12-02 13:00 · 7d 41 % used, resets 2026-12-06 10:00"
        ),
        "{human}"
    );

    // The status line's `codex` segment: the same report, against the time gone in each
    // window (10:30 is 2h 30m into the window that resets at 13:00: half of it).
    let run_statusline = |input: &str, segments: &str| {
        let mut command = baton(&ledger);
        command
            .env("BATON_NOW", NOW)
            .env("CODEX_HOME", codex_home())
            .env("NO_COLOR", "1")
            .args(["statusline", "--segments", segments]);
        let out = baton_tests::spawn_with_stdin(&mut command, input.as_bytes())
            .wait_with_output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let line = run_statusline(r#"{"session_id":"s-codex"}"#, "codex");
    assert_eq!(line, "codex 5h 25% (time 50%) · 7d 41% (time 43%)");

    // `watch` says the same under its sessions.
    let watched = baton(&ledger)
        .env("BATON_NOW", NOW)
        .env("CODEX_HOME", codex_home())
        .args(["--json", "watch", "--once"])
        .output()
        .unwrap();
    let watched = json_of(&watched);
    assert_eq!(
        watched["agent_limits"][0]["primary"]["used_percent"], 25.0,
        "{watched}"
    );
    let watched = baton(&ledger)
        .env("BATON_NOW", NOW)
        .env("CODEX_HOME", codex_home())
        .args(["watch", "--once"])
        .output()
        .unwrap();
    let watched = String::from_utf8_lossy(&watched.stdout);
    assert!(watched.contains("Codex says (plan plus)"), "{watched}");

    // Claude Code gives its limits to the status line only: kept there, shown by `blocks`.
    let claude = r#"{"session_id":"s-claude","rate_limits":{"five_hour":{"used_percentage":42,"resets_at":1796216400},"seven_day":{"used_percentage":12,"resets_at":1796551200}}}"#;
    let line = run_statusline(claude, "limits");
    assert!(line.starts_with("5h 42%"), "{line}");
    let (_, report, _, _) = blocks(
        &ledger,
        &[
            "--provider",
            "claude-code",
            "--claude-dir",
            sessions,
            "--json",
        ],
    );
    let said = &report["windows"]["agent_limits"];
    assert_eq!(said.as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(said[0]["provider"], "claude-code");
    assert_eq!(said[0]["primary"]["used_percent"], 42.0);
    assert_eq!(said[0]["primary"]["resets_at"], "2026-12-02T13:00:00.000Z");
    assert_eq!(said[0]["observed_at"], "2026-12-02T10:30:00.000Z");
}

#[test]
fn claude_codes_refusal_at_its_limit_is_read_from_its_transcript() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join("app/.baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let projects = tmp.path().join("projects");
    write_tree(&projects);
    // Claude Code refused a request at 10:20: the five-hour limit, reset at 13:00 UTC.
    let refused = r#"{"type":"assistant","sessionId":"two","cwd":"/work/app","timestamp":"2026-12-02T10:20:00.000Z","isApiErrorMessage":true,"message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"Claude AI usage limit reached|1796216400"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#;
    let two = projects.join("-work-app/two.jsonl");
    let mut text = std::fs::read_to_string(&two).unwrap();
    text.push_str(refused);
    text.push('\n');
    std::fs::write(&two, text).unwrap();
    let (status, report, _, stderr) = blocks(
        &ledger,
        &[
            "--provider",
            "claude-code",
            "--claude-dir",
            projects.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    let said = &report["windows"]["agent_limits"][0];
    assert_eq!(said["provider"], "claude-code", "{report}");
    assert_eq!(said["observed_at"], "2026-12-02T10:20:00.000Z");
    assert_eq!(said["primary"]["used_percent"], 100.0);
    assert_eq!(said["primary"]["resets_at"], "2026-12-02T13:00:00.000Z");
    // The refusal is no spend: the windows are as before.
    assert_eq!(report["windows"]["windows"][0]["total_tokens"], 900_000);
}
