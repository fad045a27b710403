//! Where a session worked, from the files an agent keeps above its transcripts: VS Code's
//! `workspace.json` names the folder of a Copilot Chat session, Gemini CLI's `projects.json`
//! the folder a project's short name (or hash) stands for. A folder's files are taken with
//! those first, and every transcript below one is read with it — through the ingest, the
//! usage tally and the analyzer alike.

use baton_core::analyzer::Analyzer;
use baton_core::transcripts::Provider;
use baton_core::transcripts::ingest::{Taken, taken_from_folder};
use baton_core::transcripts::tally::UsageTally;
use serde_json::json;

fn copilot_session(id: &str) -> String {
    let request = json!({"requestId": "r1", "timestamp": 1_787_000_000_000_i64,
        "message": {"text": "rename the flag"}, "modelId": "copilot/gpt-4.1",
        "response": [{"value": "Done."}], "promptTokens": 1200, "completionTokens": 80});
    let session = json!({"version": 3, "sessionId": id, "creationDate": 1_787_000_000_000_i64,
        "requesterUsername": "dev", "responderUsername": "GitHub Copilot",
        "requests": [request]});
    format!("{}\n", json!({"kind": 0, "v": session}))
}

fn gemini_document(id: &str) -> String {
    json!({"sessionId": id, "projectHash": "ab", "startTime": "2026-08-20T09:00:00.000Z",
        "lastUpdated": "2026-08-20T09:00:05.000Z", "messages": [
            {"id": "u1", "timestamp": "2026-08-20T09:00:01.000Z", "type": "user",
             "content": [{"text": "list the files"}]},
            {"id": "g1", "timestamp": "2026-08-20T09:00:03.000Z", "type": "gemini",
             "content": "Here.", "model": "gemini-2.5-pro",
             "tokens": {"input": 100, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 105}}]})
    .to_string()
}

fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_folder_takes_the_files_above_transcripts_first_and_not_an_exports_side_files() {
    let paths = [
        "workspaceStorage/455c/chatSessions/a.jsonl",
        "workspaceStorage/455c/workspace.json",
        ".gemini/projects.json",
        ".gemini/tmp/app/chats/session-1.json",
        ".gemini/settings.json",
        "export/conversations.json",
        "export/projects.json",
        "workspace.json",
    ];
    assert_eq!(
        taken_from_folder(&paths),
        [
            Taken::Yes,
            Taken::First,
            Taken::First,
            Taken::Yes,
            Taken::No,
            Taken::Yes,
            Taken::No,
            // Not in a folder: above nothing, and no transcript.
            Taken::No,
        ]
    );
}

#[test]
fn copilot_chat_sessions_work_in_the_folder_their_workspace_names() {
    let workspace = br#"{"folder":"file:///home/dev/my%20app"}"#;
    let mut analyzer = Analyzer::new();
    // As a host loads a folder: the file above first, then the transcripts in path order.
    analyzer
        .add_file("ws/455c/workspace.json", workspace)
        .unwrap();
    analyzer
        .add_file(
            "ws/455c/chatSessions/a.jsonl",
            copilot_session("a").as_bytes(),
        )
        .unwrap();
    // Another workspace with no `workspace.json`: no folder, never another's.
    analyzer
        .add_file(
            "ws/9f00/chatSessions/b.jsonl",
            copilot_session("b").as_bytes(),
        )
        .unwrap();
    let projects: Vec<(String, Option<String>)> = analyzer
        .conversations()
        .iter()
        .map(|c| (c.id.clone(), c.project.clone()))
        .collect();
    assert_eq!(
        projects,
        [
            ("a".to_owned(), Some("/home/dev/my app".to_owned())),
            ("b".to_owned(), None)
        ]
    );

    // The usage tally a host reads files with: the file above given as a companion.
    let mut tally = UsageTally::new();
    let name = "/h/ws/455c/chatSessions/a.jsonl";
    let mut ingest = tally.ingest(Provider::CopilotChat, name);
    ingest.give_companion("/h/ws/455c/workspace.json", workspace.to_vec());
    let read = ingest.push(copilot_session("a").as_bytes());
    tally.absorb(ingest, read).1.unwrap();
    let rows = tally.finish().0;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].project.as_deref(), Some("/home/dev/my app"));
}

#[test]
fn gemini_projects_are_the_folders_projects_json_names() {
    let registry =
        json!({"projects": {"/home/dev/app": "app", "/home/dev/legacy": "legacy"}}).to_string();
    let hash = sha256("/home/dev/legacy");
    let mut analyzer = Analyzer::new();
    analyzer
        .add_file(".gemini/projects.json", registry.as_bytes())
        .unwrap();
    for (path, id) in [
        (".gemini/tmp/app/chats/session-1.json".to_owned(), "s1"),
        (format!(".gemini/tmp/{hash}/chats/session-2.json"), "s2"),
        (".gemini/tmp/unlisted/chats/session-3.json".to_owned(), "s3"),
    ] {
        analyzer
            .add_file(&path, gemini_document(id).as_bytes())
            .unwrap();
    }
    let projects: Vec<Option<String>> = analyzer
        .conversations()
        .iter()
        .map(|c| c.project.clone())
        .collect();
    assert_eq!(
        projects,
        [
            Some("/home/dev/app".to_owned()),
            Some("/home/dev/legacy".to_owned()),
            // Not listed: its short name, as before.
            Some("unlisted".to_owned())
        ]
    );

    // A streamed log's rows carry the folder from their first line on.
    let mut tally = UsageTally::new();
    let name = "/h/.gemini/tmp/app/chats/session-1.json";
    let mut ingest = tally.ingest(Provider::Gemini, name);
    ingest.give_companion("/h/.gemini/projects.json", registry.into_bytes());
    let read = ingest.push(gemini_document("s1").as_bytes());
    tally.absorb(ingest, read).1.unwrap();
    let rows = tally.finish().0;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].project.as_deref(), Some("/home/dev/app"));
}
