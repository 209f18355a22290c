#!/bin/sh
# S3 remotes against Ceph's RADOS Gateway (issue 46), a second S3 implementation beside moto: a
# one-node cluster of the test's own (tests/cli/rgw.sh). Two stores push to one prefix at once and a
# third pulls both: fsck and audit pass, and the third store's report for the issue is the union of
# the two, run ids aside; boto3 reads back every object and its sha256 is its name; the gateway
# refuses a write over an existing key (If-None-Match) so a changed run is refused and named; a wrong
# secret is refused by the gateway, naming the key id and never the secret. The gateway is killed in
# the middle of a 60 MiB object's multipart upload and started again: the push names the failure,
# and the next push sends only the parts the gateway's own request log shows it lacked. An archive
# goes to the gateway and verifies from there, and a reviewer with no credentials fetches it and its
# statement with the presigned URLs 'share' prints and verifies the pair. The secret is in no store.
. "$(dirname "$0")/../cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/rgw.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
URI="s3://lab/team?endpoint=$RGW_URL&region=us-east-1"
lab_key
hosts a b c
for s in a b c; do LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$URI" || fail "remote add in $s"; done
expect_exit 0 "remote init" la remote init lab
contains "$T/out" "marked as a labrun remote" "marks the prefix"

# --- two hosts push at once, a third pulls both
for s in a b; do
	(cd "$T/work" && LABRUN_STORE=$T/$s "$LABRUN" run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "run in $s"
	head -c 2000000 /dev/urandom >"$T/work/$s.bin"
	(cd "$T/work" && LABRUN_STORE=$T/$s "$LABRUN" record -q --issue 205 --artifact "$s.bin" -- echo "$s" >/dev/null 2>&1) ||
		fail "record in $s"
done
push_at_once "$A" "$B"
ok "A and B pushed at once"
expect_exit 0 "pull into C" lc pull
contains "$T/out" "4 runs pulled, 0 already here, 0 refused" "every run"
expect_exit 0 "fsck of C" lc fsck
contains "$T/out" "0 missing or corrupt" "every object"
expect_exit 0 "audit of C" lc audit
contains "$T/out" "0 problem(s)" "sound"
report_is_union 205 "$A" "$B" "$C"
s3py >"$T/keys" <<'PY' || fail "boto3 cannot read the bucket"
import hashlib, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="lab", Prefix="team/"):
    for o in page.get("Contents", []):
        kind, _, name = o["Key"][len("team/"):].partition("/")
        if kind in ("objects", "bundles"):
            body = s3.get_object(Bucket="lab", Key=o["Key"])["Body"].read()
            print(kind, "same" if hashlib.sha256(body).hexdigest() == name else "DIFFERENT")
PY
equals "$(grep -c DIFFERENT "$T/keys")" "0" "boto3: every object's and bundle's sha256 is its name"
equals "$(grep -c '^bundles same' "$T/keys")" "4" "four bundles"

# --- the gateway refuses to replace: a changed run is refused and named
la ingest responses --run 2 --route late "$TOP_SRCDIR/tests/fixtures/serving/atom.jsonl" >/dev/null || fail "amend A's run 2"
expect_exit 1 "push of an amended run" la push
contains "$T/err" "remote 'lab' refuses run" "is refused and named"
expect_exit 3 "a wrong secret" env AWS_SECRET_ACCESS_KEY=not-the-secret-77 LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/err" "SignatureDoesNotMatch" "the gateway refuses it"
contains "$T/err" "signed with access key $S3_KEY" "names the key id"
lacks "$T/err" "not-the-secret-77" "never the secret"

# --- the gateway killed in the middle of a multipart upload, and started again
head -c 62914560 /dev/urandom >"$T/work/big.bin"
(cd "$T/work" && lb record -q --artifact big.bin -- echo big >/dev/null 2>&1) || fail "record big"
parts() { grep -ac 'PUT /lab/team/objects/[0-9a-f]*?partNumber=' "$rgw_log" || true; }
before=$(parts)
LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE="$B" "$LABRUN" push >"$T/pk" 2>&1 &
pk=$!
i=0
until [ $(($(parts) - before)) -ge 4 ]; do
	i=$((i + 1))
	[ $i -lt 3000 ] && kill -0 $pk 2>/dev/null || fail "the push did not send 4 parts"
	sleep 0.1
done
kill -9 "$RGW_PID"
wait "$RGW_PID" 2>/dev/null || true
RGW_PID=""
rc=0
wait $pk || rc=$?
equals "$rc" "3" "the push fails when the gateway dies (exit 3)"
contains "$T/pk" "cannot send part " "names the part"
contains "$T/pk" "on remote 'lab' (bucket 'lab', prefix 'team/' at $RGW_URL): Couldn't connect to server" \
	"the remote and why"
rgw_start
held=$(s3py <<'PY'
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
ups = s3.list_multipart_uploads(Bucket="lab", Prefix="team/objects/").get("Uploads", [])
print(max([len(s3.list_parts(Bucket="lab", Key=u["Key"], UploadId=u["UploadId"]).get("Parts", [])) for u in ups] or [0]))
PY
)
[ "$held" -ge 3 ] && [ "$held" -lt 12 ] || fail "the gateway holds $held of 12 parts after its restart"
ok "the restarted gateway holds $held of the 12 parts"
before=$(parts)
expect_exit 0 "the push again" env LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE="$B" "$LABRUN" push
equals "$(($(parts) - before))" "$((12 - held))" "it sends only the parts the gateway lacked (its request log)"
expect_exit 0 "pull the big run into C" lc pull
expect_exit 0 "cat it" lc cat "$(lb sql --csv "SELECT uuid FROM run ORDER BY id DESC LIMIT 1" | sed -n '2{s/\r//g;p;}')" big.bin
cmp -s "$T/out" "$T/work/big.bin" || fail "the 60 MiB artifact came back different"
ok "the 60 MiB artifact arrived whole"

# --- an archive in the gateway, verified from there
expect_exit 0 "archive --to the gateway" la archive --issue 205 -o ev.tar.zst --to lab
copy=$(sed -n 's/^  \(s3:.*\)/\1/p' "$T/out")
expect_exit 0 "verify the copy" env -u LABRUN_STORE "$LABRUN" verify --key "$T/lab.pub.pem" "$copy"
contains "$T/out" "its statement names these bytes, signed by" "its statement holds"
contains "$T/out" "0 problem(s)" "and the archive"
# a reviewer with no credentials: the two URLs 'share' prints, fetched with curl, verify on their own
expect_exit 0 "share the copy" env -u LABRUN_STORE "$LABRUN" share "$copy" --expires 1h
mkdir -p "$T/reviewer"
sed -n 's/^  \(archive\|statement\)  \([^ ]*\)  *[0-9]*  \(http.*\)/\2 \3/p' "$T/out" >"$T/urls"
equals "$(wc -l <"$T/urls")" "2" "two URLs"
while read -r name url; do
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY curl -sf -o "$T/reviewer/$name" "$url" || fail "curl $name"
done <"$T/urls"
ok "the gateway serves both to curl, without credentials"
sha=$(sed -n '1s/\.tar\.zst .*//p' "$T/urls")
expect_exit 0 "verify --statement of what curl fetched" env -u LABRUN_STORE -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY \
	"$LABRUN" verify --key "$T/lab.pub.pem" --statement "$T/reviewer/$sha.intoto.json" "$T/reviewer/$sha.tar.zst"
contains "$T/out" "its statement names these bytes, signed by" "the statement holds"
contains "$T/out" "0 problem(s)" "and the archive"

grep -rlaF "$S3_SECRET" "$A" "$B" "$C" >"$T/found" 2>/dev/null || true
equals "$(wc -l <"$T/found")" "0" "the secret is in no store"
echo "1..$tests"
