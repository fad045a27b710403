//! The core's `.wasm`: it imports nothing, and it answers every golden vector byte for byte as
//! the native core does (one core, one answer).

use baton::ops::wasm_core::{WasmCore, imports};
use std::path::{Path, PathBuf};

fn core_wasm() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/wasm32-unknown-unknown/release/baton_core.wasm");
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{} ({e}): run `cargo build -p baton-core --target wasm32-unknown-unknown --release` first",
            path.display()
        )
    })
}

/// One golden vector: requests sent in order to one embedding, and the answer to each. A
/// `NAME.request.json` holds one request and `NAME.answer.json` its answer; a
/// `NAME.requests.ndjson` holds a script (an analyzer opened, fed, asked, closed), one request
/// per line, and `NAME.answers.ndjson` one answer per line.
struct Vector {
    name: String,
    requests: Vec<String>,
    answers_path: PathBuf,
}

impl Vector {
    fn expected(&self) -> Vec<String> {
        let text = std::fs::read_to_string(&self.answers_path).unwrap_or_else(|e| {
            panic!("{}: {e} (set BATON_UPDATE_VECTORS=1 to create)", self.name)
        });
        if self.requests.len() == 1 && self.answers_path.to_string_lossy().ends_with(".json") {
            vec![text.trim_end().to_owned()]
        } else {
            text.lines().map(str::to_owned).collect()
        }
    }

    fn write(&self, answers: &[String]) {
        std::fs::write(&self.answers_path, format!("{}\n", answers.join("\n"))).unwrap();
    }
}

fn vectors() -> Vec<Vector> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors");
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    found.sort();
    found
        .into_iter()
        .filter_map(|path| {
            let file = path.file_name()?.to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).ok()?;
            if let Some(name) = file.strip_suffix(".request.json") {
                Some(Vector {
                    name: name.to_owned(),
                    requests: vec![text],
                    answers_path: dir.join(format!("{name}.answer.json")),
                })
            } else {
                let name = file.strip_suffix(".requests.ndjson")?;
                Some(Vector {
                    name: name.to_owned(),
                    requests: text
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(str::to_owned)
                        .collect(),
                    answers_path: dir.join(format!("{name}.answers.ndjson")),
                })
            }
        })
        .collect()
}

#[test]
fn the_core_wasm_imports_nothing() {
    let imported = imports(&core_wasm()).unwrap();
    assert!(imported.is_empty(), "the core .wasm imports {imported:?}");
}

#[test]
fn every_abi_op_has_a_golden_vector() {
    let covered: std::collections::BTreeSet<String> = vectors()
        .iter()
        .flat_map(|v| v.requests.iter())
        .filter_map(|request| {
            let value: serde_json::Value = serde_json::from_str(request).ok()?;
            value["op"].as_str().map(str::to_owned)
        })
        .collect();
    for op in baton_core::abi::OPS {
        assert!(
            covered.contains(op.name),
            "the ABI op `{}` has no vector in tests/vectors",
            op.name
        );
    }
}

#[test]
fn golden_vectors_answer_identically_natively_and_in_wasm() {
    let mut wasm = WasmCore::load(&core_wasm()).unwrap();
    let update = std::env::var_os("BATON_UPDATE_VECTORS").is_some();
    let all = vectors();
    assert!(
        all.len() >= 8,
        "expected the golden vectors in tests/vectors"
    );
    for vector in all {
        let native: Vec<String> = vector
            .requests
            .iter()
            .map(|r| baton_core::abi::handle_json(r))
            .collect();
        if update {
            vector.write(&native);
        }
        let name = &vector.name;
        assert_eq!(native, vector.expected(), "{name}: native answer changed");
        for (request, native) in vector.requests.iter().zip(&native) {
            let through_wasm = wasm.call(request).unwrap();
            assert_eq!(&through_wasm, native, "{name}: wasm and native disagree");
        }
    }
}

#[test]
fn a_runaway_call_is_an_internal_error_and_the_host_keeps_working() {
    let mut wasm = WasmCore::load(&core_wasm()).unwrap();
    let line = r#"{"v":1,"id":"019c0000-0000-7000-8000-000000000001","session":"019c0000-0000-7000-8000-000000000002","kind":"started","at":"2026-07-18T20:00:00.000Z","actor":{"kind":"agent","name":"claude"},"data":{"project":"demo","agent":"claude"}}"#;
    let ledger = vec![line; 2_000].join("\n");
    let fold = serde_json::json!({"op": "fold", "ledger": ledger}).to_string();
    // Too little fuel for the fold: stopped inside the module.
    wasm.set_fuel_per_call(100_000);
    let err = wasm.call(&fold).unwrap_err();
    assert_eq!(err.code.as_str(), "INTERNAL", "{err}");
    // The same host answers the next request, on a fresh instance.
    wasm.set_fuel_per_call(baton::ops::wasm_core::DEFAULT_FUEL_PER_CALL);
    let answer = wasm.call(r#"{"op":"version"}"#).unwrap();
    assert!(answer.contains("\"abi_version\":1"), "{answer}");
    let folded = wasm.call(&fold).unwrap();
    assert_eq!(folded, baton_core::abi::handle_json(&fold));
}

/// The codes no ABI request can be answered with, and why: they come from a host's files,
/// server or page. (`INTERNAL` is proved by the runaway call above.)
const HOST_ONLY_CODES: &[(&str, &str)] = &[
    (
        "BUDGET_EXCEEDED",
        "budgets are measured on the host's transcript index (`budget check`)",
    ),
    (
        "RECORD_NOT_FOUND",
        "stored records live in the ledger folder's files",
    ),
    (
        "AMBIGUOUS_RECORD",
        "stored records live in the ledger folder's files",
    ),
    (
        "RECORD_CONTENT_DAMAGED",
        "record blobs live under .baton/blobs/",
    ),
    (
        "NOT_A_RECORD",
        "the mirror's index tells records from sessions",
    ),
    (
        "FILE_UNREADABLE",
        "a host reads the files; the core is given bytes",
    ),
    ("NO_TRANSCRIPTS", "a host looks in folders"),
    ("STORE_IO", "a host reads and writes the ledger"),
    ("STORE_UNSAFE", "a host opens the ledger's files"),
    ("STORE_BUSY", "a host takes the compaction lock"),
    ("INDEX_DAMAGED", "a host keeps the transcript index"),
    ("PAGE_NOT_BUILT", "the native binary serves the page"),
    ("SERVE_FAILED", "the native binary serves the page"),
    (
        "INTERNAL",
        "a bug; the wasm host's trap handling is tested above",
    ),
];

#[test]
fn every_error_code_an_abi_request_can_meet_has_a_vector() {
    let answered: std::collections::BTreeSet<String> = vectors()
        .iter()
        .flat_map(|v| v.expected())
        .filter_map(|answer| {
            let value: serde_json::Value = serde_json::from_str(&answer).ok()?;
            value["error"]["code"].as_str().map(str::to_owned)
        })
        .collect();
    for code in baton_core::ErrorCode::ALL {
        let code = code.as_str();
        let host_only = HOST_ONLY_CODES.iter().any(|(c, _)| *c == code);
        assert!(
            answered.contains(code) || host_only,
            "no vector in tests/vectors answers with {code}"
        );
        assert!(
            !(answered.contains(code) && host_only),
            "{code} is answered by a vector: take it off HOST_ONLY_CODES"
        );
    }
}

#[test]
fn baton_abi_lines_answers_every_script_on_one_core() {
    let tmp = tempfile::tempdir().unwrap();
    let scripts: Vec<Vector> = vectors()
        .into_iter()
        .filter(|v| v.answers_path.to_string_lossy().ends_with(".ndjson"))
        .collect();
    assert!(scripts.len() >= 5, "expected the analyzer scripts");
    // Every script through one process, as a program keeping `baton abi --lines` open would
    // send them: the answers are the vectors', line for line, in order.
    let mut input = String::new();
    let mut expected = Vec::new();
    for script in &scripts {
        input.push_str(&script.requests.join("\n"));
        input.push('\n');
        expected.extend(script.expected());
    }
    let output = baton_tests::output_with_stdin(
        baton_tests::baton(&tmp.path().join(".baton")).args(["abi", "--lines"]),
        input.as_bytes(),
    );
    assert!(output.status.success(), "{output:?}");
    let answers: Vec<String> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(answers.len(), expected.len(), "one answer per request");
    assert_eq!(answers, expected);
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn baton_abi_lines_answers_a_line_that_is_not_utf8_and_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let input = b"{\"op\":\"analyzer_open\",\"analyzer\":\"k\"}\n\xff\xfe{\n\n{\"op\":\"analyzer_files\",\"analyzer\":\"k\"}\n";
    let output = baton_tests::output_with_stdin(
        baton_tests::baton(&tmp.path().join(".baton")).args(["abi", "--lines"]),
        input,
    );
    assert!(output.status.success(), "{output:?}");
    let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        answers.len(),
        3,
        "an answer per request, none for the blank line"
    );
    assert_eq!(answers[1]["error"]["code"], "INVALID_ARGUMENT");
    assert_eq!(
        answers[2]["ok"]["files"],
        serde_json::json!([]),
        "the analyzer opened before the bad line is still open"
    );
}
