#!/bin/sh
# Ingest and compare into a final run feed the seal's digests of response and
# comparison_case as they write the rows (store/sealfeed.c) instead of reading
# them back: after each step the seal must equal the one recomputed from the
# stored rows, by labrun audit and by the independent tests/cli/seal-check.py.
# The rows carry what type affinity changes (-0.0 in a REAL column, whole
# reals, NULLs, a NUL inside text), a file out of case_id order (read back
# instead) and sets and comparisons after earlier ones (the digest's prefix).
. "$(dirname "$0")/lib.sh"

db="$T/store/labrun.db"
checked() { # $1: the step just taken
	expect_exit 0 "audit after $1" "$LABRUN" audit
	contains "$T/out" "0 problem(s)" "the seal after $1 is the stored rows'"
	python3 "$TOP_SRCDIR/tests/cli/seal-check.py" verify "$db" "$TOP_SRCDIR/docs/schema.md" >"$T/sc" ||
		{ cat "$T/sc"; fail "seal-check.py after $1"; }
	ok "seal-check.py agrees after $1"
}

"$LABRUN" record -q -- true >/dev/null 2>&1
cat >sorted.jsonl <<'JSON'
{"case_id": "a", "tokens": [1, 2, 3], "text": "x", "finish_reason": "stop", "latency_ms": -0.0, "ttft_ms": 0, "input_tokens": 3, "lane": 1, "model": "m"}
{"case_id": "b\u00e9", "tokens": [], "text": "nul \u0000 inside, \u00e9", "finish_reason": "length", "latency_ms": 12.5}
{"case_id": "c", "tokens": [7], "text": "", "finish_reason": "stop", "latency_ms": 1e300, "ttft_ms": 3, "output_tokens": 0, "model": null}
{"case_id": "d", "tokens": [-0, 4], "text": "y", "finish_reason": "stop", "latency_ms": 2.0, "ttft_ms": 0.25}
JSON
cat >shuffled.jsonl <<'JSON'
{"case_id": "d", "tokens": [4, 4], "text": "y", "finish_reason": "stop"}
{"case_id": "a", "tokens": [1, 2, 3], "text": "z", "finish_reason": "length", "latency_ms": 5}
{"case_id": "e", "tokens": [9], "text": "only here", "finish_reason": "stop"}
JSON

expect_exit 0 "ingest a file in case_id order into a final run" "$LABRUN" ingest responses --run 1 --route a sorted.jsonl
checked "ingesting a sorted file"
expect_exit 0 "ingest a file out of case_id order" "$LABRUN" ingest responses --run 1 --route b shuffled.jsonl
checked "ingesting a shuffled file"
expect_exit 0 "ingest a sorted file after two sets" "$LABRUN" ingest responses --run 1 --route c sorted.jsonl
checked "ingesting a third set"
expect_exit 1 "compare with mismatches and missing cases (exit 1)" "$LABRUN" compare --run 1 --reference a --candidate b
checked "a comparison"
expect_exit 0 "compare again, after the first comparison" "$LABRUN" compare --run 1 --reference a --candidate c
checked "a second comparison"
[ "$(q "SELECT count(*) FROM ledger")" = 6 ] || fail "each step appended a seal to the ledger"
ok "each step appended a seal to the ledger"
