// `baton share`'s files in Debian's headless Chromium, opened from file:// with every request
// refused: every message visible, no request, no console error, hostile transcript text
// inert; the same file readable with JavaScript off; a locked file opened by the right
// password only, and holding none of its content in clear. Screenshots go to
// target/screenshots/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const baton = process.env.BATON_BIN || join(root, "target/debug/baton");
const shots = join(root, "target/screenshots");
const CHROMIUM_ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
];
const SESSION = "5a7e0000-0000-4000-8000-0000000000bb";
const PASSWORD = "correct horse battery staple";

let tmp, browser, files, messages;

function run(...args) {
  return execFileSync(baton, ["--dir", join(tmp, ".baton"), ...args], {
    env: { PATH: process.env.PATH, BATON_FSYNC: "0", HOME: tmp, XDG_DATA_HOME: join(tmp, "data"), XDG_CACHE_HOME: join(tmp, "cache") },
    cwd: tmp,
  }).toString();
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), "baton-share-"));
  mkdirSync(shots, { recursive: true });
  const folder = join(tmp, "projects", "-home-ana-app");
  mkdirSync(folder, { recursive: true });
  const at = (s) => `2026-12-01T10:00:${String(s).padStart(2, "0")}Z`;
  const line = (uuid, parent, role, content, extra = {}) => ({
    type: role, sessionId: SESSION, uuid, parentUuid: parent, timestamp: at(Number(uuid.slice(1))), cwd: "/home/ana/app",
    message: { role, content, ...extra },
  });
  const lines = [
    line("u1", null, "user", "Render **this** <img src=x onerror=\"window.__xss=1\"> [go](javascript:window.__xss=2) planted-first"),
    line("u2", "u1", "assistant", [
      { type: "text", text: "<script>window.__xss=3</script><svg onload=\"window.__xss=4\"></svg>\n\n![pixel](https://tracker.example/p.png) <iframe src=\"https://evil.example\"></iframe>" },
      { type: "tool_use", id: "t1", name: "Bash", input: { command: "echo '</pre><script>window.__xss=5</script>'" } },
    ], { id: "m1", model: "claude-sonnet-4-5-20250929", usage: { input_tokens: 10, output_tokens: 5 } }),
    line("u3", "u2", "user", [{ type: "tool_result", tool_use_id: "t1", content: "</details><script>window.__xss=6</script>\nplanted-output" }]),
    line("u4", "u3", "assistant", [{ type: "text", text: "# Done\n\n```js\nconsole.log('<b>')\n```\n\nplanted-last" }],
      { id: "m2", model: "claude-sonnet-4-5-20250929", usage: { input_tokens: 12, output_tokens: 7 } }),
  ];
  writeFileSync(join(folder, `${SESSION}.jsonl`), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  run("mirror", "--claude-dir", join(tmp, "projects"));
  writeFileSync(join(tmp, "password.txt"), PASSWORD + "\n");
  files = { open: join(tmp, "open.html"), locked: join(tmp, "locked.html") };
  const made = JSON.parse(run("--json", "share", SESSION, "-o", files.open));
  messages = made.messages;
  run("share", SESSION, "-o", files.locked, "--password-file", join(tmp, "password.txt"));
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
});

/** The file in a fresh context that refuses every request but the file itself, and records
 * requests, console errors, page errors and dialogs. */
async function open(file, { javaScriptEnabled = true } = {}) {
  const context = await browser.newContext({ javaScriptEnabled, viewport: { width: 1000, height: 900 } });
  const seen = { requests: [], errors: [], dialogs: [] };
  const self = pathToFileURL(file).href;
  await context.route("**/*", (route) => (route.request().url() === self ? route.continue() : route.abort()));
  const page = await context.newPage();
  page.on("request", (r) => { if (r.url() !== self) seen.requests.push(r.url()); });
  page.on("console", (m) => { if (m.type() === "error") seen.errors.push(m.text()); });
  page.on("pageerror", (e) => seen.errors.push(e.message));
  page.on("dialog", (d) => { seen.dialogs.push(d.message()); d.dismiss(); });
  await page.goto(self);
  return { page, seen, context };
}

async function inert(page) {
  return page.evaluate(() => ({
    xss: window.__xss,
    active: document.querySelectorAll("#content script, #content svg, #content img, #content iframe").length,
    handlers: [...document.querySelectorAll("#content *")]
      .filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith("on"))).length,
    badLinks: [...document.querySelectorAll("#content a")]
      .filter((a) => !/^(https?:|mailto:)/.test(a.getAttribute("href") || "")).length,
  }));
}

test("the shared file offline: every message, no request, no console error, hostile text inert", async () => {
  const { page, seen, context } = await open(files.open);
  assert.equal(messages, 4);
  assert.equal(await page.locator("#content li.message").count(), messages);
  for (const word of ["planted-first", "planted-last"]) assert.ok(await page.getByText(word).first().isVisible(), word);
  // Tool cards are folded; the script's button opens them all.
  assert.equal(await page.locator("details.tool-call[open]").count(), 0);
  await page.getByRole("button", { name: "Open all cards" }).click();
  assert.ok(await page.getByText("planted-output").isVisible());
  assert.deepEqual(await inert(page), { xss: undefined, active: 0, handlers: 0, badLinks: 0 });
  assert.ok((await page.textContent("#content")).includes("<script>window.__xss=3</script>"), "raw HTML reads as text");
  // The user's name in the project's path was masked (share is the default profile).
  assert.ok(!(await page.textContent("body")).includes("/home/ana"));
  await page.screenshot({ path: join(shots, "share-open.png"), fullPage: true });
  assert.deepEqual(seen, { requests: [], errors: [], dialogs: [] });
  await context.close();
});

test("with JavaScript off the content is all there and readable", async () => {
  const { page, seen, context } = await open(files.open, { javaScriptEnabled: false });
  assert.equal(await page.locator("#content li.message").count(), messages);
  assert.ok(await page.getByText("planted-first").isVisible());
  assert.ok(await page.locator("#content h1").isVisible());
  // No control that needs the script is shown.
  assert.ok(await page.locator("#controls").isHidden());
  await page.locator("details.tool-call summary").first().click();
  assert.ok(await page.locator("details.tool-call[open]").first().isVisible(), "a card opens without the script");
  await page.screenshot({ path: join(shots, "share-no-script.png"), fullPage: true });
  assert.deepEqual(seen, { requests: [], errors: [], dialogs: [] });
  await context.close();
});

test("a locked file: no plaintext in it, the right password shows it all, a wrong one nothing", async () => {
  const text = readFileSync(files.locked, "utf8");
  for (const word of ["planted-first", "planted-output", "planted-last", "Bash", "window.__xss", SESSION]) {
    assert.ok(!text.includes(word), `${word} is in the locked file`);
  }
  const wrong = await open(files.locked);
  await wrong.page.fill("#password", "not the password");
  await wrong.page.click("#unlock button[type=submit]");
  await wrong.page.waitForSelector("#unlock-status.error");
  assert.match(await wrong.page.textContent("#unlock-status"), /does not open/);
  assert.equal(await wrong.page.locator("#content *").count(), 0);
  await wrong.page.screenshot({ path: join(shots, "share-locked-wrong.png") });
  assert.deepEqual(wrong.seen, { requests: [], errors: [], dialogs: [] });
  await wrong.context.close();

  const right = await open(files.locked);
  await right.page.fill("#password", PASSWORD);
  await right.page.click("#unlock button[type=submit]");
  await right.page.waitForSelector("#content li.message");
  assert.equal(await right.page.locator("#content li.message").count(), messages);
  assert.ok(await right.page.getByText("planted-last").isVisible());
  assert.equal(await right.page.locator("#unlock").count(), 0, "the form is gone");
  assert.deepEqual(await inert(right.page), { xss: undefined, active: 0, handlers: 0, badLinks: 0 });
  assert.ok((await right.page.title()).length > 0);
  assert.deepEqual(right.seen, { requests: [], errors: [], dialogs: [] });
  await right.context.close();

  const off = await open(files.locked, { javaScriptEnabled: false });
  assert.match(await off.page.textContent("body"), /locked with a password/);
  await off.context.close();
});
