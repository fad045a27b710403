//! The provider's own ids of the responses the index counts, read back from the kept lines:
//! Claude Code writes each response's `requestId`, which its OpenTelemetry reports name too
//! (`usage --check` pairs by it).

use super::*;
use std::collections::HashMap;

/// The `requestId` of every Claude Code response of the agent sessions `sessions` that
/// has one, by the index's dedup key (the upper 64 bits of the core's
/// [`response_key`](baton_core::transcripts::usage::claude_code::response_key), as the usage
/// rows keep it). A line that will not inflate or parse is passed over.
pub fn claude_request_ids(
    connection: &Connection,
    path: &Path,
    sessions: &[String],
) -> Result<HashMap<i64, String>, Error> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(rename = "requestId", borrow)]
        request_id: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        message: Option<Message<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        id: Option<std::borrow::Cow<'a, str>>,
    }
    let mut out = HashMap::new();
    let mut conversation = connection
        .prepare_cached("SELECT id FROM conversations WHERE provider = ?1 AND provider_id = ?2")
        .map_err(sql(path))?;
    let mut chunks = connection
        .prepare_cached("SELECT raw FROM lines WHERE source = ?1 ORDER BY offset")
        .map_err(sql(path))?;
    let mut inflater = crate::ops::mirror::packing::Inflater::new();
    for session in sessions {
        let ids: Vec<i64> = conversation
            .query_map(params![Provider::ClaudeCode.key(), session], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(sql(path))?;
        for id in ids {
            for source in sources_of(connection, path, id)? {
                let raws: Vec<Vec<u8>> = chunks
                    .query_map([source.id], |r| r.get(0))
                    .and_then(|rows| rows.collect())
                    .map_err(sql(path))?;
                for raw in raws {
                    let Ok(chunk) = inflater.inflate(connection, &raw) else {
                        continue;
                    };
                    for line in chunk.split(|b| *b == b'\n') {
                        if !line.windows(11).any(|w| w == b"\"requestId\"") {
                            continue;
                        }
                        let Ok(Line {
                            request_id: Some(request),
                            message: Some(Message { id: Some(message) }),
                        }) = serde_json::from_slice::<Line>(line)
                        else {
                            continue;
                        };
                        if request.is_empty() || message.is_empty() {
                            continue;
                        }
                        let key = baton_core::transcripts::usage::claude_code::response_key(
                            session,
                            &message,
                            Some(&request),
                        );
                        out.insert((key >> 64) as i64, request.into_owned());
                    }
                }
            }
        }
    }
    Ok(out)
}
