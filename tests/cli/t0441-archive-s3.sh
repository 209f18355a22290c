#!/bin/sh
# Archives in a bucket (issue 46, "Archive sync that is verified"), against a throwaway moto server
# that checks every request's signature. 'archive --to' copies the .tar.zst, in parts when it is
# large, as archives/SHA256.tar.zst with an in-toto statement of its digest signed by the store's key
# beside it; boto3 reads both back. 'verify URI' reads the copy back with no store and checks it as a
# local archive, plus its name and statement; 'register --hub H URI' records the URI and the digest
# of the bytes read back, and nothing when they do not hold. A copy whose bytes are not those its
# name gives, a statement for other bytes, a statement missing, a key not trusted, a missing object,
# a URI that names no archive and a full disk on the reading side are each named; nothing is left in
# $TMPDIR, and the secret is in no store, archive or output.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/s3.sh"
lab_key
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
URI="s3://lab-evidence/shelf?endpoint=$S3_URL&region=us-east-1"
"$LABRUN" init >/dev/null
"$LABRUN" remote add shelf "$URI" || fail "remote add"
head -c 7000000 /dev/urandom >big.bin
"$LABRUN" record -q --issue 205 --artifact big.bin -- echo measured >/dev/null 2>&1 || fail "record"
"$LABRUN" record -q --issue 205 -- echo again >/dev/null 2>&1 || fail "record"

# --- archive --to: the copy and its statement, in parts (5 MiB) since the archive is larger
expect_exit 0 "archive --to a remote" env LABRUN_S3_PART_SIZE=5242880 "$LABRUN" archive --issue 205 \
	-o ev.tar.zst --to shelf
SHA=$(sha256sum ev.tar.zst | cut -d' ' -f1)
COPY="s3://lab-evidence/shelf/archives/$SHA.tar.zst?endpoint=$S3_URL&region=us-east-1&style=path"
contains "$T/out" "copied 'ev.tar.zst' ($(stat -c %s ev.tar.zst) bytes, sha256 $SHA) to 'shelf':" "says what went"
contains "$T/out" "  $COPY" "prints the copy's URI"
contains "$T/out" "its statement beside it ($SHA.intoto.json) is signed with this store's key" "and its statement"
s3py "$SHA" >"$T/read" <<'PY' || fail "boto3 cannot read the copy"
import base64, hashlib, json, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
sha = sys.argv[2]
head = s3.head_object(Bucket="lab-evidence", Key=f"shelf/archives/{sha}.tar.zst")
body = s3.get_object(Bucket="lab-evidence", Key=f"shelf/archives/{sha}.tar.zst")["Body"].read()
env = json.loads(s3.get_object(Bucket="lab-evidence", Key=f"shelf/archives/{sha}.intoto.json")["Body"].read())
stmt = json.loads(base64.b64decode(env["payload"]))
print("sha", hashlib.sha256(body).hexdigest() == sha)
print("parts", head["ETag"].strip('"').split("-")[-1] if "-" in head["ETag"] else 1)
print("subject", stmt["subject"][0]["digest"]["sha256"] == sha, stmt["predicateType"], len(env["signatures"]))
PY
contains "$T/read" "sha True" "boto3: the copy's sha256 is its name"
contains "$T/read" "parts 2" "sent in two parts"
contains "$T/read" "subject True urn:labrun:archive:v1 1" "its statement names that digest, with one signature"
expect_exit 0 "archive --to again" "$LABRUN" archive --issue 205 -o ev.tar.zst --to "${URI}"
contains "$T/out" "found 'ev.tar.zst' ($(stat -c %s ev.tar.zst) bytes, sha256 $SHA) to 's3://lab-evidence/shelf' already" \
	"the same bytes are not sent again"

# --- verify the copy with no store: the archive as a local one, its name and its statement
expect_exit 0 "verify the copy" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$COPY"
contains "$T/out" "copy '$SHA.tar.zst': $(stat -c %s ev.tar.zst) bytes read back, sha256 $SHA" "reads it back"
contains "$T/out" "copy '$SHA.tar.zst': its statement names these bytes, signed by" "the statement holds"
contains "$T/out" "0 problem(s)" "and the archive"
equals "$(ls "$TMPDIR" | wc -l)" "0" "nothing left in TMPDIR"
expect_exit 0 "archive --verify takes the URI too" env -u LABRUN_STORE "$LABRUN" archive --verify "$COPY" \
	--key "$T/lab.pub.pem"
openssl genpkey -algorithm ed25519 2>/dev/null | openssl pkey -pubout >"$T/other.pub.pem"
expect_exit 1 "a key not trusted" env -u LABRUN_STORE "$LABRUN" verify --key "$T/other.pub.pem" "$COPY"
contains "$T/out" "PROBLEM copy $SHA.tar.zst: its statement is not signed by a key you trust" "is a problem"

# --- share: URLs for the copy and its statement; a reviewer's two files verify without a bucket
expect_exit 0 "share the copy" env -u LABRUN_STORE "$LABRUN" share "$COPY" --expires 2h
contains "$T/out" "  archive  $SHA.tar.zst  $(printf '%12s' "$(stat -c %s ev.tar.zst)")  $S3_URL/lab-evidence/shelf/archives/$SHA.tar.zst?" \
	"the archive's URL"
contains "$T/out" "  statement  $SHA.intoto.json  " "and its statement's"
contains "$T/out" "X-Amz-Expires=7200&" "for two hours"
lacks "$T/out" "$S3_SECRET" "without the secret"
"$S3PY" "$TOP_SRCDIR/tests/cli/presign-check.py" us-east-1 <"$T/out" >"$T/check" || fail "presign-check.py"
equals "$(grep -c '^same$' "$T/check") $(tail -n 1 "$T/check")" "2 2" "both URLs are signed as botocore signs them"
mkdir -p "$T/reviewer"
s3py "$SHA" "$T/reviewer" <<'PY' || fail "boto3 cannot fetch the copy" # moto answers presigned GETs with 500
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
for ext in ("tar.zst", "intoto.json"):
    s3.download_file("lab-evidence", f"shelf/archives/{sys.argv[2]}.{ext}", f"{sys.argv[3]}/{sys.argv[2]}.{ext}")
PY
expect_exit 0 "verify --statement of the fetched pair" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" \
	--statement "$T/reviewer/$SHA.intoto.json" "$T/reviewer/$SHA.tar.zst"
contains "$T/out" "copy '$SHA.tar.zst': $(stat -c %s ev.tar.zst) bytes here, sha256 $SHA" "hashes the archive"
contains "$T/out" "its statement names these bytes, signed by" "checks the statement"
contains "$T/out" "0 problem(s)" "and the archive"
cp ev.tar.zst "$T/reviewer/other.tar.zst" && printf 'x' >>"$T/reviewer/other.tar.zst"
expect_exit 1 "--statement of other bytes" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" \
	--statement "$T/reviewer/$SHA.intoto.json" "$T/reviewer/other.tar.zst"
contains "$T/out" "PROBLEM copy other.tar.zst: its statement names sha256 $(echo "$SHA" | cut -c1-16)..." "names the mismatch"
expect_exit 2 "--statement with a URI" env -u LABRUN_STORE "$LABRUN" verify --statement x "$COPY"

# --- register: the URI and the digest of the bytes read back
expect_exit 0 "register the copy" "$LABRUN" register --hub zenodo "$COPY"
contains "$T/out" "read back $(stat -c %s ev.tar.zst) bytes of '$SHA.tar.zst' (sha256 $SHA)" "reads it back first"
contains "$T/out" "registered archive copy '$COPY' with hub 'zenodo' as registration 1" "then records it"
equals "$(q "SELECT archive_sha256 || ' ' || crate_path FROM registration")" "$SHA $COPY" "the URI and the digest"
expect_exit 0 "list --registered --json" "$LABRUN" list --registered --json
contains "$T/out" "\"archive_sha256\": \"$SHA\"" "shows the digest"
equals "$(ls "$TMPDIR" | wc -l)" "0" "nothing left in TMPDIR"

# --- a copy that does not hold is named, and not registered
"$LABRUN" archive --run 2 -o small.tar.zst >/dev/null 2>&1 || fail "a second archive"
s3py "$SHA" "$T/work/small.tar.zst" <<'PY' || fail "boto3 cannot swap the copy"
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
s3.put_object(Bucket="lab-evidence", Key=f"shelf/archives/{sys.argv[2]}.tar.zst", Body=open(sys.argv[3], "rb").read())
PY
expect_exit 1 "verify of a copy swapped for other bytes" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$COPY"
contains "$T/out" "PROBLEM copy $SHA.tar.zst: its bytes hash to $(sha256sum small.tar.zst | cut -c1-16)..., not to the digest its name gives" \
	"names the swap"
contains "$T/out" "verify: the archive was not unpacked: its copy does not hold" "what its name does not vouch for is not unpacked"
expect_exit 1 "register of the swapped copy" "$LABRUN" register --hub zenodo "$COPY"
contains "$T/out" "PROBLEM copy $SHA.tar.zst: its bytes hash to" "names why"
contains "$T/err" "cannot register '$SHA.tar.zst': it does not verify" "and is refused"
equals "$(q "SELECT count(*) FROM registration")" "1" "nothing recorded"
SMALL=$(sha256sum small.tar.zst | cut -d' ' -f1)
s3py "$SHA" "$SMALL" <<'PY' || fail "boto3 cannot move the statement"
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
k = lambda sha, ext: f"shelf/archives/{sha}.{ext}"
s3.put_object(Bucket="lab-evidence", Key=k(sys.argv[3], "tar.zst"),
              Body=s3.get_object(Bucket="lab-evidence", Key=k(sys.argv[2], "tar.zst"))["Body"].read())
s3.put_object(Bucket="lab-evidence", Key=k(sys.argv[3], "intoto.json"),
              Body=s3.get_object(Bucket="lab-evidence", Key=k(sys.argv[2], "intoto.json"))["Body"].read())
PY
SCOPY="s3://lab-evidence/shelf/archives/$SMALL.tar.zst?endpoint=$S3_URL&region=us-east-1"
expect_exit 1 "a statement of other bytes" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$SCOPY"
contains "$T/out" "its statement names sha256 $(echo "$SHA" | cut -c1-16)..., the bytes read back are $(echo "$SMALL" | cut -c1-16)..." \
	"names both digests"
s3py "$SMALL" <<'PY' || fail "boto3 cannot delete the statement"
import sys
import boto3
boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1").delete_object(
    Bucket="lab-evidence", Key=f"shelf/archives/{sys.argv[2]}.intoto.json")
PY
expect_exit 1 "no statement" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$SCOPY"
contains "$T/out" "there is no signed statement beside it ($SMALL.intoto.json)" "is a problem"

# --- a hostile bucket (the review of issue 46): an unsigned statement, words that would drive a
# terminal, a name in capitals, a statement for other bytes already there
s3py "$SHA" "$SMALL" <<'PY' || fail "boto3 cannot write the hostile copies"
import base64, json, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
k = lambda p, name, ext: f"{p}/archives/{name}.{ext}"
lab, small = sys.argv[2], sys.argv[3]
body = s3.get_object(Bucket="lab-evidence", Key=k("shelf", small, "tar.zst"))["Body"].read()
env = json.loads(s3.get_object(Bucket="lab-evidence", Key=k("shelf", lab, "intoto.json"))["Body"].read())
stmt = json.loads(base64.b64decode(env["payload"]))
stmt["subject"][0]["digest"]["sha256"] = small
stmt["predicate"]["bytes"] = len(body)
unsigned = {"payloadType": env["payloadType"], "payload": base64.b64encode(json.dumps(stmt).encode()).decode(),
            "signatures": []}
evil = dict(unsigned, signatures=[{"keyid": "\x1b]0;PWNED\x07\x1b[31mRED\r\nPROBLEM none", "sig": base64.b64encode(bytes(64)).decode()}])
for p, e in (("unsigned", unsigned), ("evil", evil)):
    s3.put_object(Bucket="lab-evidence", Key=k(p, small, "tar.zst"), Body=body)
    s3.put_object(Bucket="lab-evidence", Key=k(p, small, "intoto.json"), Body=json.dumps(e).encode())
# the small archive under the name of another digest, in capitals, with a statement for its bytes
s3.put_object(Bucket="lab-evidence", Key=k("caps", lab.upper(), "tar.zst"), Body=body)
s3.put_object(Bucket="lab-evidence", Key=k("caps", lab.upper(), "intoto.json"), Body=json.dumps(unsigned).encode())
PY
at() { echo "s3://lab-evidence/$1/archives/$2.tar.zst?endpoint=$S3_URL&region=us-east-1"; }
expect_exit 1 "register of a copy with an unsigned statement" "$LABRUN" register --hub zenodo "$(at unsigned "$SMALL")"
contains "$T/out" "its statement is not signed by a key you trust" "is named"
contains "$T/err" "cannot register" "and refused"
equals "$(q "SELECT count(*) FROM registration")" "1" "nothing recorded"
expect_exit 1 "verify of it" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$(at unsigned "$SMALL")"
contains "$T/out" "the archive was not unpacked" "its archive is not unpacked"
expect_exit 1 "a statement whose key id would drive the terminal" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" \
	"$(at evil "$SMALL")"
expect_exit 1 "register of it" "$LABRUN" register --hub zenodo "$(at evil "$SMALL")"
cat "$T/out" "$T/err" >"$T/both"
expect_exit 0 "--allow-unsigned" env -u LABRUN_STORE "$LABRUN" verify --allow-unsigned "$(at evil "$SMALL")"
cat "$T/out" "$T/err" >>"$T/both"
equals "$(tr -d '\n' <"$T/both" | tr -dc '\000-\037\177' | wc -c)" "0" "no control character of the bucket's reaches the terminal"
contains "$T/both" "?]0;PWNED??[31mRED??PROBLEM none" "its words are shown with '?'"
expect_exit 1 "a name in capitals of another digest" env -u LABRUN_STORE "$LABRUN" verify --allow-unsigned "$(at caps "$(echo "$SHA" | tr a-f A-F)")"
contains "$T/out" "not to the digest its name gives" "is named"
# a key trusted by its fingerprint alone: the statement names its public key, taken only for that fingerprint
fpr=$("$LABRUN" key show | sed -n 's/^fingerprint: *//p')
mkdir -p "$T/fpr"
HOME="$T/fpr" "$LABRUN" key trust "$fpr" lab >/dev/null || fail "key trust by fingerprint"
expect_exit 0 "a copy's statement checked against a key trusted by fingerprint" env -u LABRUN_STORE HOME="$T/fpr" \
	"$LABRUN" verify --statement "$T/reviewer/$SHA.intoto.json" "$T/reviewer/$SHA.tar.zst"
contains "$T/out" "its statement names these bytes, signed by lab" "holds"
expect_exit 2 "a prefix with a '..' part" env -u LABRUN_STORE "$LABRUN" verify "s3://lab-evidence/shelf/../lab/archives/$SHA.tar.zst?endpoint=$S3_URL"
contains "$T/err" "its prefix has a '.' or '..' part" "is refused"
expect_exit 2 "a region that would add a header" env -u LABRUN_STORE "$LABRUN" verify \
	"s3://lab-evidence/shelf/archives/$SHA.tar.zst?endpoint=$S3_URL&region=us-east-1$(printf '\r\nX-Evil: 1')"
contains "$T/err" "its region is not lower-case letters, digits and '-'" "is refused"
expect_exit 2 "an endpoint named twice" env -u LABRUN_STORE "$LABRUN" verify \
	"s3://lab-evidence/shelf/archives/$SHA.tar.zst?endpoint=$S3_URL&endpoint=http://elsewhere"
contains "$T/err" "its query names endpoint, region or style twice" "is refused"
expect_exit 2 "a '#' part" env -u LABRUN_STORE "$LABRUN" verify "s3://lab-evidence/shelf/archives/$SHA.tar.zst?endpoint=$S3_URL#x"
contains "$T/err" "it has a '#' part" "is refused"

s3py "$SHA" <<'PY' || fail "boto3 cannot plant a statement"
import sys
import boto3
boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1").put_object(
    Bucket="lab-evidence", Key=f"planted/archives/{sys.argv[2]}.intoto.json", Body=b"not even json")
PY
expect_exit 0 "archive --to a prefix that holds another statement for these bytes" "$LABRUN" archive --issue 205 \
	-o ev.tar.zst --to "s3://lab-evidence/planted?endpoint=$S3_URL&region=us-east-1"
contains "$T/out" "labrun: warning: the bucket holds another statement for these bytes, which stays" "says so"
lacks "$T/out" "is signed with this store's key" "and does not vouch for it"

# --- a service that misstates sizes is named, and nothing is left
s3_proxy nolength
PX="s3://lab-evidence/shelf/archives/$SMALL.tar.zst?endpoint=http://127.0.0.1:$P_PORT&region=us-east-1"
expect_exit 3 "a HEAD without a size" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$PX"
contains "$T/err" "the service did not say its size (no Content-Length)" "is named"
echo headbig >"$T/mode"
expect_exit 3 "a HEAD that says more than the GET brings" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$PX"
contains "$T/err" "sent $(stat -c %s small.tar.zst) bytes of '$SMALL.tar.zst', not the $(($(stat -c %s small.tar.zst) + 1000)) it said it holds" "is named"
echo short >"$T/mode"
expect_exit 3 "a GET cut short" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$PX"
contains "$T/err" "sent 100 bytes of '$SMALL.tar.zst'" "is named"
echo pass >"$T/mode"
equals "$(ls "$TMPDIR" | wc -l)" "0" "nothing left in TMPDIR"

# --- what is not there, or not an archive, or cannot be held here
expect_exit 1 "a missing copy" env -u LABRUN_STORE "$LABRUN" verify "s3://lab-evidence/shelf/archives/$(echo "$SHA" | tr 0-9a-f a-f0-9).tar.zst?endpoint=$S3_URL"
contains "$T/err" "has no '" "names what is missing"
expect_exit 2 "a URI that names no archive" env -u LABRUN_STORE "$LABRUN" verify "s3://lab-evidence/shelf/runs?endpoint=$S3_URL"
contains "$T/err" "'runs' is not an archive (its name does not end in .tar.zst)" "says why"
expect_exit 2 "a URI holding a secret" env -u LABRUN_STORE "$LABRUN" verify "s3://$S3_KEY:$S3_SECRET@lab-evidence/x.tar.zst"
lacks "$T/err" "$S3_SECRET" "is not repeated"
expect_exit 2 "--to a PostgreSQL remote" sh -c "'$LABRUN' remote add pg postgresql://127.0.0.1:1/x && '$LABRUN' archive --run 2 -o x.tar.zst --to pg"
contains "$T/err" "remote 'pg': it is not an S3 remote" "is refused"
[ ! -e x.tar.zst ] || fail "the archive was written before its destination was refused"
ok "before the archive is written"
rc=0
(ulimit -f 4 && exec env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$COPY") >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || fail "a full disk while reading back: exit 0"
contains "$T/err" "cannot write" "a full disk on the reading side is named"
equals "$(ls "$TMPDIR" | wc -l)" "0" "nothing left in TMPDIR"

# --- the secret is nowhere
grep -rlaF "$S3_SECRET" "$T/store" "$T/work" "$T/out" "$T/err" >"$T/found" 2>/dev/null || true
equals "$(wc -l <"$T/found")" "0" "the secret is in no store, archive or output"
echo "1..$tests"
