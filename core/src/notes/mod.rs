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

/// The notes a session's note links to, and the vault's notes touched while it ran (all
/// vault paths, as a host found them).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoteLinks<'a> {
    /// The note of the session this one follows on from.
    pub parent: Option<&'a str>,
    /// The notes of the sessions that follow on from this one.
    pub children: &'a [String],
    /// Other notes of the vault modified between its start and its end (listed once it ends).
    pub touched: &'a [String],
}

/// An Obsidian link to a vault path: `[[Projects/demo/sessions/2026-07-18-2000-claude]]`.
fn wikilink(path: &str) -> String {
    format!("[[{}]]", path.strip_suffix(".md").unwrap_or(path))
}

/// What Baton owns in a session's note: the frontmatter keys (the spec's, in its order; the
/// ones a session has no value for are left out) and the regions `goal`, `links`, `resumes`
/// and, once it has ended, `end`.
pub fn owned_parts(session: &crate::ledger::session::Session, links: &NoteLinks<'_>) -> OwnedParts {
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut key = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            keys.push((name.to_owned(), yaml_scalar(&value)));
        }
    };
    key("session_id", Some(session.session_id.to_string()));
    key("project", Some(session.project.clone()));
    key(
        "project_link",
        Some(wikilink(&format!("Projects/{}", session.project))),
    );
    key("agent", Some(session.agent.clone()));
    key("client_name", session.client_name.clone());
    key("status", Some(session.status.as_str().to_owned()));
    key("started_at", Some(session.started_at.to_string()));
    key("ended_at", session.ended_at.map(|t| t.to_string()));
    key(
        "parent_session_id",
        session.parent_session_id.map(|p| p.to_string()),
    );
    key("run_id", session.run_id.clone());
    key("work_item_id", session.work_item_id.clone());
    key("attempt_id", session.attempt_id.clone());

    let mut regions = vec![(
        "goal".to_owned(),
        session
            .goal
            .clone()
            .unwrap_or_else(|| "(no goal was given)".to_owned()),
    )];
    let mut linked = Vec::new();
    if let Some(parent) = links.parent {
        linked.push(format!("- Follows on from {}", wikilink(parent)));
    }
    for child in links.children {
        linked.push(format!("- Handed on to {}", wikilink(child)));
    }
    if !linked.is_empty() {
        regions.push(("links".to_owned(), linked.join("\n")));
    }
    if !session.resumes.is_empty() {
        let lines: Vec<String> = session
            .resumes
            .iter()
            .map(|r| match &r.client_name {
                Some(client) => format!("- Resumed {} by {client}", r.at),
                None => format!("- Resumed {}", r.at),
            })
            .collect();
        regions.push(("resumes".to_owned(), lines.join("\n")));
    }
    if let Some(ended) = session.ended_at {
        let took = session
            .duration_seconds
            .map(crate::time::human_duration)
            .unwrap_or_else(|| "?".to_owned());
        let mut end = format!("Ended {ended} as {} after {took}.", session.status.as_str());
        if let Some(summary) = &session.summary {
            end.push_str("\n\n");
            end.push_str(summary);
        }
        if !links.touched.is_empty() {
            end.push_str("\n\nNotes changed meanwhile:\n");
            let touched: Vec<String> = links
                .touched
                .iter()
                .map(|t| format!("- {}", wikilink(t)))
                .collect();
            end.push_str(&touched.join("\n"));
        }
        regions.push(("end".to_owned(), end));
    }
    OwnedParts { keys, regions }
}
