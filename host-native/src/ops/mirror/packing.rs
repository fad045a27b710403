//! How the index compresses what it keeps: zstd frames, with a dictionary per provider
//! trained from that provider's own transcript lines the first time there are enough of them.
//! A frame names its dictionary in its header (id 0: none), so frames written before a
//! dictionary existed, or with another one, still inflate; small chunks and excerpts, which
//! compress poorly alone, share what every line of their kind repeats.

use baton_core::transcripts::Provider;
use rusqlite::{Connection, OptionalExtension, params};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

/// zstd's level: fast, and most of the gain.
pub const LEVEL: i32 = 3;
/// The size of a trained dictionary.
const DICTIONARY_BYTES: usize = 96 * 1024;
/// How many bytes of a provider's transcripts make a dictionary worth training.
pub const TRAIN_FROM_BYTES: u64 = 2 << 20;
/// How many files are sampled (spread over the sorted list), and how much of each.
const SAMPLE_FILES: usize = 400;
const SAMPLE_BYTES_PER_FILE: u64 = 48 * 1024;
/// The largest frame this build inflates (the index's chunks are at most 1 MiB).
const MAX_INFLATED: usize = 256 << 20;

/// The compressors of one pass: one per provider with a dictionary, and a plain one.
pub struct Compressors {
    plain: zstd::bulk::Compressor<'static>,
    trained: HashMap<&'static str, zstd::bulk::Compressor<'static>>,
}

impl std::fmt::Debug for Compressors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compressors")
            .field("trained", &self.trained.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Compressors {
    /// Compressors without dictionaries (see [`Compressors::load`]).
    pub fn plain() -> Compressors {
        Compressors {
            plain: zstd::bulk::Compressor::new(LEVEL).expect("zstd's level 3 is valid"),
            trained: HashMap::new(),
        }
    }

    /// Compressors with every dictionary the index holds (the newest of each provider).
    pub fn load(connection: &Connection) -> rusqlite::Result<Compressors> {
        let mut compressors = Compressors::plain();
        let mut statement =
            connection.prepare("SELECT provider, bytes FROM dictionaries ORDER BY id")?;
        let rows = statement.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))?;
        for row in rows {
            let (provider, bytes): (String, Vec<u8>) = row?;
            compressors.adopt(&provider, &bytes);
        }
        Ok(compressors)
    }

    fn adopt(&mut self, provider: &str, dictionary: &[u8]) {
        let key = Provider::named(provider).map(Provider::key);
        if let (Some(key), Ok(compressor)) = (
            key,
            zstd::bulk::Compressor::with_dictionary(LEVEL, dictionary),
        ) {
            self.trained.insert(key, compressor);
        }
    }

    /// Whether `provider`'s frames are compressed with a dictionary.
    pub fn has_dictionary(&self, provider: Provider) -> bool {
        self.trained.contains_key(provider.key())
    }

    /// `bytes` as one zstd frame, with `provider`'s dictionary when there is one.
    pub fn pack(&mut self, provider: Provider, bytes: &[u8]) -> Vec<u8> {
        let compressor = match self.trained.get_mut(provider.key()) {
            Some(trained) => trained,
            None => &mut self.plain,
        };
        compressor.compress(bytes).unwrap_or_default()
    }

    /// Trains `provider`'s dictionary from `files` (a sample of their first lines) and keeps
    /// it in the index, unless it has one. `false` when there was too little to learn from.
    pub fn train(
        &mut self,
        connection: &Connection,
        provider: Provider,
        files: &[&Path],
    ) -> rusqlite::Result<bool> {
        let key = provider.key();
        let samples = samples_of(files);
        let total: usize = samples.iter().map(Vec::len).sum();
        if samples.len() < 64 || total < DICTIONARY_BYTES * 4 {
            return Ok(false);
        }
        let Ok(dictionary) = zstd::dict::from_samples(&samples, DICTIONARY_BYTES) else {
            return Ok(false);
        };
        let Some(id) = zstd::zstd_safe::get_dict_id_from_dict(&dictionary) else {
            return Ok(false);
        };
        connection.execute_batch("BEGIN IMMEDIATE")?;
        let stored = (|| {
            let existing: Option<i64> = connection
                .query_row(
                    "SELECT id FROM dictionaries WHERE provider = ?1",
                    [key],
                    |r| r.get(0),
                )
                .optional()?;
            if existing.is_none() {
                connection.execute(
                    "INSERT OR IGNORE INTO dictionaries (id, provider, bytes) VALUES (?1, ?2, ?3)",
                    params![i64::from(id.get()), key, dictionary],
                )?;
            }
            connection.execute_batch("COMMIT")
        })();
        if stored.is_err() {
            let _ = connection.execute_batch("ROLLBACK");
        }
        stored?;
        // Whatever won (this dictionary, or one another process stored first) is the one used.
        let bytes: Vec<u8> = connection.query_row(
            "SELECT bytes FROM dictionaries WHERE provider = ?1 ORDER BY id LIMIT 1",
            [key],
            |r| r.get(0),
        )?;
        self.adopt(key, &bytes);
        Ok(true)
    }
}

/// The complete lines at the start of each of (up to) [`SAMPLE_FILES`] files spread over
/// `files`, one sample per line.
fn samples_of(files: &[&Path]) -> Vec<Vec<u8>> {
    let step = files.len().div_ceil(SAMPLE_FILES).max(1);
    let mut samples = Vec::new();
    for path in files.iter().step_by(step) {
        let Ok(file) = std::fs::File::open(path) else {
            continue;
        };
        let mut head = Vec::new();
        if file
            .take(SAMPLE_BYTES_PER_FILE)
            .read_to_end(&mut head)
            .is_err()
        {
            continue;
        }
        let complete = crate::os::files::whole_lines_len(&head);
        samples.extend(
            head[..complete]
                .split(|b| *b == b'\n')
                .filter(|line| !line.is_empty())
                .map(<[u8]>::to_vec),
        );
    }
    samples
}

/// Inflates the index's frames, each with the dictionary its header names (read from the
/// index the first time one is needed).
#[derive(Default)]
pub struct Inflater {
    dictionaries: Option<HashMap<u32, Vec<u8>>>,
    decompressors: HashMap<u32, zstd::bulk::Decompressor<'static>>,
}

impl std::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Inflater")
    }
}

impl Inflater {
    /// An inflater that reads dictionaries from the index as frames need them.
    pub fn new() -> Inflater {
        Inflater::default()
    }

    /// The bytes of one stored frame, or why they could not be had.
    pub fn inflate(&mut self, connection: &Connection, frame: &[u8]) -> Result<Vec<u8>, String> {
        let id = zstd::zstd_safe::get_dict_id_from_frame(frame).map_or(0, |id| id.get());
        if id == 0 {
            let mut out = Vec::new();
            zstd::stream::read::Decoder::new(frame)
                .and_then(|mut d| d.read_to_end(&mut out))
                .map_err(|e| e.to_string())?;
            return Ok(out);
        }
        if !self.decompressors.contains_key(&id) {
            if self.dictionaries.is_none() {
                self.dictionaries = Some(dictionaries(connection).map_err(|e| e.to_string())?);
            }
            let dictionary = self
                .dictionaries
                .as_ref()
                .and_then(|d| d.get(&id))
                .ok_or_else(|| format!("the index holds no dictionary {id}"))?;
            let decompressor =
                zstd::bulk::Decompressor::with_dictionary(dictionary).map_err(|e| e.to_string())?;
            self.decompressors.insert(id, decompressor);
        }
        let size = zstd::zstd_safe::get_frame_content_size(frame)
            .ok()
            .flatten()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n <= MAX_INFLATED)
            .ok_or_else(|| "a stored frame does not say its size".to_owned())?;
        let decompressor = self
            .decompressors
            .get_mut(&id)
            .expect("the decompressor was just made");
        decompressor
            .decompress(frame, size)
            .map_err(|e| e.to_string())
    }
}

fn dictionaries(connection: &Connection) -> rusqlite::Result<HashMap<u32, Vec<u8>>> {
    let mut statement = connection.prepare("SELECT id, bytes FROM dictionaries")?;
    let rows = statement.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?)))?;
    let mut found = HashMap::new();
    for row in rows {
        let (id, bytes) = row?;
        if let Ok(id) = u32::try_from(id) {
            found.insert(id, bytes);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> (tempfile::TempDir, Connection) {
        let tmp = tempfile::tempdir().unwrap();
        let connection = crate::index::open(&tmp.path().join("i.sqlite"), true).unwrap();
        (tmp, connection)
    }

    fn lines_file(dir: &Path, n: usize) -> std::path::PathBuf {
        let path = dir.join(format!("t{n}.jsonl"));
        let mut text = String::new();
        for i in 0..200 {
            text.push_str(&format!(
                "{{\"type\":\"assistant\",\"sessionId\":\"s{n}\",\"uuid\":\"u{n}-{i}\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"answer {i} of {n}\"}}]}}}}\n"
            ));
        }
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_trained_dictionary_makes_small_frames_smaller_and_old_frames_still_inflate() {
        let (tmp, connection) = index();
        let files: Vec<_> = (0..80).map(|n| lines_file(tmp.path(), n)).collect();
        let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
        let line = br#"{"type":"assistant","sessionId":"s9","uuid":"u9-1","message":{"role":"assistant","content":[{"type":"text","text":"answer 1 of 9"}]}}"#;
        let mut compressors = Compressors::load(&connection).unwrap();
        let before = compressors.pack(Provider::ClaudeCode, line);
        assert!(
            compressors
                .train(&connection, Provider::ClaudeCode, &refs)
                .unwrap()
        );
        assert!(compressors.has_dictionary(Provider::ClaudeCode));
        assert!(!compressors.has_dictionary(Provider::Codex));
        let after = compressors.pack(Provider::ClaudeCode, line);
        assert!(
            after.len() * 2 < before.len(),
            "{} vs {}",
            after.len(),
            before.len()
        );
        let mut inflater = Inflater::new();
        assert_eq!(inflater.inflate(&connection, &after).unwrap(), line);
        assert_eq!(inflater.inflate(&connection, &before).unwrap(), line);
        // A later pass loads the same dictionary.
        let mut again = Compressors::load(&connection).unwrap();
        assert_eq!(again.pack(Provider::ClaudeCode, line), after);
    }

    #[test]
    fn too_little_to_learn_from_trains_nothing_and_a_frame_of_an_unknown_dictionary_is_an_error() {
        let (tmp, connection) = index();
        let one = lines_file(tmp.path(), 1);
        let mut compressors = Compressors::load(&connection).unwrap();
        assert!(
            !compressors
                .train(&connection, Provider::Codex, &[one.as_path()])
                .unwrap()
        );
        let other = tempfile::tempdir().unwrap();
        let files: Vec<_> = (0..80).map(|n| lines_file(other.path(), n)).collect();
        let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
        let (_tmp2, elsewhere) = index();
        let mut trained = Compressors::load(&elsewhere).unwrap();
        assert!(trained.train(&elsewhere, Provider::Codex, &refs).unwrap());
        let frame = trained.pack(Provider::Codex, b"{\"a\":1}");
        let err = Inflater::new().inflate(&connection, &frame).unwrap_err();
        assert!(err.contains("no dictionary"), "{err}");
    }
}
