//! The JSON exports' outer shape: an array of conversations, split one item at a time so a
//! whole export is never one tree in memory.

use crate::transcripts::conversation::{
    Parsed, ReadOptions, chatgpt_conversation, claude_ai_conversation,
};
use crate::transcripts::{Provider, ReadStats, repair_lone_surrogates};
use serde_json::Value;

/// Calls `visit` with each conversation of a JSON export held in memory — an array, or one
/// object — one at a time, so the export is never one JSON tree. (`{"conversations": […]}`
/// wrappers are read whole.) The ingest splits exports arriving in chunks itself.
pub(crate) fn for_each_export_item(
    reader: impl std::io::Read,
    stats: &mut ReadStats,
    mut visit: impl FnMut(Value),
) {
    use serde::de::{Deserializer as _, SeqAccess, Visitor};
    struct Items<'v, F: FnMut(Value)>(&'v mut F);
    impl<'de, F: FnMut(Value)> Visitor<'de> for Items<'_, F> {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array of conversations or one conversation")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<u64, A::Error> {
            let mut n = 0;
            while let Some(item) = seq.next_element::<Value>()? {
                (self.0)(item);
                n += 1;
            }
            Ok(n)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            map: A,
        ) -> std::result::Result<u64, A::Error> {
            let value: serde_json::Map<String, Value> =
                serde::Deserialize::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
            match value.get("conversations") {
                Some(Value::Array(items)) => {
                    for item in items {
                        (self.0)(item.clone());
                    }
                    Ok(items.len() as u64)
                }
                _ => {
                    (self.0)(Value::Object(value));
                    Ok(1)
                }
            }
        }
    }
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(reader));
    if de.deserialize_any(Items(&mut visit)).is_err() {
        // A truncated or damaged export: what was read before the damage is kept.
        stats.malformed += 1;
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
    for_each_export_item(input, &mut parsed.stats, |item| items.push(item));
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
