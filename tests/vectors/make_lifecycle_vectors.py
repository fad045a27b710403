"""Regenerates the lifecycle vectors' requests: builds a ledger through the native ABI
(`baton abi`) with pinned times and ids, then writes one request per question asked of it.
Run from the repository root after `cargo build -p baton`; then refresh the answers with
`BATON_UPDATE_VECTORS=1 cargo test -p baton-tests --test wasm` and review the diff."""

import json
import subprocess

BATON = "target/debug/baton"
ledger = ""
counter = [0x100]
minute = [0]


def fresh_ids():
    counter[0] += 0x100
    return f"019c0000-0000-7000-8000-{counter[0]:012x}", f"019c0000-0000-7000-8000-{counter[0] + 0x80:012x}"


def now():
    minute[0] += 1
    return f"2026-07-18T20:{minute[0]:02d}:00.000Z"


def request(body):
    event_id, session_id = fresh_ids()
    return {"op": "execute", "ledger": ledger, "request": body, "now": now(),
            "event_id": event_id, "session_id": session_id}


def execute(body):
    global ledger
    out = subprocess.run([BATON, "abi", json.dumps(request(body))], capture_output=True, text=True, check=True)
    answer = json.loads(out.stdout.splitlines()[-1])["ok"]
    ledger += "".join(line + "\n" for line in answer.get("append", []))
    return answer.get("response", {})


execute({"op": "mission_add", "reference": "CLAIM-142", "clauses": ["case-insensitive", "by recency"]})
execute({"op": "mission_approve", "reference": "CLAIM-142"})
execute({"op": "constitution_set", "text": "layers: core, hosts"})
execute({"op": "index", "commit": "abc123"})
a = execute({"op": "start", "project": "demo", "agent": "claude", "mission": "CLAIM-142", "commit": "abc123"})["session_id"]
b = execute({"op": "start", "project": "demo", "agent": "codex", "commit": "old999"})["session_id"]
execute({"op": "depend", "session_id": a, "files": ["src/api.rs"]})
execute({"op": "report", "session_id": b, "changed_files": ["src/api.rs"]})
execute({"op": "mission_add", "reference": "CLAIM-142", "clauses": ["case-insensitive", "by recency", "paged"]})
execute({"op": "mission_approve", "reference": "CLAIM-142"})
execute({"op": "ambiguity_open", "reference": "CLAIM-142", "text": "page size?"})
execute({"op": "decision_record", "text": "no ORMs"})
execute({"op": "pause", "session_id": b, "reason": "hold"})

questions = {
    "lifecycle-health-of-affected": {"op": "health", "session_id": a},
    "lifecycle-health-of-changer": {"op": "health", "session_id": b},
    "lifecycle-show-paused": {"op": "show", "session_id": b},
    "lifecycle-brief-paused": {"op": "brief", "session_id": b},
    "lifecycle-timeline": {"op": "timeline", "session_id": a},
    "lifecycle-list": {"op": "list", "include_ended": True},
}
for name, body in questions.items():
    with open(f"tests/vectors/{name}.request.json", "w") as f:
        f.write(json.dumps(request(body), indent=1) + "\n")
