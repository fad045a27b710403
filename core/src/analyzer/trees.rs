//! OpenCode's file trees (`storage/{session,message,part}/…`, from before its database) loaded
//! a file at a time: each file is added to its tree as it finishes, and the tree is read as
//! its database would be once the load leaves the tree's folder or ends
//! ([`super::Analyzer::settle`]). Hosts load a folder's files in path order, so a tree's files
//! come together.

use super::FileSummary;
use crate::transcripts::opencode::legacy::{self, Tree};
use crate::transcripts::{FileFormat, ReadStats};
use std::collections::BTreeMap;

/// The tree being loaded and the file being loaded into it.
#[derive(Debug, Default)]
pub(super) struct Trees {
    /// The tree's `storage` folder and its rows so far.
    open: Option<(String, Tree)>,
    /// The file being loaded: its name, its bytes so far, and whether it grew too long.
    loading: Option<(String, Vec<u8>, bool)>,
}

impl Trees {
    /// Starts loading `name` when it is a tree's file (answers whether), and hands back the
    /// tree loaded before when `name` is not one of its files (to be settled now).
    pub(super) fn begin(&mut self, name: &str) -> (bool, Option<(String, Tree)>) {
        self.loading = None;
        let root = legacy::place_of(name).map(|(.., root)| root.to_owned());
        let left = match (&self.open, &root) {
            (Some((open, _)), Some(root)) if open == root => None,
            _ => self.open.take(),
        };
        if let Some(root) = root {
            if self.open.is_none() {
                self.open = Some((root, Tree::default()));
            }
            self.loading = Some((name.to_owned(), Vec::new(), false));
            return (true, left);
        }
        (false, left)
    }

    /// Whether a tree's file is being loaded.
    pub(super) fn loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Adds a chunk of the file being loaded.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        if let Some((_, bytes, too_long)) = self.loading.as_mut() {
            if (bytes.len() + chunk.len()) as u64 > legacy::MAX_FILE_BYTES {
                *too_long = true;
                bytes.clear();
            } else if !*too_long {
                bytes.extend_from_slice(chunk);
            }
        }
    }

    /// Drops the file being loaded.
    pub(super) fn cancel(&mut self) {
        self.loading = None;
    }

    /// Adds the file loaded to its tree; what the host is told of it.
    pub(super) fn finish(&mut self) -> Option<FileSummary> {
        let (name, bytes, too_long) = self.loading.take()?;
        let (root, tree) = self.open.as_mut()?;
        if !too_long {
            tree.add(&name, &bytes);
        }
        let provider = legacy::provider_of(root, &Default::default());
        Some(FileSummary {
            name,
            format: FileFormat::Transcript(provider),
            archive: None,
            entries: Vec::new(),
            bytes: bytes.len() as u64,
            conversations: 0,
            messages: 0,
            ledger_lines: 0,
            stats: ReadStats {
                too_long: u64::from(too_long),
                ..ReadStats::default()
            },
            unknown_kinds: BTreeMap::new(),
        })
    }

    /// The tree loaded so far, to settle (none is open after).
    pub(super) fn take(&mut self) -> Option<(String, Tree)> {
        self.loading = None;
        self.open.take()
    }
}
