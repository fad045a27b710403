//! Plan limits as every face asks for them: which windows (five hours or seven days, all,
//! the recent ones or the open one), against what token limit, and whether each says who used
//! it (the windows themselves are the core's; the usage report carries them); and what the
//! agents themselves last said of their limits (Codex in its newest rollouts).

use baton_core::transcripts::usage::windows::{
    FIVE_HOURS_MS, Keep, SEVEN_DAYS_MS, TokenLimit, WindowOptions,
};
use baton_core::{Error, Timestamp};

/// How far back the recent windows reach.
pub const RECENT_MS: i64 = 3 * 24 * 3_600_000;

/// Which windows to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Only {
    /// The open one.
    Active,
    /// Those of the last three days.
    Recent,
}

/// A request for usage by window.
#[derive(Debug, Clone, Copy, Default)]
pub struct WindowAsk {
    /// Seven-day windows instead of five-hour ones.
    pub week: bool,
    /// Which windows to keep (all when absent).
    pub only: Option<Only>,
    /// The limit to measure against.
    pub token_limit: Option<TokenLimit>,
    /// Whether each window says who used it.
    pub by_session: bool,
}

impl WindowAsk {
    /// The core's options for this request at `now`.
    pub fn options(&self, now: Timestamp) -> WindowOptions {
        WindowOptions {
            length_ms: if self.week {
                SEVEN_DAYS_MS
            } else {
                FIVE_HOURS_MS
            },
            now,
            token_limit: self.token_limit,
            by_session: self.by_session,
            keep: match self.only {
                None => Keep::All,
                Some(Only::Active) => Keep::Active,
                Some(Only::Recent) => Keep::EndingAfter {
                    at: Timestamp::from_millis(now.millis() - RECENT_MS),
                },
            },
        }
    }
}

/// How many of the newest folders, at each level of a sessions tree (year, month, day), are
/// looked in for the newest rollouts.
const NEWEST_FOLDERS: usize = 3;
/// How many of the most recently written rollouts are read for limits.
const NEWEST_FILES: usize = 4;
/// How much of each rollout's end is read.
const TAIL_BYTES: u64 = 512 * 1024;

/// What Codex last said of its plan's limits, from the most recently written rollouts under
/// `dirs` (its `sessions` folders: the newest year, month and day folders, by name, then the
/// files by when they were written, so a resumed old rollout counts when it was written to
/// last), as they stand at `now`. None when no rollout says.
pub fn codex_latest(
    dirs: &[std::path::PathBuf],
    now: Timestamp,
) -> Option<baton_core::transcripts::limits::PlanLimits> {
    let mut files: Vec<(std::time::SystemTime, std::path::PathBuf)> = Vec::new();
    for dir in dirs {
        newest_rollouts(dir, 0, &mut files);
    }
    latest_in(files, baton_core::transcripts::limits::codex_latest).map(|limits| limits.at(now))
}

/// What Claude Code's newest transcripts under `dirs` (its `projects` folders) last said of
/// its limit: the message it writes when a request is refused at the limit.
fn claude_latest(
    dirs: &[std::path::PathBuf],
) -> Option<baton_core::transcripts::limits::PlanLimits> {
    let mut files = Vec::new();
    for dir in dirs {
        let Ok(projects) = std::fs::read_dir(dir) else {
            continue;
        };
        for project in projects.flatten() {
            if !project.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let Ok(entries) = std::fs::read_dir(project.path()) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "jsonl")
                    && let Ok(written) = entry.metadata().and_then(|m| m.modified())
                {
                    files.push((written, path));
                }
            }
        }
    }
    latest_in(files, baton_core::transcripts::limits::claude_latest)
}

/// The latest limits `read` finds in the ends of the most recently written of `files`.
fn latest_in(
    mut files: Vec<(std::time::SystemTime, std::path::PathBuf)>,
    read: fn(&str) -> Option<baton_core::transcripts::limits::PlanLimits>,
) -> Option<baton_core::transcripts::limits::PlanLimits> {
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files
        .iter()
        .take(NEWEST_FILES)
        .filter_map(|(_, path)| {
            let size = std::fs::metadata(path).ok()?.len();
            let from = size.saturating_sub(TAIL_BYTES);
            let whole = crate::os::files::whole_lines_after(path, from, TAIL_BYTES).ok()?;
            let text = String::from_utf8_lossy(&whole.bytes);
            // A cut first line is no line.
            let text = if from > 0 {
                text.split_once('\n').map_or("", |(_, rest)| rest)
            } else {
                &text
            };
            read(text)
        })
        .max_by_key(|limits| limits.observed_at)
}

/// Where the latest limits an agent reported through Baton's status line are kept (in the
/// user's cache folder): Claude Code gives them only to its status-line command.
fn kept_limits_path(provider: baton_core::transcripts::Provider) -> Option<std::path::PathBuf> {
    crate::os::places::cache_dir().map(|cache| {
        cache
            .join("limits")
            .join(format!("{}.json", crate::wire_name(&provider)))
    })
}

/// Keeps the limits an agent just reported, for `usage blocks` and the MCP tool to show
/// (written whole; only when they changed). Best effort: a cache that cannot be written
/// loses nothing else.
pub fn keep_reported(limits: &baton_core::transcripts::limits::PlanLimits) {
    let Some(path) = kept_limits_path(limits.provider) else {
        return;
    };
    if let Some(kept) = read_kept(&path)
        && kept.primary == limits.primary
        && kept.secondary == limits.secondary
        && kept.plan_type == limits.plan_type
    {
        return;
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_string(limits) {
        let _ = crate::os::files::write_whole(&path, text.as_bytes());
    }
}

fn read_kept(path: &std::path::Path) -> Option<baton_core::transcripts::limits::PlanLimits> {
    let text = crate::os::files::read_regular_text(path, 64 * 1024).ok()?;
    serde_json::from_str(&text).ok()
}

/// What each agent last said of its plan's limits, as they stand at `now`: Claude Code's as
/// its status line last reported them or its newest transcripts under `claude_dirs` last
/// refused a request at the limit (the later), Codex's from its newest rollouts under
/// `codex_dirs` (each agent's default folders when none are given).
pub fn agents_latest(
    claude_dirs: &[std::path::PathBuf],
    codex_dirs: &[std::path::PathBuf],
    now: Timestamp,
) -> Vec<baton_core::transcripts::limits::PlanLimits> {
    use baton_core::transcripts::Provider;
    let or_default = |dirs: &[std::path::PathBuf], provider: Provider| {
        if dirs.is_empty() {
            crate::os::places::provider_dirs(provider)
        } else {
            dirs.to_vec()
        }
    };
    // The status line's word, or the transcripts' refusal at the limit: the later.
    let claude = kept_limits_path(Provider::ClaudeCode)
        .and_then(|path| read_kept(&path))
        .into_iter()
        .chain(claude_latest(&or_default(
            claude_dirs,
            Provider::ClaudeCode,
        )))
        .max_by_key(|limits| limits.observed_at)
        .map(|limits| limits.at(now));
    claude
        .into_iter()
        .chain(codex_latest(&or_default(codex_dirs, Provider::Codex), now))
        .collect()
}

/// The rollouts of the newest folders under `dir`, with when each was last written: the
/// newest folder first, depth first, until enough are found.
fn newest_rollouts(
    dir: &std::path::Path,
    depth: usize,
    out: &mut Vec<(std::time::SystemTime, std::path::PathBuf)>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut folders = Vec::new();
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            folders.push(path);
        } else if kind.is_file()
            && path.extension().is_some_and(|e| e == "jsonl")
            && let Ok(written) = entry.metadata().and_then(|m| m.modified())
        {
            out.push((written, path));
        }
    }
    if depth < 3 {
        folders.sort();
        for folder in folders.iter().rev().take(NEWEST_FOLDERS) {
            if out.len() >= 2 * NEWEST_FILES {
                break;
            }
            newest_rollouts(folder, depth + 1, out);
        }
    }
}

/// A token limit as a person writes it: a whole number of tokens (`5000000`, `5_000_000` or
/// `5,000,000`), or `max` for the most any ended window used.
pub fn parse_token_limit(text: &str) -> Result<TokenLimit, Error> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("max") {
        return Ok(TokenLimit::HighestPast);
    }
    let digits: String = text.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    match digits.parse::<u64>() {
        Ok(n) if n > 0 => Ok(TokenLimit::Tokens(n)),
        _ => Err(Error::invalid(
            "token_limit",
            format!(
                "`{text}` is not a token limit: give a whole number of tokens (5000000) or `max`"
            ),
        )),
    }
}

/// Which windows, as a word (`active` or `recent`).
pub fn parse_only(text: &str) -> Result<Only, Error> {
    match text.trim() {
        "active" => Ok(Only::Active),
        "recent" => Ok(Only::Recent),
        other => Err(Error::invalid(
            "only",
            format!("`{other}`: use active (the open window) or recent (the last three days)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_limits_read_as_people_write_them() {
        assert_eq!(
            parse_token_limit("5,000,000").ok(),
            Some(TokenLimit::Tokens(5_000_000))
        );
        assert_eq!(
            parse_token_limit(" 5_000 ").ok(),
            Some(TokenLimit::Tokens(5_000))
        );
        assert_eq!(parse_token_limit("MAX").ok(), Some(TokenLimit::HighestPast));
        for bad in ["0", "-3", "lots", "", "1.5"] {
            let err = parse_token_limit(bad).expect_err(bad);
            assert!(
                err.message.contains("not a token limit"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn recent_keeps_three_days_back_from_now() {
        let now = Timestamp::from_millis(10 * RECENT_MS);
        let ask = WindowAsk {
            only: Some(Only::Recent),
            ..WindowAsk::default()
        };
        assert_eq!(
            ask.options(now).keep,
            Keep::EndingAfter {
                at: Timestamp::from_millis(9 * RECENT_MS)
            }
        );
        assert_eq!(ask.options(now).length_ms, FIVE_HOURS_MS);
        assert!(parse_only("soon").is_err());
    }
}
