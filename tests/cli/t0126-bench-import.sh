#!/bin/sh
# labrun bench import: 'labrun import --repeat N' timed as a user runs it,
# every mode and layout, first touch and steady state against the ceilings
# each run measured, recorded as a run of kind bench. Figures are printed,
# never asserted.
. "$(dirname "$0")/lib.sh"

mkdir tmp
expect_exit 0 "a small import benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench import --model qwen3-0.6b \
	--tokens 64 --reps 2 --imports 3
for v in "whole, strided" "whole, copy" "stream, strided" "stream, copy"; do
	contains "$T/out" "$v" "prints '$v'"
done
equals "$(ls tmp | wc -l)" 0 "the throwaway store is removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" import "benchmark = import"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's'")" $((7 * 4 * 2)) \
	"first import total, copy ceiling, command time, tree-hash ceiling, first and steady cycles, steady import of every run of every variant"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'imports'")" 3 "imports a command recorded"
contains "$T/out" "tree hash: the device state's digest of as many bytes" "says what the tree-hash ceiling is"
contains "$T/out" "SIMULATED device, 3 imports a command" "says the device is simulated"
contains "$T/out" "first touch: the command's first import" "says what first touch is"
equals "$(q "SELECT count(*) FROM run WHERE kind = 'import'")" 0 "the imports went to the throwaway store"

expect_exit 0 "report --run, JSON" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[.benchmark, .model, .tokens, (.variants | length),
	([.variants[] | select(.steady_import_x_ceiling > 0 and .steady_ms > .steady_import_ms and .first_ms > .import_ms)] | length),
	([.variants[] | select(.tree_hash_ms > 0 and .steady_x_ceilings > 0 and .first_x_ceilings > 0 and .command_ms > .first_ms + .steady_ms)] | length)]
	| map(tostring) | join(" ")' "$T/out")" "import qwen3-0.6b 64 4 4 4" \
	"every variant read back; a cycle holds its import and more; the whole command holds its cycles"
expect_exit 0 "report --run, CSV" "$LABRUN" report --run "$id" --format csv
equals "$(($(wc -l <"$T/out") - 1))" 4 "a row per variant"
expect_exit 0 "report --run, Markdown" "$LABRUN" report --run "$id"
contains "$T/out" "| stream, copy |" "the table again"
expect_exit 0 "report --run, HTML" "$LABRUN" report --run "$id" --format html
contains "$T/out" "<td>whole, strided</td>" "as an HTML table"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "an unknown model is refused" "$LABRUN" bench import --model gpt-9
expect_exit 2 "a command of fewer than 3 imports has no steady state" "$LABRUN" bench import --imports 2
expect_exit 2 "a --dir that is not a directory is refused" "$LABRUN" bench import --dir "$PWD/nowhere"
contains "$T/err" "--dir '$PWD/nowhere'" "named"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
