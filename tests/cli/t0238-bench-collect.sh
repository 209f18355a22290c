#!/bin/sh
# labrun bench collect: labrun collect beside a Python asyncio client against
# the null streaming server, recorded as a run of kind bench. Figures are
# printed, never asserted; what is checked is that every pass streamed every
# token, that both clients ran, alternated, and that the run reads back.
. "$(dirname "$0")/lib.sh"

if ! /usr/bin/python3 -c 'import aiohttp' 2>/dev/null; then
	echo "ok 1 # SKIP the peer needs Debian's python3-aiohttp (build-aux/install-deps --test installs it)"
	exit 0
fi
mkdir tmp
expect_exit 0 "a small collect benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench collect --concurrency 1,4 \
	--requests 12 --tokens 5 --reps 3 --burst 2
grep -Eq '^ +concurrency +client +CPU us/token +requests/s +server CPU us/token +server busy +x python CPU +x raw CPU +lag p50 ms +lag p99 ms +lag max ms$' "$T/out" ||
	fail "no column per figure"
ok "a column per figure"
[ "$(grep -Ec '^ +(1|4) +(labrun|python|raw) ' "$T/out")" = 6 ] || fail "a row per client per level"
ok "a row per client per level"
contains "$T/out" "python: python 3" "names the peer's Python"
contains "$T/out" "aiohttp" "and its aiohttp"
contains "$T/out" "the null server writes 2 token chunk(s) at once" "says how the server writes"
equals "$(ls tmp | wc -l)" 0 "the scratch store and files are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" collect "benchmark = collect"
# 2 levels x 3 repetitions x (3 clients x 7 figures + the floor's 3 lags)
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id")" 144 "every pass's seven figures, the floor's three"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: server cpu' AND value > 0")" 18 \
	"the server's CPU measured in every pass"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: pass' AND value > 0")" 18 \
	"each client's own pass time in every pass"

# all at once, the send lag is the wait for a slot: measured in every pass, never negative
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: lag max' AND subject = 'concurrency 4' AND value > 0")" 12 \
	"the send lag measured in every pass at concurrency 4, the floor's too"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: lag p50' AND value < 0")" 0 \
	"no request is sent before its time"

expect_exit 0 "report --run of a collect benchmark" "$LABRUN" report --run "$id"
contains "$T/out" "| 4 | python |" "the table again"
contains "$T/out" "the null server writes 2 token chunk(s) at once" "with how it was measured"
expect_exit 0 "report --run, JSON" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[.benchmark, .requests, (.levels | length), (.levels[0].cpu_us_per_token > 0)] | map(tostring) | join(" ")' \
	"$T/out")" "collect 12 8 true" "read back (a row per client and the floor per level)"
equals "$(jq -r '[.levels[] | select(.client == "labrun") | (.x_raw_cpu > 0)] | map(tostring) | join(" ")' "$T/out")" \
	"true true" "labrun's CPU over the raw client's at every level"
equals "$(jq -r '[.levels[] | select(.client == "raw") | (.x_peer_cpu > 0 and .cpu_us_per_token > 0)] | map(tostring) | join(" ")' \
	"$T/out")" "true true" "the raw client's own CPU, and over the peer's"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant = 'raw: cpu' AND value > 0")" 6 \
	"the raw client's CPU measured in every pass"
expect_exit 0 "audit verifies the benchmark's own run" "$LABRUN" audit --run "$id"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "an interpreter without aiohttp is refused before anything runs" "$LABRUN" bench collect --python /bin/false
contains "$T/err" "'/bin/false' cannot run the peer client" "named"
contains "$T/err" "python3-aiohttp" "with the package to install"
expect_exit 2 "a level of 0 is refused" "$LABRUN" bench collect --concurrency 1,0
contains "$T/err" "invalid --concurrency '1,0'" "named"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"

# paced and scheduled: the server writes a token every 3 ms after 10 ms, requests arrive at 200/s
expect_exit 0 "a paced, Poisson-scheduled collect benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench collect \
	--concurrency 16 --requests 20 --tokens 4 --reps 2 --gap 3 --ttft 10 --rate 200
contains "$T/out" "the null server paces its streams: first token 10 ms after the request, then one event a write every 3 ms" \
	"says how the server paces"
contains "$T/out" "arrivals: Poisson, 200 requests/s" "and how requests arrive"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT group_concat(key || '=' || value, ' ') FROM (SELECT key, value FROM binding WHERE run_id = $id AND key IN ('gap_ms', 'ttft_ms', 'rate', 'cpus') ORDER BY key)")" \
	"cpus=none gap_ms=3 rate=200 ttft_ms=10" "the pacing and the arrivals bound"
# a stream lasts at least 10 + 3 x 3 ms; the pass at least its last arrival, which is well past 0 at 200/s
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: pass' AND value > 0.019")" 6 \
	"each pass lasts at least one paced stream"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: lag %' AND value >= 0")" 24 \
	"both clients' send lags and the timer's floor measured in every pass"
expect_exit 2 "two pinned CPUs must differ" "$LABRUN" bench collect --cpus 0,0
contains "$T/err" "invalid --cpus '0,0'" "named"
expect_exit 2 "a negative gap is refused" "$LABRUN" bench collect --gap -1
contains "$T/err" "invalid --gap '-1'" "named"
