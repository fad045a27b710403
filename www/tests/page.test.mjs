// The page in Debian's headless Chromium, driven by playwright-core through the real file
// inputs: every format, generated exports checked against the generator's truth, the same
// figures as the native `baton analyze`, search, the branch reader, exports, cancel, wrong
// files, ledgers — and no request ever leaves the page's origin. Screenshots go to
// target/screenshots/ for a person to look at.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
// Baton's per-user index and caches in a folder of this run's: never the real user's.
process.env.XDG_DATA_HOME = mkdtempSync(join(tmpdir(), "baton-user-data-"));
process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), "baton-user-cache-"));
const userFolders = { XDG_DATA_HOME: process.env.XDG_DATA_HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME };
const root = resolve(here, "../..");
const baton = process.env.BATON_BIN || join(root, "target/debug/baton");
const generator = join(dirname(baton), "transcript-gen");
const fixtures = join(root, "tests/fixtures");
const shots = join(root, "target/screenshots");
const CHROMIUM_ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
];

let server, url, browser, ledgerDir, userDataDir, generated, tmp;

function cli(...args) {
  return JSON.parse(execFileSync(baton, ["--dir", ledgerDir, "--json", ...args], {
    env: { PATH: process.env.PATH, BATON_FSYNC: "0", ...userFolders },
  }).toString());
}

function nativeAnalyze(...paths) {
  return JSON.parse(execFileSync(baton, ["--json", "analyze", ...paths], { maxBuffer: 1 << 28 }).toString());
}

before(async () => {
  tmp = mkdtempSync(join(tmpdir(), "baton-page-"));
  ledgerDir = join(tmp, ".baton");
  userDataDir = join(tmp, "chromium-profile");
  generated = join(tmp, "generated");
  mkdirSync(shots, { recursive: true });
  const first = cli("start", "--project", "demo", "--agent", "claude", "--goal", "Search");
  cli("start", "--project", "demo", "--agent", "codex", "--parent", first.session_id);
  cli("start", "--project", "site", "--agent", "cursor");
  cli("end", first.session_id, "--summary", "done");
  cli("decision", "record", "Plain SQL with rusqlite");
  execFileSync(generator, [generated, "--sessions", "6"]);
  server = spawn(baton, ["--json", "web", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  url = await new Promise((ok, fail) => {
    server.stdout.once("data", (chunk) => ok(JSON.parse(chunk.toString().split("\n")[0]).serving));
    server.once("exit", (code) => fail(new Error(`baton web exited ${code}`)));
  });
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: CHROMIUM_ARGS,
    acceptDownloads: true,
    viewport: { width: 1280, height: 900 },
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

/** A fresh page that records every request and every script error. */
async function openPage() {
  const page = await browser.newPage();
  const requests = [];
  const errors = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  page.errors = errors;
  page.checkOffline = () => {
    const origin = new URL(url).origin;
    assert.ok(requests.length > 0);
    for (const r of requests) assert.ok(r.startsWith(origin) || r.startsWith("blob:" + origin), `request left the origin: ${r}`);
    assert.deepEqual(errors, []);
  };
  return page;
}

/** Loads files through an input and waits for the worker's answer. */
async function load(page, selector, files) {
  await page.evaluate(() => { document.body.dataset.state = "loading"; });
  await page.setInputFiles(selector, files);
  await page.waitForSelector("body[data-state=ready], body[data-state=cancelled]");
}

const overviewOf = async (page) => JSON.parse(await page.getAttribute("#overview", "data-json"));

test("a generated export: figures equal the generator's truth and the native CLI", async () => {
  const page = await openPage();
  const truth = JSON.parse(readFileSync(join(generated, "truth.json"), "utf8"));
  const exports = [join(generated, "chatgpt/conversations.json"), join(generated, "claude-ai/conversations.json")];
  await load(page, "#file", exports);
  const overview = await overviewOf(page);
  assert.equal(overview.conversations, truth.chatgpt[0] + truth.claude_ai[0]);
  assert.equal(overview.messages, truth.chatgpt[1] + truth.claude_ai[1]);
  assert.equal(await page.textContent("#fig-conversations"), String(overview.conversations));
  assert.deepEqual(overview, nativeAnalyze(...exports).overview, "one core, one answer");
  page.checkOffline();
});

test("every fixture format through the folder picker, and the same figures as the CLI", async () => {
  const page = await openPage();
  await load(page, "#folder", fixtures);
  const overview = await overviewOf(page);
  // The CLI walks the folder by the same core rule (an export's side files are passed over).
  const native = nativeAnalyze(fixtures);
  assert.deepEqual(overview, native.overview);
  for (const format of ["claude_code", "codex", "gemini", "qwen", "opencode", "kilo", "copilot_cli", "copilot_chat", "amp", "aider", "cline", "roo_code", "kilo_code", "cursor", "cursor_transcripts", "cursor_cli", "chatgpt", "claude_ai"]) assert.ok(overview.formats[format] > 0, format);
  assert.ok(overview.usage.total_tokens > 0, "the agents' usage counted");
  assert.ok(await page.$("#chart-activity svg rect"), "the heatmap is drawn");
  assert.ok(await page.$("#chart-models svg rect"), "the per-model chart is drawn");
  assert.ok(await page.$("#chart-tokens svg rect"), "the token chart is drawn");
  await page.screenshot({ path: join(shots, "overview.png"), fullPage: true });
  // Every conversation's title and tool calls, as the list shows them, are the CLI's.
  while (await page.isVisible("#more")) await page.click("#more");
  const shown = await page.$$eval("#list tbody tr", (rows) => rows.map((tr) => {
    const cells = [...tr.children].map((td) => td.textContent);
    return [tr.querySelector("button").textContent, cells[4]];
  }));
  const listed = nativeAnalyze(fixtures, "--list", "1000").conversations.rows
    .map((r) => [r.title, r.tool_calls ? r.tool_calls.toLocaleString("en-US") : ""]);
  assert.deepEqual(shown.sort(), listed.sort());
  assert.ok(listed.some(([title]) => title === "/init"), "a slash command reads as itself");
  page.checkOffline();
});

test("a Gemini CLI, Qwen Code, OpenCode, Kilo CLI, Copilot CLI, Copilot Chat, Amp, Aider, Cline, Roo Code, Kilo Code, Cursor, Cursor agent transcripts and Cursor CLI folder: the generator's usage and sessions, as the CLI reads them", async () => {
  const truth = JSON.parse(readFileSync(join(root, "tests/vectors/agents-truth.json"), "utf8"));
  const folder = { copilot_cli: "copilot-cli", copilot_chat: "copilot-chat", roo_code: "roo-code", kilo_code: "kilo-code", cursor_transcripts: "cursor-transcripts", cursor_cli: "cursor-cli" };
  // Whose chats an agent's files hold: Cursor's agent transcripts are copies of Cursor's.
  const owner = { cursor_transcripts: "cursor", cursor_cli: "cursor" };
  for (const agent of Object.keys(truth)) {
    const page = await openPage();
    const dir = join(fixtures, folder[agent] || agent);
    await load(page, "#folder", dir);
    const overview = await overviewOf(page);
    assert.equal(overview.conversations, truth[agent].conversations.length, agent);
    assert.ok(overview.formats[agent] > 0, agent);
    assert.deepEqual(overview, nativeAnalyze(dir).overview, `${agent}: one core, one answer`);
    if (!truth[agent].by_day_model.length) {
      // An agent that keeps no token counts (Cursor): said so, no tokens or cost shown as zero.
      assert.equal(overview.usage, null, agent);
      assert.deepEqual(overview.without_tokens, [owner[agent] || agent]);
      assert.match(await page.textContent("#tokens-line"), /no token counts on disk/);
      assert.ok(await page.isHidden("#fig-tokens"), `${agent}: no token figure`);
    } else {
      const sum = (field) => truth[agent].by_day_model.reduce((n, row) => n + row[field], 0);
      for (const field of ["input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "reasoning_tokens"]) {
        assert.equal(overview.usage[field], sum(field), `${agent}: ${field}`);
      }
      // Each tree holds a model the price table does not know: named, its cost never shown as $0.
      assert.equal(overview.unpriced_models.length, 1, agent);
      assert.match(await page.textContent("#unpriced-line"), new RegExp(`No price for: ${overview.unpriced_models[0]}`));
      assert.match(await page.textContent("#fig-cost"), /^\$[0-9.]+\*$/);
      assert.ok(!(await page.textContent("#chart-cost")).includes(overview.unpriced_models[0]), `${agent}: no $0 series`);
    }
    while (await page.isVisible("#more")) await page.click("#more");
    const titles = await page.$$eval("#list tbody tr button", (buttons) => buttons.map((b) => b.textContent));
    assert.deepEqual(titles.sort(), truth[agent].conversations.map((c) => c.title).sort(), agent);
    if (agent === "copilot_chat") {
      // The folder each session worked in is the one its workspace's workspace.json names.
      const projects = await page.$$eval("#list tbody tr .muted.small", (cells) => cells.map((c) => c.textContent));
      const native = nativeAnalyze(dir, "--list", "1000").conversations.rows.map((r) => r.project).filter(Boolean);
      assert.ok(native.length && native.every((p) => p.startsWith("/home/dev/")), native.join());
      assert.deepEqual(projects.sort(), native.sort());
    }
    await page.screenshot({ path: join(shots, `agent-${agent}.png`), fullPage: true });
    page.checkOffline();
  }
});

test("OpenCode 1.1's tree of files: the same sessions and usage as its database, as the CLI reads them", async () => {
  const truth = JSON.parse(readFileSync(join(root, "tests/vectors/agents-truth.json"), "utf8")).opencode;
  const page = await openPage();
  const dir = join(fixtures, "opencode-1.1");
  await load(page, "#folder", dir);
  const overview = await overviewOf(page);
  assert.deepEqual(overview, nativeAnalyze(dir).overview, "one core, one answer");
  assert.equal(overview.conversations, truth.conversations.length);
  const sum = (field) => truth.by_day_model.reduce((n, row) => n + row[field], 0);
  for (const field of ["input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"]) {
    assert.equal(overview.usage[field], sum(field), field);
  }
  // Its project file is passed over, not an error; the cut part counts as unreadable.
  assert.ok(await page.isHidden("#problem"), await page.textContent("#problem"));
  while (await page.isVisible("#more")) await page.click("#more");
  const titles = await page.$$eval("#list tbody tr button", (buttons) => buttons.map((b) => b.textContent));
  assert.deepEqual(titles.sort(), truth.conversations.map((c) => c.title).sort());
  await page.screenshot({ path: join(shots, "opencode-tree.png"), fullPage: true });
  page.checkOffline();
});

test("search, open a branched conversation, switch branch, export Markdown", async () => {
  const page = await openPage();
  await load(page, "#file", [join(generated, "chatgpt/conversations.json")]);
  await page.fill("#search", "another answer");
  await page.waitForFunction(() => /match/.test(document.getElementById("list-status").textContent));
  const total = Number(await page.getAttribute("#list", "data-total"));
  const truth = JSON.parse(readFileSync(join(generated, "truth.json"), "utf8"));
  assert.equal(total, truth.chatgpt[3], "every branched conversation, and only those, holds the regenerated answer");
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])", { timeout: 5000 }).catch(async (e) => {
    throw new Error(`${e.message}; problem: ${await page.textContent("#problem")}; errors: ${page.errors.join(" | ")}`);
  });
  assert.equal(await page.getAttribute("#reader", "data-active"), "true");
  const before = await page.textContent("#messages");
  assert.ok(!before.includes("another answer"), "the active branch does not hold the other answer");
  const switcher = (await page.$(".branch-next:not([disabled])")) || (await page.$(".branch-prev:not([disabled])"));
  assert.ok(switcher, "a branch switcher is offered");
  await switcher.click();
  await page.waitForSelector("#reader[data-active=false]");
  assert.ok((await page.textContent("#messages")).includes("another answer"));
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export-md")]);
  const markdown = readFileSync(await download.path(), "utf8");
  assert.match(markdown, /^# Conversation \d+/);
  assert.match(markdown, /another answer/);
  assert.match(markdown, /Branch: alternative/);
  const [all] = await Promise.all([page.waitForEvent("download"), page.click("#export-all-json")]);
  const everything = JSON.parse(readFileSync(await all.path(), "utf8"));
  assert.equal(everything.length, truth.chatgpt[0]);
  // Full-page screenshots resize the view, so they come after the clicks.
  await page.locator("#reader").screenshot({ path: join(shots, "reader.png") });
  await page.click("#close-reader");
  await page.waitForSelector("#reader[hidden]", { state: "attached" });
  await page.screenshot({ path: join(shots, "list.png"), fullPage: true });
  page.checkOffline();
});

test("a zip export is read, wrong files are explained, and what was loaded stays", async () => {
  const page = await openPage();
  const dir = mkdtempSync(join(tmpdir(), "baton-wrong-"));
  const zip = join(dir, "chatgpt-export.zip");
  execFileSync("python3", ["-c", `import zipfile,sys
z=zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_DEFLATED)
z.write(sys.argv[2],"conversations.json"); z.writestr("chat.html","<html></html>"); z.close()`,
  zip, join(fixtures, "chatgpt/pkuppens-real-2023-06-export-subset3.json")]);
  await load(page, "#file", [zip]);
  const first = await overviewOf(page);
  assert.equal(first.conversations, 3);
  assert.deepEqual(first, nativeAnalyze(zip).overview);
  const notes = join(dir, "notes.json");
  writeFileSync(notes, "just notes\n");
  const cut = join(dir, "cut.zip");
  const bytes = readFileSync(zip);
  writeFileSync(cut, bytes.subarray(0, bytes.length - 40));
  const future = join(dir, "future.ndjson");
  writeFileSync(future, '{"baton_log":2,"generation":"g"}\n');
  await load(page, "#file", [notes, cut, future]);
  const problem = await page.textContent("#problem");
  for (const code of ["UNKNOWN_FORMAT", "ARCHIVE_DAMAGED", "FORMAT_TOO_NEW"]) assert.match(problem, new RegExp(code));
  assert.match(problem, /notes\.json \(11 bytes\)/, "the page says which file it was");
  assert.deepEqual(await overviewOf(page), first, "earlier data kept");
  await page.screenshot({ path: join(shots, "wrong-files.png"), fullPage: true });
  page.checkOffline();
});

test("a long load can be cancelled and keeps what was loaded before", async () => {
  const page = await openPage();
  await load(page, "#file", [join(fixtures, "chatgpt/ai-chat-md-export-examples-conversations.json")]);
  const before = await overviewOf(page);
  const big = join(tmp, "big");
  execFileSync(generator, [big, "--chatgpt-mb", "80"]);
  await page.evaluate(() => { document.body.dataset.state = "loading"; });
  await page.setInputFiles("#file", join(big, "chatgpt-big/conversations.json"));
  await page.waitForSelector("#loading:not([hidden])");
  await page.waitForFunction(() => document.getElementById("progress").value > 0);
  await page.click("#cancel");
  await page.waitForSelector("body[data-state=cancelled]");
  assert.match(await page.textContent("#status"), /Cancelled/);
  assert.deepEqual(await overviewOf(page), before);
  page.checkOffline();
});

test("a ledger shows its sessions as the CLI does: goals, hand-offs as a tree, decisions, a timeline", async () => {
  const page = await openPage();
  await load(page, "#file", [join(ledgerDir, "events.ndjson")]);
  const native = cli("list", "--all");
  const shown = await page.$$eval("#sessions tbody tr", (rows) =>
    rows.map((r) => ({ id: r.dataset.id, status: r.querySelector(".badge").textContent })));
  const byId = (a, b) => a.id.localeCompare(b.id);
  assert.deepEqual(shown.sort(byId), native.sessions.map((s) => ({ id: s.session_id, status: s.status })).sort(byId));
  // The hand-off: the codex session follows the first and sits right under it, one level in.
  const order = await page.$$eval("#sessions tbody tr", (rows) => rows.map((r) => [r.dataset.id, r.dataset.depth, r.cells[0].textContent]));
  const parent = native.sessions.find((s) => s.goal === "Search");
  const child = native.sessions.find((s) => s.parent_session_id === parent.session_id);
  const at = order.findIndex(([id]) => id === parent.session_id);
  assert.match(order[at][2], /Search/, "the goal names the session");
  assert.deepEqual(order[at + 1].slice(0, 2), [child.session_id, "1"]);
  assert.match(await page.textContent("#decisions"), /Plain SQL with rusqlite/);
  assert.ok(await page.isHidden("#missions-block"), "no missions: no empty section");
  assert.ok(await page.isHidden("#conversation-views"), "a ledger alone draws no charts");
  await page.click(`#sessions tr[data-id="${parent.session_id}"] button`);
  await page.waitForSelector("#timeline li");
  assert.match(await page.textContent("#timeline"), /started/);
  assert.match(await page.textContent("#timeline-title"), /Search/);
  assert.ok(await page.$("#timeline li.tone-green, #timeline li.tone-amber, #timeline li.tone-red, #timeline li.tone-plain"), "entries carry tones");
  await page.screenshot({ path: join(shots, "work-sessions.png"), fullPage: true });
  page.checkOffline();
});

test("work sessions with their transcripts: the cost each one ran up, from the core's rule", async () => {
  const page = await openPage();
  // A session that names its Claude Code transcript by provider session id.
  const dir = mkdtempSync(join(tmpdir(), "baton-work-"));
  const transcript = join(fixtures, "claude-code/spotter-v2.1.38-tool_heavy.jsonl");
  const sessionId = JSON.parse(readFileSync(transcript, "utf8").split("\n").find((l) => l.includes('"sessionId"'))).sessionId;
  const env = { PATH: process.env.PATH, BATON_FSYNC: "0", ...userFolders };
  const started = JSON.parse(execFileSync(baton, ["--dir", join(dir, ".baton"), "--json", "start", "--project", "demo",
    "--agent", "claude-code", "--goal", "Tidy the tools", "--provider-session-id", sessionId], { env }).toString());
  writeFileSync(join(dir, "contract.md"), "- Keep the API stable\n- Ship the docs\n");
  execFileSync(baton, ["--dir", join(dir, ".baton"), "--json", "mission", "add", "CLAIM-142", "--contract", join(dir, "contract.md")], { env });
  await load(page, "#file", [join(dir, ".baton/events.ndjson"), transcript]);
  const missions = await page.textContent("#missions");
  assert.match(missions, /CLAIM-142 v1 awaiting approval/);
  assert.match(missions, /Keep the API stable/);
  const work = JSON.parse(await page.getAttribute("#ledger", "data-json"));
  const card = work.sessions.find((s) => s.session_id === started.session_id);
  assert.equal(card.cost_source, "transcripts");
  const native = JSON.parse(execFileSync(baton, ["--dir", join(dir, ".baton"), "--json", "usage", "session", "--work",
    "--timezone", "UTC", "--claude-dir", join(fixtures, "claude-code"), "--codex-dir", join(dir, "none")], { env }).toString());
  const row = native.rows.find((r) => native.work_sessions.links[r.key].session_id === started.session_id);
  assert.equal(card.cost_usd, row.cost_usd, "the page and `baton usage session --work` agree");
  assert.equal(await page.textContent(`#sessions tr[data-id="${started.session_id}"] td:last-child`), `$${row.cost_usd.toFixed(2)}`);
  page.checkOffline();
});

test("durations and accepted files come from the core, worded as the CLI words them", async () => {
  const page = await openPage();
  // Two ended sessions of 3,601 s and 5,400 s: the core (and so the CLI) says "1h 1s" and
  // "1h 30m"; the page once said "1h 0m" for the first with its own arithmetic.
  const line = (id, session, kind, at, data) => JSON.stringify({
    v: 1, id, session, kind, at, actor: { kind: "agent", name: "claude" }, data,
  });
  const a = "019c0000-0000-7000-8000-00000000000a", b = "019c0000-0000-7000-8000-00000000000b";
  const ledger = join(tmp, "durations.ndjson");
  writeFileSync(ledger, [
    line("019c0000-0000-7000-8000-000000000001", a, "started", "2026-07-18T10:00:00.000Z", { project: "p", agent: "claude" }),
    line("019c0000-0000-7000-8000-000000000002", a, "ended", "2026-07-18T11:00:01.000Z", { outcome: "complete" }),
    line("019c0000-0000-7000-8000-000000000003", b, "started", "2026-07-18T12:00:00.000Z", { project: "p", agent: "claude" }),
    line("019c0000-0000-7000-8000-000000000004", b, "ended", "2026-07-18T13:30:00.000Z", { outcome: "complete" }),
  ].join("\n") + "\n");
  await load(page, "#file", [ledger]);
  const durations = await page.$$eval("#sessions tbody tr", (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.id, r.cells[5].textContent])));
  assert.deepEqual(durations, { [a]: "1h 1s", [b]: "1h 30m" });
  assert.equal(await page.getAttribute("#file", "accept"),
    ".jsonl,.json,.zip,.ndjson,.db,.vscdb,application/zip,application/json,application/x-ndjson");
  page.checkOffline();
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
  const workerCsp = (await page.request.get(new URL("worker.js", url).href)).headers()["content-security-policy"];
  assert.match(workerCsp, /connect-src 'none'/, "the worker runs under the same policy");
});

test("files dropped on the page are read like chosen ones, and the keyboard reaches everything", async () => {
  const page = await openPage();
  const text = readFileSync(join(fixtures, "claude-ai/claude-chat-viewer-testdata-conversations.json"), "utf8");
  await page.evaluate((content) => {
    document.body.dataset.state = "loading";
    const transfer = new DataTransfer();
    transfer.items.add(new File([content], "conversations.json", { type: "application/json" }));
    document.getElementById("drop").dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, text);
  await page.waitForSelector("body[data-state=ready]");
  const overview = await overviewOf(page);
  assert.deepEqual(overview, nativeAnalyze(join(fixtures, "claude-ai/claude-chat-viewer-testdata-conversations.json")).overview);
  // Tab order: skip link, the two pickers, then on to the list; Enter opens a conversation.
  await page.focus("#search");
  await page.keyboard.press("Tab");
  let focused = await page.evaluate(() => document.activeElement.id);
  assert.equal(focused, "provider");
  await page.focus("#list tbody tr:first-child button");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#reader:not([hidden])");
  focused = await page.evaluate(() => document.activeElement.id);
  assert.equal(focused, "reader-title", "focus moves to the conversation read");
  page.checkOffline();
});

test("the reader renders Markdown and keeps hostile text inert", async () => {
  const page = await openPage();
  const file = join(tmp, "hostile.jsonl");
  const lines = [
    { type: "user", sessionId: "xss-1", uuid: "u1", parentUuid: null, timestamp: "2026-07-18T10:00:00Z", cwd: "/w",
      message: { role: "user", content: "Render **this** <img src=x onerror=\"window.__xss=1\"> [go](javascript:window.__xss=2)" } },
    { type: "assistant", sessionId: "xss-1", uuid: "u2", parentUuid: "u1", timestamp: "2026-07-18T10:00:05Z", cwd: "/w",
      message: { id: "m1", role: "assistant", model: "claude-sonnet-4-20250514",
        content: [{ type: "text", text: "# Done\n\n- one\n- two\n\n```js\nconsole.log('<b>')\n```\n\n<script>window.__xss=3</script><svg onload=\"window.__xss=4\"></svg>\n\nSee [docs](https://example.com) ![pixel](https://tracker.example/p.png) [home](/etc/passwd)" }],
        usage: { input_tokens: 10, output_tokens: 5 } } },
    { type: "user", sessionId: "xss-1", uuid: "u3", parentUuid: "u2", timestamp: "2026-07-18T10:01:00Z", cwd: "/w",
      message: { role: "user", content: "<local-command-caveat>Caveat: generated while running local commands.</local-command-caveat>\n<command-message>init is analyzing…</command-message>\n<command-name>/init</command-name>" } },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  await load(page, "#file", [file]);
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  assert.ok(await page.$("#messages .markdown strong"), "bold is bold");
  assert.ok(await page.$("#messages .markdown h3"), "a heading is a heading");
  assert.ok(await page.$("#messages .markdown pre code.language-js"), "a fenced block keeps its language");
  assert.equal(await page.getAttribute("#messages .markdown a[href^=https]", "href"), "https://example.com");
  const hostile = await page.evaluate(() => ({
    xss: window.__xss,
    active: document.querySelectorAll("#messages script, #messages svg, #messages img, #messages iframe").length,
    handlers: [...document.querySelectorAll("#messages *")]
      .filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith("on"))).length,
    badLinks: [...document.querySelectorAll("#messages a")]
      .filter((a) => !/^(https?:|mailto:)/.test(a.getAttribute("href") || "")).length,
  }));
  assert.deepEqual(hostile, { xss: undefined, active: 0, handlers: 0, badLinks: 0 });
  assert.ok((await page.textContent("#messages")).includes("<script>window.__xss=3</script>"), "raw HTML reads as text");
  assert.equal(await page.textContent("#messages .markdown .chip"), "/init", "a slash command reads as a chip");
  assert.equal(await page.textContent("#messages .markdown details summary"), "Caveat", "a caveat is folded under its label");
  assert.ok(!(await page.textContent("#messages")).includes("<command-name>"), "no wrapper tag shows");
  await page.locator("#reader").screenshot({ path: join(shots, "reader-markdown.png") });
  page.checkOffline();
});

test("Share as HTML: the preview highlights each value, un-masking one keeps it, and the file (locked or not) opens offline", async () => {
  const page = await openPage();
  const file = join(tmp, "share-me.jsonl");
  const lines = [
    { type: "user", sessionId: "share-1", uuid: "u1", parentUuid: null, timestamp: "2026-07-18T10:00:00Z", cwd: "/home/ana/app",
      message: { role: "user", content: "Ask ana.lopez@example.com about build01.corp and db.corp <script>window.__xss=1</script>" } },
    { type: "assistant", sessionId: "share-1", uuid: "u2", parentUuid: "u1", timestamp: "2026-07-18T10:00:05Z", cwd: "/home/ana/app",
      message: { id: "m1", role: "assistant", model: "claude-sonnet-4-20250514",
        content: [{ type: "text", text: "Mailed ana.lopez@example.com; build01.corp answers at 10.20.30.40" }],
        usage: { input_tokens: 10, output_tokens: 5 } } },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  await load(page, "#file", [file]);
  await page.fill("#search", "build01");
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  await page.click("#share-open");
  await page.waitForSelector("#share-preview:not([hidden]) tbody tr");
  const rows = async () => page.$$eval("#share-preview tbody tr", (trs) => trs.map((tr) => ({
    kind: tr.cells[0].textContent, marked: tr.cells[1].querySelector("mark")?.textContent, becomes: tr.cells[2].textContent,
    times: tr.cells[3].textContent })));
  const before = await rows();
  assert.deepEqual(before.find((r) => r.marked === "ana.lopez@example.com"), { kind: "email", marked: "ana.lopez@example.com", becomes: "<email-1>", times: "3" });
  assert.ok(before.some((r) => r.marked === "build01.corp" && r.becomes === "<host-1>"));
  assert.ok(before.some((r) => r.marked === "ana" && r.kind === "user"));
  assert.match(await page.textContent("#share-status"), /Redaction share: \d+ value\(s\)/);
  // db.corp is a false positive here: un-masked, it leaves the list and stays in the file.
  await page.click('#share-preview input[aria-label="Keep db.corp as it is"]');
  await page.waitForFunction(() => document.querySelector("#share-status").textContent.includes("kept as they are"));
  const after = await rows();
  assert.ok(!after.some((r) => r.marked === "db.corp"), "db.corp is no longer replaced");
  assert.ok(after.some((r) => r.kind === "kept"), "and is listed as kept");
  await page.locator("#share-panel").screenshot({ path: join(shots, "share-preview.png") });
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#share-download")]);
  const html = readFileSync(await download.path(), "utf8");
  assert.ok(download.suggestedFilename().endsWith(".html"));
  for (const value of ["ana.lopez@example.com", "build01.corp", "10.20.30.40", "/home/ana"]) assert.ok(!html.includes(value), `${value} in the file`);
  assert.ok(html.includes("db.corp"), "the value kept as it is");
  assert.ok(html.includes("Content-Security-Policy"));
  // Locked with a password: none of it in clear, and the password opens it.
  await page.fill("#share-password", "open sesame");
  const [locked] = await Promise.all([page.waitForEvent("download"), page.click("#share-download")]);
  const lockedPath = await locked.path();
  assert.ok(!readFileSync(lockedPath, "utf8").includes("Mailed"));
  const opened = await browser.newPage();
  const errors = [];
  opened.on("pageerror", (e) => errors.push(e.message));
  opened.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const copy = join(tmp, "locked-share.html");
  writeFileSync(copy, readFileSync(lockedPath));
  await opened.goto(`file://${copy}`);
  await opened.fill("#password", "open sesame");
  await opened.click("#unlock button[type=submit]");
  await opened.waitForSelector("#content li.message");
  assert.equal(await opened.locator("#content li.message").count(), 2);
  assert.equal(await opened.evaluate(() => window.__xss), undefined);
  assert.deepEqual(errors, []);
  await opened.close();
  page.checkOffline();
});

test("a whole .baton folder loads without error, and a ledger alone draws no empty charts", async () => {
  const page = await openPage();
  const names = readdirSync(ledgerDir);
  assert.ok(names.includes("checkpoint.ndjson"), `the CLI left a checkpoint: ${names}`);
  await load(page, "#folder", ledgerDir);
  assert.equal((await page.textContent("#problem").catch(() => "")).trim(), "", "no file is flagged");
  assert.equal(await page.isHidden("#problem"), true);
  assert.equal(await page.isVisible("#sessions"), true);
  assert.equal(await page.isHidden("#conversation-views"), true, "no charts or exports of nothing");
  assert.equal(await page.isHidden("#conversations"), true);
  page.checkOffline();
});

test("the reader by keyboard: j/k between messages, [ ] between branches, Esc back, / to search", async () => {
  const page = await openPage();
  await load(page, "#file", [join(generated, "chatgpt/conversations.json")]);
  await page.fill("#search", "another answer");
  await page.waitForFunction(() => /match/.test(document.getElementById("list-status").textContent));
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  const focusedIndex = () => page.evaluate(() =>
    [...document.querySelectorAll("#messages > .message")].indexOf(document.activeElement));
  await page.keyboard.press("j");
  assert.equal(await focusedIndex(), 0);
  await page.keyboard.press("j");
  assert.equal(await focusedIndex(), 1);
  await page.keyboard.press("k");
  assert.equal(await focusedIndex(), 0);
  const active = await page.getAttribute("#reader", "data-active");
  await page.keyboard.press(active === "true" ? "]" : "[");
  await page.waitForFunction((was) => document.getElementById("reader").dataset.active !== was, active);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#reader[hidden]", { state: "attached" });
  await page.keyboard.press("/");
  assert.equal(await page.evaluate(() => document.activeElement.id), "search");
  page.checkOffline();
});

test("at 390 px wide nothing scrolls sideways: the page fits, wide tables scroll in their box", async () => {
  const page = await openPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await load(page, "#folder", fixtures);
  // The usage table's cost is on screen without scrolling its box.
  await page.waitForSelector("#usage-table tbody tr");
  const cost = await page.evaluate(() => {
    const head = [...document.querySelectorAll("#usage-table thead th")].find((th) => th.textContent === "Cost USD");
    const box = head.closest(".table-box");
    return { right: head.getBoundingClientRect().right, edge: box.getBoundingClientRect().right, shown: head.offsetParent !== null };
  });
  assert.ok(cost.shown && cost.right <= cost.edge + 1, `the cost column is off screen at 390 px: ${JSON.stringify(cost)}`);
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(fits, "no horizontal scroll at 390 px");
  await page.screenshot({ path: join(shots, "narrow-390.png") });
  await page.setViewportSize({ width: 1280, height: 900 });
  page.checkOffline();
});

test("the usage table has `baton usage`'s rows for the same files, and downloads as CSV", async () => {
  const page = await openPage();
  await load(page, "#folder", fixtures);
  const usage = (group, ...more) => execFileSync(baton, ["usage", group, "--timezone", "UTC",
    "--claude-dir", join(fixtures, "claude-code"), "--codex-dir", join(fixtures, "codex"),
    "--codex-dir", join(fixtures, "codex-limits"), "--gemini-dir", join(fixtures, "gemini"), "--qwen-dir", join(fixtures, "qwen"),
    "--opencode-dir", join(fixtures, "opencode"), "--kilo-dir", join(fixtures, "kilo"),
    "--copilot-cli-dir", join(fixtures, "copilot-cli"), "--copilot-chat-dir", join(fixtures, "copilot-chat"), "--amp-dir", join(fixtures, "amp"),
    "--aider-dir", join(fixtures, "aider"), "--cline-dir", join(fixtures, "cline"),
    "--roo-code-dir", join(fixtures, "roo-code"), "--kilo-code-dir", join(fixtures, "kilo-code"), ...more],
  { env: { PATH: process.env.PATH, HOME: tmp } }).toString();
  for (const group of ["daily", "model", "project", "monthly"]) {
    await page.selectOption("#usage-group", group);
    await page.waitForFunction((g) => document.getElementById("usage-key").textContent.toLowerCase().startsWith(
      { daily: "day", model: "model", project: "project", monthly: "month" }[g]), group);
    const shown = JSON.parse(await page.getAttribute("#usage-table", "data-json"));
    const native = JSON.parse(usage(group, "--json"));
    assert.ok(native.rows.length > 0, group);
    assert.deepEqual(shown, native.rows, `${group}: the same rows`);
    // What a person reads: one line per row and the total, with the CLI's figures.
    const cells = await page.$$eval("#usage-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
    assert.equal(cells.length, native.rows.length + 1);
    // The fixtures hold models the price table does not know: the cost says so with a `*`.
    assert.equal(cells.at(-1)[6], `${native.totals.cost_usd.toFixed(2)}*`);
    assert.equal(cells.at(-1)[5], native.totals.total_tokens.toLocaleString("en-US"));
  }
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#usage-csv")]);
  assert.equal(download.suggestedFilename(), "baton-usage-monthly.csv");
  assert.equal(readFileSync(await download.path(), "utf8").trim(), usage("monthly", "--csv").trim(), "the CLI's CSV, byte for byte");
  page.checkOffline();
});

test("the 5-hour windows say who used each, as `baton usage blocks --by-session` does", async () => {
  const page = await openPage();
  await load(page, "#folder", fixtures);
  await page.selectOption("#usage-group", "blocks");
  await page.waitForFunction(() => document.getElementById("usage-last").textContent === "Who used it");
  const shown = JSON.parse(await page.getAttribute("#usage-table", "data-json"));
  const native = JSON.parse(execFileSync(baton, ["usage", "blocks", "--by-session", "--timezone", "UTC", "--json",
    "--claude-dir", join(fixtures, "claude-code"), "--codex-dir", join(fixtures, "codex"),
    "--codex-dir", join(fixtures, "codex-limits"), "--gemini-dir", join(fixtures, "gemini"), "--qwen-dir", join(fixtures, "qwen"),
    "--opencode-dir", join(fixtures, "opencode"), "--kilo-dir", join(fixtures, "kilo"),
    "--copilot-cli-dir", join(fixtures, "copilot-cli"), "--copilot-chat-dir", join(fixtures, "copilot-chat"), "--amp-dir", join(fixtures, "amp"),
    "--aider-dir", join(fixtures, "aider"), "--cline-dir", join(fixtures, "cline"),
    "--roo-code-dir", join(fixtures, "roo-code"), "--kilo-code-dir", join(fixtures, "kilo-code")],
  { env: { PATH: process.env.PATH, HOME: tmp }, cwd: tmp }).toString());
  const brief = (w) => ({ start: w.start, end: w.end, total_tokens: w.total_tokens, cost_usd: w.cost_usd,
    sessions: w.sessions.map((s) => [s.key, s.share_percent]) });
  assert.ok(native.windows.windows.length > 1);
  assert.deepEqual(shown.map(brief), native.windows.windows.map(brief), "the same windows and shares");
  for (const w of shown) {
    const shares = w.sessions.reduce((a, s) => a + s.share_percent, 0);
    assert.ok(Math.abs(shares - 100) < 0.1 || w.total_tokens === 0, `${w.start}: shares add up (${shares})`);
  }
  // What a person reads: a window per line, its time span, and who used it.
  const cells = await page.$$eval("#usage-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.equal(cells.length, shown.length + 1);
  assert.match(cells[0][0], /^\d{4}-\d\d-\d\d \d\d:\d\d–\d\d:\d\d/);
  assert.match(cells[0][7], / \d+ %/);
  assert.equal(cells.at(-1)[7], `${shown.length} windows`);
  await (await page.$("#usage-table")).screenshot({ path: join(tmp, "windows.png") });
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#usage-csv")]);
  assert.equal(download.suggestedFilename(), "baton-usage-blocks.csv");
  assert.ok(readFileSync(await download.path(), "utf8").split("\n").length > shown.length);
  page.checkOffline();
});

test("charts fill the column, say their scale, end at the latest day, and read in dark mode", async () => {
  const page = await openPage();
  await load(page, "#folder", fixtures);
  const main = await page.$eval("main", (m) => m.clientWidth);
  for (const id of ["chart-activity", "chart-cost", "chart-tokens", "chart-models", "chart-lengths"]) {
    const width = await page.$eval(`#${id} svg`, (svg) => Number(svg.getAttribute("width")));
    assert.equal(width, main, `${id} is as wide as the column`);
  }
  const ticks = await page.$$eval("#chart-cost svg text", (t) => t.map((x) => x.textContent));
  assert.ok(ticks.some((t) => /^\$\d/.test(t)), `dollar ticks: ${ticks.join(" ")}`);
  assert.ok(await page.$("#chart-tokens svg line"), "gridlines");
  const overview = await overviewOf(page);
  const last = overview.last_at.slice(0, 10);
  const titles = await page.$$eval("#chart-activity svg rect title", (t) => t.map((x) => x.textContent));
  assert.ok(titles.at(-1).startsWith(last), `the calendar ends at ${last}: ${titles.at(-1)}`);
  const labels = await page.$$eval("#chart-activity svg text", (t) => t.map((x) => x.textContent));
  assert.ok(labels.includes("Mon") && labels.some((l) => /^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)$/.test(l)));
  // Narrower: the charts are drawn again at the new width.
  await page.setViewportSize({ width: 800, height: 900 });
  const narrow = await page.$eval("main", (m) => m.clientWidth);
  await page.waitForFunction((w) => Number(document.querySelector("#chart-models svg").getAttribute("width")) === w, narrow);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForFunction((w) => Number(document.querySelector("#chart-models svg").getAttribute("width")) === w, main);
  await page.emulateMedia({ colorScheme: "dark" });
  const colours = await page.evaluate(() => ({
    body: getComputedStyle(document.body).backgroundColor,
    text: getComputedStyle(document.querySelector("#chart-activity svg text")).fill,
  }));
  assert.equal(colours.body, "rgb(13, 17, 23)");
  assert.equal(colours.text, "rgb(230, 237, 243)", "chart text follows the page's colour");
  await page.screenshot({ path: join(shots, "overview-dark.png"), fullPage: true });
  page.checkOffline();
});

test("the reader: beside the list, tool calls as cards, long output cut, sub-agent threads nested, tokens per message", async () => {
  const page = await openPage();
  await load(page, "#file", [join(fixtures, "claude-code/spotter-v2.1.38-tool_heavy.jsonl"),
    join(fixtures, "claude-code/handmade-v1.0.x-inline-subagents.jsonl")]);
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  const list = await page.$eval(".list-pane", (e) => e.getBoundingClientRect());
  const reader = await page.$eval("#reader", (e) => e.getBoundingClientRect());
  assert.ok(list.width > 0 && reader.left >= list.right - 1, "side by side on a wide screen");
  const opened = await page.$eval("#list tbody tr:first-child", (tr) => tr.classList.contains("current"));
  assert.ok(opened, "the open conversation is marked in the list");
  // Open the one with tool calls.
  const rows = await page.$$("#list tbody tr button");
  let found = false;
  for (const row of rows) {
    await row.click();
    await page.waitForSelector("#reader:not([hidden])");
    if (await page.$("#messages details.tool-call")) { found = true; break; }
  }
  assert.ok(found, "a conversation with tool calls");
  const call = page.locator("#messages details.tool-call").first();
  assert.equal(await call.evaluate((d) => d.open), false, "cards start folded");
  await call.locator("summary").click();
  assert.equal(await call.evaluate((d) => d.open), true, "and unfold on a click");
  const args = await call.locator("pre").textContent();
  assert.ok(args.includes("\n  "), "arguments pretty-printed");
  assert.ok(await page.$("#messages .tokens"), "tokens per response");
  await page.locator("#reader").screenshot({ path: join(shots, "reader-tools.png") });
  await page.screenshot({ path: join(shots, "reader-beside-list.png") });
  // A sub-agent's thread is one folded item with its messages nested inside.
  for (const row of await page.$$("#list tbody tr button")) {
    await row.click();
    await page.waitForSelector("#reader:not([hidden])");
    if (await page.$("#messages > li.thread")) break;
  }
  const thread = page.locator("#messages > li.thread").first();
  assert.match(await thread.locator("summary").first().textContent(), /Sub-agent thread · \d+ message/);
  await thread.locator("summary").first().click();
  assert.ok(await thread.locator("ol.nested > li.message").count() > 0);
  // Narrow: the reader takes the list's place, and Esc brings the list back.
  await page.setViewportSize({ width: 390, height: 844 });
  assert.ok(await page.isHidden(".list-pane"), "the reader replaces the list");
  await page.keyboard.press("Escape");
  await page.waitForSelector("#reader[hidden]", { state: "attached" });
  assert.ok(await page.isVisible(".list-pane"));
  await page.setViewportSize({ width: 1280, height: 900 });
  page.checkOffline();
});

test("long tool output is cut with a way to see it all", async () => {
  const page = await openPage();
  const dir = mkdtempSync(join(tmpdir(), "baton-long-"));
  const file = join(dir, "long.jsonl");
  const base = { sessionId: "s-long", cwd: "/w", version: "2.1.0" };
  const output = Array.from({ length: 300 }, (_, i) => `line ${i + 1}`).join("\n");
  writeFileSync(file, [
    { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-11-01T10:00:00Z", message: { role: "user", content: "list it" } },
    { ...base, type: "assistant", uuid: "a1", parentUuid: "u1", timestamp: "2026-11-01T10:00:01Z",
      message: { id: "r1", model: "claude-sonnet-4-5", role: "assistant", usage: { input_tokens: 1200, output_tokens: 34 },
        content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "seq 300" } }] } },
    { ...base, type: "user", uuid: "t1r", parentUuid: "a1", timestamp: "2026-11-01T10:00:02Z",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: output }] } },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n");
  await load(page, "#file", [file]);
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  assert.match(await page.textContent("#messages details.tool-call summary"), /Bash\s*seq 300/, "the call named by its command");
  assert.match(await page.textContent("#messages .tokens"), /1\.2K in · 34 out/);
  const result = page.locator("#messages details.tool-result").first();
  await result.locator("summary").click();
  assert.equal((await result.locator("pre").textContent()).split("\n").length, 40, "cut to 40 lines");
  await result.locator(".show-all").click();
  assert.equal((await result.locator("pre").textContent()).split("\n").length, 300, "all of it on request");
  page.checkOffline();
});

test("a folder of many transcripts is read without asking each file's size, and counts as the CLI does", async () => {
  const page = await openPage();
  const many = join(tmp, "many");
  execFileSync(generator, [many, "--sessions", "50"]);
  const files = readdirSync(join(many, "claude"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath ?? e.path, e.name));
  assert.ok(files.length > 64, `${files.length} files take the many-files path`);
  await load(page, "#file", files);
  const overview = await overviewOf(page);
  assert.equal(overview.files, files.length);
  assert.deepEqual(overview, nativeAnalyze(...files).overview, "one core, one answer");
  assert.match(await page.textContent("#status"), new RegExp(`${files.length} file\\(s\\) added`));
  page.checkOffline();
});

test("hostile text in every view stays inert: titles, models, projects, tools, file names, goals, charts", async () => {
  const page = await openPage();
  const dir = mkdtempSync(join(tmpdir(), "baton-hostile-"));
  const file = join(dir, "x<img src=y onerror=window.__xss=7>.jsonl");
  const model = "claude-<img src=x onerror=window.__xss=5>";
  const cwd = "/w/<svg onload=window.__xss=6>";
  const base = { sessionId: "xss-2", cwd };
  writeFileSync(file, [
    { ...base, type: "custom-title", customTitle: "<script>window.__xss=8</script><a href=\"javascript:window.__xss=9\">t</a>" },
    { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-07-18T10:00:00Z", message: { role: "user", content: "go" } },
    { ...base, type: "assistant", uuid: "a1", parentUuid: "u1", timestamp: "2026-07-18T10:00:01Z",
      message: { id: "r1", model, role: "assistant", usage: { input_tokens: 100, output_tokens: 5 },
        content: [{ type: "tool_use", id: "t1", name: "<img src=z onerror=window.__xss=10>",
          input: { command: "<svg/onload=window.__xss=11>", path: "javascript:window.__xss=12" } }] } },
    { ...base, type: "user", uuid: "t1r", parentUuid: "a1", timestamp: "2026-07-18T10:00:02Z",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "<iframe src=javascript:window.__xss=13>" }] } },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n");
  const ledger = join(dir, ".baton");
  execFileSync(baton, ["--dir", ledger, "--json", "start", "--project", "p", "--agent", "claude-code",
    "--goal", "<img src=q onerror=window.__xss=14>", "--provider-session-id", "xss-2"], { env: { PATH: process.env.PATH, BATON_FSYNC: "0", ...userFolders } });
  await load(page, "#file", [file, join(ledger, "events.ndjson")]);
  for (const group of ["model", "project", "session"]) {
    await page.selectOption("#usage-group", group);
    await page.waitForFunction((g) => document.getElementById("usage-key").textContent.toLowerCase() === g, group);
  }
  await page.click("#list tbody tr:first-child button");
  await page.waitForSelector("#reader:not([hidden])");
  for (const summary of await page.$$("#messages summary")) await summary.click();
  await page.click("#sessions tbody tr:first-child button");
  await page.waitForSelector("#timeline li");
  const hostile = await page.evaluate(() => ({
    xss: window.__xss,
    inlineScripts: document.querySelectorAll("script:not([src])").length,
    elements: document.querySelectorAll("img, iframe, object, embed, foreignObject, svg script, svg a").length,
    handlers: [...document.querySelectorAll("*")]
      .filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith("on"))).length,
    badLinks: [...document.querySelectorAll("a[href]")]
      .filter((a) => !/^(https?:|mailto:|#)/.test(a.getAttribute("href"))).length,
  }));
  assert.deepEqual(hostile, { xss: undefined, inlineScripts: 0, elements: 0, handlers: 0, badLinks: 0 });
  const shown = await page.textContent("body");
  for (const text of [model, cwd, "<script>window.__xss=8</script>", "<img src=q onerror=window.__xss=14>"]) {
    assert.ok(shown.includes(text), `${text} reads as text`);
  }
  assert.ok((await page.textContent("#chart-tokens")).includes(model), "the chart names the model as text");
  page.checkOffline();
});

test("a file gone between choosing and reading is named (FILE_UNREADABLE), and the rest loads", async () => {
  const page = await openPage();
  const dir = mkdtempSync(join(tmpdir(), "baton-gone-"));
  const many = join(dir, "generated");
  execFileSync(generator, [many, "--sessions", "40"]);
  const present = readdirSync(join(many, "claude"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath ?? e.path, e.name));
  for (const [label, files] of [["few", present.slice(0, 3)], ["many", present]]) {
    const gone = join(dir, `gone-${label}.jsonl`);
    writeFileSync(gone, readFileSync(present[0]));
    // The files are chosen in a probe input, the one file is deleted, then the page is handed
    // the chosen files, as if the person had been slow to press Open.
    await page.evaluate(() => {
      document.getElementById("probe")?.remove();
      const probe = Object.assign(document.createElement("input"), { type: "file", multiple: true, id: "probe" });
      document.body.append(probe);
    });
    await page.setInputFiles("#probe", [...files, gone]);
    execFileSync("rm", [gone]);
    await page.evaluate(() => { document.body.dataset.state = "loading"; });
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      for (const f of document.getElementById("probe").files) transfer.items.add(f);
      const input = document.getElementById("file");
      input.files = transfer.files;
      input.dispatchEvent(new Event("change"));
    });
    await page.waitForSelector("body[data-state=ready]");
    const problem = await page.textContent("#problem");
    // With a few files, Chromium sizes the gone one at 0 bytes when asked: it reads as empty.
    assert.match(problem, label === "many" ? /FILE_UNREADABLE/ : /FILE_UNREADABLE|is empty/, `${label}: ${problem}`);
    assert.match(problem, new RegExp(`gone-${label}\\.jsonl`));
    assert.match(await page.textContent("#status"), new RegExp(`${files.length} file\\(s\\) added`), label);
  }
  page.checkOffline();
});
