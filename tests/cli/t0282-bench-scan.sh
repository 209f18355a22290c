#!/bin/sh
# labrun bench scan: scan and manifest of one line without a blank that ends in a made-up token,
# beside cat and grep of the same file, recorded as a run of kind bench. Figures are printed, never
# asserted; what is checked is that every command ran and found the token on every repetition, that
# the run reads back, and that a peer that does not find the token fails the benchmark.
. "$(dirname "$0")/lib.sh"

mkdir tmp
expect_exit 0 "a small scan benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench scan --bytes 65536 --reps 2
for c in "labrun scan FILE" "labrun manifest (refused)" "labrun manifest --allow-findings" \
	"grep -c -E TOKEN-REGEX FILE" "cat FILE > /dev/null"; do
	contains "$T/out" "  $c " "a row for $c"
done
contains "$T/out" "one line of 65536 bytes without a blank" "says what was scanned"
contains "$T/out" "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" "names the CPU"
contains "$T/out" "the line: 65536 bytes, the token its last 40; checked: the line without the token scans clean" \
	"says what was checked"
equals "$(ls tmp | wc -l)" 0 "the lines, the crates and the throwaway store are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT r.kind || ' ' || r.status || ' ' || b.value FROM run r
	JOIN binding b ON b.run_id = r.id AND b.key = 'benchmark' WHERE r.id = $id")" "bench passed scan" \
	"stored as a passed bench run, benchmark = scan"
equals "$(q "SELECT value FROM bench_sample WHERE run_id = $id AND variant = 'file'")" 65536 "the line's length"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's' AND value > 0")" 10 \
	"five commands timed on each repetition"
equals "$(q "SELECT count(*) FROM run WHERE kind = 'record'")" 0 "the run holding the line went to the throwaway store"

expect_exit 0 "report --run, JSON" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[.benchmark, .bytes, (.commands | length), (.commands[0].x_cat > 0)]
	| map(tostring) | join(" ")' "$T/out")" "scan 65536 5 true" "read back: every command, the ratio"

# a peer that runs but does not find the token fails the benchmark, stored as failed: what is timed
# must have found it
mkdir fake
printf '#!/bin/sh\n[ "$1" = --version ] && { echo "grep (fake) 0"; exit 0; }\necho 0\n' >fake/grep
chmod +x fake/grep
expect_exit 1 "a grep that finds nothing fails the benchmark" env TMPDIR="$PWD/tmp" PATH="$PWD/fake:$PATH" \
	"$LABRUN" bench scan --bytes 4096 --reps 2
contains "$T/err" "grep of the token's regex (the peer): exited 0; expected exit 0 and '1' in its output" \
	"says what failed"
equals "$(q "SELECT status FROM run WHERE id = (SELECT max(id) FROM run)")" failed "stored as failed"
equals "$(ls tmp | wc -l)" 0 "a failed benchmark removes its files too"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "a line too short for the token" "$LABRUN" bench scan --bytes 40
contains "$T/err" "invalid --bytes '40': expected a whole number from 41" "says the shortest line"
expect_exit 2 "one repetition is refused" "$LABRUN" bench scan --reps 1
expect_exit 2 "a grep that cannot run" env PATH=/nonexistent "$LABRUN" bench scan --bytes 4096 --reps 2
contains "$T/err" "'grep', the peer, failed" "says the peer cannot run"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
echo "1..$tests"
