//! Every error code's message, as a person reads it and as a program acts on it, pinned by one
//! snapshot built from the typed constructors (ids and times fixed); and every code in the
//! registry has a way to be built.

use baton_core::commands::render::error_line;
use baton_core::{Error, ErrorCode, SessionId, Timestamp};
use serde_json::json;
use std::collections::BTreeSet;

#[test]
fn every_error_code_reads_as_pinned() {
    let id = SessionId(uuid::Uuid::parse_str("019c0000-0000-7000-8000-0000000000aa").unwrap());
    let at = Timestamp::parse("2026-07-18T21:30:00.000Z").ok();
    let errors = [
        Error::invalid("project", "must not contain `/` or `\\`"),
        Error::session_not_found(id),
        Error::session_not_loaded("019c0000-0000-7000-8000-0000000000bb"),
        Error::session_project_mismatch(id, "demo", "site"),
        Error::session_not_active(id, "complete"),
        Error::session_not_resumable(id, "failed", at),
        Error::session_already_closed(id, "complete", at),
        Error::no_active_session("project `demo`", json!({ "project": "demo" })),
        Error::ambiguous_session(
            "project `demo`",
            vec![json!({ "session_id": "a" }), json!({ "session_id": "b" })],
            json!({ "project": "demo" }),
        ),
        Error::permission_denied("guest", "viewer", "session.register"),
        Error::actor_not_allowed("codex", "unpause", "lifting a pause", Some((&id, "codex"))),
        Error::actor_not_allowed(
            "codex",
            "end_other_agents_session",
            "ending another agent's session",
            Some((&id, "claude")),
        ),
        Error::actor_not_allowed(
            "codex",
            "constitution_set",
            "setting the constitution",
            None,
        ),
        Error::client_not_approved("cursor"),
        Error::mission_not_found("CLAIM-9"),
        Error::mission_not_approved("CLAIM-9", 2),
        Error::mission_required(),
        Error::session_not_paused(id),
        Error::budget_exceeded(
            &["`day_usd` $10.50 of $10.00 a day for all work (105 %)".to_owned()],
            serde_json::json!([{"key": "day_usd", "spent": 10.5, "limit": 10.0}]),
        ),
        Error::ambiguity_not_found(4),
        Error::record_not_found("0190abcd"),
        Error::ambiguous_record(
            "0190abcd",
            vec![
                "0190abcd-0000-7000-8000-000000000001".into(),
                "0190abcd-0000-7000-8000-000000000002".into(),
            ],
        ),
        Error::not_a_record(
            "0190abcd",
            "0190abcd-0000-7000-8000-000000000003",
            "work_session",
            "a work session",
        ),
        Error::record_content_damaged(
            "0190abcd-0000-7000-8000-000000000001",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "the blob is missing",
        ),
        Error::run_refused(id, "it carried the prompt's text"),
        Error::unknown_format("just some notes", &baton_core::transcripts::formats_read()),
        Error::empty_file("notes.jsonl"),
        Error::export_side_file("export/user.json"),
        Error::ledger_too_new(json!(2)),
        Error::archive_damaged("no end of central directory"),
        Error::database_damaged("page 9 is reached twice (a cycle)"),
        Error::nested_archive("export.zip"),
        Error::archive_too_large(
            "conversations.json",
            1 << 30,
            1 << 20,
            "over 200 times its compressed size",
        ),
        Error::no_conversations_in_archive("photos.zip", 1, vec!["photo.jpg".into()]),
        Error::file_unreadable(
            "projects/a/s1.jsonl",
            "NotFoundError: A requested file or directory could not be found",
        ),
        Error::no_transcripts(
            &["no Codex transcripts: /home/me/.codex/sessions does not exist".into()],
            json!([{"provider": "codex", "path": "/home/me/.codex/sessions", "reason": "not_found"}]),
        ),
        Error::store_io("read", "/tmp/x", "permission denied"),
        Error::store_unsafe("/repo/.baton/events.ndjson", "is a symbolic link"),
        Error::compaction_running("pid 42 on host"),
        Error::index_damaged(
            "/home/me/.local/share/baton/index.sqlite",
            "database disk image is malformed",
        ),
        Error::cannot_listen(8377, "address in use"),
        Error::internal("an invariant failed"),
    ];
    let text: Vec<String> = errors
        .iter()
        .map(|e| {
            format!(
                "{}\n  {}",
                error_line(e),
                serde_json::Value::Object(e.details.clone())
            )
        })
        .collect();
    insta::assert_snapshot!("error_messages", text.join("\n"));
    // Codes built elsewhere with their own words (a size limit, a page not built, a server
    // that stopped, an archive feature) are the only ones this list may leave out.
    let covered: BTreeSet<&str> = errors.iter().map(|e| e.code.as_str()).collect();
    let elsewhere = [
        "EVENT_TOO_LARGE",
        "PAGE_NOT_BUILT",
        "SERVE_FAILED",
        "ARCHIVE_UNSUPPORTED",
        "STORE_BUSY",
    ];
    for code in ErrorCode::ALL {
        assert!(
            covered.contains(code.as_str()) || elsewhere.contains(&code.as_str()),
            "{code} has no constructor in this list"
        );
    }
}
