//! The cost of every branch: a work session started in a real git worktree records its branch,
//! worktree and commit; `usage branch`, `usage pr` and `usage chain` add up the work sessions'
//! own usage (each response tied by its agent session id), equal to the sum of their rows in
//! `usage session --work`.

use baton_tests::{assert_success, baton, claude_response, json_of};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn git(repo: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert_success(&output, format_args!("git {args:?}"));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// `baton --json ARGS…` run in `folder` on `ledger`.
fn run_in(ledger: &Path, folder: &Path, args: &[&str]) -> Value {
    let out = baton(ledger)
        .current_dir(folder)
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    assert_success(&out, format_args!("{args:?}"));
    json_of(&out)
}

/// Each row's key and total tokens.
fn rows(report: &Value) -> BTreeMap<String, u64> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_owned(),
                r["total_tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn branch_pr_and_chain_totals_are_their_work_sessions_sums() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("app");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let worktree = tmp.path().join("app-feature");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature/x",
            worktree.to_str().unwrap(),
        ],
    );
    let head = git(&worktree, &["rev-parse", "HEAD"]);
    let ledger = repo.join(".baton");

    // One session in the worktree (feature/x), one in the main checkout (main), and one
    // handed off from the first, in the worktree again.
    let start = |folder: &Path, agent_session: &str, extra: &[&str]| -> Value {
        let mut args = vec!["start", "--project", "app", "--agent", "claude"];
        args.extend_from_slice(&["--provider-session-id", agent_session]);
        args.extend_from_slice(extra);
        run_in(&ledger, folder, &args)
    };
    let one = start(&worktree, "one", &[]);
    assert_eq!(one["branch"], "feature/x");
    assert_eq!(
        Path::new(one["worktree"].as_str().unwrap())
            .canonicalize()
            .unwrap(),
        worktree.canonicalize().unwrap()
    );
    assert_eq!(one["start_commit"], head.as_str());
    let two = start(&repo, "two", &[]);
    assert_eq!(two["branch"], "main");
    let one_id = one["session_id"].as_str().unwrap().to_owned();
    let three = start(&worktree, "three", &["--parent", &one_id]);
    assert_eq!(three["branch"], "feature/x");
    run_in(
        &ledger,
        &repo,
        &["report", &one_id, "--pr", "https://example.com/pr/7"],
    );
    // Outside git: no branch, no worktree, and nothing else changes.
    let outside = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let plain = start(&outside, "four", &[]);
    assert!(
        plain.get("branch").is_none() && plain.get("worktree").is_none(),
        "{plain}"
    );
    // `show` says where the work is.
    let shown = baton(&ledger)
        .current_dir(&repo)
        .args(["show", &one_id])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains("branch") && shown.contains("feature/x"),
        "{shown}"
    );

    let projects = tmp.path().join("projects/-work-app");
    std::fs::create_dir_all(&projects).unwrap();
    let lines = [
        claude_response("one", "2026-12-02T09:10:00Z", "1", 1_000),
        claude_response("two", "2026-12-02T09:20:00Z", "2", 20_000),
        claude_response("one", "2026-12-02T09:30:00Z", "3", 300),
        claude_response("three", "2026-12-02T09:40:00Z", "4", 4_000_000),
        claude_response("stray", "2026-12-02T09:50:00Z", "5", 55),
    ];
    std::fs::write(projects.join("all.jsonl"), lines.join("\n") + "\n").unwrap();
    let claude = tmp.path().join("projects");
    let usage = |group: &str| {
        run_in(
            &ledger,
            &repo,
            &[
                "usage",
                group,
                "--provider",
                "claude-code",
                "--claude-dir",
                claude.to_str().unwrap(),
            ],
        )
    };
    let work = run_in(
        &ledger,
        &repo,
        &[
            "usage",
            "session",
            "--work",
            "--provider",
            "claude-code",
            "--claude-dir",
            claude.to_str().unwrap(),
        ],
    );
    let per_session = rows(&work);
    let path_of = |v: &Value| v["path"].as_str().unwrap().to_owned();
    assert_eq!(per_session[&path_of(&one)], 1_300);
    assert_eq!(per_session[&path_of(&two)], 20_000);
    assert_eq!(per_session[&path_of(&three)], 4_000_000);

    let branch = usage("branch");
    assert_eq!(branch["group_by"], "branch");
    assert_eq!(
        rows(&branch),
        BTreeMap::from([
            (
                "feature/x".to_owned(),
                per_session[&path_of(&one)] + per_session[&path_of(&three)]
            ),
            ("main".to_owned(), per_session[&path_of(&two)]),
        ])
    );
    // The branch's cost is its sessions' too.
    let cost = |report: &Value, key: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == key)
            .map(|r| r["cost_usd"].as_f64().unwrap())
            .unwrap()
    };
    let sessions_cost = cost(&work, &path_of(&one)) + cost(&work, &path_of(&three));
    assert!((cost(&branch, "feature/x") - sessions_cost).abs() < 1e-6);
    // Responses no work session fits stay out, counted.
    assert_eq!(branch["work_sessions"]["unlinked_responses"], 1);

    assert_eq!(
        rows(&usage("pr")),
        BTreeMap::from([
            ("https://example.com/pr/7".to_owned(), 1_300),
            ("(none)".to_owned(), 4_020_000),
        ])
    );
    assert_eq!(
        rows(&usage("chain")),
        BTreeMap::from([(path_of(&one), 4_001_300), (path_of(&two), 20_000)])
    );

    // `show` gives the branch's total and the hand-off chain's, from the index.
    run_in(
        &ledger,
        &repo,
        &["mirror", "--claude-dir", claude.to_str().unwrap()],
    );
    let shown = run_in(&ledger, &repo, &["show", &one_id]);
    assert_eq!(shown["branch_cost"]["branch"], "feature/x");
    assert_eq!(shown["branch_cost"]["total_tokens"], 4_001_300);
    assert_eq!(
        shown["branch_cost"]["sessions"].as_array().unwrap().len(),
        2
    );
    assert_eq!(shown["chain_cost"]["total_tokens"], 4_001_300);
    let shown_two = run_in(
        &ledger,
        &repo,
        &["show", two["session_id"].as_str().unwrap()],
    );
    assert!(shown_two.get("branch_cost").is_none(), "{shown_two}");

    // As a person reads it.
    let human = baton(&ledger)
        .current_dir(&repo)
        .args([
            "usage",
            "branch",
            "--provider",
            "claude-code",
            "--claude-dir",
        ])
        .arg(&claude)
        .output()
        .unwrap();
    let human = String::from_utf8_lossy(&human.stdout);
    assert!(
        human.starts_with("[ok] Usage by branch: 2 branches"),
        "{human}"
    );
    assert!(
        human.contains("BRANCH") && human.contains("feature/x"),
        "{human}"
    );
}
