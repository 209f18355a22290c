#!/bin/sh
# The exit-code contract of docs/labrun.md, one case (at least) per documented code.
. "$(dirname "$0")/lib.sh"

"$LABRUN" record -q -- true >/dev/null 2>&1
expect_exit 0 "0: success" "$LABRUN" list
expect_exit 1 "1: a run that does not exist" "$LABRUN" show 999
expect_exit 1 "1: a store that does not exist (LeakSanitizer once caught a leak here)" "$LABRUN" --store "$T/none" list
expect_exit 1 "1: a refused request (a writing SQL statement)" "$LABRUN" sql "DELETE FROM run"
expect_exit 1 "1: fsck found a problem" sh -c 'rm "$1"/objects/*/* 2>/dev/null; "$2" fsck' sh "$T/store" "$LABRUN"
expect_exit 2 "2: an unknown command" "$LABRUN" frobnicate
expect_exit 2 "2: an unknown option" "$LABRUN" list --bogus
expect_exit 2 "2: a malformed value" "$LABRUN" list --limit -3
expect_exit 2 "2: bad SQL" "$LABRUN" sql "SELEKT 1"
expect_exit 2 "2: a function sql does not offer is bad SQL" "$LABRUN" sql "SELECT readfile('/etc/passwd')"
expect_exit 2 "2: more than one statement" "$LABRUN" sql "SELECT 1; SELECT 2"
# The sql section says what the table above it says (it once promised exit 2 for a write).
sed -n '/^## `labrun sql/,/^## `labrun [a-rt-z]/p' "$TOP_SRCDIR/docs/labrun.md" | tr '\n' ' ' >"$T/sqldoc"
contains "$T/sqldoc" "could write, and \`ATTACH\`, is a refused request (exit 1)" "docs/labrun.md's sql section: a write exits 1"
contains "$T/sqldoc" "are bad SQL (exit 2)" "docs/labrun.md's sql section: bad SQL exits 2"
mkdir foreign && sqlite3 foreign/labrun.db "CREATE TABLE t(x)"
expect_exit 3 "3: not a labrun database" "$LABRUN" --store foreign list
cp -R "$T/store" newer && sqlite3 newer/labrun.db "PRAGMA user_version = 999"
expect_exit 3 "3: a schema newer than this labrun" "$LABRUN" --store newer list
: >notadir
expect_exit 3 "3: a store that cannot be created" "$LABRUN" --store notadir/store init

# record: the command's own status, or labrun's codes around it
expect_exit 7 "record: the command's status" "$LABRUN" record -q -- sh -c 'exit 7'
expect_exit 124 "record: 124 when --timeout expires" "$LABRUN" record -q --timeout 0.2 -- sleep 5
expect_exit 125 "record: 125 for its own usage error" "$LABRUN" record --bogus -- true
expect_exit 125 "record: 125 for an unusable store" "$LABRUN" --store foreign record -- true
expect_exit 125 "record: 125 when a declared artifact is missing" "$LABRUN" record -q --artifact nothing-here -- true
printf 'not executable\n' >noexec
expect_exit 126 "record: 126 when the command cannot be executed" "$LABRUN" record -q -- ./noexec
expect_exit 127 "record: 127 when the command is not found" "$LABRUN" record -q -- no-such-command-here
expect_exit 143 "record: 128+N when the command is killed by signal N" "$LABRUN" record -q -- sh -c 'kill -TERM $$'
equals "$(q "SELECT group_concat(status, ' ') FROM (SELECT status FROM run WHERE id > 1 ORDER BY id)")" \
	"failed failed failed failed failed failed" "every recorded failure is kept as a failed run"
