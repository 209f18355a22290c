#!/bin/sh
# SIGTERM/SIGINT are forwarded and the run is cancelled; --timeout stops the
# command, escalating to SIGKILL when it ignores SIGTERM.
. "$(dirname "$0")/lib.sh"

"$LABRUN" init >/dev/null
wait_running() {
	i=0
	until [ "$(sqlite3 "$T/store/labrun.db" "SELECT count(*) FROM run WHERE status = 'running'")" = 1 ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || fail "run never started"
		sleep 0.1
	done
	sleep 0.3
}

"$LABRUN" record -q -- sh -c 'echo started; sleep 30' >/dev/null 2>&1 &
rec=$!
wait_running
kill -TERM $rec
set +e
wait $rec
code=$?
set -e
equals "$code" "143" "SIGTERM: labrun exits like its command (128+15)"
equals "$(q "SELECT status || ' ' || signal FROM run WHERE id = 1")" "cancelled 15" "run is cancelled, signal kept"
equals "$("$LABRUN" cat 1 stdout)" "started" "log kept"

"$LABRUN" record -q -- sleep 30 >/dev/null 2>&1 &
rec=$!
wait_running
kill -INT $rec
set +e
wait $rec
code=$?
set -e
equals "$code" "130" "SIGINT: exit 130"
equals "$(q "SELECT status FROM run WHERE id = 2")" "cancelled" "run is cancelled"

expect_exit 124 "--timeout stops the command" "$LABRUN" record --timeout 0.5 -- sleep 30
equals "$(q "SELECT status || ' ' || timed_out || ' ' || signal FROM run WHERE id = 3")" "failed 1 15" \
	"timed out with SIGTERM"
contains "$T/err" "timed out" "the summary says so"

start=$(date +%s)
expect_exit 124 "a command ignoring SIGTERM is killed after --kill-after" \
	"$LABRUN" record --timeout 0.5 --kill-after 1 -- sh -c 'trap "" TERM; sleep 30; sleep 30'
elapsed=$(( $(date +%s) - start ))
[ "$elapsed" -lt 10 ] || fail "took $elapsed s"
equals "$(q "SELECT signal FROM run WHERE id = 4")" "9" "killed with SIGKILL"
