#!/bin/sh
# Progress: long work once ran silent in a script or CI log (encoder205 16 s,
# replay 30 s). Off a terminal, --progress or LABRUN_PROGRESS=1 gives lines
# on stderr (the first at once, then every few seconds, and one when done);
# by default nothing, so captured output stays as it was; on a terminal, one
# line redrawn in place. stdout is the same either way. (collect: t0236;
# push and pull: t0400.)
. "$(dirname "$0")/lib.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
F="$TOP_SRCDIR/tests/fixtures/serving"

# quiet CMD...: stderr holds no progress line of labrun
quiet() {
	desc=$1
	shift
	expect_exit 0 "$desc, by default" "$@"
	! grep -q '^labrun [a-z]*: .* [0-9]* s' "$T/err" || { cat "$T/err" >&2; fail "$desc: progress off a terminal unasked"; }
	ok "$desc: silent off a terminal by default"
}

quiet "run" "$LABRUN" run "$X/tiny-encode.ini"
cp "$T/out" plain.out
expect_exit 0 "run --progress" "$LABRUN" run --progress "$X/tiny-encode.ini"
contains "$T/err" "labrun run: condition 1/2, block 1/7" "an experiment's condition and block"
equals "$(grep -c . "$T/err")" "$(grep -c '^labrun run: ' "$T/err")" "every stderr line is a progress line"
lacks "$T/out" "condition 1/2" "stdout holds no progress"
# the two runs' stdout differ only in figures and in the sign note, printed (after a blank line) when a
# table's medians and estimate point different ways: for lookup against scalar, when the machine is busy
lines() { grep -v -e '^$' -e '^(a) The medians and the estimate point different ways here' "$1" | wc -l; }
equals "$(lines "$T/out")" "$(lines plain.out)" "stdout has the same lines with progress as without"
expect_exit 0 "replay with LABRUN_PROGRESS=1" env LABRUN_PROGRESS=1 "$LABRUN" replay last
contains "$T/err" "labrun replay: condition 1/2" "replay shows it too"
expect_exit 0 "import --progress" "$LABRUN" import --model qwen3-0.6b --tokens 64 --progress
contains "$T/err" "labrun import: imported, read back and measured 3 of 3 steps" "import's steps, to the end"
quiet "import" "$LABRUN" import --model qwen3-0.6b --tokens 64
expect_exit 0 "bench encoder --progress" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 2 --no-files --progress
contains "$T/err" "labrun bench: measured 1 of 1 shapes" "bench's shapes"
expect_exit 0 "ingest --progress" "$LABRUN" ingest responses --run 1 --route atom --progress "$F/atom.jsonl"
contains "$T/err" "labrun ingest: checked and stored" "ingest's bytes"
expect_exit 0 "audit --progress" "$LABRUN" audit --progress
n=$(q "SELECT count(*) FROM run")
contains "$T/err" "labrun audit: audited $n of $n runs, " "audit's runs, to the end"
quiet "audit" "$LABRUN" audit
expect_exit 0 "archive --progress" "$LABRUN" archive --run 1 -o a.tar.zst --progress
contains "$T/err" "labrun archive: packed " "archive's members"
expect_exit 0 "archive --verify with LABRUN_PROGRESS=1" env LABRUN_PROGRESS=1 "$LABRUN" archive --allow-unsigned --verify a.tar.zst
contains "$T/err" "labrun archive: checked " "verify's members"
expect_exit 0 "verify --progress" "$LABRUN" verify --allow-unsigned --progress a.tar.zst
contains "$T/err" "labrun verify: hashed " "verify's files"
quiet "verify" "$LABRUN" verify --allow-unsigned a.tar.zst
expect_exit 0 "-q wins over LABRUN_PROGRESS=1" env LABRUN_PROGRESS=1 "$LABRUN" run -q "$X/tiny-encode.ini"
lacks "$T/err" "labrun run: condition" "-q: no progress"

# on a terminal: one line redrawn in place, cleared before the command's own output; LABRUN_PROGRESS=0 turns it off
if command -v script >/dev/null; then
	script -qc "'$LABRUN' audit >/dev/null" /dev/null >tty.out
	grep -q "$(printf '\r')labrun audit: audited " tty.out || { od -c tty.out | head >&2; fail "no progress on a terminal"; }
	ok "on a terminal, a line redrawn with a carriage return"
	grep -q "$(printf '\r\033')\[K" tty.out || fail "the line is not cleared at the end"
	ok "and cleared when the work is done"
	LABRUN_PROGRESS=0 script -qc "'$LABRUN' audit >/dev/null" /dev/null >tty0.out
	lacks tty0.out "labrun audit:" "LABRUN_PROGRESS=0 turns the terminal's off"
fi
