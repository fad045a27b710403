// @ts-check
// What the extension shows, decided without the editor: the workspace's ledger read through
// Baton's embedded core (its wasm, via the baton-core package), merged with what `baton watch`
// adds when the binary is there (liveness, cost from the mirror), into tree rows, a status bar
// line and a timeline document. Everything here is plain data, so Node tests run it as is.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** The embedded core (`core/` holds the baton-core package's Node build). */
function loadCore() {
  return require("../core/index.cjs");
}

/** The ledger files of a `.baton` folder in the order the core folds them: the monthly
 * archives, the logs a compaction sealed and has not rolled up yet, then the active log.
 * Missing folder: none. */
function ledgerFiles(batonDir) {
  const files = [];
  const ndjson = (dir, keep) =>
    fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith(".ndjson") && keep(n)).sort().map((n) => path.join(dir, n)) : [];
  files.push(...ndjson(path.join(batonDir, "archive"), () => true));
  files.push(...ndjson(batonDir, (n) => n.startsWith("sealed-")));
  const active = path.join(batonDir, "events.ndjson");
  if (fs.existsSync(active)) files.push(active);
  return files;
}

const CHUNK = 4 << 20;

/** Reads the ledger through the core's analyzer (chunked, as the page does): the work
 * overview (sessions in hand-off order with health and cost) and the ledger's text. */
function readWorkspace(core, batonDir, name = "vscode") {
  const files = ledgerFiles(batonDir);
  core.request({ op: "analyzer_open", analyzer: name });
  let ledger = "";
  try {
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      ledger += bytes.toString("utf8");
      if (ledger && !ledger.endsWith("\n")) ledger += "\n";
      core.request({ op: "analyzer_begin", analyzer: name, name: path.relative(path.dirname(batonDir), file) });
      for (let at = 0; at < bytes.length; at += CHUNK) {
        core.request({ op: "analyzer_push", analyzer: name, base64: bytes.subarray(at, at + CHUNK).toString("base64") });
      }
      core.request({ op: "analyzer_finish", analyzer: name });
    }
    const work = core.request({ op: "analyzer_work", analyzer: name });
    return { work, ledger, files };
  } finally {
    core.request({ op: "analyzer_close", analyzer: name });
  }
}

const LIVE = new Set(["working", "paused"]);

/** Text from the ledger shown as Markdown: its Markdown and HTML characters escaped, so a
 * goal cannot become a link, an image or markup. */
function markdownText(text) {
  return String(text).replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`).replace(/\s+/g, " ");
}

/** Money as people read it. */
function dollars(value) {
  if (value == null) return null;
  return value < 0.01 && value > 0 ? "<$0.01" : `$${value.toFixed(2)}`;
}

/** "3m ago", "2h ago", "5d ago". */
function ago(iso, now) {
  if (!iso) return "";
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86400)}d ago`;
}

/**
 * The rows of the tree: live sessions first (most recently active first), then the newest
 * ended ones. `watch` is `baton --json watch --once`'s answer, or null without the binary.
 */
function sessionRows(work, watch, now, endedShown = 20) {
  const seen = new Map((watch?.sessions ?? []).map((s) => [s.session_id, s]));
  const rows = work.sessions.map((card) => {
    const s = card; // a work card is the session with its hand-offs and cost beside it
    const live = LIVE.has(s.status);
    const watched = seen.get(s.session_id);
    const cost = watched?.cost_usd ?? card.cost_usd ?? null;
    const health = s.health ?? null;
    const liveness = watched?.liveness ?? (live ? "unknown" : null);
    const lastAt = s.last_event_at ?? s.started_at;
    const parts = [s.status];
    if (health) parts.push(`${health.verdict} ${health.overall}`);
    if (liveness && liveness !== "unknown") parts.push(liveness);
    const money = dollars(cost);
    if (money) parts.push(money);
    parts.push(ago(lastAt, now));
    return {
      id: s.session_id,
      agent: s.agent,
      live,
      label: `${s.agent} · ${s.goal || s.path}`,
      description: parts.join(" · "),
      status: s.status,
      verdict: health?.verdict ?? null,
      overall: health?.overall ?? null,
      liveness,
      cost,
      lastAt,
      path: s.path,
      project: s.project,
      startedAt: s.started_at,
      tooltip: [
        `**${markdownText(s.path)}**`,
        s.goal ? `Goal: ${markdownText(s.goal)}` : null,
        `Status: ${s.status}${liveness ? ` (agent ${liveness})` : ""}`,
        health ? `Health: ${health.overall} (${health.verdict})` : null,
        money ? `Cost: ${money}${card.cost_source ? ` (${card.cost_source})` : ""}` : "Cost: no transcript tied to it yet",
        `Started ${s.started_at}, last activity ${ago(lastAt, now)}`,
      ].filter(Boolean).join("\n\n"),
    };
  });
  const byRecent = (a, b) => (b.lastAt > a.lastAt ? 1 : b.lastAt < a.lastAt ? -1 : 0);
  const live = rows.filter((r) => r.live).sort(byRecent);
  const ended = rows.filter((r) => !r.live).sort(byRecent).slice(0, endedShown);
  return { live, ended, total: rows.length };
}

/** The status bar: the live session most recently active, and how many others are live. */
function statusLine(rows) {
  const [current, ...others] = rows.live;
  if (!current) return { text: "$(circle-outline) Baton: no live session", session: null, tooltip: "No live work session in this workspace." };
  const health = current.overall == null ? "" : ` ${current.verdict} ${current.overall}`;
  const more = others.length ? ` (+${others.length})` : "";
  return {
    text: `${current.verdict === "stale" ? "$(warning)" : "$(pulse)"} ${current.agent}${health}${more}`,
    session: current.id,
    tooltip: `${current.path}\n${current.description}${more ? `\n${others.length} other live session(s)` : ""}`,
  };
}

/** A session's timeline as Markdown, from the core's `timeline` query on the ledger. */
function timelineMarkdown(core, ledger, sessionId, title, now) {
  const answer = core.request({ op: "query", ledger, now: now.toISOString(), request: { op: "timeline", session_id: sessionId } });
  const mark = { red: "🔴", amber: "🟠", green: "🟢" };
  const lines = [`# ${title}`, "", `Session \`${sessionId}\`, ${answer.response.events.length} event(s), oldest first.`, "",
    "| When (UTC) | Who | What |", "| --- | --- | --- |"];
  for (const e of answer.response.events) {
    const when = e.at.replace("T", " ").replace(/\.\d+Z$/, "");
    const what = `${mark[e.tone] ?? ""} ${e.summary}`.trim().replace(/\s+/g, " ").replaceAll("|", "\\|");
    lines.push(`| ${when} | ${e.actor_name} (${e.actor}) | ${what} |`);
  }
  return lines.join("\n") + "\n";
}

module.exports = { loadCore, ledgerFiles, markdownText, readWorkspace, sessionRows, statusLine, timelineMarkdown, dollars, ago };
