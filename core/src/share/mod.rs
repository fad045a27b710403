//! Sharing what agents did with someone else: what to leave out of it first.

pub mod redact;
