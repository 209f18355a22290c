#!/bin/sh
# labrun report: regenerated from the store, identical bytes for the same store,
# and its numbers agree with values recomputed here from 'labrun sql' rows.
. "$(dirname "$0")/lib.sh"

X="$TOP_SRCDIR/tests/fixtures/experiments"
"$LABRUN" run -q "$X/tiny-encode-auto.ini" >/dev/null 2>&1 || fail "tiny-encode" # two arm pairs
"$LABRUN" run -q "$X/tiny-import.ini" >/dev/null 2>&1 || fail "tiny-import"

expect_exit 0 "report for issue 205" "$LABRUN" report --issue 205
cp "$T/out" r1.md
"$LABRUN" report --issue 205 >r2.md
cmp r1.md r2.md || fail "two reports of the same store differ"
ok "two invocations give identical bytes"
"$LABRUN" report --issue 205 -o r3.md
cmp r1.md r3.md || fail "-o output differs from stdout"
ok "-o writes the same bytes"
contains r1.md "## tiny-encode, run 1 (passed)" "names the run"
contains r1.md "| Shape layers/input | lookup median ms | scalar median ms | Reduction | 95% interval | blocks | flagged reps | drift lookup/scalar | verdict |" "comparison table"
contains r1.md "* Parity: 2 passed, 0 failed, 0 missing" "parity counts"
# the command as run, without the machine's paths (issue 41): the program's name, the definition's, where it ran;
# the JSON keeps them whole
contains r1.md "* Command: \`labrun run -q .../tiny-encode-auto.ini\` (in \`.../work\`, started " "the command, no machine path"
lacks r1.md "$TOP_SRCDIR" "no path of the source tree"
lacks r1.md "$T/" "nor of the test's directory"
"$LABRUN" report --issue 205 --format json >r1.json
equals "$(jq -r '.runs[0].command | join(" ")' r1.json)" "$LABRUN run -q $X/tiny-encode-auto.ini" "the JSON has the exact command"
equals "$(jq -r '.runs[0].cwd' r1.json)" "$T/work" "and where it ran"
lacks r1.md "tiny-import" "only runs for the issue"

# Recompute condition 0, scalar (arm 1) against lookup (arm 0), from raw rows (each log ratio with all
# its digits: awk's print keeps 6, which once put a bound 0.0044 points past the report's rounding).
"$LABRUN" sql --csv "SELECT r.block, r.arm_idx, sum(r.wall_s) / c.inner FROM repetition r
	JOIN condition c ON c.run_id = r.run_id AND c.idx = r.condition_idx
	WHERE r.run_id = 1 AND r.condition_idx = 0 AND r.warmup = 0 AND r.arm_idx IN (0, 1)
	GROUP BY r.block, r.arm_idx ORDER BY r.block, r.arm_idx" | tail -n +2 | tr -d '\r' |
	awk -F, '{ if ($2 == 0) a[$1] = $3; else b[$1] = $3 } END { for (k in a) printf "%.15g\n", log(b[k] / a[k]) }' |
	sort -g >d.txt
equals "$(wc -l <d.txt | tr -d ' ')" "6" "six timed blocks"
want=$(awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	# n = 6: the sign-test interval is [d(1), d(6)]
	printf "%.4f %.4f %.4f\n", (1 - exp(m)) * 100, (1 - exp(v[NR])) * 100, (1 - exp(v[1])) * 100 }' d.txt)
"$LABRUN" sql --csv "SELECT r.wall_s / c.inner FROM repetition r JOIN condition c ON c.run_id = r.run_id AND c.idx = r.condition_idx
	WHERE r.run_id = 1 AND r.condition_idx = 0 AND r.warmup = 0 AND r.arm_idx = 0" | tail -n +2 | tr -d '\r' | sort -g >a.txt
med=$(awk '{ v[NR] = $1 } END { printf "%.4f\n", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) * 1000 }' a.txt)
row=$(awk '/^### scalar/ { on = 1 } on && /^\| qwen3-0.6b 1\/64 \|/ { print; exit }' r1.md)
[ -n "$row" ] || fail "no row for condition 0 in the scalar table"
echo "$row" | awk -F'|' -v want="$want" -v med="$med" '
	function num(s) { gsub(/[^0-9.-]/, "", s); return s + 0 }
	function near(a, b, tol) { return (a - b < tol && b - a < tol) }
	BEGIN { split(want, w, " ") }
	{ split($6, iv, ",");
	  if (!near(num($5), w[1], 0.051)) { print "reduction " $5 " vs " w[1]; bad = 1 }
	  if (!near(num(iv[1]), w[2], 0.051) || !near(num(iv[2]), w[3], 0.051)) { print "interval " $6 " vs " w[2] ", " w[3]; bad = 1 }
	  if (!near(num($3), med, 0.0006)) { print "median " $3 " vs " med; bad = 1 }
	  exit bad }' || fail "report figures disagree with the raw rows"
ok "reduction, interval and median agree with values recomputed from labrun sql"

expect_exit 0 "csv" "$LABRUN" report --issue 205 --format csv
equals "$(tr -d '\r' <"$T/out" | head -1)" "run,experiment,baseline,arm,model,layers,tokens,status,baseline_median_ms,arm_median_ms,reduction,interval_lo,interval_hi,blocks,flagged,verdict,failure,unit,baseline_median,arm_median,effect,effect_pct,interval_lo_pct,interval_hi_pct,drift_baseline_pct,drift_arm_pct,drifted,margin_pct,noise_floor_run,noise_floor_lo_pct,noise_floor_hi_pct,verdict_kind,trend_pct,trend_p,qualified" "csv header"
equals "$(tail -n +2 "$T/out" | wc -l | tr -d ' ')" "4" "a row per arm pair and condition"
# csv numbers read back to the same doubles as json's (17 digits): they were rounded to 6 decimals
tr -d '\r' <"$T/out" | awk -F, 'NR > 1 { print $9 }' >"$T/csv-medians"
"$LABRUN" report --issue 205 --format json | jq -r '.runs[].tables[].rows[].baseline_median_ms' >"$T/json-medians"
paste -d' ' "$T/csv-medians" "$T/json-medians" | awk '{ if ($1 + 0 != $2 + 0) { print; bad = 1 } } END { exit bad }' ||
	fail "csv medians do not read back to the json medians"
ok "csv numbers read back exactly"
expect_exit 0 "json" "$LABRUN" report --experiment tiny-import --format json
contains "$T/out" '"experiment": "tiny-import"' "json names the experiment"
expect_exit 1 "an issue with no experiment runs" "$LABRUN" report --issue 999
contains "$T/err" "cannot report on issue 999: no experiment or recorded runs match" "says so"
expect_exit 2 "two selectors" "$LABRUN" report --issue 205 --run 1

# An experiment run killed before its plan was stored, or one still running, is not evidence yet:
# it once made the report of the whole issue say "no experiment runs match" (seen in the soak).
# The state a kill leaves between the run's row and its plan, made directly: the run's row and
# its issue, no definition, arms or conditions.
sqlite3 "$T/store/labrun.db" "
	CREATE TEMP TABLE r AS SELECT * FROM run WHERE id = (SELECT max(id) FROM run WHERE kind = 'experiment');
	UPDATE r SET id = (SELECT max(id) + 1 FROM run), uuid = '00000000-0000-4000-8000-00000000dead',
		status = 'abandoned', failure = 'the recorder stopped before the plan';
	INSERT INTO run SELECT * FROM r;
	INSERT INTO run_issue(run_id, issue_ref) SELECT id, '205' FROM r;" || fail "could not make the run"
early=$(q "SELECT max(id) FROM run")
expect_exit 0 "the issue's report still works" "$LABRUN" report --issue 205
contains "$T/out" "tiny-encode" "and reports the runs that are evidence"
expect_exit 2 "asked for by id, that run is refused with the reason" "$LABRUN" report --run "$early"
contains "$T/err" "cannot report on run $early: it is abandoned and its plan was never stored" "named"
sqlite3 "$T/store/labrun.db" "UPDATE run SET status = 'running' WHERE id = $early"
expect_exit 0 "nor does one still running" "$LABRUN" report --issue 205
