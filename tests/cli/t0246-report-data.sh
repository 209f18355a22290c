#!/bin/sh
# JSON and CSV carry everything the Markdown says (issue 25, items 4 and 5): every number of every
# Markdown table of the example reports is found in the JSON and in the CSV, at the precision
# shown (report-numbers.py). Before, the JSON had no drift, noise floor, margin, host, binding or
# design. Also: an exploratory design of 2 to 5 blocks, opted into, with no interval and no
# verdict; and a footnote where an A/A table's medians and estimate disagree in sign.
. "$(dirname "$0")/lib.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
numbers() { # RUN -> how many numbers were checked
	"$LABRUN" report --run "$1" >"r$1.md" && "$LABRUN" report --run "$1" --format json >"r$1.json" &&
		"$LABRUN" report --run "$1" --format csv >"r$1.csv" || fail "the reports of run $1"
	python3 "$TOP_SRCDIR/tests/cli/report-numbers.py" "r$1.md" "r$1.json" "r$1.csv" || fail "run $1's JSON or CSV lacks a number"
}
arm1_reps() { # RUN SQL-EXPRESSION (of block, and first: 1 for an arm's first repetition of its block)
	sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE repetition SET wall_s = 0.001 WHERE run_id = $1 AND arm_idx = 0;
		UPDATE repetition SET wall_s = 0.001 * (SELECT $2 FROM (SELECT repetition.block AS block,
		repetition.slot = (SELECT min(slot) FROM repetition r WHERE r.run_id = repetition.run_id
		AND r.condition_idx = repetition.condition_idx AND r.block = repetition.block AND r.arm_idx = 1) AS first))
		WHERE run_id = $1 AND arm_idx = 1" || fail "set the times of run $1"
}

# the README's kind of experiment: three encoder arms, two conditions
"$LABRUN" run -q "$X/tiny-encode-auto.ini" >/dev/null 2>&1 || fail "tiny-encode"
n=$(numbers 1) && ok "an encoder report: all $n numbers of its tables are in the JSON and the CSV"
jq -e '.runs[0] | .design.margin_pct == 2 and .host.cores > 0 and (.binding | has("pinned_cpu"))
	and (.tables[0].rows[0] | has("drift_arm_pct") and has("reduction_pct") and has("interval_pct"))
	and .noise_floor.run == null and (.noise_floor.text | startswith("none:"))' r1.json >/dev/null ||
	fail "the JSON lacks design, host, binding, drift or noise floor: $(jq -c '.runs[0] | del(.tables)' r1.json)"
ok "the JSON has design, host, binding, drift and noise floor"

# an A/A run whose medians and estimate disagree in sign, then a result inside its floor
sed -e 's/^name = tiny-encode/name = aa-tiny/' -e 's/^kernel = .*/kernel = auto/' \
	-e 's/^layers = 1, 2/layers = 1/' -e 's/^warmup = 1/warmup = 0/' "$X/tiny-encode.ini" >aa.ini
"$LABRUN" run -q aa.ini >/dev/null 2>&1 || fail "an A/A run"
# blocks 0-1: 1.1 and 1.1 (ratio 1.1); blocks 2-5: 0.5 and 1.3 (ratio 0.9): the estimate is below 1,
# the median of arm 1's repetitions (1.1) above it
arm1_reps 2 "CASE WHEN block < 2 THEN 1.1 WHEN first THEN 0.5 ELSE 1.3 END"
n=$(numbers 2) && ok "an A/A report: all $n numbers"
contains r2.md "(a) The medians and the estimate point different ways here." "the sign disagreement has its footnote"
grep -q '^| qwen3-0.6b 1/64 | [0-9.]* | [0-9.]* | 10.0% (a) |' r2.md || fail "the row is not marked: $(grep '^| qwen' r2.md)"
ok "and its row is marked"
equals "$(jq '.runs[0].tables[0].rows[0].sign_disagrees' r2.json)" "true" "the JSON says so too"
"$LABRUN" report --run 2 --format html >r2.html || fail "html"
contains r2.html "(a) The medians and the estimate point different ways here." "and the HTML"
"$LABRUN" run -q aa.ini >/dev/null 2>&1 || fail "a second A/A run"
arm1_reps 3 "CASE WHEN block % 2 = 0 THEN 1.01 ELSE 0.99 END"
n=$(numbers 3) && ok "a result inside a noise floor: all $n numbers"
equals "$(jq -r '.runs[0].tables[0].rows[0].verdict_kind' r3.json)" "noise-floor" "its verdict's kind"
equals "$(jq -r '.runs[0].noise_floor | "\(.run) \(.qualifies) \(.interval_pct | map(round) | join(" "))"' r3.json)" \
	"2 true -10 10" "the floor's run and interval in the JSON"

# a command experiment comparing a metric: units named, the *_median_ms aliases kept
cat >metric.ini <<'INI'
[experiment]
name = metric
target = command
[design]
blocks = 6
warmup = 0
metric = throughput
[arm a]
command = sh -c "echo '{{\"name\": \"throughput\", \"value\": 10, \"better\": \"higher\"}}' >>$LABRUN_METRICS"
[arm b]
command = sh -c "echo '{{\"name\": \"throughput\", \"value\": 12.5, \"better\": \"higher\"}}' >>$LABRUN_METRICS"
INI
"$LABRUN" run -q metric.ini >/dev/null 2>&1 || fail "a metric experiment"
n=$(numbers 4) && ok "a metric report: all $n numbers"
equals "$(jq -r '.runs[0].tables[0] | "\(.unit) \(.rows[0].baseline_median) \(.rows[0].arm_median) \(.rows[0].arm_median_ms)"' r4.json)" \
	"throughput 10 12.5 12.5" "medians under the metric's name, the old key an alias"
equals "$(python3 -c 'import csv; r = next(csv.DictReader(open("r4.csv"))); print(r["unit"], r["baseline_median"], r["arm_median"], r["arm_median_ms"])')" \
	"throughput 10 12.5 12.5" "the CSV's unit and medians, and the alias"

# ---- exploratory designs: opted into, 2 to 5 blocks, no interval, no verdict ----
printf '[experiment]\nname = explore\ntarget = command\n[design]\nblocks = 2\nwarmup = 0\n[arm a]\ncommand = true\n[arm b]\ncommand = sh -c true\n' >x.ini
expect_exit 2 "2 blocks without exploratory are refused" "$LABRUN" run -q x.ini
contains "$T/err" "x.ini:5: 'blocks' is 2: fewer than 6 blocks can never reach a 95% interval (for a first look, 'exploratory = yes'" \
	"at the blocks line, with the way out"
sed 's/^blocks = 2/blocks = 2\nexploratory = yes/' x.ini >x2.ini
expect_exit 0 "2 blocks, exploratory" "$LABRUN" run -q x2.ini
contains "$T/out" "2 timed batches, no interval" "no interval"
contains "$T/out" "exploratory: 2 timed batches, no interval, no verdict" "and no verdict"
lacks "$T/out" "inconclusive" "never 'inconclusive'"
n=$(numbers 5) && ok "an exploratory report: all $n numbers"
equals "$(jq -r '.runs[0] | "\(.design.exploratory) \(.tables[0].rows[0].verdict_kind) \(.tables[0].rows[0].interval)"' r5.json)" \
	"true exploratory null" "the JSON says exploratory, with no interval"
sed 's/^blocks = 2/blocks = 1/' x2.ini >x3.ini
expect_exit 2 "1 block is too few even to explore" "$LABRUN" run -q x3.ini
contains "$T/err" "'exploratory = yes' takes 2 to 5 blocks, and 'blocks' is 1" "named"
sed 's/^blocks = 2/blocks = 8/' x2.ini >x4.ini
expect_exit 2 "exploratory with 8 blocks" "$LABRUN" run -q x4.ini
contains "$T/err" "x4.ini:6: 'exploratory = yes' takes 2 to 5 blocks, and 'blocks' is 8: with that many the design is strict" \
	"is refused at its line"
expect_exit 0 "replay of the exploratory run" "$LABRUN" replay 5

# Data for Python (issue 41): the tidy form is every cell of the CSV sections, one record a cell, one
# header; each row's per-block values give its ratio; and CSV lines end with LF, so $(...) keeps no CR
"$LABRUN" report --run 1 --format tidy >r1.tidy || fail "tidy report"
python3 - r1.csv r1.tidy <<'PY' || fail "the tidy form differs from the CSV sections"
import csv, sys
sections, cur = [], []
for line in open(sys.argv[1], newline="").read().split("\n\n"):
    rows = list(csv.reader(line.splitlines()))
    if rows:
        sections.append(rows)
want = {}
for s, name in zip(sections, ["conditions", "cells", "routes", "passes", "latency", "occupancy"]):
    for r, row in enumerate(s[1:]):
        for key, v in zip(s[0], row):
            want[(name, str(r), key)] = v
got = {}
rows = list(csv.reader(open(sys.argv[2], newline="")))
assert rows[0] == ["table", "row", "column", "value", "text"], rows[0]
for t, r, c, value, text in rows[1:]:
    assert not (value and text), (t, r, c)
    got[(t, r, c)] = value or text
assert got == want, sorted(set(got.items()) ^ set(want.items()))[:5]
print(len(got), "cells")
PY
ok "the tidy form holds every cell of the CSV sections, under their table, row and column"
python3 - r1.json <<'PY' || fail "a row's per-block values do not give its figures"
import json, math, statistics, sys
for t in json.load(open(sys.argv[1]))["runs"][0]["tables"]:
    for w in t["rows"]:
        b = w["per_block"]
        assert len(b["baseline"]) == len(b["arm"]) == len(b["ratio"]) == w["blocks"]
        for a, x, r in zip(b["baseline"], b["arm"], b["ratio"]):
            assert abs(x / a - r) < 1e-9 * r, (a, x, r)
        # the method's estimate: exp of the median of the blocks' log ratios (docs/method.md)
        est = math.exp(statistics.median(math.log(r) for r in b["ratio"]))
        assert abs(est - w["ratio"]) < 1e-9 * w["ratio"], (b["ratio"], w["ratio"])
PY
ok "each row's per-block means give its block ratios, and their median in log space is its ratio"
last=$("$LABRUN" sql --csv "SELECT 'a' AS x, 'b' AS y")
equals "$(printf '%s' "$last" | tail -n 1)" "a,b" "sql --csv: a shell's \$(...) keeps no CR in the last field"
equals "$(tr -cd '\r' <r1.csv | wc -c)" "0" "report --format csv ends its lines with LF"
