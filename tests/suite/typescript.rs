//! The ABI's TypeScript declarations (`host-web/npm/types.d.ts`) are the ones the core's types
//! generate, and every op has its answer type.

use std::path::Path;

#[test]
fn every_op_names_its_answer_type() {
    let typed: Vec<&str> = baton_core::abi::typescript::ANSWER_TYPES
        .iter()
        .map(|(op, _)| *op)
        .collect();
    let ops: Vec<&str> = baton_core::abi::OPS.iter().map(|op| op.name).collect();
    assert_eq!(
        typed, ops,
        "ANSWER_TYPES must list every op of OPS, in order"
    );
}

#[test]
fn the_typescript_declarations_are_generated_from_the_core() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-web/npm/types.d.ts");
    let generated = baton_core::abi::typescript::declarations();
    if std::env::var_os("BATON_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date: run `BATON_UPDATE_DOCS=1 cargo test -p baton-tests --test suite typescript`",
        path.display()
    );
    for needle in [
        "export type Request = AbiRequest | AnalyzerRequest;",
        "export type Session = ",
        "export type UsageReport = ",
        "analyzer_usage: UsageAnswer;",
    ] {
        assert!(generated.contains(needle), "missing {needle}");
    }
}
