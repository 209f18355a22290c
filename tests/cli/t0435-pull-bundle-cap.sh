#!/bin/sh
# A pulled run's bundle is capped by its size on the remote, checked before it is transferred (issue
# 44: a bundle with 200,000 extra rows cost 340 MB, 7x, and was taken). Store A pushes two runs;
# the remote's copy of the second grows by 200,000 rows; C pulls with a cap between the two sizes:
# the grown run is refused, naming the run, its size and the cap, and nothing of it is stored; the
# other run comes. With the cap raised, the grown run is read and refused by its seal instead.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
A="$T/a" C="$T/c"
la() { LABRUN_STORE=$A "$LABRUN" "$@"; }
lc() { LABRUN_STORE=$C "$LABRUN" "$@"; }
for s in a c; do
	LABRUN_STORE=$T/$s "$LABRUN" init >/dev/null && LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$PG_URI" ||
		fail "store $s"
done
la remote init lab >/dev/null || fail "remote init"
la record -q -- echo first >/dev/null 2>&1 || fail "first record"
la record -q -- echo second >/dev/null 2>&1 || fail "second record"
la push >/dev/null || fail "push"
u1=$(la sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')
u2=$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')
pg_sql "UPDATE run SET bundle = jsonb_set(bundle::jsonb, '{extra_rows}',
	(SELECT jsonb_agg(jsonb_build_array(g, 'x')) FROM generate_series(1, 200000) g))::text WHERE uuid = '$u2'" >/dev/null ||
	fail "grow the bundle on the remote"
size=$(pg_sql "SELECT octet_length(bundle) FROM run WHERE uuid = '$u2'")
[ "$size" -gt 1000000 ] || fail "the grown bundle is only $size bytes"
ok "the remote's copy of run 2 holds 200,000 extra rows ($size bytes)"

LABRUN_MAX_BUNDLE=1000000 expect_exit 1 "pull with a cap of 1,000,000 bytes" lc pull
contains "$T/err" "refusing to pull run $u2 from remote 'lab': its bundle is $size bytes, more than 1000000" \
	"the refusal names the run, its size and the cap"
contains "$T/err" "LABRUN_MAX_BUNDLE" "and how to raise the cap"
equals "$(lc sql --csv "SELECT count(*) FROM run WHERE uuid = '$u2'" | sed -n '2{s/\r//g;p;}')" 0 \
	"nothing of the grown run is stored"
equals "$(lc sql --csv "SELECT count(*) FROM run WHERE uuid = '$u1'" | sed -n '2{s/\r//g;p;}')" 1 \
	"the other run is pulled"

LABRUN_MAX_BUNDLE=100000000 expect_exit 1 "with the cap raised, the grown run is read" lc pull
lacks "$T/err" "more than 100000000" "not refused by its size"
equals "$(lc sql --csv "SELECT count(*) FROM run WHERE uuid = '$u2'" | sed -n '2{s/\r//g;p;}')" 0 \
	"still nothing of it stored (its seal does not cover the extra rows)"
echo "1..$tests"
