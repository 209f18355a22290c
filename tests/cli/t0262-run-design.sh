#!/bin/sh
# Pre-registered designs (issue 42, done-when 5): a run's signed design entry is in the ledger
# before its first timed block starts, which every execution of the run sees for itself (the
# entry and the design head file are there when the first one starts), and its place and time
# in the ledger show it; it verifies in audit and in a crate. A second run of the experiment
# with its margin edited is reported as a changed design naming the first. A margin edited in
# the store after the data, with every seal and signature made again with the lab's own key,
# is caught by the design entry alone, in audit and in a crate; a design entry that comes
# after its run's final one is named. A serving experiment's case set is part of its design.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
db="$T/store/labrun.db"
sc() { c=$1; shift; python3 "$TOP_SRCDIR/tests/cli/seal-check.py" "$c" "$db" "$TOP_SRCDIR/docs/schema.md" "$@"; }
"$L" key init >/dev/null 2>&1 && "$L" key export >"$T/lab.pub.pem" || fail "a key for the lab"

# every execution writes what it found when it started: the design entries in the ledger, and
# whether the design head file was there
cat >probe.sh <<'EOF2'
n=$(sqlite3 "$LABRUN_STORE/labrun.db" "SELECT count(*) FROM ledger WHERE kind = 'design'")
[ -s "$1" ] && h=head || h=nohead
echo "$n $h $(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" >>"$2"
EOF2
cat >probe.ini <<EOF2
[experiment]
name = probe
issues = 42
target = command
[design]
blocks = 6
warmup = 1
margin = 0.02
[arm a]
command = sh $T/work/probe.sh $T/work/design-head.json $T/work/seen.txt
[arm b]
command = sh $T/work/probe.sh $T/work/design-head.json $T/work/seen.txt
EOF2
expect_exit 0 "a command experiment with --design-head" "$L" run -q --design-head design-head.json probe.ini
equals "$(q "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM ledger ORDER BY seq)")" "design final" \
	"its ledger entries: the design, then the final"
equals "$(q "SELECT count(*) FROM execution WHERE run_id = 1")" "30" "30 executions: 2 parity + 7 blocks x 4"
equals "$(wc -l <seen.txt | tr -d ' ')" "30" "each wrote what it found"
equals "$(cut -d' ' -f1-2 seen.txt | sort -u)" "1 head" \
	"every execution, the parity ones and the first block's included, found the design entry and the head"
first=$(head -n 1 seen.txt | cut -d' ' -f3)
appended=$(q "SELECT appended_at FROM ledger WHERE kind = 'design'")
[ "$(printf '%s\n%s\n' "$appended" "$first" | sort | head -n 1)" = "$appended" ] ||
	fail "the design entry ($appended) is not older than the first execution ($first)"
ok "its appended_at ($appended) precedes the first execution's start ($first)"
equals "$(q "SELECT l.seq < f.seq AND l.appended_at <= f.appended_at AND l.signature IS NOT NULL
	FROM ledger l, ledger f WHERE l.kind = 'design' AND f.kind = 'final'")" "1" "signed, and before the final entry"
equals "$(q "SELECT ledger_seq || ' ' || sha256 FROM design_head WHERE run_id = 1")" \
	"1 $(sha256sum design-head.json | cut -d' ' -f1)" "the run recorded the head it wrote: entry 1, these bytes"
expect_exit 0 "the store extends the design head written before the first block" "$L" audit --head design-head.json
contains "$T/out" "the store extends the signed head of entry 1" "says so"
contains "$T/out" "0 problem(s)" "and finds nothing wrong"
sc verify >"$T/sc" || { cat "$T/sc"; fail "seal-check.py"; }
contains "$T/sc" "(1 design entries among them)" "the design digest recomputes from docs/schema.md alone"
expect_exit 0 "report" "$L" report --run 1
digest=$(q "SELECT content FROM ledger WHERE kind = 'design'")
contains "$T/out" "Design registered before the first block: ledger entry 1, digest \`$(printf %.16s "$digest")...\` (signed)" \
	"the report cites the registration"
contains "$T/out" "written to a file before the first block" "and that the design head was written"

# the same experiment with its margin edited, without a design head: named against run 1
sed 's/^margin = 0.02$/margin = 0.05/' probe.ini >probe5.ini
expect_exit 0 "the experiment again, margin 5%" "$L" run -q probe5.ini
expect_exit 0 "its report" "$L" report --run 2
contains "$T/out" "Design changed since run 1, which registered this experiment's design earlier: margin 2% -> 5%." \
	"a changed design, naming the earlier run and what changed"
contains "$T/out" "neither written nor pushed before the first block" "no design head: said so"
"$L" report --experiment "$(q "SELECT name FROM run_design WHERE run_id = 1")" --format json >reg.json || fail "the JSON report of runs 1 and 2"
equals "$(jq -r '.runs[] | "\(.run) \(.registration.ledger_entry) \(.registration.design_digest) \(.registration.design_head.ledger_entry) \(.registration.changed_since.run) \(.registration.changed_since.changes)"' reg.json)" \
	"1 1 $digest 1 null null
2 3 $(q "SELECT content FROM ledger WHERE seq = 3") null 1 margin 2% -> 5%" \
	"the JSON report has each registration: its entry, design digest, head, and what changed since which run"
expect_exit 0 "and once more unchanged" "$L" run -q probe5.ini
"$L" report --run 3 >"$T/r3.md" 2>&1 || fail "report of run 3"
lacks "$T/r3.md" "Design changed" "the same design as the run before it: nothing to say"
expect_exit 0 "the store audits clean" "$L" audit
contains "$T/out" "6 of 6 ledger entries signed and verified" "every entry, designs included, signed"

# a crate of run 2 carries run 1, which its report names; it verifies with no store
expect_exit 0 "a crate of run 2" "$L" manifest --run 2 -o crate --license CC-BY-4.0
equals "$(jq -r '[.[] | "\(.seq):\(.kind)"] | join(" ")' crate/ledger.json)" "1:design 2:final 3:design 4:final" \
	"its ledger.json: both runs' design and final entries"
expect_exit 0 "it verifies" "$L" verify --key "$T/lab.pub.pem" crate
contains crate/report.md "Design changed since run 1" "its report names the earlier run"
cp -R "$T/store" "$T/pristine"

# the lab edits run 1's margin after the data, then seals and signs everything again with its own key
sqlite3 "$db" "UPDATE run_design SET margin = 0.10 WHERE run_id = 1" || fail "edit"
sc reseal 1 || fail "reseal"
sc rechain 1 "$HOME/.config/labrun/signing-key.pem" || fail "rechain"
expect_exit 1 "a margin edited after the data, every seal and signature made again" "$L" audit
contains "$T/out" "run 1 ($(q "SELECT uuid FROM run WHERE id = 1")): its design differs from the design registered in ledger entry 1" \
	"the design entry names it"
equals "$(grep -c PROBLEM "$T/out")" "1" "and nothing else can tell"
expect_exit 0 "a crate of the rewritten run" "$L" manifest --run 1 -o crate2 --license CC-BY-4.0
expect_exit 1 "it fails to verify" "$L" verify --key "$T/lab.pub.pem" crate2
contains "$T/out" "its design differs from the design registered in its ledger entry 1" "named as a changed design"

# a design entry appended after its run's final one is no registration
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
python3 - "$db" <<'PY'
import hashlib, sqlite3, sys
con = sqlite3.connect(sys.argv[1])
seq, prev = con.execute("SELECT seq, digest FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
uuid, content = con.execute("SELECT run_uuid, content FROM ledger WHERE seq = 1").fetchone()
digest = hashlib.sha256(("labrun-ledger-1\n%d\n%s\ndesign\n%s\n%s\n" % (seq + 1, uuid, content, prev)).encode()).hexdigest()
con.execute("INSERT INTO ledger(seq, run_uuid, kind, content, prev, digest, appended_at) VALUES (?, ?, 'design', ?, ?, ?, "
            "'2026-01-01T00:00:00.000Z')", (seq + 1, uuid, content, prev, digest))
con.commit()
PY
expect_exit 1 "a design entry after the run's final" "$L" audit
contains "$T/out" "ledger entry 7 registers the design of run 1" "is named"

# a design head that cannot be written is refused before the run is stored (a usage error)
runs=$(q "SELECT count(*) FROM run")
expect_exit 2 "--design-head into a missing directory" "$L" run -q --design-head "$T/none/head.json" probe.ini
contains "$T/err" "cannot write '$T/none/head.json': '$T/none' is not a directory that exists" "says which file and why"
equals "$(q "SELECT count(*) FROM run")" "$runs" "refused before a run was stored, so nothing was executed"

# a serving experiment's case set is part of its design: its sha256 is taken before the first
# block, and a case added before the next run is named as a changed design (SIMULATED server of
# examples/serving-sim-server.py, which serves no model)
python3 "$TOP_SRCDIR/examples/serving-sim-server.py" sim-port sim-sent.log &
sim=$!
trap 'kill $sim 2>/dev/null; cleanup' EXIT
i=0
while [ ! -s sim-port ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
[ -s sim-port ] || fail "the simulated server did not start"
for i in 1 2 3; do echo "{\"case_id\": \"q$i\", \"prompt\": \"question $i\"}"; done >cases.jsonl
printf '[experiment]\nname = served\ntarget = serving\ncases = cases.jsonl\n[design]\nblocks = 2\nwarmup = 0\nexploratory = yes\n' >served.ini
for route in a b; do printf '[arm %s]\nendpoint = http://127.0.0.1:%s/v1\nmax_tokens = 4\n' "$route" "$(cat sim-port)" >>served.ini; done
expect_exit 0 "a serving experiment" "$L" run -q served.ini
run=$(q "SELECT max(id) FROM run")
equals "$(q "SELECT sha256 FROM run_digest WHERE run_id = $run AND name = 'serving_cases'")" \
	"$(sha256sum cases.jsonl | cut -d' ' -f1)" "its case set's sha256 is stored with its design"
echo '{"case_id": "q4", "prompt": "question 4"}' >>cases.jsonl
expect_exit 0 "again, with a case added" "$L" run -q served.ini
expect_exit 0 "its report" "$L" report --run "$((run + 1))"
contains "$T/out" "Design changed since run $run, which registered this experiment's design earlier: case set." \
	"the changed case set is named"
