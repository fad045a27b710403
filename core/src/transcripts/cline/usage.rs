//! A Cline, Roo Code or Kilo Code task's usage: one row per request the panel recorded
//! (`api_req_started`; a legacy `api_req_finished`'s counts replace those of the request
//! before it), in
//! Baton's one meaning of its tokens, priced by its model and keeping the cost it recorded.

use super::{Notes, kind_of, tagged_model, task_of, time_of};
use crate::tokens::TokenTotals;
use crate::transcripts::whole::UsageRead;
use crate::transcripts::{Provider, ReadStats, Timestamp, UsageEntry, fingerprint};
use serde_json::Value;

/// When Roo Code began to count the cache inside `tokensIn` (3.29.5, 2025-11-01), in
/// milliseconds.
const ROO_CACHE_INSIDE: i64 = 1_761_955_200_000;
/// When Kilo Code did (4.119.0, 2025-11-12).
const KILO_CACHE_INSIDE: i64 = 1_762_905_600_000;

/// One request's counts as the panel wrote them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Request {
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cache_writes: u64,
    pub cache_reads: u64,
    /// Its cost, in micro-dollars, when it recorded one.
    pub cost_micro_usd: Option<u64>,
}

impl Request {
    /// A request's counts, `None` when it counts nothing or says its usage is missing.
    pub(crate) fn of(info: &Value) -> Option<Request> {
        if info["usageMissing"] == true {
            return None;
        }
        let count = |key: &str| info[key].as_u64().unwrap_or(0);
        let request = Request {
            tokens_in: count("tokensIn"),
            tokens_out: count("tokensOut"),
            cache_writes: count("cacheWrites"),
            cache_reads: count("cacheReads"),
            cost_micro_usd: info["cost"]
                .as_f64()
                // A zero is what the extensions write for a model they have no price for:
                // no cost recorded, the table decides (and names the model unpriced).
                .filter(|c| c.is_finite() && *c > 0.0)
                .map(crate::transcripts::usage::prices::micro_usd_of_dollars),
        };
        let counted = request
            .tokens_in
            .saturating_add(request.tokens_out)
            .saturating_add(request.cache_writes)
            .saturating_add(request.cache_reads);
        (counted > 0).then_some(request)
    }

    /// Its tokens in Baton's one meaning (input without the cache), as `product` wrote them at
    /// `at`.
    pub(crate) fn tokens(&self, product: Provider, at: i64) -> TokenTotals {
        let cache = self.cache_reads.saturating_add(self.cache_writes);
        let since = match product {
            Provider::RooCode => Some(ROO_CACHE_INSIDE),
            Provider::KiloCode => Some(KILO_CACHE_INSIDE),
            _ => None,
        };
        let inside = since.is_some_and(|since| at >= since) && self.tokens_in >= cache;
        TokenTotals {
            input_tokens: if inside {
                self.tokens_in - cache
            } else {
                self.tokens_in
            },
            output_tokens: self.tokens_out,
            cache_creation_tokens: self.cache_writes,
            cache_read_tokens: self.cache_reads,
            reasoning_tokens: 0,
        }
    }
}

/// What the usage needs of one panel message, read from a parsed value or from the typed
/// reading of a whole file (which skips every other field unparsed).
pub(crate) struct Said<'a> {
    kind: &'a str,
    what: &'a str,
    partial: bool,
    when: i64,
    text: Text<'a>,
    model: Option<&'a str>,
}

/// A panel message's `text`, parsed only when its JSON is wanted.
enum Text<'a> {
    Value(&'a Value),
    Raw(Option<&'a serde_json::value::RawValue>),
}

impl Text<'_> {
    /// The JSON the text holds, `Null` when it holds none.
    fn json(&self) -> Value {
        let text: Option<std::borrow::Cow<'_, str>> = match self {
            Text::Value(value) => value.as_str().map(std::borrow::Cow::Borrowed),
            Text::Raw(raw) => raw.and_then(|raw| serde_json::from_str(raw.get()).ok()),
        };
        text.and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    }
}

impl<'a> Said<'a> {
    /// A parsed panel message's.
    pub(crate) fn of(message: &'a Value) -> Said<'a> {
        let (kind, what) = kind_of(message);
        Said {
            kind,
            what,
            partial: message["partial"] == true,
            when: time_of(message).map_or(0, Timestamp::millis),
            text: Text::Value(&message["text"]),
            model: message["modelInfo"]["modelId"].as_str(),
        }
    }
}

/// A panel message as the usage reads it, every field it does not need skipped unparsed.
#[derive(serde::Deserialize)]
struct Lite<'a> {
    #[serde(default)]
    ts: Option<i64>,
    #[serde(default, rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    say: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    partial: Option<bool>,
    #[serde(default, borrow)]
    text: Option<&'a serde_json::value::RawValue>,
    #[serde(default, rename = "modelInfo", borrow)]
    model_info: Option<LiteModel<'a>>,
}

#[derive(serde::Deserialize)]
struct LiteModel<'a> {
    #[serde(default, rename = "modelId", borrow)]
    model_id: Option<std::borrow::Cow<'a, str>>,
}

/// The requests of a task's panel messages, in order: each with its time, its counts, the
/// model it names (Cline's `modelInfo`, an older Roo request's environment details) and its
/// place in the file. A legacy `api_req_finished`'s counts replace those of the request before
/// it.
pub(crate) fn requests<'a>(
    messages: impl Iterator<Item = Said<'a>>,
    product: Provider,
    notes: &mut Notes,
) -> Vec<(i64, Request, usize)> {
    let mut infos: Vec<(i64, Value, usize)> = Vec::new();
    // Where the last `api_req_started` is in `infos` (a legacy finish belongs to it).
    let mut last_started: Option<usize> = None;
    for (at, said) in messages.enumerate() {
        if said.kind != "say" || said.partial {
            continue;
        }
        let when = said.when;
        let counted = match said.what {
            "api_req_started" => true,
            // Cline counts what a restore deleted and what its sub-agents used; Roo and
            // Kilo leave their deleted requests out of the task's totals.
            "deleted_api_reqs" | "subagent_usage" => product == Provider::Cline,
            "api_req_finished" => {
                if let (Some((_, last, _)), Value::Object(more)) = (
                    last_started.and_then(|at| infos.get_mut(at)),
                    said.text.json(),
                ) && let Some(last) = last.as_object_mut()
                {
                    last.extend(more);
                }
                false
            }
            _ => false,
        };
        if !counted {
            continue;
        }
        let info = said.text.json();
        if said.what == "api_req_started" {
            last_started = Some(infos.len());
        }
        if let Some(model) = said.model {
            notes.note_model(when, model);
        } else if let Some(model) = info["request"].as_str().and_then(tagged_model) {
            notes.note_model(when, model);
        }
        infos.push((when, info, at));
    }
    notes.settle();
    infos
        .into_iter()
        .filter_map(|(when, info, at)| Request::of(&info).map(|r| (when, r, at)))
        .collect()
}

/// A task's requests: when each started, what it counted, and the panel message it is.
pub(super) type Requests = Vec<(i64, Request, usize)>;

/// The requests of a whole panel file: read typed (fast) when every message has the shape
/// the extensions write, else as JSON values (a file with odd types is still read).
fn requests_of_file(
    bytes: &[u8],
    product: Provider,
    notes: &mut Notes,
    stats: &mut ReadStats,
) -> Option<Vec<(i64, Request, usize)>> {
    if let Ok(lite) = serde_json::from_slice::<Vec<Lite<'_>>>(bytes) {
        let said = lite.iter().map(|m| Said {
            kind: m.kind.as_deref().unwrap_or(""),
            what: m.say.as_deref().unwrap_or(""),
            partial: m.partial == Some(true),
            when: m.ts.unwrap_or(0),
            text: Text::Raw(m.text),
            model: m.model_info.as_ref().and_then(|i| i.model_id.as_deref()),
        });
        return Some(requests(said, product, notes));
    }
    let value = crate::transcripts::parse_line::<Value>(bytes, stats);
    let Some(messages) = value.as_ref().and_then(Value::as_array) else {
        stats.malformed += 1;
        return None;
    };
    Some(requests(messages.iter().map(Said::of), product, notes))
}

/// A task's usage rows, with what its companions noted.
pub(super) fn usage_of(
    product: Provider,
    path: &str,
    bytes: &[u8],
    notes: &mut Notes,
    read: &mut UsageRead,
) {
    let Some(requests) = requests_of_file(bytes, product, notes, &mut read.stats) else {
        return;
    };
    rows_of(product, path, requests, notes, read);
}

/// A task's usage rows from its requests.
pub(super) fn rows_of(
    product: Provider,
    path: &str,
    requests: Requests,
    notes: &Notes,
    read: &mut UsageRead,
) {
    let task = task_of(path);
    // A sub-task's usage counts in the task at the top of its chain.
    let session = read.strings.get(notes.root.as_deref().unwrap_or(&task));
    let project = notes.project.clone().map(|p| read.strings.get(&p));
    let key = product.key();
    let starts: Vec<i64> = requests.iter().map(|(when, _, _)| *when).collect();
    for (n, (when, request, place)) in requests.into_iter().enumerate() {
        let next = starts.get(n + 1).copied().unwrap_or(i64::MAX);
        let model = notes.model_for(when, next).map(|m| read.strings.get(m));
        let entry = UsageEntry {
            provider: product,
            at: Timestamp::from_millis(when),
            session: session.clone(),
            project: project.clone(),
            model,
            tokens: request.tokens(product, when),
            cache_creation_1h_tokens: 0,
            request_context_tokens: None,
            recorded_cost_micro_usd: request.cost_micro_usd,
            fast: false,
            web_searches: 0,
            delegated: false,
        };
        let (stamp, place) = (when.to_string(), place.to_string());
        let parts = [
            key.as_bytes(),
            task.as_bytes(),
            stamp.as_bytes(),
            place.as_bytes(),
        ];
        let key = fingerprint(&parts);
        read.rows.push((entry, key));
    }
    read.stats.without_usage += read.stats.lines.saturating_sub(read.rows.len() as u64);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcripts::cline::{ClineUsage, Task};
    use crate::transcripts::lines::LineReader as _;

    fn read(path: &str, product: Provider, panel: &str, api: &str) -> Vec<UsageEntry> {
        let mut usage = ClineUsage::new(Task(product), path);
        for line in panel.lines() {
            usage.push_line(line.as_bytes());
        }
        usage.companion("api_conversation_history.json", api.as_bytes());
        usage.end();
        usage.take_rows().into_iter().map(|(e, _)| e).collect()
    }

    #[test]
    fn roo_takes_the_cache_out_of_its_input_and_keeps_its_cost() {
        // 2026-08-20: Roo's tokensIn holds the cache.
        let panel = r#"[{"ts":1787216400000,"type":"say","say":"text","text":"go"},
 {"ts":1787216401000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\",\"tokensIn\":12000,\"tokensOut\":50,\"cacheReads\":10000,\"cacheWrites\":500,\"cost\":0.0123}"},
 {"ts":1787216402000,"type":"say","say":"api_req_started","text":"{\"apiProtocol\":\"anthropic\"}"},
 {"ts":1787216403000,"type":"say","say":"api_req_deleted","text":"{\"tokensIn\":9,\"tokensOut\":9}"}]"#;
        let api = r#"[{"role":"user","ts":1787216400500,"content":"<environment_details><model>claude-sonnet-4-5</model></environment_details>"}]"#;
        let rows = read(
            "/g/rooveterinaryinc.roo-cline/tasks/t1/ui_messages.json",
            Provider::RooCode,
            panel,
            api,
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].provider, Provider::RooCode);
        assert_eq!(rows[0].tokens.input_tokens, 1500);
        assert_eq!(rows[0].tokens.cache_read_tokens, 10000);
        assert_eq!(rows[0].model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(rows[0].recorded_cost_micro_usd, Some(12300));
        assert_eq!(&*rows[0].session, "t1");
    }

    #[test]
    fn cline_counts_its_input_as_written_and_its_deleted_requests() {
        let panel = r#"[{"ts":1000,"type":"say","say":"task","text":"go"},
 {"ts":2000,"type":"say","say":"api_req_started","modelInfo":{"modelId":"claude-opus-4-1"},"text":"{\"tokensIn\":30,\"tokensOut\":5,\"cacheReads\":700}"},
 {"ts":2500,"type":"say","say":"api_req_finished","text":"{\"tokensOut\":7}"},
 {"ts":3000,"type":"say","say":"deleted_api_reqs","text":"{\"tokensIn\":4,\"tokensOut\":1}"},
 {"ts":4000,"type":"say","say":"api_req_started","partial":true,"text":"{\"tokensIn\":99}"}]"#;
        let rows = read(
            "/x/saoudrizwan.claude-dev/tasks/1787/ui_messages.json",
            Provider::Cline,
            panel,
            "[]",
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].tokens.input_tokens, 30);
        assert_eq!(
            rows[0].tokens.output_tokens, 7,
            "the legacy finish replaces the count"
        );
        assert_eq!(rows[1].model.as_deref(), Some("claude-opus-4-1"));
    }

    #[test]
    fn roo_bills_each_request_to_the_model_its_prompt_named_after_it_started() {
        let panel = r#"[{"ts":1000,"type":"say","say":"text","text":"go"},
 {"ts":2000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":10,\"tokensOut\":1}"},
 {"ts":9000,"type":"say","say":"api_req_started","text":"{\"tokensIn\":20,\"tokensOut\":2}"}]"#;
        let api = r#"[{"role":"user","ts":2500,"content":"<task>see <model>pom</model></task><environment_details><model>claude-sonnet-4-5</model></environment_details>"},
 {"role":"user","ts":9400,"content":"<environment_details><model>gpt-5</model></environment_details>"}]"#;
        let rows = read(
            "/r/rooveterinaryinc.roo-cline/tasks/t/ui_messages.json",
            Provider::RooCode,
            panel,
            api,
        );
        let models: Vec<_> = rows.iter().map(|r| r.model.as_deref()).collect();
        assert_eq!(models, [Some("claude-sonnet-4-5"), Some("gpt-5")]);
    }

    #[test]
    fn kilo_usage_missing_is_no_row_and_odd_files_no_panic() {
        let panel = r#"[{"ts":1,"type":"say","say":"api_req_started","text":"{\"tokensIn\":0,\"usageMissing\":true}"}]"#;
        assert!(
            read(
                "/k/kilocode.kilo-code/tasks/a/ui_messages.json",
                Provider::KiloCode,
                panel,
                ""
            )
            .is_empty()
        );
        for odd in [
            "{}",
            "[1, \"x\", null]",
            "[{\"type\":\"say\",\"say\":\"api_req_started\",\"text\":7}]",
            "[",
            "",
        ] {
            assert!(read("t/ui_messages.json", Provider::Cline, odd, "{").is_empty());
        }
    }
}
