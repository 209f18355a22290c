#!/bin/sh
# A definition means exactly what it says (issue 44, item 5): a [grid] key may not take the name of a
# placeholder labrun fills itself, a grid value may not repeat, numbers must fit 64 bits (and margins
# be measurable), and env.LABRUN_* may not be set. Each is refused at its line, before anything runs.
. "$(dirname "$0")/lib.sh"
"$LABRUN" init >/dev/null
runs=0

# def NAME ARM-A-LINES GRID-LINES [DESIGN-LINES]: a command experiment of two arms
def() {
	printf '[experiment]\nname = %s\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n%s\n[arm a]\ncommand = echo {arm} {outdir}\n%s\n[arm b]\ncommand = true\n[grid]\n%s\n' \
		"$1" "${4:-}" "$2" "$3" >"$1.ini"
}
refused() { # refused NAME WHAT EXPECTED-MESSAGE
	expect_exit 2 "$2" "$LABRUN" run -q "$1.ini"
	contains "$T/err" "$1.ini:$3" "$2: named, with its file and line"
	equals "$(q "SELECT count(*) FROM run")" "$runs" "$2: nothing recorded"
}

# [grid] keys named after a placeholder replaced it: {outdir} was the grid's value, {arm} likewise
for k in outdir arm rep block; do
	def "key-$k" "" "$k = /tmp/x, /tmp/y"
	refused "key-$k" "a [grid] key named '$k'" \
		"14: [grid] key '$k' is a placeholder labrun fills itself ({arm}, {rep}, {block}, {outdir})"
done

# a repeated value made identical conditions
def rep3 "" "k = 1, 1, 1"
refused rep3 "a grid value given three times" "14: 'k' lists '1' twice: the two would be identical conditions"
def rep2 "" "k = a, b, a"
refused rep2 "a grid value given again later" "14: 'k' lists 'a' twice"
def distinct "" "k = 1, 01"
expect_exit 0 "distinct values are taken" "$LABRUN" run -q distinct.ini
runs=1

# numbers past 64 bits: the timeout was stored as 1e+20
def huge "timeout = 99999999999999999999" "k = 1"
refused huge "a timeout past 64 bits" "10: 'timeout' is '99999999999999999999'; expected a positive duration"
def huge2 "timeout = 1e300h" "k = 1"
refused huge2 "a timeout of 1e300 hours" "10: 'timeout' is '1e300h'"

# a subnormal margin (1e-322) was accepted
def tiny "" "k = 1" "margin = 1e-320%"
refused tiny "a subnormal margin" "7: 'margin' is '1e-320%', below 0.0001% (1e-6)"
def tiny2 "" "k = 1" "margin = 1e-12"
refused tiny2 "a margin no measurement resolves" "7: 'margin' is '1e-12', below 0.0001%"

# env.LABRUN_METRICS was accepted and silently overridden
for v in LABRUN_METRICS LABRUN_PROGRESS LABRUN_CHECKS LABRUN_ANYTHING; do
	def "env-$v" "env.$v = /tmp/mine" "k = 1"
	refused "env-$v" "env.$v" "10: 'env.$v': labrun sets the LABRUN_ variables of an execution itself"
done

# a serving arm's numbers: past 64 bits, infinite or not a number
printf '{"case_id": "a", "prompt": "one"}\n' >cases.jsonl
sdef() { # sdef NAME KEY VALUE
	printf '[experiment]\nname = %s\ntarget = serving\ncases = cases.jsonl\n[arm r1]\nendpoint = http://127.0.0.1:9/v1\n%s = %s\n[arm r2]\nendpoint = http://127.0.0.1:9/v1\n' \
		"$1" "$2" "$3" >"$1.ini"
}
for kv in "max_tokens 99999999999999999999" "concurrency 1e19" "seed 1e300" "rate inf" "rate nan" \
	"temperature 1e999" "burstiness 1e-320" "stall 99999999999999999999" "sample 1e300h"; do
	set -- $kv
	sdef "s-$1" "$1" "$2"
	expect_exit 2 "a serving arm's $1 = $2" "$LABRUN" run -q "s-$1.ini"
	contains "$T/err" "s-$1.ini:7:" "$1 = $2: named, with its line"
	contains "$T/err" "'$1'" "$1 = $2: names the key"
	equals "$(q "SELECT count(*) FROM run")" "$runs" "$1 = $2: nothing recorded"
done
