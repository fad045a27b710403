//! Session notes: each work session as a Markdown note a person can read and edit. The ledger
//! stays the truth; a note is a view Baton keeps up to date without ever taking a person's
//! words. This module owns the pure part: where a note lives, and how Baton's parts are
//! spliced into a note on disk while every other byte is kept ([`splice`]). Hosts own the
//! files: exclusive creation, compare-and-swap, locks.

pub mod splice;

pub use splice::{
    KeyDifference, OwnedParts, SpliceRefusal, Spliced, frontmatter_value, splice, yaml_meaning,
    yaml_scalar,
};

use crate::time::Timestamp;
use serde::{Deserialize, Serialize};

/// What became of a session's note when a host brought it up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NoteOutcome {
    /// Written for the first time.
    Created,
    /// Baton's parts were out of date and were rewritten.
    Updated,
    /// Already up to date: nothing was written.
    Unchanged,
    /// A person changed it seconds ago; Baton leaves it for a later run.
    Deferred,
    /// It kept changing under Baton; the update went to a copy beside it.
    Conflict,
    /// Its frontmatter or a region of Baton's cannot be read; it is left alone.
    Refused,
    /// The vault could not be written (the reason is in `problem`).
    Failed,
}

impl NoteOutcome {
    /// Its name, as on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            NoteOutcome::Created => "created",
            NoteOutcome::Updated => "updated",
            NoteOutcome::Unchanged => "unchanged",
            NoteOutcome::Deferred => "deferred",
            NoteOutcome::Conflict => "conflict",
            NoteOutcome::Refused => "refused",
            NoteOutcome::Failed => "failed",
        }
    }
}

/// A session's note after a command: where it is and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NoteReport {
    /// The note's path inside the vault (`Projects/<project>/sessions/….md`).
    pub path: String,
    /// The note's file on this machine.
    pub file: String,
    /// What became of it.
    pub outcome: NoteOutcome,
    /// Keys of Baton's a person changed, kept as they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_edits: Vec<KeyDifference>,
    /// Where Baton's update went instead, after a conflict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_copy: Option<String>,
    /// Why it was refused or failed, for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Which name a note takes: the plain one, or (when another session's note holds it) one
/// with a suffix from the session's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteName {
    /// `YYYY-MM-DD-HHMM-<agent>.md`.
    Plain,
    /// `…-<agent>-<last 8 hex digits of the id>.md`: the random end of a UUIDv7, since
    /// sessions started in one minute share its first digits (the time).
    Short,
    /// `…-<agent>-<all 32 hex digits>.md`, when even the short name is taken.
    Full,
}

impl NoteName {
    /// The names to try, in order.
    pub const ALL: [NoteName; 3] = [NoteName::Plain, NoteName::Short, NoteName::Full];
}

/// A note's path inside the vault: `Projects/<project>/sessions/YYYY-MM-DD-HHMM-<agent>.md`
/// (UTC), with a suffix from the id for a [`NoteName`] other than plain. Path separators and
/// control characters in the project or agent are kept out of the name.
pub fn note_path(
    project: &str,
    agent: &str,
    started_at: Timestamp,
    id: &str,
    name: NoteName,
) -> String {
    let stamp = started_at.path_stamp();
    let hex: String = id.chars().filter(char::is_ascii_hexdigit).collect();
    let suffix = match name {
        NoteName::Plain => String::new(),
        NoteName::Short => format!("-{}", &hex[hex.len().saturating_sub(8)..]),
        NoteName::Full => format!("-{hex}"),
    };
    format!(
        "Projects/{}/sessions/{stamp}-{}{suffix}.md",
        path_part(project),
        path_part(agent)
    )
}

/// A project or agent name as one part of a vault path and of an Obsidian link: path
/// separators, control characters and the characters that end a link (`# ^ [ ] |`) become
/// `-`, dots and spaces at the ends go, and it is cut to 80 characters (file names have a
/// limit).
pub fn path_part(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':' | '\0' | '#' | '^' | '[' | ']' | '|') || c.is_control()
            {
                '-'
            } else {
                c
            }
        })
        .take(80)
        .collect();
    let cleaned = cleaned.trim_matches(['.', ' ']);
    if cleaned.is_empty() {
        "-".to_owned()
    } else {
        cleaned.to_owned()
    }
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
        Some(wikilink(&format!(
            "Projects/{}",
            path_part(&session.project)
        ))),
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
    // What its agent session was, and what it cost, as its hooks recorded it.
    key("provider_session_id", session.provider_session_id.clone());
    key(
        "transcript",
        session.usage_sources.first().map(|s| s.source.clone()),
    );
    key(
        "tokens",
        (session.usage.total() > 0).then(|| session.usage.total().to_string()),
    );
    key(
        "cost_usd",
        session
            .usage_cost_micro_usd
            .filter(|_| session.usage.total() > 0)
            .map(|micro| {
                let dollars = micro as f64 / 1_000_000.0;
                // Cents hide a short session's cost: four places below a dollar.
                if dollars < 1.0 {
                    format!("{dollars:.4}")
                } else {
                    format!("{dollars:.2}")
                }
            }),
    );

    let mut regions = vec![(
        "goal".to_owned(),
        format!(
            "## Goal\n\n{}",
            session.goal.as_deref().unwrap_or("(no goal was given)")
        ),
    )];
    let mut linked = Vec::new();
    if let Some(parent) = links.parent {
        linked.push(format!("- Follows on from {}", wikilink(parent)));
    }
    for child in links.children {
        linked.push(format!("- Handed on to {}", wikilink(child)));
    }
    if !linked.is_empty() {
        regions.push((
            "links".to_owned(),
            format!("## Links\n\n{}", linked.join("\n")),
        ));
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
        regions.push((
            "resumes".to_owned(),
            format!("## Resumed\n\n{}", lines.join("\n")),
        ));
    }
    if let Some(ended) = session.ended_at {
        let took = session
            .duration_seconds
            .map(crate::time::human_duration)
            .unwrap_or_else(|| "?".to_owned());
        let mut end = format!(
            "## Ended\n\nEnded {ended} as {} after {took}.",
            session.status.as_str()
        );
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
    let stamp = session.started_at.to_string();
    let title = format!(
        "{} on {}, {} {} UTC",
        session.agent,
        session.project,
        stamp.get(..10).unwrap_or(&stamp),
        stamp.get(11..16).unwrap_or("")
    );
    OwnedParts {
        keys,
        regions,
        title: Some(title),
    }
}

/// The ledger event that records a note conflict: the note kept changing under Baton, whose
/// update went to `copy` beside it (both inside the vault). Recorded by Baton itself.
pub fn conflict_event(
    session: crate::ids::SessionId,
    at: Timestamp,
    id: crate::ids::EventId,
    path: &str,
    copy: &str,
) -> crate::ledger::event::Event {
    crate::ledger::event::Event {
        id,
        session,
        at,
        actor: crate::ledger::event::Actor {
            kind: crate::ledger::event::ActorKind::Baton,
            name: "baton".to_owned(),
        },
        payload: crate::ledger::event::Payload::Activity(
            crate::ledger::activity::Activity::NoteConflict {
                path: path.to_owned(),
                copy: copy.to_owned(),
            },
        ),
    }
}

/// What Baton may have written into a note it has no record of (its record of the note was
/// lost): the keys as wanted now, and every status a session passes through, so a status
/// Baton wrote earlier is brought up to date rather than taken for a person's.
pub fn earlier_without_record(owned: &OwnedParts) -> Vec<(String, String)> {
    let mut earlier = owned.keys.clone();
    for status in crate::ledger::session::Status::ALL {
        earlier.push(("status".to_owned(), yaml_scalar(status.as_str())));
    }
    earlier
}
