//! An agent's session kept as one JSON document it rewrites whole (Amp's threads, Copilot
//! Chat's sessions, the Cline family's tasks with the files beside them) brought up to date:
//! read whole when its identity changed, parsed once by the agent's reader of both, its
//! conversation and usage rows replacing what the index held of it.

use super::database::{Changed, WholeRead, changed_whole, store_read};
use super::*;

/// The largest document read (a thread of this size is set aside, and said so).
const MAX_DOCUMENT_BYTES: u64 = baton_core::transcripts::lines::DOCUMENT_BYTES as u64;

/// A document's identity: its file's, with the files read with it folded in (a Cline task's
/// `api_conversation_history.json` saved after its panel's file, a Roo task's
/// `history_item.json`, VS Code's `workspace.json` above a Copilot Chat session).
pub(super) fn document_identity(
    provider: Provider,
    path: &Path,
    meta: &std::fs::Metadata,
) -> Identity {
    let (device, inode, size, mtime) = identity_of(meta);
    let (sizes, newest) = crate::os::files::companions_look(provider, path);
    (
        device,
        inode,
        size.wrapping_add(sizes.wrapping_shl(32)),
        mtime.max(newest),
    )
}

/// Brings one document up to date.
pub(super) fn sync_document(
    connection: &mut Connection,
    index_path: &Path,
    source: &Source,
    masker: &Masker,
    _options: PassOptions,
    packer: &mut Packer,
    stats: &mut PassStats,
) -> Result<(), Error> {
    let Some(Changed {
        shown,
        meta,
        before,
        identity,
    }) = changed_whole(connection, index_path, packer, source, |meta| {
        document_identity(source.provider, &source.path, meta)
    })?
    else {
        return Ok(());
    };
    if meta.size() > MAX_DOCUMENT_BYTES {
        return Err(Error::invalid(
            "document",
            format!("it is over {} MiB", MAX_DOCUMENT_BYTES >> 20),
        )
        .with("path", shown));
    }
    let bytes = {
        use std::io::Read as _;
        let mut file = crate::os::files::open_regular(&source.path)?;
        let mut bytes = Vec::with_capacity(meta.size() as usize);
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::store_io("read", &shown, e))?;
        bytes
    };
    stats.files_opened += 1;
    stats.bytes_read += bytes.len() as u64;
    let Some(readers) = baton_core::transcripts::readers::readers(source.provider) else {
        return Err(Error::internal(format!(
            "no readers for {}",
            source.provider.key()
        )));
    };
    let name = source.path.to_string_lossy();
    // One reader for both: the document is parsed once.
    let Some(both) = readers.both else {
        return Err(Error::internal(format!(
            "no document reader for {}",
            source.provider.key()
        )));
    };
    let mut usage = both(&name);
    let mut lines = baton_core::transcripts::lines::LineSplitter::with_limit(
        baton_core::transcripts::lines::DOCUMENT_BYTES,
    );
    let mut feed = |line: &[u8]| usage.push_line(line);
    lines.push(&bytes, &mut feed);
    lines.finish(&mut feed);
    for (name, bytes) in crate::os::files::companions_of(source.provider, &source.path) {
        usage.companion(&name, &bytes);
    }
    usage.end();
    let parsed = usage.take_parsed().unwrap_or_default();
    // An empty document (a chat just opened) is read, and holds nothing yet.
    if parsed.conversations.is_empty() && !bytes.iter().all(u8::is_ascii_whitespace) {
        // Caught mid-write, or not the agent's: tried again when it changes.
        return Err(Error::invalid("document", "it holds no whole thread").with("path", shown));
    }
    let read_stats = usage.stats();
    let read = WholeRead {
        parsed,
        rows: usage.take_rows(),
        stats: &read_stats,
        state: None,
        identity,
        before: before.as_ref(),
    };
    store_read(connection, index_path, source, masker, packer, stats, read)
}
