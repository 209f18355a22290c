#!/bin/sh
# make check-slow: a soak of 8 writers (4 recording, 4 running experiments) and
# 2 readers (report, sql) on one store for LABRUN_SOAK_SECONDS (default 60):
# no command fails, and every run a writer was told it stored is there.
. "$(dirname "$0")/../cli/lib.sh"

SECONDS_=${LABRUN_SOAK_SECONDS:-60}
X="$TOP_SRCDIR/tests/fixtures/experiments"
"$LABRUN" init >/dev/null
expect_exit 0 "an experiment run to report on" "$LABRUN" run -q "$X/tiny-encode-auto.ini"
end=$(( $(date +%s) + SECONDS_ ))

recorder() {
	while [ "$(date +%s)" -lt "$end" ]; do
		if "$LABRUN" record -q --issue 270 --experiment "w$1" -- echo "writer $1" >/dev/null 2>>"$T/err.w$1"; then
			echo ok >>"$T/ok.w$1"
		else
			echo "record failed" >>"$T/fail.w$1"
		fi
	done
}
runner() {
	while [ "$(date +%s)" -lt "$end" ]; do
		if "$LABRUN" run -q "$X/tiny-encode-auto.ini" >/dev/null 2>>"$T/err.r$1"; then
			echo ok >>"$T/ok.r$1"
		else
			echo "run failed" >>"$T/fail.r$1"
		fi
	done
}
reader() {
	last=0
	while [ "$(date +%s)" -lt "$end" ]; do
		"$LABRUN" report --issue 205 >/dev/null 2>>"$T/err.q$1" || echo "report failed" >>"$T/fail.q$1"
		n=$("$LABRUN" sql --csv "SELECT count(*) FROM run WHERE status != 'running'" 2>>"$T/err.q$1" | sed -n 2p | tr -d '\r') ||
			echo "sql failed" >>"$T/fail.q$1"
		[ "${n:-0}" -ge "$last" ] || echo "final runs went from $last to $n" >>"$T/fail.q$1"
		last=${n:-0}
		echo ok >>"$T/ok.q$1"
	done
}
for w in 1 2 3 4; do recorder $w & done
for w in 1 2 3 4; do runner $w & done
for w in 1 2; do reader $w & done
wait

if ls "$T"/fail.* >/dev/null 2>&1; then
	cat "$T"/fail.* "$T"/err.* >&2
	fail "a writer or reader failed"
fi
ok "no writer or reader failed in ${SECONDS_} s"
for w in 1 2 3 4; do
	equals "$(q "SELECT count(*) FROM run_overview WHERE experiment = 'w$w' AND status = 'passed'")" \
		"$(wc -l <"$T/ok.w$w" | tr -d ' ')" "every run recorder $w stored is there"
done
runs=$(cat "$T"/ok.r* | wc -l | tr -d ' ')
equals "$(q "SELECT count(*) FROM run WHERE kind = 'experiment' AND status = 'passed'")" "$((runs + 1))" \
	"every experiment run is there ($runs in the soak)"
equals "$(q "SELECT count(*) FROM run WHERE status != 'passed'")" "0" "no run failed or was abandoned"
equals "$(sqlite3 "$T/store/labrun.db" 'PRAGMA integrity_check')" "ok" "integrity_check"
expect_exit 0 "fsck is clean" "$LABRUN" fsck
expect_exit 0 "audit passes" "$LABRUN" audit
echo "# $(q "SELECT count(*) FROM run") runs; reads: $(cat "$T"/ok.q* | wc -l | tr -d ' ') report+sql rounds"
