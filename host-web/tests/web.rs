#![cfg(target_arch = "wasm32")]
//! The bindings in a real browser (headless Chromium through wasm-bindgen-test-runner).

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const LEDGER: &str = concat!(
    r#"{"v":1,"id":"019c0000-0000-7000-8000-000000000001","session":"019c0000-0000-7000-8000-000000000002","kind":"started","at":"2026-07-18T20:00:00.000Z","actor":{"kind":"agent","name":"claude"},"data":{"project":"demo","agent":"claude"}}"#,
    "\nnot json\n"
);

#[wasm_bindgen_test]
fn version_lists_the_error_registry() {
    let version: serde_json::Value = serde_json::from_str(&baton_web::version()).unwrap();
    let codes = version["ok"]["error_codes"].as_array().unwrap();
    assert!(codes.iter().any(|c| c == "AMBIGUOUS_SESSION"));
}

#[wasm_bindgen_test]
fn fold_ledger_matches_the_native_core() {
    let folded = baton_web::fold_ledger(LEDGER.as_bytes());
    let native = baton_core::abi::handle_json(
        &serde_json::json!({"op": "fold", "ledger": LEDGER}).to_string(),
    );
    let native: serde_json::Value = serde_json::from_str(&native).unwrap();
    assert_eq!(folded, native["ok"].to_string());
    let value: serde_json::Value = serde_json::from_str(&folded).unwrap();
    assert_eq!(value["stats"]["corrupt_lines"], 1);
    assert_eq!(
        value["sessions"][0]["status"], "starting",
        "registered, never briefed"
    );
}

#[wasm_bindgen_test]
fn errors_are_js_errors_with_a_code() {
    let err = baton_web::call(r#"{"op":"execute","request":{"op":"show","session_id":"nope"},"now":"2026-07-18T20:00:00.000Z","event_id":"019c0000-0000-7000-8000-000000000001","session_id":"019c0000-0000-7000-8000-000000000002"}"#)
        .unwrap_err();
    assert!(err.is_instance_of::<js_sys::Error>());
    let code = js_sys::Reflect::get(&err, &JsValue::from_str("code")).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("INVALID_ARGUMENT"));
}

#[wasm_bindgen_test]
fn analyze_gives_the_native_figures_and_coded_errors() {
    let export = br#"[{"uuid":"c1","name":"Chat","chat_messages":[{"uuid":"m1","sender":"human","created_at":"2025-02-01T10:00:00Z","content":[{"type":"text","text":"hi"}]},{"uuid":"m2","sender":"assistant","created_at":"2025-02-01T10:00:05Z","content":[{"type":"text","text":"hello"}]}]}]"#;
    let answer: serde_json::Value =
        serde_json::from_str(&baton_web::analyze(export).unwrap()).unwrap();
    assert_eq!(answer["format"], "claude-ai");
    assert_eq!(answer["overview"]["messages"], 2);
    assert!(
        answer["charts"]["activity"]
            .as_str()
            .unwrap()
            .starts_with("<svg")
    );
    let err = baton_web::analyze(b"hello").unwrap_err();
    let code = js_sys::Reflect::get(&err, &JsValue::from_str("code")).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("UNKNOWN_FORMAT"));
}

const EXPORT: &[u8] = br#"[{"uuid":"c1","name":"Chat","chat_messages":[{"uuid":"m1","sender":"human","created_at":"2025-02-01T10:00:00Z","content":[{"type":"text","text":"tell me about sourdough"}]},{"uuid":"m2","sender":"assistant","created_at":"2025-02-01T10:00:05Z","content":[{"type":"text","text":"hello"}]}]}]"#;

fn code_of(err: &JsValue) -> Option<String> {
    js_sys::Reflect::get(err, &JsValue::from_str("code"))
        .ok()
        .and_then(|c| c.as_string())
}

#[wasm_bindgen_test]
fn the_analyzer_binding_answers_as_the_native_core_does() {
    let mut page = baton_web::Analyzer::new();
    page.begin("conversations.json");
    for chunk in EXPORT.chunks(5) {
        page.push(chunk).unwrap();
    }
    let summary: serde_json::Value = serde_json::from_str(&page.finish().unwrap()).unwrap();
    assert_eq!(summary["format"], "claude_ai");
    let mut native = baton_core::analyzer::Analyzer::new();
    native.add_file("conversations.json", EXPORT).unwrap();
    assert_eq!(
        page.overview(),
        serde_json::to_string(&native.overview()).unwrap()
    );
    let list: serde_json::Value =
        serde_json::from_str(&page.list(r#"{"search":"SOURDOUGH"}"#).unwrap()).unwrap();
    assert_eq!(list["total"], 1);
    let view: serde_json::Value = serde_json::from_str(&page.view(0, None).unwrap()).unwrap();
    assert_eq!(view["messages"].as_array().unwrap().len(), 2);
    assert!(page.markdown(0, None).unwrap().starts_with("# Chat"));
    let err = page.view(7, None).unwrap_err();
    assert_eq!(code_of(&err).as_deref(), Some("INVALID_ARGUMENT"));
}

#[wasm_bindgen_test]
fn a_truncated_zip_is_a_coded_error_and_keeps_what_was_loaded() {
    let mut page = baton_web::Analyzer::new();
    page.begin("a.json");
    page.push(EXPORT).unwrap();
    page.finish().unwrap();
    let zip = baton_core::transcripts::zip::write_zip(&[("conversations.json", EXPORT)], true);
    page.begin("cut.zip");
    page.push(&zip[..zip.len() - 30]).unwrap();
    let err = page.finish().unwrap_err();
    assert_eq!(code_of(&err).as_deref(), Some("ARCHIVE_DAMAGED"));
    let overview: serde_json::Value = serde_json::from_str(&page.overview()).unwrap();
    assert_eq!(overview["conversations"], 1);
    assert_eq!(overview["files"], 1);
}
