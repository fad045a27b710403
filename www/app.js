// The page: reads the chosen files locally and renders what the core folds from them.
import { initSync, version, foldLedger, analyze } from "./pkg/baton_web.js";
import { wasmBytes } from "./pkg/wasm-bytes.js";

initSync({ module: wasmBytes });

const status = document.getElementById("status");
const tbody = document.querySelector("#sessions tbody");
document.getElementById("version").textContent =
  "baton-core " + JSON.parse(version()).ok.version;

function humanDuration(seconds) {
  if (seconds == null) return "—";
  const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function render(sessions) {
  tbody.replaceChildren(...sessions.map((s) => {
    const tr = document.createElement("tr");
    tr.append(cell(s.session_id, "id"), cell(s.status, "status-" + s.status), cell(s.project),
      cell(s.agent), cell(s.started_at), cell(humanDuration(s.duration_seconds)));
    return tr;
  }));
}

const problem = document.getElementById("problem");
const analyses = [];

function renderOverview() {
  if (!analyses.length) return;
  const sum = (f) => analyses.reduce((n, a) => n + f(a), 0);
  document.getElementById("fig-conversations").textContent = String(sum((a) => a.overview.conversations));
  document.getElementById("fig-messages").textContent = String(sum((a) => a.overview.messages));
  const firsts = analyses.map((a) => a.overview.first_at).filter(Boolean).sort();
  const lasts = analyses.map((a) => a.overview.last_at).filter(Boolean).sort();
  document.getElementById("fig-first").textContent = firsts.length ? firsts[0].slice(0, 10) : "—";
  document.getElementById("fig-last").textContent = lasts.length ? lasts[lasts.length - 1].slice(0, 10) : "—";
  document.getElementById("fig-formats").textContent = [...new Set(analyses.map((a) => a.format))].join(", ");
  // The charts are SVG text drawn (and escaped) by the core; the latest file's are shown.
  const latest = analyses[analyses.length - 1];
  document.getElementById("chart-activity").innerHTML = latest.charts.activity;
  document.getElementById("chart-lengths").innerHTML = latest.charts.lengths;
  document.getElementById("overview").hidden = false;
}

document.getElementById("file").addEventListener("change", async (event) => {
  const files = [...event.target.files];
  if (!files.length) return;
  problem.hidden = true;
  const ledgers = [];
  for (const file of files) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (file.name.endsWith(".ndjson")) {
      ledgers.push(bytes);
      continue;
    }
    try {
      analyses.push(JSON.parse(analyze(bytes)));
    } catch (error) {
      // A wrong file is reported; everything loaded before stays.
      problem.textContent = `${file.name}: ${error.code || "ERROR"}: ${error.message}`;
      problem.hidden = false;
    }
  }
  renderOverview();
  if (!ledgers.length) {
    status.textContent = `${analyses.length} transcript file(s) analyzed.`;
    status.dataset.files = String(analyses.length);
    return;
  }
  const joined = new Uint8Array(ledgers.reduce((n, p) => n + p.byteLength + 1, 0));
  let at = 0;
  for (const part of ledgers) { joined.set(part, at); at += part.byteLength; joined[at++] = 10; }
  const folded = JSON.parse(foldLedger(joined));
  render(folded.sessions);
  const st = folded.stats;
  status.textContent = `${folded.sessions.length} sessions from ${ledgers.length} ledger file(s); ` +
    `${st.events} events, ${st.corrupt_lines} unreadable line(s), ${st.foreign_lines} of another schema.`;
  status.dataset.sessions = String(folded.sessions.length);
});
