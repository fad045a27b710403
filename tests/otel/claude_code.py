"""Sends telemetry to `baton otel serve` as Claude Code sends it, with the official
OpenTelemetry Python SDK and its OTLP/HTTP (protobuf) exporter, and pokes the receiver with
bodies an exporter should never send. Prints one JSON object: what was sent, and the answers.

    python claude_code.py send URL --count N [--token T]
    python claude_code.py raw URL
"""

import argparse
import gzip
import json
import sys
import urllib.error
import urllib.request

from opentelemetry._logs import LogRecord
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource

START_NS = 1_796_119_200_000_000_000  # 2026-12-01T10:00:00Z


def figures(i):
    """The i-th request's figures, as Claude Code's api_request event names them."""
    return {
        "input_tokens": 100 + i,
        "output_tokens": 10 + i % 7,
        "cache_read_tokens": 1000 * (i % 5),
        "cache_creation_tokens": 50 * (i % 3),
        "cost_usd": round(0.001 * (i + 1), 6),
        "duration_ms": 800 + i,
    }


def send(url, count, token):
    headers = {"Authorization": f"Bearer {token}"} if token else None
    exporter = OTLPLogExporter(endpoint=url + "/v1/logs", headers=headers, timeout=10)
    provider = LoggerProvider(
        resource=Resource.create({"service.name": "claude-code", "service.version": "2.1.0"})
    )
    provider.add_log_record_processor(
        BatchLogRecordProcessor(exporter, max_export_batch_size=64, schedule_delay_millis=50)
    )
    logger = provider.get_logger("com.anthropic.claude_code.events", "2.1.0")
    totals = {"requests": 0, "tokens": 0, "cost_usd": 0.0}
    for i in range(count):
        prompt = f"prompt-{i // 4}"
        f = figures(i)
        # A user prompt first in each prompt (not a request: it is not kept).
        if i % 4 == 0:
            logger.emit(
                LogRecord(
                    timestamp=START_NS + i * 1_000_000_000,
                    body="claude_code.user_prompt",
                    attributes={
                        "event.name": "user_prompt",
                        "session.id": "session-a",
                        "prompt.id": prompt,
                        "event.sequence": 0,
                        "prompt_length": 42,
                    },
                )
            )
        logger.emit(
            LogRecord(
                timestamp=START_NS + i * 1_000_000_000 + 500_000_000,
                body="claude_code.api_request",
                attributes={
                    "event.name": "api_request",
                    "event.timestamp": "2026-12-01T10:00:00.000Z",
                    "session.id": "session-a",
                    "prompt.id": prompt,
                    "event.sequence": 1 + i % 4,
                    "model": "claude-sonnet-4-5-20250929",
                    **{k: str(v) if k == "cost_usd" else v for k, v in f.items()},
                },
            )
        )
        totals["requests"] += 1
        totals["tokens"] += sum(
            f[k]
            for k in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens")
        )
        totals["cost_usd"] += f["cost_usd"]
    flushed = provider.force_flush(10_000)
    provider.shutdown()
    totals["flushed"] = bool(flushed)
    return totals


def post(url, body, content_type, encoding=None):
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("Content-Type", content_type)
    if encoding:
        request.add_header("Content-Encoding", encoding)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read(), response.headers.get("Content-Type")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("Content-Type")


def varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def raw(url):
    from google.rpc import status_pb2

    out = {}
    # Not protobuf at all.
    status, body, kind = post(url + "/v1/logs", b"\xff\xff\xff\xff", "application/x-protobuf")
    decoded = status_pb2.Status()
    decoded.ParseFromString(body)
    out["garbage"] = {"status": status, "code": decoded.code, "message": decoded.message, "type": kind}
    # Over the receiver's 16 MB.
    status, body, kind = post(url + "/v1/logs", b"\x00" * (17 * 1024 * 1024), "application/x-protobuf")
    out["oversized"] = {"status": status}
    # A gzip bomb: small as sent, over the limit unzipped.
    status, body, kind = post(
        url + "/v1/logs", gzip.compress(b" " * (20 * 1024 * 1024)), "application/json", "gzip"
    )
    out["bomb"] = {"status": status}
    # One request as OTLP JSON, gzipped.
    record = {
        "timeUnixNano": str(START_NS),
        "body": {"stringValue": "claude_code.api_request"},
        "attributes": [
            {"key": "event.name", "value": {"stringValue": "api_request"}},
            {"key": "session.id", "value": {"stringValue": "session-json"}},
            {"key": "request_id", "value": {"stringValue": "req_json_1"}},
            {"key": "model", "value": {"stringValue": "claude-opus-4-5"}},
            {"key": "input_tokens", "value": {"intValue": "7"}},
            {"key": "output_tokens", "value": {"intValue": "3"}},
            {"key": "cost_usd", "value": {"doubleValue": 0.25}},
        ],
    }
    document = {
        "resourceLogs": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]
                },
                "scopeLogs": [{"logRecords": [record]}],
            }
        ]
    }
    status, body, kind = post(
        url + "/v1/logs", gzip.compress(json.dumps(document).encode()), "application/json", "gzip"
    )
    out["json"] = {"status": status, "body": body.decode(), "type": kind}
    # Many empty records in a small body (each 2 bytes on the wire): refused before decoding.
    empty_records = b"\x12\x00" * 200_000
    scope = b"\x12" + varint(len(empty_records)) + empty_records
    resource = b"\x0a" + varint(len(scope)) + scope
    out["unfolding"] = {"status": post(url + "/v1/logs", resource, "application/x-protobuf")[0]}
    out["unfolding_json"] = {
        "status": post(
            url + "/v1/logs",
            b'{"resourceLogs":[{"scopeLogs":[{"logRecords":[' + b",".join([b"{}"] * 300_000) + b"]}]}]}",
            "application/json",
        )[0]
    }
    # A wrong content type, and a path that is not OTLP's.
    out["text"] = {"status": post(url + "/v1/logs", b"hello", "text/plain")[0]}
    out["path"] = {"status": post(url + "/v2/logs", b"", "application/x-protobuf")[0]}
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["send", "raw"])
    parser.add_argument("url")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--token")
    args = parser.parse_args()
    result = send(args.url, args.count, args.token) if args.mode == "send" else raw(args.url)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
