#!/bin/sh
# The reviewer's script of docs/verify.md ("With openssl, jq and sha256sum only"), run as the page
# writes it: the first sh block under that heading, taken from the page by build-aux/doc-blocks.awk
# and run with sh as check-crate.sh (no -e of ours), in a directory holding the crate and the lab's
# public key. It exits 0 on an untouched crate and on an untouched archive unpacked as the page says
# (its unsigned SHA256SUMS skipped), and non-zero, saying what failed and never "crate checked", on
# every forgery it can see: a file changed without re-signing, a crate signed by another key, a file
# dropped, a file added, a directory link, a ledger entry the signed head does not list (ledger.json
# changed and the crate re-signed with the lab's key), an archive member changed with its
# SHA256SUMS written again. What only labrun verify sees (re-sealed rows) is t0285's and t0290's.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
DOC=$TOP_SRCDIR/docs/verify.md
heading='## With openssl, jq and sha256sum only'
mkdir "$T/blocks"
awk -v dir="$T/blocks" -f "$TOP_SRCDIR/build-aux/doc-blocks.awk" "$DOC" >"$T/index" || fail "doc-blocks.awk"
at=$(grep -nxF "$heading" "$DOC" | cut -d: -f1)
[ -n "$at" ] || fail "docs/verify.md has no '$heading'"
n=$(awk -v at="$at" '$3 > at { print $1; exit }' "$T/index")
[ -n "$n" ] && grep -q 'crate checked' "$T/blocks/$n.sh" || fail "no recipe block under '$heading'"
cp "$T/blocks/$n.sh" "$T/check-crate.sh"
ok "the recipe is docs/verify.md's block at line $(awk -v n="$n" '$1 == n { print $3 }' "$T/index")"

"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" key export >"$T/lab.pub.pem"
"$L" record -q --issue 270 -- sh -c 'echo "throughput 1250 tok/s"' >/dev/null 2>&1 || fail "record"
"$L" record -q --issue 270 -- sh -c 'echo second; echo err >&2' >/dev/null 2>&1 || fail "record"
expect_exit 0 "a crate" "$L" manifest --issue 270 -o "$T/crate" --license CC-BY-4.0
expect_exit 0 "an archive of the same runs" "$L" archive --issue 270 -o "$T/ev.tar.zst"
openssl genpkey -algorithm ed25519 -out "$T/other.pem" 2>/dev/null

# recipe EXIT DESCRIPTION DIR: the script on a copy of DIR named crate, beside lab.pub.pem
recipe() {
	rm -rf "$T/rev" && mkdir "$T/rev" && cp -R "$3" "$T/rev/crate" && cp "$T/lab.pub.pem" "$T/rev/"
	set +e
	(cd "$T/rev" && sh "$T/check-crate.sh" crate lab.pub.pem) >"$T/out" 2>"$T/err"
	got=$?
	set -e
	quiet=$([ -s "$T/err" ] || echo yes)
	cat "$T/err" >>"$T/out"
	if [ "$1" = 0 ] && [ "$got" = 0 ] && [ "$quiet" = yes ] && grep -qx "crate checked" "$T/out"; then
		ok "$2: exit 0, crate checked, nothing on stderr"
	elif [ "$1" = fail ] && [ "$got" != 0 ] && ! grep -q "crate checked" "$T/out"; then
		ok "$2: exit $got"
	else
		cat "$T/out" >&2
		fail "$2: exit $got, expected $1"
	fi
}
# forged DESCRIPTION TEXT: the script refuses $T/bad, printing TEXT
forged() {
	recipe fail "$1" "$T/bad"
	contains "$T/out" "$2" "$1: says so"
}
tampered() { rm -rf "$T/bad" && cp -R "$T/crate" "$T/bad"; }

recipe 0 "the untouched crate" "$T/crate"
mkdir "$T/x" && tar -C "$T/x" --zstd -xf "$T/ev.tar.zst" 2>/dev/null || fail "unpack the archive"
[ -f "$T/x/SHA256SUMS" ] || fail "the archive has no SHA256SUMS"
recipe 0 "the untouched archive, unpacked" "$T/x"

tampered
echo "throughput 9999 tok/s" >"$T/bad/run-1/stdout/stdout"
forged "a file changed without re-signing" "run-1/stdout/stdout: FAILED"

tampered
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$T/other.pem" || fail "re-sign"
forged "a crate signed by another key" "crate/crate.intoto.json: no signature verifies with lab.pub.pem"

tampered
echo "throughput 9999 tok/s" >"$T/bad/run-1/stdout/stdout"
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$T/other.pem" || fail "re-sign"
forged "a file changed and the crate re-signed by another key" "no signature verifies with lab.pub.pem"

tampered
rm "$T/bad/run-2/stderr/stderr"
forged "a file dropped" "run-2/stderr/stderr: FAILED open or read"

tampered
echo extra >"$T/bad/run-1/notes.txt"
forged "a file added" "present but not signed"
contains "$T/out" "run-1/notes.txt" "names the added file"

tampered
ln -s /etc "$T/bad/run-1/etc"
forged "a directory link" "not a regular file or directory: run-1/etc"

# an entry of ledger.json that recomputes but is not the signed head's: run 2's seal entry made to
# hold another content, its digest computed again, and the crate re-signed with the lab's own key
tampered
jq -r '.[1] | "\(.seq) \(.run_uuid) \(.kind) \(.prev)"' "$T/crate/ledger.json" >"$T/e"
read -r seq uuid kind prev <"$T/e"
content=$(printf forged | sha256sum | cut -d' ' -f1)
digest=$(printf 'labrun-ledger-1\n%s\n%s\n%s\n%s\n%s\n' "$seq" "$uuid" "$kind" "$content" "$prev" | sha256sum | cut -d' ' -f1)
jq --arg c "$content" --arg d "$digest" '.[1].content = $c | .[1].digest = $d' "$T/crate/ledger.json" >"$T/bad/ledger.json"
python3 "$TOP_SRCDIR/tests/cli/dsse-resign.py" "$T/bad" "$HOME/.config/labrun/signing-key.pem" || fail "re-sign"
forged "a ledger entry out of the signed head" "ledger.json: entry $seq is not one the signed head lists"

# an archive member changed and SHA256SUMS written again: the sums are skipped, the signed digests hold
rm -rf "$T/bad" && cp -R "$T/x" "$T/bad"
echo "throughput 9999 tok/s" >"$T/bad/run-1/stdout/stdout"
(cd "$T/bad" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
forged "an archive member changed with its SHA256SUMS written again" "run-1/stdout/stdout: FAILED"
