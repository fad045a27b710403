//! How lines and readers' states are packed into the index: compressed chunks, with a
//! dictionary per agent once one is trained.

use super::*;

/// A stored chunk this small (compressed) takes the next pass's lines in, so a file written a
/// line at a time still compresses as a whole.
pub(super) const SMALL_CHUNK: usize = 16 << 10;
/// A chunk never grows past this (uncompressed) by taking lines in.
pub(super) const CHUNK_LIMIT: usize = 1 << 20;

/// What a pass reuses: its compressor (making one per line cost more than the compressing)
/// and the numbers of the names it stored. A file whose transaction is rolled back forgets
/// the names (their numbers went with it).
pub struct Packer {
    pub(super) compressors: crate::ops::mirror::packing::Compressors,
    pub(super) inflater: crate::ops::mirror::packing::Inflater,
    /// The usage rows this source's transaction added or removed, settled before it commits.
    pub(super) dirty: crate::ops::mirror::tally::Dirty,
    pub(super) names: std::collections::HashMap<String, i64>,
    /// The words this source's transaction stored, written before it commits.
    pub(super) vocabulary: crate::ops::mirror::vocabulary::Pending,
    /// The conversations removed on purpose, read once per pass (none are removed during
    /// one: removal takes the writer lock too).
    pub(super) removed: Option<std::collections::HashSet<(String, String)>>,
    /// The source about to be read, when the second thread read and digested it ahead (its
    /// first window takes it).
    pub(super) ahead: Option<Prefetched>,
}

impl std::fmt::Debug for Packer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Packer")
    }
}

impl Packer {
    /// A packer with the index's dictionaries (none when they cannot be read: frames are then
    /// compressed without one, which any reader inflates).
    pub fn new(connection: &Connection) -> Packer {
        Packer {
            compressors: crate::ops::mirror::packing::Compressors::load(connection)
                .unwrap_or_else(|_| crate::ops::mirror::packing::Compressors::plain()),
            inflater: crate::ops::mirror::packing::Inflater::new(),
            dirty: crate::ops::mirror::tally::Dirty::default(),
            names: std::collections::HashMap::new(),
            vocabulary: Default::default(),
            removed: None,
            ahead: None,
        }
    }

    pub(super) fn pack(&mut self, provider: Provider, bytes: &[u8]) -> Vec<u8> {
        self.compressors.pack(provider, bytes)
    }

    pub(super) fn inflate(&mut self, connection: &Connection, frame: &[u8]) -> Option<Vec<u8>> {
        self.inflater.inflate(connection, frame).ok()
    }

    /// A reader's state (JSON) as kept: compressed when that is smaller (a blob), else text.
    pub(super) fn pack_state(
        &mut self,
        provider: Provider,
        state: Option<String>,
    ) -> rusqlite::types::Value {
        use rusqlite::types::Value;
        let Some(state) = state else {
            return Value::Null;
        };
        let packed = self.pack(provider, state.as_bytes());
        if packed.len() < state.len() {
            Value::Blob(packed)
        } else {
            Value::Text(state)
        }
    }

    /// A reader's state as [`Packer::pack_state`] kept it (`None` if it cannot be read: the
    /// reader then starts afresh, as for a file never read).
    pub(super) fn unpack_state(
        &mut self,
        connection: &Connection,
        kept: rusqlite::types::Value,
    ) -> Option<String> {
        match kept {
            rusqlite::types::Value::Text(text) => Some(text),
            rusqlite::types::Value::Blob(frame) => self
                .inflate(connection, &frame)
                .and_then(|bytes| String::from_utf8(bytes).ok()),
            _ => None,
        }
    }

    /// Trains the dictionary of each provider that has none and enough bytes in `sources`
    /// to learn from (its first pass with that much), before any of them is stored.
    pub(super) fn train_missing(&mut self, connection: &Connection, sources: &[Source]) {
        // Agents' lines repeat their shapes enough for a dictionary; an export is one file.
        let agents = REGISTRY.iter().filter(|e| e.kind == Kind::Agent);
        for provider in agents.map(|e| e.provider) {
            if self.compressors.has_dictionary(provider) {
                continue;
            }
            let files: Vec<&Path> = sources
                .iter()
                .filter(|s| s.provider == provider)
                .map(|s| s.path.as_path())
                .collect();
            let bytes: u64 = sources
                .iter()
                .filter(|s| s.provider == provider)
                .filter_map(|s| {
                    s.seen
                        .map(|(_, _, size, _)| u64::try_from(size).unwrap_or(0))
                })
                .sum();
            if bytes >= crate::ops::mirror::packing::TRAIN_FROM_BYTES {
                let _ = self.compressors.train(connection, provider, &files);
            }
        }
    }

    /// The number of `text` in `names`, added when new.
    pub(super) fn name(
        &mut self,
        transaction: &Connection,
        text: Option<&str>,
    ) -> rusqlite::Result<Option<i64>> {
        let Some(text) = text else {
            return Ok(None);
        };
        if let Some(id) = self.names.get(text) {
            return Ok(Some(*id));
        }
        transaction
            .prepare_cached("INSERT OR IGNORE INTO names (text) VALUES (?1)")?
            .execute([text])?;
        let id: i64 = transaction
            .prepare_cached("SELECT id FROM names WHERE text = ?1")?
            .query_row([text], |r| r.get(0))?;
        self.names.insert(text.to_owned(), id);
        Ok(Some(id))
    }

    /// Whether the conversation was removed on purpose (`baton transcripts remove`): a pass
    /// does not bring it back.
    pub(super) fn is_removed(
        &mut self,
        connection: &Connection,
        provider: &str,
        id: &str,
    ) -> rusqlite::Result<bool> {
        if self.removed.is_none() {
            let mut statement = connection.prepare("SELECT provider, provider_id FROM removed")?;
            let rows = statement.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            self.removed = Some(rows.collect::<rusqlite::Result<_>>()?);
        }
        Ok(self
            .removed
            .as_ref()
            .is_some_and(|set| set.contains(&(provider.to_owned(), id.to_owned()))))
    }

    /// Forgets the names' numbers, the rows and the words noted to settle (after a rollback).
    pub(super) fn forget_names(&mut self) {
        self.names.clear();
        self.dirty.clear();
        self.vocabulary.clear();
    }
}

/// Stores a pass's lines of a source as one compressed chunk (newline-separated) at the
/// offset of its first line; when the source's last chunk is small, the lines join it
/// instead (the chunk is rewritten in place, in this transaction).
pub(super) fn store_lines(
    transaction: &Connection,
    packer: &mut Packer,
    provider: Provider,
    source_id: i64,
    offset: i64,
    lines: &[Vec<u8>],
) -> rusqlite::Result<()> {
    let mut text: Vec<u8> = Vec::new();
    let mut at = offset;
    let last: Option<(i64, Vec<u8>)> = transaction
        .prepare_cached(
            "SELECT offset, raw FROM lines WHERE source = ?1 AND offset < ?2
             ORDER BY offset DESC LIMIT 1",
        )?
        .query_row(params![source_id, offset], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let adding: usize = lines.iter().map(|l| l.len() + 1).sum();
    if let Some((last_offset, raw)) = last
        && raw.len() < SMALL_CHUNK
        && let Some(old) = packer.inflate(transaction, &raw)
        && old.len() + adding <= CHUNK_LIMIT
    {
        text = old;
        at = last_offset;
    }
    for line in lines {
        if !text.is_empty() {
            text.push(b'\n');
        }
        text.extend_from_slice(line);
    }
    transaction
        .prepare_cached(
            "INSERT INTO lines (source, offset, raw) VALUES (?1, ?2, ?3)
             ON CONFLICT (source, offset) DO UPDATE SET raw = excluded.raw",
        )?
        .execute(params![source_id, at, packer.pack(provider, &text)])?;
    Ok(())
}
