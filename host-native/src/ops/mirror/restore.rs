//! `baton transcripts restore`: a kept Claude Code or Codex session written back where its
//! agent looks for it, byte for byte, from the lines the mirror kept (each at the offset it was
//! read at, so a line that differs from what its place held — masked at ingest — is known). It
//! never replaces a file that is there (unless forced, and then the old one is kept beside), and
//! says the command that resumes the session.

use baton_core::Error;
use baton_core::transcripts::Provider;
use rusqlite::Connection;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How a restore may go.
#[derive(Debug, Clone, Copy, Default)]
pub struct RestoreOptions {
    /// Replace a file that is there (kept beside it as `NAME.before-restore`).
    pub force: bool,
    /// Write lines that were masked at ingest as they were kept.
    pub allow_masked: bool,
}

/// A line that cannot come back byte for byte.
#[derive(Debug, Clone, Serialize)]
pub struct Differs {
    /// The file.
    pub file: String,
    /// Its line number (1 first).
    pub line: usize,
    /// Its byte offset in the file.
    pub offset: i64,
}

/// One file written back.
#[derive(Debug, Clone, Serialize)]
pub struct RestoredFile {
    /// Where.
    pub path: String,
    /// Its bytes.
    pub bytes: u64,
    /// Its lines.
    pub lines: usize,
    /// Where a file already there was kept (with `force`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_old: Option<String>,
}

/// What a restore did.
#[derive(Debug, Clone, Serialize)]
pub struct Restored {
    /// Whose session.
    pub provider: String,
    /// Its id.
    pub session: String,
    /// The files written.
    pub files: Vec<RestoredFile>,
    /// Lines written as kept rather than as they were (masked at ingest).
    pub masked: Vec<Differs>,
    /// The command that resumes it.
    pub resume: String,
}

/// The conversation `reference` names, written back (see the module).
pub fn restore(
    connection: &Connection,
    path: &Path,
    reference: &str,
    options: RestoreOptions,
) -> Result<Restored, Error> {
    let sql = |e| crate::index::failure("read the index", path, e);
    let row = super::query::resolve(connection, path, reference)?;
    let provider = Provider::named(&row.provider);
    if !matches!(provider, Some(Provider::ClaudeCode | Provider::Codex)) {
        return Err(Error::invalid(
            "conversation",
            format!(
                "{} keeps no session files Baton can put back (only Claude Code's and Codex's): `baton transcripts show {} > conversation.md` writes it out",
                row.provider, row.provider_id
            ),
        ));
    }
    let sources = super::query::sources_of(connection, path, row.id)?;
    let mut inflater = super::packing::Inflater::new();
    let mut files: Vec<(PathBuf, Vec<u8>, usize)> = Vec::new();
    let mut masked = Vec::new();
    let mut stored = connection
        .prepare("SELECT offset, raw FROM lines WHERE source = ?1 ORDER BY offset")
        .map_err(sql)?;
    for super::query::KeptSource {
        id: source,
        path: name,
        read_to,
    } in &sources
    {
        // Kept in chunks of whole lines, each at the offset it was read at.
        let chunks: Vec<(i64, Vec<u8>)> = stored
            .query_map([source], |r| Ok((r.get(0)?, r.get(1)?)))
            .and_then(|rows| rows.collect())
            .map_err(sql)?;
        let mut bytes = Vec::new();
        let mut lines = 0usize;
        for (n, (offset, raw)) in chunks.iter().enumerate() {
            let chunk = inflater
                .inflate(connection, raw)
                .map_err(|e| Error::internal(format!("a stored line would not inflate: {e}")))?;
            // The chunk held its place exactly when the first starts the file and each ends
            // where the next starts (the last where the read stopped): a masked line is longer
            // or shorter than the place it was read from.
            let end = chunks.get(n + 1).map_or(*read_to, |(next, _)| *next);
            let fits = (n > 0 || *offset == 0) && end == offset + chunk.len() as i64 + 1;
            let first_line = lines + 1;
            let mut named = false;
            for line in chunk.split(|b| *b == b'\n') {
                lines += 1;
                if !fits && contains(line, b"[masked:") {
                    named = true;
                    masked.push(Differs {
                        file: name.clone(),
                        line: lines,
                        offset: *offset,
                    });
                }
            }
            if !fits && !named {
                masked.push(Differs {
                    file: name.clone(),
                    line: first_line,
                    offset: *offset,
                });
            }
            bytes.extend_from_slice(&chunk);
            bytes.push(b'\n');
        }
        files.push((PathBuf::from(name), bytes, lines));
    }
    if files.is_empty() {
        return Err(Error::invalid(
            "conversation",
            format!(
                "no lines of {} are kept (the index holds its messages only): nothing to put back",
                row.provider_id
            ),
        ));
    }
    if !masked.is_empty() && !options.allow_masked {
        let first = &masked[0];
        return Err(Error::invalid(
            "allow_masked",
            format!(
                "{} line(s) were masked when kept (the first: line {} of {}), so they cannot come back as they were: add --allow-masked to write them as kept; nothing was written",
                masked.len(),
                first.line,
                first.file
            ),
        )
        .with(
            "masked",
            serde_json::to_value(&masked).unwrap_or_default(),
        ));
    }
    // Nothing is written unless every file can be.
    if !options.force
        && let Some((there, _, _)) = files.iter().find(|(p, _, _)| p.exists())
    {
        return Err(Error::invalid(
            "force",
            format!(
                "{} is there already: it was not replaced (add --force to keep it beside as {}.before-restore and write the kept one)",
                there.display(),
                there.display()
            ),
        )
        .with("path", there.display().to_string()));
    }
    let mut written = Vec::new();
    for (target, bytes, lines) in &files {
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::store::io_err("create", dir, e))?;
        }
        let mut kept_old = None;
        if target.exists() {
            let beside = PathBuf::from(format!("{}.before-restore", target.display()));
            std::fs::rename(target, &beside)
                .map_err(|e| crate::store::io_err("rename", target, e))?;
            kept_old = Some(beside.display().to_string());
        }
        crate::os::files::write_whole(target, bytes)
            .map_err(|e| crate::store::io_err("write", target, e))?;
        written.push(RestoredFile {
            path: target.display().to_string(),
            bytes: bytes.len() as u64,
            lines: *lines,
            kept_old,
        });
    }
    let resume = resume_command(provider, &row);
    Ok(Restored {
        provider: row.provider,
        session: row.provider_id,
        files: written,
        masked,
        resume,
    })
}

/// How to go back to a kept conversation in its agent.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Resume {
    /// The command that resumes it, when its files are where the agent looks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Why it cannot be resumed as it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

/// How to resume `row` in its agent (Claude Code and Codex sessions; `None` for the others):
/// the command, or, its file gone, that `baton transcripts restore` puts it back first.
pub fn resume_of(
    connection: &Connection,
    path: &Path,
    row: &super::query::ConversationRow,
) -> Result<Option<Resume>, Error> {
    let provider = Provider::named(&row.provider);
    if !matches!(provider, Some(Provider::ClaudeCode | Provider::Codex)) {
        return Ok(None);
    }
    let files: Vec<String> = super::query::sources_of(connection, path, row.id)?
        .into_iter()
        .map(|source| source.path)
        .collect();
    let gone = files.iter().filter(|f| !Path::new(f).exists()).count();
    // Claude Code resumes a session from its own folder: one not on this machine (the
    // session ran on another, or the folder moved) cannot be resumed here as it is.
    if provider == Some(Provider::ClaudeCode)
        && let Some(folder) = &row.project
        && !Path::new(folder).is_dir()
    {
        return Ok(Some(Resume {
            command: None,
            why_not: Some(format!(
                "its folder {folder} is not on this machine (it ran on another, or the folder moved): resume it there, or run `claude --resume {}` in the folder it now is{}",
                row.provider_id,
                if gone > 0 {
                    format!(" after `baton transcripts restore {}`", row.provider_id)
                } else {
                    String::new()
                }
            )),
        }));
    }
    Ok(Some(if gone == 0 {
        Resume {
            command: Some(resume_command(provider, row)),
            why_not: None,
        }
    } else {
        Resume {
            command: None,
            why_not: Some(format!(
                "{gone} of its {} file(s) are gone from where the agent looks: `baton transcripts restore {}` puts them back first",
                files.len(),
                row.provider_id
            )),
        }
    }))
}

/// A search's page as JSON with each hit carrying how to resume its session (see
/// [`resume_of`]; asked once per conversation however many of its messages matched).
pub fn page_with_resumes(
    connection: &Connection,
    path: &Path,
    page: &super::query::HitPage,
) -> Result<serde_json::Value, Error> {
    let mut json = serde_json::to_value(page)
        .map_err(|e| Error::internal(format!("encoding the hits: {e}")))?;
    let mut known: std::collections::HashMap<i64, Option<Resume>> = Default::default();
    for (n, hit) in page.hits.iter().enumerate() {
        let resume = match known.get(&hit.conversation.id) {
            Some(resume) => resume.clone(),
            None => {
                // A lookup that fails leaves the hit without a way back, not the search failed.
                let resume = resume_of(connection, path, &hit.conversation)
                    .ok()
                    .flatten();
                known.insert(hit.conversation.id, resume.clone());
                resume
            }
        };
        if let Some(resume) = resume {
            json["hits"][n]["resume"] = serde_json::to_value(resume).unwrap_or_default();
        }
    }
    Ok(json)
}

/// The command that resumes `row` in its agent.
fn resume_command(provider: Option<Provider>, row: &super::query::ConversationRow) -> String {
    match provider {
        Some(Provider::ClaudeCode) => match &row.project {
            Some(folder) => format!(
                "cd {} && claude --resume {}",
                shell_word(folder),
                row.provider_id
            ),
            None => format!("claude --resume {}", row.provider_id),
        },
        _ => format!("codex resume {}", row.provider_id),
    }
}

/// `text` as one shell word (quoted when it needs to be).
fn shell_word(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// Whether `needle` occurs in `haystack`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}
