#!/bin/sh
# Signed ledger entries: 'labrun key init' makes an Ed25519 key only its owner
# can read; while it exists every ledger entry is signed and its public key
# stored once; a plain 'labrun audit' verifies every signature, names the
# key, and names a replaced public key or an edited signature. OpenSSL's
# command line checks a signature apart from labrun.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
keyfile="$HOME/.config/labrun/signing-key.pem"
expect_exit 0 "labrun key init" "$L" key init
contains "$T/out" "made key $keyfile" "says where"
equals "$(stat -c %a "$keyfile")" "600" "the key file is the owner's alone"
equals "$(stat -c %a "$HOME/.config/labrun")" "700" "and so is its directory"
fpr=$(sed -n 's/^fingerprint: //p' "$T/out")
pub=$(sed -n 's/^public key:  //p' "$T/out")
expect_exit 1 "a second init is refused" "$L" key init
contains "$T/err" "a key is never replaced" "says why"
expect_exit 0 "key show" "$L" key show
contains "$T/out" "fingerprint: $fpr" "shows the same key"

"$L" record -q -- true >/dev/null 2>&1
"$L" record -q -- false >/dev/null 2>&1 || true
"$L" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
expect_exit 0 "a signed store audits" "$L" audit
contains "$T/out" "signed by key $fpr: ledger entries 1-4 (runs 1-3)" "names the key of every entry and run, as ranges"
contains "$T/out" "signatures: 4 of 4 ledger entries signed and verified" "every signature verified (the experiment's design entry too)"
equals "$(q "SELECT count(*) || ' ' || min(public_key) FROM signing_key")" "1 $pub" "the public key is stored once"

# an independent check: OpenSSL verifies entry 2's signature of its digest with the stored key
openssl pkey -in "$keyfile" -pubout -out "$T/pub.pem" 2>/dev/null || fail "openssl pkey"
equals "$(openssl pkey -pubin -in "$T/pub.pem" -outform DER 2>/dev/null | tail -c 32 | od -An -tx1 | tr -d ' \n')" \
	"$pub" "the stored public key is the key file's"
printf %s "$(q "SELECT digest FROM ledger WHERE seq = 2")" >"$T/msg"
python3 -c 'import sys; sys.stdout.buffer.write(bytes.fromhex(sys.argv[1]))' \
	"$(q "SELECT signature FROM ledger WHERE seq = 2")" >"$T/sig"
openssl pkeyutl -verify -pubin -inkey "$T/pub.pem" -rawin -in "$T/msg" -sigfile "$T/sig" >/dev/null 2>&1 ||
	fail "openssl does not verify entry 2's signature"
ok "openssl verifies a ledger signature on its own"

db="$T/store/labrun.db"
cp -R "$T/store" "$T/pristine"
other=$(openssl genpkey -algorithm ed25519 2>/dev/null | openssl pkey -pubout -outform DER 2>/dev/null | tail -c 32 |
	od -An -tx1 | tr -d ' \n')
sqlite3 "$db" "UPDATE signing_key SET public_key = '$other'"
expect_exit 1 "a replaced public key is caught by a plain audit" "$L" audit
contains "$T/out" "the public key stored for key $(printf %.16s "$fpr")... is not that key: it was replaced" "named"

rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
sqlite3 "$db" "DROP TRIGGER ledger_append_only_update;
	UPDATE ledger SET signature = substr(signature, 1, 10) || (CASE substr(signature, 11, 1) WHEN '0' THEN '1' ELSE '0' END)
	|| substr(signature, 12) WHERE seq = 3"
expect_exit 1 "an edited signature is caught" "$L" audit
contains "$T/out" "the signature of ledger entry 3 (run 3, $(q "SELECT uuid FROM run WHERE id = 3")) does not verify with key $(printf %.16s "$fpr")..." "named"

# a key others can read is refused, as ssh does
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
chmod 644 "$keyfile"
expect_exit 125 "a key others can read is refused (record: labrun's own failure)" "$L" record -q -- true
contains "$T/err" "can be read by others (mode 644)" "says why"
contains "$T/err" "chmod 600" "and how to fix it"
equals "$(q "SELECT count(*) FROM run")" "3" "nothing was recorded with it"
# every command that appends to the ledger is refused the same way, and the ledger does not grow
chmod 600 "$keyfile"
"$L" manifest --run 1 -o "$T/crate1" --license CC-BY-4.0 >/dev/null 2>&1 || fail "manifest"
chmod 644 "$keyfile"
F="$TOP_SRCDIR/tests/fixtures/serving"
entries=$(q "SELECT count(*) FROM ledger")
refused() { # NAME ARGS...: refused for the readable key, the ledger unchanged
	name=$1
	shift
	set +e
	"$L" "$@" >"$T/out" 2>"$T/err"
	got=$?
	set -e
	[ "$got" != 0 ] || fail "$name with a key others can read: exit 0"
	contains "$T/err" "can be read by others (mode 644)" "$name is refused with a key others can read"
	equals "$(q "SELECT count(*) FROM ledger")" "$entries" "$name: the ledger did not grow"
}
refused ingest ingest responses --run 1 --route gpu "$F/gpu.jsonl"
refused compare compare --run 1 --reference gpu --candidate atom
refused gate gate --run 1 --route gpu --answers "$F/key.jsonl"
refused pull pull lab
refused "bench remote" bench remote lab
refused "archive --prune" archive --run 1 --prune -o "$T/pruned.tar.zst"
refused register register --hub zenodo "$T/crate1"
refused replay replay 1
refused run run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini"
refused import import --model qwen3-0.6b --tokens 16
refused config config manifest.license CC0-1.0
refused "remote add" remote add lab postgresql://localhost/evidence
refused init init

# a reader finishing an abandoned run without a usable key leaves it for later, unsigned nothing
chmod 600 "$keyfile"
"$L" record -q -- sh -c 'echo started; exec sleep 60' >/dev/null 2>&1 &
rec=$!
i=0
until [ -n "$(ls "$T"/store/spool/*.stdout 2>/dev/null || true)" ] && grep -q started "$T"/store/spool/*.stdout; do
	i=$((i + 1))
	[ $i -lt 600 ] || fail "the recorder never spooled output"
	sleep 0.1
done
child=$(pgrep -P "$rec" || true)
kill -9 "$rec"
wait "$rec" 2>/dev/null || true
[ -n "$child" ] && kill -KILL "-$child"
chmod 644 "$keyfile"
expect_exit 0 "a reader with a key others can read still reads" "$L" list
equals "$(q "SELECT status FROM run ORDER BY id DESC LIMIT 1")" "running" "the dead recorder's run is left, not finished unsigned"
equals "$(q "SELECT count(*) FROM ledger")" "$entries" "and the ledger did not grow"
chmod 600 "$keyfile"
expect_exit 0 "with the key usable again" "$L" list
equals "$(q "SELECT status FROM run ORDER BY id DESC LIMIT 1")" "abandoned" "the next reader finishes it"
equals "$(q "SELECT signature IS NOT NULL FROM ledger ORDER BY seq DESC LIMIT 1")" "1" "signed"

# a key that is no key file: a FIFO hung every writing command, a directory got the hint 'chmod 600
# DIR', a key in a directory others can write to was used
mkfifo "$T/fifo.pem"
expect_exit 125 "LABRUN_KEY naming a FIFO" env LABRUN_KEY="$T/fifo.pem" timeout 20 "$L" record -q -- true
contains "$T/err" "refusing to read signing key '$T/fifo.pem': it is not a regular file" "is refused at once"
mkdir "$T/keydir"
expect_exit 125 "LABRUN_KEY naming a directory" env LABRUN_KEY="$T/keydir" "$L" record -q -- true
contains "$T/err" "refusing to read signing key '$T/keydir': it is not a regular file" "is refused"
lacks "$T/err" "chmod 600" "without the wrong hint"
mkdir -m 777 "$T/open" && cp "$keyfile" "$T/open/key.pem" && chmod 600 "$T/open/key.pem"
chmod 777 "$T/open" # mkdir -m is subject to no umask here, but say it
expect_exit 125 "a key in a directory anyone can write to" env LABRUN_KEY="$T/open/key.pem" "$L" record -q -- true
contains "$T/err" "is in a directory others can write to (mode 777)" "is refused"

# without a key, in a store never signed here, entries are appended unsigned and audit says so
# (a store the configuration knows as signed refuses them: t0265)
LABRUN_KEY="$T/none.pem" "$L" --store "$T/unsigned" record -q -- true >/dev/null 2>&1
expect_exit 0 "an unsigned entry is not a problem" "$L" --store "$T/unsigned" audit
contains "$T/out" "signatures: 0 of 1 ledger entries signed and verified" "but is counted"
contains "$T/out" "trust: nothing in this store is signed by a key you trust" "and said plainly"

# crates (and so archives) carry the entries of their runs with signatures and public keys
rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"
expect_exit 0 "a crate of the experiment run" "$L" manifest --run 3 -o crate --license CC-BY-4.0
equals "$(jq -r '.[] | "\(.seq) \(.kind) \(.signature) \(.public_key)"' crate/ledger.json)" \
	"3 design $(q "SELECT signature FROM ledger WHERE seq = 3") $pub
4 final $(q "SELECT signature FROM ledger WHERE seq = 4") $pub" \
	"ledger.json holds entries 3 (the run's design) and 4 (its final), their signatures and key"
contains crate/ro-crate-metadata.json '"@id": "ledger.json"' "as a File of the crate"
expect_exit 0 "an archive of it" "$L" archive --run 3 -o run3.tar.zst
tar -xOf run3.tar.zst --zstd ledger.json 2>/dev/null | jq -r '.[0].signature' >"$T/archived-sig" ||
	tar -tf run3.tar.zst --zstd >&2
equals "$(cat "$T/archived-sig")" "$(q "SELECT signature FROM ledger WHERE seq = 3")" "the archive carries it too"

# a run amended twice has three entries: audit names it once (it said "runs 1 2 1 1")
export LABRUN_STORE="$T/amended"
"$L" record -q -- true >/dev/null 2>&1
"$L" record -q -- true >/dev/null 2>&1
for route in a b; do
	"$L" ingest responses --run 1 --route "$route" "$TOP_SRCDIR/tests/fixtures/serving/atom.jsonl" >/dev/null ||
		fail "amend run 1 with route $route"
done
expect_exit 0 "audit of amended runs" "$L" audit
contains "$T/out" "signed by key $fpr: ledger entries 1-4 (runs 1-2)" "each run once, entries and runs as ranges"
