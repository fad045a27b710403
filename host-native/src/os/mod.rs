//! The ground every other module stands on, calling nothing above it: the clock, fresh ids and
//! the person (`system`), time zones, files and walks, the per-user folders (`places`), what is
//! said to a terminal, and warnings as a sink the faces own.

pub mod env;
pub mod files;
pub mod places;
pub mod processes;
pub mod system;
pub mod terminal;
pub mod warnings;
pub mod zone;
