#!/bin/sh
# Done-when 4: kill -9 of the recorder leaves an intact store; the run is
# marked abandoned by the next command and its partial stdout is readable.
. "$(dirname "$0")/lib.sh"

"$LABRUN" init >/dev/null
"$LABRUN" record -q -- sh -c 'echo partial line; echo more; exec sleep 60' >/dev/null 2>&1 &
rec=$!
spool=""
i=0
while [ $i -lt 100 ]; do
	spool=$(ls "$T"/store/spool/*.stdout 2>/dev/null || true)
	[ -n "$spool" ] && grep -q more "$spool" && break
	sleep 0.1
	i=$((i + 1))
done
[ -n "$spool" ] || fail "the recorder never spooled output"
ok "output reached the spool while running"
equals "$(sqlite3 "$T/store/labrun.db" "SELECT status FROM run")" "running" "row committed as running first"
expect_exit 0 "cat of a running run reads the log so far" "$LABRUN" cat 1 stdout
contains "$T/out" "partial line" "live log readable"

child=$(pgrep -P "$rec" || true)
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
# dash's kill takes no "--": -KILL -PGID ends the command's whole group
[ -n "$child" ] && kill -KILL "-$child"
ok "recorder killed with SIGKILL"

equals "$(sqlite3 "$T/store/labrun.db" 'PRAGMA integrity_check')" "ok" "integrity_check after kill -9"
expect_exit 0 "the next command opens the store" "$LABRUN" list
contains "$T/out" "abandoned" "run shows as abandoned"
expect_exit 0 "partial stdout is kept" "$LABRUN" cat 1 stdout
equals "$(cat "$T/out")" "partial line
more" "partial stdout content"
expect_exit 0 "show explains" "$LABRUN" show 1
contains "$T/out" "recorder stopped" "failure text names the cause"
[ -z "$(ls "$T/store/spool")" ] || fail "spool not emptied"
ok "spool emptied after adoption"
expect_exit 0 "fsck is clean" "$LABRUN" fsck
