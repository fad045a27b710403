//! Judgements derived from the ledger's facts: the workspace's policy and shared context, the
//! context-health score, and the timeline a person reads.

pub mod collisions;
pub mod health;
pub mod timeline;
pub mod verdict;
pub mod workspace;
