//! The outside world the core may not touch: the clock, fresh ids, this host's name, the person
//! acting, the coding agent whose shell runs Baton, and the repository's HEAD.
//!
//! `BATON_NOW` pins the clock (ISO 8601) for tests and replays; without it the system clock is
//! used. Ids are UUIDv7 from the system clock and the OS random source.

use baton_core::Timestamp;

/// The current time, or `BATON_NOW` when set.
pub fn now() -> Result<Timestamp, baton_core::Error> {
    match crate::os::env::var("BATON_NOW") {
        Ok(pinned) if !pinned.trim().is_empty() => Timestamp::parse(pinned.trim()),
        _ => Ok(Timestamp::from_millis(
            chrono::Utc::now().timestamp_millis(),
        )),
    }
}

/// A fresh UUIDv7.
pub fn new_uuid() -> uuid::Uuid {
    uuid::Uuid::now_v7()
}

/// This machine's host name (empty when it cannot be read).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

/// The person acting: `BATON_ACTOR`, else the OS user, else `local`.
pub fn person() -> String {
    ["BATON_ACTOR", "USER", "LOGNAME"]
        .iter()
        .find_map(|var| {
            crate::os::env::var(var)
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .map_or_else(|| "local".to_owned(), |v| v.trim().to_owned())
}

/// The coding agent whose shell runs this process, from the markers agents set in their
/// commands' environment: `BATON_AGENT` (any harness may set it), `CLAUDECODE` (Claude Code),
/// `CODEX_SANDBOX` or `CODEX_SANDBOX_NETWORK_DISABLED` (Codex), `GEMINI_CLI` (Gemini CLI),
/// `CURSOR_AGENT` (Cursor's agent). `None` at a person's own terminal.
pub fn calling_agent() -> Option<String> {
    let set = |name: &str| crate::os::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if let Some(name) = crate::os::env::var("BATON_AGENT")
        .ok()
        .map(|v| v.trim().to_lowercase())
        .filter(|v| !v.is_empty())
    {
        return Some(name);
    }
    [
        ("CLAUDECODE", "claude-code"),
        ("CODEX_SANDBOX", "codex"),
        ("CODEX_SANDBOX_NETWORK_DISABLED", "codex"),
        ("GEMINI_CLI", "gemini-cli"),
        ("CURSOR_AGENT", "cursor"),
    ]
    .into_iter()
    .find(|(marker, _)| set(marker))
    .map(|(_, agent)| agent.to_owned())
}

/// Where the working directory stands in git: its commit, branch and worktree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitState {
    /// What `git rev-parse HEAD` prints.
    pub commit: Option<String>,
    /// The branch HEAD is on (`git branch --show-current`); none when detached.
    pub branch: Option<String>,
    /// The working copy's top folder (`git rev-parse --show-toplevel`): a linked worktree's
    /// own.
    pub worktree: Option<String>,
}

/// The repository commit of the working directory (what `git rev-parse HEAD` prints).
pub fn git_head() -> Option<String> {
    git_state().and_then(|state| state.commit)
}

/// The working directory's commit, branch and worktree, read from `.git` directly — no
/// process is spawned, so every start can afford it. Handles worktrees (`.git` files),
/// symbolic and detached HEADs, loose and packed refs. None outside a repository.
pub fn git_state() -> Option<GitState> {
    let cwd = std::env::current_dir().ok()?;
    git_state_in(&cwd)
}

/// [`git_state`] of the folder `cwd`.
pub fn git_state_in(cwd: &std::path::Path) -> Option<GitState> {
    let dot_git = cwd
        .ancestors()
        .map(|d| d.join(".git"))
        .find(|p| p.exists())?;
    let worktree = dot_git.parent().map(|top| top.display().to_string());
    let git_dir = if dot_git.is_file() {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text.trim().strip_prefix("gitdir:")?.trim().to_owned();
        dot_git.parent()?.join(target)
    } else {
        dot_git
    };
    // A linked worktree keeps its refs in the common directory.
    let common = std::fs::read_to_string(git_dir.join("commondir"))
        .map(|c| git_dir.join(c.trim()))
        .unwrap_or_else(|_| git_dir.clone());
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    let Some(reference) = head.strip_prefix("ref:").map(str::trim) else {
        return Some(GitState {
            commit: is_commit(head).then(|| head.to_owned()),
            branch: None,
            worktree,
        });
    };
    let branch = reference
        .strip_prefix("refs/heads/")
        .filter(|b| !b.is_empty())
        .map(str::to_owned);
    let loose = [&git_dir, &common].into_iter().find_map(|dir| {
        let hash = std::fs::read_to_string(dir.join(reference)).ok()?;
        let hash = hash.trim();
        is_commit(hash).then(|| hash.to_owned())
    });
    // A branch with no commit yet (a new repository) has neither a loose nor a packed ref.
    let commit = loose.or_else(|| {
        let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
        packed.lines().find_map(|line| {
            let (hash, name) = line.split_once(' ')?;
            (name == reference && is_commit(hash)).then(|| hash.to_owned())
        })
    });
    Some(GitState {
        commit,
        branch,
        worktree,
    })
}

fn is_commit(text: &str) -> bool {
    (text.len() == 40 || text.len() == 64) && text.bytes().all(|b| b.is_ascii_hexdigit())
}
