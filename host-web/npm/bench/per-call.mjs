// The baton-core npm package in Node: per-call overhead (`version`) and fold throughput on the
// same ledger as `cargo bench -p baton --bench abi_engines` (5,000 sessions, 15,000 lines), so
// the three engines compare. Needs host-web/npm/build.sh first. Prints one JSON object.
import { createRequire } from "node:module";
import { join } from "node:path";
import { packageDir, requirePackage } from "../tests/vectors.mjs";

requirePackage();
const baton = createRequire(import.meta.url)(join(packageDir, "index.cjs"));

function ledger(sessions) {
  const hex = (n) => n.toString(16).padStart(12, "0");
  const two = (n) => String(n).padStart(2, "0");
  let text = "";
  for (let i = 0; i < sessions; i++) {
    const session = `019c0000-0000-7000-8000-${hex(0x100000 + i)}`;
    const minute = i % 60, hour = 8 + (Math.floor(i / 60) % 12), day = 1 + (Math.floor(i / 720) % 28);
    const events = [
      ["started", `{"project":"demo","agent":"claude","client_name":"claude-code","goal":"Task number ${i}: make the list searchable"}`],
      ["resumed", `{"client_name":"claude-code"}`],
      ["ended", `{"outcome":"complete","summary":"done, tests pass"}`],
    ];
    events.forEach(([kind, data], n) => {
      text += `{"v":1,"id":"019c0000-0000-7000-8000-${hex(i * 3 + n)}","session":"${session}","kind":"${kind}","at":"2026-07-${two(day)}T${two(hour)}:${two(minute)}:${two(n * 10)}.000Z","actor":{"kind":"agent","name":"claude"},"data":${data}}\n`;
    });
  }
  return text;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const version = JSON.stringify({ op: "version" });
for (let i = 0; i < 2_000; i++) baton.handleJson(version);
const calls = 20_000;
let start = process.hrtime.bigint();
for (let i = 0; i < calls; i++) baton.handleJson(version);
const perCallMicros = Number(process.hrtime.bigint() - start) / 1e3 / calls;

const text = ledger(5_000);
const request = JSON.stringify({ op: "fold", ledger: text });
const answer = JSON.parse(baton.handleJson(request));
if (!answer.ok || answer.ok.sessions.length !== 5_000) throw new Error("the fold did not see 5,000 sessions");
baton.handleJson(request);
const runs = [];
for (let i = 0; i < 20; i++) {
  start = process.hrtime.bigint();
  baton.handleJson(request);
  runs.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const foldMillis = median(runs);
console.log(JSON.stringify({
  engine: `node ${process.version}`,
  per_call_version_us: Number(perCallMicros.toFixed(2)),
  fold_5000_sessions_ms: Number(foldMillis.toFixed(2)),
  fold_mib_per_s: Number((text.length / 1048576 / (foldMillis / 1000)).toFixed(1)),
  ledger_bytes: text.length,
}));
