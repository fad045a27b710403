//! The transaction a pass gathers its windows in, committed a batch at a time.

use super::*;

/// The transaction a pass's writes are gathered in: each window (or file read whole) is a
/// savepoint inside it, released whole or rolled back alone, and the batch commits once it
/// holds a window's worth of bytes or has been open for [`BATCH_TIME`]. A commit writes every
/// page it changed to the log: committing each small file alone wrote the same pages of the
/// tables' indexes again and again (a third of a backfill's time). A pass killed anywhere
/// still leaves the index as it was before a window or after it.
#[derive(Default)]
pub(super) struct Batch {
    /// When the open batch began, and the pass's bytes read then.
    began: Option<(std::time::Instant, u64)>,
    /// The sources read into it.
    sources: u64,
}

/// The longest a batch stays open: other writers of the index wait for it.
const BATCH_TIME: std::time::Duration = std::time::Duration::from_millis(250);

impl Batch {
    /// After a source (and once after the last, `now`): commits when the batch is full, or
    /// `now`.
    pub(super) fn after_source(
        &mut self,
        connection: &Connection,
        stats: &mut PassStats,
        packer: &mut Packer,
        now: bool,
    ) {
        if connection.is_autocommit() {
            // Nothing open, or an error rolled it all back (its sources are read again next
            // pass: the cursors went back with the rows).
            *self = Batch::default();
            return;
        }
        let (began, bytes) = *self
            .began
            .get_or_insert((std::time::Instant::now(), stats.bytes_read));
        self.sources += 1;
        let full = stats.bytes_read - bytes >= WINDOW_BYTES || began.elapsed() >= BATCH_TIME;
        if !(now || full) {
            return;
        }
        if let Err(err) = commit(connection, packer) {
            stats.failed += self.sources;
            crate::os::warnings::warn(&format!(
                "mirror: {} file(s) read could not be kept: {err} (read again next pass)",
                self.sources
            ));
        }
        *self = Batch::default();
    }
}

/// Commits the open batch; when that fails, rolls it back and forgets what the packer noted
/// in it (the names' numbers went with it).
pub(super) fn commit(connection: &Connection, packer: &mut Packer) -> rusqlite::Result<()> {
    connection.execute_batch("COMMIT").inspect_err(|_| {
        let _ = connection.execute_batch("ROLLBACK");
        packer.forget_names();
    })
}
