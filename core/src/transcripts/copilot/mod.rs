//! GitHub Copilot CLI sessions (`~/.copilot/session-state/<session>/events.jsonl`, or the
//! early flat `session-state/<session>.jsonl`): one event a line, `{type, data, id,
//! timestamp, parentId, agentId?}`. A run of the CLI on a session appends its own
//! `session.start` or `session.resume` and, when it ends cleanly, its own `session.shutdown`,
//! whose `modelMetrics` hold the tokens of that run alone, per model: the only counts the file
//! keeps (the per-call usage events are never written). Input counts the cache reads and
//! writes inside it; reasoning is a part of the output. Credits (`totalNanoAiu`) are GitHub's
//! AI credits, not dollars: the conversation shows them as credits, the cost comes from the
//! price table.

mod conversation;
mod usage;

pub use conversation::{CopilotReader, CopilotState};
pub use usage::{CopilotUsage, CopilotUsageState};

use crate::tokens::TokenTotals;
use serde_json::Value;

/// The session a file's path names: the folder `events.jsonl` sits in, or a flat file's own
/// name.
pub(crate) fn session_of_path(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']).filter(|p| !p.is_empty());
    let name = parts.next()?;
    let id = if name == "events.jsonl" {
        parts.next()?
    } else {
        name.strip_suffix(".jsonl")?
    };
    (!id.is_empty()).then(|| id.to_owned())
}

/// What a session's `workspace.yaml` (beside its `events.jsonl`) says: the name the CLI gave
/// it or the person chose (`/rename`), and the folder it worked in.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Workspace {
    pub name: Option<String>,
    pub cwd: Option<String>,
}

/// Reads a file given with a transcript when it is a session's `workspace.yaml`: flat
/// `key: value` lines, plain or quoted (a value this does not read, a block, is left out).
pub(crate) fn workspace_of(file: &str, bytes: &[u8]) -> Option<Workspace> {
    if file.rsplit(['/', '\\']).next() != Some("workspace.yaml") {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let mut workspace = Workspace::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let slot = match key {
            "name" => &mut workspace.name,
            "cwd" => &mut workspace.cwd,
            _ => continue,
        };
        *slot = yaml_scalar(value).filter(|v| !v.trim().is_empty());
    }
    Some(workspace)
}

/// A YAML scalar on one line: double-quoted (JSON's escapes are YAML's too), single-quoted
/// (`''` is a quote) or plain (up to a ` #` comment); `None` for null, a block or a flow
/// value.
fn yaml_scalar(value: &str) -> Option<String> {
    let value = value.trim();
    if let Some(quoted) = value.strip_prefix('\'') {
        // The closing quote is the first one not doubled.
        let mut out = String::new();
        let mut chars = quoted.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\'', Some('\'')) => {
                    out.push('\'');
                    chars.next();
                }
                ('\'', _) => return Some(out),
                _ => out.push(c),
            }
        }
        return None;
    }
    if value.starts_with('"') {
        let end = value.rfind('"').filter(|end| *end > 0)?;
        return serde_json::from_str(&value[..=end]).ok();
    }
    let plain = value.split(" #").next().unwrap_or(value).trim_end();
    match plain.chars().next() {
        None | Some('|' | '>' | '[' | '{' | '&' | '*' | '!' | '#') => None,
        _ if matches!(plain, "~" | "null" | "Null" | "NULL") => None,
        _ => Some(plain.to_owned()),
    }
}

/// A model's tokens in one run (a `modelMetrics` value), in Baton's one meaning: the cache
/// reads and writes taken out of the input, the reasoning a part of the output. `None` when
/// it counts nothing.
pub(crate) fn metric_tokens(metric: &Value) -> Option<TokenTotals> {
    let usage = &metric["usage"];
    let count = |key: &str| usage[key].as_u64().unwrap_or(0);
    let (input, output) = (count("inputTokens"), count("outputTokens"));
    let (read, write) = (count("cacheReadTokens"), count("cacheWriteTokens"));
    if input == 0 && output == 0 && read == 0 && write == 0 {
        return None;
    }
    // Builds before 1.0.51 counted the cache beside the input: never below zero.
    let cached = read.saturating_add(write).min(input);
    let read = read.min(cached);
    Some(TokenTotals {
        input_tokens: input - cached,
        output_tokens: output,
        cache_creation_tokens: cached - read,
        cache_read_tokens: read,
        reasoning_tokens: count("reasoningTokens").min(output),
    })
}

/// A model id as the CLI writes it, with a provider before it taken off (`copilot/gpt-5.4`);
/// its dotted versions are left for the price table's alias rules.
pub(crate) fn model_name(model: &str) -> &str {
    model.rsplit_once('/').map_or(model, |(_, name)| name)
}

/// GitHub AI credits in nano units (`totalNanoAiu`), as a person reads them.
pub(crate) fn credits_text(nano: u64) -> String {
    let credits = nano as f64 / 1e9;
    if credits >= 100.0 {
        format!("{credits:.0} credits")
    } else {
        format!("{credits:.2} credits")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_workspace_file_gives_the_name_and_the_folder() {
        let yaml = b"id: e7fd\ncwd: /home/dev/app\nname: session 3: fix the flaky login test\nuser_named: false\nsummary: |\n  text\n";
        let read = workspace_of("/c/session-state/e7fd/workspace.yaml", yaml).unwrap();
        assert_eq!(
            read.name.as_deref(),
            Some("session 3: fix the flaky login test")
        );
        assert_eq!(read.cwd.as_deref(), Some("/home/dev/app"));
        let quoted = b"name: \"a \\\"quoted\\\" name\"\ncwd: 'C:\\w\\it''s'\n";
        let read = workspace_of("C:\\s\\workspace.yaml", quoted).unwrap();
        assert_eq!(read.name.as_deref(), Some("a \"quoted\" name"));
        assert_eq!(read.cwd.as_deref(), Some("C:\\w\\it's"));
        let commented =
            workspace_of("workspace.yaml", b"name: 'it''s' # it's\ncwd: #none").unwrap();
        assert_eq!(commented.name.as_deref(), Some("it's"));
        assert_eq!(commented.cwd, None);
        let empty = workspace_of("workspace.yaml", b"name: ~\ncwd: |\n  /x\nname2: y").unwrap();
        assert_eq!(empty, Workspace::default());
        assert_eq!(workspace_of("/c/projects.json", b"name: x"), None);
        assert_eq!(workspace_of("workspace.yaml", b"\xff"), None);
    }

    #[test]
    fn input_holds_the_cache_and_output_the_reasoning() {
        let metric = json!({"usage": {"inputTokens": 931_647, "outputTokens": 7150,
            "cacheReadTokens": 873_267, "cacheWriteTokens": 51438, "reasoningTokens": 432}});
        let tokens = metric_tokens(&metric).unwrap();
        assert_eq!(tokens.input_tokens, 6942);
        assert_eq!(tokens.cache_read_tokens, 873_267);
        assert_eq!(tokens.cache_creation_tokens, 51438);
        assert_eq!(tokens.output_tokens, 7150);
        assert_eq!(tokens.reasoning_tokens, 432);
        // Counts that cannot hold the cache never go below zero; wrong types count nothing.
        let odd = json!({"usage": {"inputTokens": 10, "cacheReadTokens": 40, "outputTokens": 1}});
        let tokens = metric_tokens(&odd).unwrap();
        assert_eq!((tokens.input_tokens, tokens.cache_read_tokens), (0, 10));
        assert_eq!(metric_tokens(&json!({"usage": {"inputTokens": "9"}})), None);
        assert_eq!(metric_tokens(&json!({})), None);
    }

    #[test]
    fn the_path_names_the_session() {
        assert_eq!(
            session_of_path("/h/.copilot/session-state/3f2a/events.jsonl").as_deref(),
            Some("3f2a")
        );
        assert_eq!(
            session_of_path("C:\\u\\.copilot\\session-state\\9b0e.jsonl").as_deref(),
            Some("9b0e")
        );
        assert_eq!(session_of_path("events.jsonl"), None);
        assert_eq!(model_name("copilot/gpt-5.4"), "gpt-5.4");
        assert_eq!(credits_text(1_750_000_000), "1.75 credits");
    }
}
