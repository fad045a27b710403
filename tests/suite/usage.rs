//! `baton usage --json` equals the truth the generator wrote, on trees full of traps.

use baton_tests::{assert_success, baton, json_of};
use serde_json::Value;
use std::process::Command;

const GEN: &str = env!("CARGO_BIN_EXE_transcript-gen");

#[test]
fn usage_json_equals_the_generators_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("trees");
    let status = Command::new(GEN)
        .arg(&out)
        .args(["--sessions", "30", "--seed", "11"])
        .status()
        .unwrap();
    assert!(status.success());
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("truth.json")).unwrap()).unwrap();
    let report = baton(&tmp.path().join(".baton"))
        .args(["--json", "usage", "daily"])
        .arg("--claude-dir")
        .arg(out.join("claude/projects"))
        .arg("--codex-dir")
        .arg(out.join("codex/sessions"))
        .output()
        .unwrap();
    assert_success(&report, format_args!(""));
    let report = json_of(&report);
    let fields = [
        "input_tokens",
        "output_tokens",
        "cache_creation_tokens",
        "cache_read_tokens",
        "reasoning_tokens",
    ];
    let rows = report["rows"].as_array().unwrap();
    let daily = truth["daily"].as_object().unwrap();
    assert_eq!(rows.len(), daily.len());
    for row in rows {
        let expected = &daily[row["key"].as_str().unwrap()];
        for (i, field) in fields.iter().enumerate() {
            assert_eq!(row[field], expected[i], "{} {field}", row["key"]);
        }
    }
    for (i, field) in fields.iter().enumerate() {
        assert_eq!(report["totals"][field], truth["totals"][i], "total {field}");
    }
    let skipped = &report["skipped"];
    assert!(skipped["malformed_lines"].as_u64().unwrap() > 0);
    assert!(skipped["duplicate_responses"].as_u64().unwrap() > 0);
    assert!(skipped["duplicate_token_counts"].as_u64().unwrap() > 0);
    assert!(skipped["repaired_surrogate_lines"].as_u64().unwrap() > 0);
    assert!(skipped["synthetic_responses"].as_u64().unwrap() > 0);
    assert!(report["totals"]["cost_usd"].as_f64().unwrap() > 0.0);
}

#[test]
fn usage_filters_by_provider_and_date_and_groups_by_model() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("trees");
    assert!(
        Command::new(GEN)
            .arg(&out)
            .args(["--sessions", "6"])
            .status()
            .unwrap()
            .success()
    );
    let run = |args: &[&str]| {
        json_of(
            &baton(&tmp.path().join(".baton"))
                .arg("--json")
                .arg("usage")
                .args(args)
                .arg("--claude-dir")
                .arg(out.join("claude/projects"))
                .arg("--codex-dir")
                .arg(out.join("codex/sessions"))
                .output()
                .unwrap(),
        )
    };
    let codex = run(&["model", "--provider", "codex"]);
    let models: Vec<&str> = codex["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["gpt-5-codex", "gpt-5-mini", "gpt-5.4"]);
    let all = run(&["daily"]);
    let first_day = all["rows"][0]["key"].as_str().unwrap().to_owned();
    let one = run(&["daily", "--since", &first_day, "--until", &first_day]);
    assert_eq!(one["rows"].as_array().unwrap().len(), 1);
    assert_eq!(
        one["totals"]["total_tokens"],
        all["rows"][0]["total_tokens"]
    );
    let bad = baton(&tmp.path().join(".baton"))
        .args(["--json", "usage", "--since", "yesterday"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn inspect_says_what_each_file_is_and_refuses_unknown_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "inspect"])
        .arg(fixtures.join("chatgpt/pkuppens-real-2023-06-export-subset3.json"))
        .arg(fixtures.join("claude-code/spotter-v2.1.38-tool_heavy.jsonl"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let report = json_of(&out);
    assert_eq!(report["files"][0]["format"], "chatgpt");
    assert_eq!(report["files"][0]["branch_points"], 1);
    assert_eq!(report["files"][1]["format"], "claude-code");
    assert_eq!(report["files"][1]["tool_calls"], 6);
    let junk = tmp.path().join("notes.txt");
    std::fs::write(&junk, "just some notes\n").unwrap();
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "inspect"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = json_of(&out);
    assert_eq!(err["error"]["code"], "UNKNOWN_FORMAT");
    assert_eq!(
        err["error"]["details"]["files"][0]["error"]["details"]["seen"],
        "just some notes"
    );
}

#[test]
fn inspect_equals_the_generators_truth_for_both_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("trees");
    assert!(
        Command::new(GEN)
            .arg(&out)
            .args(["--sessions", "25", "--seed", "3"])
            .status()
            .unwrap()
            .success()
    );
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("truth.json")).unwrap()).unwrap();
    let report = json_of(
        &baton(&tmp.path().join(".baton"))
            .args(["--json", "inspect"])
            .arg(out.join("chatgpt/conversations.json"))
            .arg(out.join("claude-ai/conversations.json"))
            .output()
            .unwrap(),
    );
    for (file, name) in report["files"]
        .as_array()
        .unwrap()
        .iter()
        .zip(["chatgpt", "claude_ai"])
    {
        let expected = &truth[name];
        let got = [
            &file["conversations"],
            &file["messages"],
            &file["active_branch_messages"],
            &file["branch_points"],
        ];
        for (i, value) in got.iter().enumerate() {
            assert_eq!(**value, expected[i], "{name} field {i}");
        }
    }
}

#[test]
fn analyze_walks_folders_searches_writes_charts_and_refuses_wrong_files() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let charts = tmp.path().join("charts");
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "analyze", "--search", "phoenix server", "--svg"])
        .arg(&charts)
        .arg(&fixtures)
        .output()
        .unwrap();
    assert_success(&out, format_args!(""));
    let report = json_of(&out);
    assert_eq!(
        report["files"].as_array().unwrap().len(),
        192,
        "every fixture file (Codex's two rollouts that report its limits, OpenCode's and Kilo CLI's databases, Cursor's store and cursor-agent's five included), Cursor's six agent transcripts (the empty one passed over), an unzipped export's side files and Qwen Code's sidecars passed over (Amp's four threads and two Aider histories read; Cline's, Roo Code's and Kilo Code's 15 tasks, 39 files with their companions, Cline's bookkeeping passed over; Copilot Chat's six session files and the five workspace.json files above them, and Copilot CLI's four workspace.yaml files beside its sessions, read first; OpenCode 1.1's tree of 76 session, message and part files, its project file passed over)"
    );
    assert_eq!(report["errors"].as_array().unwrap().len(), 0);
    assert!(
        report["overview"]["usage"]["total_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    let rows = report["conversations"]["rows"].as_array().unwrap();
    assert!(
        !rows.is_empty() && rows.len() <= 10,
        "a search lists up to ten matches"
    );
    assert_eq!(report["conversations"]["total"], rows.len());
    for name in ["activity", "models", "tokens", "lengths"] {
        let svg = std::fs::read_to_string(charts.join(format!("{name}.svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}");
    }
    let junk = tmp.path().join("notes.json");
    std::fs::write(&junk, "just some notes\n").unwrap();
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "analyze"])
        .arg(&junk)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["error"]["code"], "UNKNOWN_FORMAT");
}

/// A search's matches can be read in full (`--show N`, the `#N` the listing shows) and
/// exported as Markdown or JSON; a number no conversation has is a coded error.
#[test]
fn analyze_opens_and_exports_the_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let chatgpt = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/chatgpt");
    let run = |extra: &[&str]| {
        baton(&tmp.path().join(".baton"))
            .args(["--json", "analyze", "--search", "tide"])
            .arg(&chatgpt)
            .args(extra)
            .output()
            .unwrap()
    };
    let listed = json_of(&run(&[]));
    let rows = listed["conversations"]["rows"].as_array().unwrap().clone();
    assert!(!rows.is_empty());
    let first = rows[0]["index"].as_u64().unwrap().to_string();

    let shown = json_of(&run(&["--show", &first]));
    assert_eq!(shown["shown"]["title"], rows[0]["title"]);
    let human = baton(&tmp.path().join(".baton"))
        .args(["analyze", "--search", "tide", "--show", &first])
        .arg(&chatgpt)
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    let title = rows[0]["title"].as_str().unwrap();
    assert!(human.contains(&format!("# {title}")), "{human}");
    assert!(human.contains("## User"), "{human}");

    let markdown = tmp.path().join("hits.md");
    let json_file = tmp.path().join("hits.json");
    for file in [&markdown, &json_file] {
        let out = run(&["--export", &file.display().to_string()]);
        assert_eq!(json_of(&out)["exported"]["conversations"], rows.len());
    }
    let text = std::fs::read_to_string(&markdown).unwrap();
    assert_eq!(text.matches("\n---\n").count(), rows.len() - 1, "{text}");
    let exported: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    assert_eq!(exported.as_array().unwrap().len(), rows.len());
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary is left behind");

    let missing = run(&["--show", "999"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(json_of(&missing)["error"]["code"], "INVALID_ARGUMENT");
}

/// `baton inspect` and `baton analyze` read every file through the same core ingest, so they
/// agree on every figure both report, titles and tool counts included: on each fixture, on
/// generated exports, and on those exports zipped (stored and deflated).
#[test]
fn inspect_and_analyze_agree_on_every_fixture_and_generated_export_zipped_or_not() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("trees");
    assert!(
        Command::new(GEN)
            .arg(&out)
            .args(["--sessions", "12", "--seed", "5"])
            .status()
            .unwrap()
            .success()
    );
    let mut files = Vec::new();
    fn walk(dir: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, into);
            } else if path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl")
            {
                into.push(path);
            }
        }
    }
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
        &mut files,
    );
    // An unzipped export's side files and an agent's sidecars hold no conversations: both
    // commands pass them over.
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let skipped = baton_core::transcripts::providers::skipped_files(&names);
    let mut skipped = skipped.into_iter();
    files.retain(|_| !skipped.next().unwrap_or(false));
    // A file of OpenCode's tree of files is read only with the rest of its tree, and the
    // tree's other files not at all.
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let taken = baton_core::transcripts::ingest::taken_from_folder(&names);
    let mut taken = taken.into_iter();
    files.retain(|f| {
        let aside = taken.next() == Some(baton_core::transcripts::ingest::Taken::Aside);
        !aside
            && baton_core::transcripts::opencode::legacy::place_of(&f.to_string_lossy()).is_none()
    });
    for export in ["chatgpt", "claude-ai"] {
        let json = out.join(export).join("conversations.json");
        let bytes = std::fs::read(&json).unwrap();
        for deflate in [false, true] {
            let zip = tmp.path().join(format!("{export}-{deflate}.zip"));
            let archive = baton_core::transcripts::zip::write_zip(
                &[("conversations.json", bytes.as_slice())],
                deflate,
            );
            std::fs::write(&zip, archive).unwrap();
            files.push(zip);
        }
        files.push(json);
    }
    assert!(files.len() >= 20, "{files:?}");
    let dir = tmp.path().join(".baton");
    for file in &files {
        let inspected = json_of(
            &baton(&dir)
                .args(["--json", "inspect"])
                .arg(file)
                .output()
                .unwrap(),
        );
        let analyzed = json_of(
            &baton(&dir)
                .args(["--json", "analyze", "--list", "100000"])
                .arg(file)
                .output()
                .unwrap(),
        );
        let i = &inspected["files"][0];
        let a = &analyzed["files"][0];
        let name = file.display();
        assert_eq!(
            i["format"].as_str().unwrap().replace('-', "_"),
            a["format"].as_str().unwrap(),
            "{name}"
        );
        assert_eq!(i["archive"], a["archive"], "{name}");
        for field in ["conversations", "messages", "stats", "unknown_kinds"] {
            assert_eq!(i[field], a[field], "{name}: {field}");
        }
        let rows = analyzed["conversations"]["rows"].as_array().unwrap();
        assert_eq!(rows.len() as u64, i["conversations"].as_u64().unwrap());
        let forks: u64 = rows.iter().map(|r| r["forks"].as_u64().unwrap()).sum();
        assert_eq!(i["forks"].as_u64().unwrap(), forks, "{name}: forks");
        for field in ["tool_calls", "tool_results"] {
            let sum: u64 = rows.iter().map(|r| r[field].as_u64().unwrap()).sum();
            assert_eq!(i[field].as_u64().unwrap(), sum, "{name}: {field}");
        }
        let mut listed: Vec<&str> = rows.iter().map(|r| r["title"].as_str().unwrap()).collect();
        let mut inspected: Vec<&str> = i["titles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        listed.sort_unstable();
        inspected.sort_unstable();
        assert_eq!(listed, inspected, "{name}: titles");
        assert!(
            i["branch_points"].as_u64().unwrap() >= forks,
            "{name}: every fork is a branch point"
        );
        let models: Vec<&String> = analyzed["overview"]["models"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        let inspected_models: Vec<String> = serde_json::from_value(i["models"].clone()).unwrap();
        assert_eq!(
            inspected_models.iter().collect::<Vec<_>>(),
            models,
            "{name}"
        );
        assert_eq!(i["first_at"], analyzed["overview"]["first_at"], "{name}");
        assert_eq!(i["last_at"], analyzed["overview"]["last_at"], "{name}");
    }
}

/// `baton --json usage ARGS…` on `tmp`: exit status, the JSON object, stderr.
fn usage_run(tmp: &std::path::Path, args: &[&str]) -> (i32, Value, String) {
    let out = baton(&tmp.join(".baton"))
        .args(["--json", "usage"])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        json_of(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_source_that_gives_nothing_is_a_warning_and_nothing_at_all_is_no_transcripts() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/claude-code");
    let nowhere = tmp.path().join("nowhere");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (nowhere, empty) = (nowhere.to_str().unwrap(), empty.to_str().unwrap());

    // Another source had data: exit 0, a warning on stderr, the folder in `missing_sources`.
    let (status, report, stderr) = usage_run(
        tmp.path(),
        &["--claude-dir", fixtures, "--codex-dir", nowhere],
    );
    assert_eq!(status, 0, "{stderr}");
    assert!(
        stderr.contains("warning") && stderr.contains(nowhere),
        "{stderr}"
    );
    assert_eq!(
        report["missing_sources"],
        serde_json::json!([{"provider": "codex", "path": nowhere, "reason": "not_found"}])
    );
    assert!(report["totals"]["total_tokens"].as_u64().unwrap() > 0);

    // Another tool's folder: its files hold no usage of the provider asked for.
    let codex_files = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/codex");
    let (status, report, stderr) = usage_run(
        tmp.path(),
        &["--claude-dir", codex_files, "--codex-dir", codex_files],
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(
        report["missing_sources"],
        serde_json::json!([{"provider": "claude-code", "path": codex_files, "reason": "no_usage"}])
    );
    assert!(stderr.contains("no Claude Code usage"), "{stderr}");

    // Nothing read at all: NO_TRANSCRIPTS, exit 1, every folder and why.
    let (status, report, _) =
        usage_run(tmp.path(), &["--claude-dir", empty, "--codex-dir", nowhere]);
    assert_eq!(status, 1);
    assert_eq!(report["error"]["code"], "NO_TRANSCRIPTS");
    let message = report["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(empty) && message.contains(nowhere),
        "{message}"
    );
    // The folders named, then each other agent's default that was looked in (here the
    // databases under XDG_DATA_HOME, which the test's environment sets), none there.
    let missing = report["error"]["details"]["missing_sources"]
        .as_array()
        .unwrap();
    assert_eq!(
        missing[..2],
        [
            serde_json::json!({"provider": "claude-code", "path": empty, "reason": "no_transcripts"}),
            serde_json::json!({"provider": "codex", "path": nowhere, "reason": "not_found"}),
        ]
    );
    // Each named in the message: an agent's first absent folder, and how many more it has
    // (an editor extension has one in each editor).
    let mut said = std::collections::BTreeSet::new();
    for other in &missing[2..] {
        assert_eq!(other["reason"], "not_found", "{other}");
        if said.insert(other["provider"].as_str().unwrap()) {
            assert!(
                message.contains(other["path"].as_str().unwrap()),
                "{message}"
            );
        }
    }
    assert!(
        message.contains("nor do the 4 other folders it may use"),
        "{message}"
    );
}

#[test]
fn days_and_the_since_until_window_follow_the_timezone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    // 23:30 UTC on 30 November is 00:30 on 1 December in Paris.
    std::fs::write(
        dir.join("s1.jsonl"),
        r#"{"type":"assistant","sessionId":"s1","cwd":"/work/app","timestamp":"2026-11-30T23:30:00Z","requestId":"r1","message":{"id":"m1","model":"claude-opus-4-7","usage":{"input_tokens":1000,"output_tokens":10}}}"#,
    )
    .unwrap();
    let projects = dir.parent().unwrap().to_str().unwrap();
    let day = |zone: &[&str], window: &[&str]| {
        let mut args = vec![
            "daily",
            "--provider",
            "claude-code",
            "--claude-dir",
            projects,
        ];
        args.extend_from_slice(zone);
        args.extend_from_slice(window);
        let (status, report, stderr) = usage_run(tmp.path(), &args);
        assert_eq!(status, 0, "{stderr}");
        let keys: Vec<String> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["key"].as_str().unwrap().to_owned())
            .collect();
        (keys, report["timezone"].as_str().unwrap().to_owned())
    };
    // The tests run with TZ=UTC: that is the default zone.
    assert_eq!(
        day(&[], &[]),
        (vec!["2026-11-30".to_owned()], "UTC".to_owned())
    );
    let paris = ["--timezone", "Europe/Paris"];
    assert_eq!(day(&paris, &[]).0, ["2026-12-01"]);
    assert_eq!(day(&paris, &["--since", "2026-12-01"]).0, ["2026-12-01"]);
    assert!(
        day(&["--timezone", "UTC"], &["--since", "2026-12-01"])
            .0
            .is_empty()
    );
    let (status, report, _) = usage_run(tmp.path(), &["--timezone", "Mars/Olympus"]);
    assert_eq!(status, 1);
    assert_eq!(report["error"]["details"]["field"], "timezone");
}

#[test]
fn cost_modes_pick_recorded_or_calculated_cost_and_the_table_is_dated() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("projects/p");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/claude-code/ccusage-usage-only-chat.jsonl"
        ),
        dir.join("chat.jsonl"),
    )
    .unwrap();
    let projects = dir.parent().unwrap().to_str().unwrap();
    let cost = |mode: &str| {
        let (status, report, stderr) = usage_run(
            tmp.path(),
            &[
                "model",
                "--provider",
                "claude-code",
                "--claude-dir",
                projects,
                "--cost-mode",
                mode,
            ],
        );
        assert_eq!(status, 0, "{stderr}");
        assert_eq!(report["cost_mode"], mode);
        assert_eq!(report["prices"]["date"].as_str().unwrap().len(), 10);
        report["totals"]["cost_usd"].as_f64().unwrap()
    };
    // The lines record $0.12, $0.34 and $0.56.
    assert_eq!(cost("auto"), 1.02);
    assert_eq!(cost("display"), 1.02);
    // Priced from the table: Sonnet 4 (100 + 300 input at $3, 50 + 125 output at $15, 25
    // writes at $3.75, 10 + 40 reads at $0.30) and Opus 4 (200 at $15, 75 at $75, 50 at
    // $18.75, 20 at $1.50), summed exactly and rounded down to the micro-dollar once: the
    // writes' 93.75 and 937.5 micro-dollars add up to one more than their whole parts.
    let sonnet = 1200.0 + 2625.0 + 93.75 + 15.0;
    let opus = 3000.0 + 5625.0 + 937.5 + 30.0;
    let micro: f64 = f64::floor(sonnet + opus);
    assert_eq!(micro, 13526.0);
    assert_eq!(cost("calculate"), micro / 1e6);
}

/// An unzipped export, as the service mails it, is read as one: `baton analyze` on the folder
/// reads its conversations file and passes over its side files without a word, and a side
/// file opened on its own is refused without echoing the address or number it holds.
#[test]
fn analyze_reads_an_unzipped_export_folder_and_skips_its_side_files() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for (folder, conversations, title) in [
        (
            "claude-ai/handmade-export-folder",
            2,
            "Packing list for a sailing trip",
        ),
        ("chatgpt/handmade-export-folder", 1, "Tying a bowline"),
    ] {
        let out = baton(&tmp.path().join(".baton"))
            .args(["--json", "analyze", "--list", "10"])
            .arg(fixtures.join(folder))
            .output()
            .unwrap();
        assert_success(&out, format_args!(""));
        let report = json_of(&out);
        let files = report["files"].as_array().unwrap();
        assert_eq!(files.len(), 1, "{folder}: {files:?}");
        assert!(
            files[0]["name"]
                .as_str()
                .unwrap()
                .ends_with("conversations.json")
        );
        assert_eq!(report["errors"].as_array().unwrap().len(), 0, "{folder}");
        assert_eq!(
            report["overview"]["conversations"], conversations,
            "{folder}"
        );
        let titles: Vec<&str> = report["conversations"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].as_str().unwrap())
            .collect();
        assert!(titles.contains(&title), "{folder}: {titles:?}");
    }
    let hidden = fixtures.join("chatgpt/handmade-tools-hidden-2025.json");
    let messages = |extra: &[&str]| {
        let out = baton(&tmp.path().join(".baton"))
            .args(["--json", "analyze"])
            .args(extra)
            .arg(&hidden)
            .output()
            .unwrap();
        json_of(&out)["overview"]["messages"].as_u64().unwrap()
    };
    assert_eq!(
        (messages(&[]), messages(&["--include-hidden"])),
        (10, 12),
        "hidden nodes only on request"
    );
    let out = baton(&tmp.path().join(".baton"))
        .args(["--json", "inspect"])
        .arg(fixtures.join("claude-ai/handmade-export-folder/users.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        text.contains("UNKNOWN_FORMAT") && text.contains("side files"),
        "{text}"
    );
    assert!(
        !text.contains("example.com") && !text.contains("5555550123"),
        "{text}"
    );
}

#[test]
fn symlink_loops_fifos_and_second_names_in_a_transcript_folder_change_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let sessions = tmp.path().join("codex/sessions");
    let day = sessions.join("2026/05/28");
    std::fs::create_dir_all(&day).unwrap();
    let rollout = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/codex/ccusage-session-alpha.jsonl"
    );
    std::fs::copy(rollout, day.join("rollout-a.jsonl")).unwrap();
    let outside = tmp.path().join("outside.jsonl");
    std::fs::copy(rollout, &outside).unwrap();
    let report = |what: &str| {
        let mut command = baton(&tmp.path().join(".baton"));
        command
            .args([
                "--json",
                "usage",
                "session",
                "--provider",
                "codex",
                "--codex-dir",
            ])
            .arg(&sessions);
        let out = baton_tests::output_within(command, 60);
        assert_success(&out, format_args!("{what}"));
        let report = json_of(&out);
        (
            report["totals"].clone(),
            report["rows"].as_array().unwrap().len(),
        )
    };
    let before = report("plain");
    assert!(before.0["total_tokens"].as_u64().unwrap() > 0);
    use std::os::unix::fs::symlink;
    symlink(".", sessions.join("loop")).unwrap();
    symlink("..", day.join("up")).unwrap();
    symlink(&outside, day.join("outside-link.jsonl")).unwrap();
    symlink(day.join("rollout-a.jsonl"), day.join("inside-link.jsonl")).unwrap();
    std::fs::hard_link(day.join("rollout-a.jsonl"), day.join("hard-link.jsonl")).unwrap();
    let fifo = day.join("pipe.jsonl");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(report("loops, links, a FIFO"), before);

    // A FIFO named on the command line is refused at once, not waited on.
    let mut command = baton(&tmp.path().join(".baton"));
    command.args(["--json", "inspect"]).arg(&fifo);
    let out = baton_tests::output_within(command, 60);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("not a regular file"));
}

#[test]
fn a_reader_that_goes_away_is_no_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");
    let mut child = baton(&tmp.path().join(".baton"))
        .args(["analyze", fixtures, "--list", "100"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // `baton analyze … | head -0`: the pipe's reader is gone before anything is written.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

#[test]
fn analyze_on_many_files_prints_a_summary_not_a_line_each() {
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("many");
    std::fs::create_dir(&folder).unwrap();
    let transcript = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/codex/agentsview-function_calls.jsonl"
    );
    for i in 0..25 {
        std::fs::copy(transcript, folder.join(format!("rollout-{i:02}.jsonl"))).unwrap();
    }
    std::fs::write(folder.join("broken.jsonl"), "not a transcript\n").unwrap();
    let run = |extra: &[&str]| {
        let out = baton(&tmp.path().join(".baton"))
            .arg("analyze")
            .arg(&folder)
            .args(extra)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let quiet = run(&[]);
    assert!(
        quiet.starts_with("[ok] Read 26 file(s): 25 codex"),
        "{quiet}"
    );
    assert_eq!(quiet.matches("rollout-").count(), 0, "{quiet}");
    assert!(
        quiet.contains("broken.jsonl"),
        "unreadable files are always named: {quiet}"
    );
    let verbose = run(&["--verbose"]);
    assert_eq!(verbose.matches("rollout-").count(), 25, "{verbose}");
}
