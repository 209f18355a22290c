#!/bin/sh
# labrun verify checks every word of a crate's report, not only its tables (issue 40): a crate whose
# report.md prose was edited to say a failed run passed, or whose report.json document had a cell
# changed, then re-signed with the lab's own key so that every digest and signature holds, is refused,
# and the problem names the file, the block and the words. Before, only the Markdown tables were
# compared: "(passed)", "Parity: 2 passed, 0 failed" and "Failed or missing conditions: none." for a
# run whose two conditions failed verified clean.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
lab_key
cat >fails.ini <<'INI'
[experiment]
name = fails
issues = 270
target = command
[design]
blocks = 6
[grid]
n = 1, 2
[arm a]
command = sh -c 'exit 1'
[arm b]
command = sh -c 'exit 1'
INI
"$L" run -q fails.ini >/dev/null 2>&1 || true
equals "$(q "SELECT status FROM run WHERE id = 1")" "failed" "the experiment's run failed"
expect_exit 0 "its crate" "$L" manifest --run 1 -o "$T/crate" --license CC-BY-4.0
contains "$T/crate/report.md" "* Parity: 0 passed, 2 failed, 0 missing" "the report says both conditions failed"
verify() { (cd "$T" && env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$@"); }
expect_exit 0 "the crate verifies" verify "$T/crate"
contains "$T/out" "0 problem(s)" "clean"

tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }
resigned() { python3 "$RESIGN" "$T/bad" "$LABKEY" || fail "re-sign"; }

# the prose: the heading, the parity line and the list of failed conditions, as a hand would write them
# (the parity line in the run's folded facts: a fold is compared as closely as the summary)
tampered
sed -i -e 's/^## fails, run 1 (failed)$/## fails, run 1 (passed)/' \
	-e 's/^\* Parity: 0 passed, 2 failed, 0 missing$/* Parity: 2 passed, 0 failed, 0 missing/' \
	-e '/^\* n=[12]: failed: /d' -e 's/^Failed or missing conditions:$/Failed or missing conditions: none./' "$T/bad/report.md"
grep -q '^\* Parity: 2 passed, 0 failed' "$T/bad/report.md" || fail "the edit did not take"
resigned
expect_exit 1 "report.md's prose edited and re-signed with the lab's key" verify "$T/bad"
lacks "$T/out" "has sha256" "every digest holds: only the rebuilt report can tell"
contains "$T/out" "PROBLEM report.md: block 4 (heading \"fails, run 1 (failed)\"): \"(passed)\" where the rows give \"(failed)\"" \
	"the heading: file, block, words"
contains "$T/out" "PROBLEM report.md: block 10 \"Parity\": \"2 passed, 0\" where the rows give \"0 passed, 2\"" \
	"the parity line: file, block, words"
contains "$T/out" "PROBLEM report.md: block 8 \"Failed or missing conditions\": \"none.\" where the rows give \"* n=1: failed: arm 'a', parity execution: exited with status 1 * n=2:" \
	"the failed conditions: file, block, words"

# a cell of report.json's document: the rows give the table, the crate another figure
tampered
jq '(.document.blocks[] | select(.kind == "table") | .rows[0][8]) |= "faster"' "$T/crate/report.json" >"$T/bad/report.json"
[ "$(jq -r '[.document.blocks[] | select(.kind == "table")][0].rows[0][8]' "$T/bad/report.json")" = faster ] ||
	fail "the edit did not take"
resigned
expect_exit 1 "a report.json cell edited and re-signed" verify "$T/bad"
contains "$T/out" "PROBLEM report.json: table '### b (command) vs a (command), run 1', row 'n=1', column 'verdict': the crate says \"faster\", its rows give \"failed\" (block 7)" \
	"the cell: file, table, row, column and the words"
lacks "$T/out" "PROBLEM report.md" "report.md is untouched"
equals "$(grep -c PROBLEM "$T/out")" 1 "and nothing else is named"

# a page of the crate's site: verify builds the site again from the rows, as the crate's statement says
expect_exit 0 "a crate with its site" "$L" manifest --run 1 --site -o "$T/crate-site" --license CC-BY-4.0
equals "$(jq -r .payload "$T/crate-site/crate.intoto.json" | base64 -d | jq -r '.predicate.site.signer')" \
	"$("$L" key show | sed -n 's/^fingerprint: *//p')" "the statement says whose key its site holds signers to"
rm -rf "$T/bad" && cp -R "$T/crate-site" "$T/bad"
expect_exit 0 "verifies, its site built again page by page" verify "$T/bad"
contains "$T/out" "0 problem(s)" "clean"
grep -q '<li>Parity: 0 passed, 2 failed, 0 missing</li>' "$T/bad/site/run-1.html" || fail "no parity line on the run's page"
sed -i 's|<li>Parity: 0 passed, 2 failed, 0 missing</li>|<li>Parity: 2 passed, 0 failed, 0 missing</li>|' "$T/bad/site/run-1.html"
resigned
expect_exit 1 "a site page edited and re-signed with the lab's key" verify "$T/bad"
lacks "$T/out" "has sha256" "every digest holds"
contains "$T/out" "PROBLEM site/run-1.html: line " "the page is named"
contains "$T/out" "under \"fails, run 1 (failed)\": \"2 passed, 0\" where the rows give \"0 passed, 2\"" \
	"with the heading it is under and the words"
rm -rf "$T/bad" && cp -R "$T/crate-site" "$T/bad" && rm "$T/bad/site/diff.html" && resigned
expect_exit 1 "a site page removed and re-signed" verify "$T/bad"
contains "$T/out" "PROBLEM site/diff.html: is missing, though its rows give it" "the missing page is named"

# a crate written before reports were documents still verifies: its report.md block by block, its data, its digests
OLD="$TOP_SRCDIR/tests/fixtures/verify-old"
expect_exit 0 "a crate written by labrun 0.1.0 before documents still verifies" \
	env -u LABRUN_STORE "$L" verify --key "$OLD/lab.pub.pem" "$OLD/crate"
contains "$T/out" "2 run(s)" "both runs"
contains "$T/out" "0 problem(s)" "clean"
