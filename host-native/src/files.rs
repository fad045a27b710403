//! Finding the input files of `baton usage`, `baton inspect` and `baton analyze` under
//! folders, reading each in the core's chunk size, and the one progress bar they draw on a
//! terminal while they read.

use baton_core::Error;
use baton_core::transcripts::export_files::skipped_export_files;
use baton_core::transcripts::ingest::CHUNK_BYTES;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Adds the files under `root` whose extension is one of `extensions`, walking folders in
/// name order. In a folder that is an unzipped export (it holds a conversations file), the
/// export's side files (`projects.json`, `users.json`, `user.json`, …) are passed over, as the
/// core's [`skipped_export_files`] decides.
pub fn files_under(root: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    let names: Vec<String> = entries
        .iter()
        .map(|p| {
            p.file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let skipped = skipped_export_files(&names);
    for (path, skip) in entries.into_iter().zip(skipped) {
        if path.is_dir() {
            files_under(&path, extensions, out);
        } else if !skip
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        {
            out.push(path);
        }
    }
}

/// Reads `path` in chunks of the core's [`CHUNK_BYTES`] and hands each to `push`; reports
/// the bytes read to `progress`. Stops at the first error.
pub fn read_in_chunks(
    path: &Path,
    mut push: impl FnMut(&[u8]) -> Result<(), Error>,
    mut progress: impl FnMut(u64),
) -> Result<(), Error> {
    let shown = path.display().to_string();
    let mut file = std::fs::File::open(path).map_err(|e| Error::store_io("read", &shown, e))?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
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

/// Erases the progress line.
pub fn clear_progress() {
    eprint!("\r{}\r", " ".repeat(BAR_LINE));
}
