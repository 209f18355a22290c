#!/bin/sh
# diff of record and import runs names what they produced differently (it said "drift: none",
# exit 0), one summary line per kind; --json carries the same, parsed here with jq.
. "$(dirname "$0")/lib.sh"

printf 'a\n' >result.txt
"$LABRUN" record -q --artifact result.txt -- sh -c 'echo one' >/dev/null 2>&1
printf 'b\n' >result.txt
expect_exit 3 "a second run that exits 3" "$LABRUN" record -q --artifact result.txt -- sh -c 'echo two; exit 3'
expect_exit 1 "two record runs that differ" "$LABRUN" diff 1 2
contains "$T/out" "outcome      command" "the command"
contains "$T/out" "outcome      exit code                0 -> 3" "the exit code"
contains "$T/out" "output       stdout" "the log"
contains "$T/out" "output       output result.txt" "the artifact"
contains "$T/out" "differences: 3 outcome, 2 output" "one summary line per kind"
contains "$T/out" "outputs: DIFFER" "and the verdict"
expect_exit 0 "a run against itself" "$LABRUN" diff 2 2
contains "$T/out" "outputs: identical" "is identical"
expect_exit 1 "--json" "$LABRUN" diff 1 2 --json
equals "$(jq -r '[.outputs_match, .differences.outcome, .differences.output, .a.id, .b.kind] | map(tostring) | join(" ")' "$T/out")" \
	"false 3 2 1 record" "parses, with the same counts"
equals "$(jq -r '.drift[] | select(.what == "output") | .key' "$T/out" | tr '\n' ' ')" "stdout output result.txt " \
	"and names each output"

"$LABRUN" import --model qwen3-0.6b --tokens 64 --seed 1 >/dev/null 2>&1
"$LABRUN" import --model qwen3-0.6b --tokens 64 --seed 1 >/dev/null 2>&1
"$LABRUN" import --model qwen3-0.6b --tokens 64 --seed 2 >/dev/null 2>&1
expect_exit 0 "two imports of the same export" "$LABRUN" diff 3 4
contains "$T/out" "outputs: identical" "leave the same device state"
expect_exit 1 "imports of different exports" "$LABRUN" diff 3 5 --json
equals "$(jq -r '.drift[] | select(.key == "device_state_tree") | .what' "$T/out")" "output" "differ in the device-state digest"
equals "$(q "SELECT count(*) FROM run_digest WHERE name = 'device_state_tree'")" "3" "which each import stores"

# import --json: the recorded run, as show --json gives it, modelled figures marked
expect_exit 0 "import --json" "$LABRUN" import --model qwen3-0.6b --tokens 64 --seed 1 --link-gbps 16 --json
equals "$(jq -r '[.kind, .status, (.digests.device_state_tree | length), ([.measurements[] | select(.modelled) | .name] | join(","))] | map(tostring) | join(" ")' "$T/out")" \
	"import passed 64 dma_modelled_s" "parses: the run, its device-state digest, the modelled time marked"
equals "$(jq -r .id "$T/out")" "$(q "SELECT max(id) FROM run")" "and it is the stored run"

# list keeps its columns in line: long cells end in '...', the command fits a terminal, --wide cuts
# nothing (the issues column pushed the command out of line)
export LABRUN_STORE="$T/list-store"
"$LABRUN" record -q --experiment a-very-long-experiment-name-indeed --issue 1 --issue 22 --issue owner/repo#333 \
	-- sh -c 'echo a long command line with many words to cut at the terminal edge' >/dev/null 2>&1
"$LABRUN" record -q -- true >/dev/null 2>&1
expect_exit 0 "list" "$LABRUN" list
equals "$(awk 'NR == 1 { print index($0, "COMMAND") } NR > 1 { print index($0, ($NF == "true") ? "true" : "sh -c") }' "$T/out" | sort -u)" \
	"$(awk 'NR == 1 { print index($0, "COMMAND") }' "$T/out")" "the command column starts at the same place on every line"
contains "$T/out" "a-very-long-e..." "a long experiment name ends in '...'"
expect_exit 0 "list --wide" "$LABRUN" list --wide
contains "$T/out" "a-very-long-experiment-name-indeed  1,22,owner/repo#333" "cuts nothing"
if command -v script >/dev/null; then
	COLUMNS=100 script -qc "'$LABRUN' list" /dev/null | tr -d '\r' >"$T/tty"
	equals "$(awk 'length($0) > 100' "$T/tty" | wc -l | tr -d ' ')" "0" "on a 100-column terminal no line is longer"
	contains "$T/tty" "sh -c 'e..." "the command is cut to fit"
fi

# an experiment has no exit code: the drift shows '-', not -1; a log is named once ('stdout', not 'stdout stdout')
export LABRUN_STORE="$T/exp-store"
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1 || fail "tiny-encode"
"$LABRUN" record -q -- sh -c 'exit 3' >/dev/null 2>&1 || true
expect_exit 1 "diff of an experiment and a record run" "$LABRUN" diff 1 2
grep -q '^  outcome *exit code *- -> 3$' "$T/out" || { cat "$T/out" >&2; fail "the experiment's exit code is not '-'"; }
ok "the experiment's missing exit code is '-'"
! grep -q -- '-1 ->' "$T/out" || fail "a -1 is shown"
ok "no -1 is shown"
grep -q '^  output *stdout  *- -> [0-9a-f]\{64\}$' "$T/out" || { cat "$T/out" >&2; fail "the log is not named 'stdout'"; }
ok "a log only one run has is named once"
