#!/bin/sh
# On a terminal the command gets the foreground: it can read the terminal,
# and Ctrl-C reaches it and cancels the run. script(1) provides the pty.
. "$(dirname "$0")/lib.sh"

command -v script >/dev/null || fail "script(1) from util-linux is needed"
"$LABRUN" init >/dev/null

# A command in a background process group would stop on SIGTTIN here and hang.
printf 'hello\n' | timeout 20 script -qec "'$LABRUN' record -- sh -c 'read x; echo got \$x'" /dev/null \
	>"$T/out" 2>&1 || { cat "$T/out" >&2; fail "reading the terminal hung or failed"; }
contains "$T/out" "got hello" "the command read the terminal"
equals "$(q "SELECT status FROM run WHERE id = 1")" "passed" "and passed"

# Ctrl-C typed on the terminal (byte 3) goes to the command's foreground group. It is typed once the
# command has made the file ready: the command takes the terminal's foreground before it runs
# (base/child.c), so by then it has it; a fixed 0.3 s after the run was stored was a guess that a busy
# machine can beat.
ctrl_c_when_running() {
	i=0
	until [ -e "$T/ready" ]; do
		i=$((i + 1))
		[ $i -lt 600 ] || break
		sleep 0.05
	done
	printf '\003'
}
ctrl_c_when_running |
	timeout 60 script -qec "'$LABRUN' record -- sh -c ': >\"\$1\"; exec sleep 30' sh '$T/ready'" /dev/null >"$T/out" 2>&1 || true
[ -e "$T/ready" ] || { cat "$T/out" >&2; fail "the command never started"; }
equals "$(q "SELECT status || ' ' || signal FROM run WHERE id = 2")" "cancelled 2" "Ctrl-C cancels the run"
