#!/bin/sh
# SIMULATED serving harness: it serves no model. It stands in for the team's HTTP
# serving tests so that 'labrun run examples/serving-sim.ini' exercises command
# experiments, responses, route comparison and frozen quality gates anywhere.
# Every response it writes is made up, deterministically from the model and case.
#
# usage: serving-sim.sh --route ROUTE --model MODEL --block B --out DIR
#
# Planted on purpose, so the report has something to find:
#   * route rngd-atom, model qwen3-4b, block 3: case c03 diverges at token 2;
#   * model gemma3-1b, case c06: stops at the length limit (no EOS) on every route;
#   * model koni-8b, case c02: a wrong answer; model qwen3-0.6b, case c05: an extra key;
#   * route rngd-gpu, model gemma3-1b: the dependent route is not collected.
set -eu
route= model= block= out=
while [ $# -gt 0 ]; do
	case $1 in
	--route) route=$2; shift 2 ;;
	--model) model=$2; shift 2 ;;
	--block) block=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "serving-sim: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -n "$route" ] && [ -n "$model" ] && [ -n "$block" ] && [ -d "$out" ] || {
	echo "serving-sim: usage: serving-sim.sh --route ROUTE --model MODEL --block B --out DIR" >&2
	exit 2
}
echo "serving-sim: SIMULATED responses for route $route, model $model (no model is served)" >&2

# Simulated decode time per route, measured around a sleep: a throughput of a
# made-up workload, labelled as such in the definition and the report title.
# The routes are far apart (1.6x to 3x native-gpu's), so the comparison is the
# same on a loaded machine.
case $route in
native-gpu) ms=5 ;; rngd-gpu) ms=10 ;; native-atom) ms=15 ;; rngd-atom) ms=8 ;; *) ms=10 ;;
esac
t0=$(date +%s%N)
sleep "0.$(printf '%03d' "$ms")"
t1=$(date +%s%N)
tokens=63 # 6 cases of 8..13 tokens
milli=$((tokens * 1000000000000 / (t1 - t0))) # tokens per second, in thousandths
printf '{"name": "throughput", "value": %d.%03d, "unit": "tok/s", "better": "higher"}\n' \
	$((milli / 1000)) $((milli % 1000)) >>"${LABRUN_METRICS:-/dev/null}"

if [ "$route" = rngd-gpu ] && [ "$model" = gemma3-1b ]; then
	echo "serving-sim: route $route is not available for $model: not collected" >&2
	exit 0
fi

awk -v route="$route" -v model="$model" -v block="$block" -v ms="$ms" 'BEGIN {
	seed = 0
	for (i = 1; i <= length(model); i++)
		seed = (seed * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789.-", substr(model, i, 1))) % 9973
	for (c = 1; c <= 6; c++) {
		id = sprintf("c%02d", c)
		n = 7 + c
		toks = ""
		for (t = 0; t < n; t++) {
			tok = (seed * 97 + c * 1000 + t * 13) % 151000
			if (route == "rngd-atom" && model == "qwen3-4b" && block == "3" && c == 3 && t == 2)
				tok = tok + 1
			toks = toks (t ? "," : "") tok
		}
		answer = (c * 7) % 10 # the right answer to question c, whatever the model
		if (model == "koni-8b" && c == 2)
			answer = answer + 1
		text = "{\\\"answer\\\": " answer "}"
		if (model == "qwen3-0.6b" && c == 5)
			text = "{\\\"answer\\\": " answer ", \\\"note\\\": \\\"extra\\\"}"
		finish = (model == "gemma3-1b" && c == 6) ? "length" : "stop"
		printf "{\"case_id\": \"%s\", \"tokens\": [%s], \"text\": \"%s\", \"finish_reason\": \"%s\", ", id, toks, text, finish
		printf "\"latency_ms\": %d, \"ttft_ms\": %d, \"output_tokens\": %d, \"model\": \"%s\", \"simulated\": true}\n",
			ms + c, 4 + c, n, model
	}
}' >"$out/responses.jsonl"
