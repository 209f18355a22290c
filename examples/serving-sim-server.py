#!/usr/bin/env python3
"""A SIMULATED streaming OpenAI-compatible server: it serves no model. Standard library only,
loopback only; the tests of 'labrun collect' and docs/serving.md use it.

usage: serving-sim-server.py PORTFILE SENTLOG

Serves GET /v1/models, GET /metrics (vLLM's running and waiting gauges), POST /v1/completions and
POST /v1/chat/completions (the messages' contents joined are the prompt), streamed as server-sent events
in the shapes vLLM sends (token_ids per chunk with return_token_ids, a usage
chunk, [DONE]), or as llama.cpp's server and older vLLM do, chosen by the
prompt. A prompt "mode:NAME ..." picks a fault instead, one of each kind a
client meets: http500, close (no reply), cut (the stream ends mid-event),
nodone (it ends before [DONE]), badjson, utf8, oversize, stall, error (an
error object in the stream); slow waits 30 s before it answers. Streams that
break the client's own checks: inflate (usage reports 99 times the tokens sent),
nul (a token whose text is "\\u0000"), nofinish (no finish reason), empty (only
[DONE]), nocontent (a finish and no token), lateids (the first token's id comes
with the second's); vary answers each request with
other tokens. GET /metrics-flaky fails every
other scrape (HTTP 503). The port goes to PORTFILE once listening; every
completed stream's token ids and text go to SENTLOG (JSON lines), so tests
compare what labrun stored with what was sent, not with numbers in the test.
"""
import hashlib
import json
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

LOG_LOCK = threading.Lock()
RUNNING = [0]  # streams being answered, for /metrics
FLAKY = [0]  # scrapes of /metrics-flaky
VARY = [0]  # requests in mode vary: each gets other tokens


def tokens_for(prompt, n):
    """n token ids derived from the prompt, the same every time."""
    h = hashlib.sha256(prompt.encode()).digest()
    return [(h[i % 32] * 7 + i) % 384 for i in range(n)]


def piece(t):
    return chr(ord("a") + t % 26)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "labrun-test-sse/1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/metrics-flaky":
            FLAKY[0] += 1
            if FLAKY[0] % 2:
                return self.send_error(503)
            self.path = "/metrics"
        if self.path == "/metrics":  # vLLM's gauges, as Prometheus text
            with LOG_LOCK:
                n = RUNNING[0]
            body = ('# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name="tiny"} %d\n'
                    '# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name="tiny"} 0\n' % n).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path != "/v1/models":
            return self.send_error(404)
        body = json.dumps({"object": "list", "data": [{"id": "tiny", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def event(self, obj):
        data = obj if isinstance(obj, (bytes, str)) else json.dumps(obj)
        if isinstance(data, str):
            data = data.encode()
        self.wfile.write(b"data: " + data + b"\n\n")
        self.wfile.flush()

    def do_POST(self):
        with LOG_LOCK:
            RUNNING[0] += 1
        try:
            self.complete()
        finally:
            with LOG_LOCK:
                RUNNING[0] -= 1

    def complete(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        chat = self.path == "/v1/chat/completions"
        if chat:
            req["prompt"] = " ".join(m.get("content", "") for m in req.get("messages", []))
        elif self.path != "/v1/completions":
            return self.send_error(404)
        prompt = req.get("prompt")
        if isinstance(prompt, list):
            prompt = " ".join(map(str, prompt))
        mode = prompt.split()[0][5:] if prompt.startswith("mode:") else "vllm"
        if mode == "slow":  # said in the log first, so a test knows the request is in flight
            with LOG_LOCK, open(sys.argv[2], "a") as log:
                log.write(json.dumps({"prompt": prompt, "waiting": 30}) + "\n")
            time.sleep(30)
        if mode == "close":
            self.close_connection = True
            return
        if mode == "http500":
            body = b'{"error": {"message": "the model is not loaded"}}'
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        n = req.get("max_tokens", 16)
        toks = tokens_for(prompt.split(" ", 1)[1] if mode != "vllm" and " " in prompt else prompt, n)
        if mode == "vary":
            with LOG_LOCK:
                VARY[0] += 1
                toks = tokens_for(prompt + str(VARY[0]), n)
        eos = n > 4 and mode != "length"
        if eos:
            toks = toks[: n - 2]
        if mode in ("empty", "nocontent"):
            toks = []
        if mode == "empty":
            self.event("[DONE]")
            return
        faults = {
            "badjson": lambda: self.event(b"{not json"),
            "utf8": lambda: self.event(b'{"choices": [{"index": 0, "text": "\xff\xfe"}]}'),
            "oversize": lambda: self.event(json.dumps({"choices": [{"index": 0, "text": "x" * (2 << 20)}]})),
            "error": lambda: self.event({"error": {"message": "out of KV cache blocks", "code": 503}}),
            "stall": lambda: time.sleep(30),
            "cut": lambda: (self.wfile.write(b'data: {"choices": [{"index": 0, "te'), self.wfile.flush()),
        }
        sent_text = ""
        for i, t in enumerate(toks):
            if i == 2 and mode in faults:
                faults[mode]()
                return
            text = "\0" if mode == "nul" and i == 1 else piece(t)
            chunk = {"id": "cmpl-1", "object": "text_completion", "model": "tiny",
                     "choices": [{"index": 0, "text": text, "finish_reason": None}]}
            if chat:
                chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "tiny",
                         "choices": [{"index": 0, "delta": {"content": piece(t)}, "finish_reason": None}]}
            if mode == "llamacpp":
                chunk = {"content": piece(t), "tokens": [t], "stop": False}
            elif mode == "logprobs":
                chunk["choices"][0]["logprobs"] = {"tokens": ["token_id:%d" % t], "token_logprobs": [-0.1]}
            elif mode == "lateids" and req.get("return_token_ids"):  # the first token's id comes with the second
                if i:
                    chunk["choices"][0]["token_ids"] = [toks[0], t] if i == 1 else [t]
            elif mode != "textonly" and req.get("return_token_ids"):
                chunk["choices"][0]["token_ids"] = [t]
                if i == 0:
                    chunk["prompt_token_ids"] = [1, 2, 3]
            self.event(chunk)
            sent_text += text if not chat and mode != "llamacpp" else piece(t)
            time.sleep(0.002)
        finish = "stop" if eos else "length"
        if mode == "llamacpp":
            self.event({"content": "", "tokens": [], "stop": True, "stop_type": "eos" if eos else "limit"})
        else:
            last = {"index": 0, "delta": {}} if chat else {"index": 0, "text": ""}
            if mode != "nofinish":
                self.event({"id": "cmpl-1", "choices": [dict(last, finish_reason=finish)]})
            used = len(toks) * (99 if mode == "inflate" else 1)
            self.event({"id": "cmpl-1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": used,
                                                                 "total_tokens": 3 + used}})
        if mode == "nodone":
            return
        self.event("[DONE]")
        with LOG_LOCK, open(sys.argv[2], "a") as log:
            log.write(json.dumps({"prompt": prompt, "tokens": toks if mode != "textonly" else [], "text": sent_text,
                                  "finish_reason": finish}) + "\n")


class Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


main()
