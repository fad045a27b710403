#!/usr/bin/env python3
"""Writes tests/vectors/analyzer-agents.requests.ndjson: the Gemini CLI, Qwen Code, OpenCode and
Kilo CLI, Copilot CLI, Amp, Aider, Cline, Roo Code, Kilo Code and Cursor fixtures (tests/fixtures/gemini, qwen,
opencode, opencode-1.1, kilo, copilot-cli, copilot-chat, amp, aider, cline, roo-code, kilo-code, cursor, cursor-transcripts, cursor-cli; VS Code's workspace.json files first, then the rest as a sorted walk gives them, a task's companions before its panel file, as `ingest::taken_from_folder` orders a folder) pushed through the analyzer ABI in 4 KiB chunks, then usage by day
and model, the list, a search for the planted word and a view. Run from anywhere:
`python3 scripts/agents-vector.py REPO`, then
`BATON_UPDATE_VECTORS=1 cargo test -p baton-tests --test suite -- wasm::golden` writes the answers."""
import base64, json, os, sys
root = sys.argv[1]  # repo root
fixtures = os.path.join(root, "tests/fixtures")
out = []
A = "agents"
out.append({"op": "analyzer_open", "analyzer": A})
files = []
for agent in ["gemini", "qwen", "opencode", "opencode-1.1", "kilo", "copilot-cli", "copilot-chat", "amp", "aider", "cline", "roo-code", "kilo-code", "cursor", "cursor-transcripts", "cursor-cli"]:
    for d, _, names in os.walk(os.path.join(fixtures, agent)):
        for n in names:
            if n.endswith(".jsonl") or n.endswith(".json") or n.endswith(".db") or n.endswith(".vscdb") or (n.endswith(".txt") and "agent-transcripts" in d) or n == ".aider.chat.history.md":
                files.append(os.path.join(d, n))
# The files above transcripts that say where they were made come first (VS Code's workspace.json).
files.sort(key=lambda f: (os.path.basename(f) != "workspace.json", f))
for f in files:
    rel = os.path.relpath(f, fixtures)
    # Qwen Code's sidecars, a Cline task's bookkeeping, an OpenCode tree's project files: a host passes them over (`ingest::taken_from_folder`).
    if rel.endswith(".ledger.jsonl") or rel.endswith(".runtime.json") or os.path.basename(rel) in ("context_history.json", "settings.json") or "/storage/project/" in rel:
        continue
    data = open(f, "rb").read()
    out.append({"op": "analyzer_begin", "analyzer": A, "name": rel})
    for i in range(0, len(data), 4096):
        out.append({"op": "analyzer_push", "analyzer": A, "base64": base64.b64encode(data[i:i+4096]).decode()})
    out.append({"op": "analyzer_finish", "analyzer": A})
out.append({"op": "analyzer_usage", "analyzer": A, "group_by": "daily"})
out.append({"op": "analyzer_usage", "analyzer": A, "group_by": "model"})
out.append({"op": "analyzer_list", "analyzer": A, "query": {}})
out.append({"op": "analyzer_list", "analyzer": A, "query": {"search": "zanzibarquux"}})
out.append({"op": "analyzer_view", "analyzer": A, "index": 0, "markdown": True})
out.append({"op": "analyzer_close", "analyzer": A})
with open(os.path.join(root, "tests/vectors/analyzer-agents.requests.ndjson"), "w") as w:
    for r in out:
        w.write(json.dumps(r, separators=(",", ":")) + "\n")
print(len(out), "requests")
