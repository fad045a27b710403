//! A Codex rollout line as the usage reader wants it: the fields it reads, walked in place
//! ([`crate::transcripts::scanner`]) or, where the walker is not sure, read by `serde_json`.

use super::Counts;
use crate::transcripts::scanner::{Cursor, Unsure, Walked};
use serde::Deserialize;
use std::borrow::Cow;

#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct Line<'a> {
    #[serde(default, borrow)]
    pub(super) timestamp: Option<Cow<'a, str>>,
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) payload: Option<Payload<'a>>,
}

#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct Payload<'a> {
    #[serde(default, rename = "type", borrow)]
    pub(super) kind: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) cwd: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) info: Option<Info<'a>>,
    #[serde(default, borrow)]
    pub(super) forked_from_id: Option<Cow<'a, str>>,
    #[serde(default)]
    pub(super) source: Option<serde_json::Value>,
}

#[derive(Deserialize, Debug, PartialEq, Default)]
pub(super) struct Info<'a> {
    #[serde(default)]
    pub(super) total_token_usage: Option<Counts>,
    #[serde(default)]
    pub(super) last_token_usage: Option<Counts>,
    #[serde(default, borrow)]
    pub(super) model: Option<Cow<'a, str>>,
}

/// The line walked in place (which also checks that it is JSON, as strictly as `serde_json`).
pub(super) fn walk(bytes: &[u8]) -> Walked<Line<'_>> {
    let mut c = Cursor::new(bytes);
    let mut line = Line::default();
    c.fields(&[b"timestamp", b"type", b"payload"], |c, bit| {
        match bit {
            0 => line.timestamp = c.string()?,
            1 => line.kind = c.string()?,
            _ => line.payload = walk_payload(c)?,
        }
        Ok(())
    })?;
    c.end()?;
    Ok(line)
}

fn walk_payload<'a>(c: &mut Cursor<'a>) -> Walked<Option<Payload<'a>>> {
    if c.null()? {
        return Ok(None);
    }
    let mut payload = Payload::default();
    c.fields(
        &[
            b"type",
            b"id",
            b"cwd",
            b"model",
            b"info",
            b"forked_from_id",
            b"source",
        ],
        |c, bit| {
            match bit {
                0 => payload.kind = c.string()?,
                1 => payload.id = c.string()?,
                2 => payload.cwd = c.string()?,
                3 => payload.model = c.string()?,
                4 => payload.info = walk_info(c)?,
                5 => payload.forked_from_id = c.string()?,
                // A sub-agent's source (one line a rollout): `serde_json` builds it.
                _ if c.null()? => payload.source = None,
                _ => return Err(Unsure),
            }
            Ok(())
        },
    )?;
    Ok(Some(payload))
}

fn walk_info<'a>(c: &mut Cursor<'a>) -> Walked<Option<Info<'a>>> {
    if c.null()? {
        return Ok(None);
    }
    let mut info = Info::default();
    c.fields(
        &[b"total_token_usage", b"last_token_usage", b"model"],
        |c, bit| {
            match bit {
                0 => info.total_token_usage = walk_counts(c)?,
                1 => info.last_token_usage = walk_counts(c)?,
                _ => info.model = c.string()?,
            }
            Ok(())
        },
    )?;
    Ok(Some(info))
}

fn walk_counts(c: &mut Cursor<'_>) -> Walked<Option<Counts>> {
    if c.null()? {
        return Ok(None);
    }
    let mut counts = Counts::default();
    c.fields(
        &[
            b"input_tokens",
            b"cached_input_tokens",
            b"output_tokens",
            b"reasoning_output_tokens",
        ],
        |c, bit| {
            // Each count is a number: `null` is an error to `serde_json` here.
            let n = c.u64()?.ok_or(Unsure)?;
            match bit {
                0 => counts.input_tokens = n,
                1 => counts.cached_input_tokens = n,
                2 => counts.output_tokens = n,
                _ => counts.reasoning_output_tokens = n,
            }
            Ok(())
        },
    )?;
    Ok(Some(counts))
}
