//! The workspace: its policy (who may do what, which clients are approved, whether a mission is
//! required) and the shared context every brief compares against — missions and their
//! versioned contracts, the constitution, the indexed commit, ambiguities, decisions and
//! attention items — derived from the workspace's own event stream.

use crate::error::{Error, Result};
use crate::ids::SessionId;
use crate::ledger::activity::Activity;
use crate::ledger::event::Payload;
use crate::ledger::fold::SessionHistory;
use crate::time::Timestamp;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A member's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everything.
    Owner,
    /// Everything but ownership.
    Admin,
    /// Registers and controls sessions, edits missions, ambiguities and decisions.
    Member,
    /// Reads only.
    Viewer,
}

/// What an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Start or resume a session.
    SessionRegister,
    /// Pause or unpause a session.
    SessionControl,
    /// Add missions, open and resolve ambiguities, record decisions.
    WorkspaceEdit,
    /// Approve contracts, set the constitution, index the repository.
    WorkspaceLead,
}

impl Permission {
    /// The permission's name in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::SessionRegister => "session.register",
            Permission::SessionControl => "session.control",
            Permission::WorkspaceEdit => "workspace.edit",
            Permission::WorkspaceLead => "workspace.lead",
        }
    }

    fn granted_to(self, role: Role) -> bool {
        match self {
            Permission::SessionRegister
            | Permission::SessionControl
            | Permission::WorkspaceEdit => role <= Role::Member,
            Permission::WorkspaceLead => role <= Role::Admin,
        }
    }
}

/// `.baton/config.toml`. With no file (or no `[members]`), whoever runs Baton is the owner,
/// every client is approved and missions are optional: one person on one machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Members and their roles; when empty, everyone acting is an owner.
    #[serde(default)]
    pub members: BTreeMap<String, Role>,
    /// Coding clients allowed to register sessions; absent means all.
    #[serde(default)]
    pub approved_clients: Option<Vec<String>>,
    /// Whether every session must name an approved mission.
    #[serde(default)]
    pub mission_required: bool,
    /// Whether coding agents may steer (lift pauses, approve contracts, set the constitution,
    /// pause or end other agents' sessions). Off: those are a person's.
    #[serde(default)]
    pub agents_may_steer: bool,
    /// Spending limits (`[budget]`): see [`crate::lifecycle::budget`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<crate::lifecycle::budget::BudgetPolicy>,
}

impl Policy {
    /// The role of `person`: owner when there is no member list.
    pub fn role_of(&self, person: &str) -> Option<Role> {
        if self.members.is_empty() {
            return Some(Role::Owner);
        }
        self.members.get(person).copied()
    }

    /// Checks that `person` holds `permission`.
    pub fn require(&self, person: &str, permission: Permission) -> Result<()> {
        match self.role_of(person) {
            Some(role) if permission.granted_to(role) => Ok(()),
            role => Err(Error::permission_denied(
                person,
                &role.map_or("not a member".to_owned(), |r| {
                    format!("{r:?}").to_lowercase()
                }),
                permission.as_str(),
            )),
        }
    }

    /// Checks that a coding client is approved. Says nothing about the workspace otherwise.
    pub fn require_client(&self, client: Option<&str>) -> Result<()> {
        let Some(approved) = &self.approved_clients else {
            return Ok(());
        };
        let name = client.unwrap_or("");
        if approved.iter().any(|a| a.eq_ignore_ascii_case(name)) {
            return Ok(());
        }
        Err(Error::client_not_approved(name))
    }
}

/// One version of a mission's contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ContractVersion {
    /// 1, 2, …
    pub version: u32,
    /// The clauses.
    pub clauses: Vec<String>,
    /// Whether a lead approved it.
    pub approved: bool,
}

/// A mission and its contract's versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Mission {
    /// e.g. CLAIM-142.
    pub reference: String,
    /// Every version, oldest first.
    pub versions: Vec<ContractVersion>,
}

impl Mission {
    /// The newest version.
    pub fn latest(&self) -> &ContractVersion {
        self.versions
            .last()
            .expect("a mission has at least one version")
    }

    /// The version sessions are briefed on: the newest approved one, else the newest.
    pub fn current(&self) -> &ContractVersion {
        self.versions
            .iter()
            .rev()
            .find(|v| v.approved)
            .unwrap_or_else(|| self.latest())
    }

    /// One version.
    pub fn version(&self, version: u32) -> Option<&ContractVersion> {
        self.versions.iter().find(|v| v.version == version)
    }
}

/// An open or resolved requirement ambiguity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Ambiguity {
    /// 1-based, in the order they were opened.
    pub number: u32,
    /// The mission.
    pub reference: String,
    /// The question.
    pub text: String,
    /// Still open?
    pub open: bool,
}

/// An active decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Decision {
    /// 1-based.
    pub number: u32,
    /// The decision.
    pub text: String,
    /// When it was recorded.
    pub at: Timestamp,
}

/// Something a person should look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AttentionItem {
    /// 1-based, in the order raised (a cleared item keeps its number from the others).
    pub number: u32,
    /// The event that raised it.
    pub id: crate::ids::EventId,
    /// What kind of item, when Baton may clear it itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    /// The session concerned.
    pub session_id: SessionId,
    /// How loudly it asks for a person.
    pub level: crate::ledger::activity::AttentionLevel,
    /// 0–100.
    pub urgency: u8,
    /// What.
    pub text: String,
    /// When.
    pub at: Timestamp,
}

/// The shared context, as the workspace stream folds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Workspace {
    /// Missions by reference.
    pub missions: BTreeMap<String, Mission>,
    /// The constitution's version, if there is one.
    pub constitution_version: Option<u32>,
    /// The indexed repository commit.
    pub indexed_commit: Option<String>,
    /// Every ambiguity.
    pub ambiguities: Vec<Ambiguity>,
    /// Every active decision.
    pub decisions: Vec<Decision>,
    /// Open attention items.
    pub attention: Vec<AttentionItem>,
    /// The topics of every item ever raised (open or done): an item Baton raises by topic is
    /// raised once.
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub raised_topics: std::collections::BTreeSet<String>,
}

impl Workspace {
    /// Derives the workspace from its stream's history.
    pub fn from_history(history: Option<&SessionHistory>) -> Workspace {
        let mut ws = Workspace::default();
        let Some(history) = history else {
            return ws;
        };
        let mut raised: u32 = 0;
        for event in history.ordered() {
            let Payload::Activity(activity) = &event.payload else {
                continue;
            };
            match activity {
                Activity::MissionContract {
                    reference,
                    version,
                    clauses,
                } => {
                    let mission = ws
                        .missions
                        .entry(reference.clone())
                        .or_insert_with(|| Mission {
                            reference: reference.clone(),
                            versions: Vec::new(),
                        });
                    if mission.version(*version).is_none() {
                        mission.versions.push(ContractVersion {
                            version: *version,
                            clauses: clauses.clone(),
                            approved: false,
                        });
                        mission.versions.sort_by_key(|v| v.version);
                    }
                }
                Activity::MissionApproved { reference, version } => {
                    if let Some(v) = ws
                        .missions
                        .get_mut(reference)
                        .and_then(|m| m.versions.iter_mut().find(|v| v.version == *version))
                    {
                        v.approved = true;
                    }
                }
                Activity::ConstitutionSet { version, .. } => {
                    ws.constitution_version = ws.constitution_version.max(Some(*version));
                }
                Activity::RepositoryIndexed { commit } => ws.indexed_commit = Some(commit.clone()),
                Activity::AmbiguityOpened { reference, text } => {
                    let number = ws.ambiguities.len() as u32 + 1;
                    ws.ambiguities.push(Ambiguity {
                        number,
                        reference: reference.clone(),
                        text: text.clone(),
                        open: true,
                    });
                }
                Activity::AmbiguityResolved { number } => {
                    if let Some(a) = ws.ambiguities.iter_mut().find(|a| a.number == *number) {
                        a.open = false;
                    }
                }
                Activity::DecisionRecorded { text } => {
                    let number = ws.decisions.len() as u32 + 1;
                    ws.decisions.push(Decision {
                        number,
                        text: text.clone(),
                        at: event.at,
                    });
                }
                Activity::AttentionRaised {
                    session,
                    level,
                    urgency,
                    text,
                    topic,
                } => {
                    raised += 1;
                    if let Some(topic) = topic {
                        ws.raised_topics.insert(topic.clone());
                    }
                    ws.attention.push(AttentionItem {
                        number: raised,
                        id: event.id,
                        topic: topic.clone(),
                        session_id: *session,
                        level: *level,
                        urgency: *urgency,
                        text: text.clone(),
                        at: event.at,
                    });
                }
                Activity::AttentionCleared { raised, .. } => {
                    ws.attention.retain(|item| item.id != *raised);
                }
                _ => {}
            }
        }
        ws
    }

    /// One mission.
    pub fn mission(&self, reference: &str) -> Option<&Mission> {
        self.missions.get(reference)
    }

    /// How many ambiguities on a mission are still open.
    pub fn open_ambiguities(&self, reference: &str) -> usize {
        self.ambiguities
            .iter()
            .filter(|a| a.open && a.reference == reference)
            .count()
    }
}

/// A contract written as text (a Markdown list, one clause a line) as its clauses: list marks
/// and surrounding space dropped, blank lines and headings skipped.
pub fn contract_clauses(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['-', '*', '+'])
                .trim()
                .to_owned()
        })
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}
