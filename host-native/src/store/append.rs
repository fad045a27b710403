//! Lock-free appends, and why none is lost to a concurrent compaction.
//!
//! An append is one `write(2)` of whole lines on an `O_APPEND` descriptor (all the events of
//! one command go in the same write), so concurrent appenders never interleave inside a line
//! (lines are at most 4,000 bytes). If the log ends
//! in a torn fragment (a writer died mid-line, or the disk filled), the next appender starts
//! its line with a newline so the fragment stays a separate, counted corrupt line.
//!
//! Compaction takes the active log out of service by renaming it. An appender may have opened
//! the log before that rename and write after compaction has read it; the ADR this store
//! follows admits such an append is lost. Baton closes the gap: after its write (and fsync),
//! the appender checks that the path still names the file it wrote to. If it does, the write
//! finished before any later rename, so whichever compaction seals this file reads the line.
//! If it does not, the appender cannot know whether compaction saw the line, so it appends
//! the same line again to the new log. Events carry unique ids and the fold counts an id
//! once, so the worst case is a harmless duplicate, never a loss.

use super::{ACTIVE, Ledger, io_err};
use baton_core::Error;
use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{FileExt, MetadataExt};

/// How many times an append retries after finding its log rotated under it.
/// How many times (a millisecond apart) an unfinished tail is looked at before it counts as
/// torn.
const TORN_TAIL_CHECKS: u32 = 20;

const MAX_ROTATION_RETRIES: usize = 64;

impl Ledger {
    /// Appends one encoded event line (no newline). Returns once it is durable (with fsync)
    /// and in the current active log.
    pub fn append(&self, line: &str) -> Result<(), Error> {
        self.append_lines(&[line])
    }

    /// Appends encoded event lines (no newlines) with one `write`, so a command's events land
    /// together. Returns once they are durable (with fsync) and in the current active log.
    pub fn append_lines<S: AsRef<str>>(&self, lines: &[S]) -> Result<(), Error> {
        if lines.is_empty() {
            return Ok(());
        }
        debug_assert!(lines.iter().all(|l| !l.as_ref().contains('\n')));
        self.check_writable()?;
        let path = self.active_path();
        for _ in 0..MAX_ROTATION_RETRIES {
            let file = match super::own::open(&path, OpenOptions::new().append(true).read(true)) {
                Ok(file) => file,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    self.create_active_log()?;
                    continue;
                }
                Err(e) => return Err(super::own::open_error("open", &path, e)),
            };
            if let Some(delay) = self.write_delay {
                std::thread::sleep(delay);
            }
            self.write_lines(&file, lines)?;
            if still_active(&file, &path) {
                return Ok(());
            }
        }
        Err(Error::new(
            baton_core::ErrorCode::StoreBusy,
            format!(
                "the active log {} was rotated {MAX_ROTATION_RETRIES} times during one append",
                path.display()
            ),
        ))
    }

    fn write_lines<S: AsRef<str>>(&self, file: &File, lines: &[S]) -> Result<(), Error> {
        let path = self.active_path();
        let total: usize = lines.iter().map(|l| l.as_ref().len() + 1).sum();
        let mut buf = Vec::with_capacity(total + 1);
        if self.tail_is_torn(file)? {
            buf.push(b'\n');
        }
        for line in lines {
            buf.extend_from_slice(line.as_ref().as_bytes());
            buf.push(b'\n');
        }
        // A command's events land whole or not at all: a write cut short by a full disk would
        // leave its first lines in effect. So the space is checked first, and nothing is
        // written when the batch may not fit.
        if let Some(free) = free_bytes(file)
            && free < buf.len() as u64 + FREE_SPACE_MARGIN
        {
            return Err(io_err(
                "append to",
                &path,
                format!(
                    "no space left on the device ({free} bytes free, {} needed); nothing was written",
                    buf.len()
                ),
            ));
        }
        let written = (&*file)
            .write(&buf)
            .map_err(|e| io_err("append to", &path, e))?;
        if written != buf.len() {
            // A short write (disk full): end the fragment so it cannot swallow the next line.
            let _ = (&*file).write(b"\n");
            return Err(io_err(
                "append to",
                &path,
                format!("short write ({written} of {} bytes)", buf.len()),
            ));
        }
        if self.fsync {
            file.sync_data().map_err(|e| io_err("fsync", &path, e))?;
        }
        Ok(())
    }

    /// Whether the log ends in a fragment a killed writer left (so the next line must start
    /// on a fresh line). A log that does not end in a newline may also be another writer's
    /// line still being written: its size moves or its newline lands within microseconds. So
    /// the tail counts as torn only when it stays unfinished and unchanged for a few
    /// milliseconds; writing a newline before a line in flight would leave a blank line.
    fn tail_is_torn(&self, file: &File) -> Result<bool, Error> {
        let path = self.active_path();
        let mut seen_size = None;
        for attempt in 0..TORN_TAIL_CHECKS {
            let size = file.metadata().map_err(|e| io_err("stat", &path, e))?.len();
            if size == 0 {
                return Ok(false);
            }
            let mut last = [0u8; 1];
            file.read_exact_at(&mut last, size - 1)
                .map_err(|e| io_err("read", &path, e))?;
            if last[0] == b'\n' {
                return Ok(false);
            }
            if seen_size == Some(size) && attempt >= TORN_TAIL_CHECKS / 2 {
                return Ok(true);
            }
            seen_size = Some(size);
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        Ok(true)
    }

    /// Creates the active log with its header line, unless another process just did.
    pub(super) fn create_active_log(&self) -> Result<(), Error> {
        self.ensure_layout()?;
        let path = self.active_path();
        let generation = crate::os::system::new_uuid().to_string();
        let tmp = self.dir.join(format!(".{ACTIVE}.new-{generation}"));
        let header = format!(
            "{}\n",
            baton_core::ledger::event::encode_header(&generation)
        );
        let result = (|| {
            let mut file = super::own::create_new(&tmp)
                .map_err(|e| super::own::open_error("create", &tmp, e))?;
            file.write_all(header.as_bytes())
                .map_err(|e| io_err("write", &tmp, e))?;
            file.sync_all().map_err(|e| io_err("fsync", &tmp, e))?;
            // A hard link creates the name only if it is free: the first creator wins whole.
            match fs::hard_link(&tmp, &path) {
                Ok(()) => super::sync_dir(&self.dir),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(io_err("create", &path, e)),
            }
        })();
        let _ = fs::remove_file(&tmp);
        result
    }
}

/// Room kept free beyond a batch's own bytes (the filesystem allocates whole blocks).
const FREE_SPACE_MARGIN: u64 = 64 * 1024;

/// Bytes an unprivileged writer may still write on `file`'s filesystem, when the system says.
fn free_bytes(file: &File) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let mut stat = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: fstatvfs fills `stat` for a descriptor this function borrows; it is read only
    // when the call succeeded.
    #[allow(unsafe_code)]
    let stat = unsafe {
        if libc::fstatvfs(file.as_raw_fd(), stat.as_mut_ptr()) != 0 {
            return None;
        }
        stat.assume_init()
    };
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

/// Whether `path` still names the file `file` is open on.
fn still_active(file: &File, path: &std::path::Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.dev() == named.dev() && open.ino() == named.ino(),
        _ => false,
    }
}
