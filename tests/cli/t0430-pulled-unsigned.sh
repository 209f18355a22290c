#!/bin/sh
# A pulled run keeps a signature's absence visible (issue 43): a store that signs pushes two runs,
# and the second's bundle has its ledger signatures stripped on the remote (bundle_sha256 made to
# match, as anyone who can write the remote could). A third store pulls: the run is taken, but
# pull names it, and audit counts it as a problem naming the host and its signed run. A run of that
# host from before it signed (another store, no key) is named by neither.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
A="$T/a" B="$T/b" C="$T/c"
la() { LABRUN_STORE=$A "$LABRUN" "$@"; }
lb() { XDG_CONFIG_HOME="$T/nokey" LABRUN_STORE=$B "$LABRUN" "$@"; }
lc() { LABRUN_STORE=$C "$LABRUN" "$@"; }
for s in a b c; do
	LABRUN_STORE=$T/$s "$LABRUN" init >/dev/null && LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$PG_URI" ||
		fail "store $s"
done
la remote init lab >/dev/null || fail "remote init"
# B, whose user has no key, records on this host before A's user signs anything
lb record -q -- echo before-signing >/dev/null 2>&1 || fail "record in B"
"$LABRUN" key init >/dev/null 2>&1 || fail "key init"
la record -q -- echo signed-1 >/dev/null 2>&1 || fail "first record in A"
la record -q -- echo signed-2 >/dev/null 2>&1 || fail "second record in A"
lb push >/dev/null || fail "push B"
la push >/dev/null || fail "push A"
b0=$(lb sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')
a1=$(la sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')
a2=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')
equals "$(pg_sql "SELECT count(*) FROM run WHERE bundle LIKE '%\"signature\":%'")" "2" "A's two runs went signed"

# the remote's copy of A's second run loses its signatures
pg_sql "SELECT bundle FROM run WHERE uuid = '$a2'" | python3 -c '
import hashlib, json, sys
b = json.loads(sys.stdin.read())
for e in b["ledger"]:
    e.pop("signature", None)
    e.pop("public_key", None)
t = json.dumps(b, separators=(",", ":"), sort_keys=True)
print(hashlib.sha256(t.encode()).hexdigest() + "\t" + t)' >strip.tsv
pg_sql "UPDATE run SET bundle_sha256 = '$(cut -f1 strip.tsv)', bundle = \$b\$$(cut -f2- strip.tsv)\$b\$ WHERE uuid = '$a2'" ||
	fail "strip the signatures on the remote"
equals "$(pg_sql "SELECT count(*) FROM run WHERE bundle LIKE '%\"signature\":%'")" "1" "one signed run left on the remote"

expect_exit 0 "C pulls the three runs (the stripped one is taken)" lc pull
contains "$T/out" "remote 'lab': 3 runs pulled, 0 already here, 0 refused" "all three"
contains "$T/err" "labrun: unsigned $a2: it came without signatures, but host '$(hostname)' signs its runs (run $a1, started before it, came signed)" \
	"pull names the stripped run, its host and the signed run"
lacks "$T/err" "$b0" "not the run from before the host signed"
lacks "$T/err" "unsigned $a1" "nor the signed one"

id2=$(lc sql --csv "SELECT id FROM run WHERE uuid = '$a2'" | sed -n '2{s/\r//g;p;}')
expect_exit 1 "audit of the pulling store fails" lc audit
contains "$T/out" "PROBLEM run $id2: it was pulled without signatures, but host '$(hostname)' signs its runs (run $a1, started before it, came signed)" \
	"audit names the stripped run"
contains "$T/out" "1 problem(s)" "and only it"
expect_exit 0 "audit of the run from before signing" lc audit --run "$(lc sql --csv "SELECT id FROM run WHERE uuid = '$b0'" | sed -n '2{s/\r//g;p;}')"
expect_exit 1 "audit --run of the stripped run" lc audit --run "$id2"
contains "$T/out" "PROBLEM run $id2: it was pulled without signatures" "names it"
expect_exit 0 "pull again: nothing new, nothing named" lc pull
lacks "$T/err" "unsigned" "a run already here is audit's to name"

echo "1..$tests"
