#!/bin/sh
# Command experiments (issue 10, done-when 1): the user's own commands in the paired design.
# Two commands whose run times differ by a known amount give the right direction and an
# interval that contains their true ratio; a condition whose command fails is kept, named
# and counted; parity by declared outputs catches one differing byte; a metric that is
# better higher is compared the right way round and worded as such.
. "$(dirname "$0")/lib.sh"
q() { "$LABRUN" sql --csv "$1" | sed -n 2p | tr -d '\r'; }

cat >sleeps.ini <<'EOF2'
[experiment]
name = sleeps
target = command
[design]
blocks = 20
warmup = 1
[arm fast]
command = sh -c 'sleep 0.02; echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
[arm slow]
command = sh -c 'sleep 0.08; echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
EOF2
expect_exit 0 "a command experiment" "$LABRUN" run -q sleeps.ini
contains "$T/out" "parity: 1 passed, 0 failed, 0 missing" "parity by declared outputs holds"
contains "$T/out" "| all |" "one condition without a grid"
contains "$T/out" "slow is " "the verdict names the slower arm"
equals "$(q "SELECT count(*) FROM execution WHERE run_id = 1")" "86" "every execution is recorded: 2 parity + (1 + 20 blocks) x 4"
equals "$(q "SELECT count(*) FROM execution WHERE run_id = 1 AND stdout_sha256 IS NOT NULL AND stderr_sha256 IS NOT NULL
	AND exit_code = 0 AND peak_rss_kib > 0 AND user_s >= 0")" "86" "exit status, rusage and logs of each"
# The true ratio of the two commands' run times: sleeps of 80 and 20 ms plus the same start-up
# cost (0..10 ms) put it in [3, 4]: 60 ms apart, so that a loaded machine's jitter does not turn
# the verdict; the interval must contain the median of the per-block ratios computed here with
# awk from the raw rows.
"$LABRUN" report --run 1 --format json >"$T/r.json"
lo=$(jq -r '.runs[0].tables[0].rows[0].interval[0]' "$T/r.json")
hi=$(jq -r '.runs[0].tables[0].rows[0].interval[1]' "$T/r.json")
"$LABRUN" sql --csv "SELECT block, arm_idx, wall_s FROM execution WHERE run_id = 1 AND block >= 1" | tail -n +2 |
	tr -d '\r' | awk -F, '{ t[$1, $2] += $3; b[$1] = 1 } END { for (k in b) printf "%.6f\n", t[k, 1] / t[k, 0] }' |
	sort -g >"$T/ratios"
ratio=$(awk '{ v[n++] = $1 } END { printf "%.4f", n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }' "$T/ratios")
# On a loaded machine the interval may widen, so only its direction is asserted (above 1: the slow
# arm is slower), and that it contains the median recomputed here; the figures are reported.
awk -v lo="$lo" -v hi="$hi" -v r="$ratio" 'BEGIN { exit !(lo <= r && r <= hi && lo > 1) }' ||
	fail "interval [$lo, $hi] should lie above 1 and contain the median block ratio $ratio"
ok "slower, interval [$lo, $hi] contains the median block ratio $ratio (expected near 3 to 4)"

# A failing command: its condition is kept, named with the exit status and stderr, and counted.
cat >fails.ini <<'EOF2'
[experiment]
name = fails
target = command
[design]
blocks = 6
warmup = 0
[arm a]
command = sh -c 'if [ "$1" = bad ]; then echo "the harness broke on $1" >&2; exit 3; fi' sh {mode}
[arm b]
command = sh -c 'true' sh {mode}
[grid]
mode = good, bad
EOF2
expect_exit 1 "a run with a failing command" "$LABRUN" run -q fails.ini
contains "$T/out" "conditions: 1 passed, 1 failed, 0 missing (no arm declares outputs: no output parity checked)" \
	"the failure is counted, and no output parity claimed: the arms declare no outputs"
contains "$T/out" "mode=bad: failed: arm 'a', parity execution: exited with status 3; stderr ends: the harness broke on bad" \
	"named with its exit status and the tail of its stderr"
equals "$(q "SELECT status FROM run WHERE id = 2")" "failed" "the run is failed, kept"
equals "$(q "SELECT status FROM condition WHERE run_id = 2 AND idx = 1")" "failed" "the condition is kept"
equals "$(q "SELECT exit_code FROM execution WHERE run_id = 2 AND condition_idx = 1 AND failure IS NOT NULL")" "3" \
	"the failing execution is recorded with its exit status"

# One differing byte in a declared output fails parity, naming the arm.
sed 's/echo same >"\$1"/echo samf >"$1"/; s/^name = sleeps/name = onebyte/' sleeps.ini |
	awk '/^\[arm slow\]/ { slow = 1 } { if (!slow) sub(/samf/, "same"); print }' >onebyte.ini
grep -q samf onebyte.ini && grep -q 'echo same' onebyte.ini || fail "fixture: one arm must write a different byte"
expect_exit 1 "one differing byte" "$LABRUN" run -q onebyte.ini
contains "$T/out" "failed: parity: arm 'slow' outputs differ from the baseline's" "parity names the arm"

# A reference file: parity holds against it, or fails naming it (6 blocks are enough for parity).
printf 'same\n' >ref.txt
sed 's/^name = sleeps/name = withref\nreference = ref.txt/; s/^blocks = 20$/blocks = 6/' sleeps.ini >withref.ini
grep -q '^blocks = 6$' withref.ini || fail "fixture: withref.ini keeps 20 blocks"
expect_exit 0 "outputs equal the declared reference" "$LABRUN" run -q withref.ini
printf 'other\n' >ref.txt
expect_exit 1 "outputs differ from the reference" "$LABRUN" run -q withref.ini
contains "$T/out" "outputs differ from the reference" "the reference is named"

# A metric that is better higher: compared the right way round, and worded as such.
cat >metric.ini <<'EOF2'
[experiment]
name = metric
target = command
[design]
blocks = 6
warmup = 0
metric = throughput
[arm a]
command = sh -c 'echo "{{\"name\": \"throughput\", \"value\": 200, \"unit\": \"tok/s\", \"better\": \"higher\"}}" >>"$LABRUN_METRICS"'
[arm b]
command = sh -c 'echo "{{\"name\": \"throughput\", \"value\": 100, \"unit\": \"tok/s\", \"better\": \"higher\"}}" >>"$LABRUN_METRICS"'
EOF2
expect_exit 0 "a metric experiment" "$LABRUN" run -q metric.ini
contains "$T/out" "| all | 200.000 | 100.000 | -50.0% | [-50.0%, -50.0%]" "medians and the change in the metric's units"
contains "$T/out" "b has 50.0% lower throughput" "worded as lower throughput, not slower or faster"
lacks "$T/out" "faster" "never 'faster' for a throughput"

# Bad definitions are refused with the line.
printf '[experiment]\nname = x\ntarget = command\n[arm a]\ncommand = run {nope}\n[arm b]\ncommand = true\n' >badph.ini
expect_exit 2 "an unknown placeholder" "$LABRUN" run badph.ini
contains "$T/err" "badph.ini:5: 'command': unknown placeholder {nope}" "named with its line"
printf '[experiment]\nname = x\ntarget = command\n[arm a]\nkernel = lookup\ncommand = true\n[arm b]\ncommand = true\n' >badkey.ini
expect_exit 2 "a built-in key in a command arm" "$LABRUN" run badkey.ini
contains "$T/err" "badkey.ini:5: [arm a] sets 'kernel', which a command target does not use" "named"

# 8 keys of 16 values are 2^32 conditions: the count wrapped to 0 and the run was stored as a passed
# experiment with no conditions. More than 4,096 are refused before anything runs or is stored.
{ printf '[experiment]\nname = huge\ntarget = command\n[arm a]\ncommand = true\n[arm b]\ncommand = true\n[grid]\n'
	for k in a b c d e f g h; do printf '%s = 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n' $k; done; } >huge.ini
runs=$(q "SELECT count(*) FROM run") db=$(sha256sum <"$LABRUN_STORE/labrun.db")
expect_exit 2 "a grid of 2^32 conditions" "$LABRUN" run huge.ini
contains "$T/err" "huge.ini:8: [grid] gives 4294967296 conditions: an experiment runs at most 4096" "named, with its line"
equals "$(q "SELECT count(*) FROM run")" "$runs" "nothing stored"
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$db" "labrun.db is byte for byte as before"

# a missing cwd was reported as "cannot execute 'pwd'", and only once executions ran: a plain one is
# refused with its line before anything runs; one made from a template is named when it is missing
printf '[experiment]\nname = nocwd\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = pwd\ncwd = %s/no-such-dir\n[arm b]\ncommand = pwd\n' "$PWD" >nocwd.ini
runs=$(q "SELECT count(*) FROM run") db=$(sha256sum <"$LABRUN_STORE/labrun.db")
expect_exit 2 "an arm whose cwd does not exist" "$LABRUN" run -q nocwd.ini
contains "$T/err" "nocwd.ini:9: [arm a] 'cwd' is '$PWD/no-such-dir': No such file or directory" "named with its line"
equals "$(q "SELECT count(*) FROM run")" "$runs" "nothing ran or was stored"
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$db" "labrun.db is byte for byte as before"
sed 's|^cwd = .*|cwd = {outdir}/gone|' nocwd.ini >nocwd2.ini
expect_exit 1 "an arm whose templated cwd does not exist" "$LABRUN" run -q nocwd2.ini
contains "$T/out" "cannot start 'pwd' in '" "names the directory"
contains "$T/out" "/gone': No such file or directory" "and why"

# ';' after a blank is an INI inline comment: 'echo first ; echo second' ran 'echo first'; a line
# over inih's buffer was cut, the rest read as the next line
printf '[experiment]\nname = semi\ntarget = command\n[arm a]\ncommand = echo first ; echo second\n[arm b]\ncommand = true\n' >semi.ini
expect_exit 2 "an inline ';' in a value" "$LABRUN" run -q semi.ini
contains "$T/err" "semi.ini:5: ';' after a blank would end the value here and start a comment" "named with its line"
printf '[experiment]\nname = semi\ntarget = command\n[arm a]\ncommand = sh -c "echo first; echo second"\n[arm b]\ncommand = true\n[design]\nblocks = 6\nwarmup = 0\n' >semi2.ini
expect_exit 0 "a ';' with no blank before it is part of the value" "$LABRUN" run -q semi2.ini
equals "$(q "SELECT count(*) FROM execution WHERE run_id = (SELECT max(id) FROM run) AND exit_code = 0")" \
	"$(q "SELECT count(*) FROM execution WHERE run_id = (SELECT max(id) FROM run)")" "and the command runs whole"
long=$(printf 'a%.0s' $(seq 190))
printf '[experiment]\nname = long\ntarget = command\n[arm a]\ncommand = echo %s; rm -rf /\n[arm b]\ncommand = true\n' "$long" >long.ini
runs=$(q "SELECT count(*) FROM run") db=$(sha256sum <"$LABRUN_STORE/labrun.db")
expect_exit 2 "a line over 199 characters" "$LABRUN" run -q long.ini
contains "$T/err" "long.ini:5: the line is 215 characters long; lines are limited to 199" "named with its line"
equals "$(q "SELECT count(*) FROM run")" "$runs" "nothing ran or was stored"
equals "$(sha256sum <"$LABRUN_STORE/labrun.db")" "$db" "labrun.db is byte for byte as before"

# argv[0] is found with the execution's own PATH (env.PATH of a virtualenv was given but not used)
mkdir -p venv/bin && printf '#!/bin/sh\necho from-venv\n' >venv/bin/only-in-venv && chmod +x venv/bin/only-in-venv
printf '[experiment]\nname = venv\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = only-in-venv\nenv.PATH = %s/venv/bin:/usr/bin:/bin\n[arm b]\ncommand = true\n' "$PWD" >venv.ini
expect_exit 0 "a command found on the arm's PATH" "$LABRUN" run -q venv.ini
equals "$(q "SELECT count(*) || ' ' || sum(exit_code IS NOT 0) FROM execution WHERE run_id = (SELECT max(id) FROM run) AND arm_idx = 0")" \
	"13 0" "each of its executions ran"

# errors about [experiment] keys are at the key's line, not the section's
printf '[experiment]\nname = refs\ntarget = command\n\nreference_route = nowhere\n[arm a]\ncommand = true\nresponses = r.jsonl\n[arm b]\ncommand = true\n' >refs.ini
expect_exit 2 "a reference_route no arm has" "$LABRUN" run -q refs.ini
contains "$T/err" "refs.ini:5: 'reference_route' is 'nowhere'" "at its line"
printf '[experiment]\nname = refs\ntarget = command\nanswers = key.jsonl\n[arm a]\ncommand = true\n[arm b]\ncommand = true\n' >ans.ini
expect_exit 2 "answers with no responses" "$LABRUN" run -q ans.ini
contains "$T/err" "ans.ini:4: 'answers' needs an arm" "at its line"
printf '[experiment]\nname = refs\ntarget = command\n\nreference = {outdir}/a {outdir}/b\n[arm a]\ncommand = true\noutputs = x\n[arm b]\ncommand = true\noutputs = x\n' >ref.ini
expect_exit 2 "a reference of two files for one output" "$LABRUN" run -q ref.ini
contains "$T/err" "ref.ini:8: [arm a] declares 1 output(s) but 'reference' names 2 file(s)" "at the outputs line"

# one duration syntax: 'timeout = 1s' was refused in a definition while record --timeout 1s took it
printf '[experiment]\nname = dur\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = true\ntimeout = 2m\n[arm b]\ncommand = true\ntimeout = 1.5s\n' >dur.ini
expect_exit 0 "timeouts written as record takes them" "$LABRUN" run -q dur.ini
equals "$(q "SELECT group_concat(timeout_s, ' ') FROM (SELECT timeout_s FROM arm_command WHERE run_id = (SELECT max(id) FROM run) ORDER BY arm_idx)")" "120.0 1.5" "2m and 1.5s"
printf '[experiment]\nname = dur\ntarget = command\n[arm a]\ncommand = true\ntimeout = soon\n[arm b]\ncommand = true\n' >badur.ini
expect_exit 2 "a timeout that is no duration" "$LABRUN" run badur.ini
contains "$T/err" "badur.ini:6: 'timeout' is 'soon'; expected a positive duration such as 90, 90s, 5m or 2h" "named, with its line"

# a daemon that detaches (setsid, out of the execution's group and session) outlived its experiment
# and loaded the machine under the following blocks: labrun is its subreaper and kills it
printf '[experiment]\nname = daemon\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\n[arm a]\ncommand = sh -c "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! >>daemon.pids"\n[arm b]\ncommand = true\n' >daemon.ini
expect_exit 0 "an arm that starts a detaching daemon" "$LABRUN" run -q daemon.ini
equals "$(wc -l <daemon.pids | tr -d ' ')" "13" "one daemon per execution of the arm"
alive=0
while read -r pid; do
	if kill -0 "$pid" 2>/dev/null; then alive=$((alive + 1)); fi
done <daemon.pids
equals "$alive" "0" "none of them outlives its execution"

# gigabytes on stdout were kept whole, with no cap or warning, and a scratch copy doubled the disk
# needed: each log is capped ([design] output_cap, 64 MiB by default), streamed into the store
printf '[experiment]\nname = chatty\ntarget = command\n[design]\nblocks = 6\nwarmup = 0\noutput_cap = 1K\n[arm a]\ncommand = sh -c "head -c 5000 /dev/zero | tr \\\\\\\\0 a; echo done >&2"\n[arm b]\ncommand = true\n' >chatty.ini
expect_exit 0 "an arm that writes more than the cap" "$LABRUN" run -q chatty.ini
contains "$T/err" "warning: 13 execution log(s) passed [design] output_cap (1.0 KiB a log): $((13 * 3976)) byte(s) were not kept" "warned, with the count"
contains "$T/err" "the table output_dropped names them" "and where to look"
chatty=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT count(*) || ' ' || min(cap_bytes) || ' ' || min(dropped_bytes) || ' ' || min(stream) FROM output_dropped WHERE run_id = $chatty")" \
	"13 1024 3976 stdout" "a row per cut log: the cap and the bytes not kept"
sha=$(q "SELECT stdout_sha256 FROM execution WHERE run_id = $chatty AND arm_idx = 0 LIMIT 1")
equals "$(wc -c <"$LABRUN_STORE/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)" | tr -d ' ')" "1024" "the stored log is the first 1 KiB"
equals "$(q "SELECT count(*) FROM output_dropped WHERE run_id = $chatty AND stream = 'stderr'")" "0" "stderr, under the cap, is whole"
expect_exit 0 "audit of the capped run" "$LABRUN" audit --run "$chatty"
sed 's/^output_cap = 1K/output_cap = 0/' chatty.ini >whole.ini
expect_exit 0 "output_cap = 0 keeps everything" "$LABRUN" run -q whole.ini
equals "$(q "SELECT count(*) FROM output_dropped WHERE run_id = (SELECT max(id) FROM run)")" "0" "nothing cut"
lacks "$T/err" "warning" "and no warning"
# record keeps its logs whole unless asked (they are its evidence); --max-output caps them
expect_exit 0 "record --max-output" "$LABRUN" record -q --max-output 1K -- sh -c 'head -c 5000 /dev/zero | tr "\0" a'
contains "$T/err" "warning: stdout passed --max-output 1024: 3976 byte(s) after the first 1024 were not kept" "warned"
equals "$("$LABRUN" cat last stdout | wc -c | tr -d ' ')" "1024" "the stored log is the first 1 KiB"
equals "$(q "SELECT condition_idx || ' ' || seq || ' ' || dropped_bytes FROM output_dropped WHERE run_id = (SELECT max(id) FROM run)")" \
	"-1 -1 3976" "and the run says so"
expect_exit 125 "a --max-output that is no size (record's own usage errors are 125)" "$LABRUN" record --max-output lots -- true
contains "$T/err" "invalid --max-output 'lots'" "named"

# under 'ulimit -f' labrun died of SIGXFSZ and left the run abandoned with no word: a write past the
# limit is now an error that says so, and the command still gets the default SIGXFSZ
got=0
# 16 MiB: room for the store itself (a new one is about 2 MB, its pages 16 KiB), not for 20 MB
(ulimit -f 16384; exec "$LABRUN" record -q -- sh -c 'head -c 20000000 /dev/zero') >"$T/out" 2>"$T/err" || got=$?
equals "$got" "125" "a log past 'ulimit -f': labrun fails, it is not killed"
contains "$T/err" "a file would exceed the size this process may write" "and names the limit"
got=0
(ulimit -f 16384; exec "$LABRUN" record -q -- sh -c 'head -c 20000000 /dev/zero >big.bin') >"$T/out" 2>"$T/err" || got=$?
equals "$got" "153" "a command that passes the limit itself dies of SIGXFSZ, as it would without labrun"
rm -f big.bin
expect_exit 0 "fsck afterwards" "$LABRUN" fsck
expect_exit 0 "audit afterwards" "$LABRUN" audit
