//! Finding the input files of `baton usage` and `baton analyze` under folders, and the one
//! progress bar both draw on a terminal while they read them.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Adds the files under `root` whose extension is one of `extensions`, walking folders in
/// name order.
pub fn files_under(root: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, extensions, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            out.push(path);
        }
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
