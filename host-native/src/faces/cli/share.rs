//! `baton share` on the command line, and what a person checks before sharing anything: the
//! preview of every replacement the redaction makes.

use super::Output;
use crate::faces::cli::args::{ShareArgs, ShareFormat};
use crate::faces::table::{Column, Fit, Table};
use crate::ops::share::{Choices, Format, Subject};
use baton_core::Error;
use baton_core::share::redact::{Profile, Replacement};
use std::path::{Path, PathBuf};

/// What a redaction replaced, as a person checks it before sharing.
pub(crate) fn preview(
    replacements: &[Replacement],
    profile: Profile,
    style: &crate::faces::table::Style,
) -> Output {
    let total: usize = replacements.iter().map(|r| r.count).sum();
    let mut human = format!(
        "[ok] Redaction preview ({}): {} value(s), {total} replacement(s); nothing was written",
        serde_json::to_value(profile)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        replacements.len()
    );
    let mut table = Table::new(vec![
        Column::text("KIND"),
        Column::text("PLACEHOLDER"),
        Column::number("TIMES"),
        Column::text("VALUE").cut(Fit::End),
    ]);
    for r in replacements {
        table.row(vec![
            r.kind.name().into(),
            r.placeholder.clone().into(),
            r.count.to_string().into(),
            r.value.clone().into(),
        ]);
    }
    table.append_to(&mut human, style);
    Output {
        human,
        json:
            serde_json::json!({ "profile": profile, "replacements": replacements, "total": total })
                .into(),
    }
}

/// The password that locks the file: from `--password-file`, else `BATON_SHARE_PASSWORD`,
/// else asked twice on the terminal.
fn password(args: &ShareArgs) -> Result<Option<String>, Error> {
    if let Some(file) = &args.password_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| Error::store_io("read", &file.display().to_string(), e))?;
        let first = text.lines().next().unwrap_or_default().to_owned();
        return Ok(Some(first));
    }
    if !args.password {
        return Ok(None);
    }
    if let Ok(given) = crate::os::env::var("BATON_SHARE_PASSWORD") {
        crate::os::warnings::warn("the password is BATON_SHARE_PASSWORD's (not asked)");
        return Ok(Some(given));
    }
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt).map_err(|e| {
            Error::invalid(
                "password",
                format!("no terminal to ask the password on ({e}): give --password-file FILE or set BATON_SHARE_PASSWORD"),
            )
        })
    };
    let first = ask("Password for the shared file: ")?;
    if ask("The same password again: ")? != first {
        return Err(Error::invalid(
            "password",
            "the two passwords differ: nothing was written",
        ));
    }
    Ok(Some(first))
}

/// The form asked for, else the one the output's extension names, else HTML.
fn format_of(args: &ShareArgs) -> Format {
    match args.format {
        Some(ShareFormat::Html) => Format::Html,
        Some(ShareFormat::Markdown) => Format::Markdown,
        Some(ShareFormat::Json) => Format::Json,
        None => match args
            .output
            .as_deref()
            .and_then(Path::extension)
            .and_then(|e| e.to_str())
        {
            Some("md" | "markdown") => Format::Markdown,
            Some("json") => Format::Json,
            _ => Format::Html,
        },
    }
}

/// `baton share`: gathers, redacts and writes one file (or previews the redaction).
pub(crate) fn share(cli: &crate::faces::cli::Cli, args: &ShareArgs) -> Result<Output, Error> {
    let profile: Profile = args.redact.parse()?;
    let format = format_of(args);
    baton_core::share::make::lockable(format, args.password || args.password_file.is_some())?;
    let ledger = crate::faces::cli::ledger_for(cli).ok();
    let mut words = args.redact_words.clone();
    if let Some(ledger) = &ledger {
        words.extend(crate::ops::share::configured_words(ledger.dir())?);
    }
    let subject = match (&args.reference, &args.session, &args.search) {
        (_, Some(session), _) => Subject::Session(session.clone()),
        (_, _, Some(query)) => Subject::Search {
            query: query.clone(),
            filters: crate::ops::mirror::query::Filters::read(&args.filters.filter())?,
            limit: i64::from(args.limit),
        },
        (Some(reference), _, _) => Subject::Conversation(reference.clone()),
        (None, None, None) => {
            return Err(Error::invalid(
                "reference",
                "name what to share: a conversation, --session ID or --search WORDS",
            ));
        }
    };
    let locking = args.password || args.password_file.is_some();
    // A file that is there is refused before anything is gathered or a password asked.
    let early = args.output.clone().or_else(|| {
        locking.then(|| {
            PathBuf::from(crate::ops::share::file_name(
                crate::ops::share::LOCKED_NAME,
                format,
            ))
        })
    });
    if let Some(path) = early.filter(|p| p.as_os_str() != "-" && !args.preview)
        && path.exists()
        && !args.force
    {
        return Err(crate::ops::share::exists(&path));
    }
    let index = crate::faces::cli::index_path(cli, &args.index.location)?;
    if args.index.sync {
        crate::faces::cli::open_query(cli, &args.index)?;
    }
    let shared = crate::ops::share::gather(ledger.as_ref(), &index, &subject)?;
    let choices = Choices {
        format,
        profile,
        words,
        keep: args.keep.clone(),
        lock: None,
        now: crate::os::system::now()?,
        made_by: format!("Baton {}", env!("CARGO_PKG_VERSION")),
    };
    if args.preview {
        let replacements = crate::ops::share::preview(shared, &choices)?;
        return Ok(preview(
            &replacements,
            profile,
            &crate::faces::table::Style::for_stdout(cli.color),
        ));
    }
    let made = crate::ops::share::make(shared, choices, password(args)?)?;
    // A locked file's name says nothing of what it holds.
    let path: PathBuf = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(crate::ops::share::file_name(
            if made.locked {
                crate::ops::share::LOCKED_NAME
            } else {
                &made.title
            },
            format,
        ))
    });
    let replaced: usize = made.replacements.iter().map(|r| r.count).sum();
    let json = serde_json::json!({
        "path": (path.as_os_str() != "-").then(|| path.display().to_string()),
        "format": format,
        "bytes": made.text.len(),
        "title": made.title,
        "conversations": made.conversations,
        "messages": made.messages,
        "hits": made.hits,
        "timeline_entries": made.events,
        "locked": made.locked,
        "redaction": {"profile": profile, "values": made.replacements.len(), "replacements": replaced},
    });
    if path.as_os_str() == "-" {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        out.write_all(made.text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| Error::store_io("write", "standard output", e))?;
        return Ok(Output {
            human: String::new(),
            json: serde_json::Value::Null.into(),
        });
    }
    crate::ops::share::write_new(&path, made.text.as_bytes(), args.force)?;
    let mut held = Vec::new();
    if made.events > 0 {
        held.push(format!("{} timeline entries", made.events));
    }
    if made.hits > 0 {
        held.push(format!("{} hit(s)", made.hits));
    }
    if made.conversations > 0 || held.is_empty() {
        held.push(format!(
            "{} conversation(s), {} message(s)",
            made.conversations, made.messages
        ));
    }
    let mut human = format!(
        "[ok] Shared \"{}\" as {} ({}; {})",
        shorten_title(&made.title),
        path.display(),
        crate::human_bytes(made.text.len() as u64),
        held.join(", ")
    );
    human.push_str(&format!(
        "\nRedaction {}: {} value(s), {replaced} replacement(s){}",
        json["redaction"]["profile"].as_str().unwrap_or_default(),
        made.replacements.len(),
        if made.replacements.is_empty() {
            String::new()
        } else {
            "; `--preview` lists them, `--keep VALUE` leaves one as it is".to_owned()
        }
    ));
    if made.locked {
        human.push_str("\nLocked with a password: the file holds none of the conversation in clear (only its date and redaction profile); send the password another way.");
    }
    Ok(Output {
        human,
        json: json.into(),
    })
}

fn shorten_title(title: &str) -> String {
    crate::faces::table::shorten(title, 60, Fit::End)
}
