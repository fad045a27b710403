//! Which files are sources: found under the agents' folders by name, never through a link.

use super::*;
use std::collections::BTreeMap;

/// Whether the mirror reads the file at `path` as `provider`'s (its registry entry says which
/// names are its files), and never a link.
pub fn wanted(provider: Provider, path: &Path) -> bool {
    wanted_by_name(provider, path) && !is_link(path)
}

/// The name half of [`wanted`]: its ending, and for an agent that keeps other files beside its
/// transcripts, the folders it sits in.
pub(super) fn wanted_by_name(provider: Provider, path: &Path) -> bool {
    provider.entry().wants_file(&path.to_string_lossy())
}

/// Whether `path` is a symbolic link. The mirror reads no link: one out of its folder could
/// hand it any file, and one inside names a file the walk finds by its own name.
pub(super) fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// The source files under each provider's folders: agents' transcripts and databases (and the
/// tree of files OpenCode kept before its database, one source), and exports
/// (`conversations.json` or the numbered parts of a large export, unzipped, and zip archives
/// as they were downloaded), each named as its provider's files are.
pub fn discover(folders: &BTreeMap<Provider, Vec<PathBuf>>) -> Vec<Source> {
    let mut sources = Vec::new();
    for (provider, dirs) in folders {
        let database = provider.entry().kind == Kind::Database;
        for dir in dirs {
            let mut files = if crate::os::places::top_only(*provider, dir) {
                crate::os::files::regular_files_in(dir, provider.entry().extensions)
            } else {
                crate::os::files::regular_files_under(dir, provider.entry().extensions)
            };
            files.retain(|(path, _)| wanted_by_name(*provider, path));
            // The tree of files the agent kept before its database: one source, read whole.
            if database
                && let Some(tree) = crate::os::files::tree_in(*provider, dir)
                && let Ok(meta) = std::fs::symlink_metadata(&tree)
            {
                files.push((tree, meta));
            }
            files.sort_by(|a, b| a.0.cmp(&b.0));
            sources.extend(files.into_iter().map(|(path, meta)| Source {
                seen: Some(identity_as(*provider, &path, &meta)),
                path,
                provider: *provider,
            }));
        }
    }
    sources
}
