//! Which files are sources: found under the agents' folders by name, never through a link.

use super::*;

/// Whether the mirror reads the file at `path` as `provider`'s: a transcript (`.jsonl`), or
/// an export (`.zip`, or a conversations file), and never a link.
pub fn wanted(provider: Provider, path: &Path) -> bool {
    wanted_by_name(provider, path) && !is_link(path)
}

/// The name half of [`wanted`].
pub(super) fn wanted_by_name(provider: Provider, path: &Path) -> bool {
    use baton_core::transcripts::export_files::is_conversations_entry;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    match provider {
        Provider::ClaudeCode | Provider::Codex => name.ends_with(".jsonl"),
        Provider::Chatgpt | Provider::ClaudeAi => {
            name.ends_with(".zip") || is_conversations_entry(&name)
        }
    }
}

/// Whether `path` is a symbolic link. The mirror reads no link: one out of its folder could
/// hand it any file, and one inside names a file the walk finds by its own name.
pub(super) fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The export files under the ChatGPT and claude.ai folders: `conversations.json` (or the
/// numbered parts of a large export) unzipped, and zip archives as they were downloaded.
pub fn discover_exports(chatgpt_dirs: &[PathBuf], claude_ai_dirs: &[PathBuf]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (dirs, provider) in [
        (chatgpt_dirs, Provider::Chatgpt),
        (claude_ai_dirs, Provider::ClaudeAi),
    ] {
        for dir in dirs {
            let mut files = crate::os::files::regular_files_under(dir, &["json", "zip"]);
            files.retain(|(path, _)| wanted_by_name(provider, path));
            files.sort_by(|a, b| a.0.cmp(&b.0));
            sources.extend(files.into_iter().map(|(path, meta)| Source {
                path,
                provider,
                seen: Some(identity_of(&meta)),
            }));
        }
    }
    sources
}

/// The transcript files under the Claude Code and Codex folders.
pub fn discover(claude_dirs: &[PathBuf], codex_dirs: &[PathBuf]) -> Vec<Source> {
    let mut sources = Vec::new();
    for (dirs, provider) in [
        (claude_dirs, Provider::ClaudeCode),
        (codex_dirs, Provider::Codex),
    ] {
        for dir in dirs {
            let mut files = crate::os::files::regular_files_under(dir, &["jsonl"]);
            files.sort_by(|a, b| a.0.cmp(&b.0));
            sources.extend(files.into_iter().map(|(path, meta)| Source {
                path,
                provider,
                seen: Some(identity_of(&meta)),
            }));
        }
    }
    sources
}
