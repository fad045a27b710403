//! `baton share` of a 7,500-message Claude Code conversation (text with Markdown, tool calls and
//! their output, tokens): the wall time and peak memory of making the HTML file, open and
//! locked with a password; then the time the file takes to its first screen in headless
//! Chromium (first contentful paint, from `www/bench/share-open.mjs`). Targets: share ≤ 1 s,
//! first screen ≤ 300 ms. Run: `cargo bench -p baton-tests --bench share`.

use std::io::Write;

const SESSION: &str = "5a5a5a5a-0000-4000-8000-000000000001";
const MESSAGES: usize = 7_500;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-home-dev-app");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join(format!("{SESSION}.jsonl"));
    let words = [
        "the",
        "parser",
        "reads",
        "each",
        "line",
        "and",
        "checks",
        "index",
        "for",
        "errors",
        "`cargo test`",
        "**note**",
        "config",
        "session",
    ];
    let mut seed = 11u64;
    let mut said = |n: usize| -> String {
        (0..n)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                words[(seed >> 33) as usize % words.len()]
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let mut parent = String::from("null");
    for n in 0..MESSAGES {
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let at = format!(
            "2026-12-01T{:02}:{:02}:{:02}Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        );
        let head = format!(
            r#""sessionId":"{SESSION}","uuid":"{uuid}","parentUuid":{parent},"cwd":"/home/dev/app","timestamp":"{at}""#
        );
        let line = match n % 4 {
            0 => serde_json::json!({"type": "user", "message": {"role": "user", "content": said(40)}})
                .to_string(),
            1 => serde_json::json!({"type": "assistant", "requestId": format!("r{n}"),
                "message": {"id": format!("m{n}"), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                    "content": [{"type": "text", "text": format!("## Step {n}\n\n{}\n\n- {}\n- {}", said(60), said(8), said(8))},
                                {"type": "tool_use", "id": format!("t{n}"), "name": "Bash",
                                 "input": {"command": format!("rg -n {} src/", said(1)), "description": said(6)}}],
                    "usage": {"input_tokens": 10, "output_tokens": 120, "cache_read_input_tokens": 20000}}})
                .to_string(),
            2 => serde_json::json!({"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": format!("t{}", n - 1),
                     "content": (0..20).map(|i| format!("src/file{i}.rs:{}: {}", i * 7, said(8))).collect::<Vec<_>>().join("\n")}]}})
                .to_string(),
            _ => serde_json::json!({"type": "assistant", "requestId": format!("r{n}"),
                "message": {"id": format!("m{n}"), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                    "content": [{"type": "text", "text": format!("{}\n\n```rust\nfn main() {{ println!(\"{}\"); }}\n```", said(50), said(3))}],
                    "usage": {"input_tokens": 8, "output_tokens": 90, "cache_read_input_tokens": 21000}}})
                .to_string(),
        };
        // The common fields spliced in after the opening brace.
        writeln!(out, "{{{head},{}", &line[1..]).unwrap();
        parent = format!("\"{uuid}\"");
    }
    drop(out);
    let size = std::fs::metadata(&file).unwrap().len();
    let index = tmp.path().join("index.sqlite");
    let run = |args: &[&str]| baton_tests::bench::baton_in(&baton, tmp.path(), &index, args);
    let mirrored = run(&["mirror", "--claude-dir", "projects"])
        .output()
        .unwrap();
    assert!(mirrored.status.success());
    std::fs::write(tmp.path().join("password.txt"), "correct horse\n").unwrap();
    let html = tmp.path().join("shared.html");
    let html_arg = html.display().to_string();
    let password_arg = tmp.path().join("password.txt").display().to_string();
    for (what, extra) in [
        ("open", vec![]),
        ("locked", vec!["--password-file", password_arg.as_str()]),
    ] {
        let mut took = Vec::new();
        let mut peak: f64 = 0.0;
        for _ in 0..5 {
            let mut args = vec!["share", SESSION, "-o", html_arg.as_str(), "--force"];
            args.extend(extra.iter().copied());
            let measured = baton_tests::bench::measure(&mut run(&args));
            took.push(measured.took);
            peak = peak.max(measured.peak_mb);
        }
        println!(
            "share ({what}) of a {MESSAGES}-message conversation ({:.1} MB of transcript, {:.1} MB of HTML): median {:.1} ms, peak {peak:.0} MB",
            size as f64 / (1 << 20) as f64,
            std::fs::metadata(&html).unwrap().len() as f64 / (1 << 20) as f64,
            baton_tests::bench::ms(baton_tests::bench::percentile(&mut took, 0.5))
        );
    }
    // The open file in Chromium (when the page's test tools are installed).
    let made = run(&["share", SESSION, "-o", html_arg.as_str(), "--force"])
        .output()
        .unwrap();
    assert!(made.status.success());
    let www = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../www");
    if !www.join("node_modules/playwright-core").exists() {
        println!("first screen: skipped (run `npm ci` in www/ for playwright-core)");
        return;
    }
    let opened = std::process::Command::new("node")
        .arg(www.join("bench/share-open.mjs"))
        .arg(&html)
        .output()
        .unwrap();
    assert!(
        opened.status.success(),
        "{}",
        String::from_utf8_lossy(&opened.stderr)
    );
    print!("{}", String::from_utf8_lossy(&opened.stdout));
}
