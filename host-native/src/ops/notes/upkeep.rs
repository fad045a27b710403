//! `baton notes rebuild` and `baton notes check`: every session's note rendered again from the
//! ledger (a deleted vault loses nothing Baton owns), and the vault's session notes looked
//! over for what Baton cannot read or will not touch.

use super::{Vault, files, sync_session};
use crate::store::Ledger;
use baton_core::Error;
use baton_core::ledger::store::LedgerView;
use baton_core::notes::{NoteOutcome, NoteReport, SpliceRefusal, frontmatter_value};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a rebuild did.
#[derive(Debug, Serialize)]
pub struct Rebuilt {
    /// The vault.
    pub vault: String,
    /// How many notes had each outcome.
    pub counts: BTreeMap<String, usize>,
    /// Every note that was not simply created, updated or up to date.
    pub attention: Vec<NoteReport>,
}

/// Renders every session's note from the ledger, oldest session first.
pub fn rebuild(
    ledger: &Ledger,
    vault: &Vault,
    mut progress: impl FnMut(usize, usize),
) -> Result<Rebuilt, Error> {
    let sessions = ledger.snapshot()?.all_sessions()?;
    vault.set_all_children(&sessions);
    let mut counts = BTreeMap::new();
    let mut attention = Vec::new();
    for (n, session) in sessions.iter().enumerate() {
        progress(n, sessions.len());
        let report = sync_session(ledger, vault, session.session_id)?;
        *counts
            .entry(report.outcome.as_str().to_owned())
            .or_insert(0) += 1;
        if !matches!(
            report.outcome,
            NoteOutcome::Created | NoteOutcome::Updated | NoteOutcome::Unchanged
        ) || !report.kept_edits.is_empty()
        {
            attention.push(report);
        }
    }
    progress(sessions.len(), sessions.len());
    Ok(Rebuilt {
        vault: vault.root.display().to_string(),
        counts,
        attention,
    })
}

/// One thing `check` found.
#[derive(Debug, Serialize)]
pub struct Finding {
    /// The note, inside the vault.
    pub path: String,
    /// What is wrong, for a person.
    pub problem: String,
}

/// What `check` found.
#[derive(Debug, Serialize)]
pub struct Checked {
    /// The vault.
    pub vault: String,
    /// How many session notes were read.
    pub notes: usize,
    /// What needs a person's eye.
    pub findings: Vec<Finding>,
}

/// Looks over every Markdown file under the vault's `Projects/*/sessions/` folders: a
/// frontmatter or region of Baton's that cannot be read (such a note is never written), a
/// note naming a session this ledger does not know, a session with no note.
pub fn check(ledger: &Ledger, vault: &Vault) -> Result<Checked, Error> {
    let snapshot = ledger.snapshot()?;
    let sessions = snapshot.all_sessions()?;
    let mut seen = std::collections::HashSet::new();
    let mut findings = Vec::new();
    let mut notes = 0;
    let projects = vault.root.join("Projects");
    let mut folders: Vec<std::path::PathBuf> = std::fs::read_dir(&projects)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path().join("sessions"))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "md")
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        for path in paths {
            let relative = path
                .strip_prefix(&vault.root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            notes += 1;
            let version = match files::read(&path) {
                Ok(Some(version)) => version,
                Ok(None) => continue,
                Err(e) => {
                    findings.push(Finding {
                        path: relative,
                        problem: format!("cannot be read: {e}"),
                    });
                    continue;
                }
            };
            let Ok(text) = std::str::from_utf8(&version.bytes) else {
                findings.push(Finding {
                    path: relative,
                    problem: "is not UTF-8 text: Baton will not write it".to_owned(),
                });
                continue;
            };
            match frontmatter_value(text, "session_id") {
                Err(refusal) => findings.push(Finding {
                    path: relative,
                    problem: format!("{refusal}: Baton will not write it until it is mended"),
                }),
                Ok(None) => {}
                Ok(Some(id)) => {
                    let known = sessions.iter().find(|s| s.session_id.to_string() == id);
                    let conflict_copy = relative.contains("(baton conflict");
                    match known {
                        None if !conflict_copy => findings.push(Finding {
                            path: relative,
                            problem: format!(
                                "names the session {id}, which this ledger does not know"
                            ),
                        }),
                        None => {}
                        Some(session) => {
                            seen.insert(session.session_id);
                            if let Some(region) = unclosed_region(text) {
                                findings.push(Finding {
                                    path: relative.clone(),
                                    problem: format!(
                                        "{}: Baton will not write it until it is mended",
                                        SpliceRefusal::UnclosedRegion(region)
                                    ),
                                });
                            }
                            if conflict_copy {
                                findings.push(Finding {
                                    path: relative,
                                    problem: "is a copy Baton wrote when the note kept changing: merge what you need and delete it".to_owned(),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    for session in &sessions {
        if !seen.contains(&session.session_id) {
            findings.push(Finding {
                path: super::note_name(session, baton_core::notes::NoteName::Plain),
                problem: format!(
                    "the session {} has no note: `baton notes rebuild` writes it",
                    session.session_id
                ),
            });
        }
    }
    Ok(Checked {
        vault: vault.root.display().to_string(),
        notes,
        findings,
    })
}

/// The first of Baton's regions that opens and never closes.
fn unclosed_region(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("<!-- baton:") {
        let after = &rest[at + "<!-- baton:".len()..];
        let name_end = after.find(" -->")?;
        let name = &after[..name_end];
        let close = format!("<!-- /baton:{name} -->");
        match after.find(&close) {
            Some(i) => rest = &after[i + close.len()..],
            None => return Some(name.to_owned()),
        }
    }
    None
}
