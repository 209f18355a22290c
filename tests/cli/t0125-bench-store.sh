#!/bin/sh
# labrun bench store: labrun itself timed on throwaway stores of N synthetic
# repetitions (record, report --issue, audit), recorded as a run of kind
# bench. Figures are printed, never asserted.
. "$(dirname "$0")/lib.sh"

mkdir tmp
expect_exit 0 "a small store benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 64 --scale 2000 --reps 3
grep -Eq '^ +repetitions +runs +store s +record ms +report ms +audit ms$' "$T/out" || fail "no column per command"
ok "a column per command"
contains "$T/out" "record: record -q -- true" "says what each command is"
[ "$(grep -c '^ *[0-9][0-9]* *1 ' "$T/out")" = 2 ] || fail "a row per scale"
ok "a row per scale"
equals "$(ls tmp | wc -l)" 0 "the throwaway stores are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" store "benchmark = store"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's'")" $((2 * (1 + 3 * 3))) \
	"each scale: storing them, and every run of every command"

expect_exit 0 "--json" env TMPDIR="$PWD/tmp" "$LABRUN" bench store --scale 800 --reps 2 --json
equals "$(jq -r '[.modelled, (.scales | length), .scales[0].repetitions, .scales[0].runs,
	(.scales[0].record_ms > 0), (.scales[0].report_ms > 0), (.scales[0].audit_ms > 0)] | map(tostring) | join(" ")' \
	"$T/out")" "false 1 800 1 true true true" "parses: 800 repetitions in one run, every command timed"
json_id=$(jq -r .run "$T/out")
expect_exit 0 "report --run of a store benchmark, JSON" "$LABRUN" report --run "$json_id" --format json
equals "$(jq -r '[.benchmark, .scales[0].repetitions] | map(tostring) | join(" ")' "$T/out")" "store 800" "read back"
expect_exit 0 "report --run, CSV" "$LABRUN" report --run "$id" --format csv
equals "$(sed -n 1p "$T/out" | tr -d '\r')" "repetitions,runs,store_s,record_ms,report_ms,audit_ms" "a header (RFC 4180)"
equals "$(($(wc -l <"$T/out") - 1))" 2 "a row per scale"
expect_exit 0 "report --run, Markdown" "$LABRUN" report --run "$id"
contains "$T/out" "| 2000 | 1 |" "the table again"
contains "$T/out" "synthetic" "says what the stored repetitions are"
expect_exit 0 "report --run, HTML" "$LABRUN" report --run "$id" --format html
contains "$T/out" "<td class=\"n\">2000</td>" "as an HTML table"
expect_exit 0 "audit verifies the benchmark's own run" "$LABRUN" audit --run "$id"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "a scale below 8 is refused" "$LABRUN" bench store --scale 3
contains "$T/err" "invalid --scale '3'" "named"
expect_exit 2 "a --dir that is not a directory is refused" "$LABRUN" bench store --scale 64 --dir "$PWD/nowhere"
contains "$T/err" "--dir '$PWD/nowhere'" "named"
expect_exit 2 "an unknown benchmark" "$LABRUN" bench storage
contains "$T/err" "expected 'encoder', 'import', 'store', 'remote', 'collect', 'ingest' or 'scan'" "lists them"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
