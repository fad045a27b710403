//! The ground every other module stands on, calling nothing above it: what is said to a
//! terminal, and warnings as a sink the faces own.

pub mod terminal;
pub mod warnings;
