#!/bin/sh
# What the trust files must be before labrun believes them. A key of small
# order lets anyone sign: with the identity key, R = the identity and s = 0
# "sign" every ledger head, with no private key anywhere. Such keys are
# refused by 'key trust', in a trusted-keys file, and by every verification.
# A trust file others can write (or whose directory they can) is not used, as
# ssh does with authorized_keys. A trusted-keys line with text after the key,
# or with a NUL byte, is refused with its file and line.
. "$(dirname "$0")/lib.sh"

L=$LABRUN
conf="$HOME/.config/labrun"
"$L" key init >/dev/null 2>&1 || fail "key init"
"$L" record -q -- true >/dev/null 2>&1 || fail "record"
"$L" record -q -- true >/dev/null 2>&1 || fail "record"
"$L" report --run 2 -o "$T/report.md" 2>/dev/null || fail "report"
head="$T/report.md.head.json"
expect_exit 0 "the owner's signed head audits" "$L" audit --head "$head"

zero=0000000000000000000000000000000000000000000000000000000000000000
ident=0100000000000000000000000000000000000000000000000000000000000000
# the same statement, "signed" with R = the identity's encoding and s = 0: no private key used
python3 - "$head" "$T/forged.json" <<'PY'
import base64, json, sys
env = json.load(open(sys.argv[1]))
env["signatures"] = [{"keyid": "", "sig": base64.b64encode(bytes([1]) + bytes(63)).decode()}]
json.dump(env, open(sys.argv[2], "w"))
PY
for k in "$ident" "$zero"; do
	printf 'evil ed25519 %s\n' "$k" >"$T/planted-keys" && chmod 600 "$T/planted-keys"
	LABRUN_TRUSTED_KEYS="$T/planted-keys" expect_exit 1 "a head forged for key $k is refused" \
		"$L" audit --head "$T/forged.json"
	contains "$T/err" "refused trusted key at $T/planted-keys:1" "naming the trusted-keys file and line"
	contains "$T/err" "it is a point of small order, for which signatures can be forged" "and why"
done
expect_exit 1 "the forged head is not taken for the owner's either" "$L" audit --head "$T/forged.json"
contains "$T/out" "the signed head is not signed by a key you trust" "says so"

# key trust: the zero key in PEM (SubjectPublicKeyInfo of Ed25519), and as a trusted-keys line
{ printf '302a300506032b6570032100'; printf '%s' "$zero"; } | xxd -r -p | base64 |
	{ echo "-----BEGIN PUBLIC KEY-----"; cat; echo "-----END PUBLIC KEY-----"; } >"$T/zero.pub"
cp "$conf/trusted-keys" "$T/keys.before"
expect_exit 1 "key trust of the all-zero public key is refused" "$L" key trust "$T/zero.pub" mallory
contains "$T/err" "'$T/zero.pub': Ed25519 public key $zero is refused: it is a point of small order" \
	"naming the file, the key and why"
printf 'mallory ed25519 %s\n' "$zero" >"$T/zero.keys"
expect_exit 1 "key trust of a trusted-keys line with the zero key is refused" "$L" key trust "$T/zero.keys"
contains "$T/err" "refused trusted key at $T/zero.keys:1" "naming the file and line"
printf 'mallory ed25519 edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f\n' >"$T/p.keys"
expect_exit 1 "a key encoded with y >= p is refused" "$L" key trust "$T/p.keys"
contains "$T/err" "its encoding is not canonical" "says why"
cmp -s "$conf/trusted-keys" "$T/keys.before" || fail "a refused key changed the trusted-keys file"
ok "and the trusted-keys file is as it was"

# trust files others can write are not used; 'chmod go-w' is the fix
for f in trusted-keys signed-stores; do
	chmod 666 "$conf/$f"
	expect_exit 1 "$f at mode 0666 is refused" "$L" audit
	contains "$T/err" "trust file '$conf/$f' is not used: it can be written by others (owner uid $(id -u), mode 666)" \
		"naming the file and why"
	contains "$T/err" "chmod go-w '$conf/$f'" "and the fix"
	chmod go-w "$conf/$f"
	expect_exit 0 "$f after chmod go-w is used" "$L" audit
done
HOME="$T/other" "$L" key init >/dev/null 2>&1 && HOME="$T/other" "$L" key export >"$T/other.pub" || fail "a second key"
chmod 666 "$conf/trusted-keys"
expect_exit 1 "key trust does not add to a trusted-keys file others can write" "$L" key trust "$T/other.pub" colleague
contains "$T/err" "trust file '$conf/trusted-keys' is not used" "says why"
lacks "$conf/trusted-keys" "colleague" "and the file is as it was"
chmod 600 "$conf/trusted-keys"
chmod 777 "$conf"
expect_exit 1 "a configuration directory others can write is refused" "$L" audit
contains "$T/err" "its directory $conf can be written by others (owner uid $(id -u), mode 777)" "naming it"
contains "$T/err" "chmod go-w '$conf'" "and the fix"
chmod 700 "$conf"
printf 'x ed25519 %s\n' "$("$L" key show | sed -n 's/^public key:  //p')" >"$T/wkeys"
chmod 622 "$T/wkeys"
LABRUN_TRUSTED_KEYS="$T/wkeys" expect_exit 1 "so is \$LABRUN_TRUSTED_KEYS at group/other-writable" "$L" audit
contains "$T/err" "trust file '$T/wkeys' is not used" "naming it"

# strict lines: nothing after the key, and no NUL byte
pub=$("$L" key show | sed -n 's/^public key:  //p')
printf '# mine\nme ed25519 %s extra\n' "$pub" >"$T/junk.keys"
chmod 600 "$T/junk.keys"
LABRUN_TRUSTED_KEYS="$T/junk.keys" expect_exit 4 "a line with text after the key is refused" "$L" audit
contains "$T/err" "invalid trusted key at $T/junk.keys:2: text after the key" "naming the file and line"
expect_exit 4 "in a file given with --trust too" "$L" audit --trust "$T/junk.keys"
contains "$T/err" "invalid trusted key at $T/junk.keys:2" "naming the file and line"
printf '\000evil ed25519 %s\n' "$ident" >"$T/nul.keys"
chmod 600 "$T/nul.keys"
LABRUN_TRUSTED_KEYS="$T/nul.keys" expect_exit 4 "a line starting with a NUL byte is refused, not skipped" "$L" audit
contains "$T/err" "invalid trusted key at $T/nul.keys:1: it holds a NUL byte" "naming the file and line"
printf 'me\ted25519 %s  \r\n\n  # a comment\n' "$pub" >"$T/fine.keys"
chmod 600 "$T/fine.keys"
LABRUN_TRUSTED_KEYS="$T/fine.keys" expect_exit 0 "tabs, trailing blanks, CRLF and comments are still fine" "$L" audit
