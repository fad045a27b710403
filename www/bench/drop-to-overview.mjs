// Benchmark (prints figures; not a test): time from handing files to the page's file input
// to the rendered overview, in Debian's headless Chromium, for a generated ~100 MB ChatGPT
// export and ~100 MB of Claude Code JSONL; and the wasm memory the worker ends with (wasm
// memory only grows, so that is its peak). Targets: ≤ 3 s each, memory ≤ 2× the input. Then
// the time from a click on a 5,000-message conversation to its branch drawn in the reader
// (target ≤ 200 ms). Run: `npm run bench` in www/ (after ./run setup, www/build.sh and a
// release build); BATON_BENCH_ONLY=tiny (or any part of a label) runs the matching cases.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const bin = process.env.BATON_BIN_DIR || join(root, "target/release");
const mb = Number(process.env.BATON_BENCH_MB || 100);
const runs = Number(process.env.BATON_BENCH_RUNS || 3);
const tmp = mkdtempSync(join(tmpdir(), "baton-bench-"));
const only = (process.env.BATON_BENCH_ONLY || "").toLowerCase();
const wanted = (label) => !only || label.toLowerCase().includes(only);

const wantsChatgpt = wanted("ChatGPT export") || wanted("The same ChatGPT export as its .zip");
if (wantsChatgpt) execFileSync(join(bin, "transcript-gen"), [tmp, "--chatgpt-mb", String(mb)], { stdio: "inherit" });
/** About `mb` MB of Claude Code session files from a generated tree (`--responses` sets
 * their size: 600 gives files like real working sessions, ~200 KB; 8 gives thousands of
 * tiny ones). */
function claudeFiles(name, responses) {
  const dir = join(tmp, name);
  execFileSync(join(bin, "transcript-gen"), [dir, "--mb", String(Math.round(mb * 2.2)), "--responses", String(responses)], { stdio: "inherit" });
  const jsonl = readdirSync(join(dir, "claude"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath ?? e.path, e.name)).sort();
  const picked = [];
  let bytes = 0;
  for (const f of jsonl) {
    if (bytes >= mb * 1e6) break;
    picked.push(f);
    bytes += statSync(f).size;
  }
  return picked;
}
const claude = wanted("Claude Code JSONL, session-sized files") ? claudeFiles("sessions", 600) : [];
const tiny = wanted("Claude Code JSONL, thousands of tiny files") ? claudeFiles("tiny", 8) : [];
const chatgpt = [join(tmp, "chatgpt-big/conversations.json")];
// The same export zipped, as ChatGPT mails it.
const zipped = join(tmp, "chatgpt-export.zip");
if (wantsChatgpt) execFileSync("python3", ["-c", "import zipfile,sys\nz=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\nz.write(sys.argv[2],'conversations.json')\nz.close()", zipped, chatgpt[0]]);

// BATON_BENCH_URL measures a page served elsewhere (say, www/ while working on it).
const server = process.env.BATON_BENCH_URL ? null
  : spawn(join(bin, "baton"), ["--json", "web", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = process.env.BATON_BENCH_URL
  || await new Promise((ok) => server.stdout.once("data", (c) => ok(JSON.parse(c.toString().split("\n")[0]).serving)));
const browser = await chromium.launchPersistentContext(join(tmp, "profile"), {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
});

/** A fresh page with `files` chosen and their overview drawn. */
async function loadedPage(files) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  await page.setInputFiles("#file", files);
  await page.waitForSelector("body[data-state=ready]", { timeout: 120000 });
  return page;
}

async function measure(label, files, inflated = null) {
  if (!wanted(label)) return;
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  const basis = inflated ?? bytes;
  const times = [];
  let memory = 0, conversations = 0;
  for (let i = 0; i < runs; i++) {
    const page = await loadedPage(files);
    times.push(Number(await page.getAttribute("body", "data-load-ms")));
    const part = async (name) => Math.round(Number(await page.getAttribute("body", `data-${name}-ms`)));
    if (process.env.BATON_BENCH_PARTS) console.log(`  worker ${await part("worker")} ms: small files in the core ${await part("parse")} ms, report ${await part("report")} ms; the worker began at ${await part("began")} ms and answered at ${await part("answered")} ms`);
    memory = Number(await page.getAttribute("body", "data-wasm-memory"));
    conversations = JSON.parse(await page.getAttribute("#overview", "data-json")).conversations;
    await page.close();
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: ${(bytes / 1e6).toFixed(1)} MB in ${files.length} file(s), ${conversations} conversations — ` +
    `drop to overview median ${(times[Math.floor(times.length / 2)] / 1000).toFixed(2)} s (runs: ${times.map((t) => (t / 1000).toFixed(2)).join(", ")} s; target ≤ 3 s); ` +
    `wasm memory ${(memory / 1e6).toFixed(0)} MB = ${(memory / basis).toFixed(2)}× the input${inflated ? " unzipped" : ""} (target ≤ 2×)`);
}

/** A click on the longest conversation to its messages drawn, median of `runs`. */
async function measureReader(label, files) {
  if (!wanted(label)) return;
  const times = [];
  const all = [];
  let messages = 0;
  for (let i = 0; i < runs; i++) {
    const page = await loadedPage(files);
    await page.selectOption("#sort", "messages");
    await page.waitForFunction(() => document.querySelector("#list tbody tr"));
    await page.evaluate(() => { delete document.body.dataset.readerMs; });
    await page.click("#list tbody tr:first-child button");
    await page.waitForSelector("body[data-reader-ms]");
    times.push(Number(await page.getAttribute("body", "data-reader-ms")));
    await page.waitForSelector("#reader[data-complete=true]", { timeout: 120000 });
    all.push(Number(await page.getAttribute("body", "data-reader-all-ms")));
    messages = await page.$$eval("#messages li.message:not(.thread)", (l) => l.length);
    await page.close();
  }
  times.sort((a, b) => a - b);
  all.sort((a, b) => a - b);
  console.log(`${label}: ${messages} messages — click to the first screen drawn, median ${times[Math.floor(times.length / 2)]} ms ` +
    `(runs: ${times.join(", ")} ms; target ≤ 200 ms); every message drawn, median ${all[Math.floor(all.length / 2)]} ms`);
}

try {
  await measure("ChatGPT export", chatgpt);
  if (wantsChatgpt) await measure("The same ChatGPT export as its .zip", [zipped], statSync(chatgpt[0]).size);
  await measure("Claude Code JSONL, session-sized files", claude);
  await measure("Claude Code JSONL, thousands of tiny files", tiny);
  if (wanted("reader")) {
    const long = join(tmp, "long");
    execFileSync(join(bin, "transcript-gen"), [long, "--sessions", "1", "--responses", "5000"], { stdio: "inherit" });
    const files = readdirSync(join(long, "claude"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".jsonl") && !e.name.includes("resumed"))
      .map((e) => join(e.parentPath ?? e.path, e.name));
    await measureReader("Reader, one long Claude Code session", files);
  }
} finally {
  await browser.close();
  server?.kill();
}
