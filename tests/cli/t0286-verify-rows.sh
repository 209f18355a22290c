#!/bin/sh
# labrun verify holds every file of every run to the bytes its sealed rows give, and every run and
# attestation the signed statements list to what the crate holds (issue 43). Each forgery here is
# made by someone holding the lab's key: the files edited, then every statement signed again, so
# that every digest and signature holds. Before, each passed with 0 problems: an experiment's
# repetitions.csv with every wall_s set to 9.999, its definition.ini, a log, a failed run's
# run.json saying "passed"; a run left out of the crate with the report rewritten to match; a run's
# run.intoto.json left out, the report rewritten to match. Each is now refused, naming the file
# and what differs.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
lab_key
cat >ab.ini <<'INI'
[experiment]
name = ab
issues = 270
target = command
[design]
blocks = 6
[arm a]
command = sh -c 'echo a'
[arm b]
command = sh -c 'echo b'
INI
"$L" run -q ab.ini >/dev/null 2>&1 || fail "the experiment"
"$L" record -q --issue 270 -- sh -c 'echo "throughput 1250 tok/s"; exit 1' >/dev/null 2>&1 || true
equals "$(q "SELECT status FROM run WHERE id = 2")" "failed" "the recorded run failed"
"$L" record -q --issue 270 -- sh -c 'echo "throughput 990 tok/s"' >/dev/null 2>&1 || fail "record 2"
expect_exit 0 "the crate of all three" "$L" manifest --run 1 --run 2 --run 3 -o "$T/crate" --license CC-BY-4.0
expect_exit 0 "the crate of runs 1 and 2 (its report, for a forger)" "$L" manifest --run 1 --run 2 -o "$T/two" \
	--license CC-BY-4.0
expect_exit 0 "the crate of runs 2 and 3" "$L" manifest --run 2 --run 3 -o "$T/later" --license CC-BY-4.0
verify() { (cd "$T" && env -u LABRUN_STORE "$L" verify --key "$T/lab.pub.pem" "$@"); }
expect_exit 0 "the crate verifies" verify "$T/crate"
contains "$T/out" "0 problem(s)" "clean"
contains "$T/out" "3 run(s), 4 ledger entries, " "every run"
grep -q " [1-9][0-9]* run file(s) against their sealed rows" "$T/out" || fail "run files counted: $(cat "$T/out")"

tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }
resigned() { python3 "$RESIGN" "$T/bad" "$LABKEY" ${keep-} || fail "re-sign"; }
refused() { # DESCRIPTION TEXT...: verify fails, each TEXT in its problems
	desc=$1
	shift
	resigned
	expect_exit 1 "$desc, re-signed with the lab's key" verify "$T/bad"
	for t in "$@"; do contains "$T/out" "$t" "$desc: named"; done
}

tampered
awk -F, 'BEGIN { OFS = "," } NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i } NR > 1 { $w = "9.999" } 1' \
	"$T/crate/run-1/repetitions.csv" >"$T/bad/run-1/repetitions.csv"
grep -q ',9.999,' "$T/bad/run-1/repetitions.csv" || fail "the wall_s edit did not take"
refused "every wall_s set to 9.999" 'PROBLEM run-1/repetitions.csv: row 1, wall_s: "9.999" where the rows give'

tampered
sed -i 's/^blocks = 6$/blocks = 60/' "$T/bad/run-1/definition.ini"
refused "definition.ini edited" 'PROBLEM run-1/definition.ini: line ' '"60" where the rows give "6"'

tampered
log=$(cd "$T/bad" && find run-1/executions -type f | sort | head -n 1)
[ -n "$log" ] || fail "no execution log in the crate"
echo "all good" >"$T/bad/$log"
refused "a log replaced" "PROBLEM $log: has sha256 " "run-1's sealed rows give"

tampered
sed -i 's/"status": "failed"/"status": "passed"/' "$T/bad/run-2/run.json"
grep -q '"status": "passed"' "$T/bad/run-2/run.json" || fail "the status edit did not take"
refused "run.json says passed" 'PROBLEM run-2/run.json: "status" is "passed" where the rows give "failed"'

tampered
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j.pop("note", None); j["failure"]=None; json.dump(j, open(p, "w"), indent=2)' \
	"$T/bad/run-2/run.json"
refused "run.json rewritten, a value dropped" 'PROBLEM run-2/run.json: '

tampered
echo "extra" >"$T/bad/run-2/extra.txt"
refused "a file added to a run" "PROBLEM run-2/extra.txt: is not a file of run-2's sealed rows: added"

# a run left out, and the report and the ledger rewritten to match the runs left
tampered
rm -rf "$T/bad/run-3"
cp "$T/two/report.md" "$T/two/report.json" "$T/two/ledger.json" "$T/bad/"
refused "run 3 left out, the report rewritten" "PROBLEM crate.intoto.json: lists run $(q "SELECT uuid FROM run WHERE id = 3"), which the crate does not hold: removed"

# a run's attestation left out: its files are vouched for by no run statement
tampered
rm "$T/bad/run-3/run.intoto.json"
cp "$T/two/report.md" "$T/two/report.json" "$T/bad/"
refused "run-3/run.intoto.json left out, the report rewritten" \
	"PROBLEM run-3/run.intoto.json: is missing: the files of run-3 are attested by no run statement"

# ledger.json swapped for another crate's: each run's entries are those its attestation signs
tampered
cp "$T/later/ledger.json" "$T/bad/ledger.json"
refused "ledger.json swapped for another crate's" \
	"PROBLEM ledger.json: lacks entry 1 of run $(q "SELECT uuid FROM run WHERE id = 1"), which run-1/run.intoto.json signs: removed"
tampered
cp "$T/two/ledger.json" "$T/bad/ledger.json"
refused "ledger.json of a crate without run 3" "PROBLEM ledger.json: lacks entry 4 of run $(q "SELECT uuid FROM run WHERE id = 3"),"

# what the crate says besides the run files: its RO-Crate metadata (each run's action, each file's
# digest and size), its list of files, where its files are, and what its statement declares
predicate() { # FILE PYTHON: edit the statement's predicate 'p' in place (signed again afterwards)
	python3 -c 'import base64,json,sys
f=sys.argv[1]; env=json.load(open(f)); st=json.loads(base64.b64decode(env["payload"])); p=st["predicate"]
exec(sys.argv[2])
env["payload"]=base64.b64encode(json.dumps(st,separators=(",",":"),sort_keys=True).encode()).decode()
json.dump(env,open(f,"w"))' "$@" || fail "edit $1"
}
u2=$(q "SELECT uuid FROM run WHERE id = 2")
tampered
python3 -c 'import json,sys; f=sys.argv[1]; m=json.load(open(f))
for e in m["@graph"]:
	if e.get("@id") == "urn:uuid:" + sys.argv[2]:
		e["actionStatus"] = {"@id": "http://schema.org/CompletedActionStatus"}; e.pop("error", None)
json.dump(m, open(f, "w"), indent=2)' "$T/bad/ro-crate-metadata.json" "$u2"
refused "the RO-Crate says the failed run completed" \
	'PROBLEM ro-crate-metadata.json: the action of run-2: "actionStatus"."@id" is "http://schema.org/CompletedActionStatus" where the rows give "http://schema.org/FailedActionStatus"'
tampered
sed -i '1s/^[0-9a-f]\{8\}/00000000/' "$T/bad/manifest-sha256.txt"
keep=--keep-metadata # the forger leaves the metadata as it was
refused "manifest-sha256.txt edited" "PROBLEM manifest-sha256.txt: is not the list of the files ro-crate-metadata.json describes: line 1: "
keep=
tampered
echo "All runs passed." >"$T/bad/NOTES.md"
refused "a note added at the crate's top" "PROBLEM NOTES.md: is not a file labrun writes into a crate"
tampered
mkdir "$T/bad/site" && echo '<h1>run 2 passed</h1>' >"$T/bad/site/index.html"
refused "a site added to a crate that had none" "PROBLEM site/: holds files, but crate.intoto.json does not say how they were built"
tampered
predicate "$T/bad/crate.intoto.json" 'p["runs"].append(p["runs"][0])'
refused "a run listed twice" "PROBLEM crate.intoto.json: lists run $(q "SELECT uuid FROM run WHERE id = 1") twice"
tampered
rm "$T/bad/run-1/run.sigstore.json"
refused "a run's Sigstore bundle left out" "PROBLEM run-1/run.sigstore.json: is missing: labrun writes one beside each signed run-1/run.intoto.json"
# the crate's word that its run files are their rows' bytes, dropped: values are still compared, and no
# member or column may go missing but those labrun added to run.json since its first crates
tampered
predicate "$T/bad/crate.intoto.json" 'del p["runFiles"]'
echo '{"id": 2, "status": "failed"}' >"$T/bad/run-2/run.json"
cut -d, -f1-4 "$T/crate/run-1/repetitions.csv" >"$T/bad/run-1/repetitions.csv"
refused "runFiles dropped, run.json and repetitions.csv gutted" 'PROBLEM run-2/run.json: "uuid" is missing' \
	'PROBLEM run-1/repetitions.csv: column "warmup" is missing'

# Without the lab's key: every statement signed again by a key of one's own, so the crate's statement no
# longer holds; the signed head, still the lab's, names what was taken out of ledger.json or moved in it.
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null || fail "another key"
tampered
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p)); j=[e for e in j if e["seq"] != 2]; json.dump(j, open(p, "w"), indent=2)' \
	"$T/bad/ledger.json"
python3 "$RESIGN" "$T/bad" "$T/other.pem" || fail "re-sign with another key"
expect_exit 1 "run 1's final entry taken out, signed by another key" verify "$T/bad"
contains "$T/out" "PROBLEM crate.intoto.json: is not signed by a key you trust" "the crate's statement no longer holds"
contains "$T/out" "PROBLEM ledger.json: run-1 ($(q "SELECT uuid FROM run WHERE id = 1")), entry 2 at the signed head, is not in the ledger: deleted" \
	"the signed head names the entry taken out"
tampered
python3 -c 'import json,sys; p=sys.argv[1]; j=json.load(open(p))
for e in j: e["seq"] = {3: 4, 4: 3}.get(e["seq"], e["seq"])
json.dump(j, open(p, "w"), indent=2)' "$T/bad/ledger.json"
python3 "$RESIGN" "$T/bad" "$T/other.pem" || fail "re-sign with another key"
expect_exit 1 "two entries swapped, signed by another key" verify "$T/bad"
contains "$T/out" "PROBLEM ledger.json: run-2 ($(q "SELECT uuid FROM run WHERE id = 2")) was entry 3 at the signed head and is entry 4 now: the ledger was reordered" \
	"the signed head names the entries moved"
