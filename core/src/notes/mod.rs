//! Session notes: each work session as a Markdown note a person can read and edit. The ledger
//! stays the truth; a note is a view Baton keeps up to date without ever taking a person's
//! words. This module owns the pure part: where a note lives, and how Baton's parts are
//! spliced into a note on disk while every other byte is kept ([`splice`]). Hosts own the
//! files: exclusive creation, compare-and-swap, locks.

pub mod splice;

pub use splice::{KeyDifference, OwnedParts, SpliceRefusal, Spliced, splice, yaml_scalar};

use crate::time::Timestamp;

/// A note's path inside the vault: `Projects/<project>/sessions/YYYY-MM-DD-HHMM-<agent>.md`
/// (UTC), or with `-<first 8 hex digits of the id>` before `.md` when `taken` (another
/// session already holds the plain name). Path separators in the project or agent are kept
/// out of the name.
pub fn note_path(
    project: &str,
    agent: &str,
    started_at: Timestamp,
    id: &str,
    taken: bool,
) -> String {
    let clean = |text: &str| -> String {
        text.chars()
            .map(|c| {
                if matches!(c, '/' | '\\' | ':' | '\0') || c.is_control() {
                    '-'
                } else {
                    c
                }
            })
            .collect::<String>()
            .trim_matches(['.', ' '])
            .to_owned()
    };
    let stamp = started_at.path_stamp();
    let suffix = if taken {
        let hex: String = id.chars().filter(char::is_ascii_hexdigit).take(8).collect();
        format!("-{hex}")
    } else {
        String::new()
    };
    format!(
        "Projects/{}/sessions/{stamp}-{}{suffix}.md",
        clean(project),
        clean(agent)
    )
}
