//! Identifiers: session and event ids are UUIDv7 values minted by the host and passed in.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

macro_rules! uuid_id {
    ($name:ident, $what:literal) => {
        #[doc = concat!("A ", $what, " id: a UUID (UUIDv7 when Baton minted it).")]
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
        )]
        #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            /// Parses user input: the hyphenated form of a UUIDv7, case-insensitive.
            pub fn parse_v7(field: &str, text: &str) -> Result<$name> {
                let trimmed = text.trim();
                let uuid = Uuid::try_parse(trimmed).map_err(|_| {
                    Error::invalid(
                        field,
                        format!("`{trimmed}` is not a UUID ({} id expected)", $what),
                    )
                    .with("value", trimmed)
                })?;
                if uuid.get_version_num() != 7 {
                    return Err(Error::invalid(
                        field,
                        format!(
                            "`{trimmed}` is a version {} UUID; {} ids are UUIDv7",
                            uuid.get_version_num(),
                            $what
                        ),
                    )
                    .with("value", trimmed));
                }
                Ok($name(uuid))
            }

            /// The last eight hex digits (random in a UUIDv7, unlike the leading time bits),
            /// for presentation.
            pub fn short(&self) -> String {
                self.0.simple().to_string()[24..].to_owned()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }
    };
}

uuid_id!(SessionId, "session");
uuid_id!(EventId, "event");

/// The stream that holds workspace events (the nil UUID; never a session).
pub const WORKSPACE_STREAM: SessionId = SessionId(uuid::Uuid::nil());

/// The stream that holds stored records (`record_stored` events; never a session). A record
/// names the work session it is attached to in its data, so attaching one never touches that
/// session's own events.
pub const RECORDS_STREAM: SessionId = SessionId(uuid::Uuid::from_u128(1));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_v7_rejects_others() {
        let v7 = "019c1a2b-3c4d-7e5f-8a6b-7c8d9e0f1a2b";
        let id = SessionId::parse_v7("session_id", v7).unwrap();
        assert_eq!(id.to_string(), v7);
        assert_eq!(id.short(), "9e0f1a2b");
        let v4 = "9f1c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b";
        let err = SessionId::parse_v7("session_id", v4).unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::InvalidArgument);
        assert!(SessionId::parse_v7("session_id", "not-an-id").is_err());
    }
}
