//! Files a transcript's readers are given with it (the registry's `companions`, beside it in
//! its folder: a Cline task's model and workspace), held from when they are loaded until the
//! transcript beside them is begun, and let go when a file of another folder begins. Hosts load a folder's files in name order, so a task's
//! companions come before its `ui_messages.json`; those of another folder are let go.

use super::FileSummary;
use crate::transcripts::ingest::FileIngest;
use crate::transcripts::{FileFormat, Provider, ReadStats};
use std::collections::BTreeMap;

/// The largest companion kept (a bigger one is read as if absent).
const MAX_COMPANION_BYTES: usize = 256 << 20;

/// The companions loaded and not yet given, and the one being loaded.
#[derive(Debug, Default)]
pub(super) struct Companions {
    kept: Vec<(String, Vec<u8>)>,
    loading: Option<(String, Vec<u8>, bool)>,
}

/// The folder of a path, `/` or `\` separated.
fn folder_of(path: &str) -> &str {
    path.rfind(['/', '\\']).map_or("", |at| &path[..at])
}

impl Companions {
    /// Starts loading `name` when it is a companion (answers whether it is); those kept for
    /// another folder than `name`'s are let go.
    pub(super) fn begin(&mut self, name: &str) -> bool {
        let folder = folder_of(name);
        self.kept.retain(|(kept, _)| folder_of(kept) == folder);
        self.loading = None;
        let is = crate::transcripts::providers::is_companion(name);
        if is {
            self.loading = Some((name.to_owned(), Vec::new(), false));
        }
        is
    }

    /// Whether a companion is being loaded.
    pub(super) fn loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Adds a chunk of the companion being loaded.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        if let Some((_, bytes, too_big)) = self.loading.as_mut() {
            if bytes.len() + chunk.len() > MAX_COMPANION_BYTES {
                *too_big = true;
                bytes.clear();
            } else if !*too_big {
                bytes.extend_from_slice(chunk);
            }
        }
    }

    /// Drops the companion being loaded.
    pub(super) fn cancel(&mut self) {
        self.loading = None;
    }

    /// Keeps the companion loaded; what the host is told of it.
    pub(super) fn finish(&mut self) -> Option<FileSummary> {
        let (name, bytes, too_big) = self.loading.take()?;
        let product = crate::transcripts::cline::product_of(&name, Provider::Cline);
        let summary = FileSummary {
            name: name.clone(),
            format: FileFormat::Transcript(product),
            archive: None,
            entries: Vec::new(),
            bytes: bytes.len() as u64,
            conversations: 0,
            messages: 0,
            ledger_lines: 0,
            stats: ReadStats {
                too_long: u64::from(too_big),
                ..ReadStats::default()
            },
            unknown_kinds: BTreeMap::new(),
        };
        if !too_big {
            self.kept.push((name, bytes));
        }
        Some(summary)
    }

    /// Gives `ingest` the companions kept for its folder, when it is the transcript they go
    /// with (a task's `ui_messages.json`; any other file of the folder takes none).
    pub(super) fn give(&mut self, ingest: &mut FileIngest) {
        if !crate::transcripts::providers::takes_companions(ingest.name()) {
            return;
        }
        let folder = folder_of(ingest.name()).to_owned();
        for (name, bytes) in std::mem::take(&mut self.kept) {
            if folder_of(&name) == folder {
                ingest.give_companion(&name, bytes);
            }
        }
    }
}
