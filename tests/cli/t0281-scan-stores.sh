#!/bin/sh
# Secrets that reach a store from a server or a definition (issue 44): a server's error body holding
# a token (HTTP 500, or an error object in the stream) is stored scrubbed and cut; scan --run finds a
# userinfo URL in a stored definition and pass and a token in a stored failure (a store written
# before either was refused or scrubbed), and manifest and archive refuse such a store; a 1 MB line
# without blanks is scanned, the token at its end found. The secrets are made here, not committed.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
qs() { sqlite3 "$LABRUN_STORE/labrun.db" "$1"; } # raw text, not CSV
tok=ghp_$(printf 'A1b2%.0s' $(seq 9))
# manifest and archive of run $1 refuse for the scan's findings, and write nothing
refused() {
	expect_exit 1 "manifest refuses $2" "$LABRUN" manifest --run "$1" -o "crate-$1"
	contains "$T/err" "refusing to write the crate: the scan has" "for its findings"
	[ ! -e "crate-$1" ] || fail "a crate was written"
	expect_exit 1 "so does archive" "$LABRUN" archive --run "$1" -o "a-$1.tar.zst"
	[ ! -e "a-$1.tar.zst" ] || fail "an archive was written"
	ok "nothing was published"
}

# a throwaway server whose errors carry the token: HTTP 500 with it as the body, or an error event
cat >leak.py <<'PY'
import http.server, json, os, sys
TOKEN = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def reply(self, status, ctype, body):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.reply(200, "application/json", b'{"object": "list", "data": [{"id": "tiny"}]}')
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if req["prompt"] == "stream":
            ev = json.dumps({"error": {"message": "bad credentials " + TOKEN}})
            self.reply(200, "text/event-stream", ("data: %s\n\ndata: [DONE]\n\n" % ev).encode())
        elif req["prompt"] == "streamcut":  # 12 of the token's characters where the message's cap falls
            ev = json.dumps({"error": {"message": "ab " * 56 + TOKEN}})
            self.reply(200, "text/event-stream", ("data: %s\n\ndata: [DONE]\n\n" % ev).encode())
        elif req["prompt"] == "edge":  # 11 of the token's characters where the body's cap fell
            self.reply(500, "application/json", ('{"error": "%s%s"}' % ("ab " * 31, TOKEN)).encode())
        elif req["prompt"] == "long":  # the token where a length cap cuts it
            self.reply(500, "application/json", ('{"error": "%s %s"}' % ("x" * 170, TOKEN)).encode())
        else:
            self.reply(500, "application/json", ('{"error": "%s"}' % TOKEN).encode())
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
s.serve_forever()
PY
python3 leak.py leakport "$tok" &
leak=$!
trap 'kill $server $leak 2>/dev/null; cleanup' EXIT
for i in $(seq 300); do [ -s leakport ] && break || sleep 0.05; done
[ -s leakport ] || fail "the leaking server did not start"
leakurl="http://127.0.0.1:$(cat leakport)/v1"

printf '{"case_id": "h500", "prompt": "body"}\n{"case_id": "ev", "prompt": "stream"}\n{"case_id": "cut", "prompt": "long"}\n' >leak.jsonl
printf '{"case_id": "edge", "prompt": "edge"}\n{"case_id": "evcut", "prompt": "streamcut"}\n' >>leak.jsonl
expect_exit 1 "a pass whose requests all fail" "$LABRUN" collect --endpoint "$leakurl" --route leak --cases leak.jsonl
run=$(q "SELECT max(id) FROM run")
equals "$(qs "SELECT failure FROM collect_request WHERE case_id = 'h500'")" \
	"HTTP 500 from $leakurl/completions (application/json): {\"error\": \"<redacted>\"}" \
	"the HTTP error body is stored with its token scrubbed"
equals "$(qs "SELECT failure FROM collect_request WHERE case_id = 'ev'")" \
	"server error in the stream: bad credentials <redacted>" "so is the stream's error object"
got=$(qs "SELECT failure FROM collect_request WHERE case_id = 'cut'")
case "$got" in "HTTP 500 from $leakurl/completions ("*'): {"error": "'*'<redacted>') ok "a token cut by the length cap is withheld: $got" ;;
*) fail "a token cut by the length cap: got '$got'" ;; esac
for c in edge evcut; do
	got=$(qs "SELECT failure FROM collect_request WHERE case_id = '$c'")
	case "$got" in *"ab ab <redacted>"*) ok "$c: a token scrubbed before a cap cut it short: $got" ;;
	*) fail "$c: a token a cap cuts to 11 or 12 characters: got '$got'" ;; esac
done
equals "$(q "SELECT count(*) FROM collect_request WHERE failure LIKE '%ghp_A%' OR length(failure) > 256")" "0" \
	"no part of the token is stored, and no failure is longer than 256 bytes"
expect_exit 0 "the collect run scans clean" "$LABRUN" scan --run "$run"

# seeded rows stand for a store written before: sealed and chained as they were written then (an
# edit left unsealed is refused by manifest before it scans: its crate could not be verified)
sealed_again() {
	for id in $(q "SELECT group_concat(run_id, ' ') FROM run_seal"); do
		python3 "$TOP_SRCDIR/tests/cli/seal-check.py" reseal "$LABRUN_STORE/labrun.db" "$TOP_SRCDIR/docs/schema.md" "$id" ||
			fail "reseal run $id"
	done
	python3 "$TOP_SRCDIR/tests/cli/seal-check.py" rechain "$LABRUN_STORE/labrun.db" "$TOP_SRCDIR/docs/schema.md" 1 >/dev/null ||
		fail "rechain"
}

# a store written before: a failure holding the token (as collect stored it then)
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE collect_request SET failure = 'HTTP 500: {\"error\": \"$tok\"}' WHERE case_id = 'h500'" ||
	fail "seed the old failure"
sealed_again
expect_exit 1 "scan --run finds the token in the stored failure" "$LABRUN" scan --run "$run"
contains "$T/out" "github-token" "as a token"
lacks "$T/out" "$tok" "never printing it"
refused "$run" "the collect run"

# a serving experiment whose definition named its endpoint and metrics URL with a password in them
# (stored as given before such URLs were refused where they are read): seeded into the rows
printf '[experiment]\nname = creds\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 2\nwarmup = 0\nexploratory = yes\n[arm a]\nendpoint = %s\nmax_tokens = 4\nmetrics_url = %s\nsample = 0.05s\n[arm b]\nendpoint = %s\nmax_tokens = 4\n' \
	"$url" "${url%/v1}/metrics" "$url" >creds.ini
printf '{"case_id": "c1", "prompt": "hello world"}\n' >cases.jsonl
"$LABRUN" run -q creds.ini >/dev/null 2>&1 || fail "the serving experiment ran"
exp=$(q "SELECT max(run_id) FROM run_definition")
expect_exit 0 "its runs scan clean" "$LABRUN" scan --run "$exp"
pw=$(printf 'Zq7-%s' pW2x)
python3 - "$LABRUN_STORE/labrun.db" "$pw" <<'PY' || fail "seed the definition"
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for run, text in db.execute("SELECT run_id, text FROM run_definition").fetchall():
    text = text.replace("http://127", "http://lab:%s@127" % sys.argv[2])
    db.execute("UPDATE run_definition SET text = ?, sha256 = ? WHERE run_id = ?",
               (text, hashlib.sha256(text.encode()).hexdigest(), run))
db.execute("UPDATE collect_pass SET endpoint = replace(endpoint, 'http://127', 'redis://:' || ? || '@127'),"
           " metrics_url = replace(metrics_url, 'http://127', 'http://lab:' || ? || '@127')", (sys.argv[2], sys.argv[2]))
db.commit()
PY
sealed_again
expect_exit 1 "scan --run finds the password in the stored definition" "$LABRUN" scan --run "$exp"
contains "$T/out" "run-$exp/definition.ini:10: url-password" "in the definition, at its line"
contains "$T/out" "run-$exp/definition.ini:12: url-password" "the metrics URL too"
lacks "$T/out" "$pw" "never printing it"
pass_run=$(q "SELECT s.run_id FROM collect_pass p JOIN response_set s ON s.id = p.set_id WHERE p.metrics_url IS NOT NULL LIMIT 1")
expect_exit 1 "and in a stored pass's endpoint and metrics URL (empty user included)" "$LABRUN" scan --run "$pass_run"
contains "$T/out" "url-password" "found"
refused "$exp" "the experiment"

# a line of 1 MB without a blank, the token at its end (the scan was quadratic in a line's length)
python3 -c "import sys; sys.stdout.write('a' * (1 << 20) + sys.argv[1] + '\n')" "$tok" >long.txt
expect_exit 1 "the token at the end of a 1 MB line is found" "$LABRUN" scan long.txt
contains "$T/out" "long.txt:1: github-token" "at line 1"
"$LABRUN" record -q --issue 44 -- cat long.txt >/dev/null 2>&1 || fail "record the line"
expect_exit 1 "and in a stored log of it" "$LABRUN" scan --run last
contains "$T/out" "stdout:1: github-token" "found"
refused "$(q "SELECT max(id) FROM run")" "the run of the 1 MB line"

