//! Finding a session's note in the vault: by its recorded path, else by the `session_id` in
//! a note's frontmatter (a note a person moved or renamed), and what else changed meanwhile.

use super::*;

/// The session a note names in its frontmatter (`None`: not a session note, or one Baton
/// cannot read). A stray byte that is not UTF-8 elsewhere does not hide it.
pub(super) fn session_of(version: &NoteVersion) -> Option<String> {
    let text = String::from_utf8_lossy(&version.bytes);
    frontmatter_value(&text, "session_id").ok().flatten()
}

/// Whether a note opens a frontmatter that never closes.
pub(super) fn unreadable_frontmatter(version: &NoteVersion) -> bool {
    let text = String::from_utf8_lossy(&version.bytes);
    frontmatter_value(&text, "session_id").is_err()
}

/// Where `session`'s note is: where Baton last wrote it, unless another session's note is
/// there now; else the first of its possible names holding a note that names it; else, when
/// Baton wrote one and it is gone from there (renamed or moved in the editor), the vault's
/// note that names it in its frontmatter.
pub(super) fn locate(vault: &Vault, session: &Session) -> Option<String> {
    let id = session.session_id.to_string();
    let recorded = vault.recorded_path(session.session_id);
    if let Some(relative) = &recorded
        && let Ok(Some(version)) = files::read(&vault.file(relative))
        && session_of(&version).is_none_or(|named| named == id)
    {
        return Some(relative.clone());
    }
    let by_name = NoteName::ALL.into_iter().find_map(|name| {
        let relative = note_name(session, name);
        let version = files::read(&vault.file(&relative)).ok()??;
        (session_of(&version).as_deref() == Some(id.as_str())).then_some(relative)
    });
    if by_name.is_some() || recorded.is_none() {
        return by_name;
    }
    find_moved(vault, &id)
}

/// Visits the vault's Markdown notes (not hidden files, not Baton's conflict copies), each
/// with its path inside the vault, looking at 50,000 entries at most; `descend` says whether
/// to look inside a folder (given it and its parent), `visit` returns `true` to stop.
pub(super) fn walk_notes(
    vault: &Vault,
    descend: impl Fn(&Path, &str) -> bool,
    mut visit: impl FnMut(&std::fs::DirEntry, String) -> bool,
) {
    let mut stack = vec![vault.root.clone()];
    let mut visited = 0usize;
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited > 50_000 {
                return;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name.contains("(baton conflict") {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if descend(&folder, &name) {
                    stack.push(entry.path());
                }
            } else if kind.is_file()
                && name.ends_with(".md")
                && let Ok(relative) = entry.path().strip_prefix(&vault.root)
                && visit(&entry, relative.to_string_lossy().into_owned())
            {
                return;
            }
        }
    }
}

/// The vault's note whose frontmatter names `id`.
pub(super) fn find_moved(vault: &Vault, id: &str) -> Option<String> {
    let mut found = None;
    walk_notes(
        vault,
        |_, _| true,
        |entry, relative| {
            let names_it = matches!(files::read(&entry.path()), Ok(Some(version))
                if session_of(&version).as_deref() == Some(id));
            if names_it {
                found = Some(relative);
            }
            names_it
        },
    );
    found
}

pub(super) fn note_name(session: &Session, name: NoteName) -> String {
    note_path(
        &session.project,
        &session.agent,
        session.started_at,
        &session.session_id.to_string(),
        name,
    )
}

/// The other notes of the vault modified while `session` ran (at most 50, in path order;
/// session notes left out): the spec's list at the end of a session.
pub(super) fn touched_meanwhile(vault: &Vault, session: &Session, own: &str) -> Vec<String> {
    let Some(ended) = session.ended_at else {
        return Vec::new();
    };
    let (from, to) = (session.started_at.millis(), ended.millis());
    let mut found = Vec::new();
    // Session notes are Baton's own writes: not what a person changed meanwhile.
    let not_sessions = |folder: &Path, name: &str| {
        !(name == "sessions"
            && folder.parent().and_then(|p| p.file_name()) == Some("Projects".as_ref()))
    };
    walk_notes(vault, not_sessions, |entry, relative| {
        let modified = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        if relative != own && modified.is_some_and(|m| m >= from && m <= to) {
            found.push(relative);
        }
        false
    });
    found.sort();
    found.truncate(50);
    found
}

/// The first folder on the way from `root` to the note `relative` that is a symbolic link.
pub(super) fn linked_component(root: &Path, relative: &str) -> Option<std::path::PathBuf> {
    let mut at = root.to_path_buf();
    for part in Path::new(relative).parent()?.components() {
        at.push(part);
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => return Some(at),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}
