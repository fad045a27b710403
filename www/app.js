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
const PROVIDERS = { "claude-code": "Claude Code", codex: "Codex", chatgpt: "ChatGPT", "claude-ai": "claude.ai" };
const FORMATS = { claude_code: "Claude Code", codex: "Codex", chatgpt: "ChatGPT", claude_ai: "claude.ai", baton_ledger: "Baton ledger" };

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

// The extensions a folder's files are picked by: the core's list, sent when the worker starts.
let extensions = [];
let markReady;
const workerReady = new Promise((resolve) => { markReady = resolve; });
const takes = (name) => extensions.some((e) => name.toLowerCase().endsWith("." + e));

let acked = 0;
let ackWaiter = null;
async function load(files) {
  await workerReady; // the extensions to pick files by come with it
  files = files.filter((f) => takes(f.name) || files.length === 1);
  if (files.length > 1) {
    // An unzipped export's side files (projects.json, user.json, …) are passed over: the core decides.
    const skipped = await call("skippedExportFiles", files.map(pathOf));
    files = files.filter((_, i) => !skipped[i]);
  }
  if (!files.length) return;
  problem.hidden = true;
  loadStarted = performance.now();
  cancelRequested = false;
  $("loading").hidden = false;
  $("progress").value = 0;
  $("progress-label").textContent = `Reading ${files.length} file(s)…`;
  status.textContent = "Working…";
  document.body.dataset.state = "loading";
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
    if (!group.small) {
      worker.postMessage({ type: "file", file: group.files[0] });
    } else {
      const bytes = await reads[i];
      reads[i] = null;
      const names = group.files.map((f) => f.webkitRelativePath || f.name);
      const sizes = group.files.map((f) => f.size);
      worker.postMessage({ type: "group", names, sizes, bytes }, [bytes]);
    }
    sent += 1;
    // At most a few groups waiting in the worker: memory stays bounded.
    while (sent - acked > 3 && !cancelRequested) await new Promise((resolve) => { ackWaiter = resolve; });
  }
  worker.postMessage({ type: "end-load" });
}

function showProgress(p) {
  const fraction = p.total ? p.done / p.total : 0;
  $("progress").value = Math.min(1, fraction);
  const mb = (n) => (n / 1e6).toFixed(0);
  $("progress-label").textContent = p.phase === "unpacking"
    ? `Unpacking ${p.name}: ${mb(p.done)} of ${mb(p.total)} MB`
    : `Reading ${p.name} (${p.index + 1} of ${p.count}): ${mb(p.done)} of ${mb(p.total)} MB`;
}

function explain(e) {
  const li = text("li");
  const size = e.size != null ? ` (${number(e.size)} bytes)` : "";
  li.append(text("strong", `${e.name}${size}: `), text("code", e.error.code), document.createTextNode(` ${e.error.message}`));
  return li;
}

function loaded(msg) {
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
  renderOverview(msg.overview, msg.charts);
  renderSessions(msg.sessions);
  document.body.dataset.loadMs = String(Math.round(performance.now() - loadStarted));
  document.body.dataset.workerMs = String(Math.round(msg.millis));
  document.body.dataset.wasmMemory = String(msg.memoryBytes);
  document.body.dataset.state = msg.cancelled ? "cancelled" : "ready";
  refreshList();
}

// ---- overview ------------------------------------------------------------------------------

function renderOverview(o, charts) {
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
  $("fig-cost").textContent = o.usage ? `$${o.usage.cost_usd.toFixed(2)}` : "—";
  $("fig-sessions").textContent = number(o.sessions);
  const models = Object.entries(o.models).sort((a, b) => b[1] - a[1]);
  $("models-line").textContent = models.length
    ? "Messages by model: " + models.slice(0, 10).map(([m, n]) => `${m} ${number(n)}`).join(" · ")
    : "";
  // SVG text drawn (and escaped) by the core.
  $("chart-activity").innerHTML = charts.activity;
  $("chart-models").innerHTML = charts.models;
  $("chart-lengths").innerHTML = charts.lengths;
  $("tokens-block").hidden = !charts.tokens;
  $("chart-tokens").innerHTML = charts.tokens;
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

function blockView(block) {
  const fold = (summary, body, className) => {
    const details = text("details", null, className);
    details.append(text("summary", summary), text("pre", body));
    return details;
  };
  switch (block.type) {
    case "text": {
      // Markdown rendered by the core into safe HTML: a fixed set of tags, links only to
      // http(s) and mailto, raw HTML shown as text, images never loaded.
      const div = text("div", block.html == null ? block.text : null, "text markdown");
      if (block.html != null) div.innerHTML = block.html;
      return div;
    }
    case "thinking": return fold("Thinking", block.text, "thinking");
    case "tool_call": return fold(`Tool call: ${block.name}`, block.input, "tool");
    case "tool_result": return fold(block.is_error ? "Tool error" : "Tool result", block.output, "tool");
    default: return fold(`${block.kind}`, block.raw, "other");
  }
}

async function openConversation(index, through = null) {
  const view = await call("view", index, through);
  state.reading = { index, through, view };
  $("reader").hidden = false;
  $("reader-title").textContent = view.title;
  $("reader-meta").textContent = [PROVIDERS[view.provider] || view.provider, view.project, when(view.started_at),
    `${view.messages.length} of ${view.total_messages} messages`,
    view.active ? "active branch" : "another branch"].filter(Boolean).join(" · ");
  $("reader").dataset.active = String(view.active);
  $("messages").replaceChildren(...view.messages.map((m) => {
    const li = text("li", null, `message role-${m.role}${m.side_chain ? " side-chain" : ""}`);
    li.dataset.id = m.id;
    // Reachable by j/k (not by Tab: the buttons inside are).
    li.tabIndex = -1;
    const head = text("div", null, "message-head");
    head.append(text("strong", m.role), text("span", [m.model, when(m.at)].filter(Boolean).join(" · "), "muted"));
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
  }));
  $("reader-title").focus();
}

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
    $("reader").hidden = true;
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

$("close-reader").addEventListener("click", () => {
  $("reader").hidden = true;
  const row = document.querySelector(`#list tr[data-index="${state.reading?.index}"] button`);
  row?.focus();
});
const safeName = (s) => (s || "conversation").replace(/[^\w.-]+/g, "-").slice(0, 60);
$("export-md").addEventListener("click", async () => {
  const { index, through, view } = state.reading;
  download(`${safeName(view.title)}.md`, await call("markdown", index, through), "text/markdown");
});
$("export-json").addEventListener("click", async () => {
  const { index, view } = state.reading;
  download(`${safeName(view.title)}.json`, await call("conversationJson", index), "application/json");
});
$("export-all-md").addEventListener("click", async () => download("baton-conversations.md", await call("allMarkdown"), "text/markdown"));
$("export-all-json").addEventListener("click", async () => download("baton-conversations.json", await call("allJson"), "application/json"));

// ---- ledgers -------------------------------------------------------------------------------

function renderSessions(sessions) {
  $("ledger").hidden = sessions.length === 0;
  $("sessions").tBodies[0].replaceChildren(...sessions.map((s) => {
    const tr = text("tr");
    const open = text("button", s.session_id, "link id");
    open.type = "button";
    open.addEventListener("click", () => openTimeline(s.session_id));
    const id = text("td");
    id.append(open);
    tr.append(id, text("td", s.status, "status-" + s.status), text("td", s.project), text("td", s.agent),
      text("td", when(s.started_at)), text("td", s.duration_text));
    return tr;
  }));
  status.dataset.sessions = String(sessions.length);
}

async function openTimeline(id) {
  const entries = await call("timeline", id);
  $("timeline-block").hidden = false;
  $("timeline-title").textContent = `Timeline of ${id}`;
  $("timeline").replaceChildren(...entries.map((e) => {
    const li = text("li", null, `tone-${e.tone}`);
    li.append(text("span", when(e.at), "muted"), text("strong", ` ${e.kind} `), document.createTextNode(`${e.summary} (${e.actor_name})`));
    return li;
  }));
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
