//! The JSON exports' outer shape: an array of conversations (or a wrapper, or one), split one
//! item at a time by the one splitter, so a whole export is never one tree in memory.

use crate::transcripts::conversation::splitter::{ArraySplitter, SplitMode};
use crate::transcripts::conversation::{
    Parsed, ReadOptions, chatgpt_conversation, claude_ai_conversation,
};
use crate::transcripts::{Provider, repair_lone_surrogates};
use serde_json::Value;

/// An export that does not read to its end, with the conversations read before the damage.
#[derive(Debug)]
pub struct Damaged<'a> {
    /// The conversations read before the damage, each as its own JSON text.
    pub read: Vec<&'a [u8]>,
    /// What is wrong, in words.
    pub why: String,
}

/// The one splitter of a JSON export held in memory: each conversation as its own JSON text,
/// in order — the items of its array (split by the [`ArraySplitter`] the ingest also uses for
/// exports arriving in chunks, so the export is never one JSON tree), the items of a
/// `{"conversations": [...]}` wrapper, or the one conversation it is. A byte order mark is
/// passed over.
pub fn split_export(bytes: &[u8]) -> Result<Vec<&[u8]>, Damaged<'_>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // An object (a wrapper, or one conversation) is read as it is: no copy into the splitter.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return split_object(bytes);
    }
    let mut splitter = ArraySplitter::default();
    let base = bytes.as_ptr() as usize;
    let mut spans: Vec<(usize, usize)> = Vec::new();
    // One push of the whole buffer: every item is a slice of it, found by its offset.
    splitter.push(bytes, &mut |item| {
        spans.push(((item.as_ptr() as usize).wrapping_sub(base), item.len()));
    });
    let read: Vec<&[u8]> = spans
        .into_iter()
        .filter_map(|(at, len)| bytes.get(at..at.checked_add(len)?))
        .collect();
    match splitter.mode {
        SplitMode::Done => Ok(read),
        SplitMode::Start | SplitMode::Whole => Err(Damaged {
            read,
            why: "it holds no JSON array or object".to_owned(),
        }),
        SplitMode::Between | SplitMode::InItem => Err(Damaged {
            why: format!(
                "it ends inside its array, after {} conversation(s)",
                read.len()
            ),
            read,
        }),
    }
}

/// The conversations of an export that is one JSON object: a `{"conversations": [...]}`
/// wrapper's items, or the object itself.
fn split_object(bytes: &[u8]) -> Result<Vec<&[u8]>, Damaged<'_>> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Wrapped<'a> {
        #[serde(borrow)]
        conversations: Vec<&'a RawValue>,
    }
    if let Ok(wrapped) = serde_json::from_slice::<Wrapped>(bytes) {
        return Ok(wrapped
            .conversations
            .into_iter()
            .map(|item| item.get().as_bytes())
            .collect());
    }
    match serde_json::from_slice::<&RawValue>(bytes) {
        Ok(one) => Ok(vec![one.get().as_bytes()]),
        Err(err) => Err(Damaged {
            read: Vec::new(),
            why: err.to_string(),
        }),
    }
}

pub(crate) fn export_items(bytes: &[u8], parsed: &mut Parsed) -> Vec<Value> {
    let mut items = Vec::new();
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::borrow::Cow::Borrowed(bytes);
    let text = match std::str::from_utf8(&text) {
        Ok(_) => text,
        Err(_) => std::borrow::Cow::Owned(String::from_utf8_lossy(bytes).into_owned().into_bytes()),
    };
    let repaired = crate::transcripts::repair_lone_surrogates(&text);
    if repaired.is_some() {
        parsed.stats.repaired_surrogates += 1;
    }
    let input: &[u8] = repaired.as_deref().unwrap_or(&text);
    let elements = split_export(input).unwrap_or_else(|damaged| {
        // A truncated or damaged export: what was read before the damage is kept.
        parsed.stats.malformed += 1;
        damaged.read
    });
    for element in elements {
        match serde_json::from_slice::<Value>(element) {
            Ok(item) => items.push(item),
            Err(_) => parsed.stats.malformed += 1,
        }
    }
    items
}

/// Reads one export element into `parsed` (lone surrogates repaired, invalid UTF-8
/// replaced): a conversation is added, an element that is not JSON is counted malformed, and
/// an object that is no conversation is passed over.
pub(crate) fn read_export_item(
    provider: Provider,
    item: &[u8],
    options: ReadOptions,
    parsed: &mut Parsed,
) {
    let repaired = repair_lone_surrogates(item);
    if repaired.is_some() {
        parsed.stats.repaired_surrogates += 1;
    }
    let bytes = repaired.as_deref().unwrap_or(item);
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(_) => match serde_json::from_str(&String::from_utf8_lossy(bytes)) {
            Ok(v) => v,
            Err(_) => {
                parsed.stats.malformed += 1;
                return;
            }
        },
    };
    let conversation = match provider {
        Provider::ClaudeAi => claude_ai_conversation(&value),
        _ => chatgpt_conversation(&value, options),
    };
    parsed.conversations.extend(conversation);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_is_split_whatever_its_outer_shape() {
        let array = b"\xEF\xBB\xBF[{\"a\": [1, {\"b\": \"]\"}]}, {\"c\": 2}]";
        assert_eq!(
            split_export(array).unwrap(),
            vec![&b"{\"a\": [1, {\"b\": \"]\"}]}"[..], &b"{\"c\": 2}"[..]]
        );
        let wrapped = br#"{"conversations": [{"x": 1}, {"y": 2}]}"#;
        assert_eq!(
            split_export(wrapped).unwrap(),
            vec![&br#"{"x": 1}"#[..], &br#"{"y": 2}"#[..]]
        );
        let one = br#"{"uuid": "c1", "chat_messages": []}"#;
        assert_eq!(split_export(one).unwrap(), vec![&one[..]]);
        let cut = br#"[{"x": 1}, {"y": "#;
        let damaged = split_export(cut).unwrap_err();
        assert_eq!(damaged.read, vec![&br#"{"x": 1}"#[..]]);
        assert!(
            damaged.why.contains("after 1 conversation"),
            "{}",
            damaged.why
        );
        assert!(split_export(b"42").is_err());
        let unopened = split_export(b"[").unwrap_err();
        assert!(
            unopened.why.contains("after 0 conversation"),
            "{}",
            unopened.why
        );
    }
}
