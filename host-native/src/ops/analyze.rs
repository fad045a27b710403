//! `baton analyze`: the web page's analysis on the command line — the same core analyzer fed
//! the same chunks, so both print the same figures for the same files. Folders are walked for
//! transcripts, exports (`.json`, `.zip`) and ledgers.

use baton_core::Error;
use baton_core::analyzer::{Analyzer, ListQuery, text};
use baton_core::transcripts::conversation::ReadOptions;
use baton_core::transcripts::ingest::{INPUT_EXTENSIONS, Taken};
use serde_json::{Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Files under `path` the analyzer can read (a file is taken as given).
pub fn collect(path: &Path, into: &mut Vec<PathBuf>) {
    if path.is_dir() {
        crate::os::files::files_under(path, &INPUT_EXTENSIONS, into);
    } else {
        into.push(path.to_owned());
    }
}

/// Feeds one file to the analyzer in chunks, reporting bytes read to `progress`.
pub fn feed(
    analyzer: &mut Analyzer,
    path: &Path,
    progress: impl FnMut(u64),
) -> Result<baton_core::analyzer::FileSummary, Error> {
    analyzer.begin(&path.display().to_string());
    // A database's log, read before it, so what the agent has not checkpointed is in.
    if let Some(log) = crate::os::files::log_beside(path) {
        analyzer.set_log(log)?;
    }
    let read = crate::os::files::read_in_chunks(path, |chunk| analyzer.push(chunk), progress);
    if let Err(e) = read {
        analyzer.cancel();
        return Err(e);
    }
    analyzer.finish()
}

/// How many files get a line each unless `verbose` asks for all.
const FILE_LINES: usize = 20;

/// What `baton analyze` was asked.
#[derive(Debug)]
pub struct Request {
    /// Files and folders.
    pub paths: Vec<PathBuf>,
    /// Where to write the charts as SVG files.
    pub svg_dir: Option<PathBuf>,
    /// Words to search the conversations for.
    pub search: Option<String>,
    /// How many conversations to list.
    pub list: usize,
    /// Keep the messages a provider hides from its own reader.
    pub include_hidden: bool,
    /// A line per file however many (else only up to 20 files).
    pub verbose: bool,
    /// Print this conversation (its listing number) in full.
    pub show: Option<usize>,
    /// Write the listed conversations here (Markdown, or JSON for `.json`).
    pub export: Option<PathBuf>,
}

/// Runs the analysis; returns the human lines and the JSON answer.
pub fn run(request: &Request) -> Result<(String, Value), Error> {
    let mut files = Vec::new();
    for path in &request.paths {
        collect(path, &mut files);
    }
    // Files named together are judged as the page judges a pick: an export's other files
    // beside its conversations file are passed over; the files that say where the
    // transcripts below them were made (VS Code's `workspace.json`) are read first.
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    let taken = baton_core::transcripts::ingest::taken_from_folder(&names);
    let skipped = baton_core::transcripts::providers::skipped_files(&names);
    let (mut first, mut rest) = (Vec::new(), Vec::new());
    for ((path, taken), skip) in files.into_iter().zip(taken).zip(skipped) {
        match taken {
            Taken::First => first.push(path),
            Taken::Aside => {}
            _ if !skip => rest.push(path),
            _ => {}
        }
    }
    first.append(&mut rest);
    let files = first;
    let total: u64 = files
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    // Many files or many bytes: one progress line on a terminal, then the summary.
    let show_progress =
        std::io::stderr().is_terminal() && (total > 32 * 1024 * 1024 || files.len() > FILE_LINES);
    let mut analyzer = Analyzer::new();
    analyzer.set_read_options(ReadOptions {
        include_hidden: request.include_hidden,
    });
    let mut human = Vec::new();
    let every_file = request.verbose || files.len() <= FILE_LINES;
    let mut errors = Vec::new();
    let mut first_error: Option<Error> = None;
    let mut done = 0u64;
    for (number, path) in files.iter().enumerate() {
        let shown = path.display().to_string();
        let count = format!("{}/{} files, ", number + 1, files.len());
        let result = feed(&mut analyzer, path, |n| {
            done += n;
            if show_progress {
                crate::os::files::draw_progress("Analyzing", &count, done, total);
            }
        });
        match result {
            Ok(summary) if every_file => human.push(text::file_line(&shown, &summary)),
            Ok(_) => {}
            Err(err) => {
                // Files that could not be read are always named.
                human.push(text::file_error_line(&shown, &err));
                errors.push(json!({ "path": shown, "error": err }));
                first_error.get_or_insert(err);
            }
        }
    }
    if show_progress {
        crate::os::files::clear_progress();
    }
    // A tree of files loaded last (OpenCode's storage folder) is read whole now; it gets a
    // line as a file does.
    for tree in analyzer.settle() {
        human.push(text::file_line(&tree.name, &tree));
    }
    let baton_core::analyzer::Report { overview, charts } = analyzer.report();
    if !every_file {
        let by_format: Vec<String> = overview
            .formats
            .iter()
            .map(|(format, n)| format!("{n} {format}"))
            .collect();
        human.insert(
            0,
            format!(
                "[ok] Read {} file(s): {} (one line per file with --verbose)",
                files.len(),
                by_format.join(", ")
            ),
        );
    }
    human.extend(text::overview_lines(&overview));
    let list = analyzer.list(&ListQuery {
        search: request.search.clone().unwrap_or_default(),
        // A search lists ten matches unless told how many; a plain run lists none.
        limit: if request.list == 0 { 10 } else { request.list },
        ..ListQuery::default()
    });
    if request.search.is_some() || request.list > 0 {
        human.extend(text::list_lines(&list, request.search.as_deref()));
    }
    let mut shown_conversation = Value::Null;
    if let Some(number) = request.show {
        let view = analyzer.view(number, None)?;
        human.push(String::new());
        human.push(
            baton_core::analyzer::export::markdown(&view)
                .trim_end()
                .to_owned(),
        );
        shown_conversation = serde_json::to_value(&view)
            .map_err(|e| Error::internal(format!("encoding the conversation: {e}")))?;
    }
    let mut exported = Value::Null;
    if let Some(path) = &request.export {
        let indexes: Vec<usize> = list.rows.iter().map(|row| row.head.index).collect();
        let shown = path.display().to_string();
        let as_json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        let body = if as_json {
            let conversations: Vec<Value> = indexes
                .iter()
                .filter_map(|&i| analyzer.conversation_json(i).ok())
                .filter_map(|text| serde_json::from_str(&text).ok())
                .collect();
            Value::Array(conversations).to_string()
        } else {
            indexes
                .iter()
                .filter_map(|&i| analyzer.view(i, None).ok())
                .map(|view| baton_core::analyzer::export::markdown(&view))
                .collect::<Vec<_>>()
                .join("\n---\n\n")
        };
        crate::os::files::write_whole(path, body.as_bytes())
            .map_err(|e| Error::store_io("write", &shown, e))?;
        human.push(format!(
            "Exported {} conversation(s) to {shown} as {}",
            indexes.len(),
            if as_json { "JSON" } else { "Markdown" }
        ));
        exported = json!({ "path": shown, "conversations": indexes.len() });
    }
    let mut written = Vec::new();
    if let Some(dir) = &request.svg_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::store_io("create directory", &dir.display().to_string(), e))?;
        for (name, svg) in [
            ("activity", &charts.activity),
            ("models", &charts.models),
            ("tokens", &charts.tokens),
            ("lengths", &charts.lengths),
        ] {
            if svg.is_empty() {
                continue;
            }
            let path = dir.join(format!("{name}.svg"));
            crate::os::files::write_whole(&path, svg.as_bytes())
                .map_err(|e| Error::store_io("write", &path.display().to_string(), e))?;
            written.push(path.display().to_string());
        }
        human.push(format!("Charts written: {}", written.join(", ")));
    }
    let answer = json!({
        "files": analyzer.files(),
        "errors": errors,
        "overview": overview,
        "conversations": list,
        "charts_written": written,
        "shown": shown_conversation,
        "exported": exported,
    });
    if analyzer.files().is_empty()
        && let Some(mut err) = first_error
    {
        err.details = answer.as_object().cloned().unwrap_or_default();
        return Err(err);
    }
    Ok((human.join("\n"), answer))
}
