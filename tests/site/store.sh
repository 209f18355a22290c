# Sourced by tests/cli/t0355-site.sh and tests/slow/t0955-site-crate-scan.sh after lib.sh:
# the store whose site and crate they check. Run 1 an experiment, unsigned; then a key
# (this HOME trusts it) signs run 2, the serving example (its responses, comparisons and a
# failing case), and two records of issue 270, the second failed with a geometry.
cp -r "$TOP_SRCDIR/examples" .
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1 || fail "an experiment"
"$LABRUN" key init >/dev/null 2>&1 || fail "key init" # the runs after this one are signed, by a key this HOME trusts
# the serving example on two of its four models (the planted divergence's and the uncollected route's):
# its pages and grid are the whole example's, at half the cost
sed 's/^model = .*/model = qwen3-4b, gemma3-1b/' examples/serving-sim.ini >examples/serving-sim-small.ini
"$LABRUN" run -q examples/serving-sim-small.ini >/dev/null 2>&1 || fail "the serving example"
"$LABRUN" record -q --issue 270 -- sh -c 'echo one' >/dev/null 2>&1
"$LABRUN" record -q --issue 270 --geometry model=qwen3-4b -- sh -c 'echo two; exit 3' >/dev/null 2>&1 || true
# Run 5: a serving experiment of issue 270 (target = serving) against the SIMULATED server of
# examples/serving-sim-server.py, which serves no model: two of the example's routes, each pass
# a 'labrun collect' (its stdout: every request's timings) with the server's gauges sampled, so
# the site has passes to draw (distributions per route, requests in flight) and executions with logs.
python3 examples/serving-sim-server.py sim-port sim-sent.log &
sim=$!
i=0
while [ ! -s sim-port ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
[ -s sim-port ] || { kill $sim; fail "the simulated server did not start"; }
sim_url="http://127.0.0.1:$(cat sim-port)"
for i in 1 2 3 4 5 6 7 8; do echo "{\"case_id\": \"q$i\", \"prompt\": \"question $i\"}"; done >sim-cases.jsonl
printf '[experiment]\nname = collect-pair\ntitle = SIMULATED server (serves no model), two routes\nissues = 270\ntarget = serving\ncases = sim-cases.jsonl\nreference_route = native-gpu\n[design]\nblocks = 2\nwarmup = 0\nexploratory = yes\n' >collect-pair.ini
for route in native-gpu rngd-atom; do
	printf '[arm %s]\nendpoint = %s/v1\nmax_tokens = 32\nconcurrency = 3\nmetrics_url = %s/metrics\nsample = 0.005s\n' \
		"$route" "$sim_url" "$sim_url" >>collect-pair.ini
done
"$LABRUN" run -q collect-pair.ini >/dev/null 2>&1 || { kill $sim; fail "the serving experiment"; }
kill $sim
