#!/bin/sh
# Each run's attestation is also a Sigstore bundle, run-ID/run.sigstore.json (issue 43, item 9;
# docs/verify.md, "With Sigstore's verifier"): v0.3, the run.intoto.json envelope field for field,
# a public-key hint (the envelope's DSSE key id) and no transparency-log entry. labrun verify
# checks it against the envelope; Sigstore's own verifier (@sigstore/verify, tests/sigstore, at the
# lockfile's exact version) checks it offline with the lab's public key, traced to make no network
# call, and refuses a changed payload, another key, and (with its default thresholds) a bundle
# without a transparency-log entry or timestamp, which is what it asks of a keyed bundle by default.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
RESIGN="$TOP_SRCDIR/tests/cli/dsse-resign.py"
V1=application/vnd.dev.sigstore.bundle.v0.3+json
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
"$L" record -q --issue 270 -- sh -c 'echo "throughput 1250 tok/s"' >/dev/null 2>&1 || fail "record"
expect_exit 0 "a crate of the run" "$L" manifest --run 1 -o crate --license CC-BY-4.0
B=crate/run-1/run.sigstore.json E=crate/run-1/run.intoto.json
[ -f "$B" ] || fail "no $B: $(ls crate/run-1)"
ok "the run's Sigstore bundle is written beside its attestation"

# its fields, computed with jq apart from labrun
[ "$(jq -r .mediaType "$B")" = "$V1" ] || fail "mediaType: $(jq -r .mediaType "$B")"
ok "its mediaType is $V1"
jq -cS .dsseEnvelope "$B" | cmp -s - "$E" || fail "its dsseEnvelope is not run.intoto.json's bytes"
ok "its dsseEnvelope is run.intoto.json's envelope, byte for byte"
[ "$(jq -c .verificationMaterial.tlogEntries "$B")" = "[]" ] || fail "tlogEntries: $(jq -c .verificationMaterial "$B")"
[ "$(jq -r '.verificationMaterial | keys | join(",")' "$B")" = "publicKey,tlogEntries" ] ||
	fail "verificationMaterial: $(jq -c .verificationMaterial "$B")"
ok "no transparency-log entry, no timestamp, no certificate"
raw=$(openssl pkey -pubin -in "$T/lab.pub.pem" -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n')
keyid=$(printf '{"keytype":"ed25519","keyval":{"public":"%s"},"scheme":"ed25519"}' "$raw" | sha256sum | cut -d' ' -f1)
[ "$(jq -r .verificationMaterial.publicKey.hint "$B")" = "$keyid" ] ||
	fail "hint $(jq -r .verificationMaterial.publicKey.hint "$B"), the lab key's DSSE key id is $keyid"
ok "its public-key hint is the lab key's DSSE key id"
jq -e --arg b run-1/run.sigstore.json '.payload | @base64d | fromjson | .subject | map(.name) | index($b)' \
	crate/crate.intoto.json >/dev/null || fail "crate.intoto.json does not sign the bundle"
jq -e --arg b run-1/run.sigstore.json '.payload | @base64d | fromjson | .subject | map(.name) | index($b) | not' \
	"$E" >/dev/null || fail "run.intoto.json lists the bundle made after it"
ok "crate.intoto.json signs it; run.intoto.json, written before it, does not"

expect_exit 0 "labrun verify accepts the crate with its bundle" "$L" verify --key "$T/lab.pub.pem" crate
lacks "$T/out" "PROBLEM" "no problem named"
expect_exit 0 "an archive of the run" "$L" archive --run 1 -o "$T/ev.tar.zst"
tar --zstd -tf "$T/ev.tar.zst" 2>/dev/null | grep -qx "run-1/run.sigstore.json" || fail "the archive lacks the bundle"
ok "the archive carries the bundle"
expect_exit 0 "labrun verify accepts the archive" "$L" verify --key "$T/lab.pub.pem" "$T/ev.tar.zst"

# a bundle changed: named by labrun verify, the crate's signature apart
cp -R crate changed
jq -c '.dsseEnvelope.payload |= (@base64d | sub("passed"; "failed") | @base64)' "$B" >"$T/b" && cp "$T/b" changed/run-1/run.sigstore.json
expect_exit 1 "a bundle whose payload was changed fails verify" "$L" verify --key "$T/lab.pub.pem" changed
contains "$T/out" "PROBLEM run-1/run.sigstore.json: holds an envelope other than run-1/run.intoto.json's" \
	"the changed bundle is named against its envelope"
# the same with every statement signed again by the lab's key: only the bundle's check can tell
cp -R crate resigned
jq -c '.mediaType = "application/vnd.dev.sigstore.bundle.v0.2+json"' "$B" >"$T/b" && cp "$T/b" resigned/run-1/run.sigstore.json
python3 "$RESIGN" resigned "$HOME/.config/labrun/signing-key.pem" || fail "re-sign"
expect_exit 1 "a re-signed crate with a v0.2 bundle fails verify" "$L" verify --key "$T/lab.pub.pem" resigned
contains "$T/out" "PROBLEM run-1/run.sigstore.json: is not a Sigstore bundle v0.3" "the re-signed bundle is named"

# an unsigned store writes no bundle (a bundle holds exactly one signature, with a key to name)
HOME=$T/nokey LABRUN_STORE=$T/store2 "$L" record -q -- true >/dev/null 2>&1 || fail "unsigned record"
expect_exit 0 "an unsigned crate" env HOME="$T/nokey" LABRUN_STORE="$T/store2" "$L" manifest --run 1 -o plain --license CC-BY-4.0
[ ! -e plain/run-1/run.sigstore.json ] || fail "an unsigned run got a bundle"
ok "an unsigned run gets no bundle"
expect_exit 0 "the unsigned crate verifies with --allow-unsigned" "$L" verify --allow-unsigned plain

# Sigstore's verifier, offline
S=$TOP_SRCDIR/tests/sigstore
missing() {
	[ "${CI:-}" = true ] && fail "CI: $1 (Sigstore's verifier is never skipped in CI)"
	echo "skipped the rest: $1"
	exit 77
}
node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 17) ? 0 : 1)' 2>/dev/null ||
	missing "@sigstore/verify $(jq -r '.dependencies["@sigstore/verify"]' "$S/package.json") needs Node.js 20.17 or later"
[ -d "$S/node_modules/@sigstore/verify" ] || missing "tests/sigstore is not installed: build-aux/install-deps --test installs it"
ver=$(jq -r .version "$S/node_modules/@sigstore/verify/package.json")
[ "$ver" = "$(jq -r '.dependencies["@sigstore/verify"]' "$S/package.json")" ] || fail "@sigstore/verify $ver is installed, not the pinned one"
verify_js() { node "$S/verify-bundle.js" "$@"; }
if command -v strace >/dev/null; then
	expect_exit 0 "@sigstore/verify $ver verifies the bundle with the lab's key" \
		strace -f -qq -e trace=socket,connect -o "$T/net" node "$S/verify-bundle.js" "$B" "$T/lab.pub.pem"
	! grep -E "AF_INET|connect\(" "$T/net" >/dev/null || fail "it used the network: $(cat "$T/net")"
	ok "it opened no network socket (strace)"
else
	expect_exit 0 "@sigstore/verify $ver verifies the bundle with the lab's key" verify_js "$B" "$T/lab.pub.pem"
fi
contains "$T/out" "verified $keyid $V1" "it names the lab key's id and the bundle's version"
expect_exit 1 "@sigstore/verify refuses the changed payload" verify_js changed/run-1/run.sigstore.json "$T/lab.pub.pem"
contains "$T/out" "refused SIGNATURE_ERROR: signature verification failed" "it says the signature fails"
openssl genpkey -algorithm ed25519 2>/dev/null | openssl pkey -pubout >"$T/other.pem"
expect_exit 1 "@sigstore/verify refuses another key offered under the bundle's hint" verify_js "$B" "$T/other.pem" --any-hint
contains "$T/out" "refused SIGNATURE_ERROR: signature verification failed" "the other key's signature check fails"
expect_exit 1 "@sigstore/verify finds no key for the hint among others" verify_js "$B" "$T/other.pem"
contains "$T/out" "refused PUBLIC_KEY_ERROR: key not found: $keyid" "it names the hint it found no key for"
expect_exit 1 "with its default thresholds it refuses a bundle with no timestamp" verify_js "$B" "$T/lab.pub.pem" --defaults
contains "$T/out" "refused TIMESTAMP_ERROR: expected 1 timestamps, got 0" "what it asks of a keyed bundle by default"
expect_exit 1 "with the timestamp waived it refuses a bundle with no transparency-log entry" \
	verify_js "$B" "$T/lab.pub.pem" --log-default
contains "$T/out" "refused TLOG_ERROR: expected 1 tlog entries, got 0" "what it asks next"
