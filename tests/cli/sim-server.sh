# The simulated OpenAI-compatible server (examples/serving-sim-server.py) for a serving test, sourced
# after lib.sh: started in the test's directory, its base URL in $url, every completed stream logged
# to sent.log, stopped with the test. SIM_SERVER names another server script (same arguments).
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is needed for the test server"; exit 0; }
python3 "${SIM_SERVER:-$TOP_SRCDIR/examples/serving-sim-server.py}" port sent.log &
server=$!
trap 'kill $server 2>/dev/null; cleanup' EXIT
i=0
while [ ! -s port ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
[ -s port ] || fail "the test server did not start"
url="http://127.0.0.1:$(cat port)/v1"
