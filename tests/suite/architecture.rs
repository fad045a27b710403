//! The crates' folders are their architecture, held here for the core and the native host
//! alike: a module names only modules of its own layer or below; at every level of the tree,
//! the modules of one folder never name each other in a circle; and no source file passes the
//! size where it starts doing two jobs. Each rule is also shown failing on a planted violation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MAX_LINES: usize = 600;

/// The core's layers, bottom to top (top-level modules; `lib` is the crate root).
const CORE: &[&[&str]] = &[
    &["lib", "error", "ids", "time", "names", "tokens"],
    &["ledger"],
    &["lifecycle", "transcripts", "records", "notes"],
    &["commands", "analyzer", "share", "telemetry"],
    &["abi"],
];

/// The native host's layers, bottom to top.
const HOST: &[&[&str]] = &[
    &["lib", "main", "os"],
    &["config", "store", "index"],
    &["ops"],
    &["faces"],
];

/// A module's path below the crate root: `ops::mirror::pass` for `ops/mirror/pass/mod.rs`.
type Module = Vec<String>;

struct Source {
    module: Module,
    file: String,
    text: String,
}

fn module_of(file: &str) -> Module {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
        parts.clear();
    }
    parts
}

fn crate_sources(krate: &str) -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    baton_tests::rust_sources_under(&root)
        .into_iter()
        .map(|p| {
            let file = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            #[allow(clippy::disallowed_methods)]
            let text = std::fs::read_to_string(&p).unwrap();
            source(&file, &text)
        })
        .collect()
}

fn source(file: &str, text: &str) -> Source {
    Source {
        module: module_of(file),
        file: file.to_owned(),
        text: text.to_owned(),
    }
}

/// The code of a file before its test module, without comments.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let tests = lines
        .windows(2)
        .position(|w| w[0].trim() == "#[cfg(test)]" && w[1].trim_start().starts_with("mod "))
        .unwrap_or(lines.len());
    lines[..tests]
        .iter()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths a `use` tree names, braces expanded: `a::{b, c::{d, e}}` is `a::b`, `a::c::d`,
/// `a::c::e`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut start = 0;
    let mut items = Vec::new();
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..]);
    for item in items {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let mut path = prefix.to_vec();
        if let Some(open) = item.find('{') {
            path.extend(
                item[..open]
                    .split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
            let close = item.rfind('}').filter(|&c| c > open).unwrap_or(item.len());
            let inner = &item[open + 1..close];
            expand(&path, inner, out);
        } else {
            let item = item.split(" as ").next().unwrap_or(item);
            path.extend(
                item.split("::")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
            );
            out.push(path);
        }
    }
}

/// Every path a source names that starts at the crate, a parent, itself or one of its own
/// child modules, with the line it is on.
fn named_paths(text: &str) -> Vec<(usize, Vec<String>)> {
    let code = code(text);
    let children: BTreeSet<String> = code
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line.strip_prefix("pub ").or_else(|| {
                line.strip_prefix("pub(crate) ")
                    .or_else(|| line.strip_prefix("pub(super) "))
            });
            let rest = rest.unwrap_or(line).strip_prefix("mod ")?;
            rest.strip_suffix(';').map(str::to_owned)
        })
        .collect();
    let starts = |first: &str| {
        first == "crate" || first == "super" || first == "self" || children.contains(first)
    };
    let mut found = Vec::new();
    // `use` statements, which may span lines.
    let mut rest = code.as_str();
    while let Some(at) = rest.find("use ") {
        let before = rest[..at].chars().next_back();
        let line = code[..code.len() - rest.len() + at].lines().count().max(1);
        rest = &rest[at + 4..];
        if before.is_some_and(is_word) {
            continue;
        }
        let Some(end) = rest.find(';') else { break };
        let tree = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        let mut paths = Vec::new();
        expand(&[], &tree, &mut paths);
        found.extend(
            paths
                .into_iter()
                .filter(|p| p.first().is_some_and(|f| starts(f)))
                .map(|p| (line, p)),
        );
    }
    // Paths written in the code: `crate::a::b`, `super::x`, `child::f`.
    for (n, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if !is_word(chars[i]) || (i > 0 && (is_word(chars[i - 1]) || chars[i - 1] == ':')) {
                i += 1;
                continue;
            }
            let mut path = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_word(chars[j]) {
                    j += 1;
                }
                path.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                    j += 2;
                    if !chars.get(j).is_some_and(|c| is_word(*c)) {
                        break;
                    }
                } else {
                    break;
                }
            }
            if path.len() > 1 && starts(&path[0]) && !line.trim_start().starts_with("use ") {
                found.push((n + 1, path));
            }
            i = j.max(i + 1);
        }
    }
    found
}

struct Edge {
    from: Module,
    to: Module,
    file: String,
    line: usize,
}

/// The module-to-module edges of a crate: each named path resolved to the deepest module that
/// is a file of the crate.
fn edges(sources: &[Source]) -> Vec<Edge> {
    let modules: BTreeSet<&Module> = sources.iter().map(|s| &s.module).collect();
    let mut out = Vec::new();
    for source in sources {
        for (line, path) in named_paths(&source.text) {
            let mut absolute: Module = Vec::new();
            let mut rest = path.as_slice();
            match path[0].as_str() {
                "crate" => rest = &path[1..],
                "super" | "self" => {
                    absolute = source.module.clone();
                    while let Some(first) = rest.first() {
                        match first.as_str() {
                            "super" => {
                                absolute.pop();
                            }
                            "self" => {}
                            _ => break,
                        }
                        rest = &rest[1..];
                    }
                }
                _ => absolute = source.module.clone(),
            }
            absolute.extend(rest.iter().cloned());
            let Some(target) = (0..=absolute.len())
                .rev()
                .map(|n| absolute[..n].to_vec())
                .find(|m| modules.contains(m))
            else {
                continue;
            };
            if target != source.module {
                out.push(Edge {
                    from: source.module.clone(),
                    to: target,
                    file: source.file.clone(),
                    line,
                });
            }
        }
    }
    out
}

fn show(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// Imports from a layer above the importer's.
fn upward(sources: &[Source], layers: &[&[&str]]) -> Vec<String> {
    let layer_of = |module: &Module| {
        let top = module.first().map_or("lib", String::as_str);
        layers.iter().position(|layer| layer.contains(&top))
    };
    let mut found = Vec::new();
    for source in sources {
        if layer_of(&source.module).is_none() {
            found.push(format!("{}: in no layer", source.file));
        }
    }
    // The crate root declares and re-exports every module: it is the map, not a layer's code.
    for edge in edges(sources).into_iter().filter(|e| !e.from.is_empty()) {
        if let (Some(own), Some(theirs)) = (layer_of(&edge.from), layer_of(&edge.to))
            && theirs > own
        {
            found.push(format!(
                "{}:{} (layer {own}) names {} (layer {theirs})",
                edge.file,
                edge.line,
                show(&edge.to)
            ));
        }
    }
    found
}

/// Circles between the modules of one folder: for each edge between two files, the two
/// children of their nearest common folder that hold them (a folder's own `mod.rs` and its
/// children naming each other is a module and its parts, not a circle).
fn circles(sources: &[Source]) -> Vec<String> {
    let mut graph: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for edge in edges(sources) {
        let common = edge
            .from
            .iter()
            .zip(&edge.to)
            .take_while(|(a, b)| a == b)
            .count();
        if common == edge.from.len() || common == edge.to.len() {
            continue;
        }
        graph
            .entry(edge.from[..=common].to_vec())
            .or_default()
            .entry(edge.to[..=common].to_vec())
            .or_insert_with(|| format!("{}:{}", edge.file, edge.line));
    }
    // A module is in a circle when it reaches itself.
    let mut found = BTreeMap::new();
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(Module, Vec<String>)> = vec![(start.clone(), Vec::new())];
        while let Some((at, trail)) = stack.pop() {
            for (next, place) in graph.get(&at).into_iter().flatten() {
                let mut trail = trail.clone();
                trail.push(format!("{} → {} ({place})", show(&at), show(next)));
                if next == start {
                    // Each circle once, whichever of its modules the walk started from.
                    let mut members: Vec<&str> = trail.iter().map(String::as_str).collect();
                    members.sort_unstable();
                    let key = members.join("|");
                    found.entry(key).or_insert_with(|| trail.join(", "));
                    break;
                }
                if seen.insert(next.clone()) {
                    stack.push((next.clone(), trail));
                }
            }
        }
    }
    found.into_values().collect()
}

fn too_long(sources: &[Source]) -> Vec<String> {
    sources
        .iter()
        .filter(|s| s.text.lines().count() > MAX_LINES)
        .map(|s| format!("{}: {} lines", s.file, s.text.lines().count()))
        .collect()
}

fn check(name: &str, sources: &[Source], layers: &[&[&str]]) {
    assert!(sources.len() > 20, "the walk found {name}'s sources");
    let upward = upward(sources, layers);
    assert!(
        upward.is_empty(),
        "{name}: upward imports:\n{}",
        upward.join("\n")
    );
    let circles = circles(sources);
    assert!(
        circles.is_empty(),
        "{name}: circles:\n{}",
        circles.join("\n")
    );
    let long = too_long(sources);
    assert!(
        long.is_empty(),
        "{name}: split these by job (STYLE.md, Layout): {long:?}"
    );
}

#[test]
fn the_core_is_in_layers_without_circles() {
    check("core", &crate_sources("core"), CORE);
}

#[test]
fn the_native_host_is_in_layers_without_circles() {
    check("host-native", &crate_sources("host-native"), HOST);
}

#[test]
fn the_web_bindings_stay_small() {
    let long = too_long(&crate_sources("host-web"));
    assert!(long.is_empty(), "{long:?}");
}

/// The real tree with one file's text added to.
fn planted(krate: &str, file: &str, line: &str) -> Vec<Source> {
    let mut sources = crate_sources(krate);
    let at = sources.iter_mut().find(|s| s.file == file).unwrap();
    at.text = format!("{line}\n{}", at.text);
    sources
}

#[test]
fn an_upward_import_planted_in_the_host_is_found() {
    let sources = planted("host-native", "os/files.rs", "use crate::faces::cli::Cli;");
    let found = upward(&sources, HOST);
    assert_eq!(
        found,
        vec!["os/files.rs:1 (layer 0) names faces::cli (layer 3)"]
    );
    let sources = planted(
        "core",
        "ledger/mod.rs",
        "fn f() { crate::commands::run(); }",
    );
    assert_eq!(upward(&sources, CORE).len(), 1);
}

#[test]
fn a_circle_planted_in_a_folder_is_found() {
    // `query` already reads `pass`; `pass` naming `query` closes a circle.
    let sources = planted(
        "host-native",
        "ops/mirror/pass/mod.rs",
        "use super::query::Filters;",
    );
    let found = circles(&sources);
    assert!(
        found
            .iter()
            .any(|c| c.contains("ops::mirror::pass → ops::mirror::query")),
        "{found:?}"
    );
    // Between top-level modules of one layer of the core, through a child's path.
    let sources = planted("core", "records/mod.rs", "use crate::notes::Vault;");
    let sources: Vec<Source> = sources
        .into_iter()
        .map(|mut s| {
            if s.file == "notes/mod.rs" {
                s.text
                    .push_str("\nfn g() { crate::records::stored::x(); }\n");
            }
            s
        })
        .collect();
    assert!(!circles(&sources).is_empty());
}

#[test]
fn a_module_and_its_parts_are_not_a_circle() {
    let sources = [
        source("lib.rs", "mod a;"),
        source(
            "a/mod.rs",
            "mod x;\nmod y;\npub use x::X;\nfn f() { y::g(); }",
        ),
        source("a/x.rs", "use super::*;\npub struct X;"),
        source("a/y.rs", "use crate::a::x::X;\npub fn g() {}"),
    ];
    assert!(circles(&sources).is_empty());
    let mut sources = sources;
    sources[2] = source("a/x.rs", "use super::{y::g, Z};\npub struct X;");
    assert_eq!(circles(&sources).len(), 1, "x and y name each other");
}

#[test]
fn a_file_past_600_lines_is_found() {
    let text = "fn f() {}\n".repeat(MAX_LINES + 1);
    let mut sources = crate_sources("host-native");
    sources.push(source("ops/planted.rs", &text));
    assert_eq!(
        too_long(&sources).len(),
        1 + too_long(&crate_sources("host-native")).len()
    );
    assert!(
        too_long(&sources)
            .iter()
            .any(|l| l.starts_with("ops/planted.rs"))
    );
}

#[test]
fn use_trees_are_expanded() {
    let mut out = Vec::new();
    expand(&[], "crate::{a::{b, c as d}, e}", &mut out);
    assert_eq!(
        out,
        vec![
            vec!["crate", "a", "b"],
            vec!["crate", "a", "c"],
            vec!["crate", "e"]
        ]
    );
}
