#!/bin/sh
# SIGTERM/SIGINT are forwarded and the run is cancelled; --timeout stops the
# command, escalating to SIGKILL when it ignores SIGTERM.
. "$(dirname "$0")/lib.sh"

"$LABRUN" init >/dev/null
# until the run is stored as running and the command it runs has started (a child of labrun PID),
# and, when given, has made the file READY
wait_running() { # PID [READY]
	i=0
	until [ "$(sqlite3 "$T/store/labrun.db" "SELECT count(*) FROM run WHERE status = 'running'")" = 1 ] &&
		pgrep -P "$1" >/dev/null && { [ -z "${2-}" ] || [ -e "$2" ]; }; do
		i=$((i + 1))
		[ $i -lt 400 ] || fail "the run or its command never started"
		sleep 0.05
	done
}

# (the command says when it has written its line: labrun holds a log's last bytes back until more
# come or the command ends, to scrub a secret split across two reads)
"$LABRUN" record -q -- sh -c 'echo started; : >"$1"; sleep 30' sh "$T/ready" >/dev/null 2>&1 &
rec=$!
wait_running $rec "$T/ready"
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
wait_running $rec
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
