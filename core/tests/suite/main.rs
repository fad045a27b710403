//! The core's tests, one binary: each module names what it proves (see `tests/README.md`).

mod agents;
mod analysis;
mod analyzer;
mod conversations;
mod docs;
mod errors;
mod hostile;
mod lifecycle;
mod notes;
mod places;
mod prices;
mod properties;
mod reading;
mod safe_html;
mod scenarios;
mod share;
mod transcripts;

/// A file of the shared real-world fixtures (`tests/fixtures/`).
#[allow(clippy::disallowed_methods)]
pub(crate) fn fixture(path: &str) -> Vec<u8> {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Every snapshot file of this binary belongs to a test that still asserts it.
#[test]
#[allow(clippy::disallowed_methods)]
fn no_snapshot_is_left_unreferenced() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let mut sources = String::new();
    for entry in std::fs::read_dir(&here).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            sources.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
    let Ok(entries) = std::fs::read_dir(here.join("snapshots")) else {
        return;
    };
    let mut stale = Vec::new();
    for entry in entries {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let snapshot = name
            .strip_suffix(".snap")
            .and_then(|stem| stem.rsplit("__").next())
            .unwrap_or("");
        if snapshot.is_empty() || !sources.contains(&format!("assert_snapshot!(\"{snapshot}\"")) {
            stale.push(name);
        }
    }
    assert!(stale.is_empty(), "unreferenced snapshots: {stale:?}");
}
