#!/bin/sh
# GNU option order: options anywhere among the operands, --opt=value and --opt value, and '--'
# ending the options. The README's own examples were refused ("takes IN and OUT", exit 2).
. "$(dirname "$0")/lib.sh"

N="$TOP_SRCDIR/tests/fixtures/npy"
"$LABRUN" record -q --issue 205 -- echo hello >/dev/null 2>&1
expect_exit 0 "sql QUERY --csv" "$LABRUN" sql "SELECT 40 + 2 AS answer" --csv
equals "$(sed -n 2p "$T/out" | tr -d '\r')" "42" "the option after the query applies"
expect_exit 0 "show ID --json" "$LABRUN" show 1 --json
equals "$(jq -r .id "$T/out")" "1" "JSON"
expect_exit 0 "the README's encode IN OUT --permute AXES" \
	"$LABRUN" encode "$N/token-major.npy" kv.dlf16.npy --permute 0,1,3,2,4
cmp kv.dlf16.npy "$N/token-major.permuted.dlf16.npy" || fail "the permuted encoding differs from its fixture"
ok "and it encodes as the fixture says"
expect_exit 0 "decode IN OUT --to bf16" "$LABRUN" decode "$N/all-patterns.dlf16.npy" back.npy --to bf16
expect_exit 0 "--opt=value" "$LABRUN" list --limit=1 --issue=205
contains "$T/out" "echo hello" "is the same as --opt value"
expect_exit 0 "options before, between and after operands" "$LABRUN" encode --kernel scalar "$N/small.v2.npy" --threads 1 s.npy --contract saturate
# '--' ends the options: what follows is an operand, even when it starts with '-'
expect_exit 2 "after '--' a dash is an operand" "$LABRUN" show -- -5
contains "$T/err" "cannot find run '-5'" "and is taken as the run to show"
expect_exit 2 "an unknown option after operands is still an error" "$LABRUN" show 1 --bogus
contains "$T/err" "unknown option '--bogus'" "named"
# record keeps stopping at its command: the command's own options are the command's
expect_exit 0 "record -- CMD --its-option" "$LABRUN" record -q -- sh -c 'echo "$1"' sh --its-option
expect_exit 0 "cat" "$LABRUN" cat last stdout
equals "$(cat "$T/out")" "--its-option" "reaches the command untouched"

# One option parser for every command (src/cmd/options.c): each answers -h and
# --help with its usage, names an unknown option and a missing value, and takes
# --opt=value. record keeps its own exit code for its usage errors (125).
for cmd in init record list show cat sql fsck encode decode bench import run replay diff report \
	"ingest responses" compare gate scan archive audit manifest config register remote push pull; do
	expect_exit 0 "$cmd --help" "$LABRUN" $cmd --help
	contains "$T/out" "usage: labrun $cmd" "$cmd --help prints its usage"
	want_exit=2
	[ "$cmd" = record ] && want_exit=125
	expect_exit $want_exit "$cmd with an unknown option" "$LABRUN" $cmd --no-such-option
	contains "$T/err" "unknown option '--no-such-option' for 'labrun ${cmd%% *}'" "$cmd names it"
done
# explained OPT: $T/help has OPT's line with its help, on that line or the next (indented).
explained() {
	awk -v o="$1" '{ l = $0; sub(/^  (-[a-z], )?/, "", l) }
		want && /^      +[^ ]/ { found = 1 } { want = 0 }
		/^  -/ && substr(l, 1, length(o)) == o && substr(l, length(o) + 1, 1) ~ /^( |$)/ {
			rest = substr(l, length(o) + 1); sub(/^ [^ ]+/, "", rest)
			if (rest ~ /[a-z]/) found = 1; else want = 1
		}
		END { exit !found }' "$T/help"
}
# The help is generated from the option table: every option a synopsis names has its line, with its
# help (audit's named --head and --trust but explained neither, as the help was written by hand).
for cmd in init record list show cat sql fsck encode decode "bench encoder" "bench import" "bench store" \
	"bench remote" import run replay diff report "ingest responses" compare gate scan archive audit manifest \
	config register remote push pull verify; do
	"$LABRUN" $cmd -h >"$T/help" || fail "$cmd -h"
	# the synopsis lines of this command (bench's also show the other benchmarks')
	awk -v c="labrun $cmd" '/^$/ { exit } /^(usage:| ) *labrun / { on = index($0, c " ") || $0 ~ (c "$") } on' "$T/help" |
		grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/named"
	missing=
	for o in $(cat "$T/named"); do
		explained "$o" || missing="$missing $o"
	done
	[ -z "$missing" ] || { cat "$T/help" >&2; fail "labrun $cmd -h names$missing in its synopsis but does not explain it"; }
done
ok "every option a synopsis names is explained in its help"
expect_exit 2 "an unknown benchmark" "$LABRUN" bench frob
contains "$T/err" "expected 'encoder', 'import', 'store', 'remote', 'collect', 'ingest' or 'scan'" "names every benchmark, remote included"

for c in "list --limit" "show 1 --tail" "report --format" "import --model qwen3-0.6b --tokens" \
	"compare --run" "scan --internal" "archive --output"; do
	expect_exit 2 "labrun $c (no value)" "$LABRUN" $c
	contains "$T/err" "needs a value" "labrun $c: the missing value is named"
done
expect_exit 2 "a bad choice" "$LABRUN" report --run 1 --format=pdf
contains "$T/err" "invalid --format 'pdf': expected md, csv, json, html, text or tidy" "lists the choices"
expect_exit 2 "a number out of range" "$LABRUN" list --limit=0
contains "$T/err" "invalid --limit '0': expected a whole number from 1 to" "gives the range"
expect_exit 2 "two output formats" "$LABRUN" sql --csv --json "SELECT 1"
contains "$T/err" "at most one of --csv and --json" "are refused, not silently one of them"
expect_exit 0 "--status=failed, a choice" "$LABRUN" list --status=passed -n 1
contains "$T/out" "passed" "lists a passed run"
