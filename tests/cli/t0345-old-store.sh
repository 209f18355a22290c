#!/bin/sh
# A store written before the latest migrations reads as it did: its runs audit clean (migrations 18
# and 19 added tables, and every run sealed before them once audited as "its rows were changed"),
# its reports and the bench run's samples (named measurements then) read back, and it takes new
# runs. The store is tests/fixtures/store-v17: sqlite3's dump of one written by labrun at schema 17.
. "$(dirname "$0")/lib.sh"

F="$TOP_SRCDIR/tests/fixtures/store-v17"
mkdir -p "$LABRUN_STORE"
cp -R "$F/objects" "$LABRUN_STORE/"
sqlite3 "$LABRUN_STORE/labrun.db" <"$F/labrun.sql" || fail "cannot restore the fixture"
equals "$(sqlite3 "$LABRUN_STORE/labrun.db" "PRAGMA user_version")" 17 "a store at schema 17"

expect_exit 0 "audit of the old store" "$LABRUN" audit
contains "$T/out" "audit: 4 run(s), 3 artifact(s) re-hashed, 0 problem(s)" "every run as it was sealed"
lacks "$T/out" "PROBLEM" "no run is said to be changed"
equals "$(sqlite3 "$LABRUN_STORE/labrun.db" "PRAGMA user_version")" "$(ls "$TOP_SRCDIR"/schema/[0-9][0-9][0-9][0-9]-*.sql | wc -l | tr -d " ")" "the store is at the latest migration now"

expect_exit 0 "report of its experiment run (stored before its design had a row)" "$LABRUN" report --run 3
contains "$T/out" "| Shape layers/input | lookup median ms | scalar median ms |" "its tables"
expect_exit 0 "report of its bench run (samples named measurements then)" "$LABRUN" report --run 4
contains "$T/out" "| encode: lookup |" "a row per variant"
expect_exit 0 "show of the bench run" "$LABRUN" show 4
contains "$T/out" "timed repetitions" "its samples counted"

expect_exit 0 "a new run in the old store" "$LABRUN" record -q -- true
expect_exit 0 "audit again" "$LABRUN" audit
contains "$T/out" "audit: 5 run(s), 5 artifact(s) re-hashed, 0 problem(s)" "old and new runs sound (the new one with its two logs)"
echo "1..$tests"
