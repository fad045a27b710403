// The npm package's browser build in Debian's headless Chromium (playwright-core): inside a
// module worker, as an editor's webview or the page would run it, every golden vector
// answers byte for byte as recorded; on the page itself, request() works after init().
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, statSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, extname, sep } from "node:path";
import { chromium } from "playwright-core";
import { loadVectors, packageDir, requirePackage } from "./vectors.mjs";

const CHROMIUM_ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
];
const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html" };
const PAGE = `<!doctype html><meta charset="utf-8"><title>baton-core</title><script type="module">
import init, { request } from "/web/index.js";
await init();
window.batonVersion = request({ op: "version" });
window.runVectors = (vectors) => new Promise((ok, fail) => {
  const worker = new Worker("/worker.js", { type: "module" });
  worker.onmessage = (e) => (e.data.error ? fail(new Error(e.data.error)) : ok(e.data.answers));
  worker.onerror = (e) => fail(new Error(e.message));
  worker.postMessage(vectors);
});
window.ready = true;
</script>`;
const WORKER = `import init, { handleJson } from "/web/index.js";
const ready = init();
onmessage = async (e) => {
  try {
    await ready;
    postMessage({ answers: e.data.map((v) => v.requests.map((r) => handleJson(r))) });
  } catch (error) {
    postMessage({ error: String(error && error.stack || error) });
  }
};`;

let server, url, browser, profile;

before(async () => {
  requirePackage();
  server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
    if (path === "/worker.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(WORKER);
    const file = resolve(packageDir, `.${decodeURIComponent(path)}`);
    let isFile = false;
    try {
      isFile = file.startsWith(packageDir + sep) && statSync(file).isFile();
    } catch {
      isFile = false;
    }
    if (!isFile) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] || "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${server.address().port}/`;
  profile = mkdtempSync(join(tmpdir(), "baton-npm-chromium-"));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
  });
});

after(async () => {
  await browser?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("every golden vector answers byte for byte in a Chromium module worker", { timeout: 120_000 }, async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 30_000 });
  assert.deepEqual(errors, []);
  const version = await page.evaluate(() => window.batonVersion);
  assert.equal(version.abi_version, 1);
  const vectors = loadVectors();
  const got = await page.evaluate((v) => window.runVectors(v), vectors);
  assert.equal(got.length, vectors.length);
  vectors.forEach(({ name, answers }, i) => {
    assert.deepEqual(got[i], answers, `${name}: Chromium answers differently`);
  });
  await page.close();
});
