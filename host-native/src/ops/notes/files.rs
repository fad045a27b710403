//! The note files themselves: read with what identifies the version read (size, mtime,
//! hash), created only where no file is (whole, by hard-linking a finished temporary),
//! replaced only if still the version read (compare, then rename a finished temporary), and a
//! lock per note so updates of one note run one at a time across processes.

use baton_core::ledger::checkpoint::fnv1a64;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The largest note Baton reads (a note is a page of text; anything bigger is not its).
const MAX_NOTE_BYTES: u64 = 8 << 20;

/// One version of a note as read: its text and what tells this version from any other.
#[derive(Debug, Clone)]
pub struct NoteVersion {
    /// The note's bytes.
    pub bytes: Vec<u8>,
    /// What identifies them on disk.
    pub stamp: Stamp,
    /// The file's permission bits, which an update keeps.
    pub mode: u32,
}

/// What identifies a version of a file: size, modification time and a hash of the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    /// Bytes.
    pub size: u64,
    /// Modification time, in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// FNV-1a of the bytes.
    pub hash: u64,
}

impl Stamp {
    /// How long ago the file was modified (zero for a time in the future).
    pub fn age(&self) -> std::time::Duration {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let ns = (now - self.mtime_ns).max(0);
        std::time::Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }
}

fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// Opens a note for reading, never through a symbolic link and only as a regular file.
fn open_note(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other("is not a regular file"));
    }
    Ok(file)
}

/// Reads a note: `Ok(None)` when there is none.
pub fn read(path: &Path) -> io::Result<Option<NoteVersion>> {
    let mut file = match open_note(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(io::Error::other("is a symbolic link"));
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(MAX_NOTE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_NOTE_BYTES {
        return Err(io::Error::other(format!(
            "is larger than {} MB",
            MAX_NOTE_BYTES >> 20
        )));
    }
    Ok(Some(NoteVersion {
        mode: meta.mode() & 0o7777,
        stamp: Stamp {
            size: bytes.len() as u64,
            mtime_ns: mtime_ns(&meta),
            hash: fnv1a64(&bytes),
        },
        bytes,
    }))
}

/// The stamp of what is at `path` now (`None`: nothing).
pub fn stamp(path: &Path) -> io::Result<Option<Stamp>> {
    Ok(read(path)?.map(|v| v.stamp))
}

/// The one temporary Baton writes beside `note` (hidden, so a vault's editor does not list
/// it). One name is enough: writes of a note take turns under its lock.
fn temporary_of(note: &Path) -> PathBuf {
    let name = note
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    note.with_file_name(format!(".{name}.baton.tmp"))
}

/// Writes `bytes` to the temporary of `owner` (a note), with `mode` when given, synced to
/// disk when `durable`; returns its path and the stamp the bytes will have once renamed.
fn write_temporary(
    owner: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    durable: bool,
) -> io::Result<(PathBuf, Stamp)> {
    use std::os::unix::fs::PermissionsExt;
    let path = temporary_of(owner);
    remove_stale_temporary(owner);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        if durable {
            file.sync_all()?;
        }
        file.metadata()
    })();
    match written {
        Ok(meta) => Ok((
            path,
            Stamp {
                size: bytes.len() as u64,
                mtime_ns: mtime_ns(&meta),
                hash: fnv1a64(bytes),
            },
        )),
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            Err(e)
        }
    }
}

/// Swaps two names at once (Linux `renameat2(RENAME_EXCHANGE)`); `Ok(false)` where the system
/// or filesystem cannot.
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let a = std::ffi::CString::new(a.as_os_str().as_bytes()).map_err(io::Error::other)?;
        let b = std::ffi::CString::new(b.as_os_str().as_bytes()).map_err(io::Error::other)?;
        // SAFETY: both are valid NUL-terminated paths; renameat2 reads them and nothing else.
        let done = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                a.as_ptr(),
                libc::AT_FDCWD,
                b.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if done == 0 {
            return Ok(true);
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
            _ => Err(err),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

/// Syncs a folder, so a rename or a new name in it survives a power cut (when `durable`).
fn sync_folder(folder: &Path, durable: bool) {
    if !durable {
        return;
    }
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
}

/// Removes the temporary a killed Baton left beside `note`. Only called under the note's
/// lock, when no other Baton can be writing it.
pub fn remove_stale_temporary(note: &Path) {
    let _ = std::fs::remove_file(temporary_of(note));
}

/// Creates `note` with `bytes` only if nothing is there, whole or not at all: the bytes go to
/// a synced temporary first, which is then hard-linked to the note's name (the link fails if
/// the name exists). `Ok(false)`: the name was taken.
pub fn create_exclusive(
    note: &Path,
    bytes: &[u8],
    durable: bool,
    owner: &Path,
) -> io::Result<bool> {
    if let Some(folder) = note.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let (temporary, _) = write_temporary(owner, bytes, None, durable)?;
    let linked = std::fs::hard_link(&temporary, note);
    let _ = std::fs::remove_file(&temporary);
    match linked {
        Ok(()) => {
            sync_folder(note.parent().unwrap_or(Path::new(".")), durable);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        // A filesystem without hard links: O_EXCL, then the bytes.
        Err(e)
            if matches!(
                e.raw_os_error(),
                Some(libc::EPERM | libc::ENOTSUP | libc::EXDEV)
            ) =>
        {
            let mut file = match OpenOptions::new()
                .write(true)
                .create_new(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(note)
            {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
                Err(e) => return Err(e),
            };
            file.write_all(bytes)?;
            if durable {
                file.sync_all()?;
            }
            Ok(true)
        }
        Err(e) => Err(e),
    }
}

/// What became of a replace.
#[derive(Debug)]
pub enum Replaced {
    /// The new bytes are in place; their stamp.
    Done(Stamp),
    /// The note was not the version read any more: nothing was written.
    Changed,
}

/// Replaces `note` with `bytes` if it is still the version `read`: the bytes go to a synced
/// temporary beside it (with the note's permissions), the note is compared again, and the
/// two are swapped in one step; if the note that came out is not the version read (an editor
/// saved in that instant) they are swapped back and nothing is lost. Where the system cannot
/// swap, a rename follows the comparison. `pause` (tests only) waits between writing the
/// temporary and comparing.
pub fn replace_if_unchanged(
    note: &Path,
    read: &NoteVersion,
    bytes: &[u8],
    durable: bool,
    pause: Option<std::time::Duration>,
) -> io::Result<Replaced> {
    let (temporary, written) = write_temporary(note, bytes, Some(read.mode), durable)?;
    if let Some(pause) = pause {
        std::thread::sleep(pause);
    }
    let unchanged = matches!(stamp(note), Ok(Some(now)) if now == read.stamp);
    if !unchanged {
        let _ = std::fs::remove_file(&temporary);
        return Ok(Replaced::Changed);
    }
    match exchange(&temporary, note) {
        Ok(true) => {
            // What came out of the note's name must be the version read.
            let out = stamp(&temporary).ok().flatten();
            if out != Some(read.stamp) {
                if exchange(&temporary, note).unwrap_or(false) {
                    let _ = std::fs::remove_file(&temporary);
                    return Ok(Replaced::Changed);
                }
                // Could not swap back: keep the person's version beside it, never lose it.
                return Err(io::Error::other(format!(
                    "the note changed while Baton swapped it in; your version is in {}",
                    temporary.display()
                )));
            }
            let _ = std::fs::remove_file(&temporary);
        }
        Ok(false) => {
            if let Err(e) = std::fs::rename(&temporary, note) {
                let _ = std::fs::remove_file(&temporary);
                return Err(e);
            }
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(e);
        }
    }
    sync_folder(note.parent().unwrap_or(Path::new(".")), durable);
    Ok(Replaced::Done(written))
}

/// How many lock files share out the notes: a note maps to one by its path's hash, so the
/// folder never passes this many files (a file per note made every new session create one),
/// and two notes on one stripe only wait out each other's few-millisecond write.
const NOTE_LOCK_STRIPES: u64 = 256;

/// A lock held on one note until dropped. Lock files live in the ledger, shared out among
/// [`NOTE_LOCK_STRIPES`] stripes, so most notes update at once and one note's updates take
/// turns.
#[derive(Debug)]
pub struct NoteLock {
    _file: File,
}

/// Takes the lock of the note at `relative` (its path in the vault).
pub fn lock(locks: &Path, vault_root: &Path, relative: &str) -> io::Result<NoteLock> {
    std::fs::create_dir_all(locks)?;
    // However the vault's folder is spelt (a trailing slash, a link to it), one note has one
    // lock.
    let root = std::fs::canonicalize(vault_root).unwrap_or_else(|_| vault_root.to_path_buf());
    let key = fnv1a64(format!("{}\0{relative}", root.display()).as_bytes());
    let path = locks.join(format!("stripe-{:02x}.lock", key % NOTE_LOCK_STRIPES));
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)?;
    file.lock()?;
    Ok(NoteLock { _file: file })
}

/// A name for a copy of `note` beside it: `<stem> (baton conflict <when>).md`, with a count
/// when that is taken. Written whole and only where nothing is.
pub fn write_conflict_copy(
    note: &Path,
    when: &str,
    bytes: &[u8],
    durable: bool,
) -> io::Result<PathBuf> {
    let stem = note
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let folder = note.parent().unwrap_or(Path::new("."));
    for n in 1..1000 {
        let name = if n == 1 {
            format!("{stem} (baton conflict {when}).md")
        } else {
            format!("{stem} (baton conflict {when} {n}).md")
        };
        let copy = folder.join(name);
        if create_exclusive(&copy, bytes, durable, note)? {
            return Ok(copy);
        }
    }
    Err(io::Error::other(
        "a thousand conflict copies are already there",
    ))
}
