#!/bin/sh
# Right cells (issue 41): a run that holds one route (a record run with one ingested or collected
# route) makes no 'uncollected' cell of the routes other runs of the issue hold. Before, two such
# runs gave "4 cells: 2 collected, 2 uncollected" where nothing was missing.
. "$(dirname "$0")/lib.sh"
F="$TOP_SRCDIR/tests/fixtures/serving"
command -v jq >/dev/null || fail "jq is needed (build-aux/install-deps --test installs it)"

"$LABRUN" record -q --issue 7 -- true >/dev/null 2>&1
"$LABRUN" record -q --issue 7 -- true >/dev/null 2>&1
expect_exit 0 "run 1 holds route ref" "$LABRUN" ingest responses --run 1 --route ref "$F/ref.jsonl"
expect_exit 0 "run 2 holds route gpu" "$LABRUN" ingest responses --run 2 --route gpu "$F/gpu.jsonl"
expect_exit 1 "cross-route comparison (the fixtures differ)" "$LABRUN" compare --run 2 --reference 1:ref --candidate gpu
expect_exit 0 "report" "$LABRUN" report --issue 7 --format json -o "$T/r.json"
equals "$(jq -r '.serving.cells | "\(.total) \(.collected) \(.uncollected) \(.undeclared)"' "$T/r.json")" "2 2 0 2" \
	"2 cells, both collected, none uncollected; 2 places undeclared"
equals "$(jq -r '[.serving.rows[].cells[] | select(.declared | not) | .cell] | join(",")' "$T/r.json")" "-,-" \
	"the places a run never declared read '-'"
equals "$(jq -r '[.serving.failing[] | select(test("uncollected"))] | length' "$T/r.json")" "0" \
	"no uncollected cell among the failing"
expect_exit 0 "report md" "$LABRUN" report --issue 7
contains "$T/out" "2 cells: 2 collected, 0 uncollected" "the sentence counts only declared cells"
contains "$T/out" "(2 places of the grid marked - hold a route the row's run never declared: no cell)" "and says what '-' means"
lacks "$T/out" "uncollected: the route has no responses there" "no place is called uncollected"

# a route an experiment's arm declares and never collected stays uncollected: that is missing evidence
cat >"$T/exp.ini" <<'INI'
[experiment]
name = declared
target = command
issues = 7

[design]
blocks = 6
exploratory = no

[arm a]
command = true
responses = r.jsonl
route = never
INI
cat >>"$T/exp.ini" <<'INI'

[arm b]
command = true
INI
expect_exit 0 "an experiment whose arm collects nothing (the report says so)" "$LABRUN" run -q "$T/exp.ini"
expect_exit 0 "report again" "$LABRUN" report --issue 7 --format json -o "$T/r2.json"
equals "$(jq -r '.serving.cells | "\(.total) \(.uncollected)"' "$T/r2.json")" "3 1" \
	"the declared route of the experiment is one uncollected cell"
