"""`baton otel export` read by a receiver that decodes with the official OpenTelemetry
protobuf definitions (`opentelemetry-proto` from PyPI): one trace per work session with its
hand-off as a link, a span per agent turn under the session's, spans for its requests and tool
calls under their turn, the expected attributes; a second export sends nothing; with the
endpoint down, `start` and `end` work as ever and the next export catches up; an https
endpoint over TLS (a test CA from `trustme`); `--follow` sending each session as it ends."""

import datetime
import json
import os
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import trustme
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

ROOT = Path(__file__).resolve().parents[2]
BATON = os.environ.get("BATON_BIN", str(ROOT / "target" / "debug" / "baton"))
AGENT_SESSION = "0d0d0d0d-0000-4000-8000-000000000001"


class Collector:
    """An OTLP/HTTP traces endpoint that keeps every request it decodes."""

    def __init__(self, port, cert=None, partial=None):
        self.requests = []
        self.metrics = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/v1/metrics":
                    metrics = ExportMetricsServiceRequest()
                    metrics.ParseFromString(body)
                    collector.metrics.append(metrics)
                else:
                    request = ExportTraceServiceRequest()
                    request.ParseFromString(body)
                    collector.requests.append((self.path, self.headers["Content-Type"], request))
                answer = b""
                if partial is not None and self.path == "/v1/traces":
                    answer = ExportTraceServiceResponse(partial_success=ExportTracePartialSuccess(
                        rejected_spans=partial[0], error_message=partial[1])).SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        if cert is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            cert.configure_cert(context)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def spans(self):
        return [
            span
            for _, _, request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def place():
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def env_for(place):
    return {
        "BATON_DIR": str(place / ".baton"),
        "BATON_FSYNC": "0",
        "PATH": os.environ.get("PATH", ""),
        "XDG_DATA_HOME": str(place / "user-data"),
        "TZ": "UTC",
    }


def baton(place, *args, check=True, env=None):
    out = subprocess.run(
        [BATON, "--json", *args], env={**env_for(place), **(env or {})}, capture_output=True,
        text=True, cwd=place
    )
    if check:
        assert out.returncode == 0, out.stdout + out.stderr
    return out


def started(place, *args):
    return json.loads(baton(place, "start", "--project", "app", *args).stdout)["session_id"]


def attributes(span):
    out = {}
    for kv in span.attributes:
        value = kv.value
        out[kv.key] = getattr(value, value.WhichOneof("value"))
    return out


def transcript(place):
    """A Claude Code session of one request with one tool call, written now."""
    now = datetime.datetime.now(datetime.timezone.utc)
    at = lambda s: (now + datetime.timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z"
    lines = [
        {"type": "user", "sessionId": AGENT_SESSION, "uuid": "u1", "parentUuid": None,
         "cwd": "/work/app", "timestamp": at(0),
         "message": {"role": "user", "content": "List the files"}},
        {"type": "assistant", "sessionId": AGENT_SESSION, "uuid": "a1", "parentUuid": "u1",
         "cwd": "/work/app", "timestamp": at(1), "requestId": "req_1",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                     "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                  "input": {"command": "ls"}}],
                     "usage": {"input_tokens": 12, "output_tokens": 34,
                               "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0}}},
        {"type": "user", "sessionId": AGENT_SESSION, "uuid": "u2", "parentUuid": "a1",
         "cwd": "/work/app", "timestamp": at(2),
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                  "content": "a.txt"}]}},
        # A sub-agent's prompt (kept in the same file): the sub-agent's, not a turn of the
        # person's.
        {"type": "user", "sessionId": AGENT_SESSION, "uuid": "s1", "parentUuid": None,
         "isSidechain": True, "cwd": "/work/app", "timestamp": at(2),
         "message": {"role": "user", "content": "Find every TODO in the repository"}},
        # Written on the person's side, but typed by no one: no turn of its own.
        {"type": "user", "sessionId": AGENT_SESSION, "uuid": "u3", "parentUuid": "u2",
         "cwd": "/work/app", "timestamp": at(3),
         "message": {"role": "user", "content": [{"type": "text",
                                                  "text": "[Request interrupted by user]"}]}},
    ]
    folder = place / "claude" / "-work-app"
    folder.mkdir(parents=True)
    (folder / f"{AGENT_SESSION}.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines))
    baton(place, "mirror", "--claude-dir", str(place / "claude"), "--codex-dir", "/nonexistent",
          "--chatgpt-dir", "/nonexistent", "--claude-ai-dir", "/nonexistent")


def test_work_sessions_go_out_as_traces_once(place):
    first = started(place, "--agent", "claude", "--goal", "Fix the login",
                    "--provider-session-id", AGENT_SESSION, "--branch", "fix/login")
    transcript(place)
    baton(place, "end", first, "--summary", "fixed")
    second = started(place, "--agent", "codex", "--goal", "Review the fix", "--parent", first,
                     "--branch", "fix/login")
    baton(place, "end", second, "--summary", "reviewed")
    live = started(place, "--agent", "claude", "--goal", "Still going")

    port = free_port()
    collector = Collector(port)
    endpoint = f"http://127.0.0.1:{port}"
    try:
        out = json.loads(baton(place, "otel", "export", "--endpoint", endpoint).stdout)
        assert (out["sessions"], out["live"]) == (2, 1)
        assert [(p, t) for p, t, _ in collector.requests] == [("/v1/traces", "application/x-protobuf")]
        spans = collector.spans()
        roots = {attributes(s)["baton.session.id"]: s for s in spans if not s.parent_span_id}
        assert set(roots) == {first, second}, "one trace per ended work session"
        assert live not in roots
        a, b = roots[first], roots[second]
        assert a.trace_id != b.trace_id
        assert a.name == "work_session claude"
        attrs = attributes(a)
        assert attrs["baton.project"] == "app"
        assert attrs["baton.status"] == "complete"
        assert attrs["vcs.ref.head.name"] == "fix/login"
        # The conventions' input counts its cached part, also given apart.
        assert attrs["gen_ai.usage.input_tokens"] == 12 + 1000
        assert attrs["gen_ai.usage.cache_read.input_tokens"] == 1000
        assert attrs["gen_ai.usage.output_tokens"] == 34
        assert "started" in [e.name for e in a.events] and "ended" in [e.name for e in a.events]
        # The hand-off: the second session's trace links to the first's.
        assert [(l.trace_id, l.span_id) for l in b.links] == [(a.trace_id, a.span_id)]
        # The person's prompt is a turn under the session; the request and the tool call it
        # led to are under the turn (the tool's output and the interruption are no prompts).
        children = [s for s in spans if s.trace_id == a.trace_id and s.parent_span_id]
        turns = [s for s in children if s.parent_span_id == a.span_id]
        assert [s.name for s in turns] == ["invoke_agent claude"], [s.name for s in turns]
        turn = turns[0]
        turn_attrs = attributes(turn)
        assert turn_attrs["gen_ai.operation.name"] == "invoke_agent"
        assert turn_attrs["gen_ai.conversation.id"] == AGENT_SESSION
        assert (turn_attrs["baton.turn"], turn_attrs["baton.turn.requests"]) == (1, 1)
        assert turn_attrs["baton.turn.tool_calls"] == 1
        assert turn_attrs["gen_ai.usage.output_tokens"] == 34
        inner = [s for s in children if s.parent_span_id == turn.span_id]
        assert len(inner) == len(children) - 1
        assert all(turn.start_time_unix_nano <= s.start_time_unix_nano <= turn.end_time_unix_nano
                   for s in inner)
        names = sorted(s.name for s in inner)
        assert names == ["chat claude-sonnet-4-5-20250929", "execute_tool Bash"], names
        chat = next(s for s in children if s.name.startswith("chat"))
        chat_attrs = attributes(chat)
        assert chat_attrs["gen_ai.request.model"] == "claude-sonnet-4-5-20250929"
        assert chat_attrs["gen_ai.usage.cache_read.input_tokens"] == 1000
        assert chat_attrs["baton.cost_usd"] > 0
        tool = attributes(next(s for s in children if s.name.startswith("execute_tool")))
        assert tool["gen_ai.tool.call.id"] == "toolu_1"

        # The tokens and cost as metrics: delta sums by model, project, agent and class.
        assert len(collector.metrics) == 1
        points = {}
        for resource in collector.metrics[0].resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    assert metric.sum.is_monotonic
                    assert metric.sum.aggregation_temporality == 1  # DELTA
                    for point in metric.sum.data_points:
                        attrs = attributes(point)
                        key = (metric.name, attrs.get("gen_ai.token.type"))
                        points[key] = point.as_int if metric.name == "baton.tokens" else point.as_double
                        assert attrs["gen_ai.request.model"] == "claude-sonnet-4-5-20250929"
                        assert attrs["baton.project"] == "app"
        assert points[("baton.tokens", "input")] == 12
        assert points[("baton.tokens", "output")] == 34
        assert points[("baton.tokens", "cache_read")] == 1000
        assert points[("baton.cost_usd", None)] > 0
        # Again: nothing new is sent.
        again = json.loads(baton(place, "otel", "export", "--endpoint", endpoint).stdout)
        assert (again["sessions"], again["already"]) == (0, 2)
        assert len(collector.requests) == 1 and len(collector.metrics) == 1
    finally:
        collector.stop()

    # The endpoint down: start and end work as ever; the export fails and says so.
    baton(place, "end", live, "--summary", "done")
    down = baton(place, "otel", "export", "--endpoint", endpoint, check=False)
    assert down.returncode != 0
    assert "could not send" in json.loads(down.stdout)["error"]["message"]
    # Back up: the next export sends what was missed, and only that.
    collector = Collector(port)
    try:
        caught = json.loads(baton(place, "otel", "export", "--endpoint", endpoint).stdout)
        assert (caught["sessions"], caught["already"]) == (1, 2)
        roots = [attributes(s)["baton.session.id"] for s in collector.spans() if not s.parent_span_id]
        assert roots == [live]
    finally:
        collector.stop()


def roots_of(collector):
    return [attributes(s)["baton.session.id"] for s in collector.spans() if not s.parent_span_id]


def test_an_https_endpoint_from_the_config_is_sent_over_tls(place):
    ca = trustme.CA()
    ca_file = place / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    port = free_port()
    collector = Collector(port, cert=ca.issue_cert("localhost", "127.0.0.1"),
                          partial=(1, "span too old"))
    try:
        (place / ".baton").mkdir()
        (place / ".baton" / "config.toml").write_text(f'[otel]\nendpoint = "https://localhost:{port}"\n')
        session = started(place, "--agent", "claude", "--goal", "Over TLS")
        baton(place, "end", session, "--summary", "done")
        # A certificate no trusted root signed: refused, said, nothing sent and nothing marked.
        refused = baton(place, "otel", "export", check=False, env={"SSL_CERT_FILE": os.devnull})
        assert refused.returncode != 0
        message = json.loads(refused.stdout)["error"]["message"]
        assert "TLS" in message and f"https://localhost:{port}/v1/traces" in message, message
        assert collector.requests == []
        # Its root trusted: sent. The endpoint took the request but rejected a span: said on
        # stderr, and the session counts as sent (sending it again would not help).
        sent = baton(place, "otel", "export", env={"SSL_CERT_FILE": str(ca_file)})
        assert json.loads(sent.stdout)["sessions"] == 1
        assert roots_of(collector) == [session]
        assert "rejected 1 span(s): span too old" in sent.stderr, sent.stderr
        again = baton(place, "otel", "export", env={"SSL_CERT_FILE": str(ca_file)})
        assert json.loads(again.stdout)["sessions"] == 0
    finally:
        collector.stop()
    # An address of another kind is refused before anything is read.
    bad = baton(place, "otel", "export", "--endpoint", "ftp://localhost:21", check=False)
    assert bad.returncode != 0
    assert "http:// or https://" in json.loads(bad.stdout)["error"]["message"]


def wait_for(what, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if what():
            return True
        time.sleep(0.1)
    return False


def test_follow_sends_each_session_as_it_ends_and_rides_out_an_endpoint_that_is_down(place):
    first = started(place, "--agent", "claude", "--goal", "One")
    port = free_port()
    collector = Collector(port)
    follow = subprocess.Popen(
        [BATON, "otel", "export", "--endpoint", f"http://127.0.0.1:{port}", "--follow",
         "--every", "1"],
        env=env_for(place), cwd=place, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        time.sleep(1.5)
        assert roots_of(collector) == [], "a live session is not sent"
        baton(place, "end", first, "--summary", "done")
        assert wait_for(lambda: roots_of(collector) == [first]), roots_of(collector)
        collector.stop()
        # The endpoint down: a session ends meanwhile; once it is back, it goes out, once.
        second = started(place, "--agent", "codex", "--goal", "Two")
        baton(place, "end", second, "--summary", "done")
        time.sleep(2.5)
        collector = Collector(port)
        assert wait_for(lambda: roots_of(collector) == [second]), roots_of(collector)
        time.sleep(1.5)
        assert roots_of(collector) == [second], "nothing sent twice"
        assert follow.poll() is None, "it keeps going"
    finally:
        follow.terminate()
        _, err = follow.communicate(timeout=10)
        collector.stop()
    assert "trying again" in err, err
