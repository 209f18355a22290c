#!/bin/sh
# make check's CPU budget (Makefile.am: CHECK_CPU_BUDGET, seconds): the CPU time, user + sys, that
# the tests spent, every process each of them ran included, from the first test's start to the
# last one's end. Make runs this after every other test (its log depends on theirs); before the
# first of them, the make that runs the tests wrote tests/cpu-budget.start: its pid, the CPU
# ticks it and its finished children had used, the time. What it has collected since from its
# children (Linux: utime, stime, cutime and cstime in /proc/PID/stat) is what the tests spent. A
# process that outlives its test (a daemon, such as a PostgreSQL server) is not counted.
# CPU time, not wall time: another job on the machine stretches the wall clock, not the work.
#
# And what leaves make check for the budget's sake still runs: every test script of tests/cli
# and tests/slow is in CLI_LONG, CLI_REST (CLI_TESTS) or SLOW_TESTS, which .ci/run runs.
. "$(dirname "$0")/cli/lib.sh"

: "${CHECK_CPU_BUDGET:?run through make check, which sets CHECK_CPU_BUDGET}"

# every test script runs under make check or make check-slow
listed=$(sed -n '/^\(CLI_LONG\|CLI_REST\|SLOW_TESTS\) *=/,/[^\\]$/p' "$TOP_SRCDIR/Makefile.am" | tr -d '\\' |
	sed 's/^[A-Z_]* *=//' | tr ' \t' '\n\n' | grep .)
[ -n "$listed" ] || fail "no CLI_LONG, CLI_REST or SLOW_TESTS in Makefile.am"
for t in $(cd "$TOP_SRCDIR" && ls tests/cli/t[0-9]*.sh tests/slow/t[0-9]*.sh); do
	printf '%s\n' "$listed" | grep -qx "$t" || fail "$t is in none of CLI_LONG, CLI_REST and SLOW_TESTS (Makefile.am): nothing runs it"
done
ok "every test script is run by make check or make check-slow"

if [ -z "$CHECK_CPU_BUDGET" ] || [ "$CHECK_CPU_BUDGET" = 0 ]; then
	echo "SKIP: no budget (CHECK_CPU_BUDGET is empty or 0)"
	exit 77
fi
# the sanitizers' build runs the same tests two or three times slower: the budget is the plain build's
if grep -q __asan_init "$LABRUN"; then
	echo "SKIP: labrun is built with AddressSanitizer; the budget is for the plain build"
	exit 77
fi
start=$TOP_BUILDDIR/tests/cpu-budget.start
[ -s "$start" ] || fail "$start is missing: run this through make check, which writes it before the first test"
read -r pid ticks0 t0 <"$start"
if [ "$pid" = none ] || [ ! -r "/proc/$pid/stat" ]; then
	echo "SKIP: no /proc/PID/stat here to read the make's CPU time from"
	exit 77
fi
[ "$pid" = "${CHECK_MAKE_PID:-}" ] ||
	fail "$start is of make $pid, not of the make running these tests (${CHECK_MAKE_PID:-unknown}): the tests ran without it"
# the fields after the command's name, which may hold blanks: 12-15 are utime, stime, cutime, cstime
# shellcheck disable=SC2046 # the fields, one word each
set -- $(sed 's/.*) //' "/proc/$pid/stat")
ticks=$((${12} + ${13} + ${14} + ${15}))
hz=$(getconf CLK_TCK)
used=$(awk -v t=$((ticks - ticks0)) -v hz="$hz" 'BEGIN { printf "%.1f", t / hz }')
wall=$(($(date +%s) - t0))
echo "# the tests spent $used s of CPU (user + sys, children included) in $wall s of wall time; the budget is $CHECK_CPU_BUDGET s"
awk -v u="$used" -v b="$CHECK_CPU_BUDGET" 'BEGIN { exit !(u <= b) }' ||
	fail "make check spent $used s of CPU, over its budget of $CHECK_CPU_BUDGET s (Makefile.am: CHECK_CPU_BUDGET): make the costliest tests cheaper, or move what cannot be to SLOW_TESTS (make check-slow)"
ok "$used s of CPU, within the budget of $CHECK_CPU_BUDGET s"
