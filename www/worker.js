// The page's worker: owns the core (wasm), reads files in slices, feeds them to the analyzer
// with progress, and answers the page's questions. The page's thread never parses anything.
import { initSync, Analyzer, version } from "./pkg/baton_web.js";
import { wasmBytes } from "./pkg/wasm-bytes.js";

const wasm = initSync({ module: wasmBytes });
const analyzer = new Analyzer();
const CHUNK = 4 << 20;
let cancelRequested = false;
let loading = Promise.resolve();

const memoryBytes = () => wasm.memory.buffer.byteLength;
const asError = (e) => ({ code: e?.code || "INTERNAL", message: e?.message || String(e), details: e?.details ?? null });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

let lastProgress = 0;
function progress(message, force = false) {
  // At most ~20 updates a second: a folder of thousands of small files must not flood the page.
  const now = performance.now();
  if (!force && now - lastProgress < 50) return;
  lastProgress = now;
  postMessage({ type: "progress", ...message });
}

async function loadFile(file, index, count, batch, firstSlice) {
  const tb = performance.now();
  analyzer.begin(file.webkitRelativePath || file.name);
  timing.begin = (timing.begin || 0) + performance.now() - tb;
  for (let at = 0; at < file.size; at += CHUNK) {
    const slice = at === 0 && firstSlice ? firstSlice
      : file.size <= CHUNK ? file.arrayBuffer() : file.slice(at, at + CHUNK).arrayBuffer();
    const t0 = performance.now();
    const chunk = new Uint8Array(await slice);
    const t1 = performance.now();
    timing.read += t1 - t0;
    if (cancelRequested) return "cancelled";
    analyzer.push(chunk);
    timing.core += performance.now() - t1;
    batch.done += chunk.byteLength;
    progress({ phase: "reading", name: file.name, index, count, done: batch.done, total: batch.total });
  }
  // Archives are unpacked after the last slice: a few MB at a time, with progress.
  const tp = performance.now();
  for (;;) {
    const step = JSON.parse(analyzer.pump(8 << 20));
    if (step.done) break;
    progress({ phase: "unpacking", name: file.name, index, count, done: step.processed, total: step.total });
    await tick();
    if (cancelRequested) return "cancelled";
  }
  const t2 = performance.now();
  timing.pump = (timing.pump || 0) + t2 - tp;
  const summary = JSON.parse(analyzer.finish());
  timing.finish = (timing.finish || 0) + performance.now() - t2;
  return summary;
}

const timing = { read: 0, core: 0 };
async function load(files) {
  timing.read = 0; timing.core = 0; timing.finish = 0;
  cancelRequested = false;
  const started = performance.now();
  const batch = { done: 0, total: files.reduce((n, f) => n + f.size, 0) };
  const added = [];
  const errors = [];
  let cancelled = null;
  // Reading a file is a round trip to the browser: the next files' first slices are read
  // while this one is parsed, so a folder of thousands of small transcripts is not latency-bound.
  const ahead = new Map();
  const prefetch = (i) => {
    if (i >= files.length || ahead.has(i)) return;
    const file = files[i];
    // A small file is read whole: Blob.slice costs a round trip of its own.
    ahead.set(i, file.size <= CHUNK ? file.arrayBuffer() : file.slice(0, CHUNK).arrayBuffer());
  };
  for (const [index, file] of files.entries()) {
    for (let k = index; k < index + 32; k++) prefetch(k);
    const firstSlice = ahead.get(index);
    ahead.delete(index);
    try {
      const summary = await loadFile(file, index, files.length, batch, firstSlice);
      if (summary === "cancelled") {
        analyzer.cancel();
        cancelled = file.name;
        break;
      }
      added.push(summary);
    } catch (e) {
      // The file is dropped whole; everything loaded before it stays.
      analyzer.cancel();
      errors.push({ name: file.name, size: file.size, error: asError(e) });
    }
  }
  postMessage({
    type: "loaded", added, errors, cancelled,
    overview: JSON.parse(analyzer.overview()),
    charts: JSON.parse(analyzer.charts()),
    sessions: JSON.parse(analyzer.sessions()),
    millis: performance.now() - started,
    timing,
    memoryBytes: memoryBytes(),
  });
}

const calls = {
  list: (query) => JSON.parse(analyzer.list(JSON.stringify(query))),
  view: (index, through) => JSON.parse(analyzer.view(index, through ?? undefined)),
  markdown: (index, through) => analyzer.markdown(index, through ?? undefined),
  conversationJson: (index) => analyzer.conversationJson(index),
  allJson: () => analyzer.allJson(),
  allMarkdown: () => analyzer.allMarkdown(),
  timeline: (id) => JSON.parse(analyzer.timeline(id)),
  version: () => JSON.parse(version()).ok.version,
};

onmessage = (event) => {
  const message = event.data;
  if (message.type === "cancel") {
    cancelRequested = true;
  } else if (message.type === "load") {
    loading = loading.then(() => load(message.files));
  } else if (message.type === "call") {
    // Questions wait for loads already queued, so they see the files the page sent first.
    loading.then(() => {
      try {
        postMessage({ type: "reply", id: message.id, ok: calls[message.method](...message.args) });
      } catch (e) {
        postMessage({ type: "reply", id: message.id, error: asError(e) });
      }
    });
  }
};
postMessage({ type: "ready" });
