//! `baton transcripts restore` of a 50 MB Claude Code session (25,600 messages of about 2 KB,
//! one chain), mirrored then deleted: the wall time and peak memory of putting it back, byte
//! for byte (checked). Target: ≤ 1 s. Run: `cargo bench -p baton-tests --bench restore`.

use std::io::Write;

const SESSION: &str = "7a7a7a7a-0000-4000-8000-000000000001";

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let baton = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp.path().join("projects/-work-big");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join(format!("{SESSION}.jsonl"));
    // A chain of user and assistant messages, each about 2 KB of words.
    let words = [
        "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "parse",
    ];
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let (mut size, mut n, mut parent) = (0usize, 0usize, String::from("null"));
    let mut seed = 7u64;
    while size < 50 << 20 {
        let text: Vec<&str> = (0..300)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                words[(seed >> 33) as usize % words.len()]
            })
            .collect();
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        let at = format!(
            "2026-12-01T{:02}:{:02}:{:02}Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        );
        let line = if n % 2 == 0 {
            format!(
                r#"{{"type":"user","sessionId":"{SESSION}","uuid":"{uuid}","parentUuid":{parent},"cwd":"/work/big","timestamp":"{at}","message":{{"role":"user","content":"{}"}}}}"#,
                text.join(" ")
            )
        } else {
            format!(
                r#"{{"type":"assistant","sessionId":"{SESSION}","uuid":"{uuid}","parentUuid":{parent},"cwd":"/work/big","timestamp":"{at}","requestId":"r{n}","message":{{"id":"m{n}","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[{{"type":"text","text":"{}"}}],"usage":{{"input_tokens":10,"output_tokens":100}}}}}}"#,
                text.join(" ")
            )
        };
        writeln!(out, "{line}").unwrap();
        size += line.len() + 1;
        parent = format!("\"{uuid}\"");
        n += 1;
    }
    drop(out);
    let original = std::fs::read(&file).unwrap();
    let index = tmp.path().join("index.sqlite");
    let run = |args: &[&str]| baton_tests::bench::baton_in(&baton, tmp.path(), &index, args);
    let mirrored = run(&["mirror", "--claude-dir", "projects"])
        .output()
        .unwrap();
    assert!(mirrored.status.success());
    let mut took = Vec::new();
    let mut peak: f64 = 0.0;
    for _ in 0..5 {
        std::fs::remove_file(&file).unwrap();
        let measured = baton_tests::bench::measure(&mut run(&["transcripts", "restore", SESSION]));
        took.push(measured.took);
        peak = peak.max(measured.peak_mb);
        assert!(std::fs::read(&file).unwrap() == original, "byte for byte");
    }
    println!(
        "restore of a {:.1} MB session ({n} messages): median {:.1} ms, peak {peak:.0} MB",
        original.len() as f64 / (1 << 20) as f64,
        baton_tests::bench::ms(baton_tests::bench::percentile(&mut took, 0.5))
    );
}
