"""`baton otel serve` fed by a sender no one here wrote: the official OpenTelemetry Python SDK
and its OTLP/HTTP exporter, configured as Claude Code configures its own (`api_request` log
records with Claude Code's attribute names). Every request is kept once; a resend is not
doubled; a malformed, oversized or unauthorised body gets OTLP's error and changes nothing."""

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import claude_code  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BATON = os.environ.get("BATON_BIN", str(ROOT / "target" / "debug" / "baton"))


@pytest.fixture
def place():
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def env_for(place):
    return {
        "BATON_DIR": str(place / ".baton"),
        "BATON_INDEX": str(place / "index.sqlite"),
        "BATON_FSYNC": "0",
        "PATH": os.environ.get("PATH", ""),
        "XDG_DATA_HOME": str(place / "user-data"),
        "TZ": "UTC",
    }


class Receiver:
    """A `baton otel serve` on a free port, stopped with SIGTERM."""

    def __init__(self, place, *args):
        self.process = subprocess.Popen(
            [BATON, "otel", "serve", "--listen", "127.0.0.1:0", *args],
            env=env_for(place),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        ready = self.process.stdout.readline()
        found = re.search(r"http://(127\.0\.0\.1:\d+)", ready)
        assert found, f"no address in {ready!r}: {self.process.stderr.read()}"
        self.url = "http://" + found.group(1)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=10)
        assert self.process.returncode == 0, err
        return out


def status(place):
    out = subprocess.run(
        [BATON, "--json", "otel", "status"], env=env_for(place), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    return {
        "requests": sum(r["requests"] for r in rows),
        "tokens": sum(r["total_tokens"] for r in rows),
        "cost_usd": round(sum(r["cost_usd"] for r in rows), 6),
    }


def test_every_request_is_kept_once_and_a_resend_is_not_doubled(place):
    receiver = Receiver(place)
    try:
        sent = claude_code.send(receiver.url, 300, None)
        assert sent["flushed"]
        kept = status(place)
        assert kept == {
            "requests": 300,
            "tokens": sent["tokens"],
            "cost_usd": round(sent["cost_usd"], 6),
        }
        # The same records again (an exporter retrying, an agent restarted): nothing new.
        claude_code.send(receiver.url, 300, None)
        assert status(place) == kept
    finally:
        said = receiver.stop()
    assert "Stopped: " in said and "300 new" in said.splitlines()[-1], said


def test_bad_bodies_get_otlp_errors_and_change_nothing(place):
    receiver = Receiver(place)
    try:
        claude_code.send(receiver.url, 8, None)
        before = status(place)
        answers = claude_code.raw(receiver.url)
        assert answers["garbage"]["status"] == 400
        assert answers["garbage"]["code"] == 3  # INVALID_ARGUMENT, as google.rpc.Status
        assert "protobuf" in answers["garbage"]["message"]
        assert answers["oversized"]["status"] == 413
        assert answers["bomb"]["status"] == 413
        assert answers["unfolding"]["status"] == 413
        assert answers["unfolding_json"]["status"] == 413
        assert answers["text"]["status"] == 415
        assert answers["path"]["status"] == 404
        # The one good body among them (OTLP JSON, gzipped) is the only change.
        assert answers["json"]["status"] == 200 and answers["json"]["body"] == "{}"
        after = status(place)
        assert after["requests"] == before["requests"] + 1
        assert after["tokens"] == before["tokens"] + 10
    finally:
        receiver.stop()


def test_a_token_is_asked_for_when_given(place):
    receiver = Receiver(place, "--token", "s3cret")
    try:
        claude_code.send(receiver.url, 5, None)
        assert status(place)["requests"] == 0, "kept without the token"
        claude_code.send(receiver.url, 5, "s3cret")
        assert status(place)["requests"] == 5
    finally:
        receiver.stop()


def test_other_interfaces_are_refused_unless_asked(place):
    out = subprocess.run(
        [BATON, "--json", "otel", "serve", "--listen", "0.0.0.0:0"],
        env=env_for(place),
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert "--allow-remote" in json.loads(out.stdout)["error"]["message"]
