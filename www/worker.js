// The page's worker: owns the core (wasm), reads files in slices, feeds them to the analyzer
// with progress, and answers the page's questions. The page's thread never parses anything.
import { initSync, Analyzer, version, humanDuration, inputExtensions, chunkBytes, takenFromFolder, renderMarkdown, fileUnreadable } from "./pkg/baton_web.js";
import { wasmBytes } from "./pkg/wasm-bytes.js";

const wasm = initSync({ module: wasmBytes });
const analyzer = new Analyzer();
// The core decides the slice size, so the page and `baton analyze` feed the same chunks.
const CHUNK = chunkBytes();
// A file this size or under is fed in one push.
const SMALL_FILE = 1 << 20;
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

async function loadFile(file, index, count, batch) {
  analyzer.begin(file.webkitRelativePath || file.name);
  for (let at = 0; at < file.size; at += CHUNK) {
    const slice = file.slice(at, at + CHUNK).arrayBuffer();
    const chunk = new Uint8Array(await slice);
    if (cancelRequested) return "cancelled";
    analyzer.push(chunk);
    batch.done += chunk.byteLength;
    progress({ phase: "reading", name: file.name, index, count, done: batch.done, total: batch.total });
  }
  // Archives are unpacked after the last slice: a few MB at a time, with progress.
  for (;;) {
    const step = JSON.parse(analyzer.pump(8 << 20));
    if (step.done) break;
    progress({ phase: "unpacking", name: file.name, index, count, done: step.processed, total: step.total });
    await tick();
    if (cancelRequested) return "cancelled";
  }
  return JSON.parse(analyzer.finish());
}

// The load in progress: begun by "begin-load", fed groups and files, reported at "end-load".
let current = null;

function fail(file, e) {
  // The file is dropped whole; everything loaded before it stays. A file the browser could
  // not read (moved, deleted) is named as such, in the core's words.
  analyzer.cancel();
  const error = e instanceof DOMException ? JSON.parse(fileUnreadable(file.name, `${e.name}: ${e.message}`)) : asError(e);
  current.errors.push({ name: file.name, size: file.size, error });
}

function beginLoad(message) {
  cancelRequested = false;
  reading = null;
  current = {
    started: performance.now(), added: [], errors: [], cancelled: null, index: 0, parseMs: 0,
    count: message.count, batch: { done: 0, total: message.total },
  };
}

/** Small files whose bytes the page read together. */
function loadGroup({ names, sizes, bytes }) {
  const all = new Uint8Array(bytes);
  let at = 0;
  for (const [i, name] of names.entries()) {
    if (cancelRequested) {
      current.cancelled ??= name;
      break;
    }
    const file = { name, size: sizes[i] };
    const began = performance.now();
    try {
      analyzer.begin(name);
      analyzer.push(all.subarray(at, at + sizes[i]));
      // finish unpacks a small archive itself.
      current.added.push(JSON.parse(analyzer.finish()));
    } catch (e) {
      fail(file, e);
    }
    current.parseMs += performance.now() - began;
    at += sizes[i];
    current.batch.done += sizes[i];
    current.index += 1;
  }
  progress({ phase: "reading", name: names[names.length - 1], index: current.index - 1, count: current.count, ...current.batch });
  postMessage({ type: "ack" });
}

/** Whole files the page read (many of them, sizes never asked): small ones fed at once, large
 * ones a slice at a time with progress, archives unpacked a few MB at a time. */
async function loadBuffers({ names, buffers, unreadable }) {
  for (const [i, name] of names.entries()) {
    if (cancelRequested) {
      current.cancelled ??= name;
      break;
    }
    const buffer = buffers[i];
    if (!buffer) {
      current.errors.push({ name, size: null, error: JSON.parse(fileUnreadable(name, unreadable[i])) });
      current.index += 1;
      continue;
    }
    const bytes = new Uint8Array(buffer);
    const file = { name, size: bytes.byteLength };
    const began = performance.now();
    try {
      let summary;
      if (bytes.byteLength <= SMALL_FILE) {
        analyzer.begin(name);
        analyzer.push(bytes);
        summary = JSON.parse(analyzer.finish());
        current.batch.done += bytes.byteLength;
      } else {
        // The same slices and progress as a large file read from disk (it counts its bytes).
        const inMemory = { name, size: bytes.byteLength, slice: (from, to) => ({ arrayBuffer: async () => bytes.subarray(from, to) }) };
        summary = await loadFile(inMemory, current.index, current.count, current.batch);
      }
      if (summary === "cancelled") {
        analyzer.cancel();
        current.cancelled ??= name;
      } else {
        current.added.push(summary);
      }
    } catch (e) {
      fail(file, e);
    }
    current.parseMs += performance.now() - began;
    current.index += 1;
  }
  progress({ phase: "reading", name: names[names.length - 1], index: current.index - 1, count: current.count, ...current.batch });
  postMessage({ type: "ack" });
}

async function loadLarge(file) {
  if (cancelRequested) {
    current.cancelled ??= file.name;
    postMessage({ type: "ack" });
    return;
  }
  try {
    const summary = await loadFile(file, current.index, current.count, current.batch);
    if (summary === "cancelled") {
      analyzer.cancel();
      current.cancelled ??= file.name;
    } else {
      current.added.push(summary);
    }
  } catch (e) {
    fail(file, e);
  }
  current.index += 1;
  postMessage({ type: "ack" });
}

/** The work-session overview, each duration worded by the core as the CLI words it. */
function workOverview() {
  const work = JSON.parse(analyzer.workOverview());
  for (const s of work.sessions) s.duration_text = s.duration_seconds == null ? "—" : humanDuration(s.duration_seconds);
  return work;
}

function endLoad({ width }) {
  const { added, errors, cancelled, started, parseMs } = current;
  const reportStarted = performance.now();
  // A tree of files loaded last (OpenCode's storage folder) is read whole now.
  analyzer.settle();
  const { overview, charts } = JSON.parse(analyzer.report(width));
  const work = workOverview();
  postMessage({
    type: "loaded", added, errors, cancelled, overview, charts, width, work,
    // Where the time went: in the core on small files, and drawing the report.
    parseMs, reportMs: performance.now() - reportStarted, beganAt: performance.timeOrigin + started,
    millis: performance.now() - started,
    memoryBytes: memoryBytes(),
  });
  current = null;
}

/** Messages with each text block's Markdown rendered by the core as safe HTML. */
function withHtml(messages) {
  for (const message of messages) {
    for (const block of message.blocks || []) {
      if (block.type === "text") block.html = renderMarkdown(block.text);
    }
  }
  return messages;
}

// The branch being read, kept while the page asks for it a slice at a time: a long
// conversation's first screen is drawn before the rest is rendered.
let reading = null;
function viewSlice(index, through, from = 0, count = Number.MAX_SAFE_INTEGER) {
  const key = `${index} ${through ?? ""}`;
  if (reading?.key !== key) reading = { key, view: JSON.parse(analyzer.view(index, through ?? undefined)) };
  const { view } = reading;
  return { ...view, shown_messages: view.messages.length, from, messages: withHtml(view.messages.slice(from, from + count)) };
}

const calls = {
  list: (query) => JSON.parse(analyzer.list(JSON.stringify(query))),
  view: viewSlice,
  markdown: (index, through) => analyzer.markdown(index, through ?? undefined),
  conversationJson: (index) => analyzer.conversationJson(index),
  allJson: () => analyzer.allJson(),
  allMarkdown: () => analyzer.allMarkdown(),
  timeline: (id) => JSON.parse(analyzer.timeline(id)),
  charts: (width) => JSON.parse(analyzer.charts(width)),
  usage: (group) => JSON.parse(analyzer.usage(group)),
  usageCsv: (group) => analyzer.usageCsv(group),
  windows: (now) => JSON.parse(analyzer.windows(now)),
  windowsCsv: (now) => analyzer.windowsCsv(now),
  sharePreview: (index, through, options) => analyzer.sharePreview(index, through ?? undefined, options),
  shareHtml: (index, through, options) => analyzer.shareHtml(index, through ?? undefined, options),
  workOverview,
  version: () => JSON.parse(version()).ok.version,
  takenFromFolder: (paths) => Array.from(takenFromFolder(paths)),
};

onmessage = (event) => {
  const message = event.data;
  if (message.type === "cancel") {
    cancelRequested = true;
  } else if (message.type === "begin-load") {
    loading = loading.then(() => beginLoad(message));
  } else if (message.type === "group") {
    loading = loading.then(() => loadGroup(message));
  } else if (message.type === "buffers") {
    loading = loading.then(() => loadBuffers(message));
  } else if (message.type === "file") {
    loading = loading.then(() => loadLarge(message.file));
  } else if (message.type === "end-load") {
    loading = loading.then(() => endLoad(message));
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
postMessage({ type: "ready", extensions: inputExtensions() });
