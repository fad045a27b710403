"""`baton otel export` read by a receiver that decodes with the official OpenTelemetry
protobuf definitions (`opentelemetry-proto` from PyPI): one trace per work session with its
hand-off as a link, spans for its requests and tool calls under the session's span, the
expected attributes; a second export sends nothing; with the endpoint down, `start` and `end`
work as ever and the next export catches up."""

import datetime
import json
import os
import socket
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

ROOT = Path(__file__).resolve().parents[2]
BATON = os.environ.get("BATON_BIN", str(ROOT / "target" / "debug" / "baton"))
AGENT_SESSION = "0d0d0d0d-0000-4000-8000-000000000001"


class Collector:
    """An OTLP/HTTP traces endpoint that keeps every request it decodes."""

    def __init__(self, port):
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
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
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


def baton(place, *args, check=True):
    out = subprocess.run(
        [BATON, "--json", *args], env=env_for(place), capture_output=True, text=True, cwd=place
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
        assert attrs["gen_ai.usage.input_tokens"] == 12
        assert attrs["gen_ai.usage.output_tokens"] == 34
        assert "started" in [e.name for e in a.events] and "ended" in [e.name for e in a.events]
        # The hand-off: the second session's trace links to the first's.
        assert [(l.trace_id, l.span_id) for l in b.links] == [(a.trace_id, a.span_id)]
        children = [s for s in spans if s.trace_id == a.trace_id and s.parent_span_id]
        assert all(s.parent_span_id == a.span_id for s in children)
        names = sorted(s.name for s in children)
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


def test_the_endpoint_comes_from_the_config_and_https_is_refused(place):
    (place / ".baton").mkdir()
    (place / ".baton" / "config.toml").write_text('[otel]\nendpoint = "https://collector.example:4318"\n')
    out = baton(place, "otel", "export", check=False)
    assert out.returncode != 0
    assert "Collector" in json.loads(out.stdout)["error"]["message"]
