//! The files of an export as ChatGPT and claude.ai mail it, zipped or unzipped, judged by
//! name: which hold conversations (`conversations.json`, or the split `conversations-000.json`
//! … of large exports), and which are the export's other files (account, projects, memories,
//! feedback, shared links, the HTML copy). A folder or archive that holds a conversations file
//! is one export: only its conversations files are read, and its other known files are passed
//! over silently, never read as conversations nor reported as errors. Every host (the CLI
//! walking a folder, the page given a folder, the ingest unpacking an archive) asks here.

/// What a file of an export is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportMember {
    /// It holds conversations.
    Conversations,
    /// One of the export's other files: it holds no conversations.
    Sidecar,
    /// A file no export is known to hold under this name.
    Unknown,
}

/// The export's other files, by name: claude.ai's (`projects.json`, `users.json`,
/// `memories.json`) and ChatGPT's (`user.json`, `message_feedback.json`,
/// `shared_conversations.json`, `model_comparisons.json`, `group_chats.json`, `shopping.json`,
/// `sora.json`, `chat.html`).
pub const SIDECARS: &[&str] = &[
    "projects.json",
    "users.json",
    "memories.json",
    "user.json",
    "message_feedback.json",
    "shared_conversations.json",
    "model_comparisons.json",
    "group_chats.json",
    "shopping.json",
    "sora.json",
    "chat.html",
];

/// The last part of a path (either separator).
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The folder part of a path (either separator), empty at the top.
fn folder_of(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |at| &path[..at])
}

/// Whether an export's file holds conversations (`conversations.json`, or the split
/// `conversations-000.json` files of large exports).
pub fn is_conversations_entry(name: &str) -> bool {
    let base = base_name(name);
    let Some(stem) = base.strip_suffix(".json") else {
        return false;
    };
    stem == "conversations"
        || stem
            .strip_prefix("conversations-")
            .or_else(|| stem.strip_prefix("conversations_"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// What the file at `path` is, by its name.
pub fn export_member(path: &str) -> ExportMember {
    let base = base_name(path);
    if is_conversations_entry(base) {
        ExportMember::Conversations
    } else if SIDECARS.iter().any(|s| s.eq_ignore_ascii_case(base)) {
        ExportMember::Sidecar
    } else {
        ExportMember::Unknown
    }
}

/// Which of `paths` (files found under folders or named together, `/` or `\` between names) a
/// host passes over:
/// the known side files of an export, in a folder that also holds a conversations file; and a
/// Baton ledger folder's checkpoint (`checkpoint.ndjson` beside `events.ndjson`: a cache of the
/// log, read with the log itself) and its `notes/` (Baton's state about session notes). The
/// answer is one flag per path, in order. Anything else is
/// read (a side file alone in its folder is no export's: its content decides what it is; an
/// unknown file beside a conversations file is read too, since `conversations (1).json`, a
/// second download, may be one).
pub fn skipped_export_files<S: AsRef<str>>(paths: &[S]) -> Vec<bool> {
    let folders_holding = |name: &str| -> std::collections::BTreeSet<&str> {
        paths
            .iter()
            .map(AsRef::as_ref)
            .filter(|p| base_name(p) == name)
            .map(folder_of)
            .collect()
    };
    let export_folders: std::collections::BTreeSet<&str> = paths
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| is_conversations_entry(p))
        .map(folder_of)
        .collect();
    let ledger_folders = folders_holding(LEDGER_LOG);
    paths
        .iter()
        .map(AsRef::as_ref)
        .map(|p| {
            (export_member(p) == ExportMember::Sidecar && export_folders.contains(folder_of(p)))
                || (base_name(p) == LEDGER_CHECKPOINT && ledger_folders.contains(folder_of(p)))
                || in_notes_state(p, &ledger_folders)
        })
        .collect()
}

/// Whether `path` is in a ledger folder's `notes/`: Baton's own state about session notes
/// (locks, what it wrote where), never a transcript.
fn in_notes_state(path: &str, ledger_folders: &std::collections::BTreeSet<&str>) -> bool {
    let path = path.replace('\\', "/");
    ledger_folders.iter().any(|folder| {
        let folder = folder.replace('\\', "/");
        let prefix = if folder.is_empty() {
            format!("{LEDGER_NOTES_STATE}/")
        } else {
            format!("{folder}/{LEDGER_NOTES_STATE}/")
        };
        path.starts_with(&prefix)
    })
}

/// A Baton ledger folder's state about session notes.
const LEDGER_NOTES_STATE: &str = "notes";

/// A Baton ledger folder's active log.
const LEDGER_LOG: &str = "events.ndjson";

/// A Baton ledger folder's checkpoint.
const LEDGER_CHECKPOINT: &str = "checkpoint.ndjson";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversations_files_and_side_files_are_told_apart() {
        for name in [
            "conversations.json",
            "data-2025/conversations.json",
            "conversations-000.json",
            "x\\conversations_12.json",
        ] {
            assert_eq!(export_member(name), ExportMember::Conversations, "{name}");
        }
        for name in ["projects.json", "a/users.json", "user.json", "chat.html"] {
            assert_eq!(export_member(name), ExportMember::Sidecar, "{name}");
        }
        for name in [
            "conversations-.json",
            "conversations-a1.json",
            "session.jsonl",
        ] {
            assert_eq!(export_member(name), ExportMember::Unknown, "{name}");
        }
        assert_eq!(
            skipped_export_files(&[
                "e/conversations.json",
                "e/users.json",
                "e/notes.json",
                "other/users.json",
            ]),
            vec![false, true, false, false]
        );
    }

    #[test]
    fn a_ledger_folders_checkpoint_is_passed_over_and_nothing_else_of_it() {
        assert_eq!(
            skipped_export_files(&[
                "p/.baton/events.ndjson",
                "p/.baton/checkpoint.ndjson",
                "p/.baton/archive/2026-11.ndjson",
                "elsewhere/checkpoint.ndjson",
                "p/.baton/notes/written/f4aabc13717a7060.json",
                "p/.baton/notes/touched/01a2373f-40fc-735b-9ca9-23335b7b8d03",
                "elsewhere/notes/written/x.json",
            ]),
            vec![false, true, false, false, true, true, false]
        );
    }
}
