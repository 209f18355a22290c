#!/bin/sh
# labrun verify: a reviewer with no store checks a crate or an archive from its
# own files and the reviewer's trusted keys. One crate holds an experiment run,
# a command experiment with ingested responses, a gate and a comparison, and a
# plain record; it verifies from a directory with no store and creates none.
# Each tampered copy fails and is named: a CSV value changed with every hash of
# it updated, a report cell changed (and re-signed, so only the recomputation
# can tell), a file added, a file removed, an envelope's payload edited, one
# run's envelope swapped for another crate's, an archive repacked with its sums
# updated (refused by verify and by archive --verify), a crate signed only by a
# key it carries; an envelope naming a key twice, in base64url, or with more
# signatures than the cap (docs/verify.md).
. "$(dirname "$0")/lib.sh"

L=$LABRUN
F="$TOP_SRCDIR/tests/fixtures/serving"
RESIGN="$TOP_SRCDIR/tests/cli/dsse-resign.py"
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
"$L" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1 || fail "tiny-encode"
cat >outs.ini <<'EOF2'
[experiment]
name = outs
issues = 270
target = command
[design]
blocks = 6
[arm a]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
[arm b]
command = sh -c 'echo same >"$1"' sh {outdir}/out.txt
outputs = out.txt
EOF2
"$L" run -q outs.ini >/dev/null 2>&1 || fail "the command experiment"
for r in gpu atom; do
	"$L" ingest responses --run 2 --route "$r" "$F/$r.jsonl" >/dev/null 2>&1 || fail "ingest $r"
done
"$L" compare --run 2 --reference gpu --candidate atom >/dev/null 2>&1 || true
"$L" gate --run 2 --route gpu --answers "$F/key.jsonl" >/dev/null 2>&1 || true
"$L" record -q --issue 270 -- echo hello >/dev/null 2>&1

expect_exit 0 "a crate of several --run and --issue" "$L" manifest --run 1 --issue 270 -o "$T/crate" --license CC-BY-4.0
contains "$T/out" "3 run(s)" "every run, each once"
for f in crate.intoto.json ledger-head.intoto.json report.md report.json run-1/bundle.json run-1/run.intoto.json \
	run-2/run.intoto.json run-3/run.intoto.json; do
	[ -f "$T/crate/$f" ] || fail "the crate has no $f"
done
ok "attestations, rows, the report and the signed head are in the crate"
jq -r .payload "$T/crate/run-2/run.intoto.json" | base64 -d >"$T/run2.json"
equals "$(jq -r '[._type, .predicateType, .predicate.runId, (.predicate.ledger | length > 0),
	(.subject | map(.name) | index("run-2/bundle.json") != null)] | map(tostring) | join(" ")' "$T/run2.json")" \
	"https://in-toto.io/Statement/v1 urn:labrun:run:v1 2 true true" "a run's Statement: its files, its record"
equals "$(jq -r .payloadType "$T/crate/run-2/run.intoto.json")" "application/vnd.in-toto+json" "in a DSSE envelope"
equals "$(jq -r '.signatures[0].keyid' "$T/crate/run-2/run.intoto.json")" \
	"$(printf '{"keytype":"ed25519","keyval":{"public":"%s"},"scheme":"ed25519"}' \
		"$("$L" key show | sed -n 's/^public key:  //p')" | sha256sum | cut -d' ' -f1)" \
	"the keyid is securesystemslib 1.0's (compute_default_keyid), computed here with sha256sum"
jq -r .payload "$T/crate/crate.intoto.json" | base64 -d >"$T/cs.json"
equals "$(jq -r '.subject | length' "$T/cs.json")" "$(($(find "$T/crate" -type f | wc -l) - 1))" \
	"crate.intoto.json names every other file of the crate"

# the reviewer: another HOME (no key, no configuration but the lab's public key), no store anywhere
rev="$T/reviewer"
mkdir -p "$rev/home" "$rev/work"
verify() { (cd "$rev/work" && env -u LABRUN_STORE HOME="$rev/home" "$L" verify "$@"); }
expect_exit 0 "a crate verifies with the lab's key" verify --key "$T/lab.pub.pem" "$T/crate"
contains "$T/out" "0 problem(s)" "clean"
contains "$T/out" "3 run(s)" "three runs"
[ -z "$(ls -A "$rev/work")" ] && [ ! -e "$rev/home/.config/labrun/signed-stores" ] || fail "verify left something behind"
ok "from a directory with no store, creating none"
expect_exit 1 "the same crate, no key trusted" verify "$T/crate"
keyid=$(jq -r '.signatures[0].keyid' "$T/crate/crate.intoto.json")
contains "$T/out" "crate.intoto.json: is not signed by a key you trust: it is signed by key id $keyid (fingerprint" \
	"the carried keys are not trusted, the key id that signed named"
expect_exit 0 "with --allow-unsigned" verify --allow-unsigned "$T/crate"
contains "$T/out" "no key you trust signed this crate (it is signed by key id $keyid" "says so, naming the key"
(cd "$rev/work" && HOME="$rev/home" "$L" key trust "$T/lab.pub.pem" lab >/dev/null 2>&1) || fail "key trust"
expect_exit 0 "once the reviewer trusts the lab's key" verify "$T/crate"
contains "$T/out" "signed by lab" "names the principal"

tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }
fails() { # NAME TEXT...: verify exits 1 and names each TEXT
	name=$1
	shift
	expect_exit 1 "$name: verify fails" verify "$T/bad"
	for text in "$@"; do
		contains "$T/out" "$text" "$name: named"
	done
}

rehash() { # DIR REL OLD-SHA: every hash of the edited file REL updated, as an attacker would
	sum=$(sha256sum "$1/$2" | cut -d' ' -f1)
	sed -i "s/$3/$sum/" "$1/manifest-sha256.txt" "$1/ro-crate-metadata.json"
	jq --arg s "$(stat -c %s "$1/$2")" --arg f "$2" '(."@graph"[] | select(."@id" == $f) | .contentSize) = $s' \
		"$1/ro-crate-metadata.json" >"$T/meta" && mv "$T/meta" "$1/ro-crate-metadata.json"
}
tampered
sed -i '2s/,[0-9.e-]*,/,0.000001,/' "$T/bad/run-1/repetitions.csv"
rehash "$T/bad" run-1/repetitions.csv "$(sha256sum "$T/crate/run-1/repetitions.csv" | cut -d' ' -f1)"
(cd "$rev/work" && env -u LABRUN_STORE "$L" manifest --validate "$T/bad" >/dev/null 2>&1) ||
	fail "the edited crate should still pass the structural check"
fails "a CSV value changed with every hash updated" "run-1/repetitions.csv: has sha256" \
	"run-1/run.intoto.json signed"

tampered
sed -i '0,/^| qwen3-0.6b 1\/64 | [0-9.]*/s//| qwen3-0.6b 1\/64 | 9.999/' "$T/bad/report.md"
fails "a report cell changed" "report.md: has sha256"
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null
openssl pkey -in "$T/other.pem" -pubout -out "$T/other.pub.pem" 2>/dev/null
python3 "$RESIGN" "$T/bad" "$T/other.pem"
expect_exit 1 "a report cell changed and every statement re-signed" verify --trust "$T/other.pub.pem" "$T/bad"
contains "$T/out" "report.md: table '### scalar (scalar) vs lookup (lookup), run 1', row 'qwen3-0.6b 1/64', column 'lookup median ms': the crate says '9.999'" \
	"the recomputed report names the table, the row and the cell"
lacks "$T/out" "has sha256" "while every file matches its re-signed digest"

tampered
echo extra >"$T/bad/run-2/extra.txt"
fails "a file added" "run-2/extra.txt: is not among the files crate.intoto.json signs"

tampered
rm "$T/bad/run-3/stdout/stdout"
fails "a file removed" "run-3/stdout/stdout: is signed in crate.intoto.json but not in the crate: removed"

tampered
jq '.payload = (.payload | @base64d | fromjson | .predicate.status = "failed" | tojson | @base64)' \
	"$T/crate/run-1/run.intoto.json" >"$T/bad/run-1/run.intoto.json"
fails "an envelope's payload edited" \
	"run-1/run.intoto.json: is not signed by a key you trust: key id $keyid, which you trust (lab" \
	"changed after it was signed"

envelope() { # FILE PYTHON: the crate's envelope FILE rewritten by PYTHON (text t in, text t out)
	tampered
	python3 -c "import base64, json, sys; t = open(sys.argv[1]).read(); $2; open(sys.argv[2], 'w').write(t)" \
		"$T/crate/$1" "$T/bad/$1" || fail "rewriting $1"
}
# each valid as jansson keeps the last of a key, and verified so before the envelope's rules
envelope crate.intoto.json 't = "{\"payload\": \"e30=\", " + t.lstrip()[1:]'
fails "an envelope naming its payload twice" "crate.intoto.json: is not JSON: duplicate object key"
envelope run-1/run.intoto.json 't = t.replace("\"sig\"", "\"sig\": \"AAAA\", \"sig\"", 1)'
fails "a signature naming its sig twice" "run-1/run.intoto.json: is not JSON: duplicate object key"
envelope crate.intoto.json 'e = json.loads(t); e["payload"] = base64.urlsafe_b64encode(base64.b64decode(e["payload"])).decode().rstrip("="); t = json.dumps(e)'
fails "a payload in base64url" "crate.intoto.json: the envelope's payload: invalid base64"
envelope crate.intoto.json 'e = json.loads(t); s = e["signatures"][0]; s["sig"] = s["sig"].replace("+", "-").replace("/", "_").rstrip("="); t = json.dumps(e)'
fails "a signature in base64url" "crate.intoto.json: the envelope's signature 1: invalid base64"
envelope crate.intoto.json 'e = json.loads(t); e["signatures"] = [{"keyid": "00", "sig": "AAAA"}] * 15 + e["signatures"]; t = json.dumps(e)'
expect_exit 0 "an envelope with 16 signatures, the good one last" verify "$T/bad"
envelope crate.intoto.json 'e = json.loads(t); e["signatures"] = [{"keyid": "00", "sig": "AAAA"}] * 16 + e["signatures"]; t = json.dumps(e)'
fails "an envelope with 17 signatures" "crate.intoto.json: the envelope has 17 signatures: labrun reads at most 16"

# another crate of the same store (run 1 alone): its run-1 envelope put in place of our run-2s
"$L" manifest --run 1 -o "$T/crate-b" --license CC-BY-4.0 >/dev/null 2>&1 || fail "second crate"
tampered
cp "$T/crate-b/run-1/run.intoto.json" "$T/bad/run-2/run.intoto.json"
fails "one run's envelope swapped for another crate's" "run-2/run.intoto.json: has sha256" \
	"run-2/bundle.json: is run"

# an archive repacked with its sums updated
expect_exit 0 "an archive of the same runs" "$L" archive --run 1 --issue 270 -o "$T/ev.tar.zst"
expect_exit 0 "the archive verifies" verify "$T/ev.tar.zst"
contains "$T/out" "0 problem(s)" "clean"
rm -rf "$T/x" && mkdir "$T/x" && tar -C "$T/x" --zstd -xf "$T/ev.tar.zst" 2>/dev/null
printf 'q01\n' >>"$T/x/run-2/responses/1-gpu.jsonl"
rehash "$T/x" run-2/responses/1-gpu.jsonl "$(sha256sum "$T/crate/run-2/responses/1-gpu.jsonl" | cut -d' ' -f1)"
(cd "$T/x" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort | xargs sha256sum >SHA256SUMS)
(cd "$T/x" && tar --zstd -cf "$T/repacked.tar.zst" $(ls)) || fail "repack"
expect_exit 1 "the repacked archive fails verify" verify "$T/repacked.tar.zst"
contains "$T/out" "run-2/responses/1-gpu.jsonl: has sha256" "naming the changed member"
# archive --verify checked the sums alone, which agree, and passed it: it now checks what verify does
expect_exit 1 "archive --verify refuses the repacked archive, its sums regenerated" \
	"$L" archive --verify "$T/repacked.tar.zst"
contains "$T/out" "match SHA256SUMS" "its sums agree"
contains "$T/out" "PROBLEM run-2/responses/1-gpu.jsonl: has sha256" "but the member is named against the signed digest"

# signed only by a key the crate carries
tampered
python3 "$RESIGN" "$T/bad" "$T/other.pem" --carry
fails "a crate signed only by a key it carries" "crate.intoto.json: is not signed by a key you trust" \
	"signed by no trusted key"

expect_exit 2 "verify without a path" verify
expect_exit 1 "a directory that is no crate" verify "$rev/work"
contains "$T/err" "has no crate.intoto.json" "says why"

# a crate of run 2 alone: loaded into the throwaway store it is run 1 there, but its report says run 2
# (the serving rows' labels once made every one of them a problem)
expect_exit 0 "a crate of run 2 alone" "$L" manifest --run 2 -o "$T/crate-2" --license CC-BY-4.0
grep -q '"run 2' "$T/crate-2/report.json" || fail "the crate's report does not name run 2"
expect_exit 0 "it verifies, run numbers and all" "$L" verify "$T/crate-2"
contains "$T/out" "0 problem(s)" "no problem"
