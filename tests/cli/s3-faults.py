"""A proxy in front of the test's S3 server that answers 503 SlowDown: to each distinct request
(method, path and query) its first FAILS times in 'storm' mode, then passes it on unchanged (the
Host header too, so the signature still holds); to every request in 'down' mode; and in 'hostile'
mode answers 403 with a Code and Message full of terminal escapes. In 'nolength' mode a HEAD's
answer says no Content-Length; in 'headbig' it says 1000 bytes more than the object has; in 'short'
a GET's answer carries only the object's first 100 bytes (and says so). The mode is the file
MODE_FILE's first word, read at each request. Loopback only.

usage: python3 s3-faults.py LISTEN_PORT UPSTREAM_PORT MODE_FILE FAILS
"""
import http.client
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LISTEN, UPSTREAM, MODE_FILE, FAILS = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
SLOWDOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
            b"<Message>Please reduce your request rate.</Message></Error>")
seen = {}
lock = threading.Lock()


def mode():
    try:
        with open(MODE_FILE) as f:
            return (f.read().split() or ["pass"])[0]
    except OSError:
        return "pass"


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("%s %s\n" % (self.command, self.path))

    def relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        m = mode()
        with lock:
            n = seen.get((self.command, self.path), 0)
            seen[(self.command, self.path)] = n + 1
        if m == "hostile":  # a refusal whose words would drive a terminal
            # C0 escapes cannot be in XML 1.0; the C1 CSI (U+009B) can, as its UTF-8 or as &#155;
            evil = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied\xc2\x9b2J</Code>'
                    b'<Message>&#155;31mred&#155;0m</Message></Error>')
            self.send_response(403)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(evil)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(evil)
            return
        if m == "down" or (m == "storm" and n < FAILS):
            self.send_response(503)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(SLOWDOWN)))
            self.end_headers()
            if self.command != "HEAD":  # a HEAD's answer has no body
                self.wfile.write(SLOWDOWN)
            return
        up = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("expect", "connection")}
        up.request(self.command, self.path, body=body, headers=headers)
        r = up.getresponse()
        data = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                self.send_header(k, v)
        if m == "short" and self.command == "GET" and r.status == 200:
            data = data[:100]
        # a HEAD's length is the object's, which its answer does not carry
        length = int(r.getheader("Content-Length", "0")) if self.command == "HEAD" else len(data)
        if m == "headbig" and self.command == "HEAD":
            length += 1000
        if not (m == "nolength" and self.command == "HEAD"):
            self.send_header("Content-Length", str(length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        up.close()

    do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = relay


ThreadingHTTPServer(("127.0.0.1", LISTEN), Proxy).serve_forever()
