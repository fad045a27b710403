//! Files Baton did not create: finding the inputs of `baton usage`, `inspect` and `analyze`
//! under folders, reading a path only when it is a regular file, the one reader of whole lines
//! after a cursor, reads in the core's chunk size, and the one progress bar drawn while reading.

use baton_core::Error;
use baton_core::transcripts::ingest::CHUNK_BYTES;
use baton_core::transcripts::providers::skipped_files;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Adds the files under `root` whose extension is one of `extensions`, walking folders in
/// name order. In a folder that is an unzipped export (it holds a conversations file), the
/// export's side files (`projects.json`, `users.json`, `user.json`, …) are passed over, as the
/// core's [`skipped_files`] decides.
///
/// The walk is safe on any tree: it never follows a symbolic link to a folder (so `ln -s .
/// loop` neither loops nor counts twice), takes a linked file only when it resolves inside
/// `root`, skips what is not a regular file (a FIFO would block the reader forever, a device
/// never ends), and adds each file once however many names it has (device and inode, also
/// across calls into the same `out`). A root that is itself a regular file is taken whatever
/// its extension.
pub fn files_under(root: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let mut seen: std::collections::HashSet<(u64, u64)> =
        out.iter().filter_map(|p| file_identity(p)).collect();
    walk(root, (extensions, true), true, &mut seen, &mut |path, _| {
        out.push(path)
    });
}

/// As [`files_under`], each file handed to `out` as the walk finds it, with its size (from
/// the walk's `stat`: no second look).
pub fn each_file_under(root: &Path, extensions: &[&str], out: &mut dyn FnMut(PathBuf, u64)) {
    let mut seen = std::collections::HashSet::new();
    walk(
        root,
        (extensions, true),
        true,
        &mut seen,
        &mut |path, meta| out(path, meta.len()),
    );
}

/// As [`files_under`], without the links (only files by their own names: the mirror's walk,
/// which reads no link), each with what its `stat` said.
pub fn regular_files_under(root: &Path, extensions: &[&str]) -> Vec<(PathBuf, std::fs::Metadata)> {
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    walk(
        root,
        (extensions, false),
        false,
        &mut seen,
        &mut |path, meta| {
            found.push((path, meta.clone()));
        },
    );
    found
}

/// The regular files directly in `root` (or `root` itself, when it is a file) with one of
/// `extensions`, never through a link: a folder whose subfolders are not the agent's
/// sessions (OpenCode's snapshots and logs beside its database).
pub fn regular_files_in(root: &Path, extensions: &[&str]) -> Vec<(PathBuf, std::fs::Metadata)> {
    if let Ok(meta) = std::fs::metadata(root)
        && meta.is_file()
    {
        return vec![(root.to_path_buf(), meta)];
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, std::fs::Metadata)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|path| {
            path.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .filter_map(|path| {
            let meta = std::fs::symlink_metadata(&path).ok()?;
            meta.is_file().then_some((path, meta))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// Where a SQLite database keeps its write-ahead log: `<path>-wal`.
pub fn log_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// The write-ahead log beside a SQLite database (a file ending as an agent's database does:
/// `.db`, Cursor's `.vscdb`), when there is one to read: a regular file, never a link. Any
/// other file has none (and costs no look).
pub fn log_beside(path: &Path) -> Option<Vec<u8>> {
    let extension = path.extension()?.to_str()?;
    if !baton_core::transcripts::providers::is_database_extension(extension) {
        return None;
    }
    let log = log_path(path);
    let meta = std::fs::symlink_metadata(&log).ok()?;
    meta.is_file().then(|| std::fs::read(&log).ok()).flatten()
}

/// The largest companion read (a bigger one is passed over: its transcript is read without it).
const MAX_COMPANION_BYTES: u64 = 256 << 20;

/// The files `provider`'s readers are given with the transcript at `path`: those beside it
/// (the registry's `companions`: a Cline task's model and workspace) and the nearest of those
/// above it (`above`: VS Code's `workspace.json`, Gemini CLI's `projects.json`), each with
/// what it is now; those absent, not regular files or too big are left out.
fn companion_files(
    provider: baton_core::transcripts::Provider,
    path: &Path,
) -> Vec<(PathBuf, std::fs::Metadata)> {
    let Some(folder) = path.parent() else {
        return Vec::new();
    };
    let look = |file: PathBuf| {
        let meta = std::fs::symlink_metadata(&file).ok()?;
        (meta.is_file() && meta.len() <= MAX_COMPANION_BYTES).then_some((file, meta))
    };
    let names = &provider.entry().names;
    let beside = names
        .companions
        .iter()
        .filter_map(|name| look(folder.join(name)));
    let above = names.above.iter().filter_map(|above| {
        folder
            .ancestors()
            .take(above.levels + 1)
            .find_map(|up| look(up.join(above.name)))
    });
    beside.chain(above).collect()
}

/// The files given with the transcript at `path` ([`companion_files`]), each with its bytes
/// (one unreadable is left out).
pub fn companions_of(
    provider: baton_core::transcripts::Provider,
    path: &Path,
) -> Vec<(String, Vec<u8>)> {
    companion_files(provider, path)
        .into_iter()
        .filter_map(|(file, _)| {
            let bytes = std::fs::read(&file).ok()?;
            Some((file.to_string_lossy().into_owned(), bytes))
        })
        .collect()
}

/// What the files given with the transcript at `path` are now, folded into one pair: their
/// sizes added up and the newest change (nanoseconds), so that a change to one alone is seen
/// (`(0, 0)` when there are none).
pub fn companions_look(provider: baton_core::transcripts::Provider, path: &Path) -> (i64, i64) {
    use std::os::unix::fs::MetadataExt as _;
    companion_files(provider, path)
        .iter()
        .fold((0i64, 0i64), |(sizes, newest), (_, meta)| {
            (
                sizes.wrapping_add(meta.size() as i64),
                newest.max(meta.mtime() * 1_000_000_000 + meta.mtime_nsec()),
            )
        })
}

/// The tree of files `provider` kept at `root` (OpenCode's `storage` folder, from before its
/// database), read as the database it became: its sessions', messages' and parts' JSON, never
/// through a link (a file too big is left out). Also the bytes and files read.
pub fn read_tree(
    root: &Path,
    provider: baton_core::transcripts::Provider,
) -> (baton_core::transcripts::databases::Store, u64, u64) {
    use baton_core::transcripts::opencode::legacy;
    let mut tree = legacy::Tree::default();
    let (mut bytes, mut files) = (0u64, 0u64);
    for kind in ["session", "message", "part"] {
        for (path, meta) in regular_files_under(&root.join(kind), &["json"]) {
            if meta.len() > legacy::MAX_FILE_BYTES {
                continue;
            }
            if let Ok(read) = read_regular(&path, legacy::MAX_FILE_BYTES) {
                bytes += read.len() as u64;
                files += 1;
                tree.add(&path.to_string_lossy(), &read);
            }
        }
    }
    let store = baton_core::transcripts::databases::Store::from_tree(
        &root.to_string_lossy(),
        tree,
        Some(provider),
    );
    (store, bytes, files)
}

/// The tree of files `provider` kept in its data folder `dir` before its database, when
/// there is one (OpenCode's `storage`, holding a `session` folder; never a link).
pub fn tree_in(provider: baton_core::transcripts::Provider, dir: &Path) -> Option<PathBuf> {
    let folder = baton_core::transcripts::databases::tree_folder(provider)?;
    let root = dir.join(folder);
    let is_folder = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    (is_folder(&root) && is_folder(&root.join("session"))).then_some(root)
}

/// What a tree of files looks like now, cheaply: how many folders its sessions and messages
/// are in and the newest change to any of them (a file added or removed changes its folder),
/// and the `part` folder's (a new message's parts get a folder of their own). A file
/// rewritten in place changes none of these: such a tree (an agent still writing one) is read
/// again when its next message comes.
pub fn tree_look(root: &Path) -> (u64, i64) {
    use std::os::unix::fs::MetadataExt;
    let (mut folders, mut newest, mut sum) = (0u64, 0i64, 0i64);
    let mut look = |meta: &std::fs::Metadata| {
        let at = meta.mtime() * 1_000_000_000 + meta.mtime_nsec();
        folders += 1;
        newest = newest.max(at);
        sum = sum.wrapping_add(at);
    };
    for top in ["session", "message", "part"] {
        let top = root.join(top);
        let Ok(meta) = std::fs::symlink_metadata(&top) else {
            continue;
        };
        look(&meta);
        if top.ends_with("part") {
            continue;
        }
        for entry in std::fs::read_dir(&top).into_iter().flatten().flatten() {
            if let Ok(meta) = entry.metadata()
                && meta.is_dir()
            {
                look(&meta);
            }
        }
    }
    (folders.wrapping_add(sum as u64), newest)
}

/// `(extensions, within)`: the endings taken, and whether the walk is for any format's files:
/// a transcript an agent keeps only in a folder of its own is taken whatever its ending
/// ([`baton_core::transcripts::ingest::picked_up_within`]), so is a file above transcripts
/// that says where they were made, and an empty file is passed over.
fn walk(
    root: &Path,
    (extensions, within): (&[&str], bool),
    take_links: bool,
    seen: &mut std::collections::HashSet<(u64, u64)>,
    out: &mut dyn FnMut(PathBuf, &std::fs::Metadata),
) {
    // A file named as the root is taken as it is (a regular file only).
    if let Ok(meta) = std::fs::metadata(root)
        && meta.is_file()
    {
        if identity(&meta).is_none_or(|id| seen.insert(id)) {
            out(root.to_path_buf(), &meta);
        }
        return;
    }
    let inside = std::fs::canonicalize(root).ok();
    // The names taken whatever their extension, asked of the core once per walk.
    let named: Vec<&str> = baton_core::transcripts::ingest::input_names().collect();
    // Links inside the root are taken last, so a file is found by its own name when it has
    // one here (a link sorted before its target does not hide the target).
    let mut links = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    // Folders are visited depth first in name order: a stack popped from the end.
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        // The kind of each entry comes with the listing (no call per entry where the file
        // system says it): a file whose name is not wanted is never looked at.
        // Sorted by name (the paths share their folder); each entry's `stat` is asked
        // through the listing (on Linux relative to the open folder, not by walking its
        // whole path again).
        let mut entries: Vec<(std::ffi::OsString, std::fs::DirEntry)> =
            entries.flatten().map(|e| (e.file_name(), e)).collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let names: Vec<String> = entries
            .iter()
            .map(|(name, _)| name.to_string_lossy().into_owned())
            .collect();
        let skipped = skipped_files(&names);
        let mut subfolders = Vec::new();
        for ((name, entry), skip) in entries.into_iter().zip(skipped) {
            let path = folder.join(&name);
            let kind = entry.file_type().ok();
            if kind.is_some_and(|k| k.is_dir()) {
                subfolders.push(path);
                continue;
            }
            let wanted = !skip
                && (path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| extensions.contains(&e))
                    || path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| named.contains(&n))
                    || (within
                        && baton_core::transcripts::ingest::picked_up_within(
                            &path.to_string_lossy(),
                        )))
                // A file that says where the transcripts below it were made (VS Code's
                // `workspace.json`), for a reader of every format to give them.
                || (within
                    && baton_core::transcripts::providers::above_levels(&path.to_string_lossy())
                        .is_some());
            if !wanted && kind.is_some() {
                continue;
            }
            // Not following a link, as `symlink_metadata`.
            let Ok(link) = entry.metadata() else {
                continue;
            };
            if link.is_dir() {
                subfolders.push(path);
                continue;
            }
            if !wanted {
                continue;
            }
            if link.file_type().is_symlink() {
                let target_inside = std::fs::canonicalize(&path)
                    .ok()
                    .zip(inside.as_ref())
                    .is_some_and(|(target, root)| target.starts_with(root));
                if target_inside && take_links {
                    links.push(path);
                }
                continue;
            }
            // Not a link: what was read of it is the file's own.
            let meta = link;
            // An empty file in a folder walked for any format holds nothing to read (a chat
            // just opened); named alone, it is read and said to be empty.
            if !meta.is_file() || (within && meta.len() == 0) {
                continue;
            }
            if identity(&meta).is_none_or(|id| seen.insert(id)) {
                out(path, &meta);
            }
        }
        folders.extend(subfolders.into_iter().rev());
    }
    for path in links {
        if let Ok(meta) = std::fs::metadata(&path)
            && meta.is_file()
            && identity(&meta).is_none_or(|id| seen.insert(id))
        {
            out(path, &meta);
        }
    }
}

/// A file's (device, inode), the same for every name it has.
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().as_ref().and_then(identity)
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Opens `path` for reading only if it is a regular file: a FIFO is opened without waiting
/// for a writer and refused, as are devices and folders (`STORE_IO` naming the path). Every
/// read of a path Baton did not create goes through here (or [`read_regular`]).
pub fn open_regular(path: &Path) -> Result<std::fs::File, Error> {
    open_regular_sized(path).map(|(file, _)| file)
}

/// As [`open_regular`], with the operating system's error (`InvalidInput` for a path that is
/// no regular file).
pub fn open_regular_io(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_io_sized(path).map(|(file, _)| file)
}

/// As [`open_regular`], with the file's size from the same `stat`.
pub fn open_regular_sized(path: &Path) -> Result<(std::fs::File, u64), Error> {
    open_regular_io_sized(path).map_err(|e| Error::store_io("read", &path.display().to_string(), e))
}

fn open_regular_io_sized(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a folder, FIFO, socket or device)",
        ));
    }
    // O_NONBLOCK does nothing to reads of a regular file: it stays as opened.
    Ok((file, meta.len()))
}

/// Reads at most `max` bytes of `path` if it is a regular file (see [`open_regular`]): a FIFO
/// never blocks it and a device never feeds it without end.
pub fn read_regular(path: impl AsRef<Path>, max: u64) -> Result<Vec<u8>, Error> {
    let path = path.as_ref();
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(max)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::store_io("read", &path.display().to_string(), e))?;
    Ok(bytes)
}

/// A path's last part as text (`""` for none; bytes that are not UTF-8 become U+FFFD).
pub fn name_of(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A file's whole lines past a byte offset: what [`whole_lines_after`] read.
#[derive(Debug, Default)]
pub struct WholeLines {
    /// The lines, each with its newline.
    pub bytes: Vec<u8>,
    /// Where the last whole line read ends (the offset read from, when none was).
    pub end: u64,
    /// The file's size when it was read.
    pub size: u64,
}

/// The one reader of "whole lines after a cursor": `path`'s lines from byte `from`, at most
/// `limit` bytes of them, a regular file only (see [`open_regular`]). A line still being
/// written (no newline yet) is left for the next read.
pub fn whole_lines_after(path: &Path, from: u64, limit: u64) -> std::io::Result<WholeLines> {
    use std::io::{Seek, SeekFrom};
    let mut file = open_regular_io(path)?;
    let size = file.metadata()?.len();
    let mut read = WholeLines {
        bytes: Vec::new(),
        end: from,
        size,
    };
    if size <= from {
        return Ok(read);
    }
    file.seek(SeekFrom::Start(from))?;
    file.take((size - from).min(limit))
        .read_to_end(&mut read.bytes)?;
    read.bytes.truncate(whole_lines_len(&read.bytes));
    read.end = from + read.bytes.len() as u64;
    Ok(read)
}

/// How many of `bytes` are whole lines: up to and including the last newline (0 with none).
pub fn whole_lines_len(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1)
}

/// As [`read_regular`], as text (bytes that are not UTF-8 become U+FFFD).
pub fn read_regular_text(path: impl AsRef<Path>, max: u64) -> Result<String, Error> {
    read_regular(path, max).map(|bytes| match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Reads `path` in chunks of the core's [`CHUNK_BYTES`] and hands each to `push`; reports
/// the bytes read to `progress`. Stops at the first error.
pub fn read_in_chunks(
    path: &Path,
    mut push: impl FnMut(&[u8]) -> Result<(), Error>,
    mut progress: impl FnMut(u64),
) -> Result<(), Error> {
    let shown = path.display().to_string();
    let (mut file, size) = open_regular_sized(path)?;
    let mut buf = vec![0u8; (size as usize).clamp(1, CHUNK_BYTES)];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| Error::store_io("read", &shown, e))?;
        if n == 0 {
            return Ok(());
        }
        push(&buf[..n])?;
        progress(n as u64);
    }
}

/// Width of the progress line, for clearing it.
const BAR_LINE: usize = 90;

/// Redraws the progress line on stderr: `label [####......] detail, done of total MB`.
pub fn draw_progress(label: &str, detail: &str, done: u64, total: u64) {
    let filled = ((done * 30 / total.max(1)) as usize).min(30);
    eprint!(
        "\r{label} [{}{}] {detail}{:.0} of {:.0} MB",
        "#".repeat(filled),
        ".".repeat(30 - filled),
        done as f64 / 1e6,
        total as f64 / 1e6
    );
    let _ = std::io::stderr().flush();
}

/// Redraws the progress line on stderr while the total is not known yet: `label detail`
/// (no bar: one that moved back as the total grew would mislead).
pub fn draw_counting(label: &str, detail: &str) {
    let line = format!("{label}: {detail}");
    eprint!("\r{line:<BAR_LINE$}");
    let _ = std::io::stderr().flush();
}

/// Erases the progress line.
pub fn clear_progress() {
    eprint!("\r{}\r", " ".repeat(BAR_LINE));
}

/// Writes `bytes` to `path` whole or not at all: into a new temporary beside it, synced, then
/// renamed over it. A failure leaves `path` as it was and no temporary behind.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_owned());
    let temporary = dir.join(format!(
        ".{name}.tmp-{}",
        crate::os::system::new_uuid().simple()
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}
