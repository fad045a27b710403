"""Writes the vectors' requests for every error code an ABI request can meet, each health
verdict, the double end, and the analyzer scripts (usage dedup, chunks split anywhere, branch
selection, archives, a ledger's work sessions). Ledgers are built through the native ABI
(`baton abi`) with pinned times and ids.

Run from the repository root after `cargo build -p baton`; then refresh the answers with
`BATON_UPDATE_VECTORS=1 cargo test -p baton-tests --test suite wasm` and review the diff."""

import base64
import io
import json
import subprocess
import zipfile

BATON = "target/debug/baton"
OUT = "tests/vectors"
counter = [0x9000]
minute = [0]


def fresh_ids():
    counter[0] += 0x100
    return (f"019c0000-0000-7000-8000-{counter[0]:012x}",
            f"019c0000-0000-7000-8000-{counter[0] + 0x80:012x}")


def now():
    minute[0] += 1
    return f"2026-07-19T{8 + minute[0] // 60:02d}:{minute[0] % 60:02d}:00.000Z"


def execute_request(ledger, body, **extra):
    event_id, session_id = fresh_ids()
    request = {"op": "execute", "ledger": ledger, "request": body, "now": now(),
               "event_id": event_id, "session_id": session_id}
    request.update(extra)
    return request


def abi(request):
    out = subprocess.run([BATON, "--json", "abi", json.dumps(request)], capture_output=True,
                         text=True)
    return json.loads(out.stdout.splitlines()[-1])


class Ledger:
    def __init__(self):
        self.text = ""

    def run(self, body, **extra):
        answer = abi(execute_request(self.text, body, **extra))
        if "error" in answer:
            raise SystemExit(f"{body}: {answer['error']}")
        self.text += "".join(line + "\n" for line in answer["ok"].get("append", []))
        return answer["ok"].get("response", {})


def write(name, request):
    with open(f"{OUT}/{name}.request.json", "w") as f:
        f.write(json.dumps(request, indent=1) + "\n")


def write_script(name, requests):
    with open(f"{OUT}/{name}.requests.ndjson", "w") as f:
        for request in requests:
            f.write(json.dumps(request, separators=(",", ":")) + "\n")


def expect_code(name, request, code):
    answer = abi(request)
    got = answer.get("error", {}).get("code")
    if got != code:
        raise SystemExit(f"{name}: expected {code}, got {answer}")
    write(name, request)


def query(ledger, body, **extra):
    request = {"op": "query", "ledger": ledger, "request": body, "now": now()}
    request.update(extra)
    return request


# --- every error code a lifecycle request can meet -------------------------------------
one = Ledger()
a = one.run({"op": "start", "project": "demo", "agent": "claude", "client_name": "claude-code",
             "goal": "Add search"})["session_id"]
missing = "019c0000-0000-7000-8000-00000000dead"
expect_code("error-session-not-found", query(one.text, {"op": "show", "session_id": missing}),
            "SESSION_NOT_FOUND")
expect_code("error-session-not-paused", execute_request(
    one.text, {"op": "unpause", "session_id": a}, actor={"kind": "human", "name": "ann"}),
    "SESSION_NOT_PAUSED")
expect_code("error-ambiguity-not-found", execute_request(
    one.text, {"op": "ambiguity_resolve", "number": 9, "text": "ten per page"}),
    "AMBIGUITY_NOT_FOUND")
expect_code("error-run-refused", execute_request(one.text, {
    "op": "report", "session_id": a,
    "run": {"provider": "anthropic", "model": "claude-haiku", "purpose": "summarize",
            "input_tokens": 10, "output_tokens": 5, "prompt": "the secret plan"}}),
    "RUN_REFUSED")
expect_code("error-actor-not-allowed", execute_request(
    one.text, {"op": "end", "session_id": a}, caller_agent="codex"),
    "ACTOR_NOT_ALLOWED")
expect_code("error-mission-not-found", execute_request(one.text, {
    "op": "start", "project": "demo", "agent": "codex", "mission": "NOPE-1"}),
    "MISSION_NOT_FOUND")
expect_code("error-no-active-session", execute_request("", {"op": "end", "project": "demo"}),
            "NO_ACTIVE_SESSION")
expect_code("error-permission-denied", execute_request(
    "", {"op": "start", "project": "demo", "agent": "claude"},
    policy={"members": {"ann": "viewer"}}, person="ann"), "PERMISSION_DENIED")
expect_code("error-client-not-approved", execute_request(
    "", {"op": "start", "project": "demo", "agent": "cursor", "client_name": "cursor"},
    policy={"approved_clients": ["claude-code"]}), "CLIENT_NOT_APPROVED")
expect_code("error-mission-required", execute_request(
    "", {"op": "start", "project": "demo", "agent": "claude"},
    policy={"mission_required": True}), "MISSION_REQUIRED")

drafted = Ledger()
drafted.run({"op": "mission_add", "reference": "CLAIM-7", "clauses": ["paged"]})
expect_code("error-mission-not-approved", execute_request(drafted.text, {
    "op": "start", "project": "demo", "agent": "claude", "mission": "CLAIM-7"}),
    "MISSION_NOT_APPROVED")

ended = Ledger()
b = ended.run({"op": "start", "project": "demo", "agent": "claude"})["session_id"]
ended.run({"op": "end", "session_id": b, "summary": "done"})
expect_code("end-twice", execute_request(ended.text, {"op": "end", "session_id": b}),
            "SESSION_ALREADY_CLOSED")
expect_code("error-session-not-active", execute_request(
    ended.text, {"op": "report", "session_id": b, "changed_files": ["src/a.rs"]}),
    "SESSION_NOT_ACTIVE")

# --- each health verdict: healthy (85 and up), degraded (60 to 84), stale (below 60) -------
# The overall score is the lowest dimension's.
verdicts = Ledger()
verdicts.run({"op": "mission_add", "reference": "CLAIM-9", "clauses": ["fast", "paged"]})
verdicts.run({"op": "mission_approve", "reference": "CLAIM-9"})
verdicts.run({"op": "constitution_set", "text": "layers: core, hosts"})
verdicts.run({"op": "index", "commit": "c0ffee"})
early = verdicts.run({"op": "start", "project": "demo", "agent": "codex", "mission": "CLAIM-9",
                      "commit": "c0ffee"})["session_id"]
drift = Ledger()
drift.text = verdicts.text
drift.run({"op": "constitution_set", "text": "layers: core, hosts, plugins"})
verdicts.run({"op": "decision_record", "text": "no ORMs"})
late = verdicts.run({"op": "start", "project": "demo", "agent": "claude", "mission": "CLAIM-9",
                     "commit": "c0ffee"})["session_id"]
stale = Ledger()
stale.text = verdicts.text
stale.run({"op": "constitution_set", "text": "layers: core, hosts, plugins"})
stale.run({"op": "decision_record", "text": "no globals"})
for name, ledger, sid, want in [("healthy-100", verdicts.text, late, "healthy"),
                                ("degraded-65", drift.text, early, "degraded"),
                                ("degraded-at-60", verdicts.text, early, "degraded"),
                                ("stale-20", stale.text, early, "stale")]:
    request = query(ledger, {"op": "health", "session_id": sid})
    answer = abi(request)["ok"]["response"]
    if answer["verdict"] != want or not name.endswith(str(answer["overall"])):
        raise SystemExit(f"health-{name}: got {answer['verdict']} {answer['overall']}")
    write(f"health-{name}", request)

# --- analyzer scripts ---------------------------------------------------------------------
def claude_line(kind, uuid, parent, at, text, usage=None, msg_id=None, request_id=None):
    line = {"type": kind, "sessionId": "s-dedup", "uuid": uuid, "parentUuid": parent,
            "timestamp": at, "cwd": "/work/demo"}
    if kind == "user":
        line["message"] = {"role": "user", "content": text}
    else:
        line["requestId"] = request_id
        line["message"] = {"id": msg_id, "role": "assistant", "model": "claude-sonnet-4-20250514",
                           "content": [{"type": "text", "text": text}], "usage": usage}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


usage = {"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 300,
         "cache_read_input_tokens": 4000}
transcript = "\n".join([
    claude_line("user", "u1", None, "2026-07-19T09:00:00.000Z", "Trouve les accents: é, ü, 日本"),
    # The same response logged twice (streamed), then a second response: usage counts two.
    claude_line("assistant", "a1", "u1", "2026-07-19T09:00:04.000Z", "Voilà: é ü 日本",
                usage, "msg-1", "req-1"),
    claude_line("assistant", "a1b", "a1", "2026-07-19T09:00:04.500Z", "Voilà: é ü 日本",
                usage, "msg-1", "req-1"),
    claude_line("user", "u2", "a1b", "2026-07-20T10:00:00.000Z", "Now the search page"),
    claude_line("assistant", "a2", "u2", "2026-07-20T10:00:09.000Z", "The search page is done.",
                {"input_tokens": 500, "output_tokens": 90}, "msg-2", "req-2"),
]) + "\n"
raw = transcript.encode()
cut = raw.index("日".encode()) + 1  # a chunk boundary inside a character
third = len(raw) * 2 // 3  # and one inside a line
write_script("analyzer-usage-dedup-chunks", [
    {"op": "analyzer_open", "analyzer": "dedup"},
    {"op": "analyzer_begin", "analyzer": "dedup", "name": "s-dedup.jsonl"},
    {"op": "analyzer_push", "analyzer": "dedup", "base64": base64.b64encode(raw[:cut]).decode()},
    {"op": "analyzer_push", "analyzer": "dedup",
     "base64": base64.b64encode(raw[cut:third]).decode()},
    {"op": "analyzer_push", "analyzer": "dedup", "text": raw[third:].decode()},
    {"op": "analyzer_finish", "analyzer": "dedup"},
    {"op": "analyzer_usage", "analyzer": "dedup", "group_by": "daily"},
    {"op": "analyzer_usage", "analyzer": "dedup", "group_by": "session", "csv": True},
    {"op": "analyzer_overview", "analyzer": "dedup", "charts_width": 480},
    {"op": "analyzer_list", "analyzer": "dedup", "query": {"search": "日本"}},
    {"op": "analyzer_view", "analyzer": "dedup", "index": 0, "markdown": True},
    {"op": "analyzer_files", "analyzer": "dedup"},
    {"op": "analyzer_close", "analyzer": "dedup"},
    {"op": "analyzer_files", "analyzer": "dedup"},
])


def node(id_, parent, children, role, text, at):
    message = None
    if role:
        message = {"id": id_, "author": {"role": role}, "create_time": at,
                   "content": {"content_type": "text", "parts": [text]},
                   "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {}}
    return {"id": id_, "parent": parent, "children": children, "message": message}


# A reply regenerated: two answers to one question; the second is the active branch.
chatgpt = [{
    "id": "conv-1", "title": "Branches", "create_time": 1784448000.0,
    "update_time": 1784448300.0, "current_node": "r2",
    "mapping": {
        "root": node("root", None, ["q"], None, None, None),
        "q": node("q", "root", ["r1", "r2"], "user", "Name a colour", 1784448000.0),
        "r1": node("r1", "q", [], "assistant", "Blue.", 1784448100.0),
        "r2": node("r2", "q", [], "assistant", "Green.", 1784448200.0),
    },
}]
write_script("analyzer-branch-selection", [
    {"op": "analyzer_open", "analyzer": "branches"},
    {"op": "analyzer_begin", "analyzer": "branches", "name": "conversations.json"},
    {"op": "analyzer_push", "analyzer": "branches", "text": json.dumps(chatgpt)},
    {"op": "analyzer_finish", "analyzer": "branches"},
    {"op": "analyzer_list", "analyzer": "branches"},
    {"op": "analyzer_view", "analyzer": "branches", "index": 0},
    {"op": "analyzer_view", "analyzer": "branches", "index": 0, "through": "r1"},
    {"op": "analyzer_view", "analyzer": "branches", "index": 0, "through": "nope"},
    {"op": "analyzer_close", "analyzer": "branches"},
])


def zipped(entries, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 7, 19, 9, 0, 0))
            info.compress_type = method
            z.writestr(info, data)
    return base64.b64encode(buf.getvalue()).decode()


def archive_script(name, analyzer, payload):
    return [
        {"op": "analyzer_open", "analyzer": analyzer},
        {"op": "analyzer_begin", "analyzer": analyzer, "name": name},
        {"op": "analyzer_push", "analyzer": analyzer, "base64": payload},
        {"op": "analyzer_finish", "analyzer": analyzer},
        {"op": "analyzer_files", "analyzer": analyzer},
        {"op": "analyzer_close", "analyzer": analyzer},
    ]


write_script("analyzer-export-zip", archive_script(
    "chatgpt-export.zip", "zip", zipped([("conversations.json", json.dumps(chatgpt)),
                                         ("user.json", "{}")])))
write_script("error-archive-damaged", archive_script(
    "cut.zip", "cut", base64.b64encode(b"PK\x03\x04" + b"\x00" * 40).decode()))
write_script("error-archive-unsupported", archive_script(
    "bzip.zip", "bzip", zipped([("conversations.json", "[]")], zipfile.ZIP_BZIP2)))
write_script("error-archive-too-large", archive_script(
    "bomb.zip", "bomb", zipped([("conversations.json", "[" + " " * (3 << 20) + "]")])))
write_script("error-no-conversations-in-archive", archive_script(
    "photos.zip", "photos", zipped([("readme.txt", "hello"), ("photo.jpg", "jpeg")])))
write_script("error-unknown-format", [
    {"op": "analyzer_open", "analyzer": "text"},
    {"op": "analyzer_begin", "analyzer": "text", "name": "notes.txt"},
    {"op": "analyzer_push", "analyzer": "text", "text": "Dear diary, today I wrote no JSON.\n"},
    {"op": "analyzer_finish", "analyzer": "text"},
    {"op": "analyzer_push", "analyzer": "text", "text": "after a failed file, nothing is open"},
    {"op": "analyzer_usage", "analyzer": "nobody", "group_by": "daily"},
    {"op": "analyzer_close", "analyzer": "text"},
])
write_script("error-format-too-new", [
    {"op": "analyzer_open", "analyzer": "future"},
    {"op": "analyzer_begin", "analyzer": "future", "name": "events.ndjson"},
    {"op": "analyzer_push", "analyzer": "future",
     "text": '{"baton_log":99,"created":"2031-01-01T00:00:00.000Z"}\n'},
    {"op": "analyzer_finish", "analyzer": "future"},
    {"op": "analyzer_close", "analyzer": "future"},
])

# A ledger and the transcript of its session: the work overview ties them together.
work = Ledger()
w = work.run({"op": "start", "project": "demo", "agent": "claude", "client_name": "claude-code",
              "goal": "Search page"})["session_id"]
work.run({"op": "report", "session_id": w, "changed_files": ["src/search.rs"], "progress": 50})
write_script("analyzer-work-sessions", [
    {"op": "analyzer_open", "analyzer": "work"},
    {"op": "analyzer_begin", "analyzer": "work", "name": ".baton/events.ndjson"},
    {"op": "analyzer_push", "analyzer": "work", "text": work.text},
    {"op": "analyzer_finish", "analyzer": "work"},
    {"op": "analyzer_begin", "analyzer": "work", "name": "s-dedup.jsonl"},
    {"op": "analyzer_push", "analyzer": "work", "text": transcript},
    {"op": "analyzer_finish", "analyzer": "work"},
    {"op": "analyzer_work", "analyzer": "work"},
    {"op": "analyzer_close", "analyzer": "work"},
])
print("wrote the requests; now: BATON_UPDATE_VECTORS=1 cargo test -p baton-tests --test suite wasm")
