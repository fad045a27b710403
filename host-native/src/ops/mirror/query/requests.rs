//! What the index's messages do not say but Claude Code's kept lines do, read back from them:
//! each response's `requestId`, which its OpenTelemetry reports name too (`usage --check`
//! pairs by it), and which user-side lines are a sub-agent's or injected (no turn of the
//! person's: `otel export`).

use super::*;
use std::collections::HashMap;

/// Every kept line of the Claude Code conversations of the agent sessions `sessions`, with
/// the session it belongs to. A chunk that will not inflate is passed over.
fn each_claude_line(
    connection: &Connection,
    path: &Path,
    sessions: &[String],
    mut each: impl FnMut(&str, &[u8]),
) -> Result<(), Error> {
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
                        each(session, line);
                    }
                }
            }
        }
    }
    Ok(())
}

fn holds(line: &[u8], needle: &[u8]) -> bool {
    line.windows(needle.len()).any(|w| w == needle)
}

/// The `requestId` of every Claude Code response of the agent sessions `sessions` that
/// has one, by the index's dedup key (the upper 64 bits of the core's
/// [`response_key`](baton_core::transcripts::usage::claude_code::response_key), as the usage
/// rows keep it). A line that will not parse is passed over.
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
    each_claude_line(connection, path, sessions, |session, line| {
        if !holds(line, b"\"requestId\"") {
            return;
        }
        let Ok(Line {
            request_id: Some(request),
            message: Some(Message { id: Some(message) }),
        }) = serde_json::from_slice::<Line>(line)
        else {
            return;
        };
        if request.is_empty() || message.is_empty() {
            return;
        }
        let key = baton_core::transcripts::usage::claude_code::response_key(
            session,
            &message,
            Some(&request),
        );
        out.insert((key >> 64) as i64, request.into_owned());
    })?;
    Ok(out)
}

/// The ids of the Claude Code user-side lines of the agent sessions `sessions` that no person
/// typed in the main thread: a sub-agent's prompt (`isSidechain`) and what Claude Code
/// injects marked `isMeta`. The index keeps neither mark on its messages; the lines keep both.
pub fn claude_side_prompts(
    connection: &Connection,
    path: &Path,
    sessions: &[String],
) -> Result<std::collections::HashSet<String>, Error> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(rename = "type", borrow)]
        kind: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow)]
        uuid: Option<std::borrow::Cow<'a, str>>,
        #[serde(rename = "isSidechain")]
        side_chain: Option<bool>,
        #[serde(rename = "isMeta")]
        meta: Option<bool>,
    }
    let mut out = std::collections::HashSet::new();
    each_claude_line(connection, path, sessions, |_, line| {
        if !holds(line, b"\"user\"") || !(holds(line, b"true")) {
            return;
        }
        let Ok(parsed) = serde_json::from_slice::<Line>(line) else {
            return;
        };
        if parsed.kind.as_deref() == Some("user")
            && (parsed.side_chain == Some(true) || parsed.meta == Some(true))
            && let Some(uuid) = parsed.uuid
        {
            out.insert(uuid.into_owned());
        }
    })?;
    Ok(out)
}
