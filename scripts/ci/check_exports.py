"""Checks ChainLab's OTLP and HAR exports with decoders of other stacks.

Run by .ci/run inside a virtual environment that has `opentelemetry-proto` and `haralyzer`:

    python3 scripts/ci/check_exports.py CHAINLAB_BINARY

For every built-in scenario (as `chainlab scenarios` lists them):
- `chainlab trace S --format otlp` is decoded by the official OpenTelemetry protobuf
  definitions (`json_format.Parse` into `ExportTraceServiceRequest`), after the one
  translation OTLP/JSON asks of a receiver (trace and span ids are hex, not base64), and its
  span tree is checked: ids of the right size, every parent and link present, ends after starts.
- `chainlab trace S --format har` has what Chrome DevTools' HAR importer needs, is read by
  haralyzer, and each entry's `_chainlab` span id is a span of the OTLP document.

Then `--otlp-endpoint` is checked against a small OTLP/HTTP receiver built on the same
decoder: a receiver that answers 503 twice (with Retry-After) before taking the traces, one
that reports a partial success, and one that cannot be reached (the output file must still be
written). Exits non-zero on the first failure, saying what and where.
"""

import base64
import http.server
from datetime import datetime
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

from google.protobuf import json_format
from haralyzer import HarEntry, HarParser
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


class CheckFailed(Exception):
    pass


def hex_ids_to_base64(node, where):
    """OTLP/JSON writes trace and span ids as hex; the protobuf JSON mapping wants base64."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId"):
                size = 32 if key == "traceId" else 16
                if not isinstance(value, str) or len(value) != size or value.strip("0123456789abcdef"):
                    raise CheckFailed(f"{where}: {key} {value!r} is not {size} lowercase hex digits")
                if value == "0" * size:
                    raise CheckFailed(f"{where}: {key} is all zeros")
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                hex_ids_to_base64(value, where)
    elif isinstance(node, list):
        for item in node:
            hex_ids_to_base64(item, where)


def decode_otlp(text, where):
    """The document as an ExportTraceServiceRequest, checked beyond what the decoder checks."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise CheckFailed(f"{where}: not JSON: {error}")
    hex_ids_to_base64(document, where)
    request = ExportTraceServiceRequest()
    try:
        json_format.Parse(json.dumps(document), request)
    except json_format.ParseError as error:
        raise CheckFailed(f"{where}: rejected by opentelemetry-proto: {error}")
    spans = [span for rs in request.resource_spans for ss in rs.scope_spans for span in ss.spans]
    if not spans:
        raise CheckFailed(f"{where}: no spans")
    names = {attribute.key for rs in request.resource_spans for attribute in rs.resource.attributes}
    if "service.name" not in names:
        raise CheckFailed(f"{where}: the resource has no service.name")
    ids = {(span.trace_id, span.span_id) for span in spans}
    if len(ids) != len(spans):
        raise CheckFailed(f"{where}: two spans share an id")
    for span in spans:
        place = f"{where}: span {span.name!r}"
        if len(span.trace_id) != 16 or len(span.span_id) != 8:
            raise CheckFailed(f"{place}: ids of the wrong size")
        if span.parent_span_id and (span.trace_id, span.parent_span_id) not in ids:
            raise CheckFailed(f"{place}: its parent is not in the document")
        if span.end_time_unix_nano < span.start_time_unix_nano or span.start_time_unix_nano == 0:
            raise CheckFailed(f"{place}: ends before it starts, or has no start")
        if span.kind not in (1, 3):
            raise CheckFailed(f"{place}: kind {span.kind}, expected INTERNAL or CLIENT")
        for link in span.links:
            if (link.trace_id, link.span_id) not in ids:
                raise CheckFailed(f"{place}: a link to a span not in the document")
    return spans


def check_chrome_importer(har, where):
    """What Chrome DevTools' HAR importer needs to load an archive (as its reader,
    front_end/models/har/HARFormat.ts, requires it): objects where it builds objects, numbers
    where it casts to numbers (a missing number is NaN and fails the import), dates it parses."""
    def number(value, field):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CheckFailed(f"{where}: {field} is {value!r}, not a number")

    def obj(value, field):
        if not isinstance(value, dict):
            raise CheckFailed(f"{where}: {field} is not an object")
        return value

    log = obj(har.get("log"), "log")
    obj(log.get("creator"), "log.creator")
    if not isinstance(log.get("entries"), list):
        raise CheckFailed(f"{where}: log.entries is not an array")
    for index, entry in enumerate(log["entries"]):
        place = f"log.entries[{index}]"
        obj(entry, place)
        try:
            datetime.fromisoformat(entry["startedDateTime"].replace("Z", "+00:00"))
        except (KeyError, AttributeError, ValueError):
            raise CheckFailed(f"{where}: {place}.startedDateTime is not a date")
        number(entry.get("time"), f"{place}.time")
        request = obj(entry.get("request"), f"{place}.request")
        response = obj(entry.get("response"), f"{place}.response")
        timings = obj(entry.get("timings"), f"{place}.timings")
        for field in ("headersSize", "bodySize"):
            number(request.get(field), f"{place}.request.{field}")
            number(response.get(field), f"{place}.response.{field}")
        number(response.get("status"), f"{place}.response.status")
        number(obj(response.get("content"), f"{place}.response.content").get("size"), f"{place}.response.content.size")
        for field in ("send", "wait", "receive"):
            number(timings.get(field), f"{place}.timings.{field}")
        for side, message in (("request", request), ("response", response)):
            for header in message.get("headers", []):
                obj(header, f"{place}.{side}.headers[]")
        if "postData" in request:
            obj(request["postData"], f"{place}.request.postData")


def run(binary, *arguments, expect=0):
    """Runs chainlab; `expect` is the exit status, or a tuple of those allowed (`trace` exits 1
    when an operation of the scenario fails, as some do by design)."""
    result = subprocess.run([binary, *arguments], capture_output=True, text=True, timeout=120)
    if result.returncode not in (expect if isinstance(expect, tuple) else (expect,)):
        raise CheckFailed(
            f"chainlab {' '.join(arguments)} exited {result.returncode}, expected {expect}: {result.stderr.strip()}")
    return result


class Receiver(http.server.BaseHTTPRequestHandler):
    """POST /v1/traces; answers come from the server's `script` list, then 200."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        server = self.server
        server.posts.append((self.path, dict(self.headers), body))
        status, headers, answer = server.script.pop(0) if server.script else (200, {}, b"{}")
        if status == 200 and self.path == "/v1/traces":
            try:
                server.decoded.append(decode_otlp(body.decode(), "received document"))
            except CheckFailed as error:
                server.errors.append(str(error))
                status, answer = 400, json.dumps({"message": str(error)}).encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


def serve(script):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.script, server.posts, server.decoded, server.errors = list(script), [], [], []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def check_receivers(binary, folder):
    unavailable = (503, {"Retry-After": "0"}, b'{"message":"busy"}')
    server, url = serve([unavailable, unavailable])
    try:
        run(binary, "trace", "refresh-storm", "--otlp-endpoint", url, "--otlp-header", "X-Team-Key: k-123",
            "--output", os.path.join(folder, "storm.txt"), expect=1)
    finally:
        server.shutdown()
    if server.errors:
        raise CheckFailed(server.errors[0])
    if len(server.posts) != 3 or len(server.decoded) != 1:
        raise CheckFailed(f"503 twice then 200: expected 3 posts and 1 document, got {len(server.posts)} and {len(server.decoded)}")
    path, headers, _ = server.posts[-1]
    if path != "/v1/traces" or headers.get("Content-Type") != "application/json" or headers.get("X-Team-Key") != "k-123":
        raise CheckFailed(f"the export was POST {path} with headers {headers}")
    refreshes = [span for span in server.decoded[0] if span.name.endswith("/oauth/token")]
    if len(refreshes) != 6:
        raise CheckFailed(f"refresh-storm sent {len(refreshes)} refresh spans, expected 6")
    print("ok   --otlp-endpoint: 503, 503, then 200 with 6 refresh spans")

    partial = (200, {}, b'{"partialSuccess":{"rejectedSpans":"2","errorMessage":"too old"}}')
    server, url = serve([partial])
    try:
        result = run(binary, "trace", "basics", "--otlp-endpoint", url, "--output", os.path.join(folder, "basics.txt"), expect=1)
    finally:
        server.shutdown()
    if "rejected 2 spans: too old" not in result.stderr:
        raise CheckFailed(f"a partial success was not reported: {result.stderr.strip()}")
    print("ok   --otlp-endpoint: partial success reported")

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    output = os.path.join(folder, "unreachable.json")
    result = run(binary, "trace", "basics", "--format", "otlp", "--otlp-endpoint", f"http://127.0.0.1:{port}",
                 "--output", output, expect=1)
    if "OTLP export failed" not in result.stderr or "gave up after 5 tries" not in result.stderr:
        raise CheckFailed(f"an unreachable receiver was not reported: {result.stderr.strip()}")
    with open(output) as file:
        decode_otlp(file.read(), output)
    print("ok   --otlp-endpoint: unreachable receiver reported, --output still written")


def main():
    binary = sys.argv[1]
    scenarios = [line.split()[0] for line in run(binary, "scenarios").stdout.splitlines() if line.strip()]
    if len(scenarios) < 5:
        raise CheckFailed(f"chainlab scenarios listed only {scenarios}")
    for scenario in scenarios:
        spans = decode_otlp(run(binary, "trace", scenario, "--format", "otlp", expect=(0, 1)).stdout, f"{scenario} (otlp)")
        har = json.loads(run(binary, "trace", scenario, "--format", "har", expect=(0, 1)).stdout)
        check_chrome_importer(har, f"{scenario} (har)")
        try:
            parser = HarParser(har)
            if parser.creator["name"] != "ChainLab":
                raise CheckFailed(f"{scenario} (har): creator {parser.creator}")
            entries = [HarEntry(entry) for entry in har["log"]["entries"]]
            for entry in entries:
                # Each property parses a part of the entry: the date, the request, the response.
                if not (entry.startTime and entry.request.method and entry.request.url and entry.time >= 0):
                    raise CheckFailed(f"{scenario} (har): an entry without start, method, URL or time")
                _ = (entry.response.status, entry.response.mimeType, entry.request.headers, entry.response.headers)
        except (KeyError, ValueError, TypeError) as error:
            raise CheckFailed(f"{scenario} (har): haralyzer cannot read it: {error!r}")
        for entry in har["log"]["entries"]:
            ids = entry.get("_chainlab", {})
            if len(ids.get("traceId", "")) != 32 or len(ids.get("spanId", "")) != 16:
                raise CheckFailed(f"{scenario} (har): an entry has no _chainlab trace and span ids")
        span_ids = {span.span_id.hex() for span in spans}
        missing = [entry["_chainlab"]["spanId"] for entry in har["log"]["entries"] if entry["_chainlab"]["spanId"] not in span_ids]
        if missing:
            raise CheckFailed(f"{scenario} (har): _chainlab span ids not in the OTLP document: {missing}")
        print(f"ok   {scenario}: {len(spans)} spans decoded; {len(entries)} HAR entries read (haralyzer, Chrome importer fields)")
    with tempfile.TemporaryDirectory() as folder:
        check_receivers(binary, folder)
    print(f"exports: {len(scenarios)} scenarios and 3 receivers checked")


if __name__ == "__main__":
    try:
        main()
    except CheckFailed as failure:
        print(f"FAIL {failure}", file=sys.stderr)
        sys.exit(1)
