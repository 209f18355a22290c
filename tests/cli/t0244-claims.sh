#!/bin/sh
# Claims that say exactly what the data shows (issue 25, items 2 and 3): an interval that excludes 1
# but crosses the margin on one side gets a verdict of its own; a flagged repetition of a metric is
# counted; a killed run lists the conditions it never finished as missing.
. "$(dirname "$0")/lib.sh"
set_arm1() { # RUN SQL-EXPRESSION-OF-block: arm 1's time (arm 0's is 1 ms)
	sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE repetition SET wall_s = 0.001 WHERE run_id = $1 AND arm_idx = 0;
		UPDATE repetition SET wall_s = 0.001 * ($2) WHERE run_id = $1 AND arm_idx = 1" || fail "set the times of run $1"
}
verdict() { "$LABRUN" report --run "$1" --format json | jq -r '.runs[0].tables[0].rows[0].verdict'; }

# ---- the one-sided interval: a direction, not a size ----
printf '[experiment]\nname = one-sided\ntarget = command\n[design]\nblocks = 10\nwarmup = 0\n[arm a]\ncommand = true\n[arm b]\ncommand = sh -c true\n' >cmd.ini
"$LABRUN" run -q cmd.ini >/dev/null 2>&1 || fail "a command experiment"
run=$(q "SELECT max(id) FROM run")
# block ratios 0.95 .. 0.995: the interval excludes 1 and reaches past -2% on one side only (in the
# order 0, 3, 6, 9, 2, ... of block * 3 % 10, so that the ratios do not trend and no verdict is qualified)
set_arm1 "$run" "0.95 + 0.005 * (block * 3 % 10)"
case "$(verdict "$run")" in
"b is faster ["*"], not shown beyond the 2% margin") ok "one-sided: a direction, its interval, and what is not shown" ;;
*) fail "the one-sided verdict: $(verdict "$run")" ;;
esac
"$LABRUN" report --run "$run" | grep -q "inconclusive" && fail "a one-sided interval was called inconclusive"
ok "and it is not called inconclusive"
set_arm1 "$run" "1.05 - 0.005 * (block * 3 % 10)"
case "$(verdict "$run")" in "b is slower ["*"], not shown beyond the 2% margin") ok "the other side too" ;;
*) fail "the one-sided verdict, slower: $(verdict "$run")" ;; esac
set_arm1 "$run" "0.97 + 0.005 * (block * 3 % 10)"
equals "$(verdict "$run")" "inconclusive: add blocks" "an interval around 1 past the margin stays inconclusive"
# the same ratios in block order trend (+4.7% over the blocks): the verdict keeps its words, qualified
set_arm1 "$run" "0.95 + 0.005 * block"
case "$(verdict "$run")" in
"b is faster ["*"], not shown beyond the 2% margin; qualified: the block ratio trends +4.7% over the blocks (p under 0.001)")
	ok "a trend of the ratios qualifies the verdict, which keeps its words" ;;
*) fail "the trending verdict: $(verdict "$run")" ;;
esac

# ---- a flagged repetition of a metric is counted, as on the time path ----
cat >metric.ini <<'INI'
[experiment]
name = metric-flags
target = command
[design]
blocks = 6
warmup = 0
metric = throughput
[arm a]
command = sh -c "echo '{{\"name\": \"throughput\", \"value\": 10, \"better\": \"higher\"}}' >>$LABRUN_METRICS"
[arm b]
command = sh -c "echo '{{\"name\": \"throughput\", \"value\": 11, \"better\": \"higher\"}}' >>$LABRUN_METRICS"
INI
expect_exit 0 "a metric experiment" "$LABRUN" run -q metric.ini
run=$(q "SELECT max(id) FROM run")
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE repetition SET interfered = 1 WHERE run_id = $run AND warmup = 0
	AND arm_idx = 1 AND block = 2" || fail "flag a repetition"
# the two set here, and any the run flagged itself (steal ticks)
n=$(q "SELECT count(*) FROM repetition WHERE run_id = $run AND interfered = 1 AND warmup = 0")
[ "$n" -ge 2 ] || fail "the flags were not set: $n"
equals "$("$LABRUN" report --run "$run" --format json | jq '.runs[0].tables[0].rows[0].flagged')" "$n" \
	"the report counts the $n flagged metric repetitions"
"$LABRUN" report --run "$run" | grep -q "| 6 | $n |" || fail "the Markdown table's flagged reps: $("$LABRUN" report --run "$run" | grep '^| all')"
ok "and the Markdown table shows them"

# ---- kill -9 of 'labrun run': the conditions never finished are missing, by name ----
cat >killed.ini <<'INI'
[experiment]
name = killed
target = command
[design]
blocks = 6
warmup = 0
[arm a]
command = sh -c "if test {x} = 2; then echo $$ >../../started; exec sleep 600; fi"
[arm b]
command = true
[grid]
x = 1, 2, 3
INI
mkdir -p work/a work/b
(cd work/a && exec "$LABRUN" run -q ../../killed.ini >/dev/null 2>&1) &
runner=$!
i=0
while [ ! -s started ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -s started ] || fail "the second condition never started"
kill -9 "$runner"
wait "$runner" 2>/dev/null || true
kill -KILL "$(cat started)" 2>/dev/null || true
ok "labrun run killed with SIGKILL in its second condition"
run=$(q "SELECT max(id) FROM run")
expect_exit 0 "the report of the abandoned run" "$LABRUN" report --run "$run"
contains "$T/out" "killed, run $run (abandoned)" "it is abandoned"
contains "$T/out" "* Parity: 1 passed, 0 failed, 2 missing" "two of three conditions missing"
contains "$T/out" "x=2: missing: not completed: the run ended before this condition's outcome was stored" "the one it was in"
contains "$T/out" "x=3: missing: not completed" "and the one it never reached"
lacks "$T/out" "Failed or missing conditions: none" "never 'none'"
