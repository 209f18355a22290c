#!/bin/sh
# labrun report's Markdown is the issue comment the team pastes unedited (issue 41): it never passes
# --max-chars characters (65,536 by default, GitHub's limit), a summary first and the detail in
# folded sections, each whole or left out whole and then named on a closing line; the failing
# cases grouped (the same failure of a run on several routes one line, case ids in ranges); no
# path of the recording machine and no signature blob. Checked on the serving example and on a
# path of the recording machine and no signature blob. Checked on the serving example here, and at
# the team's scale (45 passes, 4 routes) by tests/slow/t0960-report-comment-scale.sh (check-slow),
# with comment-check.py (apart from labrun's code) and GitHub's renderer.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/comment-lib.sh"

# (a) the serving example, as the README runs it
cp -r "$TOP_SRCDIR/examples" .
"$L" run -q examples/serving-sim.ini >/dev/null 2>&1 || fail "the serving example"
R="--issue 270 --routes native-gpu,rngd-gpu,native-atom,rngd-atom"
"$L" report $R -o ex.md || fail "report -o"
"$L" report $R --max-chars 0 >ex-whole.md || fail "report --max-chars 0"
"$L" report $R --format json >ex.json || fail "report --format json"
comment "the serving example" ex.md 65536 ex-whole.md
cmp -s ex.md ex-whole.md || fail "the example fits: nothing is left out"
ok "the example fits whole: the same bytes as uncut, no closing line"
lacks ex.md "payload" "no signed head in the Markdown"
contains ex.md "Serving evidence: 16 cells: 15 collected, 1 uncollected;" "the summary: the sentence that accounts for every cell"
contains ex.md "* run 1: model=qwen3-0.6b, c05 on native-gpu, rngd-gpu, native-atom and rngd-atom (gate): format fails" \
	"a failure on four routes is one line"
contains ex.md "* run 1: model=qwen3-4b, c03 on rngd-atom (within-route comparison): tokens differ at position 2" \
	"the case two comparisons found, once"
python3 "$C" groups ex.md ex.json >"$T/check" || fail "the grouped cases are not the full list"
ok "$(cat "$T/check")"
contains ex.md "<details><summary>Run 1 (serving-sim): command, definition, sources, host, binding and design</summary>" \
	"the run's facts folded"
contains ex.md "* Command: \`labrun run -q examples/serving-sim.ini\` (in \`.../work\`, started " "the command without the machine's paths"
equals "$(jq -r '.runs[0].cwd' ex.json)" "$T/work" "JSON keeps the directory whole"
"$L" report $R --max-chars 4000 >ex-4000.md || fail "--max-chars 4000"
comment "the example cut to 4000" ex-4000.md 4000 ex-whole.md
contains ex-4000.md "Left out to keep this report within 4000 characters: " "the closing line"
"$L" report $R --format html >ex.html || fail "html"
equals "$(grep -c '<details><summary>' ex.html) $(grep -c '</details>' ex.html)" "3 3" "HTML folds the same sections, closed"

