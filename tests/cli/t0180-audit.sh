#!/bin/sh
# labrun audit: passes on a fresh store; fails naming the cause after (a) one
# flipped byte in an object, (b) a sample value edited through sqlite3, (c) a
# deleted artifact file.
. "$(dirname "$0")/lib.sh"

printf 'model weights\n' >model.bin
"$LABRUN" record -q --issue 205 --artifact model.bin -- echo hello >/dev/null 2>&1
"$LABRUN" record -q -- false >/dev/null 2>&1 || true
"$LABRUN" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
"$LABRUN" replay -q 3 >/dev/null 2>&1

expect_exit 0 "a fresh store passes" "$LABRUN" audit
contains "$T/out" "audit: 4 run(s)" "every run audited"
contains "$T/out" "0 problem(s)" "no problem"
expect_exit 0 "one issue's runs" "$LABRUN" audit --issue 205

obj() { # the object file of run $1's artifact named $2
	sha=$(q "SELECT sha256 FROM artifact WHERE run_id = $1 AND name = '$2'")
	echo "$T/store/objects/$(echo "$sha" | cut -c1-2)/$(echo "$sha" | cut -c3-)"
}

# (a) one flipped byte in an object
f=$(obj 1 model.bin)
cp "$f" saved.bin
printf 'M' | dd of="$f" bs=1 count=1 conv=notrunc 2>/dev/null
expect_exit 1 "a flipped byte is found" "$LABRUN" audit
contains "$T/out" "PROBLEM run 1: output 'model.bin': object '$f' is corrupt" "names the artifact and its file"
cp saved.bin "$f"
expect_exit 0 "restored, the store passes again" "$LABRUN" audit

# (b) a sample value edited through sqlite3
sqlite3 "$T/store/labrun.db" "UPDATE repetition SET wall_s = wall_s * 0.5 WHERE run_id = 3 AND condition_idx = 0 AND block = 2 AND slot = 0"
expect_exit 1 "an edited sample is found" "$LABRUN" audit
contains "$T/out" "PROBLEM run 3: rows of table 'repetition' changed since the run was sealed" "names the run and table"
expect_exit 0 "the edit does not touch other runs" "$LABRUN" audit --run 1

# (c) a deleted artifact file
f=$(obj 1 stdout)
rm "$f"
expect_exit 1 "a deleted file is found" "$LABRUN" audit --run 1
contains "$T/out" "PROBLEM run 1: stdout 'stdout': object '$f' is missing" "names the missing file"

# a replay whose binding was edited is caught twice: by its seal and against its original
sqlite3 "$T/store/labrun.db" "UPDATE binding SET value = '7' WHERE run_id = 4 AND key = 'pinned_cpu'"
expect_exit 1 "a replay's binding drift is found" "$LABRUN" audit --run 4
contains "$T/out" "rows of table 'binding' changed since the run was sealed" "by the seal"
contains "$T/out" "its binding 'pinned_cpu' is 7, run 3 (the original) has" "against the original"

# every run at once: the runs are audited on every CPU, each worker on a connection of its own, and
# what they find is said in run order, exactly as one CPU says it
expect_exit 1 "the whole store, on every CPU" "$LABRUN" audit
cp "$T/out" "$T/all-cpus"
contains "$T/all-cpus" "PROBLEM run 3: rows of table 'repetition' changed" "run 3's problem"
contains "$T/all-cpus" "PROBLEM run 4: rows of table 'binding' changed" "run 4's problem"
[ "$(grep -n 'PROBLEM run 3' "$T/all-cpus" | head -1 | cut -d: -f1)" -lt "$(grep -n 'PROBLEM run 4' "$T/all-cpus" | head -1 | cut -d: -f1)" ] ||
	fail "run 4's problem came before run 3's"
ok "in run order"
if command -v taskset >/dev/null; then
	expect_exit 1 "the whole store, on one CPU" taskset -c 0 "$LABRUN" audit
	cmp -s "$T/out" "$T/all-cpus" || { diff "$T/all-cpus" "$T/out" >&2; fail "one CPU and every CPU disagree"; }
	ok "one CPU says exactly what every CPU says"
fi

# --json: the same audit as one object, problems and all
export LABRUN_STORE="$T/json-store"
"$LABRUN" record -q -- echo one >/dev/null 2>&1
"$LABRUN" record -q -- echo two >/dev/null 2>&1
expect_exit 0 "audit --json" "$LABRUN" audit --json
equals "$(jq -r '[.ok, .runs, .ledger.seq, (.ledger.digest | length), (.problems | length)] | map(tostring) | join(" ")' "$T/out")" \
	"true 2 2 64 0" "parses: two runs, a ledger of two, no problem"
sqlite3 "$T/json-store/labrun.db" "UPDATE run SET exit_code = 9 WHERE id = 1"
expect_exit 1 "audit --json of an edited run" "$LABRUN" audit --json
equals "$(jq -r '[.ok, .problems[0].run] | map(tostring) | join(" ")' "$T/out")" "false 1" "names the run"

# every object a row names is re-hashed: execution logs and outputs, response files, answer keys
export LABRUN_STORE="$T/objects-store"
cat >outs.ini <<'EOF2'
[experiment]
name = outs
target = command
[design]
blocks = 6
[arm a]
command = sh -c 'echo same >"$1"; echo log' sh {outdir}/out.txt
outputs = out.txt
[arm b]
command = sh -c 'echo same >"$1"; echo log' sh {outdir}/out.txt
outputs = out.txt
EOF2
"$LABRUN" run -q outs.ini >/dev/null 2>&1 || fail "the command experiment"
"$LABRUN" ingest responses --run 1 --route gpu "$TOP_SRCDIR/tests/fixtures/serving/gpu.jsonl" >/dev/null 2>&1 ||
	fail "ingest"
"$LABRUN" gate --run 1 --route gpu --answers "$TOP_SRCDIR/tests/fixtures/serving/key.jsonl" >/dev/null 2>&1 || true
expect_exit 0 "a run with executions, responses and a gate audits" "$LABRUN" audit
cp -R "$T/objects-store" "$T/objects-pristine"
corrupt() { # NAME SHA-QUERY TEXT: that object's file changed by one byte, a plain audit names it
	rm -rf "$T/objects-store" && cp -R "$T/objects-pristine" "$T/objects-store"
	sha=$(q "$2")
	obj=$(find "$T/objects-store/objects" -type f -name "*${sha#??}*" | head -1)
	[ -f "$obj" ] || fail "$1: no object file for $sha"
	chmod u+w "$obj" && printf 'X' >>"$obj"
	expect_exit 1 "a corrupted $1 is found" "$LABRUN" audit
	contains "$T/out" "$3" "$1: named"
}
corrupt "response file" "SELECT raw_sha256 FROM response_set" "object 'responses/1-gpu.jsonl'"
corrupt "answer key" "SELECT key_sha256 FROM gate" "answer key 'answers/gate-1.jsonl'"
corrupt "execution log" "SELECT stdout_sha256 FROM execution WHERE condition_idx = 0 ORDER BY seq LIMIT 1" \
	"object 'executions/c0-"
corrupt "execution output" "SELECT sha256 FROM execution_output ORDER BY seq LIMIT 1" "/out.txt'"

# Every way audit stops early releases what it had taken (--trust files, --json's arrays): the
# sanitizer build (LeakSanitizer) failed on each of these once.
printf 'x ed25519 00\n' >"$T/keys.txt"
expect_exit 2 "audit: --run with --issue is a usage error" "$LABRUN" --store "$T/objects-store" audit \
	--trust "$T/keys.txt" --run 1 --issue 270
contains "$T/err" "give at most one of --run and --issue" "says so"
expect_exit 2 "audit: a malformed --head" "$LABRUN" --store "$T/objects-store" audit --trust "$T/keys.txt" --head not-a-head
contains "$T/err" "invalid ledger head 'not-a-head'" "names it"
expect_exit 1 "audit --json of a store that does not exist" "$LABRUN" --store "$T/none" audit --json
contains "$T/err" "cannot open store '$T/none'" "names the store"
[ ! -s "$T/out" ] || fail "audit --json printed something for a store it could not open"
ok "and prints no JSON"
