#!/bin/sh
# A report's signed ledger head is a file of its own beside the report (issue 41), no longer a blob
# in the issue comment: 'report -o FILE' writes FILE.head.json, 'audit --head FILE.head.json' holds
# the store to it (and names the run changed since, the ledger re-chained by the published rules so
# only the signed head can tell), a report on standard output carries none, and 'audit --head' of
# the Markdown says which file to give; a head file naming a key twice, in base64url, or edited is
# refused, saying why. A crate's report.md is the same comment: a fresh crate
# verifies, and report.md edited and re-signed with the lab's own key is refused, naming the block.
# And a run's paths in the report, inside its repository, without the machine's part.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to re-chain and re-sign"; exit 77; }
L=$LABRUN
SC="$TOP_SRCDIR/tests/cli/seal-check.py"
DOC="$TOP_SRCDIR/docs/schema.md"
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" record -q --issue 270 -- true >/dev/null 2>&1 || fail "record"
"$L" ingest responses --run 1 --route whole "$TOP_SRCDIR/examples/responses/native-gpu.jsonl" >/dev/null ||
	fail "ingest whole"
"$L" ingest responses --run 1 --route stream "$TOP_SRCDIR/examples/responses/rngd-atom.jsonl" >/dev/null ||
	fail "ingest stream"
"$L" compare --run 1 --reference whole --candidate stream >/dev/null 2>&1 || true
"$L" gate --run 1 --route whole --answers "$TOP_SRCDIR/examples/responses/frozen-4.jsonl" >/dev/null 2>&1 || true
"$L" record -q --issue 270 -- true >/dev/null 2>&1 || fail "record"
"$L" ingest responses --run 2 --route whole "$TOP_SRCDIR/examples/responses/native-gpu.jsonl" >/dev/null ||
	fail "ingest run 2"
db="$T/store/labrun.db"

expect_exit 0 "report -o" "$L" report --issue 270 -o c.md
[ -s c.md.head.json ] || fail "no c.md.head.json beside c.md"
equals "$(jq -r '.payloadType' c.md.head.json)" "application/vnd.in-toto+json" "the signed head is beside it, as its own file"
equals "$(jq -r .payload c.md.head.json | base64 -d | jq -r '.predicate.seq')" \
	"$(q "SELECT max(seq) FROM ledger")" "at the ledger's head"
head=$(sed -n 's/^Ledger head: `\([0-9]*:[0-9a-f]*\)`.*/\1/p' c.md)
equals "$(jq -r .payload c.md.head.json | base64 -d | jq -r '"\(.predicate.seq):\(.predicate.digest)"')" "$head" \
	"the one the report's Ledger head line names"
lacks c.md "payload" "the Markdown carries no signature"
lacks c.md "The signed ledger head" "nor the block that held it"
"$L" report --issue 270 >stdout.md || fail "report to stdout"
cmp -s c.md stdout.md || fail "-o and standard output differ"
ok "the same Markdown on standard output, which carries no head"
expect_exit 0 "report -o of JSON" "$L" report --issue 270 --format json -o c.json
cmp -s c.json.head.json c.md.head.json || fail "the JSON report's head file differs"
equals "$(jq -c .ledger_head.statement c.json)" "$(jq -c . c.md.head.json)" "JSON holds the same head inside too"

expect_exit 0 "audit --head FILE.head.json on the unchanged store" "$L" audit --head c.md.head.json
contains "$T/out" "the store extends the signed head of entry $(q "SELECT max(seq) FROM ledger") (c.md.head.json)" "says so"
expect_exit 2 "audit --head of the Markdown" "$L" audit --head c.md
contains "$T/err" "'c.md' holds no signed ledger head: labrun writes a report's signed head beside it, as a file" \
	"says the Markdown holds none"
contains "$T/err" "(here 'c.md.head.json')" "and which file to give"
# the head file held to the rules of an envelope (docs/verify.md): each key once, standard base64
python3 -c 'import sys; t = open("c.md.head.json").read(); open("dup.json", "w").write("{\"payload\": \"e30=\", " + t.lstrip()[1:])'
expect_exit 2 "audit --head of a head naming its payload twice" "$L" audit --head dup.json
contains "$T/err" "signed head 'dup.json' names a key twice in one object: duplicate object key" "says so"
jq '.signatures[0].sig |= (gsub("\\+"; "-") | gsub("/"; "_") | rtrimstr("=") | rtrimstr("="))' c.md.head.json >url.json
expect_exit 2 "audit --head of a head signed in base64url" "$L" audit --head url.json
contains "$T/err" "the envelope's signature 1: invalid base64" "says so"
keyid=$(jq -r '.signatures[0].keyid' c.md.head.json)
jq '.payload = (.payload | @base64d | fromjson | .predicate.seq = 1 | tojson | @base64)' c.md.head.json >edited.json
expect_exit 1 "audit --head of a head whose payload changed" "$L" audit --head edited.json
contains "$T/out" "key id $keyid, which you trust" "names the key that signed something else"
contains "$T/out" "changed after it was signed" "and what changed"
cp -R "$T/store" "$T/pristine"

# run 1's responses edited, its seal and the whole chain recomputed after it (docs/schema.md's rules,
# apart from labrun): a plain audit of the store's own chain finds nothing to blame, the signed head does
sqlite3 "$db" "UPDATE response SET text = 'edited' WHERE set_id = (SELECT min(id) FROM response_set WHERE run_id = 1)" ||
	fail "edit"
python3 "$SC" reseal "$db" "$DOC" 1 || fail "reseal"
python3 "$SC" rechain "$db" "$DOC" 1 || fail "rechain"
uuid1=$(q "SELECT uuid FROM run WHERE id = 1")
expect_exit 1 "audit --head FILE.head.json after run 1 changed" "$L" audit --head c.md.head.json
contains "$T/out" "run 1 ($uuid1), entry" "names the run"
contains "$T/out" "at the signed head, was changed" "as changed"
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"

# a crate: report.md the same comment, cut as its statement records; verified, and refused once edited
expect_exit 0 "a crate" "$L" manifest --issue 270 -o crate --license CC-BY-4.0
equals "$(jq -r .payload crate/crate.intoto.json | base64 -d | jq -r .predicate.report.markdownMaxChars)" "65536" \
	"its statement records how report.md was cut"
lacks crate/report.md "payload" "its report.md carries no signature: the crate has ledger-head.intoto.json"
"$L" key export >lab.pub.pem
expect_exit 0 "the fresh crate verifies" env -u LABRUN_STORE "$L" verify --key lab.pub.pem crate
contains "$T/out" "0 problem(s)" "with no problem"
LABKEY="$HOME/.config/labrun/signing-key.pem"
rm -rf bad && cp -R crate bad
grep -q '^\* run 1, ' bad/report.md || fail "no grouped failing case in report.md"
sed -i 's/^\* run 1, \([^ ]*\) on stream/* run 1, \1 on whole/' bad/report.md
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" bad "$LABKEY" || fail "re-sign"
expect_exit 1 "report.md edited and re-signed with the lab's key" env -u LABRUN_STORE "$L" verify --key lab.pub.pem bad
lacks "$T/out" "has sha256" "every digest holds: only the report rebuilt can tell"
contains "$T/out" "PROBLEM report.md: block " "the block of report.md is named"
contains "$T/out" "\"whole (cross-route\" where the rows give \"stream (cross-route\"" "with the words"

# paths in the report, of a run in a subdirectory of its repository given an absolute definition path:
# the directory as the repository's, the definition from it, the program by its name; JSON keeps them
make_repo "$T/repo"
mkdir "$T/repo/sub"
cat >"$T/repo/exp.ini" <<'INI'
[experiment]
name = paths
issues = 41
target = command
[design]
blocks = 6
[grid]
n = 1
[arm a]
command = sh -c 'exit 1'
[arm b]
command = sh -c 'exit 1'
INI
(cd "$T/repo/sub" && "$L" run -q "$T/repo/exp.ini" >/dev/null 2>&1) || true
expect_exit 0 "report of the run in the repository" "$L" report --issue 41
contains "$T/out" "* Command: \`labrun run -q ../exp.ini\` (in \`sub\` of the repository, started " \
	"the command from the run's directory, the directory in the repository"
contains "$T/out" "* Definition: \`../exp.ini\`, sha256 " "the definition the same way"
lacks "$T/out" "$T" "no path of the test's directory"
"$L" report --issue 41 --format json >paths.json
equals "$(jq -r '.runs[0].cwd, .runs[0].definition.path' paths.json | tr '\n' ' ')" "$T/repo/sub $T/repo/exp.ini " \
	"JSON keeps them whole"
