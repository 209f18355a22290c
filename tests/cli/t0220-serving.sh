#!/bin/sh
# Serving evidence (issue 10, done-when 2 and 3): fixture response sets of several routes give
# exactly the counts that jq computes from the same files, independently of labrun's code, in
# compare, gate and the report matrix; every malformed response or key file is refused with
# FILE:LINE and leaves the store byte-identical.
. "$(dirname "$0")/lib.sh"
F="$TOP_SRCDIR/tests/fixtures/serving"
command -v jq >/dev/null || fail "jq is needed (build-aux/install-deps --test installs it)"

"$LABRUN" record -q -- true >/dev/null 2>&1
for r in ref gpu atom; do
	expect_exit 0 "ingest route $r" "$LABRUN" ingest responses --run 1 --route "$r" "$F/$r.jsonl"
done
contains "$T/out" "ingested 8 response(s) of route 'atom' into run 1" "the count of responses"
# a condition the run does not have is refused (it was taken, attaching the responses to nothing)
before=$(sha256sum <"$LABRUN_STORE/labrun.db")
expect_exit 2 "--condition 7 on a run without conditions" "$LABRUN" ingest responses --run 1 --route gpu --condition 7 "$F/gpu.jsonl"
contains "$T/err" "run 1 has no condition 7 (it has 0)" "named"
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$before" "labrun.db is byte for byte as before"
# a route is a name: a long one made manifest and archive of the run fail for good, a '/' or a line
# break went into crate file names and report lines
long=$(printf 'r%.0s' $(seq 65))
for bad in "$long" "a/b" "$(printf 'a\nb')" "-x" "a b"; do
	expect_exit 2 "the route '$(printf '%s' "$bad" | tr '\n' '?' | cut -c1-12)' is refused" "$LABRUN" ingest responses --run 1 --route "$bad" "$F/gpu.jsonl"
	contains "$T/err" "invalid route name" "named"
done
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$before" "labrun.db is still byte for byte as before"
# the raw file is kept byte for byte, unknown fields included
raw=$("$LABRUN" sql --csv "SELECT raw_sha256 FROM response_set WHERE route = 'ref'" | sed -n 2p | tr -d '\r')
equals "$raw" "$(sha256sum "$F/ref.jsonl" | cut -d' ' -f1)" "the raw file is stored as it was"
"$LABRUN" cat 1 stdout >/dev/null 2>&1 || true

# ---- compare: counts and positions as jq computes them ----
cmp_counts() { # REF CAND -> "exact token text finish missing total"
	jq -rn --slurpfile a "$1" --slurpfile b "$2" '
	([$a[].case_id] + [$b[].case_id] | unique) as $ids
	| [ $ids[] as $id | ([$a[] | select(.case_id == $id)] | first) as $x | ([$b[] | select(.case_id == $id)] | first) as $y
	    | if $x == null or $y == null then {m: 1}
	      else {m: 0, tk: ($x.tokens != $y.tokens), tx: ($x.text != $y.text), fi: ($x.finish_reason != $y.finish_reason)} end ]
	| "\(map(select(.m == 0 and (.tk | not) and (.tx | not))) | length) exact, \(map(select(.tk == true)) | length) token mismatch, \(map(select(.tx == true)) | length) text mismatch, \(map(select(.fi == true)) | length) finish mismatch, \(map(select(.m == 1)) | length) missing (of \(length))"'
}
first_diffs() { # REF CAND -> "ID: tokens differ at position N;" lines
	jq -rn --slurpfile a "$1" --slurpfile b "$2" '
	$a[] as $x | $b[] | select(.case_id == $x.case_id and .tokens != $x.tokens) as $y
	| ([($x.tokens | length), ($y.tokens | length)] | min) as $n
	| (([range(0; $n)] | map(select($x.tokens[.] != $y.tokens[.])) | first) // $n) as $p
	| "\($x.case_id): tokens differ at position \($p);"'
}
want=$(cmp_counts "$F/ref.jsonl" "$F/gpu.jsonl")
expect_exit 1 "gpu against ref differs" "$LABRUN" compare --run 1 --reference ref --candidate gpu
contains "$T/out" "$want" "compare counts equal jq's: $want"
first_diffs "$F/ref.jsonl" "$F/gpu.jsonl" >"$T/diffs"
[ -s "$T/diffs" ] || fail "the fixtures have no token mismatch"
while IFS= read -r line; do contains "$T/out" "$line" "names it: $line"; done <"$T/diffs"
contains "$T/out" "c5: missing in the candidate" "a case absent from the candidate is missing"
contains "$T/out" "c9: missing in the reference" "a case absent from the reference is missing"
want=$(cmp_counts "$F/ref.jsonl" "$F/atom.jsonl")
expect_exit 0 "atom against ref is exact" "$LABRUN" compare --run 1 --reference ref --candidate atom
contains "$T/out" "$want" "compare counts equal jq's: $want"
# both sets are read in case-id order and merged: cases missing on either side interleave, files are
# not in that order, and ids order by bytes ("Z" < "a" < "é"); every case is stored once
printf '%s\n' '{"case_id":"m5","tokens":[1],"text":"x","finish_reason":"stop"}' \
	'{"case_id":"m1","tokens":[1],"text":"x","finish_reason":"stop"}' \
	'{"case_id":"Z","tokens":[2],"text":"z","finish_reason":"stop"}' \
	'{"case_id":"\u00e9","tokens":[3],"text":"e","finish_reason":"stop"}' \
	'{"case_id":"m3","tokens":[1,2],"text":"x","finish_reason":"stop"}' >merge-a.jsonl
printf '%s\n' '{"case_id":"m4","tokens":[1],"text":"x","finish_reason":"stop"}' \
	'{"case_id":"m3","tokens":[1,3],"text":"x","finish_reason":"stop"}' \
	'{"case_id":"\u00e9","tokens":[3],"text":"e","finish_reason":"stop"}' \
	'{"case_id":"a","tokens":[2],"text":"z","finish_reason":"stop"}' \
	'{"case_id":"m2","tokens":[1],"text":"x","finish_reason":"stop"}' >merge-b.jsonl
expect_exit 0 "ingest merge-a" "$LABRUN" ingest responses --run 1 --route merge-a merge-a.jsonl
expect_exit 0 "ingest merge-b" "$LABRUN" ingest responses --run 1 --route merge-b merge-b.jsonl
want=$(cmp_counts merge-a.jsonl merge-b.jsonl)
expect_exit 1 "interleaved cases differ" "$LABRUN" compare --run 1 --reference merge-a --candidate merge-b
contains "$T/out" "$want" "compare counts equal jq's: $want"
cid=$(q "SELECT max(id) FROM comparison")
equals "$(q "SELECT group_concat(case_id || ':' || coalesce(missing, tokens_equal), ' ') FROM
	(SELECT * FROM comparison_case WHERE comparison_id = $cid ORDER BY case_id)")" \
	"Z:candidate a:reference m1:candidate m2:reference m3:0 m4:reference m5:candidate é:1" \
	"each case once, the side it is missing from named"
# a route of another run: RUN:ROUTE
"$LABRUN" record -q -- true >/dev/null 2>&1
expect_exit 0 "ingest into run 2" "$LABRUN" ingest responses --run 2 --route atom2 "$F/atom.jsonl"
expect_exit 0 "a reference from another run" "$LABRUN" compare --run 2 --reference 1:ref --candidate atom2
contains "$T/out" "$(cmp_counts "$F/ref.jsonl" "$F/atom.jsonl")" "counted across runs"
expect_exit 1 "an unknown route is named" "$LABRUN" compare --run 1 --reference ref --candidate nope
contains "$T/err" "cannot find route 'nope' in run 1" "the error names the route"

# ---- gate: strict answers, formats, EOS, as jq judges them ----
gate_counts() { # RESPONSES KEY -> "strict answers S/N, formats F/N, EOS E/N, missing M"
	jq -rn --slurpfile r "$1" --slurpfile k "$2" '
	[ $k[] as $key | ([$r[] | select(.case_id == $key.case_id)] | first) as $resp
	  | if $resp == null then {s: 0, f: 0, e: 0, m: 1}
	    else (($resp.text | gsub("^\\s+|\\s+$"; "")) as $t | (try ($t | fromjson) catch null) as $o
	      | (($o | type) == "object" and (($o | keys) == ($key.keys | sort))) as $fmt
	      | {s: (if $fmt and ($o.answer == $key.answer) then 1 else 0 end), f: (if $fmt then 1 else 0 end),
	         e: (if $resp.finish_reason == "stop" then 1 else 0 end), m: 0}) end ]
	| "strict answers \(map(.s) | add)/\(length), formats \(map(.f) | add)/\(length), EOS \(map(.e) | add)/\(length), missing \(map(.m) | add)"'
}
for r in ref gpu atom; do
	want=$(gate_counts "$F/$r.jsonl" "$F/key.jsonl")
	expect_exit 1 "gate route $r" "$LABRUN" gate --run 1 --route "$r" --answers "$F/key.jsonl"
	contains "$T/out" "$want" "gate counts equal jq's for $r: $want"
done
expect_exit 1 "gate --json" "$LABRUN" gate --run 1 --route gpu --answers "$F/key.jsonl" --json
equals "$(jq -r '"strict answers \(.counts.strict)/\(.counts.total), formats \(.counts.formats)/\(.counts.total), EOS \(.counts.eos)/\(.counts.total), missing \(.counts.missing)"' "$T/out")" \
	"$(gate_counts "$F/gpu.jsonl" "$F/key.jsonl")" "parses, with jq's counts"
equals "$(jq -r .passed "$T/out")" "false" "and the verdict"
key=$("$LABRUN" sql --csv "SELECT DISTINCT key_sha256 FROM gate" | sed -n 2p | tr -d '\r')
equals "$key" "$(sha256sum "$F/key.jsonl" | cut -d' ' -f1)" "the key's sha256 is stored"

# ---- the report matrix ----
expect_exit 0 "report with routes" "$LABRUN" report --run 1 --routes ref,gpu,atom,rngd --format json
cp "$T/out" "$T/report.json"
cell() { jq -r --arg r "$1" ".serving.rows[0].cells[] | select(.route == \$r) | $2" "$T/report.json"; }
gpu=$(cmp_counts "$F/ref.jsonl" "$F/gpu.jsonl")
equals "$(cell gpu '"\(.cross_route.exact) exact, " + "\(.cross_route.compared)"')" "$(echo "$gpu" | sed 's/ exact.*(of \([0-9]*\))/ exact, \1/')" \
	"the gpu cell's exact/total equals jq's"
equals "$(cell gpu '"strict answers \(.strict)/\(.gate_total), formats \(.formats)/\(.gate_total), EOS \(.eos)/\(.gate_total)"')" \
	"$(gate_counts "$F/gpu.jsonl" "$F/key.jsonl" | sed 's/, missing.*//')" "the gpu cell's gate scores equal jq's"
equals "$(cell rngd .cell)" "uncollected" "a route without responses is uncollected"
equals "$(jq -r '.serving.cells | "\(.total) \(.collected) \(.uncollected) \(.cross_route | "\(.exact) \(.failing) \(.unchecked)") \(.within_route.unchecked)"' "$T/report.json")" \
	"4 3 1 1 1 1 3" "cells: 4, rngd uncollected; cross-route: atom exact, gpu failing, ref never compared; none within-route"
expect_exit 0 "report as markdown" "$LABRUN" report --run 1 --routes ref,gpu,atom,rngd
contains "$T/out" "| run 1 | 8 responses, the reference of 2 comparisons; strict" "the matrix row: ref was compared against"
lacks "$T/out" "never compared: no repeated" "a reference is not listed as never compared"
contains "$T/out" "4 cells: 3 collected, 1 uncollected; of the collected, within-route parity 0 exact, 0 failing, 3 never compared; cross-route parity 1 exact, 1 failing, 1 never compared;" "the sentence accounts for every cell"
contains "$T/out" "run 1 / rngd: uncollected: the route has no responses there" "the uncollected cell is listed"
contains "$T/out" "/ gpu (comparison 1: cross-route, against ref of run 1): case c2: tokens differ at position 3;" \
	"failing cases by id"
contains "$T/out" "/ gpu (gate, key" "gate failures listed"
expect_exit 0 "report as csv" "$LABRUN" report --run 1 --routes ref,gpu --format csv
contains "$T/out" "run,condition,row,route,sets" "the matrix in csv"
expect_exit 0 "report as html" "$LABRUN" report --run 1 --format html
contains "$T/out" "<h2>Serving evidence</h2>" "the matrix in html"
# a route nothing was compared with is listed in every format (the HTML once left the note out)
"$LABRUN" ingest responses --run 1 --route lone "$F/ref.jsonl" >/dev/null || fail "ingest a route nothing compares"
for fmt in md html; do
	expect_exit 0 "report as $fmt with a lone route" "$LABRUN" report --run 1 --format $fmt
	contains "$T/out" "run 1 / lone: collected (8 responses) but never compared" "$fmt lists the cell collected but never compared"
done

# ---- malformed input: FILE:LINE, exit 4 (bad data; a bad option above is 2), and the store byte for byte as it was ----
snapshot() { (cd "$T/store" && find . -type f ! -name '*-shm' | sort | xargs sha256sum); }
snapshot >"$T/before"
while read -r file line reason; do
	case $file in
	badkey-*) expect_exit 4 "$file is refused" "$LABRUN" gate --run 1 --route ref --answers "$F/$file" ;;
	*) expect_exit 4 "$file is refused" "$LABRUN" ingest responses --run 1 --route x "$F/$file" ;;
	esac
	contains "$T/err" "$F/$file:$line: $reason" "$file names line $line: $reason"
done <"$F/bad-lines.txt"
# one unterminated line (a link to /dev/zero) took all the memory there was: refused at 64 MiB
ln -s /dev/zero "$T/zero.jsonl"
# (AddressSanitizer reserves terabytes of address space, so its builds run it without the limit)
limit=1048576
if grep -q __asan_init "$LABRUN" 2>/dev/null; then limit=unlimited; fi
got=0
expect_exit 2 "a link to /dev/zero named as the file is refused, unread" "$LABRUN" ingest responses --run 1 --route x "$T/zero.jsonl"
contains "$T/err" "refusing to read responses '$T/zero.jsonl': it is not a regular file" "named"
# through standard input ('-') it is a stream: read to the bound, not to the end of memory
(ulimit -v $limit; exec "$LABRUN" ingest responses --run 1 --route x - </dev/zero) >"$T/out" 2>"$T/err" || got=$?
equals "$got" "4" "an endless line under a 1 GiB address-space limit ($limit KiB): refused as bad data, exit 4"
contains "$T/err" "responses '-', line 1: the line is longer than 64 MiB" "names the file, the line and the bound"
snapshot >"$T/after"
cmp -s "$T/before" "$T/after" || { diff "$T/before" "$T/after" >&2; fail "a refused file changed the store"; }
ok "the store is byte-identical after every refused file"
# a file that changes under ingest (a FIFO gives other content each time it is opened; named as the
# file it is refused, so it comes as standard input): it is read once, so the rows and the stored
# copy hold the same content
mkfifo "$T/fifo.jsonl"
for t in first second third; do
	printf '{"case_id": "c1", "tokens": [1], "text": "%s", "finish_reason": "stop"}\n' $t >"$T/fifo-$t.jsonl"
done
python3 "$TOP_SRCDIR/tests/cli/fifo-feed.py" "$T/fifo.jsonl" "$T/fifo-first.jsonl" "$T/fifo-second.jsonl" "$T/fifo-third.jsonl" &
writer=$!
expect_exit 0 "ingest of a file that changes under it" "$LABRUN" ingest responses --run 1 --route fifo - <"$T/fifo.jsonl"
kill $writer 2>/dev/null || true; wait $writer 2>/dev/null || true
equals "$("$LABRUN" sql --csv "SELECT r.text FROM response r JOIN response_set s ON s.id = r.set_id WHERE s.route = 'fifo'" | sed -n 2p | tr -d '\r')" \
	"first" "the file is read once: the row holds its first content"
fobj=$("$LABRUN" sql --csv "SELECT raw_sha256 FROM response_set WHERE route = 'fifo'" | sed -n 2p | tr -d '\r')
contains "$T/store/objects/$(echo "$fobj" | cut -c1-2)/$(echo "$fobj" | cut -c3-)" '"text": "first"' "and the stored copy, which its sha256 names, holds the same"
expect_exit 0 "audit still passes" "$LABRUN" audit

# fsck re-hashes the serving objects too: a raw responses file changed on disk is named.
obj=$("$LABRUN" sql --csv "SELECT raw_sha256 FROM response_set WHERE route = 'gpu'" | sed -n 2p | tr -d '\r')
f="$T/store/objects/$(echo "$obj" | cut -c1-2)/$(echo "$obj" | cut -c3-)"
chmod u+w "$f"
printf 'x' >>"$f"
expect_exit 1 "fsck finds a changed responses file" "$LABRUN" fsck
contains "$T/out" "object $obj" "the object is named"

# --json of compare; comparing the same two sets again replaces, not adds to, the report's counts
expect_exit 1 "compare --json" "$LABRUN" compare --run 1 --reference ref --candidate gpu --json
equals "$(jq -r '"\(.counts.exact) exact, \(.counts.token_mismatch) token mismatch, \(.counts.text_mismatch) text mismatch, \(.counts.finish_mismatch) finish mismatch, \(.counts.missing) missing (of \(.counts.total))"' "$T/out")" \
	"$(cmp_counts "$F/ref.jsonl" "$F/gpu.jsonl")" "parses, with jq's counts"
equals "$(jq -r '.failures[] | select(.missing != null) | "\(.case_id):\(.missing)"' "$T/out" | sort | tr '\n' ' ')" \
	"c5:candidate c9:reference " "and names the missing cases"
expect_exit 0 "the report after a repeated comparison" "$LABRUN" report --run 1 --routes ref,gpu,atom,rngd --format json
equals "$(jq -r '.serving.rows[0].cells[] | select(.route == "gpu") | "\(.exact) exact, \(.compared)"' "$T/out")" \
	"$(cell gpu '"\(.exact) exact, " + "\(.compared)"')" "counts the gpu cell once (it summed both comparisons)"

# case ids are the harness's text: compare printed them raw, an escape sequence included
"$LABRUN" record -q -- true >/dev/null 2>&1 || fail "a run for the escape test"
printf '{"case_id": "c\\u001b[2J1", "tokens": [1], "text": "a", "finish_reason": "stop"}\n' >"$T/esc-a.jsonl"
printf '{"case_id": "c\\u001b[2J1", "tokens": [2], "text": "b", "finish_reason": "stop"}\n' >"$T/esc-b.jsonl"
"$LABRUN" ingest responses --run last --route esc-a "$T/esc-a.jsonl" >/dev/null || fail "ingest esc-a"
"$LABRUN" ingest responses --run last --route esc-b "$T/esc-b.jsonl" >/dev/null || fail "ingest esc-b"
expect_exit 1 "compare of a case id holding an escape sequence" "$LABRUN" compare --run last --reference esc-a --candidate esc-b
contains "$T/out" 'c\x1b[2J1: tokens differ at position 0' "shows it escaped"
if grep -q "$(printf '\033')" "$T/out"; then fail "an escape sequence reached the terminal"; fi
ok "no raw escape sequence printed"
# show printed a run's free text (its note, experiment, cwd, failure, names) raw
"$LABRUN" record -q --note "$(printf 'n\033[2Jote')" --experiment "$(printf 'e\033]0;x\007xp')" -- true >/dev/null 2>&1 || fail "record with escapes"
expect_exit 0 "show of a run whose note and experiment hold escape sequences" "$LABRUN" show last
contains "$T/out" 'note:       n\x1b[2Jote' "the note, escaped"
if grep -q "$(printf '\033')" "$T/out"; then fail "an escape sequence reached the terminal"; fi
ok "no raw escape sequence printed by show"

# a route compared with itself, or two empty sets, was stored as a pass and shown as exact
expect_exit 2 "compare of a route with itself" "$LABRUN" compare --run 1 --reference gpu --candidate gpu
contains "$T/err" "with itself: every case would match" "is refused, saying why"
: >"$T/empty-a.jsonl"
n=$("$LABRUN" sql --csv "SELECT count(*) FROM comparison" | sed -n 2p | tr -d '\r')
expect_exit 2 "ingest of an empty responses file (issue 44: it made a collected cell of 0)" \
	"$LABRUN" ingest responses --run last --route empty-a "$T/empty-a.jsonl"
contains "$T/err" "is empty: no response of route 'empty-a' to store" "is refused, saying why"
equals "$("$LABRUN" sql --csv "SELECT count(*) FROM comparison" | sed -n 2p | tr -d '\r')" "$n" "and no comparison is stored"
