//! `baton usage`: finds every agent's transcripts (the registry's), reads them in parallel through the core's
//! ingest in chunks (never a whole file in memory), and makes the core's report (the faces
//! print it). A progress bar goes to stderr when it is a terminal and the work is long.

pub mod tier;
mod windows;
pub use windows::report as windows_report;

use baton_core::transcripts::tally::UsageTally;
use baton_core::transcripts::usage::{
    CostMode, GroupBy, MissingSource, PriceTable, ReportOptions, UsageReport, aggregate,
};
use baton_core::transcripts::{Provider, UsageEntry};
use baton_core::{Error, Timestamp};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// What to read and how to report it.
#[derive(Debug, Clone)]
pub struct UsageOptions {
    /// Row keys.
    pub group_by: GroupBy,
    /// Which providers (empty: all).
    pub providers: Vec<Provider>,
    /// First instant counted.
    pub since: Option<Timestamp>,
    /// Last instant counted.
    pub until: Option<Timestamp>,
    /// The folders read, by provider (Claude Code's `projects/`, Codex's `sessions/`).
    pub folders: std::collections::BTreeMap<Provider, Vec<PathBuf>>,
    /// A price table file replacing the shipped one.
    pub prices: Option<PathBuf>,
    /// Which cost to show.
    pub cost_mode: CostMode,
    /// The zone of days, weeks and months.
    pub zone: crate::os::zone::HostZone,
    /// The providers whose folders were named on the command line (the others' are the
    /// defaults, and only a provider with nothing in any of them is reported missing).
    pub explicit: std::collections::BTreeSet<Provider>,
    /// Rows by work session instead (`usage session --work`): the ledger's sessions to tie the
    /// responses to.
    pub work_sessions: Option<Vec<baton_core::ledger::session::Session>>,
    /// With `work_sessions`, only the responses that can fall to these work sessions are read
    /// from the index: written since the earliest of them started, or under one of their
    /// provider session ids.
    pub work_focus: Option<WorkFocus>,
    /// With `work_sessions`: the ledger's project folder (a response is the project's when its
    /// working directory is in it).
    pub work_root: Option<String>,
    /// Usage by metered window (`usage blocks`): the windows, with the report's rows by model
    /// beside them. With `work_sessions`, each window's use goes to the work sessions.
    pub windows: Option<baton_core::transcripts::usage::windows::WindowOptions>,
    /// Only the sessions' own responses: a sub-agent's are left out (`--own-only`).
    pub own_only: bool,
}

impl UsageOptions {
    /// Options that narrow nothing: every provider and day, no folders, the shipped prices,
    /// costs as recorded else priced, in `zone`.
    pub fn everything(group_by: GroupBy, zone: crate::os::zone::HostZone) -> UsageOptions {
        UsageOptions {
            group_by,
            providers: Vec::new(),
            since: None,
            until: None,
            folders: std::collections::BTreeMap::new(),
            prices: None,
            cost_mode: baton_core::transcripts::usage::CostMode::Auto,
            zone,
            explicit: std::collections::BTreeSet::new(),
            work_sessions: None,
            work_focus: None,
            work_root: None,
            windows: None,
            own_only: false,
        }
    }
}

/// Ties `options`' responses to the work sessions of `ledger` (a folder with no ledger yet has
/// none: every response stays unlinked).
pub fn by_work_sessions(
    options: &mut UsageOptions,
    ledger: &crate::store::Ledger,
) -> Result<(), Error> {
    use baton_core::ledger::store::LedgerView;
    options.work_sessions = Some(if ledger.dir().is_dir() {
        ledger.snapshot()?.all_sessions()?
    } else {
        Vec::new()
    });
    options.work_root = ledger.dir().parent().map(|root| root.display().to_string());
    Ok(())
}

/// The responses a work-session report needs (see [`UsageOptions::work_focus`]).
#[derive(Debug, Clone)]
pub struct WorkFocus {
    /// The earliest start among the sessions asked about.
    pub since: Timestamp,
    /// Their provider session ids (and attempt ids).
    pub provider_ids: Vec<String>,
}

impl WorkFocus {
    /// The focus of `sessions`.
    pub fn of(sessions: &[&baton_core::ledger::session::Session]) -> Option<WorkFocus> {
        let since = sessions.iter().map(|s| s.started_at).min()?;
        Some(WorkFocus {
            since,
            provider_ids: sessions
                .iter()
                .flat_map(|s| [&s.provider_session_id, &s.attempt_id])
                .flatten()
                .cloned()
                .collect(),
        })
    }
}

/// A folder (or file) transcripts were looked for in.
struct Source {
    provider: Provider,
    path: PathBuf,
    /// Named on the command line (else a default, reported only when its provider found
    /// nothing anywhere).
    explicit: bool,
    files: usize,
}

/// A transcript to read: its agent, path, source (an index), size, and whether it is a tree
/// of files (read whole as one) rather than a file.
struct Found {
    provider: Provider,
    path: PathBuf,
    source: usize,
    bytes: u64,
    tree: bool,
}

/// The transcripts under each source, tagged with the source's index, each with what the
/// walk's `stat` said of it (no second look per file), handed to `out` as they are found.
fn find_transcripts(sources: &mut [Source], out: &mut dyn FnMut(Found)) {
    for (index, source) in sources.iter_mut().enumerate() {
        let entry = source.provider.entry();
        // A file named on the command line is read whatever its name; under a folder, only
        // the agent's transcripts (Gemini CLI keeps logs of its own beside them).
        let folder = source.path.is_dir();
        let tree = baton_core::transcripts::databases::tree_folder(source.provider);
        let (provider, mut count) = (source.provider, 0);
        let mut take = |path: PathBuf, bytes: u64, is_tree: bool| {
            if folder
                && !(entry.wants_file(&path.to_string_lossy())
                    || tree.is_some_and(|t| path.ends_with(t)))
            {
                return;
            }
            count += 1;
            out(Found {
                provider,
                path,
                source: index,
                bytes,
                tree: is_tree,
            });
        };
        if crate::os::places::top_only(source.provider, &source.path) {
            for (path, meta) in crate::os::files::regular_files_in(&source.path, entry.extensions) {
                take(path, meta.len(), false);
            }
            // The tree of files the agent kept before its database, read whole as one.
            if let Some(folder) = crate::os::files::tree_in(source.provider, &source.path) {
                take(folder, 0, true);
            }
        } else {
            crate::os::files::each_file_under(
                &source.path,
                entry.extensions,
                &mut |path, bytes| take(path, bytes, false),
            );
        }
        source.files = count;
    }
}

/// The transcripts found and not yet read: the walk hands them in as it finds them, the
/// readers take them (reading starts with the first file found, not after the last).
#[derive(Default)]
struct Queue {
    /// Waiting, and whether the walk is over.
    state: std::sync::Mutex<(std::collections::VecDeque<Found>, bool)>,
    ready: std::sync::Condvar,
    /// Found so far, and their bytes.
    found: AtomicUsize,
    bytes: AtomicU64,
    walked: std::sync::atomic::AtomicBool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, (std::collections::VecDeque<Found>, bool)> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, found: Found) {
        self.bytes.fetch_add(found.bytes, Ordering::Relaxed);
        self.found.fetch_add(1, Ordering::Relaxed);
        self.lock().0.push_back(found);
        self.ready.notify_one();
    }

    /// The walk is over (also when it panicked: see [`Closing`]).
    fn close(&self) {
        self.walked.store(true, Ordering::Release);
        self.lock().1 = true;
        self.ready.notify_all();
    }

    /// The next transcript to read; `None` once the walk is over and all were taken.
    fn take(&self) -> Option<Found> {
        let mut state = self.lock();
        loop {
            if let Some(found) = state.0.pop_front() {
                return Some(found);
            }
            if state.1 {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Closes the queue when the walk ends, however it ends.
struct Closing<'a>(&'a Queue);

impl Drop for Closing<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// The sources that gave nothing: explicit ones always; defaults when their provider found
/// nothing in any source, except a default folder with none of its agent's files (absent, or
/// Aider's default, the folder Baton runs in, without a history) while another agent's gave
/// usage (that agent is simply not used here: saying so on every run is noise).
/// `usage_lines` counts, per source, the lines read that carry usage.
fn missing_sources(sources: &[Source], usage_lines: &[u64]) -> Vec<MissingSource> {
    let gave = |i: usize| usage_lines.get(i).is_some_and(|n| *n > 0);
    let provider_gave =
        |p: Provider| (0..sources.len()).any(|i| sources[i].provider == p && gave(i));
    let any_gave = (0..sources.len()).any(gave);
    sources
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            !gave(*i)
                && (s.explicit
                    || (!provider_gave(s.provider)
                        && (!any_gave || (s.path.exists() && s.files > 0))))
        })
        .map(|(_, s)| MissingSource {
            provider: s.provider,
            path: s.path.display().to_string(),
            reason: if !s.path.exists() {
                "not_found"
            } else if s.files == 0 {
                "no_transcripts"
            } else {
                "no_usage"
            }
            .to_owned(),
        })
        .collect()
}

#[derive(Default)]
struct WorkerResult {
    /// Lines carrying usage read, per source.
    usage_lines: Vec<u64>,
    /// What this worker counted.
    tally: UsageTally,
    /// The files it could not read, each with why.
    unreadable: Vec<String>,
}

/// The price table: the file the options name, else the shipped one.
pub fn prices(options: &UsageOptions) -> Result<PriceTable, Error> {
    Ok(match &options.prices {
        Some(path) => PriceTable::parse(&crate::os::files::read_regular_text(path, 16 << 20)?)?,
        None => PriceTable::shipped(),
    })
}

/// The report of what was read (the one path from readers to report, for the files and for
/// the index alike).
pub fn report_of(tally: UsageTally, options: &UsageOptions, prices: &PriceTable) -> UsageReport {
    let (mut entries, skipped) = tally.finish();
    tier::mark(&mut entries);
    report_of_entries(entries, skipped, options, prices)
}

/// How the core makes the report `options` ask for, priced by `prices`.
pub fn report_options<'a>(options: &'a UsageOptions, prices: &'a PriceTable) -> ReportOptions<'a> {
    ReportOptions {
        group_by: options.group_by,
        since: options.since,
        until: options.until,
        providers: &options.providers,
        prices,
        cost_mode: options.cost_mode,
        zone: &options.zone,
    }
}

/// The report of entries already counted (each response once) and what was skipped.
pub fn report_of_entries(
    mut entries: Vec<UsageEntry>,
    skipped: std::collections::BTreeMap<String, u64>,
    options: &UsageOptions,
    prices: &PriceTable,
) -> UsageReport {
    baton_core::transcripts::usage::sort_by_time(&mut entries);
    if options.own_only {
        entries.retain(|entry| !entry.delegated);
    }
    let report_options = report_options(options, prices);
    if let Some(asked) = &options.windows {
        let sessions = options
            .work_sessions
            .as_deref()
            .map(|s| (s, options.work_root.as_deref()));
        let windows = baton_core::transcripts::usage::windows::windows(
            &entries,
            &report_options,
            asked,
            sessions,
        );
        return windows::report(&entries, windows, skipped, options, &report_options);
    }
    match &options.work_sessions {
        Some(sessions) if options.group_by.is_by_work() => {
            baton_core::transcripts::usage::aggregate_by_work_key(
                entries,
                sessions,
                options.work_root.as_deref(),
                &report_options,
                skipped,
            )
        }
        Some(sessions) => baton_core::transcripts::usage::aggregate_by_work_session(
            entries,
            sessions,
            options.work_root.as_deref(),
            &report_options,
            skipped,
        ),
        None => aggregate(&entries, &report_options, skipped),
    }
}

/// Reads every file and builds the report.
pub fn report(options: &UsageOptions) -> Result<UsageReport, Error> {
    let prices = prices(options)?;
    let wants = |p: Provider| options.providers.is_empty() || options.providers.contains(&p);
    let mut sources: Vec<Source> = Vec::new();
    // Agents whose files keep no tokens are looked for only to say so.
    let mut silent: Vec<Source> = Vec::new();
    for (provider, dirs) in &options.folders {
        let (provider, explicit) = (*provider, options.explicit.contains(provider));
        if !wants(provider) {
            continue;
        }
        let into = if provider.has_usage() {
            &mut sources
        } else {
            &mut silent
        };
        into.extend(dirs.iter().map(|path| Source {
            provider,
            path: path.clone(),
            explicit,
            files: 0,
        }));
    }
    let mut silent_found = Vec::new();
    find_transcripts(&mut silent, &mut |found| silent_found.push(found.provider));
    let without_tokens = baton_core::transcripts::providers::without_tokens(silent_found);
    let queue = Queue::default();
    let done_files = AtomicUsize::new(0);
    let done_bytes = AtomicU64::new(0);
    // Every reader has stopped (a reader that panicked never counts its file done).
    let all_read = std::sync::atomic::AtomicBool::new(false);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let source_count = sources.len();
    let show_progress = std::io::stderr().is_terminal();
    let results: Vec<WorkerResult> = std::thread::scope(|scope| {
        let walk = scope.spawn(|| {
            let _closing = Closing(&queue);
            find_transcripts(&mut sources, &mut |found| queue.push(found));
        });
        let progress = show_progress.then(|| {
            scope.spawn(|| {
                let mut drawn = false;
                loop {
                    let walked = queue.walked.load(Ordering::Acquire);
                    let found = queue.found.load(Ordering::Relaxed);
                    let done = done_files.load(Ordering::Relaxed);
                    if (walked && done >= found) || all_read.load(Ordering::Relaxed) {
                        break;
                    }
                    let total = queue.bytes.load(Ordering::Relaxed);
                    // Shown only for a long read: more than 32 MB of transcripts.
                    let bytes_read = done_bytes.load(Ordering::Relaxed);
                    if total > 32 * 1024 * 1024 && walked {
                        crate::os::files::draw_progress(
                            "Reading transcripts",
                            &format!("{done}/{found} files, "),
                            bytes_read,
                            total,
                        );
                        drawn = true;
                    } else if total > 32 * 1024 * 1024 {
                        // Still finding them: counts, and a bar once the total is known.
                        crate::os::files::draw_counting(
                            "Reading transcripts",
                            &format!(
                                "{done} read of {found} found so far, {:.0} MB",
                                bytes_read as f64 / 1e6
                            ),
                        );
                        drawn = true;
                    }
                    // Woken at once when the reading ends: a short read does not wait out a
                    // redraw's pause.
                    std::thread::park_timeout(std::time::Duration::from_millis(120));
                }
                if drawn {
                    crate::os::files::clear_progress();
                }
            })
        });
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut result = WorkerResult {
                        usage_lines: vec![0; source_count],
                        ..WorkerResult::default()
                    };
                    while let Some(found) = queue.take() {
                        read_one(&mut result, &found, &|n| {
                            done_bytes.fetch_add(n, Ordering::Relaxed);
                        });
                        done_files.fetch_add(1, Ordering::Relaxed);
                    }
                    result
                })
            })
            .collect();
        let results = handles.into_iter().filter_map(|h| h.join().ok()).collect();
        all_read.store(true, Ordering::Relaxed);
        if let Some(progress) = progress {
            progress.thread().unpark();
            let _ = progress.join();
        }
        // A walk that failed is not a smaller report.
        if let Err(panic) = walk.join() {
            std::panic::resume_unwind(panic);
        }
        results
    });
    let found = queue.found.load(Ordering::Relaxed);
    if found == 0 && !without_tokens.is_empty() {
        // Only agents without tokens here: a report that says so, and what was asked for
        // and not found, as a full report says it.
        let missing = missing_sources(&sources, &[]);
        for source in missing.iter().filter(|m| {
            sources
                .iter()
                .any(|s| s.explicit && s.path.display().to_string() == m.path)
        }) {
            crate::os::warnings::warn(&source.describe());
        }
        let mut report = report_of(UsageTally::new(), options, &prices);
        report.without_tokens = without_tokens;
        report.missing_sources = missing;
        return Ok(report);
    }
    if found == 0 {
        let missing = missing_sources(&sources, &[]);
        let described = baton_core::transcripts::usage::describe_missing(&missing);
        return Err(Error::no_transcripts(
            &described,
            serde_json::to_value(&missing).unwrap_or_default(),
        ));
    }
    let mut tally = UsageTally::new();
    let mut usage_lines = vec![0u64; sources.len()];
    for result in &results {
        for (total, n) in usage_lines.iter_mut().zip(&result.usage_lines) {
            *total += n;
        }
    }
    let missing = missing_sources(&sources, &usage_lines);
    for source in missing.iter().filter(|m| {
        sources
            .iter()
            .any(|s| s.explicit && s.path.display().to_string() == m.path)
    }) {
        crate::os::warnings::warn(&source.describe());
    }
    for result in results {
        tally.merge(result.tally);
        for message in result.unreadable {
            crate::os::warnings::warn(&format!("skipped {message}"));
        }
    }

    let mut report = report_of(tally, options, &prices);
    report.missing_sources = missing;
    report.without_tokens = without_tokens;
    Ok(report)
}

/// Reads one transcript (a file, or a tree of files read whole) into a worker's tally,
/// reporting the bytes read to `progress`.
fn read_one(result: &mut WorkerResult, found: &Found, progress: &dyn Fn(u64)) {
    let Found {
        provider,
        path,
        source,
        tree,
        ..
    } = found;
    // A tree of files (OpenCode's before its database): read whole.
    if *tree {
        let (store, bytes, _) = crate::os::files::read_tree(path, *provider);
        progress(bytes);
        let part = baton_core::transcripts::ingest::store_decoded(&store);
        result.usage_lines[*source] += result.tally.absorb_decoded(part);
        return;
    }
    // The tally reads each file as its provider counts it.
    let name = path.display().to_string();
    let mut ingest = result.tally.ingest(*provider, &name);
    // A database's log, read before it (see `FileIngest::set_log`).
    if let Some(log) = crate::os::files::log_beside(path) {
        ingest.set_log(log);
    }
    for (name, bytes) in crate::os::files::companions_of(*provider, path) {
        ingest.give_companion(&name, bytes);
    }
    let read = crate::os::files::read_in_chunks(path, |chunk| ingest.push(chunk), progress);
    let (added, read) = result.tally.absorb(ingest, read);
    result.usage_lines[*source] += added;
    if let Err(e) = read {
        // As before the ingest: the path, then what went wrong.
        let cause = e.details.get("cause").and_then(|c| c.as_str());
        result.unreadable.push(format!(
            "{}: {}",
            path.display(),
            cause.unwrap_or(&e.message)
        ));
        result.tally.count_unreadable();
    }
}

/// What the whole lines a Claude Code transcript gained after a byte offset hold.
#[derive(Debug, Default)]
pub struct ClaudeTail {
    /// The responses, each counted once (see the core's Claude Code reader).
    pub entries: Vec<UsageEntry>,
    /// Where the last whole line read ends (`from` when none was).
    pub end: u64,
    /// The file's size now.
    pub size: u64,
}

/// Reads a Claude Code transcript's whole lines from byte `from`, at most `limit` bytes of
/// them (a line still being written waits for the next read), and counts their responses:
/// what a hook records at a turn's end and the status line adds to the index's tallies.
pub fn claude_tail(path: &str, from: u64, limit: u64) -> std::io::Result<ClaudeTail> {
    let read = crate::os::files::whole_lines_after(std::path::Path::new(path), from, limit)?;
    let mut tail = ClaudeTail {
        entries: Vec::new(),
        end: read.end,
        size: read.size,
    };
    if !read.bytes.is_empty() {
        let mut reader = baton_core::transcripts::usage::claude_code::ClaudeCodeUsage::new();
        reader.push_bytes(&read.bytes);
        tail.entries = reader.finish().0;
    }
    Ok(tail)
}
