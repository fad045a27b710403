//! Round-trip latency of `start_work_session` + `end_work_session` through `baton mcp` over
//! stdio, fsync off, p50 and p99 over 1,000 pairs (target p99 ≤ 5 ms). Prints figures.
//! Run: `cargo bench -p baton --bench mcp_roundtrip`.

mod common;

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let bin = common::release_baton();
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(&bin)
        .arg("--dir")
        .arg(tmp.path().join(".baton"))
        .arg("--no-fsync")
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut next_id = 0u64;
    let mut rpc = |method: &str, params: Value| -> Value {
        next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
        // One write per request, as a real client sends it.
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        loop {
            let mut text = String::new();
            assert!(stdout.read_line(&mut text).unwrap() > 0);
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["id"] == next_id {
                return value;
            }
        }
    };
    rpc(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}),
    );
    let pair = |rpc: &mut dyn FnMut(&str, Value) -> Value| {
        let started = rpc(
            "tools/call",
            json!({"name": "start_work_session", "arguments": {"project": "bench"}}),
        );
        let id = started["result"]["structuredContent"]["session_id"].clone();
        let ended = rpc(
            "tools/call",
            json!({"name": "end_work_session", "arguments": {"session_id": id}}),
        );
        assert_eq!(ended["result"]["isError"], false, "{ended}");
    };
    for _ in 0..50 {
        pair(&mut rpc);
    }
    const N: usize = 1000;
    let mut times: Vec<Duration> = (0..N)
        .map(|_| {
            let t = Instant::now();
            pair(&mut rpc);
            t.elapsed()
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "start_work_session + end_work_session over stdio, fsync off, {N} pairs: p50 {:.3} ms  p99 {:.3} ms  max {:.3} ms  (target p99 ≤ 5 ms)",
        ms(times[N / 2]),
        ms(times[N * 99 / 100]),
        ms(times[N - 1])
    );
    let _ = child.kill();
    let _ = child.wait();
}
