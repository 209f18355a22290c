#!/bin/sh
# Every metric a harness writes, per arm and condition (issue 41): 'report --metric' and [report]
# metrics add a table per metric and arm pair with the design's paired statistics, marked
# exploratory. A harness writes two metrics with known values (arm b's share twice arm a's, its
# writes about half; a warm-up block writes wild values that no summary may take). metric-check.py
# recomputes every median, estimate and interval from the stored rows, from docs/method.md alone.
# Also: the forms of [report] (ratio, range, mean), an unknown metric, a metric whose unit or
# direction differs between executions, the view metric_by_arm and its documented query, and a
# crate whose report carries a metric table verifying clean and naming a changed cell.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
cat >harness.sh <<'EOF'
# ARM SIZE BLOCK REP: two metrics. b's share is twice a's (plus a little), its writes about half.
arm=$1 size=$2 block=$3 rep=$4
if [ "$block" = 0 ]; then share=1000000 writes=1000000 # the warm-up block, never summarised
else
	case $block in parity) block=1 ;; esac
	n=$(((block * 7 + rep * 3) % 5))
	if [ "$arm" = a ]; then share=$((100 * size + n)) writes=$((50 + n))
	else share=$((200 * size + 2 * n + block % 3)) writes=$((25 + n)); fi
fi
printf '{"name": "conversion_share", "value": %s, "unit": "%%", "better": "higher"}\n' "$share" >>"$LABRUN_METRICS"
printf '{"name": "sdk_writes", "value": %s, "unit": "writes", "better": "lower"}\n' "$writes" >>"$LABRUN_METRICS"
EOF
cat >m.ini <<'EOF'
[experiment]
name = metrics
target = command
[design]
blocks = 6
warmup = 1
[arm a]
command = sh harness.sh a {size} {block} {rep}
[arm b]
command = sh harness.sh b {size} {block} {rep}
[grid]
size = 1, 2
EOF
"$L" run -q m.ini >/dev/null 2>&1 || fail "the experiment (wall time is its metric)"

# ---- --metric all: both harness metrics, per arm and condition, with intervals ----
expect_exit 0 "report --metric all" "$L" report --run 1 --metric all
cp "$T/out" r1.md
contains r1.md "### b (command) vs a (command), run 1: exploratory metric \`conversion_share\` (in %, higher is better)" \
	"a table of the share, its unit and direction named"
contains r1.md "### b (command) vs a (command), run 1: exploratory metric \`sdk_writes\` (in writes, lower is better)" \
	"and one of the writes"
contains r1.md "| Condition | a median % | b median % | Change | 95% interval | blocks | flagged reps | drift a/b | direction (exploratory) |" \
	"medians in the metric's unit, the change, its interval and its direction"
contains r1.md "so a row says which way B moved and whether that is better, never a verdict" "the exploratory note"
equals "$(grep -c '^| size=[12] | [0-9.]* | [0-9.]* | +[0-9.]*% | \[+[0-9.]*%, +[0-9.]*%\] | 6 | .* | higher (better) |$' r1.md)" 2 \
	"the share: both conditions, 6 blocks, an interval above 1, higher and better"
equals "$(grep -c '^| size=[12] | [0-9.]* | [0-9.]* | -[0-9.]*% | \[-[0-9.]*%, -[0-9.]*%\] | 6 | .* | lower (better) |$' r1.md)" 2 \
	"the writes: lower, which is better"
sed -n '/^Further metrics of run 1/,$p' r1.md >further.md
lacks further.md "equivalent" "no verdict words in the exploratory tables"
lacks further.md "inconclusive" "none"

"$L" report --run 1 --metric all --format json >r1.json || fail "json"
"$L" report --run 1 --metric all --format csv >r1.csv || fail "csv"
n=$(python3 "$TOP_SRCDIR/tests/cli/metric-check.py" "$LABRUN_STORE/labrun.db" r1.json) ||
	fail "the report's metric tables are not what the stored rows give"
equals "$n" 4 "medians, paired estimates and sign-test intervals recomputed from the metric rows: all 4 rows agree"
jq '.runs[0].metric_tables[0].rows[0].ratio *= 1.01' r1.json >r1-bad.json
! python3 "$TOP_SRCDIR/tests/cli/metric-check.py" "$LABRUN_STORE/labrun.db" r1-bad.json >/dev/null 2>&1 ||
	fail "the recomputation does not notice a changed ratio"
ok "and it notices a ratio changed by 1%"
equals "$(jq -r '.runs[0].metric_tables | map("\(.metric) \(.unit) \(.better) \(.exploratory) \(.rows | length) \(.rows[0].verdict_kind)") | join(", ")' r1.json)" \
	"conversion_share % higher true 2 exploratory-higher, sdk_writes writes lower true 2 exploratory-lower" \
	"JSON: each table's metric, unit, direction, exploratory, a row per condition"
n=$(python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" r1.md r1.json r1.csv) || fail "a number of the Markdown is not in the JSON or the CSV"
ok "every number of every table ($n) is in the JSON and the CSV"
equals "$(tr -d '\r' <r1.csv | awk -F, '/^run,/ { s++ } s == 2 && !/^run,/ { print $NF }' | sort | uniq -c | tr -s ' ')" " 4 1" \
	"the CSV: the metric tables a last section, a row per arm pair, metric and condition, exploratory 1"

expect_exit 0 "--metric NAME: that metric alone" "$L" report --run 1 --metric sdk_writes
lacks "$T/out" "exploratory metric \`conversion_share\`" "not the other"
contains "$T/out" "exploratory metric \`sdk_writes\`" "that one"
expect_exit 0 "a plain report" "$L" report --run 1
lacks "$T/out" "exploratory metric" "has no metric tables"
expect_exit 2 "a metric no run wrote" "$L" report --run 1 --metric conversion
contains "$T/err" "labrun: error: cannot report metric 'conversion': no run of this report wrote it (its runs wrote conversion_share, sdk_writes)" \
	"is named, with the metrics there are"

# ---- a unit or a direction that differs between executions: an error naming the metric ----
cp -R "$LABRUN_STORE" odd
sqlite3 odd/labrun.db "UPDATE metric SET unit = 'ms' WHERE run_id = 1 AND name = 'sdk_writes' AND seq = 7"
expect_exit 1 "two units of one metric" "$L" --store odd report --run 1 --metric all
contains "$T/err" "cannot report metric 'sdk_writes' of run 1: its executions give it in two units, 'ms' and 'writes'" \
	"named, with both units"
sqlite3 odd/labrun.db "UPDATE metric SET unit = 'writes', better = 'higher' WHERE run_id = 1 AND name = 'sdk_writes' AND seq = 7"
expect_exit 1 "two directions" "$L" --store odd report --run 1 --metric sdk_writes
contains "$T/err" "cannot report metric 'sdk_writes' of run 1: its executions give it two directions" "named"

# ---- [report] metrics and forms in the definition ----
sed -e 's/^name = metrics/name = metrics-forms/' -e 's/^warmup = 1/warmup = 1\nmetric = conversion_share/' m.ini >f.ini
printf '[report]\nmetrics = sdk_writes, queue_depth\nforms = ratio, range, mean\n' >>f.ini
"$L" run -q f.ini >run2.out 2>&1 || { cat run2.out >&2; fail "a definition with [report]"; }
contains run2.out "exploratory metric \`sdk_writes\`" "run prints the metric [report] names"
expect_exit 0 "its report" "$L" report --run 2
cp "$T/out" r2.md
contains r2.md "| Condition | a median conversion_share | b median conversion_share | a mean conversion_share | b mean conversion_share | Change | ratio B/A | 95% interval |" \
	"the design's table: means beside the medians, the ratio beside the change"
grep -q '^| size=1 | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* | +[0-9.]*% | 2\.0[0-9]x | .* | b has [0-9.]*% higher conversion_share ' r2.md ||
	fail "the ratio is not written as 2.0Nx: $(grep '^| size=1' r2.md | head -1)"
ok "the ratio as 2.0Nx, and the design's metric keeps its verdict"
contains r2.md "Range over conditions: the paired ratio B/A is 2.00x to 2.00x (change +" "the range over conditions"
contains r2.md "exploratory metric \`sdk_writes\` (in writes, lower is better)" "the further metric [report] names"
contains r2.md "Metric \`queue_depth\`, which [report] metrics asks for, was written by no execution of run 2: it has no table." \
	"a metric [report] names that no execution wrote is said, not an error"
lacks r2.md "exploratory metric \`conversion_share\`" "the design's own metric is never exploratory"
"$L" report --run 2 --format json >r2.json && "$L" report --run 2 --format csv >r2.csv || fail "data"
n=$(python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" r2.md r2.json r2.csv) || fail "the forms' numbers are not all in the data"
ok "the forms' numbers ($n in all) are in the JSON and the CSV"
equals "$(jq -r '.runs[0] | "\(.tables[0].range.conditions) \(.tables[0].rows[0].baseline_mean > 0) \(.metric_tables | length) \(.metrics_not_written[0])"' r2.json)" \
	"2 true 1 queue_depth" "JSON: the range, the means, one metric table, the metric not written"
equals "$(jq -r '.runs[0] | ([.tables[0].rows[0] | keys] == [.metric_tables[0].rows[0] | keys]) and
	([.metric_tables[0] | keys[]] - [.tables[0] | keys[]] | sort == ["better", "exploratory", "metric"])' r2.json)" true \
	"a metric table has the fields of the design's, and metric, better and exploratory"
n=$(python3 "$TOP_SRCDIR/tests/cli/metric-check.py" "$LABRUN_STORE/labrun.db" r2.json) || fail "run 2's metric table"
equals "$n" 2 "run 2's metric table recomputed"

printf '[report]\nforms = ratio, pie\n' >>m.ini
expect_exit 2 "an unknown form" "$L" run -q m.ini
contains "$T/err" "m.ini:14: 'forms' has 'pie'; expected ratio, range or mean" "at its line"
sed -i 's/^forms = ratio, pie$/metrics = all, sdk_writes/' m.ini
expect_exit 2 "all beside names" "$L" run -q m.ini
contains "$T/err" "m.ini:14: 'metrics' lists 'all' beside names" "at its line"
sed -e 's/^metrics = sdk_writes, queue_depth$/metrics = conversion_share/' f.ini >g.ini
expect_exit 2 "the design's own metric in [report] metrics" "$L" run -q g.ini
contains "$T/err" "'metrics' lists 'conversion_share', the design's own metric" "is refused"
{ cat "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini"; printf '[report]\nmetrics = all\n'; } >e.ini
expect_exit 2 "metrics of an encode target" "$L" run -q e.ini
contains "$T/err" "'metrics' is for 'target = command' only" "is refused"
equals "$(q "SELECT count(*) FROM run")" 2 "no refused definition ran"

# ---- the view metric_by_arm and its documented query ----
sql=$(awk '/^### `metric_by_arm`$/ { on = 1 } on && /^```sql$/ { grab = 1; next } grab && /^```$/ { exit } grab' \
	"$TOP_SRCDIR/docs/schema.md")
[ -n "$sql" ] || fail "docs/schema.md has no example query for metric_by_arm"
"$L" sql --csv "$sql" | tr -d '\r' >view.csv || fail "the documented query: $sql"
python3 - "$LABRUN_STORE/labrun.db" >want.csv <<'EOF' || fail "the expected rows"
# the harness's values, from each timed execution's expanded command (not from the metric rows)
import json, sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
out = {}
for cond, arm, argv in db.execute("SELECT condition_idx, arm_idx, argv_json FROM execution WHERE run_id = 1"
                                  " AND block >= 1 ORDER BY seq"):
    name, size, block, rep = json.loads(argv)[2:6]
    size, block, rep = int(size), int(block), int(rep)
    n = (block * 7 + rep * 3) % 5
    share, writes = (100 * size + n, 50 + n) if name == "a" else (200 * size + 2 * n + block % 3, 25 + n)
    for metric, unit, better, v in (("conversion_share", "%", "higher", share), ("sdk_writes", "writes", "lower", writes)):
        out.setdefault((cond, metric, arm), [str(size), name, metric, unit, better, []])[5].append(v)
print("size,arm,name,unit,better,n,mean")
for key in sorted(out):
    size, name, metric, unit, better, v = out[key]
    print(",".join([size, name, metric, unit, better, str(len(v)), repr(sum(v) / len(v))]))
EOF
awk -F, 'NR == 1 { print; next } { $7 = $7 + 0; print }' OFS=, view.csv >got.csv
awk -F, 'NR == 1 { print; next } { $7 = $7 + 0; print }' OFS=, want.csv >exp.csv
diff exp.csv got.csv >&2 || fail "the view's documented query does not give the harness's values"
equals "$(wc -l <got.csv)" 9 "the view's documented query: a row per condition, metric and arm, the harness's counts and means"
equals "$(q "SELECT group_concat(phase || '=' || n, ' ') FROM (SELECT phase, count(*) AS n FROM metric_by_arm
	WHERE run_id = 1 GROUP BY phase ORDER BY phase)")" "parity=8 timed=96 warmup=16" \
	"the view says each execution's phase: 2 conditions x 2 metrics x (2 parity, 4 warm-up, 24 timed executions)"
equals "$(q "SELECT count(*) FROM metric_by_arm WHERE run_id = 1 AND phase = 'warmup' AND value = 1000000")" \
	"$(q "SELECT count(*) FROM metric_by_arm WHERE run_id = 1 AND phase = 'warmup'")" "the warm-up's wild values are its own"

# ---- a crate whose report carries a metric table ----
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
expect_exit 0 "a crate of run 2" "$L" manifest --run 2 -o "$T/crate" --license CC-BY-4.0
contains "$T/crate/report.md" "exploratory metric \`sdk_writes\`" "its report has the metric table"
verify() { (cd "$T" && env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$@"); }
expect_exit 0 "the fresh crate verifies" verify "$T/crate"
contains "$T/out" "0 problem(s)" "clean"
rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"
sed -i '/exploratory metric `sdk_writes`/,$s/^\(| size=2 | [0-9.]* | \)[0-9.]*/\199.000/' "$T/bad/report.md"
grep -q '^| size=2 | [0-9.]* | 99.000 |' "$T/bad/report.md" || fail "the edit did not take"
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$HOME/.config/labrun/signing-key.pem" || fail "re-sign"
expect_exit 1 "a metric table's cell changed and re-signed" verify "$T/bad"
contains "$T/out" "PROBLEM report.md: table '### b (command) vs a (command), run 2: exploratory metric sdk_writes (in writes, lower is better)', row 'size=2', column 'b median writes': the crate says '99.000'" \
	"names the table, the row and the cell"
