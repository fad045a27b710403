//! The Codex line walker against `serde_json`: whatever it reads, `serde_json` reads the same.

use super::line::{Line, walk};
use crate::transcripts::usage::claude_code::line_tests::{fields, mutated};
use proptest::prelude::*;

/// When the walker reads a line, `serde_json` takes it as JSON and reads it to the same values.
fn agrees(text: &[u8]) -> Result<bool, String> {
    match walk(text) {
        Ok(walked) => match serde_json::from_slice::<Line<'_>>(text) {
            Ok(read)
                if read == walked
                    && serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok() =>
            {
                Ok(true)
            }
            other => Err(format!(
                "walked {walked:?}, serde {:?}: {}",
                other.ok(),
                String::from_utf8_lossy(text)
            )),
        },
        Err(_) => Ok(false),
    }
}

#[test]
// The test reads the shared fixtures; the core itself reads no file.
#[allow(clippy::disallowed_methods)]
fn the_real_rollouts_are_walked_to_what_serde_reads() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/codex");
    let mut files = vec![root];
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
    assert!(lines > 10, "{lines} lines");
    assert!(walked * 10 >= lines * 9, "walked {walked} of {lines}");
}

#[test]
fn what_it_cannot_vouch_for_it_leaves_to_serde() {
    for text in [
        // A count given as null (an error to serde), a source object (serde builds it), a
        // field twice, a count that is not a plain integer.
        &br#"{"payload":{"info":{"total_token_usage":{"input_tokens":null}}}}"#[..],
        br#"{"payload":{"source":{"subagent":"review"}}}"#,
        br#"{"type":"a","type":"b"}"#,
        br#"{"payload":{"info":{"last_token_usage":{"output_tokens":1e3}}}}"#,
    ] {
        assert!(walk(text).is_err(), "{}", String::from_utf8_lossy(text));
    }
    let token_count = br#"{"timestamp":"2026-07-03T11:30:07.768Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":26766,"cached_input_tokens":21590,"output_tokens":1638,"reasoning_output_tokens":829,"total_tokens":28404},"last_token_usage":null,"model_context_window":258400},"rate_limits":{"primary":{"used_percent":1.5}}}}"#;
    assert!(agrees(token_count).unwrap());
}

/// Rollout-like lines: the fields the reader wants, mostly of the right kind, now and then the
/// wrong one or twice; then, now and then, a byte changed, cut or added.
fn lines() -> impl Strategy<Value = Vec<u8>> {
    let text = prop_oneof![
        30 => "[a-z0-9 é\\\\\"\n\t/-]{0,10}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        1 => Just("null".to_string()),
        1 => Just(r#""caf\u00e9""#.to_string()),
    ];
    let number = prop_oneof![
        40 => any::<u32>().prop_map(|n| n.to_string()),
        1 => Just("null".to_string()),
        1 => Just("18446744073709551616".to_string()),
        1 => Just("1.5".to_string()),
        1 => Just("-3".to_string()),
        1 => Just("012".to_string()),
    ];
    let odd = prop_oneof![
        Just("null".to_string()),
        Just("7".to_string()),
        Just("\"x\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
    ];
    let member = |key: &'static str, value: BoxedStrategy<String>| {
        prop_oneof![19 => value, 1 => odd.clone()]
            .prop_map(move |v| (key, v))
            .boxed()
    };
    let counts = || {
        fields(vec![
            member("input_tokens", number.clone().boxed()),
            member("cached_input_tokens", number.clone().boxed()),
            member("output_tokens", number.clone().boxed()),
            member("reasoning_output_tokens", number.clone().boxed()),
            member("total_tokens", number.clone().boxed()),
        ])
    };
    let info = fields(vec![
        member("total_token_usage", counts()),
        member("last_token_usage", counts()),
        member("model", text.clone().boxed()),
        member("model_context_window", number.clone().boxed()),
    ]);
    let payload = fields(vec![
        member("type", text.clone().boxed()),
        member("id", text.clone().boxed()),
        member("cwd", text.clone().boxed()),
        member("model", text.clone().boxed()),
        member("info", info),
        member("forked_from_id", text.clone().boxed()),
        member("source", Just("null".to_string()).boxed()),
        member(
            "rate_limits",
            Just(r#"{"primary":{"used_percent":2.5}}"#.to_string()).boxed(),
        ),
    ]);
    let line = fields(vec![
        member("timestamp", text.clone().boxed()),
        member("type", text.boxed()),
        member("payload", payload),
    ]);
    mutated(line)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn a_line_walked_is_read_by_serde_to_the_same(text in lines()) {
        prop_assert!(agrees(&text).is_ok(), "{}", agrees(&text).unwrap_err());
    }
}
