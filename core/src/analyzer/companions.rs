//! Files a transcript's readers are given with it: the registry's `companions`, beside it in
//! its folder (a Cline task's model and workspace), held from when they are loaded until the
//! transcript beside them is begun and let go when a file of another folder begins (hosts load
//! a folder's files in name order, so a task's companions come before its
//! `ui_messages.json`); and its `above` files (VS Code's `workspace.json`, Gemini CLI's
//! `projects.json`), which hosts load before everything else
//! ([`crate::transcripts::ingest::taken_from_folder`]) and which are kept for the whole load,
//! each given to the transcripts below it.

use super::FileSummary;
use crate::transcripts::ingest::FileIngest;
use crate::transcripts::{FileFormat, Provider, ReadStats};
use std::collections::BTreeMap;

/// The largest companion kept (a bigger one is read as if absent).
const MAX_COMPANION_BYTES: usize = 256 << 20;

/// The companions loaded and not yet given, the files above kept, and the one being loaded.
#[derive(Debug, Default)]
pub(super) struct Companions {
    kept: Vec<(String, Vec<u8>)>,
    /// Files above transcripts by the folder each is in: its name there, its whole name, how
    /// many folders below it they reach, its bytes.
    above: BTreeMap<String, Vec<AboveFile>>,
    /// The farthest below its folder any file kept above reaches.
    reach: usize,
    loading: Option<(String, Vec<u8>, bool)>,
}

/// A file kept above transcripts: its name in its folder, its whole name, how many folders
/// below it it reaches, its bytes.
#[derive(Debug)]
struct AboveFile {
    file: String,
    name: String,
    levels: usize,
    bytes: Vec<u8>,
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
        let is = crate::transcripts::providers::is_companion(name)
            || crate::transcripts::providers::above_levels(name).is_some();
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
        let levels = crate::transcripts::providers::above_levels(&name);
        let product = match levels {
            // The agent that keeps such a file above its transcripts.
            Some(_) => crate::transcripts::providers::REGISTRY
                .iter()
                .find(|e| e.names.above.iter().any(|a| name.ends_with(a.name)))
                .map_or(Provider::CopilotChat, |e| e.provider),
            None => crate::transcripts::cline::product_of(&name, Provider::Cline),
        };
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
        match (too_big, levels) {
            (true, _) => {}
            (false, Some(levels)) => {
                let (folder, file) = name.rsplit_once(['/', '\\']).unwrap_or(("", &name));
                let above = AboveFile {
                    file: file.to_owned(),
                    name: name.clone(),
                    levels,
                    bytes,
                };
                self.reach = self.reach.max(levels);
                self.above.entry(folder.to_owned()).or_default().push(above);
            }
            (false, None) => self.kept.push((name, bytes)),
        }
        Some(summary)
    }

    /// Gives `ingest` the companions kept for its folder, when it is the transcript they go
    /// with (a task's `ui_messages.json`; any other file of the folder takes none).
    /// Every transcript is given the nearest file above it of each name, within its reach.
    pub(super) fn give(&mut self, ingest: &mut FileIngest) {
        // The transcript's folder and those above it, nearest first: each looked up once
        // (a load may keep a file above every session: Copilot CLI's `workspace.yaml`).
        let mut nearest: BTreeMap<&str, &AboveFile> = BTreeMap::new();
        let mut folder = folder_of(ingest.name());
        for depth in 0..=self.reach {
            if self.above.is_empty() {
                break;
            }
            for above in self.above.get(folder).into_iter().flatten() {
                if depth <= above.levels {
                    nearest.entry(above.file.as_str()).or_insert(above);
                }
            }
            if folder.is_empty() {
                break;
            }
            folder = folder_of(folder);
        }
        let found: Vec<(String, Vec<u8>)> = nearest
            .into_values()
            .map(|above| (above.name.clone(), above.bytes.clone()))
            .collect();
        for (name, bytes) in found {
            ingest.give_companion(&name, bytes);
        }
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
