//! Records' content blobs under `.baton/blobs/`, named by their SHA-256: written whole,
//! read back checked, and found missing or damaged by `doctor`.

use super::*;

/// The folder of content blobs, inside the ledger.
pub(super) const BLOBS: &str = "blobs";

/// Where the blob `sha256` lives, when the name is a SHA-256 (64 lower-case hex digits): a
/// name from a hand-edited or hostile ledger line (`../x`, `/dev/zero`) names no file.
pub(super) fn blob_path(ledger: &Ledger, sha256: &str) -> Option<PathBuf> {
    let hex = sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then(|| ledger.dir().join(BLOBS).join(sha256))
}

/// The blobs under `.baton/blobs/` whose bytes are not what their name (a SHA-256) promises:
/// each as a finding for `baton doctor`, with what to do. A blob is checked whole, up to
/// 1 GiB (a larger one is named as too large to be Baton's).
pub fn check_blobs(ledger: &Ledger) -> Vec<String> {
    let dir = ledger.dir().join(BLOBS);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_owned))
        .filter(|name| !name.starts_with('.'))
        .collect();
    names.sort();
    let mut findings = Vec::new();
    for name in names {
        let Some(path) = blob_path(ledger, &name) else {
            continue;
        };
        let problem = match crate::store::read_own_bytes(&path, 1 << 30) {
            None => "cannot be read as the ledger's own file (a link, a FIFO, another user's, or over 1 GiB)".to_owned(),
            Some(bytes) if baton_core::ledger::record::sha256_hex(&bytes) != name => format!(
                "holds {} bytes that are not the ones its name promises (altered or cut)",
                bytes.len()
            ),
            Some(_) => continue,
        };
        findings.push(format!(
            "the record blob {} {problem}: restore it from a copy of the ledger (records that use it answer RECORD_CONTENT_DAMAGED)",
            path.display()
        ));
    }
    findings
}

/// Writes a content blob whole and durably (a temporary, fsync, rename), unless a blob with
/// these very bytes is already there (the name is their hash: the same content is kept once).
/// The ledger and its `blobs/` folder must be this user's own, not links.
pub(super) fn write_blob(ledger: &Ledger, blob: &BlobRef, content: &[u8]) -> Result<(), Error> {
    let path = blob_path(ledger, &blob.sha256)
        .ok_or_else(|| Error::internal("a blob name that is not a SHA-256"))?;
    let dir = ledger.dir().join(BLOBS);
    crate::store::check_own_folder(ledger, ledger.dir())?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::store_io("create directory", &dir.display().to_string(), e))?;
    crate::store::check_own_folder(ledger, &dir)?;
    if crate::store::read_own_bytes(&path, content.len() as u64).is_some_and(|kept| kept == content)
    {
        return Ok(());
    }
    crate::store::write_atomically(&path, content)
}

/// A stored record with its content, read from its blob when it has one (checked against
/// the blob's name; read as the ledger's own file, never past the size it should have).
pub(super) fn with_content(ledger: &Ledger, stored: StoredRecord) -> Result<Record, Error> {
    let bytes = stored.blob.as_ref().and_then(|blob| {
        crate::store::read_own_bytes(&blob_path(ledger, &blob.sha256)?, blob.bytes)
    });
    stored.with_content(bytes.as_deref())
}
