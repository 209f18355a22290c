#!/bin/sh
# Done-when 7 (first part): labrun sql cannot change the store.
. "$(dirname "$0")/lib.sh"

"$LABRUN" record -q -- true 2>/dev/null
"$LABRUN" record -q -- false 2>/dev/null || true
dump() { sqlite3 "$T/store/labrun.db" .dump | md5sum; }
before=$(dump)

expect_exit 1 "DELETE is refused" "$LABRUN" sql "DELETE FROM run"
contains "$T/err" "read-only" "the refusal says why"
contains "$T/err" "hint:" "and what to do"
expect_exit 1 "a write hidden after a SELECT is refused as a write (it once exited 2)" "$LABRUN" sql "SELECT 1; DELETE FROM run"
contains "$T/err" "refusing to run 'DELETE FROM run': labrun sql is read-only" "naming the writing statement"
expect_exit 1 "a write after two reads too" "$LABRUN" sql "SELECT 1; SELECT 2; DROP TABLE run"
expect_exit 2 "two reads are bad SQL" "$LABRUN" sql "SELECT 1; SELECT 2"
expect_exit 1 "ATTACH is refused" "$LABRUN" sql "ATTACH '$T/other.db' AS o"
[ ! -e "$T/other.db" ] || fail "ATTACH created a file"
expect_exit 1 "a writing PRAGMA is refused" "$LABRUN" sql "PRAGMA user_version = 42"
expect_exit 1 "UPDATE through a CTE is refused" "$LABRUN" sql "WITH x AS (SELECT 1) UPDATE run SET status = 'passed'"
expect_exit 2 "bad SQL is a usage error" "$LABRUN" sql "SELEC nothing"
equals "$(dump)" "$before" "the database is unchanged"
equals "$(q "SELECT count(*) FROM run")" "2" "both runs still there"

expect_exit 0 "CSV output" "$LABRUN" sql --csv "SELECT id, status FROM run ORDER BY id"
equals "$(tr -d '\r' <"$T/out")" "id,status
1,passed
2,failed" "CSV rows"
expect_exit 0 "JSON output keeps types" "$LABRUN" sql --json "SELECT id, exit_code, signal, status FROM run WHERE id = 2"
contains "$T/out" '{"id":2,"exit_code":1,"signal":null,"status":"failed"}' "JSON row"
expect_exit 0 "table output" "$LABRUN" sql "SELECT id, status FROM run ORDER BY id"
contains "$T/out" "--  ------" "table has a rule under the header"

# functions that read labrun's memory or reach outside the store are refused
for f in "fts3_tokenizer('simple')" "FTS3_Tokenizer('porter')" "load_extension('x')"; do
	expect_exit 2 "SELECT $f is refused" "$LABRUN" sql "SELECT $f"
	contains "$T/err" "not authorized to use function" "SELECT $f: says why"
done
lacks "$T/out" "0x" "no address printed"
