//! Cline, Roo Code and Kilo Code tasks (the VS Code and Cursor extensions, `globalStorage/<extension>/tasks/<task>/`):
//! each task one folder, its `ui_messages.json` (what the chat panel shows: prompts, replies,
//! tool asks, and one `api_req_started` per request with that request's tokens and cost) the
//! document read, rewritten whole at every step. Three files beside it (companions, given to
//! the readers by the host) add what the panel's file lacks: the model (Roo and Kilo write it
//! only as `<model>` in the prompts' environment details of `api_conversation_history.json`;
//! Cline's `task_metadata.json` keeps a timeline of models), the workspace and the title
//! (Roo's `history_item.json`).
//!
//! A sub-task (Roo Code's and Kilo Code's `new_task`, its history item naming the task that
//! started it) is a thread of the task at the top of its chain: its messages hang there, off
//! the main line, and its usage counts there.
//!
//! A request's tokens are its own, never a running total (the task's totals in the history
//! item sum them and are not read). What `tokensIn` holds differs: Cline passes the
//! provider's uncached input; Roo (from 3.29.5, November 2025) and Kilo Code (from 4.119) put
//! the cache reads and writes inside it, so they are taken out. Cline counts the usage of
//! requests a checkpoint restore deleted (`deleted_api_reqs`) and its sub-agents'
//! (`subagent_usage`); Roo does not count its `api_req_deleted`; Kilo's `usageMissing` is
//! no usage, not zero. The cost each request records is kept as the agent's own.

mod conversation;
mod usage;

use crate::transcripts::conversation::{Parsed, text_of};
use crate::transcripts::whole::{UsageRead, WholeFormat, WholeReader, WholeUsage};
use crate::transcripts::{Provider, Timestamp};
use serde_json::Value;

/// The files beside a task's `ui_messages.json` its readers are given.
pub const COMPANIONS: [&str; 3] = [
    "api_conversation_history.json",
    "task_metadata.json",
    "history_item.json",
];

/// A task of one of the three products, read whole ([`WholeReader`], [`WholeUsage`]): the
/// product is decided once, where the file's format is found ([`product_of`]), and given.
#[derive(Debug, Clone, Copy)]
pub struct Task(pub Provider);

/// Reads a task's panel file as a conversation.
pub type ClineReader = WholeReader<Task>;
/// Reads a task's usage rows.
pub type ClineUsage = WholeUsage<Task>;

impl WholeFormat for Task {
    type Notes = Notes;

    fn note(notes: &mut Notes, name: &str, bytes: &[u8]) {
        notes.add(name, bytes);
    }

    fn conversations(self, path: &str, bytes: &[u8], notes: &mut Notes, parsed: &mut Parsed) {
        conversation::conversation_of(self.0, path, bytes, notes, parsed);
    }

    fn usage(self, path: &str, bytes: &[u8], notes: &mut Notes, read: &mut UsageRead) {
        usage::usage_of(self.0, path, bytes, notes, read);
    }

    fn both(
        self,
        path: &str,
        bytes: &[u8],
        notes: &mut Notes,
        parsed: &mut Parsed,
        read: &mut UsageRead,
    ) {
        // The conversation's reading works out the requests usage needs: read once.
        let requests = conversation::conversation_of(self.0, path, bytes, notes, parsed);
        read.stats.repaired_surrogates += parsed.stats.repaired_surrogates;
        match requests {
            Some(requests) => usage::rows_of(self.0, path, requests, notes, read),
            None => read.stats.malformed += 1,
        }
    }
}

/// Which of the three wrote a task: the extension's folder in its path, else what the first
/// message shows (Cline's task opens with `say: "task"`, Roo's and Kilo's with a `text`).
/// Asked once, where a file's format is found; the readers take the answer as given.
pub(crate) fn product_of(path: &str, by_content: Provider) -> Provider {
    let lower = path.to_ascii_lowercase();
    if lower.contains("kilocode.kilo-code") {
        Provider::KiloCode
    } else if lower.contains("rooveterinaryinc.roo-cline") {
        Provider::RooCode
    } else if lower.contains("saoudrizwan.claude-dev") || lower.contains(".cline/data") {
        Provider::Cline
    } else {
        by_content
    }
}

/// The product whose `ui_messages.json` the first bytes of a file are: a JSON array whose
/// first object is a panel message (`ts`, `type` `say` or `ask`).
pub(crate) fn looks_like_ui_messages(text: &str) -> Option<Provider> {
    let rest = text.trim_start().strip_prefix('[')?.trim_start();
    if !rest.starts_with('{') {
        return None;
    }
    let head: String = rest.chars().take(600).collect();
    let compact: String = head.split_whitespace().collect();
    let first = compact.split("},{").next().unwrap_or(&compact);
    let panel = first.contains("\"ts\":")
        && (first.contains("\"type\":\"say\"") || first.contains("\"type\":\"ask\""));
    panel.then(|| {
        if first.contains("\"say\":\"task\"") {
            Provider::Cline
        } else {
            Provider::RooCode
        }
    })
}

/// The task's id: its folder's name.
pub(crate) fn task_of(path: &str) -> String {
    let mut parts = path.rsplit(['/', '\\']);
    let _file = parts.next();
    parts.next().unwrap_or("task").to_owned()
}

/// What a task's companion files add.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    /// Models named at or before the requests they are for (Cline's metadata timeline, the
    /// `modelInfo` on its messages), each from when (milliseconds).
    models: Vec<(i64, String)>,
    /// Models named after the request they are for: the conversation history gets a
    /// request's prompt (with `<model>` in its environment details) once the panel has said
    /// the request started.
    after: Vec<(i64, String)>,
    /// The folder it worked in.
    pub(crate) project: Option<String>,
    /// Its title (Roo's history item).
    pub(crate) title: Option<String>,
    /// For a sub-task (Roo Code's and Kilo Code's `new_task`), the task at the top of its
    /// chain (`rootTaskId`, else `parentTaskId`): its conversation and usage are that task's.
    pub(crate) root: Option<String>,
}

impl Notes {
    /// Reads one companion (`name` its path; its file name says which it is).
    pub fn add(&mut self, name: &str, bytes: &[u8]) {
        let file = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        match file {
            "api_conversation_history.json" => {
                for entry in value.as_array().into_iter().flatten() {
                    let at = entry["ts"].as_i64().unwrap_or(0);
                    if let Some(model) = entry["modelInfo"]["modelId"].as_str() {
                        self.after.push((at, model.to_owned()));
                    }
                    if entry["role"] != "user" {
                        continue;
                    }
                    let text = text_of(&entry["content"]);
                    if let Some(model) = tagged_model(&text) {
                        self.after.push((at, model.to_owned()));
                    }
                    if self.project.is_none() {
                        self.project = workspace_in(&text).map(str::to_owned);
                    }
                }
            }
            "task_metadata.json" => {
                for used in value["model_usage"].as_array().into_iter().flatten() {
                    if let Some(model) = used["model_id"].as_str() {
                        let at = used["ts"].as_i64().unwrap_or(0);
                        self.models.push((at, model.to_owned()));
                    }
                }
            }
            "history_item.json" => {
                if let Some(workspace) = value["workspace"].as_str().filter(|w| !w.is_empty()) {
                    self.project = Some(workspace.to_owned());
                }
                self.title = value["task"]
                    .as_str()
                    .and_then(crate::transcripts::conversation::title::prompt_title);
                let own = value["id"].as_str().unwrap_or_default();
                self.root = ["rootTaskId", "parentTaskId"]
                    .iter()
                    .find_map(|key| value[*key].as_str().filter(|t| !t.is_empty() && *t != own))
                    .map(str::to_owned);
            }
            _ => {}
        }
        self.settle();
    }

    /// Puts the models named in time order (once, after they are all noted).
    pub(crate) fn settle(&mut self) {
        self.models.sort_by_key(|(at, _)| *at);
        self.after.sort_by_key(|(at, _)| *at);
    }

    /// The model in use at `at`: the last one named at or before it, else the first named.
    pub(crate) fn model_at(&self, at: i64) -> Option<&str> {
        fn last(list: &[(i64, String)], at: i64) -> Option<&(i64, String)> {
            let before = list.partition_point(|(when, _)| *when <= at);
            before.checked_sub(1).map(|i| &list[i])
        }
        let found = match (last(&self.models, at), last(&self.after, at)) {
            (Some(a), Some(b)) => Some(if a.0 >= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        let first = || match (self.models.first(), self.after.first()) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        found.or_else(first).map(|(_, model)| model.as_str())
    }

    /// The model of a request said at `at` (the next one at `next`): the one its prompt named
    /// once it was sent, else the one in use when it started.
    pub(crate) fn model_for(&self, at: i64, next: i64) -> Option<&str> {
        let from = self.after.partition_point(|(when, _)| *when < at);
        match self.after.get(from) {
            Some((when, model)) if *when < next => Some(model.as_str()),
            _ => self.model_at(at),
        }
    }

    /// Notes a model named in the task's own file at `at` ([`Notes::settle`] puts it in order).
    pub(crate) fn note_model(&mut self, at: i64, model: &str) {
        self.models.push((at, model.to_owned()));
    }
}

/// The model a prompt's environment details name (`<model>…</model>` inside
/// `<environment_details>`, Roo and Kilo; a file the prompt quotes may hold a tag so named).
pub(crate) fn tagged_model(text: &str) -> Option<&str> {
    let details = &text[text.rfind("<environment_details>")?..];
    let start = details.rfind("<model>")? + "<model>".len();
    let end = details[start..].find("</model>")? + start;
    let model = details[start..end].trim();
    (!model.is_empty() && model.len() < 200).then_some(model)
}

/// The folder environment details name (`# Current Working Directory (<path>) Files`, or
/// `# Current Workspace Directory (<path>) Files`).
pub(crate) fn workspace_in(text: &str) -> Option<&str> {
    for heading in [
        "# Current Working Directory (",
        "# Current Workspace Directory (",
    ] {
        if let Some(at) = text.find(heading) {
            let rest = &text[at + heading.len()..];
            let end = rest.find(") Files")?;
            let path = rest[..end].trim();
            return (!path.is_empty() && !path.starts_with("Primary:")).then_some(path);
        }
    }
    None
}

/// The time a panel message was written.
pub(crate) fn time_of(message: &Value) -> Option<Timestamp> {
    message["ts"].as_i64().map(Timestamp::from_millis)
}

/// The `say` or `ask` kind of a panel message.
pub(crate) fn kind_of(message: &Value) -> (&str, &str) {
    let kind = message["type"].as_str().unwrap_or("");
    let what = match kind {
        "ask" => message["ask"].as_str(),
        _ => message["say"].as_str(),
    };
    (kind, what.unwrap_or(""))
}

/// The JSON a message's `text` holds (`api_req_started`, `tool`), `Null` when it holds none.
pub(crate) fn text_json(message: &Value) -> Value {
    message["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_file_is_told_by_its_first_message() {
        let cline = r#"[{"ts":1,"type":"say","say":"task","text":"fix it"}]"#;
        let roo = "[\n  {\n    \"ts\": 1,\n    \"type\": \"say\",\n    \"say\": \"text\"\n  }\n]";
        assert_eq!(looks_like_ui_messages(cline), Some(Provider::Cline));
        assert_eq!(looks_like_ui_messages(roo), Some(Provider::RooCode));
        assert_eq!(looks_like_ui_messages(r#"[{"mapping":{}}]"#), None);
        assert_eq!(looks_like_ui_messages(r#"[{"role":"user","ts":1}]"#), None);
        let path = "/c/Code/User/globalStorage/kilocode.kilo-code/tasks/x/ui_messages.json";
        assert_eq!(product_of(path, Provider::RooCode), Provider::KiloCode);
        assert_eq!(task_of(path), "x");
    }

    #[test]
    fn companions_give_models_by_time_a_workspace_and_a_title() {
        let mut notes = Notes::default();
        notes.add(
            "t/api_conversation_history.json",
            br#"[{"role":"user","ts":100,"content":[{"type":"text","text":"<task>x</task>"},{"type":"text","text":"<environment_details>\n# Current Workspace Directory (/home/dev/app) Files\n# Current Mode\n<model>claude-sonnet-4-5</model>"}]},
                 {"role":"assistant","content":"ok"},
                 {"role":"user","ts":500,"content":"<environment_details><model>gpt-5</model></environment_details>"}]"#,
        );
        notes.add(
            "t/history_item.json",
            br#"{"task":"Fix the build","workspace":"/w"}"#,
        );
        assert_eq!(notes.model_at(50), Some("claude-sonnet-4-5"));
        assert_eq!(notes.model_at(300), Some("claude-sonnet-4-5"));
        assert_eq!(notes.model_at(900), Some("gpt-5"));
        assert_eq!(notes.project.as_deref(), Some("/w"));
        assert_eq!(notes.title.as_deref(), Some("Fix the build"));
        notes.add("t/task_metadata.json", b"{not json");
        notes.add("t/other.json", b"[]");
        assert_eq!(Notes::default().model_at(1), None);
    }
}
