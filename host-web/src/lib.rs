//! wasm-bindgen bindings of the core for the browser: decode, call the core, encode. No logic
//! lives here; errors reach JavaScript as `Error` objects carrying the registry `code`.

use wasm_bindgen::prelude::*;

/// Installs a panic hook that reports panics on the browser console (a panic is a bug).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        gloo_console::error!(format!("baton-web panicked: {info}"));
    }));
}

/// Converts a core error into a JavaScript `Error` with `code` and `details` properties.
fn js_error(code: &str, message: &str, details: &serde_json::Value) -> JsValue {
    let error = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&error, &"code".into(), &code.into());
    let details = js_sys::JSON::parse(&details.to_string()).unwrap_or(JsValue::NULL);
    let _ = js_sys::Reflect::set(&error, &"details".into(), &details);
    error.into()
}

/// The core's version and the error codes it can answer with, as JSON.
#[wasm_bindgen]
pub fn version() -> String {
    baton_core::abi::handle_json(r#"{"op":"version"}"#)
}

/// Runs one JSON ABI request (see `docs/embedding.md`) and returns the core's answer as it is:
/// `{"ok":…}` or `{"error":{…}}`, the same bytes every engine gives. Never throws. Analyzers
/// opened by `analyzer_open` live in this module instance between calls.
#[wasm_bindgen(js_name = handleJson)]
pub fn handle_json(request: &str) -> String {
    baton_core::abi::handle_json(request)
}

/// Runs one JSON ABI request (see `baton_core::abi`); returns the `ok` value as JSON text, or
/// throws an `Error` with `code`, `message` and `details`.
#[wasm_bindgen]
pub fn call(request: &str) -> Result<String, JsValue> {
    let answer = baton_core::abi::handle_json(request);
    let value: serde_json::Value = serde_json::from_str(&answer)
        .map_err(|e| js_error("INTERNAL", &e.to_string(), &serde_json::Value::Null))?;
    if let Some(error) = value.get("error") {
        return Err(js_error(
            error["code"].as_str().unwrap_or("INTERNAL"),
            error["message"].as_str().unwrap_or("unknown error"),
            &error["details"],
        ));
    }
    Ok(value["ok"].to_string())
}

/// A message's Markdown as HTML the page may insert as is, its wrappers (a slash command,
/// injected context) shown as what they mean (see `baton_core::analyzer::safe_html`). Never
/// throws.
#[wasm_bindgen(js_name = renderMarkdown)]
pub fn render_markdown(markdown: &str) -> String {
    baton_core::analyzer::safe_html::render_message(markdown)
}

/// Folds a ledger file's bytes into sessions and line counts (JSON text). Never throws.
#[wasm_bindgen(js_name = foldLedger)]
pub fn fold_ledger(bytes: &[u8]) -> String {
    let ledger = baton_core::ledger::store::MemoryLedger::from_ndjson(bytes);
    serde_json::json!({
        "sessions": ledger.fold().sessions(),
        "stats": ledger.fold().stats,
    })
    .to_string()
}

/// Analyzes a transcript or export file (format detected by content): the overview figures,
/// the charts as SVG, and what was read. Throws an `Error` with `code` `UNKNOWN_FORMAT` for a
/// file that is none of the four formats.
#[wasm_bindgen]
pub fn analyze(bytes: &[u8]) -> Result<String, JsValue> {
    let (format, parsed) = baton_core::transcripts::inspect::parse(bytes).map_err(|e| {
        js_error(
            e.code.as_str(),
            &e.message,
            &serde_json::Value::Object(e.details.clone()),
        )
    })?;
    let overview = baton_core::analyzer::charts::overview(&parsed.conversations);
    let width = baton_core::analyzer::charts::DEFAULT_WIDTH;
    let heatmap = baton_core::analyzer::charts::calendar_svg(&overview.messages_per_day, width);
    let lengths =
        baton_core::analyzer::charts::length_histogram_svg(&overview.length_buckets, width);
    let summary = baton_core::transcripts::inspect::summarize(format, &parsed);
    Ok(serde_json::json!({
        "format": summary.format_name(),
        "overview": overview,
        "inspection": summary,
        "charts": { "activity": heatmap, "lengths": lengths },
    })
    .to_string())
}

fn core_error(e: baton_core::Error) -> JsValue {
    js_error(
        e.code.as_str(),
        &e.message,
        &serde_json::Value::Object(e.details.clone()),
    )
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// Everything loaded in this page, fed file by file in chunks (see
/// `baton_core::analyzer::Analyzer`). Answers are JSON text; errors are `Error`s with a `code`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Analyzer(baton_core::analyzer::Analyzer);

#[wasm_bindgen]
impl Analyzer {
    /// An analyzer with nothing loaded.
    #[wasm_bindgen(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Analyzer {
        Analyzer(baton_core::analyzer::Analyzer::new())
    }

    /// How the files begun from now on are read, as JSON (see `ReadOptions`:
    /// `{"include_hidden": true}` keeps the messages a provider hides from its own reader).
    #[wasm_bindgen(js_name = setReadOptions)]
    pub fn set_read_options(&mut self, options: &str) -> Result<(), JsValue> {
        let options: baton_core::transcripts::conversation::ReadOptions =
            serde_json::from_str(options).map_err(|e| {
                js_error("INVALID_ARGUMENT", &e.to_string(), &serde_json::Value::Null)
            })?;
        self.0.set_read_options(options);
        Ok(())
    }

    /// Starts a file (an unfinished one is dropped).
    pub fn begin(&mut self, name: &str) {
        self.0.begin(name);
    }

    /// Feeds the next chunk of the current file.
    pub fn push(&mut self, chunk: &[u8]) -> Result<(), JsValue> {
        self.0.push(chunk).map_err(core_error)
    }

    /// Does up to `budget` bytes of the work left (unpacking an archive); JSON progress.
    pub fn pump(&mut self, budget: usize) -> Result<String, JsValue> {
        self.0.pump(budget).map(|p| json(&p)).map_err(core_error)
    }

    /// Finishes the current file; JSON summary of what it added.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        self.0.finish().map(|s| json(&s)).map_err(core_error)
    }

    /// Reads the tree of files loaded last (OpenCode's `storage` folder, from before its
    /// database) whole; a load ends with it. What each tree read whole held (a JSON array).
    pub fn settle(&mut self) -> String {
        json(&self.0.settle())
    }

    /// Drops the current file.
    pub fn cancel(&mut self) {
        self.0.cancel();
    }

    /// The overview (JSON).
    pub fn overview(&self) -> String {
        json(&self.0.overview())
    }

    /// The overview and the charts from one pass (JSON `{overview, charts}`), the charts
    /// drawn `width` pixels wide (the core's default when absent).
    pub fn report(&self, width: Option<u32>) -> String {
        json(&self.0.report_at(chart_width(width)))
    }

    /// The charts as SVG text (JSON object), drawn `width` pixels wide.
    pub fn charts(&self, width: Option<u32>) -> String {
        json(&self.0.charts(chart_width(width)))
    }

    /// Usage grouped as `baton usage` groups it (`daily`, `weekly`, `monthly`, `session`,
    /// `model`, `project`), days in UTC: the report as JSON.
    pub fn usage(&self, group_by: &str) -> Result<String, JsValue> {
        let group_by = group_by.parse().map_err(core_error)?;
        Ok(json(&self.0.usage(group_by)))
    }

    /// The same usage report as CSV text.
    #[wasm_bindgen(js_name = usageCsv)]
    pub fn usage_csv(&self, group_by: &str) -> Result<String, JsValue> {
        let group_by = group_by.parse().map_err(core_error)?;
        Ok(self.0.usage(group_by).to_csv())
    }

    /// Usage by five-hour window at `now_ms` (milliseconds since 1970), each with the
    /// sessions that used it: the report as JSON.
    pub fn windows(&self, now_ms: f64) -> String {
        json(
            &self
                .0
                .windows(baton_core::Timestamp::from_millis(now_ms as i64)),
        )
    }

    /// The same windows as CSV text.
    #[wasm_bindgen(js_name = windowsCsv)]
    pub fn windows_csv(&self, now_ms: f64) -> String {
        self.0
            .windows(baton_core::Timestamp::from_millis(now_ms as i64))
            .to_csv()
    }

    /// The files loaded (JSON array).
    pub fn files(&self) -> String {
        json(&self.0.files())
    }

    /// A page of the conversation list for a JSON query (see `ListQuery`).
    pub fn list(&self, query: &str) -> Result<String, JsValue> {
        let query: baton_core::analyzer::ListQuery = serde_json::from_str(query)
            .map_err(|e| js_error("INVALID_ARGUMENT", &e.to_string(), &serde_json::Value::Null))?;
        Ok(json(&self.0.list(&query)))
    }

    /// One branch of a conversation (the active one unless `through` names a message).
    pub fn view(&self, index: usize, through: Option<String>) -> Result<String, JsValue> {
        self.0
            .view(index, through.as_deref())
            .map(|v| json(&v))
            .map_err(core_error)
    }

    /// The same branch as Markdown.
    pub fn markdown(&self, index: usize, through: Option<String>) -> Result<String, JsValue> {
        self.0
            .view(index, through.as_deref())
            .map(|v| baton_core::analyzer::markdown(&v))
            .map_err(core_error)
    }

    /// What sharing the branch with these options (JSON: `profile`, `words`, `keep`) would
    /// replace: `{profile, replacements, total}`.
    #[wasm_bindgen(js_name = sharePreview)]
    pub fn share_preview(
        &self,
        index: usize,
        through: Option<String>,
        options: &str,
    ) -> Result<String, JsValue> {
        let (shared, choices) = self.share_input(index, through, options)?;
        let replacements =
            baton_core::share::make::preview(shared, &choices).map_err(core_error)?;
        let total: usize = replacements.iter().map(|r| r.count).sum();
        Ok(json(&serde_json::json!({
            "profile": choices.profile,
            "replacements": replacements,
            "total": total,
        })))
    }

    /// The branch as the one HTML file `baton share` writes (JSON options: `profile`,
    /// `words`, `keep`, `now_ms`, and to lock it `password` with 16 random bytes `salt` and 12
    /// `nonce`): `{text, title, messages, replacements, locked}`.
    #[wasm_bindgen(js_name = shareHtml)]
    pub fn share_html(
        &self,
        index: usize,
        through: Option<String>,
        options: &str,
    ) -> Result<String, JsValue> {
        let (shared, choices) = self.share_input(index, through, options)?;
        let made = baton_core::share::make::make(shared, &choices).map_err(core_error)?;
        let mut answer = serde_json::to_value(&made).unwrap_or_default();
        answer["text"] = serde_json::Value::String(made.text);
        Ok(answer.to_string())
    }

    fn share_input(
        &self,
        index: usize,
        through: Option<String>,
        options: &str,
    ) -> Result<
        (
            baton_core::share::html::Shared,
            baton_core::share::make::Choices,
        ),
        JsValue,
    > {
        #[derive(serde::Deserialize)]
        struct Options {
            #[serde(default = "share_profile")]
            profile: String,
            #[serde(default)]
            words: Vec<String>,
            #[serde(default)]
            keep: Vec<String>,
            #[serde(default)]
            now_ms: f64,
            password: Option<String>,
            salt: Option<[u8; 16]>,
            nonce: Option<[u8; 12]>,
        }
        fn share_profile() -> String {
            "share".to_owned()
        }
        let options: Options = serde_json::from_str(options)
            .map_err(|e| js_error("INVALID_ARGUMENT", &e.to_string(), &serde_json::Value::Null))?;
        let view = self.0.view(index, through.as_deref()).map_err(core_error)?;
        let lock = match (
            options.password.filter(|p| !p.is_empty()),
            options.salt,
            options.nonce,
        ) {
            (Some(password), Some(salt), Some(nonce)) => Some(baton_core::share::make::Lock {
                password,
                salt,
                nonce,
            }),
            (Some(_), _, _) => {
                return Err(js_error(
                    "INVALID_ARGUMENT",
                    "a password needs 16 random bytes of salt and 12 of nonce",
                    &serde_json::Value::Null,
                ));
            }
            _ => None,
        };
        Ok((
            baton_core::share::html::Shared::conversation(view),
            baton_core::share::make::Choices {
                format: baton_core::share::make::Format::Html,
                profile: options.profile.parse().map_err(core_error)?,
                words: options.words,
                keep: options.keep,
                lock,
                now: baton_core::Timestamp::from_millis(options.now_ms as i64),
                made_by: format!("Baton {} (the web page)", env!("CARGO_PKG_VERSION")),
            },
        ))
    }

    /// One conversation, every branch, as JSON.
    #[wasm_bindgen(js_name = conversationJson)]
    pub fn conversation_json(&self, index: usize) -> Result<String, JsValue> {
        self.0.conversation_json(index).map_err(core_error)
    }

    /// Every conversation as a JSON array.
    #[wasm_bindgen(js_name = allJson)]
    pub fn all_json(&self) -> String {
        self.0.all_json()
    }

    /// Every active branch as Markdown.
    #[wasm_bindgen(js_name = allMarkdown)]
    pub fn all_markdown(&self) -> String {
        self.0.all_markdown()
    }

    /// Work sessions of the loaded ledgers (JSON array, newest first).
    pub fn sessions(&self) -> String {
        json(&self.0.sessions())
    }

    /// The work sessions in hand-off order with health, liveness and cost, and the
    /// workspace's missions, decisions and open attention items (JSON).
    #[wasm_bindgen(js_name = workOverview)]
    pub fn work_overview(&self) -> Result<String, JsValue> {
        self.0.work_overview().map(|w| json(&w)).map_err(core_error)
    }

    /// One work session's timeline (JSON array).
    pub fn timeline(&self, session_id: &str) -> Result<String, JsValue> {
        self.0
            .session_timeline(session_id)
            .map(|t| json(&t))
            .map_err(core_error)
    }
}

fn chart_width(width: Option<u32>) -> u32 {
    width.unwrap_or(baton_core::analyzer::charts::DEFAULT_WIDTH)
}

/// The error for a file the page could not read (`FILE_UNREADABLE`), worded by the core:
/// JSON `{code, message, details}`.
#[wasm_bindgen(js_name = fileUnreadable)]
pub fn file_unreadable(name: &str, reason: &str) -> String {
    let e = baton_core::Error::file_unreadable(name, reason);
    serde_json::json!({ "code": e.code.as_str(), "message": e.message, "details": e.details })
        .to_string()
}

/// A duration in whole seconds as people read it (`1h 30m`, `45s`): the words the CLI prints.
#[wasm_bindgen(js_name = humanDuration)]
pub fn human_duration(seconds: f64) -> String {
    baton_core::time::human_duration(seconds as i64)
}

/// The file extensions the page takes from a folder (a single file is read whatever its name).
#[wasm_bindgen(js_name = inputExtensions)]
pub fn input_extensions() -> Vec<String> {
    baton_core::transcripts::ingest::INPUT_EXTENSIONS
        .iter()
        .map(|e| (*e).to_owned())
        .collect()
}

/// The file names the page also takes from a folder, whatever their extension (Aider's
/// `.aider.chat.history.md`).
#[wasm_bindgen(js_name = inputNames)]
pub fn input_names() -> Vec<String> {
    baton_core::transcripts::ingest::input_names()
        .map(str::to_owned)
        .collect()
}

/// Which of the paths of files found in folders the page passes over (an unzipped export's
/// side files beside its conversations file), one flag per path: the core's rule.
#[wasm_bindgen(js_name = skippedExportFiles)]
pub fn skipped_export_files(paths: Vec<String>) -> Vec<u8> {
    baton_core::transcripts::providers::skipped_files(&paths)
        .into_iter()
        .map(u8::from)
        .collect()
}

/// Which of the paths of files found in folders the page reads, one answer per path: 0 not
/// read, 1 read in path order, 2 read before every other (a file above an agent's transcripts
/// that says where they were made, such as VS Code's `workspace.json`). The core's rule: by
/// ending, by an agent's file name, by an agent's own folder, less what is passed over.
#[wasm_bindgen(js_name = takenFromFolder)]
pub fn taken_from_folder(paths: Vec<String>) -> Vec<u8> {
    use baton_core::transcripts::ingest::Taken;
    baton_core::transcripts::ingest::taken_from_folder(&paths)
        .into_iter()
        .map(|taken| match taken {
            Taken::No | Taken::Aside => 0,
            Taken::Yes => 1,
            Taken::First => 2,
        })
        .collect()
}

/// The size of the slices the page reads files in and pushes.
#[wasm_bindgen(js_name = chunkBytes)]
pub fn chunk_bytes() -> usize {
    baton_core::transcripts::ingest::CHUNK_BYTES
}
