//! Baton's pure core: the work-session model, the event ledger's format and fold, the
//! commands, implicit resolution, storage traits, compaction and checkpoint formats, and the
//! JSON ABI for wasm embedding.
//!
//! # The sans-IO contract
//!
//! **This crate performs no IO and reads no ambient state.** It opens no files or sockets,
//! reads no clock, environment or randomness, and starts no threads. The current time and
//! every new id are arguments ([`commands::Context`]); storage is reached only through the
//! [`store::LedgerView`] and [`store::EventLog`] traits that hosts implement. `clippy.toml`
//! enforces the rule, and CI builds the crate for `wasm32-unknown-unknown` and fails if the
//! `.wasm` imports anything.
//!
//! # How a host drives a command
//!
//! 1. [`commands::prepare`] validates a [`commands::Request`] and resolves its target.
//! 2. The host locks [`commands::Prepared::lock`] (when set) and refreshes its view.
//! 3. [`commands::execute`] returns the events to append and the [`commands::Response`].
//! 4. The host appends each event's [`event::Event::encode`]d line whole, then answers.
//!
//! Every failure is an [`Error`] with a stable [`ErrorCode`] from the one registry.

pub mod abi;
pub mod analyzer;
pub mod commands;
pub mod error;
pub mod ids;
pub mod ledger;
pub mod lifecycle;
pub mod names;
pub mod time;
pub mod transcripts;

pub use error::{Error, ErrorCode, Result};
pub use ids::{EventId, SessionId};
pub use ledger::session::{Session, Status};
pub use time::Timestamp;
