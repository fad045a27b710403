// The page in Debian's headless Chromium, driven by playwright-core: it loads the embedded
// wasm without any network request, folds a real ledger exactly as the native CLI does, and
// cannot reach the network at all.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const baton = process.env.BATON_BIN || join(root, "target/debug/baton");
const shots = join(root, "target/screenshots");
const CHROMIUM_ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
];

let server, url, browser, ledgerDir, userDataDir;

function cli(...args) {
  return JSON.parse(execFileSync(baton, ["--dir", ledgerDir, "--json", ...args], {
    env: { PATH: process.env.PATH, BATON_FSYNC: "0" },
  }).toString());
}

before(async () => {
  const tmp = mkdtempSync(join(tmpdir(), "baton-page-"));
  ledgerDir = join(tmp, ".baton");
  userDataDir = join(tmp, "chromium-profile");
  mkdirSync(shots, { recursive: true });
  const first = cli("start", "--project", "demo", "--agent", "claude", "--goal", "Search");
  cli("start", "--project", "demo", "--agent", "codex", "--parent", first.session_id);
  cli("start", "--project", "site", "--agent", "cursor");
  cli("end", first.session_id, "--summary", "done");
  server = spawn(baton, ["--json", "web", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  url = await new Promise((ok, fail) => {
    server.stdout.once("data", (chunk) => ok(JSON.parse(chunk.toString().split("\n")[0]).serving));
    server.once("exit", (code) => fail(new Error(`baton web exited ${code}`)));
  });
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

test("the page folds a ledger exactly as the CLI does, offline", async () => {
  const page = await browser.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("version").textContent.includes("baton-core"));
  await page.setInputFiles("#file", join(ledgerDir, "events.ndjson"));
  await page.waitForSelector("#status[data-sessions]");
  const native = cli("list", "--all");
  const shown = await page.$$eval("#sessions tbody tr", (rows) =>
    rows.map((r) => ({ id: r.cells[0].textContent, status: r.cells[1].textContent })));
  assert.deepEqual(shown, native.sessions.map((s) => ({ id: s.session_id, status: s.status })));
  await page.screenshot({ path: join(shots, "ledger.png"), fullPage: true });
  const origin = new URL(url).origin;
  assert.ok(requests.length > 0);
  for (const r of requests) assert.ok(r.startsWith(origin), `request left the origin: ${r}`);
  assert.deepEqual(errors, []);
});

test("the page cannot open a network connection", async () => {
  const page = await browser.newPage();
  await page.goto(url);
  const outcome = await page.evaluate(async () => {
    try { await fetch("http://127.0.0.1:9/"); return "fetched"; } catch (e) { return "blocked"; }
  });
  assert.equal(outcome, "blocked");
  const csp = (await page.request.get(url)).headers()["content-security-policy"];
  assert.match(csp, /connect-src 'none'/);
});

test("an export is analyzed in the page, and a wrong file keeps what was loaded", async () => {
  const page = await browser.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("version").textContent.includes("baton-core"));
  const fixtures = join(root, "tests/fixtures");
  await page.setInputFiles("#file", join(fixtures, "chatgpt/pkuppens-real-2023-06-export-subset3.json"));
  await page.waitForSelector("#overview:not([hidden])");
  const native = JSON.parse(execFileSync(baton, ["--json", "inspect",
    join(fixtures, "chatgpt/pkuppens-real-2023-06-export-subset3.json")]).toString());
  assert.equal(await page.textContent("#fig-conversations"), String(native.files[0].conversations));
  assert.equal(await page.textContent("#fig-messages"), String(native.files[0].messages));
  assert.ok(await page.$("#chart-activity svg rect"), "the heatmap is drawn");
  await page.screenshot({ path: join(shots, "overview.png"), fullPage: true });
  const junk = join(mkdtempSync(join(tmpdir(), "baton-junk-")), "notes.json");
  writeFileSync(junk, "just notes\n");
  await page.setInputFiles("#file", junk);
  await page.waitForSelector("#problem:not([hidden])");
  assert.match(await page.textContent("#problem"), /UNKNOWN_FORMAT/);
  assert.equal(await page.textContent("#fig-conversations"), String(native.files[0].conversations), "earlier data kept");
  const origin = new URL(url).origin;
  for (const r of requests) assert.ok(r.startsWith(origin), `request left the origin: ${r}`);
});
