//! The filesystem ledger: a `.baton/` directory that any number of processes append to at
//! once, with no daemon and no lock on ordinary appends.
//!
//! Layout:
//! - `events.ndjson`: the active log. It opens with a header line naming its generation;
//!   every other line is one event, appended with a single `write` on an `O_APPEND`
//!   descriptor and fsync'd unless disabled.
//! - `archive/YYYY-MM.ndjson`: monthly rollups written by compaction; `archive/preserved.ndjson`
//!   keeps every corrupt or foreign line compaction met, byte for byte.
//! - `sealed-*.ndjson`: logs compaction has taken out of service and not yet rolled up.
//! - `checkpoint.ndjson`: the fold at an offset of the active log (a cache, validated on use).
//! - `compact.lock`: held exclusively by compaction and shared by readers (flock: a dead
//!   holder's lock is released by the kernel, so a stale lock is taken over by the next caller).
//! - `locks/stripe-NN.lock`: serializes resume and end of one session across processes. A
//!   session maps to one of 256 stripes by its id's last byte, so the folder never grows past
//!   256 files (creating a file per session made every end slower as the folder grew); two
//!   sessions on one stripe only wait for each other's few-millisecond critical section.
//!
//! See `append.rs` for why an append racing compaction is never lost.

mod append;
mod checkpoint;
mod compact;
mod doctor;
mod kept;
mod own;
mod snapshot;

pub use compact::CompactReport;
pub use doctor::DoctorReport;
pub use snapshot::Snapshot;

use baton_core::{Error, SessionId};
use std::fs::{self, File, OpenOptions};
use std::path::{Path, PathBuf};

/// The name of the ledger directory found by walking up from the working directory.
pub const LEDGER_DIR_NAME: &str = ".baton";
const ACTIVE: &str = "events.ndjson";
const ARCHIVE: &str = "archive";
const PRESERVED: &str = "preserved.ndjson";
const CHECKPOINT: &str = "checkpoint.ndjson";
const COMPACT_LOCK: &str = "compact.lock";
const SESSION_LOCKS: &str = "locks";
/// How many lock files share out the sessions (see the module docs).
const SESSION_LOCK_STRIPES: usize = 256;
const SEALED_PREFIX: &str = "sealed-";

/// What a new ledger's `.gitignore` keeps out of git: the caches, locks and temporaries, and
/// what is derived from private transcripts or a person's own writing. The history
/// (`events.ndjson`, `archive/`) and the policy (`config.toml`) are left to commit; `notes/` is
/// Baton's state about the session notes, `vault/` the notes themselves (a person's words and
/// their transcripts' titles: shared only when the person deletes that line), `blobs/` stored
/// records' content (pasted transcripts among them).
pub const GITIGNORE: &str = "\
# Written by Baton when it made this ledger. Commit the history (events.ndjson, archive/) and
# the policy (config.toml) if the team should share them; what follows is rebuilt as needed
# or private to you (delete the vault/ line to share the session notes).
checkpoint.ndjson
checkpoint.tmp-*
compact.lock
hook.log
locks/
notes/
vault/
blobs/
index.sqlite*
.*.tmp-*
.events.ndjson.new-*
# Names this machine for `baton sync`: each clone makes its own.
machine-id
";

/// The first line of the `.gitignore` Baton writes: a file that still starts with it is
/// Baton's to extend when a later version keeps more out of git.
const GITIGNORE_HEADER: &str = "# Written by Baton when it made this ledger.";

/// The line a later Baton writes above the patterns it adds to an earlier one's `.gitignore`.
const GITIGNORE_ADDED: &str = "# Added by a later Baton";

/// The patterns the first Baton's `.gitignore` did not list.
const LATER_PATTERNS: &[&str] = &["vault/", "blobs/", "index.sqlite*"];

/// The patterns of [`GITIGNORE`]: what Baton writes in a ledger that is not to be committed.
pub fn private_patterns() -> impl Iterator<Item = &'static str> {
    GITIGNORE
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
}

/// Whether `relative` (a path inside the ledger, `/`-separated) is one [`private_patterns`]
/// keeps out of git: a pattern ending in `/` is a folder and all inside it, `*` any run of
/// characters within a name.
pub fn is_private(relative: &str) -> bool {
    fn glob(pattern: &str, name: &str) -> bool {
        match pattern.split_once('*') {
            None => pattern == name,
            Some((head, tail)) => name.strip_prefix(head).is_some_and(|rest| {
                (0..=rest.len())
                    .filter(|&at| rest.is_char_boundary(at))
                    .any(|at| glob(tail, &rest[at..]))
            }),
        }
    }
    let first = relative.split('/').next().unwrap_or_default();
    private_patterns().any(|pattern| match pattern.strip_suffix('/') {
        Some(folder) => relative.contains('/') && glob(folder, first),
        None => !relative.contains('/') && glob(pattern, relative),
    })
}

/// Adds to a `.gitignore` an earlier Baton wrote (it still starts with Baton's first line)
/// the patterns this version keeps out of git that it lacks, under a line saying so. A file a
/// person wrote, or whose first line they changed, is theirs: left alone.
fn extend_gitignore(path: &Path) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return;
    }
    let Ok(text) = fs::read_to_string(path) else {
        return;
    };
    if !text.starts_with(GITIGNORE_HEADER) {
        return;
    }
    let present: std::collections::HashSet<&str> = text.lines().map(str::trim).collect();
    // Extended once, or written with the later patterns already: a pattern missing now was
    // taken out by a person (to share the notes, say), and stays out.
    if text.contains(GITIGNORE_ADDED) || LATER_PATTERNS.iter().any(|p| present.contains(p)) {
        return;
    }
    let missing: Vec<&str> = private_patterns()
        .filter(|p| !present.contains(p))
        .collect();
    if missing.is_empty() {
        return;
    }
    let mut addition = String::new();
    if !text.ends_with('\n') {
        addition.push('\n');
    }
    addition.push_str(GITIGNORE_ADDED);
    addition.push_str(": private to you, or rebuilt as needed.\n");
    for pattern in missing {
        addition.push_str(pattern);
        addition.push('\n');
    }
    use std::io::Write;
    if let Ok(mut file) = fs::OpenOptions::new().append(true).open(path) {
        let _ = file.write_all(addition.as_bytes());
    }
}

/// The part of a ledger file past a cursor.
#[derive(Debug)]
pub struct HistoryTail {
    /// The file's device, inode and birth time (nanoseconds, 0 when unknown): `dev:ino:born`.
    pub identity: String,
    /// The file's length when read.
    pub len: u64,
    /// The bytes from the offset asked for (at most as many as asked).
    pub bytes: Vec<u8>,
}

/// A ledger directory and how to write to it.
#[derive(Debug, Clone)]
pub struct Ledger {
    dir: PathBuf,
    fsync: bool,
    write_delay: Option<std::time::Duration>,
    /// The fold kept between commands, for a process that runs many ([`Ledger::keeping`]).
    keeper: Option<std::sync::Arc<kept::Keeper>>,
}

/// Finds the ledger for `start`: the nearest `.baton/` at or above it, else `start/.baton`.
/// Like git's discovery, the walk stops at a filesystem boundary and never goes above the
/// home folder (`$HOME`'s parent holds other users' folders, not this user's ledger).
pub fn discover(start: &Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    let device = fs::metadata(start).map(|m| m.dev()).ok();
    let home = crate::os::env::var_os("HOME").map(PathBuf::from);
    for dir in start.ancestors() {
        if device.is_some() && fs::metadata(dir).map(|m| m.dev()).ok() != device {
            break;
        }
        let candidate = dir.join(LEDGER_DIR_NAME);
        if candidate.is_dir() {
            return candidate;
        }
        if home.as_deref() == Some(dir) {
            break;
        }
    }
    start.join(LEDGER_DIR_NAME)
}

impl Ledger {
    /// Drops the checkpoint when `err` says it is damaged (it is a cache: the next command
    /// rebuilds it from the logs); whether it did.
    pub fn drop_damaged_checkpoint(&self, err: &Error) -> bool {
        if !err.details.contains_key(checkpoint::DAMAGED_CHECKPOINT) {
            return false;
        }
        fs::remove_file(self.path(CHECKPOINT)).is_ok()
    }
}

/// Opens (creating) the compaction lock file read-write, as the ledger's own.
fn open_compact_lock(path: &Path) -> std::io::Result<File> {
    own::open(
        path,
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true),
    )
}

/// Reads a small text file of the ledger (`config.toml`) as the ledger's own (no link, no
/// FIFO or device) and at most 1 MiB.
pub fn read_own_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    own::open_read(path)?
        .take(1 << 20)
        .read_to_string(&mut text)?;
    Ok(text)
}

/// Reads a file of the ledger (a record's blob) as the ledger's own (no link, no FIFO or
/// device), at most `cap` bytes: `None` when it is missing, unreadable or longer.
pub fn read_own_bytes(path: &Path, cap: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    own::open_read(path)
        .ok()?
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= cap).then_some(bytes)
}

/// Refuses a folder of the ledger that is a link, or a ledger that is not this user's:
/// checked before anything is written into it.
pub fn check_own_folder(ledger: &Ledger, folder: &Path) -> Result<(), Error> {
    ledger.check_writable()?;
    own::check_folder(folder)
}

/// The error for a failed read of a ledger file (`STORE_UNSAFE` for a link or a FIFO).
pub fn own_file_error(operation: &str, path: &Path, err: std::io::Error) -> Error {
    own::open_error(operation, path, err)
}

pub(crate) fn io_err(operation: &str, path: &Path, err: impl std::fmt::Display) -> Error {
    Error::store_io(operation, &path.display().to_string(), err)
}

impl Ledger {
    /// A ledger at `dir` (created on first write). `fsync` makes every append durable.
    pub fn new(dir: impl Into<PathBuf>, fsync: bool) -> Ledger {
        Ledger {
            dir: dir.into(),
            fsync,
            write_delay: None,
            keeper: None,
        }
    }

    /// Fault injection for tests: sleep between opening the log and writing to it, which
    /// widens the window in which a compaction can rotate the log under an append.
    #[doc(hidden)]
    pub fn with_write_delay(mut self, delay: std::time::Duration) -> Ledger {
        self.write_delay = Some(delay);
        self
    }

    /// The ledger directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether writes are made durable (fsync) before they count as done.
    pub fn fsync(&self) -> bool {
        self.fsync
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn active_path(&self) -> PathBuf {
        self.path(ACTIVE)
    }

    fn archive_dir(&self) -> PathBuf {
        self.path(ARCHIVE)
    }

    /// Refuses a ledger that is not the plain layout Baton makes (see `own.rs`): a folder of
    /// it that is a link. Reading another user's ledger is allowed (a colleague's, a read-only
    /// mount); writing to it is not ([`Ledger::check_writable`]).
    fn check_layout(&self) -> Result<(), Error> {
        own::check_folder(&self.dir)?;
        own::check_folder(&self.archive_dir())?;
        own::check_folder(&self.path(SESSION_LOCKS))
    }

    /// [`Ledger::check_layout`], and the ledger is this user's (or trusted): checked before
    /// anything is written.
    fn check_writable(&self) -> Result<(), Error> {
        self.check_layout()?;
        own::check_owner(&self.dir)
    }

    /// Creates the directory layout if it is missing; a ledger created here gets a
    /// `.gitignore` for what is not history (see [`GITIGNORE`]).
    fn ensure_layout(&self) -> Result<(), Error> {
        self.check_writable()?;
        let fresh = fs::symlink_metadata(&self.dir).is_err();
        for dir in [
            self.dir.clone(),
            self.archive_dir(),
            self.path(SESSION_LOCKS),
        ] {
            fs::create_dir_all(&dir).map_err(|e| io_err("create directory", &dir, e))?;
        }
        let path = self.path(".gitignore");
        if fresh {
            // Once, when the ledger is made: a person who deletes or edits it has the last word.
            if let Ok(mut file) = own::create_new(&path) {
                use std::io::Write;
                let _ = file.write_all(GITIGNORE.as_bytes());
            }
        } else {
            extend_gitignore(&path);
        }
        self.check_writable()
    }

    /// The compaction lock as a reader takes it: shared, and on a ledger this user cannot
    /// write (another user's, a read-only mount) opened read-only, or none when it cannot
    /// exist there.
    fn reader_lock(&self) -> Result<Option<File>, Error> {
        let Some(file) = self.lock_file_for_reading()? else {
            return Ok(None);
        };
        file.lock_shared()
            .map_err(|e| io_err("lock", &self.path(COMPACT_LOCK), e))?;
        Ok(Some(file))
    }

    /// The compaction lock file, opened to write when this user can, else read-only; none when
    /// it does not exist and cannot be made.
    fn lock_file_for_reading(&self) -> Result<Option<File>, Error> {
        let path = self.path(COMPACT_LOCK);
        let file = match open_compact_lock(&path) {
            Ok(file) => file,
            Err(e)
                if e.kind() == std::io::ErrorKind::PermissionDenied
                    || e.raw_os_error() == Some(libc::EROFS) =>
            {
                match own::open_read(&path) {
                    Ok(file) => file,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                    Err(e) => return Err(own::open_error("open lock", &path, e)),
                }
            }
            Err(e) => return Err(own::open_error("open lock", &path, e)),
        };
        Ok(Some(file))
    }

    /// Serializes resume and end of one session across processes until the guard drops.
    pub fn lock_session(&self, id: SessionId) -> Result<File, Error> {
        self.check_writable()?;
        let stripe = id.0.as_bytes()[15] as usize % SESSION_LOCK_STRIPES;
        let path = self
            .path(SESSION_LOCKS)
            .join(format!("stripe-{stripe:02x}.lock"));
        let open = || {
            own::open(
                &path,
                OpenOptions::new().create(true).truncate(false).write(true),
            )
        };
        let file = match open() {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.ensure_layout()?;
                open().map_err(|e| own::open_error("open lock", &path, e))?
            }
            Err(e) => return Err(own::open_error("open lock", &path, e)),
        };
        file.lock().map_err(|e| io_err("lock", &path, e))?;
        Ok(file)
    }

    /// Opens (creating) the compaction lock file.
    fn compact_lock_file(&self) -> Result<File, Error> {
        let path = self.path(COMPACT_LOCK);
        open_compact_lock(&path).map_err(|e| own::open_error("open lock", &path, e))
    }

    /// Every file of the history in fold order: the archives, the sealed logs, the active log
    /// (when there is one).
    pub fn history_files(&self) -> Result<Vec<PathBuf>, Error> {
        let mut files: Vec<PathBuf> = self.archive_paths()?.into_iter().map(|(_, p)| p).collect();
        files.extend(self.sealed_paths()?);
        let active = self.active_path();
        if active.exists() {
            files.push(active);
        }
        Ok(files)
    }

    /// Reads a file of the ledger whole, as the ledger's own (no link, no FIFO or device).
    pub fn read_history_file(&self, path: &Path) -> Result<Vec<u8>, Error> {
        use std::io::Read;
        let mut bytes = Vec::new();
        own::open_read(path)
            .and_then(|mut file| file.read_to_end(&mut bytes))
            .map_err(|e| own::open_error("read", path, e))?;
        Ok(bytes)
    }

    /// Reads at most `max` bytes of a file of the ledger from `offset`, with the file's
    /// identity (device, inode and birth time: a file rewritten by compaction is a new one).
    /// An offset past the end reads nothing.
    pub fn read_history_tail(
        &self,
        path: &Path,
        offset: u64,
        max: u64,
    ) -> Result<HistoryTail, Error> {
        use std::io::{Read, Seek, SeekFrom};
        use std::os::unix::fs::MetadataExt;
        let read = || -> std::io::Result<HistoryTail> {
            let mut file = own::open_read(path)?;
            let meta = file.metadata()?;
            let mut bytes = Vec::new();
            if offset < meta.len() {
                file.seek(SeekFrom::Start(offset))?;
                file.take(max).read_to_end(&mut bytes)?;
            }
            // A reused inode is told apart by its birth time, where the filesystem keeps one.
            let born = meta
                .created()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            Ok(HistoryTail {
                identity: format!("{}:{}:{born}", meta.dev(), meta.ino()),
                len: meta.len(),
                bytes,
            })
        };
        read().map_err(|e| own::open_error("read", path, e))
    }

    /// Sealed logs left by compaction (normally none outside a running compaction).
    fn sealed_paths(&self) -> Result<Vec<PathBuf>, Error> {
        let mut sealed = Vec::new();
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(sealed),
            Err(e) => return Err(io_err("list", &self.dir, e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(SEALED_PREFIX) && name.ends_with(".ndjson") {
                sealed.push(entry.path());
            }
        }
        sealed.sort();
        Ok(sealed)
    }

    /// Archive files as `(month or "preserved", path)`, sorted.
    fn archive_paths(&self) -> Result<Vec<(String, PathBuf)>, Error> {
        let dir = self.archive_dir();
        let mut found = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
            Err(e) => return Err(io_err("list", &dir, e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".ndjson") {
                found.push((stem.to_owned(), entry.path()));
            }
        }
        found.sort();
        Ok(found)
    }

    /// Identifies the archive set: changes whenever compaction rewrites or adds a file.
    fn archive_stamp(&self) -> Result<String, Error> {
        use std::os::unix::fs::MetadataExt;
        let mut text = String::new();
        let sealed = self.sealed_paths()?;
        let archives = self.archive_paths()?.into_iter().map(|(_, p)| p);
        for path in archives.chain(sealed) {
            let meta = fs::metadata(&path).map_err(|e| io_err("stat", &path, e))?;
            text.push_str(&format!(
                "{}:{}:{}:{}.{};",
                path.file_name().unwrap_or_default().to_string_lossy(),
                meta.ino(),
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec()
            ));
        }
        Ok(format!(
            "{:016x}",
            baton_core::ledger::checkpoint::fnv1a64(text.as_bytes())
        ))
    }
}

/// How old a temporary must be before it counts as left behind by a killed process (its writer
/// removes it itself within milliseconds otherwise).
const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(600);

impl Ledger {
    /// Temporaries killed processes left behind, older than [`STALE_TEMPORARY`]: a new log's
    /// `.events.ndjson.new-*`, a checkpoint's `checkpoint.tmp-*`, and the `.NAME.tmp-*` of
    /// atomic writes, in the ledger and in `archive/`.
    pub(crate) fn stale_temporaries(&self) -> Vec<PathBuf> {
        let now = std::time::SystemTime::now();
        let mut found = Vec::new();
        for dir in [self.dir.clone(), self.archive_dir()] {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let temporary = name.starts_with(&format!(".{ACTIVE}.new-"))
                    || name.starts_with("checkpoint.tmp-")
                    || (name.starts_with('.') && name.contains(".tmp-"));
                let old = entry
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .and_then(|m| m.modified().ok())
                    .and_then(|at| now.duration_since(at).ok())
                    .is_some_and(|age| age > STALE_TEMPORARY);
                if temporary && old {
                    found.push(entry.path());
                }
            }
        }
        found.sort();
        found
    }
}

/// Writes `bytes` to `path` atomically: a temporary file, fsync, rename, fsync of the folder.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().unwrap_or_default().to_string_lossy(),
        crate::os::system::new_uuid().simple()
    ));
    let result = (|| {
        let mut file = own::create_new(&tmp).map_err(|e| own::open_error("create", &tmp, e))?;
        file.write_all(bytes)
            .map_err(|e| io_err("write", &tmp, e))?;
        file.sync_all().map_err(|e| io_err("fsync", &tmp, e))?;
        fs::rename(&tmp, path).map_err(|e| io_err("rename", path, e))?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// fsyncs a directory so a rename or unlink in it is durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), Error> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_err("fsync directory", dir, e))
}
