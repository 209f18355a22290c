#!/bin/sh
# A PostgreSQL remote whose objects live in a bucket (issue 46: 'remote add ... --objects s3://'),
# against a throwaway PostgreSQL cluster and a throwaway moto server, both started here. The rows go
# to the database, the bytes to the bucket (boto3 reads them back, each one's sha256 its name, and
# the database holds no chunk of them); a second store pulls whole and a third lazily, both reading
# the bytes from the bucket; a host that knows no bucket is told which one the remote names; objects
# in the database and in the bucket mix on one remote; a remote made before migration 2 is refused
# until 'remote init' migrates it. The secret is in no store.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/pg.sh"
. "$TOP_SRCDIR/tests/cli/s3.sh"
cleanup() { s3_stop; pg_stop; rm -rf "$T" "$S3D" "$PGD"; }
OBJ="s3://lab/pgobj?endpoint=$S3_URL&region=us-east-1"
hosts a b c d

# --- --objects: a bucket's URI, for a PostgreSQL remote only
expect_exit 2 "--objects with an S3 remote" la remote add s3r "s3://lab/x?endpoint=$S3_URL" --objects "$OBJ"
contains "$T/err" "an S3 remote keeps its objects in its own bucket" "is refused"
expect_exit 2 "--objects holding a secret" la remote add lab "$PG_URI" --objects "s3://$S3_KEY:$S3_SECRET@lab/x"
lacks "$T/err" "$S3_SECRET" "is refused without repeating it"
expect_exit 2 "--objects with another subcommand" la remote list --objects "$OBJ"
for s in a b c; do LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$PG_URI" --objects "$OBJ" || fail "remote add in $s"; done
ld remote add lab "$PG_URI" || fail "remote add in d"
expect_exit 0 "remote list" la remote list
contains "$T/out" "lab	$PG_URI	(added " "lists the URI"
contains "$T/out" "	objects $OBJ" "and the bucket"
expect_exit 0 "remote init" la remote init lab
contains "$T/out" "applied 2 migrations, schema version 2" "makes the schema"

# --- the rows to the database, the bytes to the bucket
head -c 9000000 /dev/urandom >big.bin
la record -q --issue 205 --artifact big.bin -- echo from-a >/dev/null 2>&1 || fail "record in A"
expect_exit 0 "push, objects in parts" env LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE="$A" "$LABRUN" push
contains "$T/out" "remote 'lab': 1 run pushed" "the run"
BIG=$(sha256sum big.bin | cut -d' ' -f1)
equals "$(pg_sql "SELECT count(*) FROM object_chunk")" "0" "no byte in the database"
equals "$(pg_sql "SELECT count(*) FROM object WHERE bucket = '$OBJ'")" \
	"$(pg_sql "SELECT count(*) FROM run_object")" "every object's row names the bucket"
s3py "$BIG" >"$T/keys" <<'PY' || fail "boto3 cannot read the bucket"
import hashlib, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
keys = [o["Key"] for o in s3.list_objects_v2(Bucket="lab", Prefix="pgobj/objects/").get("Contents", [])]
for k in keys:
    body = s3.get_object(Bucket="lab", Key=k)["Body"].read()
    print(k.rsplit("/", 1)[1], "same" if hashlib.sha256(body).hexdigest() == k.rsplit("/", 1)[1] else "DIFFERENT")
PY
contains "$T/keys" "$BIG same" "boto3: the 9 MB artifact is in the bucket under its sha256"
equals "$(grep -c DIFFERENT "$T/keys")" "0" "every object's sha256 is its name"
equals "$(wc -l <"$T/keys")" "$(pg_sql "SELECT count(*) FROM object")" "one key per object row"

# --- pulls read the bytes from the bucket
expect_exit 0 "pull into B" lb pull
contains "$T/out" "1 run pulled" "the run"
expect_exit 0 "cat the artifact in B" lb cat "$(la sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')" big.bin
cmp -s "$T/out" big.bin || fail "the artifact came back different"
ok "its bytes came from the bucket"
expect_exit 0 "fsck of B" lb fsck
contains "$T/out" "0 missing or corrupt" "every object is here"
expect_exit 0 "a lazy pull into C" lc pull --objects lazy
expect_exit 0 "reading the artifact fetches it" lc cat "$(la sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')" big.bin
cmp -s "$T/out" big.bin || fail "the lazily fetched artifact is different"
ok "from the bucket, on first read"

# --- a host that knows no bucket is told which one
expect_exit 1 "pull into D, which knows no bucket" ld pull
contains "$T/err" "remote 'lab' keeps object" "names the object"
contains "$T/err" "in a bucket, $OBJ, and this store knows no bucket for it" "and the bucket"
contains "$T/err" "--objects" "and how to add it"
equals "$(ld sql --csv "SELECT count(*) FROM run" | sed -n '2{s/\r//g;p;}')" "0" "nothing stored in D"

# --- objects in the database and in the bucket on one remote
ld record -q --issue 205 -- echo from-d >/dev/null 2>&1 || fail "record in D"
expect_exit 0 "D pushes its objects to the database" ld push
[ "$(pg_sql "SELECT count(*) FROM object_chunk")" -gt 0 ] || fail "D's objects are not in the database"
ok "D's objects went to the database"
expect_exit 0 "B pulls D's run too" lb pull
contains "$T/out" "1 run pulled, 1 already here" "from the chunks"
expect_exit 0 "fsck of B again" lb fsck
contains "$T/out" "0 missing or corrupt" "both kinds arrived"

# --- a remote from before migration 2 is migrated by remote init
pg_sql "ALTER TABLE object DROP COLUMN bucket; DELETE FROM labrun_migration WHERE version = 2" 2>/dev/null ||
	fail "cannot make a version 1 remote"
expect_exit 3 "push to a version 1 remote" la push
contains "$T/err" "has schema version 1; this labrun needs 2" "says so"
expect_exit 0 "remote init migrates it" la remote init lab
contains "$T/out" "applied 1 migration, schema version 2" "one migration"

grep -rlaF "$S3_SECRET" "$A" "$B" "$C" "$D" >"$T/found" 2>/dev/null || true
equals "$(wc -l <"$T/found")" "0" "the secret is in no store"
echo "1..$tests"
