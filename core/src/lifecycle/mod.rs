//! Judgements derived from the ledger's facts: the workspace's policy and shared context, the
//! budgets that govern spend, the context-health score, and the timeline a person reads.

pub mod budget;
pub mod collisions;
pub mod health;
pub mod timeline;
pub mod verdict;
pub mod workspace;
