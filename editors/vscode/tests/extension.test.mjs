// The extension under Node with a stub of `vscode`, on a real ledger written by the real
// `baton` binary: the tree and status bar show the sessions with status and health; a write
// by another process refreshes them through the file watcher; start and end go through the
// binary (and fail clearly without it, writing nothing); the timeline opens as Markdown.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// Baton's per-user index and caches in a folder of this run's: never the real user's.
process.env.XDG_DATA_HOME = mkdtempSync(join(tmpdir(), "baton-user-data-"));
process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), "baton-user-cache-"));
const root = resolve(here, "../../..");
const baton = process.env.BATON_BIN || join(root, "target/debug/baton");
const require = createRequire(import.meta.url);
const Module = require("node:module");
const stubPath = join(here, "vscode-stub.cjs");
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "vscode" ? stubPath : resolveFilename.call(this, request, ...rest);
};
const { _stub: state } = require(stubPath);
const extension = require("../src/extension.js");
const model = require("../src/model.js");

let workspace, api;
const context = { subscriptions: [] };
const cli = (...args) =>
  JSON.parse(execFileSync(baton, ["--json", ...args], { cwd: workspace, env: { ...process.env, BATON_FSYNC: "0" } }).toString());
const tree = () => {
  const provider = state.providers.get("baton.sessions");
  const top = provider.getChildren();
  const ended = top.find((i) => i.contextValue === "ended");
  return { live: top.filter((i) => i.contextValue === "session.live"), ended: ended ? provider.getChildren(ended) : [] };
};
const waitFor = async (check, what) => {
  for (let i = 0; i < 100; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
};

before(async () => {
  workspace = mkdtempSync(join(tmpdir(), "baton-vscode-"));
  const first = cli("start", "--project", "shop", "--agent", "claude", "--goal", "Add search");
  cli("start", "--project", "shop", "--agent", "codex", "--goal", "Fix the cart", "--parent", first.session_id);
  cli("end", first.session_id, "--summary", "search added");
  state.folder = workspace;
  state.config = { path: baton, agent: "vscode" };
  api = extension.activate(context);
  await api.ready;
});

after(() => {
  for (const subscription of context.subscriptions) subscription.dispose?.();
  rmSync(workspace, { recursive: true, force: true });
});

test("the tree lists live sessions with status and health, ended ones under Ended", () => {
  const { live, ended } = tree();
  assert.equal(live.length, 1);
  assert.match(live[0].label, /^codex · Fix the cart$/);
  assert.match(live[0].description, /^working · healthy 100 · /);
  assert.equal(live[0].iconPath.id, "pulse");
  assert.equal(live[0].iconPath.color.id, "charts.green");
  assert.match(live[0].tooltip.value, /Cost: no transcript tied to it yet/);
  assert.equal(ended.length, 1);
  assert.match(ended[0].label, /^claude · Add search$/);
  assert.match(ended[0].description, /^complete · /);
});

test("the status bar shows the current session and its health; a click opens its timeline", async () => {
  const status = state.statusItems[0];
  assert.ok(status.shown);
  assert.equal(status.text, "$(pulse) codex healthy 100");
  assert.equal(status.command.command, "baton.openTimeline");
  const doc = await state.commands.get(status.command.command)(...status.command.arguments);
  assert.match(doc.content, /codex · Fix the cart/);
  assert.equal(state.picks.length, 0, "no picker: the status bar names its session");
});

test("another process's write refreshes the tree through the file watcher", async () => {
  cli("start", "--project", "shop", "--agent", "cursor", "--goal", "Checkout page");
  const watcher = state.watchers.find((w) => w.pattern.base === workspace);
  assert.ok(watcher, "the extension watches the workspace's ledger");
  assert.equal(watcher.pattern.pattern, ".baton/{events.ndjson,sealed-*.ndjson,archive/*.ndjson}");
  watcher.change.fire({ fsPath: join(workspace, ".baton/events.ndjson") });
  await waitFor(() => tree().live.length === 2, "the new session in the tree");
  assert.match(tree().live[0].label, /^cursor · Checkout page$/);
  assert.equal(state.statusItems[0].text, "$(pulse) cursor healthy 100 (+1)");
});

test("start and end go through the baton binary, into this workspace's ledger", async () => {
  state.answers = { input: ["--review the diff"] };
  const started = await state.commands.get("baton.startSession")();
  assert.equal(started.agent, "vscode");
  assert.equal(started.goal, "--review the diff", "a goal that looks like a flag stays a goal");
  assert.ok(tree().live.some((i) => i.label === "vscode · --review the diff"));
  const item = tree().live.find((i) => i.label === "vscode · --review the diff");
  state.answers = { input: ["-looked fine"] };
  const ended = await state.commands.get("baton.endSession")(item);
  assert.equal(ended.status, "complete");
  assert.equal(ended.summary, "-looked fine");
  assert.ok(!tree().live.some((i) => i.label === "vscode · --review the diff"));
  assert.ok(tree().ended.some((i) => i.label === "vscode · --review the diff"));
});

test("a workspace inside another project's folder keeps its own ledger", async () => {
  const inner = join(workspace, "packages", "app");
  mkdirSync(inner, { recursive: true });
  const saved = state.folder;
  state.folder = inner;
  const innerContext = { subscriptions: [] };
  const innerApi = extension.activate(innerContext);
  await innerApi.ready;
  state.answers = { input: ["Inner work"] };
  const started = await state.commands.get("baton.startSession")();
  assert.ok(started, "started");
  assert.ok(existsSync(join(inner, ".baton/events.ndjson")), "the inner workspace's own ledger");
  assert.ok(!readFileSync(join(workspace, ".baton/events.ndjson"), "utf8").includes("Inner work"));
  assert.equal(innerApi.provider.rows.live.length, 1);
  for (const subscription of innerContext.subscriptions) subscription.dispose?.();
  state.folder = saved;
  // Re-register the outer workspace's commands for the tests that follow.
  for (const subscription of context.subscriptions) subscription.dispose?.();
  api = extension.activate(context);
  await api.ready;
});

test("an older refresh that ends last does not overwrite a newer one", async () => {
  // The older refresh's baton waits until the newer refresh has ended: the order is fixed by
  // the test, not by how fast two processes start. The binary's path is read when a refresh
  // begins, so each refresh gets its own.
  const release = join(workspace, "slow.release");
  const slowBaton = join(workspace, "slow-baton.sh");
  writeFileSync(
    slowBaton,
    `#!/bin/sh\nn=0\nwhile [ ! -e "${release}" ] && [ $n -lt 600 ]; do sleep 0.05; n=$((n+1)); done\nexec "${baton}" "$@"\n`,
    { mode: 0o755 },
  );
  const provider = api.provider;
  const order = [];
  state.config = { path: slowBaton, agent: "vscode" };
  const older = provider.refresh(new Date(Date.parse("2030-01-01T00:00:00Z"))).then(() => order.push("older"));
  state.config = { path: baton, agent: "vscode" };
  const newer = provider.refresh(new Date()).then(() => order.push("newer"));
  await newer;
  writeFileSync(release, "");
  await older;
  assert.deepEqual(order, ["newer", "older"], "the older refresh ended last");
  for (const row of provider.rows.live) assert.doesNotMatch(row.description, /\d+d ago$/, "the rows are the newer refresh's");
});

test("without the binary, start fails with a message saying what to do and writes nothing", async () => {
  const before = readFileSync(join(workspace, ".baton/events.ndjson"));
  state.config = { path: join(workspace, "no-such-baton"), agent: "vscode" };
  state.answers = { input: ["Should not start"] };
  const answer = await state.commands.get("baton.startSession")();
  assert.equal(answer, null);
  const message = state.messages.at(-1);
  assert.equal(message.level, "error");
  assert.match(message.text, /baton binary was not found .* set "baton\.path"/);
  assert.deepEqual(readFileSync(join(workspace, ".baton/events.ndjson")), before);
  // The tree still reads the ledger through the embedded core.
  await api.refresh();
  assert.equal(tree().live.length, 2);
  state.config = { path: baton, agent: "vscode" };
});

test("a session's timeline opens as Markdown, read by the embedded core", async () => {
  const item = tree().ended.find((i) => i.label === "claude · Add search");
  const doc = await state.commands.get("baton.openTimeline")(item);
  assert.equal(doc.language, "markdown");
  assert.match(doc.content, /^# shop\/.*claude.*: claude · Add search/);
  assert.match(doc.content, /\| When \(UTC\) \| Who \| What \|/);
  assert.match(doc.content, /started/i);
  assert.match(doc.content, /🟢/, "the end shows as completion");
});

test("the model reads archives, then sealed logs, then the active log; text stays text", () => {
  assert.deepEqual(model.ledgerFiles(join(workspace, "nowhere")), []);
  const dir = join(workspace, "ordered", ".baton");
  mkdirSync(join(dir, "archive"), { recursive: true });
  for (const f of ["events.ndjson", "sealed-b.ndjson", "sealed-a.ndjson", "archive/2026-02.ndjson", "archive/2026-01.ndjson", "config.toml", "archive/notes.txt"]) {
    writeFileSync(join(dir, f), "");
  }
  assert.deepEqual(model.ledgerFiles(dir).map((f) => f.slice(dir.length + 1)), [
    "archive/2026-01.ndjson", "archive/2026-02.ndjson", "sealed-a.ndjson", "sealed-b.ndjson", "events.ndjson",
  ]);
  assert.equal(model.markdownText("see ![x](http://e/i.png)\n<b>"), "see \\!\\[x\\]\\(http://e/i\\.png\\) \\<b\\>");
  assert.equal(model.dollars(null), null);
  assert.equal(model.dollars(0.004), "<$0.01");
  assert.equal(model.dollars(1.5), "$1.50");
  assert.equal(model.ago("2026-01-01T00:00:00Z", new Date("2026-01-01T02:30:00Z")), "2h ago");
  assert.ok(existsSync(join(here, "../core/node/baton_web_bg.wasm")), "the core is embedded");
});
