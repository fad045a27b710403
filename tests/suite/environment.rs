//! The environment is read in one place and documented in one table: every variable the host
//! reads is in `os::env::ENVIRONMENT` (and nothing stale is), the README lists each, and no
//! host module but `os/env.rs` reads the process's environment itself.

use baton::os::env::ENVIRONMENT;
use baton_core::transcripts::providers::{Kind, REGISTRY};
use std::path::Path;

#[allow(clippy::disallowed_methods)]
fn host_sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-native/src");
    baton_tests::rust_sources_under(&root)
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(&root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The quoted upper-case names right after `pattern` in `text`.
fn names_after(text: &str, pattern: &str) -> Vec<String> {
    text.match_indices(pattern)
        .filter_map(|(at, _)| {
            let rest = text[at + pattern.len()..].strip_prefix('"')?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            (rest[name.len()..].starts_with('"') && !name.is_empty()).then_some(name)
        })
        .collect()
}

/// Every variable the host's code names: those it reads by name, clap's `env = "…"`, every
/// `BATON_…` string, and the mirror's per-provider ones the registry spells.
fn read_by_the_host() -> Vec<String> {
    let mut names = Vec::new();
    // The table itself names every variable: it is what is checked, not evidence of a read.
    for (_, text) in host_sources().into_iter().filter(|(f, _)| f != "os/env.rs") {
        for pattern in ["env::var(", "env::var_os(", "env = "] {
            names.extend(names_after(&text, pattern));
        }
        for (at, _) in text.match_indices("\"BATON_") {
            let name: String = text[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if text[at + 1 + name.len()..].starts_with('"') {
                names.push(name);
            }
        }
    }
    for entry in &REGISTRY {
        let word = entry.setting;
        names.push(format!("BATON_MIRROR_{word}_DIR"));
        names.push(format!("BATON_MIRROR_{word}_ENABLED"));
        if entry.kind == Kind::Export {
            names.push(format!("BATON_MIRROR_{word}_MAX_BYTES"));
        }
        for moved in entry.homes.moved {
            names.push(moved.variable.to_owned());
        }
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn every_variable_the_host_reads_is_in_the_table() {
    let read = read_by_the_host();
    assert!(read.len() > 25, "{read:?}");
    let missing: Vec<&String> = read
        .iter()
        .filter(|name| !ENVIRONMENT.iter().any(|v| v.name == name.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "add to os::env::ENVIRONMENT: {missing:?}"
    );
}

#[test]
fn every_variable_of_the_table_is_read_and_in_the_readme() {
    let sources: String = host_sources()
        .into_iter()
        .filter(|(file, _)| file != "os/env.rs")
        .map(|(_, text)| text)
        .collect();
    #[allow(clippy::disallowed_methods)]
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md"))
            .unwrap();
    let section = readme
        .split("## Environment variables")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the README has an environment section");
    let derived = read_by_the_host();
    for variable in ENVIRONMENT {
        let quoted = format!("\"{}\"", variable.name);
        let named = sources.contains(&quoted) || derived.contains(&variable.name.into());
        // XDG folders are read by the `directories` crate, not by name.
        assert!(
            named || variable.name.starts_with("XDG_"),
            "{} is in the table but the host never reads it",
            variable.name
        );
        assert!(
            section.contains(&format!("| `{}` |", variable.name)),
            "README's environment table lacks {}",
            variable.name
        );
    }
}

#[test]
fn only_os_env_reads_the_environment() {
    let readers: Vec<String> = host_sources()
        .into_iter()
        .filter(|(name, _)| name != "os/env.rs")
        .filter(|(_, text)| {
            text.lines().any(|line| {
                let code = line.split("//").next().unwrap_or("");
                ["env::var(", "env::var_os(", "env::vars(", "env::vars_os("]
                    .iter()
                    .any(|call| {
                        code.match_indices(call)
                            .any(|(at, _)| !code[..at].ends_with("os::"))
                    })
            })
        })
        .map(|(name, _)| name)
        .collect();
    assert!(readers.is_empty(), "read through os::env: {readers:?}");
}
