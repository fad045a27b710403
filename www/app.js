// The page: reads the chosen files locally and renders what the core folds from them.
import { initSync, version, foldLedger } from "./pkg/baton_web.js";
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

document.getElementById("file").addEventListener("change", async (event) => {
  const files = [...event.target.files];
  if (!files.length) return;
  const parts = await Promise.all(files.map((f) => f.arrayBuffer()));
  const joined = new Uint8Array(parts.reduce((n, p) => n + p.byteLength + 1, 0));
  let at = 0;
  for (const part of parts) { joined.set(new Uint8Array(part), at); at += part.byteLength; joined[at++] = 10; }
  const folded = JSON.parse(foldLedger(joined));
  render(folded.sessions);
  const st = folded.stats;
  status.textContent = `${folded.sessions.length} sessions from ${files.length} file(s); ` +
    `${st.events} events, ${st.corrupt_lines} unreadable line(s), ${st.foreign_lines} of another schema.`;
  status.dataset.sessions = String(folded.sessions.length);
});
