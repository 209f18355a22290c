#!/bin/sh
# Done-when 6: a secret's value appears nowhere under the store.
. "$(dirname "$0")/lib.sh"

export API_TOKEN=s3cr3t-value
export OMP_NUM_THREADS=4
expect_exit 0 "record a command that prints the secret" \
	"$LABRUN" record --note "token s3cr3t-value" --binding "dev=s3cr3t-value" \
	-- sh -c 'echo "token=$API_TOKEN"; echo "$API_TOKEN" >&2; env' s3cr3t-value
contains "$T/out" "token=s3cr3t-value" "the terminal still sees the real output"
expect_exit 0 "stdout is stored" "$LABRUN" cat last stdout
contains "$T/out" "token=<redacted>" "stored log has the value scrubbed"
equals "$(q "SELECT value || ' ' || redacted FROM env_var WHERE name = 'API_TOKEN'")" "<redacted> 1" \
	"variable recorded as redacted"
equals "$(q "SELECT value FROM env_var WHERE name = 'OMP_NUM_THREADS'")" "4" "allowlisted variable kept"
equals "$(q "SELECT value FROM binding WHERE key = 'omp_num_threads'")" "4" "thread setting in the binding"

echo "key is s3cr3t-value" >leak.txt
expect_exit 125 "an artifact holding the secret is refused" "$LABRUN" record --artifact leak.txt -- true
contains "$T/err" "refusing to store artifact 'leak.txt'" "refusal names the artifact"

# The value planted in every other place a run's facts come from: an untracked file name, the git
# branch, an allowlisted variable (PYTHONPATH), --experiment, --issue, --geometry, --tool, --binding
# and an artifact name; and experiment definitions (text and file name), which are refused.
make_repo src
git -C src checkout -q -b "feature-s3cr3t-value"
echo notes >"src/notes-s3cr3t-value.txt"
expect_exit 0 "record with the secret planted in every field" sh -c 'cd src && PYTHONPATH=/opt/s3cr3t-value/lib \
	"$LABRUN" record --experiment "exp-s3cr3t-value" --issue "s3cr3t-value/repo#1" \
	--geometry "model=s3cr3t-value" --tool "compiler=s3cr3t-value" --binding "s3cr3t-value=1" \
	--artifact "out-s3cr3t-value.txt" -- sh -c "echo hi >out-s3cr3t-value.txt"'
planted=$(q "SELECT id FROM run ORDER BY id DESC LIMIT 1")
equals "$(q "SELECT name FROM artifact WHERE run_id = $planted AND role = 'output'")" "out-<redacted>.txt" \
	"the artifact is stored under its scrubbed name"
equals "$(q "SELECT branch FROM source_state WHERE run_id = $planted")" "feature-<redacted>" "the branch is scrubbed"
equals "$(q "SELECT value FROM env_var WHERE run_id = $planted AND name = 'PYTHONPATH'")" "/opt/<redacted>/lib" \
	"an allowlisted variable's value is scrubbed"
equals "$(q "SELECT count(*) FROM source_file WHERE run_id = $planted AND path = 'notes-<redacted>.txt'")" "1" \
	"the untracked file is listed under its scrubbed name"
{ cat "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini"; echo "# s3cr3t-value"; } >secret.ini
expect_exit 1 "a definition holding the value is refused" "$LABRUN" run secret.ini
contains "$T/err" "refusing to store definition 'secret.ini': it holds the value of a secret variable" "named"
cp "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" "def-s3cr3t-value.ini"
expect_exit 1 "so is a definition whose file name holds it" "$LABRUN" run "def-s3cr3t-value.ini"

# a credential written into a definition's env. is refused by scan's rules, before anything is stored
printf '[experiment]\nname = envsecret\ntarget = command\n[arm a]\ncommand = true\nenv.PGPASSWORD = %s\n[arm b]\ncommand = true\n' \
	"$(printf 'Zq7-%s' pW2x)" >envsecret.ini
runs=$(q "SELECT count(*) FROM run") db=$(sha256sum <"$LABRUN_STORE/labrun.db")
expect_exit 2 "a definition whose env. value looks like a credential" "$LABRUN" run envsecret.ini
contains "$T/err" "envsecret.ini:6: [arm a] 'env.PGPASSWORD' looks like a credential (scan rule keyword-assigned)" "named with its line and rule"
equals "$(q "SELECT count(*) FROM run")" "$runs" "nothing stored"
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$db" "labrun.db is byte for byte as before"
sed 's/^env.PGPASSWORD = .*/env.PGHOST = db.example/' envsecret.ini >envplain.ini
sed -i 's/^\[arm a\]/[design]\nblocks = 6\nwarmup = 0\n[arm a]/' envplain.ini
expect_exit 0 "a plain env. value is not" "$LABRUN" run -q envplain.ini

# A command experiment's paths into the store: the end of a failing execution's stderr (taken
# before the scrubber), an output file (stored verbatim: refused), metric names and units.
cat >cmd-secret.ini <<'EOF2'
[experiment]
name = cmd-secret
target = command
issues = 24
[design]
blocks = 6
warmup = 0
[arm metric]
command = sh metric.sh
[arm tail]
command = sh -c "echo the token is $API_TOKEN >&2; exit 3"
EOF2
sed -e 's/^name = cmd-secret/name = cmd-secret-output/' -e '/^\[arm tail\]/,$d' cmd-secret.ini >cmd-output.ini
printf '[arm output]\ncommand = sh -c "echo $API_TOKEN >{outdir}/o.txt"\noutputs = o.txt\n' >>cmd-output.ini
printf '%s\n' "printf '{\"name\": \"m-%s\", \"value\": 1, \"unit\": \"u-%s\"}\\n' \"\$API_TOKEN\" \"\$API_TOKEN\" >>\"\$LABRUN_METRICS\"" >metric.sh
expect_exit 1 "a command experiment whose executions carry the value" "$LABRUN" run -q cmd-secret.ini
exp=$(q "SELECT max(id) FROM run")
contains "$T/out" "stderr ends: the token is <redacted>" "the failure's stderr tail is scrubbed"
equals "$(q "SELECT name || ' ' || unit FROM metric WHERE run_id = $exp")" "m-<redacted> u-<redacted>" \
	"metric names and units are scrubbed"
expect_exit 1 "a command experiment whose output holds the value" "$LABRUN" run -q cmd-output.ini
exp2=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT failure FROM execution WHERE run_id = $exp2 AND arm_idx = 1")" \
	"output 'o.txt' holds the value of a secret environment variable: it is not stored" "an output holding it is refused"
# a route is named on the command line: one holding the value is refused
printf '{"case_id": "c1", "tokens": [1], "text": "a", "finish_reason": "stop"}\n' >r.jsonl
expect_exit 1 "a route name holding the value" "$LABRUN" ingest responses --run "$exp" --route "r-s3cr3t-value" r.jsonl
contains "$T/err" "holds the value of a secret environment variable" "is refused"
for fmt in md html csv json; do
	"$LABRUN" report --issue 24 --format $fmt >"report.$fmt" 2>&1 || fail "report --format $fmt"
	if grep -qa "s3cr3t-value" "report.$fmt"; then fail "the secret value reached the $fmt report"; fi
	ok "the value appears nowhere in the $fmt report"
done
grep -q "redacted" report.md || fail "the report holds no scrubbed failure at all"
ok "and the report shows where it was scrubbed"

expect_exit 0 "a crate of the runs" "$LABRUN" manifest --run "$planted" --run "$exp" --run "$exp2" -o crate
expect_exit 0 "an archive of the runs" "$LABRUN" archive --run "$planted" --run "$exp" --run "$exp2" -o planted.tar.zst
mkdir extracted
expect_exit 0 "extracted" "$LABRUN" archive --extract planted.tar.zst extracted
for d in crate extracted; do
	if grep -rqa "s3cr3t-value" "$d"; then
		grep -rla "s3cr3t-value" "$d" >&2
		fail "the secret value reached the $d"
	fi
	ok "the value appears nowhere in the $d"
done

# Search everything, the WAL included, then again after a checkpoint.
for when in before after; do
	if grep -rqa "s3cr3t-value" "$T/store"; then
		grep -rla "s3cr3t-value" "$T/store" >&2
		fail "the secret value reached the store ($when the checkpoint)"
	fi
	ok "the value appears nowhere under the store ($when the checkpoint)"
	sqlite3 "$T/store/labrun.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
done
