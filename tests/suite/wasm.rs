//! The core's `.wasm`: it imports nothing, and it answers every golden vector byte for byte as
//! the native core does (one core, one answer).

use baton::wasm_core::{WasmCore, imports};
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

fn vectors() -> Vec<(String, String, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors");
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".request.json"))
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|path| {
            let name = path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace(".request.json", "");
            let request = std::fs::read_to_string(&path).unwrap();
            (
                name.clone(),
                request,
                dir.join(format!("{name}.answer.json")),
            )
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
        .filter_map(|(_, request, _)| {
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
    for (name, request, answer_path) in all {
        let native = baton_core::abi::handle_json(&request);
        if update {
            std::fs::write(&answer_path, format!("{native}\n")).unwrap();
        }
        let expected = std::fs::read_to_string(&answer_path)
            .unwrap_or_else(|e| panic!("{name}: {e} (set BATON_UPDATE_VECTORS=1 to create)"));
        assert_eq!(native, expected.trim_end(), "{name}: native answer changed");
        let through_wasm = wasm.call(&request).unwrap();
        assert_eq!(through_wasm, native, "{name}: wasm and native disagree");
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
    wasm.set_fuel_per_call(baton::wasm_core::DEFAULT_FUEL_PER_CALL);
    let answer = wasm.call(r#"{"op":"version"}"#).unwrap();
    assert!(answer.contains("\"abi_version\":1"), "{answer}");
    let folded = wasm.call(&fold).unwrap();
    assert_eq!(folded, baton_core::abi::handle_json(&fold));
}
