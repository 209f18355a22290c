#!/bin/sh
# make check-slow: SIGKILL at seeded random points of record, run, import and
# archive, and after every kill: integrity_check, fsck and audit pass, every
# run committed before is intact, an interrupted run is abandoned with its
# partial logs readable, and nothing is left unexplained.
# LABRUN_TRIALS (default 56) and LABRUN_TRIAL_SEED (default 1) reproduce a series.
. "$(dirname "$0")/../cli/lib.sh"

TRIALS=${LABRUN_TRIALS:-56}
SEED=${LABRUN_TRIAL_SEED:-1}
X="$TOP_SRCDIR/tests/fixtures/experiments"
"$LABRUN" init >/dev/null
"$LABRUN" key init >/dev/null 2>&1
"$LABRUN" record -q --issue 270 -- echo first >/dev/null 2>&1
printf 'weights\n' >model.bin

# the n-th number of a seeded series, in [0, mod)
rnd() { awk -v s="$SEED" -v n="$1" -v m="$2" 'BEGIN { srand(s * 7919 + n); print int(rand() * m) }'; }

# one operation per kind, in its own process group so the kill takes its children too
cat >"$T/op.sh" <<OP
case \$1 in
0) exec "$LABRUN" record -q --issue 270 --artifact model.bin -- \\
	sh -c 'i=0; while [ \$i -lt 50 ]; do echo "line \$i"; i=\$((i+1)); sleep 0.01; done' ;;
1) exec "$LABRUN" run -q "$X/tiny-encode-auto.ini" ;;
2) exec "$LABRUN" import --model qwen3-0.6b --tokens 2048 --mode whole --seed 5 ;;
3) exec "$LABRUN" archive --issue 270 -o "$T/work/a.tar.zst" ;;
esac
OP

# every final run with its status and seal, in id order
final_runs() {
	q "SELECT group_concat(r, ' ') FROM (SELECT id || ':' || status || ':' ||
		coalesce((SELECT digest FROM run_seal WHERE run_id = run.id), '') AS r
		FROM run WHERE status != 'running' ORDER BY id)"
}

n=0 killed=0 strays=0
while [ $n -lt "$TRIALS" ]; do
	kind=$((n % 4))
	# a point inside the operation's usual duration here (ms): record, run, import, archive
	case $kind in 0) span=500 ;; 1) span=1200 ;; 2) span=1000 ;; 3) span=30 ;; esac
	delay=$(rnd "$n" "$span")
	before=$(final_runs)
	setsid sh "$T/op.sh" "$kind" >"$T/op.out" 2>&1 &
	pid=$!
	sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
	if kill -KILL "-$pid" 2>/dev/null; then killed=$((killed + 1)); fi
	wait "$pid" 2>/dev/null || true
	rm -f "$T/work/a.tar.zst"

	equals "$(sqlite3 "$T/store/labrun.db" 'PRAGMA integrity_check')" "ok" "trial $n (op $kind, ${delay} ms): integrity_check"
	"$LABRUN" list >/dev/null 2>"$T/err" || { cat "$T/err" >&2; fail "trial $n: list after the kill"; }
	expect_exit 0 "trial $n: fsck is clean" "$LABRUN" fsck
	expect_exit 0 "trial $n: audit passes" "$LABRUN" audit
	equals "$(q "SELECT count(*) FROM run WHERE status = 'running'")" "0" "trial $n: no run left running"
	# every run final before the trial is unchanged: same status, same seal
	after=$(final_runs)
	case "$after" in "$before"*) ;; *) fail "trial $n: committed runs changed: '$before' -> '$after'" ;; esac
	for id in $(q "SELECT group_concat(id, ' ') FROM run WHERE status = 'abandoned' AND kind = 'record'"); do
		"$LABRUN" cat "$id" stdout >/dev/null 2>"$T/err" || { cat "$T/err" >&2; fail "trial $n: abandoned run $id's log unreadable"; }
	done
	# A kill between taking the spool lock and writing the 'running' row leaves a lock of no run;
	# fsck removes such strays once a minute old (a new recorder's lock is briefly unheld). Aged
	# by hand, each must go; anything else left in the spool is unexplained.
	for f in $(ls "$T/store/spool"); do
		case $f in *.lock) ;; *) fail "trial $n: spool file $f left behind" ;; esac
		equals "$(q "SELECT count(*) FROM run WHERE uuid = '${f%.lock}'")" "0" "trial $n: the leftover lock $f belongs to no run"
		touch -d '2 minutes ago' "$T/store/spool/$f"
		strays=$((strays + 1))
	done
	if [ -n "$(ls "$T/store/spool")" ]; then
		expect_exit 0 "trial $n: fsck sweeps the stray lock" "$LABRUN" fsck
		[ -z "$(ls "$T/store/spool")" ] || fail "trial $n: spool not emptied by fsck: $(ls "$T/store/spool")"
	fi
	n=$((n + 1))
done
echo "# $TRIALS trials (seed $SEED), $killed killed while running, $strays stray lock(s) swept;" \
	"runs: $(q "SELECT group_concat(status || '=' || n, ' ') FROM (SELECT status, count(*) AS n FROM run GROUP BY status)")"
[ "$killed" -ge $((TRIALS / 2)) ] || fail "only $killed of $TRIALS trials killed a running command: delays too long"
ok "$killed of $TRIALS trials were killed mid-operation"
