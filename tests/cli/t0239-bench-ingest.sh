#!/bin/sh
# labrun bench ingest: ingest of a responses file beside Python's json.loads loop over the same
# file, a Python script storing the same rows into a copy of the store, and the I/O floor (dd of
# the bytes ingest wrote), and compare of two such sets, recorded as a run of kind bench. Figures are printed, never
# asserted; what is checked is that both ran on every repetition, and that the run reads back.
. "$(dirname "$0")/lib.sh"

mkdir tmp
expect_exit 0 "a small ingest benchmark runs" env TMPDIR="$PWD/tmp" "$LABRUN" bench ingest --responses 300 --tokens 8 --reps 3
for c in "labrun ingest responses" "python json.loads loop" "python script (json.loads + executemany)" \
	"I/O floor (dd, fsync)" "labrun compare (two sets)"; do
	contains "$T/out" "  $c " "a row for $c"
done
contains "$T/out" "peers: /usr/bin/python3, 'for line in f: json.loads(line)', and a script storing the same rows" \
	"names the peers"
equals "$(ls tmp | wc -l)" 0 "the file and the throwaway store are removed"
id=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT kind || ' ' || status FROM run WHERE id = $id")" "bench passed" "stored as a passed bench run"
equals "$(q "SELECT value FROM binding WHERE run_id = $id AND key = 'benchmark'")" ingest "benchmark = ingest"
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND unit = 's' AND value > 0
	AND variant IN ('ingest', 'python', 'script', 'compare')")" 12 \
	"ingest, python, the script and compare timed on every repetition"
# the floor is timed whenever ingest's writes were counted (a file system without block accounting
# counts none, and then no floor is taken)
equals "$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant = 'floor' AND value > 0")" \
	"$(q "SELECT count(*) FROM bench_sample WHERE run_id = $id AND variant = 'written' AND value > 0")" \
	"the floor timed for every repetition whose writes were counted"
equals "$(q "SELECT count(*) FROM run WHERE kind = 'record'")" 0 "the runs ingested into went to the throwaway store"

expect_exit 0 "report --run, JSON" "$LABRUN" report --run "$id" --format json
equals "$(jq -r '[.benchmark, .responses, .tokens, (.commands | length), (.commands[0].x_python > 0), (.commands[0].x_script > 0)]
	| map(tostring) | join(" ")' "$T/out")" "ingest 300 8 5 true true" "read back: every command, the ratios"
expect_exit 0 "report --run, Markdown" "$LABRUN" report --run "$id"
contains "$T/out" "| python json.loads loop |" "the table again"

# a setting is text from a store that may come from another host: in Markdown it stays text (a link
# in --python was written into the report as it was)
cp -R "$LABRUN_STORE" link-store
sqlite3 link-store/labrun.db "UPDATE binding SET value = '[see](https://example.com/x)' WHERE run_id = $id AND key = 'python'"
expect_exit 0 "report --run of a setting that looks like a link" env LABRUN_STORE="$PWD/link-store" "$LABRUN" report --run "$id"
lacks "$T/out" "[see](https://" "no link in the Markdown"
contains "$T/out" "peers: [see]\\(https\\://example.com/x)" "the setting shown as text"

# a benchmark that fails is stored as failed with what it took, and its report says so (it was
# refused: 'holds 0 of its samples')
printf '#!/bin/sh\n[ "$2" = "import json" ] && exit 0\nexit 3\n' >failing-python
chmod +x failing-python
expect_exit 1 "a peer that fails in the middle fails the benchmark" env TMPDIR="$PWD/tmp" "$LABRUN" bench ingest \
	--responses 20 --tokens 2 --reps 2 --python "$PWD/failing-python"
contains "$T/err" "the python script failed" "says what failed (the script runs right after ingest)"
fid=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT status || ' ' || count(s.run_id) FROM run r LEFT JOIN bench_sample s ON s.run_id = r.id
	WHERE r.id = $fid AND s.variant IN ('file', 'ingest') GROUP BY r.id")" "failed 2" \
	"stored as failed, with the file it wrote and the ingest it timed"
expect_exit 0 "report --run of the failed benchmark" "$LABRUN" report --run "$fid"
contains "$T/out" "failed: the python script failed" "its failure"
contains "$T/out" "| python json.loads loop | - |" "its table, with no figure it did not take"

runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "a --python that is not there" "$LABRUN" bench ingest --responses 2 --tokens 1 --reps 2 --python /nonexistent/python3
contains "$T/err" "'/nonexistent/python3', the peer, failed: cannot execute" "says the peer cannot run"
expect_exit 2 "one repetition is refused" "$LABRUN" bench ingest --reps 1
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused benchmarks store nothing"
echo "1..$tests"
