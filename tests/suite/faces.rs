//! One owner per operation: every operation both the CLI and the MCP server offer runs through
//! the same `ops` function (for the session commands, `ops::command::run` with its steps around
//! the core: liveness, defaults, joining the agent's session, the process tie, cost), and
//! neither face reaches the core's commands, the engine or the store's writes another way. A
//! new MCP tool fails here until it is placed in the table.

use baton_tests::baton;
use std::path::Path;

/// The session commands' one owner.
const COMMAND: &str = "ops::command::run";

/// Each operation both faces offer: its MCP tool, its CLI command, the CLI file that runs it,
/// and the `ops` function both call.
const SHARED: &[(&str, &str, &str, &str)] = &[
    ("start_work_session", "start", "cli/ledger.rs", COMMAND),
    ("end_work_session", "end", "cli/ledger.rs", COMMAND),
    ("list_work_sessions", "list", "cli/ledger.rs", COMMAND),
    ("get_work_session", "show", "cli/ledger.rs", COMMAND),
    ("brief_work_session", "brief", "cli/ledger.rs", COMMAND),
    ("report_work_session", "report", "cli/ledger.rs", COMMAND),
    ("declare_dependencies", "depend", "cli/ledger.rs", COMMAND),
    ("pause_work_session", "pause", "cli/ledger.rs", COMMAND),
    ("unpause_work_session", "unpause", "cli/ledger.rs", COMMAND),
    ("get_context_health", "health", "cli/ledger.rs", COMMAND),
    ("get_timeline", "timeline", "cli/ledger.rs", COMMAND),
    ("list_attention", "attention", "cli/ledger.rs", COMMAND),
    (
        "mark_attention_done",
        "attention done",
        "cli/ledger.rs",
        COMMAND,
    ),
    ("add_mission", "mission add", "cli/ledger.rs", COMMAND),
    (
        "approve_mission",
        "mission approve",
        "cli/ledger.rs",
        COMMAND,
    ),
    (
        "set_constitution",
        "constitution set",
        "cli/ledger.rs",
        COMMAND,
    ),
    ("index_repository", "index", "cli/ledger.rs", COMMAND),
    ("open_ambiguity", "ambiguity open", "cli/ledger.rs", COMMAND),
    (
        "resolve_ambiguity",
        "ambiguity resolve",
        "cli/ledger.rs",
        COMMAND,
    ),
    (
        "record_decision",
        "decision record",
        "cli/ledger.rs",
        COMMAND,
    ),
    (
        "search_transcripts",
        "search",
        "cli/transcripts.rs",
        "ops::mirror::query::search",
    ),
    (
        "list_transcripts",
        "transcripts list",
        "cli/transcripts.rs",
        "ops::mirror::query::list",
    ),
    (
        "get_transcript",
        "transcripts show",
        "cli/transcripts.rs",
        "ops::mirror::query::show",
    ),
    (
        "get_usage",
        "usage",
        "cli/usage.rs",
        "ops::mirror::usage::report",
    ),
    (
        "get_budgets",
        "budget status",
        "cli/budget.rs",
        "ops::budget::status",
    ),
    (
        "get_usage_windows",
        "usage blocks",
        "cli/usage.rs",
        "ops::mirror::usage::report",
    ),
    (
        "session_store",
        "record store",
        "cli/records.rs",
        "ops::records::store",
    ),
    (
        "session_list",
        "record list",
        "cli/records.rs",
        "ops::records::list_records",
    ),
    (
        "session_resume",
        "record get",
        "cli/records.rs",
        "ops::records::links_of",
    ),
    (
        "session_export",
        "record export",
        "cli/records.rs",
        "ops::records::export_document",
    ),
];

/// What only an `ops` owner may call: the engine's steps, the core's command pipeline and the
/// store's writes.
const BELOW_THE_OWNERS: &[&str] = &[
    "engine::run(",
    "tie_process(",
    "run_deferred(",
    "run_as(",
    "join_calling_agents_session(",
    "fill_defaults(",
    "commands::execute(",
    "commands::prepare(",
    "commands::run(",
    ".append_lines(",
    ".lock_session(",
];

fn faces_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-native/src/faces")
}

#[allow(clippy::disallowed_methods)]
fn read(relative: &str) -> String {
    std::fs::read_to_string(faces_dir().join(relative)).unwrap()
}

/// The sources of one face's folder, with their names.
#[allow(clippy::disallowed_methods)]
fn face_sources(face: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(faces_dir().join(face)).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let name = format!("{face}/{}", path.file_name().unwrap().to_string_lossy());
            found.push((name, std::fs::read_to_string(&path).unwrap()));
        }
    }
    found
}

/// The body of the MCP tool `tool`: from its `async fn` to the next tool, or its row in a
/// `…_tools!` table (to the next row). A row of a table whose macro runs every row through
/// `tool_body!` (the session tools) is said to end in `tool_body!`.
fn tool_body(sources: &[(String, String)], tool: &str) -> Option<String> {
    sources.iter().find_map(|(_, text)| {
        if let Some(start) = text.find(&format!("async fn {tool}(")) {
            let rest = &text[start..];
            let end = rest.find("#[tool(").unwrap_or(rest.len());
            return Some(rest[..end].to_owned());
        }
        let row = text.find(&format!("\n    {tool}("))? + 1;
        let table = text[..row].rfind("_tools! {")?;
        let name = &text[text[..table].rfind('\n')? + 1..table];
        let rest = &text[row..];
        let next_row = rest
            .match_indices("\n    ")
            .find(|(at, _)| rest[at + 5..].starts_with(|c: char| c.is_ascii_lowercase()));
        let end = next_row
            .map(|(at, _)| at)
            .or_else(|| rest.find("\n}\n"))
            .unwrap_or(rest.len());
        let definition = text.find(&format!("macro_rules! {name}_tools"))?;
        let definition = &text[definition..];
        let definition = &definition[..definition.find("\n}\n").unwrap_or(definition.len())];
        let calls = definition.contains("tool_body!(");
        Some(format!(
            "{}{}",
            &rest[..end],
            if calls { " tool_body!" } else { "" }
        ))
    })
}

/// Calls of what lies below the owners, outside comments and tests.
fn reaches_below(sources: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (name, text) in sources {
        for (n, line) in text
            .lines()
            .take_while(|l| l.trim() != "#[cfg(test)]")
            .enumerate()
        {
            let code = line.split("//").next().unwrap_or("");
            for below in BELOW_THE_OWNERS {
                if code.contains(below) {
                    found.push(format!("{name}:{}: {below}", n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn every_mcp_tool_is_an_operation_of_the_table() {
    let markdown = baton::faces::mcp::tools_markdown();
    let tools: Vec<&str> = markdown
        .lines()
        .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`'))
        .collect();
    assert!(tools.len() >= SHARED.len(), "{tools:?}");
    for tool in &tools {
        assert!(
            SHARED.iter().any(|(t, ..)| t == tool),
            "the MCP tool `{tool}` is in no row of SHARED: name its CLI command and its owner"
        );
    }
    for (tool, ..) in SHARED {
        assert!(
            tools.contains(tool),
            "SHARED names `{tool}`, which MCP no longer offers"
        );
    }
}

#[test]
fn every_cli_command_of_the_table_exists() {
    let dir = tempfile::tempdir().unwrap();
    for (_, command, ..) in SHARED {
        let mut cli = baton(dir.path());
        cli.args(command.split(' ')).arg("--help");
        let out = cli.output().unwrap();
        assert!(out.status.success(), "`baton {command} --help` failed");
    }
}

#[test]
fn both_faces_run_each_operation_through_its_owner() {
    let mcp = face_sources("mcp");
    // The session tools share one tail, which runs the owner.
    let mcp_mod = read("mcp/mod.rs");
    assert!(mcp_mod.contains(&format!("crate::{COMMAND}(")));
    for (tool, command, cli_file, owner) in SHARED {
        let body = tool_body(&mcp, tool).unwrap_or_else(|| panic!("no fn for the tool {tool}"));
        let through_owner = body.contains(&format!("crate::{owner}("))
            || (*owner == COMMAND && (body.contains("tool_body!") || body.contains(".run(")));
        assert!(through_owner, "the MCP tool {tool} does not call {owner}");
        assert!(
            read(cli_file).contains(&format!("crate::{owner}(")),
            "`baton {command}` ({cli_file}) does not call {owner}"
        );
    }
}

#[test]
fn neither_face_reaches_below_the_owners() {
    let mut found = reaches_below(&face_sources("cli"));
    found.extend(reaches_below(&face_sources("mcp")));
    assert!(found.is_empty(), "faces reaching past ops: {found:?}");
}

#[test]
fn a_face_reaching_below_the_owners_is_found() {
    let mut sources = face_sources("cli");
    sources.push((
        "cli/planted.rs".to_owned(),
        "fn f() { let _ = engine::run_as(&ledger, &request, &acting); }\nfn g() { engine::run(); }"
            .to_owned(),
    ));
    assert_eq!(
        reaches_below(&sources),
        vec![
            "cli/planted.rs:1: run_as(",
            "cli/planted.rs:2: engine::run("
        ]
    );
    let planted = [(
        "mcp/planted.rs".to_owned(),
        "async fn get_usage(&self) { report(); }\n#[tool(".to_owned(),
    )];
    let body = tool_body(&planted, "get_usage").unwrap();
    assert!(!body.contains("crate::ops::mirror::usage::report("));
}
