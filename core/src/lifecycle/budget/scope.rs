//! What a budget rule covers: all work, one project's, agent's, branch's or mission's, or the
//! whole team's; which work sessions that takes in, and how a rule's name and words say it.

use crate::ledger::session::Session;
use serde::{Deserialize, Serialize};

/// What a rule covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", tag = "kind", content = "name")]
pub enum Scope {
    /// All work.
    All,
    /// One project's.
    Project(String),
    /// One agent's.
    Agent(String),
    /// One branch's.
    Branch(String),
    /// One mission's.
    Mission(String),
    /// The whole team's: every machine's usage, as each sent it to the team database.
    Team,
}

impl Scope {
    /// Whether the work session is covered.
    pub fn covers(&self, session: &Session) -> bool {
        match self {
            Scope::All | Scope::Team => true,
            Scope::Project(name) => &session.project == name,
            Scope::Agent(name) => &session.agent == name,
            Scope::Branch(name) => session.branch.as_ref() == Some(name),
            Scope::Mission(name) => session.mission.as_ref() == Some(name),
        }
    }

    /// `project app`, `all work`.
    pub fn describe(&self) -> String {
        match self {
            Scope::All => "all work".to_owned(),
            Scope::Project(n) => format!("project {n}"),
            Scope::Agent(n) => format!("agent {n}"),
            Scope::Branch(n) => format!("branch {n}"),
            Scope::Mission(n) => format!("mission {n}"),
            Scope::Team => "the whole team".to_owned(),
        }
    }

    pub(super) fn key(&self) -> String {
        match self {
            Scope::All => String::new(),
            Scope::Project(n) => format!("project.{n}."),
            Scope::Agent(n) => format!("agent.{n}."),
            Scope::Branch(n) => format!("branch.{n}."),
            Scope::Mission(n) => format!("mission.{n}."),
            Scope::Team => "team.".to_owned(),
        }
    }
}
