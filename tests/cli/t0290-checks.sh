#!/bin/sh
# $LABRUN_CHECKS: a recorded command's checks are stored with its run, shown by show, scrubbed and
# scanned like its other text, sealed, carried in its bundle, and reported: 'report --issue N' has
# every run of the issue that is no experiment, with its command, how it ended and its checks as
# "name: passed/total", a failing one marked. A scan under record reports what it found against its
# baseline as a check. A bad check line fails the run clearly, naming the line, and stores none of
# its checks. A check row changed afterwards breaks the run's seal; a crate of the issue verifies,
# and one whose report or bundle says another figure is refused, naming it. The secrets are made
# here: the repository itself scans clean.
. "$(dirname "$0")/lib.sh"

L=$LABRUN RESIGN="$TOP_SRCDIR/tests/cli/dsse-resign.py" LABKEY="$HOME/.config/labrun/signing-key.pem"
"$L" key init >/dev/null 2>&1 && "$L" key export >"$T/lab.pub.pem" || fail "key init"
qj() { "$L" sql --json "$1" | jq -r '.[0] | to_entries[0].value'; } # one value, commas and all
# a crate checked by a reviewer with no store; a copy of it to tamper with, re-signed with the lab's key
verify() { (cd "$T" && env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$@"); }
tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }
resigned() { python3 "$RESIGN" "$T/bad" "$LABKEY" || fail "re-sign"; }

# --- a recorded command reports two checks, one passing and one failing
cat >checks.sh <<'EOF'
#!/bin/sh
printf '%s\n' '{"name": "exactness", "passed": 65536, "total": 65536}' >>"$LABRUN_CHECKS"
printf '%s\n' '{"name": "strided arrays", "passed": 11, "total": 12, "detail": "negative stride differs"}' >>"$LABRUN_CHECKS"
EOF
chmod +x checks.sh
expect_exit 0 "a recorded command reports two checks (its own exit says how it ended)" \
	"$L" record -q --issue 41 -- "$T/work/checks.sh"
contains "$T/err" "recorded run 1 (passed" "the run passed: a failing check does not fail it"
contains "$T/err" "2 checks, 1 failing" "and says what its checks were"
equals "$(q "SELECT group_concat(c, ' ') FROM (SELECT name || '=' || passed || '/' || total AS c FROM check_result
	WHERE run_id = 1 ORDER BY seq)")" "exactness=65536/65536 strided arrays=11/12" "both stored, in order"
expect_exit 0 "show" "$L" show 1
contains "$T/out" "  exactness: 65536/65536" "show lists a passing check"
contains "$T/out" "  strided arrays: 11/12 FAILED (negative stride differs)" "and a failing one, marked, with its detail"
expect_exit 0 "show --json" "$L" show --json 1
equals "$(jq -c '.checks[1]' "$T/out")" '{"name":"strided arrays","passed":11,"total":12,"detail":"negative stride differs"}' \
	"show --json carries the checks"

# --- a scan of the same issue against a baseline appends its own check
a36=$(printf 'a%.0s' $(seq 36))
mkdir tree
echo "token = ghp_$a36" >tree/old.txt
echo "plain text" >tree/clean.txt
expect_exit 0 "accept the tree's finding" "$L" scan tree --write-baseline base.txt
expect_exit 0 "a scan under record, every finding in the baseline" \
	"$L" record -q --issue 41 -- "$L" scan tree --baseline base.txt
equals "$(qj "SELECT name || ': ' || passed || '/' || total || ' (' || detail || ')' FROM check_result WHERE run_id = 2")" \
	"sensitive scan (tree): 1/1 (1 finding in 1 file, all in the baseline; 2 files scanned)" \
	"the scan's check: accepted findings of all findings"
echo "token = ghp_$(printf 'b%.0s' $(seq 36))" >tree/new.txt
expect_exit 1 "a scan with a new finding, under record" "$L" record -q --issue 42 -- "$L" scan tree --baseline base.txt
equals "$(qj "SELECT passed || '/' || total || ' (' || detail || ')' FROM check_result WHERE run_id = 3")" \
	"1/2 (2 findings in 2 files: 1 new, 1 in the baseline; 3 files scanned)" "a new finding makes passed < total"
expect_exit 0 "two scans in one run are two checks (the shell exits as the last one)" "$L" record -q --issue 42 -- sh -c \
	"'$L' scan tree --baseline base.txt; '$L' scan tree/old.txt --baseline base.txt"
equals "$(q "SELECT group_concat(name, ' | ') FROM check_result WHERE run_id = 4")" \
	"sensitive scan (tree) | sensitive scan (tree/old.txt)" "each named by what it scanned"

# --- the report of the issue: both runs, how each ended, their checks
expect_exit 0 "report --issue 41" "$L" report --issue 41
contains "$T/out" "## Recorded runs" "a section for the runs that are no experiment"
contains "$T/out" "* run 1 \`checks.sh\`, passed, exit 0" "the command by its name, not the machine's path"
contains "$T/out" "  * exactness: 65536/65536" "a passing check"
contains "$T/out" "  * strided arrays: 11/12 FAILED (negative stride differs)" "a failing one, visibly"
contains "$T/out" "* run 2 \`labrun scan tree --baseline base.txt\`, passed, exit 0" "the scan run"
contains "$T/out" "  * sensitive scan (tree): 1/1 (1 finding in 1 file, all in the baseline; 2 files scanned)" "its check"
lacks "$T/out" "$T/work" "no absolute path of this machine"
expect_exit 0 "report --issue 41 --format json" "$L" report --issue 41 --format json
equals "$(jq -c '[.records[] | [.run, .kind, .status, .exit_code, (.checks | map(.name + ": " + (.passed | tostring) + "/" +
	(.total | tostring) + (if .pass then "" else " FAILED" end)))]]' "$T/out")" \
	'[[1,"record","passed",0,["exactness: 65536/65536","strided arrays: 11/12 FAILED"]],[2,"record","passed",0,["sensitive scan (tree): 1/1"]]]' \
	"json: run, kind, status, exit code and checks"
equals "$(jq -r '.records[0].uuid' "$T/out")" "$(q "SELECT uuid FROM run WHERE id = 1")" "json: the run's uuid"
expect_exit 0 "report --issue 42" "$L" report --issue 42
contains "$T/out" "* run 3 \`labrun scan tree --baseline base.txt\`, failed, exit 1" "a failed run with its exit code"
contains "$T/out" "  * sensitive scan (tree): 1/2 FAILED" "its failing check"

# --- secrets: a check's text is scrubbed like the run's other text, and scan --run sees what is stored
expect_exit 0 "a check whose detail holds a secret value" env MY_API_TOKEN=s3cr3t-value-xyz "$L" record -q --issue 43 -- \
	sh -c 'printf "{\"name\": \"login\", \"passed\": 1, \"total\": 1, \"detail\": \"as %s\"}\n" "$MY_API_TOKEN" >>"$LABRUN_CHECKS"'
equals "$(q "SELECT detail FROM check_result WHERE run_id = 5")" "as <redacted>" "the secret value is scrubbed"
expect_exit 0 "a check whose detail looks like a credential" "$L" record -q --issue 43 -- sh -c \
	"printf '{\"name\": \"pushed\", \"passed\": 1, \"total\": 1, \"detail\": \"with ghp_$a36\"}\n' >>\"\$LABRUN_CHECKS\""
expect_exit 1 "scan --run finds it among the published checks" "$L" scan --run 6
contains "$T/out" "run-6/run.json:" "in the run's run.json"

# --- a long command is cut where a report shows it, never inside the buffer
expect_exit 0 "a command one byte longer than a report shows" "$L" record -q --issue 44 -- sh -c "true $(printf 'x%.0s' $(seq 108))"
expect_exit 0 "report --issue 44" "$L" report --issue 44
equals "$(sed -n 's/^\* run [0-9]* `\(.*\)`, passed, exit 0, cleanup 0 left running$/\1/p' "$T/out" | wc -c | tr -d ' ')" "121" \
	"its 121 bytes cut to 120 with the ellipsis (and a newline)"
contains "$T/out" "xxx...\`, passed" "ending in ..."

# --- a bad line: a clear error naming it; the run failed, none of its checks stored
bad() { # DESCRIPTION EXPECTED LINE...: a command that appends the lines, then exits 0
	bdesc=$1 bwant=$2 # expect_exit sets desc and want
	shift 2
	printf '%s\n' "$@" >lines.txt
	expect_exit 125 "$bdesc" "$L" record -q -- sh -c 'cat lines.txt >>"$LABRUN_CHECKS"'
	contains "$T/err" "$bwant" "named: $bdesc"
	contains "$T/err" "hint: each line of \$LABRUN_CHECKS is one JSON object" "with a hint"
	equals "$(q "SELECT status || ' ' || (SELECT count(*) FROM check_result c WHERE c.run_id = r.id) FROM run r
		ORDER BY id DESC LIMIT 1")" "failed 0" "the run failed and kept none of its checks: $bdesc"
}
ok1='{"name": "a", "passed": 1, "total": 1}'
bad "passed > total" "\$LABRUN_CHECKS line 2: 'passed' (13) is more than 'total' (12)" "$ok1" '{"name": "b", "passed": 13, "total": 12}'
bad "negative" "line 1: 'passed' (-1) is negative" '{"name": "b", "passed": -1, "total": 12}'
bad "not a whole number" "line 1: 'total' must be a whole number, written without a fraction or exponent" \
	'{"name": "b", "passed": 1, "total": 1.5}'
bad "huge" "line 1: 'total' (9007199254740993) is larger than 2^53" '{"name": "b", "passed": 1, "total": 9007199254740993}'
bad "a missing field" "line 1: 'total' is missing" '{"name": "b", "passed": 1}'
bad "a name given twice" "line 3: check 'a' was reported already, on line 1" "$ok1" '{"name": "b", "passed": 1, "total": 1}' "$ok1"
bad "not JSON" "line 1: not JSON" 'exactness: 65536/65536'
bad "an unknown key" "line 1: unknown key 'pased'" '{"name": "b", "pased": 1, "passed": 1, "total": 1}'
expect_exit 125 "a FIFO in place of the file: refused, never waited on" "$L" record -q -- sh -c 'mkfifo "$LABRUN_CHECKS"'
contains "$T/err" "\$LABRUN_CHECKS is not a regular file" "named"
expect_exit 125 "a link in place of the file: not followed" "$L" record -q -- sh -c 'ln -sf /etc/passwd "$LABRUN_CHECKS"'
contains "$T/err" "\$LABRUN_CHECKS cannot be read: it is a symbolic link" "named"
expect_exit 3 "a failing command keeps its own exit status" "$L" record -q -- sh -c 'echo nonsense >>"$LABRUN_CHECKS"; exit 3'
contains "$T/err" "exited with status 3; \$LABRUN_CHECKS line 1: not JSON" "both reasons"
[ -z "$(ls "$LABRUN_STORE/spool")" ] || fail "a checks file was left in the spool: $(ls "$LABRUN_STORE/spool")"
ok "the spool is empty afterwards"

# --- an experiment's executions do not get it: a 'labrun record' around 'labrun run' keeps its own
cat >nochecks.ini <<'EOF'
[experiment]
name = nochecks
target = command
[design]
blocks = 2
exploratory = yes
[arm a]
command = sh -c 'test -z "$LABRUN_CHECKS"'
[arm b]
command = sh -c 'test -z "$LABRUN_CHECKS"'
EOF
expect_exit 0 "an experiment run under record" "$L" record -q -- "$L" run -q nochecks.ini
equals "$(q "SELECT status FROM run WHERE kind = 'experiment'")" "passed" "its executions ran without LABRUN_CHECKS"

# --- a crate of the issue verifies; a check changed in its report or its bundle is named
expect_exit 0 "a crate of the issue" "$L" manifest --issue 41 -o "$T/crate" --license CC-BY-4.0
contains "$T/crate/report.md" "  * strided arrays: 11/12 FAILED (negative stride differs)" "its report has the checks"
expect_exit 0 "the crate of the issue verifies" verify "$T/crate"
contains "$T/out" "2 run(s), 2 ledger entries" "both runs"
contains "$T/out" "0 problem(s)" "clean: its recorded runs' section is what their rows give"
tampered
sed -i 's|^  \* strided arrays: 11/12 FAILED|  * strided arrays: 12/12|' "$T/bad/report.md"
resigned
expect_exit 1 "a check changed in report.md, re-signed" verify "$T/bad"
contains "$T/out" "PROBLEM report.md: block" "report.md is named"
contains "$T/out" "\"strided arrays\": \"12/12\" where the rows give \"11/12 FAILED\"" "with the check and its words"
tampered
jq -c '.tables.check_result.rows[1][3] = 12' "$T/crate/run-1/bundle.json" >"$T/bad/run-1/bundle.json"
resigned
expect_exit 1 "a check row changed in a bundle, re-signed" verify "$T/bad"
contains "$T/out" "its rows of table 'check_result' do not give the seal they carry" "the bundle is refused, the table named"

# --- a check row changed in the store breaks the run's seal
expect_exit 0 "audit before" "$L" audit
sqlite3 "$LABRUN_STORE/labrun.db" "UPDATE check_result SET passed = 12 WHERE run_id = 1 AND seq = 1"
expect_exit 1 "audit after a check row was changed" "$L" audit
contains "$T/out" "PROBLEM run 1: rows of table 'check_result' changed since the run was sealed" "names the run and the table"
