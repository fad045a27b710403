//! Other tools' transcripts on the command line: `baton inspect` and `baton usage`.

use crate::cli::args::{InspectArgs, UsageArgs};
use crate::cli::{Output, to_json};
use baton_core::Error;
use serde_json::Value;

/// Reads one file through the core's ingest (the same one `baton analyze` and the page use)
/// and summarizes it.
pub(crate) fn inspect_file(
    path: &std::path::Path,
) -> Result<baton_core::transcripts::inspect::Inspection, Error> {
    use baton_core::transcripts::inspect::Inspector;
    let mut inspector = Inspector::new(&path.display().to_string());
    crate::files::read_in_chunks(path, |chunk| inspector.push(chunk), |_| {})?;
    inspector.finish()
}

pub(crate) fn inspect(args: InspectArgs) -> Result<Output, Error> {
    let mut human = Vec::new();
    let mut files = Vec::new();
    let mut first_error = None;
    for path in &args.files {
        let shown = path.display().to_string();
        let result = inspect_file(path);
        match result {
            Ok(report) => {
                human.push(report.human_line(&shown));
                let mut value = to_json(&report)?;
                value["path"] = Value::String(shown);
                files.push(value);
            }
            Err(err) => {
                human.push(baton_core::analyzer::text::file_error_line(&shown, &err));
                files.push(serde_json::json!({ "path": shown, "error": err }));
                first_error.get_or_insert(err);
            }
        }
    }
    if let Some(err) = first_error {
        return Err(Error {
            details: serde_json::json!({ "files": files })
                .as_object()
                .cloned()
                .unwrap_or_default(),
            ..err
        });
    }
    Ok(Output {
        human: human.join("\n"),
        json: serde_json::json!({ "files": files, "total": files.len() }),
    })
}

pub(crate) fn usage(args: UsageArgs) -> Result<Output, Error> {
    let zone = crate::zone::resolve(args.timezone.as_deref())?;
    let day = |field: &str, text: Option<String>, end: bool| {
        text.map(|d| baton_core::time::parse_day_in(field, &d, end, &zone))
            .transpose()
    };
    let options = crate::usage::UsageOptions {
        group_by: args.group_by.into(),
        providers: args.provider.providers(),
        since: day("since", args.since, false)?,
        until: day("until", args.until, true)?,
        explicit_claude_dirs: !args.claude_dirs.is_empty(),
        explicit_codex_dirs: !args.codex_dirs.is_empty(),
        claude_dirs: if args.claude_dirs.is_empty() {
            crate::usage::default_claude_dirs()
        } else {
            args.claude_dirs
        },
        codex_dirs: if args.codex_dirs.is_empty() {
            crate::usage::default_codex_dirs()
        } else {
            args.codex_dirs
        },
        prices: args.prices,
        cost_mode: args.cost_mode.into(),
        zone: zone.clone(),
    };
    let report = crate::usage::report(&options)?;
    Ok(Output {
        human: baton_core::transcripts::usage::render_table(&report),
        json: to_json(&report)?,
    })
}
