//! One typed constructor for each code that carries details: the message a person reads and
//! the details a program acts on are built here, in one place, from typed arguments, so two
//! call sites of one code cannot drift apart.

use super::{Error, ErrorCode};
use serde_json::{Value, json};
use std::fmt::Display;

/// How many characters of a file an error shows.
const EXCERPT_CHARS: usize = 60;

/// A short, printable, redacted excerpt of a file's first bytes, for an error message a person
/// may paste anywhere: control characters dropped, anything shaped like an e-mail address
/// (a word with an `@`) masked, and digit runs of 6 or more digits (phone numbers written with
/// spaces, dashes, dots or brackets included, account ids) masked; then cut to
/// [`EXCERPT_CHARS`] characters and an ellipsis. Masking comes before the cut, so a cut never
/// leaves a fragment unmasked.
pub(crate) fn excerpt(text: &str) -> String {
    let printable: String = text
        .chars()
        .filter(|c| !c.is_control() && *c != '\u{feff}')
        .take(4096)
        .collect();
    let mut masked = String::with_capacity(printable.len());
    let separator = |c: char| c.is_whitespace() || "\",;:<>()[]{}'`".contains(c);
    for word in printable.split_inclusive(separator) {
        let (body, end) = match word.char_indices().last() {
            Some((at, c)) if separator(c) => word.split_at(at),
            _ => (word, ""),
        };
        if body
            .split_once('@')
            .is_some_and(|(user, _)| !user.is_empty())
        {
            masked.push_str("<email>");
        } else {
            masked.push_str(body);
        }
        masked.push_str(end);
    }
    let masked = mask_digit_runs(&masked);
    let mut out: String = masked.chars().take(EXCERPT_CHARS).collect();
    if masked.chars().nth(EXCERPT_CHARS).is_some() {
        out.push('…');
    }
    out
}

/// `text` with the digits of every run holding 6 or more of them replaced by `#`; a run is
/// digits and the characters phone numbers are written with (`+`, space, `-`, `.`, `(`, `)`)
/// between them.
fn mask_digit_runs(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let joiner = |c: char| matches!(c, '+' | ' ' | '-' | '.' | '(' | ')');
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        if !chars[at].is_ascii_digit() {
            out.push(chars[at]);
            at += 1;
            continue;
        }
        // The run: digits, and joiners with a digit after them.
        let mut end = at;
        let mut digits = 0;
        let mut scan = at;
        while scan < chars.len() && (chars[scan].is_ascii_digit() || joiner(chars[scan])) {
            if chars[scan].is_ascii_digit() {
                digits += 1;
                end = scan + 1;
            }
            scan += 1;
        }
        for &c in &chars[at..end] {
            out.push(if digits >= 6 && c.is_ascii_digit() {
                '#'
            } else {
                c
            });
        }
        at = end;
    }
    out
}

fn ended_at_text(ended_at: Option<&impl Display>) -> String {
    ended_at.map(ToString::to_string).unwrap_or_default()
}

impl Error {
    /// `SESSION_NOT_FOUND` in a ledger.
    pub fn session_not_found(id: impl Display) -> Error {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("no work session {id} in this ledger; `baton list --all` shows the known ones"),
        )
        .with("session_id", id.to_string())
    }

    /// `SESSION_NOT_FOUND` among the ledgers loaded into an analyzer.
    pub fn session_not_loaded(id: &str) -> Error {
        Error::new(
            ErrorCode::SessionNotFound,
            format!("no work session {id} in the loaded ledgers"),
        )
        .with("session_id", id)
    }

    /// `SESSION_NOT_ACTIVE`: something was to be recorded against an ended session.
    pub fn session_not_active(id: impl Display, status: &str) -> Error {
        Error::new(
            ErrorCode::SessionNotActive,
            format!("session {id} has ended ({status}); nothing more can be recorded against it"),
        )
        .with("session_id", id.to_string())
        .with("status", status)
    }

    /// `SESSION_NOT_ACTIVE`: an ended session was to be resumed.
    pub fn session_not_resumable(
        id: impl Display,
        status: &str,
        ended_at: Option<impl Display>,
    ) -> Error {
        Error::new(
            ErrorCode::SessionNotActive,
            format!(
                "session {id} ended ({status}) at {}; start a new session with --parent {id} to continue its work",
                ended_at_text(ended_at.as_ref())
            ),
        )
        .with("session_id", id.to_string())
        .with("status", status)
    }

    /// `SESSION_ALREADY_CLOSED`: a second end.
    pub fn session_already_closed(
        id: impl Display,
        status: &str,
        ended_at: Option<impl Display>,
    ) -> Error {
        Error::new(
            ErrorCode::SessionAlreadyClosed,
            format!(
                "session {id} was already ended ({status}) at {}; nothing was recorded",
                ended_at_text(ended_at.as_ref())
            ),
        )
        .with("session_id", id.to_string())
        .with("status", status)
        .with("ended_at", json!(ended_at.map(|t| t.to_string())))
    }

    /// `SESSION_PROJECT_MISMATCH`.
    pub fn session_project_mismatch(id: impl Display, expected: &str, actual: &str) -> Error {
        Error::new(
            ErrorCode::SessionProjectMismatch,
            format!("session {id} belongs to project `{actual}`, not `{expected}`"),
        )
        .with("session_id", id.to_string())
        .with("expected_project", expected)
        .with("actual_project", actual)
    }

    /// `SESSION_NOT_PAUSED`.
    pub fn session_not_paused(id: impl Display) -> Error {
        Error::new(
            ErrorCode::SessionNotPaused,
            format!("session {id} is not paused"),
        )
        .with("session_id", id.to_string())
    }

    /// `BUDGET_EXCEEDED`: the rules that failed the check, in words and as figures.
    pub fn budget_exceeded(described: &[String], rules: Value) -> Error {
        Error::new(
            ErrorCode::BudgetExceeded,
            format!("budget reached: {}", described.join("; ")),
        )
        .with("rules", rules)
    }

    /// `NO_ACTIVE_SESSION`: the filters (in words, and as given) matched no live session.
    pub fn no_active_session(described: &str, filters: Value) -> Error {
        Error::new(
            ErrorCode::NoActiveSession,
            format!("no live work session matches {described}; start one, or pass a session id"),
        )
        .with("filters", filters)
    }

    /// `AMBIGUOUS_SESSION`: several live sessions matched; the candidates are listed.
    pub fn ambiguous_session(described: &str, candidates: Vec<Value>, filters: Value) -> Error {
        Error::new(
            ErrorCode::AmbiguousSession,
            format!(
                "{} live work sessions match {described}; none was ended. Name one of the candidates",
                candidates.len()
            ),
        )
        .with("candidates", candidates)
        .with("filters", filters)
    }

    /// `RECORD_NOT_FOUND`: nothing stored has the id or prefix asked.
    pub fn record_not_found(asked: &str) -> Error {
        Error::new(
            ErrorCode::RecordNotFound,
            format!("no stored record is `{asked}`: `baton record list` shows them"),
        )
        .with("id", asked)
    }

    /// `AMBIGUOUS_RECORD`: several stored records start with the prefix; each is listed.
    pub fn ambiguous_record(asked: &str, candidates: Vec<String>) -> Error {
        Error::new(
            ErrorCode::AmbiguousRecord,
            format!(
                "{} stored records start with `{asked}`: give more of the id",
                candidates.len()
            ),
        )
        .with("id", asked)
        .with("candidates", candidates)
    }

    /// `NOT_A_RECORD`: the id names something else; `kind` is its wire name, `described`
    /// how a person reads it.
    pub fn not_a_record(asked: &str, id: &str, kind: &str, described: &str) -> Error {
        let message = if asked == id {
            format!("`{id}` is {described}, not a stored record")
        } else {
            format!("`{asked}` names {described} ({id}), not a stored record")
        };
        Error::new(ErrorCode::NotARecord, message)
            .with("id", id)
            .with("kind", kind)
    }

    /// `RECORD_CONTENT_DAMAGED`: the blob holding a record's content is missing or not the
    /// bytes its name promises.
    pub fn record_content_damaged(record: &str, sha256: &str, why: &str) -> Error {
        Error::new(
            ErrorCode::RecordContentDamaged,
            format!(
                "the content of the stored record {record} is damaged: {why} (blob {sha256} under .baton/blobs/; restore it from a copy of the ledger)"
            ),
        )
        .with("id", record)
        .with("blob", sha256)
    }

    /// `INDEX_DAMAGED`: the transcript index at `path` failed a read or its own check
    /// (`cause`); the command that rebuilds it is in the message and the details.
    pub fn index_damaged(path: &str, cause: &str) -> Error {
        let fix = format!("rm '{path}'* && baton mirror");
        Error::new(
            ErrorCode::IndexDamaged,
            format!(
                "the transcript index {path} is damaged ({cause}); it holds only copies of your transcripts: delete it and build it again with `{fix}`"
            ),
        )
        .with("path", path)
        .with("cause", cause)
        .with("fix", fix)
    }

    /// `MISSION_NOT_FOUND`.
    pub fn mission_not_found(reference: &str) -> Error {
        Error::new(
            ErrorCode::MissionNotFound,
            format!(
                "no mission `{reference}`; add it with `baton mission add {reference} --contract FILE`"
            ),
        )
        .with("reference", reference)
    }

    /// `MISSION_NOT_APPROVED`: the newest contract is still a draft.
    pub fn mission_not_approved(reference: &str, version: u32) -> Error {
        Error::new(
            ErrorCode::MissionNotApproved,
            format!(
                "{reference} is still a draft (contract v{version}); a lead must approve it (`baton mission approve {reference}`) before an agent can start on it"
            ),
        )
        .with("reference", reference)
        .with("version", version)
    }

    /// `MISSION_REQUIRED`.
    pub fn mission_required() -> Error {
        Error::new(
            ErrorCode::MissionRequired,
            "this workspace requires a mission: pass --mission REF",
        )
    }

    /// `AMBIGUITY_NOT_FOUND`.
    pub fn ambiguity_not_found(number: u32) -> Error {
        Error::new(
            ErrorCode::AmbiguityNotFound,
            format!("no open ambiguity #{number}"),
        )
        .with("number", number)
    }

    /// `RUN_REFUSED`: a run report carried text Baton must not keep.
    pub fn run_refused(id: impl Display, reason: &str) -> Error {
        Error::new(ErrorCode::RunRefused, format!("run refused: {reason}"))
            .with("session_id", id.to_string())
    }

    /// `PERMISSION_DENIED`: `role` in words (`viewer`, `not a member`).
    pub fn permission_denied(person: &str, role: &str, permission: &str) -> Error {
        Error::new(
            ErrorCode::PermissionDenied,
            format!(
                "`{person}` ({role}) lacks {permission}; an owner can change roles in .baton/config.toml"
            ),
        )
        .with("person", person)
        .with("permission", permission)
    }

    /// `ACTOR_NOT_ALLOWED`: the agent `agent` asked for `operation` (its wire name, and
    /// `in_words` for the sentence), on `session` (its id and agent) when there is one.
    pub fn actor_not_allowed(
        agent: &str,
        operation: &str,
        in_words: &str,
        session: Option<(&dyn Display, &str)>,
    ) -> Error {
        let whose = match session {
            Some((id, owner)) if !owner.eq_ignore_ascii_case(agent) => {
                format!(" (session {id} is run by `{owner}`)")
            }
            _ => String::new(),
        };
        let mut error = Error::new(
            ErrorCode::ActorNotAllowed,
            format!(
                "`{agent}` is a coding agent, and {in_words} is for a person{whose}; ask the person to do it from their own terminal. The workspace's operator can let agents do it with `agents_may_steer = true` in .baton/config.toml"
            ),
        )
        .with("actor", agent)
        .with("actor_kind", "agent")
        .with("operation", operation);
        if let Some((id, owner)) = session {
            error = error
                .with("session_id", id.to_string())
                .with("session_agent", owner);
        }
        error
    }

    /// `CLIENT_NOT_APPROVED`.
    pub fn client_not_approved(name: &str) -> Error {
        Error::new(
            ErrorCode::ClientNotApproved,
            format!("the coding client `{name}` is not approved in this workspace"),
        )
        .with("client_name", name)
    }

    /// `UNKNOWN_FORMAT`: what the file starts with, and what Baton reads (`Claude Code, Codex
    /// or … transcript`, named by the caller from the registry).
    pub fn unknown_format(seen: &str, read: &str) -> Error {
        let seen = excerpt(seen);
        Error::new(
            ErrorCode::UnknownFormat,
            format!("not a {read} (it starts with `{seen}`)"),
        )
        .with("seen", seen)
    }

    /// `UNKNOWN_FORMAT`: one of an export's side files (the account, projects, feedback…)
    /// opened on its own; nothing of what it holds is echoed.
    pub fn export_side_file(name: &str) -> Error {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        Error::new(
            ErrorCode::UnknownFormat,
            format!(
                "{base} is one of the side files of a ChatGPT or claude.ai export and holds no conversations: open conversations.json, or the export's folder or .zip"
            ),
        )
        .with("file", name)
        .with("side_file", base)
    }

    /// `UNKNOWN_FORMAT`: one file of OpenCode's tree of files (its sessions, messages and
    /// parts before its database), which is read with the rest of its tree.
    pub fn tree_file(name: &str, root: &str) -> Error {
        Error::new(
            ErrorCode::UnknownFormat,
            format!(
                "{name} is one file of OpenCode's tree of files (its sessions before the database), read only with the rest of its tree: open its data folder (the one holding {root}) instead"
            ),
        )
        .with("file", name)
        .with("tree", root)
    }

    /// `UNKNOWN_FORMAT`: the file holds nothing.
    pub fn empty_file(name: &str) -> Error {
        Error::new(
            ErrorCode::UnknownFormat,
            format!("{name} is empty: expected a transcript, an export or a ledger"),
        )
        .with("file", name)
    }

    /// `FORMAT_TOO_NEW`: a ledger of a newer format version.
    pub fn ledger_too_new(version: Value) -> Error {
        Error::new(
            ErrorCode::FormatTooNew,
            format!(
                "this Baton ledger has format version {version}; this build reads version 1: update Baton"
            ),
        )
        .with("version", version)
    }

    /// `NO_CONVERSATIONS_IN_ARCHIVE`: `total` entries, the first of which are named.
    pub fn no_conversations_in_archive(name: &str, total: usize, first: Vec<String>) -> Error {
        Error::new(
            ErrorCode::NoConversationsInArchive,
            format!(
                "{name} is a ZIP archive without conversations.json: expected a ChatGPT or claude.ai export ({total} entries, none of them conversations)"
            ),
        )
        .with("file", name)
        .with("entries", first)
    }

    /// `FILE_UNREADABLE`: a file chosen in the page could not be read when its turn came;
    /// `reason` is what the browser said.
    pub fn file_unreadable(name: &str, reason: &str) -> Error {
        Error::new(
            ErrorCode::FileUnreadable,
            format!(
                "{name} could not be read ({reason}): it may have been moved, deleted or locked since it was chosen; choose it again"
            ),
        )
        .with("name", name)
        .with("reason", reason)
    }

    /// `NO_TRANSCRIPTS`: no folder looked in held a transcript; `described` says why each gave
    /// nothing, `missing` lists them for a program (`provider`, `path`, `reason`).
    pub fn no_transcripts(described: &[String], missing: Value) -> Error {
        let looked = if described.is_empty() {
            "there was no folder to look in (HOME is not set)".to_owned()
        } else {
            described.join("; ")
        };
        Error::new(
            ErrorCode::NoTranscripts,
            format!(
                "nothing to count: {looked}. Name an agent's folder with its flag (--claude-dir, --codex-dir, …: `baton usage --help` lists them)"
            ),
        )
        .with("missing_sources", missing)
    }

    /// `ARCHIVE_TOO_LARGE`: an entry whose inflated size is over `limit`, or too many times its
    /// compressed size.
    pub fn archive_too_large(entry: &str, size: u64, compressed: u64, limit: &str) -> Error {
        Error::new(
            ErrorCode::ArchiveTooLarge,
            format!(
                "{entry} would inflate to {size} bytes from {compressed} ({limit}): refused as a zip bomb; unzip it yourself if you trust it"
            ),
        )
        .with("entry", entry)
        .with("size", size)
        .with("compressed_size", compressed)
    }

    /// `STORE_UNSAFE`: a path of the ledger that is not the plain file or folder Baton made.
    pub fn store_unsafe(path: &str, what: &str) -> Error {
        Error::new(
            ErrorCode::StoreUnsafe,
            format!(
                "{path} {what}; Baton does not follow it (someone else may have planted it): remove it, or check who made it"
            ),
        )
        .with("path", path)
        .with("problem", what)
    }

    /// `ARCHIVE_UNSUPPORTED`: an archive inside an archive.
    pub fn nested_archive(name: &str) -> Error {
        Error::new(
            ErrorCode::ArchiveUnsupported,
            format!("{name} holds an archive inside an archive; unzip it first"),
        )
        .with("file", name)
    }

    /// `ARCHIVE_DAMAGED`.
    pub fn archive_damaged(problem: &str) -> Error {
        Error::new(
            ErrorCode::ArchiveDamaged,
            format!(
                "the ZIP archive is damaged or truncated: {problem}; download the export again"
            ),
        )
        .with("problem", problem)
    }

    /// `DATABASE_DAMAGED`.
    pub fn database_damaged(problem: &str) -> Error {
        Error::new(
            ErrorCode::DatabaseDamaged,
            format!(
                "the SQLite database could not be read: {problem}; one read or copied while its agent wrote it can look so: read it again, or copy it with the agent stopped"
            ),
        )
        .with("problem", problem)
    }

    /// `STORE_BUSY`: another compaction holds the lock.
    pub fn compaction_running(holder: &str) -> Error {
        Error::new(
            ErrorCode::StoreBusy,
            format!("another compaction is running ({holder}); try again when it ends"),
        )
        .with("holder", holder)
    }

    /// `SERVE_FAILED`: the port could not be bound.
    pub fn cannot_listen(port: u16, cause: impl std::fmt::Display) -> Error {
        Error::new(
            ErrorCode::ServeFailed,
            format!("could not listen on 127.0.0.1:{port}: {cause}; pick another with --port"),
        )
        .with("port", port)
    }
}
