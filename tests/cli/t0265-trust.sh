#!/bin/sh
# Trust anchored outside the store. Someone who can write labrun.db but does
# not hold the private key rewrites a run and re-chains the ledger by the
# published rules (tests/cli/seal-check.py, apart from labrun's C code), then
# drops the signatures, re-signs with a key of their own, deletes or reorders
# runs, strips every signature and the stored key, or rewrites the store id.
# A plain 'labrun audit' on the owner's machine fails on each and names the
# first rewritten run: the owner's configuration, not the store, says which
# keys are trusted and from which entry on the store is signed.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
SC="$TOP_SRCDIR/tests/cli/seal-check.py"
DOC="$TOP_SRCDIR/docs/schema.md"
conf="$HOME/.config/labrun"
"$L" key init >/dev/null 2>&1 || fail "key init"
fpr=$("$L" key show | sed -n 's/^fingerprint: //p')
contains "$conf/trusted-keys" "self ed25519 $("$L" key show | sed -n 's/^public key:  //p')" \
	"key init trusts the new key in the user's configuration"
"$L" record -q --issue 270 -- true >/dev/null 2>&1
"$L" record -q --issue 270 -- false >/dev/null 2>&1 || true
"$L" run -q "$TOP_SRCDIR/tests/fixtures/experiments/tiny-encode.ini" >/dev/null 2>&1
"$L" record -q -- true >/dev/null 2>&1
db="$T/store/labrun.db"
sid=$(q "SELECT id FROM store_identity")
equals "$(printf %s "$sid" | wc -c)" "32" "the store got an id when it was created"
contains "$conf/signed-stores" "$sid 1 $fpr $T/store" "the configuration remembers it as signed from entry 1 by the key"

expect_exit 0 "a clean signed store audits" "$L" audit
contains "$T/out" "5 of 5 ledger entries signed and verified, 5 by a key you trust" "every entry by a trusted key"
contains "$T/out" "knows this store as signed from ledger entry 1 on" "and says what the configuration knows"
python3 "$SC" verify "$db" "$DOC" >"$T/sc" || { cat "$T/sc"; fail "seal-check.py on the clean store"; }
contains "$T/sc" "4 seals and 5 ledger entries recomputed from docs/schema.md (1 design entries among them)" \
	"every seal, the chain and the experiment's design digest recompute from docs/schema.md alone"

uuid() { q "SELECT uuid FROM run WHERE id = $1"; }
# the signed head, as a report gives it: beside the Markdown, in a file of its own (issue 41: an issue
# comment holds no signature blob)
"$L" report --run 3 -o "$T/report.md" 2>/dev/null || fail "report"
lacks "$T/report.md" "The signed ledger head" "the Markdown carries no signed head"
equals "$(jq -r .payloadType "$T/report.md.head.json")" "application/vnd.in-toto+json" "it is beside it, the envelope"
"$L" report --run 3 --format json | jq -r .ledger_head.statement.payload | base64 -d >"$T/head.json"
equals "$(jq -r '[.predicateType, .predicate.storeId, .predicate.seq, (.predicate.entries | length),
	.subject[0].digest.sha256 == .predicate.digest] | map(tostring) | join(" ")' "$T/head.json")" \
	"urn:labrun:ledger-head:v1 $sid 5 5 true" "its statement: the store id, the head and every entry up to it"
"$L" report --run 3 >"$T/report2.md" 2>/dev/null
cmp -s "$T/report.md" "$T/report2.md" || fail "the report is not byte-identical when made again"
ok "and the report stays byte-identical"
expect_exit 0 "audit --head REPORT.md.head.json on the clean store" "$L" audit --head "$T/report.md.head.json"
contains "$T/out" "the store extends the signed head of entry 5" "says so"
expect_exit 2 "the Markdown itself holds no head" "$L" audit --head "$T/report.md"
contains "$T/err" "'$T/report.md' holds no signed ledger head" "says so"
contains "$T/err" "(here '$T/report.md.head.json')" "and names the file to give"
# a Markdown report from before, the signed head folded inside it, still gives its head
{ printf '# labrun report: run 3\n\n<details><summary>The signed ledger head: <code>labrun audit --head REPORT.md</code></summary>\n\n```json\n'
	cat "$T/report.md.head.json"; printf '```\n\n</details>\n'; } >"$T/old-report.md"
expect_exit 0 "audit --head of a Markdown report written before" "$L" audit --head "$T/old-report.md"
contains "$T/out" "the store extends the signed head of entry 5" "its head is taken"
u2=$(uuid 2) u3=$(uuid 3) u4=$(uuid 4)
cp -R "$T/store" "$T/pristine"
fresh() { rm -rf "$T/store" && cp -R "$T/pristine" "$T/store"; }
edit3() { # the attacker's edit: run 3's repetitions 10x faster, its seal recomputed
	sqlite3 "$db" "UPDATE repetition SET wall_s = wall_s / 10 WHERE run_id = 3" || fail "edit"
	python3 "$SC" reseal "$db" "$DOC" 3 || fail "reseal"
}
caught() { # NAME TEXT...: a plain audit exits 1 and names each TEXT
	name=$1
	shift
	expect_exit 1 "$name: a plain audit fails" "$L" audit
	for text in "$@"; do
		contains "$T/out" "$text" "$name: names it"
	done
}
by_head() { # NAME TEXT...: audit --head with the signed head exits 1 and names each TEXT
	name=$1
	shift
	expect_exit 1 "$name: audit --head with the signed head fails" "$L" audit --head "$T/report.md.head.json"
	for text in "$@"; do
		contains "$T/out" "$text" "$name: the signed head names it"
	done
}

fresh
edit3
python3 "$SC" rechain "$db" "$DOC" 3
python3 "$SC" verify "$db" "$DOC" >/dev/null || fail "the re-chained store does not recompute"
caught "a full re-chain with signatures removed" \
	"PROBLEM ledger: ledger entry 3 (run 3, $u3) is not signed, but your configuration knows this store as signed from entry 1 on"
lacks "$T/out" "entry 2 (run 2" "the entries before the rewrite are not blamed"
# (entry 3, run 3's design, holds what it held: only its signature is gone)
by_head "a full re-chain" "run 3 ($u3), entry 4 at the signed head, was changed" \
	"run 4 ($u4), entry 5 at the signed head, was changed"

fresh
edit3
openssl genpkey -algorithm ed25519 -out "$T/attacker.pem" 2>/dev/null
python3 "$SC" rechain "$db" "$DOC" 3 "$T/attacker.pem"
afpr=$(q "SELECT fingerprint FROM signing_key WHERE fingerprint <> '$fpr'")
caught "re-chained and re-signed with another key" \
	"ledger entry 3 (run 3, $u3) is signed by key $(printf %.16s "$afpr")..., which is not among your trusted keys"
# every entry re-signed, and the attacker's public key the only one the store holds
fresh
edit3
python3 "$SC" rechain "$db" "$DOC" 1 "$T/attacker.pem"
sqlite3 "$db" "DELETE FROM signing_key WHERE fingerprint = '$fpr'"
caught "every entry re-signed, the public key replaced in the store" \
	"ledger entry 1 (run 1, $(uuid 1)) is signed by key $(printf %.16s "$afpr")..., which is not among your trusted keys" \
	"ledger entry 3 (run 3, $u3) is signed by key $(printf %.16s "$afpr")..."

fresh
sqlite3 "$db" "PRAGMA foreign_keys = OFF; DELETE FROM run_issue WHERE run_id = 2; DELETE FROM run_seal WHERE run_id = 2;
	DELETE FROM env_var WHERE run_id = 2; DELETE FROM source_state WHERE run_id = 2;
	DELETE FROM source_file WHERE run_id = 2; DELETE FROM artifact WHERE run_id = 2; DELETE FROM run WHERE id = 2;
	DROP TRIGGER IF EXISTS ledger_append_only_delete; DELETE FROM ledger WHERE seq = 2"
python3 "$SC" rechain "$db" "$DOC" 2
caught "a deleted run, re-chained" "ledger entry 2 (run 3, $u3) is not signed"
by_head "a deleted run" "run $u2, entry 2 at the signed head, is not in the ledger: deleted" \
	"run 3 ($u3), entry 3 at the signed head, is entry 2 now and changed"

fresh
sqlite3 "$db" "DROP TRIGGER IF EXISTS ledger_append_only_update; UPDATE ledger SET seq = 0 WHERE seq = 1;
	UPDATE ledger SET seq = 1 WHERE seq = 2; UPDATE ledger SET seq = 2 WHERE seq = 0"
python3 "$SC" rechain "$db" "$DOC" 1
caught "two reordered runs, re-chained" "ledger entry 1 (run 2, $u2) is not signed"
by_head "two reordered runs" "run 1 ($(uuid 1)), entry 1 at the signed head, is entry 2 now" \
	"run 2 ($u2), entry 2 at the signed head, is entry 1 now"
# a head signed by another key, and an edited one, are not taken for the owner's
python3 - "$T/report.md.head.json" "$T/forged.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
stmt = json.loads(base64.b64decode(env["payload"]))
stmt["predicate"]["entries"] = stmt["predicate"]["entries"][:2]
env["payload"] = base64.b64encode(json.dumps(stmt).encode()).decode()
json.dump(env, open(sys.argv[2], "w"))
PY
fresh
expect_exit 1 "an edited signed head" "$L" audit --head "$T/forged.json"
contains "$T/out" "the signed head is not signed by a key you trust" "is refused as unsigned by a trusted key"

fresh
edit3
python3 "$SC" rechain "$db" "$DOC" 1
sqlite3 "$db" "PRAGMA foreign_keys = OFF; DROP TRIGGER IF EXISTS ledger_append_only_update;
	UPDATE ledger SET key_fingerprint = NULL, signature = NULL; DELETE FROM signing_key"
caught "every signature and the stored key removed" "ledger entry 1 (run 1, $(uuid 1)) is not signed" \
	"ledger entry 3 (run 3, $u3) is not signed"

fresh
edit3
python3 "$SC" rechain "$db" "$DOC" 1
sqlite3 "$db" "PRAGMA foreign_keys = OFF; DROP TRIGGER IF EXISTS ledger_append_only_update;
	UPDATE ledger SET key_fingerprint = NULL, signature = NULL; DELETE FROM signing_key;
	UPDATE store_identity SET id = '0123456789abcdef0123456789abcdef'"
caught "the store id rewritten" \
	"says its id is 0123456789abcdef0123456789abcdef, but your configuration knows it as store $sid" \
	"ledger entry 3 (run 3, $u3) is not signed"

# a copy of the store elsewhere, unknown to this configuration: audit says plainly nothing is trusted
fresh
rm -rf "$T/copy" && cp -R "$T/store" "$T/copy"
sqlite3 "$T/copy/labrun.db" "PRAGMA foreign_keys = OFF; DROP TRIGGER IF EXISTS ledger_append_only_update;
	UPDATE ledger SET key_fingerprint = NULL, signature = NULL; DELETE FROM signing_key;
	UPDATE store_identity SET id = '0123456789abcdef0123456789abcdef'"
expect_exit 0 "an unknown unsigned store is no failure in itself" "$L" --store "$T/copy" audit
contains "$T/out" "trust: nothing in this store is signed by a key you trust" "but audit says so plainly"

# a key the owner does not trust: named, and 'key trust' is the way to accept it
fresh
HOME="$T/other" "$L" key init >/dev/null 2>&1
HOME="$T/other" "$L" record -q -- true >/dev/null 2>&1 || fail "a second signer records"
ofpr=$(HOME="$T/other" "$L" key show | sed -n 's/^fingerprint: //p')
caught "an entry signed by a key not trusted" "ledger entry 6 (run 5, $(uuid 5)) is signed by key $(printf %.16s "$ofpr")..."
HOME="$T/other" "$L" key export >"$T/other.pub"
expect_exit 0 "key trust FILE" "$L" key trust "$T/other.pub" colleague
contains "$T/out" "trusted key $ofpr (colleague)" "says so"
expect_exit 0 "a shared store with two trusted signers audits" "$L" audit
contains "$T/out" "6 of 6 ledger entries signed and verified, 6 by a key you trust" "both signers' entries count"
expect_exit 0 "key list" "$L" key list
contains "$T/out" "$ofpr colleague (public key)" "lists the colleague's key"
expect_exit 0 "key untrust" "$L" key untrust "$(printf %.12s "$ofpr")"
expect_exit 1 "after untrust the entry is a problem again" "$L" audit
expect_exit 0 "--trust FILE trusts a key for one audit" "$L" audit --trust "$T/other.pub"
expect_exit 4 "a trusted-keys line that is not one is refused as bad data" "$L" audit --trust "$T/sc"
contains "$T/err" "invalid trusted key at $T/sc:1" "naming the file and line"

# no key and a store known as signed: writing is refused, and nothing is appended
fresh
before=$(q "SELECT count(*) FROM ledger")
LABRUN_KEY="$T/none.pem" expect_exit 125 "recording unsigned into a signed store is refused" "$L" record -q -- true
contains "$T/err" "knows this store as signed from ledger entry 1 on, and there is no signing key" "says why"
equals "$(q "SELECT count(*) FROM ledger")" "$before" "the ledger did not grow"
