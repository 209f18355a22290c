#!/bin/sh
# Remotes under stress: four stores push at once (sharing an object) and nothing is lost; a push
# killed with SIGKILL in the middle of a large object leaves the remote consistent (no run
# without its objects, no object without all its bytes) and the next push resumes to exactly the
# content an uninterrupted push gives.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
PGDB=postgres pg_sql "CREATE DATABASE clean" || fail "create the second database"
remote_init() { # STORE URI
	LABRUN_STORE=$1 "$LABRUN" init >/dev/null && LABRUN_STORE=$1 "$LABRUN" remote add lab "$2" &&
		LABRUN_STORE=$1 "$LABRUN" remote init lab >/dev/null || fail "set up $1"
}

# --- four pushers at once
echo "shared by every store" >"$T/work/shared.txt"
for i in 1 2 3 4; do
	remote_init "$T/p$i" "$PG_URI"
	for j in 1 2 3 4 5; do
		echo "store $i run $j" >"$T/work/own.txt"
		LABRUN_STORE=$T/p$i "$LABRUN" record -q --issue 415 --artifact shared.txt --artifact own.txt -- true \
			>/dev/null 2>&1 || fail "record in store $i"
	done
done
for i in 1 2 3 4; do
	LABRUN_STORE=$T/p$i "$LABRUN" push >"$T/push$i.out" 2>&1 &
done
failed=0
for i in 1 2 3 4; do wait %$i || failed=$((failed + 1)); done
[ "$failed" = 0 ] || { cat "$T"/push*.out >&2; fail "$failed of four concurrent pushes failed"; }
ok "four concurrent pushes succeed"
equals "$(pg_sql "SELECT count(*) FROM run")" "20" "all twenty runs are on the remote"
equals "$(pg_sql "SELECT count(*) FROM object WHERE sha256 = '$(sha256sum <"$T/work/shared.txt" | cut -c1-64)'")" "1" "the shared object once"
equals "$(cat "$T"/push*.out | sed -n 's/.*; \([0-9]*\) objects\{0,1\} sent.*/\1/p' | awk '{ s += $1 } END { print s }')" \
	"$(pg_sql "SELECT count(*) FROM object")" "each object sent by exactly one pusher"
remote_init "$T/all" "$PG_URI"
expect_exit 0 "pull everything" env LABRUN_STORE=$T/all "$LABRUN" pull --issue 415
contains "$T/out" "20 runs pulled" "twenty runs arrive"
expect_exit 0 "audit" env LABRUN_STORE=$T/all "$LABRUN" audit
contains "$T/out" "0 problem(s)" "all sound"
# two pulls at once into one store: each run arrives once
remote_init "$T/two" "$PG_URI"
LABRUN_STORE=$T/two "$LABRUN" pull --issue 415 >"$T/pull1.out" 2>&1 &
LABRUN_STORE=$T/two "$LABRUN" pull --issue 415 >"$T/pull2.out" 2>&1 &
failed=0
for i in 1 2; do wait %$i || failed=$((failed + 1)); done
[ "$failed" = 0 ] || { cat "$T"/pull*.out >&2; fail "$failed of two concurrent pulls failed"; }
ok "two concurrent pulls succeed"
equals "$(LABRUN_STORE=$T/two "$LABRUN" sql --csv "SELECT count(*), count(DISTINCT uuid) FROM run" | sed -n 2p | tr -d '\r')" "20,20" "each run once"
equals "$(cat "$T"/pull1.out "$T"/pull2.out | sed -n 's/.*: \([0-9]*\) runs\{0,1\} pulled.*/\1/p' | awk '{ s += $1 } END { print s }')" "20" "each pulled by one of them"
expect_exit 0 "audit after concurrent pulls" env LABRUN_STORE=$T/two "$LABRUN" audit
contains "$T/out" "0 problem(s)" "sound"

# --- SIGKILL in the middle of a push: in the middle of a large object's bytes, stopped there by a trigger
# on the remote (chunk 4 of its 8 waits for an advisory lock this test holds from another session), so
# that the kill lands there on any machine: a 200 MB object sent as fast as it goes was a race that
# cost 20 s of this test's 25
K="$T/k"
remote_init "$K" "$PG_URI"
LABRUN_STORE=$K "$LABRUN" record -q --issue 416 -- true >/dev/null 2>&1
head -c 8388608 /dev/urandom >"$T/work/big.bin" # 8 chunks of 1 MiB (src/store/remote.c)
LABRUN_STORE=$K "$LABRUN" record -q --issue 416 --artifact big.bin -- true >/dev/null 2>"$T/big.err" || { cat "$T/big.err" >&2; fail "record the big run"; }
LABRUN_STORE=$K "$LABRUN" record -q --issue 416 -- true >/dev/null 2>&1
big=$(sha256sum <"$T/work/big.bin" | cut -c1-64)
pg_sql "CREATE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS \$\$
	BEGIN IF NEW.seq = 4 THEN PERFORM pg_advisory_xact_lock_shared(4160); END IF; RETURN NEW; END \$\$;
	CREATE TRIGGER test_gate BEFORE INSERT ON object_chunk FOR EACH ROW EXECUTE FUNCTION test_gate()" ||
	fail "create the gate trigger"
PGAPPNAME=test-gate psql -X -q -v ON_ERROR_STOP=1 "host=$PGD user=labrun dbname=evidence" \
	-c "SELECT pg_advisory_lock(4160)" -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
gate=$!
n=0
until [ "$(pg_sql "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4160 AND granted")" = 1 ]; do
	n=$((n + 1)); [ $n -lt 600 ] || fail "the gate session never took its lock"; sleep 0.05
done
LABRUN_STORE=$K "$LABRUN" push >"$T/kill.out" 2>&1 &
pid=$!
n=0 # wait until the push waits at the gate: four chunks of the big object sent, in its open transaction
until [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'labrun' AND wait_event_type = 'Lock' AND wait_event = 'advisory'")" = 1 ]; do
	n=$((n + 1))
	[ $n -lt 1200 ] || fail "the push never reached the big object's fifth chunk"
	kill -0 $pid 2>/dev/null || fail "the push ended before it could be killed: $(cat "$T/kill.out")"
	sleep 0.05
done
kill -KILL $pid
wait $pid 2>/dev/null || true
ok "push killed while sending the 8 MiB object"
# the gate opens: the dead client's server session inserts chunk 4, finds its client gone and rolls back
pg_sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'test-gate'" >/dev/null
wait $gate 2>/dev/null || true
n=0 # the server drops the dead client's transaction
until [ "$(pg_sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'labrun'")" = 0 ]; do
	n=$((n + 1)); [ $n -lt 200 ] || fail "the killed push's session stays"; sleep 0.05
done
pg_sql "DROP TRIGGER test_gate ON object_chunk; DROP FUNCTION test_gate()" || fail "drop the gate trigger"
equals "$(pg_sql "SELECT count(*) FROM object WHERE sha256 = '$big'") $(pg_sql "SELECT count(*) FROM object_chunk WHERE sha256 = '$big'")" \
	"0 0" "no part of the interrupted object is visible"
equals "$(pg_sql "SELECT count(*) FROM run r JOIN run_issue i ON i.uuid = r.uuid WHERE i.issue_ref = '416'")" "1" "the run before it is complete, the rest absent"
equals "$(pg_sql "SELECT count(*) FROM run_object ro LEFT JOIN object o ON o.sha256 = ro.sha256 WHERE o.sha256 IS NULL")" "0" "no run names a missing object"
expect_exit 0 "push again" env LABRUN_STORE=$K "$LABRUN" push --issue 416
contains "$T/out" "2 runs pushed, 1 already there" "resumes where it stopped"
# the same store pushed once, uninterrupted, to a clean database: the same content
LABRUN_STORE=$K "$LABRUN" remote add clean "host=$PGD user=labrun dbname=clean" &&
	LABRUN_STORE=$K "$LABRUN" remote init clean >/dev/null &&
	LABRUN_STORE=$K "$LABRUN" push clean --issue 416 >/dev/null || fail "push to the clean database"
content() {
	PGDB=$1 pg_sql "SELECT r.uuid, r.bundle_sha256 FROM run r JOIN run_issue i ON i.uuid = r.uuid AND i.issue_ref = '416' ORDER BY 1"
	PGDB=$1 pg_sql "SELECT o.sha256, o.size, md5(string_agg(md5(c.data), '' ORDER BY c.seq)) FROM object o
		JOIN run_object ro ON ro.sha256 = o.sha256 JOIN run_issue i ON i.uuid = ro.uuid AND i.issue_ref = '416'
		JOIN object_chunk c ON c.sha256 = o.sha256 GROUP BY o.sha256, o.size ORDER BY 1"
}
content evidence >resumed.txt
content clean >clean.txt
[ "$(wc -l <clean.txt)" -ge 4 ] || fail "the clean push holds too little: $(cat clean.txt)"
cmp resumed.txt clean.txt || { diff resumed.txt clean.txt >&2; fail "the resumed remote differs from an uninterrupted push"; }
ok "the resumed remote holds what an uninterrupted push gives"

# --- the benchmark of push and pull runs both as a user does, and counts what moved
with_object="SELECT count(*) FROM run r WHERE EXISTS (SELECT 1 FROM run_object o WHERE o.uuid = r.uuid)"
before=$(pg_sql "SELECT count(*) FROM run") before_obj=$(pg_sql "$with_object")
expect_exit 0 "bench remote" env LABRUN_STORE=$T/all "$LABRUN" bench remote --runs 6 --reps 48 --object-mib 3
contains "$T/out" "6 runs, 48 repetitions, 3 MiB of objects" "says what it moved"
grep -Eq '^ *command +wall s +objects MiB/s +peak RSS MiB$' "$T/out" || fail "no head line: $(cat "$T/out")"
grep -Eq '^ *push +[0-9.]+ +[0-9]+ +[0-9.]+$' "$T/out" || fail "no push line: $(cat "$T/out")"
grep -Eq '^ *pull +[0-9.]+ +[0-9]+ +[0-9.]+$' "$T/out" || fail "no pull line: $(cat "$T/out")"
ok "push and pull: wall, throughput, peak RSS"
equals "$(pg_sql "SELECT count(*) FROM run") $(pg_sql "$with_object")" \
	"$((before + 6)) $((before_obj + 6))" "six runs with an object each reached the remote"
equals "$(LABRUN_STORE=$T/all "$LABRUN" sql --csv "SELECT value FROM bench_sample m JOIN run r ON r.id = m.run_id WHERE r.kind = 'bench' AND m.variant = 'objects'" | sed -n 2p | tr -d '\r')" \
	"3145728" "recorded as a bench run"
bid=$(LABRUN_STORE=$T/all "$LABRUN" sql --csv "SELECT id FROM run WHERE kind = 'bench'" | sed -n 2p | tr -d '\r')
expect_exit 0 "report --run of the benchmark" env LABRUN_STORE=$T/all "$LABRUN" report --run "$bid"
contains "$T/out" "# labrun report: run $bid (bench remote)" "names it"
push_s=$(LABRUN_STORE=$T/all "$LABRUN" sql --csv "SELECT printf('%.2f', value) FROM bench_sample WHERE run_id = $bid AND variant = 'push' AND unit = 's'" | sed -n 2p | tr -d '\r')
contains "$T/out" "| push | $push_s |" "the push time as stored"
expect_exit 0 "report --run --format json" env LABRUN_STORE=$T/all "$LABRUN" report --run "$bid" --format json
equals "$(jq -r '.commands[1].command + " " + (.object_bytes | tostring)' "$T/out")" "pull 3145728" "the JSON carries both commands"
echo "1..$tests"
