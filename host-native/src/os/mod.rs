//! The ground every other module stands on, calling nothing above it: the clock, fresh ids,
//! the person, the calling agent and git (`system`), the environment (`env`), time zones, files
//! and walks, the per-user and agents' folders (`places`), processes, what is said to a
//! terminal, TLS roots for Baton's clients, and warnings as a sink the faces own.

pub mod env;
pub mod files;
pub mod places;
pub mod processes;
pub mod system;
pub mod terminal;
pub mod tls;
pub mod warnings;
pub mod zone;
