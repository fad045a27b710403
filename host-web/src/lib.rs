//! wasm-bindgen bindings of the core for the browser: decode, call the core, encode. No logic
//! lives here; errors reach JavaScript as `Error` objects carrying the registry `code`.

use wasm_bindgen::prelude::*;

/// Installs a panic hook that reports panics on the browser console (a panic is a bug).
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&format!("baton-web panicked: {info}").into());
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

/// Folds a ledger file's bytes into sessions and line counts (JSON text). Never throws.
#[wasm_bindgen(js_name = foldLedger)]
pub fn fold_ledger(bytes: &[u8]) -> String {
    let ledger = baton_core::store::MemoryLedger::from_ndjson(bytes);
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
    let (format, parsed) = baton_core::transcripts::conversation::parse(bytes).map_err(|e| {
        js_error(
            e.code.as_str(),
            &e.message,
            &serde_json::Value::Object(e.details.clone()),
        )
    })?;
    let overview = baton_core::analysis::overview(&parsed.conversations);
    let heatmap = baton_core::analysis::calendar_heatmap_svg(&overview.messages_per_day);
    let lengths = baton_core::analysis::length_histogram_svg(&overview.length_buckets);
    let summary = baton_core::transcripts::conversation::summarize(format, parsed);
    Ok(serde_json::json!({
        "format": format,
        "overview": overview,
        "inspection": summary,
        "charts": { "activity": heatmap, "lengths": lengths },
    })
    .to_string())
}
