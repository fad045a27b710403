//! The core's folders are its architecture: each module imports only from its own layer or
//! below, and no source file grows past the size where it starts doing two jobs.

use std::path::{Path, PathBuf};

/// Bottom to top. A module may name `crate::<top>` only for a top-level module of its own
/// layer or a lower one.
const LAYERS: &[&[&str]] = &[
    &["lib", "error", "ids", "time", "names", "tokens"],
    &["ledger"],
    &["lifecycle", "transcripts", "records", "notes"],
    &["commands", "analyzer"],
    &["abi"],
];

const MAX_LINES: usize = 600;

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&top))
}

#[allow(clippy::disallowed_methods)]
fn sources(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

fn core_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let relative = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            #[allow(clippy::disallowed_methods)]
            let text = std::fs::read_to_string(&p).unwrap();
            (relative, text)
        })
        .collect()
}

/// The top-level modules a source names as `crate::<module>`, outside comments.
fn imports(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.push((n + 1, name));
        }
    }
    found
}

#[test]
fn no_core_module_imports_from_a_layer_above_it() {
    let mut violations = Vec::new();
    let sources = core_sources();
    assert!(sources.len() > 20, "the walk found the core's sources");
    for (path, text) in &sources {
        let top = path
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_owned();
        let own = layer_of(&top)
            .unwrap_or_else(|| panic!("{path}: top-level module `{top}` is in no layer"));
        for (line, name) in imports(text) {
            match layer_of(&name) {
                Some(layer) if layer > own => violations.push(format!(
                    "{path}:{line} (layer {own}) imports crate::{name} (layer {layer})"
                )),
                Some(_) => {}
                // Items re-exported at the root (Error, SessionId, …) live in layer 0.
                None => {}
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn the_layer_check_sees_an_upward_import() {
    let found = imports("use crate::commands::Context; // crate::abi in a comment\n");
    assert_eq!(found, vec![(1, "commands".to_owned())]);
    assert!(layer_of("commands") > layer_of("ledger"));
}

#[test]
fn no_core_source_file_passes_600_lines() {
    let too_long: Vec<String> = core_sources()
        .into_iter()
        .filter(|(_, text)| text.lines().count() > MAX_LINES)
        .map(|(path, text)| format!("{path}: {} lines", text.lines().count()))
        .collect();
    assert!(
        too_long.is_empty(),
        "split these by job (STYLE.md, Layout): {too_long:?}"
    );
}
