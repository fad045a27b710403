//! The stdio framing around the MCP server: requests are read one line at a time, never more
//! than [`MAX_REQUEST_BYTES`] of one held, and a request over that size is answered with a
//! JSON-RPC error naming the limit (its id found in its first or last bytes) instead of
//! silence. Everything the server writes goes out a whole line at a time, so such an answer
//! never lands inside another.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The largest request (one JSON-RPC line, without its newline) the server reads.
pub const MAX_REQUEST_BYTES: usize = 16 << 20;

/// How much of an over-long request's start and end is kept to find its id.
const KEPT: usize = 4096;

/// Puts the framing between `read`/`write` (the client's streams) and the server: the server
/// reads from and writes to the two streams this answers; the handle ends once everything the
/// server wrote has gone out.
pub fn bounded<R, W>(
    read: R,
    write: W,
    limit: usize,
) -> (DuplexStream, DuplexStream, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_server, server_reads) = tokio::io::duplex(1 << 16);
    let (server_writes, from_server) = tokio::io::duplex(1 << 16);
    let (lines, outgoing) = mpsc::channel::<Vec<u8>>(64);
    tokio::spawn(requests(read, to_server, lines.clone(), limit));
    tokio::spawn(answers(from_server, lines));
    let writer = tokio::spawn(send(outgoing, write));
    (server_reads, server_writes, writer)
}

/// Passes each request line to the server; answers an over-long one itself.
async fn requests<R: AsyncRead + Unpin>(
    read: R,
    mut to_server: DuplexStream,
    lines: mpsc::Sender<Vec<u8>>,
    limit: usize,
) {
    let mut read = BufReader::with_capacity(1 << 16, read);
    let mut line: Vec<u8> = Vec::new();
    // Past the limit: the request's size so far, and its first and last bytes.
    let mut over: Option<(usize, Vec<u8>, Vec<u8>)> = None;
    loop {
        let available = match read.fill_buf().await {
            Ok([]) | Err(_) => return,
            Ok(bytes) => bytes,
        };
        let (part, ends) = match available.iter().position(|b| *b == b'\n') {
            Some(at) => (&available[..at], true),
            None => (available, false),
        };
        let taken = part.len() + usize::from(ends);
        match &mut over {
            Some((size, _, tail)) => {
                *size += part.len();
                keep_last(tail, part);
            }
            None if line.len() + part.len() > limit => {
                let mut head = std::mem::take(&mut line);
                let size = head.len() + part.len();
                // The last bytes so far: the end of what was held, then this part.
                let mut tail = head[head.len().saturating_sub(KEPT)..].to_vec();
                keep_last(&mut tail, part);
                head.extend_from_slice(&part[..part.len().min(KEPT)]);
                head.truncate(KEPT);
                over = Some((size, head, tail));
            }
            None => line.extend_from_slice(part),
        }
        read.consume(taken);
        if !ends {
            continue;
        }
        match over.take() {
            Some((size, head, tail)) => {
                let mut answer = too_large(size, limit, request_id(&head, &tail)).to_string();
                answer.push('\n');
                if lines.send(answer.into_bytes()).await.is_err() {
                    return;
                }
            }
            None => {
                line.push(b'\n');
                if to_server.write_all(&line).await.is_err() {
                    return;
                }
                line.clear();
            }
        }
    }
}

/// Adds `part` to `tail`, keeping only its last [`KEPT`] bytes.
fn keep_last(tail: &mut Vec<u8>, part: &[u8]) {
    tail.extend_from_slice(part);
    let excess = tail.len().saturating_sub(KEPT);
    tail.drain(..excess);
}

/// Hands each line the server writes to the writer, whole.
async fn answers(from_server: DuplexStream, lines: mpsc::Sender<Vec<u8>>) {
    let mut from_server = BufReader::new(from_server);
    loop {
        let mut line = Vec::new();
        match from_server.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if lines.send(line).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn send<W: AsyncWrite + Unpin>(mut outgoing: mpsc::Receiver<Vec<u8>>, mut write: W) {
    while let Some(line) = outgoing.recv().await {
        if write.write_all(&line).await.is_err() || write.flush().await.is_err() {
            return;
        }
    }
}

/// The JSON-RPC answer to a request over the limit.
fn too_large(size: usize, limit: usize, id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32600,
            "message": format!(
                "INVALID_ARGUMENT: the request is {size} bytes, over the {} MiB a request may be; nothing of it was read (send less: a path to a file rather than its content)",
                limit >> 20
            ),
            "data": {"code": "INVALID_ARGUMENT", "limit_bytes": limit, "bytes": size},
        },
    })
}

/// The id of a request known only by its first and last bytes: a top-level `"id"` in the
/// first (clients write it before the parameters), else one that closes the object at the
/// very end. `null` when neither says (JSON-RPC's id for a request it cannot read).
fn request_id(head: &[u8], tail: &[u8]) -> Value {
    top_level_id(head)
        .or_else(|| closing_id(tail))
        .unwrap_or(Value::Null)
}

/// A number or string token at the start of `bytes` (after spaces), as JSON, with what
/// follows it. A token that runs to the end of `bytes` may have been cut (`12` of `12345`)
/// and is no answer.
fn id_token(bytes: &[u8]) -> Option<(Value, &str)> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // Cut in the middle of a character: the part before it.
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
    };
    let text = text.trim_start();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    let rest = &text[stream.byte_offset()..];
    if rest.is_empty() {
        return None;
    }
    match value {
        Value::Number(_) | Value::String(_) => Some((value, rest)),
        _ => None,
    }
}

/// The value of the key `id` of the outermost object, found by walking `head` while keeping
/// count of nesting and strings.
fn top_level_id(head: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < head.len() && head[j] != b'"' {
                    j += if head[j] == b'\\' { 2 } else { 1 };
                }
                if j >= head.len() {
                    return None;
                }
                let after = &head[j + 1..];
                let colon = after.iter().position(|b| !b.is_ascii_whitespace());
                if depth == 1
                    && &head[start..j] == b"id"
                    && let Some(c) = colon
                    && after[c] == b':'
                {
                    return id_token(&after[c + 1..]).map(|(id, _)| id);
                }
                i = j;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `"id": <token> }` ending `tail`: the id written last, closing the request (nothing but
/// spaces between the token and that last brace, so an `id` ending the parameters is not
/// taken for the request's).
fn closing_id(tail: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(tail);
    let trimmed = text.trim_end();
    if !trimmed.ends_with('}') {
        return None;
    }
    let at = trimmed.rfind("\"id\"")?;
    let rest = trimmed[at + 4..].trim_start().strip_prefix(':')?;
    let (id, after) = id_token(rest.as_bytes())?;
    (after.trim() == "}").then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_over_long_request_s_id_is_found_at_its_start_or_its_end() {
        let big = "x".repeat(10);
        assert_eq!(
            request_id(
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"#,
                b""
            ),
            json!(7)
        );
        assert_eq!(
            request_id(
                br#"{"params":{"id":"inner","q":"xx"#,
                br#"xx"},"id":"r-9"}"#
            ),
            json!("r-9"),
            "an id inside the parameters is not the request's"
        );
        assert_eq!(
            request_id(
                format!(r#"{{"method":"x","params":{{"q":"{big}"#).as_bytes(),
                b"xx\"}}"
            ),
            Value::Null
        );
        assert_eq!(
            request_id(br#"{"method":"a\"id\":3","id":4,"#, b""),
            json!(4)
        );
        // An id that ends the parameters is not the request's; a cut one is no answer.
        assert_eq!(
            request_id(b"{\"method\":\"x\"", br#""blob":"x","id":5}}"#),
            Value::Null
        );
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":12"#, b""), Value::Null);
        assert_eq!(request_id(b"{", br#""id":"a,b" }"#), json!("a,b"));
    }
}
