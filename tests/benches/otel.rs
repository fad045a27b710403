//! `baton otel` at the limit, whole processes: the receiver fed 100,000 Claude Code
//! `api_request` log records (protobuf, 200 requests of 500, two keep-alive connections at
//! once), its rate and its peak memory; and `baton otel export` of a ledger of 10,000 ended
//! work sessions to a receiver in this process, every fifth with a Claude Code transcript
//! tied to it (4 prompts, 8 requests, 4 tool calls: turns, chat and tool spans). Targets:
//! ≥ 5,000 records/s with ≤ 100 MB; 10,000 sessions exported in ≤ 10 s. Run:
//! `cargo bench -p baton-tests --bench otel`.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BATCHES: usize = 200;
const PER_BATCH: usize = 500;

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

/// Batch `b` of Claude Code's `api_request` records, each of its own prompt.
fn batch(b: usize) -> Vec<u8> {
    use any_value::Value::{DoubleValue, IntValue, StringValue};
    let records = (0..PER_BATCH)
        .map(|n| {
            let i = b * PER_BATCH + n;
            LogRecord {
                time_unix_nano: 1_796_119_200_000_000_000 + i as u64 * 1_000_000_000,
                body: Some(AnyValue {
                    value: Some(StringValue("claude_code.api_request".to_owned())),
                }),
                attributes: vec![
                    kv("event.name", StringValue("api_request".to_owned())),
                    kv("session.id", StringValue(format!("session-{}", i / 1000))),
                    kv("prompt.id", StringValue(format!("prompt-{i}"))),
                    kv("event.sequence", IntValue(1)),
                    kv(
                        "model",
                        StringValue("claude-sonnet-4-5-20250929".to_owned()),
                    ),
                    kv("input_tokens", IntValue(100 + (i % 50) as i64)),
                    kv("output_tokens", IntValue(10 + (i % 7) as i64)),
                    kv("cache_read_tokens", IntValue(1000)),
                    kv("cache_creation_tokens", IntValue(0)),
                    kv("cost_usd", DoubleValue(0.001)),
                    kv("duration_ms", IntValue(900)),
                ],
                ..Default::default()
            }
        })
        .collect();
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: vec![kv("service.name", StringValue("claude-code".to_owned()))],
                ..Default::default()
            }),
            scope_logs: vec![ScopeLogs {
                log_records: records,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

/// Posts `bodies` over one keep-alive connection, each answer read before the next is sent.
fn send(address: &str, bodies: &[Vec<u8>]) {
    let stream = TcpStream::connect(address).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    for body in bodies {
        write!(
            writer,
            "POST /v1/logs HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/x-protobuf\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .unwrap();
        writer.write_all(body).unwrap();
        let mut status = String::new();
        reader.read_line(&mut status).unwrap();
        assert!(status.contains(" 200 "), "{status}");
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = v.trim().parse().unwrap();
            }
        }
        let mut rest = vec![0; length];
        reader.read_exact(&mut rest).unwrap();
    }
}

/// The transcript of work session `n` (started at `start` ms): four prompts, each answered by
/// a tool call, its result and a last answer.
fn transcript(n: u64, start: i64) -> String {
    let at = |ms: i64| baton_core::Timestamp::from_millis(start + ms).to_string();
    let session = format!("0b0b0b0b-0000-4000-8000-{n:012}");
    let mut out = String::new();
    let mut line = |value: serde_json::Value| {
        out.push_str(&value.to_string());
        out.push('\n');
    };
    for turn in 0..4i64 {
        let t = 2_000 + turn * 12_000;
        let usage = |output: u64| {
            serde_json::json!({"input_tokens": 40, "output_tokens": output,
                "cache_read_input_tokens": 12_000, "cache_creation_input_tokens": 300})
        };
        line(
            serde_json::json!({"type": "user", "sessionId": session, "cwd": "/work/load",
            "uuid": format!("u{turn}"), "timestamp": at(t),
            "message": {"role": "user", "content": format!("Step {turn}: run the tests and fix what fails")}}),
        );
        line(
            serde_json::json!({"type": "assistant", "sessionId": session, "cwd": "/work/load",
            "uuid": format!("a{turn}"), "timestamp": at(t + 3_000), "requestId": format!("req_{n}_{turn}a"),
            "message": {"id": format!("msg_{n}_{turn}a"), "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "usage": usage(80),
                "content": [{"type": "tool_use", "id": format!("toolu_{n}_{turn}"), "name": "Bash",
                    "input": {"command": "cargo test"}}]}}),
        );
        line(
            serde_json::json!({"type": "user", "sessionId": session, "cwd": "/work/load",
            "uuid": format!("r{turn}"), "timestamp": at(t + 6_000),
            "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("toolu_{n}_{turn}"), "content": "test result: ok"}]}}),
        );
        line(
            serde_json::json!({"type": "assistant", "sessionId": session, "cwd": "/work/load",
            "uuid": format!("b{turn}"), "timestamp": at(t + 9_000), "requestId": format!("req_{n}_{turn}b"),
            "message": {"id": format!("msg_{n}_{turn}b"), "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "usage": usage(200),
                "content": [{"type": "text", "text": "All tests pass now."}]}}),
        );
    }
    out
}

fn baton(baton: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(baton);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("BATON_DIR", home.join(".baton"))
        .env("BATON_FSYNC", "0")
        .env("BATON_INDEX", home.join("index.sqlite"))
        .env("XDG_DATA_HOME", home.join("user-data"));
    cmd
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let release = baton_tests::bench::release_baton();
    let tmp = tempfile::tempdir().unwrap();

    // The receiver.
    let home = tmp.path().join("receiver");
    std::fs::create_dir_all(&home).unwrap();
    let mut serve = baton(&release, &home)
        .args(["otel", "serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    let address = ready
        .split("http://")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap()
        .to_owned();
    let bodies: Vec<Vec<u8>> = (0..BATCHES).map(batch).collect();
    let megabytes = bodies.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    let begun = Instant::now();
    std::thread::scope(|scope| {
        for half in bodies.chunks(BATCHES / 2) {
            let address = address.clone();
            scope.spawn(move || send(&address, half));
        }
    });
    let took = begun.elapsed();
    let records = BATCHES * PER_BATCH;
    let peak = baton_tests::bench::peak_mb(serve.id());
    // SAFETY: signals our own child.
    unsafe {
        libc::kill(serve.id() as libc::pid_t, libc::SIGTERM);
    }
    serve.wait().unwrap();
    let status = baton(&release, &home)
        .args(["--json", "otel", "status"])
        .output()
        .unwrap();
    let kept: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
    let requests: i64 = kept["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["requests"].as_i64().unwrap())
        .sum();
    assert_eq!(requests, records as i64, "every record kept once");
    println!(
        "receiver: {records} api_request records ({megabytes:.1} MB of protobuf, {BATCHES} requests) kept in {:.2} s: {:.0} records/s, peak {peak:.0} MB (target ≥ 5,000 records/s, ≤ 100 MB)",
        took.as_secs_f64(),
        records as f64 / took.as_secs_f64()
    );

    // The export.
    let home = tmp.path().join("export");
    let ledger = home.join(".baton");
    std::fs::create_dir_all(&ledger).unwrap();
    let written = Command::new(env!("CARGO_BIN_EXE_ledger-writer"))
        .arg(&ledger)
        .arg("10000")
        .arg("--ended")
        .args(["--tied-every", "5"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(written.success());
    // Every fifth session's transcript, kept by the mirror as it would be in use.
    let claude = home.join("claude/-work-load");
    std::fs::create_dir_all(&claude).unwrap();
    for n in (0..10_000u64).step_by(5) {
        std::fs::write(
            claude.join(format!("0b0b0b0b-0000-4000-8000-{n:012}.jsonl")),
            transcript(n, 1_780_000_000_000 + n as i64 * 60_000),
        )
        .unwrap();
    }
    let mirrored = baton(&release, &home)
        .args(baton_tests::mirror_only(
            home.join("claude").to_str().unwrap(),
        ))
        .output()
        .unwrap();
    assert!(
        mirrored.status.success(),
        "{}",
        String::from_utf8_lossy(&mirrored.stderr)
    );
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let received = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    {
        let received = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let received = received.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut writer = stream;
                    loop {
                        let mut line = String::new();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let mut length = 0;
                        loop {
                            let mut header = String::new();
                            reader.read_line(&mut header).unwrap();
                            if header == "\r\n" {
                                break;
                            }
                            if let Some(v) =
                                header.to_ascii_lowercase().strip_prefix("content-length:")
                            {
                                length = v.trim().parse().unwrap();
                            }
                        }
                        let mut body = vec![0; length];
                        reader.read_exact(&mut body).unwrap();
                        received.fetch_add(body.len(), std::sync::atomic::Ordering::SeqCst);
                        writer
                            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                            .unwrap();
                    }
                });
            }
        });
    }
    // The ledger read once, as it would be in use.
    baton(&release, &home).arg("list").output().unwrap();
    let begun = Instant::now();
    let out = baton(&release, &home)
        .args(["--json", "otel", "export", "--endpoint", &endpoint])
        .output()
        .unwrap();
    let took = begun.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let exported: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(exported["sessions"], 10_000);
    // Each tied session: its own span, 4 turns, 8 requests and 4 tool calls.
    assert_eq!(exported["spans"], 10_000 + 2_000 * 16, "{exported}");
    std::thread::sleep(Duration::from_millis(100));
    println!(
        "export: 10,000 ended work sessions, 2,000 with a transcript ({} spans, {:.1} MB sent) in {:.2} s (target ≤ 10 s)",
        exported["spans"],
        received.load(std::sync::atomic::Ordering::SeqCst) as f64 / 1e6,
        took.as_secs_f64()
    );
}
