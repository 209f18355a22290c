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
grep -Eq '^ +concurrency +client +CPU us/token +requests/s +server CPU us/token +server busy +x python CPU$' "$T/out" ||
	fail "no column per figure"
ok "a column per figure"
[ "$(grep -Ec '^ +(1|4) +(labrun|python) ' "$T/out")" = 4 ] || fail "a row per client per level"
ok "a row per client per level"
contains "$T/out" "python: python 3" "names the peer's Python"
contains "$T/out" "aiohttp" "and its aiohttp"
contains "$T/out" "the null server writes 2 token chunk(s) at once" "says how the server writes"
equals "$(ls tmp | wc -l)" 0 "the scratch store and files are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" collect "benchmark = collect"
# 2 levels x 2 clients x 4 figures x 3 repetitions
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id")" 48 "every pass's four figures"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: server cpu' AND value > 0")" 12 \
	"the server's CPU measured in every pass"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant LIKE '%: pass' AND value > 0")" 12 \
	"each client's own pass time in every pass"

expect_exit 0 "report --run of a collect benchmark" "$LABRUN" report --run "$id"
contains "$T/out" "| 4 | python |" "the table again"
contains "$T/out" "the null server writes 2 token chunk(s) at once" "with how it was measured"
expect_exit 0 "report --run, JSON" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[.benchmark, .requests, (.levels | length), (.levels[0].cpu_us_per_token > 0)] | map(tostring) | join(" ")' \
	"$T/out")" "collect 12 4 true" "read back"
expect_exit 0 "audit verifies the benchmark's own run" "$LABRUN" audit --run "$id"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "an interpreter without aiohttp is refused before anything runs" "$LABRUN" bench collect --python /bin/false
contains "$T/err" "'/bin/false' cannot run the peer client" "named"
contains "$T/err" "python3-aiohttp" "with the package to install"
expect_exit 2 "a level of 0 is refused" "$LABRUN" bench collect --concurrency 1,0
contains "$T/err" "invalid --concurrency '1,0'" "named"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
