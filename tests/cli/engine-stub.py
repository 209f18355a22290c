#!/usr/bin/env python3
"""A stub serving engine for the tests: it answers identity requests with the fixture files of DIR
(tests/fixtures/serving/identity/*: models.json for GET /v1/models, version.json for GET /version,
props.json for GET /props, 'server' for the Server header) and every completion with one streamed
token and a finish. It serves no model: only what an engine says of itself is under test.

usage: engine-stub.py DIR PORTFILE
"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR, PORTFILE = sys.argv[1], sys.argv[2]
ROUTES = {"/v1/models": "models.json", "/version": "version.json", "/props": "props.json"}


def fixture(name):
    path = os.path.join(DIR, name)
    return open(path, "rb").read() if os.path.exists(path) else None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def reply(self, code, body, ctype="application/json"):
        self.send_response(code)
        server = fixture("server")
        if server:
            self.send_header("Server", server.decode().strip())
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        body = fixture(ROUTES[self.path]) if self.path in ROUTES else None
        self.reply(200 if body else 404, body or b"")

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        chunks = [{"choices": [{"index": 0, "text": "ok", "finish_reason": None}]},
                  {"choices": [{"index": 0, "text": "", "finish_reason": "stop"}]}]
        body = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        self.reply(200, body, "text/event-stream")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
