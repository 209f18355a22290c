#!/bin/sh
# Where a run ran and with what (issue 42, part 1 and 7, done-when 1): 'run' takes --binding, --tool,
# --source, --geometry and --note as 'record' does; a definition's [record] section states them and
# probes tool versions; arms bind per arm; show, diff, the report (Markdown and JSON) and the crate
# show them, and say when arms ran on different cards; a serving run's backend is the engine it
# reached (a stub answering as llama-server does, tests/cli/engine-stub.py); the device is asked
# where a tool can be (a FAKE nvidia-smi here); every run records labrun's own binary and build.
. "$(dirname "$0")/lib.sh"
q() { sqlite3 "$LABRUN_STORE/labrun.db" "$1"; } # whole values: commas and quotes as they are
command -v python3 >/dev/null || { echo "1..0 # SKIP python3 is needed for the stub engine"; exit 0; }
python3 "$TOP_SRCDIR/tests/cli/engine-stub.py" "$TOP_SRCDIR/tests/fixtures/serving/identity/llama-server" port &
stub=$!
trap 'kill $stub 2>/dev/null || true; cleanup' EXIT
echo "adapter v2" >adapter.py
sha_adapter=$(sha256sum adapter.py | cut -d' ' -f1)

cat >cmd.ini <<'EOF'
[experiment]
name = bound
target = command
[design]
blocks = 2
exploratory = yes
warmup = 0
[record]
probe.shell = sh -c 'echo shell 1.2.3; echo second line'
geometry.model = qwen3-0.6b
note = the definition's note
[arm A]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
[arm B]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
binding.device = atom:1
EOF
facts="--binding device=atom:0 --tool rebel-compiler=0.11.0 --source adapter.py"
expect_exit 0 "a command experiment, bound" "$LABRUN" run -q $facts --note "the command line's note" cmd.ini
contains "$T/out" "backend unstated" "a command target that states no backend is not called sim"
equals "$(q "SELECT group_concat(key || '=' || value || ' ' || origin, ', ') FROM (SELECT * FROM binding
	WHERE run_id = 1 AND key IN ('device', 'arm:B:device', 'backend') ORDER BY key)")" \
	"arm:B:device=atom:1 user, backend=unstated auto, device=atom:0 user" "the run's and the arm's binding"
equals "$(q "SELECT group_concat(name || '=' || version, ', ') FROM (SELECT * FROM tool_version WHERE run_id = 1 ORDER BY name)")" \
	"rebel-compiler=0.11.0, shell=shell 1.2.3" "a stated tool and a probed one (its first line)"
equals "$(q "SELECT command || ' | ' || replace(output, char(10), '/') FROM tool_probe WHERE run_id = 1")" \
	"sh -c 'echo shell 1.2.3; echo second line' | shell 1.2.3/second line/" "the probe's command and whole output"
equals "$(q "SELECT sha256 FROM source_file WHERE run_id = 1 AND git_status = 'external'")" "$sha_adapter" "--source hashed"
equals "$(q "SELECT note FROM run WHERE id = 1")" "the command line's note" "the command line's note over the definition's"
equals "$(q "SELECT value FROM geometry WHERE run_id = 1 AND key = 'model'")" "qwen3-0.6b" "[record] geometry"
# labrun's own identity: the binary that ran, hashed once (the file hash cache), and its build
exe=$(readlink -f "$LABRUN")
equals "$(q "SELECT value FROM recorder WHERE run_id = 1 AND key = 'binary_sha256'")" "$(sha256sum "$exe" | cut -d' ' -f1)" \
	"the sha256 of the labrun binary that recorded it"
contains_q() { case "$(q "$1")" in *"$2"*) ok "$3" ;; *) fail "$3: $(q "$1")" ;; esac; }
contains_q "SELECT value FROM recorder WHERE run_id = 1 AND key = 'cflags'" "-W" "and the flags it was compiled with"
hashed=$(q "SELECT hashed_ns FROM file_hash_cache WHERE path = '$exe'")
[ -n "$hashed" ] || fail "the binary's hash is not in the file hash cache"

expect_exit 0 "the same experiment again" "$LABRUN" run -q $facts cmd.ini
equals "$(q "SELECT hashed_ns FROM file_hash_cache WHERE path = '$exe'")" "$hashed" \
	"the second run took the binary's hash from the cache (not hashed again)"

expect_exit 0 "show" "$LABRUN" show 1
contains "$T/out" "rebel-compiler=0.11.0" "show: the tool"
contains "$T/out" "  shell: sh -c 'echo shell 1.2.3; echo second line'" "show: the probe's command"
contains "$T/out" "    | second line" "show: what it printed"
contains "$T/out" "device=atom:0  (user)" "show: the binding"
contains "$T/out" "cards:      the arms ran on different cards: arm B on atom:1; the run is bound to atom:0" "show: the cards differ"
contains "$T/out" "recorder:   labrun " "show: the labrun that recorded it"
contains "$T/out" "external   $sha_adapter" "show: the source"

expect_exit 0 "report (Markdown)" "$LABRUN" report --run 1
contains "$T/out" "Cross-card comparison: the arms ran on different cards: arm B on atom:1; the run is bound to atom:0." "the report says the cards differ"
contains "$T/out" '`device=atom:0`' "the binding in the report"
contains "$T/out" '`rebel-compiler=0.11.0`' "the tool in the report"
contains "$T/out" "Tool probe shell: \`sh -c 'echo shell 1.2.3; echo second line'\` printed \`shell 1.2.3\`" "the probe in the report"
contains "$T/out" "Recorded by: labrun" "the recorder in the report"
"$LABRUN" report --run 1 --format json >r.json || fail "report --format json"
equals "$(jq -r '[.. | objects | select(.kind == "facts") | .items[]?.text | select(startswith("Tool versions"))][0]' r.json)" \
	"Tool versions: rebel-compiler=0.11.0, shell=shell 1.2.3" "the JSON report's facts"
equals "$(jq -r '.runs[0].design.backend' r.json)" "unstated" "the JSON report's backend is the stated one, never sim"
equals "$(q "SELECT backend FROM run_design WHERE run_id = 1")" "unstated" "and so is the stored design's"
src_sha=$sha_adapter
equals "$(jq -r '.runs[0].sources.files[] | "\(.status) \(.sha256)"' r.json)" "external $src_sha" "the JSON report's --source file"
"$LABRUN" report --run 1 >r.md || fail "report"
contains r.md "\`adapter.py\` external \`$src_sha\`" "the report lists the --source file by its path from the run's directory"

# a second run on another card: diff names it
expect_exit 0 "a run on card atom:2" "$LABRUN" run -q --binding device=atom:2 --tool rebel-compiler=0.12.0 cmd.ini
expect_exit 0 "diff" "$LABRUN" diff 1 3
contains "$T/out" "card         run (differs)" "diff: the cards differ"
contains "$T/out" "atom:0 on" "diff: the first card"
contains "$T/out" "rebel-compiler" "diff: the tool version"
contains "$T/out" "cards: in run 1 the arms ran on different cards" "diff: the cross-card run said"

# a replay keeps what the original stated, its own options over it, and probes again
expect_exit 0 "a replay on another card" "$LABRUN" replay -q --binding device=atom:7 --tool extra=1 1
r=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT group_concat(name || '=' || version, ', ') FROM (SELECT * FROM tool_version WHERE run_id = $r ORDER BY name)")" \
	"extra=1, rebel-compiler=0.11.0, shell=shell 1.2.3" "the original's tools, the replay's, and the probe run again"
equals "$(q "SELECT count(*) FROM tool_probe WHERE run_id = $r")" "1" "the probe's evidence, its own"
equals "$(q "SELECT value FROM binding WHERE run_id = $r AND key = 'device'")" "atom:7" "the replay's binding over the original's"
expect_exit_any() { "$@" >"$T/out" 2>"$T/err"; }
expect_exit_any "$LABRUN" diff 1 "$r"
contains "$T/out" "card         run (differs)" "diff: the replay ran on another card"

# the crate: each run's run.json and the binary as a SoftwareApplication
expect_exit 0 "a crate" "$LABRUN" manifest --run 1 -o crate
equals "$(jq -r '.tool_probes.shell.command + " | " + .recorder.binary_sha256' crate/run-1/run.json)" \
	"sh -c 'echo shell 1.2.3; echo second line' | $(sha256sum "$exe" | cut -d' ' -f1)" "the crate's run.json"
equals "$(jq -r --arg id "#labrun-binary-$(sha256sum "$exe" | cut -d' ' -f1)" '.["@graph"][] | select(.["@id"] == $id) | .["@type"]' \
	crate/ro-crate-metadata.json)" "SoftwareApplication" "the binary is an instrument of the crate"
equals "$(jq -r '.binding.device.value + " " + .tools["rebel-compiler"]' crate/run-1/run.json)" "atom:0 0.11.0" "binding and tool in the crate"

# a probe that fails stops the run before anything is stored
sed 's/^probe.shell = .*/probe.shell = no-such-tool-42 --version/' cmd.ini >badprobe.ini
runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "a failing probe" "$LABRUN" run -q badprobe.ini
contains "$T/err" "tool probe 'shell' (no-such-tool-42 --version) exited with status 127" "names the probe and how it failed"
contains "$T/err" "hint: fix the command in [record]" "and what to do"
equals "$(q "SELECT count(*) FROM run")" "$runs" "nothing stored"
# what a probe prints is text a report can hold and a crate can carry: bytes that are not UTF-8 (a NUL
# included) kept as \xNN, a credential by scan's rules as <redacted>; one written into the definition
# is refused, as an env.NAME holding one is (issue 42's trial: a crate without its bundle, a token shown)
printf 'token: ghp_%s\n' abcdefghijklmnopqrstuvwxyzABCDEFGHIJ >tok
sed 's/^probe.shell = .*/probe.shell = printf "\\377v1\\000.2\\n"; cat tok/' cmd.ini >oddprobe.ini
expect_exit 0 "probes printing bytes and a token" "$LABRUN" run -q oddprobe.ini
odd=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT replace(output, char(10), '/') FROM tool_probe WHERE run_id = $odd")" \
	'\xffv1\x00.2/token: <redacted>/' "the bytes as \\xNN, the token redacted"
expect_exit 0 "a crate of it" "$LABRUN" manifest --run $odd -o oddcrate
[ -s oddcrate/run-1/bundle.json ] || fail "the crate lacks the run's bundle"
expect_exit 0 "it verifies" "$LABRUN" verify --allow-unsigned oddcrate
sed 's/^probe.shell = .*/probe.shell = echo ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ/' cmd.ini >tokprobe.ini
expect_exit 2 "a token written into a probe" "$LABRUN" run -q tokprobe.ini
contains "$T/err" "[record] 'probe.shell' looks like a credential (scan rule github-token)" "is refused, naming the rule"
expect_exit 2 "a bad --binding" "$LABRUN" run -q --binding device cmd.ini
contains "$T/err" "invalid --binding 'device': expected KEY=VALUE" "checked as record checks it"

# a device that can be asked: a FAKE nvidia-smi printing what the real one prints for
# --query-gpu=index,serial,vbios_version --format=csv,noheader
mkdir fakebin
cat >fakebin/nvidia-smi <<'EOF'
#!/bin/sh
# FAKE nvidia-smi for the test: the real one's answer for two GPUs
echo "0, 1320221036522, 94.02.5C.00.02"
echo "1, 1320221036999, 94.02.5C.00.03"
EOF
chmod +x fakebin/nvidia-smi
PATH="$PWD/fakebin:$PATH" expect_exit 0 "a run on cuda:1 with (a FAKE) nvidia-smi on PATH" "$LABRUN" run -q --binding device=cuda:1 cmd.ini
equals "$(q "SELECT group_concat(key || '=' || value || ' ' || origin, ', ') FROM (SELECT * FROM binding
	WHERE run_id = (SELECT max(id) FROM run) AND key LIKE 'device_%' ORDER BY key)")" \
	"device_firmware=94.02.5C.00.03 auto, device_serial=1320221036999 auto" "its serial and firmware with the binding"

# a serving experiment against a stub that answers as llama-server does: its backend is llama.cpp
i=0
while [ ! -s port ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
[ -s port ] || fail "the stub engine did not start"
printf '{"case_id": "a", "prompt": "one"}\n' >cases.jsonl
printf '[experiment]\nname = served\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 2\nexploratory = yes\nwarmup = 0\n[record]\nprobe.shell = echo shell 9\n[arm r1]\nendpoint = http://127.0.0.1:%s/v1\nmax_tokens = 2\n[arm r2]\nendpoint = http://127.0.0.1:%s/v1\nmax_tokens = 2\n' \
	"$(cat port)" "$(cat port)" >serving.ini
expect_exit 0 "a serving experiment, bound" "$LABRUN" run -q $facts serving.ini
contains "$T/out" "target serving, backend llama.cpp," "its backend is the engine it reached"
s=$(q "SELECT max(id) FROM run WHERE experiment_id = (SELECT id FROM experiment WHERE name = 'served')")
equals "$(q "SELECT group_concat(key || '=' || value, ', ') FROM (SELECT * FROM binding WHERE run_id = $s
	AND key IN ('backend', 'backend_version', 'device') ORDER BY key)")" \
	"backend=llama.cpp, backend_version=b4273-c2082d93, device=atom:0" "backend and build as /props said, beside the binding"
expect_exit 0 "show the serving run" "$LABRUN" show "$s"
contains "$T/out" "rebel-compiler=0.11.0" "show: the tool"
contains "$T/out" "shell=shell 9" "show: the probe"
expect_exit 0 "report the serving run" "$LABRUN" report --run "$s"
contains "$T/out" "backend llama.cpp" "the report names the engine"
contains "$T/out" '`backend_version=b4273-c2082d93`' "and its build"

# record takes the same options, through the same code
expect_exit 0 "record, bound" "$LABRUN" record -q $facts -- true
equals "$(q "SELECT value FROM binding WHERE run_id = (SELECT max(id) FROM run) AND key = 'device'")" "atom:0" "record's binding"
