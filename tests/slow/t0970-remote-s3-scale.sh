#!/bin/sh
# An S3 remote at scale (issue 46, done-when 1 and 2), against a throwaway moto server that checks
# every signature: two stores of 500 runs each and 1 GiB of objects between them push to one prefix
# at once, a third pulls all 1,000 runs, and fsck and audit pass; boto3 reads every object back and
# each one's sha256 is its name. A 2 GiB object's push killed halfway resumes and sends only the
# parts the server does not hold (counted in its own request log), with push's peak memory under
# 64 MiB; pulling it back keeps memory as low.
. "$(dirname "$0")/../cli/lib.sh"
. "$TOP_SRCDIR/tests/cli/s3.sh"
A="$T/a" B="$T/b" C="$T/c" E="$T/e"
URI="s3://lab/scale?endpoint=$S3_URL&region=us-east-1"
for s in a b c e; do
	LABRUN_STORE=$T/$s "$LABRUN" init >/dev/null && LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$URI" ||
		fail "store $s"
done
LABRUN_STORE=$A "$LABRUN" remote init lab >/dev/null || fail "remote init"

# 500 runs in each of A and B, and four 128 MiB artifacts each: 1 GiB of objects
for s in a b; do
	i=0
	while [ $i -lt 496 ]; do
		LABRUN_STORE=$T/$s "$LABRUN" record -q -- true >/dev/null 2>&1 || fail "record $i in $s"
		i=$((i + 1))
	done
	for k in 1 2 3 4; do
		head -c 134217728 /dev/urandom >"$T/work/$s$k.bin"
		LABRUN_STORE=$T/$s "$LABRUN" record -q --artifact "$s$k.bin" -- true >/dev/null 2>&1 || fail "artifact $s$k"
		rm -f "$T/work/$s$k.bin"
	done
done
ok "1,000 runs and 1 GiB of objects recorded in A and B"
push_at_once "$A" "$B"
contains "$T/pa" "remote 'lab': 500 runs pushed" "A pushed its 500 runs"
contains "$T/pb" "remote 'lab': 500 runs pushed" "B pushed its 500 runs, at the same time"
expect_exit 0 "C pulls all" env LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/out" "remote 'lab': 1000 runs pulled, 0 already here, 0 refused" "every run arrives"
expect_exit 0 "fsck" env LABRUN_STORE="$C" "$LABRUN" fsck
contains "$T/out" "0 missing or corrupt" "every object arrives whole"
expect_exit 0 "audit" env LABRUN_STORE="$C" "$LABRUN" audit
contains "$T/out" "audit: 1000 run(s)" "all 1,000"
contains "$T/out" "0 problem(s)" "sound"
s3py >"$T/keys" <<'PY' || fail "boto3 cannot read the bucket"
import hashlib, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
n = bad = size = 0
for page in s3.get_paginator("list_objects_v2").paginate(Bucket="lab", Prefix="scale/objects/"):
    for o in page.get("Contents", []):
        h = hashlib.sha256()
        for chunk in s3.get_object(Bucket="lab", Key=o["Key"])["Body"].iter_chunks(1 << 20):
            h.update(chunk)
        n += 1
        size += o["Size"]
        bad += h.hexdigest() != o["Key"].rsplit("/", 1)[1]
print(n, bad, size)
PY
read -r n bad size <"$T/keys"
equals "$bad" "0" "each of the $n objects' sha256 is its name (boto3)"
[ "$size" -ge 1073741824 ] || fail "the bucket holds $size bytes of objects, less than 1 GiB"
ok "$size bytes of objects"

# a 2 GiB object: its push killed halfway, then resumed
head -c 2147483648 /dev/urandom >"$T/work/huge.bin"
LABRUN_STORE=$E "$LABRUN" record -q --artifact huge.bin -- true >/dev/null 2>&1 || fail "record the 2 GiB artifact"
rm -f "$T/work/huge.bin"
s3_kill_push_after scale/ 64 env LABRUN_STORE="$E" "$LABRUN" push
[ "$held" -ge 64 ] || fail "the killed push left $held of 128 parts held"
ok "the killed push left $held of 128 parts held"
: >"$S3D/log"
LABRUN_STORE=$E /usr/bin/time -f "%M" -o "$T/rss" "$LABRUN" push >"$T/out" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "the resumed push"; }
contains "$T/out" "1 run pushed" "the resumed push sends the run"
equals "$(s3_parts scale/)" "$((128 - held))" "and only the $((128 - held)) parts not yet held"
[ "$(tail -n 1 "$T/rss")" -lt 65536 ] || fail "push's peak memory is $(tail -n 1 "$T/rss") KiB"
ok "push's peak memory $(tail -n 1 "$T/rss") KiB, under 64 MiB"
LABRUN_STORE=$C /usr/bin/time -f "%M" -o "$T/rss" "$LABRUN" pull >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "pull"; }
contains "$T/out" "1 run pulled" "C pulls the 2 GiB run"
[ "$(tail -n 1 "$T/rss")" -lt 65536 ] || fail "pull's peak memory is $(tail -n 1 "$T/rss") KiB"
ok "pull's peak memory $(tail -n 1 "$T/rss") KiB, under 64 MiB"
expect_exit 0 "fsck after it" env LABRUN_STORE="$C" "$LABRUN" fsck
contains "$T/out" "0 missing or corrupt" "the 2 GiB object is whole"
echo "1..$tests"
