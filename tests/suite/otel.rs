//! The agents' own telemetry beside their transcripts, end to end through the `baton` binary:
//! a generated Claude Code transcript mirrored, and a telemetry file of the same session with
//! planted differences imported (`otel import`). `usage --check` reports exactly those
//! differences with their likely causes; `usage --source telemetry` counts what was reported.

use baton_tests::{assert_success, baton, json_of};
use serde_json::{Value, json};

const SESSION: &str = "0c0c0c0c-0000-4000-8000-000000000001";

/// A Claude Code response line: `input`, `output` and `read` tokens of claude-sonnet-4-5 at
/// minute `minute` past 10:00 on 2026-12-01.
fn response(n: u32, minute: u32, input: u64, output: u64, read: u64) -> String {
    json!({"type": "assistant", "sessionId": SESSION, "cwd": "/work/app",
        "uuid": format!("a{n}"), "parentUuid": null,
        "timestamp": format!("2026-12-01T10:{minute:02}:00.000Z"), "requestId": format!("req_{n}"),
        "message": {"id": format!("msg_{n}"), "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": input, "output_tokens": output,
                "cache_read_input_tokens": read, "cache_creation_input_tokens": 0}}})
    .to_string()
}

/// One `api_request` as Claude Code's exporter writes it, as an OTLP JSON export request.
fn reported(n: u32, minute: u32, input: u64, output: u64, read: u64, cost: Option<f64>) -> String {
    reported_as(n, minute, input, output, read, cost, None)
}

/// The same, naming the request's id as Claude Code's `request_id` attribute.
fn reported_as(
    n: u32,
    minute: u32,
    input: u64,
    output: u64,
    read: u64,
    cost: Option<f64>,
    request: Option<&str>,
) -> String {
    let mut attributes = vec![
        json!({"key": "event.name", "value": {"stringValue": "api_request"}}),
        json!({"key": "session.id", "value": {"stringValue": SESSION}}),
        json!({"key": "prompt.id", "value": {"stringValue": format!("p{n}")}}),
        json!({"key": "event.sequence", "value": {"intValue": "1"}}),
        json!({"key": "model", "value": {"stringValue": "claude-sonnet-4-5-20250929"}}),
        json!({"key": "input_tokens", "value": {"intValue": input.to_string()}}),
        json!({"key": "output_tokens", "value": {"intValue": output.to_string()}}),
        json!({"key": "cache_read_tokens", "value": {"intValue": read.to_string()}}),
        json!({"key": "cache_creation_tokens", "value": {"intValue": "0"}}),
    ];
    if let Some(cost) = cost {
        attributes.push(json!({"key": "cost_usd", "value": {"doubleValue": cost}}));
    }
    if let Some(request) = request {
        attributes.push(json!({"key": "request_id", "value": {"stringValue": request}}));
    }
    let nanos = 1_796_119_200_000_000_000u64 + u64::from(minute) * 60_000_000_000 + 4_000_000_000;
    json!({"resourceLogs": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]},
        "scopeLogs": [{"logRecords": [{"timeUnixNano": nanos.to_string(),
            "body": {"stringValue": "claude_code.api_request"}, "attributes": attributes}]}]}]})
    .to_string()
}

fn run(ledger: &std::path::Path, args: &[&str]) -> Value {
    let out = baton(ledger).arg("--json").args(args).output().unwrap();
    assert_success(&out, format_args!("{args:?}"));
    json_of(&out)
}

#[test]
fn check_reports_exactly_the_planted_differences() {
    let tmp = tempfile::tempdir().unwrap();
    let ledger = tmp.path().join(".baton");
    let folder = tmp.path().join("claude/-work-app");
    std::fs::create_dir_all(&folder).unwrap();
    // 1 agrees; 2 was written mid-stream (50 of 200 output tokens); 3 is priced $0.015 by
    // Baton's table (1,000 output tokens at $15 a million) and reported at $0.020; 5 was
    // never reported; 4 (reported) has no transcript response. 6 and 7 have the same input
    // side and were reported in the other order, a minute apart: by time they would cross
    // (two token differences); their request ids pair them as they are.
    let lines = [
        response(1, 0, 10, 100, 1000),
        response(2, 2, 20, 50, 2000),
        response(3, 4, 0, 1000, 0),
        response(5, 5, 40, 10, 0),
        response(6, 8, 7, 11, 700),
        response(7, 9, 7, 77, 700),
    ];
    std::fs::write(
        folder.join(format!("{SESSION}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let claude = tmp.path().join("claude");
    let mirrored = baton(&ledger)
        .args(baton_tests::mirror_only(claude.to_str().unwrap()))
        .output()
        .unwrap();
    assert_success(&mirrored, format_args!("mirror"));
    let telemetry = [
        reported(1, 0, 10, 100, 1000, None),
        reported(2, 2, 20, 200, 2000, None),
        reported(3, 4, 0, 1000, 0, Some(0.020)),
        reported(4, 6, 30, 30, 0, Some(0.001)),
        reported_as(7, 8, 7, 77, 700, Some(0.001386), Some("req_7")),
        reported_as(6, 9, 7, 11, 700, Some(0.000396), Some("req_6")),
    ];
    // Two files, as Copilot's file export leaves one per run, and a line that is no telemetry.
    let first = tmp.path().join("run-1.jsonl");
    let second = tmp.path().join("run-2.jsonl");
    std::fs::write(&first, telemetry[..3].join("\n") + "\nnot json\n").unwrap();
    std::fs::write(&second, telemetry[3..].join("\n") + "\n").unwrap();
    let files = [first.to_str().unwrap(), second.to_str().unwrap()];
    let imported = run(&ledger, &["otel", "import", files[0], files[1]]);
    assert_eq!(
        (imported["requests"].as_u64(), imported["new"].as_u64()),
        (Some(6), Some(6))
    );
    assert_eq!(
        imported["unread_lines"],
        json!([{"file": files[0], "line": 4}])
    );
    // Imported again: nothing new.
    let again = run(&ledger, &["otel", "import", files[0], files[1]]);
    assert_eq!(again["new"].as_u64(), Some(0));

    let check = run(&ledger, &["usage", "--check"]);
    assert_eq!(check["reported"], 6);
    assert_eq!(check["matched"], 5);
    let differences = check["differences"].as_array().unwrap();
    let kinds: Vec<&str> = differences
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "tokens_differ",
            "cost_differs",
            "missing_in_telemetry",
            "missing_in_transcripts"
        ],
        "{check:#}"
    );
    assert!(
        differences[0]["likely"]
            .as_str()
            .unwrap()
            .contains("partial")
    );
    let cost = &differences[1];
    assert_eq!(cost["reported"]["cost_usd"], 0.02);
    let priced = cost["transcript"]["cost_usd"].as_f64().unwrap();
    assert!((priced - 0.015).abs() < 1e-9, "{priced}");
    assert!(
        cost["detail"].as_str().unwrap().contains("-0.0050"),
        "{cost}"
    );
    assert_eq!(differences[2]["transcript"]["tokens"]["input_tokens"], 40);
    assert_eq!(differences[3]["reported"]["key"], "claude_code:prompt:p4#1");

    // The people's view says the same.
    let human = baton(&ledger).args(["usage", "--check"]).output().unwrap();
    assert_success(&human, format_args!("usage --check"));
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("4 difference(s)"), "{text}");

    // What the agents reported, as a report: their own costs where they gave one.
    let report = run(&ledger, &["usage", "daily", "--source", "telemetry"]);
    let totals = &report["totals"];
    assert_eq!(
        totals["output_tokens"].as_u64(),
        Some(100 + 200 + 1000 + 30 + 77 + 11)
    );
    assert_eq!(report["rows"].as_array().unwrap().len(), 1);

    // A work session of that agent session: `show` gives what its agent reported beside what
    // the transcripts cost, the figure `usage session --work --source telemetry` gives it.
    let started = run(
        &ledger,
        &[
            "start",
            "--project",
            "app",
            "--agent",
            "claude",
            "--provider-session-id",
            SESSION,
        ],
    );
    let id = started["session_id"].as_str().unwrap();
    let shown = run(&ledger, &["show", id]);
    let said = shown["reported_cost"]["cost_usd"].as_f64().unwrap();
    let by_work = run(
        &ledger,
        &["usage", "session", "--work", "--source", "telemetry"],
    );
    // One work session, named as `list` names it.
    let rows = by_work["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{by_work:#}");
    let row = &rows[0];
    assert!(
        row["key"].as_str().unwrap().contains(&id[id.len() - 8..]),
        "{row}"
    );
    assert!((row["cost_usd"].as_f64().unwrap() - said).abs() < 1e-9);
    // Baton's prices for the two it did not price (1 and 2), the agent's own for the rest.
    let expected = 0.00183 + 0.00366 + 0.020 + 0.001 + 0.001386 + 0.000396;
    assert!((said - expected).abs() < 1e-6, "{said} vs {expected}");
    assert_eq!(
        shown["reported_cost"]["total_tokens"].as_u64(),
        totals["total_tokens"].as_u64()
    );
    let human = baton(&ledger).args(["show", id]).output().unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains(&format!("reported cost  ${said:.2}")),
        "{text}"
    );
}
