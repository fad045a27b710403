//! The status line's last lines, per Claude session, in the user's cache folder: read when
//! fresh, written whole, one computation at a time (single flight), and the stale line shown
//! while another computes.

use super::*;

/// How long a computed line is reused while nothing it depends on changed (the limits' pace
/// and the times move even when the files do not).
pub(super) const FRESH_FOR_MS: i64 = 5_000;

/// The last good line of a session, and what it was computed from.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Cached {
    line: String,
    computed_at: i64,
    fingerprint: String,
    /// How many times a line was computed for this session (the single-flight's witness).
    computations: u64,
    /// Today's cost of the transcript's part the index has not read, as far as it was read.
    #[serde(default)]
    tail: Option<TailSum>,
}

/// The private folder the last good lines are kept in: `statusline/` in Baton's folder of the
/// user's cache folder (`~/.cache/baton/statusline` on Linux), else one in the temporary folder
/// named for this user. Made 0700; refused when it is a link or someone else's.
pub(super) fn cache_folder() -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let folder = match crate::os::places::cache_dir() {
        Some(cache) => cache.join("statusline"),
        None => std::env::temp_dir().join(format!("baton-statusline-{uid}")),
    };
    let _ = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder);
    let meta = std::fs::symlink_metadata(&folder).ok()?;
    (meta.is_dir() && meta.uid() == uid).then_some(folder)
}

/// A file name for a session id (whatever it holds).
pub(super) fn cache_key(session_id: &str) -> String {
    format!(
        "{:016x}",
        baton_core::ledger::checkpoint::fnv1a64(session_id.as_bytes())
    )
}

pub(super) fn read_cached(folder: &Path, key: &str) -> Option<Cached> {
    let text =
        crate::os::files::read_regular_text(folder.join(format!("{key}.json")), 1 << 20).ok()?;
    serde_json::from_str(&text).ok()
}

/// Writes the cache whole: a temporary file, then a rename.
pub(super) fn write_cached(folder: &Path, key: &str, cached: &Cached) {
    let Ok(text) = serde_json::to_string(cached) else {
        return;
    };
    let temporary = folder.join(format!(".{key}.{}.tmp", std::process::id()));
    if std::fs::write(&temporary, text).is_ok() {
        let _ = std::fs::rename(&temporary, folder.join(format!("{key}.json")));
        let _ = std::fs::write(folder.join("last.txt"), &cached.line);
    }
}

/// The last good line of session `key` (of any session when the input named none), marked
/// stale; else a short problem. Another session's line is never shown for a named session.
pub(super) fn stale_line(
    folder: &Path,
    key: Option<&str>,
    problem: &str,
    options: &Options,
) -> String {
    let last = match key {
        Some(k) => read_cached(folder, k).map(|c| c.line),
        None => crate::os::files::read_regular_text(folder.join("last.txt"), 1 << 20).ok(),
    }
    .filter(|l| !l.trim().is_empty());
    match last {
        Some(line) => format!("{line} {}", paint("(stale)", Tone::Dim, options.colour)),
        None => fallback(problem),
    }
}

/// One computation per session at a time: the lock's holder computes and keeps the line; an
/// invocation that finds it held prints the last good line. A line computed in the last few
/// seconds from the same files is reused.
pub(super) fn single_flight(
    folder: &Path,
    key: &str,
    input: &Input,
    options: &Options,
    now: Timestamp,
) -> Result<String, Error> {
    use std::os::fd::AsRawFd;
    let fingerprint = fingerprint(input, options);
    let cached = read_cached(folder, key);
    if let Some(c) = &cached
        && c.fingerprint == fingerprint
        && (now.millis() - c.computed_at).abs() < FRESH_FOR_MS
    {
        return Ok(c.line.clone());
    }
    let lock_path = folder.join(format!("{key}.lock"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags_nofollow()
        .open(&lock_path)
        .map_err(|e| Error::store_io("open", &lock_path.display().to_string(), e))?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` closes.
    let try_lock = || unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
    let mut taken = try_lock();
    if !taken {
        // Another invocation is computing: its last good line will do. With none yet, wait a
        // little for the one being computed.
        if let Some(c) = cached {
            return Ok(c.line);
        }
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            taken = try_lock();
            if taken {
                break;
            }
        }
        if !taken {
            return Ok(stale_line(
                folder,
                Some(key),
                "another invocation is still computing",
                options,
            ));
        }
    }
    // Someone may have finished computing while this one waited for the lock.
    let cached = read_cached(folder, key);
    if let Some(c) = &cached
        && c.fingerprint == fingerprint
        && (now.millis() - c.computed_at).abs() < FRESH_FOR_MS
    {
        return Ok(c.line.clone());
    }
    let previous_tail = cached.as_ref().and_then(|c| c.tail.clone());
    let (line, tail) = compute(input, options, now, previous_tail)?;
    write_cached(
        folder,
        key,
        &Cached {
            line: line.clone(),
            computed_at: now.millis(),
            fingerprint,
            computations: cached.map_or(0, |c| c.computations) + 1,
            tail,
        },
    );
    Ok(line)
}

/// `OpenOptions` that refuse a symbolic link at the last component.
pub(super) trait NoFollow {
    fn custom_flags_nofollow(&mut self) -> &mut Self;
}

impl NoFollow for std::fs::OpenOptions {
    fn custom_flags_nofollow(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NOFOLLOW)
    }
}

/// What the line depends on: the transcript's and the ledger's sizes and times, the hook's own
/// figures, and the options.
pub(super) fn fingerprint(input: &Input, options: &Options) -> String {
    let stamp = |path: Option<&Path>| {
        path.and_then(|p| std::fs::metadata(p).ok())
            .map(|m| {
                use std::os::unix::fs::MetadataExt;
                format!("{}:{}", m.len(), m.mtime_nsec() + m.mtime() * 1_000_000_000)
            })
            .unwrap_or_default()
    };
    let ledger = ledger_of(input);
    format!(
        "{}|{}|{}|{:?}|{:?}|{:?}|{:?}|{}|{}",
        stamp(input.transcript_path.as_deref().map(Path::new)),
        stamp(
            ledger
                .as_ref()
                .map(|l| l.dir().join("events.ndjson"))
                .as_deref()
        ),
        stamp(
            ledger
                .as_ref()
                .map(|l| crate::index::path_for(l.dir()))
                .as_deref()
        ),
        input.cost.as_ref().and_then(|c| c.total_cost_usd),
        input
            .context_window
            .as_ref()
            .and_then(|c| c.used_percentage),
        input
            .rate_limits
            .as_ref()
            .and_then(|r| r.five_hour.as_ref())
            .and_then(|w| w.used_percentage),
        input
            .rate_limits
            .as_ref()
            .and_then(|r| r.seven_day.as_ref())
            .and_then(|w| w.used_percentage),
        options.segments.join(","),
        options.width,
    )
}
