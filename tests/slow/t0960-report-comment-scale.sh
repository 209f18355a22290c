#!/bin/sh
# labrun report's Markdown as the issue comment at the team's scale (issue 41, done-when 1): a generated
# issue of 45 passes over 4 routes with failing cases, whose Markdown uncut passes GitHub's 65,536
# characters, stays within --max-chars (the default and 1024, 3000, 20000), folds closed, no machine
# path or blob, the failing cases grouped and every left-out fold named; its crate cut the same way
# verifies. Checked with comment-check.py (apart from labrun's code) and GitHub's renderer. In
# check-slow: collecting 45 passes costs about 8 s of CPU (t0247 checks the serving example in make
# check).
. "$(dirname "$0")/../cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/comment-lib.sh"

# (b) an issue of the team's scale: three runs of 15 passes over 4 routes, 32 cases each; q01-q08 stop
# before EOS, q25-q32 are asked otherwise on the streamed routes; every gate fails every case's format
. "$TOP_SRCDIR/tests/cli/sim-server.sh"
for i in $(seq -w 1 32); do
	n=6 p="question $i"
	[ "$i" -le 8 ] && n=4
	echo "{\"case_id\": \"q$i\", \"prompt\": \"$p\", \"max_tokens\": $n}" >>cases.jsonl
	[ "$i" -gt 24 ] && p="question $i, streamed"
	echo "{\"case_id\": \"q$i\", \"prompt\": \"$p\", \"max_tokens\": $n}" >>cases-stream.jsonl
	echo "{\"case_id\": \"q$i\", \"answer\": \"$i\", \"keys\": [\"answer\"]}" >>key.jsonl
done
routes="native-gpu-whole native-gpu-stream rngd-atom-whole rngd-atom-stream"
runs=""
for r in 1 2 3; do
	"$L" record -q --issue 900 -- true 2>/dev/null || fail "record"
	runs="$runs $(q "SELECT max(id) FROM run")"
done
for r in $runs; do
	for p in $(seq 15); do
		route=$(echo $routes | cut -d' ' -f$(((p - 1) % 4 + 1)))
		c=cases.jsonl
		case $route in *stream) c=cases-stream.jsonl ;; esac
		"$L" collect --run $r --endpoint "$url" --route $route --cases $c --concurrency 6 >/dev/null ||
			fail "collect run $r pass $p"
	done
	for c in native-gpu-stream rngd-atom-whole rngd-atom-stream; do
		"$L" compare --run $r --reference native-gpu-whole --candidate $c >/dev/null || true
	done
	for route in $routes; do "$L" gate --run $r --route $route --answers key.jsonl >/dev/null || true; done
done
equals "$(q "SELECT count(*) FROM collect_pass")" "45" "45 passes"
"$L" report --issue 900 >gen.md || fail "report"
"$L" report --issue 900 --max-chars 0 >gen-whole.md || fail "report --max-chars 0"
"$L" report --issue 900 --format json >gen.json || fail "report --format json"
whole=$(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' gen-whole.md)
[ "$whole" -gt 65536 ] || fail "the generated issue should pass a comment's limit uncut, it has $whole characters"
ok "uncut, its Markdown passes the limit ($whole characters)"
comment "the generated issue" gen.md 65536 gen-whole.md
contains gen.md "Left out to keep this report within 65536 characters: \"Collected passes: TTFT, TPOT, ITL and E2EL (315 rows)\"" \
	"the closing line names the fold left out"
contains gen.md "labrun report --format json" "and where the whole report is"
contains gen-whole.md "<details><summary>Collected passes: TTFT, TPOT, ITL and E2EL (315 rows)</summary>" \
	"the pass tables folded (45 passes, 7 rows each: TTFT, TPOT, ITL, E2EL, and from the scheduled time TTFT, E2EL and the send lag)"
contains gen.md "Validity: 45 of 45 collected passes VALID." "the passes' validity in one sentence"
contains gen-whole.md "<details><summary>Validity of each collected pass (45)</summary>" "and each pass's folded"
python3 "$C" groups gen.md gen.json >"$T/check" || fail "the grouped cases are not the full list"
ok "$(cat "$T/check")"
r3=$(echo $runs | cut -d' ' -f3) r2=$(echo $runs | cut -d' ' -f2)
contains gen.md "* run $r3, q01-q08 on native-gpu-whole, native-gpu-stream, rngd-atom-whole and rngd-atom-stream (gate): format fails, no EOS" \
	"one line for a failure of eight cases on four routes"
contains gen.md "* run $r2, q25-q32 on native-gpu-stream and rngd-atom-stream (cross-route comparison against native-gpu-whole): tokens differ at position 0, text differs" \
	"and for a divergence on two"
for m in 1024 3000 20000; do
	"$L" report --issue 900 --max-chars $m >gen-$m.md || fail "--max-chars $m"
	comment "cut to $m" gen-$m.md $m gen-whole.md
done
expect_exit 2 "a cap the closing line cannot fit in is refused" "$L" report --issue 900 --max-chars 1000
contains "$T/err" "--max-chars is 0 (no limit) or at least 1024" "says why"

# the crate's report.md is the same comment, cut as the crate's statement says; verify renders it again
expect_exit 0 "a crate of the issue" "$L" manifest --issue 900 -o crate --license CC-BY-4.0
equals "$(jq -r .payload crate/crate.intoto.json | base64 -d | jq -r .predicate.report.markdownMaxChars)" "65536" \
	"its statement records the cap"
comment "the crate's report.md" crate/report.md 65536
contains crate/report.md "Left out to keep this report within 65536 characters" "cut like the report"
equals "$(jq '[.document.blocks[] | select(.kind == "fold")] | length' crate/report.json)" \
	"$(grep -c '^<details>' gen-whole.md)" "its report.json keeps every fold"
expect_exit 0 "the crate verifies, report.md rendered again cut" env -u LABRUN_STORE "$L" verify --allow-unsigned crate
contains "$T/out" "0 problem(s)" "clean"
