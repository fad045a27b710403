//! The line walker against `serde_json`: whatever it reads, `serde_json` reads the same.

use super::line::{Line, walk};
use proptest::prelude::*;

fn serde_reads(text: &[u8]) -> Option<Line<'_>> {
    serde_json::from_slice(text).ok()
}

/// When the walker reads a line, `serde_json` reads it to the same values.
fn agrees(text: &[u8]) -> Result<bool, String> {
    match walk(text) {
        Ok(walked) => match serde_reads(text) {
            Some(read) if read == walked => Ok(true),
            other => Err(format!(
                "walked {walked:?}, serde {other:?}: {}",
                String::from_utf8_lossy(text)
            )),
        },
        Err(_) => Ok(false),
    }
}

#[test]
// The test reads the shared fixtures; the core itself reads no file.
#[allow(clippy::disallowed_methods)]
fn the_real_transcripts_are_walked_to_what_serde_reads() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/claude-code");
    let mut files = vec![root.clone()];
    let (mut walked, mut lines) = (0, 0);
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            lines += 1;
            walked += usize::from(agrees(line).unwrap());
        }
    }
    assert!(lines > 200, "{lines} lines");
    // The walker reads all but the lines it cannot vouch for (unusual escapes, costs).
    assert!(walked * 10 >= lines * 9, "walked {walked} of {lines}");
}

#[test]
fn a_response_line_is_read_whole() {
    let text = br#"{"parentUuid":null,"isSidechain":false,"type":"assistant","sessionId":"s1","cwd":"C:\\work\\x","timestamp":"2026-07-12T14:45:10.994Z","requestId":"req_1","message":{"id":"msg_1","model":"claude-sonnet-4","content":[{"type":"text","text":"say \"hi\"\n"}],"usage":{"input_tokens":3,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":5,"ephemeral_1h_input_tokens":7},"cache_creation_input_tokens":12,"cache_read_input_tokens":0,"server_tool_use":{"web_search_requests":0}}}}"#;
    assert!(agrees(text).unwrap());
    let line = walk(text).unwrap();
    assert_eq!(line.cwd.as_deref(), Some("C:\\work\\x"));
    let usage = line.message.unwrap().usage.unwrap();
    assert_eq!(usage.totals().0.cache_creation_tokens, 12);
    let relayed = br#"{"type":"progress","sessionId":"p","data":{"type":"agent_progress","message":{"type":"assistant","message":{"id":"m","usage":{"input_tokens":1}},"timestamp":"2026-01-01T00:00:00Z"}}}"#;
    assert!(agrees(relayed).unwrap());
}

#[test]
fn what_it_cannot_vouch_for_it_leaves_to_serde() {
    for text in [
        // A field twice (an error to serde), a cost (serde's decimal reading), a `\u` escape,
        // a struct given as an array, a number where a string is wanted.
        &br#"{"timestamp":"a","timestamp":"b"}"#[..],
        br#"{"costUSD":0.25}"#,
        br#"{"cwd":"caf\u00e9"}"#,
        br#"{"message":["m"]}"#,
        br#"{"sessionId":7}"#,
        br#"{"message":{"usage":{"input_tokens":1.0}}}"#,
        br#"{"message":{"usage":{"input_tokens":-1}}}"#,
        b"{\"cwd\":\"\xff\"}",
        b"{\"\xff\":1}",
    ] {
        assert!(walk(text).is_err(), "{}", String::from_utf8_lossy(text));
    }
}

/// Claude Code-like lines: the fields the reader wants, mostly with values of the right kind,
/// sometimes the wrong one, fields repeated, nested relays, unknown fields; then, now and
/// then, a byte changed, cut or added.
fn lines() -> impl Strategy<Value = Vec<u8>> {
    let text = prop_oneof![
        30 => "[a-z0-9 é\\\\\"\n\t/-]{0,10}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        1 => Just("null".to_string()),
        1 => Just("7".to_string()),
        1 => Just(r#""caf\u00e9""#.to_string()),
    ];
    let number = prop_oneof![
        40 => any::<u32>().prop_map(|n| n.to_string()),
        1 => Just("null".to_string()),
        1 => Just("18446744073709551615".to_string()),
        1 => Just("18446744073709551616".to_string()),
        1 => Just("1.5".to_string()),
        1 => Just("-3".to_string()),
        1 => Just("0".to_string()),
        1 => Just("012".to_string()),
        1 => Just("\"9\"".to_string()),
    ];
    let odd = prop_oneof![
        Just("null".to_string()),
        Just("7".to_string()),
        Just("\"x\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("0.5".to_string()),
    ];
    // Now and then a value of the wrong kind (or an unknown field's).
    let member = |key: &'static str, value: BoxedStrategy<String>| {
        prop_oneof![19 => value, 1 => odd.clone()]
            .prop_map(move |v| (key, v))
            .boxed()
    };
    let split = fields(vec![
        member("ephemeral_5m_input_tokens", number.clone().boxed()),
        member("ephemeral_1h_input_tokens", number.clone().boxed()),
        member("other", text.clone().boxed()),
    ]);
    let usage = fields(vec![
        member("input_tokens", number.clone().boxed()),
        member("output_tokens", number.clone().boxed()),
        member("cache_creation_input_tokens", number.clone().boxed()),
        member("cache_read_input_tokens", number.clone().boxed()),
        member("cache_creation", split),
        member("service_tier", text.clone().boxed()),
        member(
            "speed",
            prop_oneof![Just("\"fast\"".to_string()), text.clone()].boxed(),
        ),
        member(
            "server_tool_use",
            fields(vec![
                member("web_search_requests", number.clone().boxed()),
                member("web_fetch_requests", number.clone().boxed()),
            ]),
        ),
    ]);
    let message = fields(vec![
        member("id", text.clone().boxed()),
        member("model", text.clone().boxed()),
        member("usage", usage),
        member(
            "content",
            Just(r#"[{"type":"text","text":"x"}]"#.to_string()).boxed(),
        ),
    ]);
    let line = fields(vec![
        member("timestamp", text.clone().boxed()),
        member("sessionId", text.clone().boxed()),
        member("requestId", text.clone().boxed()),
        member(
            "isSidechain",
            prop_oneof![Just("true".to_string()), Just("false".to_string())].boxed(),
        ),
        member("cwd", text.clone().boxed()),
        member("message", message),
        member("costUSD", Just("null".to_string()).boxed()),
        member("type", text.clone().boxed()),
        member("version", text.clone().boxed()),
    ]);
    let relayed = (line.clone(), text).prop_map(|(inner, kind)| {
        format!(r#"{{"type":"progress","data":{{"type":{kind},"message":{inner}}}}}"#)
    });
    mutated(prop_oneof![3 => line, 1 => relayed].boxed())
}

/// `lines`, now and then with a byte added, the text cut, or a byte replaced by one of JSON's
/// own.
pub(crate) fn mutated(lines: BoxedStrategy<String>) -> impl Strategy<Value = Vec<u8>> {
    (lines, any::<u16>(), any::<u8>(), 0u8..12).prop_map(|(text, at, byte, how)| {
        let mut bytes = text.into_bytes();
        let at = usize::from(at) % (bytes.len() + 1);
        match how {
            0 => bytes.insert(at, byte),
            1 => bytes.truncate(at),
            2 if at < bytes.len() => {
                let pick = b"{}[]\",:\\0-.en";
                bytes[at] = pick[usize::from(byte) % pick.len()];
            }
            _ => {}
        }
        bytes
    })
}

/// An object of some of `members` in any order; now and then one comes twice (an error to
/// `serde_json`).
pub(crate) fn fields(members: Vec<BoxedStrategy<(&'static str, String)>>) -> BoxedStrategy<String> {
    let some: Vec<_> = members
        .into_iter()
        .map(|m| prop::option::weighted(0.6, m))
        .collect();
    (some, any::<u8>())
        .prop_map(|(some, twice)| {
            let mut present: Vec<(&str, String)> = some.into_iter().flatten().collect();
            if twice < 12
                && let Some(first) = present.first().cloned()
            {
                present.push(first);
            }
            present
        })
        .prop_shuffle()
        .prop_map(|f| object(&f))
        .boxed()
}

/// The object's text; one of an odd number of members is written with JSON's whitespace
/// between its tokens.
pub(crate) fn object(fields: &[(&str, String)]) -> String {
    let spaced = fields.len() % 2 == 1;
    let (colon, comma, open, close) = match spaced {
        true => (" :\t", " ,\n ", "{\r\n ", " \n}"),
        false => (":", ",", "{", "}"),
    };
    let members: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("\"{k}\"{colon}{v}"))
        .collect();
    format!("{open}{}{close}", members.join(comma))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn a_line_walked_is_read_by_serde_to_the_same(text in lines()) {
        prop_assert!(agrees(&text).is_ok(), "{}", agrees(&text).unwrap_err());
    }
}
