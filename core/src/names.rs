//! Validation and normalization of the names callers supply: projects, agents, clients, ids.
//!
//! A project or agent name becomes part of presentation paths and filters, so it must be safe:
//! not empty, no path separators or `..`, no NUL or control characters, at most 128 bytes.

use crate::error::{Error, Result};

/// The longest name, in bytes, that Baton accepts.
pub const MAX_NAME_BYTES: usize = 128;

/// Checks a project or agent name and returns it trimmed.
pub(crate) fn safe_name(field: &str, raw: &str) -> Result<String> {
    let name = raw.trim();
    let refuse = |problem: &str| Err(Error::invalid(field, problem).with("value", raw));
    if name.is_empty() {
        return refuse("must not be empty");
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(
            field,
            format!("is {} bytes; the limit is {MAX_NAME_BYTES}", name.len()),
        )
        .with("limit", MAX_NAME_BYTES)
        .with("size", name.len()));
    }
    if name.contains('/') || name.contains('\\') {
        return refuse("must not contain `/` or `\\`");
    }
    if name.contains("..") {
        return refuse("must not contain `..`");
    }
    if name.chars().any(char::is_control) {
        return refuse("must not contain NUL or control characters");
    }
    Ok(name.to_owned())
}

/// Normalizes an agent identity: trimmed and lower-case, so `Claude` and `claude ` are one.
pub(crate) fn normalize_agent(raw: &str) -> Result<String> {
    safe_name("agent", raw).map(|name| name.to_lowercase())
}

/// Checks a free label such as a client name or a run id: not empty, no control characters,
/// at most 128 bytes. Slashes and spaces are allowed (`Claude Code`, `ci/build-7`).
pub fn label(field: &str, raw: &str) -> Result<String> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(Error::invalid(field, "must not be empty").with("value", raw));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(
            field,
            format!("is {} bytes; the limit is {MAX_NAME_BYTES}", name.len()),
        )
        .with("limit", MAX_NAME_BYTES)
        .with("size", name.len()));
    }
    if name.chars().any(char::is_control) {
        return Err(
            Error::invalid(field, "must not contain NUL or control characters").with("value", raw),
        );
    }
    Ok(name.to_owned())
}

/// Free text (goal, summary): NUL is refused, everything else is kept as given.
pub(crate) fn free_text(field: &str, raw: &str) -> Result<String> {
    if raw.contains('\0') {
        return Err(Error::invalid(field, "must not contain NUL characters"));
    }
    Ok(raw.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names_are_refused() {
        let long = "x".repeat(129);
        for bad in [
            "", "   ", "a/b", "a\\b", "..", "a..b", "a\0b", "a\nb", "a\u{7f}", &long,
        ] {
            let err = safe_name("project", bad).unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::InvalidArgument, "{bad:?}");
            assert_eq!(err.details["field"], "project");
        }
        assert_eq!(safe_name("project", &"x".repeat(128)).unwrap().len(), 128);
    }

    #[test]
    fn agents_normalize_to_one_identity() {
        assert_eq!(normalize_agent("Claude").unwrap(), "claude");
        assert_eq!(normalize_agent(" claude ").unwrap(), "claude");
    }

    #[test]
    fn labels_allow_spaces_and_slashes() {
        assert_eq!(
            label("client_name", " Claude Code ").unwrap(),
            "Claude Code"
        );
        assert_eq!(label("run_id", "ci/build-7").unwrap(), "ci/build-7");
        assert!(label("client_name", "a\tb").is_err());
    }
}
