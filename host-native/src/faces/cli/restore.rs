//! `baton transcripts restore` on the command line: a Claude Code or Codex session put back
//! where its agent looks, or a chat service's conversation (which has no import) written out
//! as a file of its own.

use crate::faces::cli::{Output, index_path};
use baton_core::Error;

/// `baton transcripts restore`.
pub(crate) fn restore(
    cli: &crate::faces::cli::Cli,
    args: &crate::faces::cli::args::TranscriptsRestoreArgs,
) -> Result<Output, Error> {
    let path = index_path(cli, &args.location)?;
    let connection = crate::index::open_existing(&path)?;
    let row = crate::ops::mirror::query::resolve(&connection, &path, &args.reference)?;
    if crate::ops::share::restores_as_file(&row) {
        return as_file(args, &path, &row);
    }
    let restored = crate::ops::mirror::restore::restore(
        &connection,
        &path,
        &args.reference,
        crate::ops::mirror::restore::RestoreOptions {
            force: args.force,
            allow_masked: args.allow_masked,
        },
    )?;
    let mut human = format!(
        "[ok] Restored {} session {} ({} file(s)):",
        restored.provider,
        restored.session,
        restored.files.len()
    );
    for file in &restored.files {
        human.push_str(&format!(
            "\n  {} ({} lines, {} bytes){}",
            file.path,
            file.lines,
            file.bytes,
            file.kept_old
                .as_deref()
                .map(|old| format!("; the file that was there is now {old}"))
                .unwrap_or_default()
        ));
    }
    if !restored.masked.is_empty() {
        human.push_str(&format!(
            "\n{} line(s) written as kept (masked), not as they were",
            restored.masked.len()
        ));
    }
    human.push_str(&format!("\nResume it: {}", restored.resume));
    Ok(Output {
        human,
        json: crate::faces::cli::to_json(&restored)?.into(),
    })
}

/// A chat service's conversation as one file in the current folder (HTML unless `--format
/// markdown`), nothing left out: it is the person's own copy.
fn as_file(
    args: &crate::faces::cli::args::TranscriptsRestoreArgs,
    index: &std::path::Path,
    row: &crate::ops::mirror::query::ConversationRow,
) -> Result<Output, Error> {
    use crate::ops::share::{Choices, Format, Subject};
    let shared =
        crate::ops::share::gather(None, index, &Subject::Conversation(row.provider_id.clone()))?;
    let format = match args.format {
        crate::faces::cli::args::RestoreFormat::Markdown => Format::Markdown,
        crate::faces::cli::args::RestoreFormat::Html => Format::Html,
    };
    let made = crate::ops::share::make(
        shared,
        Choices {
            format,
            profile: baton_core::share::redact::Profile::None,
            words: Vec::new(),
            keep: Vec::new(),
            lock: None,
            now: crate::os::system::now()?,
            made_by: format!("Baton {}", env!("CARGO_PKG_VERSION")),
        },
        None,
    )?;
    let file = std::path::PathBuf::from(crate::ops::share::file_name(&made.title, format));
    crate::ops::share::write_new(&file, made.text.as_bytes(), args.force)?;
    Ok(Output {
        human: format!(
            "[ok] {} has no import to put this conversation back into: written as {} ({} message(s)), to read or to paste into a new chat",
            row.provider,
            file.display(),
            made.messages
        ),
        json: serde_json::json!({
            "provider": row.provider,
            "conversation": row.provider_id,
            "written": file.display().to_string(),
            "format": format,
            "messages": made.messages,
        })
        .into(),
    })
}
