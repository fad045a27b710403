//! Generated documentation stays in step with the code.

#[test]
#[allow(clippy::disallowed_methods)]
fn docs_errors_md_matches_the_registry() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/errors.md");
    let expected = baton_core::error::registry_markdown();
    if std::env::var_os("BATON_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/errors.md is stale: run BATON_UPDATE_DOCS=1 cargo test -p baton-core --test suite docs"
    );
}

#[test]
#[allow(clippy::disallowed_methods)]
fn docs_embedding_md_matches_the_abi() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/embedding.md");
    let expected = baton_core::abi::embedding_markdown();
    if std::env::var_os("BATON_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "docs/embedding.md is stale: run BATON_UPDATE_DOCS=1 cargo test -p baton-core --test suite docs"
    );
    // Every example is answered, none with an error.
    for op in baton_core::abi::OPS {
        let answer = baton_core::abi::handle_json(op.example);
        assert!(answer.starts_with("{\"ok\":"), "{}: {answer}", op.name);
    }
}
