#!/bin/sh
# What the outside world names (route names, case ids) is escaped where the report prints it: a
# '|' in a route broke the matrix's columns, and a line break in a case id put a heading of its
# own into the issue comment.
. "$(dirname "$0")/lib.sh"

"$LABRUN" record -q -- true >/dev/null 2>&1
printf '{"case_id": "c|1\\n## injected", "tokens": [1, 2], "text": "a", "finish_reason": "stop"}\n' >ref.jsonl
printf '{"case_id": "c|1\\n## injected", "tokens": [1, 3], "text": "a", "finish_reason": "stop"}\n' >cand.jsonl
"$LABRUN" ingest responses --run 1 --route 'x|y' ref.jsonl >/dev/null || fail "ingest x|y"
"$LABRUN" ingest responses --run 1 --route z cand.jsonl >/dev/null || fail "ingest z"
expect_exit 1 "compare (case c|1 differs)" "$LABRUN" compare --run 1 --reference 'x|y' --candidate z
expect_exit 0 "the report" "$LABRUN" report --run 1
! grep -q '^## injected' "$T/out" || fail "a case id started a heading of its own"
ok "a case id starts no heading"
contains "$T/out" "case c|1 ## injected: tokens differ at position 1" "its line break is a blank in the list"
contains "$T/out" '| Run / condition | x\|y | z |' "the route's '|' is escaped in the matrix head"
# every row of the matrix has the head's three cells, counting the bars that are not escaped
sed -n '/^| Run \/ condition/,/^$/p' "$T/out" | sed 's/\\|//g' | awk -F'|' 'NF && NF != 5 { bad = 1 } END { exit bad }' ||
	fail "a matrix row has another number of cells: $(sed -n '/^| Run/,/^$/p' "$T/out")"
ok "every matrix row has its three cells"
echo "1..$tests"
