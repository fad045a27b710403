//! Baton's pure core: the work-session ledger, the judgements drawn from it, the commands that
//! write it, other tools' transcripts, and the analyzer the page and `baton analyze` share.
//!
//! # The sans-IO contract
//!
//! **This crate performs no IO and reads no ambient state.** It opens no files or sockets,
//! reads no clock, environment or randomness, and starts no threads. The current time and
//! every new id are arguments ([`commands::Context`]); storage is reached only through the
//! [`ledger::store::LedgerView`] and [`ledger::store::EventLog`] traits that hosts implement.
//! `clippy.toml` enforces the rule, and CI builds the crate for `wasm32-unknown-unknown` and
//! fails if the `.wasm` imports anything.
//!
//! # The folders, bottom to top
//!
//! A module imports only from its own layer or a lower one (`tests/suite/architecture.rs`
//! checks):
//!
//! 1. [`error`], [`ids`], [`time`], [`names`], [`tokens`]: the vocabulary every layer uses.
//! 2. [`ledger`]: the facts. The event wire format and its payloads, the session view folded
//!    from events, the storage traits, compaction rollups and the checkpoint.
//! 3. [`lifecycle`]: judgements drawn from facts (workspace policy, context health, the
//!    timeline). [`notes`]: a session's Markdown note and how Baton's parts are spliced into
//!    one a person edits. [`transcripts`]: other tools' files (detection, the one ingest and line
//!    splitter, ZIP exports, usage per provider, conversations per provider, inspection).
//!    [`records`]: what an agent or a person keeps on purpose (a summary, a review, a pasted
//!    transcript): the store request, when its content goes to a blob, the listing.
//! 4. [`commands`]: decisions that write facts (kernel, params, answers, one file per group
//!    of operations, dispatch, the lines people read). [`analyzer`]: the page's session over
//!    loaded files (list, reader, exports, charts).
//! 5. [`abi`]: the JSON ABI for wasm hosts, the only `unsafe` exports.
//!
//! # How a host drives a command
//!
//! 1. [`commands::prepare`] validates a [`commands::Request`] and resolves its target.
//! 2. The host locks [`commands::Prepared::lock`] (when set) and refreshes its view.
//! 3. [`commands::execute`] returns the events to append and the [`commands::Response`].
//! 4. The host appends each event's [`ledger::event::Event::encode`]d line whole, then answers.
//!
//! # How a host feeds files
//!
//! [`analyzer::Analyzer::begin`] a file, [`analyzer::Analyzer::push`] its chunks (of
//! [`transcripts::ingest::CHUNK_BYTES`]), [`analyzer::Analyzer::pump`] until `done` (archives
//! unpack a slice at a time), then [`analyzer::Analyzer::finish`]; a host that wants one
//! file's contents alone drives [`transcripts::ingest::FileIngest`] the same way.
//!
//! Every failure is an [`Error`] with a stable [`ErrorCode`] from the one registry.

#![deny(missing_docs, unreachable_pub, unsafe_code)]
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod abi;
pub mod analyzer;
pub mod commands;
pub mod error;
pub mod ids;
pub mod ledger;
pub mod lifecycle;
pub mod names;
pub mod notes;
pub mod records;
pub mod share;
pub mod telemetry;
pub mod time;
pub mod tokens;
pub mod transcripts;

pub use error::{Error, ErrorCode, Result};
pub use ids::{EventId, SessionId};
pub use ledger::session::{Session, Status};
pub use time::Timestamp;
