//! Sharing what agents did with someone else: what to leave out of it first, how it reads as
//! one HTML file, and how that file is locked with a password.

pub mod document;
pub mod html;
pub mod make;
pub mod markdown;
pub mod redact;
pub mod seal;
