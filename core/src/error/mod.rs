//! The one registry of Baton's stable error codes, and the error value every layer returns.
//!
//! A code is defined once here, documented in one line, and never reused for another meaning.
//! Hosts map codes at their edge (CLI exit status, MCP `isError` results, JavaScript `Error`
//! objects with a `code` property) but never invent codes of their own.

mod constructors;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// Declares the registry: each code with its wire name and a one-line meaning.
macro_rules! error_codes {
    ($($variant:ident => $wire:literal, $doc:literal;)*) => {
        /// A stable, documented error code. The wire form is SCREAMING_SNAKE_CASE.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[non_exhaustive]
        pub enum ErrorCode {
            $(#[doc = $doc] #[serde(rename = $wire)] $variant,)*
        }

        impl ErrorCode {
            /// Every code in the registry, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The wire name, e.g. `AMBIGUOUS_SESSION`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $wire,)* }
            }

            /// The one-line meaning documented for this code.
            pub fn summary(self) -> &'static str {
                match self { $(ErrorCode::$variant => $doc,)* }
            }

            /// Looks a code up by its wire name.
            pub fn from_wire(name: &str) -> Option<ErrorCode> {
                match name { $($wire => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    InvalidArgument => "INVALID_ARGUMENT", "An argument is missing, malformed or unsafe; nothing was written.";
    SessionNotFound => "SESSION_NOT_FOUND", "No work session has the given id in this ledger.";
    SessionProjectMismatch => "SESSION_PROJECT_MISMATCH", "The session exists but belongs to a different project than the one supplied.";
    SessionNotActive => "SESSION_NOT_ACTIVE", "The session has ended, so it cannot be resumed or changed.";
    SessionAlreadyClosed => "SESSION_ALREADY_CLOSED", "The session was already ended; no second end was recorded.";
    NoActiveSession => "NO_ACTIVE_SESSION", "No live session matches the filters, so there is nothing to resolve implicitly.";
    AmbiguousSession => "AMBIGUOUS_SESSION", "Several live sessions match; pick one of the listed candidates and retry with its id.";
    PermissionDenied => "PERMISSION_DENIED", "The acting person's role lacks the permission this operation needs.";
    ActorNotAllowed => "ACTOR_NOT_ALLOWED", "A coding agent asked for what only a person may do (lift a pause, approve a contract, set the constitution, or act on a session that is not its own: pause, end, resume, report on, brief or correct it); nothing was written.";
    ClientNotApproved => "CLIENT_NOT_APPROVED", "The coding client is not on the workspace's approved list; nothing else was disclosed.";
    MissionNotFound => "MISSION_NOT_FOUND", "No mission with that reference exists in this workspace.";
    MissionNotApproved => "MISSION_NOT_APPROVED", "The mission's contract is still a draft; a lead must approve it before work starts.";
    MissionRequired => "MISSION_REQUIRED", "This workspace requires every session to name a mission.";
    SessionNotPaused => "SESSION_NOT_PAUSED", "The session is not paused, so there is nothing to unpause.";
    BudgetExceeded => "BUDGET_EXCEEDED", "A budget rule is at its limit (or past its warning share, as `budget check --fail-at warn` asks); the details list each rule with its figures.";
    AmbiguityNotFound => "AMBIGUITY_NOT_FOUND", "No ambiguity has that number.";
    RecordNotFound => "RECORD_NOT_FOUND", "No stored record has that id or prefix.";
    AmbiguousRecord => "AMBIGUOUS_RECORD", "Several stored records start with that prefix; the details list them: give more of the id.";
    RecordContentDamaged => "RECORD_CONTENT_DAMAGED", "A stored record's content blob (under .baton/blobs/) is missing, cut or altered; restore it from a copy of the ledger.";
    NotARecord => "NOT_A_RECORD", "The id names something else (a work session, a mirrored conversation); the details say which kind.";
    RunRefused => "RUN_REFUSED", "An AI run report carried prompt or output text; it was refused and recorded as refused.";
    UnknownFormat => "UNKNOWN_FORMAT", "The file is none of the transcript or export formats Baton reads; the message says what was seen.";
    FormatTooNew => "FORMAT_TOO_NEW", "The file was written in a newer version of its format than this build reads; update Baton.";
    ArchiveDamaged => "ARCHIVE_DAMAGED", "A ZIP archive is truncated or corrupt (no end record, an entry past the end, a bad checksum); download the export again.";
    ArchiveUnsupported => "ARCHIVE_UNSUPPORTED", "A ZIP archive uses a feature Baton does not read (encryption, a compression other than deflate); unzip it and open conversations.json.";
    ArchiveTooLarge => "ARCHIVE_TOO_LARGE", "A ZIP entry would inflate past Baton's bounds (its size, or its size against its compressed size, is a zip bomb's); nothing of it was read.";
    DatabaseDamaged => "DATABASE_DAMAGED", "An agent's SQLite database could not be read: a page or a row points past the file, a tree loops, or a value is cut (often a file caught mid-write; the next pass reads it again).";
    NoConversationsInArchive => "NO_CONVERSATIONS_IN_ARCHIVE", "A ZIP archive holds no conversations.json (or split conversations-NNN.json); the details list what it holds.";
    FileUnreadable => "FILE_UNREADABLE", "A chosen file could not be read (moved, deleted or no longer permitted since it was chosen); choose it again.";
    NoTranscripts => "NO_TRANSCRIPTS", "No transcript was found in any folder looked in; the details list each folder and why it gave nothing.";
    EventTooLarge => "EVENT_TOO_LARGE", "The encoded event line is over the byte limit that keeps appends atomic.";
    StoreIo => "STORE_IO", "The ledger could not be read or written (permissions, disk full, missing directory).";
    StoreUnsafe => "STORE_UNSAFE", "A file or folder of the ledger is a symbolic link, FIFO or device, or the ledger belongs to another user; Baton refused to follow it. The details name the path.";
    StoreBusy => "STORE_BUSY", "Another process holds the ledger's compaction lock; try again shortly.";
    IndexDamaged => "INDEX_DAMAGED", "The transcript index is damaged (SQLite finds it malformed, or no database at all). It holds only copies: delete it and run `baton mirror` to build it again from the transcripts.";
    PageNotBuilt => "PAGE_NOT_BUILT", "This binary was built without the web page; run www/build.sh, then rebuild baton.";
    ServeFailed => "SERVE_FAILED", "The local web server could not start (port in use, or not allowed).";
    Internal => "INTERNAL", "A bug in Baton: an invariant failed. Please report it with the details.";
}

impl ErrorCode {
    /// The process exit status a CLI should use for this code: 255 for `INTERNAL` (a bug in
    /// Baton, not something the caller did), 1 for every other coded error. (Usage errors,
    /// which have no code, exit 2.)
    pub fn exit_status(self) -> i32 {
        match self {
            ErrorCode::Internal => 255,
            _ => 1,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code, a message a person can act on, and structured details.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[error("{code}: {message}")]
pub struct Error {
    /// The stable code from the registry.
    pub code: ErrorCode,
    /// What went wrong and what to do about it.
    pub message: String,
    /// Machine-readable data: the candidates of an ambiguity, the limit that was exceeded, …
    pub details: Map<String, Value>,
}

/// The result type of every fallible core operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A new error with empty details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds one detail field.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Error {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// `INVALID_ARGUMENT` naming the offending field.
    pub fn invalid(field: &str, problem: impl Into<String>) -> Error {
        let problem = problem.into();
        Error::new(ErrorCode::InvalidArgument, format!("{field}: {problem}"))
            .with("field", field)
            .with("problem", problem)
    }

    /// `STORE_IO` for a failed read or write, naming the path and the operation.
    pub fn store_io(operation: &str, path: &str, cause: impl fmt::Display) -> Error {
        Error::new(
            ErrorCode::StoreIo,
            format!("could not {operation} {path}: {cause}"),
        )
        .with("operation", operation)
        .with("path", path)
        .with("cause", cause.to_string())
    }

    /// `INTERNAL` for a broken invariant.
    pub fn internal(what: impl Into<String>) -> Error {
        let what = what.into();
        Error::new(ErrorCode::Internal, format!("internal error: {what}")).with("what", what)
    }

    /// The JSON envelope every host prints: `{"error":{"code":…,"message":…,"details":{…}}}`.
    pub fn to_envelope(&self) -> Value {
        serde_json::json!({ "error": self })
    }
}

/// The registry as a Markdown table (the source of `docs/errors.md`).
pub fn registry_markdown() -> String {
    let mut text = String::from(
        "# Error codes\n\nGenerated from `core/src/error.rs` (`cargo test -p baton-core --test suite docs` checks it; \
         `BATON_UPDATE_DOCS=1` rewrites it). Every coded error exits the CLI with status 1 (`INTERNAL`, a bug, with 255), answers the JSON ABI as `{\"error\":…}`, \
         and is a JavaScript `Error` with this `code` in the browser.\n\n\
         | code | meaning |\n| --- | --- |\n",
    );
    for code in ErrorCode::ALL {
        text.push_str(&format!("| `{}` | {} |\n", code.as_str(), code.summary()));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn codes_are_unique_screaming_snake_and_round_trip() {
        let mut seen = HashSet::new();
        for &code in ErrorCode::ALL {
            let wire = code.as_str();
            assert!(seen.insert(wire), "duplicate code {wire}");
            assert!(
                wire.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{wire} is not SCREAMING_SNAKE"
            );
            assert_eq!(ErrorCode::from_wire(wire), Some(code));
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{wire}\""));
            assert!(!code.summary().is_empty());
        }
    }

    #[test]
    fn envelope_has_code_message_details() {
        let err = Error::invalid("project", "must not be empty");
        let env = err.to_envelope();
        assert_eq!(env["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(env["error"]["details"]["field"], "project");
        assert_eq!(env["error"]["message"], "project: must not be empty");
    }

    #[test]
    fn exit_statuses_follow_the_kind_of_error() {
        assert_eq!(
            ErrorCode::Internal.exit_status(),
            255,
            "a bug, not the caller's doing"
        );
        for &code in ErrorCode::ALL {
            if code != ErrorCode::Internal {
                assert_eq!(code.exit_status(), 1, "{code}");
            }
        }
    }
}
