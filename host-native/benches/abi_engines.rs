//! The core answering through each engine a Rust host has: a native call, and its `.wasm`
//! through the wasmtime host (fuel metered, as editors get it). Per-call overhead (`version`)
//! and fold throughput on a ledger of 5,000 sessions (15,000 lines); the target is wasm within
//! 2× of native. The Node package's figures: `cd host-web/npm && npm run bench`, same ledger.
//!
//! Needs `cargo build -p baton-core --target wasm32-unknown-unknown --release` first.

use baton::ops::wasm_core::WasmCore;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

/// The benchmark ledger, line for line what `host-web/npm/bench/per-call.mjs` builds: each
/// session started, resumed and ended.
fn ledger(sessions: u64) -> String {
    let mut text = String::new();
    for i in 0..sessions {
        let session = format!("019c0000-0000-7000-8000-{:012x}", 0x10_0000 + i);
        let minute = i % 60;
        let hour = 8 + (i / 60) % 12;
        let day = 1 + (i / 720) % 28;
        for (n, (kind, data)) in [
            ("started", format!(r#"{{"project":"demo","agent":"claude","client_name":"claude-code","goal":"Task number {i}: make the list searchable"}}"#)),
            ("resumed", r#"{"client_name":"claude-code"}"#.to_owned()),
            ("ended", r#"{"outcome":"complete","summary":"done, tests pass"}"#.to_owned()),
        ]
        .into_iter()
        .enumerate()
        {
            text.push_str(&format!(
                r#"{{"v":1,"id":"019c0000-0000-7000-8000-{:012x}","session":"{session}","kind":"{kind}","at":"2026-07-{day:02}T{hour:02}:{minute:02}:{:02}.000Z","actor":{{"kind":"agent","name":"claude"}},"data":{data}}}"#,
                i * 3 + n as u64,
                n * 10
            ));
            text.push('\n');
        }
    }
    text
}

fn core_wasm() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/wasm32-unknown-unknown/release/baton_core.wasm"
    );
    std::fs::read(path).unwrap_or_else(|e| {
        panic!("{path}: {e}: run `cargo build -p baton-core --target wasm32-unknown-unknown --release` first")
    })
}

fn bench(c: &mut Criterion) {
    let mut wasm = WasmCore::load(&core_wasm()).expect("the core's .wasm loads");
    wasm.set_fuel_per_call(u64::MAX / 4);

    let mut per_call = c.benchmark_group("abi_per_call");
    let version = r#"{"op":"version"}"#;
    per_call.bench_function("native", |b| {
        b.iter(|| black_box(baton_core::abi::handle_json(black_box(version))))
    });
    per_call.bench_function("wasmtime", |b| {
        b.iter(|| black_box(wasm.call(black_box(version)).unwrap()))
    });
    per_call.finish();

    let text = ledger(5_000);
    let request = serde_json::json!({ "op": "fold", "ledger": text }).to_string();
    assert_eq!(
        baton_core::abi::handle_json(&request),
        wasm.call(&request).unwrap(),
        "the engines must agree before they are timed"
    );
    let mut fold = c.benchmark_group("abi_fold_5000_sessions");
    fold.throughput(Throughput::Bytes(text.len() as u64));
    fold.sample_size(20);
    fold.bench_function("native", |b| {
        b.iter(|| black_box(baton_core::abi::handle_json(black_box(&request))))
    });
    fold.bench_function("wasmtime", |b| {
        b.iter(|| black_box(wasm.call(black_box(&request)).unwrap()))
    });
    fold.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
