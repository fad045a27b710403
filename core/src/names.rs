//! Validation and normalization of the names callers supply: projects, agents, clients, ids.
//!
//! A project or agent name becomes part of presentation paths and filters, so it must be safe:
//! not empty, no path separators or `..`, no NUL or control characters, no invisible or
//! bidirectional formatting characters (`evil\u{202E}gnp.exe` would read as `evilexe.png`), no
//! letters of scripts that pass for each other mixed in one name (`pаypal` with a Cyrillic
//! `а`), at most 128 bytes, and in Unicode NFKC so two spellings of one name (`ｃｌａｕｄｅ`
//! and `claude`) are one name.

use crate::error::{Error, Result};
use unicode_normalization::UnicodeNormalization;

/// Whether `c` changes how text around it reads without being seen: zero-width characters,
/// bidirectional embeddings, overrides and isolates, and the byte order mark. Names refuse
/// them, and a host showing text on a terminal escapes them.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// The refusal of a name holding an invisible or bidirectional character, naming it.
fn refuse_invisible(field: &str, raw: &str) -> Result<()> {
    match raw.chars().find(|c| is_invisible_format(*c)) {
        Some(c) => Err(Error::invalid(
            field,
            format!(
                "must not contain invisible or direction-changing characters (U+{:04X})",
                u32::from(c)
            ),
        )
        .with("value", raw)),
        None => Ok(()),
    }
}

/// The refusal of a name whose letters mix scripts that pass for each other: Latin with
/// Cyrillic or Greek, or any mix UTS #39 does not count as at most moderately restrictive.
/// Latin with Han, kana or Hangul (`日本語-app`), and names in one script, pass.
fn refuse_confusable_mix(field: &str, raw: &str, name: &str) -> Result<()> {
    use unicode_security::{MixedScript, RestrictionLevel, RestrictionLevelDetection};
    let letters: String = name.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.as_str().is_single_script() {
        return Ok(());
    }
    match letters.as_str().detect_restriction_level() {
        RestrictionLevel::MinimallyRestrictive | RestrictionLevel::Unrestricted => Err(
            Error::invalid(
                field,
                "mixes letters of scripts that look alike (Latin with Cyrillic or Greek, say), so it could pass for another name; write it in one script",
            )
            .with("value", raw),
        ),
        _ => Ok(()),
    }
}

/// The longest name, in bytes, that Baton accepts.
pub const MAX_NAME_BYTES: usize = 128;

/// `Ok` when `name` fits [`MAX_NAME_BYTES`]; else `INVALID_ARGUMENT` with its size and the
/// limit.
fn within_limit(field: &str, name: &str) -> Result<()> {
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::invalid(
            field,
            format!("is {} bytes; the limit is {MAX_NAME_BYTES}", name.len()),
        )
        .with("limit", MAX_NAME_BYTES)
        .with("size", name.len()));
    }
    Ok(())
}

/// Checks a project or agent name and returns it trimmed.
pub(crate) fn safe_name(field: &str, raw: &str) -> Result<String> {
    let normalized: String = raw.trim().nfkc().collect();
    let name = normalized.as_str();
    let refuse = |problem: &str| Err(Error::invalid(field, problem).with("value", raw));
    if name.is_empty() {
        return refuse("must not be empty");
    }
    within_limit(field, name)?;
    if name.contains('/') || name.contains('\\') {
        return refuse("must not contain `/` or `\\`");
    }
    if name.contains("..") {
        return refuse("must not contain `..`");
    }
    if name.chars().any(char::is_control) {
        return refuse("must not contain NUL or control characters");
    }
    refuse_invisible(field, raw)?;
    refuse_confusable_mix(field, raw, name)?;
    Ok(name.to_owned())
}

/// Normalizes an agent identity: trimmed and lower-case, so `Claude` and `claude ` are one.
pub(crate) fn normalize_agent(raw: &str) -> Result<String> {
    safe_name("agent", raw).map(|name| name.to_lowercase())
}

/// The coding agents known by more than one name: first the name Baton records for it (the
/// hooks', the MCP server's and the CLI's default alike), then the names earlier versions,
/// MCP clients (`clientInfo.name`) and people have used for it.
const AGENT_NAMES: &[&[&str]] = &[
    &[
        "claude-code",
        "claude",
        "claude_code",
        "claudecode",
        "claude code",
    ],
    &[
        "codex",
        "codex-cli",
        "codex_cli",
        "codex-mcp-client",
        "openai-codex",
    ],
    &[
        "gemini-cli",
        "gemini",
        "gemini_cli",
        "gemini-cli-mcp-client",
    ],
    &["cursor", "cursor-agent", "cursor-vscode"],
    &["copilot", "copilot-cli", "github-copilot"],
];

/// The one name of the agent `name` stands for (`claude` and `Claude_Code` are `claude-code`),
/// else `name` itself, lower-cased and trimmed.
pub fn canonical_agent(name: &str) -> String {
    let lowered = name.trim().to_lowercase();
    AGENT_NAMES
        .iter()
        .find(|names| names.contains(&lowered.as_str()))
        .map_or(lowered, |names| names[0].to_owned())
}

/// Whether two agent names stand for one agent (a session recorded as `claude` is found by
/// `claude-code`).
pub fn same_agent(a: &str, b: &str) -> bool {
    a == b || canonical_agent(a) == canonical_agent(b)
}

/// Checks a free label such as a client name or a run id: not empty, no control characters,
/// at most 128 bytes. Slashes and spaces are allowed (`Claude Code`, `ci/build-7`).
pub fn label(field: &str, raw: &str) -> Result<String> {
    let normalized: String = raw.trim().nfkc().collect();
    let name = normalized.as_str();
    if name.is_empty() {
        return Err(Error::invalid(field, "must not be empty").with("value", raw));
    }
    within_limit(field, name)?;
    if name.chars().any(char::is_control) {
        return Err(
            Error::invalid(field, "must not contain NUL or control characters").with("value", raw),
        );
    }
    refuse_invisible(field, raw)?;
    refuse_confusable_mix(field, raw, name)?;
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
        assert_eq!(canonical_agent("Claude"), "claude-code");
        assert_eq!(canonical_agent("codex-mcp-client"), "codex");
        assert_eq!(canonical_agent("my-bot"), "my-bot");
        assert!(same_agent("claude", "claude-code"));
        assert!(!same_agent("claude", "codex"));
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

    #[test]
    fn names_refuse_invisible_and_direction_changing_characters_and_are_nfc() {
        for bad in [
            "evil\u{202E}gnp.exe",
            "a\u{200B}b",
            "\u{2066}x",
            "x\u{FEFF}",
        ] {
            let err = safe_name("project", bad).unwrap_err();
            assert!(
                err.message.contains("invisible"),
                "{bad:?}: {}",
                err.message
            );
            assert!(label("client_name", bad).is_err(), "{bad:?}");
        }
        // `e` + combining acute and the precomposed `é` are one project.
        assert_eq!(
            safe_name("project", "caf\u{65}\u{301}").unwrap(),
            safe_name("project", "caf\u{e9}").unwrap()
        );
        // Full-width letters and ligatures are the letters they stand for (NFKC).
        assert_eq!(
            safe_name("agent", "\u{ff43}\u{ff4c}aude").unwrap(),
            "claude"
        );
        assert_eq!(label("client_name", "\u{fb01}x").unwrap(), "fix");
    }

    #[test]
    fn names_that_mix_look_alike_scripts_are_refused_and_one_script_passes() {
        // A Cyrillic `а` in a Latin name, a Greek `ο` in another: each passes for a name it
        // is not.
        for bad in ["p\u{430}ypal", "g\u{3bf}\u{3bf}gle-app", "webapp-\u{435}"] {
            let err = safe_name("project", bad).unwrap_err();
            assert!(err.message.contains("scripts"), "{bad:?}: {}", err.message);
            assert!(label("client_name", bad).is_err(), "{bad:?}");
        }
        for good in [
            "webapp",
            "\u{43f}\u{440}\u{43e}\u{435}\u{43a}\u{442}",
            "\u{65e5}\u{672c}\u{8a9e}-app",
            "caf\u{e9}-2",
            "\u{3b1}\u{3b2}\u{3b3}",
        ] {
            assert!(safe_name("project", good).is_ok(), "{good:?}");
        }
        assert!(label("client_name", "Claude Code").is_ok());
    }
}
