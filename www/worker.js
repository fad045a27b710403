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

async function loadFile(file, index, count, batch) {
  analyzer.begin(file.webkitRelativePath || file.name);
  for (let at = 0; at < file.size; at += CHUNK) {
    const chunk = new Uint8Array(await file.slice(at, at + CHUNK).arrayBuffer());
    if (cancelRequested) return "cancelled";
    analyzer.push(chunk);
    batch.done += chunk.byteLength;
    postMessage({ type: "progress", phase: "reading", name: file.name, index, count, done: batch.done, total: batch.total });
  }
  // Archives are unpacked after the last slice: a few MB at a time, with progress.
  for (;;) {
    const step = JSON.parse(analyzer.pump(8 << 20));
    if (step.done) break;
    postMessage({ type: "progress", phase: "unpacking", name: file.name, index, count, done: step.processed, total: step.total });
    await tick();
    if (cancelRequested) return "cancelled";
  }
  return JSON.parse(analyzer.finish());
}

async function load(files) {
  cancelRequested = false;
  const started = performance.now();
  const batch = { done: 0, total: files.reduce((n, f) => n + f.size, 0) };
  const added = [];
  const errors = [];
  let cancelled = null;
  for (const [index, file] of files.entries()) {
    try {
      const summary = await loadFile(file, index, files.length, batch);
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
