//! The `record_stored` event's data: a record kept on purpose, its content inline or named
//! by a content-addressed blob (the SHA-256 of its bytes). The rules for planning and reading
//! them are the records subdomain's (`crate::records`).

use crate::error::{Error, Result};
use crate::ids::SessionId;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use uuid::Uuid;

/// The event kind that stores a record.
pub const RECORD_STORED: &str = "record_stored";

/// Where a record's content is, when it is not in its event: a blob named by the lower-case
/// hex SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlobRef {
    /// The SHA-256 of the content, lower-case hex (the blob's file name).
    pub sha256: String,
    /// The content's length in bytes.
    pub bytes: u64,
}

impl BlobRef {
    /// The reference to `content`'s blob.
    pub fn of(content: &[u8]) -> BlobRef {
        BlobRef {
            sha256: sha256_hex(content),
            bytes: content.len() as u64,
        }
    }

    /// Checks that `bytes` are this blob's: a missing, cut or altered blob is refused with
    /// `RECORD_CONTENT_DAMAGED`, naming the record and the blob.
    pub fn check(&self, record: Uuid, bytes: &[u8]) -> Result<()> {
        if bytes.len() as u64 == self.bytes && sha256_hex(bytes) == self.sha256 {
            return Ok(());
        }
        Err(Error::record_content_damaged(
            &record.to_string(),
            &self.sha256,
            &format!(
                "the blob holds {} bytes that do not hash to its name (expected {} bytes)",
                bytes.len(),
                self.bytes
            ),
        ))
    }
}

/// The lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        hex.push_str(&format!("{byte:02x}"));
    }
    hex
}

/// What is said about a record besides its content, kept with it in the ledger and answered
/// with it: its title, provider, the provider's session id, tags, the work session it is
/// attached to and the agent that stored it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordAbout {
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The provider's session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_session_id: Option<String>,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The work session it is attached to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_session: Option<SessionId>,
    /// The agent that stored it (the legacy `agent_id` property lists filter on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// The data of a `record_stored` event: the record, its content inline or a blob reference.
/// The record's creation time is the event's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordStored {
    /// The record's id.
    pub record_id: Uuid,
    /// What is said about it.
    #[serde(flatten)]
    pub about: RecordAbout,
    /// The content, when it fits the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Where the content is, when it did not fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_blob: Option<BlobRef>,
}
