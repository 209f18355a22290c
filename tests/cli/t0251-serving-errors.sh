#!/bin/sh
# Errors that name what went wrong (issue 44, item 8): an endpoint's answer that is no event stream (a
# redirect, an HTML page, a gzip body, headers over libcurl's limit) names the URL, the status, what
# arrived and the fix; endpoint and metrics URLs are checked once, where they are read (collect's
# options, a serving experiment's arms); a secret in --model is named as --model; an empty responses
# file is refused.
. "$(dirname "$0")/lib.sh"
cat >server.py <<'PY'
import gzip, http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def answer(self, status, ctype, body, extra=()):
        self.send_response(status)
        for k, v in extra:
            self.send_header(k, v)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mode = self.path.split("/")[1]
        if mode == "redir":
            self.answer(307, None, b"", [("Location", "http://127.0.0.1:%d/v1/completions" % self.server.server_port)])
        elif mode == "html":
            self.answer(200, "text/html", b"<html><body>\x01 <b>Welcome</b></body></html>")
        elif mode == "gzip":
            self.answer(200, "text/event-stream", gzip.compress(b"data: {}\n\n"), [("Content-Encoding", "identity")])
        elif mode == "bighdr":
            self.answer(200, "text/event-stream", b"data: [DONE]\n\n", [("X-Big", "y" * 300000)])
        elif mode == "hostile":
            self.answer(500, "text/html", b"<b>down</b> <script>alert(1)</script> <!-- [x](javascript:y) www.evil.example")
        else:
            self.answer(404, "text/plain", b"no such route")
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
s.handle_error = lambda *a: None  # a client that hangs up (bighdr) is no news
open(sys.argv[1], "w").write(str(s.server_port))
s.serve_forever()
PY
SIM_SERVER=server.py
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
base="http://127.0.0.1:$(cat port)"
echo '{"case_id": "c1", "prompt": "hello"}' >cases.jsonl

# each answer that is no stream, named: URL, status, what arrived, the fix
set=0
while read -r mode why; do
	set=$((set + 1))
	expect_exit 1 "a pass against /$mode" "$LABRUN" collect --endpoint "$base/$mode/v1" --route "$mode" --cases cases.jsonl
	got=$(q "SELECT failure FROM collect_request WHERE case_id = 'c1' AND set_id = $set")
	case "$got" in *"$why"*) ok "$mode: $got" ;; *) fail "$mode: got '$got', expected '...$why...'" ;; esac
done <<WANT
redir HTTP 307 from $base/redir/v1/completions: a redirect to $base/v1/completions, not followed; give that URL
html HTTP 200 from $base/html/v1/completions: text/html, not text/event-stream, began '<html><body>\x01 <b>Welcome
gzip HTTP 200 from $base/gzip/v1/completions: a gzip body, not text/event-stream, began '\x1f\x8b
bighdr stream cut from $base/bighdr/v1/completions:
WANT
got=$(q "SELECT failure FROM collect_request WHERE set_id = 4")
case "$got" in *"100 KB limit"* | *"header"*) ok "headers over the limit say so" ;; *) fail "headers over the limit: '$got'" ;; esac

# URLs checked where they are read: nothing sent, nothing stored
runs=$(q "SELECT count(*) FROM run")
while read -r bad why; do
	expect_exit 2 "--endpoint $bad" "$LABRUN" collect --endpoint "$bad" --route r --cases cases.jsonl
	contains "$T/err" "$why" "--endpoint $bad: refused, saying why"
done <<'BAD'
http://127.0.0.1:99999/v1 a number from 1 to 65535
http://127.0.0.1:0/v1 a number from 1 to 65535
http://127.0.0.1:8000/v1?x=1 without ?query
http://127.0.0.1:8000/v1#top without ?query or #fragment
http://user:pass@127.0.0.1:8000/v1 without user:password@
http:///v1 with a host
ftp://127.0.0.1/v1 an http:// or https:// URL
BAD
expect_exit 2 "an endpoint with a blank" "$LABRUN" collect --endpoint "http://127.0.0.1:8000/v 1" --route r --cases cases.jsonl
contains "$T/err" "without blanks" "a blank in --endpoint: refused"
expect_exit 2 "--metrics-url with a password" "$LABRUN" collect --endpoint "$base/v1" --metrics-url "http://u:p@127.0.0.1:1/metrics" --route r --cases cases.jsonl
contains "$T/err" "--metrics-url is a URL without user:password@" "a password in --metrics-url: refused"
equals "$(q "SELECT count(*) FROM run")" "$runs" "no run stored for a refused URL"

# and in a serving experiment's arms
printf '[experiment]\nname = s\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 6\n[arm a]\nendpoint = http://me:secret@127.0.0.1:8000/v1\n[arm b]\nendpoint = %s/v1\nmetrics_url = http://127.0.0.1:70000/metrics\n' \
	"$base" >urls.ini
expect_exit 2 "an arm's endpoint with a password" "$LABRUN" run -q urls.ini
contains "$T/err" "urls.ini:8: [arm a] 'endpoint'" "named at its line"
contains "$T/err" "without user:password@" "saying why"
sed -i 's/me:secret@//' urls.ini
expect_exit 2 "an arm's metrics URL with port 70000" "$LABRUN" run -q urls.ini
contains "$T/err" "[arm b] 'metrics_url'" "named"
contains "$T/err" "port is a number from 1 to 65535" "saying why"

# a secret in --model is named as --model, not as a case
export LR_TEST_API_KEY=modelsecret123
runs=$(q "SELECT count(*) FROM collect_request")
expect_exit 1 "--model holding a secret" "$LABRUN" collect --endpoint "$base/v1" --model modelsecret123 --route r --cases cases.jsonl
contains "$T/err" "refusing --model" "names --model"
lacks "$T/err" "case 'c1'" "not the case"
equals "$(q "SELECT count(*) FROM collect_request")" "$runs" "nothing sent or stored"
unset LR_TEST_API_KEY

# an empty responses file makes no empty cell
"$LABRUN" record -q -- true >/dev/null 2>&1 || fail "record"
: >empty.jsonl
expect_exit 2 "ingest of an empty file" "$LABRUN" ingest responses --run last --route e empty.jsonl
contains "$T/err" "responses 'empty.jsonl' is empty" "refused, saying why"
equals "$(q "SELECT count(*) FROM response_set WHERE route = 'e'")" "0" "nothing stored"

# item 7: hostile strings in every field that reaches a report (case ids, routes, server errors) are
# escaped by the writers: GitHub's renderer makes no link, image, raw HTML or comment of them
H='[click](javascript:alert(1)) <img src=x onerror=alert(1)> <!-- http://evil.example/t.png www.evil.example'
printf '{"case_id": "%s", "prompt": "hi"}\n' "$H" >hostile.jsonl
expect_exit 1 "a pass whose server errors are HTML" "$LABRUN" collect --endpoint "$base/hostile/v1" --route 'r<!--' \
	--cases hostile.jsonl
run=$(q "SELECT max(id) FROM run")
for r in a 'b](x)<b>'; do
	printf '{"case_id": "%s", "tokens": [1, 2], "text": "<script>t</script>", "finish_reason": "stop"}\n' "$H" >r.jsonl
	[ "$r" = a ] || sed -i 's/2]/3]/' r.jsonl
	"$LABRUN" ingest responses --run "$run" --route "$r" r.jsonl >/dev/null || fail "ingest route $r"
done
"$LABRUN" compare --run "$run" --reference a --candidate 'b](x)<b>' >/dev/null 2>&1 || true
expect_exit 0 "the report as Markdown" "$LABRUN" report --run "$run" --max-chars 0
cp "$T/out" hostile.md
contains hostile.md "onerror" "the hostile case id is in the report"
contains hostile.md "down" "and the server's error"
if command -v cmark-gfm >/dev/null; then
	cmark-gfm -e table -e autolink -e strikethrough --unsafe hostile.md >hostile.html || fail "cmark-gfm"
	lacks hostile.html "<a " "no link rendered (nor autolink)"
	lacks hostile.html "<img" "no image rendered"
	lacks hostile.html "<!--" "no comment that hides the rest"
	lacks hostile.html "<script" "no raw script"
	lacks hostile.html "<b>" "no raw HTML"
	contains hostile.html "&lt;img src=x onerror=alert(1)&gt;" "the case id shown as text"
fi
expect_exit 0 "the report as HTML" "$LABRUN" report --run "$run" --format html
for raw in "<img" "<!--" "<script" "<b>" 'href="javascript'; do lacks "$T/out" "$raw" "HTML: no raw '$raw'"; done
echo "1..$tests"
