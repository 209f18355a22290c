#!/bin/sh
# What an execution left behind (issue 42, part 4): each execution of a command experiment, and each
# 'labrun record', records the processes it left running, which labrun then kills, and the report
# gives the cleanup count. Before, labrun killed them and said nothing ("cleanup 0" was hand-written),
# and an execution whose background process kept its stdout open ran until that process ended.
# An experiment's execution: labrun is the subreaper of everything it starts, so a plain '&' and a
# daemon's setsid (out of the group and the session) are both found. 'labrun record': its process
# group is searched, which a plain '&' stays in and setsid leaves (such a daemon is not found there).
. "$(dirname "$0")/lib.sh"

L=$LABRUN
# pid is running: it exists and is no zombie (one killed outside labrun's children waits for init to reap it)
running() {
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) in '' | Z | X) return 1 ;; esac
}
# pid: the one leftover of run $1, which must have been killed
killed_leftover() {
	pid=$(q "SELECT pid FROM leftover WHERE run_id = $1")
	if running "$pid"; then kill "$pid"; fail "leftover $pid is still alive"; fi
	ok "and it was killed"
}
# an experiment NAME.ini whose arm a runs COMMAND, its arm b 'true'
define() {
	printf '[experiment]\nname = %s\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = %s\n[arm b]\ncommand = true\n' \
		"$1" "$2" >"$1.ini"
}
# the execution numbered 0 (arm a's parity execution) leaves one process behind, the others nothing
define bg 'sh -c "if [ {rep} = 0 ]; then sleep 1000 & fi; exit 0"'
expect_exit 0 "an execution that leaves 'sleep 1000 &' behind, its stdout still open" "$L" run -q bg.ini
equals "$(q "SELECT count(*) || ' ' || min(condition_idx) || ' ' || min(seq) FROM leftover WHERE run_id = 1")" \
	"1 0 0" "one leftover, of execution 0"
killed_leftover 1
expect_exit 0 "its report" "$L" report --run 1
contains "$T/out" "* Cleanup: 1 left running: pid $pid '" "the report gives the cleanup count, with the process"
contains "$T/out" "' (execution 0 of condition 0)" "and the execution that left it"
expect_exit 0 "its report as JSON" "$L" report --run 1 --format json
equals "$(jq -r '.runs[0].cleanup | "\(.count) \(.left[0].pid) \(.left[0].execution)"' "$T/out")" "1 $pid 0" "in the data too"

# a daemon: a double fork into a session of its own, out of the execution's group
define daemon 'sh -c "if [ {rep} = 0 ]; then (setsid sleep 1000 </dev/null >/dev/null 2>&1 &); fi; exit 0"'
expect_exit 0 "an execution that leaves a daemon behind (setsid, double fork)" "$L" run -q daemon.ini
equals "$(q "SELECT count(*) FROM leftover WHERE run_id = 2")" "1" "one leftover"
killed_leftover 2
expect_exit 0 "its report" "$L" report --run 2
contains "$T/out" "* Cleanup: 1 left running: pid $pid '" "cleanup 1"

# a clean one
define clean 'sh -c "exit 0"'
expect_exit 0 "an experiment that leaves nothing" "$L" run -q clean.ini
expect_exit 0 "its report" "$L" report --run 3
contains "$T/out" "* Cleanup: 0 left running" "cleanup 0"

# labrun record: what stays in the command's process group is found and killed
expect_exit 0 "a recorded command that leaves a process in its group" \
	"$L" record -q -- sh -c 'sleep 1000 >/dev/null 2>&1 & exit 0'
equals "$(q "SELECT count(*) || ' ' || condition_idx || ' ' || seq FROM leftover WHERE run_id = 4")" "1 -1 -1" \
	"one leftover of the run's own command"
killed_leftover 4
expect_exit 0 "its report" "$L" report --run 4
contains "$T/out" ", passed, exit 0, cleanup 1 left running: pid $pid '" "the recorded run's cleanup count"
# ... and what leaves the group with setsid escapes the search: not found, not killed (this test kills it)
# (the command ends once the daemon, in its own session by then, has written its pid)
expect_exit 0 "a recorded command whose daemon leaves its group" "$L" record -q -- sh -c \
	'setsid sh -c "echo \$\$ >daemon.pid; exec sleep 1000" </dev/null >/dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.01; done'
escaped=$(cat daemon.pid)
if kill "$escaped" 2>/dev/null; then ok "the escaped daemon was still alive (this test has now killed it)"; else fail "no escaped daemon"; fi
equals "$(q "SELECT count(*) FROM leftover WHERE run_id = 5")" "0" "record's group search does not see a setsid daemon"

# the leftovers are sealed with their run and travel in its bundle: a crate of run 1 verifies, report included
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
expect_exit 0 "a crate of run 1 (signed with the key made after it)" "$L" manifest --run 1 -o "$T/crate" --license CC-BY-4.0
equals "$(jq -r '.tables.leftover.rows | length' "$T/crate/run-1/bundle.json")" "1" "its bundle holds the leftover"
expect_exit 0 "the crate verifies" env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$T/crate"
contains "$T/out" "0 problem(s)" "report and rows included"
