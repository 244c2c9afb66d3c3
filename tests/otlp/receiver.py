"""An OTLP/HTTP metrics receiver for exa's tests: decodes each request with
the official OpenTelemetry protobuf definitions (opentelemetry-proto from
PyPI) and writes it as one JSON line (protobuf's own JSON mapping).

    python receiver.py PORT_FILE OUT_FILE PARENT_PID

It listens on a free loopback port, writes the port to PORT_FILE, answers
every POST with an empty ExportMetricsServiceResponse, and exits when
PARENT_PID does.
"""
import gzip
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

port_file, out, parent = sys.argv[1], sys.argv[2], int(sys.argv[3])


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        req = ExportMetricsServiceRequest()
        req.ParseFromString(body)
        line = {"path": self.path, "content_type": self.headers.get("Content-Type"), "request": MessageToDict(req)}
        with open(out, "a") as f:
            f.write(json.dumps(line) + "\n")
        answer = ExportMetricsServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def watchdog():
    while True:
        try:
            os.kill(parent, 0)
        except OSError:
            os._exit(0)
        time.sleep(1)


server = HTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=watchdog, daemon=True).start()
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
