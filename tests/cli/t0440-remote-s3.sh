#!/bin/sh
# An S3 remote (issue 46): a bucket alone is a complete remote. Against a throwaway moto server
# that checks every request's signature: two stores push to one prefix at once and a third pulls
# both; every run and object arrives, fsck, audit and verify of a crate pass, and the third store's
# report for the issue is the union of the two. boto3, an independent client, lists and reads every
# object labrun wrote, and each one's sha256 is its name. Pushing again sends nothing; the same uuid
# with other content is refused and named; a wrong secret, a missing bucket and a URI holding a
# secret are each one message naming what to fix, the access key id and never the secret, which
# no store, log, crate or archive holds. A 60 MiB object goes in parts, and a push killed after its
# second part resumes with the parts the server lacks, under 64 MiB of memory; through a proxy that
# answers 503 SlowDown twice to every request the push gets through, and when it only answers 503 the
# push is named and writes nothing; a full disk on the pulling side stores nothing of the run.
# docs/remote.md's S3 walk-through runs as written.
. "$(dirname "$0")/lib.sh"
. "$TOP_SRCDIR/tests/cli/s3.sh"
X="$TOP_SRCDIR/tests/fixtures/experiments"
F="$TOP_SRCDIR/tests/fixtures/serving"
URI="s3://lab/team/evidence?endpoint=$S3_URL&region=us-east-1"
"$LABRUN" key init >/dev/null 2>&1 || fail "key init"
"$LABRUN" key export >"$T/lab.pub.pem"
hosts a b c

# --- remote add: an s3:// URI, checked, never with a secret in it
expect_exit 2 "a URI holding a secret is refused" la remote add lab "s3://$S3_KEY:$S3_SECRET@lab/x"
contains "$T/err" "it holds a user or a secret" "says why"
lacks "$T/err" "$S3_SECRET" "without repeating it"
expect_exit 2 "a bucket name S3 does not allow" la remote add lab "s3://Lab_Evidence/x"
contains "$T/err" "its bucket is not 3 to 63 lower-case letters" "says why"
expect_exit 2 "an endpoint that is not a URL" la remote add lab "s3://lab/x?endpoint=ftp://h"
equals "$(la sql --csv "SELECT count(*) FROM remote" | sed -n '2{s/\r//g;p;}')" "0" "nothing stored"
for s in a b c; do LABRUN_STORE=$T/$s "$LABRUN" remote add lab "$URI" || fail "remote add in $s"; done
expect_exit 0 "remote list" la remote list
contains "$T/out" "lab	$URI	(added " "lists the URI"

# --- a bucket becomes a remote once
expect_exit 3 "push to a prefix that is not a remote yet" la push
contains "$T/err" "remote 'lab' (bucket 'lab', prefix 'team/evidence/' at $S3_URL) is not a labrun remote yet" \
	"names the remote"
contains "$T/err" "labrun remote init lab" "and the fix"
expect_exit 0 "remote init" la remote init lab
contains "$T/out" "remote 'lab': marked as a labrun remote (layout 1)" "marks the prefix"
expect_exit 0 "remote init again" lb remote init lab
contains "$T/out" "remote 'lab': a labrun remote already (layout 1)" "idempotent"

# --- evidence on two hosts: an experiment run, records with an artifact, a failed run, responses
(cd "$T/work" && la run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in A"
head -c 3000000 /dev/urandom >"$T/work/big.bin"
la record -q --issue 205 --artifact big.bin -- echo from-a >/dev/null 2>&1 || fail "record in A"
(cd "$T/work" && lb run -q "$X/tiny-encode.ini" >/dev/null 2>&1) || fail "tiny-encode in B"
expect_exit 3 "a failed run in B (kept)" lb record -q --issue 205 -- sh -c 'echo b; exit 3'
lb ingest responses --run 2 --route atom "$F/atom.jsonl" >/dev/null || fail "ingest in B"

# --- both push at once, to one prefix, with no lock
push_at_once "$A" "$B"
ok "A and B pushed at once"
contains "$T/pa" "remote 'lab': 2 runs pushed, 0 already there, 0 refused, 0 skipped" "A's two runs"
contains "$T/pb" "remote 'lab': 2 runs pushed, 0 already there, 0 refused, 0 skipped" "B's two runs"
expect_exit 0 "push A again" la push
contains "$T/out" "0 runs pushed, 2 already there, 0 refused, 0 skipped; 0 objects sent (0 B)" "sends nothing"

# --- boto3 reads back what labrun wrote: every object's and bundle's sha256 is its name
s3py >"$T/keys" <<'PY' || fail "boto3 cannot read the bucket"
import hashlib, os, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
keys, token = [], None
while True:
    page = s3.list_objects_v2(Bucket="lab", Prefix="team/evidence/", **({"ContinuationToken": token} if token else {}))
    keys += [o["Key"] for o in page.get("Contents", [])]
    if not page.get("IsTruncated"):
        break
    token = page["NextContinuationToken"]
for k in keys:
    body = s3.get_object(Bucket="lab", Key=k)["Body"].read()
    kind, name = k[len("team/evidence/"):].split("/", 1) if "/" in k[len("team/evidence/"):] else ("", k)
    same = hashlib.sha256(body).hexdigest() == name if kind in ("objects", "bundles") else None
    print(kind or "marker", name, {True: "same", False: "DIFFERENT", None: "-"}[same])
PY
equals "$(grep -c ' DIFFERENT$' "$T/keys")" "0" "each object's and bundle's sha256 is its name (boto3)"
equals "$(grep -c '^runs ' "$T/keys")" "4" "four runs' indexes"
equals "$(grep -c '^bundles .* same$' "$T/keys")" "4" "four bundles"
# an object both pushers had is sent by one: the other's write is refused (If-None-Match), not repeated
sent=$(cat "$T/pa" "$T/pb" | sed -n 's/.*; \([0-9]*\) objects sent.*/\1/p' | awk '{ n += $1 } END { print n }')
equals "$(grep -c '^objects .* same$' "$T/keys")" "$sent" "every object either store sent, once"

# --- a third store pulls both
expect_exit 0 "pull into C" lc pull
contains "$T/out" "remote 'lab': 4 runs pulled, 0 already here, 0 refused" "the four runs"
expect_exit 0 "fsck of the pulling store" lc fsck
contains "$T/out" "0 missing or corrupt" "every object is here"
expect_exit 0 "audit of the pulled runs" lc audit
contains "$T/out" "audit: 4 run(s)" "all four"
contains "$T/out" "0 problem(s)" "sound"
expect_exit 0 "cat the pulled artifact" lc cat "$(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')" big.bin
cmp -s "$T/out" "$T/work/big.bin" || fail "the 3 MB artifact came back different"
ok "the 3 MB artifact's bytes came along"
report_is_union 205 "$A" "$B" "$C"
expect_exit 0 "a crate of the pulled runs" lc manifest --issue 205 -o "$T/crate" --license CC-BY-4.0
expect_exit 0 "it verifies with the lab's key, with no store" \
	sh -c "cd '$T' && env -u LABRUN_STORE '$LABRUN' verify --key '$T/lab.pub.pem' '$T/crate'"
contains "$T/out" "0 problem(s)" "clean"

# --- the same uuid with other content is refused and named; the others go on
la ingest responses --run 2 --route late "$F/atom.jsonl" >/dev/null || fail "amend A's run 2"
expect_exit 1 "push of an amended run" la push
contains "$T/err" "remote 'lab' refuses run $(la sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')" \
	"names the run"
contains "$T/err" "pushed by $S3_KEY from $(hostname)" "and who pushed the copy the remote keeps"

# --- failures name the remote, the key id and the fix, never a secret
expect_exit 3 "a wrong secret" env AWS_SECRET_ACCESS_KEY=not-the-secret-41 LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/err" "SignatureDoesNotMatch" "the service's refusal"
contains "$T/err" "signed with access key $S3_KEY from the environment (AWS_ACCESS_KEY_ID)" "which key"
lacks "$T/err" "not-the-secret-41" "never the secret given"
lacks "$T/err" "$S3_SECRET" "nor the right one"
expect_exit 3 "no credentials at all" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$T/nohome" \
	LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/err" "no S3 credentials" "says so"
mkdir -p "$T/home/.aws"
printf '[lab]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$S3_KEY" "$S3_SECRET" >"$T/home/.aws/credentials"
expect_exit 0 "a profile of ~/.aws/credentials" env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY HOME="$T/home" \
	AWS_PROFILE=lab LABRUN_STORE="$C" "$LABRUN" pull
contains "$T/out" "0 runs pulled, 4 already here" "reads the remote"
LABRUN_STORE=$T/d "$LABRUN" init >/dev/null && LABRUN_STORE=$T/d "$LABRUN" remote add nob \
	"s3://no-such-bucket?endpoint=$S3_URL&region=us-east-1"
expect_exit 3 "a bucket that does not exist" env LABRUN_STORE="$T/d" "$LABRUN" pull nob
contains "$T/err" "NoSuchBucket" "the service's code"
contains "$T/err" "create bucket 'no-such-bucket' first" "and the fix"
expect_exit 0 "an archive of the pulled runs" lc archive --issue 205 -o "$T/ev.tar.zst"
for where in "$A" "$B" "$C" "$T/crate" "$T/ev.tar.zst"; do
	! grep -rqaF "$S3_SECRET" "$where" || fail "the secret is in $where"
done
ok "no store, log, crate or archive holds the secret"
# --- a large object goes in parts; a push killed in the middle resumes, sending only the parts not
# yet held (counted in the server's own request log), with one part in memory at a time
head -c 62914560 /dev/urandom >"$T/work/huge.bin" # 60 MiB: twelve parts of 5 MiB
la record -q --artifact huge.bin -- true >/dev/null 2>&1 || fail "record the 60 MiB artifact"
s3_kill_push_after team/evidence/ 2 env LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE="$A" "$LABRUN" push --run last
[ "$held" -ge 2 ] || fail "the killed push left $held parts held, not 2 or more"
ok "the killed push left $held of 12 parts held"
: >"$S3D/log"
LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE=$A /usr/bin/time -f "%M" -o "$T/rss" "$LABRUN" push --run last --progress \
	>"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "the resumed push"; }
contains "$T/out" "1 run pushed" "the resumed push sends the run"
HUGE=$(sha256sum "$T/work/huge.bin" | cut -c1-16)
contains "$T/err" "labrun push: pushed 0 of 1 runs, $HUGE...: " "--progress names the object in flight"
contains "$T/err" " of 60.0 MiB, " "with its bytes"
equals "$(s3_parts team/evidence/)" "$((12 - held))" "and only the parts not yet held"
[ "$(tail -n 1 "$T/rss")" -lt 65536 ] || fail "push's peak memory is $(tail -n 1 "$T/rss") KiB, 64 MiB or more"
ok "push's peak memory $(tail -n 1 "$T/rss") KiB, under 64 MiB"
# on a terminal (script(1) gives the pull one) the line is redrawn at every whole percent of the object
script -qec "env LABRUN_STORE='$C' '$LABRUN' pull" "$T/tty" >/dev/null || { cat "$T/tty" >&2; fail "C pulls the 60 MiB object"; }
ok "C pulls the 60 MiB object, on a terminal"
contains "$T/tty" "runs, $HUGE...: 30.0 of 60.0 MiB, " "the progress line names the object coming and its bytes"
expect_exit 0 "cat it" lc cat "$(la sql --csv "SELECT uuid FROM run WHERE id = (SELECT max(id) FROM run)" | sed -n '2{s/\r//g;p;}')" huge.bin
cmp -s "$T/out" "$T/work/huge.bin" || fail "the 60 MiB object came back different"
ok "its bytes are the recorded ones"

# --- a 503 storm: every request refused twice with SlowDown before it passes is retried through it;
# a service that only refuses is named after the retries, and nothing of the run is written
s3_proxy storm
S="$T/storm"
LABRUN_STORE=$S "$LABRUN" init >/dev/null &&
	LABRUN_STORE=$S "$LABRUN" remote add lab "s3://lab/team/evidence?endpoint=http://127.0.0.1:$P_PORT&region=us-east-1"
head -c 7000000 /dev/urandom >"$T/work/storm.bin"
LABRUN_STORE=$S "$LABRUN" record -q --issue 205 --artifact storm.bin -- echo storm >/dev/null 2>&1 || fail "record in S"
LABRUN_S3_PART_SIZE=5242880 LABRUN_STORE=$S "$LABRUN" push >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "push through the storm"; }
contains "$T/out" "remote 'lab': 1 run pushed" "the push gets through a 503 storm"
[ "$(grep -c . "$T/proxy.log")" -ge 30 ] || fail "the proxy saw too few requests to have stormed"
ok "every one of its $(($(grep -c . "$T/proxy.log") / 3)) requests was refused twice first"
echo down >"$T/mode"
LABRUN_STORE=$S "$LABRUN" record -q -- echo refused >/dev/null 2>&1 || fail "record the second run in S"
expect_exit 3 "a service that only answers 503" env LABRUN_STORE="$S" "$LABRUN" push --run last
contains "$T/err" "HTTP 503, SlowDown: Please reduce your request rate." "the service's answer, after the retries"
contains "$T/err" "remote 'lab' (bucket 'lab', prefix 'team/evidence/' at http://127.0.0.1:$P_PORT)" "names the remote"
echo hostile >"$T/mode"
expect_exit 3 "a service whose refusal holds terminal escapes" env LABRUN_STORE="$S" "$LABRUN" push --run last
contains "$T/err" "HTTP 403, AccessDenied?2J: ?31mred?0m" "its words are shown with the escapes made visible"
! grep -q "$(printf '\302\233')" "$T/err" || fail "a CSI (U+009B) reached the terminal"
ok "no escape character reaches the terminal"
down=$(LABRUN_STORE=$S "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')
echo pass >"$T/mode"
expect_exit 0 "pull with the service back" lc pull --run "$down"
contains "$T/out" "0 runs pulled" "nothing of the refused push was written"
expect_exit 0 "push again" env LABRUN_STORE="$S" "$LABRUN" push --run last
contains "$T/out" "1 run pushed" "sends it"

# --- a run's index another host wrote with escapes in it, and one that is not JSON: each refused by
# name, the other runs pulled
s3py <<'PY' || fail "plant two hostile indexes"
import json, sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
bad = {"labrun_run_index": 1, "uuid": "0badc0de-0000-4000-8000-000000000001", "bundle_sha256": "0" * 64,
       "hostname": "gpu-3", "pushed_at": "2026-01-01T00:00:00Z", "pushed_by": "x\u009b31m", "pushed_from": "gpu-3",
       "issues": ["205"], "kind": "record", "status": "passed", "started_at": "2026-01-01T00:00:00Z"}
s3.put_object(Bucket="lab", Key="team/evidence/runs/0badc0de-0000-4000-8000-000000000001.json", Body=json.dumps(bad))
s3.put_object(Bucket="lab", Key="team/evidence/runs/0badc0de-0000-4000-8000-000000000002.json", Body=b"\x1b[2J not json")
PY
R="$T/r"
LABRUN_STORE=$R "$LABRUN" init >/dev/null && LABRUN_STORE=$R "$LABRUN" remote add lab "$URI"
expect_exit 1 "pull past two hostile indexes" env LABRUN_STORE="$R" "$LABRUN" pull
contains "$T/err" "refused 0badc0de-0000-4000-8000-000000000001: remote 'lab' (bucket 'lab', prefix 'team/evidence/' at $S3_URL) holds an index of run 0badc0de-0000-4000-8000-000000000001 that is not labrun's" \
	"the index with an escape is refused by name"
contains "$T/err" "refused 0badc0de-0000-4000-8000-000000000002" "so is the one that is not JSON"
! grep -q "$(printf '\302\233')" "$T/err" "$T/out" || fail "a CSI reached the terminal"
contains "$T/out" "runs pulled, 0 already here, 2 refused" "the other runs come"
expect_exit 0 "the filtered pull does not stumble on them" env LABRUN_STORE="$R" "$LABRUN" pull --issue 205
s3py <<'PY' || fail "remove the hostile indexes"
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
for k in ("1", "2"):
    s3.delete_object(Bucket="lab", Key="team/evidence/runs/0badc0de-0000-4000-8000-00000000000%s.json" % k)
PY

# --- a full disk on the pulling side: exit 3 naming the run and the remote, nothing of it stored
# (a file size limit stands in for the disk)
storm=$(LABRUN_STORE=$S "$LABRUN" sql --csv "SELECT uuid FROM run WHERE id = 1" | sed -n '2{s/\r//g;p;}')
H="$T/h"
LABRUN_STORE=$H "$LABRUN" init >/dev/null && LABRUN_STORE=$H "$LABRUN" remote add lab "$URI"
set +e
(trap '' XFSZ; ulimit -f 4096; LABRUN_STORE=$H exec "$LABRUN" pull --run "$storm") >"$T/out" 2>"$T/err"
got=$?
set -e
equals "$got" "3" "a disk that fills during a pull: exit 3"
contains "$T/err" "cannot pull run $storm from remote 'lab' into this store" "names the run and the remote"
contains "$T/err" "hint: nothing of that run was stored" "and says what happened"
equals "$(LABRUN_STORE=$H "$LABRUN" sql --csv "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT count(*) FROM object)" | sed -n '2{s/\r//g;p;}') $(find "$H/objects/tmp" -type f | wc -l | tr -d ' ')" \
	"0 0 0" "no run, no object row, no partial file"
expect_exit 0 "with room, the same pull succeeds" env LABRUN_STORE="$H" "$LABRUN" pull --run "$storm"
contains "$T/out" "1 run pulled" "the run arrives"

# --- share: presigned GET URLs, each equal to botocore's for the same key, time and expiry; never
# the secret; a run not pushed is named
expect_exit 0 "share a pushed run's bundle and objects" lb share lab --run 2 --expires 90m
contains "$T/out" "run $(lb sql --csv "SELECT uuid FROM run WHERE id = 2" | sed -n '2{s/\r//g;p;}')" "names the run"
contains "$T/out" "X-Amz-Expires=5400&" "for 90 minutes"
lacks "$T/out" "$S3_SECRET" "the URLs do not hold the secret"
"$S3PY" "$TOP_SRCDIR/tests/cli/presign-check.py" us-east-1 <"$T/out" >"$T/check" || fail "presign-check.py"
[ "$(grep -c '^same$' "$T/check")" = "$(tail -n 1 "$T/check")" ] && [ "$(tail -n 1 "$T/check")" -ge 2 ] ||
	{ cat "$T/check" >&2; fail "a URL's signature is not botocore's"; }
ok "each of the $(tail -n 1 "$T/check") URLs is signed as botocore signs it"
expect_exit 2 "longer than S3 allows" la share lab --run 1 --expires 8d
contains "$T/err" "invalid --expires '8d'" "named"
LABRUN_STORE=$A "$LABRUN" record -q -- echo not-pushed >/dev/null 2>&1
expect_exit 1 "a run not pushed" la share lab --run last
contains "$T/err" "bucket 'lab', prefix 'team/evidence/' at $S3_URL has no bundle" "is named, with the bucket"
contains "$T/err" "push the run first" "with the fix"

# --- a remote whose copy of an object is not the size the run names: refused before a byte is written
sha=$(sha256sum "$T/work/storm.bin" | cut -d' ' -f1)
s3py "$sha" <<'PY' || fail "swap the object for a larger one"
import sys
import boto3
s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1")
key = "team/evidence/objects/" + sys.argv[2]
s3.delete_object(Bucket="lab", Key=key)
s3.put_object(Bucket="lab", Key=key, Body=b"x" * 9000000)
PY
Q="$T/q"
LABRUN_STORE=$Q "$LABRUN" init >/dev/null && LABRUN_STORE=$Q "$LABRUN" remote add lab "$URI"
expect_exit 3 "an object the remote holds with another size" env LABRUN_STORE="$Q" "$LABRUN" pull --run "$storm"
contains "$T/err" "remote 'lab' holds object $sha with 9000000 bytes; the run that names it says 7000000" "is named"
# (objects of the run that arrived whole before it stay, content-addressed, as docs/remote.md says)
[ ! -e "$Q/objects/$(printf %.2s "$sha")/${sha#??}" ] && [ -z "$(find "$Q/objects" -type f -size 9000000c)" ] ||
	fail "the swapped object's bytes were kept"
equals "$(find "$Q/objects/tmp" -type f 2>/dev/null | wc -l | tr -d ' ')" "0" "and nothing of it was written"

# --- docs/remote.md's S3 walk-through, as a newcomer types it (only the endpoint is the test server's)
awk '/^## S3 remotes/ { s = 1 } s && /^```text/ { b = 1; next } b && /^```/ { exit } b' "$TOP_SRCDIR/docs/remote.md" |
	grep '^labrun ' | sed -e "s#https://s3.lab.example:9000#$S3_URL#" -e "s#^labrun #\"$LABRUN\" #" >"$T/walk.sh"
equals "$(wc -l <"$T/walk.sh" | tr -d ' ')" "5" "the walk-through's five commands"
N="$T/newcomer"
LABRUN_STORE=$N "$LABRUN" record -q --issue 270 -- echo measured >/dev/null 2>&1 || fail "a run for issue 270"
expect_exit 0 "docs/remote.md's commands run as written" env LABRUN_STORE="$N" sh -e "$T/walk.sh"
contains "$T/out" "remote 'lab': 1 run pushed" "push sends the run"
contains "$T/out" "0 runs pulled, 1 already here" "pull finds it"
contains "$T/out" "# labrun report: issue 270" "and the report covers the issue"
echo "1..$tests"
