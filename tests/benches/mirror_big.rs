//! The mirror on files no pass could hold at once: a 100 MB Claude Code transcript, and one
//! whose second line is 2 GB long (a sparse file: no disk is spent on it) with lines after
//! it. Each is mirrored by one `baton mirror` process (release build) into a fresh index;
//! prints the wall time, the peak resident memory of the process (`ru_maxrss`, by wait4)
//! and what the pass read. Target: both read whole on the first pass, peak under 200 MB.
//! Run: `cargo bench -p baton-tests --bench mirror_big`.

use std::io::{Seek, SeekFrom, Write};
use std::process::Command;

fn line(n: u64, text: &str) -> String {
    let role = if n.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    format!(
        r#"{{"type":"{role}","sessionId":"big","uuid":"u{n}","parentUuid":{},"timestamp":"2026-06-01T10:{:02}:00.000Z","cwd":"/home/dev/app","message":{{"role":"{role}","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"{text}"}}]}}}}"#,
        if n == 0 {
            "null".to_owned()
        } else {
            format!("\"u{}\"", n - 1)
        },
        n % 60
    ) + "\n"
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let words = "words of an ordinary answer, with some more of them ".repeat(20);
    // 100 MB of ordinary lines.
    let hundred = tmp.path().join("hundred/projects/-home-dev-app");
    std::fs::create_dir_all(&hundred).unwrap();
    let mut file =
        std::io::BufWriter::new(std::fs::File::create(hundred.join("big.jsonl")).unwrap());
    let (mut written, mut lines) = (0u64, 0u64);
    while written < 100 << 20 {
        let text = line(lines, &format!("line{lines} {words}"));
        written += text.len() as u64;
        file.write_all(text.as_bytes()).unwrap();
        lines += 1;
    }
    file.flush().unwrap();
    drop(file);
    // A 2 GB line between ordinary ones: its body is a hole of zero bytes (no newline).
    let long = tmp.path().join("long/projects/-home-dev-app");
    std::fs::create_dir_all(&long).unwrap();
    let mut file = std::fs::File::create(long.join("long.jsonl")).unwrap();
    file.write_all(line(0, "before the long line").as_bytes())
        .unwrap();
    file.write_all(br#"{"type":"user","sessionId":"big","message":{"content":""#)
        .unwrap();
    file.seek(SeekFrom::Current(2 << 30)).unwrap();
    file.write_all(b"\"}}\n").unwrap();
    for n in 1..=1000 {
        file.write_all(line(n, &format!("after the long line {n}")).as_bytes())
            .unwrap();
    }
    drop(file);
    for (name, root, expected_lines) in [
        ("100 MB transcript", tmp.path().join("hundred"), lines),
        ("2 GB line", tmp.path().join("long"), 1001),
    ] {
        let index = tmp.path().join(format!("{}.sqlite", expected_lines));
        let mut command = Command::new(&baton);
        command
            .env("XDG_DATA_HOME", tmp.path().join("data"))
            .args(["mirror", "--json", "--claude-dir"])
            .arg(root.join("projects"))
            .arg("--codex-dir")
            .arg(tmp.path().join("none"))
            .arg("--index")
            .arg(&index);
        let run = baton_tests::bench::measure(&mut command);
        let answer: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let pass = &answer["pass"];
        assert_eq!(
            pass["lines"], expected_lines,
            "{name}: every line in one pass"
        );
        println!(
            "{name}: {:.1} s, peak {:.0} MB, read {} MB, {} line(s), {} skipped",
            run.took.as_secs_f64(),
            run.peak_mb,
            pass["bytes_read"].as_u64().unwrap_or(0) >> 20,
            pass["lines"],
            pass["skipped_lines"],
        );
    }
}
