#!/bin/sh
# labrun bench store: labrun itself timed on throwaway stores of N runs (recorded
# runs of 'true' and synthetic experiment runs), a row a command and a column a
# store, recorded as a run of kind bench. Figures are printed, never asserted.
. "$(dirname "$0")/lib.sh"

mkdir tmp
expect_exit 0 "a small store benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 8 --scale 40 \
	--repetitions 64 --reps 2
grep -Eq '^ +command +8 runs ms +40 runs ms +40 x smallest$' "$T/out" || fail "no column per store"
ok "a column per store, and the ratio to the smallest"
for c in version record list show report audit "record x version"; do
	grep -Eq "^ +$c +[0-9]" "$T/out" || fail "no row '$c'"
done
ok "a row per command, and record over start-up alone"
grep -Eq '^ +(push|pull) ' "$T/out" && fail "push and pull without a remote"
ok "no push or pull without a remote"
contains "$T/out" "store of 40: 40 runs, 64 repetitions" "says what each store held"
equals "$(ls tmp | wc -l)" 0 "the throwaway stores are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" store "benchmark = store"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's'")" $((2 * (1 + 6 * 2))) \
	"each store: storing it, and every run of every command"
equals "$(q "SELECT group_concat(value, ' ') FROM bench_sample WHERE run_id = $id AND unit = 'runs'")" "8.0 40.0" \
	"each store held the runs asked for"

expect_exit 0 "--skip" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 8 --repetitions 16 --reps 2 --skip audit \
	--skip list
grep -Eq '^ +(audit|list) ' "$T/out" && fail "a skipped command timed"
grep -Eq '^ +show +[0-9]' "$T/out" || fail "the others are timed"
ok "--skip leaves a command out, and its row"

expect_exit 0 "--skip record" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 8 --repetitions 16 --reps 2 --skip audit \
	--skip record
grep -Eq '^ +record' "$T/out" && fail "record skipped, yet a record row (a ratio to a series never timed)"
grep -Eq '^ +version +[0-9]' "$T/out" || fail "version still timed"
ok "--skip record leaves out record x version too"

expect_exit 0 "--json" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 9 --repetitions 16 --reps 2 --json
equals "$(jq -r '[.modelled, (.commands | length), .commands[0].command, (.commands[1].ms_9 > 0),
	.commands[6].command] | map(tostring) | join(" ")' "$T/out")" "false 7 version true record x version" \
	"parses: a row per command, its median in the store of 9 runs"
json_id=$(jq -r .run "$T/out")
expect_exit 0 "report --run of a store benchmark, JSON" "$LABRUN" report --run "$json_id" --format json
equals "$(jq -r '[.benchmark, .commands[1].command] | map(tostring) | join(" ")' "$T/out")" "store record" "read back"
expect_exit 0 "report --run, CSV" "$LABRUN" report --run "$id" --format csv
equals "$(sed -n 1p "$T/out" | tr -d '\r')" "command,ms_8,ms_40,x_40" "a header (RFC 4180)"
equals "$(($(wc -l <"$T/out") - 1))" 7 "a row per command"
expect_exit 0 "report --run, Markdown" "$LABRUN" report --run "$id"
contains "$T/out" "| audit |" "the table again"
contains "$T/out" "synthetic" "says what the stored runs are"
expect_exit 0 "report --run, HTML" "$LABRUN" report --run "$id" --format html
contains "$T/out" "<td>record x version</td>" "as an HTML table"
expect_exit 0 "audit verifies the benchmark's own run" "$LABRUN" audit --run "$id"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "a scale below 8 is refused" "$LABRUN" bench store --scale 3
contains "$T/err" "invalid --scale '3'" "named"
expect_exit 2 "a --dir that is not a directory is refused" "$LABRUN" bench store --scale 64 --dir "$PWD/nowhere"
contains "$T/err" "--dir '$PWD/nowhere'" "named"
expect_exit 2 "a --skip that names no command is refused" "$LABRUN" bench store --scale 8 --skip nope
contains "$T/err" "invalid --skip 'nope'" "named"
expect_exit 1 "a remote the store does not know is refused" "$LABRUN" bench store --scale 8 --remote nosuch
contains "$T/err" "nosuch" "named"
expect_exit 2 "an unknown benchmark" "$LABRUN" bench storage
contains "$T/err" "expected 'encoder', 'import', 'store', 'remote', 'collect', 'ingest' or 'scan'" "lists them"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
