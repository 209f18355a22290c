#!/bin/sh
# A crate of pulled runs verifies (issue 43): two stores record runs (an experiment run with its
# design entry, and records) and push them to one PostgreSQL remote, a third store pulls both, so
# some runs have ids here other than their origin's; `labrun manifest` of all of them makes a crate
# that `labrun verify --key` accepts, run numbers, seals, ledger entries and report included.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
A="$T/a" B="$T/b" C="$T/c"
la() { LABRUN_STORE=$A "$LABRUN" "$@"; }
lb() { LABRUN_STORE=$B "$LABRUN" "$@"; }
lc() { LABRUN_STORE=$C "$LABRUN" "$@"; }
"$LABRUN" key init >/dev/null 2>&1 || fail "key init"
"$LABRUN" key export >"$T/lab.pub.pem"
for s in a b c; do
	LABRUN_STORE=$T/$s "$LABRUN" init >/dev/null && LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$PG_URI" ||
		fail "store $s"
done
la remote init lab >/dev/null || fail "remote init"

# A: an experiment run (its design entry is ledger entry 1) and a record; B: a record, then the same
# experiment. Each store numbers its runs from 1.
(cd "$T/work" && la run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in A"
la record -q --issue 205 -- echo from-a >/dev/null 2>&1 || fail "record in A"
lb record -q --issue 205 -- echo from-b >/dev/null 2>&1 || fail "record in B"
(cd "$T/work" && lb run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in B"
la push >/dev/null || fail "push A"
lb push >/dev/null || fail "push B"
expect_exit 0 "C pulls both stores' runs" lc pull
contains "$T/out" "remote 'lab': 4 runs pulled" "all four"

# the ids here differ from the origins' for B's runs (A's came first and kept theirs)
uuid_of() { LABRUN_STORE=$1 "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = $2" | sed -n '2{s/\r//g;p;}'; }
id_in_c() { lc sql --csv "SELECT id FROM run WHERE uuid = '$1'" | sed -n '2{s/\r//g;p;}'; }
b1=$(uuid_of "$B" 1) b2=$(uuid_of "$B" 2)
equals "$(id_in_c "$b1") $(id_in_c "$b2")" "3 4" "B's runs 1 and 2 are runs 3 and 4 here"
equals "$(id_in_c "$(uuid_of "$A" 1)") $(id_in_c "$(uuid_of "$A" 2)")" "1 2" "A's kept their ids"

expect_exit 0 "a crate of all four" lc manifest --issue 205 -o "$T/crate" --license CC-BY-4.0
contains "$T/out" "4 run(s)" "every pulled run"

# the reviewer: another HOME with only the lab's public key, no store
rev="$T/reviewer"
mkdir -p "$rev/home" "$rev/work"
verify() { (cd "$rev/work" && env -u LABRUN_STORE HOME="$rev/home" "$LABRUN" verify "$@"); }
expect_exit 0 "the crate of pulled runs verifies" verify --key "$T/lab.pub.pem" "$T/crate"
contains "$T/out" "4 run(s)" "four runs"
contains "$T/out" "0 problem(s)" "clean"
lacks "$T/out" "PROBLEM" "nothing named"
equals "$(jq -r '.tables.run.rows[0][0]' "$T/crate/run-4/bundle.json")" "4" \
	"a renumbered run's bundle.json holds its rows with this store's ids"
equals "$(sed -n 's/^Design registered before the first block: \(ledger entry [0-9]*\), .*/\1/p' "$T/crate/report.md" | tr '\n' ' ')" \
	"ledger entry 1 ledger entry 2 " "the report cites each experiment run's design entry in its origin's ledger (B's was its 2nd)"

# every check is kept: run 4's bundle.json swapped for the bundle it was pulled in (its origin's ids
# and seal, what manifest used to write), its attestation and every statement re-signed with the
# lab's key to match, is refused: the crate's ledger entry for the run does not hold that seal
cp -R "$T/crate" "$T/bad"
pg_sql "SELECT bundle FROM run WHERE uuid = '$b2'" | tr -d '\n' >"$T/bad/run-4/bundle.json"
python3 - "$T/bad/run-4" <<'PY'
import base64, hashlib, json, sys
d = sys.argv[1]
text = open(d + "/bundle.json", "rb").read()
env = json.load(open(d + "/run.intoto.json"))
stmt = json.loads(base64.b64decode(env["payload"]))
stmt["predicate"]["sealDigest"] = json.loads(text)["seal"]["digest"]
stmt["predicate"]["bundleSha256"] = hashlib.sha256(text).hexdigest()
env["payload"] = base64.b64encode(json.dumps(stmt, separators=(",", ":"), sort_keys=True).encode()).decode()
json.dump(env, open(d + "/run.intoto.json", "w"))
PY
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$HOME/.config/labrun/signing-key.pem" || fail "re-sign"
expect_exit 1 "run 4 carrying its origin's bundle, re-signed" verify --key "$T/lab.pub.pem" "$T/bad"
contains "$T/out" "PROBLEM ledger.json: run $b2: its newest entry does not hold its seal" "is named"

# and a run file of a renumbered run, edited and re-signed with the lab's key, is refused: it is held
# to the bytes its rows give, here as everywhere
rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"
sed -i 's/"status": "[a-z]*"/"status": "cancelled"/' "$T/bad/run-4/run.json"
grep -q '"status": "cancelled"' "$T/bad/run-4/run.json" || fail "the edit did not take"
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$HOME/.config/labrun/signing-key.pem" || fail "re-sign"
expect_exit 1 "run 4's run.json edited, re-signed" verify --key "$T/lab.pub.pem" "$T/bad"
contains "$T/out" 'PROBLEM run-4/run.json: "status" is "cancelled" where the rows give ' "is named"

echo "1..$tests"
