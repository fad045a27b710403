//! A Claude Code line as the usage reader wants it: the fields it reads, by `serde_json`, or
//! much faster by walking the line in place ([`crate::transcripts::scanner`]), which hands
//! back the same values or gives the line up to `serde_json`.

use crate::tokens::TokenTotals;
use crate::transcripts::scanner::{Cursor, Unsure, Walked};
use serde::Deserialize;
use std::borrow::Cow;

#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct Line<'a> {
    #[serde(default, borrow)]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(default, rename = "sessionId", borrow)]
    pub(super) session_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "requestId", borrow)]
    pub(super) request_id: Option<Cow<'a, str>>,
    #[serde(default, rename = "isSidechain")]
    pub(super) is_sidechain: Option<bool>,
    #[serde(default, borrow)]
    pub(super) cwd: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) message: Option<Message<'a>>,
    #[serde(default, rename = "costUSD")]
    pub(super) cost_usd: Option<f64>,
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) data: Option<ProgressData<'a>>,
}

/// A `progress` line's payload; `agent_progress` carries a sub-agent's line.
#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct ProgressData<'a> {
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) message: Option<Box<Line<'a>>>,
}

#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct Message<'a> {
    #[serde(default, borrow)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) model: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) usage: Option<Usage>,
}

/// A response's token counts as a Claude Code line records them.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Default)]
pub(crate) struct Usage {
    #[serde(default)]
    pub(super) input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) cache_creation: Option<CacheCreation>,
    /// `speed: "fast"`: served in fast mode.
    #[serde(default, rename = "speed", deserialize_with = "is_fast")]
    pub(super) fast: bool,
    #[serde(default)]
    pub(super) server_tool_use: Option<ServerToolUse>,
}

/// The server-side tools a response ran.
#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Default)]
pub(super) struct ServerToolUse {
    #[serde(default)]
    pub(super) web_search_requests: Option<u64>,
}

/// Whether a `speed` is fast mode's (any other value, or none, is standard).
fn is_fast<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    let speed: Option<Cow<'de, str>> = Option::deserialize(d)?;
    Ok(speed.as_deref() == Some("fast"))
}

#[derive(Deserialize, Clone, Copy, Debug, PartialEq, Default)]
pub(super) struct CacheCreation {
    #[serde(default)]
    pub(super) ephemeral_5m_input_tokens: Option<u64>,
    #[serde(default)]
    pub(super) ephemeral_1h_input_tokens: Option<u64>,
}

impl Usage {
    /// The counts in Baton's one meaning, and the part of the cache writes made to the
    /// one-hour cache (billed at its own rate). The five-minute and one-hour split, when a
    /// line has it, is the cache writes.
    pub(crate) fn totals(&self) -> (TokenTotals, u64) {
        let (cache_creation, one_hour) = match &self.cache_creation {
            Some(c) => {
                let one_hour = c.ephemeral_1h_input_tokens.unwrap_or(0);
                (
                    c.ephemeral_5m_input_tokens
                        .unwrap_or(0)
                        .saturating_add(one_hour),
                    one_hour,
                )
            }
            None => (self.cache_creation_input_tokens.unwrap_or(0), 0),
        };
        let tokens = TokenTotals {
            input_tokens: self.input_tokens.unwrap_or(0),
            output_tokens: self.output_tokens.unwrap_or(0),
            cache_creation_tokens: cache_creation,
            cache_read_tokens: self.cache_read_input_tokens.unwrap_or(0),
            reasoning_tokens: 0,
        };
        (tokens, one_hour)
    }

    /// Server-side web searches the response ran.
    pub(crate) fn web_searches(&self) -> u64 {
        self.server_tool_use
            .and_then(|s| s.web_search_requests)
            .unwrap_or(0)
    }
}

/// The fields of `line`: walked in place when the walker can vouch for the line, else read by
/// `serde_json` (`None` when that fails too: not JSON of this shape).
pub(super) fn read(line: &[u8]) -> Option<Line<'_>> {
    match walk(line) {
        Ok(parsed) => Some(parsed),
        Err(Unsure) => serde_json::from_slice(line).ok(),
    }
}

/// A sub-agent's line relayed inside another nests one level; deeper than this is left to
/// `serde_json`.
const MAX_RELAYS: u32 = 8;

/// The line walked in place.
pub(super) fn walk(bytes: &[u8]) -> Walked<Line<'_>> {
    let mut cursor = Cursor::new(bytes);
    let line = walk_line(&mut cursor, 0)?;
    cursor.end()?;
    Ok(line)
}

fn walk_line<'a>(c: &mut Cursor<'a>, relays: u32) -> Walked<Line<'a>> {
    let mut line = Line::default();
    c.fields(
        &[
            b"timestamp",
            b"sessionId",
            b"requestId",
            b"isSidechain",
            b"cwd",
            b"message",
            b"costUSD",
            b"type",
            b"data",
        ],
        |c, bit| {
            match bit {
                0 => line.timestamp = c.string()?,
                1 => line.session_id = c.string()?,
                2 => line.request_id = c.string()?,
                3 => line.is_sidechain = c.bool()?,
                4 => line.cwd = c.string()?,
                5 => line.message = walk_message(c)?,
                // A recorded cost (older versions): its decimal reading is `serde_json`'s to make.
                6 if c.null()? => line.cost_usd = None,
                6 => return Err(Unsure),
                7 => line.kind = c.string()?,
                _ => line.data = walk_data(c, relays)?,
            }
            Ok(())
        },
    )?;
    Ok(line)
}

fn walk_message<'a>(c: &mut Cursor<'a>) -> Walked<Option<Message<'a>>> {
    if c.null()? {
        return Ok(None);
    }
    let mut message = Message::default();
    c.fields(&[b"id", b"model", b"usage"], |c, bit| {
        match bit {
            0 => message.id = c.string()?,
            1 => message.model = c.string()?,
            _ => message.usage = walk_usage(c)?,
        }
        Ok(())
    })?;
    Ok(Some(message))
}

fn walk_usage(c: &mut Cursor<'_>) -> Walked<Option<Usage>> {
    if c.null()? {
        return Ok(None);
    }
    let mut usage = Usage::default();
    c.fields(
        &[
            b"input_tokens",
            b"output_tokens",
            b"cache_creation_input_tokens",
            b"cache_read_input_tokens",
            b"cache_creation",
            b"speed",
            b"server_tool_use",
        ],
        |c, bit| {
            match bit {
                0 => usage.input_tokens = c.u64()?,
                1 => usage.output_tokens = c.u64()?,
                2 => usage.cache_creation_input_tokens = c.u64()?,
                3 => usage.cache_read_input_tokens = c.u64()?,
                4 => usage.cache_creation = walk_cache_creation(c)?,
                5 => usage.fast = c.string()?.as_deref() == Some("fast"),
                _ => usage.server_tool_use = walk_server_tools(c)?,
            }
            Ok(())
        },
    )?;
    Ok(Some(usage))
}

fn walk_cache_creation(c: &mut Cursor<'_>) -> Walked<Option<CacheCreation>> {
    if c.null()? {
        return Ok(None);
    }
    let mut split = CacheCreation::default();
    c.fields(
        &[b"ephemeral_5m_input_tokens", b"ephemeral_1h_input_tokens"],
        |c, bit| {
            match bit {
                0 => split.ephemeral_5m_input_tokens = c.u64()?,
                _ => split.ephemeral_1h_input_tokens = c.u64()?,
            }
            Ok(())
        },
    )?;
    Ok(Some(split))
}

fn walk_server_tools(c: &mut Cursor<'_>) -> Walked<Option<ServerToolUse>> {
    if c.null()? {
        return Ok(None);
    }
    let mut tools = ServerToolUse::default();
    c.fields(&[b"web_search_requests"], |c, _| {
        tools.web_search_requests = c.u64()?;
        Ok(())
    })?;
    Ok(Some(tools))
}

fn walk_data<'a>(c: &mut Cursor<'a>, relays: u32) -> Walked<Option<ProgressData<'a>>> {
    if c.null()? {
        return Ok(None);
    }
    let mut data = ProgressData::default();
    c.fields(&[b"type", b"message"], |c, bit| {
        match bit {
            0 => data.kind = c.string()?,
            _ if c.null()? => data.message = None,
            _ if relays >= MAX_RELAYS => return Err(Unsure),
            _ => data.message = Some(Box::new(walk_line(c, relays + 1)?)),
        }
        Ok(())
    })?;
    Ok(Some(data))
}
