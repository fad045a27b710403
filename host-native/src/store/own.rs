//! The ledger's files are the ledger's own or refused: opened never through a symbolic link
//! (`O_NOFOLLOW`), never a FIFO, device or folder where a file belongs, new files created only
//! where no name exists (`O_EXCL`), its folders never links, and the ledger owned by the user
//! running Baton (another user's, or a world-writable one, only when trusted in
//! `BATON_TRUSTED_DIRS`). A repository can commit a `.baton/`, and another user can plant one
//! in a parent folder: neither may make Baton write through a link or into someone else's log.

use baton_core::Error;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Why an open was refused: not the regular file Baton expects.
#[derive(Debug)]
struct NotRegular;

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("is not a regular file (a FIFO, device or folder)")
    }
}

impl std::error::Error for NotRegular {}

/// Opens `path` with `options`, refusing a symbolic link and anything but a regular file.
pub(crate) fn open(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    // O_NONBLOCK keeps a FIFO from blocking the open; it does nothing to a regular file.
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(io::Error::other(NotRegular))
    }
}

/// Opens `path` for reading only.
pub(crate) fn open_read(path: &Path) -> io::Result<File> {
    open(path, OpenOptions::new().read(true))
}

/// Creates `path`, which must not exist (temporaries with a fresh name).
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    open(path, OpenOptions::new().write(true).create_new(true))
}

/// The error for a failed open of a ledger file: `STORE_UNSAFE` for a link or a file that is
/// not regular, else `STORE_IO`.
pub(crate) fn open_error(operation: &str, path: &Path, err: io::Error) -> Error {
    let shown = path.display().to_string();
    if err.raw_os_error() == Some(libc::ELOOP) {
        return Error::store_unsafe(&shown, "is a symbolic link");
    }
    if err
        .get_ref()
        .is_some_and(|inner| inner.downcast_ref::<NotRegular>().is_some())
    {
        return Error::store_unsafe(&shown, "is not a regular file (a FIFO, device or folder)");
    }
    Error::store_io(operation, &shown, err)
}

/// Refuses a ledger folder (the ledger itself, `archive/`, `locks/`) that is a symbolic link
/// or not a folder; a missing one is fine (it is created).
pub(crate) fn check_folder(path: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::store_unsafe(
            &path.display().to_string(),
            "is a symbolic link",
        )),
        Ok(meta) if !meta.is_dir() => Err(Error::store_unsafe(
            &path.display().to_string(),
            "is not a folder",
        )),
        _ => Ok(()),
    }
}

/// The user id this process runs as (the owner of `/proc/self`), when the system says; read
/// once, since every append checks it.
fn effective_uid() -> Option<u32> {
    static UID: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *UID.get_or_init(|| std::fs::metadata("/proc/self").ok().map(|m| m.uid()))
}

/// Whether `dir` is listed in `BATON_TRUSTED_DIRS` (`:`-separated; `*` trusts every folder).
fn trusted(dir: &Path) -> bool {
    let Some(list) = crate::os::env::var_os("BATON_TRUSTED_DIRS") else {
        return false;
    };
    let canonical = std::fs::canonicalize(dir).ok();
    std::env::split_paths(&list).any(|entry| {
        entry.as_os_str() == "*"
            || std::fs::canonicalize(&entry)
                .ok()
                .is_some_and(|e| Some(e) == canonical)
    })
}

/// Refuses a ledger owned by another user, or writable by everyone, unless trusted, like
/// git's `safe.directory`.
pub(crate) fn check_owner(dir: &Path) -> Result<(), Error> {
    let Ok(meta) = std::fs::metadata(dir) else {
        return Ok(());
    };
    let foreign = effective_uid().is_some_and(|uid| meta.uid() != uid);
    let world_writable = meta.permissions().mode() & 0o002 != 0;
    if (foreign || world_writable) && !trusted(dir) {
        let what = if foreign {
            format!("belongs to another user (uid {})", meta.uid())
        } else {
            "is writable by every user".to_owned()
        };
        return Err(Error::store_unsafe(
            &dir.display().to_string(),
            &format!(
                "{what}; trust it with BATON_TRUSTED_DIRS={} if it is yours to use",
                dir.display()
            ),
        ));
    }
    Ok(())
}
