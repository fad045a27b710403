// The page: hands files to the worker, shows progress, and renders what the core answers.
// Nothing here parses a file; every figure, chart and branch comes from the core.
const worker = new Worker("worker.js", { type: "module" });
const $ = (id) => document.getElementById(id);
const pending = new Map();
let nextCall = 0;
let loadStarted = 0;

function call(method, ...args) {
  const id = ++nextCall;
  worker.postMessage({ type: "call", id, method, args });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const status = $("status");
const problem = $("problem");
const state = { query: { search: "", sort: "updated", provider: null, model: null, limit: 100, offset: 0 },
  reading: null, rows: [], overview: null };

function text(tag, content, className) {
  const el = document.createElement(tag);
  if (content != null) el.textContent = content;
  if (className) el.className = className;
  return el;
}

const day = (t) => (t ? t.slice(0, 10) : "—");
const when = (t) => (t ? t.replace("T", " ").slice(0, 16) : "");
const number = (n) => new Intl.NumberFormat("en").format(n);
const PROVIDERS = { "claude-code": "Claude Code", codex: "Codex", gemini: "Gemini CLI", qwen: "Qwen Code", opencode: "OpenCode", kilo: "Kilo CLI", "copilot-cli": "Copilot CLI", "copilot-chat": "Copilot Chat", amp: "Amp", aider: "Aider", cline: "Cline", "roo-code": "Roo Code", "kilo-code": "Kilo Code", cursor: "Cursor", "cursor-transcripts": "Cursor agent transcripts", "cursor-cli": "Cursor CLI", chatgpt: "ChatGPT", "claude-ai": "claude.ai" };
const FORMATS = { claude_code: "Claude Code", codex: "Codex", gemini: "Gemini CLI", qwen: "Qwen Code", opencode: "OpenCode", kilo: "Kilo CLI", copilot_cli: "Copilot CLI", copilot_chat: "Copilot Chat", amp: "Amp", aider: "Aider", cline: "Cline", roo_code: "Roo Code", kilo_code: "Kilo Code", cursor: "Cursor", cursor_transcripts: "Cursor agent transcripts", cursor_cli: "Cursor CLI", chatgpt: "ChatGPT", claude_ai: "claude.ai", baton_ledger: "Baton ledger" };

function download(name, content, type) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = Object.assign(document.createElement("a"), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// ---- loading -------------------------------------------------------------------------------

// Small files are read here, a group at a time (one read of a Blob made of up to 512 of
// them), and their bytes handed to the worker without a copy: the worker's thread stays on
// parsing while this one waits on the disk, and a folder of thousands of transcripts does not
// pay a round trip per file. Large files go to the worker as they are, read there in slices.
const SMALL = 1 << 20;
let cancelRequested = false;

function groupsOf(files) {
  const groups = [];
  for (const file of files) {
    const last = groups[groups.length - 1];
    if (file.size <= SMALL && last?.small && last.files.length < 512 && last.bytes + file.size <= 8 * SMALL) {
      last.files.push(file);
      last.bytes += file.size;
    } else {
      groups.push({ small: file.size <= SMALL, files: [file], bytes: file.size });
    }
  }
  return groups;
}

// The extensions the file picker offers: the core's list, sent when the worker starts.
let extensions = [];
let markReady;
const workerReady = new Promise((resolve) => { markReady = resolve; });

let acked = 0;
let ackWaiter = null;
async function load(files) {
  await workerReady; // the core that picks a folder's files
  // In path order, as a native walk reads them: a Cline task's companion files come before
  // the ui_messages.json they are read with (the core holds them until then).
  files.sort((a, b) => (pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0));
  if (files.length > 1) {
    // Which files of a folder are read (by ending, by an agent's file name or folder; an
    // unzipped export's side files passed over): the core decides.
    const taken = await call("takenFromFolder", files.map(pathOf));
    // An empty file found in a folder holds nothing to read (a chat just opened); one chosen
    // by name is read and said to be empty (or gone).
    const inFolder = (f) => pathOf(f).includes("/");
    const kept = (f, i) => taken[i] && (f.size > 0 || !inFolder(f));
    // First the files that say where the transcripts below them were made (VS Code's
    // workspace.json, Gemini CLI's projects.json: answer 2), then the rest in path order.
    files = [
      ...files.filter((f, i) => taken[i] === 2 && kept(f, i)),
      ...files.filter((f, i) => taken[i] === 1 && kept(f, i)),
    ];
  }
  if (!files.length) return;
  problem.hidden = true;
  loadStarted = performance.now();
  cancelRequested = false;
  $("loading").hidden = false;
  $("progress").value = 0;
  $("progress-label").textContent = `Reading ${number(files.length)} file(s)…`;
  status.textContent = "Working…";
  document.body.dataset.state = "loading";
  if (files.length > MANY_FILES) await sendMany(files);
  else await sendFew(files);
  worker.postMessage({ type: "end-load", width: chartWidth() });
}

/** At most a few batches waiting in the worker: memory stays bounded. */
async function waitForWorker(sent) {
  while (sent - acked > 3 && !cancelRequested) await new Promise((resolve) => { ackWaiter = resolve; });
}

// A few files: their sizes are cheap to ask, so small ones are read together (one Blob of up
// to 512) and large ones go to the worker as they are, read there in slices.
async function sendFew(files) {
  const total = files.reduce((n, f) => n + f.size, 0);
  worker.postMessage({ type: "begin-load", total, count: files.length });
  let sent = 0;
  acked = 0;
  // Several groups are read at once (the browser reads files on a pool of threads), and sent
  // in order.
  const groups = groupsOf(files);
  const reads = [];
  const startRead = (i) => {
    const group = groups[i];
    if (group && group.small && !reads[i]) reads[i] = new Blob(group.files).arrayBuffer();
  };
  for (const [i, group] of groups.entries()) {
    if (cancelRequested) break;
    for (let k = i; k < i + 4; k++) startRead(k);
    const bytes = group.small ? await reads[i].catch(() => null) : null;
    reads[i] = null;
    if (bytes) {
      const names = group.files.map((f) => f.webkitRelativePath || f.name);
      const sizes = group.files.map((f) => f.size);
      worker.postMessage({ type: "group", names, sizes, bytes }, [bytes]);
    } else {
      // A large file, or a group one of whose files could not be read: the worker reads each
      // file itself and names the one that fails.
      for (const file of group.files) worker.postMessage({ type: "file", file });
    }
    sent += bytes ? 1 : group.files.length;
    await waitForWorker(sent);
  }
}

// Many files (a folder of transcripts): in Chromium each file's size costs a round trip to
// the browser process, as much as reading the file does, so sizes are never asked. Files are
// read whole, a batch at a time with the next batch already on its way, and handed over
// without a copy; the worker slices the large ones. Progress counts files.
const MANY_FILES = 64;
const BATCH = 64;

async function sendMany(files) {
  worker.postMessage({ type: "begin-load", total: null, count: files.length });
  let sent = 0;
  acked = 0;
  const read = (from) => Promise.all(files.slice(from, from + BATCH).map((f) => f.arrayBuffer().catch((e) => e)));
  let next = read(0);
  for (let from = 0; from < files.length && !cancelRequested; from += BATCH) {
    const batch = files.slice(from, from + BATCH);
    const results = await next;
    if (from + BATCH < files.length) next = read(from + BATCH);
    const names = batch.map(pathOf);
    const buffers = results.map((r) => (r instanceof ArrayBuffer ? r : null));
    const unreadable = results.map((r) => (r instanceof ArrayBuffer ? null : String(r?.message || r)));
    worker.postMessage({ type: "buffers", names, buffers, unreadable }, buffers.filter(Boolean));
    await waitForWorker(++sent);
  }
}

function showProgress(p) {
  // Without a byte total (many files, sizes never asked), progress counts files.
  const fraction = p.total ? p.done / p.total : (p.index + 1) / p.count;
  $("progress").value = Math.min(1, fraction);
  const mb = (n) => (n / 1e6).toFixed(0);
  $("progress-label").textContent = p.phase === "unpacking"
    ? `Unpacking ${p.name}: ${mb(p.done)} of ${mb(p.total)} MB`
    : p.total
      ? `Reading ${p.name} (${number(p.index + 1)} of ${number(p.count)}): ${mb(p.done)} of ${mb(p.total)} MB`
      : `Reading ${p.name} (${number(p.index + 1)} of ${number(p.count)}): ${mb(p.done)} MB so far`;
}

function explain(e) {
  const li = text("li");
  const size = e.size != null ? ` (${number(e.size)} bytes)` : "";
  li.append(text("strong", `${e.name}${size}: `), text("code", e.error.code), document.createTextNode(` ${e.error.message}`));
  return li;
}

function loaded(msg) {
  document.body.dataset.answeredMs = String(Math.round(performance.now() - loadStarted));
  document.body.dataset.beganMs = String(Math.round(msg.beganAt - performance.timeOrigin - loadStarted));
  $("loading").hidden = true;
  const lines = [];
  if (msg.added.length) lines.push(`${msg.added.length} file(s) added.`);
  if (msg.cancelled) lines.push(`Cancelled while reading ${msg.cancelled}; nothing of it was kept.`);
  if (msg.errors.length) lines.push(`${msg.errors.length} file(s) could not be read.`);
  lines.push(`In all: ${number(msg.overview.files)} file(s), ${number(msg.overview.conversations)} conversation(s), ${number(msg.overview.sessions)} work session(s).`);
  status.textContent = lines.join(" ");
  if (msg.errors.length) {
    const list = text("ul");
    list.append(...msg.errors.map(explain));
    problem.replaceChildren(text("p", "Kept everything loaded before. These files were not read:"), list);
    problem.hidden = false;
  }
  renderOverview(msg.overview, msg.charts, msg.width);
  renderWork(msg.work);
  document.body.dataset.loadMs = String(Math.round(performance.now() - loadStarted));
  document.body.dataset.workerMs = String(Math.round(msg.millis));
  document.body.dataset.parseMs = String(Math.round(msg.parseMs));
  document.body.dataset.reportMs = String(Math.round(msg.reportMs));
  document.body.dataset.wasmMemory = String(msg.memoryBytes);
  document.body.dataset.state = msg.cancelled ? "cancelled" : "ready";
  refreshList();
}

// ---- overview ------------------------------------------------------------------------------

// Charts are drawn by the core at the width they are shown at, and again when it changes.
const chartWidth = () => Math.max(240, Math.round(document.querySelector("main").clientWidth));
let drawnWidth = 0;

function renderCharts(charts, width) {
  drawnWidth = width;
  // SVG text drawn (and escaped) by the core.
  // A chart with nothing to draw is left out: both are drawn over time, and Cursor's
  // transcripts and cursor-agent's chats keep no message times (nor, the transcripts, models).
  const o = state.overview || {};
  $("activity-block").hidden = !o.first_at;
  $("models-block").hidden = !o.first_at || !Object.keys(o.models || {}).length;
  $("chart-activity").innerHTML = charts.activity;
  $("chart-models").innerHTML = charts.models;
  $("chart-lengths").innerHTML = charts.lengths;
  $("usage-block").hidden = !charts.tokens;
  $("chart-tokens").innerHTML = charts.tokens;
  $("chart-cost").innerHTML = charts.cost;
}

let resizeTimer;
window.addEventListener("resize", () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(async () => {
    if (!state.overview || state.overview.conversations === 0) return;
    const width = chartWidth();
    if (Math.abs(width - drawnWidth) >= 16) renderCharts(await call("charts", width), width);
  }, 150);
});

function renderOverview(o, charts, width) {
  state.overview = o;
  $("overview").dataset.json = JSON.stringify(o);
  const any = o.files > 0;
  $("overview").hidden = !any || (o.conversations === 0 && o.sessions === 0 && !o.usage);
  $("conversations").hidden = o.conversations === 0;
  // A ledger alone has no conversations: no exports and no charts of nothing.
  $("conversation-views").hidden = o.conversations === 0;
  $("fig-conversations").textContent = number(o.conversations);
  $("fig-messages").textContent = number(o.messages);
  $("fig-first").textContent = day(o.first_at);
  $("fig-last").textContent = day(o.last_at);
  $("fig-formats").textContent = Object.entries(o.formats).map(([f, n]) => `${FORMATS[f] || f} (${n})`).join(", ") || "—";
  $("fig-tokens").textContent = o.usage ? number(o.usage.total_tokens) : "—";
  const cost = o.usage ? costText(o.usage, o.unpriced_models) : "—";
  $("fig-cost").textContent = /^[0-9]/.test(cost) ? `$${cost}` : cost;
  // A model the price table does not know is said, never costed at $0 as if that were a fact.
  $("unpriced-line").hidden = !o.unpriced_models.length;
  $("unpriced-line").textContent = o.unpriced_models.length
    ? `No price for: ${o.unpriced_models.join(", ")}. Costs marked * leave them out; the cost chart does not draw them.`
    : "";
  // An agent that keeps no token counts is named, its tokens never shown as zero.
  const silent = o.without_tokens || [];
  $("tokens-line").hidden = !silent.length;
  $("tokens-line").textContent = silent.map((k) => `${FORMATS[k] || k}: no token counts on disk.`).join(" ");
  $("fig-sessions").textContent = number(o.sessions);
  // Figures with nothing behind them are left out (a ledger alone has no messages or tokens).
  for (const id of ["fig-conversations", "fig-messages", "fig-first", "fig-last"]) $(id).parentElement.hidden = o.conversations === 0;
  for (const id of ["fig-tokens", "fig-cost"]) $(id).parentElement.hidden = !o.usage;
  $("fig-sessions").parentElement.hidden = o.sessions === 0;
  const models = Object.entries(o.models).sort((a, b) => b[1] - a[1]);
  $("models-line").textContent = models.length
    ? "Messages by model: " + models.slice(0, 10).map(([m, n]) => `${m} ${number(n)}`).join(" · ")
    : "";
  renderCharts(charts, width);
  if (o.usage) refreshUsage();
  const fill = (select, values, label) => {
    const current = select.value;
    select.replaceChildren(text("option", "all"), ...values.map((v) => {
      const option = text("option", label(v));
      option.value = v;
      return option;
    }));
    select.firstChild.value = "";
    select.value = values.includes(current) ? current : "";
  };
  fill($("provider"), Object.keys(o.providers), (p) => PROVIDERS[p] || p);
  fill($("model"), models.map(([m]) => m), (m) => m);
}

// ---- usage table ---------------------------------------------------------------------------

// A cost as the CLI's table shows it: `unpriced` when no model of the row has a price, a `*`
// when some have none (the line under the overview names them).
function costText(row, unpriced) {
  const missing = row.models.filter((m) => unpriced.includes(m));
  if (!missing.length) return row.cost_usd.toFixed(2);
  if (missing.length === row.models.length && row.cost_usd === 0) return "unpriced";
  return `${row.cost_usd.toFixed(2)}*`;
}

const USAGE_KEYS = { daily: "Day", weekly: "Week", monthly: "Month", model: "Model", project: "Project", session: "Session", blocks: "Window (UTC)" };

// `2026-05-28 10:00` from an instant, in UTC (the page's days are UTC).
const minute = (at) => at.slice(0, 16).replace("T", " ");

// The five-hour windows plans meter, the open one first, each with who used it: the agent
// sessions by share, as `baton usage blocks --by-session --timezone UTC` gives them.
async function refreshWindows() {
  const report = await call("windows", Date.now());
  $("usage-table").dataset.json = JSON.stringify(report.windows);
  $("usage-key").textContent = USAGE_KEYS.blocks;
  $("usage-last").textContent = "Who used it";
  const cells = (w, key, who, cls) => {
    const tr = text("tr", null, cls);
    tr.append(key,
      ...[w.input_tokens, w.output_tokens, w.cache_creation_tokens, w.cache_read_tokens, w.total_tokens]
        .map((n) => text("td", number(n), "num")),
      text("td", w.cost_usd.toFixed(2), "num"),
      text("td", who, "models"));
    return tr;
  };
  const rows = report.windows.map((w) => {
    const key = text("td", `${minute(w.start)}–${minute(w.end).slice(11)}${w.active ? " (open)" : ""}`, "key window-key");
    const who = w.sessions.slice(0, 3)
      .map((s) => `${s.key.length > 12 ? `…${s.key.slice(-8)}` : s.key} ${s.share_percent.toFixed(0)} %`)
      .join(", ") + (w.sessions.length > 3 ? `, +${w.sessions.length - 3} more` : "");
    return cells(w, key, who, w.active ? "active" : "");
  });
  const sum = (f) => report.windows.reduce((a, w) => a + f(w), 0);
  const totals = {
    input_tokens: sum((w) => w.input_tokens), output_tokens: sum((w) => w.output_tokens),
    cache_creation_tokens: sum((w) => w.cache_creation_tokens), cache_read_tokens: sum((w) => w.cache_read_tokens),
    total_tokens: sum((w) => w.total_tokens), cost_usd: sum((w) => w.cost_usd),
  };
  const n = report.windows.length;
  $("usage-table").tBodies[0].replaceChildren(...rows,
    cells(totals, text("th", "Total", "key"), `${n} window${n === 1 ? "" : "s"}`, "total"));
}

async function refreshUsage() {
  const group = $("usage-group").value;
  if (group === "blocks") return refreshWindows();
  $("usage-last").textContent = "Models";
  const report = await call("usage", group);
  $("usage-table").dataset.json = JSON.stringify(report.rows);
  $("usage-key").textContent = USAGE_KEYS[group];
  const row = (r, total) => {
    const tr = text("tr", null, total ? "total" : "");
    const t = r;
    tr.append(text(total ? "th" : "td", total ? "Total" : r.key, "key"),
      ...[t.input_tokens, t.output_tokens, t.cache_creation_tokens, t.cache_read_tokens, r.total_tokens]
        .map((n) => text("td", number(n), "num")),
      text("td", costText(r, report.unpriced_models), "num"),
      text("td", total ? `${r.models.length} model(s)` : r.models.join(", "), "models"));
    return tr;
  };
  // Newest first for periods: the rows a person looks for are at the top.
  const rows = /daily|weekly|monthly/.test(group) ? [...report.rows].reverse() : report.rows;
  $("usage-table").tBodies[0].replaceChildren(...rows.map((r) => row(r, false)), row(report.totals, true));
}
$("usage-group").addEventListener("change", refreshUsage);
$("usage-csv").addEventListener("click", async () => {
  const group = $("usage-group").value;
  const csv = group === "blocks" ? await call("windowsCsv", Date.now()) : await call("usageCsv", group);
  download(`baton-usage-${group}.csv`, csv, "text/csv");
});

// ---- list ----------------------------------------------------------------------------------

async function refreshList(append = false) {
  if (!state.overview || state.overview.conversations === 0) return;
  const natural = state.query.sort === "title";
  const query = { ...state.query, offset: append ? state.rows.length : 0,
    ascending: $("ascending").checked ? !natural : null };
  const page = await call("list", query);
  state.rows = append ? state.rows.concat(page.rows) : page.rows;
  const tbody = $("list").tBodies[0];
  const rows = page.rows.map((r) => {
    const tr = text("tr");
    const open = text("button", r.title, "link");
    open.type = "button";
    open.addEventListener("click", () => openConversation(r.index));
    const title = text("td");
    title.append(open);
    if (r.snippet) title.append(text("div", r.snippet, "snippet"));
    if (r.project) title.append(text("div", r.project, "muted small"));
    tr.append(title, text("td", PROVIDERS[r.provider] || r.provider), text("td", day(r.updated_at || r.started_at)),
      text("td", number(r.messages), "num"), text("td", r.tool_calls ? number(r.tool_calls) : "", "num"),
      text("td", r.forks ? String(r.forks) : "", "num"));
    tr.dataset.index = String(r.index);
    if (state.reading?.index === r.index) tr.classList.add("current");
    return tr;
  });
  if (append) tbody.append(...rows); else tbody.replaceChildren(...rows);
  $("list-status").textContent = `${number(page.total)} conversation(s)` +
    (state.query.search ? ` match “${state.query.search}”` : "") + `; showing ${number(state.rows.length)}.`;
  $("list").dataset.total = String(page.total);
  $("more").hidden = state.rows.length >= page.total;
}

let searchTimer;
$("search").addEventListener("input", () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { state.query.search = $("search").value.trim(); refreshList(); }, 200);
});
$("filters").addEventListener("submit", (e) => { e.preventDefault(); state.query.search = $("search").value.trim(); refreshList(); });
for (const [id, key] of [["provider", "provider"], ["model", "model"], ["sort", "sort"]]) {
  $(id).addEventListener("change", () => { state.query[key] = $(id).value || null; refreshList(); });
}
$("ascending").addEventListener("change", () => refreshList());
$("more").addEventListener("click", () => refreshList(true));

// ---- reader --------------------------------------------------------------------------------

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const ROLES = { user: "You", assistant: "Assistant", tool: "Tool", system: "System" };
// Long tool output is cut here, with a button to show the rest.
const RESULT_LINES = 40;
const RESULT_CHARS = 6000;

/** A tool call's arguments, pretty-printed when they are JSON. */
function pretty(input) {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

/** A line cut to fit a card's title, marked when cut. */
const clip = (line, max = 90) => (line.length > max ? `${line.slice(0, max - 1)}…` : line);

/** The argument a person recognizes a call by: a command, a path, a pattern, a query. */
function gist(input) {
  try {
    const args = JSON.parse(input);
    for (const key of ["command", "cmd", "file_path", "path", "pattern", "url", "query", "description", "prompt"]) {
      const value = args?.[key];
      const shown = Array.isArray(value) ? value.join(" ") : value;
      if (typeof shown === "string" && shown.trim()) return clip(shown.trim().split("\n")[0]);
    }
  } catch { /* not JSON: no gist */ }
  return "";
}

function card(summary, body, className, open = false) {
  const details = text("details", null, className);
  details.open = open;
  const head = text("summary");
  head.append(...summary);
  details.append(head);
  const lines = body.split("\n");
  const cut = lines.length > RESULT_LINES || body.length > RESULT_CHARS;
  const pre = text("pre", cut ? lines.slice(0, RESULT_LINES).join("\n").slice(0, RESULT_CHARS) : body);
  details.append(pre);
  if (cut) {
    const all = text("button", `Show all ${number(lines.length)} lines`, "show-all");
    all.type = "button";
    all.addEventListener("click", () => { pre.textContent = body; all.remove(); });
    details.append(all);
  }
  return details;
}

function blockView(block) {
  switch (block.type) {
    case "text": {
      // Markdown rendered by the core into safe HTML: a fixed set of tags, links only to
      // http(s) and mailto, raw HTML shown as text, images never loaded.
      const div = text("div", block.html == null ? block.text : null, "text markdown");
      if (block.html != null) div.innerHTML = block.html;
      for (const pre of div.querySelectorAll("pre")) {
        const copy = text("button", "Copy", "copy");
        copy.type = "button";
        copy.setAttribute("aria-label", "Copy this code");
        copy.addEventListener("click", async () => {
          try {
            await navigator.clipboard.writeText(pre.textContent);
            copy.textContent = "Copied";
          } catch {
            copy.textContent = "Copy failed";
          }
          setTimeout(() => { copy.textContent = "Copy"; }, 1500);
        });
        const box = text("div", null, "code-box");
        pre.replaceWith(box);
        box.append(pre, copy);
      }
      return div;
    }
    case "thinking": return card([text("span", "Thinking", "card-kind")], block.text, "thinking");
    case "tool_call": {
      const hint = gist(block.input);
      return card([text("span", "Tool", "card-kind"), text("strong", block.name), ...(hint ? [text("code", hint, "gist")] : [])],
        pretty(block.input), "tool tool-call");
    }
    case "tool_result": {
      const lines = block.output.split("\n");
      const first = clip(lines.find((l) => l.trim())?.trim() || "(empty)");
      return card([text("span", block.is_error ? "Error" : "Result", "card-kind"), text("code", first, "gist"),
        text("span", `${number(lines.length)} line(s)`, "muted small")],
        block.output, `tool tool-result${block.is_error ? " error" : ""}`);
    }
    default: return card([text("span", block.kind, "card-kind")], block.raw, "other");
  }
}

function tokensLine(t) {
  if (!t) return null;
  const parts = [`${compact.format(t.input_tokens)} in`, `${compact.format(t.output_tokens)} out`];
  const cached = t.cache_read_tokens + t.cache_creation_tokens;
  if (cached) parts.push(`${compact.format(cached)} cache`);
  const chip = text("span", parts.join(" · "), "tokens");
  chip.title = `input ${number(t.input_tokens)}, output ${number(t.output_tokens)}, cache write ${number(t.cache_creation_tokens)}, cache read ${number(t.cache_read_tokens)}`;
  return chip;
}

function messageView(m, index) {
  const li = text("li", null, `message role-${m.role}`);
  li.dataset.id = m.id;
  // Reachable by j/k (not by Tab: the buttons inside are).
  li.tabIndex = -1;
  const head = text("div", null, "message-head");
  head.append(text("strong", ROLES[m.role] || m.role, "who"));
  const meta = [m.model, when(m.at)].filter(Boolean).join(" · ");
  if (meta) head.append(text("span", meta, "muted small"));
  const tokens = tokensLine(m.tokens);
  if (tokens) head.append(tokens);
  if (m.alternatives.length > 1) {
    const nav = text("span", null, "branches");
    nav.setAttribute("role", "group");
    nav.setAttribute("aria-label", "Branches at this message");
    const go = (delta, label) => {
      const target = m.alternatives[m.alternative + delta];
      const b = text("button", label);
      b.type = "button";
      b.disabled = !target;
      b.setAttribute("aria-label", delta < 0 ? "Previous branch" : "Next branch");
      b.className = delta < 0 ? "branch-prev" : "branch-next";
      b.addEventListener("click", () => openConversation(index, target));
      return b;
    };
    nav.append(go(-1, "◀"), text("span", `${m.alternative + 1} / ${m.alternatives.length}`, "branch-position"), go(1, "▶"));
    head.append(nav);
  }
  li.append(head, ...m.blocks.map(blockView));
  return li;
}

/** Adds messages to the reader, each sub-agent thread folded into one nested, collapsible
 * item (a thread cut between two slices goes on in the item already drawn). */
function appendMessages(list, messages, index) {
  for (let i = 0; i < messages.length;) {
    if (!messages[i].side_chain) {
      list.append(messageView(messages[i], index));
      i += 1;
      continue;
    }
    const thread = [];
    while (i < messages.length && messages[i].side_chain) thread.push(messages[i++]);
    let li = list.lastElementChild;
    if (!li?.classList.contains("thread") || i - thread.length > 0) {
      li = text("li", null, "message thread");
      li.tabIndex = -1;
      const details = text("details");
      details.append(text("summary"), text("ol", null, "messages nested"));
      li.append(details);
      list.append(li);
    }
    const nested = li.querySelector("ol.nested");
    nested.append(...thread.map((m) => messageView(m, index)));
    const all = [...nested.children];
    const calls = all.reduce((n, m) => n + m.querySelectorAll("details.tool-call").length, 0);
    li.querySelector("summary").textContent = `Sub-agent thread · ${all.length} message(s)${calls ? `, ${calls} tool call(s)` : ""}`;
  }
}

// The first screen of a conversation is drawn at once; the rest follows a slice at a time.
const FIRST_SLICE = 120;
const NEXT_SLICE = 800;
let opening = 0;

async function openConversation(index, through = null) {
  const ticket = ++opening;
  if (state.reading && (state.reading.index !== index || state.reading.through !== through)) resetShare();
  const view = await call("view", index, through, 0, FIRST_SLICE);
  if (ticket !== opening) return;
  document.body.dataset.readerFetchMs = String(Math.round(performance.now() - openStarted));
  state.reading = { index, through, view };
  $("reader").hidden = false;
  $("browse").classList.add("reading");
  for (const tr of document.querySelectorAll("#list tr.current")) tr.classList.remove("current");
  document.querySelector(`#list tr[data-index="${index}"]`)?.classList.add("current");
  $("reader-title").textContent = view.title;
  $("reader-meta").textContent = [PROVIDERS[view.provider] || view.provider, view.project, when(view.started_at),
    `${number(view.shown_messages)} of ${number(view.total_messages)} messages`,
    view.active ? "active branch" : "another branch"].filter(Boolean).join(" · ");
  $("reader").dataset.active = String(view.active);
  const list = $("messages");
  list.replaceChildren();
  appendMessages(list, view.messages, index);
  $("reader").scrollTop = 0;
  $("reader-title").focus({ preventScroll: true });
  $("reader").scrollIntoView({ block: "start" });
  document.body.dataset.readerMs = String(Math.round(performance.now() - openStarted));
  $("reader").dataset.complete = String(view.messages.length >= view.shown_messages);
  for (let from = view.messages.length; from < view.shown_messages; from += NEXT_SLICE) {
    const next = await call("view", index, through, from, NEXT_SLICE);
    if (ticket !== opening) return;
    appendMessages(list, next.messages, index);
  }
  $("reader").dataset.complete = "true";
  document.body.dataset.readerAllMs = String(Math.round(performance.now() - openStarted));
}
let openStarted = 0;
document.addEventListener("click", (e) => { if (e.target.closest?.("#list button.link, .branches button")) openStarted = performance.now(); }, true);

// The reader by keyboard: j/k to the next or previous message, [ and ] to the previous or next
// branch at the message in focus (else the first fork shown), Esc back to the list; / to the
// search box from anywhere. Keys typed into a field are left alone.
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = e.target instanceof HTMLElement && e.target.closest("input, textarea, select");
  const reading = !$("reader").hidden;
  if (e.key === "Escape" && reading) {
    e.preventDefault();
    $("close-reader").click();
    return;
  }
  if (typing) return;
  if (e.key === "/" && !$("conversations").hidden) {
    e.preventDefault();
    closeReader(false);
    $("search").focus();
    return;
  }
  if (!reading) return;
  const messages = [...document.querySelectorAll("#messages > .message")];
  const current = messages.indexOf(document.activeElement?.closest?.("#messages > .message"));
  if (e.key === "j" || e.key === "k") {
    e.preventDefault();
    const next = e.key === "j" ? Math.min(current + 1, messages.length - 1) : Math.max(current - 1, 0);
    messages[next]?.focus();
    messages[next]?.scrollIntoView({ block: "nearest" });
  } else if (e.key === "[" || e.key === "]") {
    const wanted = e.key === "[" ? ".branch-prev:not([disabled])" : ".branch-next:not([disabled])";
    const button = messages[current]?.querySelector(wanted) || document.querySelector(`#messages ${wanted}`);
    if (button) {
      e.preventDefault();
      button.click();
    }
  }
});

function closeReader(focusRow = true) {
  $("reader").hidden = true;
  $("browse").classList.remove("reading");
  if (!focusRow) return;
  const row = document.querySelector(`#list tr[data-index="${state.reading?.index}"] button`);
  row?.focus();
  row?.scrollIntoView({ block: "nearest" });
}
$("close-reader").addEventListener("click", () => closeReader());
const safeName = (s) => (s || "conversation").replace(/[^\w.-]+/g, "-").slice(0, 60);
$("export-md").addEventListener("click", async () => {
  const { index, through, view } = state.reading;
  download(`${safeName(view.title)}.md`, await call("markdown", index, through), "text/markdown");
});
$("export-json").addEventListener("click", async () => {
  const { index, view } = state.reading;
  download(`${safeName(view.title)}.json`, await call("conversationJson", index), "application/json");
});
// ---- sharing -------------------------------------------------------------------------------

// Values the person un-masked in the preview (false positives), for the conversation open.
const share = { keep: new Set(), for: null };

function shareOptions(lock) {
  const words = $("share-words").value.split(",").map((w) => w.trim()).filter(Boolean);
  const options = { profile: $("share-profile").value, words, keep: [...share.keep], now_ms: Date.now() };
  const password = $("share-password").value;
  if (lock && password) {
    options.password = password;
    options.salt = [...crypto.getRandomValues(new Uint8Array(16))];
    options.nonce = [...crypto.getRandomValues(new Uint8Array(12))];
  }
  return options;
}

/** The preview: each value found, where it was found with the value highlighted, what
 * replaces it, how often; a checkbox leaves a false positive as it is. */
function renderSharePreview(preview) {
  const body = document.querySelector("#share-preview tbody");
  body.replaceChildren();
  for (const r of preview.replacements) {
    const tr = document.createElement("tr");
    const where = text("td", null, "where");
    const at = r.example.indexOf(r.value);
    if (r.kind !== "secret" && at >= 0) {
      where.append(r.example.slice(0, at), text("mark", r.value), r.example.slice(at + r.value.length));
    } else {
      where.append(text("mark", r.kind === "secret" ? "a key or token" : r.value));
    }
    const keep = text("td");
    if (r.kind !== "secret") {
      const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: share.keep.has(r.value) });
      box.setAttribute("aria-label", `Keep ${r.value} as it is`);
      box.addEventListener("change", () => {
        if (box.checked) share.keep.add(r.value); else share.keep.delete(r.value);
        previewShare();
      });
      keep.append(box);
    }
    tr.append(text("td", r.kind), where, text("td", r.placeholder, "id"), text("td", number(r.count), "num"), keep);
    body.append(tr);
  }
  for (const value of share.keep) {
    const tr = document.createElement("tr");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: true });
    box.setAttribute("aria-label", `Keep ${value} as it is`);
    box.addEventListener("change", () => { share.keep.delete(value); previewShare(); });
    const keep = text("td");
    keep.append(box);
    tr.append(text("td", "kept"), text("td", value, "where"), text("td", "(as it is)", "muted"), text("td", "", "num"), keep);
    body.append(tr);
  }
  $("share-preview").hidden = preview.replacements.length === 0 && share.keep.size === 0;
  $("share-status").textContent = `Redaction ${preview.profile}: ${number(preview.replacements.length)} value(s), ${number(preview.total)} replacement(s)${share.keep.size ? `, ${number(share.keep.size)} kept as they are` : ""}.`;
}

async function previewShare() {
  const { index, through } = state.reading;
  try {
    renderSharePreview(JSON.parse(await call("sharePreview", index, through, JSON.stringify(shareOptions(false)))));
  } catch (e) {
    $("share-status").textContent = e.message || String(e);
  }
}

$("share-open").addEventListener("click", () => {
  const panel = $("share-panel");
  panel.hidden = !panel.hidden;
  $("share-open").setAttribute("aria-expanded", String(!panel.hidden));
  const key = `${state.reading?.index}:${state.reading?.through}`;
  if (share.for !== key) {
    share.keep.clear();
    share.for = key;
  }
  if (!panel.hidden) previewShare();
});
$("share-preview-button").addEventListener("click", previewShare);
$("share-words").addEventListener("change", previewShare);
// Enter in a field previews; only the button downloads.
for (const id of ["share-words", "share-password"]) {
  $(id).addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      previewShare();
    }
  });
}

/** Another conversation or branch: the share panel starts over for it. */
function resetShare() {
  $("share-panel").hidden = true;
  $("share-open").setAttribute("aria-expanded", "false");
  $("share-preview").hidden = true;
  $("share-status").textContent = "";
  share.keep.clear();
  share.for = null;
}
$("share-profile").addEventListener("change", previewShare);
$("share-panel").addEventListener("submit", async (e) => {
  e.preventDefault();
  const { index, through, view } = state.reading;
  const locking = Boolean($("share-password").value);
  $("share-status").textContent = locking ? "Locking with the password…" : "Making the file…";
  try {
    const made = JSON.parse(await call("shareHtml", index, through, JSON.stringify(shareOptions(true))));
    download(made.locked ? "baton-share-locked.html" : `${safeName(made.title || view.title)}.html`, made.text, "text/html");
    $("share-status").textContent = `Downloaded: ${number(made.messages)} message(s)${made.locked ? ", locked with the password" : ""}; ${number(made.replacements.length)} value(s) redacted.`;
  } catch (err) {
    $("share-status").textContent = err.message || String(err);
  }
});

$("export-all-md").addEventListener("click", async () => download("baton-conversations.md", await call("allMarkdown"), "text/markdown"));
$("export-all-json").addEventListener("click", async () => download("baton-conversations.json", await call("allJson"), "application/json"));

// ---- work sessions -------------------------------------------------------------------------

const LIVENESS = { live: "● live", idle: "◐ idle", gone: "○ gone", unknown: "? unknown" };

function renderWork(work) {
  const sessions = work.sessions;
  $("ledger").hidden = sessions.length === 0;
  $("ledger").dataset.json = JSON.stringify(work);
  $("sessions").tBodies[0].replaceChildren(...sessions.map((s) => {
    const tr = text("tr", null, s.depth ? "handed" : "");
    tr.dataset.id = s.session_id;
    tr.dataset.depth = String(s.depth);
    const cell = text("td", null, "session-cell");
    cell.style.paddingLeft = `${0.6 + Math.min(s.depth, 8) * 1.4}rem`;
    const open = text("button", s.goal || s.path, "link");
    open.type = "button";
    open.addEventListener("click", () => openTimeline(s));
    if (s.depth) cell.append(text("span", "↳ ", "muted"));
    cell.append(open, text("div", `${s.project} · ${s.session_id}`, "muted small id"));
    const status = text("td", null);
    status.append(text("span", s.status, `badge status-${s.status}`));
    if (s.liveness) {
      const live = text("div", LIVENESS[s.liveness.state] || s.liveness.state, `small liveness-${s.liveness.state}`);
      live.title = s.liveness.reason;
      status.append(live);
    }
    const health = s.health
      ? text("td", `${s.health.overall ?? "—"} · ${s.health.verdict}`, `verdict-${s.health.verdict}`)
      : text("td", "—", "muted");
    const cost = text("td", s.cost_usd == null ? "—" : `$${s.cost_usd.toFixed(2)}`, "num");
    if (s.cost_source) cost.title = s.cost_source === "transcripts" ? "from the loaded transcripts" : "as the session's hooks recorded it";
    tr.append(cell, status, text("td", s.agent), health, text("td", when(s.started_at)), text("td", s.duration_text), cost);
    return tr;
  }));
  status.dataset.sessions = String(sessions.length);
  $("unlinked").hidden = !work.unlinked_responses;
  $("unlinked").textContent = `${number(work.unlinked_responses)} response(s) in the loaded transcripts fit no work session (none, or several, of the same project and agent were open then).`;
  $("attention-block").hidden = work.attention.length === 0;
  $("attention").replaceChildren(...work.attention.map((a) => {
    const li = text("li", null, `attention-${a.level}`);
    li.append(text("strong", `#${a.number} `), document.createTextNode(`${a.text} `), text("span", `(${when(a.at)}, urgency ${a.urgency})`, "muted small"));
    return li;
  }));
  $("missions-block").hidden = work.missions.length === 0;
  $("missions").replaceChildren(...work.missions.map((m) => {
    const li = text("li");
    li.append(text("strong", m.reference), document.createTextNode(` v${m.version} ${m.approved ? "approved" : "awaiting approval"}`));
    if (m.open_ambiguities) li.append(text("span", ` · ${m.open_ambiguities} open question(s)`, "tone-amber"));
    const clauses = text("ul", null, "small");
    clauses.append(...m.clauses.map((c) => text("li", c)));
    li.append(clauses);
    return li;
  }));
  $("decisions-block").hidden = work.decisions.length === 0;
  $("decisions").replaceChildren(...work.decisions.map((d) => {
    const li = text("li", d.text);
    li.value = d.number;
    li.append(text("span", ` ${day(d.at)}`, "muted small"));
    return li;
  }));
  $("workspace-block").hidden = work.missions.length === 0 && work.decisions.length === 0;
}

async function openTimeline(session) {
  const id = session.session_id;
  const entries = await call("timeline", id);
  $("timeline-block").hidden = false;
  $("timeline-title").textContent = `Timeline of ${session.goal || session.path}`;
  $("timeline-meta").textContent = [session.path, session.summary, session.liveness?.reason].filter(Boolean).join(" · ");
  $("timeline").replaceChildren(...entries.map((e) => {
    const li = text("li", null, `tone-${e.tone}`);
    li.append(text("span", when(e.at), "muted"), text("strong", ` ${e.kind} `), document.createTextNode(`${e.summary} (${e.actor_name})`));
    return li;
  }));
  $("timeline-block").scrollIntoView({ block: "nearest" });
}

// ---- input ---------------------------------------------------------------------------------

// Loads run one after another, in the order the files were given.
let loads = Promise.resolve();
const queueLoad = (files) => { loads = loads.then(() => load(files)); };
$("file").addEventListener("change", (e) => { queueLoad([...e.target.files]); e.target.value = ""; });
$("folder").addEventListener("change", (e) => { queueLoad([...e.target.files]); e.target.value = ""; });
$("cancel").addEventListener("click", () => {
  $("progress-label").textContent = "Cancelling…";
  cancelRequested = true;
  ackWaiter?.();
  worker.postMessage({ type: "cancel" });
});

// Where a dropped file sat in the dropped folder (a picked folder's files say it themselves).
const droppedPaths = new WeakMap();
const pathOf = (f) => f.webkitRelativePath || droppedPaths.get(f) || f.name;

async function entriesOf(entry) {
  if (entry.isFile) {
    const file = await new Promise((ok, fail) => entry.file(ok, fail));
    droppedPaths.set(file, entry.fullPath.replace(/^\//, ""));
    return [file];
  }
  if (!entry.isDirectory) return [];
  const reader = entry.createReader();
  const all = [];
  for (;;) {
    const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
    if (!batch.length) break;
    for (const child of batch) all.push(...await entriesOf(child));
  }
  return all;
}

const drop = $("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const items = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  const files = items.length ? (await Promise.all(items.map(entriesOf))).flat() : [...e.dataTransfer.files];
  queueLoad(files);
});

worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "progress") showProgress(msg);
  else if (msg.type === "ack") { acked += 1; ackWaiter?.(); ackWaiter = null; }
  else if (msg.type === "loaded") loaded(msg);
  else if (msg.type === "ready") {
    extensions = msg.extensions;
    markReady();
    $("file").accept = [...extensions.map((e) => "." + e), "application/zip", "application/json", "application/x-ndjson"].join(",");
    call("version").then((v) => { $("version").textContent = `baton-core ${v}`; document.body.dataset.ready = "true"; });
  } else if (msg.type === "reply") {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.error) {
      problem.replaceChildren(text("p", `${msg.error.code}: ${msg.error.message}`));
      problem.hidden = false;
      p?.reject(Object.assign(new Error(msg.error.message), msg.error));
    } else p?.resolve(msg.ok);
  }
};
worker.onerror = (e) => {
  problem.replaceChildren(text("p", `The analyzer stopped: ${e.message}`));
  problem.hidden = false;
};
