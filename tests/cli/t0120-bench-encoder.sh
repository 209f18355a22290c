#!/bin/sh
# labrun bench encoder runs, checks parity before timing and prints every
# variant. Figures are printed, never asserted: performance is measured by
# running the benchmark, not by this test.
. "$(dirname "$0")/lib.sh"

mkdir files
expect_exit 0 "a small benchmark runs" env TMPDIR="$PWD/files" "$LABRUN" bench encoder --shape 1,2,2,256,128 \
	--shape 2,2,1,64,64 --reps 3
for v in "copy: memcpy" "copy: vector" "copy: non-temporal" "encode: lookup" "encode: scalar" "permuted view" \
	"file: cp" "file: encode"; do
	contains "$T/out" "$v" "prints '$v'"
done
contains "$T/out" "x the throughput of cp of the same file" "file to file beside cp of the same file"
# one ratio, one direction: the line's is the table's 'x ceiling' of 'file: encode' (it once gave the inverse)
for s in 1,2,2,256,128 2,2,1,64,64; do
	table=$(sed -n "/^shape \[$s\]/,/^File to file/p" "$T/out" | awk '$1 == "file:" && $2 == "encode" { print $(NF - 1) }')
	line=$(sed -n "/^shape \[$s\]/,/^File to file/p" "$T/out" | sed -n 's/^File to file.* = \([0-9.]*\)x the throughput of cp.*/\1/p')
	[ -n "$table" ] && [ "$table" = "$line" ] || fail "shape $s: the table says ${table:-nothing}x, the line ${line:-nothing}x"
done
ok "the file ratio is the same in the table and the line"
equals "$(ls files | wc -l)" 0 "the file variants remove their files (written in \$TMPDIR)"
contains "$T/out" "parity: every encoder and the permuted view give identical bytes" "parity checked"
grep -Eq '^  copy: [a-z -]+ +[0-9.]+ +[0-9.]+ +1\.00 +- +ceiling$' "$T/out" || fail "no copy is named the ceiling"
ok "names the ceiling, at 1.00x itself"
grep -Eq '^  encode: [a-z0-9-]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +best kernel$' "$T/out" || fail "no kernel is named best"
ok "names the best kernel"
[ "$(grep -c '^shape \[' "$T/out")" = 2 ] || fail "one block per shape"
ok "one block per shape"
expect_exit 2 "--dir that is not a directory" "$LABRUN" bench encoder --shape 1,2,2,64,16 --dir "$PWD/nowhere"
contains "$T/err" "--dir '$PWD/nowhere': not a directory" "named"
expect_exit 0 "--no-files" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 2 --no-files
lacks "$T/out" "file:" "times in memory only"
expect_exit 2 "a shape that is not [L,2,H,T,D]" "$LABRUN" bench encoder --shape 4,4
contains "$T/err" "expected [L,2,H,T,D]" "says the expected form"
expect_exit 2 "an unknown benchmark" "$LABRUN" bench decoder
expect_exit 2 "no benchmark named" "$LABRUN" bench

# an empty shape has nothing to time: it printed -nan ratios and exited 0
expect_exit 2 "a shape with no elements is refused" "$LABRUN" bench encoder --shape 1,2,0,4,8 --reps 2
contains "$T/err" "shape [1,2,0,4,8] holds no elements" "named"
lacks "$T/out" "nan" "no -nan figure is printed"

# --json: the same figures as one object, the CPU with them, nothing modelled
expect_exit 0 "bench encoder --json" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 3 --json
equals "$(jq -r '[.modelled, (.host.cpu | length > 0), (.shapes | length), (.shapes[0].output_sha256 | length),
	([.shapes[0].variants[] | select(.gbps > 0)] | length) == (.shapes[0].variants | length),
	([.shapes[0].variants[] | select(.kind == "copy")] | length),
	([.shapes[0].variants[] | select(.kind | startswith("file"))] | length),
	(.shapes[0].file_encode_x_cp > 0)] | map(tostring) | join(" ")' "$T/out")" \
	"false true 1 64 true 4 2 true" "parses: the CPU named, every variant measured, the four copies, cp and encode of a file"
equals "$(jq -r '.shapes[0] | (.file_encode_x_cp * 100 | round) == ([.variants[] | select(.kind == "file encode")][0].x_ceiling * 100 | round)' "$T/out")" \
	true "file_encode_x_cp is the file encode's x_ceiling"

# progress on a terminal (it ran 70 s in silence), none when stderr is not one
expect_exit 0 "bench with stderr to a file" "$LABRUN" bench encoder --shape 1,2,2,64,16 --reps 2
lacks "$T/err" "measured" "no progress in a file"
if command -v script >/dev/null; then
	script -qc "'$LABRUN' bench encoder --shape 1,2,2,64,16 --shape 1,2,2,128,16 --reps 2 >/dev/null" /dev/null >"$T/tty"
	contains "$T/tty" "labrun bench: measured 1 of 2 shapes" "progress on a terminal, shape by shape"
fi

# every benchmark is a run of kind 'bench': settings as binding, every
# repetition as a sample, each shape's output as a digest; report --run
# gives the tables again, recomputed from those times
runs_before=$(q "SELECT count(*) FROM run")
expect_exit 2 "the same shape twice is refused" "$LABRUN" bench encoder --shape 1,2,2,64,16 --shape 1,2,2,64,16
expect_exit 2 "an empty shape among good ones" "$LABRUN" bench encoder --shape 1,2,2,64,16 --shape 0,2,2,64,16
equals "$(q "SELECT count(*) FROM run")" "$runs_before" "refused benchmarks store nothing"

expect_exit 0 "bench encoder --json, two shapes" "$LABRUN" bench encoder --shape 1,2,2,64,16 --shape 2,2,1,32,64 --reps 4 --json
cp "$T/out" bench.json
id=$(jq -r .run bench.json)
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed run of kind bench"
nvar=$(jq '.shapes[0].variants | length' bench.json)
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's' AND rep BETWEEN 0 AND 3")" "$((2 * nvar * 4))" \
	"every repetition of every variant on both shapes stored"
equals "$(q "SELECT count(DISTINCT subject) || ' ' || (min(subject) = '1,2,2,64,16') FROM bench_sample WHERE run_id = $id")" "2 1" \
	"the shape is the sample's subject"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'pinned_cpu'")" "$(jq -r .pinned_cpu bench.json)" \
	"the pinned CPU is in the binding"
equals "$(q "SELECT sha256 FROM run_digest WHERE run_id = $id AND name = 'encoder_output [2,2,1,32,64]'")" \
	"$(jq -r '.shapes[1].output_sha256' bench.json)" "each shape's output sha256 is a digest of the run"

expect_exit 0 "report --run of a bench run, json" "$LABRUN" report --run "$id" --format json
# the medians the report recomputes from the stored times are the ones bench printed
# (to 9 significant digits: the store keeps seconds, the benchmark milliseconds)
med='[.shapes[].variants[] | .variant + "/" + .kind + "=" + (.median_ms * 1e9 | round | tostring)] | join(" ")'
equals "$(jq -r "$med" "$T/out")" "$(jq -r "$med" bench.json)" "every median recomputed equals the benchmark's, kinds too"
equals "$(jq -r '[.shapes[].file_encode_x_cp] == [.shapes[].file_encode_x_cp | select(. > 0)]' "$T/out")" true \
	"the file variants' ratio recomputed"
equals "$(jq -r '[.run, .status, .modelled, (.shapes | length)] | map(tostring) | join(" ")' "$T/out")" \
	"$id passed false 2" "the run, its status, measured, both shapes"
expect_exit 0 "report --run of a bench run, Markdown" "$LABRUN" report --run "$id"
contains "$T/out" "| encode: lookup |" "a table row per variant"
contains "$T/out" "Best kernel" "names the best kernel"
contains "$T/out" "x the throughput of cp of the same file" "and encode file to file against cp"
contains "$T/out" "timing thread pinned to CPU $(jq -r .pinned_cpu bench.json)" "names the CPU"
expect_exit 0 "report --run of a bench run, CSV" "$LABRUN" report --run "$id" --format csv
equals "$(($(wc -l <"$T/out") - 1))" "$((2 * nvar))" "a CSV row per shape and variant"
expect_exit 0 "show of a bench run" "$LABRUN" show "$id"
contains "$T/out" "$((2 * nvar * 4)) timed repetitions" "show counts the repetitions instead of listing them"
expect_exit 0 "audit verifies the bench run's seal" "$LABRUN" audit --run "$id"

# a bench run stored before migration 19 named each sample in a measurement's
# name: the same run in that form reports the same tables
expect_exit 0 "report --run, Markdown, of typed samples" "$LABRUN" report --run "$id"
cp "$T/out" typed.md
cp -R "$LABRUN_STORE" old-store
sqlite3 old-store/labrun.db "INSERT INTO measurement(run_id, name, value, unit)
	SELECT run_id, '[' || subject || '] ' || variant || ' rep ' || rep, value, unit FROM bench_sample WHERE run_id = $id;
	DELETE FROM bench_sample WHERE run_id = $id" || fail "cannot rewrite the run in the old form"
expect_exit 0 "report --run of a run in the old form" env LABRUN_STORE="$PWD/old-store" "$LABRUN" report --run "$id"
equals "$(cmp typed.md "$T/out" && echo same)" same "the old form reports the same tables"
# a sample row may come from another host and say anything: a shape of more elements than any
# host holds (its product wrapped around int64) is refused, named
cp -R "$LABRUN_STORE" big-store
sqlite3 big-store/labrun.db "UPDATE bench_sample SET subject = '4611686018427387904,2,2,64,16' WHERE run_id = $id AND subject = '1,2,2,64,16'"
expect_exit 2 "a shape past 2^40 elements is refused" env LABRUN_STORE="$PWD/big-store" "$LABRUN" report --run "$id"
contains "$T/err" "sample subject '4611686018427387904,2,2,64,16' is not a shape" "named"

# the benchmark a run names is read once, strictly: a name this labrun does not know is refused, never
# read as the encoder's (it was: any other name gave the encoder's tables)
cp -R "$LABRUN_STORE" other-store
sqlite3 other-store/labrun.db "UPDATE binding SET value = 'decoder' WHERE run_id = $id AND key = 'benchmark'"
expect_exit 2 "a run naming an unknown benchmark is refused" env LABRUN_STORE="$PWD/other-store" "$LABRUN" report --run "$id"
contains "$T/err" "cannot read benchmark run $id: unknown benchmark 'decoder'" "named, with the run"
contains "$T/err" "hint:" "and what to do"
equals "$(wc -c <"$T/out" | tr -d ' ')" 0 "and no tables"
# a shape without its copies has no ceiling: the report says none (it read before the first variant:
# 'infx the ceiling's throughput', and JSON lost the shape)
cp -R "$LABRUN_STORE" nocopy-store
sqlite3 nocopy-store/labrun.db "DELETE FROM bench_sample WHERE run_id = $id AND variant LIKE 'copy: %'"
expect_exit 0 "report --run of shapes without a copy" env LABRUN_STORE="$PWD/nocopy-store" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[(.shapes | length), (.shapes[0].ceiling == null), (.shapes[0].best | startswith("encode: ")),
	([.shapes[0].variants[] | select(.kind == "encode" and .x_ceiling == null)] | length > 0)] | map(tostring) | join(" ")' "$T/out")" \
	"2 true true true" "both shapes, no ceiling, the best kernel still named, no ratio to a ceiling"
expect_exit 0 "the same in Markdown" env LABRUN_STORE="$PWD/nocopy-store" "$LABRUN" report --run "$id"
lacks "$T/out" "inf" "no infinite ratio"
contains "$T/out" "Best kernel " "the best kernel still summed up"
# the text format is text for a terminal, not Markdown (it was Markdown)
expect_exit 0 "report --run of a bench run, text" "$LABRUN" report --run "$id" --format text
lacks "$T/out" "| encode: lookup |" "no Markdown table"
grep -Eq '^  encode: lookup +[0-9.]+ ' "$T/out" || fail "no table for a terminal: $(cat "$T/out")"
ok "the table as the benchmark prints it"

# --threads N: every variant on N threads, the copy ceiling too; more threads than CPUs is refused
cpus=$(nproc)
expect_exit 2 "more threads than CPUs" "$LABRUN" bench encoder --shape 1,2,2,64,16 --threads $((cpus + 1))
contains "$T/err" "may run on $cpus CPU(s)" "says how many it may use"
expect_exit 0 "bench encoder --threads $cpus" "$LABRUN" bench encoder --shape 1,2,4,256,64 --reps 3 --threads "$cpus" --json
equals "$(jq -r '[.threads, (.shapes[0].variants | length)] | map(tostring) | join(" ")' "$T/out")" "$cpus $nvar" \
	"the threads are said, every variant measured"
equals "$(q "SELECT value FROM binding WHERE run_id = $(jq -r .run "$T/out") AND key = 'threads'")" "$cpus" \
	"and stored with the run"
