#!/bin/sh
# labrun replay and diff: an experiment replays from its stored definition with
# identical outputs and no drift; one flipped output bit fails the replay and
# names the condition; a recorded command replays in its recorded directory and
# environment, and a changed input is caught by the artifact hash.
. "$(dirname "$0")/lib.sh"

X="$TOP_SRCDIR/tests/fixtures/experiments"
cp "$X/tiny-encode.ini" exp.ini
"$LABRUN" run -q exp.ini >/dev/null 2>&1 || fail "the experiment did not pass"
echo "; edited after the run" >>exp.ini # replay must use the stored text, not today's file

expect_exit 0 "replay of the experiment" "$LABRUN" replay 1
contains "$T/out" "replay PASSED: outputs identical" "parity holds"
contains "$T/out" "none: sources, binding, geometry, host and tool versions are the same" "no drift"
contains "$T/out" "qwen3-0.6b 2/64: outputs identical; timing ratio" "a timing ratio per condition"
equals "$(q "SELECT replay_of FROM run WHERE id = 2")" "1" "recorded as a replay of run 1"
equals "$(q "SELECT count(*) FROM replay_check WHERE run_id = 2 AND matches = 1")" "2" "parity verdict per condition stored"
equals "$(q "SELECT sha256 FROM run_definition WHERE run_id = 2")" "$(q "SELECT sha256 FROM run_definition WHERE run_id = 1")" \
	"the stored definition was replayed, not the edited file"

expect_exit 1 "a flipped output bit fails the replay" "$LABRUN" replay --fault-flip-bit 1@1 1
contains "$T/out" "qwen3-0.6b 2/64: OUTPUTS DIFFER: arm 'scalar'" "names the condition and arm"
contains "$T/out" "replay FAILED" "says so"
equals "$(q "SELECT matches FROM replay_check WHERE run_id = 3 AND item = 'condition 1'")" "0" "stored as a mismatch"

expect_exit 0 "diff of two matching runs" "$LABRUN" diff 1 2
expect_exit 1 "diff of runs whose outputs differ" "$LABRUN" diff 1 3
contains "$T/out" "OUTPUTS DIFFER" "diff names the difference"

# A recorded command: replayed in its directory, with its recorded environment.
mkdir -p work2
echo one >work2/input.txt
(cd work2 && OMP_NUM_THREADS=3 "$LABRUN" record -q --artifact out.txt -- sh -c 'cat input.txt >out.txt; echo $OMP_NUM_THREADS >>out.txt') \
	>/dev/null 2>&1 || fail "record"
rec=$(q "SELECT max(id) FROM run")
expect_exit 0 "replay of a recorded command from elsewhere" "$LABRUN" replay "$rec"
contains "$T/out" "output 'out.txt'" "compares the artifact"
contains "$T/out" "replay PASSED" "same exit code and artifact"
echo two >work2/input.txt
expect_exit 1 "a changed input changes the artifact" "$LABRUN" replay "$rec"
contains "$T/out" "DIFFERENT" "the artifact differs"
# a replay whose stdout changed but whose exit code and artifacts did not said "outputs: DIFFER" and
# then "replay PASSED: outputs identical": one verdict now says what it compared, and the log changed
(cd work2 && "$LABRUN" record -q --artifact same.txt -- sh -c 'date +%N; echo same >same.txt') >/dev/null 2>&1 || fail "record"
expect_exit 0 "replay of a command whose stdout changes" "$LABRUN" replay last
lacks "$T/out" "DIFFER" "no 'outputs DIFFER' beside the verdict"
contains "$T/out" "replay PASSED: the exit code and every declared artifact and --log file are identical (2 checks); its stdout changed (a log: not part of the verdict)" \
	"one verdict, what it compared, and the changed log"
"$LABRUN" import --model qwen3-0.6b --tokens 16 >/dev/null 2>&1
expect_exit 2 "an import run is not replayable" "$LABRUN" replay last
contains "$T/err" "runs of kind 'import' are not replayable yet" "says why"

# A stored run is read from its rows, never through today's parser: run 1's stored definition made
# to read differently (as a later parser might read it: 9 blocks, not 6), with its sha256 updated.
python3 -c 'import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
(text,) = db.execute("SELECT text FROM run_definition WHERE run_id = 1").fetchone()
text = text.replace("blocks = 6", "blocks = 9")
db.execute("UPDATE run_definition SET text = ?, sha256 = ? WHERE run_id = 1", (text, hashlib.sha256(text.encode()).hexdigest()))
db.commit()' "$LABRUN_STORE/labrun.db"
equals "$(q "SELECT instr(text, 'blocks = 9') > 0 FROM run_definition WHERE run_id = 1")" "1" "fixture: 9 blocks stored"
expect_exit 0 "report on the run" "$LABRUN" report --run 1
contains "$T/out" "6 timed blocks after 1 warm-up" "the report gives the design stored with the run"
expect_exit 0 "diff of the run and its replay" "$LABRUN" diff 1 2
lacks "$T/out" "not comparable" "the runs still line up by their rows"
expect_exit 2 "replay refuses" "$LABRUN" replay 1
contains "$T/err" "run 1's stored definition reads differently today: blocks/warmup/margin '9/1/0.02', stored with the run '6/1/0.02'" \
	"replay names the difference"
# a run stored before migration 18 has no run_design row: it is read from its stored definition
sqlite3 "$LABRUN_STORE/labrun.db" "DELETE FROM run_design WHERE run_id = 2"
expect_exit 0 "report on a run without a design row" "$LABRUN" report --run 2
contains "$T/out" "6 timed blocks after 1 warm-up" "read from its stored definition"
